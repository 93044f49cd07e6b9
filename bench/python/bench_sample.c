/* SPDX-License-Identifier: MIT */
/*
 * bench_sample.c — the C side of bench/python/sample_cost.py (issue 27):
 * the GPA calls one `with session.sample(): pass` of the Python package
 * makes, made from C in a loop, timed in this thread's CPU time.
 *
 *   bench-sample N COUNTER...
 *
 * Opens a context on $OPENGPA_BACKEND (as opengpa.open() does; the virtual
 * Mali through LD_PRELOAD), enables COUNTER..., begins a session and its
 * pass, then times N samples two ways, alternating in blocks of 100 so both
 * see the same machine:
 *   same: GPA_SelectContext + GPA_BeginSample, GPA_SelectContext +
 *         GPA_EndSample — exactly the calls Session.sample() makes;
 *   bare: GPA_BeginSample + GPA_EndSample — what a C program of one context
 *         writes.
 * Prints "same US bare US": CPU µs per sample of each.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "opengpa.h"

#define BLOCK 100

static double cpu_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static void check(GPA_Status st, const char *what)
{
	if (st != GPA_STATUS_OK) {
		fprintf(stderr, "bench-sample: %s: %s\n", what, GPA_GetStatusAsStr(st));
		exit(1);
	}
}

int main(int argc, char **argv)
{
	char *end = NULL;
	unsigned long n = argc > 2 ? strtoul(argv[1], &end, 10) : 0;
	if (argc < 3 || !end || *end || n < BLOCK || n > 1000000 || n % BLOCK) {
		fprintf(stderr, "usage: bench-sample N COUNTER... (N: a multiple of %d up to "
		        "1000000)\n", BLOCK);
		return 2;
	}
	const char *backend = getenv("OPENGPA_BACKEND");
	int key = 0;
	check(OpenGPA_SetBackend(backend && *backend ? backend : "auto", NULL), "OpenGPA_SetBackend");
	check(GPA_OpenContext(&key), "GPA_OpenContext");
	check(GPA_DisableAllCounters(), "GPA_DisableAllCounters");
	for (int i = 2; i < argc; i++)
		check(GPA_EnableCounterStr(argv[i]), argv[i]);
	gpa_uint32 session = 0, id = 0;
	check(GPA_BeginSession(&session), "GPA_BeginSession");
	check(GPA_BeginPass(), "GPA_BeginPass");
	double same = 0.0, bare = 0.0;
	for (unsigned long done = 0; done < n; done += BLOCK) {
		double t0 = cpu_us();
		for (int i = 0; i < BLOCK; i++) {
			check(GPA_SelectContext(&key), "GPA_SelectContext");
			check(GPA_BeginSample(id++), "GPA_BeginSample");
			check(GPA_SelectContext(&key), "GPA_SelectContext");
			check(GPA_EndSample(), "GPA_EndSample");
		}
		double t1 = cpu_us();
		for (int i = 0; i < BLOCK; i++) {
			check(GPA_BeginSample(id++), "GPA_BeginSample");
			check(GPA_EndSample(), "GPA_EndSample");
		}
		double t2 = cpu_us();
		same += t1 - t0;
		bare += t2 - t1;
	}
	check(GPA_EndPass(), "GPA_EndPass");
	check(GPA_EndSession(), "GPA_EndSession");
	check(GPA_CloseContext(), "GPA_CloseContext");
	printf("same %.3f bare %.3f\n", same / (double)n, bare / (double)n);
	return 0;
}
