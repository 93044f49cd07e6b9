/* SPDX-License-Identifier: MIT */
/* vmali_testlib.c — see vmali_testlib.h. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <cmocka.h>

#include "vmali_testlib.h"

int tl_ioctl(const struct og_sys *sys, int fd, unsigned long req, void *arg)
{
	int r = sys->ioctl(sys->ctx, fd, req, arg);
	return r < 0 ? -errno : r;
}

int tl_open_kbase(const struct og_sys *sys)
{
	int fd = sys->open(sys->ctx, VMALI_PATH_KBASE, O_RDONLY, 0);
	if (fd < 0)
		return -1;
	struct vmali_kbase_version_check v = { 0, 0 };
	struct vmali_kbase_set_flags f = { VMALI_KBASE_FLAG_SYSTEM_MONITOR };
	if (tl_ioctl(sys, fd, VMALI_KBASE_VERSION_CHECK_JM, &v) < 0 &&
	    tl_ioctl(sys, fd, VMALI_KBASE_VERSION_CHECK_CSF, &v) < 0)
		goto fail;
	if (tl_ioctl(sys, fd, VMALI_KBASE_SET_FLAGS, &f) < 0)
		goto fail;
	return fd;
fail:
	sys->close(sys->ctx, fd);
	return -1;
}

int tl_get_props(const struct og_sys *sys, int fd, struct tl_props *p)
{
	memset(p, 0, sizeof(*p));
	struct vmali_kbase_get_gpuprops q = { 0, 0, 0 };
	int need = tl_ioctl(sys, fd, VMALI_KBASE_GET_GPUPROPS, &q);
	if (need <= 0)
		return need < 0 ? need : -EPROTO;
	uint8_t *buf = malloc((size_t)need);
	if (!buf)
		return -ENOMEM;
	q.buffer = (uint64_t)(uintptr_t)buf;
	q.size = (uint32_t)need;
	int got = tl_ioctl(sys, fd, VMALI_KBASE_GET_GPUPROPS, &q);
	if (got < 0 || got > need) {
		free(buf);
		return got < 0 ? got : -EPROTO;
	}
	size_t pos = 0, end = (size_t)got;
	int ret = 0;
	while (pos < end) {
		if (end - pos < 4) {
			ret = -EPROTO;
			break;
		}
		uint32_t key = (uint32_t)buf[pos] | (uint32_t)buf[pos + 1] << 8 |
		               (uint32_t)buf[pos + 2] << 16 | (uint32_t)buf[pos + 3] << 24;
		size_t n = (size_t)1 << (key & 3);
		pos += 4;
		if (end - pos < n) {
			ret = -EPROTO;
			break;
		}
		uint64_t v = 0;
		for (size_t i = 0; i < n; i++)
			v |= (uint64_t)buf[pos + i] << (8 * i);
		pos += n;
		uint32_t id = key >> 2;
		if (id == VMALI_PROP_PRODUCT_ID)
			p->product_id = (uint32_t)v;
		else if (id == VMALI_PROP_RAW_GPU_ID)
			p->raw_gpu_id = (uint32_t)v;
		else if (id == VMALI_PROP_L2_NUM_L2_SLICES)
			p->l2_slices = (uint32_t)v;
		else if (id == VMALI_PROP_RAW_L2_FEATURES)
			p->l2_features = (uint32_t)v;
		else if (id == VMALI_PROP_RAW_MEM_FEATURES)
			p->mem_features = (uint32_t)v;
		else if (id == VMALI_PROP_RAW_SHADER_PRESENT)
			p->shader_present = v;
		else if (id == VMALI_PROP_COHERENCY_NUM_CORE_GROUPS)
			p->num_core_groups = (uint32_t)v;
		else if (id >= VMALI_PROP_COHERENCY_GROUP_0 && id < VMALI_PROP_COHERENCY_GROUP_0 + 16)
			p->group_mask[id - VMALI_PROP_COHERENCY_GROUP_0] = v;
		else
			p->unknown_ids++;
	}
	p->bytes = end;
	free(buf);
	return ret;
}

int tl_reader_open(const struct og_sys *sys, int kfd, uint32_t count, const uint32_t bm[4],
                   struct tl_reader *r)
{
	struct vmali_kbase_hwcnt_reader_setup s = { count, 0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu,
		                                    0xFFFFFFFFu };
	if (bm) {
		s.fe_bm = bm[0];
		s.shader_bm = bm[1];
		s.tiler_bm = bm[2];
		s.mmu_l2_bm = bm[3];
	}
	memset(r, 0, sizeof(*r));
	r->fd = tl_ioctl(sys, kfd, VMALI_KBASE_HWCNT_READER_SETUP, &s);
	if (r->fd < 0)
		return r->fd;
	uint32_t size = 0;
	int e = tl_ioctl(sys, r->fd, VMALI_READER_GET_BUFFER_SIZE, &size);
	if (e < 0)
		goto fail;
	r->count = count;
	r->size = size;
	void *p = sys->mmap(sys->ctx, NULL, (size_t)count * size, PROT_READ, MAP_PRIVATE, r->fd, 0);
	if (p == MAP_FAILED) {
		e = -errno;
		goto fail;
	}
	r->ring = p;
	return 0;
fail:
	sys->close(sys->ctx, r->fd);
	r->fd = -1;
	return e;
}

void tl_reader_close(const struct og_sys *sys, struct tl_reader *r)
{
	if (r->ring)
		sys->munmap(sys->ctx, (void *)(uintptr_t)r->ring, (size_t)r->count * r->size);
	if (r->fd >= 0)
		sys->close(sys->ctx, r->fd);
	r->ring = NULL;
	r->fd = -1;
}

const uint32_t *tl_dump_get(const struct og_sys *sys, struct tl_reader *r,
                            struct vmali_reader_metadata *meta)
{
	if (tl_ioctl(sys, r->fd, VMALI_READER_DUMP, NULL) < 0)
		return NULL;
	if (tl_ioctl(sys, r->fd, VMALI_READER_GET_BUFFER_WITH_CYCLES, meta) < 0)
		return NULL;
	if (meta->buffer_idx >= r->count)
		return NULL;
	return (const uint32_t *)(const void *)(r->ring + (size_t)meta->buffer_idx * r->size);
}

int tl_put(const struct og_sys *sys, struct tl_reader *r, struct vmali_reader_metadata *meta)
{
	return tl_ioctl(sys, r->fd, VMALI_READER_PUT_BUFFER_WITH_CYCLES, meta);
}

uint64_t tl_sum(const uint32_t *dump, uint32_t l2_slices, uint64_t core_mask,
                enum vmali_block block, unsigned index)
{
	uint32_t first, count;
	switch (block) {
	case VMALI_BLOCK_JM:
		first = 0, count = 1;
		break;
	case VMALI_BLOCK_TILER:
		first = 1, count = 1;
		break;
	case VMALI_BLOCK_L2:
		first = 2, count = l2_slices;
		break;
	default:
		first = 2 + l2_slices, count = 64u - (uint32_t)__builtin_clzll(core_mask);
		break;
	}
	uint64_t sum = 0;
	for (uint32_t b = first; b < first + count; b++)
		sum += dump[(size_t)b * VMALI_COUNTERS_PER_BLOCK + index];
	return sum;
}

/* ---- a backend on the device ---- */

static const char *const block_names[6] = { "JM", "TILER", "L2", "SC", "FW", "CSG" };

__attribute__((format(printf, 3, 4))) static void rig_log(void *ctx, enum og_log_level level,
                                                         const char *fmt, ...)
{
	struct tl_rig *r = ctx;
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	r->newline |= strchr(line, '\n') != NULL;
	size_t used = strlen(r->log);
	snprintf(r->log + used, sizeof(r->log) - used, "%s|", line);
	if (level == OG_LOG_ERROR) {
		r->errors++;
		snprintf(r->last_error, sizeof(r->last_error), "%s", line);
	}
}

struct vmali_config tl_g71(uint64_t mask, uint32_t slices)
{
	return (struct vmali_config){ .gpu_id = 0x6000, .core_mask = mask, .l2_slices = slices,
		                      .bus_width_bits = 128, .manual_frames = true,
		                      .panfrost_unstable_ioctls = true };
}

GPA_Status tl_rig_open(struct tl_rig *r, const struct og_backend_ops *ops,
                       const struct vmali_config *cfg, const struct vmali_faults *faults,
                       const char *options)
{
	memset(r, 0, sizeof(*r));
	r->ops = ops;
	r->vm = vmali_create(cfg);
	assert_non_null(r->vm);
	if (faults)
		vmali_set_faults(r->vm, faults);
	r->host = (struct og_backend_host){ vmali_sys(r->vm), rig_log, r, NULL };
	GPA_Status st = ops->open(&r->host, options ? options : "", &r->state, &r->info);
	if (st != GPA_STATUS_OK)
		r->state = NULL;
	return st;
}

void tl_rig_done(struct tl_rig *r)
{
	if (r->state)
		r->ops->close(r->state);
	r->state = NULL;
	struct vmali_stats s;
	vmali_get_stats(r->vm, &s);
	assert_int_equal(s.open_fds, 0);
	assert_false(r->newline);
	vmali_destroy(r->vm);
	r->vm = NULL;
}

void tl_rig_bind_all(struct tl_rig *r, uint32_t *ids)
{
	for (uint32_t b = 0; b < 4; b++)
		for (uint32_t i = 4; i < 64; i++) {
			char src[16];
			const char *why = NULL;
			snprintf(src, sizeof(src), "%s:%u", block_names[b], (unsigned)i);
			GPA_Status st = r->ops->bind_raw(r->state, src, src, &ids[b * 60 + (i - 4)], &why);
			if (st != GPA_STATUS_OK)
				fail_msg("bind %s: %d (%s)", src, (int)st, why ? why : "");
		}
}

static void device_totals(struct vmali *vm, uint64_t *t)
{
	for (uint32_t b = 0; b < 4; b++)
		for (uint32_t i = 4; i < 64; i++)
			t[b * 60 + (i - 4)] = vmali_total(vm, (enum vmali_block)b, VMALI_ALL, i);
}

void tl_rig_check_samples(struct tl_rig *r, unsigned frames, int samples)
{
	uint32_t ids[TL_NRAW];
	uint64_t before[TL_NRAW], after[TL_NRAW], d[TL_NRAW];
	tl_rig_bind_all(r, ids);
	assert_true(r->ops->fits(r->state, ids, TL_NRAW));
	assert_int_equal(r->ops->begin_pass(r->state, ids, TL_NRAW), GPA_STATUS_OK);
	vmali_run_frames(r->vm, 1); /* counted before the sample: must not show up in it */
	for (int s = 0; s < samples; s++) {
		assert_int_equal(r->ops->begin_sample(r->state), GPA_STATUS_OK);
		device_totals(r->vm, before);
		vmali_run_frames(r->vm, frames);
		device_totals(r->vm, after);
		assert_int_equal(r->ops->end_sample(r->state, d), GPA_STATUS_OK);
		size_t nonzero = 0;
		for (size_t i = 0; i < TL_NRAW; i++) {
			if (d[i] != after[i] - before[i])
				fail_msg("%s: %s:%zu: backend %llu, device %llu", r->ops->name,
				         block_names[i / 60], i % 60 + 4, (unsigned long long)d[i],
				         (unsigned long long)(after[i] - before[i]));
			nonzero += d[i] != 0;
		}
		if (frames)
			assert_true(nonzero > 20); /* the workload really ran */
		else
			assert_int_equal(nonzero, 0);
		vmali_run_frames(r->vm, 1); /* between samples: must not show up either */
	}
	assert_int_equal(r->ops->end_pass(r->state), GPA_STATUS_OK);
}

size_t tl_rig_check_every_counter(struct tl_rig *r, bool kinstr, unsigned frames, int samples)
{
	enum { MAX = 6 * 124 };
	static uint32_t ids[MAX];
	static uint8_t blk[MAX], idx[MAX];
	static uint64_t before[MAX], after[MAX], d[MAX];
	unsigned values = vmali_values_per_block(r->vm);
	size_t n = 0;
	for (uint32_t b = 0; b < 6; b++)
		for (uint32_t i = 4; i < 128; i++) {
			char src[16];
			const char *why = NULL;
			snprintf(src, sizeof(src), "%s:%u", block_names[b], (unsigned)i);
			uint32_t id;
			GPA_Status st = r->ops->bind_raw(r->state, src, src, &id, &why);
			bool has = vmali_block_instances(r->vm, (enum vmali_block)b) > 0 && i < values;
			bool want = kinstr ? has : b < 4 && i < 64;
			if (st != GPA_STATUS_OK && st != GPA_STATUS_ERROR_NOT_FOUND)
				fail_msg("bind %s: %d (%s)", src, (int)st, why ? why : "");
			if ((st == GPA_STATUS_OK) != want)
				fail_msg("%s: %s is %s (%s)", r->ops->name, src,
				         st == GPA_STATUS_OK ? "offered" : "refused", why ? why : "");
			if (st == GPA_STATUS_ERROR_NOT_FOUND && !why)
				fail_msg("%s refused without saying why", src);
			if (st != GPA_STATUS_OK)
				continue;
			ids[n] = id;
			blk[n] = (uint8_t)b;
			idx[n] = (uint8_t)i;
			n++;
		}
	assert_true(r->ops->fits(r->state, ids, n));
	assert_int_equal(r->ops->begin_pass(r->state, ids, n), GPA_STATUS_OK);
	vmali_run_frames(r->vm, 1); /* counted before the sample: must not show up in it */
	for (int s = 0; s < samples; s++) {
		assert_int_equal(r->ops->begin_sample(r->state), GPA_STATUS_OK);
		for (size_t i = 0; i < n; i++)
			before[i] = vmali_total(r->vm, (enum vmali_block)blk[i], VMALI_ALL, idx[i]);
		vmali_run_frames(r->vm, frames);
		for (size_t i = 0; i < n; i++)
			after[i] = vmali_total(r->vm, (enum vmali_block)blk[i], VMALI_ALL, idx[i]);
		GPA_Status st = r->ops->end_sample(r->state, d);
		if (st != GPA_STATUS_OK)
			fail_msg("end_sample: %d (%s)", (int)st, r->last_error);
		size_t nonzero = 0;
		for (size_t i = 0; i < n; i++) {
			if (d[i] != after[i] - before[i])
				fail_msg("%s: %s:%u: backend %llu, device %llu", r->ops->name,
				         block_names[blk[i]], (unsigned)idx[i], (unsigned long long)d[i],
				         (unsigned long long)(after[i] - before[i]));
			nonzero += d[i] != 0;
		}
		if (frames)
			assert_true(nonzero > n / 2); /* the workload really ran */
		else
			assert_int_equal(nonzero, 0);
		vmali_run_frames(r->vm, 1); /* between samples: must not show up either */
	}
	assert_int_equal(r->ops->end_pass(r->state), GPA_STATUS_OK);
	return n;
}

void tl_rig_check_lost_dump(struct tl_rig *r, const char *source, enum vmali_block block,
                            unsigned index, const char *needle)
{
	const struct og_backend_ops *ops = r->ops;
	uint32_t id;
	const char *why;
	uint64_t d;
	assert_int_equal(ops->bind_raw(r->state, "a", source, &id, &why), GPA_STATUS_OK);
	assert_int_equal(ops->begin_pass(r->state, &id, 1), GPA_STATUS_OK);
	assert_int_equal(ops->begin_sample(r->state), GPA_STATUS_OK);
	struct vmali_faults f = {.dumps_never_arrive = true};
	vmali_set_faults(r->vm, &f);
	assert_int_equal(ops->end_sample(r->state, &d), GPA_STATUS_ERROR_FAILED);
	if (!strstr(r->last_error, needle))
		fail_msg("log '%s' lacks '%s'", r->last_error, needle);
	f = (struct vmali_faults){0};
	vmali_set_faults(r->vm, &f);
	assert_int_equal(ops->begin_sample(r->state), GPA_STATUS_OK);
	uint64_t a0 = vmali_total(r->vm, block, VMALI_ALL, index);
	vmali_run_frames(r->vm, 2);
	uint64_t a1 = vmali_total(r->vm, block, VMALI_ALL, index);
	assert_int_equal(ops->end_sample(r->state, &d), GPA_STATUS_OK);
	assert_true(a1 > a0);
	assert_int_equal(d, a1 - a0);
	assert_int_equal(ops->end_pass(r->state), GPA_STATUS_OK);
}
