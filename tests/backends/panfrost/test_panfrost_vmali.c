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

extern const struct og_backend_ops og_backend_panfrost;

struct rig {
	struct vmali *vm;
	struct og_backend_host host;
	void *state;
	struct og_device_info info;
	int errors;
	bool newline;
	char last_error[512];
};

static void cap_log(void *ctx, enum og_log_level level, const char *fmt, ...)
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

static struct vmali_config g71(uint64_t mask, uint32_t slices)
{
	return (struct vmali_config){.gpu_id = 0x6000, .core_mask = mask, .l2_slices = slices,
	                             .bus_width_bits = 128, .manual_frames = true,
	                             .panfrost_unstable_ioctls = true};
}

static GPA_Status rig_open(struct rig *r, const struct vmali_config *cfg)
{
	memset(r, 0, sizeof *r);
	r->vm = vmali_create(cfg);
	assert_non_null(r->vm);
	r->host = (struct og_backend_host){vmali_sys(r->vm), cap_log, r};
	return og_backend_panfrost.open(&r->host, "", &r->state, &r->info);
}

static void rig_done(struct rig *r)
{
	if (r->state)
		og_backend_panfrost.close(r->state);
	struct vmali_stats s;
	vmali_get_stats(r->vm, &s);
	assert_int_equal(s.open_fds, 0);
	assert_false(r->newline);
	vmali_destroy(r->vm);
}

#define NRAW (4 * 60)
static const char *const block_names[4] = {"JM", "TILER", "L2", "SC"};

static void totals(struct rig *r, uint64_t *t)
{
	for (uint32_t b = 0; b < 4; b++)
		for (uint32_t i = 4; i < 64; i++)
			t[b * 60 + (i - 4)] = vmali_total(r->vm, (enum vmali_block)b, VMALI_ALL, i);
}

static void check_samples(struct rig *r, unsigned frames, int samples)
{
	uint32_t ids[NRAW];
	uint64_t before[NRAW], after[NRAW], d[NRAW];
	for (uint32_t b = 0; b < 4; b++)
		for (uint32_t i = 4; i < 64; i++) {
			char src[16];
			const char *why = NULL;
			snprintf(src, sizeof src, "%s:%u", block_names[b], i);
			assert_int_equal(og_backend_panfrost.bind_raw(r->state, src, src,
			                                              &ids[b * 60 + i - 4], &why), 0);
		}
	assert_int_equal(og_backend_panfrost.begin_pass(r->state, ids, NRAW), GPA_STATUS_OK);
	vmali_run_frames(r->vm, 1);
	for (int s = 0; s < samples; s++) {
		assert_int_equal(og_backend_panfrost.begin_sample(r->state), GPA_STATUS_OK);
		totals(r, before);
		vmali_run_frames(r->vm, frames);
		totals(r, after);
		assert_int_equal(og_backend_panfrost.end_sample(r->state, d), GPA_STATUS_OK);
		int nonzero = 0;
		for (size_t i = 0; i < NRAW; i++) {
			if (d[i] != after[i] - before[i])
				fail_msg("%s:%zu: backend %llu, device %llu", block_names[i / 60], i % 60 + 4,
				         (unsigned long long)d[i],
				         (unsigned long long)(after[i] - before[i]));
			nonzero += d[i] != 0;
		}
		if (frames)
			assert_true(nonzero > 20);
		vmali_run_frames(r->vm, 1);
	}
	og_backend_panfrost.end_pass(r->state);
}

static void test_samples_agree(void **unused)
{
	(void)unused;
	struct rig r;
	struct vmali_config cfg = g71(0xFF, 2);
	assert_int_equal(rig_open(&r, &cfg), GPA_STATUS_OK);
	assert_int_equal(r.info.device_id, 0x6000);
	assert_string_equal(r.info.description, "Mali-G71 MP8");
	double v = 0;
	assert_int_equal(og_backend_panfrost.constant(r.state, "MaliConstantsL2SliceCount", &v), 0);
	assert_true(v == 2.0);
	check_samples(&r, 3, 3);
	check_samples(&r, 0, 1);
	assert_int_equal(r.errors, 0);
	rig_done(&r);

	cfg = g71(0x2D, 1);
	assert_int_equal(rig_open(&r, &cfg), GPA_STATUS_OK);
	assert_string_equal(r.info.description, "Mali-G71 MP4");
	check_samples(&r, 2, 2);
	rig_done(&r);
}

static void test_unstable_ioctls_off(void **unused)
{
	(void)unused;
	struct rig r;
	struct vmali_config cfg = g71(0xFF, 1);
	cfg.panfrost_unstable_ioctls = false;
	assert_int_equal(rig_open(&r, &cfg), GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED);
	assert_int_equal(r.errors, 1);
	assert_non_null(strstr(r.last_error, "/sys/module/panfrost/parameters/unstable_ioctls"));
	rig_done(&r);
}

static void test_second_owner_busy(void **unused)
{
	(void)unused;
	struct rig r;
	struct vmali_config cfg = g71(0xFF, 1);
	assert_int_equal(rig_open(&r, &cfg), GPA_STATUS_OK);
	void *second = NULL;
	struct og_device_info info2;
	assert_int_equal(og_backend_panfrost.open(&r.host, "", &second, &info2),
	                 GPA_STATUS_ERROR_FAILED);
	assert_non_null(strstr(r.last_error, "another process"));
	/* Once the owner closes, the counters are free again. */
	og_backend_panfrost.close(r.state);
	assert_int_equal(og_backend_panfrost.open(&r.host, "", &r.state, &r.info), GPA_STATUS_OK);
	rig_done(&r);
}

static void test_faults(void **unused)
{
	(void)unused;
	struct rig r;
	struct vmali_config cfg = g71(0xFF, 1);
	struct vmali_faults f;

	memset(&r, 0, sizeof r);
	r.vm = vmali_create(&cfg);
	memset(&f, 0, sizeof f);
	f.open_eacces = true;
	vmali_set_faults(r.vm, &f);
	r.host = (struct og_backend_host){vmali_sys(r.vm), cap_log, &r};
	assert_int_equal(og_backend_panfrost.open(&r.host, "", &r.state, &r.info),
	                 GPA_STATUS_ERROR_FAILED);
	assert_non_null(strstr(r.last_error, "render"));
	r.state = NULL;
	rig_done(&r);

	cfg.nodes = VMALI_NODE_KBASE; /* no render node at all */
	assert_int_equal(rig_open(&r, &cfg), GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED);
	assert_non_null(strstr(r.last_error, "/dev/dri/renderD128"));
	rig_done(&r);

	cfg = g71(0xFF, 1);
	assert_int_equal(rig_open(&r, &cfg), GPA_STATUS_OK);
	memset(&f, 0, sizeof f);
	f.vanished = true;
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
	rig_done(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_samples_agree),
		cmocka_unit_test(test_unstable_ioctls_off),
		cmocka_unit_test(test_second_owner_busy),
		cmocka_unit_test(test_faults),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
