/* SPDX-License-Identifier: MIT */
/*
 * wrap.h — deltas of counters that may be 32 bits wide.
 *
 * The 34K's counters are 32-bit registers.  Kernels with the range extension
 * add a 64-bit software count on each half-full interrupt and print the sum;
 * kernels without it print the raw register, which wraps.  A delta is taken
 * modulo 2^32 while both readings fit 32 bits, which is exact for an extended
 * counter too (it never goes backwards) and undoes one wrap of a plain one.
 */
#ifndef OPENGPA_BACKENDS_MIPS_WRAP_H
#define OPENGPA_BACKENDS_MIPS_WRAP_H

#include <stdbool.h>
#include <stdint.h>

/* True while neither reading proves the kernel extends the counters. */
static inline bool og_mips_counts_look_32bit(uint64_t start, uint64_t end)
{
	return start <= UINT32_MAX && end <= UINT32_MAX;
}

/* 32-bit: modulo 2^32.  64-bit: a count that went backwards reports 0. */
static inline uint64_t og_mips_delta(uint64_t start, uint64_t end, bool wide)
{
	if (!wide)
		return (end - start) & UINT32_MAX;
	return end >= start ? end - start : 0;
}

/* Could a counter that ticks every cycle have wrapped twice in ns
 * nanoseconds at clock_mhz?  Cycles is the fastest 34K event (one per cycle;
 * the per-cycle stall events cannot exceed it). */
static inline bool og_mips_may_wrap_twice(uint64_t ns, double clock_mhz)
{
	return (double)ns * clock_mhz / 1000.0 > 4294967296.0;
}

#endif
