/* SPDX-License-Identifier: MIT */
/*
 * fuzz_spe_decode.c — the SPE decoder and counts on any bytes.
 *
 * The first byte chooses how data sources read and whether PCs are kept;
 * the rest is an aux buffer as the hardware (or a broken one) wrote it.
 * Beyond not crashing and not reading outside the input (ASan), the counts
 * must agree with each other whatever the bytes.
 */
#include <stdint.h>
#include <stdlib.h>
#include <stddef.h>

#include "perf/spe_decode.h"
#include "perf/spe_stats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct og_spe_stats stats;
static struct og_spe_pc pcs[OG_SPE_MAX_PCS];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	og_spe_stats_track_pcs(&stats, data[0] & 2 ? pcs : NULL);
	og_spe_stats_reset(&stats);
	stats.sources = data[0] & 1 ? OG_SPE_SOURCES_COMMON : OG_SPE_SOURCES_EVENTS;
	data++;
	size--;

	/* Every offset: a packet never claims more bytes than are left. */
	for (size_t at = 0; at < size; at++) {
		struct og_spe_packet p;
		int n = og_spe_packet_at(data + at, size - at, at, &p);
		if (n > 0 && (size_t)n > size - at)
			abort();
		if (n < OG_SPE_BAD)
			abort();
	}

	struct og_spe_walk w = { 0 };
	og_spe_walk(data, size, og_spe_stats_add, &stats, &w);
	og_spe_stats_walked(&stats, &w);
	if (w.records != stats.records || w.truncated > 1)
		abort();
	if (stats.loads + stats.stores + stats.branches + stats.other != stats.records)
		abort();
	uint64_t sourced = 0;
	for (int l = 0; l <= OG_SPE_LEVELS; l++)
		sourced += stats.source[l];
	if (sourced != stats.loads || stats.lat_count > stats.loads ||
	    stats.mispredicts > stats.branches || stats.tlb_walks > stats.mem_ops)
		abort();
	uint64_t p50 = og_spe_latency_percentile(&stats, 50);
	uint64_t p90 = og_spe_latency_percentile(&stats, 90);
	uint64_t p99 = og_spe_latency_percentile(&stats, 99);
	if (p50 > p90 || p90 > p99 || p99 > 65535)
		abort();
	struct og_spe_pc top[8];
	size_t n = og_spe_top_pcs(&stats, offsetof(struct og_spe_pc, samples), top, 8);
	for (size_t i = 1; i < n; i++)
		if (top[i].samples > top[i - 1].samples)
			abort();
	if (stats.pcs && stats.npcs > OG_SPE_MAX_PCS)
		abort();
	return 0;
}
