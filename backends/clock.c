/* SPDX-License-Identifier: MIT */
/* clock.c — sample times on one scale: CLOCK_MONOTONIC nanoseconds. */
#include <time.h>

#include "backend.h"

static uint64_t now_ns(clockid_t id)
{
	struct timespec t;
	clock_gettime(id, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

uint64_t og_clock_monotonic_ns(void)
{
	return now_ns(CLOCK_MONOTONIC);
}

uint64_t og_clock_from_raw(uint64_t raw_ns)
{
	/* The raw reading between two monotonic ones: their midpoint is the
	 * monotonic time of the raw reading, to the vDSO calls' few ns. */
	uint64_t m0 = now_ns(CLOCK_MONOTONIC);
	uint64_t raw = now_ns(CLOCK_MONOTONIC_RAW);
	uint64_t m1 = now_ns(CLOCK_MONOTONIC);
	uint64_t mono = m0 + (m1 - m0) / 2;
	/* mono - raw may be negative: work in signed, clamp at 0. */
	int64_t t = (int64_t)raw_ns + ((int64_t)mono - (int64_t)raw);
	return t > 0 ? (uint64_t)t : 0;
}
