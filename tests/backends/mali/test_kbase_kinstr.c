/* SPDX-License-Identifier: MIT */
/*
 * test_kbase_kinstr.c — the mali (kbase) backend's kinstr_prfcnt reader and
 * its choice of interface, on the virtual Mali (whose kinstr_prfcnt was
 * written independently, from the reference): every counter of every block
 * exact on job-manager and CSF GPUs with 64 and 128 values per block, dense
 * and sparse core masks, the early drivers' core numbering, the firmware and
 * command-stream-group blocks, and every fault of issue #10 item 8, each
 * failing only what it hits with a line that says what happened.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "backend.h"
#include "vmali.h"
#include "vmali_testlib.h"

extern const struct og_backend_ops og_backend_mali;

static struct vmali_config gpu(uint32_t id, bool csf, uint16_t major, uint16_t minor,
                               uint64_t mask, uint32_t slices)
{
	struct vmali_config c = tl_g71(mask, slices);
	c.gpu_id = id;
	c.csf = csf;
	c.uk_major = major;
	c.uk_minor = minor;
	return c;
}

static GPA_Status rig_open(struct tl_rig *r, const struct vmali_config *cfg,
                           const struct vmali_faults *f, const char *opts)
{
	char o[128];
	snprintf(o, sizeof o, "timeout=50%s%s", opts ? "," : "", opts ? opts : "");
	return tl_rig_open(r, &og_backend_mali, cfg, f, o);
}

static void expect_log(const struct tl_rig *r, const char *needle)
{
	if (!strstr(r->log, needle))
		fail_msg("log lacks '%s': %s", needle, r->log);
}

/* ---- every counter, exact ---- */

static void test_g71_on_uk_11_40(void **unused)
{
	(void)unused;
	struct tl_rig r;
	struct vmali_config c = gpu(0x6000, false, 11, 40, 0xFF, 2);
	assert_int_equal(rig_open(&r, &c, NULL, NULL), GPA_STATUS_OK);
	assert_string_equal(r.info.description, "Mali-G71 MP8");
	expect_log(&r, "counters through kinstr_prfcnt (JM UK 11.40 has no vinstr reader, removed in");
	assert_int_equal(tl_rig_check_every_counter(&r, true, 3, 3), 4 * 60);
	assert_int_equal(r.errors, 0);
	tl_rig_done(&r);
}

/* Cores 0,1,3,4,6: the kernel lists present cores only. */
static void test_sparse_cores(void **unused)
{
	(void)unused;
	static const uint16_t minors[] = { 34, 36, 40, 41 }; /* early numbering, then dense */
	for (size_t i = 0; i < sizeof minors / sizeof minors[0]; i++) {
		struct tl_rig r;
		struct vmali_config c = gpu(0x7002, false, 11, minors[i], 0x5B, 1);
		assert_int_equal(rig_open(&r, &c, NULL, "interface=kinstr_prfcnt"), GPA_STATUS_OK);
		assert_string_equal(r.info.description, "Mali-G52 MP5");
		if (minors[i] < 37)
			expect_log(&r, "cores numbered by core-mask bit (early driver)");
		tl_rig_check_every_counter(&r, true, 2, 2);
		assert_int_equal(r.errors, 0);
		tl_rig_done(&r);
	}
}

/* Some CSF 1.18 kernels lack the fix: numbered by bit although the version
 * says dense.  The first sample tells, and the backend says so. */
static void test_late_driver_numbering_cores_by_bit(void **unused)
{
	(void)unused;
	struct tl_rig r;
	struct vmali_config c = gpu(0xa007, true, 1, 18, 0x2D, 1);
	struct vmali_faults f = { .cores_by_bit = true };
	assert_int_equal(rig_open(&r, &c, &f, "interface=kinstr_prfcnt"), GPA_STATUS_OK);
	tl_rig_check_every_counter(&r, true, 2, 3);
	expect_log(&r, "numbers shader cores by their bit");
	assert_int_equal(r.errors, 0);
	tl_rig_done(&r);
}

/* A CSF GPU: the CSHW front end, the firmware and command-stream-group
 * blocks, two clock domains. */
static void test_csf_g610(void **unused)
{
	(void)unused;
	struct tl_rig r;
	struct vmali_config c = gpu(0xa007, true, 1, 21, 0xF, 1);
	assert_int_equal(rig_open(&r, &c, NULL, NULL), GPA_STATUS_OK);
	assert_string_equal(r.info.description, "Mali-G610 MC4");
	assert_string_equal(r.info.counter_sets[0], "mali-g710");
	expect_log(&r, "CSF UK 1.21 (firmware interface 0x00030000)");
	expect_log(&r, "FE x1 TILER x1 L2 x1 SC x4 FW x1 CSG x2 of 64 values, 2 clock domain(s)");
	tl_rig_check_every_counter(&r, true, 2, 2);

	/* Top and shader-core cycles from the sample's clock item. */
	uint32_t ids[2];
	const char *why;
	uint64_t d[2];
	assert_int_equal(og_backend_mali.bind_raw(r.state, "t", "CYCLES:top", &ids[0], &why), 0);
	assert_int_equal(og_backend_mali.bind_raw(r.state, "s", "CYCLES:shader", &ids[1], &why), 0);
	assert_int_equal(og_backend_mali.begin_pass(r.state, ids, 2), GPA_STATUS_OK);
	assert_int_equal(og_backend_mali.begin_sample(r.state), GPA_STATUS_OK);
	uint64_t t0 = vmali_total_cycles(r.vm), s0 = vmali_total_sc_cycles(r.vm);
	vmali_run_frames(r.vm, 2);
	assert_int_equal(og_backend_mali.end_sample(r.state, d), GPA_STATUS_OK);
	assert_int_equal(d[0], vmali_total_cycles(r.vm) - t0);
	assert_int_equal(d[1], vmali_total_sc_cycles(r.vm) - s0);
	assert_true(d[1] > d[0]);
	assert_int_equal(og_backend_mali.end_pass(r.state), GPA_STATUS_OK);
	tl_rig_done(&r);
}

/* 128 values per block, 12 cores, 4 L2 slices. */
static void test_g720_mc12(void **unused)
{
	(void)unused;
	struct tl_rig r;
	struct vmali_config c = gpu(0xc000, true, 1, 21, 0xFFF, 4);
	assert_int_equal(rig_open(&r, &c, NULL, NULL), GPA_STATUS_OK);
	assert_string_equal(r.info.description, "Mali-G720 MC12");
	size_t n = tl_rig_check_every_counter(&r, true, 2, 2);
	assert_int_equal(n, 6 * 124);
	tl_rig_done(&r);
}

/* CSF below 1.21 still has vinstr, which hands out the first 64 of 128
 * values: kinstr_prfcnt is preferred; forced, vinstr offers what it can. */
static void test_128_values_on_vinstr(void **unused)
{
	(void)unused;
	struct tl_rig r;
	struct vmali_config c = gpu(0xb002, true, 1, 20, 0x3F, 2);
	assert_int_equal(rig_open(&r, &c, NULL, NULL), GPA_STATUS_OK);
	expect_log(&r, "kinstr_prfcnt (this GPU's blocks have 128 values and vinstr carries 64)");
	tl_rig_done(&r);
	assert_int_equal(rig_open(&r, &c, NULL, "interface=vinstr"), GPA_STATUS_OK);
	expect_log(&r, "vinstr carries the first 64");
	assert_int_equal(tl_rig_check_every_counter(&r, false, 2, 2), 4 * 60);
	tl_rig_done(&r);
	/* Before kinstr_prfcnt existed (CSF 1.9): vinstr, said so. */
	c.uk_minor = 9;
	assert_int_equal(rig_open(&r, &c, NULL, NULL), GPA_STATUS_OK);
	expect_log(&r, "has no kinstr_prfcnt, first in CSF UK 1.10");
	tl_rig_check_every_counter(&r, false, 1, 1);
	tl_rig_done(&r);
}

/* ---- the choice of interface ---- */

static void test_interface_choice(void **unused)
{
	(void)unused;
	static const struct {
		uint32_t id;
		bool csf;
		uint16_t minor;
		const char *opts, *want; /* "counters through X" or an error */
		GPA_Status st;
	} cases[] = {
		{ 0x6000, false, 31, NULL, "through vinstr (JM UK 11.31 predates kinstr_prfcnt, first in JM UK 11.34)", GPA_STATUS_OK },
		{ 0x6000, false, 35, NULL, "through vinstr (JM UK 11.35 still has vinstr, until JM UK 11.40",
		  GPA_STATUS_OK },
		{ 0x6000, false, 39, NULL, "through vinstr", GPA_STATUS_OK },
		{ 0x6000, false, 39, "interface=kinstr_prfcnt", "through kinstr_prfcnt (interface=",
		  GPA_STATUS_OK },
		{ 0x6000, false, 35, "interface=kinstr_prfcnt", "early release", GPA_STATUS_OK },
		{ 0x6000, false, 40, NULL, "through kinstr_prfcnt", GPA_STATUS_OK },
		{ 0x6000, false, 40, "interface=auto", "through kinstr_prfcnt", GPA_STATUS_OK },
		{ 0x6000, false, 40, "interface=vinstr", "JM UK 11.40 removed it",
		  GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED },
		{ 0x6000, false, 31, "interface=kinstr_prfcnt", "first in JM UK 11.34",
		  GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED },
		{ 0xa002, true, 10, NULL, "through vinstr", GPA_STATUS_OK },
		{ 0xa002, true, 21, NULL, "CSF UK 1.21 has no vinstr reader", GPA_STATUS_OK },
		{ 0xa002, true, 21, "interface=vinstr", "CSF UK 1.21 removed it",
		  GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED },
		{ 0xd000, true, 12, NULL, "through kinstr_prfcnt", GPA_STATUS_OK },
		{ 0xe000, true, 22, NULL, "Mali G1-Ultra MC8", GPA_STATUS_OK },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct tl_rig r;
		struct vmali_config c = gpu(cases[i].id, cases[i].csf, cases[i].csf ? 1 : 11,
		                            cases[i].minor, 0xFF, 1);
		GPA_Status st = rig_open(&r, &c, NULL, cases[i].opts);
		if (st != cases[i].st)
			fail_msg("case %zu: status %d, log %s", i, (int)st, r.log);
		expect_log(&r, cases[i].want);
		if (st == GPA_STATUS_OK)
			tl_rig_check_samples(&r, 1, 1);
		else
			assert_int_equal(r.errors, 1);
		tl_rig_done(&r);
	}
}

/* The version says one interface, the driver does not have it: the other
 * one if its version offers it, else a line saying what is needed. */
static void test_interface_absent(void **unused)
{
	(void)unused;
	struct tl_rig r;
	/* 128 values on CSF 1.12: kinstr_prfcnt first; ENOTTY -> vinstr. */
	struct vmali_config c = gpu(0xc000, true, 1, 12, 0xF, 1);
	struct vmali_faults f = { .kinstr_absent = true };
	assert_int_equal(rig_open(&r, &c, &f, NULL), GPA_STATUS_OK);
	expect_log(&r, "KINSTR_PRFCNT_ENUM_INFO on /dev/mali0: Inappropriate ioctl");
	expect_log(&r, "through vinstr (the driver refused kinstr_prfcnt");
	tl_rig_check_every_counter(&r, false, 1, 1);
	tl_rig_done(&r);
	/* Forced: no second try. */
	assert_int_equal(rig_open(&r, &c, &f, "interface=kinstr_prfcnt"),
	                 GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED);
	assert_int_equal(r.errors, 1);
	tl_rig_done(&r);
	/* JM 11.40 without kinstr_prfcnt: nothing left. */
	c = gpu(0x6000, false, 11, 40, 0xF, 1);
	assert_int_equal(rig_open(&r, &c, &f, NULL), GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED);
	assert_int_equal(r.errors, 1);
	if (!strstr(r.last_error, "kinstr_prfcnt (JM UK 11.34, CSF UK 1.10 or later)"))
		fail_msg("%s", r.last_error);
	tl_rig_done(&r);
	/* JM 11.37 without vinstr: kinstr_prfcnt. */
	c = gpu(0x6000, false, 11, 37, 0xF, 1);
	f = (struct vmali_faults){ .vinstr_absent = true };
	assert_int_equal(rig_open(&r, &c, &f, NULL), GPA_STATUS_OK);
	expect_log(&r, "through kinstr_prfcnt (the driver refused vinstr");
	tl_rig_check_every_counter(&r, true, 1, 1);
	tl_rig_done(&r);
}

/* ---- faults (issue #10 item 8) ---- */

/* Refused at open, one line naming the cause. */
static void test_open_faults(void **unused)
{
	(void)unused;
	static const struct {
		struct vmali_faults f;
		GPA_Status st;
		const char *needle;
	} cases[] = {
		{ { .enum_unknown_item = true }, GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED,
		  "unknown type 0x0003" },
		{ { .enum_item_size = 40 }, GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED,
		  "announces 8 items of 40 bytes" },
		{ { .setup_ebusy = true }, GPA_STATUS_ERROR_FAILED, "another profiler" },
		{ { .vanished = true }, GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED, "tried /dev/mali0" },
	};
	struct vmali_config c = gpu(0x6000, false, 11, 40, 0xFF, 1);
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct tl_rig r;
		assert_int_equal(rig_open(&r, &c, &cases[i].f, NULL), cases[i].st);
		assert_int_equal(r.errors, 1);
		if (!strstr(r.last_error, cases[i].needle))
			fail_msg("log '%s' lacks '%s'", r.last_error, cases[i].needle);
		tl_rig_done(&r);
	}
}

/* A newer kernel's block types (the neural engine) are skipped, not refused. */
static void test_unknown_block_type_skipped(void **unused)
{
	(void)unused;
	struct tl_rig r;
	struct vmali_config c = gpu(0xe000, true, 1, 22, 0xFF, 2);
	c.neural_engine = true;
	assert_int_equal(rig_open(&r, &c, NULL, NULL), GPA_STATUS_OK);
	tl_rig_check_every_counter(&r, true, 1, 1);
	tl_rig_done(&r);
}

/* One sample breaks a rule: that sample fails with a line saying which, the
 * next is exact again once the kernel behaves. */
static void test_sample_faults(void **unused)
{
	(void)unused;
	static const struct {
		struct vmali_faults f;
		const char *needle;
	} cases[] = {
		{ { .meta_unknown_item = true }, "unknown type 0x2005" },
		{ { .meta_bad_offset = true }, "run past the" },
		{ { .meta_foreign_block = true }, "which ENUM_INFO did not list" },
		{ { .sample_flags = 1u << 0 }, "OVERFLOW" },
		{ { .sample_flags = 1u << 30 }, "ERROR" },
		{ { .dumps_never_arrive = true }, "did not arrive within 50 ms" },
	};
	for (int csf = 0; csf <= 1; csf++)
		for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
			struct tl_rig r;
			struct vmali_config c = csf ? gpu(0xc000, true, 1, 21, 0x3F, 2)
			                            : gpu(0x6000, false, 11, 40, 0xFF, 2);
			assert_int_equal(rig_open(&r, &c, NULL, NULL), GPA_STATUS_OK);
			uint32_t id;
			const char *why;
			uint64_t d;
			assert_int_equal(og_backend_mali.bind_raw(r.state, "a", "FE:4", &id, &why), 0);
			assert_int_equal(og_backend_mali.begin_pass(r.state, &id, 1), GPA_STATUS_OK);
			assert_int_equal(og_backend_mali.begin_sample(r.state), GPA_STATUS_OK);
			vmali_set_faults(r.vm, &cases[i].f);
			vmali_run_frames(r.vm, 1);
			assert_int_equal(og_backend_mali.end_sample(r.state, &d),
			                 GPA_STATUS_ERROR_FAILED);
			if (!strstr(r.last_error, cases[i].needle))
				fail_msg("case %zu: log '%s' lacks '%s'", i, r.last_error,
				         cases[i].needle);
			assert_int_equal(r.errors, 1);
			vmali_set_faults(r.vm, &(struct vmali_faults){ 0 });
			/* A late answer to the lost request may now arrive: it is
			 * recognised by its tag and handed back. */
			assert_int_equal(og_backend_mali.begin_sample(r.state), GPA_STATUS_OK);
			uint64_t a0 = vmali_total(r.vm, VMALI_BLOCK_FE, VMALI_ALL, 4);
			vmali_run_frames(r.vm, 2);
			uint64_t a1 = vmali_total(r.vm, VMALI_BLOCK_FE, VMALI_ALL, 4);
			assert_int_equal(og_backend_mali.end_sample(r.state, &d), GPA_STATUS_OK);
			assert_true(a1 > a0);
			assert_int_equal(d, a1 - a0);
			assert_int_equal(og_backend_mali.end_pass(r.state), GPA_STATUS_OK);
			assert_int_equal(r.errors, 1);
			tl_rig_done(&r);
		}
}

static unsigned occurrences(const char *hay, const char *needle)
{
	unsigned n = 0;
	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

/* One manual sample of 2 frames of the pass's two counters (FE:4, a core's);
 * returns the sample's flags, *fe and *core the counts. */
static uint32_t state_sample(struct tl_rig *r, uint64_t *fe, uint64_t *core)
{
	uint64_t d[2];
	assert_int_equal(og_backend_mali.begin_sample(r->state), GPA_STATUS_OK);
	vmali_run_frames(r->vm, 2);
	assert_int_equal(og_backend_mali.end_sample(r->state, d), GPA_STATUS_OK);
	struct og_sample_time t;
	assert_true(og_backend_mali.sample_time(r->state, &t));
	*fe = d[0];
	*core = d[1];
	return t.flags;
}

/* Block states from JM 11.41 / CSF 1.23: a sample with cores powered off
 * is flagged BLOCKS_OFF and lacks exactly those cores' counts, one in
 * protected mode PROTECTED; each says so once per pass.  A driver just
 * before those versions reports no states, and nothing is flagged. */
static void test_block_states(void **unused)
{
	(void)unused;
	static const struct {
		uint32_t id;
		bool csf;
		uint16_t minor;
		uint64_t mask;
	} gpus[] = {
		{ 0x9002, false, 41, 0xFF }, /* G78 MP8, JM 11.41 */
		{ 0xc000, true, 23, 0x3F },  /* G720 MC6, CSF 1.23 */
		{ 0x9002, false, 40, 0xFF },
		{ 0xc000, true, 22, 0x3F },
	};
	for (size_t g = 0; g < sizeof gpus / sizeof gpus[0]; g++) {
		bool states = g < 2;
		struct tl_rig r;
		struct vmali_config c = gpu(gpus[g].id, gpus[g].csf, gpus[g].csf ? 1 : 11,
		                            gpus[g].minor, gpus[g].mask, 2);
		assert_int_equal(rig_open(&r, &c, NULL, "interface=kinstr_prfcnt"), GPA_STATUS_OK);
		/* A shader-core counter the workload counts on every core. */
		int sc = -1;
		uint64_t before[128];
		for (unsigned i = 4; i < 64; i++)
			before[i] = vmali_total(r.vm, VMALI_BLOCK_SC, 1, i);
		vmali_run_frames(r.vm, 1);
		for (unsigned i = 4; i < 64 && sc < 0; i++)
			if (vmali_total(r.vm, VMALI_BLOCK_SC, 1, i) > before[i])
				sc = (int)i;
		assert_true(sc >= 4);
		char src[16];
		snprintf(src, sizeof src, "SC:%d", sc);
		uint32_t ids[2];
		const char *why;
		assert_int_equal(og_backend_mali.bind_raw(r.state, "a", "FE:4", &ids[0], &why), 0);
		assert_int_equal(og_backend_mali.bind_raw(r.state, "b", src, &ids[1], &why), 0);
		for (int pass = 0; pass < 2; pass++) {
			assert_int_equal(og_backend_mali.begin_pass(r.state, ids, 2), GPA_STATUS_OK);
			uint64_t fe, core;
			uint64_t all0 = vmali_total(r.vm, VMALI_BLOCK_SC, VMALI_ALL, (unsigned)sc);
			uint32_t fl = state_sample(&r, &fe, &core);
			assert_int_equal(fl & (OG_SAMPLE_BLOCKS_OFF | OG_SAMPLE_PROTECTED), 0);
			assert_int_equal(core,
			                 vmali_total(r.vm, VMALI_BLOCK_SC, VMALI_ALL, (unsigned)sc) - all0);
			/* Cores 1 and 3 powered down for two samples. */
			vmali_set_faults(r.vm, &(struct vmali_faults){ .cores_powered_off = 0xA });
			for (int k = 0; k < 2; k++) {
				all0 = vmali_total(r.vm, VMALI_BLOCK_SC, VMALI_ALL, (unsigned)sc);
				uint64_t c1 = vmali_total(r.vm, VMALI_BLOCK_SC, 1, (unsigned)sc);
				uint64_t c3 = vmali_total(r.vm, VMALI_BLOCK_SC, 3, (unsigned)sc);
				fl = state_sample(&r, &fe, &core);
				uint64_t all = vmali_total(r.vm, VMALI_BLOCK_SC, VMALI_ALL, (unsigned)sc) - all0;
				uint64_t lost = vmali_total(r.vm, VMALI_BLOCK_SC, 1, (unsigned)sc) - c1 +
				                vmali_total(r.vm, VMALI_BLOCK_SC, 3, (unsigned)sc) - c3;
				assert_true(lost > 0);
				assert_int_equal(core, states ? all - lost : all);
				assert_int_equal(!!(fl & OG_SAMPLE_BLOCKS_OFF), states);
				assert_int_equal(fl & OG_SAMPLE_PROTECTED, 0);
				assert_true(fl & OG_SAMPLE_KERNEL_TIME);
			}
			/* Protected mode. */
			vmali_set_faults(r.vm, &(struct vmali_faults){ .protected_mode = true });
			fl = state_sample(&r, &fe, &core);
			assert_int_equal(!!(fl & OG_SAMPLE_PROTECTED), states);
			assert_int_equal(fl & OG_SAMPLE_BLOCKS_OFF, 0);
			vmali_set_faults(r.vm, &(struct vmali_faults){ 0 });
			fl = state_sample(&r, &fe, &core);
			assert_int_equal(fl & (OG_SAMPLE_BLOCKS_OFF | OG_SAMPLE_PROTECTED), 0);
			assert_int_equal(og_backend_mali.end_pass(r.state), GPA_STATUS_OK);
			/* Once per pass. */
			unsigned want = states ? (unsigned)pass + 1 : 0;
			assert_int_equal(occurrences(r.log, "powered off during a sample"), want);
			assert_int_equal(occurrences(r.log, "in protected mode during a sample"), want);
		}
		if (states)
			expect_log(&r, "2 counter blocks (2 of them shader cores) powered off");
		/* A broken state word: the sample is refused with the reason. */
		static const struct {
			uint32_t xor;
			const char *needle;
		} broken[] = {
			{ 1u << 6, "bits the kinstr_prfcnt UAPI does not define" },
			{ 1u << 1, "both halves of a pair" },                /* ON|OFF */
			{ 1u << 3, "both halves of a pair" },                /* AVAILABLE|UNAVAILABLE */
			{ 1u << 5, "both halves of a pair" },                /* NORMAL|PROTECTED */
		};
		for (size_t b = 0; states && b < sizeof broken / sizeof broken[0]; b++) {
			assert_int_equal(og_backend_mali.begin_pass(r.state, ids, 2), GPA_STATUS_OK);
			assert_int_equal(og_backend_mali.begin_sample(r.state), GPA_STATUS_OK);
			vmali_set_faults(r.vm, &(struct vmali_faults){ .block_state_xor = broken[b].xor });
			vmali_run_frames(r.vm, 1);
			uint64_t d[2];
			int errors = r.errors;
			assert_int_equal(og_backend_mali.end_sample(r.state, d), GPA_STATUS_ERROR_FAILED);
			assert_int_equal(r.errors, errors + 1);
			if (!strstr(r.last_error, broken[b].needle))
				fail_msg("xor 0x%x: '%s' lacks '%s'", broken[b].xor, r.last_error,
				         broken[b].needle);
			vmali_set_faults(r.vm, &(struct vmali_faults){ 0 });
			assert_int_equal(og_backend_mali.end_pass(r.state), GPA_STATUS_OK);
		}
		tl_rig_done(&r);
	}
}

/* A signal before every other ioctl: retried, nothing is lost. */
static void test_eintr(void **unused)
{
	(void)unused;
	struct tl_rig r;
	struct vmali_config c = gpu(0xa002, true, 1, 21, 0xFF, 2);
	struct vmali_faults f = { .eintr = true };
	assert_int_equal(rig_open(&r, &c, &f, NULL), GPA_STATUS_OK);
	tl_rig_check_every_counter(&r, true, 2, 3);
	assert_int_equal(r.errors, 0);
	tl_rig_done(&r);
}

/* The device goes away mid-session: that sample fails, the rest fail fast. */
static void test_device_vanishes(void **unused)
{
	(void)unused;
	struct tl_rig r;
	struct vmali_config c = gpu(0x6000, false, 11, 40, 0xFF, 2);
	assert_int_equal(rig_open(&r, &c, NULL, NULL), GPA_STATUS_OK);
	uint32_t id;
	const char *why;
	uint64_t d;
	assert_int_equal(og_backend_mali.bind_raw(r.state, "a", "SC:4", &id, &why), 0);
	assert_int_equal(og_backend_mali.begin_pass(r.state, &id, 1), GPA_STATUS_OK);
	assert_int_equal(og_backend_mali.begin_sample(r.state), GPA_STATUS_OK);
	vmali_set_faults(r.vm, &(struct vmali_faults){ .vanished = true });
	assert_int_equal(og_backend_mali.end_sample(r.state, &d), GPA_STATUS_ERROR_FAILED);
	assert_non_null(strstr(r.last_error, "went away"));
	assert_int_equal(og_backend_mali.begin_sample(r.state), GPA_STATUS_ERROR_FAILED);
	assert_non_null(strstr(r.last_error, "is gone"));
	og_backend_mali.end_pass(r.state);
	tl_rig_done(&r);
}

/* The counters the driver's counter set does not describe are refused. */
static void test_secondary_counter_set(void **unused)
{
	(void)unused;
	struct tl_rig r;
	struct vmali_config c = gpu(0xa002, true, 1, 21, 0xF, 1);
	c.counter_set = 1;
	assert_int_equal(rig_open(&r, &c, NULL, NULL), GPA_STATUS_OK);
	uint32_t id;
	const char *why = NULL;
	assert_int_equal(og_backend_mali.bind_raw(r.state, "a", "FE:4", &id, &why),
	                 GPA_STATUS_ERROR_NOT_FOUND);
	assert_non_null(strstr(why, "secondary or tertiary"));
	assert_int_equal(og_backend_mali.bind_raw(r.state, "t", "TIME:ns", &id, &why), 0);
	tl_rig_done(&r);
}

static uint64_t mono_raw_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC_RAW, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* TIME:ns is the sample's span by the kernel's clock. */
static void test_time(void **unused)
{
	(void)unused;
	struct tl_rig r;
	struct vmali_config c = gpu(0xa007, true, 1, 21, 0xF, 1);
	assert_int_equal(rig_open(&r, &c, NULL, NULL), GPA_STATUS_OK);
	uint32_t id;
	const char *why;
	uint64_t d;
	assert_int_equal(og_backend_mali.bind_raw(r.state, "t", "TIME:ns", &id, &why), 0);
	assert_int_equal(og_backend_mali.begin_pass(r.state, &id, 1), GPA_STATUS_OK);
	uint64_t t0 = mono_raw_ns();
	assert_int_equal(og_backend_mali.begin_sample(r.state), GPA_STATUS_OK);
	uint64_t t1 = mono_raw_ns();
	struct timespec nap = { 0, 2000000 };
	nanosleep(&nap, NULL);
	uint64_t t2 = mono_raw_ns();
	assert_int_equal(og_backend_mali.end_sample(r.state, &d), GPA_STATUS_OK);
	uint64_t t3 = mono_raw_ns();
	assert_true(d >= t2 - t1 && d <= t3 - t0);
	struct og_sample_time st;
	assert_true(og_backend_mali.sample_time(r.state, &st));
	assert_int_equal(st.flags, OG_SAMPLE_KERNEL_TIME);
	/* The same span on the CLOCK_MONOTONIC scale, to the conversion's µs. */
	uint64_t span = st.end_ns - st.begin_ns;
	assert_true(span + 20000 > d && span < d + 20000);
	assert_int_equal(og_backend_mali.end_pass(r.state), GPA_STATUS_OK);
	tl_rig_done(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_g71_on_uk_11_40),
		cmocka_unit_test(test_sparse_cores),
		cmocka_unit_test(test_late_driver_numbering_cores_by_bit),
		cmocka_unit_test(test_csf_g610),
		cmocka_unit_test(test_g720_mc12),
		cmocka_unit_test(test_128_values_on_vinstr),
		cmocka_unit_test(test_interface_choice),
		cmocka_unit_test(test_interface_absent),
		cmocka_unit_test(test_open_faults),
		cmocka_unit_test(test_unknown_block_type_skipped),
		cmocka_unit_test(test_sample_faults),
		cmocka_unit_test(test_eintr),
		cmocka_unit_test(test_device_vanishes),
		cmocka_unit_test(test_secondary_counter_set),
		cmocka_unit_test(test_time),
		cmocka_unit_test(test_block_states),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
