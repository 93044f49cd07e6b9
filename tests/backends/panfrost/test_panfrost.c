/* SPDX-License-Identifier: MIT */
/* test_panfrost.c — the panfrost backend through its ops table on fake
 * render nodes, one fault at a time. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "backend.h"
#include "fake_panfrost.h"

extern const struct og_backend_ops og_backend_panfrost;

struct rig {
	struct fake_panfrost fp;
	struct og_backend_host host;
	void *state;
	struct og_device_info info;
	int errors;
	bool newline;
	char last_error[512];
};

__attribute__((format(printf, 3, 4))) static void cap_log(void *ctx, enum og_log_level level,
                                                         const char *fmt, ...)
{
	struct rig *r = ctx;
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	r->newline |= strchr(line, '\n') != NULL;
	if (level == OG_LOG_ERROR) {
		r->errors++;
		snprintf(r->last_error, sizeof r->last_error, "%s", line);
	}
}

static GPA_Status rig_open(struct rig *r, const struct fake_panfrost_cfg *cfg, const char *opts)
{
	memset(r, 0, sizeof *r);
	fake_panfrost_init(&r->fp, cfg);
	r->host = (struct og_backend_host){&r->fp.sys, cap_log, r, NULL};
	return og_backend_panfrost.open(&r->host, opts ? opts : "", &r->state, &r->info);
}

static void rig_failed(struct rig *r, GPA_Status got, GPA_Status want, const char *needle)
{
	assert_int_equal(got, want);
	assert_int_equal(r->errors, 1);
	assert_false(r->newline);
	if (!strstr(r->last_error, needle))
		fail_msg("log '%s' lacks '%s'", r->last_error, needle);
	assert_int_equal(r->fp.open_fds, 0);
}

static void rig_close(struct rig *r)
{
	og_backend_panfrost.close(r->state);
	assert_int_equal(r->fp.open_fds, 0);
	assert_false(r->fp.enabled);
	assert_false(r->newline);
}

static const struct {
	const char *source;
	uint32_t type, index;
} probes[] = {
	{"JM:6", 0, 6}, {"JM:10", 0, 10}, {"TILER:11", 1, 11}, {"L2:32", 2, 32},
	{"L2:47", 2, 47}, {"SC:9", 3, 9}, {"SC:26", 3, 26}, {"SC:63", 3, 63},
};
#define NPROBES (sizeof probes / sizeof probes[0])

static GPA_Status sample(struct rig *r, uint64_t *d)
{
	uint32_t ids[NPROBES];
	for (size_t i = 0; i < NPROBES; i++) {
		const char *why = NULL;
		assert_int_equal(og_backend_panfrost.bind_raw(r->state, "x", probes[i].source, &ids[i],
		                                              &why), GPA_STATUS_OK);
	}
	assert_true(og_backend_panfrost.fits(r->state, ids, NPROBES));
	assert_int_equal(og_backend_panfrost.begin_pass(r->state, ids, NPROBES), GPA_STATUS_OK);
	GPA_Status st = og_backend_panfrost.begin_sample(r->state);
	if (st == GPA_STATUS_OK)
		st = og_backend_panfrost.end_sample(r->state, d);
	og_backend_panfrost.end_pass(r->state);
	return st;
}

static void check(struct rig *r, const uint64_t *d)
{
	for (size_t i = 0; i < NPROBES; i++)
		assert_int_equal(d[i], fake_panfrost_expected(&r->fp, r->fp.dumps, probes[i].type,
		                                              probes[i].index));
}

static void test_finds_node_and_samples(void **unused)
{
	(void)unused;
	struct rig r;
	struct fake_panfrost_cfg cfg = fake_panfrost_g71_mp4();
	assert_int_equal(rig_open(&r, &cfg, NULL), GPA_STATUS_OK);
	assert_int_equal(r.fp.open_fds, 1); /* the vc4 node was closed again */
	assert_int_equal(r.info.device_id, 0x6000);
	assert_string_equal(r.info.description, "Mali-G71 MP4");
	assert_string_equal(r.info.counter_sets[0], "mali-g71");
	assert_int_equal(r.fp.enables, 1);
	double v;
	assert_int_equal(og_backend_panfrost.constant(r.state, "MaliConstantsShaderCoreCount", &v), 0);
	assert_true(v == 4.0);
	assert_int_equal(og_backend_panfrost.constant(r.state, "MaliConstantsBusWidthBits", &v), 0);
	assert_true(v == 128.0);
	/* panfrost reports no maximum clock: the cycle budget needs the user's. */
	assert_int_equal(og_backend_panfrost.constant(r.state, "DeviceMaxClockHz", &v),
	                 GPA_STATUS_ERROR_NOT_FOUND);
	uint64_t d[NPROBES];
	for (int i = 0; i < 3; i++) {
		assert_int_equal(sample(&r, d), GPA_STATUS_OK);
		check(&r, d);
	}
	uint32_t id;
	const char *why = NULL;
	assert_int_equal(og_backend_panfrost.bind_raw(r.state, "c", "CYCLES:top", &id, &why),
	                 GPA_STATUS_ERROR_NOT_FOUND);
	assert_non_null(why);
	assert_int_equal(og_backend_panfrost.bind_raw(r.state, "c", "SC:1", &id, &why),
	                 GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE);
	rig_close(&r);
	assert_int_equal(r.fp.disables, 1);
	assert_int_equal(r.errors, 0);
}

static void test_sparse_two_slices(void **unused)
{
	(void)unused;
	struct rig r;
	struct fake_panfrost_cfg cfg = fake_panfrost_g71_mp4();
	cfg.shader_present = 0x2D; /* cores 0,2,3,5 */
	cfg.l2_slices = 2;
	cfg.eintr = true;
	assert_int_equal(rig_open(&r, &cfg, "device=/dev/dri/renderD129"), GPA_STATUS_OK);
	uint64_t d[NPROBES];
	assert_int_equal(sample(&r, d), GPA_STATUS_OK);
	check(&r, d);
	rig_close(&r);
}

static void test_no_node(void **unused)
{
	(void)unused;
	struct rig r;
	struct fake_panfrost_cfg cfg = fake_panfrost_g71_mp4();
	cfg.no_panfrost = true;
	rig_failed(&r, rig_open(&r, &cfg, NULL), GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED,
	           "/dev/dri/renderD128..renderD143");
	assert_non_null(strstr(r.last_error, "other DRM drivers"));
	cfg = fake_panfrost_g71_mp4();
	rig_failed(&r, rig_open(&r, &cfg, "device=/dev/dri/card0"),
	           GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED, "/dev/dri/card0");
	rig_failed(&r, rig_open(&r, &cfg, "device=/dev/dri/renderD128"),
	           GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED, "other DRM drivers");
}

static void test_permission_denied(void **unused)
{
	(void)unused;
	struct rig r;
	struct fake_panfrost_cfg cfg = fake_panfrost_g71_mp4();
	cfg.open_errno = EACCES;
	rig_failed(&r, rig_open(&r, &cfg, NULL), GPA_STATUS_ERROR_FAILED, "render");
}

static void test_unstable_ioctls_off(void **unused)
{
	(void)unused;
	struct rig r;
	struct fake_panfrost_cfg cfg = fake_panfrost_g71_mp4();
	cfg.unstable_off = true;
	rig_failed(&r, rig_open(&r, &cfg, NULL), GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED,
	           "echo Y | sudo tee /sys/module/panfrost/parameters/unstable_ioctls");
}

static void test_counters_owned_elsewhere(void **unused)
{
	(void)unused;
	struct rig r;
	struct fake_panfrost_cfg cfg = fake_panfrost_g71_mp4();
	cfg.owned_elsewhere = true;
	rig_failed(&r, rig_open(&r, &cfg, NULL), GPA_STATUS_ERROR_FAILED, "another process");
}

static void test_other_product(void **unused)
{
	(void)unused;
	struct rig r;
	struct fake_panfrost_cfg cfg = fake_panfrost_g71_mp4();
	cfg.product_id = 0x5001;
	rig_failed(&r, rig_open(&r, &cfg, NULL), GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED, "0x5001");
	/* Command-stream GPUs are panthor's, not panfrost's. */
	cfg.product_id = 0xa007;
	rig_failed(&r, rig_open(&r, &cfg, NULL), GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED,
	           "command-stream");
	assert_non_null(strstr(r.last_error, "Mali-G610"));
	/* Every job-manager GPU opens, with its counter set. */
	cfg.product_id = 0x7212; /* Mali-G52 */
	assert_int_equal(rig_open(&r, &cfg, NULL), GPA_STATUS_OK);
	assert_string_equal(r.info.description, "Mali-G52 MP4");
	assert_string_equal(r.info.counter_sets[0], "mali-g52");
	rig_close(&r);
}

static void test_dump_timeout_then_recovers(void **unused)
{
	(void)unused;
	struct rig r;
	struct fake_panfrost_cfg cfg = fake_panfrost_g71_mp4();
	assert_int_equal(rig_open(&r, &cfg, NULL), GPA_STATUS_OK);
	uint64_t d[NPROBES];
	r.fp.cfg.dump_timeout = true;
	assert_int_equal(sample(&r, d), GPA_STATUS_ERROR_FAILED);
	assert_non_null(strstr(r.last_error, "timed out"));
	r.fp.cfg.dump_timeout = false;
	assert_int_equal(sample(&r, d), GPA_STATUS_OK);
	check(&r, d);
	rig_close(&r);
}

/* Retrying EINTR has a bound: a signal that never stops drops the sample
 * with a message saying so, and the next sample is whole. */
static void test_signal_storm_drops_one_sample(void **unused)
{
	(void)unused;
	struct rig r;
	struct fake_panfrost_cfg cfg = fake_panfrost_g71_mp4();
	assert_int_equal(rig_open(&r, &cfg, NULL), GPA_STATUS_OK);
	uint64_t d[NPROBES];
	r.fp.cfg.signal_storm = true;
	assert_int_equal(sample(&r, d), GPA_STATUS_ERROR_FAILED);
	assert_non_null(strstr(r.last_error, "interrupted by signals"));
	assert_non_null(strstr(r.last_error, "sample is dropped"));
	r.fp.cfg.signal_storm = false;
	assert_int_equal(sample(&r, d), GPA_STATUS_OK);
	check(&r, d);
	rig_close(&r);
	assert_int_equal(r.fp.open_fds, 0);
}

static void test_vanishes(void **unused)
{
	(void)unused;
	struct rig r;
	struct fake_panfrost_cfg cfg = fake_panfrost_g71_mp4();
	cfg.vanish_after_dumps = 3;
	assert_int_equal(rig_open(&r, &cfg, NULL), GPA_STATUS_OK);
	uint64_t d[NPROBES];
	assert_int_equal(sample(&r, d), GPA_STATUS_OK);
	assert_int_equal(sample(&r, d), GPA_STATUS_ERROR_FAILED);
	assert_non_null(strstr(r.last_error, "went away"));
	assert_int_equal(sample(&r, d), GPA_STATUS_ERROR_FAILED);
	assert_non_null(strstr(r.last_error, "gone"));
	og_backend_panfrost.close(r.state);
	assert_int_equal(r.fp.open_fds, 0);
}

static void test_zero_dumps(void **unused)
{
	(void)unused;
	struct rig r;
	struct fake_panfrost_cfg cfg = fake_panfrost_g71_mp4();
	cfg.zero_dumps = true;
	assert_int_equal(rig_open(&r, &cfg, NULL), GPA_STATUS_OK);
	uint64_t d[NPROBES];
	memset(d, 0xAB, sizeof d);
	assert_int_equal(sample(&r, d), GPA_STATUS_OK);
	for (size_t i = 0; i < NPROBES; i++)
		assert_int_equal(d[i], 0);
	rig_close(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_finds_node_and_samples),
		cmocka_unit_test(test_sparse_two_slices),
		cmocka_unit_test(test_no_node),
		cmocka_unit_test(test_permission_denied),
		cmocka_unit_test(test_unstable_ioctls_off),
		cmocka_unit_test(test_counters_owned_elsewhere),
		cmocka_unit_test(test_other_product),
		cmocka_unit_test(test_dump_timeout_then_recovers),
		cmocka_unit_test(test_signal_storm_drops_one_sample),
		cmocka_unit_test(test_vanishes),
		cmocka_unit_test(test_zero_dumps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
