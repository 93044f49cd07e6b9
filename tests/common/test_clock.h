/* SPDX-License-Identifier: MIT */
/* test_clock.h — the clock the periodic tests measure with: CLOCK_MONOTONIC,
 * the clock of the library's sample times. */
#ifndef OPENGPA_TESTS_TEST_CLOCK_H
#define OPENGPA_TESTS_TEST_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t tc_now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Sleeps at least us microseconds, signals or not. */
static inline void tc_sleep_us(uint64_t us)
{
	struct timespec t = { (time_t)(us / 1000000u), (long)(us % 1000000u) * 1000L };
	while (nanosleep(&t, &t) != 0)
		;
}

#endif
