/* SPDX-License-Identifier: MIT */
/*
 * test_adreno.c — the adreno backend's ops on the virtual Adreno (in
 * process, through vadreno_sys()): identification per generation, every
 * raw counter of each counter set counted with the device's own per-frame
 * count, passes split by the groups' counter limits, the kernel's shared
 * counters, and every fault the device can raise.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "backend.h"
#include "vadreno.h"

extern const struct og_backend_ops og_backend_adreno;
#define OPS og_backend_adreno

struct rig {
	struct vadreno *vd;
	struct og_backend_host host;
	struct og_device_info info;
	void *state;
	char last[1024];
	int errors;
};

__attribute__((format(printf, 3, 4)))
static void rig_log(void *ctx, enum og_log_level level, const char *fmt, ...)
{
	struct rig *r = ctx;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->last, sizeof r->last, fmt, ap);
	va_end(ap);
	r->errors += level == OG_LOG_ERROR;
}

static GPA_Status rig_open(struct rig *r, uint32_t chip, const struct vadreno_faults *f,
                           bool switch_off)
{
	memset(r, 0, sizeof *r);
	struct vadreno_config c = {.chip_id = chip, .perfcounter_off = switch_off,
	                           .frames_per_read = 1};
	r->vd = vadreno_create(&c);
	assert_non_null(r->vd);
	if (f)
		vadreno_set_faults(r->vd, f);
	r->host.sys = vadreno_sys(r->vd);
	r->host.log = rig_log;
	r->host.log_ctx = r;
	return OPS.open(&r->host, "", &r->state, &r->info);
}

/* The virtual Adreno on upstream msm, opened with interface=msm or none. */
static GPA_Status rig_open_msm(struct rig *r, const struct vadreno_config *c, const char *opts)
{
	memset(r, 0, sizeof *r);
	r->vd = vadreno_create(c);
	assert_non_null(r->vd);
	r->host.sys = vadreno_sys(r->vd);
	r->host.log = rig_log;
	r->host.log_ctx = r;
	return OPS.open(&r->host, opts, &r->state, &r->info);
}

static void rig_done(struct rig *r)
{
	if (r->state)
		OPS.close(r->state);
	/* Every GET was PUT and the device closed, on every path. */
	assert_int_equal(vadreno_user_refs(r->vd), 0);
	assert_int_equal(vadreno_open_fds(r->vd), 0);
	vadreno_destroy(r->vd);
}

static uint32_t bind(struct rig *r, const char *source)
{
	uint32_t id = 0;
	const char *why = NULL;
	assert_int_equal(OPS.bind_raw(r->state, "x", source, &id, &why), GPA_STATUS_OK);
	return id;
}

static void test_identify(void **unused)
{
	(void)unused;
	static const struct {
		uint32_t chip;
		const char *name, *set;
		double cores;
	} gpus[] = {
		{0x05030002, "Adreno 530", "adreno-a5xx", 4}, {0x05040001, "Adreno 540", "adreno-a5xx", 4},
		{0x06030002, "Adreno 630", "adreno-a6xx", 2}, {0x06050002, "Adreno 650", "adreno-a6xx", 3},
		{0x07030001, "Adreno 730", "adreno-a7xx", 4}, {0x43050a01, "Adreno 740", "adreno-a7xx", 6},
		{0x43051401, "Adreno 750", "adreno-a7xx", 6},
	};
	for (size_t i = 0; i < sizeof gpus / sizeof gpus[0]; i++) {
		struct rig r;
		assert_int_equal(rig_open(&r, gpus[i].chip, NULL, false), GPA_STATUS_OK);
		assert_string_equal(r.info.description, gpus[i].name);
		assert_string_equal(r.info.counter_sets[0], gpus[i].set);
		assert_int_equal(r.info.device_id, gpus[i].chip);
		double v = 0;
		assert_int_equal(OPS.constant(r.state, "AdrenoSPCores", &v), GPA_STATUS_OK);
		assert_true(v == gpus[i].cores);
		assert_int_equal(OPS.constant(r.state, "AdrenoMaxFreqHz", &v), GPA_STATUS_OK);
		assert_true(v == 587e6);
		assert_int_equal(OPS.constant(r.state, "AdrenoGmemBytes", &v), GPA_STATUS_OK);
		assert_true(v >= 512 * 1024);
		assert_int_equal(r.errors, 0);
		rig_done(&r);
	}
}

/* Every raw source of a counter file, counted in as few passes as the
 * groups allow; each delta equals the device's count for one frame. */
static void check_every_raw(uint32_t chip, const char *file, size_t min_passes)
{
	struct rig r;
	assert_int_equal(rig_open(&r, chip, NULL, false), GPA_STATUS_OK);
	FILE *f = fopen(file, "r");
	assert_non_null(f);
	char line[512];
	uint32_t *ids = NULL;
	size_t n = 0, skipped = 0;
	while (fgets(line, sizeof line, f)) {
		char src[64];
		if (sscanf(line, "    source: %63s", src) != 1 || strcmp(src, "TIME:ns") == 0)
			continue;
		uint32_t id;
		const char *why = NULL;
		GPA_Status st = OPS.bind_raw(r.state, "x", src, &id, &why);
		if (st == GPA_STATUS_ERROR_NOT_FOUND) {
			skipped++;
			continue;
		}
		assert_int_equal(st, GPA_STATUS_OK);
		ids = realloc(ids, (n + 1) * sizeof *ids);
		ids[n++] = id;
	}
	fclose(f);
	assert_true(n > 300);
	uint32_t *pass = malloc(n * sizeof *pass);
	uint64_t *d = malloc(n * sizeof *d);
	bool *done = calloc(n, sizeof *done);
	size_t passes = 0, counted = 0;
	while (counted < n) {
		size_t m = 0;
		for (size_t i = 0; i < n; i++) {
			if (done[i])
				continue;
			pass[m] = ids[i];
			if (OPS.fits(r.state, pass, m + 1)) {
				m++;
				done[i] = true;
			}
		}
		assert_true(m > 0);
		assert_int_equal(OPS.begin_pass(r.state, pass, m), GPA_STATUS_OK);
		assert_int_equal(OPS.begin_sample(r.state), GPA_STATUS_OK);
		assert_int_equal(OPS.end_sample(r.state, d), GPA_STATUS_OK);
		/* One READ per 100 counters, and the device runs a frame at each:
		 * every counter's two snapshots are that many frames apart. */
		uint64_t reads = (m + 99) / 100;
		for (size_t i = 0; i < m; i++) {
			uint64_t want = reads * vadreno_rate(r.vd, pass[i] >> 16, pass[i] & 0xFFFF);
			if (d[i] != want)
				fail_msg("%s: %u:%u counted %llu, the device %llu", file, pass[i] >> 16,
				         pass[i] & 0xFFFF, (unsigned long long)d[i],
				         (unsigned long long)want);
		}
		assert_int_equal(OPS.end_pass(r.state), GPA_STATUS_OK);
		counted += m;
		passes++;
	}
	/* The SP group alone needs its countables / counters passes. */
	assert_true(passes >= min_passes);
	print_message("%s on 0x%08x: %zu raw counters in %zu passes, %zu not countable here\n",
	              file, chip, n, passes, skipped);
	free(ids);
	free(pass);
	free(d);
	free(done);
	if (r.errors)
		fail_msg("%d errors, the last: %s", r.errors, r.last);
	rig_done(&r);
}

static void test_every_raw(void **unused)
{
	(void)unused;
	check_every_raw(0x05030002, COUNTERS_DIR "/adreno-a5xx.counters", 65 / 12 + 1);
	check_every_raw(0x06050002, COUNTERS_DIR "/adreno-a6xx.counters", 85 / 24 + 1);
	check_every_raw(0x43050a01, COUNTERS_DIR "/adreno-a7xx.counters", 151 / 24 + 1);
}

static void test_deltas_and_time(void **unused)
{
	(void)unused;
	struct rig r;
	assert_int_equal(rig_open(&r, 0x06050002, NULL, false), GPA_STATUS_OK);
	uint32_t ids[4] = {bind(&r, "CP:0"), bind(&r, "TIME:ns"), bind(&r, "CP:0"),
	                   bind(&r, "ALWAYSON:0")};
	uint64_t d[4];
	assert_int_equal(OPS.begin_pass(r.state, ids, 4), GPA_STATUS_OK);
	assert_int_equal(OPS.begin_sample(r.state), GPA_STATUS_OK);
	vadreno_run_frames(r.vd, 4); /* work between the reads counts too */
	assert_int_equal(OPS.next_sample(r.state, d), GPA_STATUS_OK);
	assert_int_equal(d[0], 5 * vadreno_rate(r.vd, 0, 0));
	assert_int_equal(d[2], d[0]);
	assert_int_equal(d[3], 5 * vadreno_rate(r.vd, 0x1B, 0));
	assert_int_equal(OPS.end_sample(r.state, d), GPA_STATUS_OK);
	assert_int_equal(d[0], vadreno_rate(r.vd, 0, 0));
	assert_int_equal(OPS.end_pass(r.state), GPA_STATUS_OK);
	rig_done(&r);
}

static void test_kernel_shared_and_busy(void **unused)
{
	(void)unused;
	struct rig r;
	assert_int_equal(rig_open(&r, 0x06050002, NULL, false), GPA_STATUS_OK);
	/* The kernel's bus DCVS holds GBIF 34/35/46/47: sharing one works... */
	uint32_t id = bind(&r, "VBIF:34");
	uint64_t d;
	assert_int_equal(OPS.begin_pass(r.state, &id, 1), GPA_STATUS_OK);
	assert_int_equal(OPS.end_pass(r.state), GPA_STATUS_OK);
	/* ...another countable of the full group cannot be counted, and says why. */
	const char *why = NULL;
	assert_int_equal(OPS.bind_raw(r.state, "x", "VBIF:10", &id, &why),
	                 GPA_STATUS_ERROR_NOT_FOUND);
	assert_non_null(strstr(why, "held by other countables"));
	/* Another process takes every TSE counter after the context opened: a
	 * pass of several groups fails on TSE with EBUSY explained, and gives
	 * back what it took first. */
	for (uint32_t c = 0; c < 4; c++)
		assert_int_equal(vadreno_other_get(r.vd, 0x06, 10 + c), 0);
	uint32_t ids[3] = {bind(&r, "SP:0"), bind(&r, "CP:2"), bind(&r, "TSE:6")};
	assert_int_equal(OPS.begin_pass(r.state, ids, 3), GPA_STATUS_ERROR_FAILED);
	assert_non_null(strstr(r.last, "EBUSY"));
	assert_non_null(strstr(r.last, "another process"));
	assert_int_equal(vadreno_user_refs(r.vd), 0);
	/* Sharing a countable another process holds is fine. */
	ids[2] = bind(&r, "TSE:11");
	assert_int_equal(OPS.begin_pass(r.state, ids, 3), GPA_STATUS_OK);
	assert_int_equal(OPS.begin_sample(r.state), GPA_STATUS_OK);
	uint64_t dd[3];
	assert_int_equal(OPS.end_sample(r.state, dd), GPA_STATUS_OK);
	assert_int_equal(dd[2], vadreno_rate(r.vd, 0x06, 11));
	(void)d;
	/* Closing in the middle of a pass PUTs everything (rig_done checks). */
	rig_done(&r);
}

static void test_fits_limits(void **unused)
{
	(void)unused;
	struct rig r;
	assert_int_equal(rig_open(&r, 0x05030002, NULL, false), GPA_STATUS_OK);
	uint32_t ids[16];
	char s[16];
	for (unsigned i = 0; i < 16; i++) {
		snprintf(s, sizeof s, "SP:%u", i);
		ids[i] = bind(&r, s);
	}
	assert_true(OPS.fits(r.state, ids, 12));  /* a5xx SP: 12 counters */
	assert_false(OPS.fits(r.state, ids, 13));
	ids[12] = ids[0];                         /* the same countable twice: one counter */
	assert_true(OPS.fits(r.state, ids, 13));
	uint32_t rb[4] = {bind(&r, "RBBM:6"), bind(&r, "RBBM:0"), bind(&r, "RBBM:2"),
	                  bind(&r, "RBBM:3")};
	assert_true(OPS.fits(r.state, rb, 3));    /* a5xx RBBM: 3 exposed, 1 kept */
	assert_false(OPS.fits(r.state, rb, 4));
	uint32_t id;
	const char *why = NULL;
	assert_int_equal(OPS.bind_raw(r.state, "x", "UFC:0", &id, &why), GPA_STATUS_ERROR_NOT_FOUND);
	assert_non_null(why);
	assert_int_equal(OPS.bind_raw(r.state, "x", "ALWAYSON:1", &id, &why),
	                 GPA_STATUS_ERROR_NOT_FOUND);
	assert_int_not_equal(OPS.bind_raw(r.state, "x", "NOPE:1", &id, &why), GPA_STATUS_OK);
	assert_int_not_equal(OPS.bind_raw(r.state, "x", "SP:x", &id, &why), GPA_STATUS_OK);
	assert_int_not_equal(OPS.bind_raw(r.state, "x", "SP:999", &id, &why), GPA_STATUS_OK);
	rig_done(&r);
}

static void test_faults(void **unused)
{
	(void)unused;
	struct rig r;
	struct vadreno_faults f;
	uint64_t d[2];

	/* The sysfs switch off: open says so, a read fails with the fix. */
	assert_int_equal(rig_open(&r, 0x06050002, NULL, true), GPA_STATUS_OK);
	assert_non_null(strstr(r.last, "") );
	uint32_t id = bind(&r, "SP:0");
	assert_int_equal(OPS.begin_pass(r.state, &id, 1), GPA_STATUS_OK); /* GET still works */
	assert_int_equal(OPS.begin_sample(r.state), GPA_STATUS_ERROR_FAILED);
	assert_non_null(strstr(r.last, "perfcounter"));
	rig_done(&r);

	memset(&f, 0, sizeof f);
	f.get_ebusy = true;
	assert_int_equal(rig_open(&r, 0x06050002, &f, false), GPA_STATUS_OK);
	id = bind(&r, "TP:0");
	assert_int_equal(OPS.begin_pass(r.state, &id, 1), GPA_STATUS_ERROR_FAILED);
	assert_non_null(strstr(r.last, "EBUSY"));
	rig_done(&r);

	memset(&f, 0, sizeof f);
	f.empty_group = 0x0A;
	f.empty_group_set = true;
	assert_int_equal(rig_open(&r, 0x06050002, &f, false), GPA_STATUS_OK);
	const char *why = NULL;
	assert_int_equal(OPS.bind_raw(r.state, "x", "SP:0", &id, &why), GPA_STATUS_ERROR_NOT_FOUND);
	assert_non_null(why);
	rig_done(&r);

	memset(&f, 0, sizeof f);
	f.query_huge = true;
	assert_int_equal(rig_open(&r, 0x06050002, &f, false), GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED);
	assert_non_null(strstr(r.last, "refusing to trust"));
	r.state = NULL;
	rig_done(&r);

	memset(&f, 0, sizeof f);
	f.vanished = true;
	assert_int_equal(rig_open(&r, 0x06050002, &f, false), GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED);
	assert_non_null(strstr(r.last, "KGSL"));
	r.state = NULL;
	rig_done(&r);

	memset(&f, 0, sizeof f);
	f.open_eacces = true;
	assert_int_equal(rig_open(&r, 0x06050002, &f, false), GPA_STATUS_ERROR_FAILED);
	assert_non_null(strstr(r.last, "permission"));
	r.state = NULL;
	rig_done(&r);

	/* A READ whose reply names another countable is not trusted. */
	assert_int_equal(rig_open(&r, 0x06050002, NULL, false), GPA_STATUS_OK);
	uint32_t ids[2] = {bind(&r, "SP:0"), bind(&r, "SP:1")};
	assert_int_equal(OPS.begin_pass(r.state, ids, 2), GPA_STATUS_OK);
	memset(&f, 0, sizeof f);
	f.read_wrong_entry = true;
	vadreno_set_faults(r.vd, &f);
	assert_int_equal(OPS.begin_sample(r.state), GPA_STATUS_ERROR_FAILED);
	assert_non_null(strstr(r.last, "not trusted"));
	/* EINTR is retried; a device that vanishes mid-pass is reported. */
	memset(&f, 0, sizeof f);
	f.eintr = true;
	vadreno_set_faults(r.vd, &f);
	assert_int_equal(OPS.begin_sample(r.state), GPA_STATUS_OK);
	assert_int_equal(OPS.end_sample(r.state, d), GPA_STATUS_OK);
	assert_int_equal(d[0], vadreno_rate(r.vd, 0x0A, 0));
	f.eintr = false;
	f.vanished = true;
	vadreno_set_faults(r.vd, &f);
	assert_int_equal(OPS.begin_sample(r.state), GPA_STATUS_ERROR_FAILED);
	assert_non_null(strstr(r.last, "went away"));
	f.vanished = false;
	vadreno_set_faults(r.vd, &f);
	OPS.close(r.state); /* no PUT after the device went away; close still releases */
	r.state = NULL;
	vadreno_destroy(r.vd);

	/* An unknown option and an unknown interface are refused; interface=msm
	 * on a KGSL kernel finds no msm render node. */
	assert_int_equal(rig_open(&r, 0x06050002, NULL, false), GPA_STATUS_OK);
	void *s2 = NULL;
	struct og_device_info info;
	assert_int_not_equal(OPS.open(&r.host, "bogus=1", &s2, &info), GPA_STATUS_OK);
	assert_int_equal(OPS.open(&r.host, "interface=mem", &s2, &info), GPA_STATUS_ERROR_FAILED);
	assert_int_equal(OPS.open(&r.host, "interface=msm", &s2, &info),
	                 GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED);
	assert_non_null(strstr(r.last, "msm render node"));
	rig_done(&r);
}

/* upstream msm's stream: found without being named, one record per period,
 * deltas that are the device's counts for the records between two
 * snapshots, TIME from the records' 19.2 MHz timestamps. */
static void test_msm_stream(void **unused)
{
	(void)unused;
	struct vadreno_config c = {.chip_id = 0x06050002, .msm = true, .frames_per_read = 1};
	struct rig r;
	assert_int_equal(rig_open_msm(&r, &c, ""), GPA_STATUS_OK);
	assert_string_equal(r.info.description, "Adreno 650");
	assert_true(strstr(r.last, "msm counter stream") != NULL);
	double v = 0;
	assert_int_equal(OPS.constant(r.state, "AdrenoMaxFreqHz", &v), GPA_STATUS_OK);
	assert_true(v == 587e6);
	uint32_t ids[4] = {bind(&r, "CP:0"), bind(&r, "SP:0"), bind(&r, "TP:7"),
	                   bind(&r, "TIME:ns")};
	/* No VBIF on the stream; SP has 23 counters, not 24, for a pass. */
	uint32_t id;
	const char *why = NULL;
	assert_int_equal(OPS.bind_raw(r.state, "x", "VBIF:0", &id, &why), GPA_STATUS_ERROR_NOT_FOUND);
	assert_non_null(why);
	uint32_t sp[24];
	for (uint32_t i = 0; i < 24; i++)
		sp[i] = bind(&r, "SP:0") - 0 + i;
	assert_true(OPS.fits(r.state, sp, 23));
	assert_false(OPS.fits(r.state, sp, 24));
	assert_int_equal(OPS.begin_pass(r.state, ids, 4), GPA_STATUS_OK);
	uint64_t d[4];
	for (int round = 0; round < 3; round++) {
		assert_int_equal(OPS.begin_sample(r.state), GPA_STATUS_OK);
		struct timespec ts = {0, 5000000};
		nanosleep(&ts, NULL);
		assert_int_equal(OPS.end_sample(r.state, d), GPA_STATUS_OK);
		uint64_t frames = d[0] / vadreno_rate(r.vd, 0x00, 0);
		assert_true(frames >= 1);
		assert_int_equal(d[0], frames * vadreno_rate(r.vd, 0x00, 0));
		assert_int_equal(d[1], frames * vadreno_rate(r.vd, 0x0A, 0));
		assert_int_equal(d[2], frames * vadreno_rate(r.vd, 0x09, 7));
		/* the records' own time (a preempted sampler catches up, so no
		 * bound per record on this loaded machine) */
		assert_true(d[3] > 0 && d[3] < 10000000000ull);
	}
	assert_true(vadreno_stream_records(r.vd) >= 3);
	assert_int_equal(OPS.end_pass(r.state), GPA_STATUS_OK);
	assert_int_equal(r.errors, 0);
	rig_done(&r);
}

static void test_msm_faults(void **unused)
{
	(void)unused;
	struct rig r;
	uint32_t ids[2];
	/* No CAP_PERFMON: EPERM, named. */
	struct vadreno_config c = {.chip_id = 0x06050002, .msm = true, .msm_no_perfmon = true};
	assert_int_equal(rig_open_msm(&r, &c, "interface=msm"), GPA_STATUS_OK);
	ids[0] = bind(&r, "SP:1");
	assert_int_equal(OPS.begin_pass(r.state, ids, 1), GPA_STATUS_ERROR_FAILED);
	assert_true(strstr(r.last, "CAP_PERFMON") != NULL);
	rig_done(&r);
	/* A kernel before the stream. */
	c = (struct vadreno_config){.chip_id = 0x43050a01, .msm = true, .msm_no_stream = true};
	assert_int_equal(rig_open_msm(&r, &c, ""), GPA_STATUS_OK);
	ids[0] = bind(&r, "SP:1");
	assert_int_equal(OPS.begin_pass(r.state, ids, 1), GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED);
	assert_true(strstr(r.last, "no counter stream") != NULL);
	assert_true(strstr(r.last, "/dev/mem") != NULL);
	rig_done(&r);
	/* The GPU's own streams hold counters: E2BIG, the free count named. */
	c = (struct vadreno_config){.chip_id = 0x06050002, .msm = true, .msm_busy_counters = 3};
	assert_int_equal(rig_open_msm(&r, &c, ""), GPA_STATUS_OK);
	uint32_t tsei[4] = {bind(&r, "TSE:0"), bind(&r, "TSE:1"), bind(&r, "TSE:2")};
	assert_int_equal(OPS.begin_pass(r.state, tsei, 3), GPA_STATUS_ERROR_FAILED);
	assert_true(strstr(r.last, "E2BIG") != NULL && strstr(r.last, "TSE has 1 counter") != NULL);
	rig_done(&r);
	/* One global stream: a second context gets EBUSY. */
	c = (struct vadreno_config){.chip_id = 0x06050002, .msm = true};
	assert_int_equal(rig_open_msm(&r, &c, ""), GPA_STATUS_OK);
	ids[0] = bind(&r, "SP:1");
	assert_int_equal(OPS.begin_pass(r.state, ids, 1), GPA_STATUS_OK);
	struct og_device_info info2;
	void *second = NULL;
	assert_int_equal(OPS.open(&r.host, "interface=msm", &second, &info2), GPA_STATUS_OK);
	assert_int_equal(OPS.begin_pass(second, ids, 1), GPA_STATUS_ERROR_FAILED);
	assert_true(strstr(r.last, "EBUSY") != NULL);
	OPS.close(second);
	assert_int_equal(OPS.end_pass(r.state), GPA_STATUS_OK);
	rig_done(&r);
	/* a5xx: the stream serves a6xx and later; KGSL absent, msm named. */
	c = (struct vadreno_config){.chip_id = 0x05030002, .msm = true};
	assert_int_equal(rig_open_msm(&r, &c, "interface=msm"), GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED);
	assert_true(strstr(r.last, "a6xx and later") != NULL);
	r.state = NULL;
	rig_done(&r);
	/* interface=kgsl on an msm kernel: no KGSL node, told where to look. */
	c = (struct vadreno_config){.chip_id = 0x06050002, .msm = true};
	assert_int_equal(rig_open_msm(&r, &c, "interface=kgsl"), GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED);
	assert_true(strstr(r.last, "interface=msm") != NULL);
	r.state = NULL;
	rig_done(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_identify),
		cmocka_unit_test(test_every_raw),
		cmocka_unit_test(test_deltas_and_time),
		cmocka_unit_test(test_kernel_shared_and_busy),
		cmocka_unit_test(test_fits_limits),
		cmocka_unit_test(test_faults),
		cmocka_unit_test(test_msm_stream),
		cmocka_unit_test(test_msm_faults),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
