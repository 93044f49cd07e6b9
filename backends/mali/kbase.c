/* SPDX-License-Identifier: MIT */
/*
 * kbase.c — the `mali` backend: Arm's kbase driver (/dev/mali0) and its
 * hwcnt reader ("vinstr"), for JM drivers with UK 11.x below 11.40.
 *
 * One reader is set up when the context opens, with every counter of every
 * block enabled, so any set of raw counters fits in one pass.  Each sample
 * is two manual dumps: the kernel hands each client the counts since its
 * previous dump, so the dump at sample end holds exactly the sample's
 * deltas and the one at sample begin only marks the start.
 *
 * A periodic pass lets the kernel time the dumps (SET_INTERVAL): they queue
 * in the reader's ring, stamped, while the process sleeps or is stopped,
 * and read_periodic takes them in order.  A full ring makes the kernel skip
 * a period's dump; its counts stay for the next one, which is then longer
 * than a period: reported as an overflow.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "backend.h"
#include "kbase_props.h"
#include "mali_common.h"
#include "mali_sum.h"
#include "mali_uapi.h"

#define DEFAULT_DEVICE "/dev/mali0"
#define DEFAULT_TIMEOUT_MS 1000
#define MAX_PROPS_BYTES (1u << 20)
#define EINTR_RETRIES 64

struct kbase {
	struct og_backend_host host;
	char path[256];
	int dev_fd;
	int reader_fd;
	struct og_mali_gpu gpu;
	struct og_mali_layout layout;
	uint16_t uk_major, uk_minor;
	uint32_t buffer_count;
	size_t buffer_size;
	const uint8_t *ring;
	size_t ring_len;
	uint32_t features;
	int timeout_ms;
	bool gone; /* the device went away: every later call fails fast */
	bool in_pass;
	uint32_t *pass_ids;
	size_t pass_n;
	struct og_mali_totals totals;
	bool new_vinstr; /* answers WITH_FEATURES: the virtualizer-based vinstr */
	/* Times of the dumps, CLOCK_MONOTONIC: the last one consumed (where the
	 * next sample begins) and the sample it ended. */
	uint64_t dump_ns;
	struct og_sample_time last;
	/* Periodic pass: its period (0: none), and whether SET_INTERVAL is on. */
	uint64_t period_ns;
	bool interval_on;
	uint64_t dump_raw; /* the last dump's kernel timestamp */
	unsigned merged;   /* periods the kernel dropped, this pass */
};

#define LOG(k, ...) og_mali_log(&(k)->host, OG_LOG_ERROR, __VA_ARGS__)

static int k_ioctl(struct kbase *k, int fd, unsigned long req, void *arg)
{
	int r;
	int tries = 0;
	do
		r = k->host.sys->ioctl(k->host.sys->ctx, fd, req, arg);
	while (r < 0 && errno == EINTR && ++tries < EINTR_RETRIES);
	return r;
}

/* errno values that mean the driver or the device is no longer there. */
static bool errno_gone(int e)
{
	return e == ENODEV || e == ENXIO || e == EIO || e == ESHUTDOWN || e == EBADF ||
	       e == EPIPE;
}

static GPA_Status mark_gone(struct kbase *k, const char *what, int e)
{
	k->gone = true;
	LOG(k, "mali: %s failed: %s (%s went away during the session); close the context and "
	       "open a new one once the driver is back (check dmesg for a GPU reset)",
	    what, strerror(e), k->path);
	return GPA_STATUS_ERROR_FAILED;
}

static void release(struct kbase *k)
{
	const struct og_sys *sys = k->host.sys;
	if (k->ring)
		sys->munmap(sys->ctx, (void *)k->ring, k->ring_len);
	k->ring = NULL;
	if (k->reader_fd >= 0)
		sys->close(sys->ctx, k->reader_fd);
	k->reader_fd = -1;
	if (k->dev_fd >= 0)
		sys->close(sys->ctx, k->dev_fd);
	k->dev_fd = -1;
	free(k->pass_ids);
	k->pass_ids = NULL;
}

static GPA_Status open_device(struct kbase *k)
{
	const struct og_sys *sys = k->host.sys;
	k->dev_fd = sys->open(sys->ctx, k->path, O_RDWR | O_CLOEXEC, 0);
	if (k->dev_fd >= 0)
		return GPA_STATUS_OK;
	int e = errno;
	if (e == EACCES || e == EPERM) {
		LOG(k, "mali: cannot open %s: %s; add your user to the group that owns it "
		       "(ls -l %s; often 'video' or 'gpu') or install a udev rule giving it mode 0666",
		    k->path, strerror(e), k->path);
		return GPA_STATUS_ERROR_FAILED;
	}
	LOG(k, "mali: no kbase device: tried %s (%s); load Arm's kbase driver (mali_kbase), "
	       "use backend 'panfrost' on the upstream driver, or pass device=PATH",
	    k->path, strerror(e));
	return GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED;
}

/* JM first, then CSF, then the pre-r21 UK call, and say which interface a
 * driver we cannot read would need. */
static GPA_Status check_version(struct kbase *k)
{
	struct og_kbase_version_check v = {0, 0};
	if (k_ioctl(k, k->dev_fd, OG_KBASE_VERSION_CHECK_JM, &v) >= 0 && (v.major || v.minor)) {
		k->uk_major = v.major;
		k->uk_minor = v.minor;
		if (v.major != OG_KBASE_JM_MAJOR) {
			LOG(k, "mali: %s speaks JM UK %u.%u; this backend reads the hwcnt reader of "
			       "JM UK 11.x (DDK r21 or later, before UK 11.40)",
			    k->path, v.major, v.minor);
			return GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED;
		}
		if (v.minor >= OG_KBASE_JM_READER_REMOVED_MINOR) {
			LOG(k, "mali: %s is JM UK %u.%u, which removed the hwcnt reader (UK 11.40); "
			       "its counters need the kinstr_prfcnt interface, not implemented in "
			       "opengpa yet; use a DDK with UK < 11.40 or the panfrost driver",
			    k->path, v.major, v.minor);
			return GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED;
		}
		return GPA_STATUS_OK;
	}
	if (errno == ENODEV || errno == ENXIO || errno == EIO)
		return mark_gone(k, "VERSION_CHECK", errno);
	struct og_kbase_version_check c = {0, 0};
	if (k_ioctl(k, k->dev_fd, OG_KBASE_VERSION_CHECK_CSF, &c) >= 0 && (c.major || c.minor)) {
		LOG(k, "mali: %s is a CSF kbase driver (UK %u.%u, Mali-G310/G510/G610/G710 class); "
		       "CSF counters are read through kinstr_prfcnt, which opengpa does not "
		       "implement yet", k->path, c.major, c.minor);
		return GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED;
	}
	struct og_kbase_uk_version_check u = {0, 0, 0, 0};
	if (k_ioctl(k, k->dev_fd, OG_KBASE_UK_VERSION_CHECK, &u) >= 0 && (u.major || u.minor)) {
		LOG(k, "mali: %s is a pre-r21 kbase driver (legacy UK %u.%u ioctls); opengpa speaks "
		       "the r21+ ioctl interface only: update the DDK to r21 or later",
		    k->path, u.major, u.minor);
		return GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED;
	}
	LOG(k, "mali: %s answered no VERSION_CHECK (JM, CSF or legacy UK); it is not an Arm kbase "
	       "device, pass device=PATH to the right node", k->path);
	return GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED;
}

static GPA_Status read_props(struct kbase *k)
{
	struct og_kbase_set_flags f = {OG_KBASE_CTX_SYSTEM_MONITOR};
	if (k_ioctl(k, k->dev_fd, OG_KBASE_SET_FLAGS, &f) < 0) {
		int e = errno;
		/* EPERM: the context was already set up (the flags then stay as they
		 * were, which is harmless for counting); EINVAL: an old driver
		 * without the system-monitor flag. */
		if (e != EPERM && e != EINVAL) {
			if (errno_gone(e))
				return mark_gone(k, "SET_FLAGS", e);
			LOG(k, "mali: SET_FLAGS on %s failed: %s; the driver refused a "
			       "counters-only context", k->path, strerror(e));
			return GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED;
		}
		og_mali_log(&k->host, OG_LOG_MESSAGE, "mali: SET_FLAGS on %s: %s (ignored)", k->path,
		            strerror(e));
	}

	struct og_kbase_get_gpuprops q = {0, 0, 0};
	int need = k_ioctl(k, k->dev_fd, OG_KBASE_GET_GPUPROPS, &q);
	if (need <= 0 || (unsigned)need > MAX_PROPS_BYTES) {
		if (need < 0 && errno_gone(errno))
			return mark_gone(k, "GET_GPUPROPS", errno);
		LOG(k, "mali: GET_GPUPROPS size query on %s gave %d (%s); expected 1..%u bytes, the "
		       "driver is not usable", k->path, need, need < 0 ? strerror(errno) : "no error",
		    MAX_PROPS_BYTES);
		return GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED;
	}
	uint8_t *blob = calloc(1, (size_t)need);
	if (!blob) {
		LOG(k, "mali: out of memory for %d bytes of GPU properties", need);
		return GPA_STATUS_ERROR_FAILED;
	}
	q.buffer = (uint64_t)(uintptr_t)blob;
	q.size = (uint32_t)need;
	int got = k_ioctl(k, k->dev_fd, OG_KBASE_GET_GPUPROPS, &q);
	if (got <= 0 || got > need) {
		int e = errno;
		free(blob);
		if (got < 0 && errno_gone(e))
			return mark_gone(k, "GET_GPUPROPS", e);
		LOG(k, "mali: GET_GPUPROPS on %s returned %d for a %d-byte buffer (%s); refusing a "
		       "property blob of the wrong size", k->path, got, need,
		    got < 0 ? strerror(e) : "no error");
		return GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED;
	}
	const char *why;
	bool ok = og_mali_decode_props(blob, (size_t)got, &k->gpu, &why);
	free(blob);
	if (!ok) {
		LOG(k, "mali: cannot decode the GPU properties of %s: %s; report the driver version",
		    k->path, why);
		return GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED;
	}
	GPA_Status st = og_mali_check_gpu(&k->host, "mali", &k->gpu);
	/* og_mali_check_gpu refuses every GPU the layout cannot describe. */
	if (st == GPA_STATUS_OK && !og_mali_layout_init(&k->gpu, &k->layout)) {
		LOG(k, "mali: cannot lay out the dumps of %s (core mask 0x%llx, %u L2 slices); "
		       "report this as an opengpa bug", k->path, (unsigned long long)k->gpu.core_mask,
		    (unsigned)k->gpu.l2_slices);
		return GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED;
	}
	return st;
}

/* 32 buffers, halving on ENOMEM: old drivers allocate the ring as one
 * physically contiguous block, which fragmented memory may not have. */
static GPA_Status setup_reader(struct kbase *k)
{
	struct og_kbase_hwcnt_reader_setup s;
	for (uint32_t n = OG_KBASE_READER_MAX_BUFFERS; n >= 1; n /= 2) {
		s = (struct og_kbase_hwcnt_reader_setup){n, ~0u, ~0u, ~0u, ~0u};
		int fd = k_ioctl(k, k->dev_fd, OG_KBASE_HWCNT_READER_SETUP, &s);
		if (fd >= 0) {
			k->reader_fd = fd;
			k->buffer_count = n;
			return GPA_STATUS_OK;
		}
		int e = errno;
		if (e == ENOMEM)
			continue;
		if (errno_gone(e))
			return mark_gone(k, "HWCNT_READER_SETUP", e);
		if (e == EBUSY) {
			LOG(k, "mali: HWCNT_READER_SETUP on %s: %s; another profiler holds the "
			       "counters, stop it (gatord, a second opengpa context) and retry",
			    k->path, strerror(e));
			return GPA_STATUS_ERROR_FAILED;
		}
		LOG(k, "mali: HWCNT_READER_SETUP on %s failed: %s; the driver refused a counter "
		       "reader (built without hwcnt support, or kbase too old)", k->path, strerror(e));
		return GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED;
	}
	LOG(k, "mali: HWCNT_READER_SETUP on %s: out of memory even for 1 dump buffer; free memory "
	       "(echo 3 > /proc/sys/vm/drop_caches) and retry", k->path);
	return GPA_STATUS_ERROR_FAILED;
}

static GPA_Status reader_ioctl_failed(struct kbase *k, const char *what, int e)
{
	if (errno_gone(e))
		return mark_gone(k, what, e);
	LOG(k, "mali: reader %s failed: %s; the driver's hwcnt reader does not behave as "
	       "documented", what, strerror(e));
	return GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED;
}

static GPA_Status map_reader(struct kbase *k)
{
	struct og_kbase_reader_api_version av = {0, 0};
	k->new_vinstr = true;
	if (k_ioctl(k, k->reader_fd, OG_KBASE_READER_GET_API_VERSION_WITH_FEATURES, &av) < 0) {
		/* Drivers before the extension match the whole command word and
		 * reject the 8-byte form: ask the plain way. */
		uint32_t v = 0;
		if (k_ioctl(k, k->reader_fd, OG_KBASE_READER_GET_API_VERSION, &v) < 0)
			return reader_ioctl_failed(k, "GET_API_VERSION", errno);
		av.version = v;
		av.features = 0;
		k->new_vinstr = false;
	}
	if (av.version != OG_KBASE_READER_API) {
		LOG(k, "mali: hwcnt reader API version %u; this backend speaks version 1",
		    (unsigned)av.version);
		return GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED;
	}
	k->features = av.features & (OG_KBASE_READER_FEATURE_CYCLES_TOP |
	                             OG_KBASE_READER_FEATURE_CYCLES_SHADER);

	uint32_t hwver = 0;
	if (k_ioctl(k, k->reader_fd, OG_KBASE_READER_GET_HWVER, &hwver) < 0)
		return reader_ioctl_failed(k, "GET_HWVER", errno);
	if (hwver != OG_KBASE_READER_HWVER_V5) {
		LOG(k, "mali: the reader reports dump layout version %u; Mali-G71 dumps use "
		       "version 5, refusing to read an unknown layout", (unsigned)hwver);
		return GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED;
	}

	uint32_t size = 0;
	if (k_ioctl(k, k->reader_fd, OG_KBASE_READER_GET_BUFFER_SIZE, &size) < 0)
		return reader_ioctl_failed(k, "GET_BUFFER_SIZE", errno);
	size_t expect = k->layout.dump_bytes;
	if (size != expect) {
		LOG(k, "mali: the reader's buffer is %u bytes but the GPU properties (%u L2 slices, "
		       "core mask 0x%llx) imply %zu; refusing a layout that disagrees with the "
		       "hardware description", (unsigned)size, (unsigned)k->gpu.l2_slices,
		    (unsigned long long)k->gpu.core_mask, expect);
		return GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED;
	}
	k->buffer_size = size;
	k->ring_len = (size_t)k->buffer_count * size;
	void *ring = k->host.sys->mmap(k->host.sys->ctx, NULL, k->ring_len, PROT_READ, MAP_PRIVATE,
	                               k->reader_fd, 0);
	if (ring == MAP_FAILED) {
		int e = errno;
		if (errno_gone(e))
			return mark_gone(k, "mmap of the dump ring", e);
		LOG(k, "mali: mmap of %zu bytes of dump ring failed: %s", k->ring_len, strerror(e));
		return GPA_STATUS_ERROR_FAILED;
	}
	k->ring = ring;
	return GPA_STATUS_OK;
}

static GPA_Status kbase_open(const struct og_backend_host *host, const char *options, void **state,
                             struct og_device_info *info)
{
	static const char *const known[] = {"device", "timeout", NULL};
	if (!host || !host->sys || !state || !info)
		return GPA_STATUS_ERROR_NULL_POINTER;
	const char *bad = og_option_unknown(options, known);
	if (bad) {
		og_mali_log(host, OG_LOG_ERROR,
		            "mali: unknown option '%.*s'; the mali backend takes device=PATH and "
		            "timeout=MS", (int)strcspn(bad, ","), bad);
		return GPA_STATUS_ERROR_FAILED;
	}
	struct kbase *k = calloc(1, sizeof *k);
	if (!k) {
		og_mali_log(host, OG_LOG_ERROR, "mali: out of memory for the backend state");
		return GPA_STATUS_ERROR_FAILED;
	}
	k->host = *host;
	k->dev_fd = k->reader_fd = -1;
	k->timeout_ms = DEFAULT_TIMEOUT_MS;
	if (!og_option_get(options, "device", k->path, sizeof k->path))
		strcpy(k->path, DEFAULT_DEVICE);
	char tbuf[16];
	if (og_option_get(options, "timeout", tbuf, sizeof tbuf)) {
		char *end;
		long t = strtol(tbuf, &end, 10);
		if (*end || t < 1 || t > 600000) {
			og_mali_log(host, OG_LOG_ERROR,
			            "mali: timeout=%s is not a number of milliseconds in 1..600000", tbuf);
			free(k);
			return GPA_STATUS_ERROR_FAILED;
		}
		k->timeout_ms = (int)t;
	}

	GPA_Status st = open_device(k);
	if (st == GPA_STATUS_OK)
		st = check_version(k);
	if (st == GPA_STATUS_OK)
		st = read_props(k);
	if (st == GPA_STATUS_OK)
		st = setup_reader(k);
	if (st == GPA_STATUS_OK)
		st = map_reader(k);
	if (st != GPA_STATUS_OK) {
		release(k);
		free(k);
		return st;
	}
	og_mali_fill_info(&k->gpu, info);
	og_mali_log(host, OG_LOG_MESSAGE,
	            "mali: %s on %s, JM UK %u.%u, %u L2 slices, %u-bit bus, %u dump buffers of %zu "
	            "bytes, reader features 0x%x", info->description, k->path, k->uk_major,
	            k->uk_minor, (unsigned)k->gpu.l2_slices, (unsigned)k->gpu.bus_width_bits,
	            (unsigned)k->buffer_count, k->buffer_size, (unsigned)k->features);
	*state = k;
	return GPA_STATUS_OK;
}

static void kbase_close(void *state)
{
	struct kbase *k = state;
	if (!k)
		return;
	release(k);
	free(k);
}

static GPA_Status kbase_bind_raw(void *state, const char *name, const char *source,
                                 uint32_t *raw_id, const char **why_not)
{
	struct kbase *k = state;
	(void)name;
	GPA_Status st = og_mali_parse_source(source, raw_id, why_not);
	if (st != GPA_STATUS_OK)
		return st;
	if (*raw_id == OG_MALI_RAW_CYCLES_TOP && !(k->features & OG_KBASE_READER_FEATURE_CYCLES_TOP)) {
		*why_not = "this kbase reader reports no GPU cycle counts (needs JM UK 11.27 or later)";
		return GPA_STATUS_ERROR_NOT_FOUND;
	}
	/* A GPU with one clock domain reports only the top count: its shader
	 * cores run on that clock, so consume() hands the top count out as the
	 * shader-core count, as libGPUCounters does (docs/backends/mali.md). */
	if (*raw_id == OG_MALI_RAW_CYCLES_SHADER &&
	    !(k->features & (OG_KBASE_READER_FEATURE_CYCLES_SHADER |
	                     OG_KBASE_READER_FEATURE_CYCLES_TOP))) {
		*why_not = "this kbase reader reports no cycle counts (needs JM UK 11.27 or later)";
		return GPA_STATUS_ERROR_NOT_FOUND;
	}
	return GPA_STATUS_OK;
}

static GPA_Status kbase_constant(void *state, const char *name, double *value)
{
	struct kbase *k = state;
	return og_mali_constant(&k->gpu, name, value);
}

static bool kbase_fits(void *state, const uint32_t *raw_ids, size_t n)
{
	(void)state;
	for (size_t i = 0; i < n; i++)
		if (raw_ids[i] >= OG_MALI_RAW_COUNT)
			return false;
	return true;
}

static bool use_cycles(const struct kbase *k)
{
	return k->features != 0;
}

static int get_buffer(struct kbase *k, struct og_kbase_reader_metadata *md)
{
	memset(md, 0, sizeof *md);
	return k_ioctl(k, k->reader_fd,
	               use_cycles(k) ? OG_KBASE_READER_GET_BUFFER_WITH_CYCLES
	                             : OG_KBASE_READER_GET_BUFFER, md);
}

static int put_buffer(struct kbase *k, struct og_kbase_reader_metadata *md)
{
	return k_ioctl(k, k->reader_fd,
	               use_cycles(k) ? OG_KBASE_READER_PUT_BUFFER_WITH_CYCLES
	                             : OG_KBASE_READER_PUT_BUFFER, md);
}

/* Hands back whatever filled buffers are waiting (a dump that arrived after
 * its sample timed out), so the next GET_BUFFER returns the dump we ask for. */
static GPA_Status drain(struct kbase *k)
{
	for (uint32_t i = 0; i <= k->buffer_count; i++) {
		struct pollfd p = {k->reader_fd, POLLIN, 0};
		int r = k->host.sys->poll(k->host.sys->ctx, &p, 1, 0);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return mark_gone(k, "poll", errno);
		if (r == 0 || !(p.revents & POLLIN))
			return (p.revents & (POLLHUP | POLLERR | POLLNVAL)) ? mark_gone(k, "poll", ENODEV)
			                                                     : GPA_STATUS_OK;
		struct og_kbase_reader_metadata md;
		if (get_buffer(k, &md) < 0) {
			if (errno == EAGAIN)
				return GPA_STATUS_OK;
			return reader_ioctl_failed(k, "GET_BUFFER", errno);
		}
		if (put_buffer(k, &md) < 0)
			return reader_ioctl_failed(k, "PUT_BUFFER", errno);
	}
	return GPA_STATUS_OK;
}

static GPA_Status wait_dump(struct kbase *k, const char *when)
{
	struct pollfd p = {k->reader_fd, POLLIN, 0};
	int r;
	int tries = 0;
	do
		r = k->host.sys->poll(k->host.sys->ctx, &p, 1, k->timeout_ms);
	while (r < 0 && errno == EINTR && ++tries < EINTR_RETRIES);
	if (r < 0)
		return errno == EINTR ? (LOG(k, "mali: poll kept being interrupted by signals "
		                                "while waiting for the %s dump; the sample is dropped "
		                                "(block or slow down the signal, then sample again)",
		                             when), GPA_STATUS_ERROR_FAILED)
		                      : mark_gone(k, "poll", errno);
	if (p.revents & (POLLHUP | POLLERR | POLLNVAL))
		return mark_gone(k, "poll", ENODEV);
	if (r == 0 || !(p.revents & POLLIN)) {
		LOG(k, "mali: the %s dump did not arrive within %d ms; the sample is dropped (GPU "
		       "hung or the driver is stalled; raise the wait with option timeout=MS)",
		    when, k->timeout_ms);
		return GPA_STATUS_ERROR_FAILED;
	}
	return GPA_STATUS_OK;
}

static GPA_Status request_dump(struct kbase *k, const char *when)
{
	if (k_ioctl(k, k->reader_fd, OG_KBASE_READER_DUMP, NULL) < 0) {
		int e = errno;
		if (e == EBUSY) {
			LOG(k, "mali: the %s DUMP was refused: the reader's ring is full; the sample is "
			       "dropped", when);
			return GPA_STATUS_ERROR_FAILED;
		}
		return reader_ioctl_failed(k, "DUMP", e);
	}
	return wait_dump(k, when);
}

/* Takes the oldest filled buffer, sums it into k->totals when want_totals,
 * and gives it back: one buffer held at a time, and never across calls.
 * *meta gets its metadata. */
static GPA_Status consume(struct kbase *k, bool want_totals, uint64_t *cyc_top,
                          uint64_t *cyc_shader, struct og_kbase_reader_metadata *meta)
{
	struct og_kbase_reader_metadata md;
	if (get_buffer(k, &md) < 0)
		return reader_ioctl_failed(k, "GET_BUFFER", errno);
	*meta = md;
	if (md.buffer_idx >= k->buffer_count) {
		LOG(k, "mali: the reader returned buffer index %u of a %u-buffer ring; ignoring that "
		       "dump, the sample is dropped", (unsigned)md.buffer_idx,
		    (unsigned)k->buffer_count);
		put_buffer(k, &md);
		return GPA_STATUS_ERROR_FAILED;
	}
	if (want_totals) {
		/* Host-endian by definition: the kernel's hwcnt accumulator writes
		 * the reader's buffers with CPU stores (panfrost's dumps, copied
		 * from the GPU, are little-endian instead). */
		const uint32_t *dump =
			(const uint32_t *)(const void *)(k->ring + (size_t)md.buffer_idx * k->buffer_size);
		if (!og_mali_sum_dump(&k->layout, dump, k->buffer_size, &k->totals)) {
			LOG(k, "mali: a %zu-byte dump buffer is too small for the %zu-byte layout; the "
			       "sample is dropped", k->buffer_size, k->layout.dump_bytes);
			put_buffer(k, &md);
			return GPA_STATUS_ERROR_FAILED;
		}
		*cyc_top = md.cycles_top;
		*cyc_shader = (k->features & OG_KBASE_READER_FEATURE_CYCLES_SHADER) ? md.cycles_shader
		                                                                      : md.cycles_top;
	}
	if (put_buffer(k, &md) < 0)
		return reader_ioctl_failed(k, "PUT_BUFFER", errno);
	return GPA_STATUS_OK;
}

static GPA_Status set_interval(struct kbase *k, uint32_t ns)
{
	if (k_ioctl(k, k->reader_fd, OG_KBASE_READER_SET_INTERVAL, (void *)(uintptr_t)ns) < 0)
		return reader_ioctl_failed(k, "SET_INTERVAL", errno);
	return GPA_STATUS_OK;
}

static GPA_Status kbase_begin_pass(void *state, const uint32_t *raw_ids, size_t n)
{
	struct kbase *k = state;
	if (k->gone) {
		LOG(k, "mali: %s is gone; open a new context", k->path);
		return GPA_STATUS_ERROR_FAILED;
	}
	if (!kbase_fits(k, raw_ids, n)) {
		LOG(k, "mali: begin_pass got a raw id this backend never bound");
		return GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE;
	}
	uint32_t *ids = NULL;
	if (n) {
		ids = malloc(n * sizeof *ids);
		if (!ids) {
			LOG(k, "mali: out of memory for a pass of %zu counters", n);
			return GPA_STATUS_ERROR_FAILED;
		}
		memcpy(ids, raw_ids, n * sizeof *ids);
	}
	GPA_Status st = drain(k);
	if (st == GPA_STATUS_OK && k_ioctl(k, k->reader_fd, OG_KBASE_READER_CLEAR, NULL) < 0)
		st = reader_ioctl_failed(k, "CLEAR", errno);
	if (st != GPA_STATUS_OK) {
		free(ids);
		return st;
	}
	free(k->pass_ids);
	k->pass_ids = ids;
	k->pass_n = n;
	k->in_pass = true;
	return GPA_STATUS_OK;
}

static GPA_Status kbase_end_pass(void *state)
{
	struct kbase *k = state;
	if (k->interval_on && !k->gone)
		set_interval(k, 0); /* the core never got to end_periodic */
	k->interval_on = false;
	k->period_ns = 0;
	free(k->pass_ids);
	k->pass_ids = NULL;
	k->pass_n = 0;
	k->in_pass = false;
	return GPA_STATUS_OK;
}

static void fill_deltas(const struct kbase *k, uint64_t top, uint64_t shader, uint64_t *deltas)
{
	for (size_t i = 0; i < k->pass_n; i++) {
		uint32_t id = k->pass_ids[i];
		if (id == OG_MALI_RAW_CYCLES_TOP)
			deltas[i] = top;
		else if (id == OG_MALI_RAW_CYCLES_SHADER)
			deltas[i] = shader;
		else
			deltas[i] = og_mali_total(&k->totals, id);
	}
}

static GPA_Status kbase_begin_sample(void *state)
{
	struct kbase *k = state;
	if (k->gone) {
		LOG(k, "mali: %s is gone; open a new context", k->path);
		return GPA_STATUS_ERROR_FAILED;
	}
	GPA_Status st = drain(k);
	if (st == GPA_STATUS_OK)
		st = request_dump(k, "sample-begin");
	struct og_kbase_reader_metadata md;
	if (st == GPA_STATUS_OK)
		st = consume(k, false, NULL, NULL, &md);
	if (st == GPA_STATUS_OK)
		k->dump_ns = og_clock_from_raw(md.timestamp);
	return st;
}

static GPA_Status kbase_end_sample(void *state, uint64_t *deltas)
{
	struct kbase *k = state;
	if (k->gone) {
		LOG(k, "mali: %s is gone; open a new context", k->path);
		return GPA_STATUS_ERROR_FAILED;
	}
	uint64_t top = 0, shader = 0;
	struct og_kbase_reader_metadata md;
	GPA_Status st = request_dump(k, "sample-end");
	if (st == GPA_STATUS_OK)
		st = consume(k, true, &top, &shader, &md);
	if (st != GPA_STATUS_OK)
		return st;
	fill_deltas(k, top, shader, deltas);
	/* This dump also begins the next sample (next_sample). */
	uint64_t end = og_clock_from_raw(md.timestamp);
	k->last = (struct og_sample_time){ k->dump_ns, end > k->dump_ns ? end : k->dump_ns,
		                           OG_SAMPLE_KERNEL_TIME };
	k->dump_ns = k->last.end_ns;
	return GPA_STATUS_OK;
}

static bool kbase_sample_time(void *state, struct og_sample_time *t)
{
	struct kbase *k = state;
	*t = k->last;
	return true;
}

/* ---- periodic passes: the kernel times the dumps ------------------------ */

static uint64_t kbase_period_floor(void *state, const char **why)
{
	struct kbase *k = state;
	*why = k->new_vinstr ? "the kbase reader's shortest SET_INTERVAL"
	                     : "the shortest SET_INTERVAL of this older kbase reader";
	return k->new_vinstr ? OG_KBASE_READER_INTERVAL_MIN_NS : OG_KBASE_READER_INTERVAL_MIN_OLD_NS;
}

static uint64_t raw_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC_RAW, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static GPA_Status kbase_begin_periodic(void *state, struct og_periodic_mode *mode)
{
	struct kbase *k = state;
	/* SET_INTERVAL takes a u32 of ns: longer periods are manual dumps from
	 * the core's timer thread (next_sample), timed by the kernel still. */
	if (mode->period_ns > UINT32_MAX)
		return GPA_STATUS_OK;
	/* begin_pass has just drained and cleared: the first sample starts
	 * now. */
	k->dump_raw = raw_now();
	k->dump_ns = og_clock_monotonic_ns();
	k->merged = 0;
	GPA_Status st = set_interval(k, (uint32_t)mode->period_ns);
	if (st != GPA_STATUS_OK)
		return st;
	k->period_ns = mode->period_ns;
	k->interval_on = true;
	mode->kernel_timed = true;
	mode->kernel_ring = k->buffer_count;
	return GPA_STATUS_OK;
}

static GPA_Status kbase_read_periodic(void *state, uint64_t *deltas, struct og_sample_time *t)
{
	struct kbase *k = state;
	if (k->gone) {
		LOG(k, "mali: %s is gone; open a new context", k->path);
		return GPA_STATUS_ERROR_FAILED;
	}
	struct pollfd p = {k->reader_fd, POLLIN, 0};
	int r = k->host.sys->poll(k->host.sys->ctx, &p, 1, 0);
	if (r < 0 && errno == EINTR)
		return GPA_STATUS_ERROR_NOT_FOUND; /* the next drain tries again */
	if (r < 0)
		return mark_gone(k, "poll", errno);
	if (p.revents & (POLLHUP | POLLERR | POLLNVAL))
		return mark_gone(k, "poll", ENODEV);
	if (r == 0 || !(p.revents & POLLIN))
		return GPA_STATUS_ERROR_NOT_FOUND;
	uint64_t top = 0, shader = 0;
	struct og_kbase_reader_metadata md;
	GPA_Status st = consume(k, true, &top, &shader, &md);
	if (st != GPA_STATUS_OK)
		return st;
	fill_deltas(k, top, shader, deltas);
	/* The kernel is an adversary: a timestamp that goes backwards makes an
	 * empty sample rather than a negative one. */
	uint64_t ts = md.timestamp > k->dump_raw ? md.timestamp : k->dump_raw;
	uint64_t span = ts - k->dump_raw;
	*t = (struct og_sample_time){ k->dump_ns, og_clock_from_raw(ts), OG_SAMPLE_KERNEL_TIME };
	if (t->end_ns < t->begin_ns)
		t->end_ns = t->begin_ns;
	/* A dump more than a period and a half after the one before (the last,
	 * manual, one included): the kernel had no buffer for the ones between. */
	if (k->period_ns && span > k->period_ns + k->period_ns / 2) {
		t->flags |= OG_SAMPLE_OVERFLOW;
		unsigned periods = (unsigned)((span + k->period_ns / 2) / k->period_ns);
		if (!k->merged)
			og_mali_log(&k->host, OG_LOG_MESSAGE,
			            "mali: the reader's ring of %u dumps was full for %u periods (the "
			            "process was not reading: stopped, or starved); the kernel kept their "
			            "counts in one sample of %.3f ms", (unsigned)k->buffer_count,
			            periods - 1, (double)span / 1e6);
		k->merged += periods - 1;
	}
	k->dump_raw = ts;
	k->dump_ns = t->end_ns;
	return GPA_STATUS_OK;
}

static GPA_Status kbase_end_periodic(void *state)
{
	struct kbase *k = state;
	if (!k->interval_on)
		return GPA_STATUS_OK;
	k->interval_on = false;
	GPA_Status st = set_interval(k, 0);
	/* The rest of the pass, in one last (manual) dump. */
	if (st == GPA_STATUS_OK)
		st = request_dump(k, "pass-end");
	if (k->merged)
		og_mali_log(&k->host, OG_LOG_MESSAGE,
		            "mali: %u periods of this pass were merged into longer samples because "
		            "the reader's ring was full; read more often or stop the process for "
		            "less than %u periods", k->merged, (unsigned)k->buffer_count);
	return st;
}

const struct og_backend_ops og_backend_mali = {
	.name = "mali",
	.summary = "Arm Mali GPUs on Arm's kbase driver (/dev/mali0, hwcnt reader); Mali-G71",
	.open = kbase_open,
	.close = kbase_close,
	.bind_raw = kbase_bind_raw,
	.constant = kbase_constant,
	.fits = kbase_fits,
	.extra_raw = NULL,
	.set_option = NULL,
	.begin_pass = kbase_begin_pass,
	.end_pass = kbase_end_pass,
	.begin_sample = kbase_begin_sample,
	.end_sample = kbase_end_sample,
	.sample_time = kbase_sample_time,
	.period_floor = kbase_period_floor,
	.begin_periodic = kbase_begin_periodic,
	.read_periodic = kbase_read_periodic,
	.end_periodic = kbase_end_periodic,
	/* One dump ends a sample and begins the next: the kernel resets the
	 * client's counts at every dump. */
	.next_sample = kbase_end_sample,
};
