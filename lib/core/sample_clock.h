/* SPDX-License-Identifier: MIT */
/*
 * sample_clock.h — the CLOCK_MONOTONIC times a sample begins and ends at,
 * two per sample, read without clock_gettime where that is safe.
 *
 * clock_gettime(CLOCK_MONOTONIC) costs 30-40 ns in the vDSO (an ordered
 * counter read, a sequence lock, a scaling); a sample of the perf backend
 * costs two group read()s of ~400 ns each, so its two times were ~8% of it
 * (docs/performance.md, issue 29).  On x86-64, when the kernel's own clock
 * source is the time-stamp counter (so the kernel found it constant-rate
 * and synchronised across CPUs), a time is the counter read with rdtsc,
 * scaled from a (counter, CLOCK_MONOTONIC) pair taken at most 10 ms of
 * counter ticks before:
 *
 *   ns = base_ns + (tsc - base_tsc) * mult / 2^32
 *
 * mult is measured over the interval between the last two pairs (at least
 * 10 ms), so it follows NTP's slewing of CLOCK_MONOTONIC.  A pair is
 * CLOCK_MONOTONIC read on both sides of the counter, taken only when the
 * two readings are at most 1 us apart (not disturbed).  The error against
 * clock_gettime is the drift of CLOCK_MONOTONIC's rate between two pairs
 * over at most 10 ms (NTP slews at most 500 ppm: 5 us) plus the spread of
 * a pair (1 us): within OG_SAMPLE_CLOCK_BOUND_NS.  Each new pair checks
 * the last extrapolation: off by more than OG_SAMPLE_CLOCK_GIVE_UP_NS, the
 * counter is not what the kernel said, and the context's times come from
 * clock_gettime from then on.  Times never go back: a time before the
 * last one given is that one.
 *
 * Elsewhere (no x86-64, another clock source, before the first 10 ms have
 * given a rate, a pair disturbed), a time is clock_gettime's.
 *
 * One per context, read under the registry lock.
 */
#ifndef OPENGPA_CORE_SAMPLE_CLOCK_H
#define OPENGPA_CORE_SAMPLE_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

#define OG_SAMPLE_CLOCK_SPAN_NS 10000000u   /* counter ticks between pairs, in ns */
#define OG_SAMPLE_CLOCK_PAIR_NS 1000u       /* a pair's two readings at most this apart */
#define OG_SAMPLE_CLOCK_BOUND_NS 10000u     /* what the docs promise against clock_gettime */
#define OG_SAMPLE_CLOCK_GIVE_UP_NS 50000u   /* an extrapolation off by more: clock_gettime */

enum og_sample_clock_mode {
	OG_SAMPLE_CLOCK_UNDECIDED, /* the first time reads the clock source */
	OG_SAMPLE_CLOCK_TSC,       /* the counter, once rated */
	OG_SAMPLE_CLOCK_SYSTEM,    /* clock_gettime, for good */
};

struct og_sample_clock {
	uint8_t mode;      /* enum og_sample_clock_mode */
	bool rated;        /* mult and span are known */
	uint64_t base_tsc; /* the counter and CLOCK_MONOTONIC of the last pair */
	uint64_t base_ns;
	uint64_t mult;     /* ns per tick, 32.32 fixed point */
	uint64_t span;     /* ticks after base_tsc that a time is extrapolated */
	uint64_t last_ns;  /* the latest time given */
	uint32_t pairs;    /* pairs taken (the tests read it) */
};

/* What og_sample_clock_ns does when the counter cannot answer alone. */
uint64_t og_sample_clock_slow(struct og_sample_clock *c);

static inline uint64_t og_sample_clock_ns(struct og_sample_clock *c)
{
#if defined(__x86_64__)
	if (c->rated) {
		/* A counter behind base_tsc (wrapped below zero) is past span. */
		uint64_t d = __builtin_ia32_rdtsc() - c->base_tsc;
		if (d < c->span) {
			uint64_t ns = c->base_ns + (uint64_t)(((unsigned __int128)d * c->mult) >> 32);
			if (ns < c->last_ns)
				ns = c->last_ns;
			c->last_ns = ns;
			return ns;
		}
	}
#endif
	return og_sample_clock_slow(c);
}

#endif
