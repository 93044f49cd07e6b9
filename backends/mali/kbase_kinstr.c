/* SPDX-License-Identifier: MIT */
/*
 * kbase_kinstr.c — the kinstr_prfcnt reader (reference mali-kinstr-prfcnt.md
 * section 2): JM drivers from UK 11.34, CSF drivers from 1.10; the only
 * counter interface from JM 11.40 / CSF 1.21 on.
 *
 * ENUM_INFO says which block types the GPU has, how many instances and
 * values each; SETUP takes one request per block type (every value
 * enabled, in the driver's counter set) and returns a reader fd whose mmap
 * is a ring of samples.  START begins counting, SAMPLE_SYNC writes a sample
 * (the counts since this client's previous one) into the ring, GET_SAMPLE
 * says where its metadata is, PUT_SAMPLE gives it back; STOP writes a last
 * one.  Like vinstr, a GPA sample is two kernel samples: one that marks the
 * start and one that holds the counts.
 *
 * Every command carries a user_data tag of ours and every sample echoes
 * it, so a sample that arrives late (after its wait timed out) is
 * recognised and handed back instead of being taken for a newer one.
 *
 * Early releases (JM 11.34-11.36, CSF 1.10-1.16) number shader-core blocks
 * by the core's bit in the core mask instead of densely; cores are then
 * ranked by that bit.  A later driver found doing the same (some 1.18
 * kernels lack the fix) is switched over on its first sample, with a note
 * in the log.  The other early defects (no STOP sample when the ring is
 * full, a bogus sample racing a periodic STOP) are covered by discarding
 * what is left after STOP and by the tags.
 *
 * Periodic passes: periodic_start sets the fd up again in periodic mode,
 * periodic_read hands out the kernel's samples in order with its timestamps
 * and the OVERFLOW flag of a sample that spans periods the ring had no room
 * for, periodic_stop has STOP write the last, partial sample, still
 * readable; the next manual pass sets up a manual fd again.
 *
 * Why one file over 600 lines: it is one job, one reader's protocol
 * (enumerate, setup, start/stop, sample, get/put, drain) over one struct
 * kinstr whose ring and tags every step reads; the parsing of what the
 * driver writes is already its own file (kinstr_parse.c).
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "kbase_internal.h"
#include "kinstr_parse.h"
#include "mali_instances.h"
#include "mali_uapi.h"

#define MAX_MAP_BYTES (256u << 20)

static uint64_t raw_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC_RAW, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}
#define SAMPLES_IN_RING 32u

struct kinstr {
	struct og_kbase_dev *d;
	struct og_kbase_offer offer;
	struct og_kinstr_enum en;
	struct og_kinstr_layout lay;
	int fd;
	const uint8_t *map;
	size_t map_len;
	uint8_t mode;
	bool started;
	uint64_t next_tag;
	uint64_t periodic_start_tag, periodic_stop_tag;
	/* The last periodic pass's period, kept after STOP for the samples
	 * drained then. */
	uint64_t period_ns;
	uint64_t last_end; /* kernel end time of the last sample taken */
	struct og_kinstr_sample s; /* scratch for one sample (about 1.6 KiB) */
};

#define LOG(k, ...) OG_KBASE_LOG((k)->d, __VA_ARGS__)

static GPA_Status ioctl_failed(struct kinstr *k, const char *what, int e)
{
	if (og_kbase_errno_gone(e))
		return og_kbase_gone(k->d, what, e);
	LOG(k, "mali: kinstr_prfcnt %s failed: %s; the driver does not behave as documented",
	    what, strerror(e));
	return GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED;
}

static GPA_Status enumerate(struct kinstr *k, bool *absent)
{
	struct og_kbase_dev *d = k->d;
	struct og_kinstr_enum_info q = {0, 0, 0};
	if (og_kbase_ioctl(d, d->fd, OG_KBASE_KINSTR_ENUM_INFO, &q) < 0) {
		int e = errno;
		if (og_kbase_errno_gone(e))
			return og_kbase_gone(d, "KINSTR_PRFCNT_ENUM_INFO", e);
		if (e == ENOTTY || e == EINVAL || e == ENOSYS) {
			OG_KBASE_SAY(d, "mali: KINSTR_PRFCNT_ENUM_INFO on %s: %s (no kinstr_prfcnt)",
			             d->path, strerror(e));
			*absent = true;
			return GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED;
		}
		return ioctl_failed(k, "ENUM_INFO", e);
	}
	if (q.info_item_size != sizeof(struct og_kinstr_enum_item) || q.info_item_count == 0 ||
	    q.info_item_count > OG_KINSTR_MAX_ENUM_ITEMS) {
		LOG(k, "mali: kinstr_prfcnt ENUM_INFO on %s announces %u items of %u bytes; opengpa "
		       "reads 1..%u items of %zu bytes (kinstr_prfcnt API version 0), refusing",
		    d->path, (unsigned)q.info_item_count, (unsigned)q.info_item_size,
		    OG_KINSTR_MAX_ENUM_ITEMS, sizeof(struct og_kinstr_enum_item));
		return GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED;
	}
	uint32_t count = q.info_item_count;
	struct og_kinstr_enum_item *items = calloc(count, sizeof *items);
	if (!items) {
		LOG(k, "mali: out of memory for %u kinstr_prfcnt enumeration items", (unsigned)count);
		return GPA_STATUS_ERROR_FAILED;
	}
	q.info_list_ptr = (uint64_t)(uintptr_t)items;
	int r = og_kbase_ioctl(d, d->fd, OG_KBASE_KINSTR_ENUM_INFO, &q);
	if (r < 0) {
		int e = errno;
		free(items);
		return ioctl_failed(k, "ENUM_INFO (list)", e);
	}
	char why[256];
	/* The kernel must not have changed the size or count under us. */
	bool ok = q.info_item_count == count && q.info_item_size == sizeof *items;
	if (!ok)
		snprintf(why, sizeof why, "the second call changed the list to %u items of %u bytes",
		         (unsigned)q.info_item_count, (unsigned)q.info_item_size);
	else
		ok = og_kinstr_parse_enum(items, count, sizeof *items, &k->en, why, sizeof why);
	free(items);
	if (!ok) {
		LOG(k, "mali: kinstr_prfcnt on %s: %s", d->path, why);
		return GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED;
	}
	return GPA_STATUS_OK;
}

static void close_fd(struct kinstr *k)
{
	const struct og_sys *sys = k->d->host.sys;
	if (k->map)
		sys->munmap(sys->ctx, (void *)k->map, k->map_len);
	k->map = NULL;
	og_sys_close_fd(sys, &k->fd);
	k->started = false;
}

static GPA_Status setup(struct kinstr *k, uint8_t mode, uint64_t period_ns)
{
	struct og_kbase_dev *d = k->d;
	struct og_kinstr_request_item req[OG_KINSTR_MAX_REQUESTS];
	size_t n = og_kinstr_build_requests(&k->en, mode, period_ns, req);
	union og_kinstr_setup s;
	memset(&s, 0, sizeof s);
	s.in.request_item_count = (uint32_t)n;
	s.in.request_item_size = sizeof req[0];
	s.in.requests_ptr = (uint64_t)(uintptr_t)req;
	int fd = og_kbase_ioctl(d, d->fd, OG_KBASE_KINSTR_SETUP, &s);
	if (fd < 0) {
		int e = errno;
		if (og_kbase_errno_gone(e))
			return og_kbase_gone(d, "KINSTR_PRFCNT_SETUP", e);
		if (e == EBUSY) {
			LOG(k, "mali: KINSTR_PRFCNT_SETUP on %s: %s; another profiler holds the "
			       "counters, stop it (gatord, a second opengpa context) and retry",
			    d->path, strerror(e));
			return GPA_STATUS_ERROR_FAILED;
		}
		LOG(k, "mali: KINSTR_PRFCNT_SETUP on %s refused %s mode with every block enabled: %s; "
		       "report the driver version", d->path,
		    mode == OG_KINSTR_MODE_PERIODIC ? "periodic" : "manual", strerror(e));
		return GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED;
	}
	k->fd = fd;
	k->mode = mode;
	uint32_t item = s.out.prfcnt_metadata_item_size, bytes = s.out.prfcnt_mmap_size_bytes;
	char why[256];
	if (bytes == 0 || bytes > MAX_MAP_BYTES) {
		LOG(k, "mali: kinstr_prfcnt SETUP reports a %u-byte sample ring (expected 1..%u); "
		       "refusing", (unsigned)bytes, MAX_MAP_BYTES);
		close_fd(k);
		return GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED;
	}
	if (!og_kinstr_layout_init(&k->lay, &k->en, d->gpu.core_mask, item, bytes, why,
	                           sizeof why)) {
		LOG(k, "mali: kinstr_prfcnt on %s: %s", d->path, why);
		close_fd(k);
		return GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED;
	}
	k->lay.cores_by_bit = k->offer.kinstr_early;
	k->lay.states = og_kinstr_states_reported(d->version.kind == OG_KBASE_CSF,
	                                          d->version.major, d->version.minor);
	void *map = d->host.sys->mmap(d->host.sys->ctx, NULL, bytes, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		int e = errno;
		close_fd(k);
		if (og_kbase_errno_gone(e))
			return og_kbase_gone(d, "mmap of the kinstr_prfcnt ring", e);
		LOG(k, "mali: mmap of the %u-byte kinstr_prfcnt ring failed: %s", (unsigned)bytes,
		    strerror(e));
		return GPA_STATUS_ERROR_FAILED;
	}
	k->map = map;
	k->map_len = bytes;
	return GPA_STATUS_OK;
}

static int command(struct kinstr *k, uint16_t cmd, uint64_t user_data)
{
	struct og_kinstr_control_cmd c;
	memset(&c, 0, sizeof c);
	c.cmd = cmd;
	c.user_data = user_data;
	return og_kbase_ioctl(k->d, k->fd, OG_KINSTR_CMD, &c);
}

static GPA_Status put(struct kinstr *k, const struct og_kinstr_sample_access *a)
{
	struct og_kinstr_sample_access copy = *a;
	if (og_kbase_ioctl(k->d, k->fd, OG_KINSTR_PUT_SAMPLE, &copy) < 0)
		return ioctl_failed(k, "PUT_SAMPLE", errno);
	return GPA_STATUS_OK;
}

/* Parses the sample GET_SAMPLE located; on a failure the sample is handed
 * back and the log says why. */
static GPA_Status parse(struct kinstr *k, const struct og_kinstr_sample_access *a,
                        const char *when)
{
	char why[320];
	enum og_kinstr_parse_result r =
		og_kinstr_parse_sample(&k->lay, k->map, a->sample_offset_bytes, &k->s, why, sizeof why);
	if (r == OG_KINSTR_BAD_CORE_IDX && !k->lay.cores_by_bit) {
		/* Numbered by core-mask bit although the version says fixed. */
		k->lay.cores_by_bit = true;
		char why2[320];
		if (og_kinstr_parse_sample(&k->lay, k->map, a->sample_offset_bytes, &k->s, why2,
		                           sizeof why2) == OG_KINSTR_OK) {
			OG_KBASE_SAY(k->d, "mali: this kinstr_prfcnt numbers shader cores by their bit "
			                   "in the core mask (the defect fixed in JM 11.37 / CSF 1.17); "
			                   "ranking them by bit from now on");
			r = OG_KINSTR_OK;
		} else {
			k->lay.cores_by_bit = false;
		}
	}
	if (r == OG_KINSTR_OK && k->s.seq != a->sequence) {
		snprintf(why, sizeof why, "GET_SAMPLE said sequence %llu but its metadata says %llu",
		         (unsigned long long)a->sequence, (unsigned long long)k->s.seq);
		r = OG_KINSTR_BAD;
	}
	if (r == OG_KINSTR_OK)
		return GPA_STATUS_OK;
	put(k, a);
	LOG(k, "mali: the kinstr_prfcnt %s is malformed: %s; the sample is dropped (report the "
	       "driver version)", when, why);
	return GPA_STATUS_ERROR_FAILED;
}

/* Takes samples until the one tagged `tag` (or, with two tags, either) is
 * found; older ones — answers to requests that timed out — are handed
 * back.  With sum set its counts go to totals and info. */
static GPA_Status take(struct kinstr *k, uint64_t tag, uint64_t tag2, int timeout_ms,
                       const char *when, struct og_mali_totals *totals,
                       struct og_mali_sample_info *info, bool *got)
{
	for (uint32_t tries = 0; tries <= SAMPLES_IN_RING; tries++) {
		if (got) {
			int ready = og_kbase_ready(k->d, k->fd);
			if (ready < 0)
				return GPA_STATUS_ERROR_FAILED;
			if (!ready) {
				if (timeout_ms == 0)
					return GPA_STATUS_OK;
				struct pollfd p = {k->fd, POLLIN, 0};
				const struct og_sys *sys = k->d->host.sys;
				int n = sys->poll(sys->ctx, &p, 1, timeout_ms);
				if (n < 0 && errno != EINTR)
					return og_kbase_gone(k->d, "poll", errno);
				if (p.revents & (POLLHUP | POLLERR | POLLNVAL))
					return og_kbase_gone(k->d, "poll", ENODEV);
				if (n <= 0)
					return GPA_STATUS_OK;
			}
		} else {
			GPA_Status st = og_kbase_wait(k->d, k->fd, timeout_ms, when);
			if (st != GPA_STATUS_OK)
				return st;
		}
		struct og_kinstr_sample_access a = {0, 0};
		if (og_kbase_ioctl(k->d, k->fd, OG_KINSTR_GET_SAMPLE, &a) < 0)
			return ioctl_failed(k, "GET_SAMPLE", errno);
		GPA_Status st = parse(k, &a, when);
		if (st != GPA_STATUS_OK)
			return st;
		if (k->s.user_data != tag && k->s.user_data != tag2) {
			st = put(k, &a); /* a late answer to an earlier request */
			if (st != GPA_STATUS_OK)
				return st;
			continue;
		}
		uint32_t flags = 0;
		if (k->s.flags & OG_KINSTR_SAMPLE_FLAG_ERROR)
			flags |= OG_MALI_SAMPLE_ERROR;
		if (k->s.flags & OG_KINSTR_SAMPLE_FLAG_OVERFLOW)
			flags |= OG_MALI_SAMPLE_OVERFLOW;
		if (flags && !got) {
			put(k, &a);
			if (flags & OG_MALI_SAMPLE_ERROR)
				LOG(k, "mali: the kernel flagged the %s as failed (ERROR: the GPU's counter "
				       "dump did not complete, e.g. during a reset or power change); the "
				       "sample is dropped", when);
			else
				LOG(k, "mali: the kernel flagged the %s with OVERFLOW (its ring had no room "
				       "for an earlier sample, so these counts span more than the sample); "
				       "the sample is dropped", when);
			return GPA_STATUS_ERROR_FAILED;
		}
		if (totals) {
			/* Host-endian, as vinstr's dumps: the kernel writes the
			 * ring's metadata and values with CPU stores. */
			og_kinstr_sum(&k->lay, k->map, &k->s, totals);
			if (k->d->picks.n)
				og_kinstr_pick(&k->lay, k->map, &k->s, &k->d->picks);
			memset(info, 0, sizeof *info);
			info->cycles_top = k->s.num_domains >= 1 ? k->s.cycles[0] : 0;
			info->cycles_shader = k->s.num_domains >= 2 ? k->s.cycles[1] : info->cycles_top;
			info->ts_start_ns = k->s.ts_start;
			info->ts_end_ns = k->s.ts_end;
			info->flags = flags;
			for (uint32_t t = 0; t < OG_MALI_BLOCK_TYPES; t++) {
				info->blocks_off = (uint16_t)(info->blocks_off + k->s.blocks_off[t]);
				info->blocks_protected =
					(uint16_t)(info->blocks_protected + k->s.blocks_protected[t]);
			}
			info->cores_off = k->s.blocks_off[OG_MALI_SC];
			if (info->blocks_off)
				info->flags |= OG_MALI_SAMPLE_BLOCKS_OFF;
			if (info->blocks_protected)
				info->flags |= OG_MALI_SAMPLE_PROTECTED;
		}
		k->last_end = k->s.ts_end;
		st = put(k, &a);
		if (st == GPA_STATUS_OK && got)
			*got = true;
		return st;
	}
	LOG(k, "mali: more than %u stale kinstr_prfcnt samples were waiting; the %s is dropped",
	    SAMPLES_IN_RING, when);
	return GPA_STATUS_ERROR_FAILED;
}

/* Hands back every sample waiting, whoever asked for it. */
static GPA_Status drain(struct kinstr *k)
{
	for (uint32_t i = 0; i <= SAMPLES_IN_RING; i++) {
		int ready = og_kbase_ready(k->d, k->fd);
		if (ready <= 0)
			return ready < 0 ? GPA_STATUS_ERROR_FAILED : GPA_STATUS_OK;
		struct og_kinstr_sample_access a = {0, 0};
		if (og_kbase_ioctl(k->d, k->fd, OG_KINSTR_GET_SAMPLE, &a) < 0)
			return errno == EINVAL ? GPA_STATUS_OK : ioctl_failed(k, "GET_SAMPLE", errno);
		GPA_Status st = put(k, &a);
		if (st != GPA_STATUS_OK)
			return st;
	}
	return GPA_STATUS_OK;
}

static GPA_Status stop(struct kinstr *k, uint64_t tag)
{
	if (!k->started)
		return GPA_STATUS_OK;
	k->started = false;
	if (command(k, OG_KINSTR_CMD_STOP, tag) < 0)
		return ioctl_failed(k, "STOP", errno);
	return GPA_STATUS_OK;
}

static GPA_Status start(struct kinstr *k, uint64_t tag)
{
	if (command(k, OG_KINSTR_CMD_START, tag) < 0) {
		int e = errno;
		if (e == EBUSY) {
			LOG(k, "mali: kinstr_prfcnt START refused: its ring is full of samples nobody "
			       "took; the pass cannot start");
			return GPA_STATUS_ERROR_FAILED;
		}
		return ioctl_failed(k, "START", e);
	}
	k->started = true;
	return GPA_STATUS_OK;
}

/* Back to a manual fd after periodic sampling. */
static GPA_Status ensure_manual(struct kinstr *k)
{
	if (k->fd >= 0 && k->mode == OG_KINSTR_MODE_MANUAL)
		return GPA_STATUS_OK;
	close_fd(k);
	return setup(k, OG_KINSTR_MODE_MANUAL, 0);
}

static void ki_close(void *reader)
{
	struct kinstr *k = reader;
	if (!k)
		return;
	if (k->fd >= 0 && k->started && !k->d->gone)
		command(k, OG_KINSTR_CMD_STOP, 0);
	close_fd(k);
	free(k);
}

static GPA_Status ki_open(struct og_kbase_dev *d, void **reader, bool *absent)
{
	*absent = false;
	struct kinstr *k = calloc(1, sizeof *k);
	if (!k) {
		OG_KBASE_LOG(d, "mali: out of memory for the kinstr_prfcnt reader");
		return GPA_STATUS_ERROR_FAILED;
	}
	k->d = d;
	k->fd = -1;
	k->next_tag = 1;
	og_kbase_offer(&d->version, &k->offer);
	GPA_Status st = enumerate(k, absent);
	if (st == GPA_STATUS_OK && k->en.instances[OG_MALI_L2] != d->gpu.l2_slices)
		OG_KBASE_SAY(d, "mali: kinstr_prfcnt lists %u memory blocks, the GPU properties %u L2 "
		                "slices; reading the blocks the kernel lists",
		             (unsigned)k->en.instances[OG_MALI_L2], (unsigned)d->gpu.l2_slices);
	if (st == GPA_STATUS_OK)
		memcpy(d->instances, k->en.instances, sizeof d->instances);
	if (st == GPA_STATUS_OK)
		st = setup(k, OG_KINSTR_MODE_MANUAL, 0);
	if (st != GPA_STATUS_OK) {
		ki_close(k);
		return st;
	}
	*reader = k;
	return GPA_STATUS_OK;
}

static const char *ki_why_not(void *reader, uint32_t raw_id)
{
	struct kinstr *k = reader;
	if (raw_id == OG_MALI_RAW_TIME_NS)
		return NULL;
	if (raw_id == OG_MALI_RAW_CYCLES_TOP)
		return k->en.num_clock_domains >= 1 ? NULL
		                                    : "this kinstr_prfcnt reports no clock domains";
	/* One clock domain: the shader cores run on the top clock. */
	if (raw_id == OG_MALI_RAW_CYCLES_SHADER)
		return k->en.num_clock_domains >= 1 ? NULL
		                                    : "this kinstr_prfcnt reports no clock domains";
	uint32_t block = og_mali_raw_block(raw_id), index = og_mali_raw_index(raw_id);
	if (!(k->en.types & (1u << block)))
		return block == OG_MALI_FW || block == OG_MALI_CSG
		               ? "this driver lists no firmware or command-stream-group counter "
		                 "blocks (CSF GPUs whose firmware reports counters only)"
		               : "this driver's kinstr_prfcnt lists no such block";
	if (index >= k->en.values[block])
		return "this GPU's counter blocks are shorter than that index";
	if (k->en.set != 0)
		return "the driver counts a secondary or tertiary counter set (built with "
		       "CONFIG_MALI_PRFCNT_SET_SECONDARY/TERTIARY); opengpa's counter files "
		       "describe the primary set";
	return NULL;
}

/* ki_why_not reads the enumeration's clock domains, types, values and set,
 * each written out field by field (no padding). */
static size_t ki_answers(void *reader, uint8_t *buf, size_t max)
{
	const struct og_kinstr_enum *e = &((const struct kinstr *)reader)->en;
	size_t n = 0;
#define PUT(field)                                                                 \
	do {                                                                       \
		if (n + sizeof(field) > max)                                        \
			return 0;                                                  \
		memcpy(buf + n, &(field), sizeof(field));                          \
		n += sizeof(field);                                                \
	} while (0)
	PUT(e->num_clock_domains);
	PUT(e->set);
	PUT(e->types);
	PUT(e->values);
#undef PUT
	return n;
}

static GPA_Status ki_start(void *reader)
{
	struct kinstr *k = reader;
	GPA_Status st = ensure_manual(k);
	if (st == GPA_STATUS_OK && !k->started)
		st = start(k, k->next_tag++);
	return st;
}

static GPA_Status ki_stop(void *reader)
{
	struct kinstr *k = reader;
	if (k->fd < 0)
		return GPA_STATUS_OK;
	GPA_Status st = stop(k, k->next_tag++);
	/* STOP always writes a last sample (early drivers not when the ring is
	 * full); nobody wants it. */
	if (st == GPA_STATUS_OK && command(k, OG_KINSTR_CMD_DISCARD, 0) < 0)
		st = ioctl_failed(k, "DISCARD", errno);
	return st;
}

static GPA_Status request(struct kinstr *k, uint64_t tag, const char *when)
{
	if (k->fd < 0 || k->mode != OG_KINSTR_MODE_MANUAL || !k->started) {
		LOG(k, "mali: the %s was asked for outside a manual pass; the sample is dropped", when);
		return GPA_STATUS_ERROR_FAILED;
	}
	if (command(k, OG_KINSTR_CMD_SAMPLE_SYNC, tag) == 0)
		return GPA_STATUS_OK;
	int e = errno;
	if (e == EBUSY) {
		/* The ring holds samples nobody took (answers that came too late):
		 * hand them back and ask once more. */
		GPA_Status st = drain(k);
		if (st != GPA_STATUS_OK)
			return st;
		if (command(k, OG_KINSTR_CMD_SAMPLE_SYNC, tag) == 0)
			return GPA_STATUS_OK;
		e = errno;
		if (e == EBUSY) {
			LOG(k, "mali: kinstr_prfcnt refused the %s: its ring is full; the sample is "
			       "dropped", when);
			return GPA_STATUS_ERROR_FAILED;
		}
	}
	return ioctl_failed(k, "SAMPLE_SYNC", e);
}

static GPA_Status ki_mark(void *reader, uint64_t *end_raw)
{
	struct kinstr *k = reader;
	uint64_t tag = k->next_tag++;
	GPA_Status st = request(k, tag, "sample-begin sample");
	if (st == GPA_STATUS_OK)
		st = take(k, tag, tag, -1, "sample-begin sample", NULL, NULL, NULL);
	*end_raw = k->last_end;
	return st;
}

static GPA_Status ki_sample(void *reader, struct og_mali_totals *totals,
                            struct og_mali_sample_info *info)
{
	struct kinstr *k = reader;
	uint64_t tag = k->next_tag++;
	GPA_Status st = request(k, tag, "sample-end sample");
	if (st == GPA_STATUS_OK)
		st = take(k, tag, tag, -1, "sample-end sample", totals, info, NULL);
	return st;
}

static uint64_t ki_period_floor(void *reader, const char **why)
{
	(void)reader;
	*why = "kinstr_prfcnt's shortest period (the kernel raises shorter ones)";
	return OG_KINSTR_PERIOD_MIN_NS;
}

static GPA_Status ki_periodic_start(void *reader, uint64_t period_ns, uint32_t *ring,
                                    uint64_t *start_raw)
{
	struct kinstr *k = reader;
	/* The mode is fixed at SETUP: a periodic fd replaces the manual one. */
	if (k->started)
		ki_stop(k);
	close_fd(k);
	GPA_Status st = setup(k, OG_KINSTR_MODE_PERIODIC, period_ns);
	if (st != GPA_STATUS_OK)
		return st;
	k->periodic_start_tag = k->next_tag++;
	k->periodic_stop_tag = k->next_tag++;
	k->period_ns = period_ns;
	*start_raw = raw_now();
	st = start(k, k->periodic_start_tag);
	/* Each sample says where it began; the first, at START. */
	k->last_end = *start_raw;
	/* One slot stays free for STOP's sample. */
	*ring = SAMPLES_IN_RING - 1;
	return st;
}

static GPA_Status ki_periodic_read(void *reader, bool *got, struct og_mali_totals *totals,
                                   struct og_mali_sample_info *info)
{
	struct kinstr *k = reader;
	*got = false;
	if (k->fd < 0 || k->mode != OG_KINSTR_MODE_PERIODIC)
		return GPA_STATUS_OK;
	GPA_Status st = take(k, k->periodic_start_tag, k->periodic_stop_tag, 0, "periodic sample",
	                     totals, info, got);
	/* The kernel flags a sample after a full ring with OVERFLOW; a gap it
	 * does not flag (a driver that skips a period for another reason) reads
	 * the same as on vinstr. */
	if (st == GPA_STATUS_OK && *got)
		og_mali_flag_gap(info, k->period_ns);
	return st;
}

static GPA_Status ki_periodic_stop(void *reader)
{
	struct kinstr *k = reader;
	if (k->fd < 0 || k->mode != OG_KINSTR_MODE_PERIODIC)
		return GPA_STATUS_OK;
	/* STOP writes the last sample, up to now. */
	return stop(k, k->periodic_stop_tag);
}

static void ki_describe(void *reader, char *buf, size_t len)
{
	struct kinstr *k = reader;
	size_t used = (size_t)snprintf(buf, len, "a %zu-byte sample ring, blocks", k->map_len);
	for (uint32_t t = 0; t < OG_MALI_BLOCK_TYPES && used < len; t++)
		if (k->en.types & (1u << t))
			used += (size_t)snprintf(buf + used, len - used, " %s x%u", og_mali_block_name(t),
			                         (unsigned)k->en.instances[t]);
	if (used < len)
		snprintf(buf + used, len - used, " of %u values, %u clock domain(s), counter set %u%s",
		         (unsigned)k->en.values[OG_MALI_SC], (unsigned)k->en.num_clock_domains,
		         (unsigned)k->en.set,
		         k->lay.cores_by_bit ? ", cores numbered by core-mask bit (early driver)" : "");
}

const struct og_kbase_reader_ops og_kbase_kinstr = {
	.name = "kinstr_prfcnt",
	.open = ki_open,
	.close = ki_close,
	.why_not = ki_why_not,
	.answers = ki_answers,
	.start = ki_start,
	.stop = ki_stop,
	.mark = ki_mark,
	.sample = ki_sample,
	.period_floor = ki_period_floor,
	.periodic_start = ki_periodic_start,
	.periodic_read = ki_periodic_read,
	.periodic_stop = ki_periodic_stop,
	.describe = ki_describe,
};
