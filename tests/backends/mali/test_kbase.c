/* SPDX-License-Identifier: MIT */
/* test_kbase.c — the mali (kbase) backend driven through its ops table on a
 * fake /dev/mali0, one fault at a time. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "backend.h"
#include "fake_kbase.h"

extern const struct og_backend_ops og_backend_mali;

struct logcap {
	int lines;
	int errors;
	bool newline;
	char last_error[512];
	char all[4096];
};

__attribute__((format(printf, 3, 4))) static void cap_log(void *ctx, enum og_log_level level,
                                                         const char *fmt, ...)
{
	struct logcap *lc = ctx;
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	lc->lines++;
	if (strchr(line, '\n'))
		lc->newline = true;
	if (level == OG_LOG_ERROR) {
		lc->errors++;
		snprintf(lc->last_error, sizeof lc->last_error, "%s", line);
	}
	size_t used = strlen(lc->all);
	snprintf(lc->all + used, sizeof lc->all - used, "%s|", line);
}

struct rig {
	struct fake_kbase fk;
	struct logcap log;
	struct og_backend_host host;
	void *state;
	struct og_device_info info;
};

static GPA_Status rig_open(struct rig *r, const struct fake_kbase_cfg *cfg, const char *options)
{
	memset(r, 0, sizeof *r);
	fake_kbase_init(&r->fk, cfg);
	r->host = (struct og_backend_host){&r->fk.sys, cap_log, &r->log, NULL};
	return og_backend_mali.open(&r->host, options ? options : "", &r->state, &r->info);
}

/* Every failure is one error line without a newline, and nothing leaks. */
static void rig_failed(struct rig *r, GPA_Status got, GPA_Status want, const char *needle)
{
	assert_int_equal(got, want);
	assert_int_equal(r->log.errors, 1);
	assert_false(r->log.newline);
	if (needle && !strstr(r->log.last_error, needle))
		fail_msg("log '%s' lacks '%s'", r->log.last_error, needle);
	assert_int_equal(r->fk.open_fds, 0);
	assert_int_equal(r->fk.mapped, 0);
	fake_kbase_fini(&r->fk);
}

static void rig_close(struct rig *r)
{
	og_backend_mali.close(r->state);
	assert_int_equal(r->fk.open_fds, 0);
	assert_int_equal(r->fk.mapped, 0);
	assert_false(r->log.newline);
	fake_kbase_fini(&r->fk);
}

static uint32_t bind(struct rig *r, const char *source)
{
	uint32_t id = 0;
	const char *why = NULL;
	GPA_Status st = og_backend_mali.bind_raw(r->state, "x", source, &id, &why);
	if (st != GPA_STATUS_OK)
		fail_msg("bind %s: %d (%s)", source, st, why ? why : "");
	return id;
}

/* A source per block type with the (type, index) the fake sums. */
static const struct {
	const char *source;
	uint32_t type, index;
} probes[] = {
	{"JM:6", 0, 6},     {"JM:63", 0, 63},     {"TILER:4", 1, 4}, {"TILER:37", 1, 37},
	{"L2:32", 2, 32},   {"L2:4", 2, 4},       {"SC:4", 3, 4},    {"SC:9", 3, 9},
	{"SC:63", 3, 63},
};
#define NPROBES (sizeof probes / sizeof probes[0])

/* One sample of every probe; checks the deltas against the fake's sums. */
static GPA_Status sample_and_check(struct rig *r, bool check)
{
	uint32_t ids[NPROBES];
	uint64_t d[NPROBES];
	for (size_t i = 0; i < NPROBES; i++)
		ids[i] = bind(r, probes[i].source);
	assert_true(og_backend_mali.fits(r->state, ids, NPROBES));
	GPA_Status st = og_backend_mali.begin_pass(r->state, ids, NPROBES);
	if (st != GPA_STATUS_OK)
		return st;
	st = og_backend_mali.begin_sample(r->state);
	if (st == GPA_STATUS_OK)
		st = og_backend_mali.end_sample(r->state, d);
	if (st == GPA_STATUS_OK && check)
		for (size_t i = 0; i < NPROBES; i++)
			assert_int_equal(d[i], fake_kbase_expected(&r->fk, r->fk.last_dump_no,
			                                           probes[i].type, probes[i].index));
	og_backend_mali.end_pass(r->state);
	return st;
}

static void test_happy_path(void **unused)
{
	(void)unused;
	struct rig r;
	struct fake_kbase_cfg cfg = fake_kbase_g71_mp8();
	assert_int_equal(rig_open(&r, &cfg, NULL), GPA_STATUS_OK);
	assert_int_equal(r.info.device_id, 0x6000);
	assert_int_equal(r.info.revision_id, 0x0021);
	assert_string_equal(r.info.description, "Mali-G71 MP8");
	assert_string_equal(r.info.counter_sets[0], "mali-g71");
	assert_null(r.info.counter_sets[1]);
	assert_int_equal(r.fk.flags_set, 0x2);
	assert_int_equal(r.fk.buffer_count, 32);
	assert_int_equal(r.log.errors, 0);

	double v;
	assert_int_equal(og_backend_mali.constant(r.state, "MaliConstantsShaderCoreCount", &v), 0);
	assert_true(v == 8.0);
	assert_int_equal(og_backend_mali.constant(r.state, "MaliConstantsL2SliceCount", &v), 0);
	assert_true(v == 2.0);
	assert_int_equal(og_backend_mali.constant(r.state, "MaliConstantsBusWidthBits", &v), 0);
	assert_true(v == 128.0);
	assert_int_equal(og_backend_mali.constant(r.state, "NoSuchConstant", &v),
	                 GPA_STATUS_ERROR_NOT_FOUND);
	/* This driver's properties have no GPU_FREQ_KHZ_MAX: no clock to give. */
	assert_int_equal(og_backend_mali.constant(r.state, "DeviceMaxClockHz", &v),
	                 GPA_STATUS_ERROR_NOT_FOUND);

	for (int s = 0; s < 3; s++)
		assert_int_equal(sample_and_check(&r, true), GPA_STATUS_OK);
	assert_int_equal(r.fk.clears, 3);
	assert_int_equal(r.fk.dumps, 6); /* one at each sample edge */
	assert_int_equal(r.fk.long_gets, 6);
	assert_false(r.fk.held);
	rig_close(&r);
}

static void test_sparse_mask_skips_holes(void **unused)
{
	(void)unused;
	struct rig r;
	struct fake_kbase_cfg cfg = fake_kbase_g71_mp8();
	cfg.core_mask = 0xB5; /* cores 0,2,4,5,7: holes at 1,3,6 */
	cfg.l2_slices = 1;
	assert_int_equal(rig_open(&r, &cfg, NULL), GPA_STATUS_OK);
	assert_string_equal(r.info.description, "Mali-G71 MP5");
	assert_int_equal(sample_and_check(&r, true), GPA_STATUS_OK);
	rig_close(&r);
}

static void test_cycles_from_metadata(void **unused)
{
	(void)unused;
	struct rig r;
	struct fake_kbase_cfg cfg = fake_kbase_g71_mp8();
	assert_int_equal(rig_open(&r, &cfg, NULL), GPA_STATUS_OK);
	uint32_t ids[2] = {bind(&r, "CYCLES:top"), bind(&r, "CYCLES:shader")};
	uint64_t d[2];
	assert_int_equal(og_backend_mali.begin_pass(r.state, ids, 2), GPA_STATUS_OK);
	assert_int_equal(og_backend_mali.begin_sample(r.state), GPA_STATUS_OK);
	assert_int_equal(og_backend_mali.end_sample(r.state, d), GPA_STATUS_OK);
	assert_int_equal(d[0], 7u * r.fk.last_dump_no);
	assert_int_equal(d[1], 5u * r.fk.last_dump_no);
	og_backend_mali.end_pass(r.state);
	/* TIME:ns is the distance of the two dumps' timestamps (1000 ns apart). */
	uint32_t t = bind(&r, "TIME:ns");
	assert_int_equal(og_backend_mali.begin_pass(r.state, &t, 1), GPA_STATUS_OK);
	assert_int_equal(og_backend_mali.begin_sample(r.state), GPA_STATUS_OK);
	assert_int_equal(og_backend_mali.end_sample(r.state, d), GPA_STATUS_OK);
	assert_int_equal(d[0], 1000);
	og_backend_mali.end_pass(r.state);
	rig_close(&r);

	/* Without the feature bits the cycle counters are not countable. */
	cfg.api_features = 0;
	assert_int_equal(rig_open(&r, &cfg, NULL), GPA_STATUS_OK);
	uint32_t id;
	const char *why = NULL;
	assert_int_equal(og_backend_mali.bind_raw(r.state, "c", "CYCLES:top", &id, &why),
	                 GPA_STATUS_ERROR_NOT_FOUND);
	assert_non_null(why);
	assert_int_equal(sample_and_check(&r, true), GPA_STATUS_OK);
	assert_int_equal(r.fk.long_gets, 0); /* the short metadata form */
	rig_close(&r);
}

static void test_old_reader_falls_back(void **unused)
{
	(void)unused;
	struct rig r;
	struct fake_kbase_cfg cfg = fake_kbase_g71_mp8();
	cfg.old_reader = true;
	assert_int_equal(rig_open(&r, &cfg, NULL), GPA_STATUS_OK);
	assert_int_equal(sample_and_check(&r, true), GPA_STATUS_OK);
	assert_int_equal(r.fk.long_gets, 0);
	assert_int_equal(r.fk.short_gets, 2);
	rig_close(&r);
}

static void test_bind_malformed(void **unused)
{
	(void)unused;
	struct rig r;
	struct fake_kbase_cfg cfg = fake_kbase_g71_mp8();
	assert_int_equal(rig_open(&r, &cfg, NULL), GPA_STATUS_OK);
	static const struct {
		const char *source;
		GPA_Status want;
	} bad[] = {
		{"JM:2", GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE},
		{"SC:128", GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE},
		{"FE:3", GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE},
		{"JM:x", GPA_STATUS_ERROR_FAILED},
		{"JM:6x", GPA_STATUS_ERROR_FAILED},
		{"GPU:6", GPA_STATUS_ERROR_FAILED},
		{"JM6", GPA_STATUS_ERROR_FAILED},
		{"JM:", GPA_STATUS_ERROR_FAILED},
		{"CYCLES:gpu", GPA_STATUS_ERROR_FAILED},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		uint32_t id;
		const char *why = NULL;
		assert_int_equal(og_backend_mali.bind_raw(r.state, "x", bad[i].source, &id, &why),
		                 bad[i].want);
		assert_non_null(why);
	}
	assert_int_equal(bind(&r, "SC:4"), 3 * 128 + 4);
	/* JM: is the reviewed G71 set's name for the front end. */
	assert_int_equal(bind(&r, "JM:6"), bind(&r, "FE:6"));
	/* Well formed, but not on a 64-value GPU read through vinstr. */
	static const char *const absent[] = {"SC:64", "FE:127", "FW:4", "CSG:10"};
	for (size_t i = 0; i < sizeof absent / sizeof absent[0]; i++) {
		uint32_t id;
		const char *why = NULL;
		assert_int_equal(og_backend_mali.bind_raw(r.state, "x", absent[i], &id, &why),
		                 GPA_STATUS_ERROR_NOT_FOUND);
		assert_non_null(why);
	}
	rig_close(&r);
}

static void test_no_device(void **unused)
{
	(void)unused;
	struct rig r;
	struct fake_kbase_cfg cfg = fake_kbase_g71_mp8();
	cfg.open_errno = ENOENT;
	rig_failed(&r, rig_open(&r, &cfg, NULL), GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED,
	           "/dev/mali0");
	rig_failed(&r, rig_open(&r, &cfg, "device=/dev/mali7"),
	           GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED, "/dev/mali7");
}

static void test_permission_denied(void **unused)
{
	(void)unused;
	struct rig r;
	struct fake_kbase_cfg cfg = fake_kbase_g71_mp8();
	cfg.open_errno = EACCES;
	rig_failed(&r, rig_open(&r, &cfg, NULL), GPA_STATUS_ERROR_FAILED, "group");
}

static void test_unknown_option(void **unused)
{
	(void)unused;
	struct rig r;
	struct fake_kbase_cfg cfg = fake_kbase_g71_mp8();
	rig_failed(&r, rig_open(&r, &cfg, "device=/dev/mali0,colour=blue"), GPA_STATUS_ERROR_FAILED,
	           "colour");
	rig_failed(&r, rig_open(&r, &cfg, "timeout=soon"), GPA_STATUS_ERROR_FAILED, "timeout");
}

static void test_driver_versions(void **unused)
{
	(void)unused;
	struct rig r;
	struct fake_kbase_cfg cfg = fake_kbase_g71_mp8();

	cfg.jm_minor = 40;
	rig_failed(&r, rig_open(&r, &cfg, NULL), GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED,
	           "kinstr_prfcnt");
	cfg.jm_minor = 39;
	assert_int_equal(rig_open(&r, &cfg, NULL), GPA_STATUS_OK);
	rig_close(&r);

	/* A CSF driver with a job-manager GPU: the two disagree. */
	cfg = fake_kbase_g71_mp8();
	cfg.csf = true;
	rig_failed(&r, rig_open(&r, &cfg, NULL), GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED,
	           "job-manager");
	/* A CSF GPU on CSF UK 1.10: vinstr, the v5 dump as on JM. */
	cfg.product_id = 0xa007;
	assert_int_equal(rig_open(&r, &cfg, NULL), GPA_STATUS_OK);
	assert_string_equal(r.info.description, "Mali-G610 MC8");
	assert_string_equal(r.info.counter_sets[0], "mali-g710");
	assert_int_equal(sample_and_check(&r, true), GPA_STATUS_OK);
	rig_close(&r);
	/* interface= forces one; the fake has no kinstr_prfcnt. */
	cfg = fake_kbase_g71_mp8();
	rig_failed(&r, rig_open(&r, &cfg, "interface=kinstr_prfcnt"),
	           GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED, "predates it");
	rig_failed(&r, rig_open(&r, &cfg, "interface=sideways"), GPA_STATUS_ERROR_FAILED,
	           "interface=sideways");
	assert_int_equal(rig_open(&r, &cfg, "interface=vinstr"), GPA_STATUS_OK);
	rig_close(&r);

	cfg = fake_kbase_g71_mp8();
	cfg.legacy = true;
	rig_failed(&r, rig_open(&r, &cfg, NULL), GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED, "r21");

	cfg = fake_kbase_g71_mp8();
	cfg.not_kbase = true;
	rig_failed(&r, rig_open(&r, &cfg, NULL), GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED,
	           "not an Arm kbase");

	cfg = fake_kbase_g71_mp8();
	cfg.jm_major = 12;
	rig_failed(&r, rig_open(&r, &cfg, NULL), GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED, "12.25");

	cfg = fake_kbase_g71_mp8();
	cfg.hwver = 4;
	rig_failed(&r, rig_open(&r, &cfg, NULL), GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED,
	           "version 4");
}

static void test_other_product(void **unused)
{
	(void)unused;
	struct rig r;
	struct fake_kbase_cfg cfg = fake_kbase_g71_mp8();
	cfg.product_id = 0x5001;
	rig_failed(&r, rig_open(&r, &cfg, NULL), GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED, "0x5001");
	cfg.product_id = 0x0860;
	rig_failed(&r, rig_open(&r, &cfg, NULL), GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED, "T860");
	/* Every job-manager GPU of the table opens, with its own counter set. */
	cfg.product_id = 0x7212; /* Mali-G52, arch_minor 2 */
	assert_int_equal(rig_open(&r, &cfg, NULL), GPA_STATUS_OK);
	assert_string_equal(r.info.description, "Mali-G52 MP8");
	assert_string_equal(r.info.counter_sets[0], "mali-g52");
	rig_close(&r);
	cfg.product_id = 0x9003; /* Mali-G57, the G77's layout */
	assert_int_equal(rig_open(&r, &cfg, NULL), GPA_STATUS_OK);
	assert_string_equal(r.info.description, "Mali-G57 MC8");
	assert_string_equal(r.info.counter_sets[0], "mali-g77");
	rig_close(&r);
	/* Another revision of G71 (arch_rev bits differ) is still a G71. */
	cfg.product_id = 0x6010;
	assert_int_equal(rig_open(&r, &cfg, NULL), GPA_STATUS_OK);
	rig_close(&r);
}

static void test_props_truncated(void **unused)
{
	(void)unused;
	struct rig r;
	struct fake_kbase_cfg cfg = fake_kbase_g71_mp8();
	cfg.truncate_props = true;
	rig_failed(&r, rig_open(&r, &cfg, NULL), GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED, "ends inside");
}

static void test_enomem_every_count(void **unused)
{
	(void)unused;
	for (uint32_t max = 32; max >= 1; max /= 2) {
		struct rig r;
		struct fake_kbase_cfg cfg = fake_kbase_g71_mp8();
		cfg.max_buffers = max;
		assert_int_equal(rig_open(&r, &cfg, NULL), GPA_STATUS_OK);
		assert_int_equal(r.fk.buffer_count, max);
		/* 32, 16, ... down to max: halving, never a count the kernel refuses. */
		uint32_t want = 32;
		for (int i = 0; i < r.fk.setup_calls; i++, want /= 2)
			assert_int_equal(r.fk.setup_counts[i], want);
		assert_int_equal(sample_and_check(&r, true), GPA_STATUS_OK);
		assert_int_equal(sample_and_check(&r, true), GPA_STATUS_OK);
		rig_close(&r);
	}
	struct rig r;
	struct fake_kbase_cfg cfg = fake_kbase_g71_mp8();
	cfg.max_buffers = 0;
	rig_failed(&r, rig_open(&r, &cfg, NULL), GPA_STATUS_ERROR_FAILED, "out of memory");
	assert_int_equal(r.fk.setup_calls, 6);
}

static void test_setup_busy(void **unused)
{
	(void)unused;
	struct rig r;
	struct fake_kbase_cfg cfg = fake_kbase_g71_mp8();
	cfg.setup_ebusy = true;
	rig_failed(&r, rig_open(&r, &cfg, NULL), GPA_STATUS_ERROR_FAILED, "another profiler");
}

static void test_buffer_size_mismatch(void **unused)
{
	(void)unused;
	int32_t deltas[] = {256, -256, -4, 4};
	for (size_t i = 0; i < 4; i++) {
		struct rig r;
		struct fake_kbase_cfg cfg = fake_kbase_g71_mp8();
		cfg.buffer_size_delta = deltas[i];
		rig_failed(&r, rig_open(&r, &cfg, NULL), GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED, "imply");
	}
}

static void test_dump_never_arrives(void **unused)
{
	(void)unused;
	struct rig r;
	struct fake_kbase_cfg cfg = fake_kbase_g71_mp8();
	assert_int_equal(rig_open(&r, &cfg, NULL), GPA_STATUS_OK);
	uint32_t id = bind(&r, "JM:6");
	uint64_t d = 0;
	assert_int_equal(og_backend_mali.begin_pass(r.state, &id, 1), GPA_STATUS_OK);
	assert_int_equal(og_backend_mali.begin_sample(r.state), GPA_STATUS_OK);
	r.fk.cfg.dumps_never_arrive = true;
	assert_int_equal(og_backend_mali.end_sample(r.state, &d), GPA_STATUS_ERROR_FAILED);
	assert_int_equal(r.log.errors, 1);
	assert_non_null(strstr(r.log.last_error, "did not arrive"));
	/* The late dump turns up; the next sample must not mistake it for its own. */
	r.fk.cfg.dumps_never_arrive = false;
	assert_int_equal(og_backend_mali.begin_sample(r.state), GPA_STATUS_OK);
	assert_int_equal(og_backend_mali.end_sample(r.state, &d), GPA_STATUS_OK);
	assert_int_equal(r.fk.last_dump_no, 4);
	assert_int_equal(d, fake_kbase_expected(&r.fk, 4, 0, 6));
	og_backend_mali.end_pass(r.state);
	rig_close(&r);
}

static void test_eintr(void **unused)
{
	(void)unused;
	struct rig r;
	struct fake_kbase_cfg cfg = fake_kbase_g71_mp8();
	cfg.eintr = true;
	assert_int_equal(rig_open(&r, &cfg, NULL), GPA_STATUS_OK);
	for (int i = 0; i < 3; i++)
		assert_int_equal(sample_and_check(&r, true), GPA_STATUS_OK);
	assert_int_equal(r.log.errors, 0);
	rig_close(&r);
}

/* Signals arriving faster than poll can wait: the backend gives up on that
 * sample (it does not spin forever), the device is not written off, and the
 * dump that arrived meanwhile is not mistaken for the next sample's. */
static void test_eintr_storm(void **unused)
{
	(void)unused;
	struct rig r;
	struct fake_kbase_cfg cfg = fake_kbase_g71_mp8();
	assert_int_equal(rig_open(&r, &cfg, NULL), GPA_STATUS_OK);
	uint32_t id = bind(&r, "SC:9");
	uint64_t d = 0;
	assert_int_equal(og_backend_mali.begin_pass(r.state, &id, 1), GPA_STATUS_OK);
	assert_int_equal(og_backend_mali.begin_sample(r.state), GPA_STATUS_OK);
	r.fk.cfg.poll_eintr_always = true;
	assert_int_equal(og_backend_mali.end_sample(r.state, &d), GPA_STATUS_ERROR_FAILED);
	assert_int_equal(r.log.errors, 1);
	assert_non_null(strstr(r.log.last_error, "interrupted"));
	r.fk.cfg.poll_eintr_always = false;
	assert_int_equal(og_backend_mali.begin_sample(r.state), GPA_STATUS_OK);
	assert_int_equal(og_backend_mali.end_sample(r.state, &d), GPA_STATUS_OK);
	assert_int_equal(r.fk.last_dump_no, 4);
	assert_int_equal(d, fake_kbase_expected(&r.fk, 4, 3, 9));
	og_backend_mali.end_pass(r.state);
	rig_close(&r);
}

static void test_device_vanishes(void **unused)
{
	(void)unused;
	struct rig r;
	struct fake_kbase_cfg cfg = fake_kbase_g71_mp8();
	cfg.vanish_after_dumps = 3;
	assert_int_equal(rig_open(&r, &cfg, NULL), GPA_STATUS_OK);
	assert_int_equal(sample_and_check(&r, true), GPA_STATUS_OK);
	uint32_t id = bind(&r, "SC:4");
	uint64_t d = 0;
	assert_int_equal(og_backend_mali.begin_pass(r.state, &id, 1), GPA_STATUS_OK);
	assert_int_equal(og_backend_mali.begin_sample(r.state), GPA_STATUS_OK);
	assert_int_equal(og_backend_mali.end_sample(r.state, &d), GPA_STATUS_ERROR_FAILED);
	assert_non_null(strstr(r.log.last_error, "went away"));
	assert_int_equal(og_backend_mali.begin_sample(r.state), GPA_STATUS_ERROR_FAILED);
	assert_non_null(strstr(r.log.last_error, "gone"));
	og_backend_mali.end_pass(r.state);
	assert_int_equal(og_backend_mali.begin_pass(r.state, &id, 1), GPA_STATUS_ERROR_FAILED);
	rig_close(&r);
}

static void test_zero_dumps(void **unused)
{
	(void)unused;
	struct rig r;
	struct fake_kbase_cfg cfg = fake_kbase_g71_mp8();
	cfg.zero_dumps = true;
	assert_int_equal(rig_open(&r, &cfg, NULL), GPA_STATUS_OK);
	uint32_t ids[NPROBES];
	uint64_t d[NPROBES];
	memset(d, 0xFF, sizeof d);
	for (size_t i = 0; i < NPROBES; i++)
		ids[i] = bind(&r, probes[i].source);
	assert_int_equal(og_backend_mali.begin_pass(r.state, ids, NPROBES), GPA_STATUS_OK);
	assert_int_equal(og_backend_mali.begin_sample(r.state), GPA_STATUS_OK);
	assert_int_equal(og_backend_mali.end_sample(r.state, d), GPA_STATUS_OK);
	for (size_t i = 0; i < NPROBES; i++)
		assert_int_equal(d[i], 0);
	og_backend_mali.end_pass(r.state);
	assert_int_equal(r.log.errors, 0);
	rig_close(&r);
}

static void test_bad_buffer_index(void **unused)
{
	(void)unused;
	struct rig r;
	struct fake_kbase_cfg cfg = fake_kbase_g71_mp8();
	assert_int_equal(rig_open(&r, &cfg, NULL), GPA_STATUS_OK);
	r.fk.cfg.bad_buffer_idx = true;
	r.log.errors = 0;
	GPA_Status st = sample_and_check(&r, false);
	assert_int_equal(st, GPA_STATUS_ERROR_FAILED);
	assert_non_null(strstr(r.log.last_error, "buffer index"));
	rig_close(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_happy_path),
		cmocka_unit_test(test_sparse_mask_skips_holes),
		cmocka_unit_test(test_cycles_from_metadata),
		cmocka_unit_test(test_old_reader_falls_back),
		cmocka_unit_test(test_bind_malformed),
		cmocka_unit_test(test_no_device),
		cmocka_unit_test(test_permission_denied),
		cmocka_unit_test(test_unknown_option),
		cmocka_unit_test(test_driver_versions),
		cmocka_unit_test(test_other_product),
		cmocka_unit_test(test_props_truncated),
		cmocka_unit_test(test_enomem_every_count),
		cmocka_unit_test(test_setup_busy),
		cmocka_unit_test(test_buffer_size_mismatch),
		cmocka_unit_test(test_dump_never_arrives),
		cmocka_unit_test(test_eintr),
		cmocka_unit_test(test_eintr_storm),
		cmocka_unit_test(test_device_vanishes),
		cmocka_unit_test(test_zero_dumps),
		cmocka_unit_test(test_bad_buffer_index),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
