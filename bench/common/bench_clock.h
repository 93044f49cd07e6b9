/* SPDX-License-Identifier: MIT */
/*
 * bench_clock.h — the clock the benchmarks time their rounds with: the
 * calling thread's CPU time, so that another process taking the CPU
 * inflates neither side of a ratio (docs/performance.md).
 */
#ifndef OPENGPA_BENCH_CLOCK_H
#define OPENGPA_BENCH_CLOCK_H

#include <time.h>

static inline double bench_thread_cpu_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

#endif
