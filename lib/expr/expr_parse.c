/* SPDX-License-Identifier: MIT */
/* expr_parse.c — an expression's text to postfix: the lexer and the
 * recursive-descent parser, numbers folded as they are read, and the
 * counters it names inlined (og_expr_compile).  expr_compile.c turns the
 * postfix into code; expr_eval.c runs it.
 *
 * Postfix is the form expressions are inlined into one another in, and the
 * one og_expr_single_raw() and og_expr_for_each_raw() read.
 *
 * A counter another one names is inlined once per expression: its code is
 * copied the first time, and each later use, direct or through another
 * counter, reads the value it left (SHARE/SHARED, expr.h).  Every compiled
 * expression remembers where the code of each counter it inlined lies in
 * its postfix (its regions), so that an expression inlining it can skip the
 * code of a counter it already has.  Compile time and size therefore grow
 * with the number of distinct counters an expression depends on, whatever
 * the number of paths to them.
 */
#include "expr_impl.h"
#include "arith.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double fold(enum og_expr_op_code code, double x, double y)
{
	switch (code) {
	case OG_OP_ADD: return x + y;
	case OG_OP_SUB: return x - y;
	case OG_OP_MUL: return x * y;
	case OG_OP_DIV: return og_arith_div(x, y);
	case OG_OP_MIN: return og_arith_min(x, y);
	case OG_OP_MAX: return og_arith_max(x, y);
	default: return 0.0; /* not a binary operation */
	}
}

/* Counters inlined so far into the expression being compiled -> the shared
 * slot meant to hold each one's value: open addressing on the pointer. */
struct known {
	const struct og_expr **key;
	uint32_t *slot;
	size_t cap, count;
};

static size_t known_hash(const struct og_expr *e, size_t cap)
{
	return (size_t)(((uintptr_t)e >> 4) * 0x9E3779B97F4A7C15ull) & (cap - 1);
}

static bool known_find(const struct known *k, const struct og_expr *e, uint32_t *slot)
{
	if (!k->cap)
		return false;
	for (size_t i = known_hash(e, k->cap); k->key[i]; i = (i + 1) & (k->cap - 1))
		if (k->key[i] == e) {
			*slot = k->slot[i];
			return true;
		}
	return false;
}

static bool known_put(struct known *k, const struct og_expr *e, uint32_t slot)
{
	if (2 * (k->count + 1) > k->cap) {
		size_t cap = k->cap ? 2 * k->cap : 64;
		struct known grown = { calloc(cap, sizeof(*grown.key)), calloc(cap, sizeof(*grown.slot)),
		                       cap, 0 };
		if (!grown.key || !grown.slot) {
			free(grown.key);
			free(grown.slot);
			return false;
		}
		for (size_t i = 0; i < k->cap; i++)
			if (k->key[i])
				known_put(&grown, k->key[i], k->slot[i]);
		free(k->key);
		free(k->slot);
		*k = grown;
	}
	size_t i = known_hash(e, k->cap);
	while (k->key[i])
		i = (i + 1) & (k->cap - 1);
	k->key[i] = e;
	k->slot[i] = slot;
	k->count++;
	return true;
}

struct parser {
	const char *text;
	const char *p;
	og_expr_resolve_fn resolve;
	void *ud;
	struct og_expr_op *ops;
	size_t count, cap;
	/* Counters inlined so far: where their code is, where their values go. */
	struct og_expr_region *regions;
	size_t nregions, regions_cap;
	const struct og_expr **slot_of;
	size_t nslots, slots_cap;
	struct known known;
	bool failed;
	unsigned nesting; /* parse_unary recursion: parentheses and unary minus */
	char *err;
	size_t errlen;
};

static void fail(struct parser *ps, const char *at, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void fail(struct parser *ps, const char *at, const char *fmt, ...)
{
	if (ps->failed)
		return;
	ps->failed = true;
	if (!ps->err || ps->errlen == 0)
		return;
	int n = snprintf(ps->err, ps->errlen, "column %zu: ", (size_t)(at - ps->text) + 1);
	if (n < 0 || (size_t)n >= ps->errlen)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(ps->err + n, ps->errlen - (size_t)n, fmt, ap);
	va_end(ap);
}

/* Ops while compiling, SHAREs nothing uses yet included; finish() checks
 * the final count against OG_EXPR_MAX_OPS. */
#define MAX_WORKING_OPS (2 * OG_EXPR_MAX_OPS)

static void emit(struct parser *ps, struct og_expr_op op)
{
	if (ps->failed)
		return;
	if (ps->count == MAX_WORKING_OPS) {
		fail(ps, ps->p, "the expression compiles to more than %d operations, with the code of "
		                "the counters it names (docs/counter-files.md, \"Limits\")",
		     OG_EXPR_MAX_OPS);
		return;
	}
	if (ps->count == ps->cap) {
		size_t cap = ps->cap ? ps->cap * 2 : 16;
		struct og_expr_op *ops = realloc(ps->ops, cap * sizeof(*ops));
		if (!ops) {
			fail(ps, ps->p, "out of memory");
			return;
		}
		ps->ops = ops;
		ps->cap = cap;
	}
	ps->ops[ps->count++] = op;
}

/* Emits a unary or binary operation, folding it when its operands are numbers
 * (in postfix, the last one or two ops are the operands when they are leaves). */
static void emit_operation(struct parser *ps, enum og_expr_op_code code)
{
	if (ps->failed)
		return;
	struct og_expr_op *last = ps->count ? &ps->ops[ps->count - 1] : NULL;
	if (code == OG_OP_NEG && last && last->code == OG_OP_NUMBER) {
		last->number = -last->number;
		return;
	}
	if (code != OG_OP_NEG && ps->count >= 2 && last->code == OG_OP_NUMBER &&
	    last[-1].code == OG_OP_NUMBER) {
		last[-1].number = fold(code, last[-1].number, last->number);
		ps->count--;
		return;
	}
	emit(ps, (struct og_expr_op){ .code = code });
}

static void skip_blanks(struct parser *ps)
{
	while (isspace((unsigned char)*ps->p))
		ps->p++;
}

static bool accept(struct parser *ps, char c)
{
	skip_blanks(ps);
	if (*ps->p != c)
		return false;
	ps->p++;
	return true;
}

/* c as a message shows it: 'x', or its code when it is not printable ASCII
 * (the text may come from a binary file). */
static const char *quote_char(char c, char buf[8])
{
	unsigned char u = (unsigned char)c;
	if (u >= 0x20 && u < 0x7f)
		snprintf(buf, 8, "'%c'", c);
	else
		snprintf(buf, 8, "byte %02x", u);
	return buf;
}

static void expect(struct parser *ps, char c, const char *context)
{
	char found[8];
	if (!accept(ps, c))
		fail(ps, ps->p, *ps->p ? "expected '%c' %s, found %s" : "expected '%c' %s, found the end",
		     c, context, quote_char(*ps->p, found));
}

static bool is_name_start(char c)
{
	return isalpha((unsigned char)c) || c == '_';
}

static bool is_name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

static void parse_expr(struct parser *ps);

static void parse_number(struct parser *ps)
{
	const char *start = ps->p;
	char *end;
	errno = 0;
	double v = strtod(start, &end);
	/* strtod also accepts hex, "inf" and "nan": the grammar does not. */
	if (end == start || errno == ERANGE || !isfinite(v) ||
	    (start[0] == '0' && (start[1] == 'x' || start[1] == 'X'))) {
		fail(ps, start, "malformed number");
		return;
	}
	ps->p = end;
	emit(ps, (struct og_expr_op){ .code = OG_OP_NUMBER, .number = v });
}

static bool grow(void **array, size_t *cap, size_t count, size_t size)
{
	if (count < *cap)
		return true;
	size_t n = *cap ? 2 * *cap : 16;
	void *p = realloc(*array, n * size);
	if (!p)
		return false;
	*array = p;
	*cap = n;
	return true;
}

/* Counter e's value is on the stack, computed by ops [start, count): records
 * the region and keeps the value in a new shared slot (a SHARE that
 * finish() drops if nothing reads it). */
static void keep_value(struct parser *ps, const struct og_expr *e, size_t start)
{
	if (ps->failed)
		return;
	if (!grow((void **)&ps->regions, &ps->regions_cap, ps->nregions, sizeof(*ps->regions)) ||
	    !grow((void **)&ps->slot_of, &ps->slots_cap, ps->nslots, sizeof(*ps->slot_of)) ||
	    !known_put(&ps->known, e, (uint32_t)ps->nslots)) {
		fail(ps, ps->p, "out of memory");
		return;
	}
	ps->regions[ps->nregions++] = (struct og_expr_region){ e, (uint32_t)start, (uint32_t)ps->count };
	ps->slot_of[ps->nslots] = e;
	emit(ps, (struct og_expr_op){ .code = OG_OP_SHARE, .index = (uint32_t)ps->nslots });
	ps->nslots++;
}

static void emit_shared(struct parser *ps, uint32_t slot)
{
	emit(ps, (struct og_expr_op){ .code = OG_OP_SHARED, .index = slot });
}

/* Copies e's postfix, except the code of counters whose value this
 * expression already has (read from their slots instead); each counter
 * whose code is copied gets a slot of this expression. */
static void copy_code(struct parser *ps, const struct og_expr *e)
{
	struct open {
		const struct og_expr_region *r;
		size_t start; /* in ps */
	} *open = malloc((e->nregions + 1) * sizeof(*open));
	if (!open) {
		fail(ps, ps->p, "out of memory");
		return;
	}
	size_t depth = 0, r = 0, i = 0;
	for (;;) {
		/* Regions that end here, innermost first: their values are ready. */
		while (depth && open[depth - 1].r->end == i) {
			depth--;
			keep_value(ps, open[depth].r->of, open[depth].start);
		}
		if (i == e->nops || ps->failed)
			break;
		while (r < e->nregions && e->regions[r].start < i)
			r++;
		/* Regions that start here, outermost first. */
		bool skipped = false;
		for (; r < e->nregions && e->regions[r].start == i; r++) {
			uint32_t slot;
			if (known_find(&ps->known, e->regions[r].of, &slot)) {
				emit_shared(ps, slot);
				i = e->regions[r].end;
				skipped = true;
				break;
			}
			open[depth++] = (struct open){ &e->regions[r], ps->count };
		}
		if (skipped)
			continue;
		const struct og_expr_op *op = &e->ops[i++];
		if (op->code == OG_OP_SHARE)
			continue; /* re-made above, where its region ends */
		if (op->code == OG_OP_SHARED) {
			uint32_t slot;
			if (known_find(&ps->known, e->slot_of[op->index], &slot))
				emit_shared(ps, slot);
			else
				fail(ps, ps->p, "internal error: a shared value read before it is kept");
			continue;
		}
		emit(ps, *op);
	}
	free(open);
}

static void inline_expr(struct parser *ps, const struct og_expr *e)
{
	uint32_t slot;
	if (e->nops == 1) {
		emit(ps, e->ops[0]); /* one leaf: as cheap to repeat as to share */
	} else if (known_find(&ps->known, e, &slot)) {
		emit_shared(ps, slot);
	} else {
		size_t start = ps->count;
		copy_code(ps, e);
		keep_value(ps, e, start);
	}
}

static void parse_name(struct parser *ps)
{
	const char *start = ps->p;
	bool dollar = *ps->p == '$';
	if (dollar)
		ps->p++;
	const char *name = ps->p;
	if (!is_name_start(*ps->p)) {
		fail(ps, start, dollar ? "expected a name after '$'" : "expected a number, a name or '('");
		return;
	}
	while (is_name_char(*ps->p))
		ps->p++;
	size_t len = (size_t)(ps->p - name);

	const char *after = ps->p;
	skip_blanks(ps);
	if (!dollar && *ps->p == '(' && len == 3 &&
	    (strncmp(name, "min", 3) == 0 || strncmp(name, "max", 3) == 0)) {
		/* min(a, b, c, ...) is min(min(a, b), c) ...: the same two-operand
		 * operation folded from the left, so generated code and folding
		 * need nothing new. */
		enum og_expr_op_code code = name[1] == 'i' ? OG_OP_MIN : OG_OP_MAX;
		ps->p++;
		parse_expr(ps);
		expect(ps, ',', "between the arguments of min()/max() (they take two or more)");
		do {
			parse_expr(ps);
			emit_operation(ps, code);
		} while (!ps->failed && accept(ps, ','));
		expect(ps, ')', "to close min()/max()");
		return;
	}
	ps->p = after;

	struct og_expr_ref ref;
	if (!ps->resolve || !ps->resolve(ps->ud, name, len, &ref)) {
		fail(ps, start, "unknown name '%.*s'", (int)len, name);
		return;
	}
	switch (ref.kind) {
	case OG_REF_RAW:
		emit(ps, (struct og_expr_op){ .code = OG_OP_RAW, .index = ref.index });
		break;
	case OG_REF_CONSTANT:
		emit(ps, (struct og_expr_op){ .code = OG_OP_CONSTANT, .index = ref.index });
		break;
	case OG_REF_EXPR:
		if (!ref.expr)
			fail(ps, start, "'%.*s' has no expression", (int)len, name);
		else
			inline_expr(ps, ref.expr);
		break;
	}
}

static void parse_primary(struct parser *ps)
{
	skip_blanks(ps);
	char c = *ps->p;
	if (c == '(') {
		ps->p++;
		parse_expr(ps);
		expect(ps, ')', "to close '('");
	} else if (isdigit((unsigned char)c) || c == '.') {
		parse_number(ps);
	} else if (c == '\0') {
		fail(ps, ps->p, "expression ends where an operand was expected");
	} else {
		parse_name(ps);
	}
}

/* Every level of parentheses or unary minus recurses through here; a
 * hostile file must not exhaust the C stack. */
#define MAX_NESTING 256

static void parse_unary(struct parser *ps)
{
	if (ps->nesting >= MAX_NESTING) {
		fail(ps, ps->p, "nested deeper than %d levels of parentheses or signs", MAX_NESTING);
		return;
	}
	ps->nesting++;
	if (accept(ps, '-')) {
		parse_unary(ps);
		emit_operation(ps, OG_OP_NEG);
	} else {
		parse_primary(ps);
	}
	ps->nesting--;
}

static void parse_term(struct parser *ps)
{
	parse_unary(ps);
	while (!ps->failed) {
		if (accept(ps, '*')) {
			parse_unary(ps);
			emit_operation(ps, OG_OP_MUL);
		} else if (accept(ps, '/')) {
			parse_unary(ps);
			emit_operation(ps, OG_OP_DIV);
		} else {
			break;
		}
	}
}

static void parse_expr(struct parser *ps)
{
	parse_term(ps);
	while (!ps->failed) {
		if (accept(ps, '+')) {
			parse_term(ps);
			emit_operation(ps, OG_OP_ADD);
		} else if (accept(ps, '-')) {
			parse_term(ps);
			emit_operation(ps, OG_OP_SUB);
		} else {
			break;
		}
	}
}

static int by_start_outermost_first(const void *a, const void *b)
{
	const struct og_expr_region *x = a, *y = b;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->end > y->end ? -1 : x->end < y->end;
}

/* Drops the SHAREs whose value nothing reads, numbers the slots left from
 * 0, moves the regions with the ops, and checks the limits. */
static void finish(struct parser *ps)
{
	if (ps->failed)
		return;
	uint32_t *renumber = malloc((ps->nslots + 1) * sizeof(*renumber));
	size_t *removed = malloc((ps->count + 1) * sizeof(*removed)); /* SHAREs dropped before op i */
	if (!renumber || !removed) {
		free(renumber);
		free(removed);
		fail(ps, ps->text, "out of memory");
		return;
	}
	for (size_t k = 0; k < ps->nslots; k++)
		renumber[k] = UINT32_MAX;
	for (size_t i = 0; i < ps->count; i++)
		if (ps->ops[i].code == OG_OP_SHARED)
			renumber[ps->ops[i].index] = 0; /* read: kept */
	size_t kept = 0;
	for (size_t k = 0; k < ps->nslots; k++)
		if (renumber[k] != UINT32_MAX) {
			ps->slot_of[kept] = ps->slot_of[k];
			renumber[k] = (uint32_t)kept++;
		}
	size_t n = 0;
	for (size_t i = 0; i < ps->count; i++) {
		removed[i] = i - n;
		struct og_expr_op op = ps->ops[i];
		if (op.code == OG_OP_SHARE || op.code == OG_OP_SHARED) {
			if (renumber[op.index] == UINT32_MAX)
				continue;
			op.index = renumber[op.index];
		}
		ps->ops[n++] = op;
	}
	removed[ps->count] = ps->count - n;
	for (size_t r = 0; r < ps->nregions; r++) {
		ps->regions[r].start -= (uint32_t)removed[ps->regions[r].start];
		ps->regions[r].end -= (uint32_t)removed[ps->regions[r].end];
	}
	if (ps->nregions > 1)
		qsort(ps->regions, ps->nregions, sizeof(*ps->regions), by_start_outermost_first);
	ps->count = n;
	ps->nslots = kept;
	free(renumber);
	free(removed);
	if (n > OG_EXPR_MAX_OPS)
		fail(ps, ps->text, "the expression compiles to more than %d operations, with the code "
		                   "of the counters it names (docs/counter-files.md, \"Limits\")",
		     OG_EXPR_MAX_OPS);
	else if (kept > OG_EXPR_MAX_SHARED)
		fail(ps, ps->text, "the expression uses more than %d counters more than once "
		                   "(docs/counter-files.md, \"Limits\")", OG_EXPR_MAX_SHARED);
}

struct og_expr *og_expr_compile(const char *text, og_expr_resolve_fn resolve, void *ud,
                                char *err, size_t errlen)
{
	if (err && errlen)
		err[0] = '\0';
	if (!text) {
		if (err && errlen)
			snprintf(err, errlen, "column 1: no expression");
		return NULL;
	}
	struct parser ps = {
		.text = text, .p = text, .resolve = resolve, .ud = ud, .err = err, .errlen = errlen,
	};
	parse_expr(&ps);
	skip_blanks(&ps);
	if (!ps.failed && *ps.p) {
		char c[8];
		fail(&ps, ps.p, *ps.p == ')' ? "unbalanced ')'" : "unexpected %s after a complete expression",
		     quote_char(*ps.p, c));
	}
	finish(&ps);
	if (!ps.failed && og_expr_program_depth(ps.ops, ps.count) > OG_EXPR_MAX_DEPTH)
		fail(&ps, text, "expression nests deeper than %d operands", OG_EXPR_MAX_DEPTH);

	struct og_expr *e = NULL;
	if (!ps.failed) {
		e = og_expr_build(ps.ops, ps.count, ps.regions, ps.nregions, ps.slot_of,
		                  ps.nslots);
		if (!e && err && errlen)
			snprintf(err, errlen, "column 1: out of memory");
	}
	free(ps.ops);
	free(ps.regions);
	free(ps.slot_of);
	free(ps.known.key);
	free(ps.known.slot);
	return e;
}
