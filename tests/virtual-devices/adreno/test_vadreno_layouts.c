/* SPDX-License-Identifier: MIT */
/*
 * test_vadreno_layouts.c — the virtual Adreno spoken to in both KGSL
 * layouts from one process: the 32-bit (ILP32) structs and request numbers
 * of backends/adreno/kgsl_uapi.h, as an armv7 client lays them out, and the
 * 64-bit (LP64) ones, for the same device.  Both must give the same chip id,
 * GMEM size, counters per group, countables held, and counter values; the
 * 32-bit ones must be refused where a 32-bit kernel would refuse them (a
 * DEVICE_INFO of the 64-bit size).
 *
 * A 32-bit struct carries 32-bit user pointers, so on a 64-bit host every
 * buffer they point to is in memory mapped below 4 GiB (a hinted anonymous
 * mapping); where the system gives none there, the test is skipped and says
 * so.  On a 32-bit host (the armhf cross run) every pointer fits, and the
 * 32-bit layout is the process's own.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <cmocka.h>

#include "adreno/kgsl_uapi.h"
#include "sys.h"
#include "vadreno.h"

#define LOW_BYTES 65536u

/* A buffer the 32-bit structs can point to, or NULL (the test is skipped). */
static unsigned char *map_low(void)
{
	uintptr_t hints[] = {0x10000000u, 0x30000000u, 0x50000000u};
	for (size_t i = 0; i < sizeof hints / sizeof hints[0]; i++) {
		void *p = mmap((void *)hints[i], LOW_BYTES, PROT_READ | PROT_WRITE,
		               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			continue;
		if ((uint64_t)(uintptr_t)p + LOW_BYTES <= UINT32_MAX)
			return p;
		munmap(p, LOW_BYTES);
	}
	return NULL;
}

static uint32_t ptr32(const void *p)
{
	assert_true((uint64_t)(uintptr_t)p <= UINT32_MAX);
	return (uint32_t)(uintptr_t)p;
}

struct dev {
	struct vadreno *vd;
	const struct og_sys *sys;
	int fd;
};

static void dev_open(struct dev *d, uint32_t chip)
{
	struct vadreno_config c = {.chip_id = chip, .manual_frames = true};
	d->vd = vadreno_create(&c);
	assert_non_null(d->vd);
	d->sys = vadreno_sys(d->vd);
	d->fd = d->sys->open(d->sys->ctx, VADRENO_PATH, O_RDWR, 0);
	assert_true(d->fd >= 0);
}

static void dev_close(struct dev *d)
{
	assert_int_equal(d->sys->close(d->sys->ctx, d->fd), 0);
	assert_int_equal(vadreno_user_refs(d->vd), 0);
	assert_int_equal(vadreno_open_fds(d->vd), 0);
	vadreno_destroy(d->vd);
}

static int dev_ioctl(struct dev *d, unsigned long req, void *arg)
{
	return d->sys->ioctl(d->sys->ctx, d->fd, req, arg);
}

/* DEVICE_INFO in both layouts. */
static void check_devinfo(struct dev *d, unsigned char *low, uint32_t chip)
{
	struct og_kgsl_devinfo32 *i32 = (void *)low;
	memset(i32, 0, sizeof *i32);
	struct og_kgsl_getproperty32 gp32 = {OG_KGSL_PROP_DEVICE_INFO, ptr32(i32), sizeof *i32};
	assert_int_equal(dev_ioctl(d, OG_KGSL_GETPROPERTY32, &gp32), 0);

	struct og_kgsl_devinfo64 *i64 = (void *)(low + 64);
	memset(i64, 0, sizeof *i64);
	struct og_kgsl_getproperty64 gp64 = {.type = OG_KGSL_PROP_DEVICE_INFO,
	                                     .value = (uintptr_t)i64, .sizebytes = sizeof *i64};
	assert_int_equal(dev_ioctl(d, OG_KGSL_GETPROPERTY64, &gp64), 0);

	assert_int_equal(i32->chip_id, chip);
	assert_int_equal(i64->chip_id, chip);
	assert_true(i32->gmem_sizebytes > 0);
	assert_true(i32->gmem_sizebytes == i64->gmem_sizebytes);

	/* The 64-bit struct's size through the 32-bit request: refused, as a
	 * kernel that checks sizebytes against its compat struct does. */
	gp32.sizebytes = sizeof *i64;
	errno = 0;
	assert_int_equal(dev_ioctl(d, OG_KGSL_GETPROPERTY32, &gp32), -1);
	assert_int_equal(errno, EINVAL);
}

/* QUERY of every group in both layouts: the same counts and countables. */
static void check_query(struct dev *d, unsigned char *low)
{
	uint32_t *buf32 = (uint32_t *)(low + 1024);
	uint32_t buf64[64];
	unsigned groups = 0;
	for (uint32_t g = 0; g < OG_KGSL_GROUP_MAX; g++) {
		struct og_kgsl_perfcounter_query32 q32 = {.groupid = g};
		struct og_kgsl_perfcounter_query64 q64 = {.groupid = g};
		int r32 = dev_ioctl(d, OG_KGSL_PERFCOUNTER_QUERY32, &q32);
		int e32 = errno;
		int r64 = dev_ioctl(d, OG_KGSL_PERFCOUNTER_QUERY64, &q64);
		int e64 = errno;
		assert_int_equal(r32, r64);
		if (r32 < 0) {
			assert_int_equal(e32, e64);
			continue;
		}
		assert_int_equal(q32.max_counters, q64.max_counters);
		if (!q32.max_counters)
			continue;
		assert_true(q32.max_counters <= 64);
		groups++;
		memset(buf32, 0xAB, 64 * 4);
		memset(buf64, 0xCD, sizeof buf64);
		q32.countables = ptr32(buf32);
		q32.count = q32.max_counters;
		q64.countables = (uintptr_t)buf64;
		q64.count = q64.max_counters;
		assert_int_equal(dev_ioctl(d, OG_KGSL_PERFCOUNTER_QUERY32, &q32), 0);
		assert_int_equal(dev_ioctl(d, OG_KGSL_PERFCOUNTER_QUERY64, &q64), 0);
		assert_memory_equal(buf32, buf64, q32.max_counters * 4u);
	}
	assert_true(groups >= 10); /* CP, RBBM, PC, ..., SP on every generation */
}

/* GET SP_VS_INSTRUCTIONS and CP_BUSY_CYCLES, READ them in both layouts around frames, PUT. */
static void check_read(struct dev *d, unsigned char *low, uint32_t vs)
{
	const uint32_t sp = 0x0A, cp = 0x00;
	struct og_kgsl_perfcounter_get get[2] = {{.groupid = sp, .countable = vs},
	                                         {.groupid = cp, .countable = 2}};
	for (int i = 0; i < 2; i++)
		assert_int_equal(dev_ioctl(d, OG_KGSL_PERFCOUNTER_GET, &get[i]), 0);

	struct og_kgsl_read_group *r32 = (void *)(low + 4096);
	struct og_kgsl_read_group r64[2];
	uint64_t before[2];
	for (int round = 0; round < 2; round++) {
		for (int i = 0; i < 2; i++) {
			r32[i] = (struct og_kgsl_read_group){get[i].groupid, get[i].countable, 0};
			r64[i] = r32[i];
		}
		struct og_kgsl_perfcounter_read32 rd32 = {.reads = ptr32(r32), .count = 2};
		struct og_kgsl_perfcounter_read64 rd64 = {.reads = (uintptr_t)r64, .count = 2};
		assert_int_equal(dev_ioctl(d, OG_KGSL_PERFCOUNTER_READ32, &rd32), 0);
		assert_int_equal(dev_ioctl(d, OG_KGSL_PERFCOUNTER_READ64, &rd64), 0);
		for (int i = 0; i < 2; i++) {
			assert_int_equal(r32[i].groupid, get[i].groupid);
			assert_int_equal(r32[i].countable, get[i].countable);
			/* No frame ran between the two reads: the same value. */
			assert_true(r32[i].value == r64[i].value);
			if (round == 0)
				before[i] = r32[i].value;
			else
				assert_true(r32[i].value - before[i] ==
				            7 * vadreno_rate(d->vd, get[i].groupid, get[i].countable));
		}
		vadreno_run_frames(d->vd, 7);
	}
	assert_true(r32[0].value > before[0]);

	/* A READ32 whose count is 0 is refused; its pointer is never followed. */
	struct og_kgsl_perfcounter_read32 empty = {.reads = ptr32(r32), .count = 0};
	errno = 0;
	assert_int_equal(dev_ioctl(d, OG_KGSL_PERFCOUNTER_READ32, &empty), -1);
	assert_int_equal(errno, EINVAL);

	for (int i = 0; i < 2; i++) {
		struct og_kgsl_perfcounter_put put = {.groupid = get[i].groupid,
		                                      .countable = get[i].countable};
		assert_int_equal(dev_ioctl(d, OG_KGSL_PERFCOUNTER_PUT, &put), 0);
	}
}

struct chip {
	uint32_t id;
	uint32_t vs; /* SP_VS_INSTRUCTIONS (reference 5.3) */
};

static void test_layouts(void **state)
{
	const struct chip *c = *state;
	unsigned char *low = map_low();
	if (!low) {
		print_message("no memory below 4 GiB to map: the 32-bit layout cannot be "
		              "exercised from this 64-bit process; skipped\n");
		skip();
	}
	struct dev d;
	dev_open(&d, c->id);
	check_devinfo(&d, low, c->id);
	check_query(&d, low);
	check_read(&d, low, c->vs);
	dev_close(&d);
	munmap(low, LOW_BYTES);
}

static struct chip a530 = {0x05030002u, 44};
static struct chip a650 = {0x06050002u, 43};
static struct chip a740 = {0x43050a01u, 43};

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_prestate(test_layouts, &a530),
		cmocka_unit_test_prestate(test_layouts, &a650),
		cmocka_unit_test_prestate(test_layouts, &a740),
	};
	return cmocka_run_group_tests_name("vadreno-layouts", tests, NULL, NULL);
}
