/* SPDX-License-Identifier: MIT */
/* spe_report.c — what a run's SPE samples show (spe_report.h). */
#include "spe_report.h"

#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* The causes whose PCs are listed, most telling first. */
static const struct cause {
	size_t key;
	const char *title;
	const char *unit;
} causes[] = {
	{ offsetof(struct og_spe_pc, latency), "load latency", "cycles" },
	{ offsetof(struct og_spe_pc, dram), "loads from DRAM or another chip", "loads" },
	{ offsetof(struct og_spe_pc, llc_miss), "last-level cache misses", "accesses" },
	{ offsetof(struct og_spe_pc, mispredicts), "branch mispredicts", "branches" },
	{ offsetof(struct og_spe_pc, tlb_walks), "TLB walks", "accesses" },
};

static uint64_t count_of(const struct og_spe_pc *pc, size_t key)
{
	return *(const uint64_t *)(const void *)((const char *)pc + key);
}

static void hot_pcs(FILE *out, const struct spe_run *run, const struct og_spe_stats *s,
                    struct sym_maps *maps, struct og_spe_pc *top)
{
	for (size_t c = 0; c < sizeof causes / sizeof causes[0]; c++) {
		uint64_t total = 0;
		for (size_t i = 0; s->pcs && i < OG_SPE_MAX_PCS; i++)
			if (s->pcs[i].samples)
				total += count_of(&s->pcs[i], causes[c].key);
		size_t n = og_spe_top_pcs(s, causes[c].key, top, run->top);
		if (n == 0)
			continue;
		fprintf(out, "\nHottest PCs by %s (%s sampled):\n", causes[c].title, causes[c].unit);
		for (size_t i = 0; i < n; i++) {
			char where[512];
			uint64_t v = count_of(&top[i], causes[c].key);
			fprintf(out, "  %6.2f %%  %10" PRIu64 "  0x%016" PRIx64 "  %s\n",
			        pct(v, total), v, top[i].pc,
			        sym_maps_name(maps, top[i].pc, where, sizeof where));
		}
	}
	if (s->untracked)
		fprintf(out, "\n%" PRIu64 " samples were at PCs past the first %u distinct ones and "
		        "are in the totals only\n", s->untracked, (unsigned)s->npcs);
}

void spe_report(FILE *out, const struct spe_run *run, const struct og_spe_stats *s,
                struct sym_maps *maps)
{
	fprintf(out, "\n SPE samples of '%s' (one operation in every %" PRIu64 "):\n\n",
	        run->command, run->interval);
	if (run->user_only)
		fprintf(out, "  (user space only: kernel.perf_event_paranoid is %d)\n\n", run->paranoid);
	fprintf(out, "  %12" PRIu64 "  samples\n", s->records);
	fprintf(out, "  %12" PRIu64 "  loads         %6.2f %%\n", s->loads, pct(s->loads, s->records));
	fprintf(out, "  %12" PRIu64 "  stores        %6.2f %%\n", s->stores,
	        pct(s->stores, s->records));
	fprintf(out, "  %12" PRIu64 "  branches      %6.2f %%\n", s->branches,
	        pct(s->branches, s->records));
	fprintf(out, "  %12" PRIu64 "  other         %6.2f %%\n", s->other, pct(s->other, s->records));
	if (s->records == 0)
		fprintf(out, "\n  No samples: the command ran fewer operations than the interval, or "
		        "in threads or children of its own, which are not sampled.\n");
	if (s->lat_count)
		fprintf(out, "\n  Load latency, cycles: mean %.1f, median %" PRIu64 ", 90th %" PRIu64
		        ", 99th %" PRIu64 " (%" PRIu64 " loads)\n",
		        (double)s->lat_sum / (double)s->lat_count, og_spe_latency_percentile(s, 50),
		        og_spe_latency_percentile(s, 90), og_spe_latency_percentile(s, 99),
		        s->lat_count);
	if (s->loads) {
		uint64_t known = s->loads - s->source[OG_SPE_UNKNOWN];
		fprintf(out, "  Loads served by: L1 %.2f %%, L2 %.2f %%, LLC %.2f %%, DRAM %.2f %%, "
		        "remote %.2f %% (of %" PRIu64 " loads with a source)\n",
		        pct(s->source[OG_SPE_L1], known), pct(s->source[OG_SPE_L2], known),
		        pct(s->source[OG_SPE_LLC], known), pct(s->source[OG_SPE_DRAM], known),
		        pct(s->source[OG_SPE_REMOTE], known), known);
	}
	if (s->branches)
		fprintf(out, "  Branches mispredicted: %.2f %% (%" PRIu64 " of %" PRIu64 ")\n",
		        pct(s->mispredicts, s->branches), s->mispredicts, s->branches);
	if (s->mem_ops)
		fprintf(out, "  Memory operations with a TLB walk: %.2f %% (%" PRIu64 " of %" PRIu64
		        ")\n", pct(s->tlb_walks, s->mem_ops), s->tlb_walks, s->mem_ops);
	if (s->lost || s->truncated || s->collisions || s->dropped || s->bad_bytes)
		fprintf(out, "  Lost: %" PRIu64 " kernel records (PERF_RECORD_LOST), %" PRIu64
		        " buffers that filled (truncated), %" PRIu64 " collisions, %" PRIu64
		        " damaged or cut-off records, %" PRIu64 " undecodable bytes; --pages or -c "
		        "larger lose fewer\n",
		        s->lost, s->truncated, s->collisions, s->dropped, s->bad_bytes);
	fprintf(out, "\n  %.6f seconds time elapsed\n", run->seconds);
	if (run->top && s->pcs) {
		struct og_spe_pc *top = calloc(run->top, sizeof *top);
		if (top)
			hot_pcs(out, run, s, maps, top);
		free(top);
	}
}
