/* SPDX-License-Identifier: MIT */
/*
 * test_read_cache.c — the thread's cached session look-up of the unlocked
 * GPA_GetSample* reads (lib/core/readers.h, struct og_read_cache; issue
 * 29).  A read that finds the session it found last skips the look-up, so:
 *
 *  - its answers must be the look-up's and the lock's, bit for bit, for
 *    every counter (raw counts, generated formulas, interpreted ones), every
 *    sample (and one past the last), every getter, with counts near 2^32
 *    (the uint32 getters clamp them), for a built-in set and a counter file;
 *  - it must forget: a session that left the ring, a closed context whose
 *    successor reuses the session id, a counter disabled since, trace
 *    logging turned on since.  Built with -Db_sanitize=address, a cache
 *    that kept a freed session fails here too.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/testing.h"
#include "fake_backend.h"
#include "opengpa.h"
#include "test_util.h"

#define SAMPLES 4
#define MAX_COUNTERS 256

static int key;

static void quiet(GPA_Logging_Type type, const char *msg)
{
	(void)type;
	(void)msg;
}

static unsigned traced;

static void count_trace(GPA_Logging_Type type, const char *msg)
{
	(void)msg;
	traced += type == GPA_LOGGING_TRACE;
}

static void open_with(const char *builtin_set, uint64_t offset)
{
	tu_setup();
	fake_config.builtin_set = builtin_set;
	fake_config.value_offset = offset;
	assert_int_equal(GPA_OpenContext(&key), GPA_STATUS_OK);
	assert_int_equal(GPA_RegisterLoggingCallback(GPA_LOGGING_ERROR, quiet), GPA_STATUS_OK);
}

/* The first read gives the thread its reader record; skip where membarrier
 * is refused (valgrind, seccomp): every read takes the lock there. */
static void join_or_skip(void)
{
	gpa_uint64 v;
	GPA_GetSampleUInt64(1, 0, 0, &v);
	if (!og_testing_reads_unlocked())
		skip();
}

static GPA_Status read_any(gpa_uint32 s, gpa_uint32 sample, gpa_uint32 c, int getter,
                           uint64_t *bits)
{
	*bits = 0;
	switch (getter) {
	case 0: return GPA_GetSampleUInt64(s, sample, c, (gpa_uint64 *)bits);
	case 1: return GPA_GetSampleUInt32(s, sample, c, (gpa_uint32 *)bits);
	case 2: return GPA_GetSampleFloat64(s, sample, c, (gpa_float64 *)bits);
	case 3: return GPA_GetSampleFloat32(s, sample, c, (gpa_float32 *)bits);
	default: return GPA_GetSampleFloat64(s, sample, c, NULL);
	}
}

static unsigned dense_session(void)
{
	static const unsigned ids[SAMPLES] = { 0, 1, 2, 3 };
	return tu_run_session(ids, SAMPLES);
}

static void same_answers(const char *builtin_set, uint64_t offset)
{
	open_with(builtin_set, offset);
	join_or_skip();
	gpa_uint32 n = 0;
	assert_int_equal(GPA_GetNumCounters(&n), GPA_STATUS_OK);
	assert_true(n > 0 && n < MAX_COUNTERS);
	for (gpa_uint32 c = 0; c < n; c++)
		assert_int_equal(GPA_EnableCounter(c), GPA_STATUS_OK);
	unsigned s = dense_session();
	static uint64_t first[SAMPLES + 1][MAX_COUNTERS][5];
	static GPA_Status st_first[SAMPLES + 1][MAX_COUNTERS][5];
	unsigned ok = 0;
	/* Round 0 fills the cache (its first read looks the session up), round
	 * 1 reads from it, round 2 under the lock (trace logging on). */
	for (int round = 0; round < 3; round++) {
		if (round == 2) {
			assert_int_equal(GPA_RegisterLoggingCallback(GPA_LOGGING_TRACE, count_trace),
			                 GPA_STATUS_OK);
			traced = 0;
		}
		for (unsigned i = 0; i <= SAMPLES; i++)
			for (gpa_uint32 c = 0; c <= n; c++)
				for (int g = 0; g < 5; g++) {
					uint64_t bits;
					GPA_Status st = read_any(s, i, c, g, &bits);
					assert_true(og_testing_reads_unlocked() == (round < 2));
					if (round == 0) {
						st_first[i][c][g] = st;
						first[i][c][g] = bits;
						ok += st == GPA_STATUS_OK;
						continue;
					}
					if (st != st_first[i][c][g] || bits != first[i][c][g])
						fail_msg("round %d, sample %u, counter %u, getter %d: status %d "
						         "bits %#llx, first %d %#llx", round, i, c, g, (int)st,
						         (unsigned long long)bits, (int)st_first[i][c][g],
						         (unsigned long long)first[i][c][g]);
				}
	}
	assert_int_equal(traced, (SAMPLES + 1) * (n + 1) * 5);
	/* Most reads answered: every counter of every sample, in its type. */
	assert_true(ok >= SAMPLES * n);
	tu_teardown();
}

static void test_same_answers_builtin(void **state)
{
	(void)state;
	same_answers("perf-generic", 0);
}

static void test_same_answers_builtin_near_2_32(void **state)
{
	(void)state;
	same_answers("perf-generic", (1ull << 32) - 2);
}

static void test_same_answers_counter_file(void **state)
{
	(void)state;
	same_answers(NULL, (1ull << 32) - 2);
}

static void test_cache_forgets(void **state)
{
	(void)state;
	open_with(NULL, 0);
	join_or_skip();
	gpa_uint64 v;
	assert_int_equal(GPA_EnableCounter(FC_C0), GPA_STATUS_OK);
	assert_int_equal(OpenGPA_SetSessionRingSize(1), GPA_STATUS_OK);

	/* A session that left the ring (and was freed). */
	unsigned a = dense_session();
	assert_int_equal(GPA_GetSampleUInt64(a, SAMPLES - 1, FC_C0, &v), GPA_STATUS_OK);
	assert_int_equal(GPA_GetSampleUInt64(a, SAMPLES - 1, FC_C0, &v), GPA_STATUS_OK);
	unsigned b = dense_session();
	assert_int_equal(GPA_GetSampleUInt64(a, SAMPLES - 1, FC_C0, &v),
	                 GPA_STATUS_ERROR_SESSION_NOT_FOUND);
	assert_int_equal(GPA_GetSampleUInt64(b, SAMPLES - 1, FC_C0, &v), GPA_STATUS_OK);

	/* A counter disabled since, then enabled again. */
	assert_int_equal(GPA_DisableCounter(FC_C0), GPA_STATUS_OK);
	assert_int_equal(GPA_GetSampleUInt64(b, 0, FC_C0, &v), GPA_STATUS_ERROR_NOT_ENABLED);
	assert_int_equal(GPA_EnableCounter(FC_C0), GPA_STATUS_OK);
	assert_int_equal(GPA_GetSampleUInt64(b, 0, FC_C0, &v), GPA_STATUS_OK);

	/* The context closed; its successor's session 1 has fewer samples. */
	assert_int_equal(GPA_GetSampleUInt64(b, SAMPLES - 1, FC_C0, &v), GPA_STATUS_OK);
	assert_int_equal(GPA_CloseContext(), GPA_STATUS_OK);
	assert_int_equal(GPA_GetSampleUInt64(b, SAMPLES - 1, FC_C0, &v),
	                 GPA_STATUS_ERROR_COUNTERS_NOT_OPEN);
	assert_int_equal(GPA_OpenContext(&key), GPA_STATUS_OK);
	assert_int_equal(GPA_EnableCounter(FC_C0), GPA_STATUS_OK);
	static const unsigned two[2] = { 0, 1 };
	unsigned c = 0;
	while (c != b) /* the same id as b had */
		c = tu_run_session(two, 2);
	assert_int_equal(GPA_GetSampleUInt64(c, 1, FC_C0, &v), GPA_STATUS_OK);
	assert_int_equal(GPA_GetSampleUInt64(c, SAMPLES - 1, FC_C0, &v),
	                 GPA_STATUS_ERROR_SAMPLE_NOT_FOUND);

	/* Trace logging turned on after a cached read: the next read is traced. */
	assert_int_equal(GPA_GetSampleUInt64(c, 1, FC_C0, &v), GPA_STATUS_OK);
	assert_int_equal(GPA_RegisterLoggingCallback(GPA_LOGGING_TRACE, count_trace), GPA_STATUS_OK);
	traced = 0;
	assert_int_equal(GPA_GetSampleUInt64(c, 1, FC_C0, &v), GPA_STATUS_OK);
	assert_int_equal(traced, 1);
	assert_false(og_testing_reads_unlocked());
	tu_teardown();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_answers_builtin),
		cmocka_unit_test(test_same_answers_builtin_near_2_32),
		cmocka_unit_test(test_same_answers_counter_file),
		cmocka_unit_test(test_cache_forgets),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
