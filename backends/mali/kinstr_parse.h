/* SPDX-License-Identifier: MIT */
/*
 * kinstr_parse.h — the kinstr_prfcnt lists, with nothing but memory: the
 * enumeration the kernel writes, the requests opengpa sends, and the
 * metadata items that locate one sample in the mapped ring, then the sum of
 * that sample's blocks.  Every count, size, offset and index the kernel
 * hands back is checked before it is used; a check that fails says why in
 * one line.  No system calls here (kbase_kinstr.c makes them), so the
 * benchmark and the tests drive these functions directly.
 */
#ifndef OPENGPA_MALI_KINSTR_PARSE_H
#define OPENGPA_MALI_KINSTR_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mali_common.h"
#include "mali_uapi.h"

#define OG_KINSTR_MAX_INSTANCES 64u /* per block type: 64 cores at most */
#define OG_KINSTR_MAX_ENUM_ITEMS 256u

/* What ENUM_INFO says the GPU can count. */
struct og_kinstr_enum {
	uint32_t num_clock_domains;
	uint8_t set;                            /* the driver's counter set */
	uint32_t types;                         /* bit t: block type t listed */
	uint16_t instances[OG_MALI_BLOCK_TYPES];
	uint16_t values[OG_MALI_BLOCK_TYPES];   /* per block, header included */
	uint32_t unknown_types;                 /* block types listed that opengpa skips */
};

/* Parses n items of item_size bytes.  False with why filled when the list
 * breaks a rule: item size, unknown item type or version, no or several
 * MODE/ENABLE requests or SAMPLE_INFO, a block type listed twice, instance
 * or value counts out of range, different sets, items after the sentinel. */
bool og_kinstr_parse_enum(const void *items, size_t n, size_t item_size,
                          struct og_kinstr_enum *out, char *why, size_t why_len);

/* The SETUP list: MODE, one ENABLE per listed block type (every value of the
 * block), the sentinel.  Returns the number of items written (at most 8). */
#define OG_KINSTR_MAX_REQUESTS (2u + OG_MALI_BLOCK_TYPES)
size_t og_kinstr_build_requests(const struct og_kinstr_enum *e, uint8_t mode, uint64_t period_ns,
                                struct og_kinstr_request_item *out);

/* Sums k blocks of nv 64-bit values at map + at[i] into out[0..nv). */
typedef void og_kinstr_sum_fn(const uint8_t *map, const uint32_t *at, uint32_t k, uint32_t nv,
                              uint64_t *out);

/* The copies of the sum built for this machine: the widest vector
 * instructions first (x86-64: AVX-512F, AVX2, the baseline; little-endian NEON:
 * saturating NEON adds, the baseline; elsewhere the baseline alone).
 * og_kinstr_sum_copies fills out with those this CPU runs and returns how
 * many; a layout uses the first.  Tests check every one. */
struct og_kinstr_sum_copy {
	const char *name;
	og_kinstr_sum_fn *sum;
	bool runs_here;
};
size_t og_kinstr_sum_copies(struct og_kinstr_sum_copy *out, size_t max);
/* The widest of them this CPU runs (kinstr_sum.c). */
og_kinstr_sum_fn *og_kinstr_pick_sum(void);

/* Fixed for one reader fd: what the sample lists must look like. */
struct og_kinstr_layout {
	struct og_kinstr_enum en;
	uint64_t core_mask;   /* to rank cores numbered by bit position */
	bool cores_by_bit;    /* early drivers: SC block_idx = the core's bit */
	bool states;          /* the driver fills BLOCK.block_state (JM >= 11.41, CSF >= 1.23):
	                       * each is checked and counted; else it is not read */
	uint32_t item_size;   /* metadata stride SETUP returned, >= 48 */
	size_t map_size;      /* bytes mapped */
	uint32_t nblocks;     /* BLOCK items one sample has */
	og_kinstr_sum_fn *sum; /* the copy for this CPU */
};

/* False (why filled) when the enumeration cannot describe the GPU the
 * properties describe: shader-core instances must be the present cores. */
bool og_kinstr_layout_init(struct og_kinstr_layout *l, const struct og_kinstr_enum *e,
                           uint64_t core_mask, uint32_t item_size, size_t map_size,
                           char *why, size_t why_len);

/* One sample located and checked. */
struct og_kinstr_sample {
	uint64_t ts_start, ts_end, seq, user_data;
	uint32_t flags;
	uint32_t num_domains;
	uint64_t cycles[OG_KINSTR_MAX_DOMAINS];
	uint16_t count[OG_MALI_BLOCK_TYPES];
	uint32_t at[OG_MALI_BLOCK_TYPES][OG_KINSTR_MAX_INSTANCES]; /* values offsets */
	/* Block states (layout.states only; else all 0): per block type, the OR
	 * of its blocks' OG_KINSTR_STATE_* bits and how many blocks were powered
	 * off, unavailable, in protected mode. */
	uint32_t state_any[OG_MALI_BLOCK_TYPES];
	uint16_t blocks_off[OG_MALI_BLOCK_TYPES];
	uint16_t blocks_unavailable[OG_MALI_BLOCK_TYPES];
	uint16_t blocks_protected[OG_MALI_BLOCK_TYPES];
};

/* Whether a driver of this kind and version fills the block states. */
bool og_kinstr_states_reported(bool csf, uint16_t major, uint16_t minor);

enum og_kinstr_parse_result {
	OG_KINSTR_OK,
	OG_KINSTR_BAD,          /* the sample breaks a rule (why filled) */
	OG_KINSTR_BAD_CORE_IDX, /* only the shader cores' numbering is off */
};

/* Parses the metadata at `offset` of the mapping `map` (map_size bytes, as
 * the layout says).  Never reads outside [map, map + map_size). */
enum og_kinstr_parse_result og_kinstr_parse_sample(const struct og_kinstr_layout *l,
                                                   const uint8_t *map, uint64_t offset,
                                                   struct og_kinstr_sample *out, char *why,
                                                   size_t why_len);

/* Sums each block type's instances into totals (values past the block's
 * length are left alone).  Sums that would wrap saturate at UINT64_MAX. */
void og_kinstr_sum(const struct og_kinstr_layout *l, const uint8_t *map,
                   const struct og_kinstr_sample *s, struct og_mali_totals *totals);

#endif
