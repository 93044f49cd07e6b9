/* SPDX-License-Identifier: MIT */
/*
 * test_threads.c — the API from several threads at once: four threads
 * query and enable/disable while one runs sessions.  Every status must be
 * one the call may return in some interleaving, and the state consistent
 * at the end.  Run it under valgrind --tool=helgrind as well.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "fake_backend.h"
#include "test_util.h"

#define THREADS 4
#define ITERATIONS 2000
#define SESSIONS 300

static int key;
static unsigned long errors_logged;
static int stop_sessions; /* atomic */
static unsigned bad[THREADS + 1];

static void count_log(GPA_Logging_Type type, const char *msg)
{
	(void)msg;
	if (type & GPA_LOGGING_ERROR)
		__atomic_add_fetch(&errors_logged, 1, __ATOMIC_RELAXED);
}

#define ALLOWED(st, ...) \
	do { \
		const GPA_Status got_ = (st), ok_[] = { __VA_ARGS__ }; \
		bool hit_ = false; \
		for (size_t i_ = 0; i_ < sizeof(ok_) / sizeof(ok_[0]); i_++) \
			hit_ |= got_ == ok_[i_]; \
		if (!hit_) { \
			fprintf(stderr, "line %d: unexpected status %d\n", __LINE__, (int)got_); \
			bad[me]++; \
		} \
	} while (0)

static void *worker(void *arg)
{
	unsigned me = (unsigned)(uintptr_t)arg;
	unsigned seed = me * 7919u + 1;
	for (unsigned it = 0; it < ITERATIONS; it++) {
		seed = seed * 1103515245u + 12345u;
		gpa_uint32 c = (seed >> 8) % FC_COUNT, n = 0, idx = 0;
		const char *s = NULL;
		GPA_Type t;
		ALLOWED(GPA_GetNumCounters(&n), GPA_STATUS_OK);
		if (n != FC_COUNT)
			bad[me]++;
		ALLOWED(GPA_GetCounterName(c, &s), GPA_STATUS_OK);
		ALLOWED(GPA_GetCounterDataType(c, &t), GPA_STATUS_OK);
		ALLOWED(GPA_GetCounterIndex(s, &idx), GPA_STATUS_OK);
		if (idx != c)
			bad[me]++;
		ALLOWED(GPA_GetEnabledCount(&n), GPA_STATUS_OK);
		ALLOWED(GPA_GetEnabledIndex(0, &idx), GPA_STATUS_OK, GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE);
		ALLOWED(GPA_IsCounterEnabled(c), GPA_STATUS_OK, GPA_STATUS_ERROR_NOT_FOUND);
		GPA_Status st;
		switch ((seed >> 20) % 4) {
		case 0:
			st = GPA_EnableCounter(c);
			ALLOWED(st, GPA_STATUS_OK, GPA_STATUS_ERROR_ALREADY_ENABLED,
			        GPA_STATUS_ERROR_CANNOT_CHANGE_COUNTERS_WHEN_SAMPLING);
			break;
		case 1:
			st = GPA_DisableCounter(c);
			ALLOWED(st, GPA_STATUS_OK, GPA_STATUS_ERROR_NOT_ENABLED,
			        GPA_STATUS_ERROR_CANNOT_CHANGE_COUNTERS_WHEN_SAMPLING);
			break;
		case 2:
			st = GPA_EnableCounterStr(s);
			ALLOWED(st, GPA_STATUS_OK, GPA_STATUS_ERROR_ALREADY_ENABLED,
			        GPA_STATUS_ERROR_CANNOT_CHANGE_COUNTERS_WHEN_SAMPLING);
			break;
		default: {
			gpa_uint32 passes = 0;
			ALLOWED(GPA_GetPassCount(&passes), GPA_STATUS_OK);
			bool ready;
			ALLOWED(GPA_IsSessionReady(&ready, 1 + (seed % 8)), GPA_STATUS_OK,
			        GPA_STATUS_ERROR_SESSION_NOT_FOUND);
			break;
		}
		}
	}
	return NULL;
}

static void *sessions(void *arg)
{
	(void)arg;
	const unsigned me = THREADS;
	unsigned done = 0;
	for (unsigned i = 0; i < SESSIONS || !__atomic_load_n(&stop_sessions, __ATOMIC_SEQ_CST); i++) {
		gpa_uint32 s = 0, passes = 0;
		GPA_Status st = GPA_BeginSession(&s);
		ALLOWED(st, GPA_STATUS_OK, GPA_STATUS_ERROR_NO_COUNTERS_ENABLED);
		if (st != GPA_STATUS_OK)
			continue;
		/* Fixed while the session is open. */
		ALLOWED(GPA_GetPassCount(&passes), GPA_STATUS_OK);
		for (gpa_uint32 p = 0; p < passes; p++) {
			ALLOWED(GPA_BeginPass(), GPA_STATUS_OK);
			for (gpa_uint32 id = 0; id < 3; id++) {
				ALLOWED(GPA_BeginSample(id * 10), GPA_STATUS_OK);
				ALLOWED(GPA_EndSample(), GPA_STATUS_OK);
			}
			ALLOWED(GPA_EndPass(), GPA_STATUS_OK);
		}
		ALLOWED(GPA_EndSession(), GPA_STATUS_OK);
		gpa_uint32 count = 0;
		ALLOWED(GPA_GetSampleCount(s, &count), GPA_STATUS_OK);
		if (count != 3)
			bad[me]++;
		gpa_uint64 v;
		/* C0 may or may not be enabled now, or have been in this session. */
		ALLOWED(GPA_GetSampleUInt64(s, 10, FC_C0, &v), GPA_STATUS_OK,
		        GPA_STATUS_ERROR_NOT_ENABLED, GPA_STATUS_ERROR_READING_COUNTER_RESULT);
		done++;
	}
	return (void *)(uintptr_t)done;
}

static void test_threads(void **state)
{
	(void)state;
	tu_open(&key);
	fake_config.max_per_pass = 3;
	assert_int_equal(GPA_RegisterLoggingCallback(GPA_LOGGING_ERROR, count_log), GPA_STATUS_OK);
	assert_int_equal(GPA_EnableCounter(FC_C0), GPA_STATUS_OK);
	pthread_t t[THREADS], st;
	assert_int_equal(pthread_create(&st, NULL, sessions, NULL), 0);
	for (unsigned i = 0; i < THREADS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)i), 0);
	for (unsigned i = 0; i < THREADS; i++)
		tu_join_within(t[i], NULL, 6 * TU_DEADLINE_MS, "a worker thread");
	__atomic_store_n(&stop_sessions, 1, __ATOMIC_SEQ_CST);
	void *done;
	tu_join_within(st, &done, TU_DEADLINE_MS, "the session thread after the workers");
	for (unsigned i = 0; i <= THREADS; i++)
		assert_int_equal(bad[i], 0);
	assert_true((uintptr_t)done > 0);

	/* The enable list and the per-counter flags agree. */
	gpa_uint32 n = 0, idx;
	assert_int_equal(GPA_GetEnabledCount(&n), GPA_STATUS_OK);
	bool seen[FC_COUNT] = { false };
	for (gpa_uint32 i = 0; i < n; i++) {
		assert_int_equal(GPA_GetEnabledIndex(i, &idx), GPA_STATUS_OK);
		assert_true(idx < FC_COUNT);
		assert_false(seen[idx]);
		seen[idx] = true;
	}
	for (gpa_uint32 c = 0; c < FC_COUNT; c++)
		assert_int_equal(GPA_IsCounterEnabled(c), seen[c] ? GPA_STATUS_OK : GPA_STATUS_ERROR_NOT_FOUND);
	printf("%lu errors logged, %lu sessions run\n", errors_logged, (unsigned long)(uintptr_t)done);
	tu_teardown();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_threads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
