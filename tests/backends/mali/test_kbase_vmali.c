/* test_kbase_vmali.c — the mali (kbase) backend on the virtual Mali-G71:
 * two independently written sides of the same UAPI must agree on every
 * ioctl, struct, ring and dump word, and every raw counter the backend
 * delivers must equal what the device counted over the sample. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "backend.h"
#include "vmali.h"

extern const struct og_backend_ops og_backend_mali;

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
	                             .bus_width_bits = 128, .manual_frames = true};
}

static GPA_Status rig_open(struct rig *r, const struct vmali_config *cfg)
{
	memset(r, 0, sizeof *r);
	r->vm = vmali_create(cfg);
	assert_non_null(r->vm);
	r->host = (struct og_backend_host){vmali_sys(r->vm), cap_log, r};
	return og_backend_mali.open(&r->host, "timeout=50", &r->state, &r->info);
}

static void rig_done(struct rig *r)
{
	if (r->state)
		og_backend_mali.close(r->state);
	struct vmali_stats s;
	vmali_get_stats(r->vm, &s);
	assert_int_equal(s.open_fds, 0);
	assert_false(r->newline);
	vmali_destroy(r->vm);
}

/* Every named-or-not counter word 4..63 of every block type. */
#define NRAW (4 * 60)
static const char *const block_names[4] = {"JM", "TILER", "L2", "SC"};

static void bind_all(struct rig *r, uint32_t *ids)
{
	for (uint32_t b = 0; b < 4; b++)
		for (uint32_t i = 4; i < 64; i++) {
			char src[16];
			const char *why = NULL;
			snprintf(src, sizeof src, "%s:%u", block_names[b], i);
			assert_int_equal(og_backend_mali.bind_raw(r->state, src, src,
			                                          &ids[b * 60 + (i - 4)], &why),
			                 GPA_STATUS_OK);
		}
}

static void totals(struct rig *r, uint64_t *t)
{
	for (uint32_t b = 0; b < 4; b++)
		for (uint32_t i = 4; i < 64; i++)
			t[b * 60 + (i - 4)] = vmali_total(r->vm, (enum vmali_block)b, VMALI_ALL, i);
}

static void check_samples(struct rig *r, unsigned frames_per_sample, int samples)
{
	uint32_t ids[NRAW];
	uint64_t before[NRAW], after[NRAW], d[NRAW];
	bind_all(r, ids);
	assert_true(og_backend_mali.fits(r->state, ids, NRAW));
	assert_int_equal(og_backend_mali.begin_pass(r->state, ids, NRAW), GPA_STATUS_OK);
	vmali_run_frames(r->vm, 1); /* counted before the sample: must not show up in it */
	for (int s = 0; s < samples; s++) {
		assert_int_equal(og_backend_mali.begin_sample(r->state), GPA_STATUS_OK);
		totals(r, before);
		vmali_run_frames(r->vm, frames_per_sample);
		totals(r, after);
		assert_int_equal(og_backend_mali.end_sample(r->state, d), GPA_STATUS_OK);
		uint64_t nonzero = 0;
		for (size_t i = 0; i < NRAW; i++) {
			if (d[i] != after[i] - before[i])
				fail_msg("%s:%zu: backend %llu, device %llu", block_names[i / 60], i % 60 + 4,
				         (unsigned long long)d[i],
				         (unsigned long long)(after[i] - before[i]));
			nonzero += d[i] != 0;
		}
		if (frames_per_sample)
			assert_true(nonzero > 20); /* the workload really ran */
		else
			assert_int_equal(nonzero, 0);
		vmali_run_frames(r->vm, 1); /* between samples: must not show up either */
	}
	assert_int_equal(og_backend_mali.end_pass(r->state), GPA_STATUS_OK);
}

static void test_mp8_two_slices(void **unused)
{
	(void)unused;
	struct rig r;
	struct vmali_config cfg = g71(0xFF, 2);
	assert_int_equal(rig_open(&r, &cfg), GPA_STATUS_OK);
	assert_int_equal(r.info.device_id, 0x6000);
	assert_string_equal(r.info.description, "Mali-G71 MP8");
	assert_string_equal(r.info.counter_sets[0], "mali-g71");
	double v = 0;
	assert_int_equal(og_backend_mali.constant(r.state, "MaliConstantsL2SliceCount", &v), 0);
	assert_true(v == 2.0);
	assert_int_equal(og_backend_mali.constant(r.state, "MaliConstantsBusWidthBits", &v), 0);
	assert_true(v == 128.0);
	check_samples(&r, 3, 4);
	assert_int_equal(r.errors, 0);
	rig_done(&r);
}

static void test_sparse_mask(void **unused)
{
	(void)unused;
	struct rig r;
	struct vmali_config cfg = g71(0x5B, 1); /* cores 0,1,3,4,6 */
	cfg.bus_width_bits = 64;
	assert_int_equal(rig_open(&r, &cfg), GPA_STATUS_OK);
	assert_string_equal(r.info.description, "Mali-G71 MP5");
	double v = 0;
	assert_int_equal(og_backend_mali.constant(r.state, "MaliConstantsShaderCoreCount", &v), 0);
	assert_true(v == 5.0);
	assert_int_equal(og_backend_mali.constant(r.state, "MaliConstantsBusWidthBits", &v), 0);
	assert_true(v == 64.0);
	check_samples(&r, 2, 2);
	rig_done(&r);
}

static void test_idle_gpu_gives_zeros(void **unused)
{
	(void)unused;
	struct rig r;
	struct vmali_config cfg = g71(0xFF, 2);
	assert_int_equal(rig_open(&r, &cfg), GPA_STATUS_OK);
	check_samples(&r, 0, 2);
	rig_done(&r);
}

static void test_cycles_metadata(void **unused)
{
	(void)unused;
	struct rig r;
	struct vmali_config cfg = g71(0xFF, 2);
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
	rig_done(&r);
}

static void test_driver_versions(void **unused)
{
	(void)unused;
	struct rig r;
	struct vmali_config cfg = g71(0xFF, 1);
	cfg.uk_major = 11;
	cfg.uk_minor = 40;
	assert_int_equal(rig_open(&r, &cfg), GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED);
	assert_non_null(strstr(r.last_error, "kinstr_prfcnt"));
	rig_done(&r);

	cfg = g71(0xFF, 1);
	cfg.csf = true;
	assert_int_equal(rig_open(&r, &cfg), GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED);
	assert_non_null(strstr(r.last_error, "CSF"));
	assert_int_equal(r.errors, 1);
	rig_done(&r);

	cfg = g71(0xFF, 1);
	cfg.uk_minor = 39;
	cfg.uk_major = 11;
	assert_int_equal(rig_open(&r, &cfg), GPA_STATUS_OK);
	rig_done(&r);

	cfg = g71(0xFF, 1);
	cfg.gpu_id = 0x7212;
	assert_int_equal(rig_open(&r, &cfg), GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED);
	assert_non_null(strstr(r.last_error, "0x7212"));
	rig_done(&r);
}

static void test_faults(void **unused)
{
	(void)unused;
	struct rig r;
	struct vmali_config cfg = g71(0xFF, 2);
	struct vmali_faults f;

	/* ENOMEM above each buffer count: the backend settles on that count. */
	for (uint32_t n = 16; n >= 1; n /= 2) {
		memset(&r, 0, sizeof r);
		r.vm = vmali_create(&cfg);
		memset(&f, 0, sizeof f);
		f.enomem_above_buffers = n;
		vmali_set_faults(r.vm, &f);
		r.host = (struct og_backend_host){vmali_sys(r.vm), cap_log, &r};
		assert_int_equal(og_backend_mali.open(&r.host, "", &r.state, &r.info), GPA_STATUS_OK);
		check_samples(&r, 1, 2);
		rig_done(&r);
	}

	static const struct {
		int which;
		GPA_Status want;
		const char *needle;
	} open_faults[] = {
		{0, GPA_STATUS_ERROR_FAILED, "group"},                   /* EACCES */
		{1, GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED, "imply"},     /* size skew */
		{2, GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED, "properties"},/* truncated props */
		{3, GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED, "/dev/mali0"}, /* vanished */
	};
	for (size_t i = 0; i < sizeof open_faults / sizeof open_faults[0]; i++) {
		memset(&r, 0, sizeof r);
		r.vm = vmali_create(&cfg);
		memset(&f, 0, sizeof f);
		f.open_eacces = open_faults[i].which == 0;
		f.buffer_size_skew = open_faults[i].which == 1 ? 256 : 0;
		f.props_truncated = open_faults[i].which == 2;
		f.vanished = open_faults[i].which == 3;
		vmali_set_faults(r.vm, &f);
		r.host = (struct og_backend_host){vmali_sys(r.vm), cap_log, &r};
		assert_int_equal(og_backend_mali.open(&r.host, "", &r.state, &r.info),
		                 open_faults[i].want);
		assert_int_equal(r.errors, 1);
		if (!strstr(r.last_error, open_faults[i].needle))
			fail_msg("log '%s' lacks '%s'", r.last_error, open_faults[i].needle);
		r.state = NULL;
		rig_done(&r);
	}

	/* A dump that never arrives fails that sample only. */
	assert_int_equal(rig_open(&r, &cfg), GPA_STATUS_OK);
	uint32_t id;
	const char *why;
	uint64_t d;
	assert_int_equal(og_backend_mali.bind_raw(r.state, "a", "JM:6", &id, &why), 0);
	assert_int_equal(og_backend_mali.begin_pass(r.state, &id, 1), GPA_STATUS_OK);
	assert_int_equal(og_backend_mali.begin_sample(r.state), GPA_STATUS_OK);
	memset(&f, 0, sizeof f);
	f.dumps_never_arrive = true;
	vmali_set_faults(r.vm, &f);
	assert_int_equal(og_backend_mali.end_sample(r.state, &d), GPA_STATUS_ERROR_FAILED);
	assert_non_null(strstr(r.last_error, "did not arrive"));
	memset(&f, 0, sizeof f);
	vmali_set_faults(r.vm, &f);
	assert_int_equal(og_backend_mali.begin_sample(r.state), GPA_STATUS_OK);
	uint64_t a0 = vmali_total(r.vm, VMALI_BLOCK_JM, VMALI_ALL, 6);
	vmali_run_frames(r.vm, 1);
	uint64_t a1 = vmali_total(r.vm, VMALI_BLOCK_JM, VMALI_ALL, 6);
	assert_int_equal(og_backend_mali.end_sample(r.state, &d), GPA_STATUS_OK);
	assert_int_equal(d, a1 - a0);

	/* The device vanishes mid-session. */
	f.vanished = true;
	vmali_set_faults(r.vm, &f);
	assert_int_not_equal(og_backend_mali.begin_sample(r.state), GPA_STATUS_OK);
	assert_non_null(strstr(r.last_error, "went away"));
	og_backend_mali.end_pass(r.state);
	rig_done(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mp8_two_slices),
		cmocka_unit_test(test_sparse_mask),
		cmocka_unit_test(test_idle_gpu_gives_zeros),
		cmocka_unit_test(test_cycles_metadata),
		cmocka_unit_test(test_driver_versions),
		cmocka_unit_test(test_faults),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
