/* SPDX-License-Identifier: MIT */
/* catalog.c — from parsed counter files and a device to the public counter list. */
#include "catalog/catalog.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "catalog/builtin.h"
#include "catalog/counterorder.h"
#include "catalog/namemap.h"
#include "util/quote.h"

bool og_catalog_text_only;

/* ---- built-in sets compiled once per process ---------------------------
 *
 * A built-in first file's expressions do not depend on the device: the
 * tables give every raw counter and constant its catalogue index, and an
 * expression is the same whether or not what it names is countable (a
 * context that cannot count it does not offer the counter).  So each set's
 * expressions are assembled once, on the first open that needs them, and
 * every context's catalogue points at them. */

struct shared_counter {
	struct og_expr *expr;
	uint32_t *inputs; /* distinct raw indices, as og_counter.inputs */
	size_t ninputs;
};

static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;
static struct shared_counter **shared_sets; /* per og_builtin_sets entry; NULL: not made */
static bool shared_failed;                  /* out of memory once: assemble per context */

static bool collect_inputs(const struct og_expr *expr, uint32_t **items, size_t *count);

/* Per entry of `set` (expr NULL but for the counters it has tables for). */
static const struct shared_counter *shared_counters(const struct og_builtin_set *set)
{
	size_t which = (size_t)(set - og_builtin_sets);
	pthread_mutex_lock(&shared_lock);
	struct shared_counter *made = NULL;
	if (!shared_sets && !shared_failed)
		shared_sets = calloc(og_builtin_set_count + 1, sizeof(*shared_sets));
	if (shared_sets && !shared_sets[which] && !shared_failed) {
		size_t n = set->file.count;
		/* Room for the most regions and slots of any counter. */
		uint32_t most_regions = 1, most_slots = 1;
		for (size_t i = 0; i < n; i++)
			if (set->counter[i]) {
				if (set->counter[i]->nregions > most_regions)
					most_regions = set->counter[i]->nregions;
				if (set->counter[i]->nslots > most_slots)
					most_slots = set->counter[i]->nslots;
			}
		struct og_expr_region *regions = malloc(most_regions * sizeof(*regions));
		const struct og_expr **slots = malloc(most_slots * sizeof(*slots));
		made = calloc(n + 1, sizeof(*made));
		bool ok = regions && slots && made;
		for (uint32_t k = 0; ok && k < set->norder; k++) {
			uint32_t i = set->order[k];
			const struct og_builtin_counter *t = set->counter[i];
			if (!t)
				continue;
			/* What it inlines was compiled before it, from its tables: a
			 * counter without tables is compiled from its text per context
			 * and cannot be shared, nor can what inlines it. */
			bool inlined = true;
			for (uint32_t r = 0; inlined && r < t->nregions; r++) {
				inlined = made[t->regions[r].entry].expr != NULL;
				regions[r] = (struct og_expr_region){ made[t->regions[r].entry].expr,
				                                      t->regions[r].start, t->regions[r].end };
			}
			for (uint32_t r = 0; inlined && r < t->nslots; r++)
				inlined = (slots[r] = made[t->slot_of[r]].expr) != NULL;
			if (!inlined)
				continue;
			made[i].expr = og_expr_assemble(t->ops, t->nops, regions, t->nregions, slots,
			                                t->nslots);
			ok = made[i].expr && collect_inputs(made[i].expr, &made[i].inputs, &made[i].ninputs);
		}
		free(regions);
		free(slots);
		if (ok) {
			shared_sets[which] = made;
		} else {
			for (size_t i = 0; made && i < n; i++) {
				og_expr_free(made[i].expr);
				free(made[i].inputs);
			}
			free(made);
			shared_failed = true;
		}
	}
	const struct shared_counter *out = shared_sets ? shared_sets[which] : NULL;
	pthread_mutex_unlock(&shared_lock);
	return out;
}

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
	/* expr and inputs are a built-in set's, shared by every context
	 * (shared_counters): not freed. */
	const struct shared_counter *shared;
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
	/* A built-in first file opens from its tables (builtin.h) with the
	 * name map left empty until something needs it: a file after it, the
	 * backend's raw counters, a counter compiled from text.  Then the names
	 * so far are added in the order the text would have added them. */
	bool names_live;
	const struct og_cf_file *lazy_file;
	size_t lazy_done; /* its counters added so far, in compile order */
	const struct shared_counter *shared; /* its expressions, per entry; NULL: none */
	/* Scratch for og_expr_assemble. */
	struct og_expr_region *regions;
	const struct og_expr **slots;
	size_t regions_cap, slots_cap;
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

/* Why an expression naming these cannot be offered. */
static char *raw_missing(const struct og_raw *raw)
{
	return format("raw counter %s is not countable here (%s)", raw->name,
	              raw->why_not ? raw->why_not : "no reason given");
}

static char *constant_missing(const struct og_cf_entry *decl)
{
	/* Its description says what it is; the user can give it. */
	return format("this device does not provide constant %s (%s); set it with "
	              "OpenGPA_SetConstant or OPENGPA_CONSTANTS=%s=VALUE",
	              decl->name, decl->field[OG_F_DESCRIPTION] ? decl->field[OG_F_DESCRIPTION] : "",
	              decl->name);
}

/* With the first cause, so a chain of counters ends in what to do. */
static char *counter_missing(const struct draft *d)
{
	const char *why = d->reason ? d->reason : "";
	return strncmp(why, "counter ", 8) == 0 || !*why
	           ? (*why ? format("%s", why) : format("counter %s is not available", d->decl->name))
	           : format("counter %s is not available (%s)", d->decl->name, why);
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
			note_missing(b, raw_missing(raw));
		*out = (struct og_expr_ref){ .kind = OG_REF_RAW, .index = index };
		return true;
	}
	case NAME_CONSTANT:
		if (!b->cat->constants[index].known)
			note_missing(b, constant_missing(b->cat->constants[index].decl));
		*out = (struct og_expr_ref){ .kind = OG_REF_CONSTANT, .index = index };
		return true;
	case NAME_COUNTER: {
		const struct draft *d = &b->drafts[index];
		if (d->reason || !d->expr) {
			note_missing(b, counter_missing(d));
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
	if (!b->names_live)
		return GPA_STATUS_OK; /* names_go_live adds it */
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
		raw->set = set_name(file->origin);
	}
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
	return add_name(b, file, e, e->name, NAME_CONSTANT, cat->nconst - 1);
}

static GPA_Status add_counter(struct builder *b, const struct og_cf_file *file,
                              const struct og_cf_entry *e, size_t index, bool user);

/* Counter e's name and aliases, for draft `index`. */
static GPA_Status name_counter(struct builder *b, const struct og_cf_file *file,
                               const struct og_cf_entry *e, size_t index)
{
	if (!b->names_live)
		return GPA_STATUS_OK;
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

/* The names a built-in first file defined so far, added to the map in the
 * order the text path adds them: its raw counters and constants, then its
 * counters as compiled. */
static GPA_Status names_go_live(struct builder *b)
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
			st = add_name(b, file, e, e->name, NAME_RAW, r++);
		else if (e->kind == OG_CF_CONSTANT)
			st = add_name(b, file, e, e->name, NAME_CONSTANT, k++);
	}
	/* Its drafts are the first, in its entries' order. */
	size_t *draft_of = malloc((file->count + 1) * sizeof(*draft_of)), n = 0;
	if (!draft_of)
		return fail(b, "out of memory");
	for (size_t i = 0; i < file->count; i++)
		if (file->entries[i].kind == OG_CF_COUNTER)
			draft_of[i] = n++;
	const struct og_builtin_set *set = file->builtin;
	for (size_t done = 0; st == GPA_STATUS_OK && done < b->lazy_done; done++) {
		size_t i = set->order[done];
		st = name_counter(b, file, &file->entries[i], draft_of[i]);
	}
	free(draft_of);
	return st;
}

/* Counter e of a built-in first file into draft `index`, from its tables:
 * offered when everything it names is (the reason otherwise the one its
 * text's compile gives), its expression assembled, not parsed. */
static GPA_Status add_counter_from_table(struct builder *b, const struct og_cf_file *file,
                                         const struct og_cf_entry *e,
                                         const struct og_builtin_counter *t,
                                         const size_t *draft_of, size_t index)
{
	struct og_catalog *cat = b->cat;
	struct draft *d = &b->drafts[index];
	*d = (struct draft){ .decl = e, .file = file };
	for (uint32_t k = 0; !d->reason && k < t->nrefs; k++) {
		const struct og_builtin_ref *r = &t->refs[k];
		if (r->kind == OG_CF_RAW && !cat->raws[r->index].available)
			d->reason = raw_missing(&cat->raws[r->index]);
		else if (r->kind == OG_CF_CONSTANT && !cat->constants[r->index].known)
			d->reason = constant_missing(cat->constants[r->index].decl);
		else if (r->kind == OG_CF_COUNTER && !b->drafts[draft_of[r->index]].expr)
			d->reason = counter_missing(&b->drafts[draft_of[r->index]]);
		else
			continue;
		if (!d->reason)
			return fail(b, "out of memory");
	}
	const struct shared_counter *sh = b->shared ? &b->shared[e - file->entries] : NULL;
	if (!d->reason && sh && sh->expr) {
		d->expr = sh->expr;
		d->shared = sh;
		b->compiled_ops += t->nops;
	} else if (!d->reason) {
		if (t->nregions > b->regions_cap) {
			free(b->regions);
			b->regions_cap = 2 * t->nregions;
			if (!(b->regions = malloc(b->regions_cap * sizeof(*b->regions))))
				return fail(b, "out of memory");
		}
		if (t->nslots > b->slots_cap) {
			free(b->slots);
			b->slots_cap = 2 * t->nslots;
			if (!(b->slots = malloc(b->slots_cap * sizeof(*b->slots))))
				return fail(b, "out of memory");
		}
		/* The counters it inlines are offered too: it names each, directly
		 * or through one it names. */
		for (uint32_t k = 0; k < t->nregions; k++)
			b->regions[k] = (struct og_expr_region){
				b->drafts[draft_of[t->regions[k].entry]].expr, t->regions[k].start,
				t->regions[k].end };
		for (uint32_t k = 0; k < t->nslots; k++)
			b->slots[k] = b->drafts[draft_of[t->slot_of[k]]].expr;
		d->expr = og_expr_assemble(t->ops, t->nops, b->regions, t->nregions, b->slots,
		                           t->nslots);
		if (!d->expr)
			return fail(b, "%s:%u: counter %s: cannot assemble its expression (out of memory)",
			            file->origin, e->line, e->name);
		b->compiled_ops += t->nops;
		if (b->compiled_ops > OG_CATALOG_MAX_OPS)
			return fail(b, "%s:%u: counter %s: the counter files compile to more than %d "
			               "operations in all, the limit of one context (docs/counter-files.md, "
			               "\"Limits\")", file->origin, e->line, e->name, OG_CATALOG_MAX_OPS);
	}
	return name_counter(b, file, e, index);
}

/* A built-in first file's counters, in its compile order, from its tables
 * (a counter without one compiled from its text). */
static GPA_Status add_counters_from_tables(struct builder *b, const struct og_cf_file *file)
{
	const struct og_builtin_set *set = file->builtin;
	size_t *draft_of = malloc((file->count + 1) * sizeof(*draft_of));
	if (!draft_of)
		return fail(b, "out of memory");
	for (size_t i = 0; i < file->count; i++)
		if (file->entries[i].kind == OG_CF_COUNTER)
			draft_of[i] = b->ndrafts++;
	b->shared = shared_counters(set);
	GPA_Status st = GPA_STATUS_OK;
	for (size_t n = 0; st == GPA_STATUS_OK && n < set->norder; n++) {
		size_t i = set->order[n];
		const struct og_builtin_counter *t = set->counter[i];
		if (t) {
			st = add_counter_from_table(b, file, &file->entries[i], t, draft_of, draft_of[i]);
		} else {
			st = names_go_live(b);
			if (st == GPA_STATUS_OK)
				st = add_counter(b, file, &file->entries[i], draft_of[i], false);
		}
		if (!b->names_live)
			b->lazy_done = n + 1;
	}
	free(draft_of);
	return st;
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
	return name_counter(b, file, e, index);
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

/* The distinct raw counters expr reads, in the order it first reads them
 * (one allocation); false without memory. */
static bool collect_inputs(const struct og_expr *expr, uint32_t **items, size_t *count)
{
	const struct og_expr_op *ops;
	size_t nops = og_expr_postfix(expr, &ops), n = 0;
	*count = 0;
	*items = malloc((nops + 1) * sizeof(**items));
	if (!*items)
		return false;
	for (size_t i = 0; i < nops; i++) {
		if (ops[i].code != OG_OP_RAW)
			continue;
		size_t k = 0;
		while (k < n && (*items)[k] != ops[i].index)
			k++;
		if (k == n)
			(*items)[n++] = ops[i].index;
	}
	*count = n;
	return true;
}

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
		c->gpa_desc = format("#%s#%s", group, text);
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
		inputs = collect_inputs(expr, &c->inputs, &c->ninputs);
	}
	c->exact_raw = og_expr_single_raw(expr, &c->raw);
	if (!c->name || !c->set || (alias && !c->alias) || !c->group || !c->text || !c->gpa_desc ||
	    !c->expression || !inputs)
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
	struct og_native_binding b = {
		.fn = ns->fn, .nraw = ns->nraw_slots, .nconst = ns->nconst_slots,
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
		c->native_fn = n->fn;
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
	struct native_cache cache = { NULL, NULL };

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
		const struct og_builtin_set *builtin = d->file->builtin;
		char *set = builtin ? (char *)builtin->name : set_name(d->file->origin);
		const char *desc = builtin ? builtin->gpa_desc[e - d->file->entries] : NULL;
		GPA_Status st = set ? publish(b, &cat->counters[cat->ncounters++], e->name, set,
		                              e->field[OG_F_ALIAS], e->field[OG_F_GROUP],
		                              e->field[OG_F_DESCRIPTION], e->field[OG_F_EXPRESSION],
		                              desc, e->usage, e->type, d->expr, d->shared)
		                    : fail(b, "out of memory");
		if (!builtin)
			free(set);
		if (!set)
			return st;
		d->expr = NULL; /* owned by the counter now */
		if (st != GPA_STATUS_OK)
			return st;
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
			return fail(b, "out of memory");
		GPA_Status st = publish(b, &cat->counters[cat->ncounters++], raw->name, raw->set,
		                        NULL, raw->group, raw->description, raw->source, NULL,
		                        raw->usage, GPA_TYPE_UINT64, expr, NULL);
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
	/* A built-in first file opens from its tables, its names added to the
	 * map only if something after it needs them. */
	bool tables = nbuiltin > 0 && files[0].builtin && !og_catalog_text_only;
	b.names_live = !tables;
	b.lazy_file = tables ? &files[0] : NULL;
	for (size_t f = 0; st == GPA_STATUS_OK && f <= nfiles; f++) {
		if (f > 0 && (f < nfiles || (f == nbuiltin && nextra > 0)))
			st = names_go_live(&b); /* something after the first file */
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
			st = f == 0 && tables ? add_counters_from_tables(&b, file)
			                      : add_counters(&b, file, user);
	}
	if (st == GPA_STATUS_OK)
		st = publish_all(&b, hardware_counters);
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

const struct og_builtin_set *og_builtin_find(const char *name)
{
	for (size_t i = 0; i < og_builtin_set_count; i++)
		if (strcmp(og_builtin_sets[i].name, name) == 0)
			return &og_builtin_sets[i];
	return NULL;
}
