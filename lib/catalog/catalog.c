/* SPDX-License-Identifier: MIT */
/* catalog.c — from parsed counter files and a device to the public counter
 * list (og_catalog_build): the raw counters and constants each file
 * declares, bound to the backend; the backend's own raw counters; each
 * file's counters through catalog_tables.c or catalog_compile.c; then
 * catalog_publish.c.  Also freeing a catalogue and finding a counter by name
 * or alias.  catalog_build.h draws the files and which calls which. */
#include "catalog/catalog_build.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "catalog/builtin.h"
#include "util/quote.h"

bool og_catalog_text_only;

static void free_made(struct og_cf_entry *e)
{
	if (!e)
		return;
	free(e->name);
	free(e->field[OG_F_DESCRIPTION]);
	free(e->field[OG_F_GROUP]);
	free(e);
}

/* The declaration a discovered raw counter would have in a file. */
static struct og_cf_entry *made_decl(const struct og_raw_desc *d)
{
	struct og_cf_entry *e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->kind = OG_CF_RAW;
	e->name = strdup(d->name);
	e->field[OG_F_DESCRIPTION] = strdup(d->description ? d->description : "");
	e->field[OG_F_GROUP] = strdup("Hardware");
	e->usage = d->usage;
	e->type = GPA_TYPE_UINT64;
	if (!e->name || !e->field[OG_F_DESCRIPTION] || !e->field[OG_F_GROUP]) {
		free_made(e);
		return NULL;
	}
	return e;
}

static GPA_Status add_raw(struct builder *b, const struct og_cf_file *file, const struct og_cf_entry *e)
{
	struct og_catalog *cat = b->cat;
	struct og_raw *raw = &cat->raws[cat->nraw];
	memset(raw, 0, sizeof(*raw));
	raw->decl = e;
	raw->usage = e->usage;
	cat->nraw++;
	if (file->builtin) {
		/* A built-in set's strings are static: the catalogue points at them. */
		raw->borrowed = true;
		raw->name = e->name;
		raw->source = e->field[OG_F_SOURCE];
		raw->description = e->field[OG_F_DESCRIPTION];
		raw->group = e->field[OG_F_GROUP] ? e->field[OG_F_GROUP] : (char *)"Hardware";
		raw->set = (char *)file->builtin->name;
	} else {
		raw->name = strdup(e->name);
		raw->source = strdup(e->field[OG_F_SOURCE]);
		raw->description = strdup(e->field[OG_F_DESCRIPTION]);
		raw->group = strdup(e->field[OG_F_GROUP] ? e->field[OG_F_GROUP] : "Hardware");
		raw->set = og_cat_set_name(file->origin);
	}
	if (!raw->name || !raw->source || !raw->description || !raw->group || !raw->set)
		return og_cat_fail(b, "out of memory");
	GPA_Status st = og_cat_add_name(b, file, e, e->name, NAME_RAW, cat->nraw - 1);
	if (st != GPA_STATUS_OK)
		return st;
	const char *why = NULL;
	st = b->binder->bind_raw(b->binder->ud, raw->name, raw->source, &raw->backend_id, &why);
	if (st == GPA_STATUS_OK) {
		raw->available = true;
	} else if (st == GPA_STATUS_ERROR_NOT_FOUND) {
		raw->why_not = why;
		if (!og_cat_add_unavailable(cat, e, og_cat_format("%s", why ? why : "not countable here")))
			return og_cat_fail(b, "out of memory");
	} else {
		char q[96];
		return og_cat_fail(b, "%s:%u: raw %s: the %s backend rejects source '%s'", file->origin,
		            e->line, e->name, b->binder->backend, og_quote(raw->source, q, sizeof(q)));
	}
	return GPA_STATUS_OK;
}

static GPA_Status add_constant(struct builder *b, const struct og_cf_file *file,
                               const struct og_cf_entry *e)
{
	struct og_catalog *cat = b->cat;
	struct og_constant *c = &cat->constants[cat->nconst];
	c->decl = e;
	c->known = e->field[OG_F_VALUE] != NULL;
	c->value = e->value;
	if (b->binder->override && b->binder->override(b->binder->ud, e->name, &c->value))
		c->known = true;
	else if (!c->known)
		c->known = b->binder->constant(b->binder->ud, e->name, &c->value) == GPA_STATUS_OK;
	cat->const_values[cat->nconst] = c->known ? c->value : 0.0;
	cat->nconst++;
	return og_cat_add_name(b, file, e, e->name, NAME_CONSTANT, cat->nconst - 1);
}

static GPA_Status add_extra_raw(struct builder *b, const struct og_raw_desc *d)
{
	struct og_catalog *cat = b->cat;
	uint32_t existing;
	/* A built-in set's declaration of the same name is the documented one. */
	if (og_namemap_find(&b->names, d->name, strlen(d->name), &existing))
		return GPA_STATUS_OK;
	struct og_raw *raw = &cat->raws[cat->nraw];
	memset(raw, 0, sizeof(*raw));
	raw->name = strdup(d->name);
	raw->source = strdup(d->name);
	raw->description = strdup(d->description ? d->description : "");
	raw->group = strdup("Hardware");
	raw->set = strdup(b->binder->backend ? b->binder->backend : "backend");
	raw->usage = d->usage;
	raw->available = d->why_not == NULL;
	raw->why_not = d->why_not;
	raw->backend_id = d->raw_id;
	cat->nraw++;
	if (!raw->name || !raw->source || !raw->description || !raw->group || !raw->set)
		return og_cat_fail(b, "out of memory");
	if (d->why_not) {
		struct og_cf_entry *e = made_decl(d);
		if (!e || !og_cat_add_unavailable(cat, e, og_cat_format("%s", d->why_not))) {
			free_made(e);
			return og_cat_fail(b, "out of memory");
		}
		cat->unavailable[cat->nunavailable - 1].made = e;
	}
	return og_cat_add_name(b, NULL, NULL, d->name, NAME_RAW, cat->nraw - 1);
}

GPA_Status og_catalog_build(struct og_catalog *cat, struct og_cf_file *files, size_t nfiles,
                            size_t nbuiltin, const struct og_binder *binder,
                            const struct og_raw_desc *extra, size_t nextra,
                            bool hardware_counters, char *err, size_t errlen)
{
	memset(cat, 0, sizeof(*cat));
	cat->files = files;
	cat->nfiles = nfiles;
	cat->nbuiltin = nbuiltin;
	if (err && errlen)
		err[0] = '\0';

	size_t nraw = nextra, nconst = 0, ncounter = 0;
	for (size_t f = 0; f < nfiles; f++)
		for (size_t i = 0; i < files[f].count; i++) {
			enum og_cf_kind k = files[f].entries[i].kind;
			nraw += k == OG_CF_RAW;
			nconst += k == OG_CF_CONSTANT;
			ncounter += k == OG_CF_COUNTER;
		}

	struct builder b = { .cat = cat, .binder = binder, .err = err, .errlen = errlen };
	cat->raws = calloc(nraw + 1, sizeof(*cat->raws));
	cat->constants = calloc(nconst + 1, sizeof(*cat->constants));
	cat->const_values = calloc(nconst + 1, sizeof(*cat->const_values));
	b.drafts = calloc(ncounter + 1, sizeof(*b.drafts));
	GPA_Status st = GPA_STATUS_OK;
	if (!cat->raws || !cat->constants || !cat->const_values || !b.drafts)
		st = og_cat_fail(&b, "out of memory");

	/* Built-in sets, then the backend's discovered raw counters (which the
	 * sets' names override), then the user's files (which may use both). */
	/* A built-in first file opens from its tables, its names added to the
	 * map only if something after it needs them. */
	bool tables = nbuiltin > 0 && files[0].builtin && !og_catalog_text_only;
	b.names_live = !tables;
	b.lazy_file = tables ? &files[0] : NULL;
	for (size_t f = 0; st == GPA_STATUS_OK && f <= nfiles; f++) {
		if (f > 0 && (f < nfiles || (f == nbuiltin && nextra > 0)))
			st = og_cat_names_go_live(&b); /* something after the first file */
		if (st == GPA_STATUS_OK && f == nbuiltin)
			for (size_t i = 0; st == GPA_STATUS_OK && i < nextra; i++)
				st = add_extra_raw(&b, &extra[i]);
		if (f == nfiles)
			break;
		const struct og_cf_file *file = &files[f];
		bool user = f >= nbuiltin;
		if (user && file->backend && binder->backend && strcmp(file->backend, binder->backend) != 0) {
			if (binder->log)
				binder->log(binder->ud, false, "%s: written for the %s backend, not %s: skipped",
				            file->origin, file->backend, binder->backend);
			continue;
		}
		/* Two passes per file: counters may name raw counters declared later in it. */
		for (size_t i = 0; st == GPA_STATUS_OK && i < file->count; i++) {
			const struct og_cf_entry *e = &file->entries[i];
			if (e->kind == OG_CF_RAW)
				st = add_raw(&b, file, e);
			else if (e->kind == OG_CF_CONSTANT)
				st = add_constant(&b, file, e);
		}
		if (st == GPA_STATUS_OK)
			st = f == 0 && tables ? og_cat_add_counters_from_tables(&b, file)
			                      : og_cat_add_counters(&b, file, user);
	}
	if (st == GPA_STATUS_OK)
		st = og_cat_publish_all(&b, hardware_counters);
	if (st == GPA_STATUS_OK)
		st = og_cat_publish_instances(&b);
	free(b.regions);
	free(b.slots);

	for (size_t i = 0; i < b.ndrafts; i++) {
		if (!b.drafts[i].shared)
			og_expr_free(b.drafts[i].expr);
		free(b.drafts[i].reason);
	}
	free(b.drafts);
	og_namemap_free(&b.names);
	og_namemap_free(&b.skipped);
	if (st != GPA_STATUS_OK) {
		/* files belong to the catalogue, even on failure */
		og_catalog_free(cat);
	}
	return st;
}

static void counter_free(struct og_counter *c)
{
	if (!c->borrowed) {
		free(c->name);
		free(c->set);
		free(c->alias);
		free(c->group);
		free(c->text);
		free(c->gpa_desc);
		free(c->expression);
	}
	if (!c->shared) {
		free(c->inputs);
		og_expr_free(c->expr);
	}
}

void og_catalog_hide_derived(struct og_catalog *cat)
{
	for (size_t i = 0; i < cat->nderived; i++)
		counter_free(&cat->counters[i]);
	memmove(cat->counters, cat->counters + cat->nderived,
	        (cat->ncounters - cat->nderived) * sizeof(*cat->counters));
	cat->ncounters -= cat->nderived;
	cat->nderived = 0;
	cat->nderived_instances = 0;
}

void og_catalog_free(struct og_catalog *cat)
{
	for (size_t i = 0; i < cat->nraw && cat->raws; i++) {
		if (cat->raws[i].borrowed)
			continue;
		free(cat->raws[i].name);
		free(cat->raws[i].source);
		free(cat->raws[i].description);
		free(cat->raws[i].group);
		free(cat->raws[i].set);
	}
	for (size_t i = 0; i < cat->ncounters; i++)
		counter_free(&cat->counters[i]);
	for (size_t i = 0; i < cat->nunavailable; i++) {
		free(cat->unavailable[i].name);
		free(cat->unavailable[i].reason);
		free_made(cat->unavailable[i].made);
	}
	for (size_t i = 0; i < cat->nnative; i++) {
		free(cat->native[i].at_raw);
		free(cat->native[i].at_const);
		free(cat->native[i].k);
	}
	free(cat->native);
	og_cat_arena_free(cat->instance_strings);
	for (size_t f = 0; f < cat->nfiles; f++)
		og_cf_free(&cat->files[f]);
	free(cat->files);
	free(cat->raws);
	free(cat->constants);
	free(cat->const_values);
	free(cat->counters);
	free(cat->unavailable);
	memset(cat, 0, sizeof(*cat));
}

static bool in_list(const char *list, const char *name)
{
	size_t len = strlen(name), n;
	const char *word;
	while (og_cf_next_word(&list, &word, &n))
		if (n == len && strncasecmp(word, name, len) == 0)
			return true;
	return false;
}

bool og_catalog_find(const struct og_catalog *cat, const char *name, uint32_t *index)
{
	for (size_t i = 0; i < cat->ncounters; i++)
		if (strcasecmp(cat->counters[i].name, name) == 0) {
			*index = (uint32_t)i;
			return true;
		}
	/* Names and aliases are unique together, so at most one alias matches. */
	for (size_t i = 0; i < cat->ncounters; i++)
		if (in_list(cat->counters[i].alias, name)) {
			*index = (uint32_t)i;
			return true;
		}
	return false;
}
