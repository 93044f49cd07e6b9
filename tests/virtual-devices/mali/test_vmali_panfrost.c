/* SPDX-License-Identifier: MIT */
/* test_vmali_panfrost.c — the render node /dev/dri/renderD128 as the upstream
 * panfrost driver answers it (reference §6): DRM_IOCTL_VERSION, GET_PARAM, the
 * PERFCNT_ENABLE / PERFCNT_DUMP pair with its dump layout and values, the
 * unstable-ioctls gate, one owner at a time, and bad arguments. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "vmali_testlib.h"

static struct vmali *make(const struct vmali_config *cfg)
{
	struct vmali *vm = vmali_create(cfg);
	assert_non_null(vm);
	return vm;
}

static int open_render(const struct og_sys *s)
{
	int fd = s->open(s->ctx, VMALI_PATH_PANFROST, O_RDWR | O_CLOEXEC, 0);
	assert_true(fd >= 0);
	return fd;
}

static int param(const struct og_sys *s, int fd, uint32_t which, uint64_t *value)
{
	struct vmali_panfrost_get_param g = { which, 0, 0xDEADu };
	int r = tl_ioctl(s, fd, VMALI_PANFROST_GET_PARAM, &g);
	*value = g.value;
	return r;
}

static int enable(const struct og_sys *s, int fd, uint32_t on, uint32_t counterset)
{
	struct vmali_panfrost_perfcnt_enable e = { on, counterset };
	return tl_ioctl(s, fd, VMALI_PANFROST_PERFCNT_ENABLE, &e);
}

/* A dump in CPU order: the driver copies the GPU's little-endian words. */
static int dump(const struct og_sys *s, int fd, void *buf)
{
	struct vmali_panfrost_perfcnt_dump d = { (uint64_t)(uintptr_t)buf };
	int r = tl_ioctl(s, fd, VMALI_PANFROST_PERFCNT_DUMP, &d);
	uint32_t *w = buf;
	for (size_t i = 0; r == 0 && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ &&
	                   i < vmali_dump_size(s->ctx) / sizeof *w; i++)
		w[i] = __builtin_bswap32(w[i]);
	return r;
}

static void test_version_says_panfrost(void **state)
{
	(void)state;
	struct vmali *vm = make(NULL);
	const struct og_sys *s = vmali_sys(vm);
	int fd = open_render(s);

	/* libdrm's two calls: lengths first, then the strings. */
	struct vmali_drm_version v;
	memset(&v, 0, sizeof(v));
	assert_int_equal(tl_ioctl(s, fd, VMALI_DRM_IOCTL_VERSION, &v), 0);
	assert_int_equal(v.name_len, strlen("panfrost"));
	assert_true(v.date_len > 0 && v.desc_len > 0);
	assert_int_equal(v.version_major, 1);

	char name[32], date[32], desc[64];
	memset(name, 'X', sizeof(name));
	v.name = name;
	v.name_len = sizeof(name);
	v.date = date;
	v.date_len = sizeof(date);
	v.desc = desc;
	v.desc_len = sizeof(desc);
	assert_int_equal(tl_ioctl(s, fd, VMALI_DRM_IOCTL_VERSION, &v), 0);
	assert_int_equal(v.name_len, 8);
	assert_memory_equal(name, "panfrost", 8);
	assert_int_equal(name[8], 'X'); /* DRM copies no terminating NUL */

	/* A short buffer gets a prefix, and the full length is reported. */
	memset(name, 'X', sizeof(name));
	v.name_len = 3;
	assert_int_equal(tl_ioctl(s, fd, VMALI_DRM_IOCTL_VERSION, &v), 0);
	assert_int_equal(v.name_len, 8);
	assert_memory_equal(name, "panX", 4);

	assert_int_equal(tl_ioctl(s, fd, VMALI_DRM_IOCTL_VERSION, NULL), -EFAULT);
	s->close(s->ctx, fd);
	vmali_destroy(vm);
}

/* GET_PARAM tells what the kbase node's properties tell, in panfrost's words. */
static void test_get_param_values(void **state)
{
	(void)state;
	static const struct {
		uint64_t mask;
		uint32_t slices, bus;
	} shapes[] = { { 0xFF, 2, 128 }, { 0x2D, 4, 64 }, { 0x8000000000000001ull, 16, 256 } };
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		struct vmali_config cfg = tl_g71(shapes[i].mask, shapes[i].slices);
		cfg.bus_width_bits = shapes[i].bus;
		struct vmali *vm = make(&cfg);
		const struct og_sys *s = vmali_sys(vm);
		int kfd = tl_open_kbase(s);
		assert_true(kfd >= 0);
		struct tl_props props;
		assert_int_equal(tl_get_props(s, kfd, &props), 0);
		s->close(s->ctx, kfd);

		int fd = open_render(s);
		uint64_t v;
		assert_int_equal(param(s, fd, VMALI_PF_GPU_PROD_ID, &v), 0);
		assert_int_equal(v, 0x6000);
		assert_int_equal(param(s, fd, VMALI_PF_GPU_REVISION, &v), 0);
		assert_int_equal(v, props.raw_gpu_id & 0xFFFF);
		assert_int_equal(param(s, fd, VMALI_PF_SHADER_PRESENT, &v), 0);
		assert_int_equal(v, shapes[i].mask);
		assert_int_equal(param(s, fd, VMALI_PF_L2_PRESENT, &v), 0);
		assert_int_equal(v, (1ull << shapes[i].slices) - 1);
		assert_int_equal(param(s, fd, VMALI_PF_MEM_FEATURES, &v), 0);
		assert_int_equal(v, props.mem_features);
		assert_int_equal(((v >> 8) & 0xF) + 1, shapes[i].slices); /* how the kernel sizes dumps */
		assert_int_equal(param(s, fd, VMALI_PF_L2_FEATURES, &v), 0);
		assert_int_equal(v, props.l2_features);
		assert_int_equal(1u << ((v >> 24) & 0xFF), shapes[i].bus);
		assert_int_equal(param(s, fd, VMALI_PF_TILER_PRESENT, &v), 0);
		assert_int_equal(v, 1);
		/* A parameter upstream has but the model leaves alone reads 0. */
		assert_int_equal(param(s, fd, VMALI_PF_CORE_FEATURES, &v), 0);
		assert_int_equal(v, 0);
		s->close(s->ctx, fd);
		vmali_destroy(vm);
	}
}

static void test_perfcnt_gated_by_unstable_ioctls(void **state)
{
	(void)state;
	struct vmali_config cfg = tl_g71(0xFF, 1);
	cfg.panfrost_unstable_ioctls = false;
	struct vmali *vm = make(&cfg);
	const struct og_sys *s = vmali_sys(vm);
	int fd = open_render(s);
	uint32_t buf[11 * 64];
	assert_int_equal(enable(s, fd, 1, 0), -ENOSYS);
	assert_int_equal(dump(s, fd, buf), -ENOSYS);
	assert_int_equal(enable(s, fd, 0, 0), -ENOSYS);
	/* The stable ioctls still answer. */
	uint64_t v;
	assert_int_equal(param(s, fd, VMALI_PF_SHADER_PRESENT, &v), 0);
	assert_int_equal(v, 0xFF);
	s->close(s->ctx, fd);
	vmali_destroy(vm);
}

static void test_one_owner_at_a_time(void **state)
{
	(void)state;
	struct vmali_config cfg = tl_g71(0xF, 1);
	struct vmali *vm = make(&cfg);
	const struct og_sys *s = vmali_sys(vm);
	uint32_t *buf = calloc(1, vmali_dump_size(vm));
	assert_non_null(buf);
	int a = open_render(s), b = open_render(s);
	assert_int_equal(enable(s, a, 1, 0), 0);
	assert_int_equal(enable(s, b, 1, 0), -EBUSY);
	assert_int_equal(enable(s, a, 1, 0), 0); /* the owner again: no-op */
	assert_int_equal(dump(s, b, buf), -EINVAL);
	assert_int_equal(enable(s, b, 0, 0), -EINVAL);
	assert_int_equal(dump(s, a, buf), 0);
	/* Disabling frees the counters for the other file. */
	assert_int_equal(enable(s, a, 0, 0), 0);
	assert_int_equal(dump(s, a, buf), -EINVAL);
	assert_int_equal(enable(s, b, 1, 0), 0);
	assert_int_equal(enable(s, a, 1, 0), -EBUSY);
	/* So does closing the owner's file. */
	s->close(s->ctx, b);
	assert_int_equal(enable(s, a, 1, 0), 0);
	s->close(s->ctx, a);
	free(buf);
	vmali_destroy(vm);
}

static void test_bad_arguments(void **state)
{
	(void)state;
	struct vmali *vm = make(&(struct vmali_config){ .panfrost_unstable_ioctls = true });
	const struct og_sys *s = vmali_sys(vm);
	int fd = open_render(s);
	uint64_t v;
	/* GET_PARAM: pad must be zero, the parameter must exist. */
	struct vmali_panfrost_get_param g = { VMALI_PF_GPU_PROD_ID, 1, 0 };
	assert_int_equal(tl_ioctl(s, fd, VMALI_PANFROST_GET_PARAM, &g), -EINVAL);
	assert_int_equal(param(s, fd, 1000, &v), -EINVAL);
	assert_int_equal(tl_ioctl(s, fd, VMALI_PANFROST_GET_PARAM, NULL), -EFAULT);
	/* PERFCNT: Bifrost has counter sets 0 and 1; a dump needs a buffer and
	 * an enabled file; arguments are copied in before anything else. */
	assert_int_equal(enable(s, fd, 1, 2), -EINVAL);
	uint32_t *buf = calloc(1, vmali_dump_size(vm));
	assert_non_null(buf);
	assert_int_equal(dump(s, fd, buf), -EINVAL);
	assert_int_equal(enable(s, fd, 0, 0), -EINVAL); /* disabling what it never enabled */
	assert_int_equal(tl_ioctl(s, fd, VMALI_PANFROST_PERFCNT_ENABLE, NULL), -EFAULT);
	assert_int_equal(tl_ioctl(s, fd, VMALI_PANFROST_PERFCNT_DUMP, NULL), -EFAULT);
	assert_int_equal(enable(s, fd, 1, 0), 0);
	assert_int_equal(dump(s, fd, NULL), -EFAULT);
	assert_int_equal(dump(s, fd, buf), 0);
	/* A DRM command the driver does not have; another driver's ioctl. */
	assert_int_equal(tl_ioctl(s, fd, _IOWR('d', 0x40 + 0x3F, uint64_t), &v), -EINVAL);
	assert_int_equal(tl_ioctl(s, fd, VMALI_KBASE_VERSION_CHECK_JM, &v), -ENOTTY);
	s->close(s->ctx, fd);

	/* The unstable switch off: a bad pointer is still EFAULT first. */
	struct vmali_config off = tl_g71(0xFF, 1);
	off.panfrost_unstable_ioctls = false;
	struct vmali *vm2 = make(&off);
	s = vmali_sys(vm2);
	fd = open_render(s);
	assert_int_equal(tl_ioctl(s, fd, VMALI_PANFROST_PERFCNT_ENABLE, NULL), -EFAULT);
	assert_int_equal(tl_ioctl(s, fd, VMALI_PANFROST_PERFCNT_DUMP, NULL), -EFAULT);
	s->close(s->ctx, fd);
	free(buf);
	vmali_destroy(vm2);
	vmali_destroy(vm);
}

/* Every word of a dump against the model's own per-instance counts. */
static void check_dump(const uint32_t *d, const uint64_t *before, const uint64_t *after,
                       uint32_t nblocks, uint32_t slices, uint64_t mask)
{
	for (uint32_t b = 0; b < nblocks; b++) {
		const uint32_t *blk = d + (size_t)b * VMALI_COUNTERS_PER_BLOCK;
		bool hole = b >= 2 + slices && !((mask >> (b - 2 - slices)) & 1);
		if (hole) {
			for (uint32_t i = 0; i < VMALI_COUNTERS_PER_BLOCK; i++)
				assert_int_equal(blk[i], 0);
			continue;
		}
		assert_int_equal(blk[VMALI_PRFCNT_EN_WORD], 0xFFFFFFFFu);
		for (uint32_t i = VMALI_HEADER_WORDS; i < VMALI_COUNTERS_PER_BLOCK; i++) {
			size_t k = (size_t)b * VMALI_COUNTERS_PER_BLOCK + i;
			if (blk[i] != after[k] - before[k])
				fail_msg("block %u word %u: dump %u, model %llu", (unsigned)b, (unsigned)i,
				         (unsigned)blk[i], (unsigned long long)(after[k] - before[k]));
		}
	}
}

/* The model's counts per block as a dump orders them (2 + L2 + fls(mask)). */
static void model_counts(struct vmali *vm, uint32_t slices, uint64_t mask, uint64_t *out)
{
	uint32_t slots = 64u - (uint32_t)__builtin_clzll(mask);
	for (uint32_t i = 0; i < VMALI_COUNTERS_PER_BLOCK; i++) {
		out[i] = vmali_total(vm, VMALI_BLOCK_JM, 0, i);
		out[VMALI_COUNTERS_PER_BLOCK + i] = vmali_total(vm, VMALI_BLOCK_TILER, 0, i);
		for (uint32_t l = 0; l < slices; l++)
			out[(2 + l) * VMALI_COUNTERS_PER_BLOCK + i] =
				vmali_total(vm, VMALI_BLOCK_L2, (int)l, i);
		for (uint32_t c = 0; c < slots; c++)
			out[(2 + slices + c) * VMALI_COUNTERS_PER_BLOCK + i] =
				vmali_total(vm, VMALI_BLOCK_SC, (int)c, i);
	}
}

static void test_dump_layout_and_values(void **state)
{
	(void)state;
	const uint64_t mask = 0x2D; /* cores 0, 2, 3, 5: holes at 1 and 4 */
	const uint32_t slices = 2, nblocks = 2 + 2 + 6;
	/* 1000 visible triangles and a 64x64 target: 4 fragment tasks a frame. */
	struct vmali_config cfg = tl_g71(mask, slices);
	cfg.workload = "frame prims=1000 culled=0 clipped=0 satcull=0 width=64 height=64";
	struct vmali *vm = make(&cfg);
	const struct og_sys *s = vmali_sys(vm);
	size_t bytes = vmali_dump_size(vm);
	assert_int_equal(bytes, nblocks * VMALI_BLOCK_BYTES);
	/* A guard past the dump: the kernel copies exactly its own size. */
	uint8_t *buf = malloc(bytes + 256);
	assert_non_null(buf);
	memset(buf, 0xCD, bytes + 256);
	const uint32_t *d = (const uint32_t *)(const void *)buf;
	size_t words = (size_t)nblocks * VMALI_COUNTERS_PER_BLOCK;
	uint64_t *before = calloc(words, sizeof(uint64_t)), *after = calloc(words, sizeof(uint64_t));
	assert_non_null(before);
	assert_non_null(after);

	int fd = open_render(s);
	vmali_run_frames(vm, 2); /* before ENABLE: never counted */
	assert_int_equal(enable(s, fd, 1, 0), 0);
	model_counts(vm, slices, mask, before);
	vmali_run_frames(vm, 3);
	model_counts(vm, slices, mask, after);
	assert_int_equal(dump(s, fd, buf), 0);
	for (size_t i = bytes; i < bytes + 256; i++)
		assert_int_equal(buf[i], 0xCD);
	check_dump(d, before, after, nblocks, slices, mask);
	/* What the script says three frames hold. */
	assert_int_equal(d[VMALI_COUNTERS_PER_BLOCK + 6], 3000);  /* TILER triangles */
	assert_int_equal(d[VMALI_COUNTERS_PER_BLOCK + 11], 3000); /* TILER visible */
	assert_int_equal(d[VMALI_COUNTERS_PER_BLOCK + 5], 3);     /* TILER jobs */
	assert_int_equal(d[9], 3 * 4);                            /* JM JS0 tasks */
	assert_int_equal(d[63], 3);                               /* JM cache flushes */

	/* Each dump restarts the count: the next holds only what ran since. */
	memcpy(before, after, words * sizeof(uint64_t));
	vmali_run_frames(vm, 1);
	model_counts(vm, slices, mask, after);
	assert_int_equal(dump(s, fd, buf), 0);
	check_dump(d, before, after, nblocks, slices, mask);
	assert_int_equal(d[VMALI_COUNTERS_PER_BLOCK + 6], 1000);

	/* Nothing ran: headers only. */
	memcpy(before, after, words * sizeof(uint64_t));
	assert_int_equal(dump(s, fd, buf), 0);
	check_dump(d, before, after, nblocks, slices, mask);

	/* Counter set 1 selects counters the model does not produce. */
	assert_int_equal(enable(s, fd, 0, 0), 0);
	assert_int_equal(enable(s, fd, 1, 1), 0);
	vmali_run_frames(vm, 1);
	assert_int_equal(dump(s, fd, buf), 0);
	for (uint32_t b = 0; b < nblocks; b++)
		for (uint32_t i = VMALI_HEADER_WORDS; i < VMALI_COUNTERS_PER_BLOCK; i++)
			assert_int_equal(d[b * VMALI_COUNTERS_PER_BLOCK + i], 0);
	s->close(s->ctx, fd);
	free(before);
	free(after);
	free(buf);
	vmali_destroy(vm);
}

/* Without manual frames each DUMP first runs frames_per_dump frames, and the
 * dump holds them. */
static void test_dump_advances_the_workload(void **state)
{
	(void)state;
	struct vmali_config cfg = tl_g71(0xFF, 1);
	cfg.manual_frames = false;
	cfg.frames_per_dump = 2;
	cfg.workload = "frame prims=500 culled=0 clipped=0 satcull=0";
	struct vmali *vm = make(&cfg);
	const struct og_sys *s = vmali_sys(vm);
	uint32_t *buf = calloc(1, vmali_dump_size(vm));
	assert_non_null(buf);
	int fd = open_render(s);
	assert_int_equal(enable(s, fd, 1, 0), 0);
	for (int i = 1; i <= 3; i++) {
		assert_int_equal(dump(s, fd, buf), 0);
		assert_int_equal(vmali_frames_run(vm), 2u * (unsigned)i);
		assert_int_equal(buf[VMALI_COUNTERS_PER_BLOCK + 6], 1000);
	}
	s->close(s->ctx, fd);
	free(buf);
	vmali_destroy(vm);
}

/* Counts past 2^32 between two dumps stop at 2^32 - 1 in the u32 word. */
static void test_dump_saturates(void **state)
{
	(void)state;
	struct vmali_config cfg = tl_g71(0x1, 1);
	cfg.workload = "frame prims=100000000 culled=0 clipped=0 satcull=0 compute_warps=0";
	struct vmali *vm = make(&cfg);
	const struct og_sys *s = vmali_sys(vm);
	uint32_t *buf = calloc(1, vmali_dump_size(vm));
	assert_non_null(buf);
	int fd = open_render(s);
	assert_int_equal(enable(s, fd, 1, 0), 0);
	vmali_run_frames(vm, 43); /* 4.3e9 triangles */
	assert_int_equal(dump(s, fd, buf), 0);
	assert_int_equal(buf[VMALI_COUNTERS_PER_BLOCK + 6], UINT32_MAX);
	vmali_run_frames(vm, 1);
	assert_int_equal(dump(s, fd, buf), 0);
	assert_int_equal(buf[VMALI_COUNTERS_PER_BLOCK + 6], 100000000u);
	s->close(s->ctx, fd);
	free(buf);
	vmali_destroy(vm);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_version_says_panfrost),
		cmocka_unit_test(test_get_param_values),
		cmocka_unit_test(test_perfcnt_gated_by_unstable_ioctls),
		cmocka_unit_test(test_one_owner_at_a_time),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_dump_layout_and_values),
		cmocka_unit_test(test_dump_advances_the_workload),
		cmocka_unit_test(test_dump_saturates),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
