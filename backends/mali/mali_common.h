/* SPDX-License-Identifier: MIT */
/*
 * mali_common.h — what the kbase (mali) and panfrost backends share: the GPU
 * description both read from their drivers, the raw-counter numbering, the
 * `source:` notation of the mali-*.counters files and the device constants
 * (summing a v5 dump: mali_sum.h; the GPU table: mali_gpus.h).
 *
 * Every reader — kbase's vinstr and kinstr_prfcnt, panfrost's dump — ends a
 * sample with the same thing: per block type, each value summed over the
 * instances of that block (struct og_mali_totals), plus the sample's cycle
 * counts and duration where the interface has them.
 */
#ifndef OPENGPA_MALI_COMMON_H
#define OPENGPA_MALI_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "mali_gpus.h"

/* Block types, numbered as kinstr_prfcnt numbers them. */
enum og_mali_block {
	OG_MALI_FE,    /* front end: the job manager (JM) or the CSHW block (CSF); one */
	OG_MALI_TILER, /* one block */
	OG_MALI_L2,    /* memory system: one block per L2 slice, summed */
	OG_MALI_SC,    /* shader core: one block per present core, summed */
	OG_MALI_FW,    /* CSF firmware (kinstr_prfcnt only): one block */
	OG_MALI_CSG,   /* CSF command stream groups (kinstr_prfcnt only): summed */
	OG_MALI_BLOCK_TYPES
};

/* The v5 dump of vinstr and panfrost: 64 32-bit words per block. */
#define OG_MALI_V5_WORDS 64u
#define OG_MALI_V5_BLOCK_BYTES (OG_MALI_V5_WORDS * 4u)
/* At most 128 values per block (arch 11 and later); 0..3 are the header. */
#define OG_MALI_MAX_VALUES 128u
#define OG_MALI_HEADER_WORDS 4u
#define OG_MALI_MAX_L2_SLICES 16u
#define OG_MALI_MAX_CORES 64u

/* Raw ids: block type * 128 + value index for hardware counters, then what
 * a reader's sample metadata carries. */
#define OG_MALI_HW_RAW (OG_MALI_BLOCK_TYPES * OG_MALI_MAX_VALUES)
#define OG_MALI_RAW_CYCLES_TOP (OG_MALI_HW_RAW + 0)
#define OG_MALI_RAW_CYCLES_SHADER (OG_MALI_HW_RAW + 1)
#define OG_MALI_RAW_TIME_NS (OG_MALI_HW_RAW + 2)
#define OG_MALI_RAW_COUNT (OG_MALI_HW_RAW + 3)

/* Per-instance raw ids (docs/backends/mali.md, "Per-core and per-slice
 * values"): one value of one block instance, not summed.  Source notation
 * BLOCK#N:INDEX ("SC#5:4", "L2#1:16", "CSG#0:7").  N is the instance's
 * number as Arm's tools number it: a shader core's bit in the core mask
 * (holes of a sparse mask keep their numbers), an L2 slice's, CSG's or
 * firmware block's index.  The front end and tiler have one instance and
 * no per-instance ids. */
#define OG_MALI_INST_MAX 64u
#define OG_MALI_RAW_INST_BASE 1024u
#define OG_MALI_RAW_INST_END                                                                 \
	(OG_MALI_RAW_INST_BASE + OG_MALI_BLOCK_TYPES * OG_MALI_INST_MAX * OG_MALI_MAX_VALUES)
_Static_assert(OG_MALI_RAW_COUNT <= OG_MALI_RAW_INST_BASE, "instance ids after the others");

static inline bool og_mali_raw_is_instance(uint32_t raw_id)
{
	return raw_id >= OG_MALI_RAW_INST_BASE && raw_id < OG_MALI_RAW_INST_END;
}

static inline uint32_t og_mali_raw_instance_id(uint32_t block, uint32_t instance, uint32_t index)
{
	return OG_MALI_RAW_INST_BASE + (block * OG_MALI_INST_MAX + instance) * OG_MALI_MAX_VALUES +
	       index;
}

/* The block, instance and index of an instance id. */
static inline void og_mali_raw_instance_of(uint32_t raw_id, uint32_t *block, uint32_t *instance,
                                           uint32_t *index)
{
	uint32_t r = raw_id - OG_MALI_RAW_INST_BASE;
	*index = r % OG_MALI_MAX_VALUES;
	*instance = r / OG_MALI_MAX_VALUES % OG_MALI_INST_MAX;
	*block = r / OG_MALI_MAX_VALUES / OG_MALI_INST_MAX;
}

/* The summed raw id an instance id is one share of. */
static inline uint32_t og_mali_raw_instance_total(uint32_t raw_id)
{
	uint32_t block, instance, index;
	og_mali_raw_instance_of(raw_id, &block, &instance, &index);
	return block * OG_MALI_MAX_VALUES + index;
}

/* Per-instance values a pass asked for: each reader fills value[i] for
 * raw[i] (an instance id) from the sample it has just summed, before it
 * hands the kernel's buffer back; n == 0 costs nothing. */
struct og_mali_picks {
	size_t n;
	const uint32_t *raw;
	uint64_t *value;
};

static inline uint32_t og_mali_raw_block(uint32_t raw_id)
{
	return raw_id / OG_MALI_MAX_VALUES;
}

static inline uint32_t og_mali_raw_index(uint32_t raw_id)
{
	return raw_id % OG_MALI_MAX_VALUES;
}

/* One sample's hardware counts: v[block type * 128 + index], each value
 * summed over the instances of its block type.  On a cache line: the sums
 * store them 64 bytes at a time, and a store that straddles two lines took
 * twice as long (issue 29); a struct holding this one is then 64-byte
 * aligned too, so heap copies come from aligned_alloc, not calloc. */
struct og_mali_totals {
	_Alignas(64) uint64_t v[OG_MALI_HW_RAW];
};

/* raw_id must be below OG_MALI_HW_RAW. */
static inline uint64_t og_mali_total(const struct og_mali_totals *t, uint32_t raw_id)
{
	return t->v[raw_id];
}

/* What one sample yields besides the totals. */
struct og_mali_sample_info {
	uint64_t cycles_top, cycles_shader; /* 0 when the interface has none */
	uint64_t ts_start_ns, ts_end_ns;    /* the kernel's clock, or CLOCK_MONOTONIC */
	uint32_t flags;                     /* OG_MALI_SAMPLE_* */
	/* kinstr_prfcnt from JM 11.41 / CSF 1.23: blocks the kernel reported
	 * powered off (of them shader cores), and in protected mode. */
	uint16_t blocks_off, cores_off, blocks_protected;
};
#define OG_MALI_SAMPLE_OVERFLOW (1u << 0) /* periodic: a period was lost, this one is longer */
#define OG_MALI_SAMPLE_ERROR (1u << 1)    /* the kernel says the counts are unreliable */
#define OG_MALI_SAMPLE_BLOCKS_OFF (1u << 2) /* some blocks were powered off */
#define OG_MALI_SAMPLE_PROTECTED (1u << 3)  /* some blocks ran in protected mode */

/* A periodic sample more than a period and a half long stands for periods
 * the kernel had no room for and whose counts it kept for this one: flagged
 * OVERFLOW whether or not the interface says so (vinstr never does; a
 * kinstr_prfcnt that skips a period without flagging the next is read the
 * same way).  period 0 (no periodic pass) flags nothing; time that runs
 * backwards is no gap. */
static inline void og_mali_flag_gap(struct og_mali_sample_info *info, uint64_t period)
{
	if (period && info->ts_end_ns > info->ts_start_ns &&
	    info->ts_end_ns - info->ts_start_ns > period + period / 2)
		info->flags |= OG_MALI_SAMPLE_OVERFLOW;
}

struct og_mali_gpu {
	uint32_t product_id; /* GPU_ID >> 16 style, e.g. 0x6000 for Mali-G71 */
	uint32_t revision;   /* GPU_ID & 0xffff (rXpY + status) */
	uint64_t core_mask;  /* shader cores present */
	uint32_t l2_slices;
	uint32_t bus_width_bits;
	const struct og_mali_product *product; /* set by og_mali_check_gpu */
	uint64_t max_freq_khz; /* GPU_FREQ_KHZ_MAX (kbase); 0: the driver does not say */
};

/* printf to host->log as one line. */
/* Whether a message of `level` would reach anyone (host->log_wants). */
bool og_mali_log_wanted(const struct og_backend_host *host, enum og_log_level level);
void og_mali_log(const struct og_backend_host *host, enum og_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Checks the GPU is in the table (and, when frontend_required is not -1,
 * has that front end) with a plausible configuration, and sets
 * gpu->product; logs (with `who` as the prefix) and returns
 * HARDWARE_NOT_SUPPORTED otherwise. */
GPA_Status og_mali_check_gpu(const struct og_backend_host *host, const char *who,
                             struct og_mali_gpu *gpu, int frontend_required);

/* "Mali-G610 MC4", the product's counter set, its id.  gpu->product set. */
void og_mali_fill_info(const struct og_mali_gpu *gpu, struct og_device_info *info);

/* Blocks in one v5 dump and its byte size: front end, tiler, L2 slices, then
 * one block per bit position up to the highest core (holes included). */
uint32_t og_mali_dump_blocks(const struct og_mali_gpu *gpu);
size_t og_mali_dump_bytes(const struct og_mali_gpu *gpu);

/* Parses a `source:` ("FE:6" or its synonym "JM:6", "TILER:4", "L2:32",
 * "SC:4", "FW:4", "CSG:4", "CYCLES:top", "CYCLES:shader", "TIME:ns", and
 * per instance "SC#5:4", "L2#1:32", "CSG#0:4", "FW#0:4").  OK
 * with *raw_id, or INDEX_OUT_OF_RANGE / FAILED with *why for a malformed
 * one.  Whether this GPU and reader can count it is the backend's call. */
GPA_Status og_mali_parse_source(const char *source, uint32_t *raw_id, const char **why);

/* Device constants: the core and L2 slice counts and the external bus
 * width, under the names both the reviewed G71 set and Arm's database use,
 * and DeviceMaxClockHz (the cycle budget's clock) where the driver gave
 * GPU_FREQ_KHZ_MAX. */
GPA_Status og_mali_constant(const struct og_mali_gpu *gpu, const char *name, double *value);

/* The block type's name in the source notation ("FE", "SC"...). */
const char *og_mali_block_name(uint32_t block);

/* Whether instance `instance` of block type `block` exists: a shader core
 * is a bit of gpu->core_mask, other types are numbered 0..instances[block)
 * (what the reader lists).  NULL when it does, else why not (static). */
const char *og_mali_instance_why_not(const struct og_mali_gpu *gpu, const uint16_t *instances,
                                     uint32_t block, uint32_t instance);

/* Instance ids of the blocks a per-instance counter can read: the counter
 * names, prefixes of the public names ("ShaderCore", "L2Slice", "CSG",
 * "Firmware"), NULL for the front end and the tiler. */
const char *og_mali_instance_label(uint32_t block);

/* backend.h's raw_instances for a summed hardware counter the caller has
 * found countable: the instances of its block there are ("ShaderCore5",
 * "SC#5:4", its id), shader cores and L2 slices always, other block types
 * when they have several.  instances: as og_mali_instance_why_not. */
size_t og_mali_raw_instances(const struct og_mali_gpu *gpu, const uint16_t *instances,
                             uint32_t raw_id, struct og_raw_instance *out, size_t max);
/* backend.h's instances_key: the core mask, the instance counts and
 * `reader` (what else the caller's answers depend on). */
uint64_t og_mali_instances_key(const struct og_mali_gpu *gpu, const uint16_t *instances,
                               uint64_t reader);
/* backend.h's constant_counts_instances: the core and slice counts. */
bool og_mali_counts_instances(const char *name);

static inline uint32_t og_mali_fls64(uint64_t v)
{
	return v ? 64u - (uint32_t)__builtin_clzll(v) : 0u;
}

#endif
