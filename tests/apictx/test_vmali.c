/* SPDX-License-Identifier: MIT */
/*
 * test_vmali.c — synchronised samples hold their own frame's counts: a GL
 * (argv[1] "gl") or OpenCL ("cl") program samples each frame through
 * opengpa on the virtual Mali-G71, whose workload clock its draw calls or
 * kernels drive (VMALI_API_FRAMES=1, tests/virtual-devices/mali/vmali_api.c:
 * each draw or kernel is one frame of the script, run when the GPU would
 * run it, one submission behind the CPU unless the queue is drained).
 *
 * The script's frames have 1000, 2000, 3000 and 4000 input primitives, so a
 * sample's TotalInputPrimitives says which frame it counted:
 *   synchronised (the default)  sample i: frame i's;
 *   OPENGPA_SYNC_OFF            sample i: frame i - 1's (nothing for the first),
 *                               what a GPU running a frame behind gives;
 *   the plain library name      the same as unsynchronised, as before.
 * GL also gets the faults llvmpipe never produces: a disjoint GPU timer
 * (argv[2] 2), a lost context (3), a timer without GL_TIMESTAMP (4), a
 * timer whose results are wrong (5).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gpa_lib.h"
#if HAVE_GL
#include <GLES3/gl3.h>

#include "gl_scene.h"
#endif
#if HAVE_CL
#include "cl_work.h"
#endif

#define FRAMES 8

static struct gpa gpa;
static bool use_cl;
static const char *alias;
#if HAVE_GL
static struct gl_scene scene;
#endif
#if HAVE_CL
static struct cl_work work;
#endif
static uint64_t frames_drawn; /* frames of the script run so far */

static void *open_api(void)
{
#if HAVE_CL
	if (use_cl) {
		if (!cl_work_open(&work, true))
			fail_msg("OpenCL: %s", work.error);
		return work.queue;
	}
#endif
#if HAVE_GL
	if (!use_cl) {
		if (!scene_open(&scene, true))
			fail_msg("GLES: %s", scene.error);
		return scene.ctx;
	}
#endif
	fail_msg("this build has no %s", use_cl ? "OpenCL" : "GLES");
	return NULL;
}

/* One frame: one draw call (or kernel), then the frame's submission
 * (glFlush, as eglSwapBuffers does; clFlush). */
static void frame(void)
{
#if HAVE_CL
	if (use_cl) {
		cl_work_run(&work, work.queue, 1, 100);
		clFlush(work.queue);
	}
#endif
#if HAVE_GL
	if (!use_cl) {
		scene_draw(&scene, 1, 20);
		scene_flush(&scene);
	}
#endif
	frames_drawn++;
}

/* Completes whatever is in flight, outside any sample. */
static void drain(void)
{
#if HAVE_CL
	if (use_cl)
		clFinish(work.queue);
#endif
#if HAVE_GL
	if (!use_cl)
		scene_finish(&scene);
#endif
}

static void close_api(void)
{
#if HAVE_CL
	if (use_cl)
		cl_work_close(&work);
#endif
#if HAVE_GL
	if (!use_cl)
		scene_close(&scene);
#endif
}

static double prims_of(uint64_t frame_index)
{
	return 1000.0 * (double)(frame_index % 4 + 1);
}

/* A session of FRAMES samples, one frame each; returns the index of the
 * first frame it drew. */
static uint64_t sample_frames(gpa_uint32 *session)
{
	uint64_t first = frames_drawn;
	gpa_uint32 passes = 0;
	assert_int_equal(gpa.GPA_BeginSession(session), GPA_STATUS_OK);
	assert_int_equal(gpa.GPA_GetPassCount(&passes), GPA_STATUS_OK);
	assert_int_equal(passes, 1);
	assert_int_equal(gpa.GPA_BeginPass(), GPA_STATUS_OK);
	for (unsigned i = 0; i < FRAMES; i++) {
		assert_int_equal(gpa.GPA_BeginSample(i), GPA_STATUS_OK);
		frame();
		assert_int_equal(gpa.GPA_EndSample(), GPA_STATUS_OK);
	}
	assert_int_equal(gpa.GPA_EndPass(), GPA_STATUS_OK);
	assert_int_equal(gpa.GPA_EndSession(), GPA_STATUS_OK);
	return first;
}

static void check_own_frames(gpa_uint32 session, uint64_t first)
{
	for (unsigned i = 0; i < FRAMES; i++) {
		double prims = gpa_result(&gpa, session, i, "TotalInputPrimitives");
		printf("synchronised sample %u: %.0f primitives (its frame: %.0f)\n", i, prims,
		       prims_of(first + i));
		assert_true(prims == prims_of(first + i));
	}
}

static void check_previous_frames(gpa_uint32 session, uint64_t first, const char *how)
{
	for (unsigned i = 0; i < FRAMES; i++) {
		double prims = gpa_result(&gpa, session, i, "TotalInputPrimitives");
		double previous = i ? prims_of(first + i - 1) : 0;
		printf("%s sample %u: %.0f primitives (its frame: %.0f, the previous: %.0f)\n", how,
		       i, prims, prims_of(first + i), previous);
		assert_true(prims == previous);
	}
}

static void test_synchronised_samples_hold_their_frames(void **state)
{
	(void)state;
	void *key = open_api();
	gpa_load(&gpa, alias);
	assert_int_equal(gpa.GPA_OpenContext(key), GPA_STATUS_OK);
	assert_true(gpa_log_has("Mali-G71"));
	assert_true(gpa_log_has("samples synchronised"));
	assert_int_equal(gpa.GPA_EnableCounterStr("TotalInputPrimitives"), GPA_STATUS_OK);
	assert_int_equal(gpa.GPA_EnableCounterStr("GPUTime"), GPA_STATUS_OK);
	assert_int_equal(gpa.GPA_EnableCounterStr("GPUBusy"), GPA_STATUS_OK);
	gpa_uint32 session;
	uint64_t first = sample_frames(&session);
	check_own_frames(session, first);
	for (unsigned i = 0; i < FRAMES; i++) {
		double busy = gpa_result(&gpa, session, i, "GPUBusy");
		assert_true(busy > 0 && busy <= 100);
		assert_true(gpa_result(&gpa, session, i, "GPUTime") > 0);
	}

	/* Unsynchronised, each sample counts what the GPU finished meanwhile:
	 * the previous frame. */
	assert_int_equal(gpa.SetSampleSync(OPENGPA_SYNC_OFF), GPA_STATUS_OK);
	first = sample_frames(&session);
	check_previous_frames(session, first, "unsynchronised");
	drain();
	/* And synchronised again. */
	assert_int_equal(gpa.SetSampleSync(OPENGPA_SYNC_FINISH), GPA_STATUS_OK);
	first = sample_frames(&session);
	check_own_frames(session, first);
	assert_int_equal(gpa.GPA_CloseContext(), GPA_STATUS_OK);
	gpa_unload(&gpa);
	drain();
}

/* The plain library name does what it always did: the pointer is a key and
 * nothing waits for the GPU. */
static void test_plain_name_is_unsynchronised(void **state)
{
	(void)state;
	void *key = open_api();
	gpa_load(&gpa, "libopengpa.so.1");
	assert_int_equal(gpa.GPA_OpenContext(key), GPA_STATUS_OK);
	assert_true(gpa_log_has("plain: the context pointer is a key"));
	assert_int_equal(gpa.GPA_EnableCounterStr("TotalInputPrimitives"), GPA_STATUS_OK);
	gpa_uint32 index;
	assert_int_equal(gpa.GPA_GetCounterIndex("GPUTime", &index), GPA_STATUS_ERROR_NOT_FOUND);
	assert_int_equal(gpa.GPA_GetCounterIndex("GPUBusy", &index), GPA_STATUS_ERROR_NOT_FOUND);
	gpa_uint32 session;
	uint64_t first = sample_frames(&session);
	check_previous_frames(session, first, "plain");
	assert_int_equal(gpa.GPA_CloseContext(), GPA_STATUS_OK);
	gpa_unload(&gpa);
	drain();
}

#if HAVE_GL
/* The library loaded, its context open on ours with GPUTime enabled. */
static void open_timed(void)
{
	void *key = open_api();
	gpa_load(&gpa, alias);
	assert_int_equal(gpa.GPA_OpenContext(key), GPA_STATUS_OK);
	assert_int_equal(gpa.GPA_EnableCounterStr("GPUTime"), GPA_STATUS_OK);
}

/* GL_GPU_DISJOINT_EXT set (VMALI_GL_DISJOINT_AT=3: after the third draw)
 * makes the GPU time of the sample in flight an error, not the others'. */
static void test_disjoint_timer(void **state)
{
	(void)state;
	open_timed();
	gpa_uint32 session;
	sample_frames(&session);
	for (unsigned i = 0; i < FRAMES; i++) {
		double ms = -1;
		GPA_Status st = gpa.GPA_GetSampleFloat64(session, i, gpa_counter(&gpa, "GPUTime"), &ms);
		printf("sample %u: %s, GPUTime %.3f ms\n", i, gpa.GPA_GetStatusAsStr(st), ms);
		assert_int_equal(st, i == 2 ? GPA_STATUS_ERROR_READING_COUNTER_RESULT : GPA_STATUS_OK);
	}
	assert_true(gpa_log_has("GL_GPU_DISJOINT_EXT: the GPU's timer jumped"));
	assert_int_equal(gpa.GPA_CloseContext(), GPA_STATUS_OK);
}

/* A context reset (VMALI_GL_RESET_AT=3) fails the sample that sees it and
 * every one after, with the reason. */
static void test_lost_context(void **state)
{
	(void)state;
	open_timed();
	gpa_uint32 session;
	assert_int_equal(gpa.GPA_BeginSession(&session), GPA_STATUS_OK);
	assert_int_equal(gpa.GPA_BeginPass(), GPA_STATUS_OK);
	for (unsigned i = 0; i < 5; i++) {
		GPA_Status begin = gpa.GPA_BeginSample(i);
		assert_int_equal(begin, i < 3 ? GPA_STATUS_OK : GPA_STATUS_ERROR_FAILED);
		frame();
		if (begin == GPA_STATUS_OK)
			assert_int_equal(gpa.GPA_EndSample(),
			                 i < 2 ? GPA_STATUS_OK : GPA_STATUS_ERROR_FAILED);
	}
	assert_true(gpa_log_has("was lost (GL_UNKNOWN_CONTEXT_RESET)"));
	assert_int_equal(gpa.GPA_EndPass(), GPA_STATUS_OK);
	assert_int_equal(gpa.GPA_EndSession(), GPA_STATUS_OK);
	assert_true(gpa_result(&gpa, session, 1, "GPUTime") > 0);
	double ms;
	assert_int_equal(gpa.GPA_GetSampleFloat64(session, 3, gpa_counter(&gpa, "GPUTime"), &ms),
	                 GPA_STATUS_ERROR_READING_COUNTER_RESULT);
	assert_int_equal(gpa.GPA_CloseContext(), GPA_STATUS_OK);
}

/* A driver whose timer has no GL_TIMESTAMP (VMALI_GL_NO_TIMESTAMP=1): one
 * GL_TIME_ELAPSED query around each sample, and a sample begun while the
 * application has such a query of its own active gets no GPUTime (GL allows
 * one at a time) while its other counters are fine. */
static void test_time_elapsed(void **state)
{
	(void)state;
	open_timed();
	assert_true(gpa_log_has("GPUTime from a GL_TIME_ELAPSED query around each sample"));
	assert_int_equal(gpa.GPA_EnableCounterStr("TotalInputPrimitives"), GPA_STATUS_OK);
	gpa_uint32 session;
	uint64_t first = sample_frames(&session);
	check_own_frames(session, first);
	/* Mesa 22.3's llvmpipe answers the first GL_TIME_ELAPSED query of a
	 * context with the time since boot: that sample's GPUTime is refused
	 * (the result is longer than the whole sample), the others are fine. */
	double ms;
	GPA_Status first_st =
		gpa.GPA_GetSampleFloat64(session, 0, gpa_counter(&gpa, "GPUTime"), &ms);
	assert_true(first_st == GPA_STATUS_OK ||
	            (first_st == GPA_STATUS_ERROR_READING_COUNTER_RESULT &&
	             gpa_log_has("the driver's timer result is wrong")));
	for (unsigned i = 1; i < FRAMES; i++)
		assert_true(gpa_result(&gpa, session, i, "GPUTime") > 0);

	void (*gen)(GLsizei, GLuint *) = (void (*)(GLsizei, GLuint *))eglGetProcAddress("glGenQueriesEXT");
	void (*begin)(GLenum, GLuint) = (void (*)(GLenum, GLuint))eglGetProcAddress("glBeginQueryEXT");
	void (*end)(GLenum) = (void (*)(GLenum))eglGetProcAddress("glEndQueryEXT");
	assert_true(gen && begin && end);
	GLuint mine = 0;
	gen(1, &mine);
	assert_int_equal(gpa.GPA_BeginSession(&session), GPA_STATUS_OK);
	assert_int_equal(gpa.GPA_BeginPass(), GPA_STATUS_OK);
	begin(0x88BF /* GL_TIME_ELAPSED_EXT */, mine);
	assert_int_equal(gpa.GPA_BeginSample(0), GPA_STATUS_OK);
	frame();
	assert_int_equal(gpa.GPA_EndSample(), GPA_STATUS_OK);
	end(0x88BF);
	assert_true(gpa_log_has("has a GL_TIME_ELAPSED query of its own active"));
	assert_int_equal(gpa.GPA_EndPass(), GPA_STATUS_OK);
	assert_int_equal(gpa.GPA_EndSession(), GPA_STATUS_OK);
	assert_int_equal(gpa.GPA_GetSampleFloat64(session, 0, gpa_counter(&gpa, "GPUTime"), &ms),
	                 GPA_STATUS_ERROR_READING_COUNTER_RESULT);
	assert_true(gpa_result(&gpa, session, 0, "TotalInputPrimitives") == prims_of(first + FRAMES));
	assert_int_equal(gpa.GPA_CloseContext(), GPA_STATUS_OK);
}

/* A driver's timer result longer than the whole synchronised sample
 * (VMALI_GL_BAD_TIMER=1) is refused, not reported. */
static void test_bad_timer(void **state)
{
	(void)state;
	open_timed();
	gpa_uint32 session;
	sample_frames(&session);
	double ms;
	assert_int_equal(gpa.GPA_GetSampleFloat64(session, 0, gpa_counter(&gpa, "GPUTime"), &ms),
	                 GPA_STATUS_ERROR_READING_COUNTER_RESULT);
	assert_true(gpa_log_has("the driver's timer result is wrong"));
	assert_int_equal(gpa.GPA_CloseContext(), GPA_STATUS_OK);
}
#endif

static int teardown(void **state)
{
	(void)state;
	if (gpa.lib)
		gpa_unload(&gpa);
	close_api();
	frames_drawn = 0; /* a new device clock only in a new process: see main */
	return 0;
}

int main(int argc, char **argv)
{
	use_cl = argc > 1 && strcmp(argv[1], "cl") == 0;
	alias = use_cl ? "libGPUPerfAPICL.so" : "libGPUPerfAPIGLES.so";
	/* Each test runs in its own process (argv[2]), so each starts at the
	 * script's first frame. */
	const struct CMUnitTest all[] = {
		cmocka_unit_test_teardown(test_synchronised_samples_hold_their_frames, teardown),
		cmocka_unit_test_teardown(test_plain_name_is_unsynchronised, teardown),
#if HAVE_GL
		cmocka_unit_test_teardown(test_disjoint_timer, teardown),
		cmocka_unit_test_teardown(test_lost_context, teardown),
		cmocka_unit_test_teardown(test_time_elapsed, teardown),
		cmocka_unit_test_teardown(test_bad_timer, teardown),
#endif
	};
	size_t pick = argc > 2 ? (size_t)atoi(argv[2]) : 0;
	if (pick >= sizeof(all) / sizeof(all[0]))
		return 2;
	return _cmocka_run_group_tests(use_cl ? "vmali-cl" : "vmali-gl", &all[pick], 1, NULL, NULL);
}
