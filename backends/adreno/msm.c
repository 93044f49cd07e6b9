/* SPDX-License-Identifier: MIT */
/*
 * msm.c — the Adreno backend's second kernel interface: upstream msm DRM
 * (/dev/dri/renderD*) and its counter stream, DRM_IOCTL_MSM_PERFCNTR_CONFIG
 * (drm-msm-next-2026-05-30; reference adreno-kgsl.md §2.3).
 *
 * Call sequence: GET_PARAM(CHIP_ID) on each render node until one answers
 * (that node is msm's), GET_PARAM GMEM_SIZE and MAX_FREQ; per pass one
 * PERFCNTR_CONFIG(STREAM | UPDATE) naming every group of the pass with its
 * countables, whose return value is the stream's fd; the kernel then writes
 * one record per period (head: 19.2 MHz timestamp, seqno; then one u64 per
 * countable in request order).  A snapshot is the newest record; a sample is
 * the difference of two snapshots, its duration the difference of their
 * timestamps.  Closing the stream's fd releases the counters.
 *
 * msm has no QUERY: counters per group come from the table below (the
 * counts of reference §1.4 for the a6xx/a7xx tables, counter 0 of CP and SP
 * kept back as upstream msm programs CP0 itself and Mesa's JSON reserves
 * both, §1.7 item 9); a pass that still does not fit is told by the
 * kernel's E2BIG, whose UPDATE answer names what is free.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adreno_internal.h"

#define PERIOD_NS 1000000ull /* one record per millisecond */
#define BATCH 64u            /* records read per read() */

static int m_ioctl(struct og_adreno *a, unsigned long req, void *arg)
{
	return og_sys_ioctl_retry(a->host.sys, a->fd, req, arg, true);
}

static int get_param(struct og_adreno *a, uint32_t param, uint64_t *value)
{
	struct og_drm_msm_param p;
	memset(&p, 0, sizeof p);
	p.pipe = OG_MSM_PIPE_3D0;
	p.param = param;
	if (m_ioctl(a, OG_MSM_GET_PARAM, &p) < 0)
		return -1;
	*value = p.value;
	return 0;
}

GPA_Status og_msm_open(struct og_adreno *a, const char *forced, bool quiet_absent)
{
	const struct og_sys *sys = a->host.sys;
	a->iface = OG_ADRENO_MSM;
	a->stream_fd = -1;
	unsigned n = forced ? 1 : OG_MSM_RENDER_COUNT;
	int last_err = ENOENT;
	for (unsigned i = 0; i < n; i++) {
		if (forced)
			snprintf(a->path, sizeof a->path, "%s", forced);
		else
			snprintf(a->path, sizeof a->path, OG_MSM_RENDER_FMT, OG_MSM_RENDER_FIRST + i);
		a->fd = og_sys_open_node(sys, a->path);
		if (a->fd < 0) {
			if (errno != ENOENT || last_err == ENOENT)
				last_err = errno;
			continue;
		}
		uint64_t chip;
		if (get_param(a, OG_MSM_PARAM_CHIP_ID, &chip) == 0 && (uint32_t)chip != 0)
			return GPA_STATUS_OK;
		last_err = ENODEV; /* a render node of another driver */
		og_sys_close_fd(sys, &a->fd);
	}
	if (quiet_absent && last_err == ENOENT)
		return GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED;
	if (og_sys_errno_denied(last_err))
		OG_ADRENO_LOG(a, "adreno: permission denied opening %s; add your user to the "
		                 "`render` group (or give the node's mode) and log in again",
		              forced ? forced : "/dev/dri/renderD*");
	else
		OG_ADRENO_LOG(a, "adreno: no msm render node answers GET_PARAM(CHIP_ID) (%s: %s); "
		                 "this is not an upstream kernel with the msm driver for a Snapdragon "
		                 "GPU", forced ? forced : "/dev/dri/renderD128..135",
		              strerror(last_err));
	return GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED;
}

GPA_Status og_msm_identify(struct og_adreno *a)
{
	uint64_t chip = 0, gmem = 0, freq = 0;
	if (get_param(a, OG_MSM_PARAM_CHIP_ID, &chip) < 0 || (uint32_t)chip == 0) {
		OG_ADRENO_LOG(a, "adreno: GET_PARAM(CHIP_ID) on %s failed or gave 0: %s; the GPU "
		                 "is not identified (check the device tree's GPU node)",
		              a->path, strerror(errno));
		return GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED;
	}
	/* Bits 32 and up carry the speed bin on GPUs without a legacy revn. */
	a->chip_id = (uint32_t)chip;
	if (get_param(a, OG_MSM_PARAM_GMEM_SIZE, &gmem) == 0)
		a->gmem_bytes = gmem;
	if (get_param(a, OG_MSM_PARAM_MAX_FREQ, &freq) == 0)
		a->max_freq_hz = freq;
	a->gpu = og_adreno_gpu_find(a->chip_id);
	if (a->gpu && a->gpu->generation < 6) {
		OG_ADRENO_LOG(a, "adreno: %s on msm: upstream msm's counter stream serves a6xx and "
		                 "later only (its a5xx tables are not wired up); no counters can be "
		                 "read through %s", a->gpu->name, a->path);
		return GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED;
	}
	return GPA_STATUS_OK;
}

/* Counters per group on msm (a6xx/a7xx), reference §1.4. */
static uint32_t msm_counters(const struct og_adreno *a, uint32_t g)
{
	bool g7 = a->gpu ? a->gpu->generation >= 7 : (a->chip_id >> 24) >= 7;
	bool big_uche = (a->chip_id >> 24) == 0x43; /* a740, a750 */
	switch (g) {
	case 0x00: return 14;
	case 0x01: case 0x06: case 0x07: case 0x19: case 0x1A: return 4;
	case 0x02: case 0x03: case 0x0B: return 8;
	case 0x04: case 0x05: return 6;
	case 0x08: return big_uche ? 24 : 12;
	case 0x09: return 12;
	case 0x0A: return 24;
	case 0x17: return 2;
	case 0x18: return 5;
	case 0x2B: case 0x33: case 0x34: case 0x35: return g7 ? 4 : 0;
	case 0x2C: return g7 ? 7 : 0;
	case 0x2D: case 0x2E: return g7 ? 8 : 0;
	case 0x2F: case 0x30: case 0x36: return g7 ? 6 : 0;
	case 0x31: return g7 ? 12 : 0;
	case 0x32: return g7 ? 2 : 0;
	default: return 0; /* VBIF/GBIF, power and GMU groups: not msm stream groups */
	}
}

void og_msm_groups(struct og_adreno *a)
{
	for (uint32_t g = 0; g < OG_KGSL_GROUP_MAX; g++) {
		a->max_counters[g] = msm_counters(a, g);
		a->reserved[g] = (g == 0x00 || g == 0x0A) && a->max_counters[g] ? 1 : 0;
		a->free_at_open[g] = a->max_counters[g] - a->reserved[g];
		memset(a->held_at_open[g], 0, sizeof a->held_at_open[g]);
	}
}

void og_msm_stop(struct og_adreno *a)
{
	og_sys_close_fd(a->host.sys, &a->stream_fd);
	free(a->rec_slot);
	free(a->rec_buf);
	free(a->rec_last);
	a->rec_slot = NULL;
	a->rec_buf = NULL;
	a->rec_last = NULL;
	a->rec_have = a->rec_broken = false;
}

static GPA_Status config_failed(struct og_adreno *a, int e,
                                const struct og_drm_msm_perfcntr_group *grp, uint32_t ng)
{
	if (e == EPERM || e == EACCES) {
		OG_ADRENO_LOG(a, "adreno: PERFCNTR_CONFIG on %s: %s, a GPU-wide counter stream needs "
		                 "CAP_PERFMON or CAP_SYS_ADMIN; run as root or `setcap "
		                 "cap_perfmon+ep` on the program", a->path, strerror(e));
		return GPA_STATUS_ERROR_FAILED;
	}
	if (e == EBUSY) {
		OG_ADRENO_LOG(a, "adreno: PERFCNTR_CONFIG on %s: EBUSY, another process holds the "
		                 "GPU's one counter stream (a profiler such as Perfetto's freedreno "
		                 "producer, or another opengpa context); stop it and retry", a->path);
		return GPA_STATUS_ERROR_FAILED;
	}
	if (e == E2BIG) {
		for (uint32_t i = 0; i < ng; i++)
			OG_ADRENO_LOG(a, "adreno: PERFCNTR_CONFIG on %s: E2BIG, group %s has %u "
			                 "counter(s) free (the GPU's own command streams hold the rest); "
			                 "count fewer of its countables at once", a->path,
			              grp[i].group_name, grp[i].nr_countables);
		return GPA_STATUS_ERROR_FAILED;
	}
	if (e == ENXIO) {
		OG_ADRENO_LOG(a, "adreno: PERFCNTR_CONFIG on %s: ENXIO, the kernel has no counter "
		                 "tables for this GPU", a->path);
		return GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED;
	}
	if ((e == EINVAL || e == ENOTTY) && !a->msm_configured) {
		OG_ADRENO_LOG(a, "adreno: PERFCNTR_CONFIG on %s: %s; this msm kernel has no counter "
		                 "stream (it came with drm-msm-next-2026-05-30; an older kernel has "
		                 "none, and opengpa does not map GPU registers through /dev/mem)",
		              a->path, strerror(e));
		return GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED;
	}
	if (e == ENODEV || e == EIO || e == EBADF) {
		a->gone = true;
		OG_ADRENO_LOG(a, "adreno: PERFCNTR_CONFIG on %s: %s (the device went away); open a "
		                 "new context once it is back", a->path, strerror(e));
		return GPA_STATUS_ERROR_FAILED;
	}
	OG_ADRENO_LOG(a, "adreno: PERFCNTR_CONFIG of %u group(s) on %s failed: %s", ng, a->path,
	              strerror(e));
	return GPA_STATUS_ERROR_FAILED;
}

GPA_Status og_msm_start(struct og_adreno *a)
{
	og_msm_stop(a);
	if (a->npairs == 0)
		return GPA_STATUS_OK; /* only TIME: no stream needed */
	uint32_t gids[OG_KGSL_GROUP_MAX], ng = 0;
	for (size_t j = 0; j < a->npairs; j++) {
		uint32_t k = 0;
		while (k < ng && gids[k] != a->pairs[j].group)
			k++;
		if (k == ng)
			gids[ng++] = a->pairs[j].group;
	}
	struct og_drm_msm_perfcntr_group *grp = calloc(ng, sizeof *grp);
	uint32_t *sel = malloc(a->npairs * sizeof *sel);
	a->rec_slot = malloc(a->npairs * sizeof *a->rec_slot);
	a->rec_last = calloc(a->npairs, sizeof *a->rec_last);
	a->rec_bytes = sizeof(struct og_msm_record_head) + 8 * a->npairs;
	a->rec_buf_bytes = a->rec_bytes * BATCH;
	a->rec_buf = malloc(a->rec_buf_bytes);
	if (!grp || !sel || !a->rec_slot || !a->rec_last || !a->rec_buf) {
		free(grp);
		free(sel);
		og_msm_stop(a);
		OG_ADRENO_LOG(a, "adreno: out of memory for a stream of %zu counters", a->npairs);
		return GPA_STATUS_ERROR_FAILED;
	}
	uint32_t at = 0;
	for (uint32_t k = 0; k < ng; k++) {
		const char *name = og_adreno_group_name(gids[k]);
		snprintf(grp[k].group_name, sizeof grp[k].group_name, "%s", name ? name : "?");
		grp[k].countables = (uintptr_t)(sel + at);
		for (size_t j = 0; j < a->npairs; j++)
			if (a->pairs[j].group == gids[k]) {
				a->rec_slot[j] = at;
				sel[at++] = a->pairs[j].countable;
				grp[k].nr_countables++;
			}
	}
	uint32_t shift = 16;
	while (shift < OG_MSM_BUFSZ_SHIFT_MAX && (1ull << shift) < 1024ull * a->rec_bytes)
		shift++;
	struct og_drm_msm_perfcntr_config cfg;
	memset(&cfg, 0, sizeof cfg);
	cfg.flags = OG_MSM_PERFCNTR_STREAM | OG_MSM_PERFCNTR_UPDATE;
	cfg.nr_groups = ng;
	cfg.groups = (uintptr_t)grp;
	cfg.period = PERIOD_NS;
	cfg.bufsz_shift = shift;
	cfg.group_stride = sizeof *grp;
	int fd = m_ioctl(a, OG_MSM_PERFCNTR_CONFIG, &cfg);
	GPA_Status st = GPA_STATUS_OK;
	if (fd < 0)
		st = config_failed(a, errno, grp, ng);
	free(grp);
	free(sel);
	if (st != GPA_STATUS_OK) {
		og_msm_stop(a);
		return st;
	}
	a->stream_fd = fd;
	a->msm_configured = true;
	return GPA_STATUS_OK;
}

/* Whatever records are waiting; -1 on a failure (logged). */
static int drain(struct og_adreno *a)
{
	const struct og_sys *sys = a->host.sys;
	for (;;) {
		struct pollfd p = {.fd = a->stream_fd, .events = POLLIN};
		int r = sys->poll(sys->ctx, &p, 1, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 || (p.revents & (POLLERR | POLLNVAL))) {
			OG_ADRENO_LOG(a, "adreno: poll of the counter stream of %s failed: %s", a->path,
			              r < 0 ? strerror(errno) : "POLLERR");
			return -1;
		}
		if (!(p.revents & POLLIN))
			return 0;
		ssize_t n = sys->read(sys->ctx, a->stream_fd, a->rec_buf, a->rec_buf_bytes);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return 0;
		if (n <= 0 || (size_t)n % a->rec_bytes) {
			OG_ADRENO_LOG(a, "adreno: read of the counter stream of %s gave %zd bytes, not "
			                 "whole %zu-byte records (%s); the stream is not trusted",
			              a->path, n, a->rec_bytes, n < 0 ? strerror(errno) : "short");
			return -1;
		}
		for (size_t off = 0; off < (size_t)n; off += a->rec_bytes) {
			struct og_msm_record_head h;
			memcpy(&h, a->rec_buf + off, sizeof h);
			if (h.mbz != 0) {
				OG_ADRENO_LOG(a, "adreno: a record of the counter stream of %s has %u in "
				                 "its must-be-zero word; the stream's format is not the "
				                 "one opengpa knows", a->path, h.mbz);
				return -1;
			}
			if (h.seqno == 0 && a->rec_have)
				a->rec_broken = true;
			const unsigned char *v = a->rec_buf + off + sizeof h;
			for (size_t j = 0; j < a->npairs; j++)
				memcpy(&a->rec_last[j], v + 8 * a->rec_slot[j], 8);
			a->rec_last_ts = h.timestamp;
			a->rec_have = true;
		}
	}
}

GPA_Status og_msm_read(struct og_adreno *a, bool wait_new, uint64_t *vals, uint64_t *ns,
                       bool *broken)
{
	const struct og_sys *sys = a->host.sys;
	if (a->gone || a->stream_fd < 0) {
		OG_ADRENO_LOG(a, "adreno: the counter stream of %s is %s; open a new context",
		              a->path, a->gone ? "gone" : "not configured");
		return GPA_STATUS_ERROR_FAILED;
	}
	if (drain(a) < 0)
		return GPA_STATUS_ERROR_FAILED;
	if (wait_new || !a->rec_have) {
		/* The next record is taken after this call: wait up to 100 periods. */
		struct pollfd p = {.fd = a->stream_fd, .events = POLLIN};
		int r;
		do
			r = sys->poll(sys->ctx, &p, 1, (int)(100 * PERIOD_NS / 1000000));
		while (r < 0 && errno == EINTR);
		if (r <= 0) {
			OG_ADRENO_LOG(a, "adreno: no record came from the counter stream of %s in %llu "
			                 "ms (%s); the GPU is suspended or the stream stopped",
			              a->path, (unsigned long long)(100 * PERIOD_NS / 1000000),
			              r < 0 ? strerror(errno) : "timeout");
			return GPA_STATUS_ERROR_FAILED;
		}
		if (drain(a) < 0)
			return GPA_STATUS_ERROR_FAILED;
		if (!a->rec_have) {
			OG_ADRENO_LOG(a, "adreno: the counter stream of %s said it had a record but "
			                 "gave none", a->path);
			return GPA_STATUS_ERROR_FAILED;
		}
	}
	memcpy(vals, a->rec_last, a->npairs * sizeof *vals);
	*ns = a->rec_last_ts * 625u / 12u; /* 19.2 MHz ticks to ns */
	*broken = a->rec_broken;
	a->rec_broken = false;
	return GPA_STATUS_OK;
}
