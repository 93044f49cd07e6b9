/* SPDX-License-Identifier: MIT */
/*
 * bench_sync.c — what synchronised samples cost on a GL context (results
 * and the command in docs/performance.md).
 *
 * A frame loop on Mesa's llvmpipe (EGL without a display): each frame is
 * one sample around D draw calls and the frame's glFlush, then C ms of the
 * application's own CPU work (game logic) outside the sample.  The same
 * loop runs without any GPA call ("none"), and with the context's samples
 * unsynchronised ("off"), flushed ("flush") and synchronised ("finish", the
 * default), counting TaskClock (one perf software event: a cheap snapshot,
 * so the rows show what the sync mode costs), then "off" and "finish" again
 * with GPUTime enabled too (what the GL timer queries add).  Each round is
 * F frames and ends with glFinish, so no mode leaves work behind; the modes
 * alternate round by round and each reports its median round:
 *
 *   wall    ms of wall-clock time per frame
 *   cpu     ms of this process's CPU time per frame (llvmpipe's threads too)
 *   begin   ms per frame spent inside GPA_BeginSample
 *   end     ms per frame spent inside GPA_EndSample
 *
 * and, for the sampled modes, the ratio of wall time to "none".
 *
 *   bench-apictx-sync [FRAMES [DRAWS [LOOP [CPU_MS [ROUNDS]]]]]
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "gl_scene.h"
#include "opengpa.h"

static uint64_t now_ns(clockid_t id)
{
	struct timespec t;
	clock_gettime(id, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static volatile double sink;

/* The application's CPU work: `ms` of arithmetic on this thread. */
static void cpu_work(double ms)
{
	uint64_t end = now_ns(CLOCK_MONOTONIC) + (uint64_t)(ms * 1e6);
	double x = 1;
	while (now_ns(CLOCK_MONOTONIC) < end)
		for (int i = 0; i < 1000; i++)
			x = x * 1.0000001 + 0.5;
	sink = x;
}

struct round {
	double wall, cpu, begin, end; /* ms per frame */
};

static const struct mode {
	const char *name;
	gpa_uint32 sync; /* 0: no GPA call at all */
	bool gpu_time;
} modes[] = {
	{ "none", 0, false },
	{ "off", OPENGPA_SYNC_OFF, false },
	{ "flush", OPENGPA_SYNC_FLUSH, false },
	{ "finish", OPENGPA_SYNC_FINISH, false },
	{ "off+GPUTime", OPENGPA_SYNC_OFF, true },
	{ "finish+GPUTime", OPENGPA_SYNC_FINISH, true },
};
#define MODES (sizeof(modes) / sizeof(modes[0]))

static bool check(GPA_Status st, const char *what)
{
	if (st != GPA_STATUS_OK)
		fprintf(stderr, "bench-apictx-sync: %s: %s\n", what, GPA_GetStatusAsStr(st));
	return st == GPA_STATUS_OK;
}

static bool run_round(struct gl_scene *s, const struct mode *mode, unsigned frames,
                      unsigned draws, int loop, double cpu_ms, struct round *r)
{
	gpa_uint32 session = 0;
	bool sampled = mode->sync != 0;
	if (sampled && (!check(OpenGPA_SetSampleSync(mode->sync), "OpenGPA_SetSampleSync") ||
	                !check(GPA_DisableAllCounters(), "GPA_DisableAllCounters") ||
	                !check(GPA_EnableCounterStr("TaskClock"), "GPA_EnableCounterStr(TaskClock)") ||
	                (mode->gpu_time &&
	                 !check(GPA_EnableCounterStr("GPUTime"), "GPA_EnableCounterStr(GPUTime)")) ||
	                !check(GPA_BeginSession(&session), "GPA_BeginSession") ||
	                !check(GPA_BeginPass(), "GPA_BeginPass")))
		return false;
	uint64_t in_begin = 0, in_end = 0;
	uint64_t wall0 = now_ns(CLOCK_MONOTONIC), cpu0 = now_ns(CLOCK_PROCESS_CPUTIME_ID);
	for (unsigned f = 0; f < frames; f++) {
		uint64_t t0 = now_ns(CLOCK_MONOTONIC);
		if (sampled && !check(GPA_BeginSample(f), "GPA_BeginSample"))
			return false;
		uint64_t t1 = now_ns(CLOCK_MONOTONIC);
		scene_draw(s, draws, loop);
		scene_flush(s);
		uint64_t t2 = now_ns(CLOCK_MONOTONIC);
		if (sampled && !check(GPA_EndSample(), "GPA_EndSample"))
			return false;
		in_begin += t1 - t0;
		in_end += now_ns(CLOCK_MONOTONIC) - t2;
		cpu_work(cpu_ms);
	}
	scene_finish(s);
	uint64_t wall = now_ns(CLOCK_MONOTONIC) - wall0, cpu = now_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
	if (sampled && (!check(GPA_EndPass(), "GPA_EndPass") ||
	                !check(GPA_EndSession(), "GPA_EndSession")))
		return false;
	/* Every frame's results are there. */
	for (unsigned f = 0; sampled && f < frames; f++) {
		gpa_float64 ms;
		gpa_uint32 index;
		const char *name = mode->gpu_time ? "GPUTime" : "TaskClock";
		if (!check(GPA_GetCounterIndex(name, &index), "GPA_GetCounterIndex") ||
		    !check(GPA_GetSampleFloat64(session, f, index, &ms), name))
			return false;
	}
	*r = (struct round){ wall / 1e6 / frames, cpu / 1e6 / frames, in_begin / 1e6 / frames,
		             in_end / 1e6 / frames };
	return true;
}

static int by_wall(const void *a, const void *b)
{
	double x = ((const struct round *)a)->wall, y = ((const struct round *)b)->wall;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	unsigned frames = argc > 1 ? (unsigned)atoi(argv[1]) : 60;
	unsigned draws = argc > 2 ? (unsigned)atoi(argv[2]) : 4;
	int loop = argc > 3 ? atoi(argv[3]) : 32;
	double cpu_ms = argc > 4 ? atof(argv[4]) : 2.0;
	unsigned rounds = argc > 5 ? (unsigned)atoi(argv[5]) : 7;
	if (!frames || !draws || !rounds || rounds > 64 || loop < 0 || cpu_ms < 0) {
		fprintf(stderr, "usage: bench-apictx-sync [FRAMES [DRAWS [LOOP [CPU_MS [ROUNDS]]]]]\n");
		return 2;
	}
	struct gl_scene scene;
	if (!scene_open(&scene, true)) {
		fprintf(stderr, "bench-apictx-sync: no GLES context: %s\n", scene.error);
		return 77;
	}
	/* A program linked with opengpa says what its context pointer is. */
	if (!check(OpenGPA_SetContextApi("gles"), "OpenGPA_SetContextApi") ||
	    !check(GPA_OpenContext(scene.ctx), "GPA_OpenContext"))
		return 1;
	const char *desc = "?";
	GPA_GetDeviceDesc(&desc);
	scene_draw(&scene, 1, loop); /* shaders compile once, here */
	scene_finish(&scene);

	static struct round r[MODES][64];
	for (unsigned k = 0; k < rounds; k++)
		for (size_t m = 0; m < MODES; m++)
			if (!run_round(&scene, &modes[m], frames, draws, loop, cpu_ms, &r[m][k]))
				return 1;
	printf("llvmpipe (GLES 3.2), %u frames a round, %u draws of %d shader iterations a pixel "
	       "(256x256), %.1f ms of CPU work a frame; median of %u rounds; backend %s\n",
	       frames, draws, loop, cpu_ms, rounds, desc);
	printf("%-15s %9s %9s %9s %9s %9s\n", "sync", "wall ms", "cpu ms", "begin ms", "end ms",
	       "wall/none");
	double none = 0;
	for (size_t m = 0; m < MODES; m++) {
		qsort(r[m], rounds, sizeof(r[m][0]), by_wall);
		const struct round *med = &r[m][rounds / 2];
		if (m == 0)
			none = med->wall;
		printf("%-15s %9.3f %9.3f %9.3f %9.3f %9.2f\n", modes[m].name, med->wall, med->cpu,
		       med->begin, med->end, med->wall / none);
	}
	GPA_CloseContext();
	scene_close(&scene);
	return 0;
}
