/* SPDX-License-Identifier: MIT */
/* spe_stats.c — SPE records as counts (spe_stats.h). */
#include "spe_stats.h"

#include <string.h>

/* At most 3/4 of the table holds PCs, so a probe always ends soon. */
#define PC_LIMIT (OG_SPE_MAX_PCS / 4 * 3)

void og_spe_stats_reset(struct og_spe_stats *s)
{
	enum og_spe_sources sources = s->sources;
	struct og_spe_pc *pcs = s->pcs;
	memset(s, 0, sizeof *s);
	s->sources = sources;
	og_spe_stats_track_pcs(s, pcs);
}

void og_spe_stats_track_pcs(struct og_spe_stats *s, struct og_spe_pc *table)
{
	s->pcs = table;
	s->npcs = 0;
	if (table)
		memset(table, 0, OG_SPE_MAX_PCS * sizeof *table);
}

/* The common encoding (Arm's TRMs of Neoverse N1, N2, V1, V2): 0 L1D, 8 L2,
 * 9 a peer core's cache, 0xa the local cluster, 0xb the system cache, 0xc a
 * peer cluster, 0xd a remote chip, 0xe DRAM.  A peer core shares the L2's
 * domain; cluster and system caches are the last level before memory. */
static enum og_spe_level common_level(uint64_t source)
{
	switch (source) {
	case 0x0: return OG_SPE_L1;
	case 0x8:
	case 0x9: return OG_SPE_L2;
	case 0xa:
	case 0xb:
	case 0xc: return OG_SPE_LLC;
	case 0xd: return OG_SPE_REMOTE;
	case 0xe: return OG_SPE_DRAM;
	default: return OG_SPE_UNKNOWN;
	}
}

/* Without a data source the architected event bits still say how far the
 * access went: missed L1 but not to the LLC means the L2 served it. */
static enum og_spe_level events_level(const struct og_spe_record *r)
{
	if (!(r->present & OG_SPE_HAS_EVENTS))
		return OG_SPE_UNKNOWN;
	uint64_t e = r->events;
	if (e & OG_SPE_EV_REMOTE)
		return OG_SPE_REMOTE;
	if (e & OG_SPE_EV_LLC_MISS)
		return OG_SPE_DRAM;
	if (e & OG_SPE_EV_LLC_ACCESS)
		return OG_SPE_LLC;
	if (e & OG_SPE_EV_L1D_REFILL)
		return OG_SPE_L2;
	return e & OG_SPE_EV_L1D_ACCESS ? OG_SPE_L1 : OG_SPE_UNKNOWN;
}

enum og_spe_level og_spe_level_of(enum og_spe_sources sources, const struct og_spe_record *r)
{
	if (sources == OG_SPE_SOURCES_COMMON && (r->present & OG_SPE_HAS_DATA_SOURCE)) {
		enum og_spe_level l = common_level(r->data_source);
		if (l != OG_SPE_UNKNOWN)
			return l;
	}
	return events_level(r);
}

static size_t bucket(uint32_t cycles)
{
	if (cycles < OG_SPE_HIST_EXACT)
		return cycles;
	if (cycles > 65535)
		cycles = 65535;
	return OG_SPE_HIST_EXACT + (cycles - OG_SPE_HIST_EXACT) / OG_SPE_HIST_WIDE;
}

static uint64_t bucket_value(size_t b)
{
	return b < OG_SPE_HIST_EXACT ? b
	                             : OG_SPE_HIST_EXACT + (b - OG_SPE_HIST_EXACT) * OG_SPE_HIST_WIDE;
}

static struct og_spe_pc *pc_entry(struct og_spe_stats *s, uint64_t pc)
{
	if (!s->pcs)
		return NULL;
	size_t mask = OG_SPE_MAX_PCS - 1;
	size_t i = (size_t)((pc >> 2) * 0x9e3779b97f4a7c15ull >> 40) & mask;
	while (s->pcs[i].samples && s->pcs[i].pc != pc)
		i = (i + 1) & mask;
	if (s->pcs[i].samples)
		return &s->pcs[i];
	if (s->npcs == PC_LIMIT)
		return NULL;
	s->npcs++;
	s->pcs[i].pc = pc;
	return &s->pcs[i];
}

void og_spe_stats_add(void *stats, const struct og_spe_record *r)
{
	struct og_spe_stats *s = stats;
	struct og_spe_pc none, *pc = NULL;
	s->records++;
	if (r->present & OG_SPE_HAS_PC)
		pc = pc_entry(s, r->pc);
	if (!pc) {
		s->untracked += s->pcs != NULL;
		memset(&none, 0, sizeof none);
		pc = &none; /* counts nobody reads */
	}
	pc->samples++;
	bool load = og_spe_is_load(r), store = og_spe_is_store(r);
	if (load || store) {
		s->mem_ops++;
		if (r->events & OG_SPE_EV_TLB_WALK) {
			s->tlb_walks++;
			pc->tlb_walks++;
		}
		pc->l1d_refill += (r->events & OG_SPE_EV_L1D_REFILL) != 0;
		pc->llc_miss += (r->events & OG_SPE_EV_LLC_MISS) != 0;
	}
	if (load) {
		s->loads++;
		pc->loads++;
		enum og_spe_level l = og_spe_level_of(s->sources, r);
		s->source[l]++;
		pc->dram += l == OG_SPE_DRAM || l == OG_SPE_REMOTE;
		if (r->present & OG_SPE_HAS_TOTAL_LAT) {
			s->lat_count++;
			s->lat_sum += r->total_lat;
			s->hist[bucket(r->total_lat)]++;
			pc->latency += r->total_lat;
		}
	} else if (store) {
		s->stores++;
	} else if (og_spe_is_branch(r)) {
		s->branches++;
		if (r->events & OG_SPE_EV_MISPRED) {
			s->mispredicts++;
			pc->mispredicts++;
		}
	} else {
		s->other++;
	}
}

void og_spe_stats_walked(struct og_spe_stats *s, const struct og_spe_walk *w)
{
	s->bad_bytes += w->bad_bytes;
	/* A record cut off at the end of the data is lost like a damaged one;
	 * `truncated` counts what the kernel flags. */
	s->dropped += w->dropped + w->truncated;
}

uint64_t og_spe_latency_percentile(const struct og_spe_stats *s, unsigned p)
{
	if (!s->lat_count || p == 0)
		return 0;
	if (p > 100)
		p = 100;
	/* Nearest rank: the smallest latency with at least p% of the loads at
	 * or below it. */
	uint64_t rank = (s->lat_count * p + 99) / 100, seen = 0;
	for (size_t b = 0; b < OG_SPE_HIST_BUCKETS; b++) {
		seen += s->hist[b];
		if (seen >= rank)
			return bucket_value(b);
	}
	return bucket_value(OG_SPE_HIST_BUCKETS - 1);
}

static uint64_t count_at(const struct og_spe_pc *pc, size_t key)
{
	uint64_t v;
	memcpy(&v, (const char *)pc + key, sizeof v);
	return v;
}

size_t og_spe_top_pcs(const struct og_spe_stats *s, size_t key, struct og_spe_pc *out, size_t n)
{
	size_t have = 0;
	if (!s->pcs || key > sizeof(struct og_spe_pc) - sizeof(uint64_t))
		return 0;
	for (size_t i = 0; i < OG_SPE_MAX_PCS; i++) {
		const struct og_spe_pc *e = &s->pcs[i];
		uint64_t v = count_at(e, key);
		if (!e->samples || !v || (have == n && v <= count_at(&out[n - 1], key)))
			continue;
		/* Insertion into the sorted top n; ties keep the lower PC first. */
		size_t at = have < n ? have++ : n - 1;
		while (at > 0 && (count_at(&out[at - 1], key) < v ||
		                  (count_at(&out[at - 1], key) == v && out[at - 1].pc > e->pc))) {
			out[at] = out[at - 1];
			at--;
		}
		out[at] = *e;
	}
	return have;
}
