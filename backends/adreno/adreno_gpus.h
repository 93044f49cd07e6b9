/* SPDX-License-Identifier: MIT */
/*
 * adreno_gpus.h — what the Adreno backend knows of each GPU: the KGSL group
 * ids and names, and the chip ids of ../shared/reference/adreno-kgsl.md §6.
 */
#ifndef OPENGPA_ADRENO_GPUS_H
#define OPENGPA_ADRENO_GPUS_H

#include <stdbool.h>
#include <stdint.h>

struct og_adreno_gpu {
	uint32_t chip_id;        /* as DEVICE_INFO reports it */
	uint32_t mask;           /* bits of chip_id that must match (patch is often free) */
	const char *name;        /* "Adreno 650" */
	unsigned generation;     /* 5, 6 or 7 */
	unsigned sp_cores;       /* Mesa's num_sp_cores (= CCUs on a6xx/a7xx) */
	const char *counter_set; /* counters/<set>.counters */
};

/* The table entry for a chip id, or NULL. */
const struct og_adreno_gpu *og_adreno_gpu_find(uint32_t chip_id);

/* KGSL group name of id (< 0x37), or NULL for an id with no name. */
const char *og_adreno_group_name(uint32_t id);
/* Group id of a name ("SP", "BV_SP"; case-sensitive), or -1. */
int og_adreno_group_id(const char *name, unsigned len);
/* Groups whose countable is the counter index (ALWAYSON, VBIF_PWR). */
bool og_adreno_group_fixed(uint32_t id);

#endif
