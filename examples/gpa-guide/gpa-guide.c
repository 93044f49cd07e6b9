/* SPDX-License-Identifier: MIT */
/*
 * gpa-guide — the GPA 2.x user guide's example (sections 3.1-3.3 and 7) as
 * a program.  It loads opengpa the way a GPA tool does: dlopen() of a GPA
 * file name and dlsym() of each function it uses.  The guide's render loop
 * draws two things per frame; here each "draw call" is CPU work, so the
 * counters come from the CPU through the perf backend (or whichever backend
 * OPENGPA_BACKEND names).
 *
 *   gpa-guide [--library PATH] [--frames N] [--csv FILE]
 *
 * Writes the guide's CSV (default PublicCounterResults.csv): a heading line,
 * then one line per sample: "session: S; sample: N, value,value,...".
 */
#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "GPUPerfAPIFunctionTypes.h"

/* The functions this program uses, found with dlsym(). */
static struct {
#define GPA_FUNCTION_PREFIX(f) f##PtrType f;
#include "GPAFunctions.h"
#undef GPA_FUNCTION_PREFIX
} gpa;

static int load(const char *path)
{
	void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(stderr, "gpa-guide: cannot load %s: %s\n", path, dlerror());
		return -1;
	}
#define GPA_FUNCTION_PREFIX(f) \
	if (!(*(void **)&gpa.f = dlsym(lib, #f))) { \
		fprintf(stderr, "gpa-guide: %s not located in %s. Incorrect or out of date shared " \
		                "library.\n", #f, path); \
		return -1; \
	}
#include "GPAFunctions.h"
#undef GPA_FUNCTION_PREFIX
	return 0; /* the library stays loaded until exit */
}

static void on_log(GPA_Logging_Type type, const char *message)
{
	fprintf(stderr, "gpa-guide: GPA %s: %s\n", type == GPA_LOGGING_ERROR ? "error" : "message",
	        message);
}

/* Two "draw calls": arithmetic, and first touches of fresh memory. */
static volatile double sink;

static void draw_compute(unsigned frame)
{
	double x = frame;
	for (int i = 0; i < 200000; i++)
		x = x * 1.0000001 + 0.5;
	sink = x;
}

static void draw_memory(void)
{
	size_t len = 64 * 4096;
	unsigned char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return;
	for (size_t i = 0; i < len; i += 4096)
		p[i] = 1;
	munmap(p, len);
}

/* Section 7 of the guide: read a finished session and append it to a CSV. */
static int write_session(gpa_uint32 session, const char *filename, int *done_headings)
{
	gpa_uint32 count = 0;
	gpa.GPA_GetEnabledCount(&count);
	if (!*done_headings) {
		FILE *f = fopen(filename, "w");
		if (!f) {
			perror(filename);
			return -1;
		}
		fprintf(f, "Identifier, ");
		for (gpa_uint32 c = 0; c < count; c++) {
			gpa_uint32 index;
			const char *name = "?";
			gpa.GPA_GetEnabledIndex(c, &index);
			gpa.GPA_GetCounterName(index, &name);
			fprintf(f, "%s, ", name);
		}
		fprintf(f, "\n");
		fclose(f);
		*done_headings = 1;
	}
	FILE *f = fopen(filename, "a+");
	if (!f) {
		perror(filename);
		return -1;
	}
	gpa_uint32 samples = 0;
	gpa.GPA_GetSampleCount(session, &samples);
	for (gpa_uint32 s = 0; s < samples; s++) {
		fprintf(f, "session: %u; sample: %u, ", session, s);
		for (gpa_uint32 c = 0; c < count; c++) {
			gpa_uint32 index;
			GPA_Type type;
			gpa.GPA_GetEnabledIndex(c, &index);
			gpa.GPA_GetCounterDataType(index, &type);
			if (type == GPA_TYPE_UINT32) {
				gpa_uint32 v = 0;
				gpa.GPA_GetSampleUInt32(session, s, index, &v);
				fprintf(f, "%u,", v);
			} else if (type == GPA_TYPE_UINT64) {
				gpa_uint64 v = 0;
				gpa.GPA_GetSampleUInt64(session, s, index, &v);
				fprintf(f, "%llu,", v);
			} else if (type == GPA_TYPE_FLOAT32) {
				gpa_float32 v = 0;
				gpa.GPA_GetSampleFloat32(session, s, index, &v);
				fprintf(f, "%f,", v);
			} else if (type == GPA_TYPE_FLOAT64) {
				gpa_float64 v = 0;
				gpa.GPA_GetSampleFloat64(session, s, index, &v);
				fprintf(f, "%f,", v);
			} else {
				fprintf(f, "?,");
			}
		}
		fprintf(f, "\n");
	}
	fclose(f);
	return 0;
}

int main(int argc, char **argv)
{
	const char *library = "libGPUPerfAPIGL.so", *csv = "PublicCounterResults.csv";
	unsigned frames = 10;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--library") == 0 && i + 1 < argc)
			library = argv[++i];
		else if (strcmp(argv[i], "--frames") == 0 && i + 1 < argc)
			frames = (unsigned)strtoul(argv[++i], NULL, 10);
		else if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc)
			csv = argv[++i];
		else {
			fprintf(stderr, "usage: gpa-guide [--library PATH] [--frames N] [--csv FILE]\n");
			return 2;
		}
	}
	if (load(library) != 0)
		return 1;

	/* 3.1 Startup. */
	static int device; /* stands in for the guide's D3D device */
	gpa.GPA_RegisterLoggingCallback(GPA_LOGGING_ERROR, on_log);
	GPA_Status opened = gpa.GPA_Initialize();
	if (opened == GPA_STATUS_OK)
		opened = gpa.GPA_OpenContext(&device);
	if (opened == GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED) {
		/* Nothing here to count on (no GPU, and no perf_event_open, as
		 * under qemu-user): 77 is "skipped" to test harnesses. */
		fprintf(stderr, "gpa-guide: this machine has no device opengpa can count\n");
		return 77;
	}
	if (opened != GPA_STATUS_OK || gpa.GPA_EnableAllCounters() != GPA_STATUS_OK) {
		fprintf(stderr, "gpa-guide: could not open the counters\n");
		return 1;
	}

	/* 3.2 Render loop. */
	gpa_uint32 current_wait = 1;
	int done_headings = 0, written = 0;
	for (unsigned frame = 0; frame < frames; frame++) {
		gpa_uint32 session;
		if (gpa.GPA_BeginSession(&session) != GPA_STATUS_OK)
			return 1;
		gpa_uint32 passes = 0;
		gpa.GPA_GetPassCount(&passes);
		for (gpa_uint32 p = 0; p < passes; p++) {
			gpa.GPA_BeginPass();
			gpa.GPA_BeginSample(0);
			draw_compute(frame);
			gpa.GPA_EndSample();
			gpa.GPA_BeginSample(1);
			draw_memory();
			gpa.GPA_EndSample();
			gpa.GPA_EndPass();
		}
		gpa.GPA_EndSession();

		bool ready = 0; /* GPA 2.x: bool is gpa_uint8 in C */
		if (session != current_wait) {
			GPA_Status st = gpa.GPA_IsSessionReady(&ready, current_wait);
			while (st == GPA_STATUS_ERROR_SESSION_NOT_FOUND) {
				current_wait++; /* skipping a session which got overwritten */
				st = gpa.GPA_IsSessionReady(&ready, current_wait);
			}
		}
		if (ready) {
			if (write_session(current_wait, csv, &done_headings) != 0)
				return 1;
			written++;
			current_wait++;
		}
	}

	/* 3.3 On exit. */
	gpa.GPA_CloseContext();
	gpa.GPA_Destroy();
	printf("gpa-guide: %u frames, %d sessions written to %s\n", frames, written, csv);
	return written > 0 ? 0 : 1;
}
