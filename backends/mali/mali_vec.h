/* SPDX-License-Identifier: MIT */
/*
 * mali_vec.h — the vector width and code copies the two dump summers
 * (mali_sum.c for 32-bit v5 dumps, kinstr_parse.c for 64-bit kinstr_prfcnt
 * blocks) are built with.
 *
 * x86-64: 32-byte vectors, and a second copy of each sum built for AVX2
 * that the layout picks, when it is made, on CPUs that have it; the default
 * copy runs them as pairs of SSE2 registers.  Both sums have a third copy
 * for CPUs with AVX-512 (kinstr_prfcnt's with 64-byte vectors; mali_sum.c's
 * widens with one instruction and needs AVX-512VL too).  The choice is
 * made when a context opens, not by an ifunc (GCC's target_clones): an ifunc
 * resolver runs while the loader relocates, before a sanitizer's runtime is up
 * (ThreadSanitizer crashed there) and not at all on C libraries without
 * ifuncs.  OG_MALI_SUM_NO_CLONES builds the default copy alone, so a test
 * can check it on a machine that would pick the AVX2 one.  Elsewhere
 * (NEON, or no SIMD) 16-byte vectors and one copy, except that kinstr_parse.c
 * adds a NEON copy of its sum (saturating adds) on little-endian NEON builds.
 */
#ifndef OPENGPA_MALI_VEC_H
#define OPENGPA_MALI_VEC_H

#include <stdbool.h>

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__AVX2__)
#define OG_VEC_BYTES 32
#if !defined(OG_MALI_SUM_NO_CLONES)
#define OG_SUM_AVX2_COPY
#endif
#elif defined(__AVX2__)
#define OG_VEC_BYTES 32
#else
#define OG_VEC_BYTES 16
#endif

/* Use the AVX2 copy?  Only asked where OG_SUM_AVX2_COPY is defined. */
static inline bool og_cpu_has_avx2(void)
{
#if defined(OG_SUM_AVX2_COPY)
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx2");
#else
	return false;
#endif
}

/* And the AVX-512F copy (kinstr_prfcnt's 64-bit sums only)? */
static inline bool og_cpu_has_avx512f(void)
{
#if defined(OG_SUM_AVX2_COPY)
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx512f");
#else
	return false;
#endif
}

#endif
