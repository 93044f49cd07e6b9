/* SPDX-License-Identifier: MIT */
/*
 * mali_instances.h — per-instance values read beside the sums
 * (mali_instances.c; the ids and struct og_mali_picks: mali_common.h).
 */
#ifndef OPENGPA_MALI_INSTANCES_H
#define OPENGPA_MALI_INSTANCES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kinstr_parse.h"
#include "mali_common.h"

/* The picks of a pass of raw_ids[0..n): an entry per per-instance raw
 * counter, in pass order, values zeroed (out->n 0 and nothing allocated
 * when there is none).  false without memory, *out left empty.  Shared by
 * the kbase and panfrost backends; og_mali_picks_free frees. */
bool og_mali_picks_new(const uint32_t *raw_ids, size_t n, struct og_mali_picks *out);
void og_mali_picks_free(struct og_mali_picks *p);

/* What begin_pass keeps of a pass, the same in kbase and panfrost: raw_ids
 * copied into *ids (NULL when n is 0) and their picks.  false without
 * memory, after a message "WHO: out of memory for ..." and with nothing
 * left allocated. */
bool og_mali_pass_new(const struct og_backend_host *host, const char *who,
                      const uint32_t *raw_ids, size_t n, uint32_t **ids,
                      struct og_mali_picks *picks);

/* From a v5 dump of `bytes` bytes: each value asked for, 0 for one the
 * dump does not hold.  Nothing past `bytes` is read. */
void og_mali_pick_v5(const struct og_mali_gpu *gpu, const uint32_t *dump, size_t bytes,
                     const struct og_mali_picks *p);

/* From a kinstr_prfcnt sample og_kinstr_parse_sample accepted. */
void og_kinstr_pick(const struct og_kinstr_layout *l, const uint8_t *map,
                    const struct og_kinstr_sample *s, const struct og_mali_picks *p);

#endif
