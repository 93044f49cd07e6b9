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
	bool validate, verify;
};

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

/* One frame: a session of one sample around the frame's commands, then
 * submitted; its GPUTime in *ns. */
static GpaStatus frame(GpaFunctionTable *gpa, struct vk_scene *s, GpaContextId ctx,
                       GpaUInt32 gputime, const struct options *o, double *ns)
{
	GpaSessionId session = NULL;
	GpaCommandListId list = NULL;
	VkCommandBuffer cb = VK_NULL_HANDLE;
	GpaStatus st = gpa->GpaCreateSession(ctx, kGpaSessionSampleTypeDiscreteCounter, &session);
	if (st == kGpaStatusOk)
		st = gpa->GpaEnableCounter(session, gputime);
	if (st == kGpaStatusOk)
		st = gpa->GpaBeginSession(session);
	if (st == kGpaStatusOk && !(cb = vk_scene_begin(s)))
		st = kGpaStatusErrorFailed;
	if (st == kGpaStatusOk)
		st = gpa->GpaBeginCommandList(session, 0, cb, kGpaCommandListPrimary, &list);
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
	if (st == kGpaStatusOk)
		st = gpa->GpaEndSession(session);
	if (st == kGpaStatusOk && !vk_scene_submit(s, &cb, 1))
		st = kGpaStatusErrorFailed;
	size_t size = 0;
	if (st == kGpaStatusOk)
		st = gpa->GpaGetSampleResultSize(session, 0, &size);
	if (st == kGpaStatusOk && size != sizeof(*ns))
		st = kGpaStatusErrorFailed;
	if (st == kGpaStatusOk)
		st = gpa->GpaGetSampleResult(session, 0, size, ns);
	if (session)
		gpa->GpaDeleteSession(session);
	if (cb)
		vk_scene_free(s, &cb, 1);
	return st;
}

int main(int argc, char **argv)
{
	struct options o;
	if (parse(argc, argv, &o) != 0) {
		fprintf(stderr, "usage: vk-frame-timing [--library PATH] [--frames N] [--draws N] "
		                "[--fills N] [--validate] [--verify]\n");
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
	for (unsigned f = 0; !problems && f < o.frames; f++) {
		double ns = 0;
		GpaStatus st = frame(&gpa, &s, ctx, gputime, &o, &ns);
		if (st != kGpaStatusOk) {
			printf("frame %u: %s\n", f, gpa.GpaGetStatusAsStr(st));
			problems++;
			continue;
		}
		printf("frame %u: GPU time %.3f ms (%.0f ns)\n", f, ns / 1e6, ns);
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
