/* SPDX-License-Identifier: MIT */
/*
 * mali_common.h — what the kbase (mali) and panfrost backends share: the GPU
 * description both read from their drivers, the v5 dump layout and the
 * `source:` notation of mali-g71.counters (summing a dump: mali_sum.h).
 *
 * The two backends differ only in how a dump reaches user space; from the
 * buffer on, the bytes are the same (reference §4.1), so is this code.
 */
#ifndef OPENGPA_MALI_COMMON_H
#define OPENGPA_MALI_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend.h"

enum og_mali_block {
	OG_MALI_JM,    /* job manager (front end): one block */
	OG_MALI_TILER, /* one block */
	OG_MALI_L2,    /* memory system: one block per L2 slice, summed */
	OG_MALI_SC,    /* shader core: one block per bit of the core mask, present cores summed */
	OG_MALI_BLOCK_TYPES
};

#define OG_MALI_BLOCK_WORDS 64u
#define OG_MALI_BLOCK_BYTES (OG_MALI_BLOCK_WORDS * 4u)
#define OG_MALI_HEADER_WORDS 4u
#define OG_MALI_MAX_L2_SLICES 16u

/* Raw ids: block type * 64 + counter index for hardware counters, then the
 * cycle counts the kbase reader's metadata carries. */
#define OG_MALI_RAW_CYCLES_TOP (OG_MALI_BLOCK_TYPES * OG_MALI_BLOCK_WORDS)
#define OG_MALI_RAW_CYCLES_SHADER (OG_MALI_RAW_CYCLES_TOP + 1)
#define OG_MALI_RAW_COUNT (OG_MALI_RAW_CYCLES_SHADER + 1)

struct og_mali_gpu {
	uint32_t product_id; /* GPU_ID >> 16, e.g. 0x6000 for Mali-G71 */
	uint32_t revision;   /* GPU_ID & 0xffff (rXpY + status) */
	uint64_t core_mask;  /* shader cores present */
	uint32_t l2_slices;
	uint32_t bus_width_bits;
};

/* printf to host->log as one line. */
void og_mali_log(const struct og_backend_host *host, enum og_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* "Mali-G71" and friends, or NULL for an id this table does not know. */
const char *og_mali_product_name(uint32_t product_id);

/* Checks the GPU is a Mali-G71 with a plausible configuration; logs (with
 * `who` as the prefix) and returns HARDWARE_NOT_SUPPORTED otherwise. */
GPA_Status og_mali_check_gpu(const struct og_backend_host *host, const char *who,
                             const struct og_mali_gpu *gpu);

void og_mali_fill_info(const struct og_mali_gpu *gpu, struct og_device_info *info);

/* Blocks in one dump and its byte size: JM, tiler, L2 slices, then one
 * block per bit position up to the highest core (holes included). */
uint32_t og_mali_dump_blocks(const struct og_mali_gpu *gpu);
size_t og_mali_dump_bytes(const struct og_mali_gpu *gpu);

/* Parses a `source:` ("JM:6", "TILER:4", "L2:32", "SC:4", "CYCLES:top",
 * "CYCLES:shader").  OK with *raw_id, or INDEX_OUT_OF_RANGE / FAILED with
 * *why for a malformed one. */
GPA_Status og_mali_parse_source(const char *source, uint32_t *raw_id, const char **why);

/* The guide's configuration constants (section 11). */
GPA_Status og_mali_constant(const struct og_mali_gpu *gpu, const char *name, double *value);

static inline uint32_t og_mali_fls64(uint64_t v)
{
	return v ? 64u - (uint32_t)__builtin_clzll(v) : 0u;
}

#endif
