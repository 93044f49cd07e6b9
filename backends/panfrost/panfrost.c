/* SPDX-License-Identifier: MIT */
/*
 * panfrost.c — the `panfrost` backend: Mali counters through the upstream
 * DRM driver's PERFCNT_ENABLE / PERFCNT_DUMP ioctls on a render node.
 *
 * Those ioctls are "unstable": the kernel exposes them only with the
 * panfrost.unstable_ioctls module parameter set, and one DRM file at a time
 * may own the counters.  A dump copies the whole counter buffer (the same v5
 * layout kbase uses) to user memory; the hardware clears its counters when
 * it samples, so the dump at sample end holds the sample's deltas and the
 * one at sample begin only marks the start.
 *
 * Upstream panfrost drives the job-manager Mali GPUs (Bifrost and Valhall
 * up to Mali-G78), all with the same 64-word v5 dump; command-stream GPUs
 * (Mali-G310 and later) are driven by panthor, which has no counter
 * interface in mainline Linux (Arm's perf uAPI series was still under
 * review at the end of 2025): a panthor node is named in the log.
 *
 * libdrm's helpers (drmGetVersion...) would call ioctl() themselves and
 * bypass the syscall table, so the two DRM calls needed are made here.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend.h"
#include "mali/mali_common.h"
#include "mali/mali_instances.h"
#include "mali/mali_sum.h"
#include "panfrost_uapi.h"
#include "sys_calls.h"

#define FIRST_RENDER_NODE 128
#define RENDER_NODES 16
#define UNSTABLE_CMD "echo Y | sudo tee /sys/module/panfrost/parameters/unstable_ioctls"

struct panfrost {
	struct og_backend_host host;
	char path[256];
	int fd;
	bool enabled;
	bool gone;
	struct og_mali_gpu gpu;
	struct og_mali_layout layout;
	uint32_t *dump;
	size_t dump_bytes;
	uint32_t *pass_ids;
	size_t pass_n;
	/* Per-instance values: the blocks a dump holds, the pass's instance
	 * ids (in pass order) and their values. */
	uint16_t instances[OG_MALI_BLOCK_TYPES];
	struct og_mali_picks picks;
	struct og_mali_totals totals;
	uint64_t begin_ns; /* CLOCK_MONOTONIC at the sample-begin dump */
};

#define LOG(p, ...) og_mali_log(&(p)->host, OG_LOG_ERROR, __VA_ARGS__)

static int p_ioctl(const struct og_sys *sys, int fd, unsigned long req, void *arg)
{
	return og_sys_ioctl_retry(sys, fd, req, arg, true);
}

static GPA_Status mark_gone(struct panfrost *p, const char *what, int e)
{
	p->gone = true;
	LOG(p, "panfrost: %s failed: %s (%s went away during the session); close the context and "
	       "open a new one once the driver is back (check dmesg for a GPU reset)",
	    what, strerror(e), p->path);
	return GPA_STATUS_ERROR_FAILED;
}

/* True when fd is a node of the DRM driver `want` (the driver name, not the
 * path, says so). */
static bool is_driver(const struct og_sys *sys, int fd, const char *want)
{
	char name[32] = {0};
	struct drm_version v;
	memset(&v, 0, sizeof v);
	v.name = name;
	v.name_len = sizeof name - 1;
	if (p_ioctl(sys, fd, DRM_IOCTL_VERSION, &v) < 0)
		return false;
	/* The kernel reports the full length even when it copied less. */
	return v.name_len == strlen(want) && memcmp(name, want, v.name_len) == 0;
}

static GPA_Status find_node(struct panfrost *p, const char *forced)
{
	const struct og_sys *sys = p->host.sys;
	bool denied = false, other = false, panthor = false;
	char tried[300];
	int first = FIRST_RENDER_NODE, count = RENDER_NODES;
	if (forced)
		count = 1;
	for (int i = 0; i < count; i++) {
		char path[256];
		if (forced)
			snprintf(path, sizeof path, "%s", forced);
		else
			snprintf(path, sizeof path, "/dev/dri/renderD%d", first + i);
		int fd = og_sys_open_node(sys, path);
		if (fd < 0) {
			denied |= og_sys_errno_denied(errno);
			continue;
		}
		if (is_driver(sys, fd, "panfrost")) {
			p->fd = fd;
			snprintf(p->path, sizeof p->path, "%s", path);
			return GPA_STATUS_OK;
		}
		panthor |= is_driver(sys, fd, "panthor");
		other = true;
		sys->close(sys->ctx, fd);
	}
	if (forced)
		snprintf(tried, sizeof tried, "%s", forced);
	else
		snprintf(tried, sizeof tried, "/dev/dri/renderD%d..renderD%d", first, first + count - 1);
	if (panthor) {
		LOG(p, "panfrost: found a panthor node (tried %s): this is a command-stream Mali GPU "
		       "(Mali-G310 and later), which upstream Linux drives with panthor, and panthor "
		       "has no hardware counter interface in mainline Linux (only per-client usage "
		       "statistics in fdinfo); use backend 'mali' on Arm's kbase driver", tried);
		return GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED;
	}
	if (denied) {
		LOG(p, "panfrost: permission denied opening render nodes (tried %s); add your user "
		       "to the 'render' group (sudo usermod -aG render $USER) and log in again", tried);
		return GPA_STATUS_ERROR_FAILED;
	}
	LOG(p, "panfrost: no panfrost render node: tried %s%s; load the panfrost driver "
	       "(modprobe panfrost), use backend 'mali' on Arm's kbase driver, or pass device=PATH",
	    tried, other ? " (the nodes found belong to other DRM drivers)" : "");
	return GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED;
}

static GPA_Status get_param(struct panfrost *p, uint32_t param, uint64_t *value)
{
	struct og_panfrost_get_param g = {param, 0, 0};
	if (p_ioctl(p->host.sys, p->fd, OG_PANFROST_GET_PARAM, &g) < 0) {
		int e = errno;
		if (og_sys_errno_gone(e))
			return mark_gone(p, "GET_PARAM", e);
		LOG(p, "panfrost: GET_PARAM %u on %s failed: %s; the kernel's panfrost driver is "
		       "too old or not panfrost", (unsigned)param, p->path, strerror(e));
		return GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED;
	}
	*value = g.value;
	return GPA_STATUS_OK;
}

static GPA_Status read_gpu(struct panfrost *p)
{
	uint64_t prod, rev, shader, l2f, mem;
	GPA_Status st = get_param(p, OG_PANFROST_PARAM_GPU_PROD_ID, &prod);
	if (st == GPA_STATUS_OK)
		st = get_param(p, OG_PANFROST_PARAM_GPU_REVISION, &rev);
	if (st == GPA_STATUS_OK)
		st = get_param(p, OG_PANFROST_PARAM_SHADER_PRESENT, &shader);
	if (st == GPA_STATUS_OK)
		st = get_param(p, OG_PANFROST_PARAM_L2_FEATURES, &l2f);
	if (st == GPA_STATUS_OK)
		st = get_param(p, OG_PANFROST_PARAM_MEM_FEATURES, &mem);
	if (st != GPA_STATUS_OK)
		return st;
	p->gpu.product_id = (uint32_t)prod;
	p->gpu.revision = (uint32_t)(rev & 0xFFFFu);
	p->gpu.core_mask = shader;
	/* The kernel sizes the dump from MEM_FEATURES bits 11:8 (slices - 1). */
	p->gpu.l2_slices = (uint32_t)((mem >> 8) & 0xFu) + 1u;
	uint32_t log2_bus = (uint32_t)((l2f >> 24) & 0xFFu);
	p->gpu.bus_width_bits = log2_bus < 31 ? 1u << log2_bus : 0u;
	st = og_mali_check_gpu(&p->host, "panfrost", &p->gpu, OG_MALI_FRONTEND_JM);
	/* og_mali_check_gpu refuses every GPU the layout cannot describe. */
	if (st == GPA_STATUS_OK && !og_mali_layout_init(&p->gpu, &p->layout)) {
		LOG(p, "panfrost: cannot lay out the dumps of %s (core mask 0x%llx, %u L2 slices); "
		       "report this as an opengpa bug", p->path, (unsigned long long)p->gpu.core_mask,
		    (unsigned)p->gpu.l2_slices);
		return GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED;
	}
	/* What a dump holds: the layout's blocks (per-instance values). */
	memset(p->instances, 0, sizeof p->instances);
	p->instances[OG_MALI_FE] = p->instances[OG_MALI_TILER] = 1;
	p->instances[OG_MALI_L2] = (uint16_t)p->gpu.l2_slices;
	p->instances[OG_MALI_SC] = (uint16_t)__builtin_popcountll(p->gpu.core_mask);
	return st;
}

static GPA_Status perfcnt_enable(struct panfrost *p)
{
	struct og_panfrost_perfcnt_enable en = {1, 0};
	if (p_ioctl(p->host.sys, p->fd, OG_PANFROST_PERFCNT_ENABLE, &en) == 0) {
		p->enabled = true;
		return GPA_STATUS_OK;
	}
	int e = errno;
	if (e == ENOSYS) {
		LOG(p, "panfrost: PERFCNT_ENABLE on %s: ENOSYS, the unstable perfcnt ioctls are off; "
		       "turn them on with: " UNSTABLE_CMD " (or boot with "
		       "panfrost.unstable_ioctls=1)", p->path);
		return GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED;
	}
	if (e == EBUSY) {
		LOG(p, "panfrost: PERFCNT_ENABLE on %s: EBUSY, another process owns the GPU counters "
		       "(a second profiler or opengpa context); stop it and retry", p->path);
		return GPA_STATUS_ERROR_FAILED;
	}
	if (og_sys_errno_gone(e))
		return mark_gone(p, "PERFCNT_ENABLE", e);
	LOG(p, "panfrost: PERFCNT_ENABLE on %s failed: %s", p->path, strerror(e));
	return GPA_STATUS_ERROR_FAILED;
}

static void release(struct panfrost *p)
{
	const struct og_sys *sys = p->host.sys;
	if (p->fd >= 0 && p->enabled && !p->gone) {
		struct og_panfrost_perfcnt_enable off = {0, 0};
		p_ioctl(sys, p->fd, OG_PANFROST_PERFCNT_ENABLE, &off);
	}
	og_sys_close_fd(sys, &p->fd);
	p->enabled = false;
	free(p->dump);
	p->dump = NULL;
	free(p->pass_ids);
	p->pass_ids = NULL;
	og_mali_picks_free(&p->picks);
}

static GPA_Status pf_open(const struct og_backend_host *host, const char *options, void **state,
                          struct og_device_info *info)
{
	static const char *const known[] = {"device", NULL};
	if (!host || !host->sys || !state || !info)
		return GPA_STATUS_ERROR_NULL_POINTER;
	const char *bad = og_option_unknown(options, known);
	if (bad) {
		og_mali_log(host, OG_LOG_ERROR,
		            "panfrost: unknown option '%.*s'; the panfrost backend takes device=PATH",
		            (int)strcspn(bad, ","), bad);
		return GPA_STATUS_ERROR_FAILED;
	}
	/* Its totals are 64-byte aligned (mali_common.h). */
	struct panfrost *p = aligned_alloc(_Alignof(struct panfrost), sizeof *p);
	if (p)
		memset(p, 0, sizeof *p);
	if (!p) {
		og_mali_log(host, OG_LOG_ERROR, "panfrost: out of memory for the backend state");
		return GPA_STATUS_ERROR_FAILED;
	}
	p->host = *host;
	p->fd = -1;
	char forced[256];
	bool have_forced = og_option_get(options, "device", forced, sizeof forced);

	GPA_Status st = find_node(p, have_forced ? forced : NULL);
	if (st == GPA_STATUS_OK)
		st = read_gpu(p);
	if (st == GPA_STATUS_OK) {
		p->dump_bytes = p->layout.dump_bytes;
		/* Whole blocks of 256 bytes: on cache lines, as the kernel's rings
		 * are, the sum's loads never straddle two (mali_sum.c). */
		p->dump = aligned_alloc(64, p->dump_bytes);
		if (p->dump)
			memset(p->dump, 0, p->dump_bytes);
		if (!p->dump) {
			LOG(p, "panfrost: out of memory for a %zu-byte dump buffer", p->dump_bytes);
			st = GPA_STATUS_ERROR_FAILED;
		}
	}
	if (st == GPA_STATUS_OK)
		st = perfcnt_enable(p);
	if (st != GPA_STATUS_OK) {
		release(p);
		free(p);
		return st;
	}
	og_mali_fill_info(&p->gpu, info);
	og_mali_log(host, OG_LOG_MESSAGE,
	            "panfrost: %s on %s, %u L2 slices, %u-bit bus, %zu-byte dumps", info->description,
	            p->path, (unsigned)p->gpu.l2_slices, (unsigned)p->gpu.bus_width_bits,
	            p->dump_bytes);
	*state = p;
	return GPA_STATUS_OK;
}

static void pf_close(void *state)
{
	struct panfrost *p = state;
	if (!p)
		return;
	release(p);
	free(p);
}

/* Why raw counter id cannot be counted here, or NULL. */
static const char *pf_why_not(const struct panfrost *p, uint32_t id)
{
	const char *why = NULL;
	if (og_mali_raw_is_instance(id)) {
		uint32_t block, instance, index;
		og_mali_raw_instance_of(id, &block, &instance, &index);
		why = pf_why_not(p, og_mali_raw_instance_total(id));
		return why ? why : og_mali_instance_why_not(&p->gpu, p->instances, block, instance);
	}
	if (id == OG_MALI_RAW_TIME_NS)
		return NULL;
	if (id >= OG_MALI_RAW_CYCLES_TOP)
		why = "panfrost dumps carry no cycle counts (kbase reader metadata only)";
	else if (og_mali_raw_block(id) >= OG_MALI_FW)
		why = "firmware and command-stream-group blocks exist on CSF GPUs, which "
		      "panfrost does not drive";
	else if (og_mali_raw_index(id) >= OG_MALI_V5_WORDS)
		why = "panfrost dumps carry 64 values per block";
	return why;
}

static GPA_Status pf_bind_raw(void *state, const char *name, const char *source, uint32_t *raw_id,
                              const char **why_not)
{
	struct panfrost *p = state;
	(void)name;
	GPA_Status st = og_mali_parse_source(source, raw_id, why_not);
	if (st != GPA_STATUS_OK)
		return st;
	*why_not = pf_why_not(p, *raw_id);
	return *why_not ? GPA_STATUS_ERROR_NOT_FOUND : GPA_STATUS_OK;
}

static size_t pf_raw_instances(void *state, uint32_t raw_id, struct og_raw_instance *out,
                               size_t max)
{
	struct panfrost *p = state;
	if (raw_id >= OG_MALI_HW_RAW || pf_why_not(p, raw_id))
		return 0;
	return og_mali_raw_instances(&p->gpu, p->instances, raw_id, out, max);
}

static uint64_t pf_instances_key(void *state)
{
	struct panfrost *p = state;
	return og_mali_instances_key(&p->gpu, p->instances, 2);
}

static bool pf_counts_instances(void *state, const char *name)
{
	(void)state;
	return og_mali_counts_instances(name);
}

static GPA_Status pf_constant(void *state, const char *name, double *value)
{
	struct panfrost *p = state;
	return og_mali_constant(&p->gpu, name, value);
}

static bool pf_fits(void *state, const uint32_t *raw_ids, size_t n)
{
	(void)state;
	for (size_t i = 0; i < n; i++)
		if (raw_ids[i] >= OG_MALI_RAW_CYCLES_TOP && raw_ids[i] != OG_MALI_RAW_TIME_NS &&
		    !og_mali_raw_is_instance(raw_ids[i]))
			return false;
	return true;
}

/* The dump carries no time: the sample's duration is measured around it. */
static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The kernel copies exactly dump_bytes (its own size, computed from the
 * same registers we read), into our buffer of that size. */
static GPA_Status dump(struct panfrost *p)
{
	if (p->gone) {
		LOG(p, "panfrost: %s is gone; open a new context", p->path);
		return GPA_STATUS_ERROR_FAILED;
	}
	struct og_panfrost_perfcnt_dump d = {(uint64_t)(uintptr_t)p->dump};
	if (p_ioctl(p->host.sys, p->fd, OG_PANFROST_PERFCNT_DUMP, &d) == 0) {
		/* The kernel copies the GPU's own buffer, which the GPU writes
		 * little-endian; a big-endian CPU sees every word swapped.  (kbase
		 * dumps need nothing: its kernel writes them with CPU stores.) */
		for (size_t i = 0; __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ &&
		                   i < p->dump_bytes / sizeof p->dump[0]; i++)
			p->dump[i] = __builtin_bswap32(p->dump[i]);
		return GPA_STATUS_OK;
	}
	int e = errno;
	if (e == ETIMEDOUT) {
		LOG(p, "panfrost: PERFCNT_DUMP on %s timed out (the GPU did not finish the sample "
		       "within the kernel's 1 s); the sample is dropped", p->path);
		return GPA_STATUS_ERROR_FAILED;
	}
	if (e == EINVAL) {
		LOG(p, "panfrost: PERFCNT_DUMP on %s: EINVAL, this file no longer owns the counters "
		       "(were they disabled by another client?); the sample is dropped", p->path);
		return GPA_STATUS_ERROR_FAILED;
	}
	if (e == EINTR || e == EAGAIN) {
		LOG(p, "panfrost: PERFCNT_DUMP on %s was interrupted by signals %d times in a row; "
		       "the sample is dropped (block or slow down the signal, then sample again)",
		    p->path, OG_SYS_RETRIES);
		return GPA_STATUS_ERROR_FAILED;
	}
	if (og_sys_errno_gone(e))
		return mark_gone(p, "PERFCNT_DUMP", e);
	LOG(p, "panfrost: PERFCNT_DUMP on %s failed: %s; the sample is dropped", p->path,
	    strerror(e));
	return GPA_STATUS_ERROR_FAILED;
}

static GPA_Status pf_begin_pass(void *state, const uint32_t *raw_ids, size_t n)
{
	struct panfrost *p = state;
	if (!pf_fits(p, raw_ids, n)) {
		LOG(p, "panfrost: begin_pass got a raw id this backend never bound");
		return GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE;
	}
	uint32_t *ids;
	struct og_mali_picks picks;
	if (!og_mali_pass_new(&p->host, "panfrost", raw_ids, n, &ids, &picks))
		return GPA_STATUS_ERROR_FAILED;
	free(p->pass_ids);
	p->pass_ids = ids;
	p->pass_n = n;
	og_mali_picks_free(&p->picks);
	p->picks = picks;
	return GPA_STATUS_OK;
}

static GPA_Status pf_end_pass(void *state)
{
	struct panfrost *p = state;
	free(p->pass_ids);
	p->pass_ids = NULL;
	p->pass_n = 0;
	og_mali_picks_free(&p->picks);
	return GPA_STATUS_OK;
}

static GPA_Status pf_begin_sample(void *state)
{
	struct panfrost *p = state;
	GPA_Status st = dump(p);
	p->begin_ns = now_ns();
	return st;
}

static GPA_Status pf_end_sample(void *state, uint64_t *deltas)
{
	struct panfrost *p = state;
	uint64_t end_ns = now_ns();
	GPA_Status st = dump(p);
	if (st != GPA_STATUS_OK)
		return st;
	if (!og_mali_sum_dump(&p->layout, p->dump, p->dump_bytes, &p->totals)) {
		LOG(p, "panfrost: a %zu-byte dump buffer is too small for the %zu-byte layout; the "
		       "sample is dropped", p->dump_bytes, p->layout.dump_bytes);
		return GPA_STATUS_ERROR_FAILED;
	}
	if (p->picks.n)
		og_mali_pick_v5(&p->gpu, p->dump, p->dump_bytes, &p->picks);
	for (size_t i = 0, j = 0; i < p->pass_n; i++) {
		uint32_t id = p->pass_ids[i];
		if (og_mali_raw_is_instance(id)) /* the picks, in pass order */
			deltas[i] = j < p->picks.n ? p->picks.value[j++] : 0;
		else
			deltas[i] = id == OG_MALI_RAW_TIME_NS
			                    ? (end_ns > p->begin_ns ? end_ns - p->begin_ns : 0)
			                    : og_mali_total(&p->totals, id);
	}
	return GPA_STATUS_OK;
}

const struct og_backend_ops og_backend_panfrost = {
	.name = "panfrost",
	.summary = "Arm Mali GPUs on the upstream panfrost DRM driver (perfcnt ioctls); "
	           "Mali-G31 to Mali-G78",
	.open = pf_open,
	.close = pf_close,
	.bind_raw = pf_bind_raw,
	.constant = pf_constant,
	.fits = pf_fits,
	.extra_raw = NULL,
	.raw_instances = pf_raw_instances,
	.instances_key = pf_instances_key,
	.constant_counts_instances = pf_counts_instances,
	.set_option = NULL,
	.begin_pass = pf_begin_pass,
	.end_pass = pf_end_pass,
	.begin_sample = pf_begin_sample,
	.end_sample = pf_end_sample,
	/* The hardware clears its counters at every dump, so the dump that
	 * ends a periodic sample also begins the next. */
	.next_sample = pf_end_sample,
};
