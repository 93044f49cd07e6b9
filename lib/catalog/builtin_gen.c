/* SPDX-License-Identifier: MIT */
/*
 * builtin_gen.c — build tool: the built-in counter sets as tables the
 * catalogue opens without reading text (builtin.h).
 *
 * usage: builtin-gen OUTPUT.c FILE.counters...
 *
 * Each file is read with the library's reader, its counters ordered and
 * compiled with the library's own code, exactly as the catalogue does for
 * the first file of a context; the output is what came out, nothing read a
 * second way.  A counter whose text names something its file does not
 * declare, or whose folded numbers include a NaN (whose bits a C literal
 * might not keep), gets no table: the catalogue compiles its text.
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

struct input {
	char origin[256]; /* "counters/NAME.counters", as embed.py names it */
	char name[256];   /* "NAME" */
	struct og_cf_file file;
	struct og_expr **compiled; /* per entry */
	size_t norder;             /* counters in the compile order */
	uint32_t *ordinal;         /* per entry: its place among the raws, or the constants */
	/* The names the counter being compiled reads, each once, in order. */
	struct ref {
		enum og_cf_kind kind;
		uint32_t index;
	} *refs;
	size_t nrefs, refs_cap;
	bool unresolved;
};

const char gen_tool_name[] = "builtin-gen";

static void note_ref(struct input *in, enum og_cf_kind kind, uint32_t index)
{
	for (size_t i = 0; i < in->nrefs; i++)
		if (in->refs[i].kind == kind && in->refs[i].index == index)
			return;
	if (in->nrefs == in->refs_cap) {
		in->refs_cap = in->refs_cap ? 2 * in->refs_cap : 16;
		in->refs = must(realloc(in->refs, in->refs_cap * sizeof(*in->refs)));
	}
	in->refs[in->nrefs++] = (struct ref){ kind, index };
}

/* The catalogue's resolution for a context's first file: ignoring case,
 * names and aliases of the file, counters once compiled (they compile in
 * counterorder.h's order).  Raw counters and constants by their place among
 * the file's, which is their catalogue index. */
static bool resolve(void *ud, const char *name, size_t len, struct og_expr_ref *out)
{
	struct input *in = ud;
	for (size_t i = 0; i < in->file.count; i++) {
		const struct og_cf_entry *e = &in->file.entries[i];
		if (!answers_to(e, name, len))
			continue;
		switch (e->kind) {
		case OG_CF_RAW:
			*out = (struct og_expr_ref){ .kind = OG_REF_RAW, .index = in->ordinal[i] };
			break;
		case OG_CF_CONSTANT:
			*out = (struct og_expr_ref){ .kind = OG_REF_CONSTANT, .index = in->ordinal[i] };
			break;
		default:
			if (!in->compiled[i])
				break;
			*out = (struct og_expr_ref){ .kind = OG_REF_EXPR, .expr = in->compiled[i] };
			break;
		}
		if (e->kind != OG_CF_COUNTER || in->compiled[i]) {
			note_ref(in, e->kind, e->kind == OG_CF_COUNTER ? (uint32_t)i : in->ordinal[i]);
			return true;
		}
		break;
	}
	in->unresolved = true;
	return false;
}

/* A C string literal of s: '?' escaped against trigraphs, every byte
 * outside printable ASCII in octal. */
static void put_string(FILE *out, const char *s)
{
	if (!s) {
		fputs("NULL", out);
		return;
	}
	fputs("(char *)\"", out);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '\\' || *p == '"' || *p == '?')
			fprintf(out, "\\%c", *p);
		else if (*p == '\n')
			fputs("\\n", out);
		else if (*p < 32 || *p > 126)
			fprintf(out, "\\%03o", *p);
		else
			fputc(*p, out);
	}
	fputc('"', out);
}

static void put_double(FILE *out, double x)
{
	if (isinf(x))
		fputs(x > 0 ? "__builtin_inf()" : "-__builtin_inf()", out);
	else
		fprintf(out, "%a", x);
}

static const char *const kind_names[] = {
	[OG_CF_CONSTANT] = "OG_CF_CONSTANT", [OG_CF_RAW] = "OG_CF_RAW",
	[OG_CF_COUNTER] = "OG_CF_COUNTER",
};

static uint32_t entry_of(const struct input *in, const struct og_expr *e)
{
	for (size_t i = 0; i < in->file.count; i++)
		if (in->compiled[i] == e)
			return (uint32_t)i;
	die("%s: an inlined counter that is not in the file", in->origin);
}

static void load(struct input *in, const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	size_t len = strlen(base);
	if (len <= 9 || strcmp(base + len - 9, ".counters") != 0)
		die("%s is not a .counters file", path);
	if (snprintf(in->origin, sizeof(in->origin), "counters/%s", base) >= (int)sizeof(in->origin))
		die("%s: name too long", path);
	snprintf(in->name, sizeof(in->name), "%.*s", (int)(len - 9), base);
	char err[512];
	if (!og_cf_load(path, &in->file, err, sizeof(err)))
		die("%s", err);
	in->compiled = must(calloc(in->file.count + 1, sizeof(*in->compiled)));
	in->ordinal = must(calloc(in->file.count + 1, sizeof(*in->ordinal)));
	uint32_t nraw = 0, nconst = 0;
	for (size_t i = 0; i < in->file.count; i++)
		if (in->file.entries[i].kind == OG_CF_RAW)
			in->ordinal[i] = nraw++;
		else if (in->file.entries[i].kind == OG_CF_CONSTANT)
			in->ordinal[i] = nconst++;
}

static void write_entries(FILE *out, size_t f, const struct input *in)
{
	fprintf(out, "static const struct og_cf_entry entries_%zu[] = {\n", f);
	for (size_t i = 0; i < in->file.count; i++) {
		const struct og_cf_entry *e = &in->file.entries[i];
		fprintf(out, "\t{ %s, ", kind_names[e->kind]);
		put_string(out, e->name);
		fputs(", {", out);
		for (int k = 0; k < OG_F__COUNT; k++)
			if (e->field[k]) {
				fprintf(out, " [%d] = ", k);
				put_string(out, e->field[k]);
				fputc(',', out);
			}
		fprintf(out, " }, %u, (GPA_Usage_Type)%d, (GPA_Type)%d, ", e->line, (int)e->usage,
		        (int)e->type);
		if (!isfinite(e->value))
			die("%s:%u: a value that is not finite", in->origin, e->line);
		put_double(out, e->value);
		fputs(" },\n", out);
	}
	fputs("};\n\n", out);
}

/* Compiles the file's counters in order and writes each one's table;
 * returns how many counters got one. */
static size_t write_counters(FILE *out, size_t f, struct input *in, size_t *order, size_t n)
{
	size_t written = 0;
	for (size_t k = 0; k < n; k++) {
		size_t i = order[k];
		const struct og_cf_entry *e = &in->file.entries[i];
		in->nrefs = 0;
		in->unresolved = false;
		char err[256];
		in->compiled[i] = og_expr_compile(e->field[OG_F_EXPRESSION], resolve, in, err, sizeof(err));
		if (!in->compiled[i]) {
			if (!in->unresolved)
				die("%s:%u: counter %s: expression %s", in->origin, e->line, e->name, err);
			continue; /* names another file's: compiled from the text at open */
		}
		const struct og_expr_op *ops;
		size_t nops = og_expr_postfix(in->compiled[i], &ops);
		bool nan = false;
		for (size_t j = 0; j < nops; j++)
			nan |= ops[j].code == OG_OP_NUMBER && isnan(ops[j].number);
		if (nan)
			continue;
		fprintf(out, "/* %s */\nstatic const struct og_expr_op ops_%zu_%zu[] = {\n", e->name, f, i);
		for (size_t j = 0; j < nops; j++) {
			fprintf(out, "\t{ %s, %u, ", op_name(ops[j].code), ops[j].index);
			put_double(out, ops[j].number);
			fputs(" },\n", out);
		}
		fputs("};\n", out);
		const struct og_expr_region *regions;
		size_t nregions = og_expr_regions(in->compiled[i], &regions);
		if (nregions) {
			fprintf(out, "static const struct og_builtin_region regions_%zu_%zu[] = {\n", f, i);
			for (size_t j = 0; j < nregions; j++)
				fprintf(out, "\t{ %u, %u, %u },\n", regions[j].start, regions[j].end,
				        entry_of(in, regions[j].of));
			fputs("};\n", out);
		}
		const struct og_expr *const *slot_of;
		size_t nslots = og_expr_shared(in->compiled[i], &slot_of);
		if (nslots) {
			fprintf(out, "static const uint32_t slots_%zu_%zu[] = {", f, i);
			for (size_t j = 0; j < nslots; j++)
				fprintf(out, " %u,", entry_of(in, slot_of[j]));
			fputs(" };\n", out);
		}
		fprintf(out, "static const struct og_builtin_ref refs_%zu_%zu[] = {", f, i);
		for (size_t j = 0; j < in->nrefs; j++)
			fprintf(out, " { %s, %u },", kind_names[in->refs[j].kind], in->refs[j].index);
		fputs(in->nrefs ? " };\n" : " { 0, 0 } };\n", out);
		fprintf(out, "static const struct og_builtin_counter counter_%zu_%zu = {\n", f, i);
		fprintf(out, "\tops_%zu_%zu, %zu,\n", f, i, nops);
		if (nregions)
			fprintf(out, "\tregions_%zu_%zu, %zu,\n", f, i, nregions);
		else
			fputs("\tNULL, 0,\n", out);
		if (nslots)
			fprintf(out, "\tslots_%zu_%zu, %zu,\n", f, i, nslots);
		else
			fputs("\tNULL, 0,\n", out);
		fprintf(out, "\trefs_%zu_%zu, %zu,\n};\n\n", f, i, in->nrefs);
		written++;
	}
	return written;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		die("usage: builtin-gen OUTPUT.c FILE.counters...");
	size_t ninputs = (size_t)argc - 2;
	struct input *inputs = must(calloc(ninputs + 1, sizeof(*inputs)));
	FILE *out = fopen(argv[1], "w");
	if (!out)
		die("cannot write %s", argv[1]);
	fprintf(out, "/* Generated by lib/catalog/builtin_gen.c from the embedded counter files:\n"
	             " * do not edit. */\n"
	             "#include \"catalog/builtin.h\"\n\n");
	for (size_t f = 0; f < ninputs; f++) {
		struct input *in = &inputs[f];
		load(in, argv[f + 2]);
		fprintf(out, "/* ---- %s ---- */\n\n", in->origin);
		write_entries(out, f, in);
		size_t *order = must(calloc(in->file.count + 1, sizeof(*order))), n = 0;
		char err[512];
		if (!og_cf_counter_order(&in->file, NULL, NULL, order, &n, err, sizeof(err)))
			die("%s", err);
		fprintf(out, "static const uint32_t order_%zu[] = {", f);
		for (size_t k = 0; k < n; k++)
			fprintf(out, "%s%zu,", k % 16 ? " " : "\n\t", order[k]);
		fputs(n ? "\n};\n\n" : " 0 };\n\n", out);
		write_counters(out, f, in, order, n);
		fprintf(out, "static const struct og_builtin_counter *const counters_%zu[] = {\n", f);
		for (size_t i = 0; i < in->file.count; i++) {
			bool has = in->compiled[i] != NULL;
			if (has) {
				const struct og_expr_op *ops;
				size_t nops = og_expr_postfix(in->compiled[i], &ops);
				for (size_t j = 0; j < nops; j++)
					has &= !(ops[j].code == OG_OP_NUMBER && isnan(ops[j].number));
			}
			if (has)
				fprintf(out, "\t&counter_%zu_%zu,\n", f, i);
			else
				fputs("\tNULL,\n", out);
		}
		fputs("};\n\n", out);
		fprintf(out, "static const char *const gpa_desc_%zu[] = {\n", f);
		for (size_t i = 0; i < in->file.count; i++) {
			const struct og_cf_entry *e = &in->file.entries[i];
			char *desc = NULL;
			if (e->kind == OG_CF_COUNTER &&
			    asprintf(&desc, "#%s#%s", e->field[OG_F_GROUP], e->field[OG_F_DESCRIPTION]) < 0)
				die("out of memory");
			fputc('\t', out);
			put_string(out, desc);
			fputs(",\n", out);
			free(desc);
		}
		fputs("};\n\n", out);
		in->norder = n;
		free(order);
	}
	fputs("const struct og_builtin_set og_builtin_sets[] = {\n", out);
	for (size_t f = 0; f < ninputs; f++) {
		const struct input *in = &inputs[f];
		fprintf(out, "\t{ \"%s\", { ", in->name);
		put_string(out, in->origin);
		fputs(", ", out);
		put_string(out, in->file.backend);
		fprintf(out, ", (struct og_cf_entry *)entries_%zu, %zu, &og_builtin_sets[%zu] },\n"
		             "\t  order_%zu, %zu, counters_%zu, gpa_desc_%zu },\n",
		        f, in->file.count, f, f, in->norder, f, f);
	}
	fprintf(out, "\t{ 0 },\n};\nconst size_t og_builtin_set_count = %zu;\n", ninputs);
	if (ferror(out) | (fclose(out) != 0))
		die("cannot write %s", argv[1]);
	for (size_t f = 0; f < ninputs; f++) {
		for (size_t i = 0; i < inputs[f].file.count; i++)
			og_expr_free(inputs[f].compiled[i]);
		free(inputs[f].compiled);
		free(inputs[f].ordinal);
		free(inputs[f].refs);
		og_cf_free(&inputs[f].file);
	}
	free(inputs);
	return 0;
}
