/* SPDX-License-Identifier: MIT */
/*
 * mali-frame-loop — a game-engine style frame loop that profiles every frame
 * through the GPA 2.x calls and prints one line per frame: queue utilisation,
 * cycles per pixel, overdraw, culling rates and external bandwidth.
 *
 *   mali-frame-loop [-b mali|panfrost|auto] [-o OPTIONS] [-n FRAMES]
 *
 * Without a Mali-G71 at hand, run it on the virtual one:
 *   LD_PRELOAD=build/tests/virtual-devices/mali/libopengpa-vmali.so \
 *       build/examples/mali-frame-loop/mali-frame-loop -n 5
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "opengpa.h"

static const char *const wanted[] = {
	"GPUActiveCycles",
	"NonFragmentQueueUtilization",
	"FragmentQueueUtilization",
	"CyclesPerPixel",
	"FragmentsPerPixel",
	"VisiblePrimitivesRate",
	"FacingOrXYPlaneTestCullRate",
	"OutputExternalReadBytes",
	"OutputExternalWriteBytes",
};
#define NWANTED (sizeof wanted / sizeof wanted[0])

static void on_log(GPA_Logging_Type type, const char *msg)
{
	fprintf(stderr, "%s: %s\n", type == GPA_LOGGING_ERROR ? "error" : "gpa", msg);
}

/* Stands in for the engine's draw calls and present; a real application
 * renders here. */
static void render_frame(unsigned frame)
{
	(void)frame;
	struct timespec t = {0, 2 * 1000 * 1000};
	nanosleep(&t, NULL);
}

static int fail(const char *what, GPA_Status st)
{
	fprintf(stderr, "mali-frame-loop: %s failed: %s\n", what, GPA_GetStatusAsStr(st));
	return 1;
}

/* Value of a counter as a double, whatever its type. */
static double value(gpa_uint32 session, gpa_uint32 index)
{
	GPA_Type type;
	if (GPA_GetCounterDataType(index, &type) != GPA_STATUS_OK)
		return 0;
	if (type == GPA_TYPE_FLOAT64) {
		gpa_float64 f = 0;
		GPA_GetSampleFloat64(session, 0, index, &f);
		return f;
	}
	gpa_uint64 u = 0;
	GPA_GetSampleUInt64(session, 0, index, &u);
	return (double)u;
}

int main(int argc, char **argv)
{
	const char *backend = "mali", *options = NULL;
	unsigned frames = 10;
	int opt;
	while ((opt = getopt(argc, argv, "b:o:n:h")) != -1) {
		switch (opt) {
		case 'b': backend = optarg; break;
		case 'o': options = optarg; break;
		case 'n': frames = (unsigned)strtoul(optarg, NULL, 10); break;
		default:
			fprintf(stderr, "usage: %s [-b mali|panfrost|auto] [-o OPTIONS] [-n FRAMES]\n",
			        argv[0]);
			return opt == 'h' ? 0 : 2;
		}
	}

	GPA_Status st;
	GPA_RegisterLoggingCallback(GPA_LOGGING_ERROR, on_log);
	if ((st = GPA_Initialize()) != GPA_STATUS_OK)
		return fail("GPA_Initialize", st);
	if ((st = OpenGPA_SetBackend(backend, options)) != GPA_STATUS_OK)
		return fail("OpenGPA_SetBackend", st);
	static int gpu_context; /* GPA only needs a unique address per context */
	if ((st = GPA_OpenContext(&gpu_context)) != GPA_STATUS_OK)
		return fail("GPA_OpenContext", st);
	const char *desc = "?";
	GPA_GetDeviceDesc(&desc);

	gpa_uint32 idx[NWANTED];
	for (size_t i = 0; i < NWANTED; i++) {
		if ((st = GPA_GetCounterIndex(wanted[i], &idx[i])) != GPA_STATUS_OK)
			return fail(wanted[i], st);
		if ((st = GPA_EnableCounter(idx[i])) != GPA_STATUS_OK)
			return fail("GPA_EnableCounter", st);
	}
	gpa_uint32 passes = 1;
	GPA_GetPassCount(&passes);
	printf("%s, %u pass(es) per frame\n", desc, passes);
	printf("%5s %7s %7s %9s %9s %8s %8s %10s %10s\n", "frame", "nfrag%", "frag%", "cyc/px",
	       "overdraw", "visible%", "xycull%", "rd KiB", "wr KiB");

	for (unsigned f = 0; f < frames; f++) {
		gpa_uint32 session;
		if ((st = GPA_BeginSession(&session)) != GPA_STATUS_OK)
			return fail("GPA_BeginSession", st);
		/* A counter set that needs several passes replays the frame once per
		 * pass; on Mali every counter fits in one. */
		for (gpa_uint32 p = 0; p < passes; p++) {
			GPA_BeginPass();
			GPA_BeginSample(0);
			render_frame(f);
			GPA_EndSample();
			GPA_EndPass();
		}
		if ((st = GPA_EndSession()) != GPA_STATUS_OK)
			return fail("GPA_EndSession", st);
		bool ready = false;
		GPA_IsSessionReady(&ready, session);
		if (!ready) {
			printf("%5u  (sample dropped)\n", f);
			continue;
		}
		printf("%5u %7.1f %7.1f %9.2f %9.2f %8.1f %8.1f %10.1f %10.1f\n", f,
		       value(session, idx[1]), value(session, idx[2]), value(session, idx[3]),
		       value(session, idx[4]), value(session, idx[5]), value(session, idx[6]),
		       value(session, idx[7]) / 1024, value(session, idx[8]) / 1024);
	}
	GPA_CloseContext();
	GPA_Destroy();
	return 0;
}
