/* SPDX-License-Identifier: MIT */
/*
 * mali_sum.h — turning one v5 hwcnt dump into per-counter totals, the work
 * both Mali backends do for every sample.
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

#define OG_MALI_MAX_CORES 64u
#define OG_MALI_HW_COUNTERS (OG_MALI_BLOCK_TYPES * OG_MALI_BLOCK_WORDS)

struct og_mali_layout;
struct og_mali_totals;
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

/* Totals of one dump: a counter summed over the instances of its block,
 * indexed by raw id (block type * 64 + word).  The value is split in two
 * 32-bit halves because the sums are made in 32-bit lanes. */
struct og_mali_totals {
	uint32_t lo[OG_MALI_HW_COUNTERS];
	uint32_t hi[OG_MALI_HW_COUNTERS];
};

/* False for a GPU og_mali_check_gpu would refuse (no cores, 0 or more than
 * 16 L2 slices); out is then untouched. */
bool og_mali_layout_init(const struct og_mali_gpu *gpu, struct og_mali_layout *out);

/* Sums a dump of `bytes` bytes.  False, with totals untouched, when the dump
 * is shorter than the layout needs: nothing past `bytes` is ever read. */
bool og_mali_sum_dump(const struct og_mali_layout *layout, const uint32_t *dump, size_t bytes,
                      struct og_mali_totals *totals);

/* raw_id must be below OG_MALI_HW_COUNTERS. */
static inline uint64_t og_mali_total(const struct og_mali_totals *t, uint32_t raw_id)
{
	return (uint64_t)t->hi[raw_id] << 32 | t->lo[raw_id];
}

#endif
