/* SPDX-License-Identifier: MIT */
/*
 * test_vk_cal.c — lib/apictx/vk_cal.c without a Vulkan driver: a fake
 * loader that gives (or withholds) vkGetCalibratedTimestamps* and the time
 * domains, then GPU timestamps placed on CLOCK_MONOTONIC across a wrap of
 * a 32-bit timestamp counter, the KHR name preferred to the EXT one,
 * every way a device cannot calibrate answered with no calibration, and
 * the batches of spans written to opengpa stat's pipe.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "apictx/vk.h"
#include "apictx/vk_abi.h"

/* What the fake device offers. */
struct fake_device {
	bool khr, ext;       /* which names vkGetDeviceProcAddr gives */
	int ndomains;        /* 2: device and CLOCK_MONOTONIC; 1: the device's alone */
	int32_t result;      /* vkGetCalibratedTimestamps' */
	uint64_t dev, mono, deviation;
	const char *called;  /* the name of the calibrate command called */
};
static struct fake_device fake;

static vk_result domains(void *physical, uint32_t *n, int32_t *out)
{
	(void)physical;
	uint32_t have = (uint32_t)fake.ndomains;
	for (uint32_t i = 0; out && i < have && i < *n; i++)
		out[i] = (int32_t)i; /* DEVICE 0, CLOCK_MONOTONIC 1 */
	*n = have;
	return 0;
}

static vk_result calibrate(const char *name, uint32_t n, const struct vk_calibrated_timestamp_info *info, uint64_t *ts,
                         uint64_t *dev)
{
	fake.called = name;
	assert_int_equal(n, 2);
	assert_int_equal(info[0].timeDomain, OGVK_TIME_DOMAIN_DEVICE);
	assert_int_equal(info[1].timeDomain, OGVK_TIME_DOMAIN_CLOCK_MONOTONIC);
	assert_int_equal(info[0].sType, OGVK_STRUCTURE_TYPE_CALIBRATED_TIMESTAMP_INFO);
	ts[0] = fake.dev;
	ts[1] = fake.mono;
	*dev = fake.deviation;
	return fake.result;
}

static vk_result cal_khr(void *device, uint32_t n, const struct vk_calibrated_timestamp_info *info, uint64_t *ts,
                       uint64_t *dev)
{
	(void)device;
	return calibrate("KHR", n, info, ts, dev);
}

static vk_result cal_ext(void *device, uint32_t n, const struct vk_calibrated_timestamp_info *info, uint64_t *ts,
                       uint64_t *dev)
{
	(void)device;
	return calibrate("EXT", n, info, ts, dev);
}

static void *gipa(void *instance, const char *name)
{
	(void)instance;
	if (strstr(name, "CalibrateableTimeDomains"))
		return (void *)(uintptr_t)domains;
	return NULL;
}

static void *gdpa(void *device, const char *name)
{
	(void)device;
	if (fake.khr && strcmp(name, "vkGetCalibratedTimestampsKHR") == 0)
		return (void *)(uintptr_t)cal_khr;
	if (fake.ext && strcmp(name, "vkGetCalibratedTimestampsEXT") == 0)
		return (void *)(uintptr_t)cal_ext;
	return NULL;
}

static void *device = &fake;

static struct og_vk_cal *open_fake(uint64_t mask, double period)
{
	return og_vk_cal_open(&fake, &fake, device, gipa, gdpa, mask, period);
}

static void test_wrap(void **state)
{
	(void)state;
	fake = (struct fake_device){ .ext = true, .ndomains = 2, .dev = 0xffffff00u,
		               .mono = 1000000000u, .deviation = 7 };
	struct og_vk_cal *c = open_fake(0xffffffffu, 2.0);
	assert_non_null(c);
	assert_string_equal(fake.called, "EXT");
	assert_int_equal(og_vk_cal_deviation_ns(c), 7);
	/* 0x200 ticks after the calibration, past the counter's wrap */
	assert_int_equal(og_vk_cal_ns(c, 0x100), 1000000000u + 0x200 * 2);
	/* and before it */
	assert_int_equal(og_vk_cal_ns(c, 0xfffffe00u), 1000000000u - 0x100 * 2);
	assert_int_equal(og_vk_cal_ns(c, 0xffffff00u), 1000000000u);
	/* bits above timestampValidBits are not the device's */
	assert_int_equal(og_vk_cal_ns(c, 0x700000100ull), 1000000000u + 0x200 * 2);
	og_vk_cal_close(c);

	/* 64 valid bits: the difference is signed over all of them */
	fake.dev = 5;
	c = open_fake(UINT64_MAX, 1.0);
	assert_non_null(c);
	assert_int_equal(og_vk_cal_ns(c, 3), 1000000000u - 2);
	assert_int_equal(og_vk_cal_ns(c, 1005), 1000001000u);
	og_vk_cal_refresh(c); /* under 50 ms: keeps the calibration */
	assert_int_equal(og_vk_cal_ns(c, 1005), 1000001000u);
	og_vk_cal_close(c);
	og_vk_cal_refresh(NULL);
}

/* A second calibration (the first is older than 50 ms after the nap: no
 * timing is asserted, only that the clock moved on): each timestamp is
 * converted from the calibration nearest it in device time, and the
 * precision is the worst kept. */
static void test_nearest(void **state)
{
	(void)state;
	fake = (struct fake_device){ .ext = true, .ndomains = 2, .dev = 1000,
		                     .mono = 1000000000u, .deviation = 3 };
	struct og_vk_cal *c = open_fake(UINT64_MAX, 1.0);
	assert_non_null(c);
	struct timespec nap = { 0, 60000000 };
	nanosleep(&nap, NULL);
	/* a clock that drifted: 1e6 ticks later, a whole second later */
	fake.dev = 1000000;
	fake.mono = 2000000000u;
	fake.deviation = 9;
	og_vk_cal_refresh(c);
	assert_int_equal(og_vk_cal_deviation_ns(c), 9);
	assert_int_equal(og_vk_cal_ns(c, 1100), 1000000100u);
	assert_int_equal(og_vk_cal_ns(c, 999900), 2000000000u - 100);
	assert_int_equal(og_vk_cal_ns(c, 2000000), 2001000000u);
	og_vk_cal_close(c);
}

static void test_khr_first(void **state)
{
	(void)state;
	fake = (struct fake_device){ .khr = true, .ext = true, .ndomains = 2, .mono = 10 };
	struct og_vk_cal *c = open_fake(UINT64_MAX, 1.0);
	assert_non_null(c);
	assert_string_equal(fake.called, "KHR");
	og_vk_cal_close(c);
}

static void test_no_calibration(void **state)
{
	(void)state;
	fake = (struct fake_device){ .ndomains = 2 }; /* not enabled on the device */
	assert_null(open_fake(UINT64_MAX, 1.0));
	fake = (struct fake_device){ .ext = true, .ndomains = 1 }; /* no CLOCK_MONOTONIC */
	assert_null(open_fake(UINT64_MAX, 1.0));
	assert_null(fake.called);
	fake = (struct fake_device){ .ext = true, .ndomains = 2, .result = -4 }; /* device lost */
	assert_null(open_fake(UINT64_MAX, 1.0));
	assert_string_equal(fake.called, "EXT");
}

/* Spans to opengpa stat's pipe: a batch in one write, as frame_marks.h
 * reads it; nothing to a descriptor that is not a pipe, or to none. */
static void test_spans(void **state)
{
	(void)state;
	int p[2];
	assert_int_equal(pipe2(p, O_NONBLOCK | O_CLOEXEC), 0);
	uint64_t recs[6], got[8] = { 0 };
	og_vk_span_record(recs, 7, 1000, 2500);
	og_vk_span_record(recs + 3, 8, 3000, 3000);
	og_vk_send_spans(p[1], recs, 2);
	assert_int_equal(read(p[0], got, sizeof got), 48);
	assert_true(got[0] == (1000 | UINT64_C(1) << 63) && got[1] == 2500 && got[2] == 7);
	assert_true(got[3] == (3000 | UINT64_C(1) << 63) && got[4] == 3000 && got[5] == 8);
	og_vk_send_spans(-1, recs, 2);
	og_vk_send_spans(p[1], recs, OG_VK_SPANS_MAX + 1); /* more than PIPE_BUF: refused */
	assert_int_equal(read(p[0], got, sizeof got), -1);
	FILE *f = tmpfile();
	assert_non_null(f);
	og_vk_send_spans(fileno(f), recs, 1);
	assert_int_equal(ftell(f), 0);
	assert_int_equal(lseek(fileno(f), 0, SEEK_END), 0);
	fclose(f);
	/* OPENGPA_FRAME_FD: a number, or nothing */
	setenv("OPENGPA_FRAME_FD", "12", 1);
	assert_int_equal(og_apictx_frame_fd(), 12);
	setenv("OPENGPA_FRAME_FD", "12x", 1);
	assert_int_equal(og_apictx_frame_fd(), -1);
	unsetenv("OPENGPA_FRAME_FD");
	assert_int_equal(og_apictx_frame_fd(), -1);
	close(p[0]);
	close(p[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wrap),
		cmocka_unit_test(test_nearest),
		cmocka_unit_test(test_khr_first),
		cmocka_unit_test(test_no_calibration),
		cmocka_unit_test(test_spans),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
