/* SPDX-License-Identifier: MIT */
/*
 * names.h — the names a user types for counters: perf's event spellings
 * (task-clock, page-faults, cycles...) as aliases of opengpa's counters,
 * and, for a name that is none, the names it was probably meant to be.
 */
#ifndef OPENGPA_TOOLS_NAMES_H
#define OPENGPA_TOOLS_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* One of perf's generic events and the counter that counts it. */
struct perf_spelling {
	const char *perf;     /* "task-clock" */
	const char *counter;  /* "TaskClock" */
	const char *unit;     /* what perf prints as its unit: "msec", "" */
	bool cpus_utilized;   /* perf's "CPUs utilized" metric follows it */
	bool per_sec;         /* a software event: perf's rate per task-clock second */
};

/* The perf spelling `name` (any case), or NULL. */
const struct perf_spelling *names_perf(const char *name);
/* The first perf spelling of `counter` (any case), or NULL. */
const struct perf_spelling *names_perf_of(const char *counter);
/* The table, for opengpa list and the tests: *n entries. */
const struct perf_spelling *names_perf_table(size_t *n);

/* Edit distance (Damerau's: insertions, deletions, substitutions and
 * swaps of neighbours), ignoring case; stops counting at `cap`. */
size_t names_distance(const char *a, const char *b, size_t cap);

/* Prints the help for a name no counter answers to, on the open context:
 * " did you mean X, Y?" over the counters' names and aliases and perf's
 * spellings, and the counter sets of other backends that have it; always
 * ends with a pointer to `opengpa list`.  One line, to f. */
void names_explain_unknown(FILE *f, const char *command, const char *name);

#endif
