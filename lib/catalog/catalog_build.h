/* SPDX-License-Identifier: MIT */
/* catalog_build.h — what the files that build a catalogue share (lib/catalog
 * only; catalog.h is the interface): the builder's state and the steps one
 * file calls in another.  The calls go one way:
 *
 *   catalog.c          og_catalog_build: declarations (raw counters,
 *                      constants, the backend's raws), then per file its
 *                      counters; freeing and finding
 *     -> catalog_tables.c   a built-in first file from its build-time tables,
 *                           its expressions assembled once per process
 *     -> catalog_compile.c  counters compiled from their text, in order
 *     -> catalog_publish.c  drafts -> the public counter list, generated
 *                           code bound where it matches
 *     -> catalog_instances.c  per-instance raw counters and counter copies
 *     -> catalog_names.c    the name map, resolving names, why a counter is
 *                           unavailable, the builder's messages
 *
 * catalog_tables.c calls catalog_compile.c and catalog_names.c;
 * catalog_publish.c and catalog_compile.c call catalog_names.c (and
 * catalog_publish.c og_cat_collect_inputs); catalog_names.c calls none.
 */
#ifndef OPENGPA_CATALOG_BUILD_H
#define OPENGPA_CATALOG_BUILD_H

#include "catalog/catalog.h"
#include "catalog/namemap.h"

struct shared_counter {
	struct og_expr *expr;
	uint32_t *inputs; /* distinct raw indices, as og_counter.inputs */
	size_t ninputs;
};

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

/* catalog_names.c */
char *og_cat_format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
GPA_Status og_cat_fail(struct builder *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
char *og_cat_set_name(const char *origin);
char *og_cat_raw_missing(const struct og_raw *raw);
char *og_cat_constant_missing(const struct og_cf_entry *decl);
char *og_cat_counter_missing(const struct draft *d);
bool og_cat_resolve(void *ud, const char *name, size_t len, struct og_expr_ref *out);
GPA_Status og_cat_add_name(struct builder *b, const struct og_cf_file *file,
                           const struct og_cf_entry *e, const char *name, enum name_kind kind,
                           size_t index);
bool og_cat_add_unavailable(struct og_catalog *cat, const struct og_cf_entry *decl, char *reason);
GPA_Status og_cat_name_counter(struct builder *b, const struct og_cf_file *file,
                               const struct og_cf_entry *e, size_t index);
GPA_Status og_cat_names_go_live(struct builder *b);

/* catalog_compile.c */
GPA_Status og_cat_add_counter(struct builder *b, const struct og_cf_file *file,
                              const struct og_cf_entry *e, size_t index, bool user);
GPA_Status og_cat_add_counters(struct builder *b, const struct og_cf_file *file, bool user);
bool og_cat_collect_inputs(const struct og_expr *expr, uint32_t **items, size_t *count);

/* catalog_tables.c */
GPA_Status og_cat_add_counters_from_tables(struct builder *b, const struct og_cf_file *file);

/* catalog_publish.c */
GPA_Status og_cat_publish_all(struct builder *b, bool hardware_counters);

/* catalog_instances.c: per-instance raw counters and copies of the public
 * counters over them, where the binder offers instances. */
GPA_Status og_cat_publish_instances(struct builder *b);
void og_cat_arena_free(struct og_arena *a);

#endif
