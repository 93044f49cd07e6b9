/* SPDX-License-Identifier: MIT */
/*
 * mali_sum.c — see mali_sum.h.
 *
 * Adding each 32-bit word into a 64-bit total one at a time costs several
 * copies of the dump.  Instead, the instances of one block type are added a
 * chunk of words at a time in 32-bit vector lanes that stay in registers
 * (GNU vector extensions: SSE2 or AVX2 on x86, NEON on Arm; AVX-512F
 * intrinsics, a whole block at a time, in type_512), and each sum is stored
 * once, onto the totals' cache lines (struct og_mali_totals is 64-byte
 * aligned).
 *
 * A 32-bit lane can carry out.  k words each below 2^(32 - ceil(log2 k))
 * cannot, so the OR of every word added is kept and checked once per block
 * type; passing is the normal case (on an MP8, a shader-core counter passes
 * 2^29 only in a sample longer than about half a second).  Otherwise each
 * chunk that holds such a word is summed again exactly: the lanes then also
 * add each word's high half (x >> 16), which cannot carry out below 65536
 * instances, and the 64-bit sum is rebuilt from the two.  Sums are widened
 * to the 64-bit totals as they are stored.
 */
#include "mali_sum.h"

#include <string.h>

#include "mali_vec.h"

#define VEC_BYTES OG_VEC_BYTES

typedef uint32_t vec __attribute__((vector_size(VEC_BYTES)));
#define LANES (VEC_BYTES / 4u)
/* Four running sums and their OR fit in the 16 vector registers of SSE2. */
#define CHUNK_WORDS (4u * LANES)
_Static_assert(OG_MALI_V5_WORDS % CHUNK_WORDS == 0, "blocks are whole chunks");
_Static_assert(_Alignof(struct og_mali_totals) >= 64 && OG_MALI_MAX_VALUES * 8 % 64 == 0,
               "every row of totals starts a cache line");

/* memcpy: dumps need not be vector-aligned, and it keeps aliasing rules. */
#define LOAD(v, p) memcpy(&(v), (p), sizeof(vec))
/* Lanes to 64-bit totals.  Interleaving a vector's lanes with zeros (or with
 * the high words) works within 128-bit halves, so on 32-byte vectors the
 * 64-bit quarters are first put in order [0 2 1 3]; the two interleaved
 * vectors are then the totals in order, stored whole.  (Converting to a
 * double-width vector instead made GCC 12 bounce it through the stack and
 * took twice as long.) */
#if defined(__clang__) || __GNUC__ >= 12
#define SHUFFLE(a, b, ...) __builtin_shufflevector((a), (b), __VA_ARGS__)
#else /* GCC before 12 has only its own builtin */
#define SHUFFLE(a, b, ...) __builtin_shuffle((a), (b), (vec){__VA_ARGS__})
#endif
#if VEC_BYTES == 32
#define QUARTERS(v) SHUFFLE(v, v, 0, 1, 4, 5, 2, 3, 6, 7)
#define ZIP_LOW(a, b) SHUFFLE(a, b, 0, 8, 1, 9, 4, 12, 5, 13)
#define ZIP_HIGH(a, b) SHUFFLE(a, b, 2, 10, 3, 11, 6, 14, 7, 15)
#else
#define QUARTERS(v) (v)
#define ZIP_LOW(a, b) SHUFFLE(a, b, 0, 4, 1, 5)
#define ZIP_HIGH(a, b) SHUFFLE(a, b, 2, 6, 3, 7)
#endif
/* A 64-bit total is its two 32-bit halves in memory order: low half first
 * on a little-endian CPU, high half first on a big-endian one. */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define FIRST_SECOND(lo, hi) (hi), (lo)
#else
#define FIRST_SECOND(lo, hi) (lo), (hi)
#endif
#define ZIP_LOW_(...) ZIP_LOW(__VA_ARGS__)
#define ZIP_HIGH_(...) ZIP_HIGH(__VA_ARGS__)
#define STORE_WIDE2(p, lo, hi)                                               \
	do {                                                                 \
		vec a_ = QUARTERS(lo), b_ = QUARTERS(hi);                    \
		vec z0_ = ZIP_LOW_(FIRST_SECOND(a_, b_));                    \
		vec z1_ = ZIP_HIGH_(FIRST_SECOND(a_, b_));                   \
		memcpy((p), &z0_, sizeof z0_);                               \
		memcpy((p) + LANES / 2, &z1_, sizeof z1_);                   \
	} while (0)
#define STORE_WIDE(p, v)                                                     \
	do {                                                                 \
		const vec zero_ = {0};                                       \
		STORE_WIDE2(p, v, zero_);                                    \
	} while (0)

static og_mali_sum_fn *pick_sum(void);

bool og_mali_layout_init(const struct og_mali_gpu *gpu, struct og_mali_layout *out)
{
	if (!gpu->core_mask || gpu->l2_slices == 0 || gpu->l2_slices > OG_MALI_MAX_L2_SLICES)
		return false;
	struct og_mali_layout l;
	memset(&l, 0, sizeof l);
	l.dump_bytes = og_mali_dump_bytes(gpu);
	l.l2_count = gpu->l2_slices;
	for (uint32_t s = 0; s < l.l2_count; s++)
		l.l2_at[s] = (2u + s) * OG_MALI_V5_WORDS;
	uint32_t cores = (2u + l.l2_count) * OG_MALI_V5_WORDS;
	for (uint64_t m = gpu->core_mask; m; m &= m - 1)
		l.core_at[l.core_count++] =
			cores + (uint32_t)__builtin_ctzll(m) * OG_MALI_V5_WORDS;
	l.sum = pick_sum();
	*out = l;
	return true;
}

/* Sums words [w, w + CHUNK_WORDS) of the k blocks at `at` into out, modulo
 * 2^32; *any receives the OR of every word added. */
static inline void chunk_narrow(const uint32_t *dump, const uint32_t *at, uint32_t k,
                                uint32_t w, uint64_t *out, vec *any)
{
	vec s0, s1, s2, s3;
	const uint32_t *p = dump + at[0] + w;
	LOAD(s0, p);
	LOAD(s1, p + LANES);
	LOAD(s2, p + 2 * LANES);
	LOAD(s3, p + 3 * LANES);
	vec all = (s0 | s1) | (s2 | s3);
	for (uint32_t i = 1; i < k; i++) {
		vec x0, x1, x2, x3;
		p = dump + at[i] + w;
		LOAD(x0, p);
		LOAD(x1, p + LANES);
		LOAD(x2, p + 2 * LANES);
		LOAD(x3, p + 3 * LANES);
		s0 += x0;
		s1 += x1;
		s2 += x2;
		s3 += x3;
		all |= (x0 | x1) | (x2 | x3);
	}
	STORE_WIDE(out + w, s0);
	STORE_WIDE(out + w + LANES, s1);
	STORE_WIDE(out + w + 2 * LANES, s2);
	STORE_WIDE(out + w + 3 * LANES, s3);
	*any = all;
}

/* True when some lane of `any` is at or above 2^(32 - bits); bits > 0. */
static inline bool may_carry(const vec *any, uint32_t bits)
{
	vec over = *any >> (32u - bits);
	uint64_t q[VEC_BYTES / 8];
	memcpy(q, &over, sizeof q);
	uint64_t set = 0;
	for (uint32_t j = 0; j < VEC_BYTES / 8; j++)
		set |= q[j];
	return set != 0;
}

/* The same chunk summed to 64 bits: s = the sum modulo 2^32 and h = the sum
 * of the high halves; the low halves then add up to s - (h << 16) exactly
 * (below k * 2^16), so sum = (h << 16) + that, whose high word is h >> 16
 * plus the carry of that addition. */
__attribute__((always_inline)) static inline void chunk_exact(const uint32_t *dump,
                                                              const uint32_t *at, uint32_t k,
                                                              uint32_t w, uint64_t *out)
{
	/* Two vectors per pass over the blocks: four sums and the shifted
	 * copies still fit in SSE2's 16 registers. */
	for (uint32_t v = w; v < w + CHUNK_WORDS; v += 2 * LANES) {
		vec s0 = {0}, s1 = {0}, h0 = {0}, h1 = {0};
		for (uint32_t i = 0; i < k; i++) {
			vec x0, x1;
			LOAD(x0, dump + at[i] + v);
			LOAD(x1, dump + at[i] + v + LANES);
			s0 += x0;
			s1 += x1;
			h0 += x0 >> 16;
			h1 += x1 >> 16;
		}
		vec t0 = (h0 >> 16) - (vec)(s0 < s0 - (h0 << 16));
		vec t1 = (h1 >> 16) - (vec)(s1 < s1 - (h1 << 16));
		STORE_WIDE2(out + v, s0, t0);
		STORE_WIDE2(out + v + LANES, s1, t1);
	}
}

/* The rare exact path stays out of line, one copy per instruction set. */
typedef void chunk_exact_fn(const uint32_t *dump, const uint32_t *at, uint32_t k, uint32_t w,
                            uint64_t *out);

/* Inlined into each call: JM and tiler (one block) then need no guard or
 * inner loop, and L2 and shader cores get branches of their own. */
__attribute__((always_inline)) static inline void sum_type(const uint32_t *dump,
                                                           const uint32_t *at, uint32_t k,
                                                           uint64_t *out, chunk_exact_fn *exact)
{
	enum { CHUNKS = OG_MALI_V5_WORDS / CHUNK_WORDS };
	uint32_t bits = k > 1 ? 32u - (uint32_t)__builtin_clz(k - 1) : 0u;
	vec any[CHUNKS], all = {0};
	for (uint32_t c = 0; c < CHUNKS; c++) {
		chunk_narrow(dump, at, k, c * CHUNK_WORDS, out, &any[c]);
		all |= any[c];
	}
	/* ceil(log2 k): words below 2^(32 - bits) cannot carry out of k adds.
	 * One test for the block type; a chunk at a time only when it fails. */
	if (!bits || !may_carry(&all, bits))
		return;
	for (uint32_t c = 0; c < CHUNKS; c++)
		if (may_carry(&any[c], bits))
			exact(dump, at, k, c * CHUNK_WORDS, out);
}

/* One copy per instruction set: the bodies above are inlined into each, so
 * each is compiled whole for its target. */
#define SUM_COPY(name, target_attribute)                                                     \
	target_attribute __attribute__((noinline)) static void name##_exact(                  \
		const uint32_t *dump, const uint32_t *at, uint32_t k, uint32_t w, uint64_t *out) \
	{                                                                                       \
		chunk_exact(dump, at, k, w, out);                                               \
	}                                                                                       \
	target_attribute static void name(const struct og_mali_layout *layout,                \
	                                  const uint32_t *dump, struct og_mali_totals *totals) \
	{                                                                                       \
		static const uint32_t fe_at = 0, tiler_at = OG_MALI_V5_WORDS;                   \
		uint64_t *v = totals->v;                                                        \
		sum_type(dump, &fe_at, 1, v + OG_MALI_FE * OG_MALI_MAX_VALUES, name##_exact);    \
		sum_type(dump, &tiler_at, 1, v + OG_MALI_TILER * OG_MALI_MAX_VALUES,             \
		         name##_exact);                                                         \
		sum_type(dump, layout->l2_at, layout->l2_count,                                 \
		         v + OG_MALI_L2 * OG_MALI_MAX_VALUES, name##_exact);                    \
		sum_type(dump, layout->core_at, layout->core_count,                             \
		         v + OG_MALI_SC * OG_MALI_MAX_VALUES, name##_exact);                    \
	}

SUM_COPY(sum_default, )
#if defined(OG_SUM_AVX2_COPY)
SUM_COPY(sum_avx2, __attribute__((target("avx2"))))

#include <immintrin.h>

#define AVX512F __attribute__((target("avx512f")))

/* The AVX-512F copy: a block type in 64-byte vectors, a block being 4 of
 * them, summed over the instances in 4 registers, the guard two three-way
 * ORs (VPTERNLOGD 0xfe: a | b | c) an instance.  Each sum of 16 lanes
 * becomes 16 totals by one VPMOVZXDQ (its low 8 lanes) and one zero-masking
 * VPERMD (its high 8): as many shuffles as the 32-byte copies' widening, half
 * their adds and ORs.  The loop body is written out because GCC 12 copied
 * each sum to another register every instance (4 to 6 moves of 64 bytes an
 * instance, on the ports the adds need: issue 29).  True when a word might
 * have carried (the type is then summed again, exactly, by exact_512). */
AVX512F __attribute__((always_inline)) static inline bool type_512(const uint32_t *dump,
                                                                   const uint32_t *at, uint32_t k,
                                                                   uint64_t *out)
{
	const uint32_t *p = dump + at[0];
	if (k == 1) { /* its words are the totals: widened as they are loaded */
#pragma GCC unroll 8
		for (uint32_t j = 0; j < OG_MALI_V5_WORDS; j += 8)
			_mm512_storeu_si512(out + j, _mm512_cvtepu32_epi64(_mm256_loadu_si256(
				(const __m256i *)(const void *)(p + j))));
		return false;
	}
	__m512i s0 = _mm512_loadu_si512(p), s1 = _mm512_loadu_si512(p + 16);
	__m512i s2 = _mm512_loadu_si512(p + 32), s3 = _mm512_loadu_si512(p + 48);
	__m512i all = _mm512_or_si512(_mm512_ternarylogic_epi32(s0, s1, s2, 0xfe), s3);
	for (uint32_t i = 1; i < k; i++) {
		__m512i x0, x1, x2, x3;
		p = dump + at[i];
		__asm__("vmovdqu64 (%[p]), %[x0]\n\t"
		        "vmovdqu64 64(%[p]), %[x1]\n\t"
		        "vmovdqu64 128(%[p]), %[x2]\n\t"
		        "vmovdqu64 192(%[p]), %[x3]\n\t"
		        "vpaddd %[x0], %[s0], %[s0]\n\t"
		        "vpaddd %[x1], %[s1], %[s1]\n\t"
		        "vpaddd %[x2], %[s2], %[s2]\n\t"
		        "vpaddd %[x3], %[s3], %[s3]\n\t"
		        "vpternlogd $0xfe, %[x1], %[x0], %[all]\n\t"
		        "vpternlogd $0xfe, %[x3], %[x2], %[all]"
		        : [s0] "+v"(s0), [s1] "+v"(s1), [s2] "+v"(s2), [s3] "+v"(s3),
		          [all] "+v"(all), [x0] "=&v"(x0), [x1] "=&v"(x1), [x2] "=&v"(x2),
		          [x3] "=&v"(x3)
		        : [p] "r"(p), "m"(*(const uint32_t(*)[OG_MALI_V5_WORDS])p));
	}
	const __m512i high = _mm512_set_epi32(0, 15, 0, 14, 0, 13, 0, 12, 0, 11, 0, 10, 0, 9, 0, 8);
#define STORE_512(j, s)                                                                      \
	_mm512_storeu_si512(out + 16 * (j), _mm512_cvtepu32_epi64(_mm512_castsi512_si256(s)));  \
	_mm512_storeu_si512(out + 16 * (j) + 8, _mm512_maskz_permutexvar_epi32(0x5555, high, s))
	STORE_512(0, s0);
	STORE_512(1, s1);
	STORE_512(2, s2);
	STORE_512(3, s3);
#undef STORE_512
	/* ceil(log2 k): words below 2^(32 - bits) cannot carry out of k adds. */
	uint32_t bits = 32u - (uint32_t)__builtin_clz(k - 1);
	return _mm512_test_epi32_mask(all, _mm512_set1_epi32((int)(~0u << (32u - bits)))) != 0;
}

/* The rare exact path, out of line: the sum itself then keeps nothing
 * across a call (no registers saved, no frame). */
AVX512F __attribute__((noinline, cold)) static void exact_512(const struct og_mali_layout *layout,
                                                              const uint32_t *dump,
                                                              struct og_mali_totals *totals,
                                                              bool l2, bool cores)
{
	for (uint32_t w = 0; w < OG_MALI_V5_WORDS; w += CHUNK_WORDS) {
		if (l2)
			chunk_exact(dump, layout->l2_at, layout->l2_count, w,
			            totals->v + OG_MALI_L2 * OG_MALI_MAX_VALUES);
		if (cores)
			chunk_exact(dump, layout->core_at, layout->core_count, w,
			            totals->v + OG_MALI_SC * OG_MALI_MAX_VALUES);
	}
}

AVX512F static void sum_avx512(const struct og_mali_layout *layout, const uint32_t *dump,
                               struct og_mali_totals *totals)
{
	static const uint32_t fe_at = 0, tiler_at = OG_MALI_V5_WORDS;
	uint64_t *v = totals->v;
	type_512(dump, &fe_at, 1, v + OG_MALI_FE * OG_MALI_MAX_VALUES);
	type_512(dump, &tiler_at, 1, v + OG_MALI_TILER * OG_MALI_MAX_VALUES);
	bool l2 = type_512(dump, layout->l2_at, layout->l2_count, v + OG_MALI_L2 * OG_MALI_MAX_VALUES);
	bool cores = type_512(dump, layout->core_at, layout->core_count,
	                      v + OG_MALI_SC * OG_MALI_MAX_VALUES);
	if (l2 || cores)
		exact_512(layout, dump, totals, l2, cores);
}
#endif

#if defined(OG_SUM_AVX2_COPY)
#define X86_COPIES {"avx512f", sum_avx512, og_cpu_has_avx512f()}, {"avx2", sum_avx2, og_cpu_has_avx2()},
#else
#define X86_COPIES
#endif
OG_SUM_COPIES_FN(og_mali_sum_copies, og_mali_sum_copy, X86_COPIES{"default", sum_default, true})

/* The widest copy this CPU runs. */
static og_mali_sum_fn *pick_sum(void)
{
	struct og_mali_sum_copy c;
	return og_mali_sum_copies(&c, 1) ? c.sum : sum_default;
}

bool og_mali_sum_dump(const struct og_mali_layout *layout, const uint32_t *dump, size_t bytes,
                      struct og_mali_totals *totals)
{
	/* A layout og_mali_layout_init never filled has no blocks to sum. */
	if (!dump || !layout->sum || !layout->l2_count || !layout->core_count ||
	    layout->l2_count > OG_MALI_MAX_L2_SLICES || layout->core_count > OG_MALI_MAX_CORES ||
	    bytes < layout->dump_bytes)
		return false;
	layout->sum(layout, dump, totals);
	return true;
}
