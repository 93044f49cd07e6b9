/* SPDX-License-Identifier: MIT */
/*
 * fuzz_kbase_props.c — what the kbase driver hands the mali backend: the
 * KBASE_IOCTL_GET_GPUPROPS blob, decoded into a GPU description, and the
 * hardware counter dumps summed for that GPU's layout.
 *
 * Input: byte 0 is the blob's length in 4-byte units (the blob follows);
 * the rest, repeated as needed, fills one dump.  Oracles: a refusal names
 * its reason; a GPU the decoder accepts gets a layout only when sane; every
 * sum of the dump equals a plain 64-bit sum of the blocks the layout names,
 * present cores only.
 */
#include <string.h>

#include "fuzz.h"
#include "mali/kbase_props.h"
#include "mali/mali_sum.h"

static uint64_t reference(const struct og_mali_gpu *gpu, const uint32_t *dump, uint32_t type,
                          uint32_t word)
{
	uint64_t sum = 0;
	if (type == OG_MALI_JM || type == OG_MALI_TILER)
		return dump[type * OG_MALI_BLOCK_WORDS + word];
	if (type == OG_MALI_L2) {
		for (uint32_t s = 0; s < gpu->l2_slices; s++)
			sum += dump[(2 + s) * OG_MALI_BLOCK_WORDS + word];
		return sum;
	}
	for (uint32_t c = 0; c < 64; c++)
		if ((gpu->core_mask >> c) & 1)
			sum += dump[(2 + gpu->l2_slices + c) * OG_MALI_BLOCK_WORDS + word];
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
	FUZZ_CHECK(bytes % 4 == 0 && bytes <= (2 + OG_MALI_MAX_L2_SLICES + 64) * OG_MALI_BLOCK_BYTES);
	uint32_t *dump = malloc(bytes);
	FUZZ_CHECK(dump != NULL);
	for (size_t i = 0; i < bytes; i++)
		((uint8_t *)dump)[i] = fill_len ? fill[i % fill_len] : (uint8_t)i;
	struct og_mali_totals t;
	/* One byte short is refused; the whole dump is summed exactly. */
	FUZZ_CHECK(!og_mali_sum_dump(&layout, dump, bytes - 1, &t));
	FUZZ_CHECK(og_mali_sum_dump(&layout, dump, bytes, &t));
	for (uint32_t type = 0; type < OG_MALI_BLOCK_TYPES; type++)
		for (uint32_t w = 0; w < OG_MALI_BLOCK_WORDS; w++)
			FUZZ_CHECK(og_mali_total(&t, type * OG_MALI_BLOCK_WORDS + w) ==
			           reference(&gpu, dump, type, w));
	free(dump);
	return 0;
}
