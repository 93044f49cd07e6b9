/* SPDX-License-Identifier: MIT */
/*
 * kbase_vinstr.c — the hwcnt reader ("vinstr", reference mali-hwcnt.md 2):
 * JM drivers before UK 11.40, CSF drivers before 1.21.
 *
 * One reader fd, every counter of every block enabled, a ring of dump
 * buffers the kernel fills on DUMP (or on a timer with SET_INTERVAL) and
 * hands out one at a time with GET_BUFFER / PUT_BUFFER.  The kernel gives
 * each reader the counts since that reader's previous dump, so a sample is
 * two dumps: one at begin that only marks the start, one at end that holds
 * the sample.  Dumps are the v5 layout (64 32-bit words per block, summed by
 * mali_sum.c); on GPUs with 128-value blocks vinstr hands out the first 64.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "kbase_internal.h"
#include "mali_instances.h"
#include "mali_sum.h"
#include "mali_uapi.h"

struct vinstr {
	struct og_kbase_dev *d;
	int fd;
	uint32_t buffer_count;
	size_t buffer_size;
	const uint8_t *ring;
	size_t ring_len;
	uint32_t features;
	struct og_mali_layout layout;
	uint64_t last_ts; /* timestamp of the last dump taken: where the next sample starts */
	uint32_t interval_ns; /* periodic sampling on */
	/* The last periodic pass's period, kept after SET_INTERVAL 0: the
	 * pass-end dump, drained after the stop, is checked for gaps too. */
	uint32_t pass_period_ns;
	bool new_vinstr; /* answers WITH_FEATURES: the virtualizer-based vinstr */
};

#define LOG(v, ...) OG_KBASE_LOG((v)->d, __VA_ARGS__)

static GPA_Status ioctl_failed(struct vinstr *v, const char *what, int e)
{
	if (og_kbase_errno_gone(e))
		return og_kbase_gone(v->d, what, e);
	LOG(v, "mali: vinstr %s failed: %s; the driver's hwcnt reader does not behave as "
	       "documented", what, strerror(e));
	return GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED;
}

/* 32 buffers, halving on ENOMEM: old drivers allocate the ring as one
 * physically contiguous block, which fragmented memory may not have. */
static GPA_Status setup(struct vinstr *v, bool *absent)
{
	struct og_kbase_dev *d = v->d;
	for (uint32_t n = OG_KBASE_READER_MAX_BUFFERS; n >= 1; n /= 2) {
		struct og_kbase_hwcnt_reader_setup s = {n, ~0u, ~0u, ~0u, ~0u};
		int fd = og_kbase_ioctl(d, d->fd, OG_KBASE_HWCNT_READER_SETUP, &s);
		if (fd >= 0) {
			v->fd = fd;
			v->buffer_count = n;
			return GPA_STATUS_OK;
		}
		int e = errno;
		if (e == ENOMEM)
			continue;
		if (og_kbase_errno_gone(e))
			return og_kbase_gone(d, "HWCNT_READER_SETUP", e);
		if (e == EBUSY) {
			LOG(v, "mali: HWCNT_READER_SETUP on %s: %s; another profiler holds the "
			       "counters, stop it (gatord, a second opengpa context) and retry",
			    d->path, strerror(e));
			return GPA_STATUS_ERROR_FAILED;
		}
		if (e == ENOTTY || e == EINVAL) {
			OG_KBASE_SAY(d, "mali: HWCNT_READER_SETUP on %s: %s (no vinstr reader)", d->path,
			             strerror(e));
			*absent = true;
			return GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED;
		}
		LOG(v, "mali: HWCNT_READER_SETUP on %s failed: %s; the driver refused a counter "
		       "reader (built without hwcnt support?)", d->path, strerror(e));
		return GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED;
	}
	LOG(v, "mali: HWCNT_READER_SETUP on %s: out of memory even for 1 dump buffer; free "
	       "memory (echo 3 > /proc/sys/vm/drop_caches) and retry", d->path);
	return GPA_STATUS_ERROR_FAILED;
}

static GPA_Status map_ring(struct vinstr *v)
{
	struct og_kbase_dev *d = v->d;
	struct og_kbase_reader_api_version av = {0, 0};
	v->new_vinstr = true;
	if (og_kbase_ioctl(d, v->fd, OG_KBASE_READER_GET_API_VERSION_WITH_FEATURES, &av) < 0) {
		/* Drivers before the extension match the whole command word and
		 * reject the 8-byte form: ask the plain way. */
		uint32_t ver = 0;
		if (og_kbase_ioctl(d, v->fd, OG_KBASE_READER_GET_API_VERSION, &ver) < 0)
			return ioctl_failed(v, "GET_API_VERSION", errno);
		av.version = ver;
		av.features = 0;
		v->new_vinstr = false;
	}
	if (av.version != OG_KBASE_READER_API) {
		LOG(v, "mali: hwcnt reader API version %u; this backend speaks version 1",
		    (unsigned)av.version);
		return GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED;
	}
	v->features = av.features & (OG_KBASE_READER_FEATURE_CYCLES_TOP |
	                             OG_KBASE_READER_FEATURE_CYCLES_SHADER);

	uint32_t hwver = 0;
	if (og_kbase_ioctl(d, v->fd, OG_KBASE_READER_GET_HWVER, &hwver) < 0)
		return ioctl_failed(v, "GET_HWVER", errno);
	if (hwver != OG_KBASE_READER_HWVER_V5) {
		LOG(v, "mali: the reader reports dump layout version %u; Bifrost and later GPUs dump "
		       "in version 5, refusing to read an unknown layout", (unsigned)hwver);
		return GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED;
	}

	uint32_t size = 0;
	if (og_kbase_ioctl(d, v->fd, OG_KBASE_READER_GET_BUFFER_SIZE, &size) < 0)
		return ioctl_failed(v, "GET_BUFFER_SIZE", errno);
	if (size != v->layout.dump_bytes) {
		LOG(v, "mali: the reader's buffer is %u bytes but the GPU properties (%u L2 slices, "
		       "core mask 0x%llx) imply %zu; refusing a layout that disagrees with the "
		       "hardware description", (unsigned)size, (unsigned)d->gpu.l2_slices,
		    (unsigned long long)d->gpu.core_mask, v->layout.dump_bytes);
		return GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED;
	}
	v->buffer_size = size;
	v->ring_len = (size_t)v->buffer_count * size;
	void *ring = d->host.sys->mmap(d->host.sys->ctx, NULL, v->ring_len, PROT_READ, MAP_PRIVATE,
	                               v->fd, 0);
	if (ring == MAP_FAILED) {
		int e = errno;
		if (og_kbase_errno_gone(e))
			return og_kbase_gone(d, "mmap of the dump ring", e);
		LOG(v, "mali: mmap of %zu bytes of dump ring failed: %s", v->ring_len, strerror(e));
		return GPA_STATUS_ERROR_FAILED;
	}
	v->ring = ring;
	return GPA_STATUS_OK;
}

static void vi_close(void *reader)
{
	struct vinstr *v = reader;
	if (!v)
		return;
	const struct og_sys *sys = v->d->host.sys;
	if (v->ring)
		sys->munmap(sys->ctx, (void *)v->ring, v->ring_len);
	og_sys_close_fd(sys, &v->fd);
	free(v);
}

static GPA_Status vi_open(struct og_kbase_dev *d, void **reader, bool *absent)
{
	*absent = false;
	struct vinstr *v = calloc(1, sizeof *v);
	if (!v) {
		OG_KBASE_LOG(d, "mali: out of memory for the vinstr reader");
		return GPA_STATUS_ERROR_FAILED;
	}
	v->d = d;
	v->fd = -1;
	/* og_mali_check_gpu refused every GPU the layout cannot describe. */
	if (!og_mali_layout_init(&d->gpu, &v->layout)) {
		LOG(v, "mali: cannot lay out the dumps of %s (core mask 0x%llx, %u L2 slices); "
		       "report this as an opengpa bug", d->path, (unsigned long long)d->gpu.core_mask,
		    (unsigned)d->gpu.l2_slices);
		free(v);
		return GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED;
	}
	memset(d->instances, 0, sizeof d->instances);
	d->instances[OG_MALI_FE] = d->instances[OG_MALI_TILER] = 1;
	d->instances[OG_MALI_L2] = (uint16_t)d->gpu.l2_slices;
	d->instances[OG_MALI_SC] = (uint16_t)__builtin_popcountll(d->gpu.core_mask);
	GPA_Status st = setup(v, absent);
	if (st == GPA_STATUS_OK)
		st = map_ring(v);
	if (st != GPA_STATUS_OK) {
		vi_close(v);
		return st;
	}
	*reader = v;
	return GPA_STATUS_OK;
}

static const char *vi_why_not(void *reader, uint32_t raw_id)
{
	struct vinstr *v = reader;
	if (raw_id == OG_MALI_RAW_CYCLES_TOP && !(v->features & OG_KBASE_READER_FEATURE_CYCLES_TOP))
		return "this kbase reader reports no GPU cycle counts (needs JM UK 11.27 or later)";
	/* A GPU with one clock domain reports only the top count: its shader
	 * cores run on that clock, so the top count stands for theirs, as
	 * libGPUCounters does (docs/backends/mali.md). */
	if (raw_id == OG_MALI_RAW_CYCLES_SHADER && !v->features)
		return "this kbase reader reports no cycle counts (needs JM UK 11.27 or later)";
	if (raw_id >= OG_MALI_HW_RAW)
		return NULL;
	uint32_t block = og_mali_raw_block(raw_id);
	if (block == OG_MALI_FW || block == OG_MALI_CSG)
		return "firmware and command-stream-group blocks are read through kinstr_prfcnt "
		       "only (option interface=kinstr_prfcnt, CSF UK 1.10 or later)";
	if (og_mali_raw_index(raw_id) >= v->d->gpu.product->values_per_block)
		return "this GPU's counter blocks are shorter than that index";
	if (og_mali_raw_index(raw_id) >= OG_MALI_V5_WORDS)
		return "vinstr carries the first 64 values of each block; this counter needs "
		       "kinstr_prfcnt (option interface=kinstr_prfcnt, CSF UK 1.10 or later)";
	return NULL;
}

/* vi_why_not reads the features and the GPU's product (kbase.c keys it). */
static size_t vi_answers(void *reader, uint8_t *buf, size_t max)
{
	const struct vinstr *v = reader;
	if (max < sizeof v->features)
		return 0;
	memcpy(buf, &v->features, sizeof v->features);
	return sizeof v->features;
}

static bool use_cycles(const struct vinstr *v)
{
	return v->features != 0;
}

static int get_buffer(struct vinstr *v, struct og_kbase_reader_metadata *md)
{
	memset(md, 0, sizeof *md);
	return og_kbase_ioctl(v->d, v->fd,
	                      use_cycles(v) ? OG_KBASE_READER_GET_BUFFER_WITH_CYCLES
	                                    : OG_KBASE_READER_GET_BUFFER, md);
}

static int put_buffer(struct vinstr *v, struct og_kbase_reader_metadata *md)
{
	return og_kbase_ioctl(v->d, v->fd,
	                      use_cycles(v) ? OG_KBASE_READER_PUT_BUFFER_WITH_CYCLES
	                                    : OG_KBASE_READER_PUT_BUFFER, md);
}

/* Hands back whatever filled buffers are waiting (a dump that arrived after
 * its sample timed out), so the next GET_BUFFER returns the dump we ask for. */
static GPA_Status drain(struct vinstr *v)
{
	for (uint32_t i = 0; i <= v->buffer_count; i++) {
		int r = og_kbase_ready(v->d, v->fd);
		if (r < 0)
			return GPA_STATUS_ERROR_FAILED;
		if (r == 0)
			return GPA_STATUS_OK;
		struct og_kbase_reader_metadata md;
		if (get_buffer(v, &md) < 0) {
			if (errno == EAGAIN)
				return GPA_STATUS_OK;
			return ioctl_failed(v, "GET_BUFFER", errno);
		}
		v->last_ts = md.timestamp;
		if (put_buffer(v, &md) < 0)
			return ioctl_failed(v, "PUT_BUFFER", errno);
	}
	return GPA_STATUS_OK;
}

static GPA_Status request_dump(struct vinstr *v, const char *when)
{
	if (og_kbase_ioctl(v->d, v->fd, OG_KBASE_READER_DUMP, NULL) < 0) {
		int e = errno;
		if (e == EBUSY) {
			LOG(v, "mali: the %s DUMP was refused: the reader's ring is full; the sample is "
			       "dropped", when);
			return GPA_STATUS_ERROR_FAILED;
		}
		return ioctl_failed(v, "DUMP", e);
	}
	return og_kbase_wait(v->d, v->fd, -1, when);
}

/* Takes the oldest filled buffer, sums it into totals when asked, and gives
 * it back: one buffer held at a time, and never across calls. */
static GPA_Status consume(struct vinstr *v, struct og_mali_totals *totals,
                          struct og_mali_sample_info *info)
{
	struct og_kbase_reader_metadata md;
	if (get_buffer(v, &md) < 0)
		return ioctl_failed(v, "GET_BUFFER", errno);
	if (md.buffer_idx >= v->buffer_count) {
		LOG(v, "mali: the reader returned buffer index %u of a %u-buffer ring; ignoring that "
		       "dump, the sample is dropped", (unsigned)md.buffer_idx,
		    (unsigned)v->buffer_count);
		put_buffer(v, &md);
		return GPA_STATUS_ERROR_FAILED;
	}
	if (totals) {
		/* Host-endian by definition: the kernel's hwcnt accumulator writes
		 * the reader's buffers with CPU stores (panfrost's dumps, copied
		 * from the GPU, are little-endian instead). */
		const uint32_t *dump =
			(const uint32_t *)(const void *)(v->ring + (size_t)md.buffer_idx * v->buffer_size);
		if (!og_mali_sum_dump(&v->layout, dump, v->buffer_size, totals)) {
			LOG(v, "mali: a %zu-byte dump buffer is too small for the %zu-byte layout; the "
			       "sample is dropped", v->buffer_size, v->layout.dump_bytes);
			put_buffer(v, &md);
			return GPA_STATUS_ERROR_FAILED;
		}
		if (v->d->picks.n)
			og_mali_pick_v5(&v->d->gpu, dump, v->buffer_size, &v->d->picks);
		memset(info, 0, sizeof *info);
		info->cycles_top = md.cycles_top;
		info->cycles_shader = (v->features & OG_KBASE_READER_FEATURE_CYCLES_SHADER)
		                              ? md.cycles_shader : md.cycles_top;
		/* The metadata has the dump's time; the sample began at the one before. */
		info->ts_start_ns = v->last_ts;
		info->ts_end_ns = md.timestamp;
	}
	v->last_ts = md.timestamp;
	if (put_buffer(v, &md) < 0)
		return ioctl_failed(v, "PUT_BUFFER", errno);
	return GPA_STATUS_OK;
}

static GPA_Status vi_start(void *reader)
{
	struct vinstr *v = reader;
	GPA_Status st = drain(v);
	if (st == GPA_STATUS_OK && og_kbase_ioctl(v->d, v->fd, OG_KBASE_READER_CLEAR, NULL) < 0)
		st = ioctl_failed(v, "CLEAR", errno);
	return st;
}

static GPA_Status vi_stop(void *reader)
{
	(void)reader;
	return GPA_STATUS_OK;
}

static GPA_Status vi_mark(void *reader, uint64_t *end_raw)
{
	struct vinstr *v = reader;
	GPA_Status st = drain(v);
	if (st == GPA_STATUS_OK)
		st = request_dump(v, "sample-begin dump");
	if (st == GPA_STATUS_OK)
		st = consume(v, NULL, NULL);
	*end_raw = v->last_ts;
	return st;
}

static GPA_Status vi_sample(void *reader, struct og_mali_totals *totals,
                            struct og_mali_sample_info *info)
{
	struct vinstr *v = reader;
	GPA_Status st = request_dump(v, "sample-end dump");
	if (st == GPA_STATUS_OK)
		st = consume(v, totals, info);
	return st;
}

static uint64_t vi_period_floor(void *reader, const char **why)
{
	struct vinstr *v = reader;
	/* The virtualizer-based vinstr clamps to 100 µs, the one before to 500. */
	*why = v->new_vinstr ? "the kbase reader's shortest SET_INTERVAL"
	                     : "the shortest SET_INTERVAL of this older kbase reader";
	return v->new_vinstr ? OG_KBASE_READER_INTERVAL_MIN_NS : OG_KBASE_READER_INTERVAL_MIN_OLD_NS;
}

static uint64_t raw_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC_RAW, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* SET_INTERVAL takes the period in nanoseconds as a u32, by value.  The
 * pass's start (drain and CLEAR) has just happened: the first sample starts
 * now. */
static GPA_Status vi_periodic_start(void *reader, uint64_t period_ns, uint32_t *ring,
                                    uint64_t *start_raw)
{
	struct vinstr *v = reader;
	v->last_ts = *start_raw = raw_now();
	if (og_kbase_ioctl(v->d, v->fd, OG_KBASE_READER_SET_INTERVAL,
	                   (void *)(uintptr_t)(uint32_t)period_ns) < 0)
		return ioctl_failed(v, "SET_INTERVAL", errno);
	v->interval_ns = v->pass_period_ns = (uint32_t)period_ns;
	*ring = v->buffer_count;
	return GPA_STATUS_OK;
}

static GPA_Status vi_periodic_read(void *reader, bool *got, struct og_mali_totals *totals,
                                   struct og_mali_sample_info *info)
{
	struct vinstr *v = reader;
	*got = false;
	int r = og_kbase_ready(v->d, v->fd);
	if (r <= 0)
		return r < 0 ? GPA_STATUS_ERROR_FAILED : GPA_STATUS_OK;
	GPA_Status st = consume(v, totals, info);
	if (st != GPA_STATUS_OK)
		return st;
	/* vinstr says nothing of a full ring: a dump more than a period and a
	 * half after the one before means the kernel had no buffer for the
	 * ones between, and kept their counts for this one. */
	og_mali_flag_gap(info, v->pass_period_ns);
	*got = true;
	return GPA_STATUS_OK;
}

static GPA_Status vi_periodic_stop(void *reader)
{
	struct vinstr *v = reader;
	if (!v->interval_ns)
		return GPA_STATUS_OK;
	v->interval_ns = 0;
	if (og_kbase_ioctl(v->d, v->fd, OG_KBASE_READER_SET_INTERVAL, (void *)(uintptr_t)0) < 0)
		return ioctl_failed(v, "SET_INTERVAL", errno);
	/* The rest of the pass, in one last (manual) dump. */
	return request_dump(v, "pass-end dump");
}

static void vi_describe(void *reader, char *buf, size_t len)
{
	struct vinstr *v = reader;
	snprintf(buf, len, "%u dump buffers of %zu bytes, reader features 0x%x",
	         (unsigned)v->buffer_count, v->buffer_size, (unsigned)v->features);
}

const struct og_kbase_reader_ops og_kbase_vinstr = {
	.name = "vinstr",
	.open = vi_open,
	.close = vi_close,
	.why_not = vi_why_not,
	.answers = vi_answers,
	.start = vi_start,
	.stop = vi_stop,
	.mark = vi_mark,
	.sample = vi_sample,
	.period_floor = vi_period_floor,
	.periodic_start = vi_periodic_start,
	.periodic_read = vi_periodic_read,
	.periodic_stop = vi_periodic_stop,
	.describe = vi_describe,
};
