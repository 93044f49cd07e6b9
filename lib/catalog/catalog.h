/* SPDX-License-Identifier: MIT */
/*
 * catalog.h — the counters one context offers: raw counters the backend
 * bound, device constants, and public counters with compiled expressions.
 * Built when a context opens, read-only afterwards: shared by the contexts
 * whose backends answer alike (catalog_cache.h).
 */
#ifndef OPENGPA_CATALOG_CATALOG_H
#define OPENGPA_CATALOG_CATALOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "GPUPerfAPITypes.h"
#include "backend.h"
#include "catalog/counterfile.h"
#include "expr/expr.h"
#include "expr/native.h"

/* Most postfix operations all of one context's counters may compile to
 * (each at most OG_EXPR_MAX_OPS): with the counter-file size cap, what
 * bounds the memory and time a context's counter files can take (about 50
 * bytes an operation; the built-in sets use a few thousand).
 * docs/counter-files.md, "Limits". */
#define OG_CATALOG_MAX_OPS (1 << 18)

struct og_arena;

struct og_raw {
	const struct og_cf_entry *decl; /* NULL for a raw counter the backend discovered */
	char *name, *source, *description, *group;
	char *set; /* its file's name without ".counters", or the backend's name */
	GPA_Usage_Type usage;
	bool available;
	const char *why_not; /* static text from the backend when !available */
	uint32_t backend_id; /* for an `api:` source, an enum og_api_value */
	bool api;            /* measured by the application's API (apictx.h), not the backend */
	bool borrowed; /* the strings are a built-in set's (builtin.h), not copies */
};

struct og_constant {
	const struct og_cf_entry *decl;
	bool known;
	double value;
};

/* A built-in set's generated code and where its leaves are in this
 * catalogue (native.h): the raw counter behind each raw slot (UINT32_MAX
 * for one no counter offered here reads), and each constant slot's value. */
struct og_native_binding {
	og_native_set_fn *fn;
	og_native_parts_fn *parts; /* fn for some parts of the set (native.h) */
	uint32_t part_size;
	const uint16_t *part_reach; /* per part, the leaves it reads are below (native.h) */
	og_native_set_fn *tail;     /* the set's last tail_size counters (native.h) */
	uint32_t tail_size;
	uint32_t *at_raw;   /* raw slot -> catalogue raw index, or UINT32_MAX */
	uint32_t nraw;
	uint32_t *at_const; /* constant slot -> catalogue constant index */
	double *k;          /* constant slot -> value */
	uint32_t nconst;
	uint32_t ncounters; /* outputs of fn */
	uint32_t index;     /* in og_catalog.native */
};

struct og_counter {
	char *name;
	char *set;         /* the counter file's name without ".counters" (or the backend's) */
	char *alias;       /* other names it answers to, blank-separated; NULL if none */
	char *group;
	char *text;        /* description */
	char *gpa_desc;    /* "#group#text", what GPA 2.x clients expect */
	char *expression;  /* as written (a raw counter: its source) */
	GPA_Usage_Type usage;
	GPA_Type type;
	struct og_expr *expr;
	/* Its built-in set compiled to C computes it as out[native_pos], and
	 * native_fn alone, when og_native_matches() accepted that code; NULL
	 * otherwise. */
	const struct og_native_binding *native;
	uint32_t native_pos;
	og_native_counter_fn *native_fn;
	uint32_t *inputs; /* distinct raw indices the expression reads */
	size_t ninputs;
	bool exact_raw;   /* expression is one raw counter: exact 64-bit result */
	uint32_t raw;     /* that raw counter */
	bool borrowed;    /* the strings are a built-in set's (builtin.h), not copies */
	bool shared;      /* expr and inputs are shared by every context (catalog.c) */
	bool headline;    /* its file's `headline: yes`: in `opengpa stat`'s default set */
};

/* An entry the catalogue could not offer on this device, and why. */
struct og_unavailable {
	char *name;
	char *reason;
	const struct og_cf_entry *decl; /* its declaration (group, usage, ...) in files[] */
	/* A raw counter the backend discovered has no file: its declaration is
	 * made up and owned here (decl points to it). */
	struct og_cf_entry *made;
};

/* What the catalogue asks of the device; the core wraps a backend in it,
 * the counter-file tests wrap nothing (every raw counter binds). */
struct og_binder {
	void *ud;
	const char *backend; /* name, to skip user files written for another backend */
	GPA_Status (*bind_raw)(void *ud, const char *name, const char *source, uint32_t *id,
	                       const char **why_not);
	/* Optional: the answer bind_raw would give `source` now, from the raw
	 * id it gave before (backend.h, raw_why_not); false when only binding
	 * again can tell.  Used to check a kept catalogue (catalog_cache.h). */
	bool (*rebind)(void *ud, const char *source, uint32_t id, GPA_Status *status,
	               const char **why_not);
	GPA_Status (*constant)(void *ud, const char *name, double *value);
	/* Optional: a value the user gave the constant, which replaces both the
	 * file's and the backend's (OpenGPA_SetConstant). */
	bool (*override)(void *ud, const char *name, double *value);
	void (*log)(void *ud, bool error, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
	/* Optional: per-instance values (backend.h, raw_instances and
	 * constant_counts_instances); NULL: no instance counters. */
	size_t (*instances)(void *ud, const char *source, uint32_t id, struct og_raw_instance *out,
	                     size_t max);
	bool (*counts_instances)(void *ud, const char *name);
	/* With instances: one value standing for every answer it would give
	 * (backend.h, instances_key); the cache checks a kept catalogue with it.
	 * NULL: a catalogue with instances is not kept. */
	bool (*instances_key)(void *ud, uint64_t *key);
	/* Optional: bytes deciding every answer bind_raw, rebind and constant
	 * give now (backend.h, answers_key), at most OG_ANSWERS_KEY_MAX; 0: none.
	 * A kept catalogue recorded with the same bytes is checked without
	 * asking those questions again (catalog_cache.h). */
	size_t (*answers_key)(void *ud, void *buf, size_t max);
};

struct og_catalog {
	struct og_cf_file *files;
	size_t nfiles;
	size_t nbuiltin; /* files[0..nbuiltin) are embedded sets; the rest the user's */

	struct og_raw *raws;
	size_t nraw;
	struct og_constant *constants;
	size_t nconst;
	double *const_values; /* evaluation array, nconst long */

	struct og_counter *counters; /* public counters, GPA index order */
	size_t ncounters;
	size_t nderived; /* counters[0..nderived) come from counter files, the rest are raw */
	/* Of them, per-instance copies (catalog_instances.c): the last
	 * nderived_instances of the derived ones, the last nraw_instances of
	 * the rest. */
	size_t nderived_instances, nraw_instances;
	struct og_arena *instance_strings; /* their strings (catalog_instances.c) */

	struct og_unavailable *unavailable;
	size_t nunavailable;

	/* Generated sets of the built-in files, at most one per file. */
	struct og_native_binding *native;
	size_t nnative;
};

/* For tests: build every catalogue from the counter files' text, a built-in
 * first file included, rather than from its tables (builtin.h). */
extern bool og_catalog_text_only;

/* Takes ownership of files[] (and frees them with the catalogue).  Extra
 * raw counters the backend discovered may be passed in `extra`.  With
 * hardware_counters, every available raw counter is also a public counter.
 * Returns OK, or FAILED with *err set when a file is wrong (duplicate
 * names, an embedded expression that does not compile). */
GPA_Status og_catalog_build(struct og_catalog *cat, struct og_cf_file *files, size_t nfiles,
                            size_t nbuiltin, const struct og_binder *binder,
                            const struct og_raw_desc *extra, size_t nextra,
                            bool hardware_counters, char *err, size_t errlen);
void og_catalog_free(struct og_catalog *cat);

/* Drops the derived counters: only the raw ones stay public (GPA 3.x/4.x
 * HideDerivedCounters). */
void og_catalog_hide_derived(struct og_catalog *cat);

/* Runs binding n: every counter of its set into out[0 .. n->ncounters),
 * from its raw leaves leaf[0 .. n->nraw). */
static inline void og_native_run(const struct og_native_binding *n, const uint64_t *leaf,
                                 union og_value *out)
{
	n->fn(leaf, n->k, out);
}

/* The public counter whose name, or else one of whose aliases, matches
 * ignoring case, as GPA matches names. */
bool og_catalog_find(const struct og_catalog *cat, const char *name, uint32_t *index);

#endif
