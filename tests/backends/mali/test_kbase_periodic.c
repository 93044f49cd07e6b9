/* SPDX-License-Identifier: MIT */
/*
 * test_kbase_periodic.c — periodic sessions on the mali (kbase) backend over
 * the virtual Mali, through the GPA API: the kernel times the samples
 * (vinstr's SET_INTERVAL, kinstr_prfcnt's periodic mode on JM and CSF
 * drivers), their times are the kernel's, they add up to what an ordinary
 * sample over the same span counts (and to what the device ran), and a
 * reader that cannot drain the ring sees the overflow reported.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "test_clock.h"

#include "core/core.h"
#include "core/testing.h"
#include "opengpa.h"
#include "gpa_on_vmali.h"
#include "vmali.h"

static struct vmali *vm;
static char last_error[600];
static char messages[8192]; /* every message, '\n'-separated */

static void on_log(GPA_Logging_Type type, const char *msg)
{
	if (type & GPA_LOGGING_ERROR)
		snprintf(last_error, sizeof last_error, "%s", msg);
	/* Errors too: a later error can overwrite last_error. */
	size_t used = strlen(messages);
	snprintf(messages + used, sizeof messages - used, "%s\n", msg);
}

static uint64_t device_active(void)
{
	int i = vmali_counter_index(vm, VMALI_BLOCK_FE, "GPU_ACTIVE");
	assert_true(i >= 4);
	return vmali_total(vm, VMALI_BLOCK_FE, VMALI_ALL, (unsigned)i);
}

/* A GPU on a driver of that version (major 0: the device's default). */
static void setup_device_on(uint32_t id, bool csf, uint16_t uk_major, uint16_t uk_minor)
{
	struct vmali_config cfg = { .gpu_id = id, .csf = csf, .core_mask = 0xFF, .l2_slices = 2,
		                    .manual_frames = true, .uk_major = uk_major,
		                    .uk_minor = uk_minor };
	vm = vmali_create(&cfg);
	assert_non_null(vm);
	og_testing_reset();
	og_testing_set_sys(vmali_sys(vm));
	assert_int_equal(GPA_RegisterLoggingCallback(GPA_LOGGING_ERROR_AND_MESSAGE, on_log),
	                 GPA_STATUS_OK);
	assert_int_equal(GPA_Initialize(), GPA_STATUS_OK);
	assert_int_equal(OpenGPA_SetBackend("mali", "timeout=200"), GPA_STATUS_OK);
	messages[0] = '\0';
}

/* The Mali-G71 on JM UK 11.uk_minor (0: the default, vinstr). */
static void setup_device(uint16_t uk_minor)
{
	setup_device_on(0x6000, false, uk_minor ? 11 : 0, uk_minor);
}

static int teardown(void **unused)
{
	(void)unused;
	gv_release(&vm);
	return 0;
}

static gpa_uint32 open_counting(void *key)
{
	if (GPA_OpenContext(key) != GPA_STATUS_OK)
		fail_msg("GPA_OpenContext: %s", last_error);
	assert_int_equal(GPA_EnableCounterStr("GPUActiveCycles"), GPA_STATUS_OK);
	/* For adds_up's ratio; 5th-generation GPUs (Mali-G720 on) have other
	 * queues and no such counter. */
	gpa_uint32 index = 0;
	if (GPA_GetCounterIndex("FragmentQueueUtilization", &index) == GPA_STATUS_OK)
		assert_int_equal(GPA_EnableCounterStr("FragmentQueueUtilization"), GPA_STATUS_OK);
	assert_int_equal(GPA_GetCounterIndex("GPUActiveCycles", &index), GPA_STATUS_OK);
	return index;
}

struct pass_result {
	gpa_uint32 session, n, overflowed;
	uint64_t sum, t0, t1, periods;
	uint64_t first, last; /* the samples' span */
};

/* Reads every sample: the sum of GPUActiveCycles, kernel times that follow
 * each other without a gap, every sample but the last a whole number of
 * periods (one unless flagged OVERFLOW). */
static void read_samples(struct pass_result *r, gpa_uint32 index, uint64_t period)
{
	assert_int_equal(GPA_GetSampleCount(r->session, &r->n), GPA_STATUS_OK);
	uint64_t prev_end = 0;
	for (gpa_uint32 k = 0; k < r->n; k++) {
		gpa_uint64 v = 0, b = 0, e = 0;
		gpa_uint32 flags = 0;
		assert_int_equal(GPA_GetSampleUInt64(r->session, k, index, &v), GPA_STATUS_OK);
		assert_int_equal(OpenGPA_GetSampleTime(r->session, k, &b, &e), GPA_STATUS_OK);
		assert_int_equal(OpenGPA_GetSampleFlags(r->session, k, &flags), GPA_STATUS_OK);
		r->sum += v;
		assert_true(flags & OPENGPA_SAMPLE_KERNEL_TIME);
		assert_int_equal(!!(flags & OPENGPA_SAMPLE_FINAL), k + 1 == r->n);
		/* Kernel raw times on the monotonic scale: within the pass, to
		 * the conversion's few µs. */
		assert_true(b + 50000 >= r->t0 && e <= r->t1 + 50000 && b <= e);
		if (k)
			assert_true(b == prev_end);
		else
			r->first = b;
		r->last = prev_end = e;
		uint64_t span = e - b;
		uint64_t periods = (span + period / 2) / period;
		if (flags & OPENGPA_SAMPLE_OVERFLOW)
			r->overflowed++;
		if (k > 0 && k + 1 < r->n) {
			/* Whole periods, to the conversion's jitter. The raw-to-
			 * monotonic offset is measured with clock reads that a
			 * loaded machine can preempt (it failed once at 20 µs under
			 * CI-like load), so the bound is a tenth of a period: still
			 * far below the half period that would let a span count as
			 * the wrong number of periods. */
			uint64_t off = span > periods * period ? span - periods * period
			                                       : periods * period - span;
			assert_true(off < period / 10);
			if (!(flags & OPENGPA_SAMPLE_OVERFLOW))
				assert_int_equal(periods, 1);
		}
		r->periods += periods;
	}
}

/* A periodic pass (current context) with frames run every period_us, and
 * optionally the sampling thread held off for hold_us in the middle. */
static void periodic_pass(struct pass_result *r, uint64_t period, unsigned frames_every,
                          unsigned rounds, unsigned hold_us)
{
	assert_int_equal(OpenGPA_SetSamplingPeriod(period), GPA_STATUS_OK);
	assert_int_equal(GPA_BeginSession(&r->session), GPA_STATUS_OK);
	r->t0 = tc_now_ns();
	if (GPA_BeginPass() != GPA_STATUS_OK)
		fail_msg("GPA_BeginPass: %s", last_error);
	for (unsigned i = 0; i < rounds; i++) {
		vmali_run_frames(vm, frames_every);
		tc_sleep_us(period / 1000);
		if (hold_us && i == rounds / 2) {
			/* What SIGSTOP does to the sampling thread (the CLI's tests
			 * stop the whole process): it cannot drain, the kernel
			 * keeps sampling into its ring. */
			og_lock();
			vmali_run_frames(vm, frames_every);
			tc_sleep_us(hold_us);
			og_unlock();
		}
	}
	if (GPA_EndPass() != GPA_STATUS_OK)
		fail_msg("GPA_EndPass: %s", last_error);
	r->t1 = tc_now_ns();
	assert_int_equal(GPA_EndSession(), GPA_STATUS_OK);
}

/* Kernel-timed samples add up to an ordinary sample over the same span. */
static void adds_up(void)
{
	static int key_whole, key_periodic;
	gpa_uint32 whole_index = open_counting(&key_whole);
	gpa_uint32 whole_session;
	assert_int_equal(GPA_BeginSession(&whole_session), GPA_STATUS_OK);
	assert_int_equal(GPA_BeginPass(), GPA_STATUS_OK);
	assert_int_equal(GPA_BeginSample(0), GPA_STATUS_OK);
	uint64_t before = device_active();

	gpa_uint32 index = open_counting(&key_periodic);
	struct pass_result r = { 0 };
	periodic_pass(&r, 2000000, 2, 30, 0);
	gpa_uint64 period = 0;
	gpa_uint8 kernel = 0;
	assert_int_equal(OpenGPA_GetSamplingPeriod(r.session, &period, &kernel), GPA_STATUS_OK);
	assert_int_equal(kernel, 1);
	read_samples(&r, index, 2000000);

	assert_int_equal(GPA_SelectContext(&key_whole), GPA_STATUS_OK);
	uint64_t ran = device_active() - before;
	assert_int_equal(GPA_EndSample(), GPA_STATUS_OK);
	assert_int_equal(GPA_EndPass(), GPA_STATUS_OK);
	assert_int_equal(GPA_EndSession(), GPA_STATUS_OK);
	gpa_uint64 whole = 0;
	assert_int_equal(GPA_GetSampleUInt64(whole_session, 0, whole_index, &whole), GPA_STATUS_OK);

	assert_true(ran > 0);
	assert_int_equal(r.sum, ran);
	assert_int_equal(whole, ran);
	/* The session's total: raw counts summed, then the expression, so a
	 * ratio over the whole pass equals the ordinary sample's. */
	gpa_uint32 util;
	assert_int_equal(GPA_GetCounterIndex("FragmentQueueUtilization", &util), GPA_STATUS_OK);
	gpa_float64 util_whole = -1, util_total = -2;
	gpa_uint64 total = 0;
	assert_int_equal(GPA_GetSampleFloat64(whole_session, 0, util, &util_whole), GPA_STATUS_OK);
	assert_int_equal(GPA_SelectContext(&key_periodic), GPA_STATUS_OK);
	assert_int_equal(GPA_GetSampleFloat64(r.session, OPENGPA_SAMPLES_TOTAL, util, &util_total),
	                 GPA_STATUS_OK);
	assert_int_equal(GPA_GetSampleUInt64(r.session, OPENGPA_SAMPLES_TOTAL, index, &total),
	                 GPA_STATUS_OK);
	assert_int_equal(total, ran);
	assert_true(util_whole > 0 && util_total == util_whole);
	/* Within one of duration / period. */
	uint64_t want = (r.last - r.first) / 2000000;
	assert_true(r.periods + 1 >= want && r.periods <= want + 1);
	assert_true(want >= 20);
}

static void test_kernel_timed_adds_up(void **unused)
{
	(void)unused;
	setup_device(0);
	adds_up();
}

/* The same with kinstr_prfcnt's periodic mode: JM UK 11.40, CSF UK 1.21. */
static void test_kinstr_adds_up(void **unused)
{
	(void)unused;
	setup_device_on(0x6000, false, 11, 40);
	adds_up();
	assert_non_null(strstr(messages, "counters through kinstr_prfcnt"));
	teardown(NULL);
	setup_device_on(0xa007, true, 1, 21);
	adds_up();
	assert_non_null(strstr(messages, "counters through kinstr_prfcnt"));
}

/* A periodic pass on a fresh device (that GPU on a driver of that version)
 * whose sampling thread is held off for hold_us in the middle; whatever the
 * kernel merged, the samples add up to what the device ran. */
static void held_pass_on(uint32_t id, bool csf, uint16_t uk_major, uint16_t uk_minor,
                         uint64_t period, unsigned hold_us, struct pass_result *r)
{
	setup_device_on(id, csf, uk_major, uk_minor);
	static int key;
	gpa_uint32 index = open_counting(&key);
	uint64_t before = device_active();
	periodic_pass(r, period, 1, 10, hold_us);
	read_samples(r, index, period);
	assert_int_equal(r->sum, device_active() - before);
}

static void held_pass(uint64_t period, unsigned hold_us, struct pass_result *r)
{
	held_pass_on(0x6000, false, 0, 0, period, hold_us, r);
}

/* kinstr_prfcnt flags the sample after the ones it could not store: the
 * overflow is the kernel's own word, and no count is lost.  The ring keeps
 * one of its 32 slots for STOP's sample. */
static void test_kinstr_ring_overflow(void **unused)
{
	(void)unused;
	struct pass_result r = { 0 };
	held_pass_on(0xc000, true, 1, 21, 1000000, 60000, &r); /* Mali-G720 */
	assert_true(r.overflowed >= 1);
	assert_non_null(strstr(messages, "the reader's ring of 31 dumps was full"));
}

/* A kinstr_prfcnt that skips periods without flagging the next sample:
 * the gap (more than a period and a half) is read as an overflow, as on
 * vinstr, and no count is lost. */
static void test_kinstr_unflagged_gap(void **unused)
{
	(void)unused;
	struct pass_result r = { 0 };
	setup_device_on(0x6000, false, 11, 40);
	struct vmali_faults f = { .overflow_unflagged = true };
	vmali_set_faults(vm, &f);
	static int key;
	gpa_uint32 index = open_counting(&key);
	uint64_t before = device_active();
	periodic_pass(&r, 1000000, 1, 10, 60000);
	read_samples(&r, index, 1000000);
	assert_int_equal(r.sum, device_active() - before);
	assert_true(r.overflowed >= 1);
	assert_non_null(strstr(messages, "the reader's ring of 31 dumps was full"));
}

/* The sampling thread cannot drain for more periods than the ring holds:
 * the kernel merges the rest into one sample, reported as an overflow, and
 * no count is lost. */
static void test_ring_overflow(void **unused)
{
	(void)unused;
	struct pass_result r = { 0 };
	held_pass(1000000, 60000, &r); /* 60 periods; the ring has 32 buffers */
	assert_true(r.overflowed >= 1);
	assert_non_null(strstr(messages, "the reader's ring of 32 dumps was full"));
	uint64_t want = (r.last - r.first) / 1000000;
	assert_true(r.periods + 1 >= want && r.periods <= want + 1);
}

/* A stop shorter than the ring loses nothing and merges nothing: every
 * period has its own sample. */
static void test_short_hold_keeps_every_period(void **unused)
{
	(void)unused;
	struct pass_result r = { 0 };
	/* 10 periods of a 32-buffer ring: room for 200 ms more of a busy
	 * machine keeping the thread away. */
	held_pass(10000000, 100000, &r);
	assert_int_equal(r.overflowed, 0);
}

/* ---- the end of a pass after an overflow ---------------------------------
 * The samples drained after the stop are read against the pass's period:
 * one the kernel flags OVERFLOW (the sample after a full ring; a real
 * driver writes STOP's then whenever the reader fell 31 periods behind just
 * before the pass ended) once divided by a period the stop had set to 0. */

/* A periodic pass whose sampling thread is held off at its very end, for
 * 60 periods of a ring of 32, and stopped right after: whatever the kernel
 * merged and whichever sample it flagged, the pass ends, the last sample is
 * FINAL, and the samples add up to what the device ran. */
static void hold_then_stop(struct pass_result *r, uint64_t period, unsigned hold_us)
{
	assert_int_equal(OpenGPA_SetSamplingPeriod(period), GPA_STATUS_OK);
	assert_int_equal(GPA_BeginSession(&r->session), GPA_STATUS_OK);
	r->t0 = tc_now_ns();
	if (GPA_BeginPass() != GPA_STATUS_OK)
		fail_msg("GPA_BeginPass: %s", last_error);
	vmali_run_frames(vm, 2);
	tc_sleep_us(3 * period / 1000);
	/* The thread is kept from draining up to the stop itself. */
	og_lock();
	vmali_run_frames(vm, 2);
	tc_sleep_us(hold_us);
	og_unlock();
	if (GPA_EndPass() != GPA_STATUS_OK)
		fail_msg("GPA_EndPass: %s", last_error);
	r->t1 = tc_now_ns();
	assert_int_equal(GPA_EndSession(), GPA_STATUS_OK);
}

static void held_to_the_end_on(uint32_t id, bool csf, uint16_t uk_major, uint16_t uk_minor)
{
	struct pass_result r = { 0 };
	if (vm)
		teardown(NULL);
	setup_device_on(id, csf, uk_major, uk_minor);
	static int key;
	gpa_uint32 index = open_counting(&key);
	uint64_t before = device_active();
	hold_then_stop(&r, 1000000, 60000);
	read_samples(&r, index, 1000000);
	assert_int_equal(r.sum, device_active() - before);
	assert_true(r.overflowed >= 1);
	assert_non_null(strstr(messages, "was full"));
}

/* vinstr (JM, the G71's default driver) and kinstr_prfcnt on JM 11.40 and
 * CSF 1.21: stopped right after the ring overflowed. */
static void test_stop_right_after_overflow(void **unused)
{
	(void)unused;
	held_to_the_end_on(0x6000, false, 0, 0);
	held_to_the_end_on(0x6000, false, 11, 40);
	held_to_the_end_on(0xa007, true, 1, 21);
	held_to_the_end_on(0xc000, true, 1, 21);
}

/* STOP's sample itself flagged by the kernel (the fault switch makes it
 * certain, whatever the timing): OVERFLOW is read as a longer sample and
 * kept; ERROR makes that last sample a failed one, with a message, rather
 * than a crash or a hang. */
static void stop_flagged_on(uint32_t id, bool csf, uint16_t uk_major, uint16_t uk_minor,
                            uint32_t flags)
{
	struct vmali_faults f = { .stop_sample_flags = flags };
	if (vm)
		teardown(NULL);
	setup_device_on(id, csf, uk_major, uk_minor);
	vmali_set_faults(vm, &f);
	static int key;
	gpa_uint32 index = open_counting(&key);
	uint64_t before = device_active();
	struct pass_result r = { 0 };
	assert_int_equal(OpenGPA_SetSamplingPeriod(1000000), GPA_STATUS_OK);
	assert_int_equal(GPA_BeginSession(&r.session), GPA_STATUS_OK);
	r.t0 = tc_now_ns();
	assert_int_equal(GPA_BeginPass(), GPA_STATUS_OK);
	for (int i = 0; i < 4; i++) {
		vmali_run_frames(vm, 1);
		tc_sleep_us(1000);
	}
	GPA_Status end = GPA_EndPass();
	r.t1 = tc_now_ns();
	assert_int_equal(GPA_EndSession(), GPA_STATUS_OK);
	gpa_uint32 n = 0, last_flags = 0;
	assert_int_equal(GPA_GetSampleCount(r.session, &n), GPA_STATUS_OK);
	assert_true(n >= 1);
	if (flags == 1u /* OVERFLOW */) {
		assert_int_equal(end, GPA_STATUS_OK);
		read_samples(&r, index, 1000000);
		assert_int_equal(r.sum, device_active() - before);
		assert_int_equal(OpenGPA_GetSampleFlags(r.session, n - 1, &last_flags), GPA_STATUS_OK);
		assert_true(last_flags & OPENGPA_SAMPLE_OVERFLOW);
		assert_true(last_flags & OPENGPA_SAMPLE_FINAL);
	} else {
		/* The pass ends; the tail the kernel could not count is a FAILED
		 * sample with no results, and the message says why. */
		assert_int_equal(end, GPA_STATUS_OK);
		assert_int_equal(OpenGPA_GetSampleFlags(r.session, n - 1, &last_flags), GPA_STATUS_OK);
		assert_true(last_flags & OPENGPA_SAMPLE_FAILED);
		assert_true(last_flags & OPENGPA_SAMPLE_FINAL);
		gpa_uint64 v = 0;
		assert_int_not_equal(GPA_GetSampleUInt64(r.session, n - 1, index, &v), GPA_STATUS_OK);
		if (!strstr(messages, "flagged a periodic sample as failed (ERROR"))
			fail_msg("no message on the ERROR flag; messages: %s", messages);
	}
}

static void test_stop_sample_flagged(void **unused)
{
	(void)unused;
	const uint32_t overflow = 1u << 0, error = 1u << 30;
	stop_flagged_on(0x6000, false, 11, 40, overflow);
	stop_flagged_on(0xa007, true, 1, 21, overflow);
	stop_flagged_on(0x6000, false, 11, 40, error);
	stop_flagged_on(0xa007, true, 1, 21, error);
}

/* STOP's sample after the kernel wrote nothing for 20 periods (the dumps
 * "never arrive" until the stop), flagged OVERFLOW: it is drained after the
 * stop and read against the pass's period, so the message counts the ~19
 * periods it stands for.  A period the stop set to 0 would make it 2 (the
 * bug of issue 30 item 1, without the SIGFPE the guard now prevents). */
static void long_stop_sample_on(uint32_t id, bool csf, uint16_t uk_major, uint16_t uk_minor)
{
	if (vm)
		teardown(NULL);
	setup_device_on(id, csf, uk_major, uk_minor);
	struct vmali_faults f = { .stop_sample_flags = 1u << 0 /* OVERFLOW */ };
	vmali_set_faults(vm, &f);
	static int key;
	gpa_uint32 index = open_counting(&key);
	uint64_t before = device_active();
	struct pass_result r = { 0 };
	assert_int_equal(OpenGPA_SetSamplingPeriod(1000000), GPA_STATUS_OK);
	assert_int_equal(GPA_BeginSession(&r.session), GPA_STATUS_OK);
	r.t0 = tc_now_ns();
	assert_int_equal(GPA_BeginPass(), GPA_STATUS_OK);
	vmali_run_frames(vm, 1);
	tc_sleep_us(2000);
	f.dumps_never_arrive = true;
	vmali_set_faults(vm, &f);
	for (int i = 0; i < 4; i++) {
		vmali_run_frames(vm, 1);
		tc_sleep_us(5000);
	}
	if (GPA_EndPass() != GPA_STATUS_OK)
		fail_msg("GPA_EndPass: %s", last_error);
	r.t1 = tc_now_ns();
	assert_int_equal(GPA_EndSession(), GPA_STATUS_OK);
	read_samples(&r, index, 1000000);
	assert_int_equal(r.sum, device_active() - before);
	const char *m = strstr(messages, "was full for ");
	if (!m)
		fail_msg("no overflow message for STOP's sample; messages:\n%s", messages);
	unsigned periods = 0;
	assert_int_equal(sscanf(m, "was full for %u periods", &periods), 1);
	if (periods < 10)
		fail_msg("STOP's sample of about 20 periods was counted as standing for %u; it is "
		         "read against a period other than the pass's; messages:\n%s", periods,
		         messages);
}

static void test_stop_sample_long(void **unused)
{
	(void)unused;
	long_stop_sample_on(0x6000, false, 11, 40);
	long_stop_sample_on(0xa007, true, 1, 21);
}

/* The floor is the reader's: 100 µs, or 500 µs on the vinstr before the
 * virtualizer. */
static void test_floor(void **unused)
{
	(void)unused;
	setup_device(0);
	static int key;
	open_counting(&key);
	assert_int_equal(OpenGPA_SetSamplingPeriod(99999), GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE);
	assert_non_null(strstr(last_error, "floor of 100 µs"));
	assert_int_equal(OpenGPA_SetSamplingPeriod(100000), GPA_STATUS_OK);
	teardown(NULL);

	/* kinstr_prfcnt: the kernel raises shorter periods to 100 µs. */
	setup_device_on(0x6000, false, 11, 40);
	open_counting(&key);
	assert_int_equal(OpenGPA_SetSamplingPeriod(99999), GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE);
	assert_non_null(strstr(last_error, "floor of 100 µs"));
	teardown(NULL);

	setup_device(20); /* JM UK 11.20: the old vinstr */
	open_counting(&key);
	assert_int_equal(OpenGPA_SetSamplingPeriod(400000), GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE);
	assert_non_null(strstr(last_error, "floor of 500 µs"));
	struct pass_result r = { 0 };
	gpa_uint32 index;
	assert_int_equal(GPA_GetCounterIndex("GPUActiveCycles", &index), GPA_STATUS_OK);
	uint64_t before = device_active();
	periodic_pass(&r, 1000000, 1, 10, 0);
	read_samples(&r, index, 1000000);
	assert_int_equal(r.sum, device_active() - before);
}

/* Ordinary samples carry the dumps' kernel times. */
static void test_ordinary_sample_times(void **unused)
{
	(void)unused;
	setup_device(0);
	static int key;
	open_counting(&key);
	gpa_uint32 session;
	assert_int_equal(GPA_BeginSession(&session), GPA_STATUS_OK);
	assert_int_equal(GPA_BeginPass(), GPA_STATUS_OK);
	uint64_t t0 = tc_now_ns();
	assert_int_equal(GPA_BeginSample(3), GPA_STATUS_OK);
	tc_sleep_us(3000);
	assert_int_equal(GPA_EndSample(), GPA_STATUS_OK);
	uint64_t t1 = tc_now_ns();
	assert_int_equal(GPA_EndPass(), GPA_STATUS_OK);
	assert_int_equal(GPA_EndSession(), GPA_STATUS_OK);
	gpa_uint64 b, e;
	gpa_uint32 flags;
	assert_int_equal(OpenGPA_GetSampleTime(session, 3, &b, &e), GPA_STATUS_OK);
	assert_int_equal(OpenGPA_GetSampleFlags(session, 3, &flags), GPA_STATUS_OK);
	assert_int_equal(flags, OPENGPA_SAMPLE_KERNEL_TIME);
	assert_true(b + 50000 >= t0 && e <= t1 + 50000);
	assert_true(e - b >= 3000000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_kernel_timed_adds_up, teardown),
		cmocka_unit_test_teardown(test_kinstr_adds_up, teardown),
		cmocka_unit_test_teardown(test_kinstr_ring_overflow, teardown),
		cmocka_unit_test_teardown(test_ring_overflow, teardown),
		cmocka_unit_test_teardown(test_kinstr_unflagged_gap, teardown),
		cmocka_unit_test_teardown(test_short_hold_keeps_every_period, teardown),
		cmocka_unit_test_teardown(test_stop_right_after_overflow, teardown),
		cmocka_unit_test_teardown(test_stop_sample_flagged, teardown),
		cmocka_unit_test_teardown(test_stop_sample_long, teardown),
		cmocka_unit_test_teardown(test_floor, teardown),
		cmocka_unit_test_teardown(test_ordinary_sample_times, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
