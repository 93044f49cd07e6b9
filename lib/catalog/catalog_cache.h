/* SPDX-License-Identifier: MIT */
/*
 * catalog_cache.h — catalogues kept between opens, shared read-only by the
 * contexts that would have built the same one.
 *
 * A catalogue is a function of its counter files, the backend's answers
 * (bind_raw, constant), the user's constants (the override) and the open's
 * two flags.  The first open on built-in sets builds it as before and keeps,
 * beside it, every question it asked the backend and the user's constants
 * in order, with the answers.  A later open with the same backend, the same
 * built-in files and flags asks the same questions again — the device's
 * answers, cheap next to building — and takes the kept catalogue only if
 * every answer is the same; otherwise it builds its own.  Where the binder
 * gives an answers_key (backend.h) and it is the bytes the kept build was
 * asked under, the bind and constant answers are taken as the same without
 * asking (users' overrides and the instances' key are still checked).  So
 * another device
 * (core mask, product, interface), a changed constant or an API context
 * that binds differently never sees a catalogue that is not its own, with
 * nothing for a backend to declare.
 *
 * Catalogues with the user's counter files (OPENGPA_COUNTER_PATH,
 * OpenGPA_AddCounterFile), the backend's discovered raw counters
 * (extra_raw, whose strings are the backend state's) or built from text
 * (og_catalog_text_only) are never kept: each open builds its own, so an
 * edited file is read by the next open.
 *
 * The cache lives in the registry (registry.h) and is used under its lock.
 * An entry is freed when it is over the cache's size and unused, at
 * GPA_Destroy / GpaDestroy (those unused), or at og_testing_reset.
 */
#ifndef OPENGPA_CATALOG_CATALOG_CACHE_H
#define OPENGPA_CATALOG_CATALOG_CACHE_H

#include "catalog/catalog.h"

/* Unused catalogues kept at most (in use ones are kept while used). */
#define OG_CATALOG_CACHE_UNUSED 4

struct og_catalog_entry;

struct og_catalog_cache {
	struct og_catalog_entry *entries; /* most recently used first */
};

/* What an open asks for; files[] and its counts as og_catalog_build takes
 * them (ownership passes in either way). */
struct og_catalog_request {
	const void *backend; /* identity of the backend (its ops) */
	struct og_cf_file *files;
	size_t nfiles, nbuiltin;
	const struct og_binder *binder;
	const struct og_raw_desc *extra;
	size_t nextra;
	bool hardware_counters;
	bool instance_counters; /* the binder offers instances (catalog_instances.c) */
	bool hide_derived;
	/* After building, before hiding: derived per raw counter from its
	 * source alone (may be NULL). */
	void (*finish)(struct og_catalog *cat);
};

/* *cat becomes the request's catalogue: a copy of a kept one's (its arrays
 * shared, read-only), or built.  *entry is what og_catalog_release takes
 * back: NULL when the catalogue is the caller's own (og_catalog_free). */
GPA_Status og_catalog_get(struct og_catalog_cache *cache, const struct og_catalog_request *req,
                          struct og_catalog *cat, struct og_catalog_entry **entry, char *err,
                          size_t errlen);

/* Gives back a catalogue og_catalog_get returned: frees it when it was the
 * caller's own, else drops the use of the kept one. */
void og_catalog_release(struct og_catalog_cache *cache, struct og_catalog *cat,
                        struct og_catalog_entry *entry);

/* Frees the kept catalogues no context uses. */
void og_catalog_cache_trim(struct og_catalog_cache *cache);

/* How many catalogues are kept, and how many of them are in use (tests). */
size_t og_catalog_cache_count(const struct og_catalog_cache *cache, size_t *in_use);

#endif
