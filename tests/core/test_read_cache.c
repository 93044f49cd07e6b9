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
 *  - the formulas a read computes itself, without a call (a ratio of two
 *    raw values, times numbers, between bounds; one raw value times a
 *    number: og_session_plan_single), give the same bits too, with a zero
 *    divisor and counts at and past 2^63, in every type; and forms it must
 *    not take (a product of three, a number so large the value overflows,
 *    a bound 0 the value can meet as -0) are left to a call or the general
 *    path;
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
#include <unistd.h>

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
 * is refused (a seccomp filter): every read takes the lock there. */
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

/* Every counter (n) of session s, every sample and one past, every getter:
 * round 0 fills the cache (its first read looks the session up), round 1
 * reads from it, round 2 under the lock (trace logging on); all three the
 * same.  Returns how many reads of round 0 answered. */
static unsigned compare_rounds(unsigned s, gpa_uint32 n)
{
	static uint64_t first[SAMPLES + 1][MAX_COUNTERS][5];
	static GPA_Status st_first[SAMPLES + 1][MAX_COUNTERS][5];
	unsigned ok = 0;
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
	assert_int_equal(GPA_RegisterLoggingCallback(GPA_LOGGING_ERROR, quiet), GPA_STATUS_OK);
	return ok;
}

static gpa_uint32 enable_all(void)
{
	gpa_uint32 n = 0;
	assert_int_equal(GPA_GetNumCounters(&n), GPA_STATUS_OK);
	assert_true(n > 0 && n < MAX_COUNTERS);
	for (gpa_uint32 c = 0; c < n; c++)
		assert_int_equal(GPA_EnableCounter(c), GPA_STATUS_OK);
	return n;
}

static void same_answers(const char *builtin_set, uint64_t offset)
{
	open_with(builtin_set, offset);
	join_or_skip();
	gpa_uint32 n = enable_all();
	unsigned ok = compare_rounds(dense_session(), n);
	/* Most reads answered: every counter of every sample, in its type. */
	assert_true(ok >= SAMPLES * n);
	tu_teardown();
}

/* Each form og_session_plan_single reads in place, in each type, and
 * forms it must leave alone (over R0..R3 of the fake counter file). */
static const char formulas[] =
	"counter Ratio\n    group: Fake\n    usage: items\n    type: float64\n"
	"    description: a / b.\n    expression: R0 / R1\n\n"
	"counter Percent\n    group: Fake\n    usage: percentage\n    type: float64\n"
	"    description: a / b * n.\n    expression: R1 / R0 * 100\n\n"
	"counter Scaled100\n    group: Fake\n    usage: items\n    type: float32\n"
	"    description: n * a / b.\n    expression: 100 * R2 / R1\n\n"
	"counter AScaled\n    group: Fake\n    usage: items\n    type: uint64\n"
	"    description: a * n / b * n.\n    expression: R2 * 3 / R3 * 7\n\n"
	"counter Clamped\n    group: Fake\n    usage: percentage\n    type: float64\n"
	"    description: bounds.\n    expression: max(min((R0 / R1) * 100, 100), 0)\n\n"
	"counter ClampedHigh\n    group: Fake\n    usage: percentage\n    type: float64\n"
	"    description: bounds, the high one met.\n"
	"    expression: max(min(R3 / R2 * 100, 150), 0)\n\n"
	"counter Clamped32\n    group: Fake\n    usage: items\n    type: uint32\n"
	"    description: bounds.\n    expression: max(min(R3 / R1 * -1e3, 5e9), -4)\n\n"
	"counter Times\n    group: Fake\n    usage: items\n    type: uint64\n"
	"    description: a * n.\n    expression: R3 * 16\n\n"
	"counter NTimes\n    group: Fake\n    usage: items\n    type: float64\n"
	"    description: n * a.\n    expression: -0.25 * R0\n\n"
	"counter Times32\n    group: Fake\n    usage: items\n    type: uint32\n"
	"    description: a * n.\n    expression: R1 * 3.5\n\n"
	"counter RawF\n    group: Fake\n    usage: items\n    type: float32\n"
	"    description: a.\n    expression: R2\n\n"
	"counter Thrice\n    group: Fake\n    usage: items\n    type: float64\n"
	"    description: a product of three rounds twice.\n    expression: R0 * 3 * 0.1\n\n"
	"counter Huge\n    group: Fake\n    usage: items\n    type: float64\n"
	"    description: overflows.\n    expression: R0 / R1 * 1e300\n\n"
	"counter Inverted\n    group: Fake\n    usage: items\n    type: float64\n"
	"    description: bounds the wrong way round.\n"
	"    expression: max(min(R0 / R1, 1), 5)\n\n"
	"counter NegHigh0\n    group: Fake\n    usage: items\n    type: float64\n"
	"    description: -0 against a bound 0.\n"
	"    expression: max(min(R1 / R2 * -100, 0), -50)\n\n"
	"counter NegLow0\n    group: Fake\n    usage: items\n    type: float64\n"
	"    description: -0 against a bound 0.\n"
	"    expression: max(min(R1 / R2 * -100, 5), 0)\n\n"
	"counter Bounded\n    group: Fake\n    usage: items\n    type: float64\n"
	"    description: a bound without a divisor.\n    expression: min(R0 * 2, 5)\n\n"
	"counter BoundedBoth\n    group: Fake\n    usage: items\n    type: float64\n"
	"    description: bounds without a divisor.\n    expression: max(min(R2 * 2, 5e6), 1)\n";

static void test_same_answers_formulas(void **state)
{
	(void)state;
	char path[] = "/tmp/opengpa-test-formulas-XXXXXX";
	tu_write_temp(path, formulas);
	tu_setup();
	GPA_Status added = OpenGPA_AddCounterFile(path);
	GPA_Status opened = GPA_OpenContext(&key);
	unlink(path);
	assert_int_equal(added, GPA_STATUS_OK);
	assert_int_equal(opened, GPA_STATUS_OK);
	assert_int_equal(GPA_RegisterLoggingCallback(GPA_LOGGING_ERROR, quiet), GPA_STATUS_OK);
	join_or_skip();
	gpa_uint32 n = enable_all();
	/* R1 counts 0 in sample 0 (a zero divisor, and -0 in NegHigh0 and
	 * NegLow0, whose bound 0 keeps them from the read's min and max:
	 * og_session_plan_single); R0 counts past 2^63 in every sample (it
	 * wraps to 2^64 less a little), R2 and R3 are small. */
	gpa_uint32 r1;
	assert_int_equal(GPA_GetCounterIndex("C1", &r1), GPA_STATUS_OK);
	fake_config.value_offset = 0 - fake_value(1, 0, tu_pass_of(r1));
	unsigned s = dense_session();
	size_t kinds[6];
	assert_int_equal(og_testing_session_single_kinds(s, kinds), GPA_STATUS_OK);
	/* Ratio, Percent, Clamped, ClampedHigh, Clamped32, Inverted;
	 * Scaled100, AScaled;
	 * Times, NTimes, Times32; C0..C5, Small, RawF (a float raw count is
	 * read as it is). */
	assert_int_equal(kinds[4], 6);
	assert_int_equal(kinds[5], 2);
	assert_int_equal(kinds[3], 3);
	assert_int_equal(kinds[1], 8);
	unsigned ok = compare_rounds(s, n);
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

/* The fake counter file's context, the thread reading without the lock,
 * counter C0 enabled. */
static void open_c0(void)
{
	open_with(NULL, 0);
	join_or_skip();
	assert_int_equal(GPA_EnableCounter(FC_C0), GPA_STATUS_OK);
}

static void test_cache_forgets(void **state)
{
	(void)state;
	open_c0();
	gpa_uint64 v;
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

static unsigned hooked;

static void disable_c0_once(void)
{
	hooked++;
	og_testing_set_fill_hook(NULL);
	assert_int_equal(GPA_DisableCounter(FC_C0), GPA_STATUS_OK);
}

/* A change made while a read fills its cache, after its look-up and
 * before its stores (as a writer on another thread can): the read looks
 * at read_gen again after its stores, and keeps nothing (cache_fill).
 * Without that second look the disabled counter is answered from the
 * cache, by this read and the next. */
static void test_cache_fill_raced(void **state)
{
	(void)state;
	open_c0();
	gpa_uint64 v;
	unsigned a = dense_session();
	hooked = 0;
	og_testing_set_fill_hook(disable_c0_once);
	assert_int_equal(GPA_GetSampleUInt64(a, 0, FC_C0, &v), GPA_STATUS_ERROR_NOT_ENABLED);
	assert_int_equal(hooked, 1);
	assert_int_equal(GPA_GetSampleUInt64(a, 0, FC_C0, &v), GPA_STATUS_ERROR_NOT_ENABLED);
	assert_true(og_testing_reads_unlocked());
	/* Enabled again: the counter is read again (the session is no longer
	 * kept: its counters are not the enabled ones it began with). */
	assert_int_equal(GPA_EnableCounter(FC_C0), GPA_STATUS_OK);
	assert_int_equal(GPA_GetSampleUInt64(a, 0, FC_C0, &v), GPA_STATUS_OK);
	assert_int_equal(GPA_GetSampleUInt64(a, 1, FC_C0, &v), GPA_STATUS_OK);
	assert_int_equal(hooked, 1);
	tu_teardown();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_answers_builtin),
		cmocka_unit_test(test_same_answers_builtin_near_2_32),
		cmocka_unit_test(test_same_answers_counter_file),
		cmocka_unit_test(test_same_answers_formulas),
		cmocka_unit_test(test_cache_forgets),
		cmocka_unit_test(test_cache_fill_raced),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
