/* SPDX-License-Identifier: MIT */
/* spe.h — `opengpa spe`: its options as parsed, the parser, and the report. */
#ifndef OPENGPA_TOOLS_SPE_H
#define OPENGPA_TOOLS_SPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct spe_options {
	uint64_t count;      /* operations per sample; 0: the default */
	unsigned top;        /* PCs per cause */
	unsigned pages;      /* aux buffer pages */
	const char *output;  /* NULL: standard error */
	bool help;
	char **command;
};

/* Reads `opengpa spe` options from argv[1..argc) into *o (cleared first,
 * then the defaults).  Pure, like stat_parse().  Returns 0, or 2 with the
 * reason in err. */
int spe_parse(int argc, char **argv, struct spe_options *o, char *err, size_t errlen);

#endif
