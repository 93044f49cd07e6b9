/* SPDX-License-Identifier: MIT */
/* catalog.c — from parsed counter files and a device to the public counter list. */
#include "core/catalog.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/counterorder.h"
#include "core/namemap.h"

/* Name map values: the kind in the top bits, the index below. */
#define KIND_SHIFT 28
#define INDEX_MASK ((1u << KIND_SHIFT) - 1)
enum name_kind { NAME_RAW = 1, NAME_CONSTANT = 2, NAME_COUNTER = 3 };

struct draft {
	const struct og_cf_entry *decl;
	const struct og_cf_file *file;
	struct og_expr *expr;
	char *reason; /* why it is unavailable; NULL when available */
	bool skipped; /* a user's counter for another device: neither offered nor listed */
};

struct builder {
	struct og_catalog *cat;
	const struct og_binder *binder;
	struct og_namemap names;
	struct draft *drafts;
	size_t ndrafts;
	/* Where each name was first defined, for duplicate messages. */
	char *err;
	size_t errlen;
	/* Resolver state for the expression being compiled. */
	char *missing; /* first unavailable dependency, described */
	/* Names of skipped counters, and the first one the expression named. */
	struct og_namemap skipped;
	const char *skipped_name;
	/* Postfix operations compiled so far, against OG_CATALOG_MAX_OPS. */
	size_t compiled_ops;
};

static char *format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *format(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = NULL;
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

static GPA_Status fail(struct builder *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static GPA_Status fail(struct builder *b, const char *fmt, ...)
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
static char *set_name(const char *origin)
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

static bool resolve(void *ud, const char *name, size_t len, struct og_expr_ref *out)
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
			note_missing(b, format("raw counter %s is not countable here (%s)", raw->name,
			                       raw->why_not ? raw->why_not : "no reason given"));
		*out = (struct og_expr_ref){ .kind = OG_REF_RAW, .index = index };
		return true;
	}
	case NAME_CONSTANT:
		if (!b->cat->constants[index].known) {
			/* Its description says what it is; the user can give it. */
			const struct og_cf_entry *decl = b->cat->constants[index].decl;
			note_missing(b, format("this device does not provide constant %s (%s); set it with "
			                       "OpenGPA_SetConstant or OPENGPA_CONSTANTS=%s=VALUE",
			                       decl->name, decl->field[OG_F_DESCRIPTION]
			                                       ? decl->field[OG_F_DESCRIPTION] : "",
			                       decl->name));
		}
		*out = (struct og_expr_ref){ .kind = OG_REF_CONSTANT, .index = index };
		return true;
	case NAME_COUNTER: {
		const struct draft *d = &b->drafts[index];
		if (d->reason || !d->expr) {
			/* With the first cause, so a chain of counters ends in what to do. */
			const char *why = d->reason ? d->reason : "";
			note_missing(b, strncmp(why, "counter ", 8) == 0 || !*why
			                    ? (*why ? format("%s", why)
			                            : format("counter %s is not available", d->decl->name))
			                    : format("counter %s is not available (%s)", d->decl->name, why));
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

static GPA_Status add_name(struct builder *b, const struct og_cf_file *file,
                           const struct og_cf_entry *e, const char *name, enum name_kind kind,
                           size_t index)
{
	uint32_t existing;
	if (og_namemap_find(&b->names, name, strlen(name), &existing)) {
		const struct og_cf_entry *owner = NULL;
		if (existing >> KIND_SHIFT == NAME_COUNTER)
			owner = b->drafts[existing & INDEX_MASK].decl;
		if (owner && strcasecmp(owner->name, name) != 0)
			return fail(b, "%s:%u: the name %s is already an alias of counter %s (names and "
			               "aliases are unique ignoring case)",
			            file ? file->origin : "backend", e ? e->line : 0, name, owner->name);
		return fail(b, "%s:%u: the name %s is already defined (names are unique ignoring case)",
		            file ? file->origin : "backend", e ? e->line : 0, name);
	}
	if (!og_namemap_put(&b->names, name, strlen(name), ((uint32_t)kind << KIND_SHIFT) | (uint32_t)index))
		return fail(b, "out of memory");
	return GPA_STATUS_OK;
}

static bool add_unavailable(struct og_catalog *cat, const struct og_cf_entry *decl, char *reason)
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
	raw->name = strdup(e->name);
	raw->source = strdup(e->field[OG_F_SOURCE]);
	raw->description = strdup(e->field[OG_F_DESCRIPTION]);
	raw->group = strdup(e->field[OG_F_GROUP] ? e->field[OG_F_GROUP] : "Hardware");
	raw->set = set_name(file->origin);
	raw->usage = e->usage;
	cat->nraw++;
	if (!raw->name || !raw->source || !raw->description || !raw->group || !raw->set)
		return fail(b, "out of memory");
	GPA_Status st = add_name(b, file, e, e->name, NAME_RAW, cat->nraw - 1);
	if (st != GPA_STATUS_OK)
		return st;
	const char *why = NULL;
	st = b->binder->bind_raw(b->binder->ud, raw->name, raw->source, &raw->backend_id, &why);
	if (st == GPA_STATUS_OK) {
		raw->available = true;
	} else if (st == GPA_STATUS_ERROR_NOT_FOUND) {
		raw->why_not = why;
		if (!add_unavailable(cat, e, format("%s", why ? why : "not countable here")))
			return fail(b, "out of memory");
	} else {
		char q[96];
		return fail(b, "%s:%u: raw %s: the %s backend rejects source '%s'", file->origin,
		            e->line, e->name, b->binder->backend, og_cf_quote(raw->source, q, sizeof(q)));
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
	return add_name(b, file, e, e->name, NAME_CONSTANT, cat->nconst - 1);
}

/* Compiles counter e of file into draft `index` (the drafts keep file order,
 * whatever order the counters compile in). */
static GPA_Status add_counter(struct builder *b, const struct og_cf_file *file,
                              const struct og_cf_entry *e, size_t index, bool user)
{
	struct draft *d = &b->drafts[index];
	*d = (struct draft){ .decl = e, .file = file };
	char msg[256];
	b->missing = NULL;
	b->skipped_name = NULL;
	d->expr = og_expr_compile(e->field[OG_F_EXPRESSION], resolve, b, msg, sizeof(msg));
	if (!d->expr) {
		free(b->missing);
		b->missing = NULL;
		/* An unknown name in a user's file may be a counter of another device. */
		if (user && strstr(msg, "unknown name")) {
			d->skipped = true;
			if (b->binder->log && b->skipped_name)
				b->binder->log(b->binder->ud, true,
				               "%s:%u: counter %s skipped: it names counter %s, which was "
				               "skipped", file->origin, e->line, e->name, b->skipped_name);
			else if (b->binder->log)
				b->binder->log(b->binder->ud, true,
				               "%s:%u: counter %s skipped: %s (not a counter, raw counter or "
				               "constant of this device)",
				               file->origin, e->line, e->name, msg);
			/* Its name stays free; counters that name it are skipped too. */
			if (!og_namemap_put(&b->skipped, e->name, strlen(e->name), (uint32_t)index))
				return fail(b, "out of memory");
			return GPA_STATUS_OK;
		}
		return fail(b, "%s:%u: counter %s: expression %s", file->origin, e->line, e->name, msg);
	}
	const struct og_expr_op *ops;
	b->compiled_ops += og_expr_postfix(d->expr, &ops);
	if (b->compiled_ops > OG_CATALOG_MAX_OPS)
		return fail(b, "%s:%u: counter %s: the counter files compile to more than %d "
		               "operations in all, the limit of one context (docs/counter-files.md, "
		               "\"Limits\")", file->origin, e->line, e->name, OG_CATALOG_MAX_OPS);
	if (b->missing) {
		d->reason = b->missing;
		b->missing = NULL;
		og_expr_free(d->expr);
		d->expr = NULL;
		if (user && b->binder->log)
			b->binder->log(b->binder->ud, false, "%s:%u: counter %s is not offered: %s",
			               file->origin, e->line, e->name, d->reason);
	}
	GPA_Status st = add_name(b, file, e, e->name, NAME_COUNTER, index);
	/* Aliases are names too: found by lookup, resolvable in expressions,
	 * unique ignoring case against every other name and alias. */
	const char *list = e->field[OG_F_ALIAS], *alias;
	size_t len;
	while (st == GPA_STATUS_OK && og_cf_next_word(&list, &alias, &len)) {
		uint32_t existing;
		if (og_namemap_find(&b->names, alias, len, &existing))
			return fail(b, "%s:%u: alias %.*s of counter %s is already a name (names and "
			               "aliases are unique ignoring case)",
			            file->origin, e->line, (int)len, alias, e->name);
		if (!og_namemap_put(&b->names, alias, len, ((uint32_t)NAME_COUNTER << KIND_SHIFT) |
		                                                (uint32_t)index))
			return fail(b, "out of memory");
	}
	return st;
}

static bool name_taken(void *ud, const char *name, size_t len)
{
	const struct builder *b = ud;
	uint32_t v;
	return og_namemap_find(&b->names, name, len, &v);
}

/* The counters of one file: each compiled after the counters of the file it
 * names (counterorder.h), into drafts laid out in file order. */
static GPA_Status add_counters(struct builder *b, const struct og_cf_file *file, bool user)
{
	size_t *order = malloc((file->count + 1) * sizeof(*order));
	size_t *draft_of = malloc((file->count + 1) * sizeof(*draft_of)); /* by entry */
	size_t n = 0;
	char msg[512];
	GPA_Status st = GPA_STATUS_OK;
	if (!order || !draft_of)
		st = fail(b, "out of memory");
	else if (!og_cf_counter_order(file, name_taken, b, order, &n, msg, sizeof(msg)))
		st = fail(b, "%s", msg);
	for (size_t i = 0; st == GPA_STATUS_OK && i < file->count; i++)
		if (file->entries[i].kind == OG_CF_COUNTER)
			draft_of[i] = b->ndrafts++;
	for (size_t k = 0; st == GPA_STATUS_OK && k < n; k++)
		st = add_counter(b, file, &file->entries[order[k]], draft_of[order[k]], user);
	free(order);
	free(draft_of);
	return st;
}

struct input_set {
	uint32_t *items;
	size_t count;
	bool oom;
};

static void collect_input(void *ud, uint32_t index)
{
	struct input_set *set = ud;
	for (size_t i = 0; i < set->count; i++)
		if (set->items[i] == index)
			return;
	uint32_t *items = realloc(set->items, (set->count + 1) * sizeof(*items));
	if (!items) {
		set->oom = true;
		return;
	}
	set->items = items;
	set->items[set->count++] = index;
}

static GPA_Status publish(struct builder *b, struct og_counter *c, const char *name,
                          const char *set, const char *alias, const char *group,
                          const char *text,
                          const char *expression, GPA_Usage_Type usage, GPA_Type type,
                          struct og_expr *expr)
{
	memset(c, 0, sizeof(*c));
	c->name = strdup(name);
	c->set = set ? strdup(set) : NULL;
	c->alias = alias ? strdup(alias) : NULL;
	c->group = strdup(group);
	c->text = strdup(text);
	c->gpa_desc = format("#%s#%s", group, text);
	c->expression = strdup(expression);
	c->usage = usage;
	c->type = type;
	c->expr = expr;
	struct input_set inputs = { 0 };
	og_expr_for_each_raw(expr, collect_input, &inputs);
	c->inputs = inputs.items;
	c->ninputs = inputs.count;
	c->exact_raw = og_expr_single_raw(expr, &c->raw);
	if (!c->name || !c->set || (alias && !c->alias) || !c->group || !c->text || !c->gpa_desc ||
	    !c->expression || inputs.oom)
		return fail(b, "out of memory");
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
	uint32_t *at = malloc((ns->nslots ? ns->nslots : 1) * sizeof(*at));
	if (!at)
		return NULL;
	for (uint32_t s = 0; s < ns->nslots; s++)
		at[s] = UINT32_MAX;
	struct og_native_binding *b = &cat->native[cat->nnative];
	*b = (struct og_native_binding){ .fn = ns->fn, .at = at, .nslots = ns->nslots,
	                                 .ncounters = ns->ncounters, .index = (uint32_t)cat->nnative };
	cat->nnative++;
	return b;
}

/* Lets counter c of built-in file `file` come from its generated set when
 * that code computes exactly what the context compiled.  Anything else (a
 * user's file, no generated code, no memory) keeps the interpreter, which
 * gives the same values. */
static void bind_native(struct og_catalog *cat, struct og_counter *c, const struct og_cf_file *file)
{
	if (file >= cat->files + cat->nbuiltin || !cat->native)
		return;
	const struct og_native_counter *n = og_native_find(file->origin, c->name);
	if (!n)
		return;
	struct og_native_binding *b = binding_for(cat, n->set);
	if (b && og_native_matches(n, c->expr, b->at, b->nslots)) {
		c->native = b;
		c->native_pos = n->position;
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

static GPA_Status publish_all(struct builder *b, bool hardware_counters)
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
		return fail(b, "out of memory");
	/* Without memory for it, every counter is interpreted. */
	cat->native = calloc(cat->nbuiltin + 1, sizeof(*cat->native));

	for (size_t i = 0; i < b->ndrafts; i++) {
		struct draft *d = &b->drafts[i];
		if (d->skipped)
			continue;
		if (!d->expr) {
			if (!add_unavailable(cat, d->decl, d->reason))
				return fail(b, "out of memory");
			d->reason = NULL;
			continue;
		}
		const struct og_cf_entry *e = d->decl;
		char *set = set_name(d->file->origin);
		GPA_Status st = set ? publish(b, &cat->counters[cat->ncounters++], e->name, set,
		                              e->field[OG_F_ALIAS], e->field[OG_F_GROUP],
		                              e->field[OG_F_DESCRIPTION], e->field[OG_F_EXPRESSION],
		                              e->usage, e->type, d->expr)
		                    : fail(b, "out of memory");
		free(set);
		if (!set)
			return st;
		d->expr = NULL; /* owned by the counter now */
		if (st != GPA_STATUS_OK)
			return st;
		bind_native(cat, &cat->counters[cat->ncounters - 1], d->file);
	}
	cat->nderived = cat->ncounters;
	for (size_t i = 0; i < cat->nnative; i++)
		for (uint32_t s = 0; s < cat->native[i].nslots; s++)
			if (cat->native[i].at[s] == UINT32_MAX)
				cat->native[i].at[s] = 0;
	for (uint32_t i = 0; hardware_counters && i < cat->nraw; i++) {
		const struct og_raw *raw = &cat->raws[i];
		if (!raw->available)
			continue;
		struct og_expr *expr = og_expr_compile("x", raw_only, &i, NULL, 0);
		if (!expr)
			return fail(b, "out of memory");
		GPA_Status st = publish(b, &cat->counters[cat->ncounters++], raw->name, raw->set,
		                        NULL, raw->group, raw->description, raw->source, raw->usage,
		                        GPA_TYPE_UINT64, expr);
		if (st != GPA_STATUS_OK)
			return st;
	}
	return GPA_STATUS_OK;
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
		return fail(b, "out of memory");
	if (d->why_not) {
		struct og_cf_entry *e = made_decl(d);
		if (!e || !add_unavailable(cat, e, format("%s", d->why_not))) {
			free_made(e);
			return fail(b, "out of memory");
		}
		cat->unavailable[cat->nunavailable - 1].made = e;
	}
	return add_name(b, NULL, NULL, d->name, NAME_RAW, cat->nraw - 1);
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
		st = fail(&b, "out of memory");

	/* Built-in sets, then the backend's discovered raw counters (which the
	 * sets' names override), then the user's files (which may use both). */
	for (size_t f = 0; st == GPA_STATUS_OK && f <= nfiles; f++) {
		if (f == nbuiltin)
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
			st = add_counters(&b, file, user);
	}
	if (st == GPA_STATUS_OK)
		st = publish_all(&b, hardware_counters);

	for (size_t i = 0; i < b.ndrafts; i++) {
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
	free(c->name);
	free(c->set);
	free(c->alias);
	free(c->group);
	free(c->text);
	free(c->gpa_desc);
	free(c->expression);
	free(c->inputs);
	og_expr_free(c->expr);
}

void og_catalog_hide_derived(struct og_catalog *cat)
{
	for (size_t i = 0; i < cat->nderived; i++)
		counter_free(&cat->counters[i]);
	memmove(cat->counters, cat->counters + cat->nderived,
	        (cat->ncounters - cat->nderived) * sizeof(*cat->counters));
	cat->ncounters -= cat->nderived;
	cat->nderived = 0;
}

void og_catalog_free(struct og_catalog *cat)
{
	for (size_t i = 0; i < cat->nraw; i++) {
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
	for (size_t i = 0; i < cat->nnative; i++)
		free(cat->native[i].at);
	free(cat->native);
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
