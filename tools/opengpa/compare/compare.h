/* SPDX-License-Identifier: MIT */
/* compare.h — `opengpa compare`: its options as parsed, and the parser. */
#ifndef OPENGPA_TOOLS_COMPARE_H
#define OPENGPA_TOOLS_COMPARE_H

#include <stdbool.h>
#include <stddef.h>

#define COMPARE_MAX_RULES 64

/* --fail-on=PATTERN:[+|-]LIMIT[%]: fail when a counter matching PATTERN
 * (fnmatch(3), against its name and aliases) moved past LIMIT in that
 * direction (both without a sign). */
struct compare_rule {
	const char *text;     /* the option's value, for the report */
	char pattern[128];
	int direction;        /* +1 up, -1 down, 0 either */
	double limit;         /* >= 0 */
	bool percent;         /* of A's mean; else in the counter's own unit */
};

struct compare_options {
	const char *a, *b;      /* the two documents (strings point into argv) */
	double confidence;      /* percent, (0, 100): 95 unless --confidence */
	const char *sep;        /* -x SEP, or NULL */
	bool json, help;
	struct compare_rule rules[COMPARE_MAX_RULES];
	size_t nrules;
};

/* Reads `opengpa compare` options from argv[1..argc) (argv[0] is "compare")
 * into *o, which it clears first: two documents, options before, between or
 * after them.  Pure: no output, no allocation, no global state.  Returns 0,
 * or 2 (a usage error) with the reason in err. */
int compare_parse(int argc, char **argv, struct compare_options *o, char *err, size_t errlen);

/* One --fail-on value into *r; false with the reason in err. */
bool compare_parse_rule(const char *text, struct compare_rule *r, char *err, size_t errlen);

#endif
