/* SPDX-License-Identifier: MIT */
/*
 * bench_vk.c — what GPUTime on Vulkan costs: a frame of D draw calls with
 * one GPA 3.x sample per draw, against the same frame timed by hand with
 * bare timestamp queries (results and the command in docs/performance.md).
 *
 * The frame (examples/common/vk_scene.h, on Mesa's lavapipe): one primary
 * command buffer, a render pass, D vkCmdDraw of 3 vertices (a vertex shader
 * only, rasterizer discard), submitted and waited for; then every draw's
 * time is read.  Three ways, alternating round by round:
 *
 *   none     the frame alone, nothing timed;
 *   bare     the floor: what any timing of each draw must do at least.  One
 *            query pool of the same size as opengpa's (OPENGPA_VK_QUERIES,
 *            4096) made once, reset whole at the start of the command buffer
 *            (outside the render pass) as opengpa's is, two
 *            BOTTOM_OF_PIPE timestamps around each draw (opengpa's stage),
 *            and after vkQueueWaitIdle all 2×D results in one
 *            vkGetQueryPoolResults call (64-bit, no availability, nothing to
 *            wait for: the fastest honest read), each draw's time
 *            (end − begin) × timestampPeriod;
 *   opengpa  GPA 3.x through libGPUPerfAPIVK.so as AMD's samples use it: a
 *            session per frame with GPUTime enabled, GpaBeginCommandList on
 *            the command buffer, GpaBeginSample/GpaEndSample around each
 *            draw, GpaEndCommandList, GpaEndSession, submit and wait, then
 *            GpaGetSampleResult of each of the D samples, GpaDeleteSession;
 *   device   (with --device-counter NAME, e.g. under the virtual Mali) the
 *            same with that device counter enabled beside GPUTime: the
 *            synchronised device counts of docs/api.md, a vkDeviceWaitIdle
 *            and a backend snapshot at GpaBeginCommandList and at the
 *            results' checkpoint, the frame's counts shared by its D samples;
 *   device-off  the same, unsynchronised (OPENGPA_SYNC=off): the snapshots
 *            without the drain.
 *
 * Blocks of F frames of each take turns, in an order that rotates round by
 * round, the first frame of each block not counted; each reports its median
 * frame: ms of wall-clock time, ms of the
 * process's CPU time (lavapipe's threads, which run the GPU's work,
 * included), and ms of the recording thread's own CPU time; and
 * opengpa's ratios to bare.  Then one sample read: GpaGetSampleResult of
 * one sample of an ended session against reading that sample's two
 * queries by hand (vkGetQueryPoolResults of 2 queries and the
 * subtraction), ns per read, median of rounds.
 *
 *   bench-apictx-vk [--library PATH] [--draws D] [--frames F] [--rounds R]
 *                   [--device-counter NAME]
 */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gpu_performance_api/gpu_perf_api.h>
#include <gpu_performance_api/gpu_perf_api_vk.h>

#include "vk_scene.h"

#define POOL_QUERIES 4096u /* opengpa's default OPENGPA_VK_QUERIES */

static double now_ms(clockid_t id)
{
	struct timespec t;
	clock_gettime(id, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void die(const char *what)
{
	fprintf(stderr, "bench-apictx-vk: %s\n", what);
	exit(1);
}

struct bench {
	struct vk_scene s;
	GpaFunctionTable gpa;
	GpaContextId ctx;
	VkQueryPool pool;
	float period;
	unsigned draws;
	double *times; /* draws values of the last frame, ns */
	GpaUInt32 device; /* --device-counter's index, or UINT32_MAX */
	volatile double sink;
};

static void frame_none(struct bench *b)
{
	VkCommandBuffer cb = vk_scene_begin(&b->s);
	if (!cb)
		die("no command buffer");
	vk_scene_pass_begin(&b->s, cb);
	for (unsigned d = 0; d < b->draws; d++)
		vkCmdDraw(cb, 3, 1, 0, 0);
	vk_scene_pass_end(cb);
	vk_scene_end(&b->s, cb);
	if (!vk_scene_submit(&b->s, &cb, 1))
		die("submit failed");
	vk_scene_free(&b->s, &cb, 1);
}

static void frame_bare(struct bench *b)
{
	VkCommandBuffer cb = vk_scene_begin(&b->s);
	if (!cb)
		die("no command buffer");
	vkCmdResetQueryPool(cb, b->pool, 0, POOL_QUERIES);
	vk_scene_pass_begin(&b->s, cb);
	for (unsigned d = 0; d < b->draws; d++) {
		vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, b->pool, 2 * d);
		vkCmdDraw(cb, 3, 1, 0, 0);
		vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, b->pool, 2 * d + 1);
	}
	vk_scene_pass_end(cb);
	vk_scene_end(&b->s, cb);
	if (!vk_scene_submit(&b->s, &cb, 1))
		die("submit failed");
	static uint64_t ts[POOL_QUERIES];
	if (vkGetQueryPoolResults(b->s.device, b->pool, 0, 2 * b->draws, sizeof(ts), ts,
	                          sizeof(uint64_t), VK_QUERY_RESULT_64_BIT) != VK_SUCCESS)
		die("vkGetQueryPoolResults failed");
	for (unsigned d = 0; d < b->draws; d++)
		b->times[d] = (double)(ts[2 * d + 1] - ts[2 * d]) * b->period;
	vk_scene_free(&b->s, &cb, 1);
}

/* Records and submits one opengpa frame; the session is left ended for the
 * caller to read and delete. */
static GpaSessionId record_opengpa(struct bench *b, VkCommandBuffer *cb, bool device)
{
	GpaFunctionTable *g = &b->gpa;
	GpaSessionId s = NULL;
	GpaCommandListId list = NULL;
	if (g->GpaCreateSession(b->ctx, kGpaSessionSampleTypeDiscreteCounter, &s) != kGpaStatusOk ||
	    g->GpaEnableCounter(s, 0) != kGpaStatusOk ||
	    (device && g->GpaEnableCounter(s, b->device) != kGpaStatusOk) ||
	    g->GpaBeginSession(s) != kGpaStatusOk)
		die("session");
	if (!(*cb = vk_scene_begin(&b->s)))
		die("no command buffer");
	if (g->GpaBeginCommandList(s, 0, *cb, kGpaCommandListPrimary, &list) != kGpaStatusOk)
		die("GpaBeginCommandList");
	vk_scene_pass_begin(&b->s, *cb);
	for (unsigned d = 0; d < b->draws; d++) {
		if (g->GpaBeginSample(d, list) != kGpaStatusOk)
			die("GpaBeginSample");
		vkCmdDraw(*cb, 3, 1, 0, 0);
		if (g->GpaEndSample(list) != kGpaStatusOk)
			die("GpaEndSample");
	}
	vk_scene_pass_end(*cb);
	if (g->GpaEndCommandList(list) != kGpaStatusOk)
		die("GpaEndCommandList");
	vk_scene_end(&b->s, *cb);
	if (g->GpaEndSession(s) != kGpaStatusOk)
		die("GpaEndSession");
	if (!vk_scene_submit(&b->s, cb, 1))
		die("submit failed");
	return s;
}

static void frame_opengpa(struct bench *b)
{
	VkCommandBuffer cb;
	GpaSessionId s = record_opengpa(b, &cb, false);
	for (unsigned d = 0; d < b->draws; d++)
		if (b->gpa.GpaGetSampleResult(s, d, sizeof(double), &b->times[d]) != kGpaStatusOk)
			die("GpaGetSampleResult");
	b->gpa.GpaDeleteSession(s);
	vk_scene_free(&b->s, &cb, 1);
}

static void frame_device(struct bench *b)
{
	unsetenv("OPENGPA_SYNC");
	VkCommandBuffer cb;
	GpaSessionId s = record_opengpa(b, &cb, true);
	for (unsigned d = 0; d < b->draws; d++) {
		double v[2];
		if (b->gpa.GpaGetSampleResult(s, d, sizeof(v), v) != kGpaStatusOk)
			die("GpaGetSampleResult (device)");
		b->times[d] = v[0];
	}
	b->gpa.GpaDeleteSession(s);
	vk_scene_free(&b->s, &cb, 1);
}

static void frame_device_off(struct bench *b)
{
	setenv("OPENGPA_SYNC", "off", 1); /* read at GpaBeginSession */
	VkCommandBuffer cb;
	GpaSessionId s = record_opengpa(b, &cb, true);
	unsetenv("OPENGPA_SYNC");
	for (unsigned d = 0; d < b->draws; d++) {
		double v[2];
		if (b->gpa.GpaGetSampleResult(s, d, sizeof(v), v) != kGpaStatusOk)
			die("GpaGetSampleResult (device-off)");
		b->times[d] = v[0];
	}
	b->gpa.GpaDeleteSession(s);
	vk_scene_free(&b->s, &cb, 1);
}

struct mode {
	const char *name;
	void (*frame)(struct bench *);
};
static const struct mode modes[] = {
	{ "none", frame_none }, { "bare", frame_bare }, { "opengpa", frame_opengpa },
	{ "device", frame_device }, { "device-off", frame_device_off },
};

/* One sample's result, each way: the first read of each sample of a
 * finished frame (D reads, a new frame each round), and reads again of
 * samples already read (N reads); ns per read, median of rounds. */
static void one_read(struct bench *b, int rounds)
{
	enum { N = 20000 };
	double first_gpa[64], first_hand[64], again_gpa[64], again_hand[64];
	rounds = rounds > 64 ? 64 : rounds;
	for (int r = 0; r < rounds; r++) {
		VkCommandBuffer cb;
		GpaSessionId s = record_opengpa(b, &cb, false);
		frame_bare(b); /* the bare pool holds a finished frame too */
		double v = 0;
		for (int again = 0; again < 2; again++) {
			unsigned n = again ? N : b->draws;
			double t0 = now_ms(CLOCK_MONOTONIC);
			for (unsigned i = 0; i < n; i++) {
				if (b->gpa.GpaGetSampleResult(s, i % b->draws, sizeof(v), &v) !=
				    kGpaStatusOk)
					die("GpaGetSampleResult");
				b->sink += v;
			}
			double t1 = now_ms(CLOCK_MONOTONIC);
			for (unsigned i = 0; i < n; i++) {
				uint64_t ts[2];
				uint32_t q = 2 * (i % b->draws);
				if (vkGetQueryPoolResults(b->s.device, b->pool, q, 2, sizeof(ts), ts,
				                          sizeof(uint64_t),
				                          VK_QUERY_RESULT_64_BIT) != VK_SUCCESS)
					die("vkGetQueryPoolResults");
				b->sink += (double)(ts[1] - ts[0]) * b->period;
			}
			double t2 = now_ms(CLOCK_MONOTONIC);
			(again ? again_gpa : first_gpa)[r] = (t1 - t0) * 1e6 / n;
			(again ? again_hand : first_hand)[r] = (t2 - t1) * 1e6 / n;
		}
		b->gpa.GpaDeleteSession(s);
		vk_scene_free(&b->s, &cb, 1);
	}
	double fg = median(first_gpa, rounds), fh = median(first_hand, rounds);
	double ag = median(again_gpa, rounds), ah = median(again_hand, rounds);
	printf("\none sample's result, ns per read (median of %d rounds)\n", rounds);
	printf("%-28s %12s %12s\n", "", "first read", "read again");
	printf("%-28s %12.1f %12.1f\n", "GpaGetSampleResult", fg, ag);
	printf("%-28s %12.1f %12.1f\n", "its two queries by hand", fh, ah);
	printf("%-28s %11.2fx %11.2fx\n", "ratio", fg / fh, ag / ah);
}

int main(int argc, char **argv)
{
	const char *library = OG_BUILD_LIB "/libGPUPerfAPIVK.so";
	const char *device = NULL;
	unsigned draws = 1000;
	int frames = 20, rounds = 7;
	for (int i = 1; i + 1 < argc; i += 2) {
		if (strcmp(argv[i], "--library") == 0)
			library = argv[i + 1];
		else if (strcmp(argv[i], "--draws") == 0 && atoi(argv[i + 1]) > 0)
			draws = (unsigned)atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--frames") == 0 && atoi(argv[i + 1]) > 1)
			frames = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--rounds") == 0 && atoi(argv[i + 1]) > 0)
			rounds = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--device-counter") == 0)
			device = argv[i + 1];
		else
			die("usage: bench-apictx-vk [--library PATH] [--draws D] [--frames F] "
			    "[--rounds R] [--device-counter NAME]");
	}
	if (rounds > 64)
		rounds = 64;
	if (2 * draws > POOL_QUERIES)
		die("at most 2048 draws (one pool of 4096 queries, as opengpa's default)");
	static struct bench b;
	b.draws = draws;
	if (!vk_scene_open(&b.s, false, 4096)) {
		fprintf(stderr, "bench-apictx-vk: %s\n", b.s.error);
		return b.s.skip ? 77 : 1;
	}
	VkPhysicalDeviceProperties props;
	vkGetPhysicalDeviceProperties(b.s.physical, &props);
	b.period = props.limits.timestampPeriod;
	VkQueryPoolCreateInfo qi = { .sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
	                             .queryType = VK_QUERY_TYPE_TIMESTAMP,
	                             .queryCount = POOL_QUERIES };
	if (vkCreateQueryPool(b.s.device, &qi, NULL, &b.pool) != VK_SUCCESS)
		die("vkCreateQueryPool failed");
	b.times = calloc(draws, sizeof(*b.times));
	void *lib = dlopen(library, RTLD_NOW | RTLD_LOCAL);
	GpaGetFuncTablePtrType get =
		lib ? (GpaGetFuncTablePtrType)dlsym(lib, "GpaGetFuncTable") : NULL;
	b.gpa.major_version = GPA_FUNCTION_TABLE_MAJOR_VERSION_NUMBER;
	b.gpa.minor_version = GPA_FUNCTION_TABLE_MINOR_VERSION_NUMBER;
	if (!b.times || !get || get(&b.gpa) != kGpaStatusOk)
		die("cannot load the library's GPA 3.x table (--library)");
	GpaVkContextOpenInfo info = { b.s.instance, b.s.physical, b.s.device };
	GpaUInt32 index = 99;
	if (b.gpa.GpaInitialize(kGpaInitializeDefaultBit) != kGpaStatusOk ||
	    b.gpa.GpaOpenContext(&info, kGpaOpenContextDefaultBit, &b.ctx) != kGpaStatusOk ||
	    b.gpa.GpaGetCounterIndex(b.ctx, "GPUTime", &index) != kGpaStatusOk || index != 0)
		die("no GPA context with GPUTime at index 0 on the Vulkan device");
	b.device = UINT32_MAX;
	if (device && b.gpa.GpaGetCounterIndex(b.ctx, device, &b.device) != kGpaStatusOk)
		die("--device-counter: no such counter on this context");
	int nmodes = device ? 5 : 3;

	/* Rounds of F frames of each mode in turn, the order rotating round by
	 * round so that no mode always follows the same one; each block's first
	 * frame is not counted (lavapipe's first frame after a change of work
	 * runs several times slower), the others are, each alone. */
	int nframes = (frames - 1) * rounds;
	double *wall[5], *cpu[5], *thread[5];
	for (int m = 0; m < nmodes; m++) {
		wall[m] = calloc((size_t)nframes, sizeof(double));
		cpu[m] = calloc((size_t)nframes, sizeof(double));
		thread[m] = calloc((size_t)nframes, sizeof(double));
		if (!wall[m] || !cpu[m] || !thread[m])
			die("out of memory");
	}
	for (int r = 0; r < rounds; r++)
		for (int k = 0; k < nmodes; k++) {
			int m = (r + k) % nmodes;
			modes[m].frame(&b);
			for (int f = 0; f < frames - 1; f++) {
				double w0 = now_ms(CLOCK_MONOTONIC),
				       c0 = now_ms(CLOCK_PROCESS_CPUTIME_ID),
				       t0 = now_ms(CLOCK_THREAD_CPUTIME_ID);
				modes[m].frame(&b);
				int i = r * (frames - 1) + f;
				wall[m][i] = now_ms(CLOCK_MONOTONIC) - w0;
				cpu[m][i] = now_ms(CLOCK_PROCESS_CPUTIME_ID) - c0;
				thread[m][i] = now_ms(CLOCK_THREAD_CPUTIME_ID) - t0;
			}
		}
	printf("%s: a frame of %u draws, one sample per draw; median of %d frames each\n",
	       b.s.device_name, draws, nframes);
	printf("%-10s %10s %10s %10s\n", "", "wall ms", "cpu ms", "thread ms");
	double mw[5], mc[5], mt[5];
	for (int m = 0; m < nmodes; m++) {
		mw[m] = median(wall[m], nframes);
		mc[m] = median(cpu[m], nframes);
		mt[m] = median(thread[m], nframes);
		printf("%-10s %10.3f %10.3f %10.3f\n", modes[m].name, mw[m], mc[m], mt[m]);
	}
	printf("opengpa / bare: wall %.3fx, cpu %.3fx, thread %.3fx\n", mw[2] / mw[1], mc[2] / mc[1],
	       mt[2] / mt[1]);
	if (device)
		printf("device / opengpa: wall %.3fx, cpu %.3fx, thread %.3fx (%s, synchronised)\n",
		       mw[3] / mw[2], mc[3] / mc[2], mt[3] / mt[2], device);
	if (device)
		printf("device-off / opengpa: wall %.3fx, cpu %.3fx, thread %.3fx (unsynchronised)\n",
		       mw[4] / mw[2], mc[4] / mc[2], mt[4] / mt[2]);
	one_read(&b, rounds);
	for (int m = 0; m < nmodes; m++) {
		free(wall[m]);
		free(cpu[m]);
		free(thread[m]);
	}

	b.gpa.GpaCloseContext(b.ctx);
	b.gpa.GpaDestroy();
	dlclose(lib);
	vkDestroyQueryPool(b.s.device, b.pool, NULL);
	free(b.times);
	vk_scene_close(&b.s);
	return 0;
}
