/* SPDX-License-Identifier: MIT */
/* test_vmali_reader.c — the hwcnt reader fd: ring protocol corner cases,
 * periodic sampling, legacy drivers, dump layout and delta semantics. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include <cmocka.h>

#include "vmali_testlib.h"

struct fx {
	struct vmali *vm;
	const struct og_sys *s;
	int kfd;
	struct tl_reader r;
};

static void fx_open(struct fx *f, const struct vmali_config *cfg, uint32_t count)
{
	f->vm = vmali_create(cfg);
	assert_non_null(f->vm);
	f->s = vmali_sys(f->vm);
	f->kfd = tl_open_kbase(f->s);
	assert_true(f->kfd >= 0);
	assert_int_equal(tl_reader_open(f->s, f->kfd, count, NULL, &f->r), 0);
}

static void fx_close(struct fx *f)
{
	tl_reader_close(f->s, &f->r);
	f->s->close(f->s->ctx, f->kfd);
	struct vmali_stats st;
	vmali_get_stats(f->vm, &st);
	assert_int_equal(st.open_fds, 0);
	vmali_destroy(f->vm);
}

static void test_buffer_counts(void **state)
{
	(void)state;
	struct vmali *vm = vmali_create(NULL);
	const struct og_sys *s = vmali_sys(vm);
	int kfd = tl_open_kbase(s);
	struct tl_reader r;
	static const uint32_t bad[] = { 0, 3, 6, 48, 64, 33 };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(tl_reader_open(s, kfd, bad[i], NULL, &r), -EINVAL);
	for (uint32_t n = 1; n <= 32; n *= 2) {
		assert_int_equal(tl_reader_open(s, kfd, n, NULL, &r), 0);
		assert_int_equal(r.size, vmali_dump_size(vm));
		tl_reader_close(s, &r);
	}
	/* A kernel short of contiguous memory: the client must retry smaller. */
	vmali_set_faults(vm, &(struct vmali_faults){ .enomem_above_buffers = 8 });
	assert_int_equal(tl_reader_open(s, kfd, 32, NULL, &r), -ENOMEM);
	assert_int_equal(tl_reader_open(s, kfd, 16, NULL, &r), -ENOMEM);
	assert_int_equal(tl_reader_open(s, kfd, 8, NULL, &r), 0);
	tl_reader_close(s, &r);
	s->close(s->ctx, kfd);
	vmali_destroy(vm);
}

static void test_versions_and_sizes(void **state)
{
	(void)state;
	struct fx f;
	fx_open(&f, &(struct vmali_config){ .core_mask = 0x0F, .l2_slices = 2 }, 4);
	uint32_t v = 0;
	assert_int_equal(tl_ioctl(f.s, f.r.fd, VMALI_READER_GET_HWVER, &v), 0);
	assert_int_equal(v, 5);
	assert_int_equal(tl_ioctl(f.s, f.r.fd, VMALI_READER_GET_API_VERSION, &v), 0);
	assert_int_equal(v, 1);
	struct vmali_reader_api_version av = { 0, 0 };
	assert_int_equal(tl_ioctl(f.s, f.r.fd, VMALI_READER_GET_API_VERSION_WITH_FEATURES, &av), 0);
	assert_int_equal(av.version, 1);
	assert_true(av.features & VMALI_READER_FEATURE_CYCLES_TOP);
	assert_int_equal(f.r.size, (2 + 2 + 4) * 256);
	/* Wrong magic, unknown nr. */
	assert_int_equal(tl_ioctl(f.s, f.r.fd, VMALI_KBASE_SET_FLAGS, &v), -EINVAL);
	assert_int_equal(tl_ioctl(f.s, f.r.fd, _IOW(VMALI_READER_MAGIC, 0x50, uint32_t), &v),
	                 -EINVAL);
	assert_int_equal(tl_ioctl(f.s, f.r.fd, VMALI_READER_ENABLE_EVENT, (void *)(uintptr_t)2), 0);
	vmali_set_faults(f.vm, &(struct vmali_faults){ .buffer_size_skew = -256 });
	assert_int_equal(tl_ioctl(f.s, f.r.fd, VMALI_READER_GET_BUFFER_SIZE, &v), 0);
	assert_int_equal(v, f.r.size - 256);
	fx_close(&f);
}

static void test_mmap_rules(void **state)
{
	(void)state;
	struct fx f;
	fx_open(&f, NULL, 2);
	size_t len = (size_t)f.r.count * f.r.size;
	errno = 0;
	assert_true(f.s->mmap(f.s->ctx, NULL, len + 4096, PROT_READ, MAP_PRIVATE, f.r.fd, 0) ==
	            MAP_FAILED);
	assert_int_equal(errno, EINVAL);
	assert_true(f.s->mmap(f.s->ctx, NULL, len, PROT_READ, MAP_PRIVATE, f.r.fd, 4096) ==
	            MAP_FAILED);
	assert_true(f.s->mmap(f.s->ctx, NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, f.r.fd,
	                      0) == MAP_FAILED);
	assert_true(f.s->mmap(f.s->ctx, NULL, len, PROT_READ, MAP_PRIVATE, f.kfd, 0) == MAP_FAILED);
	fx_close(&f);
}

static void test_get_put_protocol(void **state)
{
	(void)state;
	struct fx f;
	fx_open(&f, &(struct vmali_config){ .manual_frames = true }, 4);
	struct vmali_reader_metadata m;
	struct pollfd p = { f.r.fd, POLLIN, 0 };
	assert_int_equal(f.s->poll(f.s->ctx, &p, 1, 0), 0);
	assert_int_equal(tl_ioctl(f.s, f.r.fd, VMALI_READER_GET_BUFFER, &m), -EAGAIN);
	assert_int_equal(tl_put(f.s, &f.r, &m), -EPERM); /* nothing taken */

	assert_int_equal(tl_ioctl(f.s, f.r.fd, VMALI_READER_DUMP, NULL), 0);
	assert_int_equal(tl_ioctl(f.s, f.r.fd, VMALI_READER_DUMP, NULL), 0);
	assert_int_equal(f.s->poll(f.s->ctx, &p, 1, 0), 1);
	assert_true(p.revents & POLLIN);
	memset(&m, 0xFF, sizeof(m));
	/* The legacy 16-byte form leaves the caller's cycles alone. */
	assert_int_equal(tl_ioctl(f.s, f.r.fd, VMALI_READER_GET_BUFFER, &m), 0);
	assert_int_equal(m.buffer_idx, 0);
	assert_int_equal(m.event_id, VMALI_READER_EVENT_MANUAL);
	assert_true(m.cycles_top == UINT64_MAX);
	/* Held: a second GET is EBUSY even though a buffer is ready. */
	struct vmali_reader_metadata m2;
	assert_int_equal(tl_ioctl(f.s, f.r.fd, VMALI_READER_GET_BUFFER_WITH_CYCLES, &m2), -EBUSY);
	struct vmali_reader_metadata wrong = m;
	wrong.buffer_idx = 1;
	assert_int_equal(tl_ioctl(f.s, f.r.fd, VMALI_READER_PUT_BUFFER, &wrong), -EINVAL);
	assert_int_equal(tl_ioctl(f.s, f.r.fd, VMALI_READER_PUT_BUFFER, &m), 0);
	assert_int_equal(tl_ioctl(f.s, f.r.fd, VMALI_READER_GET_BUFFER_WITH_CYCLES, &m2), 0);
	assert_int_equal(m2.buffer_idx, 1);
	assert_true(m2.timestamp >= m.timestamp);
	/* Extra bytes beyond the 32-byte metadata must be zero on PUT. */
	uint8_t big[40];
	memset(big, 0, sizeof(big));
	memcpy(big, &m2, sizeof(m2));
	big[36] = 1;
	assert_int_equal(tl_ioctl(f.s, f.r.fd, _IOC(_IOC_WRITE, VMALI_READER_MAGIC, 0x21, 40), big),
	                 -EINVAL);
	big[36] = 0;
	assert_int_equal(tl_ioctl(f.s, f.r.fd, _IOC(_IOC_WRITE, VMALI_READER_MAGIC, 0x21, 40), big),
	                 0);
	assert_int_equal(tl_ioctl(f.s, f.r.fd, VMALI_READER_GET_BUFFER, &m), -EAGAIN);
	fx_close(&f);
}

static void test_ring_full(void **state)
{
	(void)state;
	struct fx f;
	fx_open(&f, &(struct vmali_config){ .manual_frames = true }, 2);
	struct vmali_reader_metadata m;
	assert_int_equal(tl_ioctl(f.s, f.r.fd, VMALI_READER_DUMP, NULL), 0);
	assert_int_equal(tl_ioctl(f.s, f.r.fd, VMALI_READER_DUMP, NULL), 0);
	assert_int_equal(tl_ioctl(f.s, f.r.fd, VMALI_READER_DUMP, NULL), -EBUSY);
	/* Taking a buffer does not free it; putting it back does. */
	assert_int_equal(tl_ioctl(f.s, f.r.fd, VMALI_READER_GET_BUFFER_WITH_CYCLES, &m), 0);
	assert_int_equal(tl_ioctl(f.s, f.r.fd, VMALI_READER_DUMP, NULL), -EBUSY);
	assert_int_equal(tl_put(f.s, &f.r, &m), 0);
	assert_int_equal(tl_ioctl(f.s, f.r.fd, VMALI_READER_DUMP, NULL), 0);
	/* Ring order wraps: buffers come back 1 then 0. */
	assert_int_equal(tl_ioctl(f.s, f.r.fd, VMALI_READER_GET_BUFFER_WITH_CYCLES, &m), 0);
	assert_int_equal(m.buffer_idx, 1);
	assert_int_equal(tl_put(f.s, &f.r, &m), 0);
	assert_int_equal(tl_ioctl(f.s, f.r.fd, VMALI_READER_GET_BUFFER_WITH_CYCLES, &m), 0);
	assert_int_equal(m.buffer_idx, 0);
	assert_int_equal(tl_put(f.s, &f.r, &m), 0);
	fx_close(&f);
}

static void test_deltas_and_layout(void **state)
{
	(void)state;
	struct fx f;
	/* Sparse: cores 0, 2, 3, 5 -> six shader-core slots, two of them holes. */
	const uint64_t mask = 0x2D;
	fx_open(&f, &(struct vmali_config){ .core_mask = mask, .l2_slices = 2 }, 4);
	assert_int_equal(f.r.size, (2 + 2 + 6) * 256);
	assert_int_equal(tl_ioctl(f.s, f.r.fd, VMALI_READER_CLEAR, NULL), 0);
	for (int round = 0; round < 3; round++) {
		uint64_t before[4][64];
		for (int b = 0; b < 4; b++)
			for (unsigned i = 0; i < 64; i++)
				before[b][i] = vmali_total(f.vm, (enum vmali_block)b, VMALI_ALL, i);
		uint64_t frames = vmali_frames_run(f.vm);
		struct vmali_reader_metadata m;
		const uint32_t *d = tl_dump_get(f.s, &f.r, &m);
		assert_non_null(d);
		/* One frame per dump (the default). */
		assert_int_equal(vmali_frames_run(f.vm), frames + 1);
		assert_true(m.cycles_top > 0);
		for (int b = 0; b < 4; b++)
			for (unsigned i = 4; i < 64; i++) {
				uint64_t want = vmali_total(f.vm, (enum vmali_block)b, VMALI_ALL, i) -
				                before[b][i];
				assert_int_equal(tl_sum(d, 2, mask, (enum vmali_block)b, i), want);
			}
		/* Front end first: GPU_ACTIVE (JM[6]) is non-zero; the tiler's
		 * TILER_ACTIVE sits in block 1; each block's PRFCNT_EN word is
		 * the mask; holes are all zero. */
		assert_true(d[6] > 0);
		assert_true(d[64 + 4] > 0);
		for (uint32_t blk = 0; blk < 10; blk++) {
			const uint32_t *bw = d + blk * 64;
			bool hole = blk >= 4 && !((mask >> (blk - 4)) & 1);
			assert_int_equal(bw[2], hole ? 0 : 0xFFFFFFFFu);
			if (hole)
				for (unsigned i = 0; i < 64; i++)
					assert_int_equal(bw[i], 0);
			else if (blk >= 4)
				assert_true(bw[4] > 0); /* FRAG_ACTIVE of a present core */
		}
		assert_int_equal(tl_put(f.s, &f.r, &m), 0);
	}
	fx_close(&f);
}

static void test_enable_masks(void **state)
{
	(void)state;
	struct vmali *vm = vmali_create(NULL);
	const struct og_sys *s = vmali_sys(vm);
	int kfd = tl_open_kbase(s);
	struct tl_reader r;
	/* fe: group 1 (counters 4..7); shader: none; tiler: group 1; l2: all */
	const uint32_t bm[4] = { 0x2, 0x0, 0x2, 0xFFFFFFFF };
	assert_int_equal(tl_reader_open(s, kfd, 2, bm, &r), 0);
	struct vmali_reader_metadata m;
	const uint32_t *d = tl_dump_get(s, &r, &m);
	assert_non_null(d);
	assert_int_equal(d[2], 0x2);
	assert_true(d[6] > 0);              /* GPU_ACTIVE enabled */
	assert_int_equal(d[10], 0);         /* JS0_ACTIVE masked */
	assert_true(d[64 + 4] > 0);         /* TILER_ACTIVE */
	assert_int_equal(d[64 + 11], 0);    /* PRIM_VISIBLE masked */
	assert_int_equal(d[3 * 64 + 2], 0); /* first core: shader_bm 0 */
	assert_int_equal(d[3 * 64 + 4], 0);
	assert_true(d[2 * 64 + 26] > 0); /* L2_READ_LOOKUP */
	tl_put(s, &r, &m);
	tl_reader_close(s, &r);
	s->close(s->ctx, kfd);
	vmali_destroy(vm);
}

static void test_two_clients_independent(void **state)
{
	(void)state;
	struct vmali *vm = vmali_create(&(struct vmali_config){ .manual_frames = true });
	const struct og_sys *s = vmali_sys(vm);
	int kfd = tl_open_kbase(s);
	struct tl_reader a, b;
	assert_int_equal(tl_reader_open(s, kfd, 4, NULL, &a), 0);
	vmali_run_frames(vm, 2);
	assert_int_equal(tl_reader_open(s, kfd, 4, NULL, &b), 0);
	uint64_t g0 = vmali_total(vm, VMALI_BLOCK_JM, 0, 6);
	vmali_run_frames(vm, 1);
	uint64_t g1 = vmali_total(vm, VMALI_BLOCK_JM, 0, 6);
	struct vmali_reader_metadata ma, mb;
	const uint32_t *da = tl_dump_get(s, &a, &ma);
	const uint32_t *db = tl_dump_get(s, &b, &mb);
	assert_int_equal(da[6], g1);      /* a saw all three frames */
	assert_int_equal(db[6], g1 - g0); /* b only the one after it started */
	tl_put(s, &a, &ma);
	tl_put(s, &b, &mb);
	/* CLEAR drops what a counted so far. */
	vmali_run_frames(vm, 1);
	assert_int_equal(tl_ioctl(s, a.fd, VMALI_READER_CLEAR, NULL), 0);
	da = tl_dump_get(s, &a, &ma);
	assert_int_equal(da[6], 0);
	assert_int_equal(ma.cycles_top, 0);
	tl_put(s, &a, &ma);
	tl_reader_close(s, &a);
	tl_reader_close(s, &b);
	s->close(s->ctx, kfd);
	vmali_destroy(vm);
}

static void test_periodic_and_floor(void **state)
{
	(void)state;
	struct fx f;
	fx_open(&f, NULL, 8);
	/* 1 ns is clamped to the 100 us floor. */
	assert_int_equal(tl_ioctl(f.s, f.r.fd, VMALI_READER_SET_INTERVAL, (void *)(uintptr_t)1), 0);
	uint64_t last = 0;
	for (int n = 0; n < 4; n++) {
		struct pollfd p = { f.r.fd, POLLIN, 0 };
		assert_int_equal(f.s->poll(f.s->ctx, &p, 1, 5000), 1);
		struct vmali_reader_metadata m;
		assert_int_equal(tl_ioctl(f.s, f.r.fd, VMALI_READER_GET_BUFFER_WITH_CYCLES, &m), 0);
		assert_int_equal(m.event_id, VMALI_READER_EVENT_PERIODIC);
		/* Aligned to multiples of the period since t = 0, one per period. */
		assert_int_equal(m.timestamp % 100000, 0);
		if (last)
			assert_int_equal(m.timestamp - last, 100000);
		last = m.timestamp;
		assert_int_equal(tl_put(f.s, &f.r, &m), 0);
	}
	assert_int_equal(tl_ioctl(f.s, f.r.fd, VMALI_READER_SET_INTERVAL, (void *)(uintptr_t)0), 0);
	/* Stopped: drain, and nothing more is ever due. */
	struct vmali_reader_metadata m;
	while (tl_ioctl(f.s, f.r.fd, VMALI_READER_GET_BUFFER_WITH_CYCLES, &m) == 0)
		tl_put(f.s, &f.r, &m);
	struct pollfd p = { f.r.fd, POLLIN, 0 };
	assert_int_equal(f.s->poll(f.s->ctx, &p, 1, -1), 0);
	struct vmali_stats st;
	vmali_get_stats(f.vm, &st);
	assert_int_equal(st.poll_forever_empty, 1);
	fx_close(&f);
}

static void test_periodic_ring_full_drops(void **state)
{
	(void)state;
	struct fx f;
	fx_open(&f, NULL, 2);
	assert_int_equal(
		tl_ioctl(f.s, f.r.fd, VMALI_READER_SET_INTERVAL, (void *)(uintptr_t)100000), 0);
	/* Wait well past two periods without reading: the ring fills, the rest
	 * are dropped, and manual DUMP reports the full ring. */
	struct pollfd none = { -1, 0, 0 };
	struct vmali_stats st;
	uint32_t v;
	do {
		f.s->poll(f.s->ctx, &none, 1, 1);
		/* Any call on the reader lets the lazy timer catch up. */
		assert_int_equal(tl_ioctl(f.s, f.r.fd, VMALI_READER_GET_HWVER, &v), 0);
		vmali_get_stats(f.vm, &st);
	} while (st.periodic_dropped == 0);
	assert_int_equal(tl_ioctl(f.s, f.r.fd, VMALI_READER_DUMP, NULL), -EBUSY);
	struct vmali_reader_metadata a, b;
	assert_int_equal(tl_ioctl(f.s, f.r.fd, VMALI_READER_GET_BUFFER_WITH_CYCLES, &a), 0);
	assert_int_equal(tl_put(f.s, &f.r, &a), 0);
	assert_int_equal(tl_ioctl(f.s, f.r.fd, VMALI_READER_GET_BUFFER_WITH_CYCLES, &b), 0);
	assert_int_equal(b.timestamp - a.timestamp, 100000);
	assert_int_equal(tl_put(f.s, &f.r, &b), 0);
	fx_close(&f);
}

static void test_dumps_never_arrive(void **state)
{
	(void)state;
	struct fx f;
	fx_open(&f, NULL, 4);
	vmali_set_faults(f.vm, &(struct vmali_faults){ .dumps_never_arrive = true });
	assert_int_equal(tl_ioctl(f.s, f.r.fd, VMALI_READER_DUMP, NULL), 0);
	struct pollfd p = { f.r.fd, POLLIN, 0 };
	assert_int_equal(f.s->poll(f.s->ctx, &p, 1, 20), 0);
	struct vmali_reader_metadata m;
	assert_int_equal(tl_ioctl(f.s, f.r.fd, VMALI_READER_GET_BUFFER_WITH_CYCLES, &m), -EAGAIN);
	fx_close(&f);
}

static void test_legacy_vinstr(void **state)
{
	(void)state;
	struct fx f;
	fx_open(&f, &(struct vmali_config){ .uk_major = 11, .uk_minor = 20 }, 4);
	struct vmali_reader_api_version av;
	uint32_t v;
	assert_int_equal(tl_ioctl(f.s, f.r.fd, VMALI_READER_GET_API_VERSION_WITH_FEATURES, &av),
	                 -EINVAL);
	assert_int_equal(tl_ioctl(f.s, f.r.fd, VMALI_READER_GET_API_VERSION, &v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(tl_ioctl(f.s, f.r.fd, VMALI_READER_DUMP, NULL), 0);
	struct vmali_reader_metadata m;
	assert_int_equal(tl_ioctl(f.s, f.r.fd, VMALI_READER_GET_BUFFER_WITH_CYCLES, &m), -EINVAL);
	assert_int_equal(tl_ioctl(f.s, f.r.fd, VMALI_READER_GET_BUFFER, &m), 0);
	assert_int_equal(tl_ioctl(f.s, f.r.fd, VMALI_READER_PUT_BUFFER, &m), 0);
	/* Only PREJOB / POSTJOB may be masked on the old reader. */
	assert_int_equal(tl_ioctl(f.s, f.r.fd, VMALI_READER_ENABLE_EVENT, (void *)(uintptr_t)2), 0);
	assert_int_equal(tl_ioctl(f.s, f.r.fd, VMALI_READER_DISABLE_EVENT, (void *)(uintptr_t)0),
	                 -EINVAL);
	fx_close(&f);
}

static void test_reader_outlives_device_fd(void **state)
{
	(void)state;
	struct vmali *vm = vmali_create(NULL);
	const struct og_sys *s = vmali_sys(vm);
	int kfd = tl_open_kbase(s);
	struct tl_reader r;
	assert_int_equal(tl_reader_open(s, kfd, 2, NULL, &r), 0);
	assert_int_equal(s->close(s->ctx, kfd), 0);
	struct vmali_reader_metadata m;
	assert_non_null(tl_dump_get(s, &r, &m));
	assert_int_equal(tl_put(s, &r, &m), 0);
	tl_reader_close(s, &r);
	vmali_destroy(vm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buffer_counts),
		cmocka_unit_test(test_versions_and_sizes),
		cmocka_unit_test(test_mmap_rules),
		cmocka_unit_test(test_get_put_protocol),
		cmocka_unit_test(test_ring_full),
		cmocka_unit_test(test_deltas_and_layout),
		cmocka_unit_test(test_enable_masks),
		cmocka_unit_test(test_two_clients_independent),
		cmocka_unit_test(test_periodic_and_floor),
		cmocka_unit_test(test_periodic_ring_full_drops),
		cmocka_unit_test(test_dumps_never_arrive),
		cmocka_unit_test(test_legacy_vinstr),
		cmocka_unit_test(test_reader_outlives_device_fd),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
