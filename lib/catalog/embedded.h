/* SPDX-License-Identifier: MIT */
/*
 * embedded.h — the text of the counter sets built in (counters/embed.py).
 * The library opens the tables made from it at build time (builtin.h) and
 * does not contain it; the tests and tools that read the text link it
 * (lib/meson.build, opengpa_core_dep).
 */
#ifndef OPENGPA_CATALOG_EMBEDDED_H
#define OPENGPA_CATALOG_EMBEDDED_H

#include <stddef.h>

struct og_embedded_set {
	const char *name; /* "perf-generic" */
	const char *file; /* "counters/perf-generic.counters", for messages */
	const char *text;
};

extern const struct og_embedded_set og_embedded_sets[] __attribute__((visibility("hidden")));
extern const size_t og_embedded_set_count __attribute__((visibility("hidden")));

#endif
