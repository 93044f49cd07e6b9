/* SPDX-License-Identifier: MIT */
/*
 * mali-frame-loop — a game-engine style frame loop that profiles every frame
 * through the GPA 2.x calls and prints one line per frame: queue utilisation,
 * cycles per pixel, overdraw, culling rates and external bandwidth.
 *
 *   mali-frame-loop [-b mali|panfrost|auto] [-o OPTIONS] [-n FRAMES]
 *                   [-t TRACE.json] [-c FRAMES.csv]
 *
 * With -t and -c it also writes a timeline, one sample per frame, at the
 * times the library gives each sample (OpenGPA_GetSampleTime: the kernel's
 * dump timestamps on kbase): a Chrome trace-event file for Perfetto or
 * chrome://tracing and a CSV, the same formats as `opengpa stat --trace
 * --csv`, written by the same writers (tools/opengpa/output/timeline.h).
 *
 * Without a Mali-G71 at hand, run it on the virtual one:
 *   LD_PRELOAD=build/tests/virtual-devices/mali/libopengpa-vmali.so \
 *       build/examples/mali-frame-loop/mali-frame-loop -n 5
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "opengpa.h"
#include "timeline.h"

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

/* Value of a counter as a double, whatever its type; NAN when the sample
 * could not be read. */
static double value(gpa_uint32 session, gpa_uint32 index)
{
	GPA_Type type;
	if (GPA_GetCounterDataType(index, &type) != GPA_STATUS_OK)
		return NAN;
	if (type == GPA_TYPE_FLOAT64) {
		gpa_float64 f = 0;
		return GPA_GetSampleFloat64(session, 0, index, &f) == GPA_STATUS_OK ? f : NAN;
	}
	gpa_uint64 u = 0;
	return GPA_GetSampleUInt64(session, 0, index, &u) == GPA_STATUS_OK ? (double)u : NAN;
}

/* The timeline files (-t, -c): one sample per frame. */
struct timeline {
	struct tl_output out[2];
	size_t nout;
	struct tl_series series[NWANTED];
	struct tl_run run;
};

static int timeline_open(struct timeline *tl, const char *trace, const char *csv,
                         const gpa_uint32 *idx, char **argv)
{
	const char *paths[2] = { trace, csv };
	const struct tl_format *formats[2] = { &tl_trace, &tl_csv };
	for (size_t i = 0; i < 2; i++) {
		if (!paths[i])
			continue;
		FILE *f = fopen(paths[i], "we");
		if (!f) {
			perror(paths[i]);
			return 1;
		}
		tl->out[tl->nout++] = (struct tl_output){ .format = formats[i], .f = f };
	}
	for (size_t i = 0; i < NWANTED; i++) {
		GPA_Usage_Type usage = GPA_USAGE_TYPE_ITEMS;
		GPA_Type type = GPA_TYPE_FLOAT64;
		GPA_GetCounterUsageType(idx[i], &usage);
		GPA_GetCounterDataType(idx[i], &type);
		tl->series[i].name = wanted[i];
		OpenGPA_GetCounterGroup(idx[i], &tl->series[i].group);
		GPA_GetUsageTypeAsStr(usage, &tl->series[i].usage);
		tl->series[i].unit = tl_unit(usage);
		tl->series[i].integer = type == GPA_TYPE_UINT64 || type == GPA_TYPE_UINT32;
	}
	tl->run = (struct tl_run){ .command = argv, .pid = (long)getpid(),
		                   .series = tl->series, .nseries = NWANTED };
	GPA_GetDeviceDesc(&tl->run.device);
	OpenGPA_GetBackend(&tl->run.backend);
	return 0;
}

/* Frame f's sample, at the times the library gives it. */
static void timeline_frame(struct timeline *tl, unsigned f, gpa_uint32 session,
                           const double *values)
{
	gpa_uint64 begin = 0, end = 0;
	gpa_uint32 flags = 0;
	if (!tl->nout || OpenGPA_GetSampleTime(session, 0, &begin, &end) != GPA_STATUS_OK)
		return;
	OpenGPA_GetSampleFlags(session, 0, &flags);
	if (f == 0) {
		tl->run.start_ns = begin;
		for (size_t o = 0; o < tl->nout; o++)
			tl_begin(&tl->out[o], &tl->run);
	}
	struct tl_sample s = { .index = f, .begin_ns = begin, .end_ns = end, .flags = flags,
		               .values = values };
	for (size_t o = 0; o < tl->nout; o++)
		tl_sample(&tl->out[o], &tl->run, &s);
}

static int timeline_close(struct timeline *tl, unsigned frames, uint64_t end_ns)
{
	double none[NWANTED];
	for (size_t i = 0; i < NWANTED; i++)
		none[i] = NAN; /* the frame loop keeps no totals */
	struct tl_end e = { .end_ns = end_ns, .exit_status = -1, .nsamples = frames,
		            .totals = none, .min = none, .mean = none, .max = none };
	int rc = 0;
	for (size_t o = 0; o < tl->nout; o++) {
		if (tl->run.start_ns)
			tl_end(&tl->out[o], &tl->run, &e);
		tl_close(&tl->out[o]); /* what tl_end frees, where there was no end */
		if (fclose(tl->out[o].f) != 0)
			rc = 1;
	}
	return rc;
}

int main(int argc, char **argv)
{
	const char *backend = "mali", *options = NULL, *trace = NULL, *csv = NULL;
	unsigned frames = 10;
	int opt;
	while ((opt = getopt(argc, argv, "b:o:n:t:c:h")) != -1) {
		switch (opt) {
		case 'b': backend = optarg; break;
		case 'o': options = optarg; break;
		case 'n': frames = (unsigned)strtoul(optarg, NULL, 10); break;
		case 't': trace = optarg; break;
		case 'c': csv = optarg; break;
		default:
			fprintf(stderr, "usage: %s [-b mali|panfrost|auto] [-o OPTIONS] [-n FRAMES] "
			        "[-t TRACE.json] [-c FRAMES.csv]\n", argv[0]);
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
	struct timeline tl = { .nout = 0 };
	if (timeline_open(&tl, trace, csv, idx, argv))
		return 1;
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
		double v[NWANTED];
		for (size_t i = 0; i < NWANTED; i++)
			v[i] = value(session, idx[i]);
		printf("%5u %7.1f %7.1f %9.2f %9.2f %8.1f %8.1f %10.1f %10.1f\n", f, v[1], v[2], v[3],
		       v[4], v[5], v[6], v[7] / 1024, v[8] / 1024);
		timeline_frame(&tl, f, session, v);
	}
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	int rc = timeline_close(&tl, frames, (uint64_t)now.tv_sec * 1000000000u +
	                                         (uint64_t)now.tv_nsec);
	GPA_CloseContext();
	GPA_Destroy();
	return rc;
}
