/* SPDX-License-Identifier: MIT */
/*
 * vk-frame-timing — a headless Vulkan frame loop that times each frame on
 * the GPU through GPA 3.x's function table, the way a Vulkan engine using
 * AMD's GPA would: it loads libGPUPerfAPIVK.so with dlopen, takes the table
 * from GpaGetFuncTable, opens the GPA context on its own VkInstance,
 * VkPhysicalDevice and VkDevice (GpaVkContextOpenInfo), and for each frame
 * records one sample around the frame's commands in the frame's command
 * buffer, ends the session, submits, and reads the frame's GPUTime
 * (nanoseconds, GPA 3.x's counter 0).  Offscreen, no window system: the
 * frame is a few vkCmdFillBuffer over a buffer and a render pass of draw
 * calls (examples/common/vk_scene.h).
 *
 * Where the context also counts the device (the Mali backend: a Mali GPU, or
 * the virtual Mali under its preload), each frame also prints its GPU active
 * cycles and external memory bytes (GPUActiveCycles, OutputExternalReadBytes,
 * OutputExternalWriteBytes), counted synchronised (docs/api.md, "Device
 * counters on Vulkan"): the frame is recorded once per pass the counters
 * need, each pass's command buffer submitted and waited for before the next
 * GPA call, so each frame's counts are its own.  --no-device times only.
 *
 *   vk-frame-timing [--library PATH] [--frames N] [--draws N] [--fills N]
 *                   [--validate] [--verify]
 *
 * On Mesa's lavapipe:
 *   build/examples/vk-frame-timing/vk-frame-timing --library build/lib/libGPUPerfAPIVK.so
 * --validate runs under VK_LAYER_KHRONOS_validation (any message is a
 * failure); --verify fails unless every frame's GPUTime is above 0.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gpu_performance_api/gpu_perf_api.h>
#include <gpu_performance_api/gpu_perf_api_vk.h>

#include "vk_scene.h"

struct options {
	const char *library;
	unsigned frames, draws, fills;
	bool validate, verify, no_device;
};

/* The device counters a frame prints, where the context has them. */
static const char *const device_names[] = { "GPUActiveCycles", "OutputExternalReadBytes",
	                                    "OutputExternalWriteBytes" };
#define NDEVICE 3

static int parse(int argc, char **argv, struct options *o)
{
	*o = (struct options){ .library = "libGPUPerfAPIVK.so", .frames = 5, .draws = 100,
		               .fills = 2 };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (strcmp(a, "--validate") == 0) {
			o->validate = true;
			continue;
		}
		if (strcmp(a, "--verify") == 0) {
			o->verify = true;
			continue;
		}
		if (strcmp(a, "--no-device") == 0) {
			o->no_device = true;
			continue;
		}
		if (!v)
			return -1;
		i++;
		if (strcmp(a, "--library") == 0)
			o->library = v;
		else if (strcmp(a, "--frames") == 0 && atoi(v) > 0)
			o->frames = (unsigned)atoi(v);
		else if (strcmp(a, "--draws") == 0 && atoi(v) >= 0)
			o->draws = (unsigned)atoi(v);
		else if (strcmp(a, "--fills") == 0 && atoi(v) >= 0)
			o->fills = (unsigned)atoi(v);
		else
			return -1;
	}
	return 0;
}

static void on_log(GpaLoggingType type, const char *message)
{
	fprintf(stderr, "vk-frame-timing: GPA %s: %s\n",
	        type == kGpaLoggingError ? "error" : "message", message);
}

/* GPA 3.x's table, from the library loaded by name. */
static int load(const char *path, GpaFunctionTable *gpa, void **lib)
{
	*lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!*lib) {
		fprintf(stderr, "vk-frame-timing: cannot load %s: %s\n", path, dlerror());
		return -1;
	}
	GpaGetFuncTablePtrType get = (GpaGetFuncTablePtrType)dlsym(*lib, "GpaGetFuncTable");
	memset(gpa, 0, sizeof(*gpa));
	gpa->major_version = GPA_FUNCTION_TABLE_MAJOR_VERSION_NUMBER;
	gpa->minor_version = GPA_FUNCTION_TABLE_MINOR_VERSION_NUMBER;
	if (!get || get(gpa) != kGpaStatusOk) {
		fprintf(stderr, "vk-frame-timing: %s has no GPA %d function table\n", path,
		        GPA_FUNCTION_TABLE_MAJOR_VERSION_NUMBER);
		dlclose(*lib);
		return -1;
	}
	return 0;
}

/* A result value as a double, by its counter's data type. */
static double value_of(GpaFunctionTable *gpa, GpaContextId ctx, GpaUInt32 counter, GpaUInt64 v)
{
	GpaDataType type = kGpaDataTypeUint64;
	gpa->GpaGetCounterDataType(ctx, counter, &type);
	double d = (double)v;
	if (type == kGpaDataTypeFloat64)
		memcpy(&d, &v, sizeof(d));
	return d;
}

/* One pass of one frame: the frame's commands in a command buffer, one
 * sample around them, submitted and waited for. */
static GpaStatus frame_pass(GpaFunctionTable *gpa, struct vk_scene *s, GpaSessionId session,
                            GpaUInt32 pass, const struct options *o)
{
	GpaCommandListId list = NULL;
	VkCommandBuffer cb = vk_scene_begin(s);
	GpaStatus st = cb ? kGpaStatusOk : kGpaStatusErrorFailed;
	if (st == kGpaStatusOk)
		st = gpa->GpaBeginCommandList(session, pass, cb, kGpaCommandListPrimary, &list);
	if (st == kGpaStatusOk)
		st = gpa->GpaBeginSample(0, list);
	if (st == kGpaStatusOk) {
		vk_scene_fill(s, cb, o->fills);
		vk_scene_pass_begin(s, cb);
		for (unsigned d = 0; d < o->draws; d++)
			vkCmdDraw(cb, 3, 1, 0, 0);
		vk_scene_pass_end(cb);
		st = gpa->GpaEndSample(list);
	}
	if (st == kGpaStatusOk)
		st = gpa->GpaEndCommandList(list);
	if (cb)
		vk_scene_end(s, cb);
	if (st == kGpaStatusOk && !vk_scene_submit(s, &cb, 1))
		st = kGpaStatusErrorFailed;
	if (cb)
		vk_scene_free(s, &cb, 1);
	return st;
}

/* One frame: a session of one sample around the frame's commands, recorded
 * once per pass; its GPUTime in values[0], the device counters' after it
 * (ncounters in all, counters[] enabled in that order). */
static GpaStatus frame(GpaFunctionTable *gpa, struct vk_scene *s, GpaContextId ctx,
                       const GpaUInt32 *counters, unsigned ncounters, const struct options *o,
                       GpaUInt64 *values)
{
	GpaSessionId session = NULL;
	GpaStatus st = gpa->GpaCreateSession(ctx, kGpaSessionSampleTypeDiscreteCounter, &session);
	for (unsigned k = 0; k < ncounters && st == kGpaStatusOk; k++)
		st = gpa->GpaEnableCounter(session, counters[k]);
	GpaUInt32 passes = 0;
	if (st == kGpaStatusOk)
		st = gpa->GpaGetPassCount(session, &passes);
	if (st == kGpaStatusOk)
		st = gpa->GpaBeginSession(session);
	for (GpaUInt32 p = 0; p < passes && st == kGpaStatusOk; p++)
		st = frame_pass(gpa, s, session, p, o);
	if (st == kGpaStatusOk)
		st = gpa->GpaEndSession(session);
	size_t size = 0;
	if (st == kGpaStatusOk)
		st = gpa->GpaGetSampleResultSize(session, 0, &size);
	if (st == kGpaStatusOk && size != ncounters * sizeof(*values))
		st = kGpaStatusErrorFailed;
	if (st == kGpaStatusOk)
		st = gpa->GpaGetSampleResult(session, 0, size, values);
	if (session)
		gpa->GpaDeleteSession(session);
	return st;
}

int main(int argc, char **argv)
{
	struct options o;
	if (parse(argc, argv, &o) != 0) {
		fprintf(stderr, "usage: vk-frame-timing [--library PATH] [--frames N] [--draws N] "
		                "[--fills N] [--validate] [--verify] [--no-device]\n");
		return 2;
	}
	struct vk_scene s;
	if (!vk_scene_open(&s, o.validate, 4u << 20)) {
		fprintf(stderr, "vk-frame-timing: %s\n", s.error);
		return s.skip ? 77 : 1; /* 77: skipped, no Vulkan here */
	}
	GpaFunctionTable gpa;
	void *lib = NULL;
	if (load(o.library, &gpa, &lib) != 0) {
		vk_scene_close(&s);
		return 1;
	}
	int problems = 0;
	GpaContextId ctx = NULL;
	GpaVkContextOpenInfo info = { s.instance, s.physical, s.device };
	GpaUInt32 gputime = 0;
	GpaUsageType usage = kGpaUsageTypeLast;
	gpa.GpaRegisterLoggingCallback(kGpaLoggingError, on_log);
	if (gpa.GpaInitialize(kGpaInitializeDefaultBit) != kGpaStatusOk ||
	    gpa.GpaOpenContext(&info, kGpaOpenContextDefaultBit, &ctx) != kGpaStatusOk ||
	    gpa.GpaGetCounterIndex(ctx, "GPUTime", &gputime) != kGpaStatusOk ||
	    gpa.GpaGetCounterUsageType(ctx, gputime, &usage) != kGpaStatusOk) {
		fprintf(stderr, "vk-frame-timing: %s gives no GPUTime on %s: is it opengpa, loaded "
		                "as libGPUPerfAPIVK.so?\n", o.library, s.device_name);
		problems++;
	} else {
		printf("%s, %u frames of %u fills and %u draw calls; GPUTime is counter %u, in %s\n",
		       s.device_name, o.frames, o.fills, o.draws, gputime,
		       usage == kGpaUsageTypeNanoseconds ? "nanoseconds" : "other units");
		if (o.verify && (gputime != 0 || usage != kGpaUsageTypeNanoseconds)) {
			fprintf(stderr, "verify: GPUTime is counter %u with usage %d; GPA 3.x defines "
			                "counter 0 in nanoseconds\n", gputime, (int)usage);
			problems++;
		}
	}
	/* GPUTime first, then the device counters the context has. */
	GpaUInt32 counters[1 + NDEVICE] = { gputime };
	unsigned ncounters = 1;
	GpaUInt32 all = 0;
	if (!problems && !o.no_device && gpa.GpaGetNumCounters(ctx, &all) == kGpaStatusOk)
		for (unsigned k = 0; k < NDEVICE; k++) /* by name, quietly: absent is no error */
			for (GpaUInt32 i = 0; i < all; i++) {
				const char *name = NULL;
				if (gpa.GpaGetCounterName(ctx, i, &name) == kGpaStatusOk && name &&
				    strcmp(name, device_names[k]) == 0) {
					counters[ncounters++] = i;
					break;
				}
			}
	bool device = ncounters == 1 + NDEVICE;
	ncounters = device ? ncounters : 1;
	for (unsigned f = 0; !problems && f < o.frames; f++) {
		GpaUInt64 values[1 + NDEVICE] = { 0 };
		GpaStatus st = frame(&gpa, &s, ctx, counters, ncounters, &o, values);
		if (st != kGpaStatusOk) {
			printf("frame %u: %s\n", f, gpa.GpaGetStatusAsStr(st));
			problems++;
			continue;
		}
		double ns = value_of(&gpa, ctx, counters[0], values[0]);
		if (device) {
			double cycles = value_of(&gpa, ctx, counters[1], values[1]);
			printf("frame %u: GPU time %.3f ms (%.0f ns), %.0f GPU active cycles, "
			       "%.0f bytes read, %.0f bytes written\n", f, ns / 1e6, ns, cycles,
			       value_of(&gpa, ctx, counters[2], values[2]),
			       value_of(&gpa, ctx, counters[3], values[3]));
			if (o.verify && !(cycles > 0)) {
				fprintf(stderr, "verify: frame %u: no GPU active cycles\n", f);
				problems++;
			}
		} else {
			printf("frame %u: GPU time %.3f ms (%.0f ns)\n", f, ns / 1e6, ns);
		}
		if (o.verify && !(ns > 0)) {
			fprintf(stderr, "verify: frame %u: GPUTime is %g, not above 0\n", f, ns);
			problems++;
		}
	}
	if (ctx)
		gpa.GpaCloseContext(ctx);
	gpa.GpaDestroy();
	dlclose(lib);
	vk_scene_close(&s);
	if (o.validate && s.validation_messages) {
		fprintf(stderr, "vk-frame-timing: %u validation messages\n", s.validation_messages);
		problems++;
	}
	return problems ? 1 : 0;
}
