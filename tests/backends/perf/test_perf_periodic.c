/* SPDX-License-Identifier: MIT */
/*
 * test_perf_periodic.c — periodic sessions on the perf backend over the real
 * kernel, through the GPA API: the core's timer thread reads the calling
 * thread's counters every period (with read(), never rdpmc, from its own
 * thread), the samples follow each other without a gap and add up to an
 * ordinary sample over the same span.  Skips where perf_event_open is not
 * permitted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <cmocka.h>

#include "test_clock.h"

#include "GPUPerfAPI.h"
#include "core/testing.h"
#include "opengpa.h"

static char last_error[600];

static void on_log(GPA_Logging_Type type, const char *msg)
{
	if (type & GPA_LOGGING_ERROR)
		snprintf(last_error, sizeof last_error, "%s", msg);
}

static int teardown(void **unused)
{
	(void)unused;
	while (GPA_CloseContext() == GPA_STATUS_OK)
		;
	GPA_Destroy();
	GPA_RegisterLoggingCallback(GPA_LOGGING_NONE, NULL);
	og_testing_reset();
	return 0;
}

/* Opens a perf context counting PageFaults and TaskClock of this thread;
 * false when perf is not usable here. */
static bool open_counting(void *key, gpa_uint32 *faults, gpa_uint32 *clock)
{
	if (GPA_OpenContext(key) != GPA_STATUS_OK)
		return false;
	if (GPA_GetCounterIndex("PageFaults", faults) != GPA_STATUS_OK ||
	    GPA_GetCounterIndex("TaskClock", clock) != GPA_STATUS_OK)
		return false;
	assert_int_equal(GPA_EnableCounter(*faults), GPA_STATUS_OK);
	assert_int_equal(GPA_EnableCounter(*clock), GPA_STATUS_OK);
	return true;
}

static void test_periodic_adds_up(void **unused)
{
	(void)unused;
	og_testing_reset();
	assert_int_equal(GPA_RegisterLoggingCallback(GPA_LOGGING_ERROR, on_log), GPA_STATUS_OK);
	assert_int_equal(GPA_Initialize(), GPA_STATUS_OK);
	assert_int_equal(OpenGPA_SetBackend("perf", ""), GPA_STATUS_OK);
	static int key_whole, key_periodic;
	gpa_uint32 faults, clock, pfaults, pclock;
	if (!open_counting(&key_whole, &faults, &clock)) {
		print_message("perf is not usable here (%s): skipped\n", last_error);
		skip();
	}
	gpa_uint32 whole, session;
	assert_true(open_counting(&key_periodic, &pfaults, &pclock));
	assert_int_equal(OpenGPA_SetSamplingPeriod(5000000), GPA_STATUS_OK);
	assert_int_equal(GPA_BeginSession(&session), GPA_STATUS_OK);
	/* Fresh pages, touched while the pass runs: each a page fault of this
	 * thread, whatever the timer thread does. */
	const size_t pages = 3000;
	unsigned char *mem = mmap(NULL, pages * 4096, PROT_READ | PROT_WRITE,
	                          MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(mem != MAP_FAILED);

	/* The ordinary sample around the periodic pass, opened last so little
	 * but the pass falls in it. */
	assert_int_equal(GPA_SelectContext(&key_whole), GPA_STATUS_OK);
	assert_int_equal(GPA_BeginSession(&whole), GPA_STATUS_OK);
	assert_int_equal(GPA_BeginPass(), GPA_STATUS_OK);
	assert_int_equal(GPA_BeginSample(0), GPA_STATUS_OK);
	assert_int_equal(GPA_SelectContext(&key_periodic), GPA_STATUS_OK);
	uint64_t t0 = tc_now_ns();
	if (GPA_BeginPass() != GPA_STATUS_OK)
		fail_msg("GPA_BeginPass: %s", last_error);
	for (size_t i = 0; i < pages; i++) {
		mem[i * 4096] = 1;
		if (i % 100 == 99) {
			uint64_t until = tc_now_ns() + 3000000; /* 3 ms busy: TaskClock moves */
			while (tc_now_ns() < until)
				;
		}
	}
	assert_int_equal(GPA_EndPass(), GPA_STATUS_OK);
	uint64_t t1 = tc_now_ns();
	assert_int_equal(GPA_EndSession(), GPA_STATUS_OK);
	munmap(mem, pages * 4096);

	gpa_uint32 n = 0;
	assert_int_equal(GPA_GetSampleCount(session, &n), GPA_STATUS_OK);
	uint64_t sum_faults = 0, prev_end = 0, missed = 0;
	double sum_ms = 0;
	for (gpa_uint32 k = 0; k < n; k++) {
		gpa_uint64 f = 0, b = 0, e = 0;
		gpa_float64 ms = 0;
		gpa_uint32 flags = 0;
		assert_int_equal(GPA_GetSampleUInt64(session, k, pfaults, &f), GPA_STATUS_OK);
		assert_int_equal(GPA_GetSampleFloat64(session, k, pclock, &ms), GPA_STATUS_OK);
		assert_int_equal(OpenGPA_GetSampleTime(session, k, &b, &e), GPA_STATUS_OK);
		assert_int_equal(OpenGPA_GetSampleFlags(session, k, &flags), GPA_STATUS_OK);
		sum_faults += f;
		sum_ms += ms;
		assert_true(b >= t0 && e <= t1 && b <= e);
		if (k)
			assert_true(b == prev_end);
		prev_end = e;
		assert_int_equal(!!(flags & OPENGPA_SAMPLE_FINAL), k + 1 == n);
		assert_int_equal(!!(flags & OPENGPA_SAMPLE_LATE), e - b > 7500000);
		/* Periods the thread slept through (a busy machine). */
		if (flags & OPENGPA_SAMPLE_LATE)
			missed += (e - b + 2500000) / 5000000 - 1;
	}
	/* One sample per period, but for the periods late samples cover. */
	uint64_t want = (prev_end - t0) / 5000000;
	assert_true(n >= 2 && n <= want + 1 && n + missed + 1 >= want);

	assert_int_equal(GPA_SelectContext(&key_whole), GPA_STATUS_OK);
	assert_int_equal(GPA_EndSample(), GPA_STATUS_OK);
	assert_int_equal(GPA_EndPass(), GPA_STATUS_OK);
	assert_int_equal(GPA_EndSession(), GPA_STATUS_OK);
	gpa_uint64 all_faults = 0;
	gpa_float64 all_ms = 0;
	assert_int_equal(GPA_GetSampleUInt64(whole, 0, faults, &all_faults), GPA_STATUS_OK);
	assert_int_equal(GPA_GetSampleFloat64(whole, 0, clock, &all_ms), GPA_STATUS_OK);
	print_message("%u samples: %llu faults of %llu, %.3f ms of %.3f\n", n,
	              (unsigned long long)sum_faults, (unsigned long long)all_faults, sum_ms, all_ms);
	/* The same thread's counts, the ordinary sample's only wider by the
	 * library calls around the pass (a few faults; more under a sanitizer,
	 * whose shadow memory faults too). */
	uint64_t outside = all_faults >= sum_faults ? all_faults - sum_faults : UINT64_MAX;
	assert_true(sum_faults >= pages && outside < 64 + all_faults / 20);
	assert_true(sum_ms <= all_ms + 0.01 && all_ms - sum_ms < 5.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_periodic_adds_up, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
