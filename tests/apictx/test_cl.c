/* SPDX-License-Identifier: MIT */
/*
 * test_cl.c — contexts on an OpenCL command queue (lib/apictx/cl.c),
 * on pocl, with opengpa loaded as libGPUPerfAPICL.so the way a GPA 2.x
 * tool loads it.  A sample of 8 kernel launches is 8 times the work of a
 * sample of one; timing checks are ratios within the run with a wide
 * margin, and bounds from the samples' own spans.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cl_work.h"
#include "gpa_lib.h"

#define LOOP 5000

static struct cl_work work;
static struct gpa gpa;

static void open_work(bool profiling)
{
	if (!cl_work_open(&work, profiling)) {
		fprintf(stderr, "no OpenCL here: %s\n", work.error);
		cl_work_close(&work);
		skip();
	}
	/* pocl compiles a kernel for its first launch: not inside a sample. */
	cl_work_run(&work, work.queue, 1, 10);
	clFinish(work.queue);
}

static int teardown(void **state)
{
	(void)state;
	if (gpa.lib)
		gpa_unload(&gpa);
	cl_work_close(&work);
	return 0;
}

static gpa_uint32 run_session(cl_command_queue q, const unsigned *launches, unsigned n)
{
	gpa_uint32 session = 0, passes = 0;
	assert_int_equal(gpa.GPA_BeginSession(&session), GPA_STATUS_OK);
	assert_int_equal(gpa.GPA_GetPassCount(&passes), GPA_STATUS_OK);
	for (gpa_uint32 p = 0; p < passes; p++) {
		assert_int_equal(gpa.GPA_BeginPass(), GPA_STATUS_OK);
		for (unsigned i = 0; i < n; i++) {
			assert_int_equal(gpa.GPA_BeginSample(i), GPA_STATUS_OK);
			cl_work_run(&work, q, launches[i], LOOP);
			assert_int_equal(gpa.GPA_EndSample(), GPA_STATUS_OK);
		}
		assert_int_equal(gpa.GPA_EndPass(), GPA_STATUS_OK);
	}
	assert_int_equal(gpa.GPA_EndSession(), GPA_STATUS_OK);
	return session;
}

static const unsigned workload[3] = { 1, 8, 1 };

static void test_gpu_time(void **state)
{
	(void)state;
	open_work(true);
	gpa_load(&gpa, "libGPUPerfAPICL.so");
	assert_int_equal(gpa.GPA_OpenContext(work.queue), GPA_STATUS_OK);
	assert_true(gpa_log_has("OpenCL command queue"));
	assert_true(gpa_log_has("GPUTime from OpenCL profiling"));
	const char *api = NULL;
	gpa_uint32 sync = 0;
	assert_int_equal(gpa.GetContextApi(&api, &sync), GPA_STATUS_OK);
	assert_string_equal(api, "cl");
	assert_int_equal(sync, OPENGPA_SYNC_FINISH);
	assert_int_equal(gpa.GPA_EnableCounterStr("GPUTime"), GPA_STATUS_OK);
	assert_int_equal(gpa.GPA_EnableCounterStr("TaskClock"), GPA_STATUS_OK);
	/* Descheduling only adds time to a sample: the growth with the work is
	 * judged on each sample's least time over up to five sessions. */
	double least[3] = { HUGE_VAL, HUGE_VAL, HUGE_VAL };
	gpa_uint32 session = 0;
	for (int round = 0; round < 5; round++) {
		session = run_session(work.queue, workload, 3);
		double ms[3], sum = 0;
		for (unsigned i = 0; i < 3; i++) {
			ms[i] = gpa_result(&gpa, session, i, "GPUTime");
			gpa_uint64 begin = 0, end = 0;
			assert_int_equal(gpa.GetSampleTime(session, i, &begin, &end), GPA_STATUS_OK);
			double span = (double)(end - begin) / 1e6;
			printf("sample %u: %u kernels, GPUTime %.3f ms, sample span %.3f ms\n", i,
			       workload[i], ms[i], span);
			assert_true(ms[i] > 0);
			assert_true(ms[i] <= span * 1.01 + 0.05);
			sum += ms[i];
			least[i] = ms[i] < least[i] ? ms[i] : least[i];
		}
		double total = gpa_result(&gpa, session, OPENGPA_SAMPLES_TOTAL, "GPUTime");
		assert_true(total > sum * 0.999 && total < sum * 1.001);
		if (least[1] > 2 * least[0] && least[1] > 2 * least[2])
			break;
	}
	assert_true(least[1] > 2 * least[0] && least[1] > 2 * least[2]);

	/* Unsynchronised: barriers enqueued, read when asked (GetSample waits). */
	assert_int_equal(gpa.SetSampleSync(OPENGPA_SYNC_OFF), GPA_STATUS_OK);
	session = run_session(work.queue, workload, 3);
	assert_true(gpa_result(&gpa, session, 1, "GPUTime") > 0);
	clFinish(work.queue);
	bool ready = false;
	assert_int_equal(gpa.GPA_IsSessionReady(&ready, session), GPA_STATUS_OK);
	assert_true(ready);
	assert_int_equal(gpa.GPA_CloseContext(), GPA_STATUS_OK);
}

/* A queue without CL_QUEUE_PROFILING_ENABLE: samples are synchronised, but
 * GPUTime is unavailable, and `opengpa list --all`'s reason says why. */
static void test_queue_without_profiling(void **state)
{
	(void)state;
	open_work(false);
	gpa_load(&gpa, "libGPUPerfAPICL.so");
	assert_int_equal(gpa.GPA_OpenContext(work.queue), GPA_STATUS_OK);
	gpa_uint32 index;
	assert_int_equal(gpa.GPA_GetCounterIndex("GPUTime", &index), GPA_STATUS_ERROR_NOT_FOUND);
	gpa_uint32 n = 0;
	bool found = false;
	assert_int_equal(gpa.GetUnavailableCount(&n), GPA_STATUS_OK);
	for (gpa_uint32 i = 0; i < n; i++) {
		const char *name, *reason;
		assert_int_equal(gpa.GetUnavailableCounter(i, &name, &reason), GPA_STATUS_OK);
		if (strcmp(name, "GPUTime") == 0) {
			assert_non_null(strstr(reason, "CL_QUEUE_PROFILING_ENABLE"));
			found = true;
		}
	}
	assert_true(found);
	assert_int_equal(gpa.GPA_EnableCounterStr("TaskClock"), GPA_STATUS_OK);
	gpa_uint32 session = run_session(work.queue, workload, 3);
	assert_true(gpa_result(&gpa, session, 1, "TaskClock") >= 0);
	assert_int_equal(gpa.GPA_CloseContext(), GPA_STATUS_OK);
}

/* What is not a command queue is refused with the reason, not crashed on. */
static void test_not_a_queue(void **state)
{
	(void)state;
	open_work(true);
	gpa_load(&gpa, "libGPUPerfAPICL.so");
	int not_a_queue = 42;
	assert_int_equal(gpa.GPA_OpenContext(&not_a_queue), GPA_STATUS_ERROR_FAILED);
	assert_true(gpa_log_has("that is not an OpenCL object"));
	/* An OpenCL object, but a context, not a queue. */
	assert_int_equal(gpa.GPA_OpenContext(work.ctx), GPA_STATUS_ERROR_FAILED);
	assert_true(gpa_log_has("not a live cl_command_queue"));
	/* The GPA context holds the queue: the application may release its own
	 * reference while sampling. */
	cl_command_queue q = cl_work_queue(&work, true);
	assert_non_null(q);
	assert_int_equal(gpa.GPA_OpenContext(q), GPA_STATUS_OK);
	assert_int_equal(gpa.GPA_EnableCounterStr("GPUTime"), GPA_STATUS_OK);
	clRetainCommandQueue(q);
	gpa_uint32 session = run_session(q, workload, 1);
	clReleaseCommandQueue(q);
	assert_true(gpa_result(&gpa, session, 0, "GPUTime") > 0);
	clReleaseCommandQueue(q); /* the application's last; opengpa's remains */
	assert_int_equal(gpa.GPA_CloseContext(), GPA_STATUS_OK);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_gpu_time, teardown),
		cmocka_unit_test_teardown(test_queue_without_profiling, teardown),
		cmocka_unit_test_teardown(test_not_a_queue, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
