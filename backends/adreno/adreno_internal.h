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
#include "msm_uapi.h"
#include "sys_calls.h"

/* raw_id = group << 16 | countable; the sample's duration is its own id. */
#define OG_ADRENO_RAW_TIME_NS 0xFFFF0001u
#define OG_ADRENO_MAX_COUNTABLE 256u /* KGSL's GMU groups refuse above 0xFF */
#define OG_ADRENO_MAX_GROUP_COUNTERS 64u /* sanity bound: the largest table has 24 */

struct og_adreno_pair {
	uint32_t group, countable;
};

enum og_adreno_iface { OG_ADRENO_KGSL, OG_ADRENO_MSM };

struct og_adreno {
	struct og_backend_host host;
	enum og_adreno_iface iface;
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
	/* msm: the stream of the pass, its record layout, the last record. */
	uint64_t max_freq_hz;    /* MSM_PARAM_MAX_FREQ (0 on KGSL) */
	int stream_fd;
	uint32_t *rec_slot;      /* pair -> index of its value in a record */
	size_t rec_bytes;
	unsigned char *rec_buf;  /* room for a batch of records */
	size_t rec_buf_bytes;
	uint64_t *rec_last;      /* the newest record's values, by pair */
	uint64_t rec_last_ts;    /* its timestamp (19.2 MHz ticks) */
	bool rec_have;
	bool rec_broken;         /* a discontinuity since the last record */
	bool msm_configured;     /* a PERFCNTR_CONFIG has succeeded on this fd */
};

#define OG_ADRENO_LOG(a, ...) (a)->host.log((a)->host.log_ctx, OG_LOG_ERROR, __VA_ARGS__)

/* kgsl.c: the KGSL interface. */
GPA_Status og_kgsl_open(struct og_adreno *a, const char *forced_path, bool quiet_absent);
GPA_Status og_kgsl_identify(struct og_adreno *a);
GPA_Status og_kgsl_query_groups(struct og_adreno *a);
GPA_Status og_kgsl_get(struct og_adreno *a, const struct og_adreno_pair *p);
void og_kgsl_put(struct og_adreno *a, const struct og_adreno_pair *p);
/* READ of every pair of the pass into vals[0..npairs). */
GPA_Status og_kgsl_read(struct og_adreno *a, uint64_t *vals);
/* Contents of a sysfs attribute of the device (NUL-terminated), or false. */
bool og_kgsl_sysfs(struct og_adreno *a, const char *attr, char *buf, size_t len);
void og_kgsl_check_switch(struct og_adreno *a);

/* msm.c: upstream msm's PERFCNTR_CONFIG stream (reference §2.3). */
GPA_Status og_msm_open(struct og_adreno *a, const char *forced_path, bool quiet_absent);
GPA_Status og_msm_identify(struct og_adreno *a);
void og_msm_groups(struct og_adreno *a);
/* Configure the stream for the pass's pairs. */
GPA_Status og_msm_start(struct og_adreno *a);
void og_msm_stop(struct og_adreno *a);
/* The newest record's values into vals (by pair) and its time in ns;
 * wait_new: a record produced after this call. *broken: a discontinuity
 * (seqno 0) lies between the previous call's record and this one. */
GPA_Status og_msm_read(struct og_adreno *a, bool wait_new, uint64_t *vals, uint64_t *ns,
                       bool *broken);

#endif
