/* SPDX-License-Identifier: MIT */
/* test_panfrost_vmali.c — the panfrost backend on the virtual Mali-G71's
 * render node: independent UAPI restatements must agree, and every raw
 * counter must equal what the device counted over the sample. */
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

extern const struct og_backend_ops og_backend_panfrost;

static GPA_Status rig_open(struct tl_rig *r, const struct vmali_config *cfg)
{
	return tl_rig_open(r, &og_backend_panfrost, cfg, NULL, "");
}

static void test_samples_agree(void **unused)
{
	(void)unused;
	struct tl_rig r;
	struct vmali_config cfg = tl_g71(0xFF, 2);
	assert_int_equal(rig_open(&r, &cfg), GPA_STATUS_OK);
	assert_int_equal(r.info.device_id, 0x6000);
	assert_string_equal(r.info.description, "Mali-G71 MP8");
	double v = 0;
	assert_int_equal(og_backend_panfrost.constant(r.state, "MaliConstantsL2SliceCount", &v), 0);
	assert_true(v == 2.0);
	tl_rig_check_samples(&r, 3, 3);
	tl_rig_check_samples(&r, 0, 1);
	assert_int_equal(r.errors, 0);
	tl_rig_done(&r);

	cfg = tl_g71(0x2D, 1);
	assert_int_equal(rig_open(&r, &cfg), GPA_STATUS_OK);
	assert_string_equal(r.info.description, "Mali-G71 MP4");
	tl_rig_check_samples(&r, 2, 2);
	tl_rig_done(&r);
}

/* Per-instance values (SC#N:I, L2#N:I) on a sparse mask with two slices,
 * work spread unevenly: every value 4..63 of every present core and slice
 * equal to the device's count in that block, a core not in the mask
 * refused. */
static void test_instances(void **unused)
{
	(void)unused;
	struct tl_rig r;
	struct vmali_config cfg = tl_g71(0x5B, 2);
	cfg.workload = "frame imbalance=1 slice_imbalance=1\n";
	assert_int_equal(rig_open(&r, &cfg), GPA_STATUS_OK);
	enum { MAX = (5 + 2) * 60 };
	uint32_t ids[MAX];
	int inst[MAX], block[MAX];
	unsigned idx[MAX];
	uint64_t before[MAX], d[MAX];
	size_t n = 0;
	const char *why;
	uint32_t id;
	assert_int_equal(og_backend_panfrost.bind_raw(r.state, "x", "SC#2:4", &id, &why),
	                 GPA_STATUS_ERROR_NOT_FOUND);
	assert_non_null(strstr(why, "core mask"));
	for (int b = VMALI_BLOCK_L2; b <= VMALI_BLOCK_SC; b++)
		for (int i = 0; i < 8; i++) {
			if (b == VMALI_BLOCK_SC ? !(0x5B >> i & 1) : i >= 2)
				continue;
			for (unsigned v = 4; v < 64; v++) {
				char src[32];
				snprintf(src, sizeof src, "%s#%d:%u", b == VMALI_BLOCK_SC ? "SC" : "L2", i, v);
				assert_int_equal(og_backend_panfrost.bind_raw(r.state, "x", src, &ids[n], &why),
				                 GPA_STATUS_OK);
				inst[n] = i;
				block[n] = b;
				idx[n++] = v;
			}
		}
	assert_int_equal(n, MAX);
	assert_true(og_backend_panfrost.fits(r.state, ids, n));
	assert_int_equal(og_backend_panfrost.begin_pass(r.state, ids, n), GPA_STATUS_OK);
	assert_int_equal(og_backend_panfrost.begin_sample(r.state), GPA_STATUS_OK);
	for (size_t k = 0; k < n; k++)
		before[k] = vmali_total(r.vm, (enum vmali_block)block[k], inst[k], idx[k]);
	vmali_run_frames(r.vm, 2);
	assert_int_equal(og_backend_panfrost.end_sample(r.state, d), GPA_STATUS_OK);
	assert_int_equal(og_backend_panfrost.end_pass(r.state), GPA_STATUS_OK);
	size_t nonzero = 0;
	for (size_t k = 0; k < n; k++) {
		uint64_t want = vmali_total(r.vm, (enum vmali_block)block[k], inst[k], idx[k]) -
		                before[k];
		/* v5 dumps are 32-bit: the device's count of one sample fits. */
		if (d[k] != want)
			fail_msg("block %d instance %d value %u: read %llu, the device counted %llu",
			         block[k], inst[k], idx[k], (unsigned long long)d[k],
			         (unsigned long long)want);
		nonzero += d[k] != 0;
	}
	assert_true(nonzero > 100);
	assert_int_equal(r.errors, 0);
	tl_rig_done(&r);
}

/* Every job-manager GPU upstream panfrost drives: the same dump, each
 * GPU's own counter set; the time of a sample is measured around it. */
static void test_family(void **unused)
{
	(void)unused;
	static const struct {
		uint32_t id;
		uint64_t mask;
		uint32_t slices;
		const char *desc, *set;
	} gpus[] = {
		{ 0x7003, 0x3, 1, "Mali-G31 MP2", "mali-g31" },
		{ 0x7002, 0x3, 1, "Mali-G52 MP2", "mali-g52" },
		{ 0x7001, 0x3FF, 2, "Mali-G76 MP10", "mali-g76" },
		{ 0x6001, 0x5B, 1, "Mali-G72 MP5", "mali-g72" },
		{ 0x9001, 0x3F, 2, "Mali-G57 MC6", "mali-g77" },
		{ 0x9002, 0xFFF, 4, "Mali-G78 MC12", "mali-g78" },
	};
	for (size_t i = 0; i < sizeof gpus / sizeof gpus[0]; i++) {
		struct tl_rig r;
		struct vmali_config cfg = tl_g71(gpus[i].mask, gpus[i].slices);
		cfg.gpu_id = gpus[i].id;
		assert_int_equal(rig_open(&r, &cfg), GPA_STATUS_OK);
		assert_string_equal(r.info.description, gpus[i].desc);
		assert_string_equal(r.info.counter_sets[0], gpus[i].set);
		assert_int_equal(tl_rig_check_every_counter(&r, false, 2, 2), 4 * 60);
		uint32_t id;
		const char *why = NULL;
		assert_int_equal(og_backend_panfrost.bind_raw(r.state, "t", "TIME:ns", &id, &why), 0);
		assert_int_equal(og_backend_panfrost.bind_raw(r.state, "c", "CYCLES:top", &id, &why),
		                 GPA_STATUS_ERROR_NOT_FOUND);
		assert_int_equal(r.errors, 0);
		tl_rig_done(&r);
	}
}

/* A command-stream GPU: upstream Linux drives it with panthor, which has no
 * counter interface; the log says so and what to use instead. */
static void test_panthor(void **unused)
{
	(void)unused;
	struct tl_rig r;
	struct vmali_config cfg = tl_g71(0xF, 1);
	cfg.gpu_id = 0xa007;
	cfg.csf = true;
	assert_int_equal(rig_open(&r, &cfg), GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED);
	assert_int_equal(r.errors, 1);
	assert_non_null(strstr(r.last_error, "panthor has no hardware counter interface"));
	assert_non_null(strstr(r.last_error, "use backend 'mali'"));
	tl_rig_done(&r);
}

static void test_unstable_ioctls_off(void **unused)
{
	(void)unused;
	struct tl_rig r;
	struct vmali_config cfg = tl_g71(0xFF, 1);
	cfg.panfrost_unstable_ioctls = false;
	assert_int_equal(rig_open(&r, &cfg), GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED);
	assert_int_equal(r.errors, 1);
	assert_non_null(
		strstr(r.last_error, "echo Y | sudo tee /sys/module/panfrost/parameters/unstable_ioctls"));
	tl_rig_done(&r);
}

static void test_second_owner_busy(void **unused)
{
	(void)unused;
	struct tl_rig r;
	struct vmali_config cfg = tl_g71(0xFF, 1);
	assert_int_equal(rig_open(&r, &cfg), GPA_STATUS_OK);
	void *second = NULL;
	struct og_device_info info2;
	assert_int_equal(og_backend_panfrost.open(&r.host, "", &second, &info2),
	                 GPA_STATUS_ERROR_FAILED);
	assert_non_null(strstr(r.last_error, "another process"));
	/* Once the owner closes, the counters are free again. */
	og_backend_panfrost.close(r.state);
	assert_int_equal(og_backend_panfrost.open(&r.host, "", &r.state, &r.info), GPA_STATUS_OK);
	tl_rig_done(&r);
}

/* PERFCNT_DUMP times out (ETIMEDOUT): that sample fails, the next is right. */
static void test_dump_never_arrives(void **unused)
{
	(void)unused;
	struct tl_rig r;
	struct vmali_config cfg = tl_g71(0xFF, 2);
	assert_int_equal(rig_open(&r, &cfg), GPA_STATUS_OK);
	tl_rig_check_lost_dump(&r, "SC:9", VMALI_BLOCK_SC, 9, "timed out");
	tl_rig_done(&r);
}

static void test_permission_denied(void **unused)
{
	(void)unused;
	struct tl_rig r;
	struct vmali_config cfg = tl_g71(0xFF, 1);
	struct vmali_faults f = {.open_eacces = true};
	assert_int_equal(tl_rig_open(&r, &og_backend_panfrost, &cfg, &f, ""),
	                 GPA_STATUS_ERROR_FAILED);
	assert_int_equal(r.errors, 1);
	assert_non_null(strstr(r.last_error, "render"));
	tl_rig_done(&r);
}

static void test_no_render_node(void **unused)
{
	(void)unused;
	struct tl_rig r;
	struct vmali_config cfg = tl_g71(0xFF, 1);
	cfg.nodes = VMALI_NODE_KBASE;
	assert_int_equal(rig_open(&r, &cfg), GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED);
	assert_int_equal(r.errors, 1);
	assert_non_null(strstr(r.last_error, "tried /dev/dri/renderD128..renderD143"));
	tl_rig_done(&r);
}

static void test_device_vanishes_mid_session(void **unused)
{
	(void)unused;
	struct tl_rig r;
	struct vmali_config cfg = tl_g71(0xFF, 1);
	assert_int_equal(rig_open(&r, &cfg), GPA_STATUS_OK);
	struct vmali_faults f = {.vanished = true};
	vmali_set_faults(r.vm, &f);
	uint32_t id;
	const char *why;
	uint64_t d;
	assert_int_equal(og_backend_panfrost.bind_raw(r.state, "a", "JM:6", &id, &why), 0);
	assert_int_equal(og_backend_panfrost.begin_pass(r.state, &id, 1), GPA_STATUS_OK);
	assert_int_equal(og_backend_panfrost.begin_sample(r.state), GPA_STATUS_ERROR_FAILED);
	assert_non_null(strstr(r.last_error, "went away"));
	assert_int_equal(og_backend_panfrost.end_sample(r.state, &d), GPA_STATUS_ERROR_FAILED);
	og_backend_panfrost.end_pass(r.state);
	tl_rig_done(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_family),
		cmocka_unit_test(test_panthor),
		cmocka_unit_test(test_samples_agree),
		cmocka_unit_test(test_instances),
		cmocka_unit_test(test_unstable_ioctls_off),
		cmocka_unit_test(test_second_owner_busy),
		cmocka_unit_test(test_dump_never_arrives),
		cmocka_unit_test(test_permission_denied),
		cmocka_unit_test(test_no_render_node),
		cmocka_unit_test(test_device_vanishes_mid_session),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
