/* SPDX-License-Identifier: MIT */
/*
 * mali_instances.c — per-instance values (one shader core's, one L2
 * slice's, one CSG's) picked out of a sample beside the sums: from a v5
 * dump (vinstr) and from a kinstr_prfcnt sample whose metadata
 * kinstr_parse.c has already checked.  Only the values a pass asked for
 * (struct og_mali_picks) are read, so a pass without per-instance counters
 * costs one test of n.
 */
#include "mali_instances.h"

#include <stdlib.h>

#include <string.h>

/* Rank of core `bit` among the present cores (the dense block index). */
static uint32_t core_rank(uint64_t core_mask, uint32_t bit)
{
	return (uint32_t)__builtin_popcountll(core_mask & ((1ull << bit) - 1u));
}

void og_mali_pick_v5(const struct og_mali_gpu *gpu, const uint32_t *dump, size_t bytes,
                     const struct og_mali_picks *p)
{
	const size_t words = bytes / 4u;
	for (size_t i = 0; i < p->n; i++) {
		uint32_t block, inst, index;
		og_mali_raw_instance_of(p->raw[i], &block, &inst, &index);
		/* A v5 dump: front end, tiler, the L2 slices, then one block per
		 * bit position up to the highest core (holes included). */
		size_t pos;
		bool there = index < OG_MALI_V5_WORDS;
		if (block == OG_MALI_L2) {
			pos = 2u + inst;
			there = there && inst < gpu->l2_slices;
		} else if (block == OG_MALI_SC) {
			pos = 2u + gpu->l2_slices + inst;
			there = there && inst < 64u && (gpu->core_mask >> inst & 1u);
		} else {
			pos = 0;
			there = false;
		}
		size_t w = pos * OG_MALI_V5_WORDS + index;
		p->value[i] = there && w < words ? dump[w] : 0;
	}
}

void og_kinstr_pick(const struct og_kinstr_layout *l, const uint8_t *map,
                    const struct og_kinstr_sample *s, const struct og_mali_picks *p)
{
	for (size_t i = 0; i < p->n; i++) {
		uint32_t block, inst, index;
		og_mali_raw_instance_of(p->raw[i], &block, &inst, &index);
		uint64_t v = 0;
		if (block < OG_MALI_BLOCK_TYPES && index < l->en.values[block]) {
			uint32_t k = inst;
			if (block == OG_MALI_SC)
				k = inst < 64u && (l->core_mask >> inst & 1u)
				            ? core_rank(l->core_mask, inst)
				            : OG_KINSTR_MAX_INSTANCES;
			/* at[] was checked by og_kinstr_parse_sample: the block's
			 * values lie inside the mapping. */
			if (k < s->count[block] && k < OG_KINSTR_MAX_INSTANCES)
				memcpy(&v, map + s->at[block][k] + (size_t)index * 8u, sizeof v);
		}
		p->value[i] = v;
	}
}

bool og_mali_picks_new(const uint32_t *raw_ids, size_t n, struct og_mali_picks *out)
{
	*out = (struct og_mali_picks){ 0, NULL, NULL };
	size_t npick = 0;
	for (size_t i = 0; i < n; i++)
		npick += og_mali_raw_is_instance(raw_ids[i]);
	if (!npick)
		return true;
	uint32_t *ids = malloc(npick * sizeof *ids);
	uint64_t *values = calloc(npick, sizeof *values);
	if (!ids || !values) {
		free(ids);
		free(values);
		return false;
	}
	for (size_t i = 0, j = 0; i < n; i++)
		if (og_mali_raw_is_instance(raw_ids[i]))
			ids[j++] = raw_ids[i];
	*out = (struct og_mali_picks){ npick, ids, values };
	return true;
}

void og_mali_picks_free(struct og_mali_picks *p)
{
	free((void *)p->raw);
	free(p->value);
	*p = (struct og_mali_picks){ 0, NULL, NULL };
}

bool og_mali_pass_new(const struct og_backend_host *host, const char *who,
                      const uint32_t *raw_ids, size_t n, uint32_t **ids,
                      struct og_mali_picks *picks)
{
	*ids = NULL;
	if (n) {
		*ids = malloc(n * sizeof **ids);
		if (!*ids) {
			og_mali_log(host, OG_LOG_ERROR, "%s: out of memory for a pass of %zu counters",
			            who, n);
			return false;
		}
		memcpy(*ids, raw_ids, n * sizeof **ids);
	}
	if (!og_mali_picks_new(raw_ids, n, picks)) {
		free(*ids);
		*ids = NULL;
		og_mali_log(host, OG_LOG_ERROR,
		            "%s: out of memory for a pass's per-instance counters", who);
		return false;
	}
	return true;
}
