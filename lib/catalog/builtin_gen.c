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

#include "catalog/builtin.h"
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
	size_t i;
	const struct og_cf_entry *e = gen_find(&in->file, name, len, &i);
	if (e) {
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
	}
	in->unresolved = true;
	return false;
}

/* The string pool: every string once, NUL-terminated, one after another;
 * a string is its offset (OG_BUILTIN_NONE for NULL).  A hash table finds
 * repeats (units, groups, descriptions shared by sets). */
struct pool {
	char *text;
	size_t len, cap;
	uint32_t *slot; /* offset + 1, 0 = empty */
	size_t nslots, used;
};

static uint64_t hash_of(const char *s)
{
	uint64_t h = 1469598103934665603ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static void pool_grow(struct pool *p)
{
	size_t n = p->nslots ? 2 * p->nslots : 4096;
	uint32_t *slot = must(calloc(n, sizeof(*slot)));
	for (size_t i = 0; i < p->nslots; i++)
		if (p->slot[i]) {
			size_t j = hash_of(p->text + p->slot[i] - 1) & (n - 1);
			while (slot[j])
				j = (j + 1) & (n - 1);
			slot[j] = p->slot[i];
		}
	free(p->slot);
	p->slot = slot;
	p->nslots = n;
}

static uint32_t pool_string(struct pool *p, const char *s)
{
	if (!s)
		return OG_BUILTIN_NONE;
	if (2 * (p->used + 1) > p->nslots)
		pool_grow(p);
	size_t j = hash_of(s) & (p->nslots - 1);
	while (p->slot[j]) {
		if (strcmp(p->text + p->slot[j] - 1, s) == 0)
			return p->slot[j] - 1;
		j = (j + 1) & (p->nslots - 1);
	}
	size_t n = strlen(s) + 1;
	if (p->len + n >= UINT32_MAX - 1)
		die("the string pool outgrew 32-bit offsets");
	while (p->len + n > p->cap) {
		p->cap = p->cap ? 2 * p->cap : 65536;
		p->text = must(realloc(p->text, p->cap));
	}
	memcpy(p->text + p->len, s, n);
	uint32_t off = (uint32_t)p->len;
	p->len += n;
	p->slot[j] = off + 1;
	p->used++;
	return off;
}

/* The pool as C string literals, one per string (each "...\0"): '?'
 * escaped against trigraphs, every byte outside printable ASCII in octal
 * (always three digits, so no escape runs into the next character). */
static void put_pool(FILE *out, const struct pool *p)
{
	fputs("static const char strings[] =\n", out);
	for (size_t at = 0; at < p->len;) {
		fputs("\t\"", out);
		const unsigned char *s = (const unsigned char *)p->text + at;
		for (; *s; s++) {
			if (*s == '\\' || *s == '"' || *s == '?')
				fprintf(out, "\\%c", *s);
			else if (*s == '\n')
				fputs("\\n", out);
			else if (*s < 32 || *s > 126)
				fprintf(out, "\\%03o", *s);
			else
				fputc(*s, out);
		}
		fputs("\\000\"\n", out);
		at = (size_t)((const char *)s - p->text) + 1;
	}
	fputs("\t\"\";\n\n", out);
}

/* The other pools: each a C array written as it grows, n its length. */
struct stream {
	FILE *f;
	char *text;
	size_t size;
	uint32_t n;
};

static void stream_open(struct stream *s)
{
	s->f = open_memstream(&s->text, &s->size);
	if (!s->f)
		die("out of memory");
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
	gen_read(path, &in->file, in->origin, sizeof(in->origin));
	snprintf(in->name, sizeof(in->name), "%.*s", (int)(len - 9), base);
	in->compiled = must(calloc(in->file.count + 1, sizeof(*in->compiled)));
	in->ordinal = must(calloc(in->file.count + 1, sizeof(*in->ordinal)));
	uint32_t nraw = 0, nconst = 0;
	for (size_t i = 0; i < in->file.count; i++)
		if (in->file.entries[i].kind == OG_CF_RAW)
			in->ordinal[i] = nraw++;
		else if (in->file.entries[i].kind == OG_CF_CONSTANT)
			in->ordinal[i] = nconst++;
}

/* Everything the sets hold, pooled: the generated file is arrays of
 * numbers and one string blob, no pointers but the pool's own eight
 * (catalog/builtin.h), so the library carries no relocation per string. */
struct out {
	struct pool strings;
	struct stream entries, ops, regions, u32, refs, counters, sets;
};

static uint32_t put_u32(struct out *o, uint32_t v)
{
	fprintf(o->u32.f, "%s%u,", o->u32.n % 16 ? " " : "\n\t", v);
	return o->u32.n++;
}

static void write_entries(struct out *o, const struct input *in)
{
	for (size_t i = 0; i < in->file.count; i++) {
		const struct og_cf_entry *e = &in->file.entries[i];
		if ((unsigned)e->usage > 255 || (unsigned)e->type > 255)
			die("%s:%u: a usage or type beyond a byte", in->origin, e->line);
		if (!isfinite(e->value))
			die("%s:%u: a value that is not finite", in->origin, e->line);
		fprintf(o->entries.f, "\t{ %u, {", pool_string(&o->strings, e->name));
		for (int k = 0; k < OG_F__COUNT; k++)
			fprintf(o->entries.f, " %u,", pool_string(&o->strings, e->field[k]));
		fprintf(o->entries.f, " }, %u, %s, %d, %d, ", e->line, kind_names[e->kind],
		        (int)e->usage, (int)e->type);
		put_double(o->entries.f, e->value);
		fputs(" },\n", o->entries.f);
		o->entries.n++;
	}
}

static bool has_nan(const struct og_expr *e)
{
	const struct og_expr_op *ops;
	size_t nops = og_expr_postfix(e, &ops);
	for (size_t j = 0; j < nops; j++)
		if (ops[j].code == OG_OP_NUMBER && isnan(ops[j].number))
			return true;
	return false;
}

/* Compiles the file's counters in order and pools each one's tables;
 * counter_of[i] becomes entry i's record (OG_BUILTIN_NONE: none). */
static void write_counters(struct out *o, struct input *in, const size_t *order, size_t n,
                           uint32_t *counter_of)
{
	for (size_t i = 0; i < in->file.count; i++)
		counter_of[i] = OG_BUILTIN_NONE;
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
		if (has_nan(in->compiled[i]))
			continue;
		const struct og_expr_op *ops;
		size_t nops = og_expr_postfix(in->compiled[i], &ops);
		uint32_t ops_at = o->ops.n;
		fprintf(o->ops.f, "\t/* %s */\n", e->name);
		for (size_t j = 0; j < nops; j++) {
			fprintf(o->ops.f, "\t{ %s, %u, ", op_name(ops[j].code), ops[j].index);
			put_double(o->ops.f, ops[j].number);
			fputs(" },\n", o->ops.f);
		}
		o->ops.n += (uint32_t)nops;
		const struct og_expr_region *regions;
		size_t nregions = og_expr_regions(in->compiled[i], &regions);
		uint32_t regions_at = o->regions.n;
		for (size_t j = 0; j < nregions; j++)
			fprintf(o->regions.f, "\t{ %u, %u, %u },\n", regions[j].start, regions[j].end,
			        entry_of(in, regions[j].of));
		o->regions.n += (uint32_t)nregions;
		const struct og_expr *const *slot_of;
		size_t nslots = og_expr_shared(in->compiled[i], &slot_of);
		uint32_t slots_at = o->u32.n;
		for (size_t j = 0; j < nslots; j++)
			put_u32(o, entry_of(in, slot_of[j]));
		uint32_t refs_at = o->refs.n;
		for (size_t j = 0; j < in->nrefs; j++)
			fprintf(o->refs.f, "\t{ %s, %u },\n", kind_names[in->refs[j].kind],
			        in->refs[j].index);
		o->refs.n += (uint32_t)in->nrefs;
		fprintf(o->counters.f, "\t{ %u, %zu, %u, %zu, %u, %zu, %u, %zu },\n", ops_at, nops,
		        regions_at, nregions, slots_at, nslots, refs_at, in->nrefs);
		counter_of[i] = o->counters.n++;
	}
}

static void put_stream(FILE *out, const char *decl, struct stream *s, const char *empty)
{
	if (ferror(s->f) | (fclose(s->f) != 0))
		die("out of memory");
	fprintf(out, "%s[] = {\n%s%s};\n\n", decl, s->text, s->n ? "\n" : empty);
	free(s->text);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		die("usage: builtin-gen OUTPUT.c FILE.counters...");
	size_t ninputs = (size_t)argc - 2;
	struct input *inputs = must(calloc(ninputs + 1, sizeof(*inputs)));
	struct out o = { 0 };
	struct stream *streams[] = { &o.entries, &o.ops, &o.regions, &o.u32, &o.refs, &o.counters,
		                     &o.sets };
	for (size_t i = 0; i < sizeof(streams) / sizeof(streams[0]); i++)
		stream_open(streams[i]);
	for (size_t f = 0; f < ninputs; f++) {
		struct input *in = &inputs[f];
		load(in, argv[f + 2]);
		uint32_t entries_at = o.entries.n;
		write_entries(&o, in);
		size_t *order = must(calloc(in->file.count + 1, sizeof(*order))), n = 0;
		char err[512];
		if (!og_cf_counter_order(&in->file, NULL, NULL, order, &n, err, sizeof(err)))
			die("%s", err);
		uint32_t order_at = o.u32.n;
		for (size_t k = 0; k < n; k++)
			put_u32(&o, (uint32_t)order[k]);
		uint32_t *counter_of = must(calloc(in->file.count + 1, sizeof(*counter_of)));
		write_counters(&o, in, order, n, counter_of);
		uint32_t counters_at = o.u32.n;
		for (size_t i = 0; i < in->file.count; i++)
			put_u32(&o, counter_of[i]);
		uint32_t desc_at = o.u32.n;
		for (size_t i = 0; i < in->file.count; i++) {
			const struct og_cf_entry *e = &in->file.entries[i];
			char *desc = NULL;
			if (e->kind == OG_CF_COUNTER &&
			    asprintf(&desc, "#%s#%s", e->field[OG_F_GROUP], e->field[OG_F_DESCRIPTION]) < 0)
				die("out of memory");
			put_u32(&o, pool_string(&o.strings, desc));
			free(desc);
		}
		fprintf(o.sets.f, "\t{ %u, %u, %u, %u, %zu, %u, %zu, %u, %u },\n",
		        pool_string(&o.strings, in->name), pool_string(&o.strings, in->origin),
		        pool_string(&o.strings, in->file.backend), entries_at, in->file.count, order_at,
		        n, counters_at, desc_at);
		o.sets.n++;
		free(counter_of);
		free(order);
	}
	FILE *out = fopen(argv[1], "w");
	if (!out)
		die("cannot write %s", argv[1]);
	fprintf(out, "/* Generated by lib/catalog/builtin_gen.c from the embedded counter files:\n"
	             " * do not edit. */\n"
	             "#include \"catalog/builtin.h\"\n\n");
	put_pool(out, &o.strings);
	put_stream(out, "static const struct og_builtin_set_rec sets", &o.sets, "\t{ 0 }\n");
	put_stream(out, "static const struct og_builtin_entry_rec entries", &o.entries, "\t{ 0 }\n");
	put_stream(out, "static const struct og_expr_op ops", &o.ops, "\t{ 0 }\n");
	put_stream(out, "static const struct og_builtin_region regions", &o.regions, "\t{ 0 }\n");
	put_stream(out, "static const uint32_t u32", &o.u32, "\t0\n");
	put_stream(out, "static const struct og_builtin_ref refs", &o.refs, "\t{ 0 }\n");
	put_stream(out, "static const struct og_builtin_counter_rec counters", &o.counters, "\t{ 0 }\n");
	fprintf(out, "const struct og_builtin_pool og_builtin_pool = {\n"
	             "\tstrings, sets, %zu, entries, ops, regions, u32, refs, counters,\n};\n"
	             "const size_t og_builtin_set_count = %zu;\n", ninputs, ninputs);
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
	free(o.strings.text);
	free(o.strings.slot);
	return 0;
}
