/* SPDX-License-Identifier: MIT */
/*
 * vadreno.h — a virtual Qualcomm Adreno GPU that answers KGSL's
 * /dev/kgsl-3d0 byte for byte: DEVICE_GETPROPERTY (DEVICE_INFO, VERSION,
 * GPU_MODEL) and the four perf-counter ioctls with the semantics and errors
 * of reference adreno-kgsl.md §1.5 (shared counters by countable, fixed
 * groups, the kernel's own reservations, EBUSY/EINVAL/ENODEV/EPERM), for
 * 32-bit and 64-bit clients alike (the layout is read from the size in the
 * request number, as a 64-bit kernel's compat path does), plus the sysfs
 * attributes a profiler reads (perfcounter, max_clock_mhz,
 * gpu_available_frequencies, gpu_model).
 *
 * Its tables (counters per group, chip ids, GMEM) are written here from the
 * reference sheet, independently of the backend's.
 *
 * Workload clock: every PERFCOUNTER_READ first runs frames_per_read frames
 * (default 1; none with manual_frames, then vadreno_run_frames() does), and
 * every countable counts a fixed amount per frame that keeps the derived
 * counters' invariants (busy <= always-count, misses <= requests, filtered
 * texels <= texels...).  vadreno_value() tells tests what each counts.
 */
#ifndef VADRENO_H
#define VADRENO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct og_sys;
struct vadreno;

#define VADRENO_PATH "/dev/kgsl-3d0"
#define VADRENO_SYSFS "/sys/class/kgsl/kgsl-3d0"
#define VADRENO_MSM_PATH "/dev/dri/renderD128"

struct vadreno_config {
	uint32_t chip_id;         /* 0 = 0x06050002 (Adreno 650) */
	bool perfcounter_off;     /* the sysfs switch: READ fails EPERM */
	uint32_t frames_per_read; /* 0 = 1 */
	bool manual_frames;       /* READ does not run frames */
	/* Upstream msm instead of KGSL: VADRENO_MSM_PATH answers GET_PARAM and
	 * PERFCNTR_CONFIG (reference §2.3), /dev/kgsl-3d0 is absent.  Each
	 * stream record runs frames_per_read frames. */
	bool msm;
	bool msm_no_perfmon;      /* the caller lacks CAP_PERFMON: STREAM fails EPERM */
	bool msm_no_stream;       /* a kernel before the stream: PERFCNTR_CONFIG is EINVAL */
	uint32_t msm_busy_counters; /* counters of every group held by the GPU's own streams */
};

struct vadreno_faults {
	bool get_ebusy;           /* every GET fails EBUSY (another process holds all) */
	int empty_group;          /* this group reports 0 counters; -1 (or 0 with the flag
	                           * below unset) = none */
	bool empty_group_set;
	bool vanished;            /* device gone: open ENOENT, ioctls ENODEV */
	bool open_eacces;
	bool query_huge;          /* QUERY reports 1000 counters per group */
	bool read_wrong_entry;    /* READ answers with another countable in entry 0 */
	bool read_einval;         /* READ fails EINVAL */
	bool eintr;               /* every other ioctl fails EINTR first */
	bool no_sysfs;            /* no sysfs attributes (an old KGSL) */
};

/* NULL with errno EINVAL for an unknown chip id. */
struct vadreno *vadreno_create(const struct vadreno_config *cfg);
void vadreno_destroy(struct vadreno *vd);
void vadreno_set_faults(struct vadreno *vd, const struct vadreno_faults *f);
const struct og_sys *vadreno_sys(struct vadreno *vd);

/* What counts, for tests. */
void vadreno_run_frames(struct vadreno *vd, uint64_t n);
uint64_t vadreno_frames(struct vadreno *vd);
/* Count of (group, countable) per frame. */
uint64_t vadreno_rate(struct vadreno *vd, uint32_t group, uint32_t countable);
/* Counters per group, as QUERY reports them (faults aside). */
uint32_t vadreno_group_counters(struct vadreno *vd, uint32_t group);
unsigned vadreno_sp_cores(struct vadreno *vd);
/* Another process takes a counter: as if it GETs (group, countable). */
int vadreno_other_get(struct vadreno *vd, uint32_t group, uint32_t countable);
/* Counters held by clients of this device (not the kernel's). */
uint32_t vadreno_user_refs(struct vadreno *vd);
uint32_t vadreno_open_fds(struct vadreno *vd);

/* Records the stream has written (msm). */
uint64_t vadreno_stream_records(struct vadreno *vd);

/* For the interposer. */
bool vadreno_owns_fd(struct vadreno *vd, int fd);
bool vadreno_owns_path(const char *path);

#endif
