/* SPDX-License-Identifier: MIT */
/*
 * client.h — what examples/gpa3-client and gpa4-client share that is not a
 * GPA call: their options, the "draw calls" they measure, and the checks
 * of the values they read (like the --verify of AMD's sample apps).
 */
#ifndef OPENGPA_EXAMPLES_CLIENT_H
#define OPENGPA_EXAMPLES_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define CLIENT_MAX_EXPECT 16

struct client_options {
	const char *library;   /* --library: default libGPUPerfAPIGL.so */
	const char *counters;  /* --counters A,B,C: enable these by name; default all */
	unsigned frames;       /* --frames: samples (draws) per pass */
	bool hardware;         /* --hardware: kGpaOpenContextEnableHardwareCountersBit */
	bool verify;           /* --verify: percentages in [0, 100], nothing negative */
	const char *csv;       /* --csv FILE */
	struct client_expect {
		char name[64];
		double value;
		bool at_least;     /* --expect-min NAME=V; else --expect NAME=V */
		unsigned seen;
	} expect[CLIENT_MAX_EXPECT];
	unsigned nexpect;
};

/* Parses argv; prints usage and returns false on a bad option. */
bool client_options(int argc, char **argv, const char *program, struct client_options *o);

/* One "draw call" for sample `id`: arithmetic, then first touches of fresh
 * pages, so a CPU counter has something to count. */
void client_draw(unsigned id);

/* Checks one value the client read; prints and counts what is wrong. */
void client_check(struct client_options *o, const char *name, bool percentage, double value);
/* After every value was checked: each expectation was seen at least once.
 * Returns the number of problems found overall. */
unsigned client_problems(const struct client_options *o);

#endif
