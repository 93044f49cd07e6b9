/* SPDX-License-Identifier: MIT */
/*
 * native_gen.c — build tool: compiles the counters of embedded counter files
 * to C (see native.h).
 *
 * usage: native-gen OUTPUT.c FILE.counters...
 *
 * It reads the files with the library's own reader and compiles each counter
 * with the library's own compiler, so the C it writes is the postfix the
 * library would interpret, not a second reading of the format.  Each file
 * becomes one function that writes all its counters; each postfix operation
 * becomes the same operation of arith.h, in the same order.  The build
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

#include "core/counterfile.h"
#include "core/counterorder.h"
#include "expr/expr.h"

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
};

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("native-gen: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static void *must(void *p)
{
	if (!p)
		die("out of memory");
	return p;
}

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

/* Whether entry e answers to `name`: its own name, or a counter's alias. */
static bool answers_to(const struct og_cf_entry *e, const char *name, size_t len)
{
	if (strlen(e->name) == len && strncasecmp(e->name, name, len) == 0)
		return true;
	const char *list = e->kind == OG_CF_COUNTER ? e->field[OG_F_ALIAS] : NULL, *word;
	size_t n;
	while (list && og_cf_next_word(&list, &word, &n))
		if (n == len && strncasecmp(word, name, len) == 0)
			return true;
	return false;
}

/* Names resolve as in the catalogue: ignoring case, raw counters, constants
 * and counters (by name or alias) anywhere in the file (counters compile in
 * the catalogue's order, counterorder.h, so the ones named are compiled
 * first). */
static bool resolve(void *ud, const char *name, size_t len, struct og_expr_ref *out)
{
	const struct input *in = ud;
	for (size_t i = 0; i < in->file.count; i++) {
		const struct og_cf_entry *e = &in->file.entries[i];
		if (!answers_to(e, name, len))
			continue;
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
	return false;
}

static void load(struct input *in, const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (snprintf(in->origin, sizeof(in->origin), "counters/%s", base) >= (int)sizeof(in->origin))
		die("%s: name too long", path);
	char err[512];
	if (!og_cf_load(path, &in->file, err, sizeof(err)))
		die("%s", err);
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

/* Slots: the distinct leaves of one set, in order of first appearance. */
struct slots {
	struct og_expr_op *leaf;
	uint32_t count, cap;
};

static uint32_t slot_of(struct slots *s, const struct og_expr_op *op)
{
	for (uint32_t i = 0; i < s->count; i++)
		if (s->leaf[i].code == op->code && s->leaf[i].index == op->index)
			return i;
	if (s->count == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->leaf = must(realloc(s->leaf, s->cap * sizeof(*s->leaf)));
	}
	s->leaf[s->count] = *op;
	return s->count++;
}

static char *number_literal(double x)
{
	return signbit(x) ? concat("(%a)", x) : concat("%a", x);
}

static char *leaf_text(struct slots *s, const struct og_expr_op *op)
{
	switch (op->code) {
	case OG_OP_RAW: return concat("(double)raw[at[%u]]", slot_of(s, op));
	case OG_OP_CONSTANT: return concat("constants[at[%u]]", slot_of(s, op));
	case OG_OP_SHARED: return concat("s%u", op->index);
	default: return number_literal(op->number);
	}
}

static char *operation_text(enum og_expr_op_code code, char *l, char *r)
{
	char *s;
	switch (code) {
	case OG_OP_ADD: s = concat("(%s + %s)", l, r); break;
	case OG_OP_SUB: s = concat("(%s - %s)", l, r); break;
	case OG_OP_MUL: s = concat("(%s * %s)", l, r); break;
	case OG_OP_DIV: s = concat("og_arith_div(%s, %s)", l, r); break;
	case OG_OP_MIN: s = concat("og_arith_min(%s, %s)", l, r); break;
	default: s = concat("og_arith_max(%s, %s)", l, r); break;
	}
	free(l);
	free(r);
	return s;
}

static const char *op_name(enum og_expr_op_code code)
{
	static const char *const names[] = {
		[OG_OP_NUMBER] = "OG_OP_NUMBER", [OG_OP_RAW] = "OG_OP_RAW",
		[OG_OP_CONSTANT] = "OG_OP_CONSTANT", [OG_OP_ADD] = "OG_OP_ADD",
		[OG_OP_SUB] = "OG_OP_SUB", [OG_OP_MUL] = "OG_OP_MUL", [OG_OP_DIV] = "OG_OP_DIV",
		[OG_OP_NEG] = "OG_OP_NEG", [OG_OP_MIN] = "OG_OP_MIN", [OG_OP_MAX] = "OG_OP_MAX",
		[OG_OP_SHARE] = "OG_OP_SHARE", [OG_OP_SHARED] = "OG_OP_SHARED",
	};
	return names[code];
}

/* The C expression that computes r's postfix, leaves read through at[].
 * A value the postfix keeps (SHARE) becomes a local, declared in *locals
 * (NULL when there is none) before the expression that reads it, in the
 * order the postfix computes them. */
static char *expression_text(const struct record *r, struct slots *slots, char **locals)
{
	*locals = NULL;
	const struct og_expr_op *ops;
	size_t n = og_expr_postfix(r->expr, &ops);
	char *stack[OG_EXPR_MAX_DEPTH];
	size_t depth = 0;
	for (size_t i = 0; i < n; i++) {
		const struct og_expr_op *op = &ops[i];
		if (is_leaf(op)) {
			if (depth == OG_EXPR_MAX_DEPTH)
				die("%s: %s: postfix deeper than the compiler allows", r->in->origin,
				    r->entry->name);
			stack[depth++] = leaf_text(slots, op);
		} else if (op->code == OG_OP_NEG) {
			char *x = stack[depth - 1];
			stack[depth - 1] = concat("(-%s)", x);
			free(x);
		} else if (op->code == OG_OP_SHARE) {
			char *x = stack[depth - 1], *before = *locals;
			*locals = concat("%s\t\tconst double s%u = %s;\n", before ? before : "", op->index, x);
			free(before);
			free(x);
			stack[depth - 1] = concat("s%u", op->index);
		} else {
			if (depth < 2)
				die("%s: %s: malformed postfix", r->in->origin, r->entry->name);
			char *right = stack[--depth];
			stack[depth - 1] = operation_text(op->code, stack[depth - 1], right);
		}
	}
	if (depth != 1)
		die("%s: %s: malformed postfix", r->in->origin, r->entry->name);
	return stack[0];
}

/* Counter r's postfix with leaves renumbered as the set's slots, which
 * og_native_matches() compares with what a context compiled. */
static void write_shape(FILE *out, size_t k, const struct record *r, struct slots *slots)
{
	const struct og_expr_op *ops;
	size_t n = og_expr_postfix(r->expr, &ops);
	fprintf(out, "/* %s */\nstatic const struct og_expr_op shape_%zu[] = {\n", r->entry->name, k);
	for (size_t i = 0; i < n; i++) {
		const struct og_expr_op *op = &ops[i];
		uint32_t index = op->code == OG_OP_RAW || op->code == OG_OP_CONSTANT ? slot_of(slots, op)
		               : op->code == OG_OP_SHARE || op->code == OG_OP_SHARED ? op->index : 0;
		char *number = number_literal(op->code == OG_OP_NUMBER ? op->number : 0.0);
		fprintf(out, "\t{ %s, %u, %s },\n", op_name(op->code), index, number);
		free(number);
	}
	fprintf(out, "};\n\n");
}

/* Writes set number `set`: the function for records[0 .. n) (one file, in
 * file order) and their shapes.  Returns the number of slots. */
static uint32_t write_set(FILE *out, uint32_t set, struct record *records, size_t n,
                          size_t first_shape)
{
	struct slots slots = { 0 };
	fprintf(out, "/* %s */\n"
	             "static void set_%u(const uint64_t *raw, const double *constants,\n"
	             "                   const uint32_t *at, double *restrict out)\n{\n"
	             "\t(void)raw;\n\t(void)constants;\n\t(void)at;\n",
	        records[0].in->origin, set);
	for (size_t i = 0; i < n; i++) {
		records[i].set = set;
		records[i].position = (uint32_t)i;
		char *locals;
		char *text = expression_text(&records[i], &slots, &locals);
		if (locals)
			fprintf(out, "\t/* %s */\n\t{\n%s\t\tout[%zu] = og_arith_result(%s);\n\t}\n",
			        records[i].entry->name, locals, i, text);
		else
			fprintf(out, "\t/* %s */\n\tout[%zu] = og_arith_result(%s);\n",
			        records[i].entry->name, i, text);
		free(locals);
		free(text);
	}
	fprintf(out, "}\n\n");
	/* Shapes after the function: slot numbers are the function's. */
	for (size_t i = 0; i < n; i++)
		write_shape(out, first_shape + i, &records[i], &slots);
	uint32_t nslots = slots.count;
	free(slots.leaf);
	return nslots;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		die("usage: native-gen OUTPUT.c FILE.counters...");
	size_t ninputs = (size_t)argc - 2;
	struct input *inputs = must(calloc(ninputs + 1, sizeof(*inputs)));
	size_t nrecords = 0;
	for (size_t f = 0; f < ninputs; f++) {
		load(&inputs[f], argv[f + 2]);
		nrecords += inputs[f].file.count;
	}
	struct record *records = must(calloc(nrecords + 1, sizeof(*records)));
	uint32_t *set_nslots = must(calloc(ninputs + 1, sizeof(*set_nslots)));
	size_t *set_first = must(calloc(ninputs + 1, sizeof(*set_first)));
	uint32_t *set_input = must(calloc(ninputs + 1, sizeof(*set_input)));

	FILE *out = fopen(argv[1], "w");
	if (!out)
		die("cannot write %s", argv[1]);
	fprintf(out, "/* Generated by lib/expr/native_gen.c from the embedded counter files:\n"
	             " * do not edit. */\n"
	             "#include \"expr/arith.h\"\n#include \"expr/native.h\"\n\n");
	nrecords = 0;
	uint32_t nsets = 0;
	for (size_t f = 0; f < ninputs; f++) {
		size_t first = nrecords;
		for (size_t i = 0; i < inputs[f].file.count; i++)
			if (inputs[f].compiled[i] && writable(inputs[f].compiled[i]))
				records[nrecords++] = (struct record){
					&inputs[f], &inputs[f].file.entries[i], inputs[f].compiled[i], 0, 0 };
		if (nrecords == first)
			continue;
		set_first[nsets] = first;
		set_input[nsets] = (uint32_t)f;
		set_nslots[nsets] = write_set(out, nsets, &records[first], nrecords - first, first);
		nsets++;
	}
	set_first[nsets] = nrecords;

	fprintf(out, "const struct og_native_set og_native_sets[] = {\n");
	for (uint32_t k = 0; k < nsets; k++)
		fprintf(out, "\t{ \"%s\", set_%u, %zu, %u },\n", inputs[set_input[k]].origin, k,
		        set_first[k + 1] - set_first[k], set_nslots[k]);
	fprintf(out, "\t{ 0 },\n};\nconst size_t og_native_set_count = %u;\n\n", nsets);

	/* Shape k belongs to records[k] (file order); the table is sorted. */
	struct record *sorted = must(calloc(nrecords + 1, sizeof(*sorted)));
	memcpy(sorted, records, nrecords * sizeof(*records));
	qsort(sorted, nrecords, sizeof(*sorted), by_origin_then_name);
	for (size_t i = 1; i < nrecords; i++)
		if (by_origin_then_name(&sorted[i - 1], &sorted[i]) == 0)
			die("%s: counter %s is defined twice", sorted[i].in->origin, sorted[i].entry->name);
	fprintf(out, "const struct og_native_counter og_native_counters[] = {\n");
	for (size_t k = 0; k < nrecords; k++) {
		size_t shape = set_first[sorted[k].set] + sorted[k].position;
		fprintf(out, "\t{ \"%s\", \"%s\", %u, %u, shape_%zu,\n"
		             "\t  sizeof(shape_%zu) / sizeof(shape_%zu[0]) },\n",
		        sorted[k].in->origin, sorted[k].entry->name, sorted[k].set, sorted[k].position,
		        shape, shape, shape);
	}
	fprintf(out, "\t{ 0 },\n};\nconst size_t og_native_counter_count = %zu;\n", nrecords);
	free(sorted);
	free(set_nslots);
	free(set_first);
	free(set_input);
	if (ferror(out) | (fclose(out) != 0))
		die("cannot write %s", argv[1]);

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
