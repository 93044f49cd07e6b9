/* SPDX-License-Identifier: MIT */
/*
 * fuzz_kbase_props.c — what the kbase driver hands the mali backend: the
 * KBASE_IOCTL_GET_GPUPROPS blob, decoded into a GPU description, and the
 * hardware counter dumps summed for that GPU's layout.
 *
 * Input: byte 0 is the blob's length in 4-byte units (the blob follows);
 * the rest, repeated as needed, fills one dump.  Oracles: a refusal names
 * its reason; a GPU the decoder accepts gets a layout only when sane, and
 * the layout names the blocks the dump format puts where it says; every sum
 * of the dump equals a plain 64-bit sum of those blocks.
 */
#include <string.h>

#include "fuzz.h"
#include "mali/kbase_props.h"
#include "mali/mali_sum.h"

/* The blocks a layout sums must be the ones the dump format puts there:
 * front end (JM), tiler, the L2 slices in order, then one block per bit of the core
 * mask, absent cores skipped (docs/backends/mali.md). */
static void check_layout(const struct og_mali_gpu *gpu, const struct og_mali_layout *l)
{
	FUZZ_CHECK(l->l2_count == gpu->l2_slices);
	for (uint32_t s = 0; s < l->l2_count; s++)
		FUZZ_CHECK(l->l2_at[s] == (2 + s) * OG_MALI_V5_WORDS);
	uint32_t k = 0;
	for (uint32_t bit = 0; bit < 64; bit++)
		if (gpu->core_mask >> bit & 1) {
			FUZZ_CHECK(k < l->core_count);
			FUZZ_CHECK(l->core_at[k++] == (2 + gpu->l2_slices + bit) * OG_MALI_V5_WORDS);
		}
	FUZZ_CHECK(k == l->core_count);
}

/* Word w of a block type, added up the plainest way over the blocks at[]. */
static uint64_t plain_sum(const uint32_t *dump, const uint32_t *at, uint32_t n, uint32_t w)
{
	uint64_t sum = 0;
	while (n--)
		sum += dump[*at++ + w];
	return sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > 65536)
		return 0;
	size_t blob_len = (size_t)data[0] * 4;
	if (blob_len > size - 1)
		blob_len = size - 1;
	const uint8_t *blob = data + 1, *fill = data + 1 + blob_len;
	size_t fill_len = size - 1 - blob_len;
	/* The decoder reads the blob where the kernel wrote it: an exact copy,
	 * so a read past its end is one past an allocation. */
	uint8_t *copy = malloc(blob_len ? blob_len : 1);
	FUZZ_CHECK(copy != NULL);
	memcpy(copy, blob, blob_len);
	struct og_mali_gpu gpu;
	memset(&gpu, 0, sizeof(gpu));
	const char *why = NULL;
	bool decoded = og_mali_decode_props(copy, blob_len, &gpu, &why);
	free(copy);
	if (!decoded) {
		FUZZ_CHECK(why != NULL);
		return 0;
	}
	struct og_mali_layout layout;
	if (!og_mali_layout_init(&gpu, &layout)) {
		FUZZ_CHECK(!gpu.core_mask || !gpu.l2_slices || gpu.l2_slices > OG_MALI_MAX_L2_SLICES);
		return 0;
	}
	size_t bytes = layout.dump_bytes;
	FUZZ_CHECK(bytes == og_mali_dump_bytes(&gpu));
	FUZZ_CHECK(bytes % 4 == 0 && bytes <= (2 + OG_MALI_MAX_L2_SLICES + 64) * OG_MALI_V5_BLOCK_BYTES);
	uint32_t *dump = malloc(bytes);
	FUZZ_CHECK(dump != NULL);
	for (size_t i = 0; i < bytes; i++)
		((uint8_t *)dump)[i] = fill_len ? fill[i % fill_len] : (uint8_t)i;
	struct og_mali_totals t;
	/* One byte short is refused; the whole dump is summed exactly. */
	FUZZ_CHECK(!og_mali_sum_dump(&layout, dump, bytes - 1, &t));
	FUZZ_CHECK(og_mali_sum_dump(&layout, dump, bytes, &t));
	check_layout(&gpu, &layout);
	const uint32_t fe = 0, tiler = OG_MALI_V5_WORDS;
	for (uint32_t w = 0; w < OG_MALI_V5_WORDS; w++) {
		FUZZ_CHECK(og_mali_total(&t, OG_MALI_FE * OG_MALI_MAX_VALUES + w) ==
		           plain_sum(dump, &fe, 1, w));
		FUZZ_CHECK(og_mali_total(&t, OG_MALI_TILER * OG_MALI_MAX_VALUES + w) ==
		           plain_sum(dump, &tiler, 1, w));
		FUZZ_CHECK(og_mali_total(&t, OG_MALI_L2 * OG_MALI_MAX_VALUES + w) ==
		           plain_sum(dump, layout.l2_at, layout.l2_count, w));
		FUZZ_CHECK(og_mali_total(&t, OG_MALI_SC * OG_MALI_MAX_VALUES + w) ==
		           plain_sum(dump, layout.core_at, layout.core_count, w));
	}
	free(dump);
	return 0;
}
