/* SPDX-License-Identifier: MIT */
/* test_backend.c — the mips backend's ops against the virtual 34K. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"
#include "mips/events.h"

extern const struct og_backend_ops og_backend_mips;
#define OPS og_backend_mips

static GPA_Status try_open(struct harness *h, const char *options, void **state)
{
	struct og_device_info info;
	*state = NULL;
	return OPS.open(&h->host, options, state, &info);
}

static uint32_t bind(void *state, const char *source)
{
	uint32_t id = 0;
	const char *why = NULL;
	assert_int_equal(OPS.bind_raw(state, "X", source, &id, &why), GPA_STATUS_OK);
	return id;
}

/* ---- finding the file ---------------------------------------------------- */

static void test_open_prefers_proc_perf(void **unused)
{
	struct harness h;
	harness_init(&h, NULL);
	void *s;
	struct og_device_info info;
	assert_int_equal(OPS.open(&h.host, "", &s, &info), GPA_STATUS_OK);
	assert_non_null(strstr(info.description, "/proc/perf"));
	assert_non_null(strstr(info.description, "34Kc")); /* cpu model from /proc/cpuinfo */
	assert_int_equal(h.errors, 0);
	OPS.close(s);
	harness_fini(&h);
}

static void test_open_falls_back_to_proc_mips_perf(void **unused)
{
	struct v34k_config cfg = {.proc_mips_perf = true, .bogomips = 32};
	struct harness h;
	harness_init(&h, &cfg);
	void *s;
	struct og_device_info info;
	assert_int_equal(OPS.open(&h.host, NULL, &s, &info), GPA_STATUS_OK);
	assert_non_null(strstr(info.description, "/proc/mips/perf"));
	double mhz = 0;
	assert_int_equal(OPS.constant(s, "ClockMHz", &mhz), GPA_STATUS_OK);
	assert_true(mhz == 32.0); /* BogoMIPS */
	assert_int_equal(OPS.constant(s, "NoSuchConstant", &mhz), GPA_STATUS_ERROR_NOT_FOUND);
	OPS.close(s);
	harness_fini(&h);
}

static void test_open_path_option(void **unused)
{
	struct harness h;
	harness_init(&h, NULL);
	void *s;
	struct og_device_info info;
	if (OPS.open(&h.host, "path=/proc/mips/perf", &s, &info) != GPA_STATUS_OK)
		fail_msg("%s", h.last);
	assert_non_null(strstr(info.description, "/proc/mips/perf"));
	OPS.close(s);
	GPA_Status st = try_open(&h, "path=/sys/nowhere", &s);
	if (st != GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED)
		fail_msg("status %d: %s", st, h.last);
	assert_int_equal(h.errors, 1);
	assert_non_null(strstr(h.last, "/sys/nowhere"));
	assert_null(s);
	harness_fini(&h);
}

static void test_open_missing_names_both_paths(void **unused)
{
	struct v34k_config cfg = {0};
	struct harness h;
	harness_init(&h, &cfg);
	void *s;
	assert_int_equal(try_open(&h, "", &s), GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED);
	assert_int_equal(h.errors, 1);
	assert_non_null(strstr(h.last, "/proc/perf"));
	assert_non_null(strstr(h.last, "/proc/mips/perf"));
	assert_non_null(strstr(h.last, "CONFIG_PERFCTRS"));
	harness_fini(&h);
}

static void test_permission_denied(void **unused)
{
	struct v34k_config cfg = {.proc_perf = true, .read_only = true, .bogomips = 500};
	struct harness h;
	harness_init(&h, &cfg);
	void *s;
	assert_int_equal(try_open(&h, "", &s), GPA_STATUS_ERROR_FAILED);
	assert_int_equal(h.errors, 1);
	assert_non_null(strstr(h.last, "root"));
	assert_non_null(strstr(h.last, "Permission denied"));
	assert_int_equal(v34k_writes(h.dev), 0);
	harness_fini(&h);
}

static void test_permission_lost_after_open(void **unused)
{
	struct harness h;
	harness_init(&h, NULL);
	void *s = harness_open(&h, "");
	uint32_t id = bind(s, "any:0");
	v34k_set_read_only(h.dev, true);
	assert_int_equal(OPS.begin_pass(s, &id, 1), GPA_STATUS_ERROR_FAILED);
	assert_int_equal(h.errors, 1);
	assert_non_null(strstr(h.last, "root"));
	OPS.close(s); /* nothing was written, so nothing to put back */
	harness_fini(&h);
}

static void test_bad_options(void **unused)
{
	static const char *const bad[] = {
		"color=red", "modes=q", "modes=", "modes=u+", "tc=9", "tc=x", "vpe=2", "tc=1,vpe=0",
		"clock_mhz=fast", "clock_mhz=0", "clock_mhz=nan", "width=48", "ie=2", "path=",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct harness h;
		harness_init(&h, NULL);
		void *s;
		assert_int_equal(try_open(&h, bad[i], &s), GPA_STATUS_ERROR_FAILED);
		if (h.errors != 1)
			fail_msg("%s: %u error lines", bad[i], h.errors);
		harness_fini(&h);
	}
}

/* ---- binding ------------------------------------------------------------- */

static void test_bind_raw(void **unused)
{
	struct harness h;
	harness_init(&h, NULL);
	void *s = harness_open(&h, "");
	uint32_t id;
	const char *why = NULL;
	assert_int_equal(OPS.bind_raw(s, "A", "even:2", &id, &why), GPA_STATUS_OK);
	assert_int_equal(id, og_mips_raw_id(OG_MIPS_EVEN, 2));
	assert_int_equal(OPS.bind_raw(s, "B", "odd:23", &id, &why), GPA_STATUS_ERROR_NOT_FOUND);
	assert_non_null(why);
	assert_int_equal(OPS.bind_raw(s, "C", "even:27", &id, &why), GPA_STATUS_ERROR_NOT_FOUND);
	assert_int_equal(OPS.bind_raw(s, "D", "even:0", &id, &why), GPA_STATUS_OK); /* pinned */
	assert_int_equal(h.errors, 0);
	static const char *const malformed[] = {"any:2", "even:", "odd:128", "even:1x", "ev:1",
	                                        "", "even:-1", "odd:0000"};
	for (size_t i = 0; i < sizeof malformed / sizeof malformed[0]; i++) {
		harness_clear_log(&h);
		GPA_Status st = OPS.bind_raw(s, "E", malformed[i], &id, &why);
		if (st == GPA_STATUS_OK || st == GPA_STATUS_ERROR_NOT_FOUND)
			fail_msg("source \"%s\" accepted", malformed[i]);
		assert_int_equal(h.errors, 1);
	}
	OPS.close(s);
	harness_fini(&h);
}

static void test_fits(void **unused)
{
	struct harness h;
	harness_init(&h, NULL);
	void *s = harness_open(&h, "");
	uint32_t e1 = bind(s, "even:2"), e2 = bind(s, "even:9"), e3 = bind(s, "even:10");
	uint32_t o1 = bind(s, "odd:2"), o2 = bind(s, "odd:9"), o3 = bind(s, "odd:10");
	uint32_t a1 = bind(s, "any:0"), a2 = bind(s, "any:1");
	assert_true(OPS.fits(s, (uint32_t[]){e1, e2, o1, o2}, 4));
	assert_false(OPS.fits(s, (uint32_t[]){e1, e2, e3}, 3));
	assert_false(OPS.fits(s, (uint32_t[]){o1, o2, o3}, 3));
	assert_true(OPS.fits(s, (uint32_t[]){a1, a2, e1, e2}, 4));
	assert_true(OPS.fits(s, (uint32_t[]){a1, e1, o1, a2}, 4));
	assert_false(OPS.fits(s, (uint32_t[]){a1, a2, e1, e2, o1}, 5));
	assert_true(OPS.fits(s, NULL, 0));
	assert_false(OPS.fits(s, (uint32_t[]){0x7f}, 1)); /* never bound */
	OPS.close(s);
	harness_fini(&h);
}

/* ---- counting -------------------------------------------------------------- */

static void test_counts_follow_the_model(void **unused)
{
	struct harness h;
	harness_init(&h, NULL);
	void *s = harness_open(&h, "modes=u");
	uint32_t ids[4] = {bind(s, "even:9"), bind(s, "odd:9"), bind(s, "any:0"), bind(s, "any:1")};
	assert_int_equal(OPS.begin_pass(s, ids, 4), GPA_STATUS_OK);
	/* Counters 0/2 have even events; IE and U set, K/S/EXL clear. */
	for (unsigned c = 0; c < 4; c++) {
		uint32_t ctl = v34k_ctl(h.dev, c);
		assert_int_equal(ctl & 0x1f, 0x18);
		unsigned event = (ctl >> 5) & 0x7f;
		if (event == 9 || event == 0 || event == 1)
			continue;
		fail_msg("counter %u has event %u", c, event);
	}
	for (int round = 0; round < 3; round++) {
		assert_int_equal(OPS.begin_sample(s), GPA_STATUS_OK);
		v34k_run(h.dev, 1000000, V34K_USER, 0, 0);
		v34k_run(h.dev, 500000, V34K_KERNEL, 0, 0); /* not counted: modes=u */
		uint64_t d[4];
		assert_int_equal(OPS.end_sample(s, d), GPA_STATUS_OK);
		assert_int_equal(d[0], v34k_model_count(1000000, 0, 9));
		assert_int_equal(d[1], v34k_model_count(1000000, 1, 9));
		assert_int_equal(d[2], 1000000);
		assert_int_equal(d[3], v34k_model_count(1000000, 0, 1));
		assert_true(d[1] <= d[0] && d[3] <= d[2]);
	}
	assert_int_equal(OPS.end_pass(s), GPA_STATUS_OK);
	assert_int_equal(h.errors, 0);
	OPS.close(s);
	harness_fini(&h);
}

static void test_modes_and_scope(void **unused)
{
	struct harness h;
	harness_init(&h, NULL);
	void *s = harness_open(&h, "modes=k+exl,tc=3");
	uint32_t ids[2] = {bind(s, "any:0"), bind(s, "any:1")};
	assert_int_equal(OPS.begin_pass(s, ids, 2), GPA_STATUS_OK);
	assert_int_equal(OPS.begin_sample(s), GPA_STATUS_OK);
	v34k_run(h.dev, 1000, V34K_USER, 0, 3);   /* wrong mode */
	v34k_run(h.dev, 2000, V34K_KERNEL, 0, 1); /* wrong TC: only cycles (core-wide) count */
	v34k_run(h.dev, 4000, V34K_EXL, 1, 3);    /* counted */
	uint64_t d[2];
	assert_int_equal(OPS.end_sample(s, d), GPA_STATUS_OK);
	assert_int_equal(d[0], 6000);
	assert_int_equal(d[1], v34k_model_count(4000, 0, 1));
	/* Instructions (per TC) carry MT_EN=2 and TCID 3; cycles (per core) none. */
	for (unsigned c = 0; c < 4; c++) {
		uint32_t ctl = v34k_ctl(h.dev, c);
		if (((ctl >> 5) & 0x7f) == 1 && (ctl & 0xf))
			assert_int_equal(ctl & 0x3ff00000u, (3u << 22) | (2u << 20));
		if (((ctl >> 5) & 0x7f) == 0 && (ctl & 0xf))
			assert_int_equal(ctl & 0x3ff00000u, 0);
	}
	OPS.end_pass(s);
	OPS.close(s);
	harness_fini(&h);
}

/* ---- 32-bit counters ----------------------------------------------------------- */

static void test_wrap_is_undone_modulo_2_32(void **unused)
{
	struct harness h;
	harness_init(&h, NULL);
	void *s = harness_open(&h, "clock_mhz=1");
	uint32_t id = bind(s, "any:0");
	assert_int_equal(OPS.begin_pass(s, &id, 1), GPA_STATUS_OK);
	int c = -1;
	for (unsigned k = 0; k < 4; k++)
		if (v34k_ctl(h.dev, k) & 0xf)
			c = (int)k;
	assert_true(c >= 0);
	v34k_set_hw(h.dev, (unsigned)c, 0xffffff00u);
	assert_int_equal(OPS.begin_sample(s), GPA_STATUS_OK);
	v34k_run(h.dev, 1000, V34K_USER, 0, 0);
	assert_true(v34k_count(h.dev, (unsigned)c) < 0xffffff00u); /* it wrapped */
	uint64_t d;
	assert_int_equal(OPS.end_sample(s, &d), GPA_STATUS_OK);
	assert_int_equal(d, 1000);
	assert_int_equal(h.messages, 0); /* 1 MHz: no second wrap possible in a test */
	OPS.close(s);
	harness_fini(&h);
}

static void test_long_sample_warns(void **unused)
{
	struct harness h;
	harness_init(&h, NULL);
	/* 10^12 MHz makes 2^32 cycles last 4.3 ns: any real sample is longer. */
	void *s = harness_open(&h, "clock_mhz=1000000000000");
	uint32_t id = bind(s, "any:0");
	assert_int_equal(OPS.begin_pass(s, &id, 1), GPA_STATUS_OK);
	assert_int_equal(OPS.begin_sample(s), GPA_STATUS_OK);
	v34k_run(h.dev, 5000000000ull, V34K_USER, 0, 0);
	uint64_t d;
	assert_int_equal(OPS.end_sample(s, &d), GPA_STATUS_OK);
	assert_int_equal(d, 5000000000ull - 4294967296ull); /* one wrap undone, the rest lost */
	assert_int_equal(h.messages, 1);
	assert_non_null(strstr(h.last, "wrapped more than once"));
	OPS.close(s);
	harness_fini(&h);
}

static void test_extension_gives_exact_64bit_deltas(void **unused)
{
	struct v34k_config cfg = {.proc_perf = true, .extension = true, .bogomips = 500};
	struct harness h;
	harness_init(&h, &cfg);
	void *s = harness_open(&h, "clock_mhz=1000000000000");
	uint32_t id = bind(s, "any:0");
	assert_int_equal(OPS.begin_pass(s, &id, 1), GPA_STATUS_OK);
	assert_int_equal(OPS.begin_sample(s), GPA_STATUS_OK);
	v34k_run(h.dev, 5000000000ull, V34K_USER, 0, 0);
	uint64_t d;
	assert_int_equal(OPS.end_sample(s, &d), GPA_STATUS_OK);
	assert_int_equal(d, 5000000000ull);
	assert_int_equal(h.messages, 0); /* the counts proved 64-bit: no warning */
	OPS.close(s);
	harness_fini(&h);
}

static void test_width64_backwards_is_zero(void **unused)
{
	struct harness h;
	harness_init(&h, NULL);
	void *s = harness_open(&h, "width=64");
	uint32_t id = bind(s, "any:0");
	assert_int_equal(OPS.begin_pass(s, &id, 1), GPA_STATUS_OK);
	for (unsigned c = 0; c < 4; c++)
		v34k_set_hw(h.dev, c, 5000);
	assert_int_equal(OPS.begin_sample(s), GPA_STATUS_OK);
	for (unsigned c = 0; c < 4; c++)
		v34k_set_hw(h.dev, c, 10);
	uint64_t d = 99;
	assert_int_equal(OPS.end_sample(s, &d), GPA_STATUS_OK);
	assert_int_equal(d, 0);
	OPS.close(s);
	harness_fini(&h);
}

/* ---- the kernel as an adversary ----------------------------------------------- */

static const char *const malformed_texts[] = {
	"",
	"PerfCnt[0].Ctl : 0x80000528\n",
	"PerfCnt[0].Ctl : 0x80000528\nPerfCnt[0].Cnt :\n",
	"garbage\n",
	"\x01\x02\x03\xff",
	"PerfCnt[0].Ctl : 0x80000528\nPerfCnt[0].Cnt : 1\nPerfCnt[1].Ctl : 0x1\n"
	"PerfCnt[1].Cnt : 2\nPerfCnt[2].Ctl : 0x1\nPerfCnt[2].Cnt : 3\nPerfCnt[3].Ctl : 0x1\n",
	"PerfCnt[0].Ctl : 0x1\nPerfCnt[0].Cnt : 1\nPerfCnt[1].Ctl : 0x1\nPerfCnt[1].Cnt : 2\n"
	"PerfCnt[2].Ctl : 0x1\nPerfCnt[2].Cnt : 3\nPerfCnt[3].Ctl : 0x1\nPerfCnt[3].Cnt : 4x\n",
	"PerfCnt[0].Ctl : 0x1\nPerfCnt[0].Cnt : 1\nPerfCnt[1].Ctl : 0x1\nPerfCnt[1].Cnt : 2\n"
	"PerfCnt[2].Ctl : 0x1\nPerfCnt[2].Cnt : 3\nPerfCnt[9].Ctl : 0x1\nPerfCnt[3].Cnt : 4\n",
	"PerfCnt[0].Ctl : 0x1\nPerfCnt[0].Cnt : 99999999999999999999999\n",
	"PerfCnt[0].Ctl : 0x123456789\n",
	"PerfCnt[0].Ctl : 0x1\nPerfCnt[0].Ctl : 0x1\n",
};

static void test_malformed_text_at_open(void **unused)
{
	for (size_t i = 0; i < sizeof malformed_texts / sizeof malformed_texts[0]; i++) {
		struct harness h;
		harness_init(&h, NULL);
		v34k_set_text(h.dev, malformed_texts[i]);
		void *s;
		assert_int_equal(try_open(&h, "", &s), GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED);
		if (h.errors != 1 || !strstr(h.last, "/proc/perf"))
			fail_msg("text %zu: %u errors, last \"%s\"", i, h.errors, h.last);
		harness_fini(&h);
	}
}

static void test_malformed_text_mid_sample(void **unused)
{
	for (size_t i = 0; i < sizeof malformed_texts / sizeof malformed_texts[0]; i++) {
		struct harness h;
		harness_init(&h, NULL);
		void *s = harness_open(&h, "");
		uint32_t id = bind(s, "any:1");
		assert_int_equal(OPS.begin_pass(s, &id, 1), GPA_STATUS_OK);
		assert_int_equal(OPS.begin_sample(s), GPA_STATUS_OK);
		v34k_set_text(h.dev, malformed_texts[i]);
		uint64_t d;
		assert_int_not_equal(OPS.end_sample(s, &d), GPA_STATUS_OK);
		assert_int_equal(h.errors, 1);
		/* The pass goes on once the file is sane again. */
		v34k_set_text(h.dev, NULL);
		harness_clear_log(&h);
		assert_int_equal(OPS.begin_sample(s), GPA_STATUS_OK);
		assert_int_equal(OPS.end_sample(s, &d), GPA_STATUS_OK);
		assert_int_equal(OPS.end_pass(s), GPA_STATUS_OK);
		OPS.close(s);
		harness_fini(&h);
	}
}

static void test_reprogrammed_by_someone_else(void **unused)
{
	struct harness h;
	harness_init(&h, NULL);
	void *s = harness_open(&h, "");
	uint32_t id = bind(s, "even:9");
	assert_int_equal(OPS.begin_pass(s, &id, 1), GPA_STATUS_OK);
	assert_int_equal(OPS.begin_sample(s), GPA_STATUS_OK);
	for (unsigned c = 0; c < 4; c += 2)
		if (v34k_ctl(h.dev, c) & 0xf)
			v34k_set_ctl(h.dev, c, 0x28); /* pc_sweep counting instructions */
	uint64_t d;
	assert_int_equal(OPS.end_sample(s, &d), GPA_STATUS_ERROR_READING_COUNTER_RESULT);
	assert_int_equal(h.errors, 1);
	assert_non_null(strstr(h.last, "another program"));
	OPS.close(s);
	harness_fini(&h);
}

static void test_close_restores_previous_controls(void **unused)
{
	struct harness h;
	harness_init(&h, NULL);
	const uint32_t before[4] = {0x528, 0x5a8, 0x5a8, 0x5c8}; /* MD00548 Figure 3 */
	for (unsigned c = 0; c < 4; c++) {
		v34k_set_ctl(h.dev, c, before[c]);
		v34k_set_hw(h.dev, c, 1000 + c);
	}
	void *s = harness_open(&h, "modes=u+s+k+exl");
	uint32_t ids[3] = {bind(s, "even:18"), bind(s, "odd:18"), bind(s, "any:0")};
	assert_int_equal(OPS.begin_pass(s, ids, 3), GPA_STATUS_OK);
	assert_int_equal(OPS.begin_sample(s), GPA_STATUS_OK);
	v34k_run(h.dev, 100, V34K_USER, 0, 0);
	uint64_t d[3];
	assert_int_equal(OPS.end_sample(s, d), GPA_STATUS_OK);
	assert_int_equal(OPS.end_pass(s), GPA_STATUS_OK);
	OPS.close(s);
	for (unsigned c = 0; c < 4; c++) {
		assert_int_equal(v34k_ctl(h.dev, c) & 0x3fffffffu, before[c]);
		assert_int_equal(v34k_count(h.dev, c), 1000 + c);
	}
	assert_int_equal(h.errors, 0);
	harness_fini(&h);
}

static void test_pass_misuse(void **unused)
{
	struct harness h;
	harness_init(&h, NULL);
	void *s = harness_open(&h, "");
	uint32_t ids[3] = {bind(s, "even:2"), bind(s, "even:9"), bind(s, "even:10")};
	assert_int_not_equal(OPS.begin_pass(s, ids, 3), GPA_STATUS_OK); /* three evens */
	assert_int_equal(h.errors, 1);
	uint64_t d;
	assert_int_not_equal(OPS.begin_sample(s), GPA_STATUS_OK);
	assert_int_not_equal(OPS.end_sample(s, &d), GPA_STATUS_OK);
	assert_int_not_equal(OPS.end_pass(s), GPA_STATUS_OK);
	OPS.close(s);
	harness_fini(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_prefers_proc_perf),
		cmocka_unit_test(test_open_falls_back_to_proc_mips_perf),
		cmocka_unit_test(test_open_path_option),
		cmocka_unit_test(test_open_missing_names_both_paths),
		cmocka_unit_test(test_permission_denied),
		cmocka_unit_test(test_permission_lost_after_open),
		cmocka_unit_test(test_bad_options),
		cmocka_unit_test(test_bind_raw),
		cmocka_unit_test(test_fits),
		cmocka_unit_test(test_counts_follow_the_model),
		cmocka_unit_test(test_modes_and_scope),
		cmocka_unit_test(test_wrap_is_undone_modulo_2_32),
		cmocka_unit_test(test_long_sample_warns),
		cmocka_unit_test(test_extension_gives_exact_64bit_deltas),
		cmocka_unit_test(test_width64_backwards_is_zero),
		cmocka_unit_test(test_malformed_text_at_open),
		cmocka_unit_test(test_malformed_text_mid_sample),
		cmocka_unit_test(test_reprogrammed_by_someone_else),
		cmocka_unit_test(test_close_restores_previous_controls),
		cmocka_unit_test(test_pass_misuse),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
