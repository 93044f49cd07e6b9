/* SPDX-License-Identifier: MIT */
/*
 * test_sample_clock.c — the samples' times (lib/core/sample_clock.h): the
 * clock never goes back and stays within OG_SAMPLE_CLOCK_BOUND_NS of
 * clock_gettime(CLOCK_MONOTONIC) read around it; on x86-64 with the tsc
 * clock source it does use the counter once rated, and gives it up for
 * clock_gettime when an extrapolation proves wrong.  Through the API: each
 * GPA sample's OpenGPA_GetSampleTime lies between clock_gettime before its
 * BeginSample and after its EndSample (within the bound), in order.
 *
 * No timing is asserted: a reading taken between two others must lie
 * between them, however slow the machine (a preemption only widens the
 * interval); where the clock needs pairs taken, the case waits for them
 * rather than for a time.  Each case runs for 20-40 ms of wall time.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <cmocka.h>

#include "core/core.h"
#include "core/sample_clock.h"
#include "fake_backend.h"
#include "opengpa.h"
#include "test_util.h"

static uint64_t mono(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Reads c for `ms` of wall time and, when it uses the counter, until it
 * has taken `pairs` pairs (a loaded machine may not run this thread for
 * tens of ms: at most 5 s), each reading checked against clock_gettime on
 * both sides and against the one before.  Returns the readings that did
 * not take a pair (the counter alone answered). */
static unsigned read_for(struct og_sample_clock *c, unsigned ms, uint32_t pairs_wanted)
{
	uint64_t start = mono(), end = start + (uint64_t)ms * 1000000u, prev = 0;
	uint64_t cap = start + 5000000000u;
	unsigned alone = 0, n = 0;
	for (uint64_t now = 0;
	     now < cap && (now < end || (c->mode == OG_SAMPLE_CLOCK_TSC && c->pairs < pairs_wanted));
	     n++) {
		uint32_t pairs = c->pairs;
		uint64_t before = mono();
		uint64_t t = og_sample_clock_ns(c);
		now = mono();
		if (t < prev)
			fail_msg("reading %u went back: %llu after %llu", n, (unsigned long long)t,
			         (unsigned long long)prev);
		if (t + OG_SAMPLE_CLOCK_BOUND_NS < before || t > now + OG_SAMPLE_CLOCK_BOUND_NS)
			fail_msg("reading %u: %llu, but clock_gettime read %llu before it and %llu after",
			         n, (unsigned long long)t, (unsigned long long)before,
			         (unsigned long long)now);
		prev = t;
		alone += c->pairs == pairs;
	}
	print_message("%u readings in %.1f ms, %u without a pair, mode %u, %u pairs\n", n,
	              (double)(mono() - start) / 1e6, alone, c->mode, c->pairs);
	return alone;
}

static void test_bounded_and_monotonic(void **unused)
{
	(void)unused;
	struct og_sample_clock c = { 0 };
	unsigned alone = read_for(&c, 30, 3);
	assert_int_not_equal(c.mode, OG_SAMPLE_CLOCK_UNDECIDED);
#if defined(__x86_64__)
	if (c.mode == OG_SAMPLE_CLOCK_TSC) {
		/* Three pairs, at least two spans: the counter was rated and
		 * answered readings alone. */
		assert_true(c.rated);
		assert_true(c.mult > 0 && c.span > 0);
		assert_true(alone > 0);
		assert_true(c.pairs >= 3);
	}
#else
	/* No counter here: every reading is clock_gettime's (so every one is
	 * "without a pair"), none is a rated extrapolation. */
	assert_int_equal(c.mode, OG_SAMPLE_CLOCK_SYSTEM);
	assert_int_equal(c.pairs, 0);
	assert_false(c.rated);
	(void)alone;
#endif
}

/* A counter that runs at another rate than its rating said: the next pair
 * sees the extrapolation off, and the clock is clock_gettime from then on
 * (within the bound again once past what it had given). */
static void test_gives_up_on_a_wrong_rate(void **unused)
{
	(void)unused;
#if defined(__x86_64__)
	tu_setup();
	struct og_sample_clock c = { 0 };
	read_for(&c, 15, 2);
	if (c.mode != OG_SAMPLE_CLOCK_TSC) {
		tu_teardown();
		skip(); /* the kernel's clock source is not the counter here */
	}
	assert_true(c.rated);
	c.mult = c.mult / 4 * 3; /* the counter now seems 25% slow */
	uint64_t wrong = c.mult;
	/* The next pair that checks the rate, however loaded the machine: a
	 * pair taken after the thread lost the CPU for two spans rates the
	 * counter afresh instead of checking it, so the wrong rate is put back
	 * each time that happens (on a busy 2-core CI VM it does). */
	uint64_t end = mono() + 30000000000u;
	og_lock(); /* og_log's queue, delivered by og_unlock */
	while (mono() < end && c.mode == OG_SAMPLE_CLOCK_TSC) {
		og_sample_clock_ns(&c);
		if (c.rated && c.mult != wrong)
			wrong = c.mult = c.mult / 4 * 3;
	}
	og_unlock();
	assert_int_equal(c.mode, OG_SAMPLE_CLOCK_SYSTEM);
	assert_false(c.rated);
	assert_true(tu_log_has("sample times come from clock_gettime from now on"));
	/* Slow times were given: the clock catches up, never going back. */
	uint64_t t = og_sample_clock_ns(&c);
	assert_true(t <= mono());
	read_for(&c, 5, 0);
	tu_teardown();
#else
	skip();
#endif
}

/* Every GPA sample's times lie inside the calls that made it; and its
 * count is right across the books' growth (a few thousand samples at
 * least), the pass's deltas written straight into the rows, one sample
 * failing among them. */
static void test_api_sample_times(void **unused)
{
	(void)unused;
	static int key;
	tu_open(&key);
	assert_int_equal(GPA_EnableCounterStr("C1"), GPA_STATUS_OK);
	gpa_uint32 c1 = 0;
	assert_int_equal(GPA_GetCounterIndex("C1", &c1), GPA_STATUS_OK);
	enum { FAILS = 1500 };
	fake_config.fail_end_sample_pass = 0;
	fake_config.fail_end_sample_ordinal = FAILS;
	gpa_uint32 session = 0;
	assert_int_equal(GPA_BeginSession(&session), GPA_STATUS_OK);
	assert_int_equal(GPA_BeginPass(), GPA_STATUS_OK);
	enum { MAX = 200000 };
	static uint64_t around[MAX][2];
	uint64_t end = mono() + 40000000u;
	gpa_uint32 n = 0;
	while (n < MAX && (mono() < end || n < 3000)) {
		around[n][0] = mono();
		assert_int_equal(GPA_BeginSample(n), GPA_STATUS_OK);
		assert_int_equal(GPA_EndSample(), n == FAILS ? GPA_STATUS_ERROR_FAILED : GPA_STATUS_OK);
		around[n][1] = mono();
		n++;
	}
	assert_int_equal(GPA_EndPass(), GPA_STATUS_OK);
	assert_int_equal(GPA_EndSession(), GPA_STATUS_OK);
	uint64_t prev_end = 0;
	for (gpa_uint32 i = 0; i < n; i++) {
		gpa_uint64 b = 0, e = 0;
		assert_int_equal(OpenGPA_GetSampleTime(session, i, &b, &e), GPA_STATUS_OK);
		if (b < prev_end || e < b || b + OG_SAMPLE_CLOCK_BOUND_NS < around[i][0] ||
		    e > around[i][1] + OG_SAMPLE_CLOCK_BOUND_NS)
			fail_msg("sample %u: %llu..%llu, the calls %llu..%llu, the last sample ended "
			         "%llu", i, (unsigned long long)b, (unsigned long long)e,
			         (unsigned long long)around[i][0], (unsigned long long)around[i][1],
			         (unsigned long long)prev_end);
		prev_end = e;
		gpa_uint64 v = 0;
		GPA_Status st = GPA_GetSampleUInt64(session, i, c1, &v);
		if (i == FAILS) {
			assert_int_not_equal(st, GPA_STATUS_OK);
		} else if (st != GPA_STATUS_OK || v != fake_value(1, i, 0)) {
			fail_msg("sample %u: C1 %llu (%s), want %llu", i, (unsigned long long)v,
			         GPA_GetStatusAsStr(st), (unsigned long long)fake_value(1, i, 0));
		}
	}
	print_message("%u samples\n", n);
	tu_teardown();
}

/* A sample's end is kept as a 32-bit span from its begin: spans that do
 * not fit (4.29 s and more, or an end before the begin) are kept apart,
 * exactly, and the session's total spans them all. */
static void test_long_spans(void **unused)
{
	(void)unused;
	static int key;
	static const uint64_t times[][2] = {
		{ 1000000000000u, 1000000001000u },               /* 1 µs */
		{ 1000000002000u, 1000000002000u + 5000000007u }, /* 5 s: long */
		{ 2000000000000u, 2000000000000u + UINT32_MAX - 1 }, /* the longest that fits */
		{ 3000000000000u, 3000000000000u + UINT32_MAX },     /* the shortest kept apart */
		{ 4000000000000u, 3999999999999u },               /* ends before it begins */
		{ 5000000000000u, 5000000000000u + 7200000000000u }, /* 2 hours */
	};
	enum { N = sizeof times / sizeof times[0] };
	tu_open(&key);
	fake_config.times = times;
	fake_config.ntimes = N;
	assert_int_equal(GPA_EnableCounterStr("C1"), GPA_STATUS_OK);
	gpa_uint32 session = 0;
	assert_int_equal(GPA_BeginSession(&session), GPA_STATUS_OK);
	assert_int_equal(GPA_BeginPass(), GPA_STATUS_OK);
	for (gpa_uint32 i = 0; i < N; i++) {
		assert_int_equal(GPA_BeginSample(i), GPA_STATUS_OK);
		assert_int_equal(GPA_EndSample(), GPA_STATUS_OK);
	}
	assert_int_equal(GPA_EndPass(), GPA_STATUS_OK);
	assert_int_equal(GPA_EndSession(), GPA_STATUS_OK);
	for (gpa_uint32 i = 0; i < N; i++) {
		gpa_uint64 b = 0, e = 0;
		assert_int_equal(OpenGPA_GetSampleTime(session, i, &b, &e), GPA_STATUS_OK);
		if (b != times[i][0] || e != times[i][1])
			fail_msg("sample %u: %llu..%llu, want %llu..%llu", i, (unsigned long long)b,
			         (unsigned long long)e, (unsigned long long)times[i][0],
			         (unsigned long long)times[i][1]);
	}
	gpa_uint64 b = 0, e = 0; /* the session's whole span */
	assert_int_equal(OpenGPA_GetSampleTime(session, OPENGPA_SAMPLES_TOTAL, &b, &e), GPA_STATUS_OK);
	assert_int_equal(b, times[0][0]);
	assert_int_equal(e, times[N - 1][1]);
	tu_teardown();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bounded_and_monotonic),
		cmocka_unit_test(test_gives_up_on_a_wrong_rate),
		cmocka_unit_test(test_api_sample_times),
		cmocka_unit_test(test_long_spans),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
