/* SPDX-License-Identifier: MIT */
/*
 * kinstr_sum.c — summing a kinstr_prfcnt sample's blocks per type (see
 * kinstr_parse.h): one copy per vector width this CPU may run (NEON,
 * AVX2, AVX-512F, the default), each exact, with a saturating slow path
 * for the lanes that might have wrapped.  Split from kinstr_parse.c, which
 * checks what the driver wrote before anything here reads it.
 */
#include "kinstr_parse.h"

#include <string.h>

#include "mali_vec.h"

/* Vectors are loaded and stored through types that may alias anything and
 * sit at any address: GCC's aarch64 back end copied a vector memcpy'd from
 * an unaligned address through the stack, and then kept the sums there. */
#define LOADV(v, p)                                                                          \
	do {                                                                                 \
		typedef __typeof__(v) vu_ __attribute__((aligned(1), may_alias));            \
		(v) = *(const vu_ *)(const void *)(p);                                       \
	} while (0)
#define STOREV(p, v)                                                                         \
	do {                                                                                 \
		typedef __typeof__(v) vu_ __attribute__((aligned(1), may_alias));            \
		*(vu_ *)(void *)(p) = (v);                                                   \
	} while (0)

/* Does some lane of `any` (n lanes) reach 2^(64 - bits)? */
static inline bool lane_at_or_above(const uint64_t *any, uint32_t n, uint32_t bits)
{
	uint64_t set = 0;
	for (uint32_t j = 0; j < n; j++)
		set |= any[j] >> (64u - bits);
	return set != 0;
}

/* Values [w0, w1) of k blocks, exactly, saturating: the slow path for sums
 * the vector lanes might have wrapped, and for the values of a block length
 * that is not a whole number of chunks (real drivers give 64 or 128). */
static void sum_saturating(const uint8_t *map, const uint32_t *at, uint32_t k, uint32_t w0,
                           uint32_t w1, uint64_t *out)
{
	for (uint32_t w = w0; w < w1; w++) {
		uint64_t s = 0;
		for (uint32_t i = 0; i < k; i++) {
			uint64_t x;
			memcpy(&x, map + at[i] + (size_t)w * 8u, 8);
			s = s + x < s ? UINT64_MAX : s + x;
		}
		out[w] = s;
	}
}

/* One block type's sum, in one copy per instruction set (mali_vec.h): a
 * chunk of NVEC vectors of type VT per pass over the instances (EACH names
 * them), so the sums and their OR stay in registers (16 of them in SSE2
 * and AVX2, 32 in NEON and AVX-512). */
#define EACH4(M) M(0) M(1) M(2) M(3)
#define EACH8(M) EACH4(M) M(4) M(5) M(6) M(7)
#define DECLARE_S(j) vt_ s##j;
#define LOAD_S(j)                                                                            \
	{                                                                                    \
		vt_ x;                                                                       \
		LOADV(x, p + (j) * sizeof(vt_));                                             \
		s##j = x;                                                                    \
		all |= x;                                                                    \
	}
#define ADD_X(j)                                                                             \
	{                                                                                    \
		vt_ x;                                                                       \
		LOADV(x, p + (j) * sizeof(vt_));                                             \
		s##j += x;                                                                   \
		all |= x;                                                                    \
	}
#define STORE_S(j) STOREV(out + w + (j) * LANES, s##j);
#define SUM_TYPE(name, EACH, NVEC, VT, target_attribute)                                     \
	target_attribute static void name(const uint8_t *map, const uint32_t *at, uint32_t k, \
	                                  uint32_t nv, uint64_t *out)                          \
	{                                                                                       \
		typedef VT vt_;                                                                 \
		enum { LANES = sizeof(VT) / 8u, CHUNK = (NVEC) * LANES };                       \
		const uint32_t whole = nv - nv % CHUNK;                                         \
		uint32_t w = 0;                                                                 \
		if (k == 1) { /* one instance: its values are the totals */                     \
			memcpy(out, map + at[0], (size_t)nv * 8u);                              \
			return;                                                                 \
		}                                                                               \
		/* k values each below 2^(64 - ceil(log2 k)) cannot wrap a 64-bit      \
		 * lane: one test for the block type, all again when it fails. */       \
		uint32_t bits = 32u - (uint32_t)__builtin_clz(k - 1);                           \
		VT any = {0};                                                                   \
		for (; w < whole; w += CHUNK) {                                                 \
			EACH(DECLARE_S)                                                         \
			VT all = {0};                                                           \
			const uint8_t *p = map + at[0] + (size_t)w * 8u;                        \
			EACH(LOAD_S)                                                            \
			for (uint32_t i = 1; i < k; i++) {                                      \
				p = map + at[i] + (size_t)w * 8u;                               \
				EACH(ADD_X)                                                     \
			}                                                                       \
			EACH(STORE_S)                                                           \
			any |= all;                                                             \
		}                                                                               \
		uint64_t lanes[LANES];                                                          \
		memcpy(lanes, &any, sizeof lanes);                                              \
		if (lane_at_or_above(lanes, LANES, bits))                                       \
			sum_saturating(map, at, k, 0, whole, out);                              \
		sum_saturating(map, at, k, whole, nv, out);                                     \
	}

/* The baseline copy works in the registers the baseline has: 16 bytes
 * (SSE2, NEON) unless the whole build targets AVX2.  Wider vectors there
 * would be split into pairs, and 8 pairs of sums do not fit: GCC kept them
 * on the stack, at 4x the cost of a memcpy. */
#if defined(__AVX2__)
typedef uint64_t vbase __attribute__((vector_size(32)));
#else
typedef uint64_t vbase __attribute__((vector_size(16)));
#endif
SUM_TYPE(sum_default, EACH8, 8, vbase, )
#if defined(OG_SUM_AVX2_COPY)
typedef uint64_t v256 __attribute__((vector_size(32)));
typedef uint64_t v512 __attribute__((vector_size(64)));
SUM_TYPE(sum_avx2, EACH8, 8, v256, __attribute__((target("avx2"))))
SUM_TYPE(sum_avx512, EACH8, 8, v512, __attribute__((target("avx512f"))))
#endif

/* NEON adds 64-bit lanes with unsigned saturation (UQADD): the saturating
 * sum itself, one instruction per vector, so this copy needs neither the
 * carry guard (an OR per vector) nor a second pass.  GCC 12 does not turn
 * the C idiom into UQADD, hence the intrinsics.  Bytes are loaded and stored
 * as bytes (any address); little-endian only, where those bytes are the
 * lanes' values in order. */
#if defined(__ARM_NEON) && defined(__ORDER_LITTLE_ENDIAN__) &&                                 \
        __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define OG_SUM_NEON_COPY
#include <arm_neon.h>

#define EACH16(M) EACH8(M) M(8) M(9) M(10) M(11) M(12) M(13) M(14) M(15)
#define NEON_X(j) vreinterpretq_u64_u8(vld1q_u8(p + 16u * (j)))
#define NEON_LOAD(j) uint64x2_t s##j = NEON_X(j);
#define NEON_ADD(j) s##j = vqaddq_u64(s##j, NEON_X(j));
#define NEON_STORE(j) vst1q_u8((uint8_t *)(out + w + 2u * (j)), vreinterpretq_u8_u64(s##j));

static void sum_neon(const uint8_t *map, const uint32_t *at, uint32_t k, uint32_t nv,
                     uint64_t *out)
{
	enum { CHUNK = 32 }; /* 16 of the 32 vector registers hold sums */
	uint32_t w = 0;
	for (; w + CHUNK <= nv; w += CHUNK) {
		const uint8_t *p = map + at[0] + (size_t)w * 8u;
		EACH16(NEON_LOAD)
		for (uint32_t i = 1; i < k; i++) {
			p = map + at[i] + (size_t)w * 8u;
			EACH16(NEON_ADD)
		}
		EACH16(NEON_STORE)
	}
	sum_saturating(map, at, k, w, nv, out);
}
#endif

#if defined(OG_SUM_NEON_COPY)
#define NEON_COPY {"neon", sum_neon, true},
#else
#define NEON_COPY
#endif
#if defined(OG_SUM_AVX2_COPY)
#define X86_COPIES {"avx512f", sum_avx512, og_cpu_has_avx512f()}, {"avx2", sum_avx2, og_cpu_has_avx2()},
#else
#define X86_COPIES
#endif
OG_SUM_COPIES_FN(og_kinstr_sum_copies, og_kinstr_sum_copy,
                 NEON_COPY X86_COPIES{"default", sum_default, true})

og_kinstr_sum_fn *og_kinstr_pick_sum(void)
{
	struct og_kinstr_sum_copy c;
	return og_kinstr_sum_copies(&c, 1) ? c.sum : sum_default;
}

void og_kinstr_sum(const struct og_kinstr_layout *l, const uint8_t *map,
                   const struct og_kinstr_sample *s, struct og_mali_totals *totals)
{
	for (uint32_t t = 0; t < OG_MALI_BLOCK_TYPES; t++) {
		uint32_t k = s->count[t];
		if (!k)
			continue;
		l->sum(map, s->at[t], k, l->en.values[t], totals->v + t * OG_MALI_MAX_VALUES);
	}
}
