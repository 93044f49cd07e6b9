/* SPDX-License-Identifier: MIT */
/*
 * test_thread_stress.c — many threads driving the public API at once, as a
 * multi-threaded engine or tool would: each of several threads opens a GPA
 * 3.x context of its own, runs sessions of one and two passes, reads every
 * sample back and closes the context, over and over; other threads read the
 * results of sessions they did not make while their owners delete them and
 * close their contexts; a GPA 2.x client runs sessions on the process-wide
 * context meanwhile, and another thread queries it while it opens and
 * closes.  Every call must return a status the documentation allows for
 * that situation (docs/api.md, docs/api-gpa3.md), and every completed
 * session must read back what the fake device counted, checked through the
 * relations its values keep (fake_backend.h).  CI runs it under
 * ThreadSanitizer (scripts/sanitize.sh).
 */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "fake_backend.h"
#include "test_util.h"

#include "gpa3/gpu_performance_api/gpu_perf_api.h"

#define OWNERS 6
#define ROUNDS 25
#define READERS 2
#define SAMPLES 3

static GpaFunctionTable t;
static int owner_key[OWNERS], legacy_key;
static GpaSessionId published[OWNERS]; /* atomic: a session its owner has ended */
static int owners_done;                /* atomic */
static unsigned long bad, sessions_checked, foreign_reads, foreign_gone; /* atomic */

static void fail_here(int line, const char *what, long status)
{
	fprintf(stderr, "line %d: %s (status %ld)\n", line, what, status);
	__atomic_add_fetch(&bad, 1, __ATOMIC_RELAXED);
}

/* A status one of the listed ones, else a failure of the test. */
#define EXPECT(call, ...) \
	do { \
		const long got_ = (long)(call), ok_[] = { __VA_ARGS__ }; \
		bool hit_ = false; \
		for (size_t i_ = 0; i_ < sizeof(ok_) / sizeof(ok_[0]); i_++) \
			hit_ |= got_ == ok_[i_]; \
		if (!hit_) \
			fail_here(__LINE__, #call, got_); \
	} while (0)

#define CHECK(cond) \
	do { \
		if (!(cond)) \
			fail_here(__LINE__, #cond, 0); \
	} while (0)

/* The fake counts (slot + 1) * 10^6 + (pass + 1) * 1000 + ordinal + 1 in the
 * ordinal-th sample of a pass, whatever the pass number. */
static bool counts(uint64_t v, unsigned slot, unsigned ordinal)
{
	return v / 1000000u == slot + 1 && v % 1000u == ordinal + 1;
}

/* Results of sample `ordinal` of a session counting C0, C1, Sum01, Nested
 * (one pass) and, with two passes, C2. */
static void check_result(const void *buf, unsigned ordinal, bool two_passes)
{
	uint64_t c0, c1, c2;
	double sum, nested;
	memcpy(&c0, (const char *)buf, 8);
	memcpy(&c1, (const char *)buf + 8, 8);
	memcpy(&sum, (const char *)buf + 16, 8);
	memcpy(&nested, (const char *)buf + 24, 8);
	CHECK(counts(c0, 0, ordinal));
	CHECK(counts(c1, 1, ordinal));
	CHECK(c1 - c0 == 1000000u); /* both from the same pass */
	CHECK(sum == (double)c0 + (double)c1);
	CHECK(nested == 2 * sum);
	if (two_passes) {
		memcpy(&c2, (const char *)buf + 32, 8);
		CHECK(counts(c2, 2, ordinal));
	}
}

static void record(GpaSessionId s, GpaUInt32 passes)
{
	for (GpaUInt32 p = 0; p < passes; p++) {
		GpaCommandListId cl = NULL;
		EXPECT(t.GpaBeginCommandList(s, p, GPA_NULL_COMMAND_LIST, kGpaCommandListNone, &cl),
		       kGpaStatusOk);
		for (GpaUInt32 id = 0; id < SAMPLES; id++) {
			EXPECT(t.GpaBeginSample(100 + id, cl), kGpaStatusOk);
			EXPECT(t.GpaEndSample(cl), kGpaStatusOk);
		}
		EXPECT(t.GpaEndCommandList(cl), kGpaStatusOk);
	}
}

static void *owner(void *arg)
{
	unsigned me = (unsigned)(uintptr_t)arg;
	for (unsigned round = 0; round < ROUNDS; round++) {
		GpaContextId ctx = NULL;
		EXPECT(t.GpaOpenContext(&owner_key[me], kGpaOpenContextDefaultBit, &ctx), kGpaStatusOk);
		if (!ctx)
			continue;
		GpaUInt32 n = 0;
		EXPECT(t.GpaGetNumCounters(ctx, &n), kGpaStatusOk);
		CHECK(n == FC_COUNT);
		bool two = (round + me) % 2;
		GpaSessionId s = NULL;
		EXPECT(t.GpaCreateSession(ctx, kGpaSessionSampleTypeDiscreteCounter, &s), kGpaStatusOk);
		EXPECT(t.GpaEnableCounter(s, FC_C0), kGpaStatusOk);
		EXPECT(t.GpaEnableCounterByName(s, "C1"), kGpaStatusOk);
		EXPECT(t.GpaEnableCounter(s, FC_SUM01), kGpaStatusOk);
		EXPECT(t.GpaEnableCounter(s, FC_NESTED), kGpaStatusOk);
		if (two)
			EXPECT(t.GpaEnableCounter(s, FC_C2), kGpaStatusOk);
		GpaUInt32 passes = 0;
		EXPECT(t.GpaGetPassCount(s, &passes), kGpaStatusOk);
		CHECK(passes == (two ? 2u : 1u));
		EXPECT(t.GpaBeginSession(s), kGpaStatusOk);
		record(s, passes);
		EXPECT(t.GpaEndSession(s), kGpaStatusOk);
		EXPECT(t.GpaIsSessionComplete(s), kGpaStatusOk);
		GpaUInt32 count = 0;
		EXPECT(t.GpaGetSampleCount(s, &count), kGpaStatusOk);
		CHECK(count == SAMPLES);
		for (unsigned k = 0; k < SAMPLES; k++) {
			size_t size = 0;
			char buf[64];
			EXPECT(t.GpaGetSampleResultSize(s, 100 + k, &size), kGpaStatusOk);
			CHECK(size == (two ? 40u : 32u));
			EXPECT(t.GpaGetSampleResult(s, 100 + k, sizeof buf, buf), kGpaStatusOk);
			check_result(buf, k, two);
		}
		__atomic_add_fetch(&sessions_checked, 1, __ATOMIC_RELAXED);
		/* Let the readers at it, then take it away: by deleting it, or by
		 * closing the context under it. */
		__atomic_store_n(&published[me], s, __ATOMIC_RELEASE);
		sched_yield();
		if (round % 3 == 0)
			EXPECT(t.GpaDeleteSession(s), kGpaStatusOk);
		EXPECT(t.GpaCloseContext(ctx), kGpaStatusOk);
		/* A closed context's handle is not found, never a crash. */
		EXPECT(t.GpaGetNumCounters(ctx, &n), kGpaStatusErrorContextNotFound);
	}
	__atomic_add_fetch(&owners_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* Reads sessions other threads made, while they delete them. */
static void *reader(void *arg)
{
	unsigned me = (unsigned)(uintptr_t)arg;
	for (unsigned i = 0; __atomic_load_n(&owners_done, __ATOMIC_ACQUIRE) < OWNERS; i++) {
		GpaSessionId s = __atomic_load_n(&published[(i + me) % OWNERS], __ATOMIC_ACQUIRE);
		if (!s) {
			sched_yield();
			continue;
		}
		unsigned k = i % SAMPLES;
		size_t size = 0;
		char buf[64];
		GpaStatus st = t.GpaGetSampleResultSize(s, 100 + k, &size);
		EXPECT(st, kGpaStatusOk, kGpaStatusErrorSessionNotFound);
		if (st != kGpaStatusOk) {
			__atomic_add_fetch(&foreign_gone, 1, __ATOMIC_RELAXED);
			continue;
		}
		CHECK(size == 32 || size == 40);
		st = t.GpaGetSampleResult(s, 100 + k, sizeof buf, buf);
		EXPECT(st, kGpaStatusOk, kGpaStatusErrorSessionNotFound);
		if (st == kGpaStatusOk) {
			check_result(buf, k, size == 40);
			__atomic_add_fetch(&foreign_reads, 1, __ATOMIC_RELAXED);
		}
	}
	return NULL;
}

/* A GPA 2.x client on the process-wide context, opened and closed per round. */
static void *legacy(void *arg)
{
	(void)arg;
	for (unsigned round = 0; __atomic_load_n(&owners_done, __ATOMIC_ACQUIRE) < OWNERS; round++) {
		EXPECT(GPA_OpenContext(&legacy_key), GPA_STATUS_OK);
		EXPECT(GPA_EnableCounter(FC_C0), GPA_STATUS_OK);
		EXPECT(GPA_EnableCounter(FC_SUM01), GPA_STATUS_OK);
		gpa_uint32 s = 0, passes = 0;
		EXPECT(GPA_BeginSession(&s), GPA_STATUS_OK);
		EXPECT(GPA_GetPassCount(&passes), GPA_STATUS_OK);
		CHECK(passes == 1);
		EXPECT(GPA_BeginPass(), GPA_STATUS_OK);
		for (gpa_uint32 id = 0; id < SAMPLES; id++) {
			EXPECT(GPA_BeginSample(id), GPA_STATUS_OK);
			EXPECT(GPA_EndSample(), GPA_STATUS_OK);
		}
		EXPECT(GPA_EndPass(), GPA_STATUS_OK);
		EXPECT(GPA_EndSession(), GPA_STATUS_OK);
		for (gpa_uint32 id = 0; id < SAMPLES; id++) {
			gpa_uint64 c0 = 0;
			gpa_float64 sum = 0;
			EXPECT(GPA_GetSampleUInt64(s, id, FC_C0, &c0), GPA_STATUS_OK);
			EXPECT(GPA_GetSampleFloat64(s, id, FC_SUM01, &sum), GPA_STATUS_OK);
			CHECK(counts(c0, 0, id));
			CHECK(sum == 2.0 * (double)c0 + 1000000.0);
		}
		EXPECT(GPA_CloseContext(), GPA_STATUS_OK);
	}
	return NULL;
}

/* Queries of the process-wide context while the legacy thread opens and
 * closes it. */
static void *query(void *arg)
{
	(void)arg;
	for (unsigned i = 0; __atomic_load_n(&owners_done, __ATOMIC_ACQUIRE) < OWNERS; i++) {
		gpa_uint32 n = 0, index = 0;
		const char *name = NULL;
		GPA_Status st = GPA_GetNumCounters(&n);
		EXPECT(st, GPA_STATUS_OK, GPA_STATUS_ERROR_COUNTERS_NOT_OPEN);
		if (st == GPA_STATUS_OK)
			CHECK(n == FC_COUNT);
		EXPECT(GPA_GetCounterName(i % FC_COUNT, &name), GPA_STATUS_OK,
		       GPA_STATUS_ERROR_COUNTERS_NOT_OPEN);
		st = GPA_GetCounterIndex("Nested", &index);
		EXPECT(st, GPA_STATUS_OK, GPA_STATUS_ERROR_COUNTERS_NOT_OPEN);
		if (st == GPA_STATUS_OK)
			CHECK(index == FC_NESTED);
		bool ready = false;
		EXPECT(GPA_IsSessionReady(&ready, 1), GPA_STATUS_OK, GPA_STATUS_ERROR_SESSION_NOT_FOUND,
		       GPA_STATUS_ERROR_COUNTERS_NOT_OPEN);
	}
	return NULL;
}

static void quiet(GpaLoggingType type, const char *msg)
{
	(void)type;
	(void)msg;
}

static void quiet2(GPA_Logging_Type type, const char *msg)
{
	(void)type;
	(void)msg;
}

static void test_many_threads(void **state)
{
	(void)state;
	tu_setup();
	fake_config.max_per_pass = 2;
	memset(&t, 0, sizeof(t));
	t.major_version = GPA_FUNCTION_TABLE_MAJOR_VERSION_NUMBER;
	t.minor_version = GPA_FUNCTION_TABLE_MINOR_VERSION_NUMBER;
	assert_int_equal(GpaGetFuncTable(&t), kGpaStatusOk);
	/* Failures are expected (the readers' stale handles): count, do not print. */
	assert_int_equal(t.GpaRegisterLoggingCallback(kGpaLoggingError, quiet), kGpaStatusOk);
	assert_int_equal(GPA_RegisterLoggingCallback(GPA_LOGGING_ERROR, quiet2), GPA_STATUS_OK);
	assert_int_equal(t.GpaInitialize(kGpaInitializeDefaultBit), kGpaStatusOk);

	pthread_t own[OWNERS], rd[READERS], leg, q;
	for (unsigned i = 0; i < OWNERS; i++)
		assert_int_equal(pthread_create(&own[i], NULL, owner, (void *)(uintptr_t)i), 0);
	for (unsigned i = 0; i < READERS; i++)
		assert_int_equal(pthread_create(&rd[i], NULL, reader, (void *)(uintptr_t)i), 0);
	assert_int_equal(pthread_create(&leg, NULL, legacy, NULL), 0);
	assert_int_equal(pthread_create(&q, NULL, query, NULL), 0);
	for (unsigned i = 0; i < OWNERS; i++)
		assert_int_equal(pthread_join(own[i], NULL), 0);
	for (unsigned i = 0; i < READERS; i++)
		assert_int_equal(pthread_join(rd[i], NULL), 0);
	assert_int_equal(pthread_join(leg, NULL), 0);
	assert_int_equal(pthread_join(q, NULL), 0);

	printf("%lu sessions checked by their owners; %lu read by other threads, %lu gone first\n",
	       sessions_checked, foreign_reads, foreign_gone);
	assert_int_equal(bad, 0);
	assert_int_equal(sessions_checked, OWNERS * ROUNDS);
	assert_int_equal(t.GpaDestroy(), kGpaStatusOk);
	tu_teardown();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_many_threads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
