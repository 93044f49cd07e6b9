/* SPDX-License-Identifier: MIT */
/*
 * test_sessions.c — sessions, passes and samples through the GPA 2.x API
 * over the fake backend: order errors, multi-pass results, faults,
 * readiness and blocking reads.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/testing.h"
#include "fake_backend.h"
#include "test_util.h"

#define STATUS1(call, want) \
	do { \
		assert_int_equal((call), (want)); \
		TU_ONE_ERROR(); \
	} while (0)

static int key_a, key_b;

static int setup(void **state)
{
	(void)state;
	tu_open(&key_a);
	return 0;
}

static gpa_uint64 u64(gpa_uint32 session, gpa_uint32 sample, gpa_uint32 counter)
{
	gpa_uint64 v = 0;
	assert_int_equal(GPA_GetSampleUInt64(session, sample, counter, &v), GPA_STATUS_OK);
	return v;
}

static double f64(gpa_uint32 session, gpa_uint32 sample, gpa_uint32 counter)
{
	gpa_float64 v = 0;
	assert_int_equal(GPA_GetSampleFloat64(session, sample, counter, &v), GPA_STATUS_OK);
	return v;
}

/* Three passes; a derived counter whose inputs cannot share a pass; sample
 * IDs in a different order in every pass. */
static void test_three_passes_combine(void **state)
{
	(void)state;
	const gpa_uint32 enable[] = { FC_C0, FC_C1, FC_XSUM, FC_C2, FC_C3 };
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(GPA_EnableCounter(enable[i]), GPA_STATUS_OK);
	assert_int_equal(tu_passes(), 3);
	assert_int_equal(tu_pass_of(FC_C0), 0);
	assert_int_equal(tu_pass_of(FC_C1), 0);
	assert_int_equal(tu_pass_of(FC_C2), 1);
	assert_int_equal(tu_pass_of(FC_C3), 2);
	assert_int_equal(tu_pass_of(FC_XSUM), 2); /* its last input's pass */

	static const gpa_uint32 order[3][3] = { { 7, 3, 100 }, { 100, 7, 3 }, { 3, 100, 7 } };
	gpa_uint32 session = 0;
	assert_int_equal(GPA_BeginSession(&session), GPA_STATUS_OK);
	assert_int_equal(session, 1);
	for (unsigned p = 0; p < 3; p++) {
		assert_int_equal(GPA_BeginPass(), GPA_STATUS_OK);
		for (unsigned i = 0; i < 3; i++) {
			assert_int_equal(GPA_BeginSample(order[p][i]), GPA_STATUS_OK);
			assert_int_equal(GPA_EndSample(), GPA_STATUS_OK);
		}
		assert_int_equal(GPA_EndPass(), GPA_STATUS_OK);
	}
	assert_int_equal(GPA_EndSession(), GPA_STATUS_OK);
	TU_NO_ERROR();

	gpa_uint32 count = 0;
	assert_int_equal(GPA_GetSampleCount(session, &count), GPA_STATUS_OK);
	assert_int_equal(count, 3);
	for (unsigned s = 0; s < 3; s++) {
		gpa_uint32 id = order[0][s];
		unsigned ord[3] = {0, 0, 0};
		for (unsigned p = 0; p < 3; p++)
			for (unsigned i = 0; i < 3; i++)
				if (order[p][i] == id)
					ord[p] = i;
		/* Slot 10 (X0) went to pass 1 and slot 11 (X1) to pass 2. */
		assert_int_equal(u64(session, id, FC_C0), fake_value(0, ord[0], 0));
		assert_int_equal(u64(session, id, FC_C1), fake_value(1, ord[0], 0));
		assert_int_equal(u64(session, id, FC_C2), fake_value(2, ord[1], 1));
		assert_int_equal(u64(session, id, FC_C3), fake_value(3, ord[2], 2));
		assert_true(f64(session, id, FC_XSUM) ==
		            (double)(fake_value(10, ord[1], 1) + fake_value(11, ord[2], 2)));
	}
	TU_NO_ERROR();
}

/* uint32 results saturate at 2^32 - 1, never wrap: raw counts just below,
 * at and far above 2^32, through the plain raw counter (Small = R4, the
 * exact integer path) and through an expression computed in floating point
 * (a counter file added for the test), by GPA_GetSampleUInt32 and by the
 * batch read. */
static void test_uint32_saturates(void **state)
{
	(void)state;
	char path[] = "/tmp/opengpa-test-u32-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	static const char text[] = "counter Wide32\n    group: Fake\n    usage: items\n"
	                           "    type: uint32\n    description: R4 in floating point.\n"
	                           "    expression: R4 * Two / 2\n";
	assert_int_equal(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
	close(fd);
	tu_teardown();
	tu_setup();
	GPA_Status added = OpenGPA_AddCounterFile(path);
	assert_int_equal(GPA_OpenContext(&key_a), GPA_STATUS_OK);
	unlink(path);
	assert_int_equal(added, GPA_STATUS_OK);
	gpa_uint32 wide = 0;
	assert_int_equal(GPA_GetCounterIndex("Wide32", &wide), GPA_STATUS_OK);
	tu_log_clear();

	/* Sample k of the pass counts fake_value(4, k, 0) + offset on R4. */
	fake_config.value_offset = UINT32_MAX - fake_value(4, 0, 0);
	assert_int_equal(GPA_EnableCounter(FC_SMALL), GPA_STATUS_OK);
	assert_int_equal(GPA_EnableCounter(wide), GPA_STATUS_OK);
	const unsigned ids[] = { 0, 1, 2 };
	gpa_uint32 s = tu_run_session(ids, 3);
	fake_config.value_offset = 0;
	for (unsigned k = 0; k < 3; k++) {
		uint64_t raw = fake_value(4, k, 0) + (UINT32_MAX - fake_value(4, 0, 0));
		assert_true(raw >= UINT32_MAX);
		gpa_uint32 small = 1, w = 1;
		assert_int_equal(GPA_GetSampleUInt32(s, k, FC_SMALL, &small), GPA_STATUS_OK);
		assert_int_equal(GPA_GetSampleUInt32(s, k, wide, &w), GPA_STATUS_OK);
		if (small != UINT32_MAX || w != UINT32_MAX)
			fail_msg("sample %u: raw count %llu read as %u (Small) and %u (Wide32); "
			         "uint32 results must saturate at %u", k, (unsigned long long)raw,
			         small, w, UINT32_MAX);
		OpenGPA_Result res[2];
		memset(res, 0, sizeof res);
		assert_int_equal(OpenGPA_GetSampleResults(s, k, 2, res), GPA_STATUS_OK);
		gpa_uint32 counters[2] = { 0, 0 }, n = 0;
		assert_int_equal(OpenGPA_GetSessionCounters(s, 2, counters, &n), GPA_STATUS_OK);
		assert_int_equal(n, 2);
		for (unsigned i = 0; i < 2; i++)
			if (res[i].u64 != UINT32_MAX)
				fail_msg("batch read, sample %u counter %u: %llu, want %u", k,
				         counters[i], (unsigned long long)res[i].u64, UINT32_MAX);
	}
	/* Far above 2^32: 2^32 + 2^33 + the fake's count. */
	fake_config.value_offset = 3ull << 32;
	s = tu_run_session(ids, 1);
	fake_config.value_offset = 0;
	gpa_uint32 small = 1, w = 1;
	assert_int_equal(GPA_GetSampleUInt32(s, 0, FC_SMALL, &small), GPA_STATUS_OK);
	assert_int_equal(GPA_GetSampleUInt32(s, 0, wide, &w), GPA_STATUS_OK);
	assert_int_equal(small, UINT32_MAX);
	assert_int_equal(w, UINT32_MAX);
	TU_NO_ERROR();
}

static void test_derived_values(void **state)
{
	(void)state;
	fake_config.max_per_pass = 8;
	const gpa_uint32 enable[] = { FC_SCALED, FC_HALF, FC_SMALL, FC_NESTED, FC_SUM13, FC_C5 };
	for (size_t i = 0; i < 6; i++)
		assert_int_equal(GPA_EnableCounter(enable[i]), GPA_STATUS_OK);
	assert_int_equal(tu_passes(), 1);
	const unsigned ids[] = { 42, 5 };
	gpa_uint32 s = tu_run_session(ids, 2);
	for (unsigned i = 0; i < 2; i++) {
		unsigned id = ids[i];
		assert_true(f64(s, id, FC_SCALED) == (double)fake_value(2, i, 0) * FAKE_SCALE);
		gpa_float32 half = 0;
		assert_int_equal(GPA_GetSampleFloat32(s, id, FC_HALF, &half), GPA_STATUS_OK);
		assert_true(half == (gpa_float32)((double)fake_value(3, i, 0) / 2));
		gpa_uint32 small = 0;
		assert_int_equal(GPA_GetSampleUInt32(s, id, FC_SMALL, &small), GPA_STATUS_OK);
		assert_int_equal(small, fake_value(4, i, 0));
		assert_true(f64(s, id, FC_NESTED) ==
		            2.0 * (double)(fake_value(0, i, 0) + fake_value(1, i, 0)));
		assert_true(f64(s, id, FC_SUM13) == (double)(fake_value(1, i, 0) + fake_value(3, i, 0)));
		assert_int_equal(u64(s, id, FC_C5), fake_value(5, i, 0));
	}
	TU_NO_ERROR();

	/* Check order of GetSample*: pointer, context, index, type, session,
	 * enabled, sample. */
	gpa_uint64 v;
	gpa_float64 d;
	gpa_uint32 u;
	gpa_float32 f;
	STATUS1(GPA_GetSampleUInt64(99, 0, FC_COUNT, &v), GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE);
	STATUS1(GPA_GetSampleUInt64(99, 0, FC_SCALED, &v),
	        GPA_STATUS_ERROR_COUNTER_NOT_OF_SPECIFIED_TYPE);
	STATUS1(GPA_GetSampleUInt32(s, ids[0], FC_C5, &u),
	        GPA_STATUS_ERROR_COUNTER_NOT_OF_SPECIFIED_TYPE);
	STATUS1(GPA_GetSampleFloat32(s, ids[0], FC_SCALED, &f),
	        GPA_STATUS_ERROR_COUNTER_NOT_OF_SPECIFIED_TYPE);
	STATUS1(GPA_GetSampleFloat64(s, ids[0], FC_HALF, &d),
	        GPA_STATUS_ERROR_COUNTER_NOT_OF_SPECIFIED_TYPE);
	STATUS1(GPA_GetSampleUInt64(99, 0, FC_C5, &v), GPA_STATUS_ERROR_SESSION_NOT_FOUND);
	STATUS1(GPA_GetSampleUInt64(0, 0, FC_C5, &v), GPA_STATUS_ERROR_SESSION_NOT_FOUND);
	STATUS1(GPA_GetSampleUInt64(s, 999, FC_C0, &v), GPA_STATUS_ERROR_NOT_ENABLED);
	STATUS1(GPA_GetSampleUInt64(s, 999, FC_C5, &v), GPA_STATUS_ERROR_SAMPLE_NOT_FOUND);
	bool ready = true;
	/* An unknown sample is missing from every pass; the flag is false. */
	STATUS1(GPA_IsSampleReady(&ready, s, 999), GPA_STATUS_ERROR_SAMPLE_NOT_FOUND_IN_ALL_PASSES);
	assert_false(ready);
	ready = true;
	STATUS1(GPA_IsSampleReady(&ready, 99, 5), GPA_STATUS_ERROR_SESSION_NOT_FOUND);
	assert_false(ready);
	STATUS1(GPA_IsSessionReady(&ready, 99), GPA_STATUS_ERROR_SESSION_NOT_FOUND);
	STATUS1(GPA_IsSampleReady(NULL, s, 5), GPA_STATUS_ERROR_NULL_POINTER);
	STATUS1(GPA_IsSessionReady(NULL, s), GPA_STATUS_ERROR_NULL_POINTER);
	STATUS1(GPA_GetSampleCount(99, &u), GPA_STATUS_ERROR_SESSION_NOT_FOUND);
	STATUS1(GPA_GetSampleCount(s, NULL), GPA_STATUS_ERROR_NULL_POINTER);

	/* GPA 2.x checks "enabled" against the counters enabled now: C5's
	 * result is refused once it is disabled and readable again once it is
	 * enabled, even though later sessions count other things. */
	assert_int_equal(GPA_DisableAllCounters(), GPA_STATUS_OK);
	assert_int_equal(GPA_EnableCounter(FC_C0), GPA_STATUS_OK);
	STATUS1(GPA_GetSampleUInt64(s, ids[1], FC_C5, &v), GPA_STATUS_ERROR_NOT_ENABLED);
	/* Enabled now but not in that session: it has no result for it. */
	STATUS1(GPA_GetSampleUInt64(s, ids[1], FC_C0, &v), GPA_STATUS_ERROR_READING_COUNTER_RESULT);
	assert_int_equal(GPA_EnableCounter(FC_C5), GPA_STATUS_OK);
	assert_int_equal(u64(s, ids[1], FC_C5), fake_value(5, 1, 0));
	TU_NO_ERROR();
}

/* Sample ids in a row are looked up by arithmetic, ids out of line by a
 * hash built when the first one appears; both must find every sample and
 * nothing else, across the 32-bit wrap too. */
static void test_sample_id_lookup(void **state)
{
	(void)state;
	assert_int_equal(GPA_EnableCounter(FC_C5), GPA_STATUS_OK);
	const unsigned in_line[] = { 0xFFFFFFFEu, 0xFFFFFFFFu, 0, 1, 2 };
	const unsigned mixed[] = { 100, 101, 102, 7, 103, 0x80000000u, 104 };
	/* In line past the first rooms (16, 32, 64 samples), then one out. */
	unsigned grown[80];
	for (unsigned i = 0; i < 80; i++)
		grown[i] = i < 70 ? 200 + i : i == 70 ? 1000 : 200 + i - 1;
	const unsigned *sets[] = { in_line, mixed, grown };
	const size_t sizes[] = { 5, 7, 80 };
	for (size_t k = 0; k < 3; k++) {
		gpa_uint32 s = tu_run_session(sets[k], sizes[k]);
		gpa_uint32 count = 0;
		assert_int_equal(GPA_GetSampleCount(s, &count), GPA_STATUS_OK);
		assert_int_equal(count, sizes[k]);
		/* The fake's value is ...ordinal + 1: the order each id came in. */
		for (unsigned i = 0; i < sizes[k]; i++)
			assert_int_equal(u64(s, sets[k][i], FC_C5) % 1000u, i + 1);
		const unsigned absent[] = { 3, 0xFFFFFFFDu, 99, 105, 8 };
		gpa_uint64 v;
		for (size_t i = 0; i < 5; i++)
			STATUS1(GPA_GetSampleUInt64(s, absent[i], FC_C5, &v),
			        GPA_STATUS_ERROR_SAMPLE_NOT_FOUND);
	}
	TU_NO_ERROR();
}

static void test_order_errors(void **state)
{
	(void)state;
	gpa_uint32 s = 0;
	STATUS1(GPA_EndSession(), GPA_STATUS_ERROR_SAMPLING_NOT_STARTED);
	STATUS1(GPA_BeginPass(), GPA_STATUS_ERROR_SAMPLING_NOT_STARTED);
	STATUS1(GPA_EndPass(), GPA_STATUS_ERROR_SAMPLING_NOT_STARTED);
	STATUS1(GPA_BeginSample(1), GPA_STATUS_ERROR_SAMPLING_NOT_STARTED);
	/* EndSample only asks whether a sample is open. */
	STATUS1(GPA_EndSample(), GPA_STATUS_ERROR_SAMPLE_NOT_STARTED);
	STATUS1(GPA_BeginSession(&s), GPA_STATUS_ERROR_NO_COUNTERS_ENABLED);
	STATUS1(GPA_BeginSession(NULL), GPA_STATUS_ERROR_NULL_POINTER);

	assert_int_equal(GPA_EnableCounter(FC_C0), GPA_STATUS_OK);
	assert_int_equal(GPA_BeginSession(&s), GPA_STATUS_OK);
	assert_int_equal(s, 1);
	STATUS1(GPA_BeginSession(&s), GPA_STATUS_ERROR_SAMPLING_ALREADY_STARTED);
	/* No pass yet: no samples. */
	gpa_uint32 count = 99;
	assert_int_equal(GPA_GetSampleCount(1, &count), GPA_STATUS_OK);
	assert_int_equal(count, 0);
	/* Counters are fixed while sampling. */
	STATUS1(GPA_EnableCounter(FC_C1), GPA_STATUS_ERROR_CANNOT_CHANGE_COUNTERS_WHEN_SAMPLING);
	STATUS1(GPA_DisableCounter(FC_C0), GPA_STATUS_ERROR_CANNOT_CHANGE_COUNTERS_WHEN_SAMPLING);
	STATUS1(GPA_EnableCounterStr("C1"), GPA_STATUS_ERROR_CANNOT_CHANGE_COUNTERS_WHEN_SAMPLING);
	STATUS1(GPA_DisableCounterStr("C0"), GPA_STATUS_ERROR_CANNOT_CHANGE_COUNTERS_WHEN_SAMPLING);
	STATUS1(GPA_EnableAllCounters(), GPA_STATUS_ERROR_CANNOT_CHANGE_COUNTERS_WHEN_SAMPLING);
	STATUS1(GPA_DisableAllCounters(), GPA_STATUS_ERROR_CANNOT_CHANGE_COUNTERS_WHEN_SAMPLING);
	STATUS1(OpenGPA_SetSessionRingSize(8), GPA_STATUS_ERROR_SAMPLING_ALREADY_STARTED);
	STATUS1(GPA_CloseContext(), GPA_STATUS_ERROR_SAMPLING_NOT_ENDED);
	/* GPA_Destroy does nothing, open session or not. */
	assert_int_equal(GPA_Destroy(), GPA_STATUS_OK);
	TU_NO_ERROR();

	STATUS1(GPA_EndPass(), GPA_STATUS_ERROR_PASS_NOT_STARTED);
	STATUS1(GPA_BeginSample(1), GPA_STATUS_ERROR_PASS_NOT_STARTED);
	STATUS1(GPA_EndSample(), GPA_STATUS_ERROR_SAMPLE_NOT_STARTED);
	assert_int_equal(GPA_BeginPass(), GPA_STATUS_OK);
	STATUS1(GPA_BeginPass(), GPA_STATUS_ERROR_PASS_ALREADY_STARTED);
	STATUS1(GPA_EndSession(), GPA_STATUS_ERROR_PASS_NOT_ENDED);
	STATUS1(OpenGPA_SetBackendOption("k", "v"), GPA_STATUS_ERROR_PASS_NOT_ENDED);
	STATUS1(GPA_EndSample(), GPA_STATUS_ERROR_SAMPLE_NOT_STARTED);
	assert_int_equal(GPA_BeginSample(1), GPA_STATUS_OK);
	STATUS1(GPA_BeginSample(2), GPA_STATUS_ERROR_SAMPLE_ALREADY_STARTED); /* no nesting */
	STATUS1(GPA_EndPass(), GPA_STATUS_ERROR_SAMPLE_NOT_ENDED);
	assert_int_equal(GPA_EndSample(), GPA_STATUS_OK);
	STATUS1(GPA_BeginSample(1), GPA_STATUS_ERROR_SAMPLE_ALREADY_STARTED); /* unique per pass */
	assert_int_equal(GPA_BeginSample(0xFFFFFFFFu), GPA_STATUS_OK); /* any integer */
	assert_int_equal(GPA_EndSample(), GPA_STATUS_OK);
	assert_int_equal(GPA_GetSampleCount(1, &count), GPA_STATUS_OK);
	assert_int_equal(count, 2);
	assert_int_equal(GPA_EndPass(), GPA_STATUS_OK);
	assert_int_equal(GPA_EndSession(), GPA_STATUS_OK);
	TU_NO_ERROR();
	assert_int_equal(u64(1, 0xFFFFFFFFu, FC_C0), fake_value(0, 1, 0));
}

static void test_not_enough_and_variable(void **state)
{
	(void)state;
	for (gpa_uint32 c = FC_C0; c <= FC_C5; c++)
		assert_int_equal(GPA_EnableCounter(c), GPA_STATUS_OK);
	assert_int_equal(tu_passes(), 3);
	gpa_uint32 s = 0;
	assert_int_equal(GPA_BeginSession(&s), GPA_STATUS_OK);
	assert_int_equal(GPA_BeginPass(), GPA_STATUS_OK);
	for (gpa_uint32 id = 0; id < 2; id++) {
		assert_int_equal(GPA_BeginSample(id), GPA_STATUS_OK);
		assert_int_equal(GPA_EndSample(), GPA_STATUS_OK);
	}
	assert_int_equal(GPA_EndPass(), GPA_STATUS_OK);
	/* Pass 1 has one sample: the pass is still closed. */
	assert_int_equal(GPA_BeginPass(), GPA_STATUS_OK);
	assert_int_equal(GPA_BeginSample(0), GPA_STATUS_OK);
	assert_int_equal(GPA_EndSample(), GPA_STATUS_OK);
	STATUS1(GPA_EndPass(), GPA_STATUS_ERROR_VARIABLE_NUMBER_OF_SAMPLES_IN_PASSES);
	STATUS1(GPA_EndPass(), GPA_STATUS_ERROR_PASS_NOT_STARTED);
	/* Two of three passes: the session still ends. */
	STATUS1(GPA_EndSession(), GPA_STATUS_ERROR_NOT_ENOUGH_PASSES);
	bool ready = false;
	assert_int_equal(GPA_IsSessionReady(&ready, s), GPA_STATUS_OK);
	assert_true(ready);
	tu_log_clear();
	/* What the passes counted is readable, even for sample 1 that pass 1
	 * lacks, as long as the counter needs only pass 0; pass 2's are not. */
	assert_int_equal(u64(s, 1, FC_C0), fake_value(0, 1, 0));
	assert_int_equal(u64(s, 0, FC_C2), fake_value(2, 0, 1));
	TU_NO_ERROR();
	gpa_uint64 v;
	STATUS1(GPA_GetSampleUInt64(s, 1, FC_C2, &v), GPA_STATUS_ERROR_SAMPLE_NOT_FOUND);
	STATUS1(GPA_GetSampleUInt64(s, 0, FC_C4, &v), GPA_STATUS_ERROR_SAMPLE_NOT_FOUND);
	/* Sample 1 is missing from pass 1. */
	STATUS1(GPA_IsSampleReady(&ready, s, 1), GPA_STATUS_ERROR_SAMPLE_NOT_FOUND_IN_ALL_PASSES);
	assert_int_equal(GPA_BeginSession(&s), GPA_STATUS_OK);
	assert_int_equal(s, 2);
	assert_int_equal(GPA_EndSession(), GPA_STATUS_ERROR_NOT_ENOUGH_PASSES);
	TU_ONE_ERROR();
}

static void test_extra_passes(void **state)
{
	(void)state;
	assert_int_equal(GPA_EnableCounter(FC_C0), GPA_STATUS_OK);
	gpa_uint32 s = 0;
	assert_int_equal(GPA_BeginSession(&s), GPA_STATUS_OK);
	assert_int_equal(GPA_BeginPass(), GPA_STATUS_OK);
	assert_int_equal(GPA_BeginSample(9), GPA_STATUS_OK);
	assert_int_equal(GPA_EndSample(), GPA_STATUS_OK);
	assert_int_equal(GPA_EndPass(), GPA_STATUS_OK);
	unsigned begun = fake_stats.begin_samples, passes = fake_stats.pass_seq;
	/* Passes beyond the plan count nothing, but their samples are checked
	 * as in any pass, and they have none of pass 0's samples. */
	for (int p = 0; p < 2; p++) {
		assert_int_equal(GPA_BeginPass(), GPA_STATUS_OK);
		STATUS1(GPA_EndSample(), GPA_STATUS_ERROR_SAMPLE_NOT_STARTED);
		assert_int_equal(GPA_BeginSample(9), GPA_STATUS_OK);
		STATUS1(GPA_BeginSample(10), GPA_STATUS_ERROR_SAMPLE_ALREADY_STARTED);
		assert_int_equal(GPA_EndSample(), GPA_STATUS_OK);
		STATUS1(GPA_BeginSample(9), GPA_STATUS_ERROR_SAMPLE_ALREADY_STARTED);
		assert_int_equal(GPA_BeginSample(12345), GPA_STATUS_OK);
		assert_int_equal(GPA_EndSample(), GPA_STATUS_OK);
		STATUS1(GPA_EndPass(), GPA_STATUS_ERROR_VARIABLE_NUMBER_OF_SAMPLES_IN_PASSES);
	}
	/* Extra passes are no error for the session. */
	assert_int_equal(GPA_EndSession(), GPA_STATUS_OK);
	gpa_uint32 count = 0;
	assert_int_equal(GPA_GetSampleCount(s, &count), GPA_STATUS_OK);
	assert_int_equal(count, 1);
	assert_int_equal(fake_stats.begin_samples, begun);
	assert_int_equal(fake_stats.pass_seq, passes);
	assert_int_equal(u64(s, 9, FC_C0), fake_value(0, 0, 0));
	TU_NO_ERROR();
}

static void test_faults(void **state)
{
	(void)state;
	for (gpa_uint32 c = FC_C0; c <= FC_C5; c++)
		assert_int_equal(GPA_EnableCounter(c), GPA_STATUS_OK);
	/* begin_pass fails: no pass is open; the client can retry. */
	fake_config.fail_begin_pass = true;
	gpa_uint32 s = 0;
	assert_int_equal(GPA_BeginSession(&s), GPA_STATUS_OK);
	STATUS1(GPA_BeginPass(), GPA_STATUS_ERROR_FAILED);
	STATUS1(GPA_EndPass(), GPA_STATUS_ERROR_PASS_NOT_STARTED);
	fake_config.fail_begin_pass = false;

	/* Sample 1 (the second) of pass 1 cannot be read. */
	fake_config.fail_end_sample_pass = 1;
	fake_config.fail_end_sample_ordinal = 1;
	for (unsigned p = 0; p < 3; p++) {
		assert_int_equal(GPA_BeginPass(), GPA_STATUS_OK);
		for (gpa_uint32 id = 0; id < 3; id++) {
			assert_int_equal(GPA_BeginSample(id), GPA_STATUS_OK);
			if (p == 1 && id == 1) {
				STATUS1(GPA_EndSample(), GPA_STATUS_ERROR_FAILED);
				assert_int_equal(tu_log.count, 0);
			} else {
				assert_int_equal(GPA_EndSample(), GPA_STATUS_OK);
			}
		}
		assert_int_equal(GPA_EndPass(), GPA_STATUS_OK);
	}
	assert_int_equal(GPA_EndSession(), GPA_STATUS_OK);
	TU_NO_ERROR();
	gpa_uint64 v;
	STATUS1(GPA_GetSampleUInt64(s, 1, FC_C0, &v), GPA_STATUS_ERROR_READING_COUNTER_RESULT);
	STATUS1(GPA_GetSampleUInt64(s, 1, FC_C2, &v), GPA_STATUS_ERROR_READING_COUNTER_RESULT);
	/* The others are fine. */
	assert_int_equal(u64(s, 0, FC_C2), fake_value(2, 0, 1));
	assert_int_equal(u64(s, 2, FC_C2), fake_value(2, 2, 1));
	assert_int_equal(u64(s, 2, FC_C4), fake_value(4, 2, 2));
	TU_NO_ERROR();
}

static void test_session_ids(void **state)
{
	(void)state;
	assert_int_equal(GPA_EnableCounter(FC_C0), GPA_STATUS_OK);
	const unsigned id = 1;
	for (unsigned want = 1; want <= 6; want++)
		assert_int_equal(tu_run_session(&id, 1), want);
	/* A second context counts from 1 again; the first keeps its count. */
	assert_int_equal(GPA_OpenContext(&key_b), GPA_STATUS_OK);
	assert_int_equal(GPA_EnableCounter(FC_C1), GPA_STATUS_OK);
	assert_int_equal(tu_run_session(&id, 1), 1);
	assert_int_equal(tu_run_session(&id, 1), 2);
	assert_int_equal(GPA_SelectContext(&key_a), GPA_STATUS_OK);
	assert_int_equal(tu_run_session(&id, 1), 7);
	TU_NO_ERROR();
}

/* ---- readiness and blocking ------------------------------------------ */

struct reader {
	gpa_uint32 session, sample;
	GPA_Status status;
	gpa_uint64 value;
	volatile int started, returned;
};

static void *read_sample(void *arg)
{
	struct reader *r = arg;
	__atomic_store_n(&r->started, 1, __ATOMIC_SEQ_CST);
	r->status = GPA_GetSampleUInt64(r->session, r->sample, FC_C4, &r->value);
	__atomic_store_n(&r->returned, 1, __ATOMIC_SEQ_CST);
	return NULL;
}

static void test_ready_and_blocking(void **state)
{
	(void)state;
	for (gpa_uint32 c = FC_C0; c <= FC_C5; c++)
		assert_int_equal(GPA_EnableCounter(c), GPA_STATUS_OK);
	gpa_uint32 s = 0;
	assert_int_equal(GPA_BeginSession(&s), GPA_STATUS_OK);
	assert_int_equal(GPA_BeginPass(), GPA_STATUS_OK);
	assert_int_equal(GPA_BeginSample(5), GPA_STATUS_OK);
	assert_int_equal(GPA_EndSample(), GPA_STATUS_OK);

	/* Never block: they answer "not ready" at once.  The sample is done in
	 * pass 0 but passes 1 and 2 have not run: GPA calls that missing. */
	bool ready = true;
	assert_int_equal(GPA_IsSessionReady(&ready, s), GPA_STATUS_OK);
	assert_false(ready);
	ready = true;
	STATUS1(GPA_IsSampleReady(&ready, s, 5), GPA_STATUS_ERROR_SAMPLE_NOT_FOUND_IN_ALL_PASSES);
	assert_false(ready);
	/* Open in the open pass: pending, so not ready, and no error. */
	assert_int_equal(GPA_BeginSample(6), GPA_STATUS_OK);
	STATUS1(GPA_IsSampleReady(&ready, s, 6), GPA_STATUS_ERROR_SAMPLE_NOT_FOUND_IN_ALL_PASSES);
	assert_int_equal(GPA_EndSample(), GPA_STATUS_OK);
	/* This thread holds the session open: waiting would never end. */
	gpa_uint64 v;
	STATUS1(GPA_GetSampleUInt64(s, 5, FC_C4, &v), GPA_STATUS_ERROR_SAMPLING_NOT_ENDED);

	/* Another thread waits until the session is complete. */
	struct reader r = { .session = s, .sample = 5 };
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, read_sample, &r), 0);
	tu_wait_flag((const int *)&r.started, TU_DEADLINE_MS, "the reader thread's start");
	/* Give it a chance to return early if it does not block (the check
	 * below can only miss a bug, never fail a correct library). */
	nanosleep(&(struct timespec){ .tv_nsec = 20 * 1000 * 1000 }, NULL);
	assert_int_equal(GPA_EndPass(), GPA_STATUS_OK);
	for (unsigned p = 1; p < 3; p++) {
		assert_false(__atomic_load_n(&r.returned, __ATOMIC_SEQ_CST));
		assert_int_equal(GPA_BeginPass(), GPA_STATUS_OK);
		for (gpa_uint32 id = 5; id <= 6; id++) {
			assert_int_equal(GPA_BeginSample(id), GPA_STATUS_OK);
			assert_int_equal(GPA_EndSample(), GPA_STATUS_OK);
		}
		assert_int_equal(GPA_EndPass(), GPA_STATUS_OK);
	}
	assert_int_equal(GPA_EndSession(), GPA_STATUS_OK);
	tu_join_within(t, NULL, TU_DEADLINE_MS,
	               "GPA_GetSampleUInt64 waiting for the session that became complete");
	assert_int_equal(r.status, GPA_STATUS_OK);
	assert_int_equal(r.value, fake_value(4, 0, 2));
	assert_int_equal(GPA_IsSessionReady(&ready, s), GPA_STATUS_OK);
	assert_true(ready);
	assert_int_equal(GPA_IsSampleReady(&ready, s, 5), GPA_STATUS_OK);
	assert_true(ready);
	TU_NO_ERROR();
}

/* ---- wake-ups and the locked path of a blocked reader ------------------ */

static uint64_t now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000u + (uint64_t)t.tv_nsec / 1000000u;
}

struct waiter {
	gpa_uint32 session, count, timeout_ms;
	GPA_Status status;
	gpa_uint32 available;
	volatile int started;
};

static void *wait_for_samples(void *arg)
{
	struct waiter *w = arg;
	__atomic_store_n(&w->started, 1, __ATOMIC_SEQ_CST);
	w->status = OpenGPA_WaitForSamples(w->session, w->count, w->timeout_ms, &w->available);
	return NULL;
}

/* A session ended short of its passes (GPA 2.x ends it all the same,
 * NOT_ENOUGH_PASSES) is ready: readers blocked on it must wake then.  The
 * end of a pass is not what makes it ready here (passes are missing), so
 * only the wake-up at GPA_EndSession can end their wait: without it the
 * blocking read waits forever and OpenGPA_WaitForSamples until its own
 * timeout (60 s here, far beyond the deadline), with nothing available. */
static void test_short_end_wakes_readers(void **state)
{
	(void)state;
	for (gpa_uint32 c = FC_C0; c <= FC_C5; c++)
		assert_int_equal(GPA_EnableCounter(c), GPA_STATUS_OK);
	assert_int_equal(tu_passes(), 3);
	gpa_uint32 in_pass0 = FC_C0;
	assert_int_equal(tu_pass_of(in_pass0), 0);
	gpa_uint32 s = 0;
	assert_int_equal(GPA_BeginSession(&s), GPA_STATUS_OK);
	assert_int_equal(GPA_BeginPass(), GPA_STATUS_OK);
	assert_int_equal(GPA_BeginSample(5), GPA_STATUS_OK);
	assert_int_equal(GPA_EndSample(), GPA_STATUS_OK);

	struct reader r = { .session = s, .sample = 5 };
	struct waiter w = { .session = s, .count = 1, .timeout_ms = 60000 };
	pthread_t rt, wt;
	assert_int_equal(pthread_create(&rt, NULL, read_sample, &r), 0);
	assert_int_equal(pthread_create(&wt, NULL, wait_for_samples, &w), 0);
	tu_wait_flag((const int *)&r.started, TU_DEADLINE_MS, "the reader thread's start");
	tu_wait_flag((const int *)&w.started, TU_DEADLINE_MS, "the waiting thread's start");
	/* Time to get into their waits (a reader that has not yet waited
	 * sees the session ended and returns: the check can only miss the
	 * bug, never fail a correct library). */
	nanosleep(&(struct timespec){ .tv_nsec = 50 * 1000 * 1000 }, NULL);
	assert_int_equal(GPA_EndPass(), GPA_STATUS_OK);
	nanosleep(&(struct timespec){ .tv_nsec = 20 * 1000 * 1000 }, NULL);
	assert_false(__atomic_load_n(&r.returned, __ATOMIC_SEQ_CST));

	uint64_t t0 = now_ms();
	/* Its error and the reader's (C4's pass never ran) are both logged. */
	assert_int_equal(GPA_EndSession(), GPA_STATUS_ERROR_NOT_ENOUGH_PASSES);
	/* Nothing else touches the library until both are back: no later
	 * call may wake them in the wake-up's place. */
	const unsigned deadline = 5000;
	tu_join_within(rt, NULL, deadline,
	               "GPA_GetSampleUInt64 blocked on a session that GPA_EndSession ended short");
	tu_join_within(wt, NULL, deadline,
	               "OpenGPA_WaitForSamples (timeout 60 s) on a session that GPA_EndSession "
	               "ended short");
	uint64_t took = now_ms() - t0;
	if (took >= deadline)
		fail_msg("the readers took %llu ms to wake after GPA_EndSession", (unsigned long long)took);
	assert_int_equal(w.status, GPA_STATUS_OK);
	if (w.available != 1)
		fail_msg("OpenGPA_WaitForSamples woke with %u samples available, want 1 (the session "
		         "is ready)", w.available);
	(void)r.status; /* C4 is in a pass that never ran: any answer, as long as it comes */
	gpa_uint64 v = 0;
	assert_int_equal(GPA_GetSampleUInt64(s, 5, in_pass0, &v), GPA_STATUS_OK);
	assert_int_equal(v, fake_value(0, 0, 0));
	tu_log_clear();
}

struct reader32 {
	gpa_uint32 session, sample, counter;
	GPA_Status status;
	gpa_uint32 value;
	volatile int started;
};

static void *read_sample32(void *arg)
{
	struct reader32 *r = arg;
	__atomic_store_n(&r->started, 1, __ATOMIC_SEQ_CST);
	r->status = GPA_GetSampleUInt32(r->session, r->sample, r->counter, &r->value);
	return NULL;
}

/* A reader that blocks (the session still recording) gets its answer from
 * the locked path, not the lock-free one test_uint32_saturates reads: a
 * uint32 counter there saturates too. */
static void test_blocked_uint32_saturates(void **state)
{
	(void)state;
	assert_int_equal(GPA_EnableCounter(FC_SMALL), GPA_STATUS_OK);
	assert_int_equal(tu_passes(), 1);
	/* Sample k of the pass counts fake_value(4, k, 0) + offset on R4. */
	fake_config.value_offset = UINT32_MAX - fake_value(4, 0, 0) + 5;
	gpa_uint32 s = 0;
	assert_int_equal(GPA_BeginSession(&s), GPA_STATUS_OK);
	assert_int_equal(GPA_BeginPass(), GPA_STATUS_OK);
	assert_int_equal(GPA_BeginSample(0), GPA_STATUS_OK);
	assert_int_equal(GPA_EndSample(), GPA_STATUS_OK);
	struct reader32 r = { .session = s, .sample = 0, .counter = FC_SMALL, .value = 1 };
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, read_sample32, &r), 0);
	tu_wait_flag((const int *)&r.started, TU_DEADLINE_MS, "the reader thread's start");
	nanosleep(&(struct timespec){ .tv_nsec = 20 * 1000 * 1000 }, NULL);
	assert_int_equal(GPA_EndPass(), GPA_STATUS_OK);
	assert_int_equal(GPA_EndSession(), GPA_STATUS_OK);
	tu_join_within(t, NULL, TU_DEADLINE_MS, "GPA_GetSampleUInt32 waiting for the session");
	fake_config.value_offset = 0;
	assert_int_equal(r.status, GPA_STATUS_OK);
	if (r.value != UINT32_MAX)
		fail_msg("a count of 2^32 + 4 read by a blocked GPA_GetSampleUInt32 as %u; uint32 "
		         "results must saturate at %u", r.value, UINT32_MAX);
	/* The same read once the session is complete: the lock-free path. */
	gpa_uint32 again = 1;
	assert_int_equal(GPA_GetSampleUInt32(s, 0, FC_SMALL, &again), GPA_STATUS_OK);
	assert_int_equal(again, UINT32_MAX);
	TU_NO_ERROR();
}

#define T(test) cmocka_unit_test_setup_teardown(test, setup, tu_fixture_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_three_passes_combine),
		T(test_uint32_saturates),
		T(test_derived_values),
		T(test_sample_id_lookup),
		T(test_order_errors),
		T(test_not_enough_and_variable),
		T(test_extra_passes),
		T(test_faults),
		T(test_session_ids),
		T(test_ready_and_blocking),
		T(test_short_end_wakes_readers),
		T(test_blocked_uint32_saturates),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
