/* SPDX-License-Identifier: MIT */
/* test_mali_sum.c — og_mali_sum_dump against a plain 64-bit sum written
 * here, over core masks (sparse, 64 cores), L2 slice counts and word values
 * on both sides of the point where 32-bit lanes could carry out, with every
 * copy of the sum this CPU runs (og_mali_sum_copies: AVX-512F, AVX2 and the
 * baseline on x86-64); and its bounds: a short dump is refused and nothing
 * past the dump is ever read. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <cmocka.h>

#include "mali/mali_sum.h"

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;

static uint32_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state >> 11);
}

enum fill { SMALL, BELOW_GUARD, ABOVE_GUARD, FULL, ALL_ONES, ONE_BIG_WORD, ZERO };

static struct og_mali_gpu g71(uint64_t mask, uint32_t slices)
{
	return (struct og_mali_gpu){ .product_id = 0x6000, .core_mask = mask, .l2_slices = slices,
	                             .bus_width_bits = 128 };
}

/* The largest word k instances can each hold without a 32-bit carry. */
static uint32_t guard_max(uint32_t k)
{
	uint32_t bits = 0;
	while ((1ull << bits) < k)
		bits++;
	return bits ? (uint32_t)((1ull << (32 - bits)) - 1) : UINT32_MAX;
}

static void fill(uint32_t *dump, size_t words, enum fill how, uint32_t k_max)
{
	for (size_t i = 0; i < words; i++) {
		switch (how) {
		case SMALL: dump[i] = rnd() >> 12; break;
		case BELOW_GUARD: dump[i] = guard_max(k_max) - (rnd() & 3); break;
		case ABOVE_GUARD: dump[i] = guard_max(k_max) + 1 + (rnd() & 0xFFFF); break;
		case FULL: dump[i] = rnd() ^ (rnd() << 21); break;
		case ALL_ONES: dump[i] = UINT32_MAX; break;
		case ONE_BIG_WORD: dump[i] = (i % 97 == 13) ? UINT32_MAX - (uint32_t)i : rnd() >> 16; break;
		case ZERO: dump[i] = 0; break;
		}
	}
}

/* Writes garbage into the blocks of absent cores: they must not count. */
static void poison_holes(const struct og_mali_gpu *gpu, uint32_t *dump)
{
	uint32_t first = 2 + gpu->l2_slices, slots = og_mali_fls64(gpu->core_mask);
	for (uint32_t c = 0; c < slots; c++)
		if (!((gpu->core_mask >> c) & 1))
			for (uint32_t i = 0; i < OG_MALI_V5_WORDS; i++)
				dump[(first + c) * OG_MALI_V5_WORDS + i] = 0xDEADBEEFu;
}

static uint64_t reference(const struct og_mali_gpu *gpu, const uint32_t *dump, uint32_t type,
                          uint32_t word)
{
	uint64_t sum = 0;
	if (type == OG_MALI_FE || type == OG_MALI_TILER)
		return dump[type * OG_MALI_V5_WORDS + word];
	if (type == OG_MALI_L2) {
		for (uint32_t s = 0; s < gpu->l2_slices; s++)
			sum += dump[(2 + s) * OG_MALI_V5_WORDS + word];
		return sum;
	}
	for (uint32_t c = 0; c < 64; c++)
		if ((gpu->core_mask >> c) & 1)
			sum += dump[(2 + gpu->l2_slices + c) * OG_MALI_V5_WORDS + word];
	return sum;
}

static void check(const struct og_mali_gpu *gpu, enum fill how, size_t misalign_words)
{
	struct og_mali_layout layout;
	assert_true(og_mali_layout_init(gpu, &layout));
	size_t bytes = og_mali_dump_bytes(gpu);
	assert_int_equal(layout.dump_bytes, bytes);
	uint32_t *buf = malloc(bytes + 16);
	assert_non_null(buf);
	uint32_t *dump = buf + misalign_words;
	uint32_t k_max = (uint32_t)__builtin_popcountll(gpu->core_mask);
	if (gpu->l2_slices > k_max)
		k_max = gpu->l2_slices;
	fill(dump, bytes / 4, how, k_max);
	poison_holes(gpu, dump);
	struct og_mali_sum_copy copies[4];
	size_t ncopies = og_mali_sum_copies(copies, 4);
	assert_true(ncopies >= 1);
	assert_ptr_equal(layout.sum, copies[0].sum); /* the widest is the one used */
	for (size_t c = 0; c < ncopies; c++) {
		layout.sum = copies[c].sum;
		struct og_mali_totals t;
		memset(&t, 0xA5, sizeof t);
		assert_true(og_mali_sum_dump(&layout, dump, bytes, &t));
		for (uint32_t type = 0; type < OG_MALI_BLOCK_TYPES; type++)
			for (uint32_t w = 0; w < OG_MALI_MAX_VALUES; w++) {
				/* Words past 63 and the kinstr-only blocks are left alone. */
				uint64_t want = type <= OG_MALI_SC && w < OG_MALI_V5_WORDS
				                        ? reference(gpu, dump, type, w) : 0xA5A5A5A5A5A5A5A5ull;
				uint64_t got = og_mali_total(&t, type * OG_MALI_MAX_VALUES + w);
				if (got != want)
					fail_msg("%s copy, mask 0x%llx, %u slices, fill %d, dump at +%zu words: "
					         "block %u word %u: got %llu, want %llu", copies[c].name,
					         (unsigned long long)gpu->core_mask, (unsigned)gpu->l2_slices,
					         (int)how, misalign_words, (unsigned)type, (unsigned)w,
					         (unsigned long long)got, (unsigned long long)want);
			}
	}
	free(buf);
}

static void test_sums_match_reference(void **unused)
{
	(void)unused;
	static const uint64_t masks[] = {
		0x1, 0x3, 0xF, 0xFF, 0x5B, 0xB5, 0x2D, 0x1FF, 0xFFFF, 0xAAAAAAAAull,
		0x8000000000000001ull, 0xFFFFFFFFFFFFFFFFull, 0x00F0F0F0F0F0F0F0ull,
	};
	static const uint32_t slices[] = {1, 2, 3, 4, 16};
	for (size_t m = 0; m < sizeof masks / sizeof masks[0]; m++)
		for (size_t s = 0; s < sizeof slices / sizeof slices[0]; s++)
			for (int how = SMALL; how <= ZERO; how++) {
				struct og_mali_gpu gpu = g71(masks[m], slices[s]);
				check(&gpu, (enum fill)how, 0);
			}
}

/* Ring buffers are page aligned, panfrost's is malloc'ed; neither matters. */
static void test_unaligned_dump(void **unused)
{
	(void)unused;
	struct og_mali_gpu gpu = g71(0xFF, 2);
	for (size_t off = 0; off < 4; off++) {
		check(&gpu, FULL, off);
		check(&gpu, SMALL, off);
		check(&gpu, ABOVE_GUARD, off);
		check(&gpu, ALL_ONES, off);
	}
}

/* The dump ends where an inaccessible page begins: a read past it faults. */
static void test_never_reads_past_the_dump(void **unused)
{
	(void)unused;
	long page = sysconf(_SC_PAGESIZE);
	struct og_mali_gpu gpu = g71(0xFFFFFFFFFFFFFFFFull, 16); /* the largest dump */
	struct og_mali_layout layout;
	assert_true(og_mali_layout_init(&gpu, &layout));
	size_t bytes = layout.dump_bytes;
	size_t span = (bytes + (size_t)page - 1) / (size_t)page * (size_t)page;
	uint8_t *map = mmap(NULL, span + (size_t)page, PROT_READ | PROT_WRITE,
	                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(map != MAP_FAILED);
	assert_int_equal(mprotect(map + span, (size_t)page, PROT_NONE), 0);
	uint32_t *dump = (uint32_t *)(void *)(map + span - bytes);
	fill(dump, bytes / 4, FULL, 64);
	struct og_mali_sum_copy copies[4];
	size_t ncopies = og_mali_sum_copies(copies, 4);
	for (size_t c = 0; c < ncopies; c++) {
		layout.sum = copies[c].sum;
		struct og_mali_totals t;
		assert_true(og_mali_sum_dump(&layout, dump, bytes, &t));
		assert_int_equal(og_mali_total(&t, OG_MALI_SC * OG_MALI_MAX_VALUES + 63),
		                 reference(&gpu, dump, OG_MALI_SC, 63));
	}
	munmap(map, span + (size_t)page);
}

static void test_short_dump_refused(void **unused)
{
	(void)unused;
	struct og_mali_gpu gpu = g71(0xFF, 2);
	struct og_mali_layout layout;
	assert_true(og_mali_layout_init(&gpu, &layout));
	size_t bytes = layout.dump_bytes;
	uint32_t *dump = calloc(1, bytes);
	assert_non_null(dump);
	struct og_mali_totals t, before;
	memset(&t, 0x5A, sizeof t);
	before = t;
	assert_false(og_mali_sum_dump(&layout, dump, bytes - 1, &t));
	assert_false(og_mali_sum_dump(&layout, dump, bytes - OG_MALI_V5_BLOCK_BYTES, &t));
	assert_false(og_mali_sum_dump(&layout, dump, 0, &t));
	assert_false(og_mali_sum_dump(&layout, NULL, bytes, &t));
	assert_memory_equal(&t, &before, sizeof t);
	/* A longer buffer is fine: only the layout's bytes are read. */
	assert_true(og_mali_sum_dump(&layout, dump, bytes, &t));
	free(dump);

	/* A layout og_mali_layout_init never filled sums nothing. */
	struct og_mali_layout blank;
	memset(&blank, 0, sizeof blank);
	uint32_t word = 0;
	assert_false(og_mali_sum_dump(&blank, &word, sizeof word, &t));
}

static void test_layout_refuses_impossible_gpus(void **unused)
{
	(void)unused;
	struct og_mali_layout l;
	memset(&l, 0x77, sizeof l);
	struct og_mali_gpu gpu = g71(0, 1);
	assert_false(og_mali_layout_init(&gpu, &l));
	gpu = g71(0xFF, 0);
	assert_false(og_mali_layout_init(&gpu, &l));
	gpu = g71(0xFF, OG_MALI_MAX_L2_SLICES + 1);
	assert_false(og_mali_layout_init(&gpu, &l));
	gpu = g71(0x5B, 2);
	assert_true(og_mali_layout_init(&gpu, &l));
	assert_int_equal(l.core_count, 5);
	assert_int_equal(l.l2_count, 2);
	/* Present cores 0,1,3,4,6 after JM, tiler and two L2 blocks. */
	static const uint32_t at[] = {4, 5, 7, 8, 10};
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(l.core_at[i], at[i] * OG_MALI_V5_WORDS);
	assert_int_equal(l.dump_bytes, (2 + 2 + 7) * OG_MALI_V5_BLOCK_BYTES);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sums_match_reference),
		cmocka_unit_test(test_unaligned_dump),
		cmocka_unit_test(test_never_reads_past_the_dump),
		cmocka_unit_test(test_short_dump_refused),
		cmocka_unit_test(test_layout_refuses_impossible_gpus),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
