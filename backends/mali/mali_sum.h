/* SPDX-License-Identifier: MIT */
/*
 * mali_sum.h — turning one v5 dump (vinstr, panfrost: 64 32-bit words per
 * block) into per-counter totals, the work both readers of it do for every
 * sample.
 *
 * Where the summed blocks sit in a dump depends only on the GPU, so it is
 * worked out once when a backend opens (og_mali_layout_init) and each dump
 * is then summed block by block without looking at the core mask again.
 */
#ifndef OPENGPA_MALI_SUM_H
#define OPENGPA_MALI_SUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mali_common.h"

struct og_mali_layout;
typedef void og_mali_sum_fn(const struct og_mali_layout *layout, const uint32_t *dump,
                            struct og_mali_totals *totals);

/* Word offsets, inside a dump, of every block that is summed. */
struct og_mali_layout {
	size_t dump_bytes;                         /* what one dump must hold */
	uint32_t l2_count, core_count;             /* blocks summed for L2 and SC */
	uint32_t l2_at[OG_MALI_MAX_L2_SLICES];
	uint32_t core_at[OG_MALI_MAX_CORES];       /* present cores only: holes skipped */
	og_mali_sum_fn *sum;                       /* the copy for this CPU */
};

/* False for a GPU og_mali_check_gpu would refuse (no cores, 0 or more than
 * 16 L2 slices); out is then untouched. */
bool og_mali_layout_init(const struct og_mali_gpu *gpu, struct og_mali_layout *out);

/* Sums a dump of `bytes` bytes into the front-end, tiler, L2 and shader-core
 * rows of totals (words 0..63 of each; the rest of a row is left alone).
 * False, with totals untouched, when the dump is shorter than the layout
 * needs: nothing past `bytes` is ever read. */
bool og_mali_sum_dump(const struct og_mali_layout *layout, const uint32_t *dump, size_t bytes,
                      struct og_mali_totals *totals);

/* The copies of the sum built for this machine, the widest vectors first
 * (x86-64 with GCC: AVX-512F, AVX2, the baseline; elsewhere the baseline
 * alone): og_mali_sum_copies fills out with those this CPU runs and returns
 * how many; a layout uses the first.  Tests check every one. */
struct og_mali_sum_copy {
	const char *name;
	og_mali_sum_fn *sum;
	bool runs_here;
};
size_t og_mali_sum_copies(struct og_mali_sum_copy *out, size_t max);

#endif
