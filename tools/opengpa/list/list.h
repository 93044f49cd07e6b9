/* SPDX-License-Identifier: MIT */
/* list.h — `opengpa list`: its options as parsed, and the parser. */
#ifndef OPENGPA_TOOLS_LIST_H
#define OPENGPA_TOOLS_LIST_H

#include <stdbool.h>
#include <stddef.h>

struct list_options {
	const char *backend, *options, *sep;
	bool hardware, all, help, json, backends;
	bool groups;         /* --groups: the counter groups (stat -M's names) */
	bool headline;       /* --headline: only what `opengpa stat` counts by default */
	bool instances;      /* --instances: every per-instance copy, a row each */
	const char *pattern; /* PATTERN: a glob, or a substring, any case */
};

/* Reads `opengpa list` options from argv[1..argc) into *o (cleared first).
 * Pure, like stat_parse().  Returns 0, or 2 with the reason in err. */
int list_parse(int argc, char **argv, struct list_options *o, char *err, size_t errlen);

#endif
