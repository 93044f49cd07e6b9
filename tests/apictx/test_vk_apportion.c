/* SPDX-License-Identifier: MIT */
/*
 * test_vk_apportion.c — og_vk_apportion (lib/apictx/vk_share.c), which splits
 * a Vulkan command list's device counts among its samples in proportion to
 * their GPU times: the shares add up to the list's counts exactly, each is
 * its exact proportion rounded down or up by one (largest remainder, a tie
 * to the earlier sample, checked against a sort), counts and weights near
 * 2^64 (the 128-bit product without __int128), and equal shares when every
 * weight is 0.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "apictx/vk.h"

/* Small lists, their shares worked out by hand. */
static const struct {
	const char *what;
	uint64_t total;
	uint32_t n;
	uint64_t w[3], want[3];
} cases[] = {
	{ "1001 by 1:2:7 is 100.1, 200.2, 700.7: the unit left to .7", 1001, 3, { 1, 2, 7 },
	  { 100, 200, 701 } },
	{ "a sample that ran 30 times longer gets 30 times the counts", 3100, 2, { 1000, 30000 },
	  { 100, 3000 } },
	{ "a tie goes to the earlier sample", 1, 2, { 5, 5 }, { 1, 0 } },
	{ "GPU time 0 gets nothing", 77, 2, { 0, 9 }, { 0, 77 } },
	{ "nothing to share", 0, 3, { 1, 2, 7 }, { 0, 0, 0 } },
	{ "no times: equal, the remainder to the first", 7, 3, { 0, 0, 0 }, { 3, 2, 2 } },
};

static void by_hand(void **state)
{
	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		uint64_t s[3] = { 99, 99, 99 };
		og_vk_apportion(cases[c].total, cases[c].w, cases[c].n, s);
		for (uint32_t k = 0; k < cases[c].n; k++)
			if (s[k] != cases[c].want[k])
				fail_msg("%s: share %u is %llu, not %llu", cases[c].what, k,
				         (unsigned long long)s[k], (unsigned long long)cases[c].want[k]);
	}
}

static void near_two_to_the_64(void **state)
{
	(void)state;
	uint64_t s[2];
	/* Weights whose sum overflows: halved, still proportional. */
	const uint64_t big[2] = { 1ull << 63, 1ull << 63 };
	og_vk_apportion(UINT64_MAX, big, 2, s);
	assert_true(s[0] == 1ull << 63 && s[1] == (1ull << 63) - 1);
	/* Products past 2^64: 10^15 counts by 3:7 of 10^10 ticks. */
	const uint64_t t[2] = { 3000000000ull, 7000000000ull };
	og_vk_apportion(1000000000000000ull, t, 2, s);
	assert_true(s[0] == 300000000000000ull && s[1] == 700000000000000ull);
	/* 2^61 + 5 by 1:2 of 3 * 2^40: 768614336404564652.33 and
	 * 1537228672809129304.67, the unit left to the second. */
	const uint64_t thirds[2] = { 1ull << 40, 2ull << 40 };
	og_vk_apportion((1ull << 61) + 5, thirds, 2, s);
	assert_true(s[0] == 768614336404564652ull && s[1] == 1537228672809129305ull);
}

/* Many lists of random counts and times: exact sums, and each share within
 * one of its exact proportion (checked in 128 bits where the compiler has
 * them). */
static void random_lists(void **state)
{
	(void)state;
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	for (int round = 0; round < 2000; round++) {
		uint64_t w[17], s[17], sum = 0, given = 0;
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		uint32_t n = 1 + (uint32_t)(seed >> 60);
		uint64_t total = seed >> (round % 3 ? 1 : 30);
		for (uint32_t k = 0; k < n; k++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			w[k] = seed >> (20 + k % 40);
			sum += w[k];
		}
		og_vk_apportion(total, w, n, s);
		for (uint32_t k = 0; k < n; k++)
			given += s[k];
		assert_true(given == total);
#ifdef __SIZEOF_INT128__
		for (uint32_t k = 0; k < n && sum; k++) {
			unsigned __int128 exact = (unsigned __int128)total * w[k] / sum;
			assert_true(s[k] == exact || s[k] == exact + 1);
		}
#endif
	}
}

/* Lists of up to 1000 samples against the method written out plainly:
 * floors, then one more for each of the `left` largest remainders found by
 * sorting (products below 2^64, so plain 64-bit arithmetic). */
struct ref {
	uint64_t rem;
	uint32_t k;
};

static int by_rem(const void *a, const void *b)
{
	const struct ref *x = a, *y = b;
	if (x->rem != y->rem)
		return x->rem > y->rem ? -1 : 1;
	return x->k < y->k ? -1 : 1;
}

static void against_a_sort(void **state)
{
	(void)state;
	static uint64_t w[1000], s[1000], want[1000];
	static struct ref r[1000];
	uint64_t seed = 12345;
	for (int round = 0; round < 60; round++) {
		uint32_t n = round < 30 ? 1000 : 1 + (uint32_t)(round * 37 % 200);
		uint64_t sum = 0, total, floors = 0;
		for (uint32_t k = 0; k < n; k++) {
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			/* Repeated weights, so remainders tie and the earlier sample wins. */
			w[k] = round % 3 == 0 ? 1 + (seed >> 62) : seed >> 40;
			sum += w[k];
		}
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		total = seed >> 33;
		for (uint32_t k = 0; k < n; k++) {
			want[k] = total * w[k] / sum;
			r[k] = (struct ref){ total * w[k] % sum, k };
			floors += want[k];
		}
		qsort(r, n, sizeof(*r), by_rem);
		for (uint64_t j = 0; j < total - floors; j++)
			want[r[j].k]++;
		og_vk_apportion(total, w, n, s);
		for (uint32_t k = 0; k < n; k++)
			assert_true(s[k] == want[k]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(by_hand),
		cmocka_unit_test(near_two_to_the_64),
		cmocka_unit_test(random_lists),
		cmocka_unit_test(against_a_sort),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
