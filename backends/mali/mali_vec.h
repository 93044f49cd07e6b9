/* SPDX-License-Identifier: MIT */
/*
 * mali_vec.h — the vector width and code copies the two dump summers
 * (mali_sum.c for 32-bit v5 dumps, kinstr_parse.c for 64-bit kinstr_prfcnt
 * blocks) are built with.
 *
 * x86-64: 32-byte vectors, and a second copy of each sum built for AVX2 that
 * the loader picks on CPUs that have it (GCC's target_clones, an ifunc); the
 * default copy runs them as pairs of SSE2 registers.  OG_MALI_SUM_NO_CLONES
 * builds the default copy alone, so a test can check it on a machine that
 * would pick the AVX2 one.  Elsewhere (NEON, or no SIMD) 16-byte vectors.
 */
#ifndef OPENGPA_MALI_VEC_H
#define OPENGPA_MALI_VEC_H

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__AVX2__)
#define OG_VEC_BYTES 32
#if defined(OG_MALI_SUM_NO_CLONES)
#define OG_SUM_CLONES
#else
#define OG_SUM_CLONES __attribute__((target_clones("avx2", "default")))
#endif
#elif defined(__AVX2__)
#define OG_VEC_BYTES 32
#define OG_SUM_CLONES
#else
#define OG_VEC_BYTES 16
#define OG_SUM_CLONES
#endif

#endif
