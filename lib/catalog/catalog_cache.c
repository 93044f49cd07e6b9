/* SPDX-License-Identifier: MIT */
/* catalog_cache.c — catalogues kept between opens (catalog_cache.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/builtin.h"
#include "catalog/catalog_cache.h"

/* One question the build asked, with its answer. */
enum call_kind { CALL_BIND, CALL_CONSTANT, CALL_OVERRIDE, CALL_INSTANCES };

struct call {
	enum call_kind kind;
	/* The built-in set's static strings the build passed. */
	const char *name, *source;
	GPA_Status status; /* bind, constant; override: OK when it gave a value */
	uint32_t id;       /* bind: when OK */
	const char *why;   /* bind: when NOT_FOUND; the catalogue keeps the pointer */
	double value;      /* constant, override: when given */
	uint64_t hash;     /* instances: the backend's instances_key */
};

struct og_catalog_entry {
	struct og_catalog_entry *next;
	const void *backend;
	const struct og_builtin_set **sets; /* files[i].builtin */
	size_t nfiles, nbuiltin;
	bool hardware_counters, instance_counters, hide_derived;
	struct call *calls;
	size_t ncalls;
	/* Of them, the overrides and the instances' key: what is still asked
	 * when the answers_key is the same. */
	struct call *checks;
	size_t nchecks;
	/* The binder's answers_key when the build asked its questions (0
	 * bytes: none). */
	size_t nanswers;
	unsigned char answers[OG_ANSWERS_KEY_MAX];
	unsigned users;
	struct og_catalog cat;
};

/* ---- recording the build's questions --------------------------------------- */

struct recorder {
	const struct og_binder *inner;
	struct call *calls;
	size_t n, cap;
	bool failed; /* out of memory: the catalogue is not kept */
	bool keyed;  /* the instances' key is recorded */
	size_t nanswers; /* the binder's answers_key, as og_catalog_get asked it */
	unsigned char answers[OG_ANSWERS_KEY_MAX];
};

static struct call *record(struct recorder *r, enum call_kind kind, const char *name,
                           const char *source)
{
	if (r->failed)
		return NULL;
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 256;
		struct call *c = realloc(r->calls, cap * sizeof(*c));
		if (!c) {
			r->failed = true;
			return NULL;
		}
		r->calls = c;
		r->cap = cap;
	}
	struct call *c = &r->calls[r->n++];
	*c = (struct call){ .kind = kind, .name = name, .source = source };
	return c;
}

static GPA_Status rec_bind(void *ud, const char *name, const char *source, uint32_t *id,
                           const char **why_not)
{
	struct recorder *r = ud;
	GPA_Status st = r->inner->bind_raw(r->inner->ud, name, source, id, why_not);
	struct call *c = record(r, CALL_BIND, name, source);
	if (c) {
		c->status = st;
		/* NOT_FOUND's id too: what a backend's raw_why_not checks. */
		c->id = st == GPA_STATUS_OK || st == GPA_STATUS_ERROR_NOT_FOUND ? *id : 0;
		c->why = st == GPA_STATUS_ERROR_NOT_FOUND ? *why_not : NULL;
	}
	return st;
}

/* A constant's answer, or an override's (OK when it gave a value). */
static void record_value(struct recorder *r, enum call_kind kind, const char *name,
                         GPA_Status st, const double *value)
{
	struct call *c = record(r, kind, name, NULL);
	if (c) {
		c->status = st;
		c->value = st == GPA_STATUS_OK ? *value : 0.0;
	}
}

static GPA_Status rec_constant(void *ud, const char *name, double *value)
{
	struct recorder *r = ud;
	GPA_Status st = r->inner->constant(r->inner->ud, name, value);
	record_value(r, CALL_CONSTANT, name, st, value);
	return st;
}

static bool rec_override(void *ud, const char *name, double *value)
{
	struct recorder *r = ud;
	bool given = r->inner->override(r->inner->ud, name, value);
	record_value(r, CALL_OVERRIDE, name, given ? GPA_STATUS_OK : GPA_STATUS_ERROR_NOT_FOUND,
	             value);
	return given;
}

/* The backend's answers about instances are checked as one key
 * (instances_key), recorded at the first question. */
static size_t rec_instances(void *ud, const char *source, uint32_t id,
                            struct og_raw_instance *out, size_t max)
{
	struct recorder *r = ud;
	size_t n = r->inner->instances(r->inner->ud, source, id, out, max);
	if (r->keyed)
		return n;
	r->keyed = true;
	uint64_t key = 0;
	if (!r->inner->instances_key || !r->inner->instances_key(r->inner->ud, &key)) {
		r->failed = true; /* no way to check them: not kept */
		return n;
	}
	struct call *c = record(r, CALL_INSTANCES, NULL, NULL);
	if (c)
		c->hash = key;
	return n;
}

static bool rec_counts_instances(void *ud, const char *name)
{
	struct recorder *r = ud;
	return r->inner->counts_instances && r->inner->counts_instances(r->inner->ud, name);
}

__attribute__((format(printf, 3, 4))) static void rec_log(void *ud, bool error, const char *fmt, ...)
{
	struct recorder *r = ud;
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	r->inner->log(r->inner->ud, error, "%s", line);
}

/* ---- asking again ------------------------------------------------------------- */

static bool same_value(double a, double b)
{
	return memcmp(&a, &b, sizeof(a)) == 0;
}

/* The binder's answers_key into buf (0 bytes: none, or one too long). */
static size_t answers_key(const struct og_binder *b, unsigned char *buf)
{
	size_t n = b->answers_key ? b->answers_key(b->ud, buf, OG_ANSWERS_KEY_MAX) : 0;
	return n <= OG_ANSWERS_KEY_MAX ? n : 0;
}

/* Whether the binder answers every question of the kept build as it did
 * then.  The kept catalogue holds the answers' why-not pointers, so those
 * must be the same pointers (static text, backend.h), not just equal text. */
static bool same_answers(const struct og_binder *b, const struct call *calls, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct call *c = &calls[i];
		uint32_t id = 0;
		const char *why = NULL;
		double value = 0.0;
		GPA_Status st;
		switch (c->kind) {
		case CALL_BIND:
			/* Where the backend can say from the id it gave (raw_why_not),
			 * without reading the source again. */
			if (b->rebind && b->rebind(b->ud, c->source, c->id, &st, &why)) {
				if (st != c->status || (st == GPA_STATUS_ERROR_NOT_FOUND && why != c->why))
					return false;
				break;
			}
			st = b->bind_raw(b->ud, c->name, c->source, &id, &why);
			if (st != c->status || (st == GPA_STATUS_OK && id != c->id) ||
			    (st == GPA_STATUS_ERROR_NOT_FOUND && why != c->why))
				return false;
			break;
		case CALL_CONSTANT:
			if (!b->constant)
				return false;
			st = b->constant(b->ud, c->name, &value);
			if (st != c->status || (st == GPA_STATUS_OK && !same_value(value, c->value)))
				return false;
			break;
		case CALL_INSTANCES: {
			uint64_t key;
			if (!b->instances || !b->instances_key || !b->instances_key(b->ud, &key) ||
			    key != c->hash)
				return false;
			break;
		}
		case CALL_OVERRIDE:
			if (!b->override)
				return false;
			st = b->override(b->ud, c->name, &value) ? GPA_STATUS_OK
			                                          : GPA_STATUS_ERROR_NOT_FOUND;
			if (st != c->status || (st == GPA_STATUS_OK && !same_value(value, c->value)))
				return false;
			break;
		}
	}
	return true;
}

/* ---- the cache ------------------------------------------------------------------ */

/* Only catalogues of built-in sets read from the build's tables, with no
 * discovered raw counters, are kept (catalog_cache.h). */
static bool keepable(const struct og_catalog_request *req)
{
	if (req->nextra > 0 || req->nfiles != req->nbuiltin || req->nfiles == 0 ||
	    og_catalog_text_only)
		return false;
	for (size_t i = 0; i < req->nfiles; i++)
		if (!req->files[i].builtin)
			return false;
	return true;
}

static bool same_request(const struct og_catalog_entry *e, const struct og_catalog_request *req)
{
	if (e->backend != req->backend || e->nfiles != req->nfiles || e->nbuiltin != req->nbuiltin ||
	    e->hardware_counters != req->hardware_counters ||
	    e->instance_counters != req->instance_counters || e->hide_derived != req->hide_derived)
		return false;
	for (size_t i = 0; i < e->nfiles; i++)
		if (e->sets[i] != req->files[i].builtin)
			return false;
	return true;
}

static void entry_free(struct og_catalog_entry *e)
{
	og_catalog_free(&e->cat);
	free(e->calls);
	free(e->checks);
	free(e->sets);
	free(e);
}

static void files_free(struct og_cf_file *files, size_t n)
{
	for (size_t i = 0; i < n; i++)
		og_cf_free(&files[i]);
	free(files);
}

/* Frees unused entries past the first `keep` unused ones. */
static void trim_to(struct og_catalog_cache *cache, size_t keep)
{
	size_t unused = 0;
	for (struct og_catalog_entry **pp = &cache->entries; *pp;) {
		struct og_catalog_entry *e = *pp;
		if (e->users == 0 && ++unused > keep) {
			*pp = e->next;
			entry_free(e);
			continue;
		}
		pp = &e->next;
	}
}

static struct og_catalog_entry *find(struct og_catalog_cache *cache,
                                     const struct og_catalog_request *req)
{
	unsigned char key[OG_ANSWERS_KEY_MAX];
	size_t nkey = answers_key(req->binder, key);
	for (struct og_catalog_entry **pp = &cache->entries; *pp; pp = &(*pp)->next) {
		struct og_catalog_entry *e = *pp;
		if (!same_request(e, req))
			continue;
		/* The same answers_key: the bind and constant answers are the
		 * build's without asking; the rest is asked. */
		bool settled = nkey > 0 && e->nanswers == nkey && memcmp(e->answers, key, nkey) == 0;
		if (!(settled ? same_answers(req->binder, e->checks, e->nchecks)
		              : same_answers(req->binder, e->calls, e->ncalls)))
			continue;
		/* Most recently used first. */
		*pp = e->next;
		e->next = cache->entries;
		cache->entries = e;
		return e;
	}
	return NULL;
}

/* Keeps the catalogue just built, with the questions it asked; NULL (the
 * catalogue stays the caller's) without memory. */
static struct og_catalog_entry *keep(struct og_catalog_cache *cache,
                                     const struct og_catalog_request *req,
                                     struct recorder *rec, const struct og_catalog *cat)
{
	struct og_catalog_entry *e = calloc(1, sizeof(*e));
	const struct og_builtin_set **sets = malloc(req->nfiles * sizeof(*sets));
	size_t nchecks = 0;
	for (size_t i = 0; i < rec->n; i++)
		nchecks += rec->calls[i].kind != CALL_BIND && rec->calls[i].kind != CALL_CONSTANT;
	struct call *checks = malloc((nchecks ? nchecks : 1) * sizeof(*checks));
	if (!e || !sets || !checks || rec->failed) {
		free(e);
		free(sets);
		free(checks);
		return NULL;
	}
	nchecks = 0;
	for (size_t i = 0; i < rec->n; i++)
		if (rec->calls[i].kind != CALL_BIND && rec->calls[i].kind != CALL_CONSTANT)
			checks[nchecks++] = rec->calls[i];
	for (size_t i = 0; i < req->nfiles; i++)
		sets[i] = req->files[i].builtin;
	*e = (struct og_catalog_entry){
		.next = cache->entries, .backend = req->backend, .sets = sets,
		.nfiles = req->nfiles, .nbuiltin = req->nbuiltin,
		.hardware_counters = req->hardware_counters,
		.instance_counters = req->instance_counters, .hide_derived = req->hide_derived,
		.calls = rec->calls, .ncalls = rec->n, .checks = checks, .nchecks = nchecks,
		.nanswers = rec->nanswers, .users = 1, .cat = *cat,
	};
	memcpy(e->answers, rec->answers, rec->nanswers);
	rec->calls = NULL;
	cache->entries = e;
	trim_to(cache, OG_CATALOG_CACHE_UNUSED);
	return e;
}

GPA_Status og_catalog_get(struct og_catalog_cache *cache, const struct og_catalog_request *req,
                          struct og_catalog *cat, struct og_catalog_entry **entry, char *err,
                          size_t errlen)
{
	*entry = NULL;
	bool keeping = keepable(req);
	struct og_catalog_entry *e = keeping ? find(cache, req) : NULL;
	if (e) {
		e->users++;
		*cat = e->cat;
		*entry = e;
		files_free(req->files, req->nfiles); /* the kept catalogue has its own */
		return GPA_STATUS_OK;
	}

	const struct og_binder *inner = req->binder;
	struct recorder rec = { .inner = inner };
	if (keeping)
		rec.nanswers = answers_key(inner, rec.answers);
	const struct og_binder recording = {
		.ud = &rec,
		.backend = inner->backend,
		.bind_raw = rec_bind,
		.constant = inner->constant ? rec_constant : NULL,
		.override = inner->override ? rec_override : NULL,
		.log = inner->log ? rec_log : NULL,
		.instances = inner->instances ? rec_instances : NULL,
		.counts_instances = inner->instances ? rec_counts_instances : NULL,
	};
	GPA_Status st = og_catalog_build(cat, req->files, req->nfiles, req->nbuiltin,
	                                 keeping ? &recording : inner, req->extra, req->nextra,
	                                 req->hardware_counters, err, errlen);
	if (st == GPA_STATUS_OK) {
		if (req->finish)
			req->finish(cat);
		if (req->hide_derived)
			og_catalog_hide_derived(cat);
		if (keeping)
			*entry = keep(cache, req, &rec, cat);
	}
	free(rec.calls);
	return st;
}

void og_catalog_release(struct og_catalog_cache *cache, struct og_catalog *cat,
                        struct og_catalog_entry *entry)
{
	if (!entry) {
		og_catalog_free(cat);
		return;
	}
	entry->users--;
	memset(cat, 0, sizeof(*cat));
	trim_to(cache, OG_CATALOG_CACHE_UNUSED);
}

void og_catalog_cache_trim(struct og_catalog_cache *cache)
{
	trim_to(cache, 0);
}

size_t og_catalog_cache_count(const struct og_catalog_cache *cache, size_t *in_use)
{
	size_t n = 0, used = 0;
	for (const struct og_catalog_entry *e = cache->entries; e; e = e->next) {
		n++;
		used += e->users > 0;
	}
	if (in_use)
		*in_use = used;
	return n;
}
