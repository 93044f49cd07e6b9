/* SPDX-License-Identifier: MIT */
/*
 * spe_stats.h — a run's SPE records as counts: the operation mix, the load
 * latency distribution, where loads were served from, mispredicts and TLB
 * walks, and (optionally) the hottest PCs per cause.
 *
 * Fixed size whatever the number of records: latencies go into a histogram
 * (exact up to 4095 cycles, 64-cycle buckets above), PCs into a table of at
 * most OG_SPE_MAX_PCS entries (further PCs are only counted).
 */
#ifndef OPENGPA_BACKENDS_PERF_SPE_STATS_H
#define OPENGPA_BACKENDS_PERF_SPE_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "spe_decode.h"

/* Where a load's data came from. */
enum og_spe_level {
	OG_SPE_L1,
	OG_SPE_L2,
	OG_SPE_LLC,
	OG_SPE_DRAM,
	OG_SPE_REMOTE,
	OG_SPE_LEVELS,
	OG_SPE_UNKNOWN = OG_SPE_LEVELS,
};

/* How to read the data source packet: its meaning is each CPU's. */
enum og_spe_sources {
	OG_SPE_SOURCES_EVENTS, /* unknown encoding: read the level from the event bits */
	OG_SPE_SOURCES_COMMON, /* the encoding of Neoverse N1/N2/V1/V2 and recent Cortex */
};

#define OG_SPE_HIST_EXACT 4096
#define OG_SPE_HIST_WIDE 64 /* cycles per bucket from 4096 to 65535 */
#define OG_SPE_HIST_BUCKETS (OG_SPE_HIST_EXACT + (65536 - OG_SPE_HIST_EXACT) / OG_SPE_HIST_WIDE)
#define OG_SPE_MAX_PCS 16384

/* Per PC: what its samples showed. */
struct og_spe_pc {
	uint64_t pc;
	uint64_t samples, loads, latency, dram, llc_miss, l1d_refill, mispredicts, tlb_walks;
};

struct og_spe_stats {
	uint64_t records, loads, stores, branches, other;
	uint64_t mem_ops, tlb_walks;  /* loads and stores; of them, those with a walk */
	uint64_t mispredicts;         /* branches mispredicted */
	uint64_t source[OG_SPE_LEVELS + 1]; /* loads by level; [OG_SPE_UNKNOWN]: no answer */
	uint64_t lat_count, lat_sum;  /* loads with a total latency */
	uint32_t hist[OG_SPE_HIST_BUCKETS];
	/* What the buffers lost: records the kernel could not keep
	 * (PERF_RECORD_LOST, truncated or colliding aux data), and what the
	 * decoder threw away. */
	uint64_t lost, truncated, collisions, bad_bytes, dropped;
	enum og_spe_sources sources;
	/* Hot PCs: NULL unless og_spe_stats_track_pcs() gave a table. */
	struct og_spe_pc *pcs;
	size_t npcs;
	uint64_t untracked; /* samples of PCs the full table had no room for */
};

/* Clears the counts, keeping the source encoding and the PC table (emptied). */
void og_spe_stats_reset(struct og_spe_stats *s);
/* Gives the stats a PC table of OG_SPE_MAX_PCS entries (owned by the caller). */
void og_spe_stats_track_pcs(struct og_spe_stats *s, struct og_spe_pc *table);
/* Counts one record (the og_spe_walk callback). */
void og_spe_stats_add(void *stats, const struct og_spe_record *r);
/* Adds what a walk over a buffer found: bad bytes, and records dropped
 * (damaged, or cut off at the end of the buffer). */
void og_spe_stats_walked(struct og_spe_stats *s, const struct og_spe_walk *w);
/* A load's level from a record (exposed for the tests). */
enum og_spe_level og_spe_level_of(enum og_spe_sources sources, const struct og_spe_record *r);
/* The p-th percentile (0 < p <= 100, nearest rank) of the load latency in
 * cycles; 0 without loads.  Above 4095 it is a bucket's lower bound. */
uint64_t og_spe_latency_percentile(const struct og_spe_stats *s, unsigned p);
/* The hot PCs by `key` (an offset of one of og_spe_pc's counts): the top n
 * entries with a count above 0 into out, most first.  Returns how many. */
size_t og_spe_top_pcs(const struct og_spe_stats *s, size_t key, struct og_spe_pc *out, size_t n);

#endif
