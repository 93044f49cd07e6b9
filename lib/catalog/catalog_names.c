/* SPDX-License-Identifier: MIT */
/* catalog_names.c — the catalogue builder's name map (names and aliases of
 * raw counters, constants and counters, unique ignoring case, resolved in
 * expressions) and its messages: why a counter is unavailable, the list of
 * unavailable ones, the error a failed build returns.  Calls no other file
 * of the builder (catalog_build.h). */
#include "catalog/catalog_build.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "catalog/builtin.h"

char *og_cat_format(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = NULL;
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

GPA_Status og_cat_fail(struct builder *b, const char *fmt, ...)
{
	if (b->err && b->errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(b->err, b->errlen, fmt, ap);
		va_end(ap);
	}
	return GPA_STATUS_ERROR_FAILED;
}

/* "counters/mali-g71.counters" -> "mali-g71". */
char *og_cat_set_name(const char *origin)
{
	const char *base = strrchr(origin, '/');
	base = base ? base + 1 : origin;
	size_t len = strlen(base);
	if (len > 9 && strcmp(base + len - 9, ".counters") == 0)
		len -= 9;
	return strndup(base, len);
}

static void note_missing(struct builder *b, char *what)
{
	if (!b->missing)
		b->missing = what;
	else
		free(what);
}

/* Why an expression naming these cannot be offered. */
char *og_cat_raw_missing(const struct og_raw *raw)
{
	return og_cat_format("raw counter %s is not countable here (%s)", raw->name,
	              raw->why_not ? raw->why_not : "no reason given");
}

char *og_cat_constant_missing(const struct og_cf_entry *decl)
{
	/* Its description says what it is; the user can give it. */
	return og_cat_format("this device does not provide constant %s (%s); set it with "
	              "OpenGPA_SetConstant or OPENGPA_CONSTANTS=%s=VALUE",
	              decl->name, decl->field[OG_F_DESCRIPTION] ? decl->field[OG_F_DESCRIPTION] : "",
	              decl->name);
}

/* With the first cause, so a chain of counters ends in what to do. */
char *og_cat_counter_missing(const struct draft *d)
{
	const char *why = d->reason ? d->reason : "";
	return strncmp(why, "counter ", 8) == 0 || !*why
	           ? (*why ? og_cat_format("%s", why) : og_cat_format("counter %s is not available", d->decl->name))
	           : og_cat_format("counter %s is not available (%s)", d->decl->name, why);
}

bool og_cat_resolve(void *ud, const char *name, size_t len, struct og_expr_ref *out)
{
	struct builder *b = ud;
	uint32_t v;
	if (!og_namemap_find(&b->names, name, len, &v)) {
		if (!b->skipped_name && og_namemap_find(&b->skipped, name, len, &v))
			b->skipped_name = b->drafts[v].decl->name;
		return false;
	}
	uint32_t index = v & INDEX_MASK;
	switch ((enum name_kind)(v >> KIND_SHIFT)) {
	case NAME_RAW: {
		const struct og_raw *raw = &b->cat->raws[index];
		if (!raw->available)
			note_missing(b, og_cat_raw_missing(raw));
		*out = (struct og_expr_ref){ .kind = OG_REF_RAW, .index = index };
		return true;
	}
	case NAME_CONSTANT:
		if (!b->cat->constants[index].known)
			note_missing(b, og_cat_constant_missing(b->cat->constants[index].decl));
		*out = (struct og_expr_ref){ .kind = OG_REF_CONSTANT, .index = index };
		return true;
	case NAME_COUNTER: {
		const struct draft *d = &b->drafts[index];
		if (d->reason || !d->expr) {
			note_missing(b, og_cat_counter_missing(d));
			/* Keep parsing: a constant stands in for the missing counter. */
			*out = (struct og_expr_ref){ .kind = OG_REF_CONSTANT, .index = 0 };
			if (b->cat->nconst == 0)
				*out = (struct og_expr_ref){ .kind = OG_REF_RAW, .index = 0 };
			return true;
		}
		*out = (struct og_expr_ref){ .kind = OG_REF_EXPR, .expr = d->expr };
		return true;
	}
	}
	return false;
}

GPA_Status og_cat_add_name(struct builder *b, const struct og_cf_file *file,
                           const struct og_cf_entry *e, const char *name, enum name_kind kind,
                           size_t index)
{
	if (!b->names_live)
		return GPA_STATUS_OK; /* names_go_live adds it */
	uint32_t existing;
	if (og_namemap_find(&b->names, name, strlen(name), &existing)) {
		const struct og_cf_entry *owner = NULL;
		if (existing >> KIND_SHIFT == NAME_COUNTER)
			owner = b->drafts[existing & INDEX_MASK].decl;
		if (owner && strcasecmp(owner->name, name) != 0)
			return og_cat_fail(b, "%s:%u: the name %s is already an alias of counter %s (names and "
			               "aliases are unique ignoring case)",
			            file ? file->origin : "backend", e ? e->line : 0, name, owner->name);
		return og_cat_fail(b, "%s:%u: the name %s is already defined (names are unique ignoring case)",
		            file ? file->origin : "backend", e ? e->line : 0, name);
	}
	if (!og_namemap_put(&b->names, name, strlen(name), ((uint32_t)kind << KIND_SHIFT) | (uint32_t)index))
		return og_cat_fail(b, "out of memory");
	return GPA_STATUS_OK;
}

bool og_cat_add_unavailable(struct og_catalog *cat, const struct og_cf_entry *decl, char *reason)
{
	struct og_unavailable *u = realloc(cat->unavailable, (cat->nunavailable + 1) * sizeof(*u));
	if (!u) {
		free(reason);
		return false;
	}
	cat->unavailable = u;
	u[cat->nunavailable].name = strdup(decl->name);
	u[cat->nunavailable].reason = reason;
	u[cat->nunavailable].decl = decl;
	u[cat->nunavailable].made = NULL;
	cat->nunavailable++;
	return true;
}

/* Counter e's name and aliases, for draft `index`. */
GPA_Status og_cat_name_counter(struct builder *b, const struct og_cf_file *file,
                               const struct og_cf_entry *e, size_t index)
{
	if (!b->names_live)
		return GPA_STATUS_OK;
	GPA_Status st = og_cat_add_name(b, file, e, e->name, NAME_COUNTER, index);
	/* Aliases are names too: found by lookup, resolvable in expressions,
	 * unique ignoring case against every other name and alias. */
	const char *list = e->field[OG_F_ALIAS], *alias;
	size_t len;
	while (st == GPA_STATUS_OK && og_cf_next_word(&list, &alias, &len)) {
		uint32_t existing;
		if (og_namemap_find(&b->names, alias, len, &existing))
			return og_cat_fail(b, "%s:%u: alias %.*s of counter %s is already a name (names and "
			               "aliases are unique ignoring case)",
			            file->origin, e->line, (int)len, alias, e->name);
		if (!og_namemap_put(&b->names, alias, len, ((uint32_t)NAME_COUNTER << KIND_SHIFT) |
		                                                (uint32_t)index))
			return og_cat_fail(b, "out of memory");
	}
	return st;
}

/* The names a built-in first file defined so far, added to the map in the
 * order the text path adds them: its raw counters and constants, then its
 * counters as compiled. */
GPA_Status og_cat_names_go_live(struct builder *b)
{
	if (b->names_live)
		return GPA_STATUS_OK;
	b->names_live = true;
	const struct og_cf_file *file = b->lazy_file;
	GPA_Status st = GPA_STATUS_OK;
	size_t r = 0, k = 0;
	for (size_t i = 0; st == GPA_STATUS_OK && i < file->count; i++) {
		const struct og_cf_entry *e = &file->entries[i];
		if (e->kind == OG_CF_RAW)
			st = og_cat_add_name(b, file, e, e->name, NAME_RAW, r++);
		else if (e->kind == OG_CF_CONSTANT)
			st = og_cat_add_name(b, file, e, e->name, NAME_CONSTANT, k++);
	}
	/* Its drafts are the first, in its entries' order. */
	size_t *draft_of = malloc((file->count + 1) * sizeof(*draft_of)), n = 0;
	if (!draft_of)
		return og_cat_fail(b, "out of memory");
	for (size_t i = 0; i < file->count; i++)
		if (file->entries[i].kind == OG_CF_COUNTER)
			draft_of[i] = n++;
	const struct og_builtin_set *set = file->builtin;
	for (size_t done = 0; st == GPA_STATUS_OK && done < b->lazy_done; done++) {
		size_t i = set->order[done];
		st = og_cat_name_counter(b, file, &file->entries[i], draft_of[i]);
	}
	free(draft_of);
	return st;
}
