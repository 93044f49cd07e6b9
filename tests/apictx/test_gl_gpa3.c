/* SPDX-License-Identifier: MIT */
/*
 * test_gl_gpa3.c — a GPA 3.x client on a GLES context: GpaOpenContext on
 * libGPUPerfAPIGL.so binds to the current context as GPA_OpenContext does,
 * samples on the (null) command list are synchronised and timed, and the
 * completeness calls answer from the timer queries when unsynchronised.
 * GPUTime is GPA 3.x's: index 0, Float64 nanoseconds, GPA's UUID.
 * Built against include/gpa3 only, as GPA 3.x clients are.
 */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "gl_scene.h"
#include "gpu_performance_api/gpu_perf_api.h"

#define LOOP 200

static struct gl_scene scene;
static void *lib;
static GpaFunctionTable *gpa;

static int setup(void **state)
{
	(void)state;
	if (!scene_open(&scene, true)) {
		fprintf(stderr, "no GLES context here: %s\n", scene.error);
		scene_close(&scene);
		return -1;
	}
	scene_draw(&scene, 1, LOOP); /* shaders compile outside the samples */
	scene_finish(&scene);
	char path[4096];
	snprintf(path, sizeof(path), "%s/libGPUPerfAPIGL.so", getenv("OPENGPA_BUILD_LIB"));
	lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	GpaGetFuncTablePtrType get =
		lib ? (GpaGetFuncTablePtrType)(uintptr_t)dlsym(lib, "GpaGetFuncTable") : NULL;
	gpa = calloc(1, sizeof(*gpa));
	if (!get || !gpa)
		return -1;
	gpa->major_version = GPA_FUNCTION_TABLE_MAJOR_VERSION_NUMBER;
	gpa->minor_version = GPA_FUNCTION_TABLE_MINOR_VERSION_NUMBER;
	if (get(gpa) != kGpaStatusOk || gpa->GpaInitialize(kGpaInitializeDefaultBit) != kGpaStatusOk)
		return -1;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	if (gpa)
		gpa->GpaDestroy();
	free(gpa);
	if (lib)
		dlclose(lib);
	scene_close(&scene);
	return 0;
}

static const unsigned draws[3] = { 1, 32, 1 };
/* The CPU's time from GpaBeginSample to GpaEndSample of each sample of the
 * last session recorded: synchronised, the GPU's time lies within it. */
static double wall_ns[3];

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* A session of three samples on the null command list; GPUTime of each. */
static GpaSessionId record(GpaContextId ctx)
{
	GpaSessionId session;
	assert_int_equal(gpa->GpaCreateSession(ctx, kGpaSessionSampleTypeDiscreteCounter, &session),
	                 kGpaStatusOk);
	assert_int_equal(gpa->GpaEnableCounterByName(session, "GPUTime"), kGpaStatusOk);
	assert_int_equal(gpa->GpaBeginSession(session), kGpaStatusOk);
	GpaCommandListId list;
	assert_int_equal(gpa->GpaBeginCommandList(session, 0, GPA_NULL_COMMAND_LIST,
	                                          kGpaCommandListNone, &list), kGpaStatusOk);
	for (GpaUInt32 i = 0; i < 3; i++) {
		double t0 = now_ns();
		assert_int_equal(gpa->GpaBeginSample(i, list), kGpaStatusOk);
		scene_draw(&scene, draws[i], LOOP);
		assert_int_equal(gpa->GpaEndSample(list), kGpaStatusOk);
		wall_ns[i] = now_ns() - t0;
	}
	assert_int_equal(gpa->GpaEndCommandList(list), kGpaStatusOk);
	assert_int_equal(gpa->GpaEndSession(session), kGpaStatusOk);
	return session;
}

/* GPUTime of each sample in nanoseconds, positive; into ns[].  `synced`:
 * each lies within its sample's CPU interval (a value in milliseconds, or
 * one a million times too large, would not). */
static void read_times(GpaSessionId session, double ns[3], bool synced)
{
	for (GpaUInt32 i = 0; i < 3; i++) {
		size_t size = 0;
		assert_int_equal(gpa->GpaGetSampleResultSize(session, i, &size), kGpaStatusOk);
		assert_int_equal(size, sizeof(double));
		assert_int_equal(gpa->GpaGetSampleResult(session, i, size, &ns[i]), kGpaStatusOk);
		printf("sample %u: %u draws, GPUTime %.0f ns (CPU %.0f ns)\n", i, draws[i], ns[i],
		       wall_ns[i]);
		assert_true(ns[i] > 0);
		assert_true(ns[i] == (double)(uint64_t)ns[i]); /* whole nanoseconds */
		if (synced && !(ns[i] <= wall_ns[i] && ns[i] > wall_ns[i] * 1e-4))
			fail_msg("sample %u: GPUTime %.0f is not nanoseconds within the sample's %.0f "
			         "ns on the CPU", i, ns[i], wall_ns[i]);
	}
}

/* llvmpipe's GPU is the CPU: a sample whose thread was preempted (two cores
 * shared with the rest of the suite) reads long.  Each position's shortest
 * time over a few sessions is its own work's; 32 draws take more than twice
 * one draw's. */
static void check_times(GpaSessionId session, double best[3], int round, bool synced)
{
	double ns[3];
	read_times(session, ns, synced);
	for (int i = 0; i < 3; i++)
		if (round == 0 || ns[i] < best[i])
			best[i] = ns[i];
}

#define ROUNDS 4

static void check_order(const double best[3])
{
	if (!(best[1] > 2 * best[0] && best[1] > 2 * best[2]))
		fail_msg("shortest GPUTime of %d sessions: %.0f ns (1 draw), %.0f ns (32 draws), "
		         "%.0f ns (1 draw): 32 draws should take more than twice one", ROUNDS,
		         best[0], best[1], best[2]);
}

static void test_command_list_samples(void **state)
{
	(void)state;
	GpaContextId ctx;
	assert_int_equal(gpa->GpaOpenContext(scene.ctx, kGpaOpenContextDefaultBit, &ctx),
	                 kGpaStatusOk);
	double best[3];
	for (int round = 0; round < ROUNDS; round++) {
		GpaSessionId session = record(ctx);
		/* Synchronised: complete at once. */
		assert_int_equal(gpa->GpaIsPassComplete(session, 0), kGpaStatusOk);
		assert_int_equal(gpa->GpaIsSessionComplete(session), kGpaStatusOk);
		check_times(session, best, round, true);
		assert_int_equal(gpa->GpaDeleteSession(session), kGpaStatusOk);
	}
	check_order(best);
	assert_int_equal(gpa->GpaCloseContext(ctx), kGpaStatusOk);

	/* Unsynchronised (OPENGPA_SYNC, read when the context opens): complete
	 * when the GPU has the queries, which llvmpipe runs at a flush. */
	setenv("OPENGPA_SYNC", "off", 1);
	assert_int_equal(gpa->GpaOpenContext(scene.ctx, kGpaOpenContextDefaultBit, &ctx),
	                 kGpaStatusOk);
	unsetenv("OPENGPA_SYNC");
	for (int round = 0; round < ROUNDS; round++) {
		GpaSessionId session = record(ctx);
		assert_int_equal(gpa->GpaIsPassComplete(session, 0), kGpaStatusResultNotReady);
		assert_int_equal(gpa->GpaIsSessionComplete(session), kGpaStatusResultNotReady);
		scene_finish(&scene);
		assert_int_equal(gpa->GpaIsPassComplete(session, 0), kGpaStatusOk);
		assert_int_equal(gpa->GpaIsSessionComplete(session), kGpaStatusOk);
		check_times(session, best, round, false);
		assert_int_equal(gpa->GpaDeleteSession(session), kGpaStatusOk);
	}
	check_order(best);
	assert_int_equal(gpa->GpaCloseContext(ctx), kGpaStatusOk);
}

/* GPUTime as GPA 3.x defines it: the first counter, Float64 nanoseconds,
 * UUID cbd338f2-de6c-7b14-92ad-ba724ca2e501 (gpa-vulkan.md §5). */
static void test_gputime_definition(void **state)
{
	(void)state;
	GpaContextId ctx;
	assert_int_equal(gpa->GpaOpenContext(scene.ctx, kGpaOpenContextDefaultBit, &ctx),
	                 kGpaStatusOk);
	GpaUInt32 index = 99, count = 0;
	assert_int_equal(gpa->GpaGetCounterIndex(ctx, "GPUTime", &index), kGpaStatusOk);
	assert_int_equal(index, 0);
	assert_int_equal(gpa->GpaGetNumCounters(ctx, &count), kGpaStatusOk);
	assert_true(count > 1);
	const char *name = NULL;
	assert_int_equal(gpa->GpaGetCounterName(ctx, 0, &name), kGpaStatusOk);
	assert_string_equal(name, "GPUTime");
	GpaDataType type = kGpaDataTypeUint64;
	assert_int_equal(gpa->GpaGetCounterDataType(ctx, 0, &type), kGpaStatusOk);
	assert_int_equal(type, kGpaDataTypeFloat64);
	GpaUsageType usage = kGpaUsageTypeMilliseconds;
	assert_int_equal(gpa->GpaGetCounterUsageType(ctx, 0, &usage), kGpaStatusOk);
	assert_int_equal(usage, kGpaUsageTypeNanoseconds);
	const char *text = NULL;
	assert_int_equal(gpa->GpaGetCounterDescription(ctx, 0, &text), kGpaStatusOk);
	assert_non_null(strstr(text, "nanoseconds"));
	GpaUuid uuid;
	memset(&uuid, 0xEE, sizeof(uuid));
	assert_int_equal(gpa->GpaGetCounterUuid(ctx, 0, &uuid), kGpaStatusOk);
	static const unsigned char tail[8] = { 0x92, 0xad, 0xba, 0x72, 0x4c, 0xa2, 0xe5, 0x01 };
	assert_int_equal(uuid.data_1, 0xcbd338f2u);
	assert_int_equal(uuid.data_2, 0xde6c);
	assert_int_equal(uuid.data_3, 0x7b14);
	assert_memory_equal(uuid.data_4, tail, 8);
	/* Enabled by index 0, it reads back as index 0. */
	GpaSessionId session;
	assert_int_equal(gpa->GpaCreateSession(ctx, kGpaSessionSampleTypeDiscreteCounter, &session),
	                 kGpaStatusOk);
	assert_int_equal(gpa->GpaEnableCounter(session, 0), kGpaStatusOk);
	assert_int_equal(gpa->GpaIsCounterEnabled(session, 0), kGpaStatusOk);
	GpaUInt32 enabled = 99;
	assert_int_equal(gpa->GpaGetEnabledIndex(session, 0, &enabled), kGpaStatusOk);
	assert_int_equal(enabled, 0);
	assert_int_equal(gpa->GpaDeleteSession(session), kGpaStatusOk);
	assert_int_equal(gpa->GpaCloseContext(ctx), kGpaStatusOk);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_gputime_definition),
		cmocka_unit_test(test_command_list_samples),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
