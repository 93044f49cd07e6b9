/* SPDX-License-Identifier: MIT */
/* adreno_internal.h — the Adreno backend's state, shared by its files. */
#ifndef OPENGPA_ADRENO_INTERNAL_H
#define OPENGPA_ADRENO_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "adreno_gpus.h"
#include "backend.h"
#include "kgsl_uapi.h"

/* raw_id = group << 16 | countable; the sample's duration is its own id. */
#define OG_ADRENO_RAW_TIME_NS 0xFFFF0001u
#define OG_ADRENO_MAX_COUNTABLE 256u /* KGSL's GMU groups refuse above 0xFF */
#define OG_ADRENO_MAX_GROUP_COUNTERS 64u /* sanity bound: the largest table has 24 */

struct og_adreno_pair {
	uint32_t group, countable;
};

struct og_adreno {
	struct og_backend_host host;
	char path[256];
	char sysfs[256];
	int fd;
	bool gone;
	uint32_t chip_id;
	uint64_t gmem_bytes;
	const struct og_adreno_gpu *gpu;
	uint32_t max_counters[OG_KGSL_GROUP_MAX]; /* QUERY's answer per group */
	uint32_t reserved[OG_KGSL_GROUP_MAX];     /* counters the kernel keeps (BROKEN) */
	/* At open: counters free per group, and the countables others held
	 * (which a pass can share without a counter of its own). */
	uint32_t free_at_open[OG_KGSL_GROUP_MAX];
	uint8_t held_at_open[OG_KGSL_GROUP_MAX][OG_ADRENO_MAX_COUNTABLE / 8];
	/* The pass: its raw ids, the distinct (group, countable) pairs they
	 * need, which pair each raw id reads (or TIME), how many are held. */
	uint32_t *pass_ids;
	size_t pass_n;
	struct og_adreno_pair *pairs;
	uint32_t *pair_of;
	size_t npairs, held;
	struct og_kgsl_read_group *reads;
	uint64_t *begin_vals;
	uint64_t begin_ns;
};

#define OG_ADRENO_LOG(a, ...) (a)->host.log((a)->host.log_ctx, OG_LOG_ERROR, __VA_ARGS__)

/* kgsl.c: the KGSL interface. */
GPA_Status og_kgsl_open(struct og_adreno *a, const char *forced_path);
GPA_Status og_kgsl_identify(struct og_adreno *a);
GPA_Status og_kgsl_query_groups(struct og_adreno *a);
GPA_Status og_kgsl_get(struct og_adreno *a, const struct og_adreno_pair *p);
void og_kgsl_put(struct og_adreno *a, const struct og_adreno_pair *p);
/* READ of every pair of the pass into vals[0..npairs). */
GPA_Status og_kgsl_read(struct og_adreno *a, uint64_t *vals);
/* Contents of a sysfs attribute of the device (NUL-terminated), or false. */
bool og_kgsl_sysfs(struct og_adreno *a, const char *attr, char *buf, size_t len);
void og_kgsl_check_switch(struct og_adreno *a);

#endif
