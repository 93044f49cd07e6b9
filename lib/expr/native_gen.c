/* SPDX-License-Identifier: MIT */
/*
 * native_gen.c — build tool: compiles the counters of embedded counter files
 * to C (see native.h).  One job, the writer of the generated C, kept in one
 * file of about 950 lines: its parts (tables, parts, tail, names) write one
 * output together and share its buffers, and the parts' writer
 * (write_parts) and the integer counters' (integer_text) read the same
 * postfix walk, expression text and ranges as the counters'.
 *
 * usage: native-gen TABLES.c PART.c... -- FILE.counters...
 *
 * One PART.c per FILE.counters, in the same order: the file's set (its
 * counter functions, its set function, their shapes), so that the sets
 * compile apart and in parallel, each a few hundred kilobytes of C rather
 * than megabytes in one unit.  TABLES.c holds what joins them: the
 * og_native_sets and og_native_counters tables and the og_native_names
 * blob (native.h), which reach each part's code through external names
 * (og_native_set_N, og_native_counter_N, og_native_shapes_N), hidden in the
 * library by -fvisibility=hidden.  The counters table holds offsets and
 * indices, no pointers: a pointer in a shared library is a relocation the
 * loader writes in every process that loads it, and there are thousands of
 * counters.  A file
 * with no counter to compile gets a part with nothing in it.
 *
 * It reads the files with the library's own reader and compiles each counter
 * with the library's own compiler, so the C it writes is the postfix the
 * library would interpret, not a second reading of the format.  Each counter
 * becomes a function of the set's leaves (its file's raw counters and
 * constants, each numbered once per set), each postfix operation the same
 * operation of arith.h in the same order; each file becomes one function
 * that writes every counter's value as the batch read gives it (the
 * counter functions, static inline in their part, inlined there; one
 * function per set, og_native_counter_N, gives each by its position).  The build
 * compiles the output with -ffp-contract=off so that no multiply-add fuses
 * two roundings into one.  A counter naming something its file does not
 * declare (a raw counter another file or the backend supplies) is left to
 * the interpreter, as is one whose folded numbers are not finite (a C
 * literal might not reproduce a NaN's bits).
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "catalog/counterfile.h"
#include "catalog/counterorder.h"
#include "catalog/gen_tool.h"
#include "expr/expr.h"
#include "expr/native.h"

struct input {
	char origin[256];      /* "counters/NAME.counters", as embed.py names it */
	struct og_cf_file file;
	struct og_expr **compiled; /* per entry; NULL for non-counters */
};

struct record {
	const struct input *in;
	const struct og_cf_entry *entry;
	const struct og_expr *expr;
	uint32_t set, position;
	size_t number;     /* its counter function: c_<number> */
	uint32_t shape_at; /* where its postfix starts in its set's shapes */
};

const char gen_tool_name[] = "native-gen";

/* Strings built up from the postfix, one per value on the stack. */
static char *concat(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *concat(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = NULL;
	if (vasprintf(&s, fmt, ap) < 0)
		die("out of memory");
	va_end(ap);
	return s;
}

/* Names resolve as in the catalogue: ignoring case, raw counters, constants
 * and counters (by name or alias) anywhere in the file (counters compile in
 * the catalogue's order, counterorder.h, so the ones named are compiled
 * first). */
static bool resolve(void *ud, const char *name, size_t len, struct og_expr_ref *out)
{
	const struct input *in = ud;
	size_t i;
	const struct og_cf_entry *e = gen_find(&in->file, name, len, &i);
	if (!e)
		return false;
	switch (e->kind) {
	case OG_CF_RAW:
		*out = (struct og_expr_ref){ .kind = OG_REF_RAW, .index = (uint32_t)i };
		return true;
	case OG_CF_CONSTANT:
		*out = (struct og_expr_ref){ .kind = OG_REF_CONSTANT, .index = (uint32_t)i };
		return true;
	case OG_CF_COUNTER:
		if (!in->compiled[i])
			return false;
		*out = (struct og_expr_ref){ .kind = OG_REF_EXPR, .expr = in->compiled[i] };
		return true;
	default:
		return false;
	}
}

static void load(struct input *in, const char *path)
{
	gen_read(path, &in->file, in->origin, sizeof(in->origin));
	char err[512];
	in->compiled = must(calloc(in->file.count + 1, sizeof(*in->compiled)));
	size_t *order = must(calloc(in->file.count + 1, sizeof(*order))), n = 0;
	if (!og_cf_counter_order(&in->file, NULL, NULL, order, &n, err, sizeof(err)))
		die("%s", err);
	for (size_t k = 0; k < n; k++) {
		const struct og_cf_entry *e = &in->file.entries[order[k]];
		in->compiled[order[k]] = og_expr_compile(e->field[OG_F_EXPRESSION], resolve, in, NULL, 0);
	}
	free(order);
}

static bool is_leaf(const struct og_expr_op *op)
{
	return op->code == OG_OP_NUMBER || op->code == OG_OP_RAW || op->code == OG_OP_CONSTANT ||
	       op->code == OG_OP_SHARED;
}

static bool writable(const struct og_expr *e)
{
	const struct og_expr_op *ops;
	size_t n = og_expr_postfix(e, &ops);
	for (size_t i = 0; i < n; i++)
		if (ops[i].code == OG_OP_NUMBER && !isfinite(ops[i].number))
			return false;
	return true;
}

static int by_origin_then_name(const void *a, const void *b)
{
	const struct record *x = a, *y = b;
	int c = strcmp(x->in->origin, y->in->origin);
	return c ? c : strcasecmp(x->entry->name, y->entry->name);
}

/* Slots: the distinct leaves of one set, in order of first appearance,
 * raw counters and constants numbered apart: leaf[slot] and k[slot]. */
struct slots {
	struct og_expr_op *leaf;
	uint32_t count, cap;
	uint32_t nraw, nconst;
	uint32_t *number; /* per leaf: its raw or constant slot */
};

static uint32_t slot_of(struct slots *s, const struct og_expr_op *op)
{
	for (uint32_t i = 0; i < s->count; i++)
		if (s->leaf[i].code == op->code && s->leaf[i].index == op->index)
			return s->number[i];
	if (s->count == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->leaf = must(realloc(s->leaf, s->cap * sizeof(*s->leaf)));
		s->number = must(realloc(s->number, s->cap * sizeof(*s->number)));
	}
	s->leaf[s->count] = *op;
	s->number[s->count] = op->code == OG_OP_RAW ? s->nraw++ : s->nconst++;
	return s->number[s->count++];
}

static char *number_literal(double x)
{
	return signbit(x) ? concat("(%a)", x) : concat("%a", x);
}

/* hoisted: per raw slot, whether the code around has it as a double in
 * L<slot> already (write_parts); NULL: none. */
static char *leaf_text(struct slots *s, const struct og_expr_op *op, const bool *hoisted)
{
	switch (op->code) {
	case OG_OP_RAW:
		if (hoisted && hoisted[slot_of(s, op)])
			return concat("L%u", slot_of(s, op));
		return concat("(double)leaf[%u]", slot_of(s, op));
	case OG_OP_CONSTANT: return concat("k[%u]", slot_of(s, op));
	case OG_OP_SHARED: return concat("s%u", op->index);
	default: return number_literal(op->number);
	}
}

/* What is known of a value of the postfix: bounds, whether it can be NaN,
 * whether it is a whole number.  Raw counts are whole and in [0, 2^64];
 * device constants could be anything.  It lets the code skip the policy's
 * checks where they cannot change a value, bit for bit: og_arith_result on
 * a value that is always finite, the NaN tests of min() and max() on an
 * operand that is never NaN. */
struct range {
	double lo, hi;
	bool nan, whole;
};

static struct range add_ranges(struct range a, struct range b, int sign)
{
	struct range r = { a.lo + (sign > 0 ? b.lo : -b.hi), a.hi + (sign > 0 ? b.hi : -b.lo),
	                   a.nan || b.nan, a.whole && b.whole };
	if (isnan(r.lo) || isnan(r.hi)) /* inf - inf */
		r = (struct range){ -INFINITY, INFINITY, true, false };
	return r;
}

static struct range mul_ranges(struct range a, struct range b)
{
	if (a.nan || b.nan || isinf(a.lo) || isinf(a.hi) || isinf(b.lo) || isinf(b.hi))
		return (struct range){ -INFINITY, INFINITY, true, false };
	double p[4] = { a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi };
	struct range r = { p[0], p[0], false, a.whole && b.whole };
	for (int i = 1; i < 4; i++) {
		r.lo = fmin(r.lo, p[i]);
		r.hi = fmax(r.hi, p[i]);
	}
	return r;
}

/* og_arith_div: 0 for y = 0; over a whole y >= 1 no larger than x. */
static struct range div_ranges(struct range x, struct range y)
{
	if (!x.nan && !y.nan && y.whole && y.lo >= 0 && !isinf(x.lo) && !isinf(x.hi))
		return (struct range){ fmin(x.lo, 0), fmax(x.hi, 0), false, false };
	return (struct range){ -INFINITY, INFINITY, true, false };
}

/* og_arith_min / og_arith_max ignore a NaN operand. */
static struct range min_max_ranges(struct range x, struct range y, bool max)
{
	struct range r = { max ? fmax(x.lo, y.lo) : fmin(x.lo, y.lo),
	                   max ? fmax(x.hi, y.hi) : fmin(x.hi, y.hi), x.nan && y.nan,
	                   x.whole && y.whole };
	if (x.nan) { /* a NaN x gives y */
		r.lo = fmin(r.lo, y.lo);
		r.hi = fmax(r.hi, y.hi);
	}
	if (y.nan) {
		r.lo = fmin(r.lo, x.lo);
		r.hi = fmax(r.hi, x.hi);
	}
	return r;
}

static bool always_finite(struct range r)
{
	return !r.nan && !isinf(r.lo) && !isinf(r.hi);
}

static char *operation_text(enum og_expr_op_code code, char *l, char *r, struct range lr,
                            struct range rr)
{
	char *s;
	switch (code) {
	case OG_OP_ADD: s = concat("(%s + %s)", l, r); break;
	case OG_OP_SUB: s = concat("(%s - %s)", l, r); break;
	case OG_OP_MUL: s = concat("(%s * %s)", l, r); break;
	/* Over a divisor that is never NaN nor below 0 (a count), the test
	 * for 0 is one comparison. */
	case OG_OP_DIV:
		s = concat("og_arith_div%s(%s, %s)", !rr.nan && rr.lo >= 0 ? "_count" : "", l, r);
		break;
	/* With a first operand that is never NaN, the plain comparison, and
	 * none where its range says the answer is that operand: min(x, y) is
	 * x unless y < x, max(x, y) unless y > x (a NaN y gives x too), so
	 * max(x, 0) of a ratio of counts (never below 0) is x, bit for bit
	 * (-0 included: 0 > -0 is false). */
	case OG_OP_MIN:
		if (!lr.nan && rr.lo >= lr.hi) {
			free(r);
			return l;
		}
		s = concat("og_arith_min%s(%s, %s)", lr.nan ? "" : "_num", l, r);
		break;
	case OG_OP_MAX:
		if (!lr.nan && rr.hi <= lr.lo) {
			free(r);
			return l;
		}
		s = concat("og_arith_max%s(%s, %s)", lr.nan ? "" : "_num", l, r);
		break;
	default: /* an operation expression_text writes is one of the above */
		die("operation %d has no C", (int)code);
	}
	free(l);
	free(r);
	return s;
}

/* The C expression that computes r's postfix from the set's leaves, with
 * the policy's final check where the value could need it.  A value the
 * postfix keeps (SHARE) becomes a local, declared in *locals (NULL when
 * there is none) before the expression that reads it, in the order the
 * postfix computes them. */
static char *expression_text(const struct record *r, struct slots *slots, char **locals,
                             const bool *hoisted)
{
	*locals = NULL;
	const struct og_expr_op *ops;
	size_t n = og_expr_postfix(r->expr, &ops);
	char *stack[OG_EXPR_MAX_DEPTH];
	struct range range[OG_EXPR_MAX_DEPTH], shared[OG_EXPR_MAX_SHARED];
	size_t depth = 0;
	for (size_t i = 0; i < n; i++) {
		const struct og_expr_op *op = &ops[i];
		if (is_leaf(op)) {
			if (depth == OG_EXPR_MAX_DEPTH)
				die("%s: %s: postfix deeper than the compiler allows", r->in->origin,
				    r->entry->name);
			if (op->code == OG_OP_SHARED && op->index >= OG_EXPR_MAX_SHARED)
				die("%s: %s: malformed postfix", r->in->origin, r->entry->name);
			range[depth] = op->code == OG_OP_RAW ? (struct range){ 0, 0x1p64, false, true }
			             : op->code == OG_OP_SHARED ? shared[op->index]
			             : op->code == OG_OP_CONSTANT
			                     ? (struct range){ -INFINITY, INFINITY, true, false }
			                     : (struct range){ op->number, op->number, false,
			                                       op->number == floor(op->number) };
			stack[depth++] = leaf_text(slots, op, hoisted);
		} else if (op->code == OG_OP_NEG) {
			char *x = stack[depth - 1];
			stack[depth - 1] = concat("(-%s)", x);
			range[depth - 1] = (struct range){ -range[depth - 1].hi, -range[depth - 1].lo,
			                                   range[depth - 1].nan, range[depth - 1].whole };
			free(x);
		} else if (op->code == OG_OP_SHARE) {
			if (depth < 1 || op->index >= OG_EXPR_MAX_SHARED)
				die("%s: %s: malformed postfix", r->in->origin, r->entry->name);
			shared[op->index] = range[depth - 1];
			char *x = stack[depth - 1], *before = *locals;
			*locals = concat("%s\tconst double s%u = %s;\n", before ? before : "", op->index, x);
			free(before);
			free(x);
			stack[depth - 1] = concat("s%u", op->index);
		} else {
			if (depth < 2)
				die("%s: %s: malformed postfix", r->in->origin, r->entry->name);
			struct range b = range[--depth], a = range[depth - 1];
			char *right = stack[depth];
			stack[depth - 1] = operation_text(op->code, stack[depth - 1], right, a, b);
			switch (op->code) {
			case OG_OP_ADD: range[depth - 1] = add_ranges(a, b, 1); break;
			case OG_OP_SUB: range[depth - 1] = add_ranges(a, b, -1); break;
			case OG_OP_MUL: range[depth - 1] = mul_ranges(a, b); break;
			case OG_OP_DIV: range[depth - 1] = div_ranges(a, b); break;
			default: range[depth - 1] = min_max_ranges(a, b, op->code == OG_OP_MAX); break;
			}
		}
	}
	if (depth != 1)
		die("%s: %s: malformed postfix", r->in->origin, r->entry->name);
	if (always_finite(range[0]))
		return stack[0];
	char *checked = concat("og_arith_result(%s)", stack[0]);
	free(stack[0]);
	return checked;
}

/* Counter r's postfix with leaves renumbered as the set's slots, which
 * og_native_matches() compares with what a context compiled: its rows of
 * the set's one shapes array. */
static void write_shape(FILE *out, const struct record *r, struct slots *slots)
{
	const struct og_expr_op *ops;
	size_t n = og_expr_postfix(r->expr, &ops);
	fprintf(out, "\t/* %s (%u) */\n", r->entry->name, r->shape_at);
	for (size_t i = 0; i < n; i++) {
		const struct og_expr_op *op = &ops[i];
		uint32_t index = op->code == OG_OP_RAW || op->code == OG_OP_CONSTANT ? slot_of(slots, op)
		               : op->code == OG_OP_SHARE || op->code == OG_OP_SHARED ? op->index : 0;
		char *number = number_literal(op->code == OG_OP_NUMBER ? op->number : 0.0);
		fprintf(out, "\t{ %s, %u, %s },\n", op_name(op->code), index, number);
		free(number);
	}
}

/* An integer counter whose postfix is sums, differences and products by
 * whole numbers of raw counts (a count of bytes, a sum of counts) computes
 * in integers while every count it reads is below 2^shift: then each
 * value of the postfix is a whole number of magnitude below 2^52 (bound
 * below), which doubles hold exactly, so the double postfix computes the
 * same number, and og_arith_to_u64 (v + 0.5 exact, truncated) gives it
 * back, 0 when it is negative, clamped to the type.  The same bits as the
 * double code, without its conversions and rounding; a count at or past
 * 2^shift takes the double code.  *exact gets the integer expression,
 * *check the counts' OR, *nonneg whether no value can be negative (the
 * arithmetic then unsigned).  False: not such a postfix. */
struct linear {
	double a, b; /* |value| <= a * B + b, every count read below B */
	bool nonneg;
};

static bool integer_text(const struct record *r, struct slots *slots, char **exact,
                         char **check, uint32_t *shift, bool *nonneg)
{
	const struct og_expr_op *ops;
	size_t n = og_expr_postfix(r->expr, &ops), depth = 0;
	struct linear bound[OG_EXPR_MAX_DEPTH], most = { 0, 0, true };
	char *stack[OG_EXPR_MAX_DEPTH];
	/* Every leaf has its slot already (expression_text numbered them). */
	bool ok = true, *read = must(calloc(slots->nraw + 1, sizeof(bool)));
	/* Signed or not is known only at the end: the numbers written as
	 * markers, the leaves unsigned, both changed below when signed. */
	for (size_t i = 0; ok && i < n; i++) {
		const struct og_expr_op *op = &ops[i];
		struct linear x = { 0, 0, true };
		if (op->code == OG_OP_RAW) {
			uint32_t slot = slot_of(slots, op);
			if (slot >= slots->nraw)
				die("%s: %s: a leaf without its slot", r->in->origin, r->entry->name);
			read[slot] = true;
			x = (struct linear){ 1, 0, true };
			stack[depth] = concat("leaf[%u]", slot);
		} else if (op->code == OG_OP_NUMBER) {
			double c = op->number;
			ok = c == floor(c) && fabs(c) <= 0x1p31;
			x = (struct linear){ 0, fabs(c), c >= 0 };
			stack[depth] = concat("@%lld", ok ? (long long)c : 0LL);
		} else if (op->code == OG_OP_NEG && depth >= 1) {
			char *v = stack[depth - 1];
			stack[depth - 1] = concat("(-%s)", v);
			free(v);
			bound[depth - 1].nonneg = false;
			continue;
		} else if ((op->code == OG_OP_ADD || op->code == OG_OP_SUB || op->code == OG_OP_MUL) &&
		           depth >= 2) {
			struct linear p = bound[depth - 2], q = bound[depth - 1];
			if (op->code == OG_OP_MUL) {
				ok = p.a == 0 || q.a == 0; /* one side a number */
				x = (struct linear){ p.a * q.b + q.a * p.b, p.b * q.b, p.nonneg && q.nonneg };
			} else {
				x = (struct linear){ p.a + q.a, p.b + q.b,
				                     op->code == OG_OP_ADD && p.nonneg && q.nonneg };
			}
			char *v = concat("(%s %c %s)", stack[depth - 2],
			                 op->code == OG_OP_ADD ? '+' : op->code == OG_OP_SUB ? '-' : '*',
			                 stack[depth - 1]);
			free(stack[depth - 2]);
			free(stack[depth - 1]);
			depth -= 2;
			stack[depth] = v;
		} else {
			ok = false; /* a constant, a division, min, max, a shared value */
			break;
		}
		most.a = fmax(most.a, x.a);
		most.b = fmax(most.b, x.b);
		bound[depth] = x;
		depth++;
	}
	/* The largest shift that keeps a * 2^shift + b within 2^52. */
	uint32_t k = 0;
	while (ok && depth == 1 && most.a > 0 && k < 52 && most.a * ldexp(1, (int)k + 1) + most.b <= 0x1p52)
		k++;
	ok = ok && depth == 1 && k >= 16;
	if (ok) {
		*nonneg = bound[0].nonneg;
		*shift = k;
		/* The leaves in the chosen type, the numbers as its literals. */
		char *text = stack[0], *t = must(calloc(strlen(text) * 4 + 64, 1)), *o = t;
		for (const char *c = text; *c; c++) {
			if (*c == '@') {
				o += sprintf(o, "%s(", *nonneg ? "UINT64_C" : "INT64_C");
				c++;
				while (*c == '-' || (*c >= '0' && *c <= '9'))
					*o++ = *c++;
				*o++ = ')';
				c--;
			} else if (strncmp(c, "leaf[", 5) == 0 && !*nonneg) {
				o += sprintf(o, "(int64_t)leaf[");
				c += 4;
			} else {
				*o++ = *c;
			}
		}
		*o = '\0';
		*exact = t;
		char *or = NULL;
		for (uint32_t j = 0; j < slots->nraw; j++) {
			if (!read[j])
				continue;
			char *before = or;
			or = before ? concat("%s | leaf[%u]", before, j) : concat("leaf[%u]", j);
			free(before);
		}
		*check = or;
	}
	for (size_t j = 0; j < depth; j++)
		free(stack[j]);
	free(read);
	return ok;
}

/* The statement that writes counter r's value as the batch read gives it
 * to out[i] (an integer counter that is one raw counter is that count,
 * exactly; one of counts added, subtracted and scaled, integer_text's
 * integers while they are small), its expression written out with the
 * leaves in `hoisted` read from the locals around it. */
static char *typed_value(const struct record *r, size_t i, struct slots *slots,
                         const bool *hoisted)
{
	uint32_t raw;
	bool integer = r->entry->type != GPA_TYPE_FLOAT32 && r->entry->type != GPA_TYPE_FLOAT64;
	const char *max = r->entry->type == GPA_TYPE_UINT32 ? "UINT32_MAX" : "UINT64_MAX";
	if (integer && og_expr_single_raw(r->expr, &raw)) {
		struct og_expr_op op = { OG_OP_RAW, raw, 0 };
		return concat("\t\tout[%zu].u = og_arith_clamp_u64(leaf[%u], %s);\n", i,
		              slot_of(slots, &op), max);
	}
	char *locals, *text = expression_text(r, slots, &locals, hoisted), *value;
	char *exact, *check;
	uint32_t shift;
	bool nonneg;
	if (integer && !locals && integer_text(r, slots, &exact, &check, &shift, &nonneg)) {
		value = concat("if (__builtin_expect(((%s) >> %u) == 0, 1))\n"
		               "\t\t\tout[%zu].u = %s(%s, %s);\n"
		               "\t\telse\n\t\t\tout[%zu].u = og_arith_to_u64(%s, %s);",
		               check, shift, i, nonneg ? "og_arith_clamp_u64" : "og_arith_int_to_u64",
		               exact, max, i, text, max);
		free(exact);
		free(check);
	} else if (integer)
		value = concat("out[%zu].u = og_arith_to_u64(%s, %s);", i, text, max);
	else
		value = concat("out[%zu].d = %s;", i, text);
	char *statement = locals ? concat("\t\t{\n%s\t\t%s\n\t\t}\n", locals, value)
	                         : concat("\t\t%s\n", value);
	free(locals);
	free(text);
	free(value);
	return statement;
}

/* The raw slots counter r's expression reads as doubles, marked in seen[]
 * (an integer counter that is one raw counter reads it as it is, and one
 * integer_text computes reads doubles only for large counts). */
static void leaves_read(const struct record *r, struct slots *slots, bool *seen)
{
	uint32_t raw;
	bool integer = r->entry->type != GPA_TYPE_FLOAT32 && r->entry->type != GPA_TYPE_FLOAT64;
	if (integer && og_expr_single_raw(r->expr, &raw))
		return;
	char *exact, *check;
	uint32_t shift;
	bool nonneg;
	if (integer && integer_text(r, slots, &exact, &check, &shift, &nonneg)) {
		free(exact); /* its doubles only when a count is large: not worth a local */
		free(check);
		return;
	}
	const struct og_expr_op *ops;
	size_t n = og_expr_postfix(r->expr, &ops);
	for (size_t i = 0; i < n; i++)
		if (ops[i].code == OG_OP_RAW)
			seen[slot_of(slots, &ops[i])] = true;
}

/* How many counters of a set of n make one part (og_native_parts_fn): 4,
 * or as many as keep the parts to OG_NATIVE_MAX_PARTS.  Small parts let a
 * session of part of a set compute little it does not read, and keep few
 * leaves beyond those it reads (a part's reach): the 88 counters of
 * bench-api part 2 run 22 parts (89 counters) over the 59 leaves they
 * read, where parts of 32 ran 129 counters and read up to leaf 146.  The
 * price, a test per part and values shared by parts computed once per
 * part, write_parts mostly takes back (callgrind, the mali-g71 parts those
 * 88 need: 1519 instructions in parts of 4 as parts of 32 were written,
 * 1255 as write_parts writes them, the last part taking the set's last 5;
 * 1332 for the 129 in parts of 32). */
static uint32_t part_size(size_t n)
{
	size_t size = (n + OG_NATIVE_MAX_PARTS - 1) / OG_NATIVE_MAX_PARTS;
	return size > 4 ? (uint32_t)size : 4;
}

/* The counters of a set's tail (og_native_set.tail): a part's worth. */
static size_t tail_size(size_t n, uint32_t psize)
{
	return n < psize ? n : psize;
}

/* The end of part p of a set of n counters (og_native_part_of). */
static size_t part_end(size_t n, uint32_t psize, size_t p)
{
	return p + 1 == og_native_part_count((uint32_t)n, psize) ? n : (p + 1) * psize;
}

/* The highest leaf counter r's code reads, plus one (0: none). */
static uint32_t leaf_reach(const struct record *r, struct slots *slots)
{
	const struct og_expr_op *ops;
	size_t n = og_expr_postfix(r->expr, &ops);
	uint32_t reach = 0;
	for (size_t i = 0; i < n; i++)
		if (ops[i].code == OG_OP_RAW && slot_of(slots, &ops[i]) + 1 > reach)
			reach = slot_of(slots, &ops[i]) + 1;
	return reach;
}

/* The parts function of set `set` (og_native_parts_fn), parts of psize
 * counters, in groups of PART_GROUP parts: a group whose parts are all off
 * costs one test, and the leaves two parts of a group read as doubles are
 * converted once at the group's head, where the compiler would convert
 * them once per part (a part's code is conditional: nothing it computes is
 * reused by the next).  The counters' expressions are written out here,
 * not called: the same text as their functions', the same operations. */
#define PART_GROUP 8
static void write_parts(FILE *out, uint32_t set, const struct record *records, size_t n,
                        struct slots *slots, uint32_t psize, uint32_t *group_reach)
{
	fprintf(out, "og_native_parts_fn og_native_parts_%u;\n"
	             "void og_native_parts_%u(const uint64_t *restrict leaf, const double *restrict k,\n"
	             "                   union og_value *restrict out, const uint64_t *restrict parts)\n{\n"
	             "\t(void)leaf;\n\t(void)k;\n", set, set);
	size_t nparts = og_native_part_count((uint32_t)n, psize), nleaves = slots->nraw + 1;
	bool *in_part = must(calloc(nleaves, sizeof(bool)));
	uint32_t *parts_reading = must(calloc(nleaves, sizeof(uint32_t)));
	bool *hoisted = must(calloc(nleaves, sizeof(bool)));
	for (size_t g = 0; g < nparts; g += PART_GROUP) {
		size_t end = g + PART_GROUP < nparts ? g + PART_GROUP : nparts;
		memset(parts_reading, 0, nleaves * sizeof(uint32_t));
		for (size_t p = g; p < end; p++) {
			memset(in_part, 0, nleaves * sizeof(bool));
			for (size_t i = p * psize; i < part_end(n, psize, p); i++)
				leaves_read(&records[i], slots, in_part);
			for (size_t j = 0; j < nleaves; j++)
				parts_reading[j] += in_part[j];
		}
		/* A word's parts all off cost one test; a group's bits lie in one
		 * word (PART_GROUP divides 64). */
		if (g % 64 == 0)
			fprintf(out, "%s\tif (parts[%zu]) {\n", g ? "\t}\n" : "", g / 64);
		fprintf(out, "\tif (parts[%zu] & UINT64_C(%#llx) << %zu) {\n", g / 64,
		        (unsigned long long)((UINT64_C(1) << (end - g)) - 1), g % 64);
		/* Whichever of the group's parts runs, its head reads these: they
		 * count in each part's reach. */
		uint32_t reach = 0;
		for (size_t j = 0; j < nleaves; j++) {
			hoisted[j] = parts_reading[j] >= 2;
			if (hoisted[j]) {
				fprintf(out, "\tconst double L%zu = (double)leaf[%zu];\n", j, j);
				reach = (uint32_t)j + 1;
			}
		}
		for (size_t p = g; p < end; p++)
			group_reach[p] = reach;
		for (size_t p = g; p < end; p++) {
			fprintf(out, "\tif (parts[%zu] & UINT64_C(1) << %zu) {\n", p / 64, p % 64);
			for (size_t i = p * psize; i < part_end(n, psize, p); i++) {
				char *statement = typed_value(&records[i], i, slots, hoisted);
				fputs(statement, out);
				free(statement);
			}
			fprintf(out, "\t}\n");
		}
		fprintf(out, "\t}\n");
	}
	fprintf(out, "%s}\n\n", nparts ? "\t}\n" : "");
	free(in_part);
	free(parts_reading);
	free(hoisted);
}

/* Writes set number `set`: a function per counter of records[0 .. n) (one
 * file, in file order), the set's function, and their shapes.  Returns the
 * slots used. */
static struct slots write_set(FILE *out, uint32_t set, struct record *records, size_t n,
                              size_t first_shape)
{
	struct slots slots = { 0 };
	uint32_t shape_at = 0;
	fprintf(out, "/* ---- %s ---- */\n\n", records[0].in->origin);
	for (size_t i = 0; i < n; i++) {
		records[i].set = set;
		records[i].position = (uint32_t)i;
		records[i].number = first_shape + i;
		const struct og_expr_op *ops;
		size_t nops = og_expr_postfix(records[i].expr, &ops);
		if (nops > UINT32_MAX - shape_at)
			die("%s: the postfixes outgrew 32-bit offsets", records[0].in->origin);
		records[i].shape_at = shape_at;
		shape_at += (uint32_t)nops;
		char *locals;
		char *text = expression_text(&records[i], &slots, &locals, NULL);
		fprintf(out, "/* %s */\n"
		             "static inline double c_%zu(const uint64_t *restrict leaf, "
		             "const double *restrict k)\n{\n"
		             "\t(void)leaf;\n\t(void)k;\n%s\treturn %s;\n}\n\n",
		        records[i].entry->name, records[i].number, locals ? locals : "", text);
		free(locals);
		free(text);
	}
	/* Each counter's function by its position: a switch, whose jump table
	 * is offsets in code, where a table of pointers would be a relocation
	 * per counter (the build keeps GCC from turning it into one). */
	fprintf(out, "og_native_counter_at og_native_counter_%u;\n"
	             "og_native_counter_fn *og_native_counter_%u(uint32_t position)\n{\n"
	             "\tswitch (position) {\n", set, set);
	for (size_t i = 0; i < n; i++)
		fprintf(out, "\tcase %zu: return c_%zu;\n", i, records[i].number);
	fprintf(out, "\tdefault: return NULL;\n\t}\n}\n\n");
	/* The set's counters in parts of part_size(n), each run when its bit
	 * of `parts` is set (a session reading part of the set runs only the
	 * parts that hold its counters); the set's function runs them all. */
	uint32_t psize = part_size(n);
	size_t nparts = og_native_part_count((uint32_t)n, psize);
	uint32_t *group_reach = must(calloc(nparts + 1, sizeof(uint32_t)));
	write_parts(out, set, records, n, &slots, psize, group_reach);
	fprintf(out, "og_native_set_fn og_native_set_%u;\n"
	             "void og_native_set_%u(const uint64_t *restrict leaf, const double *restrict k,\n"
	             "                   union og_value *restrict out)\n{\n"
	             "\tstatic const uint64_t every[OG_NATIVE_PART_WORDS] = {", set, set);
	for (int w = 0; w < OG_NATIVE_PART_WORDS; w++)
		fprintf(out, " ~UINT64_C(0),");
	fprintf(out, " };\n\tog_native_parts_%u(leaf, k, out, every);\n}\n\n", set);
	/* The set's last tail_size(n) counters on their own, out[0] the first
	 * (og_native_set.tail): a session whose answer ends with them, in
	 * order, has them written there, with no parts to test and nothing to
	 * copy (bench-api part 2's cycle budget, the G71 set's last 4). */
	size_t tail = tail_size(n, psize);
	fprintf(out, "og_native_set_fn og_native_tail_%u;\n"
	             "void og_native_tail_%u(const uint64_t *restrict leaf, const double *restrict k,\n"
	             "                   union og_value *restrict out)\n{\n"
	             "\t(void)leaf;\n\t(void)k;\n", set, set);
	for (size_t i = n - tail; i < n; i++) {
		char *statement = typed_value(&records[i], i - (n - tail), &slots, NULL);
		fputs(statement, out);
		free(statement);
	}
	fprintf(out, "}\n\n");
	/* Each part's reach (og_native_set.part_reach): its counters' leaves
	 * and those its group's head converts. */
	fprintf(out, "extern const uint16_t og_native_reach_%u[%zu];\n"
	             "const uint16_t og_native_reach_%u[%zu] = {", set, nparts, set, nparts);
	for (size_t p = 0; p < nparts; p++) {
		uint32_t reach = group_reach[p];
		for (size_t i = p * psize; i < part_end(n, psize, p); i++)
			if (leaf_reach(&records[i], &slots) > reach)
				reach = leaf_reach(&records[i], &slots);
		if (reach > UINT16_MAX)
			die("%s: more leaves than a part's reach can hold", records[0].in->origin);
		fprintf(out, "%s%u,", p % 16 ? " " : "\n\t", reach);
	}
	fprintf(out, "\n};\n\n");
	free(group_reach);
	/* Shapes after the functions: slot numbers are theirs.  One array per
	 * set, each counter an offset into it, so that the counters table holds
	 * no pointer to a shape (a relocation per counter at every load). */
	fprintf(out, "extern const struct og_expr_op og_native_shapes_%u[%u];\n"
	             "const struct og_expr_op og_native_shapes_%u[%u] = {\n",
	        set, shape_at, set, shape_at);
	for (size_t i = 0; i < n; i++)
		write_shape(out, &records[i], &slots);
	fprintf(out, "};\n\n");
	return slots;
}

/* One name of the blob as a C string literal ("...\\000"): '?' escaped
 * against trigraphs, every byte outside printable ASCII in octal. */
static void put_literal(FILE *out, const char *name)
{
	fputs("\t\"", out);
	for (const unsigned char *s = (const unsigned char *)name; *s; s++) {
		if (*s == '\\' || *s == '"' || *s == '?')
			fprintf(out, "\\%c", *s);
		else if (*s < 32 || *s > 126)
			fprintf(out, "\\%03o", *s);
		else
			fputc(*s, out);
	}
	fputs("\\000\"\n", out);
}

static FILE *open_output(const char *path, const char *what)
{
	FILE *out = fopen(path, "w");
	if (!out)
		die("cannot write %s", path);
	fprintf(out, "/* Generated by lib/expr/native_gen.c from the embedded counter files:\n"
	             " * do not edit.  %s */\n", what);
	return out;
}

static void close_output(FILE *out, const char *path)
{
	if (ferror(out) | (fclose(out) != 0))
		die("cannot write %s", path);
}

int main(int argc, char **argv)
{
	/* native-gen TABLES.c PART.c... -- FILE.counters... */
	int dashes = 1;
	while (dashes < argc && strcmp(argv[dashes], "--") != 0)
		dashes++;
	if (dashes == argc || dashes < 2)
		die("usage: native-gen TABLES.c PART.c... -- FILE.counters...");
	const char *tables_path = argv[1];
	char **part_paths = &argv[2];
	size_t ninputs = (size_t)(argc - dashes - 1);
	if ((size_t)(dashes - 2) != ninputs)
		die("%d part files for %zu counter files: one each, in the same order", dashes - 2,
		    ninputs);
	struct input *inputs = must(calloc(ninputs + 1, sizeof(*inputs)));
	size_t nrecords = 0;
	for (size_t f = 0; f < ninputs; f++) {
		load(&inputs[f], argv[dashes + 1 + f]);
		nrecords += inputs[f].file.count;
	}
	struct record *records = must(calloc(nrecords + 1, sizeof(*records)));
	struct slots *set_slots = must(calloc(ninputs + 1, sizeof(*set_slots)));
	size_t *set_first = must(calloc(ninputs + 1, sizeof(*set_first)));
	uint32_t *set_input = must(calloc(ninputs + 1, sizeof(*set_input)));

	nrecords = 0;
	uint32_t nsets = 0;
	for (size_t f = 0; f < ninputs; f++) {
		FILE *part = open_output(part_paths[f], inputs[f].origin);
		size_t first = nrecords;
		for (size_t i = 0; i < inputs[f].file.count; i++)
			if (inputs[f].compiled[i] && writable(inputs[f].compiled[i]))
				records[nrecords++] = (struct record){
					&inputs[f], &inputs[f].file.entries[i], inputs[f].compiled[i], 0, 0, 0, 0 };
		if (nrecords == first) {
			/* ISO C wants a declaration in every unit. */
			fprintf(part, "/* No counter of this file is compiled to C. */\n"
			              "typedef int og_native_empty_part;\n");
		} else {
			fprintf(part, "#include \"expr/arith.h\"\n#include \"expr/native.h\"\n\n");
			set_first[nsets] = first;
			set_input[nsets] = (uint32_t)f;
			set_slots[nsets] = write_set(part, nsets, &records[first], nrecords - first, first);
			nsets++;
		}
		close_output(part, part_paths[f]);
	}
	set_first[nsets] = nrecords;

	FILE *out = open_output(tables_path, "The tables of every set.");
	fprintf(out, "#include \"expr/native.h\"\n\n/* The parts' code. */\n");
	for (uint32_t k = 0; k < nsets; k++)
		fprintf(out, "og_native_set_fn og_native_set_%u;\n"
		             "og_native_parts_fn og_native_parts_%u;\n"
		             "og_native_set_fn og_native_tail_%u;\n"
		             "og_native_counter_at og_native_counter_%u;\n"
		             "extern const struct og_expr_op og_native_shapes_%u[];\n"
		             "extern const uint16_t og_native_reach_%u[];\n", k, k, k, k, k, k);
	fprintf(out, "\n");

	/* Shape k belongs to records[k] (file order); the table is sorted. */
	struct record *sorted = must(calloc(nrecords + 1, sizeof(*sorted)));
	memcpy(sorted, records, nrecords * sizeof(*records));
	qsort(sorted, nrecords, sizeof(*sorted), by_origin_then_name);
	for (size_t i = 1; i < nrecords; i++)
		if (by_origin_then_name(&sorted[i - 1], &sorted[i]) == 0)
			die("%s: counter %s is defined twice", sorted[i].in->origin, sorted[i].entry->name);
	/* Each set's entries -> their place in the sorted table. */
	for (uint32_t k = 0; k < nsets; k++) {
		const struct input *in = &inputs[set_input[k]];
		size_t n = in->file.count;
		uint32_t *at = must(calloc(n + 1, sizeof(*at)));
		for (size_t i = 0; i < n; i++)
			at[i] = UINT32_MAX;
		for (size_t j = 0; j < nrecords; j++)
			if (sorted[j].in == in)
				at[sorted[j].entry - in->file.entries] = (uint32_t)j;
		fprintf(out, "static const uint32_t entries_%u[] = {", k);
		for (size_t i = 0; i < n; i++)
			fprintf(out, "%s%u,", i % 16 ? " " : "\n\t", at[i] == UINT32_MAX ? 0xFFFFFFFFu : at[i]);
		fprintf(out, "\n};\n");
		free(at);
	}
	fprintf(out, "\nconst struct og_native_set og_native_sets[] = {\n");
	for (uint32_t k = 0; k < nsets; k++)
		fprintf(out, "\t{ \"%s\", og_native_set_%u, og_native_counter_%u, og_native_shapes_%u, %zu, %u, %u, entries_%u, %zu, og_native_parts_%u, %u, og_native_reach_%u, og_native_tail_%u, %zu },\n",
		        inputs[set_input[k]].origin, k, k, k, set_first[k + 1] - set_first[k],
		        set_slots[k].nraw, set_slots[k].nconst, k, inputs[set_input[k]].file.count, k,
		        part_size(set_first[k + 1] - set_first[k]), k, k,
		        tail_size(set_first[k + 1] - set_first[k],
		                  part_size(set_first[k + 1] - set_first[k])));
	fprintf(out, "\t{ 0 },\n};\nconst size_t og_native_set_count = %u;\n\n", nsets);

	/* The names: one blob, each distinct name once (the Mali sets share
	 * most of theirs), a counter holding its offset. */
	uint32_t *name_at = must(calloc(nrecords + 1, sizeof(*name_at)));
	size_t *unique = must(calloc(nrecords + 1, sizeof(*unique))), nunique = 0, blob = 0;
	fprintf(out, "const char og_native_names[] =\n");
	for (size_t k = 0; k < nrecords; k++) {
		size_t u = 0;
		while (u < nunique && strcmp(sorted[unique[u]].entry->name, sorted[k].entry->name) != 0)
			u++;
		if (u < nunique) {
			name_at[k] = name_at[unique[u]];
			continue;
		}
		if (blob > UINT32_MAX)
			die("the counter names outgrew 32-bit offsets");
		unique[nunique++] = k;
		name_at[k] = (uint32_t)blob;
		put_literal(out, sorted[k].entry->name);
		blob += strlen(sorted[k].entry->name) + 1;
	}
	fprintf(out, "\t\"\";\n\n");
	free(unique);

	fprintf(out, "const struct og_native_counter og_native_counters[] = {\n");
	for (size_t k = 0; k < nrecords; k++) {
		const struct og_expr_op *ops;
		fprintf(out, "\t{ %u, %u, %u, %u, %zu, %d },\n", name_at[k],
		        sorted[k].set, sorted[k].position, sorted[k].shape_at,
		        og_expr_postfix(sorted[k].expr, &ops), (int)sorted[k].entry->type);
	}
	free(name_at);
	fprintf(out, "\t{ 0 },\n};\nconst size_t og_native_counter_count = %zu;\n", nrecords);
	close_output(out, tables_path);
	free(sorted);
	for (uint32_t k = 0; k < nsets; k++) {
		free(set_slots[k].leaf);
		free(set_slots[k].number);
	}
	free(set_slots);
	free(set_first);
	free(set_input);

	for (size_t f = 0; f < ninputs; f++) {
		for (size_t i = 0; i < inputs[f].file.count; i++)
			og_expr_free(inputs[f].compiled[i]);
		free(inputs[f].compiled);
		og_cf_free(&inputs[f].file);
	}
	free(inputs);
	free(records);
	return 0;
}
