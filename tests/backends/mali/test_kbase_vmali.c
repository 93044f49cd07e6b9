/* SPDX-License-Identifier: MIT */
/* test_kbase_vmali.c — the mali (kbase) backend on the virtual Mali-G71:
 * two independently written sides of the same UAPI must agree on every
 * ioctl, struct, ring and dump word, and every raw counter the backend
 * delivers must equal what the device counted over the sample. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "backend.h"
#include "vmali.h"
#include "vmali_testlib.h"

extern const struct og_backend_ops og_backend_mali;

/* The kbase backend's own poll timeout, short so fault tests stay quick. */
#define OPTS "timeout=50"

static GPA_Status rig_open(struct tl_rig *r, const struct vmali_config *cfg)
{
	return tl_rig_open(r, &og_backend_mali, cfg, NULL, OPTS);
}

static void test_mp8_two_slices(void **unused)
{
	(void)unused;
	struct tl_rig r;
	struct vmali_config cfg = tl_g71(0xFF, 2);
	assert_int_equal(rig_open(&r, &cfg), GPA_STATUS_OK);
	assert_int_equal(r.info.device_id, 0x6000);
	assert_string_equal(r.info.description, "Mali-G71 MP8");
	assert_string_equal(r.info.counter_sets[0], "mali-g71");
	double v = 0;
	assert_int_equal(og_backend_mali.constant(r.state, "MaliConstantsL2SliceCount", &v), 0);
	assert_true(v == 2.0);
	assert_int_equal(og_backend_mali.constant(r.state, "MaliConstantsBusWidthBits", &v), 0);
	assert_true(v == 128.0);
	/* The cycle budget's clock: the device's GPU_FREQ_KHZ_MAX property. */
	assert_int_equal(og_backend_mali.constant(r.state, "DeviceMaxClockHz", &v), 0);
	assert_true(v == 850e6);
	tl_rig_check_samples(&r, 3, 4);
	assert_int_equal(r.errors, 0);
	tl_rig_done(&r);
}

static void test_sparse_mask(void **unused)
{
	(void)unused;
	struct tl_rig r;
	struct vmali_config cfg = tl_g71(0x5B, 1); /* cores 0,1,3,4,6 */
	cfg.bus_width_bits = 64;
	assert_int_equal(rig_open(&r, &cfg), GPA_STATUS_OK);
	assert_string_equal(r.info.description, "Mali-G71 MP5");
	double v = 0;
	assert_int_equal(og_backend_mali.constant(r.state, "MaliConstantsShaderCoreCount", &v), 0);
	assert_true(v == 5.0);
	assert_int_equal(og_backend_mali.constant(r.state, "MaliConstantsBusWidthBits", &v), 0);
	assert_true(v == 64.0);
	tl_rig_check_samples(&r, 2, 2);
	tl_rig_done(&r);
}

static void test_idle_gpu_gives_zeros(void **unused)
{
	(void)unused;
	struct tl_rig r;
	struct vmali_config cfg = tl_g71(0xFF, 2);
	assert_int_equal(rig_open(&r, &cfg), GPA_STATUS_OK);
	tl_rig_check_samples(&r, 0, 2);
	tl_rig_done(&r);
}

static void test_cycles_metadata(void **unused)
{
	(void)unused;
	struct tl_rig r;
	struct vmali_config cfg = tl_g71(0xFF, 2);
	assert_int_equal(rig_open(&r, &cfg), GPA_STATUS_OK);
	uint32_t ids[2];
	const char *why = NULL;
	uint64_t d[2];
	assert_int_equal(og_backend_mali.bind_raw(r.state, "t", "CYCLES:top", &ids[0], &why), 0);
	assert_int_equal(og_backend_mali.bind_raw(r.state, "a", "JM:6", &ids[1], &why), 0);
	assert_int_equal(og_backend_mali.begin_pass(r.state, ids, 2), GPA_STATUS_OK);
	assert_int_equal(og_backend_mali.begin_sample(r.state), GPA_STATUS_OK);
	uint64_t c0 = vmali_total_cycles(r.vm);
	vmali_run_frames(r.vm, 2);
	uint64_t c1 = vmali_total_cycles(r.vm);
	assert_int_equal(og_backend_mali.end_sample(r.state, d), GPA_STATUS_OK);
	assert_int_equal(d[0], c1 - c0);
	assert_true(d[0] >= d[1]); /* elapsed cycles >= GPU active cycles */
	og_backend_mali.end_pass(r.state);
	tl_rig_done(&r);
}

/* The G71 has one clock domain: its reader reports only top-level cycles,
 * and the shader cores run on that clock, so MaliMetadataShaderCoreCycles is
 * the top count (docs/backends/mali.md), not an unavailable counter. */
static void test_one_clock_domain_shader_cycles(void **unused)
{
	(void)unused;
	struct tl_rig r;
	struct vmali_config cfg = tl_g71(0xFF, 2);
	assert_int_equal(rig_open(&r, &cfg), GPA_STATUS_OK);
	uint32_t ids[2];
	const char *why = NULL;
	uint64_t d[2];
	assert_int_equal(og_backend_mali.bind_raw(r.state, "t", "CYCLES:top", &ids[0], &why), 0);
	assert_int_equal(og_backend_mali.bind_raw(r.state, "s", "CYCLES:shader", &ids[1], &why), 0);
	assert_int_equal(og_backend_mali.begin_pass(r.state, ids, 2), GPA_STATUS_OK);
	assert_int_equal(og_backend_mali.begin_sample(r.state), GPA_STATUS_OK);
	vmali_run_frames(r.vm, 2);
	assert_int_equal(og_backend_mali.end_sample(r.state, d), GPA_STATUS_OK);
	assert_true(d[0] > 0);
	assert_int_equal(d[1], d[0]);
	og_backend_mali.end_pass(r.state);
	tl_rig_done(&r);
}

static void test_driver_versions(void **unused)
{
	(void)unused;
	struct tl_rig r;
	/* JM UK 11.40 removed vinstr: kinstr_prfcnt (test_kbase_kinstr.c). */
	struct vmali_config cfg = tl_g71(0xFF, 1);
	cfg.uk_major = 11;
	cfg.uk_minor = 40;
	assert_int_equal(rig_open(&r, &cfg), GPA_STATUS_OK);
	tl_rig_check_samples(&r, 2, 2);
	tl_rig_done(&r);

	/* A CSF driver reporting a job-manager GPU: refused, the two disagree. */
	cfg = tl_g71(0xFF, 1);
	cfg.csf = true;
	assert_int_equal(rig_open(&r, &cfg), GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED);
	assert_non_null(strstr(r.last_error, "job-manager"));
	assert_int_equal(r.errors, 1);
	tl_rig_done(&r);

	cfg = tl_g71(0xFF, 1);
	cfg.uk_minor = 39;
	cfg.uk_major = 11;
	assert_int_equal(rig_open(&r, &cfg), GPA_STATUS_OK);
	tl_rig_done(&r);

	/* Another Bifrost GPU, its own layout. */
	cfg = tl_g71(0xFF, 1);
	cfg.gpu_id = 0x7212;
	assert_int_equal(rig_open(&r, &cfg), GPA_STATUS_OK);
	assert_string_equal(r.info.description, "Mali-G52 MP8");
	assert_string_equal(r.info.counter_sets[0], "mali-g52");
	tl_rig_check_samples(&r, 2, 2);
	tl_rig_done(&r);
}

/* ENOMEM above each buffer count: the backend settles on that count. */
static void test_enomem_every_buffer_count(void **unused)
{
	(void)unused;
	struct tl_rig r;
	struct vmali_config cfg = tl_g71(0xFF, 2);
	for (uint32_t n = 16; n >= 1; n /= 2) {
		struct vmali_faults f = {.enomem_above_buffers = n};
		assert_int_equal(tl_rig_open(&r, &og_backend_mali, &cfg, &f, ""), GPA_STATUS_OK);
		tl_rig_check_samples(&r, 1, 2);
		tl_rig_done(&r);
	}
}

/* Faults the device shows from the start: one error line naming the cause. */
static void test_open_faults(void **unused)
{
	(void)unused;
	static const struct {
		struct vmali_faults f;
		GPA_Status want;
		const char *needle;
	} cases[] = {
		{{.open_eacces = true}, GPA_STATUS_ERROR_FAILED, "group"},
		{{.buffer_size_skew = 256}, GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED, "imply"},
		{{.buffer_size_skew = -256}, GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED, "imply"},
		{{.props_truncated = true}, GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED, "properties"},
		{{.vanished = true}, GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED, "tried /dev/mali0"},
	};
	struct vmali_config cfg = tl_g71(0xFF, 2);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct tl_rig r;
		assert_int_equal(tl_rig_open(&r, &og_backend_mali, &cfg, &cases[i].f, ""),
		                 cases[i].want);
		assert_int_equal(r.errors, 1);
		if (!strstr(r.last_error, cases[i].needle))
			fail_msg("log '%s' lacks '%s'", r.last_error, cases[i].needle);
		tl_rig_done(&r);
	}
}

/* A dump that never arrives fails that sample only. */
static void test_dump_never_arrives(void **unused)
{
	(void)unused;
	struct tl_rig r;
	struct vmali_config cfg = tl_g71(0xFF, 2);
	assert_int_equal(rig_open(&r, &cfg), GPA_STATUS_OK);
	tl_rig_check_lost_dump(&r, "JM:6", VMALI_BLOCK_JM, 6, "did not arrive");
	tl_rig_done(&r);
}

static void test_device_vanishes_mid_session(void **unused)
{
	(void)unused;
	struct tl_rig r;
	struct vmali_config cfg = tl_g71(0xFF, 2);
	assert_int_equal(rig_open(&r, &cfg), GPA_STATUS_OK);
	uint32_t id;
	const char *why;
	assert_int_equal(og_backend_mali.bind_raw(r.state, "a", "JM:6", &id, &why), 0);
	assert_int_equal(og_backend_mali.begin_pass(r.state, &id, 1), GPA_STATUS_OK);
	struct vmali_faults f = {.vanished = true};
	vmali_set_faults(r.vm, &f);
	assert_int_not_equal(og_backend_mali.begin_sample(r.state), GPA_STATUS_OK);
	assert_non_null(strstr(r.last_error, "went away"));
	assert_int_equal(og_backend_mali.begin_sample(r.state), GPA_STATUS_ERROR_FAILED);
	assert_non_null(strstr(r.last_error, "gone"));
	og_backend_mali.end_pass(r.state);
	tl_rig_done(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mp8_two_slices),
		cmocka_unit_test(test_sparse_mask),
		cmocka_unit_test(test_idle_gpu_gives_zeros),
		cmocka_unit_test(test_cycles_metadata),
		cmocka_unit_test(test_one_clock_domain_shader_cycles),
		cmocka_unit_test(test_driver_versions),
		cmocka_unit_test(test_enomem_every_buffer_count),
		cmocka_unit_test(test_open_faults),
		cmocka_unit_test(test_dump_never_arrives),
		cmocka_unit_test(test_device_vanishes_mid_session),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
