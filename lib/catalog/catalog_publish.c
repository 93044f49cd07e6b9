/* SPDX-License-Identifier: MIT */
/* catalog_publish.c — a built catalogue's drafts made its public counter
 * list (og_counter: names, texts, inputs, the expression), the backend's
 * raw counters published as counters too when asked, and each built-in
 * counter bound to its generated C (native.h) when that code computes
 * exactly what the context compiled.  Calls catalog_names.c and
 * og_cat_collect_inputs (catalog_compile.c). */
#include "catalog/catalog_build.h"

#include <stdlib.h>
#include <string.h>

#include "catalog/builtin.h"

/* Fills c.  With gpa_desc, the strings are a built-in set's, static: c
 * points at them; else it keeps copies. */
static GPA_Status publish(struct builder *b, struct og_counter *c, const char *name,
                          const char *set, const char *alias, const char *group,
                          const char *text, const char *expression, const char *gpa_desc,
                          GPA_Usage_Type usage, GPA_Type type, struct og_expr *expr,
                          const struct shared_counter *shared)
{
	memset(c, 0, sizeof(*c));
	if (gpa_desc) {
		c->borrowed = true;
		c->name = (char *)name;
		c->set = (char *)set;
		c->alias = (char *)alias;
		c->group = (char *)group;
		c->text = (char *)text;
		c->gpa_desc = (char *)gpa_desc;
		c->expression = (char *)expression;
	} else {
		c->name = strdup(name);
		c->set = set ? strdup(set) : NULL;
		c->alias = alias ? strdup(alias) : NULL;
		c->group = strdup(group);
		c->text = strdup(text);
		c->gpa_desc = og_cat_format("#%s#%s", group, text);
		c->expression = strdup(expression);
	}
	c->usage = usage;
	c->type = type;
	c->expr = expr;
	bool inputs = true;
	if (shared) {
		c->shared = true;
		c->inputs = shared->inputs;
		c->ninputs = shared->ninputs;
	} else {
		inputs = og_cat_collect_inputs(expr, &c->inputs, &c->ninputs);
	}
	c->exact_raw = og_expr_single_raw(expr, &c->raw);
	if (!c->name || !c->set || (alias && !c->alias) || !c->group || !c->text || !c->gpa_desc ||
	    !c->expression || !inputs)
		return og_cat_fail(b, "out of memory");
	return GPA_STATUS_OK;
}

/* The binding of generated set `set` (an index into og_native_sets),
 * created on first use; NULL without memory. */
static struct og_native_binding *binding_for(struct og_catalog *cat, uint32_t set)
{
	const struct og_native_set *ns = &og_native_sets[set];
	for (size_t i = 0; i < cat->nnative; i++)
		if (cat->native[i].fn == ns->fn)
			return &cat->native[i];
	/* cat->native has room for one binding per built-in file. */
	struct og_native_binding b = {
		.fn = ns->fn, .parts = ns->parts, .part_size = ns->part_size,
		.part_reach = ns->part_reach, .tail = ns->tail, .tail_size = ns->tail_size,
		.nraw = ns->nraw_slots, .nconst = ns->nconst_slots,
		.ncounters = ns->ncounters, .index = (uint32_t)cat->nnative,
		.at_raw = malloc((ns->nraw_slots + 1) * sizeof(uint32_t)),
		.at_const = malloc((ns->nconst_slots + 1) * sizeof(uint32_t)),
		.k = calloc(ns->nconst_slots + 1, sizeof(double)),
	};
	if (!b.at_raw || !b.at_const || !b.k) {
		free(b.at_raw);
		free(b.at_const);
		free(b.k);
		return NULL;
	}
	for (uint32_t s = 0; s < b.nraw; s++)
		b.at_raw[s] = UINT32_MAX;
	for (uint32_t s = 0; s < b.nconst; s++)
		b.at_const[s] = UINT32_MAX;
	cat->native[cat->nnative++] = b;
	return &cat->native[cat->nnative - 1];
}

/* Lets counter c of built-in file `file` come from its generated set when
 * that code computes exactly what the context compiled.  Anything else (a
 * user's file, no generated code, no memory) keeps the interpreter, which
 * gives the same values. */
struct native_cache {
	const struct og_cf_file *file;
	const struct og_native_set *set;
};

static void bind_native(struct og_catalog *cat, struct og_counter *c, const struct og_cf_file *file,
                        const struct og_cf_entry *e, struct native_cache *cache)
{
	if (file >= cat->files + cat->nbuiltin || !cat->native)
		return;
	/* A file as the build read it finds its counters by entry. */
	const struct og_native_counter *n = NULL;
	if (file->builtin) {
		if (cache->file != file)
			*cache = (struct native_cache){ file, og_native_set_for(file->origin) };
		const struct og_native_set *ns = cache->set;
		size_t i = (size_t)(e - file->entries);
		if (ns && i < ns->nentries && ns->counter_of_entry[i] != UINT32_MAX)
			n = &og_native_counters[ns->counter_of_entry[i]];
	} else {
		n = og_native_find(file->origin, c->name);
	}
	if (!n)
		return;
	struct og_native_binding *b = binding_for(cat, n->set);
	/* The same code under another type would be written as the other kind
	 * of value (a text that is not the one the set was generated from). */
	if (b && n->type == (int)c->type &&
	    og_native_matches(n, c->expr, b->at_raw, b->nraw, b->at_const, b->nconst)) {
		c->native = b;
		c->native_pos = n->position;
		c->native_fn = og_native_fn(n);
	}
}

/* Constant slots get their values (a slot no accepted counter assigned
 * reads constant 0; raw slots stay UINT32_MAX: a session's row leaves them
 * 0). */
static void finish_bindings(struct og_catalog *cat)
{
	for (size_t i = 0; i < cat->nnative; i++) {
		struct og_native_binding *b = &cat->native[i];
		for (uint32_t s = 0; s < b->nconst; s++) {
			if (b->at_const[s] == UINT32_MAX)
				b->at_const[s] = 0;
			b->k[s] = b->at_const[s] < cat->nconst ? cat->const_values[b->at_const[s]] : 0.0;
		}
	}
}

static bool raw_only(void *ud, const char *name, size_t len, struct og_expr_ref *out)
{
	const uint32_t *index = ud;
	(void)name;
	(void)len;
	*out = (struct og_expr_ref){ .kind = OG_REF_RAW, .index = *index };
	return true;
}

GPA_Status og_cat_publish_all(struct builder *b, bool hardware_counters)
{
	struct og_catalog *cat = b->cat;
	size_t n = 0;
	for (size_t i = 0; i < b->ndrafts; i++)
		n += b->drafts[i].expr != NULL;
	if (hardware_counters)
		for (size_t i = 0; i < cat->nraw; i++)
			n += cat->raws[i].available;
	cat->counters = calloc(n ? n : 1, sizeof(*cat->counters));
	if (!cat->counters)
		return og_cat_fail(b, "out of memory");
	/* Without memory for it, every counter is interpreted. */
	cat->native = calloc(cat->nbuiltin + 1, sizeof(*cat->native));
	struct native_cache cache = { NULL, NULL };

	for (size_t i = 0; i < b->ndrafts; i++) {
		struct draft *d = &b->drafts[i];
		if (d->skipped)
			continue;
		if (!d->expr) {
			if (!og_cat_add_unavailable(cat, d->decl, d->reason))
				return og_cat_fail(b, "out of memory");
			d->reason = NULL;
			continue;
		}
		const struct og_cf_entry *e = d->decl;
		const struct og_builtin_set *builtin = d->file->builtin;
		char *set = builtin ? (char *)builtin->name : og_cat_set_name(d->file->origin);
		const char *desc = builtin ? builtin->gpa_desc[e - d->file->entries] : NULL;
		GPA_Status st = set ? publish(b, &cat->counters[cat->ncounters++], e->name, set,
		                              e->field[OG_F_ALIAS], e->field[OG_F_GROUP],
		                              e->field[OG_F_DESCRIPTION], e->field[OG_F_EXPRESSION],
		                              desc, e->usage, e->type, d->expr, d->shared)
		                    : og_cat_fail(b, "out of memory");
		if (!builtin)
			free(set);
		if (!set)
			return st;
		d->expr = NULL; /* owned by the counter now */
		if (st != GPA_STATUS_OK)
			return st;
		cat->counters[cat->ncounters - 1].headline =
		        e->field[OG_F_HEADLINE] && strcmp(e->field[OG_F_HEADLINE], "yes") == 0;
		bind_native(cat, &cat->counters[cat->ncounters - 1], d->file, e, &cache);
	}
	cat->nderived = cat->ncounters;
	finish_bindings(cat);
	for (uint32_t i = 0; hardware_counters && i < cat->nraw; i++) {
		const struct og_raw *raw = &cat->raws[i];
		if (!raw->available)
			continue;
		struct og_expr *expr = og_expr_compile("x", raw_only, &i, NULL, 0);
		if (!expr)
			return og_cat_fail(b, "out of memory");
		GPA_Status st = publish(b, &cat->counters[cat->ncounters++], raw->name, raw->set,
		                        NULL, raw->group, raw->description, raw->source, NULL,
		                        raw->usage, GPA_TYPE_UINT64, expr, NULL);
		if (st != GPA_STATUS_OK)
			return st;
	}
	return GPA_STATUS_OK;
}
