/* SPDX-License-Identifier: MIT */
/*
 * test_vk_gpa.c — a GPA 3.x (or, built with -DGPA4, 4.x) Vulkan client as
 * AMD's samples write one: dlopen libGPUPerfAPIVK.so, GpaGetFuncTable,
 * GpaOpenContext on a GpaVkContextOpenInfo, command lists on
 * VkCommandBuffers, one sample per piece of work, a sample continued
 * across two command buffers, a secondary command buffer's sample copied.
 * Headless, on whatever Vulkan device the loader finds (Mesa's lavapipe in
 * CI), under VK_LAYER_KHRONOS_validation: any validation message fails.
 * Exits 77 (skipped) when the process has no Vulkan device or layer.
 *
 * The library is loaded as AMD's interface loader does (library directory +
 * file name, an empty directory meaning the bare name, which the loader's
 * search path resolves): by bare name first (the test's LD_LIBRARY_PATH
 * holds the build's lib/), then by directory + name, which must give the
 * same library.  Results are read from a second thread too: a Vulkan
 * context has no thread of its own.  OPENGPA_VK_RESULT_WAIT_MS shortens the
 * wait of GpaGetSampleResult for a list never submitted.
 *
 * Work is vkCmdFillBuffer over a buffer, so GPUTime must grow with the
 * number of fills.  GPUTime is GPA 3.x/4.x's: index 0, Float64 nanoseconds,
 * GPA's UUID, and the samples' times fit within their submission's.
 *
 * Under the virtual Mali (its preload in the process) it also checks device
 * counters per sample, synchronised and not (device_counts), and a list's
 * counts shared among its samples by GPU time (device_shares); on the
 * virtual MIPS 34K (OPENGPA_BACKEND=mips) a device session of several
 * passes (device_passes); on the perf backend, which threads a sample's
 * TaskClock counts (perf_task_clock).
 *
 * Past 600 lines: one client program, built as 3.x and as 4.x, whose
 * scenarios share its Vulkan setup, its GPA table and its checks; split, each
 * part would repeat them.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <vulkan/vulkan.h>

#include <gpu_performance_api/gpu_perf_api.h>
#include <gpu_performance_api/gpu_perf_api_vk.h>

#ifdef GPA4
#define MAJOR 4
#define COUNTER_OWNER session
#else
#define MAJOR 3
#define COUNTER_OWNER ctx
#endif

#include "vk_check.h"
#include "vk_compute.h"

static void on_log(GpaLoggingType type, const char *msg)
{
	fprintf(stderr, "GPA(%d): %s\n", (int)type, msg);
}

struct vk {
	VkInstance instance;
	VkDebugUtilsMessengerEXT messenger;
	VkPhysicalDevice physical;
	VkDevice device;
	VkQueue queue;
	VkCommandPool pool;
	VkBuffer buffer;
	VkDeviceMemory memory;
};

#define BUFFER_BYTES (8u << 20)

static int vk_setup(struct vk *vk)
{
	uint32_t n = 0;
	vkEnumerateInstanceLayerProperties(&n, NULL);
	VkLayerProperties *layers = calloc(n + 1, sizeof(*layers));
	vkEnumerateInstanceLayerProperties(&n, layers);
	int have_layer = 0;
	for (uint32_t i = 0; i < n; i++)
		have_layer |= strcmp(layers[i].layerName, "VK_LAYER_KHRONOS_validation") == 0;
	free(layers);
	if (!have_layer) {
		fprintf(stderr, "SKIP: VK_LAYER_KHRONOS_validation is not installed "
		                "(Debian: vulkan-validationlayers; scripts/install-deps.sh)\n");
		return 77;
	}
	const char *layer = "VK_LAYER_KHRONOS_validation";
	const char *exts[] = { VK_EXT_DEBUG_UTILS_EXTENSION_NAME,
	                       AMD_GPA_REQUIRED_INSTANCE_EXTENSION_NAME_LIST };
	VkDebugUtilsMessengerCreateInfoEXT mi = {
		.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
		.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
		                   VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
		.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
		               VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
		               VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
		.pfnUserCallback = on_message,
	};
	VkApplicationInfo app = { .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
	                          .apiVersion = VK_API_VERSION_1_1 };
	VkInstanceCreateInfo ii = { .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pNext = &mi,
	                            .pApplicationInfo = &app, .enabledLayerCount = 1,
	                            .ppEnabledLayerNames = &layer, .enabledExtensionCount = 2,
	                            .ppEnabledExtensionNames = exts };
	VkResult r = vkCreateInstance(&ii, NULL, &vk->instance);
	if (r != VK_SUCCESS) {
		fprintf(stderr, "SKIP: vkCreateInstance says %d: no Vulkan driver here (Debian: "
		                "mesa-vulkan-drivers)\n", r);
		return 77;
	}
	PFN_vkCreateDebugUtilsMessengerEXT create = (PFN_vkCreateDebugUtilsMessengerEXT)
		vkGetInstanceProcAddr(vk->instance, "vkCreateDebugUtilsMessengerEXT");
	VKOK(create(vk->instance, &mi, NULL, &vk->messenger));
	n = 1;
	r = vkEnumeratePhysicalDevices(vk->instance, &n, &vk->physical);
	if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || n == 0) {
		fprintf(stderr, "SKIP: no Vulkan device (no ICD; Debian: mesa-vulkan-drivers)\n");
		return 77;
	}
	float prio = 1.0f;
	VkDeviceQueueCreateInfo qi = { .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
	                               .queueFamilyIndex = 0, .queueCount = 1,
	                               .pQueuePriorities = &prio };
	/* The header's optional device extensions (calibrated timestamps: the
	 * samples on opengpa stat's timeline), enabled where the device lists
	 * them all, as AMD's sample does; not with TEST_VK_NO_CALIBRATION. */
	const char *opt[] = { AMD_GPA_OPTIONAL_DEVICE_EXTENSION_NAME_LIST };
	uint32_t nopt = sizeof(opt) / sizeof(opt[0]), next = 0, listed = 0;
	vkEnumerateDeviceExtensionProperties(vk->physical, NULL, &next, NULL);
	VkExtensionProperties *dexts = calloc(next + 1, sizeof(*dexts));
	vkEnumerateDeviceExtensionProperties(vk->physical, NULL, &next, dexts);
	for (uint32_t k = 0; k < nopt; k++)
		for (uint32_t i = 0; i < next; i++)
			listed += strcmp(dexts[i].extensionName, opt[k]) == 0;
	free(dexts);
	const char *no_cal = getenv("TEST_VK_NO_CALIBRATION");
	bool enable = listed == nopt && !(no_cal && *no_cal);
	VkDeviceCreateInfo di = { .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
	                          .queueCreateInfoCount = 1, .pQueueCreateInfos = &qi,
	                          .enabledExtensionCount = enable ? nopt : 0,
	                          .ppEnabledExtensionNames = enable ? opt : NULL };
	VKOK(vkCreateDevice(vk->physical, &di, NULL, &vk->device));
	vkGetDeviceQueue(vk->device, 0, 0, &vk->queue);
	VkCommandPoolCreateInfo pi = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
	                               .queueFamilyIndex = 0 };
	VKOK(vkCreateCommandPool(vk->device, &pi, NULL, &vk->pool));
	VkBufferCreateInfo bi = { .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO,
	                          .size = BUFFER_BYTES, .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT };
	VKOK(vkCreateBuffer(vk->device, &bi, NULL, &vk->buffer));
	VkMemoryRequirements req;
	vkGetBufferMemoryRequirements(vk->device, vk->buffer, &req);
	uint32_t type = 0;
	while (!(req.memoryTypeBits & (1u << type)))
		type++;
	VkMemoryAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
	                            .allocationSize = req.size, .memoryTypeIndex = type };
	VKOK(vkAllocateMemory(vk->device, &ai, NULL, &vk->memory));
	VKOK(vkBindBufferMemory(vk->device, vk->buffer, vk->memory, 0));
	return 0;
}

static void vk_teardown(struct vk *vk)
{
	vkDestroyBuffer(vk->device, vk->buffer, NULL);
	vkFreeMemory(vk->device, vk->memory, NULL);
	vkDestroyCommandPool(vk->device, vk->pool, NULL);
	vkDestroyDevice(vk->device, NULL);
	PFN_vkDestroyDebugUtilsMessengerEXT destroy = (PFN_vkDestroyDebugUtilsMessengerEXT)
		vkGetInstanceProcAddr(vk->instance, "vkDestroyDebugUtilsMessengerEXT");
	destroy(vk->instance, vk->messenger, NULL);
	vkDestroyInstance(vk->instance, NULL);
}

static VkCommandBuffer cb_begin(struct vk *vk, VkCommandBufferLevel level)
{
	VkCommandBuffer cb;
	VkCommandBufferAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
	                                   .commandPool = vk->pool, .level = level,
	                                   .commandBufferCount = 1 };
	VKOK(vkAllocateCommandBuffers(vk->device, &ai, &cb));
	VkCommandBufferInheritanceInfo inh = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_INHERITANCE_INFO };
	VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
	                                .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT,
	                                .pInheritanceInfo = &inh };
	VKOK(vkBeginCommandBuffer(cb, &bi));
	return cb;
}

static void work(struct vk *vk, VkCommandBuffer cb, int fills)
{
	for (int i = 0; i < fills; i++)
		vkCmdFillBuffer(cb, vk->buffer, 0, VK_WHOLE_SIZE, (uint32_t)i);
}

static void submit(struct vk *vk, VkCommandBuffer *cbs, uint32_t n)
{
	VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = n,
	                    .pCommandBuffers = cbs };
	VKOK(vkQueueSubmit(vk->queue, 1, &si, VK_NULL_HANDLE));
	VKOK(vkQueueWaitIdle(vk->queue));
}

static GpaFunctionTable gpa;
#define ROUNDS 4

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* GPUTime as GPA 3.x/4.x define it (gpa-vulkan.md section 5). */
static void check_gputime(void *owner, GpaUInt32 index)
{
	CHECK(index == 0, "GPUTime is counter 0, not %u", index);
	GpaDataType type = kGpaDataTypeUint64;
	GpaUsageType usage = kGpaUsageTypeMilliseconds;
	CHECK(gpa.GpaGetCounterDataType(owner, index, &type) == kGpaStatusOk &&
	      type == kGpaDataTypeFloat64, "GPUTime is Float64 (%d)", (int)type);
	CHECK(gpa.GpaGetCounterUsageType(owner, index, &usage) == kGpaStatusOk &&
	      usage == kGpaUsageTypeNanoseconds, "GPUTime is in nanoseconds (%d)", (int)usage);
	GpaUuid u;
	memset(&u, 0, sizeof(u));
	static const unsigned char tail[8] = { 0x92, 0xad, 0xba, 0x72, 0x4c, 0xa2, 0xe5, 0x01 };
	CHECK(gpa.GpaGetCounterUuid(owner, index, &u) == kGpaStatusOk && u.data_1 == 0xcbd338f2u &&
	      u.data_2 == 0xde6c && u.data_3 == 0x7b14 && memcmp(u.data_4, tail, 8) == 0,
	      "GPUTime's UUID is GPA's cbd338f2-de6c-7b14-92ad-ba724ca2e501");
}

static double sample_value(GpaSessionId s, GpaUInt32 id, GpaStatus *st)
{
	size_t size = 0;
	*st = gpa.GpaGetSampleResultSize(s, id, &size);
	double v[8] = { 0 };
	if (*st == kGpaStatusOk)
		*st = gpa.GpaGetSampleResult(s, id, sizeof(v) < size ? 0 : size, v);
	return v[0];
}

/* GpaGetSampleResult on another thread: the same value as on the main one. */
struct other_thread {
	GpaSessionId session;
	GpaUInt32 id;
	GpaStatus complete, st;
	double value;
};

static void *read_elsewhere(void *arg)
{
	struct other_thread *o = arg;
	o->complete = gpa.GpaIsSessionComplete(o->session);
	o->value = sample_value(o->session, o->id, &o->st);
	return NULL;
}

/* A list fully ended (its samples too) and never submitted: its results
 * never come, and GpaGetSampleResult says Timeout after
 * OPENGPA_VK_RESULT_WAIT_MS, not GPA's 5 s. */
#define WAIT_MS 300
static void never_submitted(struct vk *vk, GpaContextId ctx, GpaUInt32 gputime)
{
	GpaSessionId session = NULL;
	GpaStatus st;
	CHECK(gpa.GpaCreateSession(ctx, kGpaSessionSampleTypeDiscreteCounter, &session) ==
	      kGpaStatusOk, "create session 4");
	CHECK(gpa.GpaEnableCounter(session, gputime) == kGpaStatusOk, "enable");
	CHECK(gpa.GpaBeginSession(session) == kGpaStatusOk, "begin 4");
	VkCommandBuffer cb = cb_begin(vk, VK_COMMAND_BUFFER_LEVEL_PRIMARY);
	GpaCommandListId cl = NULL;
	CHECK(gpa.GpaBeginCommandList(session, 0, cb, kGpaCommandListPrimary, &cl) == kGpaStatusOk,
	      "begin list 4");
	CHECK(gpa.GpaBeginSample(0, cl) == kGpaStatusOk, "sample");
	work(vk, cb, 1);
	CHECK(gpa.GpaEndSample(cl) == kGpaStatusOk, "end sample");
	CHECK(gpa.GpaEndCommandList(cl) == kGpaStatusOk, "end list 4");
	VKOK(vkEndCommandBuffer(cb));
	CHECK(gpa.GpaEndSession(session) == kGpaStatusOk, "end 4");
	CHECK(gpa.GpaIsPassComplete(session, 0) == kGpaStatusResultNotReady, "pass not run");
	CHECK(gpa.GpaIsSessionComplete(session) == kGpaStatusResultNotReady, "never submitted");
	double t0 = now_ns();
	sample_value(session, 0, &st);
	double waited_ms = (now_ns() - t0) / 1e6;
	CHECK(st == kGpaStatusErrorTimeout, "ended, never submitted: Timeout, not %d", st);
	CHECK(waited_ms >= WAIT_MS * 0.9 && waited_ms < 4000.0,
	      "GpaGetSampleResult waited %.0f ms for OPENGPA_VK_RESULT_WAIT_MS=%d", waited_ms,
	      WAIT_MS);
	CHECK(gpa.GpaDeleteSession(session) == kGpaStatusOk, "delete 4");
	vkResetCommandPool(vk->device, vk->pool, 0);
}

/* ---- device counters per sample, on the virtual Mali ---------------------
 * Under the virtual Mali (VMALI_API_FRAMES=1) each vkCmdDispatch is one
 * frame of the workload script, whose frames have 1000, 2000, 3000, 4000
 * input primitives in turn: a sample's TotalInputPrimitives says which
 * frames it counted.  Synchronised (the default) or not (OPENGPA_SYNC=off:
 * no drain, which changes nothing when the client waits), a list submitted
 * and waited for before the next GPA call gives its lone sample exactly its
 * own frames; two samples on one list share its counts equally (their sum
 * is exact); a sample continued on a second list sums both; two lists that
 * ran between the same two GPA calls cannot be told apart: their samples
 * fail. */
static double prims_of(uint64_t frame)
{
	return 1000.0 * (double)(frame % 4 + 1);
}

static void run_list(struct vk *vk, VkCommandBuffer cb, VkFence fence)
{
	VKOK(vkEndCommandBuffer(cb));
	VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1,
	                    .pCommandBuffers = &cb };
	VKOK(vkQueueSubmit(vk->queue, 1, &si, fence));
	VKOK(vkWaitForFences(vk->device, 1, &fence, VK_TRUE, UINT64_MAX));
	VKOK(vkResetFences(vk->device, 1, &fence));
}

/* What the device cases record with: an empty compute pipeline and a fence. */
static VkFence rig_begin(struct vk *vk, struct vk_compute *comp)
{
	vk_compute_create(vk->device, comp);
	VkFence fence;
	VkFenceCreateInfo fi = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
	VKOK(vkCreateFence(vk->device, &fi, NULL, &fence));
	return fence;
}

static void rig_end(struct vk *vk, struct vk_compute *comp, VkFence fence)
{
	vkResetCommandPool(vk->device, vk->pool, 0);
	vkDestroyFence(vk->device, fence, NULL);
	vk_compute_destroy(vk->device, comp);
}

/* Sample id's values of the counters idx[0 .. n) into out[], whatever
 * their enabled order and type; -1 for one not enabled. */
static GpaStatus read_counters(GpaContextId ctx, GpaSessionId session, GpaUInt32 id,
                               const GpaUInt32 *idx, GpaUInt32 n, double *out)
{
	GpaUInt32 enabled = 0;
	GpaUInt64 raw[8] = { 0 };
	GpaStatus st = gpa.GpaGetNumEnabledCounters(session, &enabled);
	if (st == kGpaStatusOk && enabled <= 8)
		st = gpa.GpaGetSampleResult(session, id, enabled * 8, raw);
	for (GpaUInt32 k = 0; k < n; k++)
		out[k] = -1.0;
	for (GpaUInt32 e = 0; st == kGpaStatusOk && e < enabled && e < 8; e++) {
		GpaUInt32 c = 0;
		GpaDataType type = kGpaDataTypeUint64;
		gpa.GpaGetEnabledIndex(session, e, &c);
		gpa.GpaGetCounterDataType(COUNTER_OWNER, c, &type);
		for (GpaUInt32 k = 0; k < n; k++) {
			if (idx[k] != c)
				continue;
			if (type == kGpaDataTypeFloat64)
				memcpy(&out[k], &raw[e], sizeof(double));
			else
				out[k] = (double)raw[e];
		}
	}
	return st;
}

static void device_counts(struct vk *vk, GpaContextId ctx, uint64_t (*frames)(void))
{
	struct vk_compute comp;
	VkFence fence = rig_begin(vk, &comp);
	GpaSessionId session = NULL;
	CHECK(gpa.GpaCreateSession(ctx, kGpaSessionSampleTypeDiscreteCounter, &session) ==
	      kGpaStatusOk, "create device session");
	GpaUInt32 prims = 0, cycles = 0, passes = 0;
	CHECK(gpa.GpaGetCounterIndex(COUNTER_OWNER, "TotalInputPrimitives", &prims) ==
	      kGpaStatusOk, "TotalInputPrimitives");
	bool have_cycles = gpa.GpaGetCounterIndex(COUNTER_OWNER, "GPUActiveCycles",
	                                          &cycles) == kGpaStatusOk;
	CHECK(gpa.GpaEnableCounter(session, prims) == kGpaStatusOk, "enable primitives");
	if (have_cycles)
		CHECK(gpa.GpaEnableCounter(session, cycles) == kGpaStatusOk, "enable cycles");
	CHECK(gpa.GpaGetPassCount(session, &passes) == kGpaStatusOk && passes >= 1, "passes");
	CHECK(gpa.GpaBeginSession(session) == kGpaStatusOk, "begin device session");
	/* Frames of the script each sample drew, per pass (the same in each). */
	double want[8] = { 0 };
	uint64_t r[2][2] = { { 0 } };
	for (GpaUInt32 p = 0; p < passes; p++) {
		VkCommandBuffer cbs[7];
		for (int i = 0; i < 7; i++)
			cbs[i] = cb_begin(vk, VK_COMMAND_BUFFER_LEVEL_PRIMARY);
		GpaCommandListId cl[7] = { 0 };
		uint64_t f = frames();
		/* Samples 0-3: one list each, one dispatch each. */
		for (GpaUInt32 i = 0; i < 4; i++) {
			CHECK(gpa.GpaBeginCommandList(session, p, cbs[i], kGpaCommandListPrimary,
			                              &cl[i]) == kGpaStatusOk, "list %u", i);
			vkCmdBindPipeline(cbs[i], VK_PIPELINE_BIND_POINT_COMPUTE, comp.pipeline);
			CHECK(gpa.GpaBeginSample(i, cl[i]) == kGpaStatusOk, "sample %u", i);
			vkCmdDispatch(cbs[i], 1, 1, 1);
			CHECK(gpa.GpaEndSample(cl[i]) == kGpaStatusOk, "end sample %u", i);
			CHECK(gpa.GpaEndCommandList(cl[i]) == kGpaStatusOk, "end list %u", i);
			run_list(vk, cbs[i], fence);
			if (p == 0)
				want[i] = prims_of(f + i);
		}
		/* Samples 4 and 5 on one list: 1 and 2 dispatches, 3 frames between them. */
		CHECK(gpa.GpaBeginCommandList(session, p, cbs[4], kGpaCommandListPrimary, &cl[4]) ==
		      kGpaStatusOk, "list 4");
		vkCmdBindPipeline(cbs[4], VK_PIPELINE_BIND_POINT_COMPUTE, comp.pipeline);
		CHECK(gpa.GpaBeginSample(4, cl[4]) == kGpaStatusOk, "sample 4");
		vkCmdDispatch(cbs[4], 1, 1, 1);
		CHECK(gpa.GpaEndSample(cl[4]) == kGpaStatusOk, "end 4");
		CHECK(gpa.GpaBeginSample(5, cl[4]) == kGpaStatusOk, "sample 5");
		vkCmdDispatch(cbs[4], 1, 1, 1);
		vkCmdDispatch(cbs[4], 1, 1, 1);
		CHECK(gpa.GpaEndSample(cl[4]) == kGpaStatusOk, "end 5");
		CHECK(gpa.GpaEndCommandList(cl[4]) == kGpaStatusOk, "end list 4");
		run_list(vk, cbs[4], fence);
		if (p == 0)
			want[4] = prims_of(f + 4) + prims_of(f + 5) + prims_of(f + 6);
		/* Sample 6 continued on a second list: one dispatch on each. */
		CHECK(gpa.GpaBeginCommandList(session, p, cbs[5], kGpaCommandListPrimary, &cl[5]) ==
		      kGpaStatusOk, "list 5");
		vkCmdBindPipeline(cbs[5], VK_PIPELINE_BIND_POINT_COMPUTE, comp.pipeline);
		CHECK(gpa.GpaBeginSample(6, cl[5]) == kGpaStatusOk, "sample 6");
		vkCmdDispatch(cbs[5], 1, 1, 1);
		CHECK(gpa.GpaEndCommandList(cl[5]) == kGpaStatusOk, "end list 5, 6 open");
		run_list(vk, cbs[5], fence);
		CHECK(gpa.GpaBeginCommandList(session, p, cbs[6], kGpaCommandListPrimary, &cl[6]) ==
		      kGpaStatusOk, "list 6");
		vkCmdBindPipeline(cbs[6], VK_PIPELINE_BIND_POINT_COMPUTE, comp.pipeline);
		CHECK(gpa.GpaContinueSampleOnCommandList(6, cl[6]) == kGpaStatusOk, "continue 6");
		vkCmdDispatch(cbs[6], 1, 1, 1);
		CHECK(gpa.GpaEndSample(cl[6]) == kGpaStatusOk, "end 6");
		CHECK(gpa.GpaEndCommandList(cl[6]) == kGpaStatusOk, "end list 6");
		run_list(vk, cbs[6], fence);
		if (p == 0)
			want[6] = prims_of(f + 7) + prims_of(f + 8);
		/* The next pass's first GPA call (or the completion below) takes
		 * the last list's counts. */
	}
	CHECK(gpa.GpaEndSession(session) == kGpaStatusOk, "end device session");
	CHECK(gpa.GpaIsSessionComplete(session) == kGpaStatusOk, "device session complete");
	for (GpaUInt32 id = 0; id < 7; id++) {
		GpaUInt64 v[2] = { 0, 0 };
		GpaStatus st = gpa.GpaGetSampleResult(session, id, (have_cycles ? 2 : 1) * 8, v);
		CHECK(st == kGpaStatusOk, "device sample %u: %d", id, st);
		printf("vulkan sample %u: %llu input primitives, %llu GPU active cycles\n", id,
		       (unsigned long long)v[0], (unsigned long long)v[1]);
		if (id == 4 || id == 5) {
			r[id - 4][0] = v[0];
			r[id - 4][1] = v[1];
			continue;
		}
		CHECK((double)v[0] == want[id], "sample %u's own frames: %llu primitives, not %.0f",
		      id, (unsigned long long)v[0], want[id]);
		CHECK(!have_cycles || v[1] > 0, "sample %u counted cycles", id);
	}
	CHECK((double)(r[0][0] + r[1][0]) == want[4],
	      "two samples of one list share its %.0f primitives: %llu + %llu", want[4],
	      (unsigned long long)r[0][0], (unsigned long long)r[1][0]);
	CHECK(gpa.GpaDeleteSession(session) == kGpaStatusOk, "delete device session");

	/* Two lists run between the same two GPA calls: no device counts. */
	CHECK(gpa.GpaCreateSession(ctx, kGpaSessionSampleTypeDiscreteCounter, &session) ==
	      kGpaStatusOk, "create session 5");
	CHECK(gpa.GpaEnableCounter(session, prims) == kGpaStatusOk, "enable");
	CHECK(gpa.GpaGetPassCount(session, &passes) == kGpaStatusOk && passes == 1, "one pass");
	CHECK(gpa.GpaBeginSession(session) == kGpaStatusOk, "begin 5");
	VkCommandBuffer two[2];
	GpaCommandListId tl[2] = { 0 };
	for (GpaUInt32 i = 0; i < 2; i++) {
		two[i] = cb_begin(vk, VK_COMMAND_BUFFER_LEVEL_PRIMARY);
		CHECK(gpa.GpaBeginCommandList(session, 0, two[i], kGpaCommandListPrimary, &tl[i]) ==
		      kGpaStatusOk, "list %u", i);
		vkCmdBindPipeline(two[i], VK_PIPELINE_BIND_POINT_COMPUTE, comp.pipeline);
		CHECK(gpa.GpaBeginSample(i, tl[i]) == kGpaStatusOk, "sample %u", i);
		vkCmdDispatch(two[i], 1, 1, 1);
		CHECK(gpa.GpaEndSample(tl[i]) == kGpaStatusOk, "end sample %u", i);
		CHECK(gpa.GpaEndCommandList(tl[i]) == kGpaStatusOk, "end list %u", i);
		VKOK(vkEndCommandBuffer(two[i]));
	}
	CHECK(gpa.GpaEndSession(session) == kGpaStatusOk, "end 5");
	VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 2,
	                    .pCommandBuffers = two };
	VKOK(vkQueueSubmit(vk->queue, 1, &si, VK_NULL_HANDLE));
	VKOK(vkQueueWaitIdle(vk->queue));
	CHECK(gpa.GpaIsSessionComplete(session) == kGpaStatusOk, "complete, without counts");
	GpaUInt64 v = 0;
	GpaStatus st = gpa.GpaGetSampleResult(session, 0, 8, &v);
	CHECK(st != kGpaStatusOk, "two lists in one interval: sample 0 has no count (%d, %llu)",
	      st, (unsigned long long)v);
	CHECK(gpa.GpaDeleteSession(session) == kGpaStatusOk, "delete 5");
	vkResetCommandPool(vk->device, vk->pool, 0);

	/* A list never submitted holds the device until its session gives it
	 * up: a new session takes it (the old one's sample gets no counts), and
	 * counts its own list exactly. */
	GpaSessionId old = NULL, next = NULL;
	GpaCommandListId ol = NULL, nl = NULL;
	CHECK(gpa.GpaCreateSession(ctx, kGpaSessionSampleTypeDiscreteCounter, &old) ==
	      kGpaStatusOk && gpa.GpaEnableCounter(old, prims) == kGpaStatusOk &&
	      gpa.GpaBeginSession(old) == kGpaStatusOk, "session 6");
	VkCommandBuffer never = cb_begin(vk, VK_COMMAND_BUFFER_LEVEL_PRIMARY);
	CHECK(gpa.GpaBeginCommandList(old, 0, never, kGpaCommandListPrimary, &ol) == kGpaStatusOk &&
	      gpa.GpaBeginSample(0, ol) == kGpaStatusOk && gpa.GpaEndSample(ol) == kGpaStatusOk &&
	      gpa.GpaEndCommandList(ol) == kGpaStatusOk, "list 6");
	VKOK(vkEndCommandBuffer(never));
	CHECK(gpa.GpaEndSession(old) == kGpaStatusOk, "end 6");
	CHECK(gpa.GpaIsSessionComplete(old) == kGpaStatusResultNotReady, "6 never submitted");
	CHECK(gpa.GpaCreateSession(ctx, kGpaSessionSampleTypeDiscreteCounter, &next) ==
	      kGpaStatusOk && gpa.GpaEnableCounter(next, prims) == kGpaStatusOk &&
	      gpa.GpaBeginSession(next) == kGpaStatusOk, "session 7 while 6 holds the device");
	CHECK(gpa.GpaIsSessionComplete(old) == kGpaStatusOk, "6 gave the device up: complete");
	CHECK(gpa.GpaGetSampleResult(old, 0, 8, &v) != kGpaStatusOk, "6's sample has no count");
	VkCommandBuffer mine = cb_begin(vk, VK_COMMAND_BUFFER_LEVEL_PRIMARY);
	uint64_t f7 = frames();
	CHECK(gpa.GpaBeginCommandList(next, 0, mine, kGpaCommandListPrimary, &nl) == kGpaStatusOk,
	      "list 7");
	vkCmdBindPipeline(mine, VK_PIPELINE_BIND_POINT_COMPUTE, comp.pipeline);
	CHECK(gpa.GpaBeginSample(0, nl) == kGpaStatusOk, "sample 7");
	vkCmdDispatch(mine, 1, 1, 1);
	vkCmdDispatch(mine, 1, 1, 1);
	CHECK(gpa.GpaEndSample(nl) == kGpaStatusOk && gpa.GpaEndCommandList(nl) == kGpaStatusOk,
	      "end list 7");
	run_list(vk, mine, fence);
	CHECK(gpa.GpaEndSession(next) == kGpaStatusOk, "end 7");
	v = 0;
	CHECK(gpa.GpaGetSampleResult(next, 0, 8, &v) == kGpaStatusOk &&
	      (double)v == prims_of(f7) + prims_of(f7 + 1),
	      "session 7's sample: %llu primitives, not %.0f", (unsigned long long)v,
	      prims_of(f7) + prims_of(f7 + 1));
	CHECK(gpa.GpaDeleteSession(old) == kGpaStatusOk && gpa.GpaDeleteSession(next) ==
	      kGpaStatusOk, "delete 6, 7");
	rig_end(vk, &comp, fence);
}

/* Checks that hold unless lavapipe's thread was kept off the CPU inside the
 * short sample (lavapipe's GPU time is wall time, and the suite shares two
 * cores): each miss is counted, and the case runs again, up to TRIES times,
 * before the misses fail the test (try_timed).  Equal shares miss on every
 * try: their first sample never gets less than the second. */
#define TRIES 3
static unsigned timing_misses;
#define TIMING_CHECK(cond, ...) \
	do { \
		if (!(cond)) { \
			timing_misses++; \
			printf("timing miss %s:%d: ", __FILE__, __LINE__); \
			printf(__VA_ARGS__); \
			putchar('\n'); \
		} \
	} while (0)

#define try_timed(what, call) \
	do { \
		for (int try_ = 0;; try_++) { \
			timing_misses = 0; \
			call; \
			if (!timing_misses || try_ + 1 == TRIES) \
				break; \
		} \
		CHECK(!timing_misses, "%s: %u timing checks missed on each of %d tries", what, \
		      timing_misses, TRIES); \
	} while (0)

/* ---- shares of one list's device counts, by GPU time ---------------------
 * Two samples on one list whose GPU work differs a lot: sample 0 is one
 * dispatch, sample 1 one dispatch and FILLS 8 MiB fills (lavapipe's GPU is
 * the CPU: tens of milliseconds against microseconds).  And a second list
 * with a direct sample (one dispatch) beside a copy of a secondary's sample
 * (one dispatch and the fills).  Each list's counts (two frames of the
 * script) go to its samples in proportion to their GPU times on it: the
 * shares add up to the list's counts exactly, and, with GPUTime enabled,
 * each is its GPUTime's proportion of the list's within rounding (cycles as
 * well as primitives); without GPUTime (the library times the samples for
 * itself) the longer sample still gets the larger share.  And a sample
 * continued from a third list, where it had the fills, onto a fourth: the
 * third's counts are shared by the pieces on it, the fourth's are all its
 * own.  Equal shares fail each case. */
#define FILLS 32

/* a and b: the two samples' values (read_counters) on one list whose
 * primitives were `list_prims`. */
static void check_shares(const char *what, const double a[3], const double b[3],
                         double list_prims, bool timed)
{
	printf("%s: %.0f + %.0f primitives, %.0f + %.0f cycles, GPUTime %.0f + %.0f ns\n", what,
	       a[0], b[0], a[1], b[1], a[2], b[2]);
	CHECK(a[0] + b[0] == list_prims, "%s: the shares %.0f + %.0f add up to the list's %.0f "
	      "primitives", what, a[0], b[0], list_prims);
	if (!timed) {
		TIMING_CHECK(b[0] > a[0], "%s: the sample with %d fills gets more of the list's primitives "
		      "(%.0f) than the one without (%.0f)", what, FILLS, b[0], a[0]);
		return;
	}
	double t = a[2] + b[2];
	TIMING_CHECK(a[2] >= 0 && b[2] > a[2], "%s: GPUTime %.0f ns with %d fills, %.0f ns without", what,
	      b[2], FILLS, a[2]);
	if (!(t > 0))
		return;
	for (int k = 0; k < 2; k++) {
		const double *v = k ? b : a;
		double want = list_prims * v[2] / t;
		CHECK(v[0] >= want - 1.0 - 1e-6 * list_prims && v[0] <= want + 1.0 + 1e-6 * list_prims,
		      "%s: sample %d's primitives %.0f are its GPUTime's share %.2f of %.0f", what, k,
		      v[0], want, list_prims);
		double cycles = a[1] + b[1];
		want = cycles * v[2] / t;
		CHECK(a[1] < 0 || (v[1] >= want - 1.0 - 1e-6 * cycles &&
		                   v[1] <= want + 1.0 + 1e-6 * cycles),
		      "%s: sample %d's cycles %.0f are its GPUTime's share %.2f of %.0f", what, k,
		      v[1], want, cycles);
	}
	CHECK(b[2] > a[2] ? b[0] >= a[0] : a[0] >= b[0], "%s: the shares are ordered as the "
	      "GPUTimes", what);
}

static void device_shares(struct vk *vk, GpaContextId ctx, uint64_t (*frames)(void), bool timed)
{
	struct vk_compute comp;
	VkFence fence = rig_begin(vk, &comp);
	GpaSessionId session = NULL;
	GpaUInt32 prims = 0, cycles = UINT32_MAX, gputime = UINT32_MAX, passes = 0;
	CHECK(gpa.GpaCreateSession(ctx, kGpaSessionSampleTypeDiscreteCounter, &session) ==
	      kGpaStatusOk, "create shares session");
	CHECK(gpa.GpaGetCounterIndex(COUNTER_OWNER, "TotalInputPrimitives", &prims) ==
	      kGpaStatusOk && gpa.GpaEnableCounter(session, prims) == kGpaStatusOk, "primitives");
	if (gpa.GpaGetCounterIndex(COUNTER_OWNER, "GPUActiveCycles", &cycles) == kGpaStatusOk)
		CHECK(gpa.GpaEnableCounter(session, cycles) == kGpaStatusOk, "cycles");
	if (timed)
		CHECK(gpa.GpaGetCounterIndex(COUNTER_OWNER, "GPUTime", &gputime) == kGpaStatusOk &&
		      gpa.GpaEnableCounter(session, gputime) == kGpaStatusOk, "GPUTime");
	CHECK(gpa.GpaGetPassCount(session, &passes) == kGpaStatusOk && passes == 1, "one pass");
	CHECK(gpa.GpaBeginSession(session) == kGpaStatusOk, "begin shares session");
	/* Samples 0 (short) and 1 (long) on one list. */
	VkCommandBuffer cb = cb_begin(vk, VK_COMMAND_BUFFER_LEVEL_PRIMARY);
	GpaCommandListId cl = NULL, sl = NULL, pl = NULL;
	uint64_t f = frames();
	CHECK(gpa.GpaBeginCommandList(session, 0, cb, kGpaCommandListPrimary, &cl) == kGpaStatusOk,
	      "shares list");
	vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, comp.pipeline);
	CHECK(gpa.GpaBeginSample(0, cl) == kGpaStatusOk, "short sample");
	vkCmdDispatch(cb, 1, 1, 1);
	CHECK(gpa.GpaEndSample(cl) == kGpaStatusOk, "end short");
	CHECK(gpa.GpaBeginSample(1, cl) == kGpaStatusOk, "long sample");
	vkCmdDispatch(cb, 1, 1, 1);
	work(vk, cb, FILLS);
	CHECK(gpa.GpaEndSample(cl) == kGpaStatusOk, "end long");
	CHECK(gpa.GpaEndCommandList(cl) == kGpaStatusOk, "end shares list");
	run_list(vk, cb, fence);
	double one_list = prims_of(f) + prims_of(f + 1);
	/* A direct sample 2 beside sample 3, the copy of a secondary's sample 10. */
	VkCommandBuffer scb = cb_begin(vk, VK_COMMAND_BUFFER_LEVEL_SECONDARY);
	CHECK(gpa.GpaBeginCommandList(session, 0, scb, kGpaCommandListSecondary, &sl) ==
	      kGpaStatusOk, "secondary");
	vkCmdBindPipeline(scb, VK_PIPELINE_BIND_POINT_COMPUTE, comp.pipeline);
	CHECK(gpa.GpaBeginSample(10, sl) == kGpaStatusOk, "secondary's sample");
	vkCmdDispatch(scb, 1, 1, 1);
	work(vk, scb, FILLS);
	CHECK(gpa.GpaEndSample(sl) == kGpaStatusOk && gpa.GpaEndCommandList(sl) == kGpaStatusOk,
	      "end secondary");
	VKOK(vkEndCommandBuffer(scb));
	VkCommandBuffer pcb = cb_begin(vk, VK_COMMAND_BUFFER_LEVEL_PRIMARY);
	f = frames();
	CHECK(gpa.GpaBeginCommandList(session, 0, pcb, kGpaCommandListPrimary, &pl) ==
	      kGpaStatusOk, "primary");
	vkCmdBindPipeline(pcb, VK_PIPELINE_BIND_POINT_COMPUTE, comp.pipeline);
	CHECK(gpa.GpaBeginSample(2, pl) == kGpaStatusOk, "direct sample");
	vkCmdDispatch(pcb, 1, 1, 1);
	CHECK(gpa.GpaEndSample(pl) == kGpaStatusOk, "end direct");
	vkCmdExecuteCommands(pcb, 1, &scb);
	GpaUInt32 copy = 3;
	CHECK(gpa.GpaCopySecondarySamples(sl, pl, 1, &copy) == kGpaStatusOk, "copy");
	CHECK(gpa.GpaEndCommandList(pl) == kGpaStatusOk, "end primary");
	run_list(vk, pcb, fence);
	double two_list = prims_of(f) + prims_of(f + 1);
	/* List C: sample 4 (one dispatch), then sample 5 (a dispatch and the
	 * fills) left open, continued alone on list D (one dispatch): C is
	 * shared by the pieces' times on C, and 5 has all of D besides. */
	VkCommandBuffer c = cb_begin(vk, VK_COMMAND_BUFFER_LEVEL_PRIMARY);
	f = frames();
	CHECK(gpa.GpaBeginCommandList(session, 0, c, kGpaCommandListPrimary, &cl) == kGpaStatusOk,
	      "list C");
	vkCmdBindPipeline(c, VK_PIPELINE_BIND_POINT_COMPUTE, comp.pipeline);
	CHECK(gpa.GpaBeginSample(4, cl) == kGpaStatusOk, "sample 4");
	vkCmdDispatch(c, 1, 1, 1);
	CHECK(gpa.GpaEndSample(cl) == kGpaStatusOk && gpa.GpaBeginSample(5, cl) == kGpaStatusOk,
	      "sample 5");
	vkCmdDispatch(c, 1, 1, 1);
	work(vk, c, FILLS);
	CHECK(gpa.GpaEndCommandList(cl) == kGpaStatusOk, "end C, 5 open");
	run_list(vk, c, fence);
	VkCommandBuffer dcb = cb_begin(vk, VK_COMMAND_BUFFER_LEVEL_PRIMARY);
	CHECK(gpa.GpaBeginCommandList(session, 0, dcb, kGpaCommandListPrimary, &cl) ==
	      kGpaStatusOk && gpa.GpaContinueSampleOnCommandList(5, cl) == kGpaStatusOk,
	      "5 continued on D");
	vkCmdBindPipeline(dcb, VK_PIPELINE_BIND_POINT_COMPUTE, comp.pipeline);
	vkCmdDispatch(dcb, 1, 1, 1);
	CHECK(gpa.GpaEndSample(cl) == kGpaStatusOk && gpa.GpaEndCommandList(cl) == kGpaStatusOk,
	      "end D");
	run_list(vk, dcb, fence);
	double list_c = prims_of(f) + prims_of(f + 1), list_d = prims_of(f + 2);
	CHECK(gpa.GpaEndSession(session) == kGpaStatusOk, "end shares session");
	CHECK(gpa.GpaIsSessionComplete(session) == kGpaStatusOk, "shares session complete");
	double v[6][3];
	const GpaUInt32 idx[3] = { prims, cycles, gputime };
	for (GpaUInt32 id = 0; id < 6; id++)
		CHECK(read_counters(ctx, session, id, idx, 3, v[id]) == kGpaStatusOk,
		      "shares sample %u", id);
	check_shares("one list", v[0], v[1], one_list, timed);
	check_shares("a copy beside a sample", v[2], v[3], two_list, timed);
	printf("continued: C %.0f shared %.0f + %.0f, then D's %.0f\n", list_c, v[4][0],
	       v[5][0] - list_d, list_d);
	CHECK(v[4][0] + v[5][0] == list_c + list_d && v[5][0] >= list_d,
	      "a continued sample: C's %.0f primitives shared by the pieces on C (%.0f, %.0f), "
	      "D's %.0f all its", list_c, v[4][0], v[5][0] - list_d, list_d);
	TIMING_CHECK(v[5][0] - list_d > v[4][0], "a continued sample: its piece on C, with the "
	             "fills, gets more of C (%.0f) than sample 4 (%.0f)", v[5][0] - list_d, v[4][0]);
	CHECK(gpa.GpaDeleteSession(session) == kGpaStatusOk, "delete shares session");
	rig_end(vk, &comp, fence);
}

/* ---- a device session of several passes ----------------------------------
 * On the virtual MIPS 34K (OPENGPA_BACKEND=mips, its preload), whose two
 * counters (one per bank) cannot hold three miss rates at once: a session
 * of three passes, recorded one pass per replayed frame as AMD's samples
 * do (each pass's lists submitted and waited for, then GpaIsPassComplete).
 * Each pass: list A with samples 0 (one fill) and 1 (FILLS fills), list B
 * with sample 2 alone.  The 34K runs a fixed stretch of work at every read
 * of its counters, so each list's counts are the same: sample 2 has
 * exactly B's, samples 0 and 1 share A's by GPU time, so their raw counts
 * add up to sample 2's, the longer one gets more, and their miss rates
 * (ratios of raws shared alike) are the list's rate within rounding.
 * GPUTime, enabled too, is measured in pass 0 only; the library times the
 * samples of the other passes for itself. */
static const char *const pass_names[] = {
	"CoreCycles", "InstructionCount", "ICacheMissRate", "DCacheMissRate",
	"BranchMispredictionRate", "GPUTime",
};
#define PASS_COUNTS 2 /* the sums; then the rates, then GPUTime (pass 0's) */
#define PASS_NAMES 6

static void device_passes(struct vk *vk, GpaContextId ctx)
{
	GpaSessionId session = NULL;
	GpaUInt32 idx[PASS_NAMES], passes = 0;
	CHECK(gpa.GpaCreateSession(ctx, kGpaSessionSampleTypeDiscreteCounter, &session) ==
	      kGpaStatusOk, "create multi-pass session");
	if (gpa.GpaGetCounterIndex(COUNTER_OWNER, pass_names[0], &idx[0]) != kGpaStatusOk) {
		gpa.GpaDeleteSession(session); /* not the MIPS backend */
		return;
	}
	for (int k = 0; k < PASS_NAMES; k++)
		CHECK(gpa.GpaGetCounterIndex(COUNTER_OWNER, pass_names[k], &idx[k]) == kGpaStatusOk &&
		      gpa.GpaEnableCounter(session, idx[k]) == kGpaStatusOk, "%s", pass_names[k]);
	CHECK(gpa.GpaGetPassCount(session, &passes) == kGpaStatusOk && passes >= 2,
	      "the miss rates take %u passes", passes);
	printf("multi-pass device session: %u passes\n", passes);
	struct vk_compute comp;
	VkFence fence = rig_begin(vk, &comp);
	CHECK(gpa.GpaBeginSession(session) == kGpaStatusOk, "begin multi-pass session");
	for (GpaUInt32 p = 0; p < passes; p++) {
		VkCommandBuffer a = cb_begin(vk, VK_COMMAND_BUFFER_LEVEL_PRIMARY);
		GpaCommandListId cl = NULL;
		CHECK(gpa.GpaBeginCommandList(session, p, a, kGpaCommandListPrimary, &cl) ==
		      kGpaStatusOk, "pass %u list A", p);
		for (GpaUInt32 id = 0; id < 2; id++) {
			CHECK(gpa.GpaBeginSample(id, cl) == kGpaStatusOk, "pass %u sample %u", p, id);
			work(vk, a, id ? FILLS : 1);
			CHECK(gpa.GpaEndSample(cl) == kGpaStatusOk, "pass %u end %u", p, id);
		}
		CHECK(gpa.GpaEndCommandList(cl) == kGpaStatusOk, "pass %u end A", p);
		run_list(vk, a, fence);
		VkCommandBuffer b = cb_begin(vk, VK_COMMAND_BUFFER_LEVEL_PRIMARY);
		CHECK(gpa.GpaBeginCommandList(session, p, b, kGpaCommandListPrimary, &cl) ==
		      kGpaStatusOk && gpa.GpaBeginSample(2, cl) == kGpaStatusOk, "pass %u list B", p);
		work(vk, b, 1);
		CHECK(gpa.GpaEndSample(cl) == kGpaStatusOk && gpa.GpaEndCommandList(cl) ==
		      kGpaStatusOk, "pass %u end B", p);
		run_list(vk, b, fence);
		CHECK(gpa.GpaIsPassComplete(session, p) == kGpaStatusOk, "pass %u complete", p);
	}
	CHECK(gpa.GpaEndSession(session) == kGpaStatusOk, "end multi-pass session");
	CHECK(gpa.GpaIsSessionComplete(session) == kGpaStatusOk, "multi-pass session complete");
	double v[3][PASS_NAMES];
	for (GpaUInt32 id = 0; id < 3; id++)
		CHECK(read_counters(ctx, session, id, idx, PASS_NAMES, v[id]) == kGpaStatusOk,
		      "multi-pass sample %u", id);
	for (int k = 0; k < PASS_NAMES; k++) {
		printf("  %-24s %14.4f + %14.4f | alone %14.4f\n", pass_names[k], v[0][k], v[1][k],
		       v[2][k]);
		if (k == PASS_NAMES - 1) {
			CHECK(v[0][k] > 0 && v[2][k] > 0, "GPUTime %.0f, %.0f", v[0][k], v[2][k]);
			TIMING_CHECK(v[1][k] > v[0][k], "GPUTime %.0f, %.0f, %.0f",
			      v[0][k], v[1][k], v[2][k]);
			continue;
		}
		if (k < PASS_COUNTS) {
			CHECK(v[0][k] + v[1][k] == v[2][k] && v[2][k] > 0, "%s: samples 0 and 1 share "
			      "list A's %.0f: %.0f + %.0f", pass_names[k], v[2][k], v[0][k], v[1][k]);
			TIMING_CHECK(v[1][k] > v[0][k], "%s: the sample with %d fills gets more",
			             pass_names[k],
			      FILLS);
			continue;
		}
		/* A rate of two shared raws: the list's, off by their rounding (one
		 * count each, under 1% of a share of 10,000 cycles' events). */
		for (int id = 0; id < 2; id++)
			CHECK(v[id][0] < 10000 || (v[id][k] >= v[2][k] * 0.99 - 1e-9 &&
			                           v[id][k] <= v[2][k] * 1.01 + 1e-9),
			      "%s of sample %d: %.6f, the list's %.6f", pass_names[k], id, v[id][k],
			      v[2][k]);
	}
	CHECK(gpa.GpaDeleteSession(session) == kGpaStatusOk, "delete multi-pass session");
	rig_end(vk, &comp, fence);
}

/* ---- the perf backend on Vulkan ------------------------------------------
 * lavapipe runs command buffers on a thread of its own (its queue thread,
 * started with the VkDevice), not on the thread that calls GPA.  Two lists,
 * one sample each (a lone sample gets its list's counts exactly): one fill,
 * and PERF_FILLS fills.  The test measures for itself the CPU time the
 * process's other threads spent while each list ran (process CPU time less
 * this thread's): the fills' work, `others`.  The perf backend's default
 * scope is the calling thread: the long sample's TaskClock holds the
 * recording and the waits but not the fills.  With
 * OPENGPA_BACKEND_OPTIONS=pid=<this process> every thread the process has
 * when the pass begins is counted, lavapipe's queue thread among them, so
 * the long sample's TaskClock holds the fills' CPU time too. */
#define PERF_FILLS 64

static double cpu_ms(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void perf_task_clock(struct vk *vk, GpaContextId ctx, bool process)
{
	GpaUInt32 clock = 0;
	GpaSessionId session = NULL;
	CHECK(gpa.GpaCreateSession(ctx, kGpaSessionSampleTypeDiscreteCounter, &session) ==
	      kGpaStatusOk, "create perf session");
	if (gpa.GpaGetCounterIndex(COUNTER_OWNER, "TaskClock", &clock) != kGpaStatusOk) {
		gpa.GpaDeleteSession(session); /* not the perf backend */
		return;
	}
	struct vk_compute comp;
	VkFence fence = rig_begin(vk, &comp);
	/* TaskClock alone: no GPUTime, so under opengpa stat (tests/tools/
	 * test_frames.py) these samples put no slices on its timeline. */
	CHECK(gpa.GpaEnableCounter(session, clock) == kGpaStatusOk, "TaskClock");
	CHECK(gpa.GpaBeginSession(session) == kGpaStatusOk, "begin perf session");
	double others[2];
	for (GpaUInt32 id = 0; id < 2; id++) {
		double p0 = cpu_ms(CLOCK_PROCESS_CPUTIME_ID), t0 = cpu_ms(CLOCK_THREAD_CPUTIME_ID);
		VkCommandBuffer cb = cb_begin(vk, VK_COMMAND_BUFFER_LEVEL_PRIMARY);
		GpaCommandListId cl = NULL;
		CHECK(gpa.GpaBeginCommandList(session, 0, cb, kGpaCommandListPrimary, &cl) ==
		      kGpaStatusOk && gpa.GpaBeginSample(id, cl) == kGpaStatusOk, "perf list %u", id);
		work(vk, cb, id ? PERF_FILLS : 1);
		CHECK(gpa.GpaEndSample(cl) == kGpaStatusOk && gpa.GpaEndCommandList(cl) ==
		      kGpaStatusOk, "end perf list %u", id);
		run_list(vk, cb, fence);
		others[id] = cpu_ms(CLOCK_PROCESS_CPUTIME_ID) - p0 - (cpu_ms(CLOCK_THREAD_CPUTIME_ID) - t0);
	}
	CHECK(gpa.GpaEndSession(session) == kGpaStatusOk, "end perf session");
	double v[2] = { 0 }; /* TaskClock ms */
	for (GpaUInt32 id = 0; id < 2; id++) {
		CHECK(gpa.GpaGetSampleResult(session, id, sizeof(v[id]), &v[id]) == kGpaStatusOk,
		      "perf sample %u", id);
		printf("perf backend, %s: list %u (%d fills): TaskClock %.3f ms; other threads' CPU "
		       "%.3f ms\n", process ? "pid=<this process>" : "calling thread", id,
		       id ? PERF_FILLS : 1, v[id], others[id]);
	}
	double fills = others[1] - others[0], more = v[1] - v[0];
	/* 512 MiB written take well over 2 ms of CPU on any machine. */
	CHECK(fills > 2.0, "lavapipe's threads spent %.3f ms on %d fills", fills, PERF_FILLS);
	if (process)
		CHECK(more > 0.5 * fills, "pid=<this process>: the long sample's TaskClock grows by "
		      "%.3f ms, with the %.3f ms lavapipe's queue thread spent on its fills", more,
		      fills);
	else
		CHECK(more < 0.5 * fills, "calling thread: the long sample's TaskClock grows by %.3f "
		      "ms, not with the %.3f ms of lavapipe's queue thread", more, fills);
	CHECK(gpa.GpaDeleteSession(session) == kGpaStatusOk, "delete perf session");
	rig_end(vk, &comp, fence);
}

int main(void)
{
	const char *dir = getenv("OPENGPA_BUILD_LIB");
	char path[4096];
	snprintf(path, sizeof(path), "%s/libGPUPerfAPIVK.so", dir ? dir : ".");
	char wait[16];
	snprintf(wait, sizeof(wait), "%d", WAIT_MS);
	setenv("OPENGPA_VK_RESULT_WAIT_MS", wait, 1);
	struct vk vk = { 0 };
	int rc = vk_setup(&vk);
	if (rc)
		return rc;
	/* AMD's interface loader with an empty library directory: the bare name. */
	void *lib = dlopen("libGPUPerfAPIVK.so", RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		fprintf(stderr, "FAIL: by its bare name: %s\n", dlerror());
		return 1;
	}
	/* ... and with the library's directory. */
	void *by_path = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	CHECK(by_path == lib, "%s is the library the bare name found (%s)", path,
	      by_path ? "another one" : dlerror());
	if (by_path)
		dlclose(by_path);
	GpaGetFuncTablePtrType get = (GpaGetFuncTablePtrType)dlsym(lib, "GpaGetFuncTable");
	gpa.major_version = MAJOR;
	gpa.minor_version = sizeof(gpa);
	CHECK(get && get(&gpa) == kGpaStatusOk, "GpaGetFuncTable");
	CHECK(gpa.GpaRegisterLoggingCallback(kGpaLoggingError, on_log) == kGpaStatusOk, "log");
	CHECK(gpa.GpaInitialize(kGpaInitializeDefaultBit) == kGpaStatusOk, "init");

	GpaVkContextOpenInfo info = { vk.instance, vk.physical, vk.device };
	GpaContextId ctx = NULL;
	GpaStatus st = gpa.GpaOpenContext(&info, kGpaOpenContextDefaultBit, &ctx);
	CHECK(st == kGpaStatusOk, "GpaOpenContext: %d", st);
	if (st != kGpaStatusOk)
		return 1;
	GpaContextId again = NULL;
	CHECK(gpa.GpaOpenContext(&info, 0, &again) == kGpaStatusErrorContextAlreadyOpen,
	      "a second context on the physical device");
	GpaVkContextOpenInfo no_device = { vk.instance, NULL, vk.device };
	CHECK(gpa.GpaOpenContext(&no_device, 0, &again) == kGpaStatusErrorHardwareNotSupported,
	      "no physical device");

	GpaSessionId session = NULL;
	CHECK(gpa.GpaCreateSession(ctx, kGpaSessionSampleTypeDiscreteCounter, &session) ==
	      kGpaStatusOk, "create session");
	GpaUInt32 gputime = 0;
	CHECK(gpa.GpaGetCounterIndex(COUNTER_OWNER, "GPUTime", &gputime) == kGpaStatusOk,
	      "GPUTime exists");
	check_gputime(COUNTER_OWNER, gputime);
	/* lavapipe's GPU is the CPU: a sample whose thread was preempted (two
	 * cores shared with the rest of the suite) reads long.  The frame runs
	 * ROUNDS times; each sample's shortest time is its own work's. */
	double best[4] = { 0 };
	for (int round = 0; round < ROUNDS; round++) {
		if (round)
			CHECK(gpa.GpaCreateSession(ctx, kGpaSessionSampleTypeDiscreteCounter,
			                           &session) == kGpaStatusOk, "create session");
		CHECK(gpa.GpaEnableCounter(session, gputime) == kGpaStatusOk, "enable GPUTime");
		GpaUInt32 passes = 0;
		CHECK(gpa.GpaGetPassCount(session, &passes) == kGpaStatusOk && passes == 1, "one pass");
		CHECK(gpa.GpaBeginSession(session) == kGpaStatusOk, "begin session");

		/* One sample per piece of work. */
		VkCommandBuffer cbs[4];
		GpaCommandListId cl = NULL, cla = NULL, clb = NULL, sec = NULL, pri = NULL;
		cbs[0] = cb_begin(&vk, VK_COMMAND_BUFFER_LEVEL_PRIMARY);
		CHECK(gpa.GpaBeginCommandList(session, 0, cbs[0], kGpaCommandListPrimary, &cl) ==
		      kGpaStatusOk, "begin list");
		CHECK(gpa.GpaBeginSample(0, cl) == kGpaStatusOk, "sample 0");
		work(&vk, cbs[0], 1);
		CHECK(gpa.GpaEndSample(cl) == kGpaStatusOk, "end 0");
		CHECK(gpa.GpaBeginSample(1, cl) == kGpaStatusOk, "sample 1");
		work(&vk, cbs[0], 16);
		CHECK(gpa.GpaEndSample(cl) == kGpaStatusOk, "end 1");
		CHECK(gpa.GpaEndCommandList(cl) == kGpaStatusOk, "end list");
		CHECK(gpa.GpaEndCommandList(cl) == kGpaStatusErrorCommandListAlreadyEnded, "ended twice");
		VKOK(vkEndCommandBuffer(cbs[0]));

		/* Sample 2 over two command buffers. */
		cbs[1] = cb_begin(&vk, VK_COMMAND_BUFFER_LEVEL_PRIMARY);
		CHECK(gpa.GpaBeginCommandList(session, 0, cbs[1], kGpaCommandListPrimary, &cla) ==
		      kGpaStatusOk, "begin A");
		CHECK(gpa.GpaBeginSample(2, cla) == kGpaStatusOk, "sample 2");
		work(&vk, cbs[1], 8);
		CHECK(gpa.GpaEndCommandList(cla) == kGpaStatusOk, "end A, sample open");
		VKOK(vkEndCommandBuffer(cbs[1]));
		cbs[2] = cb_begin(&vk, VK_COMMAND_BUFFER_LEVEL_PRIMARY);
		CHECK(gpa.GpaBeginCommandList(session, 0, cbs[2], kGpaCommandListPrimary, &clb) ==
		      kGpaStatusOk, "begin B");
		CHECK(gpa.GpaContinueSampleOnCommandList(7, clb) == kGpaStatusErrorSampleNotFound,
		      "continue an unknown sample");
		CHECK(gpa.GpaContinueSampleOnCommandList(2, clb) == kGpaStatusOk, "continue 2");
		work(&vk, cbs[2], 8);
		CHECK(gpa.GpaEndSample(clb) == kGpaStatusOk, "end 2");
		CHECK(gpa.GpaEndCommandList(clb) == kGpaStatusOk, "end B");
		VKOK(vkEndCommandBuffer(cbs[2]));

		/* A secondary's sample, copied into the primary that runs it. */
		VkCommandBuffer scb = cb_begin(&vk, VK_COMMAND_BUFFER_LEVEL_SECONDARY);
		CHECK(gpa.GpaBeginCommandList(session, 0, scb, kGpaCommandListSecondary, &sec) ==
		      kGpaStatusOk, "begin secondary");
		CHECK(gpa.GpaBeginSample(10, sec) == kGpaStatusOk, "sample 10");
		work(&vk, scb, 4);
		CHECK(gpa.GpaEndSample(sec) == kGpaStatusOk, "end 10");
		CHECK(gpa.GpaEndCommandList(sec) == kGpaStatusOk, "end secondary");
		VKOK(vkEndCommandBuffer(scb));
		cbs[3] = cb_begin(&vk, VK_COMMAND_BUFFER_LEVEL_PRIMARY);
		CHECK(gpa.GpaBeginCommandList(session, 0, cbs[3], kGpaCommandListPrimary, &pri) ==
		      kGpaStatusOk, "begin primary");
		vkCmdExecuteCommands(cbs[3], 1, &scb);
		GpaUInt32 copy_id = 3;
		CHECK(gpa.GpaCopySecondarySamples(sec, pri, 1, &copy_id) == kGpaStatusOk, "copy");
		CHECK(gpa.GpaEndCommandList(pri) == kGpaStatusOk, "end primary");
		VKOK(vkEndCommandBuffer(cbs[3]));

		CHECK(gpa.GpaEndSession(session) == kGpaStatusOk, "end session before submitting");
		CHECK(gpa.GpaIsSessionComplete(session) == kGpaStatusResultNotReady,
		      "not complete before the GPU ran it");
		double t0 = now_ns();
		submit(&vk, cbs, 4);
		double submission = now_ns() - t0;
		CHECK(gpa.GpaIsSessionComplete(session) == kGpaStatusOk, "complete after");
		CHECK(gpa.GpaIsPassComplete(session, 0) == kGpaStatusOk, "pass complete");
		double t[4];
		for (GpaUInt32 id = 0; id < 4; id++) {
			t[id] = sample_value(session, id, &st);
			CHECK(st == kGpaStatusOk && t[id] > 0.0, "sample %u: status %d, GPUTime %g", id, st,
			      t[id]);
			printf("sample %u: GPUTime %g\n", id, t[id]);
			if (round == 0 || t[id] < best[id])
				best[id] = t[id];
		}
		if (round == 0) {
			struct other_thread o = { session, 1, kGpaStatusErrorFailed,
			                          kGpaStatusErrorFailed, -1.0 };
			pthread_t th;
			CHECK(pthread_create(&th, NULL, read_elsewhere, &o) == 0, "thread");
			pthread_join(th, NULL);
			CHECK(o.complete == kGpaStatusOk && o.st == kGpaStatusOk && o.value == t[1],
			      "another thread reads sample 1: complete %d, status %d, %g (not %g)",
			      o.complete, o.st, o.value, t[1]);
		}
		/* Nanoseconds: the four samples ran in the submission, and an 8 MiB fill
		 * takes more than a microsecond (a value in milliseconds would not). */
		CHECK(t[0] + t[1] + t[2] + t[3] <= submission, "GPUTime %g+%g+%g+%g ns fits the %g ns "
		      "submission", t[0], t[1], t[2], t[3], submission);
		CHECK(t[0] > 1000, "one 8 MiB fill takes %g ns", t[0]);
		sample_value(session, 10, &st);
		CHECK(st == kGpaStatusErrorSampleInSecondaryCommandList, "sample 10's original: %d", st);
		CHECK(gpa.GpaDeleteSession(session) == kGpaStatusOk, "delete");
		vkResetCommandPool(vk.device, vk.pool, 0);
	}
	CHECK(best[1] > 2 * best[0], "16 fills (%g) take longer than 1 (%g), shortest of %d",
	      best[1], best[0], ROUNDS);
	CHECK(best[2] > best[0], "the continued sample sums its two halves (%g vs %g), shortest "
	      "of %d", best[2], best[0], ROUNDS);

	/* A sample left open, and a list never submitted. */
	CHECK(gpa.GpaCreateSession(ctx, kGpaSessionSampleTypeDiscreteCounter, &session) ==
	      kGpaStatusOk, "create session 2");
	CHECK(gpa.GpaEnableCounter(session, gputime) == kGpaStatusOk, "enable");
	CHECK(gpa.GpaBeginSession(session) == kGpaStatusOk, "begin 2");
	VkCommandBuffer lone = cb_begin(&vk, VK_COMMAND_BUFFER_LEVEL_PRIMARY);
	GpaCommandListId cl = NULL;
	CHECK(gpa.GpaBeginCommandList(session, 0, lone, kGpaCommandListPrimary, &cl) ==
	      kGpaStatusOk, "begin list 2");
	CHECK(gpa.GpaBeginSample(0, cl) == kGpaStatusOk, "sample");
	CHECK(gpa.GpaBeginSample(1, cl) == kGpaStatusErrorFailed, "nested");
	CHECK(gpa.GpaEndSample(cl) == kGpaStatusOk, "end");
	CHECK(gpa.GpaBeginSample(0, cl) == kGpaStatusErrorFailed, "an ID used in the pass");
	CHECK(gpa.GpaBeginSample(1, cl) == kGpaStatusOk, "sample left open");
	CHECK(gpa.GpaEndCommandList(cl) == kGpaStatusOk, "end list");
	VKOK(vkEndCommandBuffer(lone));
	CHECK(gpa.GpaIsPassComplete(session, 0) == kGpaStatusErrorSampleNotEnded, "open sample");
	CHECK(gpa.GpaEndSession(session) == kGpaStatusOk, "one pass: ends anyway, as GPA");
	CHECK(gpa.GpaIsSessionComplete(session) == kGpaStatusResultNotReady, "never submitted");
	sample_value(session, 0, &st);
	CHECK(st == kGpaStatusErrorTimeout, "never submitted: Timeout, not %d", st);
	CHECK(gpa.GpaDeleteSession(session) == kGpaStatusOk, "delete 2");
	vkResetCommandPool(vk.device, vk.pool, 0);
	never_submitted(&vk, ctx, gputime);

	/* Device counters per sample, on the virtual Mali: synchronised, then
	 * unsynchronised (the client waits for each list, so the same counts). */
	uint64_t (*frames)(void) = (uint64_t (*)(void))dlsym(RTLD_DEFAULT, "vmali_api_frames");
	if (frames) {
		for (int sync = 0; sync < 2; sync++) {
			if (sync)
				setenv("OPENGPA_SYNC", "off", 1);
			device_counts(&vk, ctx, frames);
			try_timed("shares, GPUTime enabled", device_shares(&vk, ctx, frames, true));
			try_timed("shares, no GPUTime", device_shares(&vk, ctx, frames, false));
		}
		unsetenv("OPENGPA_SYNC");
	}

	for (int sync = 0; sync < 2; sync++) {
		if (sync)
			setenv("OPENGPA_SYNC", "off", 1);
		try_timed("several passes", device_passes(&vk, ctx));
	}
	unsetenv("OPENGPA_SYNC");
	perf_task_clock(&vk, ctx, false);
	CHECK(gpa.GpaCloseContext(ctx) == kGpaStatusOk, "close");
	if (!frames && getenv("OPENGPA_BACKEND") && !strcmp(getenv("OPENGPA_BACKEND"), "perf")) {
		/* The same on a context counting the whole process. */
		char pid[32];
		snprintf(pid, sizeof(pid), "pid=%ld", (long)getpid());
		setenv("OPENGPA_BACKEND_OPTIONS", pid, 1);
		if (gpa.GpaOpenContext(&info, kGpaOpenContextDefaultBit, &ctx) == kGpaStatusOk) {
			perf_task_clock(&vk, ctx, true);
			CHECK(gpa.GpaCloseContext(ctx) == kGpaStatusOk, "close");
		} else {
			/* The message above says why (perf_event_paranoid, a seccomp filter). */
			printf("SKIP the perf backend with %s: the kernel refused it\n", pid);
		}
		unsetenv("OPENGPA_BACKEND_OPTIONS");
	}
	CHECK(gpa.GpaDestroy() == kGpaStatusOk, "destroy");
	dlclose(lib);
	vk_teardown(&vk);
	CHECK(validation_messages == 0, "%u validation messages", validation_messages);
	if (failures)
		fprintf(stderr, "%d failures\n", failures);
	return failures ? 1 : 0;
}
