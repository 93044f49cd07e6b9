/* SPDX-License-Identifier: MIT */
/*
 * test_gl.c — contexts on a GL or GLES context (lib/apictx/gl.c), on
 * Mesa's llvmpipe through EGL without a display, with opengpa loaded the
 * way a GPA 2.x tool loads it: libGPUPerfAPIGLES.so, libGPUPerfAPIGL.so,
 * and libopengpa.so.1 for the plain name.
 *
 * Work is a full-screen triangle whose fragment shader loops LOOP times per
 * pixel: a sample of 32 draw calls is 32 times the GPU work of a sample of
 * one.  The timing checks are ratios within one run, with a wide margin,
 * and bounds from the samples' own wall-clock spans, never absolute times
 * (the machine is shared and noisy: llvmpipe's threads get descheduled
 * inside a timed sample).
 */
#include <math.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gl_scene.h"
#include "gpa_lib.h"

#define LOOP 200

static struct gl_scene scene;
static struct gpa gpa;

/* A GL scene current on this thread, or the test is skipped. */
static void open_scene(bool es)
{
	if (!scene_open(&scene, es)) {
		fprintf(stderr, "no %s context here: %s\n", es ? "GLES" : "GL", scene.error);
		scene_close(&scene);
		skip();
	}
	/* Shaders compile on first use: not inside a timed sample. */
	scene_draw(&scene, 1, LOOP);
	scene_finish(&scene);
}

/* Also after a failed test: the next one must load the library under its
 * own name, so this one's must be gone. */
static int teardown(void **state)
{
	(void)state;
	if (gpa.lib)
		gpa_unload(&gpa);
	scene_close(&scene);
	return 0;
}

static void open_context(struct gpa *g, const char *expect_api)
{
	assert_int_equal(g->GPA_OpenContext(scene.ctx), GPA_STATUS_OK);
	const char *api = NULL;
	gpa_uint32 sync = 0;
	assert_int_equal(g->GetContextApi(&api, &sync), GPA_STATUS_OK);
	assert_string_equal(api, expect_api);
	assert_int_equal(sync, OPENGPA_SYNC_FINISH);
}

/* One session, one pass per planned pass, a sample per entry of draws[]. */
static gpa_uint32 run_session(struct gpa *g, const unsigned *draws, unsigned n)
{
	gpa_uint32 session = 0, passes = 0;
	assert_int_equal(g->GPA_BeginSession(&session), GPA_STATUS_OK);
	assert_int_equal(g->GPA_GetPassCount(&passes), GPA_STATUS_OK);
	for (gpa_uint32 p = 0; p < passes; p++) {
		assert_int_equal(g->GPA_BeginPass(), GPA_STATUS_OK);
		for (unsigned i = 0; i < n; i++) {
			assert_int_equal(g->GPA_BeginSample(i), GPA_STATUS_OK);
			scene_draw(&scene, draws[i], LOOP);
			assert_int_equal(g->GPA_EndSample(), GPA_STATUS_OK);
		}
		assert_int_equal(g->GPA_EndPass(), GPA_STATUS_OK);
	}
	assert_int_equal(g->GPA_EndSession(), GPA_STATUS_OK);
	return session;
}

static void note_least(const double *ms, unsigned n, double *least)
{
	for (unsigned i = 0; i < n; i++)
		least[i] = ms[i] < least[i] ? ms[i] : least[i];
}

/* GPUTime is positive, grows with the work, and fits in each sample's own
 * span on the CPU's clock (synchronised, a sample's commands run between
 * its BeginSample and EndSample). */
static void check_gpu_time(struct gpa *g, gpa_uint32 session, const unsigned *draws, unsigned n,
                           double *least)
{
	double ms[8], sum = 0;
	for (unsigned i = 0; i < n; i++) {
		ms[i] = gpa_result(g, session, i, "GPUTime");
		gpa_uint64 begin = 0, end = 0;
		assert_int_equal(g->GetSampleTime(session, i, &begin, &end), GPA_STATUS_OK);
		double span = (double)(end - begin) / 1e6;
		printf("sample %u: %u draws, GPUTime %.3f ms, sample span %.3f ms\n", i, draws[i],
		       ms[i], span);
		assert_true(ms[i] > 0);
		assert_true(ms[i] <= span * 1.01 + 0.05);
		sum += ms[i];
	}
	note_least(ms, n, least);
	double total = gpa_result(g, session, OPENGPA_SAMPLES_TOTAL, "GPUTime");
	assert_true(total > sum * 0.999 && total < sum * 1.001);
}

static const unsigned workload[3] = { 1, 32, 1 };

/* Samples 0 and 2 are one draw, sample 1 thirty-two.  Descheduling only
 * ever adds time to a sample, so the growth is judged on each sample's
 * least time over a few sessions: one session on a loaded machine can
 * have its one-draw sample preempted for longer than 32 draws take. */
#define GROWTH_ROUNDS 5

static bool grows(const double *least)
{
	return least[1] > 2 * least[0] && least[1] > 2 * least[2];
}

/* More sessions of the workload, each finished and checked, until the
 * least times show the growth or GROWTH_ROUNDS sessions have run. */
static void expect_growth(struct gpa *g, double *least, int rounds_done, bool synchronised)
{
	for (int round = rounds_done; round < GROWTH_ROUNDS && !grows(least); round++) {
		gpa_uint32 session = run_session(g, workload, 3);
		scene_finish(&scene);
		if (synchronised) {
			check_gpu_time(g, session, workload, 3, least);
			continue;
		}
		double ms[3];
		for (unsigned i = 0; i < 3; i++)
			ms[i] = gpa_result(g, session, i, "GPUTime");
		note_least(ms, 3, least);
	}
	assert_true(grows(least));
}

static void gpu_time_on(const char *alias, bool es, const char *api)
{
	open_scene(es);
	gpa_load(&gpa, alias);
	open_context(&gpa, api);
	assert_true(gpa_log_has(es ? "GLES context" : "GL context"));
	assert_true(gpa_log_has("samples synchronised"));
	assert_int_equal(gpa.GPA_EnableCounterStr("GPUTime"), GPA_STATUS_OK);
	gpa_uint32 session = run_session(&gpa, workload, 3);
	bool ready = false;
	assert_int_equal(gpa.GPA_IsSessionReady(&ready, session), GPA_STATUS_OK);
	assert_true(ready); /* synchronised: in at GPA_EndSample */
	double least[3] = { HUGE_VAL, HUGE_VAL, HUGE_VAL };
	check_gpu_time(&gpa, session, workload, 3, least);
	expect_growth(&gpa, least, 1, true);
	assert_int_equal(gpa.GPA_CloseContext(), GPA_STATUS_OK);
	gpa_unload(&gpa);
}

static void test_gles_gpu_time(void **state)
{
	(void)state;
	gpu_time_on("libGPUPerfAPIGLES.so", true, "gles");
}

static void test_gl_gpu_time(void **state)
{
	(void)state;
	gpu_time_on("libGPUPerfAPIGL.so", false, "gl");
}

struct elsewhere {
	gpa_uint32 session;
	GPA_Status status;
	bool ready;
	double ms;
};

static void *read_elsewhere(void *arg)
{
	struct elsewhere *e = arg;
	gpa_uint32 index = 0;
	if (gpa.GPA_GetCounterIndex("GPUTime", &index) != GPA_STATUS_OK ||
	    gpa.GPA_IsSampleReady(&e->ready, e->session, 1) != GPA_STATUS_OK)
		return NULL;
	e->status = gpa.GPA_GetSampleFloat64(e->session, 1, index, &e->ms);
	return NULL;
}

/* Unsynchronised, the timer queries are issued and read later: a sample is
 * ready when its query is (llvmpipe runs nothing before a flush), and
 * GPA_GetSample* waits for it. */
static void test_unsynchronised(void **state)
{
	(void)state;
	open_scene(true);
	gpa_load(&gpa, "libGPUPerfAPIGLES.so");
	open_context(&gpa, "gles");
	assert_int_equal(gpa.SetSampleSync(OPENGPA_SYNC_OFF), GPA_STATUS_OK);
	assert_int_equal(gpa.GPA_EnableCounterStr("GPUTime"), GPA_STATUS_OK);
	gpa_uint32 session = run_session(&gpa, workload, 3);
	bool ready = true;
	assert_int_equal(gpa.GPA_IsSampleReady(&ready, session, 1), GPA_STATUS_OK);
	assert_false(ready);
	assert_int_equal(gpa.GPA_IsSessionReady(&ready, session), GPA_STATUS_OK);
	assert_false(ready);
	scene_finish(&scene);
	assert_int_equal(gpa.GPA_IsSampleReady(&ready, session, 1), GPA_STATUS_OK);
	assert_true(ready);
	assert_int_equal(gpa.GPA_IsSessionReady(&ready, session), GPA_STATUS_OK);
	assert_true(ready);
	double least[3] = { HUGE_VAL, HUGE_VAL, HUGE_VAL }, ms[3];
	for (unsigned i = 0; i < 3; i++) {
		ms[i] = gpa_result(&gpa, session, i, "GPUTime");
		assert_true(ms[i] > 0);
	}
	note_least(ms, 3, least);
	expect_growth(&gpa, least, 1, false);
	/* Another thread, where the GL context is not current, cannot read a
	 * result still in a query: not ready, and an error that says why,
	 * while the rendering thread still can. */
	session = run_session(&gpa, workload, 3);
	scene_finish(&scene);
	struct elsewhere e = { session, 0, true, 0 };
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, read_elsewhere, &e), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_false(e.ready);
	assert_int_equal(e.status, GPA_STATUS_ERROR_READING_COUNTER_RESULT);
	assert_true(gpa_log_has("is not current on this thread: read results on the thread"));
	assert_true(gpa_result(&gpa, session, 1, "GPUTime") > 0);
	/* Again, read without a finish: GPA_GetSample* waits for the GPU. */
	session = run_session(&gpa, workload, 3);
	assert_true(gpa_result(&gpa, session, 1, "GPUTime") > 0);
	/* Flushed: submitted at each boundary, not waited for. */
	assert_int_equal(gpa.SetSampleSync(OPENGPA_SYNC_FLUSH), GPA_STATUS_OK);
	session = run_session(&gpa, workload, 3);
	assert_true(gpa_result(&gpa, session, 1, "GPUTime") > 0);
	assert_int_equal(gpa.GPA_CloseContext(), GPA_STATUS_OK);
	gpa_unload(&gpa);
}

/* A GL context that is not current where the sample is taken, or not
 * current at all, gives an error that says so; the GPA context works again
 * once it is current. */
static void test_not_current(void **state)
{
	(void)state;
	open_scene(true);
	gpa_load(&gpa, "libGPUPerfAPIGLES.so");
	open_context(&gpa, "gles");
	assert_int_equal(gpa.GPA_EnableCounterStr("GPUTime"), GPA_STATUS_OK);
	gpa_uint32 session = 0;
	assert_int_equal(gpa.GPA_BeginSession(&session), GPA_STATUS_OK);
	assert_int_equal(gpa.GPA_BeginPass(), GPA_STATUS_OK);

	assert_true(scene_make_current(&scene, EGL_NO_CONTEXT));
	assert_int_equal(gpa.GPA_BeginSample(0), GPA_STATUS_ERROR_FAILED);
	assert_true(gpa_log_has("is not current on this thread (none is)"));
	EGLContext other = scene_other_context(&scene);
	assert_true(other != EGL_NO_CONTEXT);
	assert_true(scene_make_current(&scene, other));
	assert_int_equal(gpa.GPA_BeginSample(1), GPA_STATUS_ERROR_FAILED);
	assert_true(gpa_log_has("is not current on this thread (another context is)"));

	assert_true(scene_make_current(&scene, scene.ctx));
	assert_int_equal(gpa.GPA_BeginSample(2), GPA_STATUS_OK);
	scene_draw(&scene, 1, LOOP);
	/* Current at BeginSample, not at EndSample: the sample fails. */
	assert_true(scene_make_current(&scene, other));
	assert_int_equal(gpa.GPA_EndSample(), GPA_STATUS_ERROR_FAILED);
	assert_true(scene_make_current(&scene, scene.ctx));
	assert_int_equal(gpa.GPA_BeginSample(3), GPA_STATUS_OK);
	scene_draw(&scene, 1, LOOP);
	assert_int_equal(gpa.GPA_EndSample(), GPA_STATUS_OK);
	assert_int_equal(gpa.GPA_EndPass(), GPA_STATUS_OK);
	assert_int_equal(gpa.GPA_EndSession(), GPA_STATUS_OK);
	double ms = -1;
	gpa_uint32 index = gpa_counter(&gpa, "GPUTime");
	assert_int_equal(gpa.GPA_GetSampleFloat64(session, 2, index, &ms),
	                 GPA_STATUS_ERROR_READING_COUNTER_RESULT);
	assert_true(gpa_result(&gpa, session, 3, "GPUTime") > 0);
	assert_int_equal(gpa.GPA_CloseContext(), GPA_STATUS_OK);

	/* No GL context current at GPA_OpenContext. */
	assert_true(scene_make_current(&scene, EGL_NO_CONTEXT));
	assert_int_equal(gpa.GPA_OpenContext(scene.ctx), GPA_STATUS_ERROR_FAILED);
	assert_true(gpa_log_has("no gles context is current on this thread"));
	assert_true(scene_make_current(&scene, scene.ctx));
	eglDestroyContext(scene.dpy, other);
	gpa_unload(&gpa);
}

/* Only GPUTime enabled: no counter of the backend's, which is then never
 * asked to count (its pass has nothing for it). */
static void test_gpu_time_alone_and_with_backend(void **state)
{
	(void)state;
	open_scene(true);
	gpa_load(&gpa, "libGPUPerfAPIGLES.so");
	open_context(&gpa, "gles");
	assert_int_equal(gpa.GPA_EnableCounterStr("GPUTime"), GPA_STATUS_OK);
	gpa_uint32 passes = 0;
	assert_int_equal(gpa.GPA_GetPassCount(&passes), GPA_STATUS_OK);
	assert_int_equal(passes, 1);
	/* With the backend's counters in the same pass. */
	assert_int_equal(gpa.GPA_EnableCounterStr("TaskClock"), GPA_STATUS_OK);
	assert_int_equal(gpa.GPA_GetPassCount(&passes), GPA_STATUS_OK);
	assert_int_equal(passes, 1);
	gpa_uint32 session = run_session(&gpa, workload, 3);
	double least[3] = { HUGE_VAL, HUGE_VAL, HUGE_VAL };
	check_gpu_time(&gpa, session, workload, 3, least);
	assert_true(gpa_result(&gpa, session, 1, "TaskClock") > 0);
	expect_growth(&gpa, least, 1, true);
	assert_int_equal(gpa.GPA_CloseContext(), GPA_STATUS_OK);
	gpa_unload(&gpa);
}

/* Loaded as libopengpa.so.1, the pointer is a key as before, with a GL
 * context current or not: no GPUTime, no sync. */
static void test_plain_name_unchanged(void **state)
{
	(void)state;
	open_scene(true);
	gpa_load(&gpa, "libopengpa.so.1");
	int key = 0;
	assert_int_equal(gpa.GPA_OpenContext(&key), GPA_STATUS_OK);
	assert_true(gpa_log_has("plain: the context pointer is a key"));
	const char *api = NULL;
	gpa_uint32 sync = 0;
	assert_int_equal(gpa.GetContextApi(&api, &sync), GPA_STATUS_OK);
	assert_string_equal(api, "none");
	assert_int_equal(sync, OPENGPA_SYNC_OFF);
	gpa_uint32 index;
	assert_int_equal(gpa.GPA_GetCounterIndex("GPUTime", &index), GPA_STATUS_ERROR_NOT_FOUND);
	assert_int_equal(gpa.SetSampleSync(OPENGPA_SYNC_FINISH), GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED);
	assert_int_equal(gpa.SetSampleSync(OPENGPA_SYNC_OFF), GPA_STATUS_OK);
	assert_int_equal(gpa.GPA_CloseContext(), GPA_STATUS_OK);
	/* The same library told what the context is. */
	assert_int_equal(gpa.SetContextApi("gles"), GPA_STATUS_OK);
	open_context(&gpa, "gles");
	assert_int_equal(gpa.GPA_GetCounterIndex("GPUTime", &index), GPA_STATUS_OK);
	assert_int_equal(gpa.GPA_CloseContext(), GPA_STATUS_OK);
	assert_int_equal(gpa.SetContextApi("vulkan"), GPA_STATUS_ERROR_NOT_FOUND);
	assert_int_equal(gpa.SetContextApi(NULL), GPA_STATUS_OK);
	gpa_unload(&gpa);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_gles_gpu_time, teardown),
		cmocka_unit_test_teardown(test_gl_gpu_time, teardown),
		cmocka_unit_test_teardown(test_unsynchronised, teardown),
		cmocka_unit_test_teardown(test_not_current, teardown),
		cmocka_unit_test_teardown(test_gpu_time_alone_and_with_backend, teardown),
		cmocka_unit_test_teardown(test_plain_name_unchanged, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
