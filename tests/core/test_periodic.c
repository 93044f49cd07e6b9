/* SPDX-License-Identifier: MIT */
/*
 * test_periodic.c — periodic sessions and sample times over the fake
 * backend: the period's checks, the one-pass rule, the timer thread (with
 * and without next_sample), the kernel-timed drain with its overflow, the
 * samples readable while the pass goes on, other threads reading and
 * waiting, and failures.  Time is real here, so counts are checked against
 * what the clock allows, never for an exact number.
 */
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "test_clock.h"

#include "core/core.h"
#include "core/testing.h"
#include "fake_backend.h"
#include "test_util.h"

static int ctx_key;

/* Early wake-ups on demand.  The test is linked with
 * -Wl,--wrap=pthread_cond_timedwait (tests/meson.build): while
 * early_wakeups is above 0, every second wait of the library's sampling
 * thread (named "opengpa-sample") returns at once, as a spurious wake-up
 * does (POSIX allows them): the lock released and taken again, no time
 * passed, 0 returned.  Every other wait is the real one. */
static atomic_uint early_wakeups, sampler_waits;

int __real_pthread_cond_timedwait(pthread_cond_t *restrict cond, pthread_mutex_t *restrict lock,
                                  const struct timespec *restrict due);
int __wrap_pthread_cond_timedwait(pthread_cond_t *restrict cond, pthread_mutex_t *restrict lock,
                                  const struct timespec *restrict due);

int __wrap_pthread_cond_timedwait(pthread_cond_t *restrict cond, pthread_mutex_t *restrict lock,
                                  const struct timespec *restrict due)
{
	char name[16] = "";
	if (atomic_load(&early_wakeups) &&
	    pthread_getname_np(pthread_self(), name, sizeof name) == 0 &&
	    strcmp(name, "opengpa-sample") == 0 && atomic_fetch_add(&sampler_waits, 1) % 2) {
		atomic_fetch_sub(&early_wakeups, 1);
		pthread_mutex_unlock(lock);
		sched_yield();
		pthread_mutex_lock(lock);
		return 0;
	}
	return __real_pthread_cond_timedwait(cond, lock, due);
}

static void open_with(const struct og_backend_ops *ops)
{
	tu_setup();
	og_testing_set_backend(ops);
	assert_int_equal(GPA_OpenContext(&ctx_key), GPA_STATUS_OK);
	tu_log_clear();
}

/* Begins a periodic session counting C0 and C1, runs its pass for ms and
 * at least until it has `least` samples (a busy machine may be slow). */
static gpa_uint32 run_periodic(uint64_t period_ns, unsigned ms, unsigned least, uint64_t *t0,
                               uint64_t *t1)
{
	assert_int_equal(GPA_EnableCounter(FC_C0), GPA_STATUS_OK);
	assert_int_equal(GPA_EnableCounter(FC_C1), GPA_STATUS_OK);
	assert_int_equal(OpenGPA_SetSamplingPeriod(period_ns), GPA_STATUS_OK);
	gpa_uint32 session = 0;
	assert_int_equal(GPA_BeginSession(&session), GPA_STATUS_OK);
	*t0 = tc_now_ns();
	assert_int_equal(GPA_BeginPass(), GPA_STATUS_OK);
	tc_sleep_us((uint64_t)ms * 1000);
	tu_wait_samples(session, least, TU_DEADLINE_MS, "the periodic thread's first samples");
	assert_int_equal(GPA_EndPass(), GPA_STATUS_OK);
	*t1 = tc_now_ns();
	assert_int_equal(GPA_EndSession(), GPA_STATUS_OK);
	return session;
}

/* Every sample: values by ordinal, times inside [t0, t1], each beginning
 * where the one before ended (contiguous) or later (gap allowed). */
static unsigned check_samples(gpa_uint32 session, uint64_t t0, uint64_t t1, bool contiguous,
                              uint32_t want_flags)
{
	gpa_uint32 n = 0;
	assert_int_equal(GPA_GetSampleCount(session, &n), GPA_STATUS_OK);
	uint64_t prev_end = 0;
	for (gpa_uint32 k = 0; k < n; k++) {
		gpa_uint64 v0 = 0, v1 = 0, b = 0, e = 0;
		gpa_uint32 flags = 0;
		assert_int_equal(GPA_GetSampleUInt64(session, k, FC_C0, &v0), GPA_STATUS_OK);
		assert_int_equal(GPA_GetSampleUInt64(session, k, FC_C1, &v1), GPA_STATUS_OK);
		assert_int_equal(v0, fake_value(0, k, 0));
		assert_int_equal(v1, fake_value(1, k, 0));
		assert_int_equal(OpenGPA_GetSampleTime(session, k, &b, &e), GPA_STATUS_OK);
		assert_int_equal(OpenGPA_GetSampleFlags(session, k, &flags), GPA_STATUS_OK);
		assert_true(b >= t0 && e <= t1 && b <= e);
		if (k && contiguous)
			assert_true(b == prev_end);
		else if (k)
			assert_true(b >= prev_end);
		assert_int_equal(flags & want_flags, want_flags);
		assert_int_equal(!!(flags & OPENGPA_SAMPLE_FINAL), k == n - 1);
		prev_end = e;
	}
	return n;
}

static void test_period_checks(void **state)
{
	(void)state;
	open_with(&fake_periodic_ops);
	assert_int_equal(OpenGPA_SetSamplingPeriod(FAKE_PERIOD_FLOOR_NS - 1),
	                 GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE);
	assert_true(tu_log_has("floor of 500 µs"));
	TU_ONE_ERROR();
	assert_int_equal(OpenGPA_SetSamplingPeriod(7200ull * 1000000000u),
	                 GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE);
	TU_ONE_ERROR();
	assert_int_equal(OpenGPA_SetSamplingPeriod(FAKE_PERIOD_FLOOR_NS), GPA_STATUS_OK);
	assert_int_equal(OpenGPA_SetSamplingPeriod(0), GPA_STATUS_OK);
	TU_NO_ERROR();

	/* Without period_floor, the core's default floor. */
	tu_teardown();
	open_with(&fake_backend_ops);
	assert_int_equal(OpenGPA_SetSamplingPeriod(OG_DEFAULT_PERIOD_FLOOR_NS - 1),
	                 GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE);
	TU_ONE_ERROR();
	assert_int_equal(OpenGPA_SetSamplingPeriod(OG_DEFAULT_PERIOD_FLOOR_NS), GPA_STATUS_OK);

	/* Not while a session is open. */
	assert_int_equal(GPA_EnableCounter(FC_C0), GPA_STATUS_OK);
	gpa_uint32 session;
	assert_int_equal(GPA_BeginSession(&session), GPA_STATUS_OK);
	assert_int_equal(OpenGPA_SetSamplingPeriod(1000000), GPA_STATUS_ERROR_SAMPLING_ALREADY_STARTED);
	TU_ONE_ERROR();
	assert_int_equal(GPA_EndSession(), GPA_STATUS_ERROR_NOT_ENOUGH_PASSES);
}

/* Counters that take two passes are refused, naming the passes. */
static void test_multipass_refused(void **state)
{
	(void)state;
	open_with(&fake_backend_ops);
	assert_int_equal(GPA_EnableCounter(FC_C0), GPA_STATUS_OK);
	assert_int_equal(GPA_EnableCounter(FC_C1), GPA_STATUS_OK);
	assert_int_equal(GPA_EnableCounter(FC_C2), GPA_STATUS_OK);
	assert_int_equal(tu_passes(), 2);
	assert_int_equal(OpenGPA_SetSamplingPeriod(1000000), GPA_STATUS_OK);
	gpa_uint32 session = 0;
	assert_int_equal(GPA_BeginSession(&session), GPA_STATUS_ERROR_NOT_ENOUGH_PASSES);
	assert_true(tu_log_has("take 2"));
	assert_true(tu_log_has("pass 0: C0, C1"));
	assert_true(tu_log_has("pass 1: C2"));
	assert_true(tu_log_has("enable fewer counters"));
	TU_ONE_ERROR();
	/* Back to one pass: accepted. */
	assert_int_equal(GPA_DisableCounter(FC_C2), GPA_STATUS_OK);
	assert_int_equal(GPA_BeginSession(&session), GPA_STATUS_OK);
	assert_int_equal(GPA_EndSession(), GPA_STATUS_ERROR_NOT_ENOUGH_PASSES);
}

/* The timer thread without next_sample: end_sample then begin_sample. */
/* OPENGPA_SAMPLES_TOTAL: every raw count summed, then the expression. */
static void check_total(gpa_uint32 session, unsigned n)
{
	gpa_uint64 total = 0, b = 0, e = 0, first_b = 0, last_e = 0, tmp;
	uint64_t sum0 = 0, sum1 = 0;
	for (unsigned k = 0; k < n; k++) {
		sum0 += fake_value(0, k, 0);
		sum1 += fake_value(1, k, 0);
	}
	assert_int_equal(GPA_GetSampleUInt64(session, OPENGPA_SAMPLES_TOTAL, FC_C0, &total),
	                 GPA_STATUS_OK);
	assert_int_equal(total, sum0);
	assert_int_equal(OpenGPA_GetSampleTime(session, OPENGPA_SAMPLES_TOTAL, &b, &e),
	                 GPA_STATUS_OK);
	assert_int_equal(OpenGPA_GetSampleTime(session, 0, &first_b, &tmp), GPA_STATUS_OK);
	assert_int_equal(OpenGPA_GetSampleTime(session, n - 1, &tmp, &last_e), GPA_STATUS_OK);
	assert_int_equal(b, first_b);
	assert_int_equal(e, last_e);
	gpa_uint32 flags = 0;
	assert_int_equal(OpenGPA_GetSampleFlags(session, OPENGPA_SAMPLES_TOTAL, &flags),
	                 GPA_STATUS_OK);
	assert_true(flags & OPENGPA_SAMPLE_FINAL);
	(void)sum1;
}

static void test_timer_plain(void **state)
{
	(void)state;
	open_with(&fake_backend_ops);
	uint64_t t0, t1;
	gpa_uint32 session = run_periodic(5000000, 120, 2, &t0, &t1);
	unsigned n = check_samples(session, t0, t1, false, 0);
	check_total(session, n);
	/* One per period and the last partial one; the machine is shared, so
	 * a late thread may have made fewer. */
	assert_true(n >= 2 && n <= (t1 - t0) / 5000000 + 1);
	gpa_uint64 period = 0;
	gpa_uint8 kernel = 1;
	assert_int_equal(OpenGPA_GetSamplingPeriod(session, &period, &kernel), GPA_STATUS_OK);
	assert_int_equal(period, 5000000);
	assert_int_equal(kernel, 0);
	TU_NO_ERROR();
}

/* With next_sample the samples are contiguous. */
static void test_timer_contiguous(void **state)
{
	(void)state;
	open_with(&fake_periodic_ops);
	uint64_t t0, t1;
	gpa_uint32 session = run_periodic(2000000, 60, 2, &t0, &t1);
	unsigned n = check_samples(session, t0, t1, true, 0);
	assert_true(n >= 2 && n <= (t1 - t0) / 2000000 + 1);
	TU_NO_ERROR();
}

/* A timer thread that wakes late (here: a read that takes 2.9 periods, as
 * when the thread is preempted mid-read) makes one longer sample, then goes
 * back to the grid: the periods it missed are not made up with extra,
 * nearly empty samples stored back to back. */
static void test_timer_late_wakeup(void **state)
{
	(void)state;
	open_with(&fake_periodic_ops);
	const uint64_t period = 10000000; /* 10 ms */
	fake_config.stall_ordinal = 3;    /* the read that ends sample 2 */
	fake_config.stall_ns = period * 29 / 10;
	uint64_t t0, t1;
	gpa_uint32 session = run_periodic(period, 120, 6, &t0, &t1);
	unsigned n = check_samples(session, t0, t1, true, 0);
	assert_true(n >= 6);
	unsigned short_ones = 0, late = 0;
	for (gpa_uint32 k = 0; k + 1 < n; k++) { /* the final sample is short by design */
		gpa_uint64 b = 0, e = 0;
		gpa_uint32 flags = 0;
		assert_int_equal(OpenGPA_GetSampleTime(session, k, &b, &e), GPA_STATUS_OK);
		assert_int_equal(OpenGPA_GetSampleFlags(session, k, &flags), GPA_STATUS_OK);
		late += !!(flags & OPENGPA_SAMPLE_LATE);
		/* Even a thread woken late by the scheduler leaves the next sample
		 * most of a period unless it was late by almost a whole period;
		 * the planted stall puts the next deadline 1.55 periods away. */
		if (e - b < period / 10) {
			print_message("sample %u of %u: %llu ns, period %llu ns\n", k, n,
			              (unsigned long long)(e - b), (unsigned long long)period);
			short_ones++;
		}
	}
	if (short_ones)
		fail_msg("%u nearly empty samples after a late wake-up: the thread made up "
		         "missed periods instead of returning to its grid", short_ones);
	assert_true(late >= 1); /* the stalled sample is flagged */
	assert_true(n <= (t1 - t0) / period + 1);
	TU_NO_ERROR();
}

/* A timer thread woken before its deadline (a spurious wake-up) goes back
 * to sleep until the deadline: it neither stops sampling (the samples keep
 * coming after the early wake-ups) nor samples early (no nearly empty
 * sample). */
static void test_timer_early_wakeup(void **state)
{
	(void)state;
	open_with(&fake_periodic_ops);
	const uint64_t period = 5000000; /* 5 ms */
	const unsigned planted = 4;
	atomic_store(&sampler_waits, 0);
	atomic_store(&early_wakeups, planted);
	uint64_t t0, t1;
	gpa_uint32 session = run_periodic(period, 60, 10, &t0, &t1);
	unsigned left = atomic_exchange(&early_wakeups, 0);
	if (left)
		fail_msg("%u of %u early wake-ups not delivered: no wait of a thread named "
		         "opengpa-sample went through the wrapper", left, planted);
	unsigned n = check_samples(session, t0, t1, true, 0);
	assert_true(n >= 10);
	for (gpa_uint32 k = 0; k + 1 < n; k++) { /* the final sample is short by design */
		gpa_uint64 b = 0, e = 0;
		assert_int_equal(OpenGPA_GetSampleTime(session, k, &b, &e), GPA_STATUS_OK);
		if (e - b < period / 10)
			fail_msg("sample %u of %u: %llu ns of a %llu ns period: the thread sampled on "
			         "an early wake-up", k, n, (unsigned long long)(e - b),
			         (unsigned long long)period);
	}
	TU_NO_ERROR();
}

/* The fake kernel times the samples: exact period boundaries. */
static void test_kernel_timed(void **state)
{
	(void)state;
	open_with(&fake_periodic_ops);
	fake_config.kernel_timed = true;
	uint64_t t0, t1;
	gpa_uint32 session = run_periodic(2000000, 50, 5, &t0, &t1);
	unsigned n = check_samples(session, t0, t1, true, OPENGPA_SAMPLE_KERNEL_TIME);
	/* Every sample but the last is whole periods: one, or several merged
	 * when a busy machine kept the thread from draining the ring. */
	uint64_t periods = 0, first = 0, last = 0;
	for (unsigned k = 0; k < n; k++) {
		gpa_uint64 b, e;
		gpa_uint32 flags;
		assert_int_equal(OpenGPA_GetSampleTime(session, k, &b, &e), GPA_STATUS_OK);
		assert_int_equal(OpenGPA_GetSampleFlags(session, k, &flags), GPA_STATUS_OK);
		first = k ? first : b;
		last = e;
		if (k + 1 == n) {
			/* Cut short by EndPass, or longer when it merged periods. */
			periods += (e - b + 1999999) / 2000000;
			break;
		}
		assert_int_equal((e - b) % 2000000, 0);
		if (!(flags & OPENGPA_SAMPLE_OVERFLOW))
			assert_int_equal(e - b, 2000000);
		periods += (e - b) / 2000000;
	}
	/* The samples cover the pass from BeginPass to EndPass: within one of
	 * its duration / period. */
	uint64_t whole = (last - first) / 2000000;
	assert_true(periods >= whole && periods <= whole + 1);
	assert_true(whole >= 5);
	gpa_uint64 period = 0;
	gpa_uint8 kernel = 0;
	assert_int_equal(OpenGPA_GetSamplingPeriod(session, &period, &kernel), GPA_STATUS_OK);
	assert_int_equal(kernel, 1);
	TU_NO_ERROR();
}

/* Samples the kernel could not keep are merged into one flagged OVERFLOW,
 * and the counts of the whole pass are still there. */
static void test_kernel_overflow(void **state)
{
	(void)state;
	open_with(&fake_periodic_ops);
	fake_config.kernel_timed = true;
	assert_int_equal(GPA_EnableCounter(FC_C0), GPA_STATUS_OK);
	assert_int_equal(OpenGPA_SetSamplingPeriod(1000000), GPA_STATUS_OK);
	gpa_uint32 session = 0;
	assert_int_equal(GPA_BeginSession(&session), GPA_STATUS_OK);
	uint64_t t0 = tc_now_ns();
	assert_int_equal(GPA_BeginPass(), GPA_STATUS_OK);
	/* Keep the sampling thread from draining for 30 periods by holding
	 * the lock it needs (what SIGSTOP does to a whole process, which the
	 * virtual Mali's tests do). */
	og_lock();
	tc_sleep_us(30000);
	og_unlock();
	tc_sleep_us(10000);
	assert_int_equal(GPA_EndPass(), GPA_STATUS_OK);
	uint64_t t1 = tc_now_ns();
	assert_int_equal(GPA_EndSession(), GPA_STATUS_OK);
	gpa_uint32 n = 0, overflowed = 0;
	assert_int_equal(GPA_GetSampleCount(session, &n), GPA_STATUS_OK);
	uint64_t prev = t0, span = 0, periods = 0;
	for (gpa_uint32 k = 0; k < n; k++) {
		gpa_uint64 b, e;
		gpa_uint32 flags;
		assert_int_equal(OpenGPA_GetSampleTime(session, k, &b, &e), GPA_STATUS_OK);
		assert_int_equal(OpenGPA_GetSampleFlags(session, k, &flags), GPA_STATUS_OK);
		if (k)
			assert_int_equal(b, prev); /* nothing lost: contiguous */
		if (flags & OPENGPA_SAMPLE_OVERFLOW) {
			overflowed++;
			assert_true(e - b > 1000000); /* it spans the dropped periods */
		}
		span += e - b;
		periods += (e - b + 500000) / 1000000;
		prev = e;
	}
	assert_true(overflowed >= 1);
	assert_true(span <= t1 - t0);
	assert_true(n < periods); /* some merged */
	TU_NO_ERROR();
}

/* Samples are readable from the recording thread while the pass goes on,
 * and GPA_BeginSample is refused in a periodic pass. */
static void test_read_while_running(void **state)
{
	(void)state;
	open_with(&fake_periodic_ops);
	assert_int_equal(GPA_EnableCounter(FC_C0), GPA_STATUS_OK);
	assert_int_equal(OpenGPA_SetSamplingPeriod(1000000), GPA_STATUS_OK);
	gpa_uint32 session = 0, avail = 0, count = 0;
	assert_int_equal(GPA_BeginSession(&session), GPA_STATUS_OK);
	/* Before the pass nothing would come to this thread's wait. */
	assert_int_equal(OpenGPA_WaitForSamples(session, 1, 10, &avail),
	                 GPA_STATUS_ERROR_SAMPLING_NOT_ENDED);
	TU_ONE_ERROR();
	assert_int_equal(GPA_BeginPass(), GPA_STATUS_OK);
	assert_int_equal(GPA_BeginSample(0), GPA_STATUS_ERROR_SAMPLE_ALREADY_STARTED);
	assert_true(tu_log_has("samples every 1.000 ms by itself"));
	TU_ONE_ERROR();
	assert_int_equal(GPA_EndSample(), GPA_STATUS_ERROR_SAMPLE_NOT_STARTED);
	TU_ONE_ERROR();
	assert_int_equal(OpenGPA_WaitForSamples(session, 3, 5000, &avail), GPA_STATUS_OK);
	assert_true(avail >= 3);
	assert_int_equal(GPA_GetSampleCount(session, &count), GPA_STATUS_OK);
	assert_true(count >= avail);
	bool ready = true;
	assert_int_equal(GPA_IsSessionReady(&ready, session), GPA_STATUS_OK);
	assert_false(ready);
	assert_int_equal(GPA_IsSampleReady(&ready, session, 2), GPA_STATUS_OK);
	assert_true(ready);
	gpa_uint64 v = 0;
	assert_int_equal(GPA_GetSampleUInt64(session, 2, FC_C0, &v), GPA_STATUS_OK);
	assert_int_equal(v, fake_value(0, 2, 0));
	/* A sample still to come is not found (nothing waits forever). */
	assert_int_equal(GPA_GetSampleUInt64(session, 100000, FC_C0, &v),
	                 GPA_STATUS_ERROR_SAMPLE_NOT_FOUND);
	TU_ONE_ERROR();
	assert_int_equal(GPA_EndPass(), GPA_STATUS_OK);
	assert_int_equal(GPA_IsSessionReady(&ready, session), GPA_STATUS_OK);
	assert_true(ready);
	/* After the pass: everything there is, at once. */
	assert_int_equal(OpenGPA_WaitForSamples(session, 1000000, 60000, &avail), GPA_STATUS_OK);
	assert_int_equal(GPA_GetSampleCount(session, &count), GPA_STATUS_OK);
	assert_int_equal(avail, count);
	assert_int_equal(GPA_EndSession(), GPA_STATUS_OK);
	TU_NO_ERROR();
}

/* A wait for several samples at once returns once they are all in: the
 * timer thread wakes waiters only when the fewest any of them waits for
 * are there (session.c), so a wake-up it failed to give would leave this
 * wait to its 10-minute timeout (the test's timeout fails it first). */
static void test_wait_for_several(void **state)
{
	(void)state;
	open_with(&fake_periodic_ops);
	assert_int_equal(GPA_EnableCounter(FC_C0), GPA_STATUS_OK);
	assert_int_equal(OpenGPA_SetSamplingPeriod(1000000), GPA_STATUS_OK);
	gpa_uint32 session = 0, avail = 0;
	assert_int_equal(GPA_BeginSession(&session), GPA_STATUS_OK);
	assert_int_equal(GPA_BeginPass(), GPA_STATUS_OK);
	for (gpa_uint32 want = 1; want < 40; want += 7) {
		assert_int_equal(OpenGPA_WaitForSamples(session, want, 600000, &avail),
		                 GPA_STATUS_OK);
		assert_true(avail >= want);
	}
	assert_int_equal(GPA_EndPass(), GPA_STATUS_OK);
	/* A wait past what will come ends with the pass. */
	assert_int_equal(OpenGPA_WaitForSamples(session, avail + 1000000, 600000, &avail),
	                 GPA_STATUS_OK);
	assert_int_equal(GPA_EndSession(), GPA_STATUS_OK);
	TU_NO_ERROR();
}

/* A consumer thread prints as samples come while the recording thread
 * ends the pass: no deadlock, every sample seen exactly once. */
struct consumer {
	gpa_uint32 session;
	unsigned seen;
	bool values_ok;
};

static void *consume(void *arg)
{
	struct consumer *c = arg;
	c->values_ok = true;
	for (;;) {
		gpa_uint32 avail = 0;
		if (OpenGPA_WaitForSamples(c->session, c->seen + 1, 1000, &avail) != GPA_STATUS_OK)
			break;
		for (; c->seen < avail; c->seen++) {
			gpa_uint64 v = 0;
			if (GPA_GetSampleUInt64(c->session, c->seen, FC_C0, &v) != GPA_STATUS_OK ||
			    v != fake_value(0, c->seen, 0))
				c->values_ok = false;
		}
		bool ready = false;
		GPA_IsSessionReady(&ready, c->session);
		gpa_uint32 count = 0;
		GPA_GetSampleCount(c->session, &count);
		if (ready && c->seen == count)
			break;
	}
	return NULL;
}

static void test_consumer_thread(void **state)
{
	(void)state;
	open_with(&fake_periodic_ops);
	assert_int_equal(GPA_EnableCounter(FC_C0), GPA_STATUS_OK);
	assert_int_equal(OpenGPA_SetSamplingPeriod(FAKE_PERIOD_FLOOR_NS), GPA_STATUS_OK);
	struct consumer c = { 0 };
	assert_int_equal(GPA_BeginSession(&c.session), GPA_STATUS_OK);
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, consume, &c), 0);
	assert_int_equal(GPA_BeginPass(), GPA_STATUS_OK);
	/* Meanwhile the recording thread keeps using the API too. */
	for (int i = 0; i < 200; i++) {
		gpa_uint32 count = 0;
		assert_int_equal(GPA_GetSampleCount(c.session, &count), GPA_STATUS_OK);
		usleep(200);
	}
	assert_int_equal(GPA_EndPass(), GPA_STATUS_OK);
	tu_join_within(t, NULL, TU_DEADLINE_MS, "the consumer thread seeing the session ready");
	gpa_uint32 count = 0;
	assert_int_equal(GPA_GetSampleCount(c.session, &count), GPA_STATUS_OK);
	assert_int_equal(c.seen, count);
	assert_true(c.values_ok);
	assert_int_equal(GPA_EndSession(), GPA_STATUS_OK);
}

/* A context closed while its periodic pass runs (GPA_CloseContext refuses;
 * a failed test's tu_fixture_teardown does it) takes the sampling thread with it:
 * afterwards nothing samples the closed backend through freed memory. */
static void test_close_mid_pass(void **state)
{
	(void)state;
	open_with(&fake_periodic_ops);
	assert_int_equal(GPA_EnableCounter(FC_C0), GPA_STATUS_OK);
	assert_int_equal(OpenGPA_SetSamplingPeriod(FAKE_PERIOD_FLOOR_NS), GPA_STATUS_OK);
	gpa_uint32 session = 0, avail = 0;
	assert_int_equal(GPA_BeginSession(&session), GPA_STATUS_OK);
	assert_int_equal(GPA_BeginPass(), GPA_STATUS_OK);
	assert_int_equal(OpenGPA_WaitForSamples(session, 2, 5000, &avail), GPA_STATUS_OK);
	assert_int_equal(GPA_CloseContext(), GPA_STATUS_ERROR_SAMPLING_NOT_ENDED);
	tu_teardown();
	unsigned ended = fake_stats.end_samples;
	usleep(20000); /* tens of periods */
	assert_int_equal(fake_stats.end_samples, ended);
}

/* One failed sample is that sample's; many in a row stop the sampling,
 * EndPass says so, and the samples before stay readable. */
static void test_failures(void **state)
{
	(void)state;
	open_with(&fake_periodic_ops);
	fake_config.fail_end_sample_pass = 0;
	fake_config.fail_end_sample_ordinal = 2;
	uint64_t t0, t1;
	gpa_uint32 session = run_periodic(1000000, 30, 5, &t0, &t1);
	gpa_uint32 flags = 0;
	gpa_uint64 v = 0;
	assert_int_equal(OpenGPA_GetSampleFlags(session, 2, &flags), GPA_STATUS_OK);
	assert_true(flags & OPENGPA_SAMPLE_FAILED);
	assert_int_equal(GPA_GetSampleUInt64(session, 2, FC_C0, &v),
	                 GPA_STATUS_ERROR_READING_COUNTER_RESULT);
	assert_int_equal(GPA_GetSampleUInt64(session, 3, FC_C0, &v), GPA_STATUS_OK);
	tu_log_clear();

	tu_teardown();
	open_with(&fake_periodic_ops);
	fake_config.fail_end_sample_pass = 0;
	fake_config.fail_end_sample_ordinal = 3;
	fake_config.fail_end_sample_run = 1000;
	assert_int_equal(GPA_EnableCounter(FC_C0), GPA_STATUS_OK);
	assert_int_equal(OpenGPA_SetSamplingPeriod(1000000), GPA_STATUS_OK);
	assert_int_equal(GPA_BeginSession(&session), GPA_STATUS_OK);
	assert_int_equal(GPA_BeginPass(), GPA_STATUS_OK);
	gpa_uint32 avail = 0;
	for (int i = 0; i < 100 && avail < 3 + 8; i++) /* a busy machine: up to 5 s */
		assert_int_equal(OpenGPA_WaitForSamples(session, 3 + 8, 50, &avail), GPA_STATUS_OK);
	tc_sleep_us(5000);
	assert_int_equal(GPA_EndPass(), GPA_STATUS_ERROR_FAILED);
	assert_true(tu_log_has("stopped after 8 failed samples in a row"));
	assert_int_equal(GPA_EndSession(), GPA_STATUS_OK);
	gpa_uint32 n = 0;
	assert_int_equal(GPA_GetSampleCount(session, &n), GPA_STATUS_OK);
	assert_true(n >= 3 + 8 && n <= 3 + 8 + 1);
	assert_int_equal(GPA_GetSampleUInt64(session, 1, FC_C0, &v), GPA_STATUS_OK);
	assert_int_equal(v, fake_value(0, 1, 0));
	tu_log_clear();

	/* The first snapshot fails: BeginPass says so and no pass is open. */
	fake_config.fail_begin_sample = true;
	assert_int_equal(GPA_BeginSession(&session), GPA_STATUS_OK);
	assert_int_equal(GPA_BeginPass(), GPA_STATUS_ERROR_FAILED);
	assert_true(tu_log_has("begin_sample fails on purpose"));
	assert_int_equal(GPA_EndPass(), GPA_STATUS_ERROR_PASS_NOT_STARTED);
	fake_config.fail_begin_sample = false;
	assert_int_equal(GPA_BeginPass(), GPA_STATUS_OK);
	assert_int_equal(GPA_EndPass(), GPA_STATUS_OK);
	assert_int_equal(GPA_EndSession(), GPA_STATUS_OK);
}

/* A derived counter's total is its expression over the summed inputs; a
 * session's total reads in ordinary sessions too, and a client's own
 * sample with the total's ID wins. */
static void test_totals(void **state)
{
	(void)state;
	open_with(&fake_periodic_ops);
	fake_config.max_per_pass = 4; /* R0, R1, R3 in one pass */
	assert_int_equal(GPA_EnableCounter(FC_SUM01), GPA_STATUS_OK);
	assert_int_equal(GPA_EnableCounter(FC_HALF), GPA_STATUS_OK);
	assert_int_equal(OpenGPA_SetSamplingPeriod(1000000), GPA_STATUS_OK);
	gpa_uint32 session = 0, avail = 0;
	assert_int_equal(GPA_BeginSession(&session), GPA_STATUS_OK);
	assert_int_equal(GPA_BeginPass(), GPA_STATUS_OK);
	assert_int_equal(OpenGPA_WaitForSamples(session, 4, 5000, &avail), GPA_STATUS_OK);
	/* The total so far, while the pass goes on. */
	gpa_float64 sofar = 0;
	assert_int_equal(GPA_GetSampleFloat64(session, OPENGPA_SAMPLES_TOTAL, FC_SUM01, &sofar),
	                 GPA_STATUS_OK);
	assert_true(sofar >= (double)(fake_value(0, 0, 0) + fake_value(1, 0, 0)));
	assert_int_equal(GPA_EndPass(), GPA_STATUS_OK);
	assert_int_equal(GPA_EndSession(), GPA_STATUS_OK);
	gpa_uint32 n = 0;
	assert_int_equal(GPA_GetSampleCount(session, &n), GPA_STATUS_OK);
	double sum01 = 0, sum3 = 0;
	for (unsigned k = 0; k < n; k++) {
		sum01 += (double)(fake_value(0, k, 0) + fake_value(1, k, 0));
		sum3 += (double)fake_value(3, k, 0);
	}
	gpa_float64 v = 0;
	gpa_float32 h = 0;
	assert_int_equal(GPA_GetSampleFloat64(session, OPENGPA_SAMPLES_TOTAL, FC_SUM01, &v),
	                 GPA_STATUS_OK);
	assert_true(v == sum01);
	assert_int_equal(GPA_GetSampleFloat32(session, OPENGPA_SAMPLES_TOTAL, FC_HALF, &h),
	                 GPA_STATUS_OK);
	assert_true(h == (gpa_float32)(sum3 / 2));

	/* Ordinary sessions: the sum of the client's samples. */
	assert_int_equal(OpenGPA_SetSamplingPeriod(0), GPA_STATUS_OK);
	assert_int_equal(GPA_BeginSession(&session), GPA_STATUS_OK);
	assert_int_equal(GPA_BeginPass(), GPA_STATUS_OK);
	for (unsigned id = 5; id < 8; id++) {
		assert_int_equal(GPA_BeginSample(id), GPA_STATUS_OK);
		assert_int_equal(GPA_EndSample(), GPA_STATUS_OK);
	}
	assert_int_equal(GPA_EndPass(), GPA_STATUS_OK);
	assert_int_equal(GPA_EndSession(), GPA_STATUS_OK);
	/* The fake's begin_pass numbering: this is its second pass. */
	double want = 0;
	for (unsigned k = 0; k < 3; k++)
		want += (double)(fake_value(0, k, 1) + fake_value(1, k, 1));
	assert_int_equal(GPA_GetSampleFloat64(session, OPENGPA_SAMPLES_TOTAL, FC_SUM01, &v),
	                 GPA_STATUS_OK);
	assert_true(v == want);

	/* A client's sample 0xFFFFFFFF is that sample. */
	assert_int_equal(GPA_BeginSession(&session), GPA_STATUS_OK);
	assert_int_equal(GPA_BeginPass(), GPA_STATUS_OK);
	assert_int_equal(GPA_BeginSample(1), GPA_STATUS_OK);
	assert_int_equal(GPA_EndSample(), GPA_STATUS_OK);
	assert_int_equal(GPA_BeginSample(OPENGPA_SAMPLES_TOTAL), GPA_STATUS_OK);
	assert_int_equal(GPA_EndSample(), GPA_STATUS_OK);
	assert_int_equal(GPA_EndPass(), GPA_STATUS_OK);
	assert_int_equal(GPA_EndSession(), GPA_STATUS_OK);
	assert_int_equal(GPA_GetSampleFloat64(session, OPENGPA_SAMPLES_TOTAL, FC_SUM01, &v),
	                 GPA_STATUS_OK);
	assert_true(v == (double)(fake_value(0, 1, 2) + fake_value(1, 1, 2)));
	TU_NO_ERROR();
}

/* A window keeps the newest samples: the oldest are dropped (and say so),
 * the total still counts them. */
static void test_window(void **state)
{
	(void)state;
	open_with(&fake_periodic_ops);
	assert_int_equal(GPA_EnableCounter(FC_C0), GPA_STATUS_OK);
	assert_int_equal(OpenGPA_SetPeriodicWindow(1), GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE);
	TU_ONE_ERROR();
	assert_int_equal(OpenGPA_SetPeriodicWindow(8), GPA_STATUS_OK);
	assert_int_equal(OpenGPA_SetSamplingPeriod(FAKE_PERIOD_FLOOR_NS), GPA_STATUS_OK);
	gpa_uint32 session = 0, avail = 0;
	assert_int_equal(GPA_BeginSession(&session), GPA_STATUS_OK);
	assert_int_equal(OpenGPA_SetPeriodicWindow(4), GPA_STATUS_ERROR_SAMPLING_ALREADY_STARTED);
	TU_ONE_ERROR();
	assert_int_equal(GPA_BeginPass(), GPA_STATUS_OK);
	for (int i = 0; i < 100 && avail < 40; i++)
		assert_int_equal(OpenGPA_WaitForSamples(session, 40, 100, &avail), GPA_STATUS_OK);
	assert_int_equal(GPA_EndPass(), GPA_STATUS_OK);
	assert_int_equal(GPA_EndSession(), GPA_STATUS_OK);
	gpa_uint32 n = 0;
	assert_int_equal(GPA_GetSampleCount(session, &n), GPA_STATUS_OK);
	assert_true(n >= 40);
	gpa_uint64 v = 0, sum = 0;
	/* The newest 8 at least are there; sample 0 is gone, and says why. */
	for (gpa_uint32 k = n - 8; k < n; k++) {
		assert_int_equal(GPA_GetSampleUInt64(session, k, FC_C0, &v), GPA_STATUS_OK);
		assert_int_equal(v, fake_value(0, k, 0));
	}
	assert_int_equal(GPA_GetSampleUInt64(session, 0, FC_C0, &v), GPA_STATUS_ERROR_SAMPLE_NOT_FOUND);
	assert_true(tu_log_has("was dropped: the session keeps its newest 8 samples"));
	TU_ONE_ERROR();
	for (gpa_uint32 k = 0; k < n; k++)
		sum += fake_value(0, k, 0);
	assert_int_equal(GPA_GetSampleUInt64(session, OPENGPA_SAMPLES_TOTAL, FC_C0, &v),
	                 GPA_STATUS_OK);
	assert_int_equal(v, sum);
	gpa_uint64 b = 0, e = 0, kb = 0, ke = 0;
	assert_int_equal(OpenGPA_GetSampleTime(session, OPENGPA_SAMPLES_TOTAL, &b, &e), GPA_STATUS_OK);
	assert_int_equal(OpenGPA_GetSampleTime(session, n - 1, &kb, &ke), GPA_STATUS_OK);
	assert_true(b < kb && e == ke);
	assert_true(e - b >= (uint64_t)(n - 1) * FAKE_PERIOD_FLOOR_NS);
	TU_NO_ERROR();
}

/* Ordinary samples have times too: inside the Begin/EndSample calls. */
static void test_ordinary_times(void **state)
{
	(void)state;
	open_with(&fake_backend_ops);
	assert_int_equal(GPA_EnableCounter(FC_C0), GPA_STATUS_OK);
	gpa_uint32 session = 0;
	assert_int_equal(GPA_BeginSession(&session), GPA_STATUS_OK);
	assert_int_equal(GPA_BeginPass(), GPA_STATUS_OK);
	uint64_t t0 = tc_now_ns();
	assert_int_equal(GPA_BeginSample(7), GPA_STATUS_OK);
	tc_sleep_us(5000);
	assert_int_equal(GPA_EndSample(), GPA_STATUS_OK);
	uint64_t t1 = tc_now_ns();
	assert_int_equal(GPA_EndPass(), GPA_STATUS_OK);
	assert_int_equal(GPA_EndSession(), GPA_STATUS_OK);
	gpa_uint64 b = 0, e = 0;
	gpa_uint32 flags = 99;
	assert_int_equal(OpenGPA_GetSampleTime(session, 7, &b, &e), GPA_STATUS_OK);
	assert_true(t0 <= b && b < e && e <= t1);
	assert_true(e - b >= 5000000);
	assert_int_equal(OpenGPA_GetSampleFlags(session, 7, &flags), GPA_STATUS_OK);
	assert_int_equal(flags, 0);
	assert_int_equal(OpenGPA_GetSampleTime(session, 8, &b, &e), GPA_STATUS_ERROR_SAMPLE_NOT_FOUND);
	assert_int_equal(OpenGPA_GetSampleTime(session, 7, NULL, &e), GPA_STATUS_ERROR_NULL_POINTER);
	assert_int_equal(OpenGPA_GetSampleTime(99, 7, &b, &e), GPA_STATUS_ERROR_SESSION_NOT_FOUND);
	gpa_uint64 period = 1;
	gpa_uint8 kernel = 1;
	assert_int_equal(OpenGPA_GetSamplingPeriod(session, &period, &kernel), GPA_STATUS_OK);
	assert_int_equal(period, 0);
	assert_int_equal(kernel, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_period_checks, tu_fixture_teardown),
		cmocka_unit_test_teardown(test_multipass_refused, tu_fixture_teardown),
		cmocka_unit_test_teardown(test_timer_plain, tu_fixture_teardown),
		cmocka_unit_test_teardown(test_timer_contiguous, tu_fixture_teardown),
		cmocka_unit_test_teardown(test_timer_late_wakeup, tu_fixture_teardown),
		cmocka_unit_test_teardown(test_timer_early_wakeup, tu_fixture_teardown),
		cmocka_unit_test_teardown(test_kernel_timed, tu_fixture_teardown),
		cmocka_unit_test_teardown(test_kernel_overflow, tu_fixture_teardown),
		cmocka_unit_test_teardown(test_read_while_running, tu_fixture_teardown),
		cmocka_unit_test_teardown(test_wait_for_several, tu_fixture_teardown),
		cmocka_unit_test_teardown(test_consumer_thread, tu_fixture_teardown),
		cmocka_unit_test_teardown(test_close_mid_pass, tu_fixture_teardown),
		cmocka_unit_test_teardown(test_failures, tu_fixture_teardown),
		cmocka_unit_test_teardown(test_totals, tu_fixture_teardown),
		cmocka_unit_test_teardown(test_window, tu_fixture_teardown),
		cmocka_unit_test_teardown(test_ordinary_times, tu_fixture_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
