/* SPDX-License-Identifier: MIT */
/* catalog_instances.c — per-instance counters (docs/api.md, "Per-instance
 * counters"): after the public list is made (catalog_publish.c), every
 * raw counter the backend says is a sum over instances (a Mali shader
 * core's or L2 slice's counter) gets one raw counter per instance, named
 * "<instance>:<name>" ("ShaderCore3:MaliHwSC_FRAG_ACTIVE"), and every
 * public counter whose raw inputs are all such sums over the same
 * instances, and which reads no constant that counts instances, gets one
 * copy per instance: its compiled code with each raw leaf turned into that
 * instance's ("ShaderCore3:FragmentActiveCycles"), sharing its description.  The copies are
 * interpreted (no generated C) and listed after the counters they copy:
 * derived copies at the end of the derived counters, so hiding the derived
 * ones (GPA 3.x/4.x) hides them too.  Calls catalog_names.c and
 * og_cat_collect_inputs (catalog_compile.c). */
#include "catalog/catalog_build.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The copies' strings, allocated in large chunks and freed with the
 * catalogue (og_catalog.instance_strings): thousands of copies would
 * otherwise cost a dozen allocations each when a context opens. */
struct og_arena {
	struct og_arena *next;
	size_t used, cap;
	char data[];
};

void og_cat_arena_free(struct og_arena *a)
{
	while (a) {
		struct og_arena *next = a->next;
		free(a);
		a = next;
	}
}

/* The concatenation of parts[0 .. n) (NULL parts are empty), or NULL
 * without memory. */
static char *arena_join(struct og_arena **arena, const char *const *parts, size_t n)
{
	size_t len[8], total = 1;
	if (n > sizeof(len) / sizeof(len[0]))
		return NULL;
	for (size_t i = 0; i < n; i++)
		total += len[i] = parts[i] ? strlen(parts[i]) : 0;
	struct og_arena *a = *arena;
	if (!a || a->cap - a->used < total) {
		size_t cap = total > 60000 ? total : 60000;
		a = malloc(sizeof(*a) + cap);
		if (!a)
			return NULL;
		*a = (struct og_arena){ *arena, 0, cap };
		*arena = a;
	}
	char *out = a->data + a->used, *o = out;
	for (size_t i = 0; i < n; i++) {
		memcpy(o, parts[i] ? parts[i] : "", len[i]);
		o += len[i];
	}
	*o = '\0';
	a->used += total;
	return out;
}
#define JOIN(arena, ...)                                                                     \
	arena_join(arena, (const char *const[]){ __VA_ARGS__ },                               \
	           sizeof((const char *const[]){ __VA_ARGS__ }) / sizeof(const char *))

struct inst {
	uint32_t n;     /* instances; 0: not a sum of instances */
	uint32_t first; /* catalogue raw index of instance 0's raw counter */
	struct og_raw_instance *of;
};

static bool same_instances(const struct inst *a, const struct inst *b)
{
	if (a->n != b->n)
		return false;
	for (uint32_t i = 0; i < a->n; i++)
		if (strcmp(a->of[i].label, b->of[i].label) != 0)
			return false;
	return true;
}

/* The instances counter c is published for, or NULL: every raw leaf a sum
 * over the same instances, no constant that counts them. */
static const struct inst *instances_of(const struct builder *b, const struct og_counter *c,
                                       const struct inst *in, size_t nraw)
{
	const struct og_expr_op *ops;
	size_t nops = og_expr_postfix(c->expr, &ops);
	const struct inst *first = NULL;
	for (size_t i = 0; i < nops; i++) {
		if (ops[i].code == OG_OP_RAW) {
			if (ops[i].index >= nraw || !in[ops[i].index].n)
				return NULL;
			const struct inst *x = &in[ops[i].index];
			if (!first)
				first = x;
			else if (x != first && !same_instances(first, x))
				return NULL;
		} else if (ops[i].code == OG_OP_CONSTANT) {
			const struct og_constant *k = &b->cat->constants[ops[i].index];
			if (!b->binder->counts_instances ||
			    (k->decl && b->binder->counts_instances(b->binder->ud, k->decl->name)))
				return NULL;
		}
	}
	return first;
}

/* "<label>:<each word of list>", blank-separated, in the arena. */
static char *prefixed_words(struct og_arena **arena, const char *label, const char *list)
{
	if (!list)
		return NULL;
	char *out = JOIN(arena, "");
	const char *w;
	size_t n;
	while (out && og_cf_next_word(&list, &w, &n)) {
		/* The arena's newest string is `out`: grow it in place by joining
		 * again would copy; words are few, so join into a new one. */
		char word[256];
		snprintf(word, sizeof(word), "%.*s", (int)n, w);
		out = JOIN(arena, out, out[0] ? " " : "", label, ":", word);
	}
	return out;
}

/* Copy j of counter c: its code over instance j's raw counters. */
static GPA_Status copy_counter(struct builder *b, const struct og_counter *c,
                               const struct inst *in, uint32_t j, struct og_counter *out)
{
	const char *label = NULL;
	const struct og_expr_op *ops;
	size_t nops = og_expr_postfix(c->expr, &ops);
	struct og_expr_op *mine = malloc(nops * sizeof(*mine));
	const struct og_expr *const *slot_of;
	size_t nslots = og_expr_shared(c->expr, &slot_of);
	/* The shared slots' owners are only read to match generated code,
	 * which copies never have. */
	const struct og_expr **slots = calloc(nslots + 1, sizeof(*slots));
	if (!mine || !slots) {
		free(mine);
		free(slots);
		return og_cat_fail(b, "out of memory");
	}
	for (size_t i = 0; i < nops; i++) {
		mine[i] = ops[i];
		if (ops[i].code == OG_OP_RAW) {
			const struct inst *x = &in[ops[i].index];
			mine[i].index = x->first + j;
			label = x->of[j].label;
		}
	}
	memset(out, 0, sizeof(*out));
	out->expr = og_expr_assemble(mine, nops, NULL, 0, slots, nslots);
	free(mine);
	free(slots);
	if (!out->expr || !label)
		return og_cat_fail(b, "out of memory");
	struct og_arena **a = &b->cat->instance_strings;
	out->borrowed = true; /* the strings are the arena's, or the counter's it copies */
	out->name = JOIN(a, label, ":", c->name);
	out->set = c->set;
	out->alias = prefixed_words(a, label, c->alias);
	out->group = c->group;
	/* The description, GPA's and the expression are the counter's: the
	 * name says which instance (copying them made a first open twice as
	 * long, in page faults). */
	out->text = c->text;
	out->gpa_desc = c->gpa_desc;
	out->expression = c->expression;
	out->usage = c->usage;
	out->type = c->type;
	bool inputs = og_cat_collect_inputs(out->expr, &out->inputs, &out->ninputs);
	out->exact_raw = og_expr_single_raw(out->expr, &out->raw);
	if (!out->name || (c->set && !out->set) || (c->alias && !out->alias) || !out->group ||
	    !out->text || !out->gpa_desc || !out->expression || !inputs)
		return og_cat_fail(b, "out of memory");
	return GPA_STATUS_OK;
}

/* The raw counters of every instance: "<label>:<name>", the backend's id. */
static GPA_Status add_instance_raws(struct builder *b, struct inst *in, size_t nraw)
{
	struct og_catalog *cat = b->cat;
	size_t add = 0;
	for (size_t r = 0; r < nraw; r++)
		add += in[r].n;
	if (!add)
		return GPA_STATUS_OK;
	struct og_raw *raws = realloc(cat->raws, (nraw + add + 1) * sizeof(*raws));
	if (!raws)
		return og_cat_fail(b, "out of memory");
	cat->raws = raws;
	for (size_t r = 0; r < nraw; r++) {
		in[r].first = (uint32_t)cat->nraw;
		for (uint32_t j = 0; j < in[r].n; j++) {
			const struct og_raw *base = &cat->raws[r];
			struct og_raw *x = &cat->raws[cat->nraw++];
			memset(x, 0, sizeof(*x));
			struct og_arena **a = &cat->instance_strings;
			x->borrowed = true; /* the arena's strings, or its base's */
			x->name = JOIN(a, in[r].of[j].label, ":", base->name);
			x->source = JOIN(a, in[r].of[j].source);
			x->description = base->description;
			x->group = base->group;
			x->set = base->set;
			x->usage = base->usage;
			x->available = true;
			x->backend_id = in[r].of[j].raw_id;
			if (!x->name || !x->source || !x->description || !x->group || !x->set)
				return og_cat_fail(b, "out of memory");
		}
	}
	return GPA_STATUS_OK;
}

/* Copies of counters[from, to) into out; returns how many, or -1. */
static long copy_range(struct builder *b, const struct inst *in, size_t nraw, size_t from,
                       size_t to, struct og_counter *out, GPA_Status *st)
{
	long n = 0;
	for (size_t i = from; i < to; i++) {
		const struct og_counter *c = &b->cat->counters[i];
		const struct inst *x = instances_of(b, c, in, nraw);
		for (uint32_t j = 0; x && j < x->n; j++) {
			*st = copy_counter(b, c, in, j, &out[n++]);
			if (*st != GPA_STATUS_OK)
				return -1;
		}
	}
	return n;
}

/* The strings are the arena's, freed with the catalogue. */
static void free_copies(struct og_counter *c, long n)
{
	for (long i = 0; i < n; i++) {
		free(c[i].inputs);
		og_expr_free(c[i].expr);
	}
}

GPA_Status og_cat_publish_instances(struct builder *b)
{
	struct og_catalog *cat = b->cat;
	if (!b->binder->instances || !cat->nraw)
		return GPA_STATUS_OK;
	const size_t nraw = cat->nraw;
	struct inst *in = calloc(nraw, sizeof(*in));
	struct og_raw_instance *scratch = malloc(OG_MAX_INSTANCES * sizeof(*scratch));
	GPA_Status st = in && scratch ? GPA_STATUS_OK : og_cat_fail(b, "out of memory");
	size_t per_counter = 0;
	for (size_t r = 0; st == GPA_STATUS_OK && r < nraw; r++) {
		const struct og_raw *raw = &cat->raws[r];
		if (!raw->available)
			continue;
		size_t n = b->binder->instances(b->binder->ud, raw->source, raw->backend_id, scratch,
		                                OG_MAX_INSTANCES);
		if (!n)
			continue;
		n = n > OG_MAX_INSTANCES ? OG_MAX_INSTANCES : n;
		in[r].of = malloc(n * sizeof(*in[r].of));
		if (!in[r].of) {
			st = og_cat_fail(b, "out of memory");
			break;
		}
		memcpy(in[r].of, scratch, n * sizeof(*scratch));
		in[r].n = (uint32_t)n;
		if (n > per_counter)
			per_counter = n;
	}
	if (st == GPA_STATUS_OK)
		st = add_instance_raws(b, in, nraw);
	/* At most one copy per instance of every counter. */
	struct og_counter *dc = NULL, *rc = NULL;
	long nd = 0, nr = 0;
	if (st == GPA_STATUS_OK && per_counter) {
		dc = calloc(cat->nderived * per_counter + 1, sizeof(*dc));
		rc = calloc((cat->ncounters - cat->nderived) * per_counter + 1, sizeof(*rc));
		if (!dc || !rc)
			st = og_cat_fail(b, "out of memory");
	}
	if (st == GPA_STATUS_OK && per_counter)
		nd = copy_range(b, in, nraw, 0, cat->nderived, dc, &st);
	if (st == GPA_STATUS_OK && per_counter)
		nr = copy_range(b, in, nraw, cat->nderived, cat->ncounters, rc, &st);
	if (st == GPA_STATUS_OK && (nd > 0 || nr > 0)) {
		size_t total = cat->ncounters + (size_t)nd + (size_t)nr;
		struct og_counter *all = malloc(total * sizeof(*all));
		if (!all) {
			st = og_cat_fail(b, "out of memory");
		} else {
			size_t k = 0, nraw_pub = cat->ncounters - cat->nderived;
			memcpy(all + k, cat->counters, cat->nderived * sizeof(*all));
			k += cat->nderived;
			memcpy(all + k, dc, (size_t)nd * sizeof(*all));
			k += (size_t)nd;
			memcpy(all + k, cat->counters + cat->nderived, nraw_pub * sizeof(*all));
			k += nraw_pub;
			memcpy(all + k, rc, (size_t)nr * sizeof(*all));
			free(cat->counters);
			cat->counters = all;
			cat->ncounters = total;
			cat->nderived += (size_t)nd;
			cat->nderived_instances = (size_t)nd;
			cat->nraw_instances = (size_t)nr;
			nd = nr = 0; /* owned by the catalogue now */
		}
	}
	if (st != GPA_STATUS_OK) {
		free_copies(dc, nd > 0 ? nd : 0);
		free_copies(rc, nr > 0 ? nr : 0);
	}
	free(dc);
	free(rc);
	for (size_t r = 0; in && r < nraw; r++)
		free(in[r].of);
	free(in);
	free(scratch);
	return st;
}
