/* SPDX-License-Identifier: MIT */
/*
 * vk_share.c — og_vk_apportion (vk.h): a Vulkan command list's device count
 * split among its samples in proportion to their GPU times on it, for
 * vk_dev.c (docs/api.md, "Several samples on one list: shares by GPU
 * time").  Integer shares that add up to the count exactly: each sample's
 * floor of its exact share, then the units left over, fewer than the
 * samples, one each to the largest remainders (Hamilton's method), a tie to
 * the earlier sample.  Pure arithmetic, tested alone
 * (tests/apictx/test_vk_apportion.c).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "apictx/vk.h"

/* floor(a * b / c) and its remainder, for b <= c, c > 0 (so the quotient
 * fits): in 64 bits when the product does, else a 128-bit product and a
 * long division (no __int128: 32-bit targets have none). */
static uint64_t mul_div(uint64_t a, uint64_t b, uint64_t c, uint64_t *rem)
{
	if (!b || a <= UINT64_MAX / b) {
		*rem = a * b % c;
		return a * b / c;
	}
	uint64_t al = a & 0xffffffffu, ah = a >> 32, bl = b & 0xffffffffu, bh = b >> 32;
	uint64_t ll = al * bl, lh = al * bh, hl = ah * bl;
	uint64_t mid = (ll >> 32) + (lh & 0xffffffffu) + (hl & 0xffffffffu);
	uint64_t lo = (ll & 0xffffffffu) | (mid << 32);
	uint64_t hi = ah * bh + (lh >> 32) + (hl >> 32) + (mid >> 32);
	uint64_t q = 0, r = hi; /* hi < c: the quotient has 64 bits */
	for (int i = 63; i >= 0; i--) {
		uint64_t carry = r >> 63;
		r = r << 1 | (lo >> i & 1);
		q <<= 1;
		if (carry || r >= c) {
			r -= c;
			q |= 1;
		}
	}
	*rem = r;
	return q;
}

struct rest {
	uint64_t rem;
	uint32_t k;
};

/* Largest remainder first; a tie to the earlier sample: a total order. */
static bool before(const struct rest *x, const struct rest *y)
{
	return x->rem != y->rem ? x->rem > y->rem : x->k < y->k;
}

static void swap_rest(struct rest *a, struct rest *b)
{
	struct rest t = *a;
	*a = *b;
	*b = t;
}

/* Reorders r[0 .. n) so that r[0 .. m) are its m first in `before` order
 * (in no particular order among themselves): a quickselect, O(n) on
 * average, where a sort per raw counter cost ~100 µs for 1000 samples. */
static void select_first(struct rest *r, uint32_t n, uint32_t m)
{
	uint32_t lo = 0, hi = n;
	while (hi - lo > 1) {
		/* The median of three as the pivot, at hi - 1. */
		uint32_t mid = lo + (hi - lo) / 2;
		if (before(&r[mid], &r[lo]))
			swap_rest(&r[mid], &r[lo]);
		if (before(&r[hi - 1], &r[lo]))
			swap_rest(&r[hi - 1], &r[lo]);
		if (before(&r[mid], &r[hi - 1]))
			swap_rest(&r[mid], &r[hi - 1]);
		uint32_t at = lo;
		for (uint32_t i = lo; i < hi - 1; i++)
			if (before(&r[i], &r[hi - 1]))
				swap_rest(&r[i], &r[at++]);
		swap_rest(&r[at], &r[hi - 1]); /* the pivot, in its place */
		if (at + 1 == m || at == m)
			return;
		if (m < at)
			hi = at;
		else
			lo = at + 1;
	}
}

void og_vk_apportion(uint64_t total, const uint64_t *weights, uint32_t n, uint64_t *shares)
{
	if (!n)
		return;
	/* The weights' sum, halving them all while it would overflow. */
	unsigned shift = 0;
	uint64_t sum;
	for (;; shift++) {
		sum = 0;
		uint32_t k = 0;
		for (; k < n && (weights[k] >> shift) <= UINT64_MAX - sum; k++)
			sum += weights[k] >> shift;
		if (k == n)
			break;
	}
	if (!sum) {
		for (uint32_t k = 0; k < n; k++) /* the remainder to the first */
			shares[k] = total / n + (k < total % n ? 1 : 0);
		return;
	}
	/* Each its floor, then the units left (fewer than n) one each to the
	 * largest remainders, which are all over the same sum and so
	 * comparable; a tie to the earlier sample. */
	struct rest *r = malloc(n * sizeof(*r)); /* NULL: the units to the first samples */
	uint64_t given = 0;
	for (uint32_t k = 0; k < n; k++) {
		uint64_t rem;
		shares[k] = mul_div(total, weights[k] >> shift, sum, &rem);
		given += shares[k];
		if (r)
			r[k] = (struct rest){ rem, k };
	}
	uint64_t left = total - given;
	if (r && left)
		select_first(r, n, (uint32_t)left);
	for (uint32_t k = 0; k < left; k++)
		shares[r ? r[k].k : k]++;
	free(r);
}
