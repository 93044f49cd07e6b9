/* SPDX-License-Identifier: MIT */
/*
 * test_sample_books.c — a sample's books on the plain path (lib/core/
 * session.c, begin_quick and end_quick): a planned pass the backend
 * counts straight into the row, no API, periodic or deferred counts, the
 * next sample id of a row with room left.  Those samples take a path of
 * their own; these cases check that it keeps what the general path keeps:
 * a failed begin or end counts the sample and fails only it, the id stays
 * used, the next samples get their own counts in their own rows, the
 * books grow past their room and back onto the plain path, ids out of
 * line leave it for the hash index.  Every value is the fake backend's
 * (fake_value: a pure function of slot, ordinal and pass), every time is
 * checked to lie inside the calls that made it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <cmocka.h>

#include "fake_backend.h"
#include "opengpa.h"
#include "test_util.h"

#define OK(call) assert_int_equal((call), GPA_STATUS_OK)
#define STATUS1(call, want) \
	do { \
		assert_int_equal((call), (want)); \
		assert_int_equal(tu_log.errors, 1); \
		tu_log_clear(); \
	} while (0)

static int key;

static int setup(void **state)
{
	(void)state;
	tu_open(&key);
	return 0;
}

static uint64_t mono(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* A one-pass session of FC_C0 and FC_C1, the plain case. */
static gpa_uint32 begin_plain(void)
{
	OK(GPA_EnableCounter(FC_C0));
	OK(GPA_EnableCounter(FC_C1));
	assert_int_equal(tu_passes(), 1);
	gpa_uint32 s = 0;
	OK(GPA_BeginSession(&s));
	OK(GPA_BeginPass());
	return s;
}

/* Sample `id` read back: the fake's counts of end_sample `ordinal`. */
static void expect_counts(gpa_uint32 s, gpa_uint32 id, unsigned ordinal)
{
	gpa_uint64 v = 0;
	OK(GPA_GetSampleUInt64(s, id, FC_C0, &v));
	assert_int_equal(v, fake_value(0, ordinal, 0));
	OK(GPA_GetSampleUInt64(s, id, FC_C1, &v));
	assert_int_equal(v, fake_value(1, ordinal, 0));
}

static void expect_failed(gpa_uint32 s, gpa_uint32 id)
{
	gpa_uint64 v = 7;
	STATUS1(GPA_GetSampleUInt64(s, id, FC_C0, &v), GPA_STATUS_ERROR_READING_COUNTER_RESULT);
}

/* A plain sample: its times lie between the clock read around its calls. */
static void timed_sample(gpa_uint32 id, uint64_t around[2])
{
	around[0] = mono();
	OK(GPA_BeginSample(id));
	OK(GPA_EndSample());
	around[1] = mono();
}

static void expect_time(gpa_uint32 s, gpa_uint32 id, const uint64_t around[2])
{
	gpa_uint64 b = 0, e = 0;
	OK(OpenGPA_GetSampleTime(s, id, &b, &e));
	/* Within the clock's bound (sample_clock.h: 10 us) of the readings. */
	assert_true(b + 10000 >= around[0]);
	assert_true(b <= e);
	assert_true(e <= around[1] + 10000);
}

/* The backend's begin_sample fails for the second sample (the first
 * plain one), its end_sample for the fourth: each of those is counted and
 * failed, its id used; the samples after them have their own counts. */
static void test_plain_faults(void **state)
{
	(void)state;
	gpa_uint32 s = begin_plain();
	uint64_t t0[2], t2[2], t4[2];
	timed_sample(0, t0); /* the first sample takes the general path */
	fake_config.fail_begin_sample = true;
	STATUS1(GPA_BeginSample(1), GPA_STATUS_ERROR_FAILED);
	fake_config.fail_begin_sample = false;
	/* Nothing is left open by the failed begin, and its id is used. */
	STATUS1(GPA_EndSample(), GPA_STATUS_ERROR_SAMPLE_NOT_STARTED);
	STATUS1(GPA_BeginSample(1), GPA_STATUS_ERROR_SAMPLE_ALREADY_STARTED);
	timed_sample(2, t2); /* end_sample ordinal 1 */
	fake_config.fail_end_sample_pass = 0;
	fake_config.fail_end_sample_ordinal = 2;
	OK(GPA_BeginSample(3));
	STATUS1(GPA_EndSample(), GPA_STATUS_ERROR_FAILED);
	STATUS1(GPA_EndSample(), GPA_STATUS_ERROR_SAMPLE_NOT_STARTED);
	timed_sample(4, t4); /* ordinal 3 */
	OK(GPA_EndPass());
	OK(GPA_EndSession());
	TU_NO_ERROR();
	gpa_uint32 n = 0;
	OK(GPA_GetSampleCount(s, &n));
	assert_int_equal(n, 5);
	expect_counts(s, 0, 0);
	expect_failed(s, 1);
	expect_counts(s, 2, 1);
	expect_failed(s, 3);
	expect_counts(s, 4, 3);
	expect_time(s, 0, t0);
	expect_time(s, 2, t2);
	expect_time(s, 4, t4);
	/* The session's total sums the samples that counted, and only those. */
	gpa_uint64 total = 0;
	OK(GPA_GetSampleUInt64(s, OPENGPA_SAMPLES_TOTAL, FC_C0, &total));
	assert_int_equal(total, fake_value(0, 0, 0) + fake_value(0, 1, 0) + fake_value(0, 3, 0));
	TU_NO_ERROR();
}

/* 1000 samples: the books grow (16, 32, ... records) between plain
 * samples; every sample's counts are its own. */
static void test_plain_growth(void **state)
{
	(void)state;
	enum { N = 1000 };
	gpa_uint32 s = begin_plain();
	uint64_t first[2], last[2];
	for (gpa_uint32 id = 100; id < 100 + N; id++) {
		if (id == 100)
			timed_sample(id, first);
		else if (id == 100 + N - 1)
			timed_sample(id, last);
		else {
			OK(GPA_BeginSample(id));
			OK(GPA_EndSample());
		}
	}
	OK(GPA_EndPass());
	OK(GPA_EndSession());
	gpa_uint32 n = 0;
	OK(GPA_GetSampleCount(s, &n));
	assert_int_equal(n, N);
	for (unsigned k = 0; k < N; k++)
		expect_counts(s, 100 + k, k);
	expect_time(s, 100, first);
	expect_time(s, 100 + N - 1, last);
	TU_NO_ERROR();
}

/* Ids out of line: 0, 1, 2 in a row (plain), then 7 (the hash index is
 * built), 8 and 3: each found again, a used one refused. */
static void test_plain_then_out_of_line(void **state)
{
	(void)state;
	gpa_uint32 s = begin_plain();
	static const gpa_uint32 ids[] = { 0, 1, 2, 7, 8, 3 };
	for (unsigned k = 0; k < 6; k++) {
		OK(GPA_BeginSample(ids[k]));
		OK(GPA_EndSample());
	}
	STATUS1(GPA_BeginSample(2), GPA_STATUS_ERROR_SAMPLE_ALREADY_STARTED);
	STATUS1(GPA_BeginSample(8), GPA_STATUS_ERROR_SAMPLE_ALREADY_STARTED);
	OK(GPA_BeginSample(9));
	OK(GPA_EndSample());
	OK(GPA_EndPass());
	OK(GPA_EndSession());
	gpa_uint32 n = 0;
	OK(GPA_GetSampleCount(s, &n));
	assert_int_equal(n, 7);
	for (unsigned k = 0; k < 6; k++)
		expect_counts(s, ids[k], k);
	expect_counts(s, 9, 6);
	gpa_uint64 v;
	STATUS1(GPA_GetSampleUInt64(s, 4, FC_C0, &v), GPA_STATUS_ERROR_SAMPLE_NOT_FOUND);
	TU_NO_ERROR();
}

/* Two passes: pass 0's samples are new (plain), pass 1's are found again
 * and take the general path; both counts land in each sample's row. */
static void test_plain_two_passes(void **state)
{
	(void)state;
	for (gpa_uint32 c = FC_C0; c <= FC_C5; c++)
		OK(GPA_EnableCounter(c));
	unsigned passes = tu_passes();
	assert_true(passes >= 2);
	static const unsigned ids[] = { 5, 6, 7, 8 };
	gpa_uint32 s = tu_run_session(ids, 4);
	for (gpa_uint32 c = FC_C0; c <= FC_C5; c++) {
		unsigned p = tu_pass_of(c);
		for (unsigned k = 0; k < 4; k++) {
			gpa_uint64 v = 0;
			OK(GPA_GetSampleUInt64(s, ids[k], c, &v));
			assert_int_equal(v, fake_value(c, k, p));
		}
	}
	TU_NO_ERROR();
}

#define T(test) cmocka_unit_test_setup_teardown(test, setup, tu_fixture_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_plain_faults),
		T(test_plain_growth),
		T(test_plain_then_out_of_line),
		T(test_plain_two_passes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
