/* SPDX-License-Identifier: MIT */
/*
 * gl-frame-timing — a small headless GLES renderer that times each frame
 * on the GPU through the GPA 2.x calls, the way a game engine using AMD's
 * GPA would: it loads libGPUPerfAPIGLES.so with dlopen, opens the GPA
 * context on its current EGL context, and samples every frame in a session
 * of its own (the user guide's render loop).  Samples are synchronised with
 * the GL queue (opengpa's default for a GL context), so each frame's counts
 * are that frame's.
 *
 *   gl-frame-timing [--library PATH] [--frames N] [--draws N] [--loop N]
 *                   [--sync finish|flush|off] [--verify]
 *
 * It prints GPUTime for each frame and, where the device has them (a
 * Mali-G71, or the virtual one), the frame's GPU cycles and external
 * bandwidth.  Headless on Mesa's llvmpipe:
 *   build/examples/gl-frame-timing/gl-frame-timing --library build/lib/libGPUPerfAPIGLES.so
 * On the virtual Mali, whose workload clock the draw calls drive:
 *   LD_PRELOAD=build/tests/virtual-devices/mali/libopengpa-vmali.so VMALI_API_FRAMES=1 \
 *   OPENGPA_BACKEND=mali build/examples/gl-frame-timing/gl-frame-timing ...
 */
/* stdbool first: GPUPerfAPITypes.h then keeps C's bool. */
#include <stdbool.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "GPUPerfAPIFunctionTypes.h"
#include "gl_scene.h"

static struct {
#define GPA_FUNCTION_PREFIX(f) f##PtrType f;
#include "GPAFunctions.h"
#undef GPA_FUNCTION_PREFIX
	GPA_Status (*SetSampleSync)(gpa_uint32);
} gpa;

static int load(const char *path)
{
	void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(stderr, "gl-frame-timing: cannot load %s: %s\n", path, dlerror());
		return -1;
	}
#define GPA_FUNCTION_PREFIX(f) \
	if (!(*(void **)&gpa.f = dlsym(lib, #f))) { \
		fprintf(stderr, "gl-frame-timing: %s lacks %s\n", path, #f); \
		return -1; \
	}
#include "GPAFunctions.h"
#undef GPA_FUNCTION_PREFIX
	/* opengpa's extension (opengpa.h); absent from AMD's GPA. */
	*(void **)&gpa.SetSampleSync = dlsym(lib, "OpenGPA_SetSampleSync");
	return 0; /* loaded until exit */
}

static bool probing; /* asking for counters a device may not have */

static void on_log(GPA_Logging_Type type, const char *message)
{
	if (probing)
		return;
	fprintf(stderr, "gl-frame-timing: GPA %s: %s\n",
	        type == GPA_LOGGING_ERROR ? "error" : "message", message);
}

/* What each frame reports: GPA's GPUTime, then the Mali-G71 set's cycles
 * and bandwidth where the context has them. */
static const struct column {
	const char *counter, *label, *unit;
	double scale;
} columns[] = {
	{ "GPUTime", "GPU time", "ms", 1 },
	{ "GPUActiveCycles", "GPU cycles", "M", 1e-6 },
	{ "OutputExternalReadBytes", "read", "MB", 1e-6 },
	{ "OutputExternalWriteBytes", "written", "MB", 1e-6 },
};
#define NCOLUMNS (sizeof(columns) / sizeof(columns[0]))

struct options {
	const char *library;
	unsigned frames, draws;
	int loop;
	gpa_uint32 sync; /* 0: the library's default */
	int verify;
};

static int parse(int argc, char **argv, struct options *o)
{
	*o = (struct options){ .library = "libGPUPerfAPIGLES.so", .frames = 5, .draws = 4,
		               .loop = 64 };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(a, "--verify") == 0) {
			o->verify = 1;
			continue;
		}
		if (!v)
			return -1;
		i++;
		if (strcmp(a, "--library") == 0)
			o->library = v;
		else if (strcmp(a, "--frames") == 0 && atoi(v) > 0)
			o->frames = (unsigned)atoi(v);
		else if (strcmp(a, "--draws") == 0 && atoi(v) > 0)
			o->draws = (unsigned)atoi(v);
		else if (strcmp(a, "--loop") == 0 && atoi(v) >= 0)
			o->loop = atoi(v);
		else if (strcmp(a, "--sync") == 0 && strcmp(v, "off") == 0)
			o->sync = 1; /* OPENGPA_SYNC_OFF */
		else if (strcmp(a, "--sync") == 0 && strcmp(v, "flush") == 0)
			o->sync = 2;
		else if (strcmp(a, "--sync") == 0 && strcmp(v, "finish") == 0)
			o->sync = 3;
		else
			return -1;
	}
	return 0;
}

/* One frame of the guide's render loop: a session, every pass it needs
 * drawing the same frame, one sample around the frame's draw calls. */
static int profile_frame(struct gl_scene *scene, const struct options *o, gpa_uint32 *session)
{
	gpa_uint32 passes = 0;
	if (gpa.GPA_BeginSession(session) != GPA_STATUS_OK ||
	    gpa.GPA_GetPassCount(&passes) != GPA_STATUS_OK)
		return -1;
	for (gpa_uint32 p = 0; p < passes; p++) {
		if (gpa.GPA_BeginPass() != GPA_STATUS_OK || gpa.GPA_BeginSample(0) != GPA_STATUS_OK)
			return -1;
		scene_draw(scene, o->draws, o->loop);
		scene_flush(scene); /* the frame's end, as eglSwapBuffers would */
		if (gpa.GPA_EndSample() != GPA_STATUS_OK || gpa.GPA_EndPass() != GPA_STATUS_OK)
			return -1;
	}
	return gpa.GPA_EndSession() == GPA_STATUS_OK ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct options o;
	if (parse(argc, argv, &o) != 0) {
		fprintf(stderr, "usage: gl-frame-timing [--library PATH] [--frames N] [--draws N] "
		                "[--loop N] [--sync finish|flush|off] [--verify]\n");
		return 2;
	}
	struct gl_scene scene;
	if (!scene_open(&scene, true)) {
		fprintf(stderr, "gl-frame-timing: no GLES 3 context: %s\n", scene.error);
		scene_close(&scene);
		return 77; /* skipped: no GL here */
	}
	if (load(o.library) != 0)
		return 1;
	gpa.GPA_RegisterLoggingCallback(GPA_LOGGING_ERROR, on_log);
	/* GPA: initialise, then open the counters on the current GL context. */
	if (gpa.GPA_Initialize() != GPA_STATUS_OK || gpa.GPA_OpenContext(scene.ctx) != GPA_STATUS_OK)
		return 1;
	if (o.sync && (!gpa.SetSampleSync || gpa.SetSampleSync(o.sync) != GPA_STATUS_OK))
		return 1;
	const char *desc = "?";
	gpa.GPA_GetDeviceDesc(&desc);
	bool have[NCOLUMNS] = { false };
	gpa_uint32 index[NCOLUMNS] = { 0 };
	probing = true;
	for (size_t c = 0; c < NCOLUMNS; c++)
		have[c] = gpa.GPA_GetCounterIndex(columns[c].counter, &index[c]) == GPA_STATUS_OK &&
		          gpa.GPA_EnableCounter(index[c]) == GPA_STATUS_OK;
	probing = false;
	if (!have[0]) {
		fprintf(stderr, "gl-frame-timing: %s offers no GPUTime: is it opengpa, loaded under "
		                "a GL name, with a GL context current?\n", o.library);
		return 1;
	}
	printf("%s, %u frames of %u draw calls (%d shader iterations a pixel)\n", desc, o.frames,
	       o.draws, o.loop);
	/* Shaders compile at the first draw: once, before the timed frames. */
	scene_draw(&scene, 1, o.loop);
	scene_finish(&scene);

	int problems = 0;
	for (unsigned f = 0; f < o.frames; f++) {
		gpa_uint32 session = 0;
		if (profile_frame(&scene, &o, &session) != 0) {
			fprintf(stderr, "gl-frame-timing: frame %u could not be profiled\n", f);
			return 1;
		}
		/* Results block until the GPU has them (at once when synchronised). */
		printf("frame %u:", f);
		for (size_t c = 0; c < NCOLUMNS; c++) {
			gpa_float64 fv = 0;
			gpa_uint64 uv = 0;
			GPA_Type type = GPA_TYPE_FLOAT64;
			if (!have[c])
				continue;
			gpa.GPA_GetCounterDataType(index[c], &type);
			GPA_Status st = type == GPA_TYPE_FLOAT64
			                ? gpa.GPA_GetSampleFloat64(session, 0, index[c], &fv)
			                : gpa.GPA_GetSampleUInt64(session, 0, index[c], &uv);
			double v = type == GPA_TYPE_FLOAT64 ? fv : (double)uv;
			if (st != GPA_STATUS_OK) {
				printf(" %s: %s", columns[c].label, gpa.GPA_GetStatusAsStr(st));
				problems++;
				continue;
			}
			printf("%s %s %.3f %s", c ? "," : "", columns[c].label, v * columns[c].scale,
			       columns[c].unit);
			if (o.verify && !(v > 0)) {
				fprintf(stderr, "verify: frame %u: %s is %g, not above 0\n", f,
				        columns[c].counter, v);
				problems++;
			}
		}
		printf("\n");
	}
	gpa.GPA_CloseContext();
	gpa.GPA_Destroy();
	scene_close(&scene);
	return problems ? 1 : 0;
}
