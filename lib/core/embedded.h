/* SPDX-License-Identifier: MIT */
/* embedded.h — the counter sets built into the library (counters/embed.py). */
#ifndef OPENGPA_CORE_EMBEDDED_H
#define OPENGPA_CORE_EMBEDDED_H

#include <stddef.h>

struct og_embedded_set {
	const char *name; /* "perf-generic" */
	const char *file; /* "counters/perf-generic.counters", for messages */
	const char *text;
};

extern const struct og_embedded_set og_embedded_sets[];
extern const size_t og_embedded_set_count;

#endif
