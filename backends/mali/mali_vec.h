/* SPDX-License-Identifier: MIT */
/*
 * mali_vec.h — the vector width and code copies the two dump summers
 * (mali_sum.c for 32-bit v5 dumps, kinstr_parse.c for 64-bit kinstr_prfcnt
 * blocks) are built with.
 *
 * x86-64: 32-byte vectors, and a second copy of each sum built for AVX2
 * that the layout picks, when it is made, on CPUs that have it; the default
 * copy runs them as pairs of SSE2 registers.  Both sums have a third copy,
 * with 64-byte vectors, for CPUs with AVX-512F.  The choice is
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

#if defined(OG_SUM_AVX2_COPY)
#include <cpuid.h>
#include <stdatomic.h>

/* What this CPU and kernel let the copies use, asked with CPUID (and XGETBV
 * for the kernel's saving of the vector registers) the first time a layout
 * is made in each unit, and kept: a fact of the machine, written once.  Not
 * __builtin_cpu_supports: it links libgcc's __cpu_indicator_init, a
 * constructor that runs about ten CPUIDs at every load of the library, and
 * a CPUID traps to the hypervisor in a VM (6 us each on the CI VM): a
 * third of dlopen's time (issue 29, docs/performance.md). */
enum { OG_VEC_KNOWN = 1, OG_VEC_AVX2 = 2, OG_VEC_AVX512F = 4 };

static inline unsigned og_cpu_vec_features(void)
{
	static _Atomic unsigned known;
	unsigned f = atomic_load_explicit(&known, memory_order_relaxed);
	if (f)
		return f;
	f = OG_VEC_KNOWN;
	unsigned a, b, c, d, lo, hi;
	if (__get_cpuid_max(0, NULL) >= 7 && __get_cpuid(1, &a, &b, &c, &d) &&
	    (c & bit_OSXSAVE) && (c & bit_AVX)) {
		__asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
		(void)hi;
		__cpuid_count(7, 0, a, b, c, d);
		if ((lo & 0x6) == 0x6 && (b & bit_AVX2))
			f |= OG_VEC_AVX2;
		if ((lo & 0xe6) == 0xe6 && (b & bit_AVX512F))
			f |= OG_VEC_AVX512F;
	}
	atomic_store_explicit(&known, f, memory_order_relaxed);
	return f;
}
#endif

/* Use the AVX2 copy?  Only asked where OG_SUM_AVX2_COPY is defined. */
static inline bool og_cpu_has_avx2(void)
{
#if defined(OG_SUM_AVX2_COPY)
	return og_cpu_vec_features() & OG_VEC_AVX2;
#else
	return false;
#endif
}

/* And the AVX-512F copy? */
static inline bool og_cpu_has_avx512f(void)
{
#if defined(OG_SUM_AVX2_COPY)
	return og_cpu_vec_features() & OG_VEC_AVX512F;
#else
	return false;
#endif
}

/* Defines og_mali_sum_copies or og_kinstr_sum_copies (`name`, filling an
 * array of `struct copy`): of the copies listed after them ({name, function,
 * runs here?}, widest first), those this CPU runs go to out, at most max,
 * and it returns how many. */
#define OG_SUM_COPIES_FN(name, copy, ...)                                                    \
	size_t name(struct copy *out, size_t max)                                             \
	{                                                                                     \
		const struct copy all[] = {__VA_ARGS__};                                      \
		size_t n = 0;                                                                 \
		for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)                       \
			if (all[i].runs_here && n < max)                                      \
				out[n++] = all[i];                                            \
		return n;                                                             \
	}

#endif
