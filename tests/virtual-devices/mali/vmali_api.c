/* SPDX-License-Identifier: MIT */
/*
 * vmali_api.c — the virtual Mali's workload clock driven by the process's
 * own GL and OpenCL calls (part of libopengpa-vmali.so).
 *
 * With VMALI_API_FRAMES=1 the device runs no frame at a dump; instead each
 * draw call (glDrawArrays, glDrawElements and their instanced forms,
 * glDispatchCompute) and each OpenCL kernel (clEnqueueNDRangeKernel) is one
 * frame of the workload script, and it runs when a GPU would run it:
 *
 *   recorded   a draw or kernel is recorded, nothing runs;
 *   submitted  glFlush, eglSwapBuffers or clFlush submit what was recorded,
 *              and the previous submission completes then (the GPU works
 *              one submission behind the CPU, as GPUs run a frame behind);
 *   completed  glFinish, clFinish, clWaitForEvents and glReadPixels wait
 *              for everything.
 *
 * Vulkan the same way (vkCmdDraw*, vkCmdDispatch* are frames): a command
 * buffer holds the draws recorded into it since vkBeginCommandBuffer (a
 * secondary's are added to the primary at vkCmdExecuteCommands);
 * vkQueueSubmit submits its command buffers' draws, and the previous
 * submission completes then; vkQueueWaitIdle, vkDeviceWaitIdle and a
 * successful vkWaitForFences complete everything.  The commands are
 * interposed by name and through vkGetDeviceProcAddr/vkGetInstanceProcAddr
 * (which return these for their names); vkQueueSubmit2 and
 * vkQueueSubmit2KHR submit as vkQueueSubmit does.
 * vmali_api_frames() tells a test how many frames the device has run.
 *
 * So a program that samples each frame without synchronising reads the
 * previous frame's counts, and one that drains the queue at the sample's
 * boundaries reads its own: the test of opengpa's synchronised samples.
 * Without VMALI_API_FRAMES the calls pass straight through.
 *
 * The calls are interposed by name (the program links libGLESv2, libOpenGL
 * or libOpenCL) and through eglGetProcAddress, which returns these
 * functions for the names interposed here, as tracing tools do.  The next
 * definition is the library's (RTLD_NEXT) or, for extension functions, the
 * real eglGetProcAddress's.
 *
 * Faults for what llvmpipe never does, counted in draw calls:
 *   VMALI_GL_DISJOINT_AT=N  GL_GPU_DISJOINT_EXT reads 1 once after the Nth draw
 *   VMALI_GL_RESET_AT=N     glGetGraphicsResetStatus* say the context was
 *                           reset (GL_UNKNOWN_CONTEXT_RESET) from the Nth draw on
 * and a driver llvmpipe is not:
 *   VMALI_GL_NO_TIMESTAMP=1 GL_TIMESTAMP has 0 bits (GL_QUERY_COUNTER_BITS), as
 *                           on GLES drivers whose timer only does GL_TIME_ELAPSED
 *   VMALI_GL_BAD_TIMER=1    timer query results come out a million times too
 *                           large (GL_QUERY_RESULT of glGetQueryObjectui64v*)
 *
 * No GL, OpenCL or Vulkan header: the virtual devices build where neither is
 * installed.
 *
 * Past 600 lines: three APIs' interposed entry points over one workload
 * clock and its lock; each is a few lines, and splitting them by API would
 * share that state across files.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vmali.h"
#include "vmali_preload.h"

#define EXPORT __attribute__((visibility("default")))

/* The GL and OpenCL entry points defined here are declared by headers this
 * file does not include. */
#pragma GCC diagnostic ignored "-Wmissing-prototypes"

typedef unsigned int GLenum;
typedef unsigned int GLuint;
typedef int GLint;
typedef int GLsizei;
typedef uint64_t GLuint64;
typedef int32_t cl_int;
typedef uint32_t cl_uint;
typedef void (*proc)(void);

#define GL_GPU_DISJOINT_EXT 0x8FBB
#define GL_QUERY_COUNTER_BITS 0x8864
#define GL_TIMESTAMP 0x8E28
#define GL_QUERY_RESULT 0x8866
#define GL_UNKNOWN_CONTEXT_RESET 0x8255
/* What the OpenCL calls answer when the process has no OpenCL. */
#define CL_INVALID_COMMAND_QUEUE (-36)
#define CL_INVALID_EVENT (-58)
#define CL_INVALID_OPERATION (-59)

static struct {
	pthread_once_t once;
	pthread_mutex_t lock;
	bool on;
	unsigned recorded, submitted;
	uint64_t draws;
	uint64_t disjoint_at, reset_at;
	bool no_timestamp, bad_timer;
	bool disjoint_told;
	proc (*egl_get_proc)(const char *);
	/* Vulkan: the draws recorded in each command buffer. */
	struct vk_cb {
		void *cb;
		unsigned draws;
	} *cbs;
	size_t ncbs, cap_cbs;
} q = { .once = PTHREAD_ONCE_INIT, .lock = PTHREAD_MUTEX_INITIALIZER };

static uint64_t env_count(const char *name)
{
	const char *v = getenv(name);
	return v && *v ? strtoull(v, NULL, 0) : 0;
}

static void setup(void)
{
	q.on = env_count("VMALI_API_FRAMES") != 0;
	q.disjoint_at = env_count("VMALI_GL_DISJOINT_AT");
	q.reset_at = env_count("VMALI_GL_RESET_AT");
	q.no_timestamp = env_count("VMALI_GL_NO_TIMESTAMP") != 0;
	q.bad_timer = env_count("VMALI_GL_BAD_TIMER") != 0;
	*(void **)&q.egl_get_proc = dlsym(RTLD_NEXT, "eglGetProcAddress");
}

/* The real definition of `name`; NULL if the process has none. */
static void *next(const char *name)
{
	pthread_once(&q.once, setup);
	void *p = dlsym(RTLD_NEXT, name);
	if (!p && q.egl_get_proc)
		p = (void *)q.egl_get_proc(name);
	return p;
}

/* `fn`: the next definition, looked up once (threads may race to it:
 * they find the same). */
#define NEXT(type, name) \
	static __typeof__(type) next_fn; \
	__typeof__(type) fn = __atomic_load_n(&next_fn, __ATOMIC_ACQUIRE); \
	if (!fn) { \
		*(void **)&fn = next(name); \
		__atomic_store_n(&next_fn, fn, __ATOMIC_RELEASE); \
	}

static void run(unsigned frames)
{
	struct vmali *vm = frames ? vmali_preload_device() : NULL;
	if (vm)
		vmali_run_frames(vm, frames);
}

static void record(unsigned n)
{
	pthread_once(&q.once, setup);
	pthread_mutex_lock(&q.lock);
	q.draws += n;
	if (q.on)
		q.recorded += n;
	pthread_mutex_unlock(&q.lock);
}

static void submit(void)
{
	pthread_once(&q.once, setup);
	pthread_mutex_lock(&q.lock);
	run(q.submitted);
	q.submitted = q.recorded;
	q.recorded = 0;
	pthread_mutex_unlock(&q.lock);
}

static void complete(void)
{
	pthread_once(&q.once, setup);
	pthread_mutex_lock(&q.lock);
	run(q.submitted + q.recorded);
	q.submitted = q.recorded = 0;
	pthread_mutex_unlock(&q.lock);
}

/* ---- GL ------------------------------------------------------------------ */

EXPORT void glDrawArrays(GLenum mode, GLint first, GLsizei count)
{
	NEXT(void (*)(GLenum, GLint, GLsizei), "glDrawArrays");
	if (fn)
		fn(mode, first, count);
	record(1);
}

EXPORT void glDrawElements(GLenum mode, GLsizei count, GLenum type, const void *indices)
{
	NEXT(void (*)(GLenum, GLsizei, GLenum, const void *), "glDrawElements");
	if (fn)
		fn(mode, count, type, indices);
	record(1);
}

EXPORT void glDrawArraysInstanced(GLenum mode, GLint first, GLsizei count, GLsizei n)
{
	NEXT(void (*)(GLenum, GLint, GLsizei, GLsizei), "glDrawArraysInstanced");
	if (fn)
		fn(mode, first, count, n);
	record(1);
}

EXPORT void glDrawElementsInstanced(GLenum mode, GLsizei count, GLenum type, const void *indices,
                                    GLsizei n)
{
	NEXT(void (*)(GLenum, GLsizei, GLenum, const void *, GLsizei), "glDrawElementsInstanced");
	if (fn)
		fn(mode, count, type, indices, n);
	record(1);
}

EXPORT void glDispatchCompute(GLuint x, GLuint y, GLuint z)
{
	NEXT(void (*)(GLuint, GLuint, GLuint), "glDispatchCompute");
	if (fn)
		fn(x, y, z);
	record(1);
}

EXPORT void glFlush(void)
{
	NEXT(void (*)(void), "glFlush");
	if (fn)
		fn();
	submit();
}

EXPORT void glFinish(void)
{
	NEXT(void (*)(void), "glFinish");
	if (fn)
		fn();
	complete();
}

EXPORT void glReadPixels(GLint x, GLint y, GLsizei w, GLsizei h, GLenum format, GLenum type,
                         void *pixels)
{
	NEXT(void (*)(GLint, GLint, GLsizei, GLsizei, GLenum, GLenum, void *), "glReadPixels");
	if (fn)
		fn(x, y, w, h, format, type, pixels);
	complete();
}

EXPORT unsigned eglSwapBuffers(void *dpy, void *surface)
{
	NEXT(unsigned (*)(void *, void *), "eglSwapBuffers");
	unsigned ok = fn ? fn(dpy, surface) : 0;
	submit();
	return ok;
}

EXPORT void glGetIntegerv(GLenum pname, GLint *data)
{
	NEXT(void (*)(GLenum, GLint *), "glGetIntegerv");
	if (fn)
		fn(pname, data);
	if (pname != GL_GPU_DISJOINT_EXT)
		return;
	pthread_mutex_lock(&q.lock);
	if (q.disjoint_at && q.draws >= q.disjoint_at && !q.disjoint_told) {
		q.disjoint_told = true;
		*data = 1;
	}
	pthread_mutex_unlock(&q.lock);
}

#define QUERYIV(name) \
	EXPORT void name(GLenum target, GLenum pname, GLint *params) \
	{ \
		NEXT(void (*)(GLenum, GLenum, GLint *), #name); \
		if (fn) \
			fn(target, pname, params); \
		if (q.no_timestamp && target == GL_TIMESTAMP && pname == GL_QUERY_COUNTER_BITS) \
			*params = 0; \
	}
QUERYIV(glGetQueryiv)
QUERYIV(glGetQueryivEXT)

#define QUERY_RESULT(name) \
	EXPORT void name(GLuint id, GLenum pname, GLuint64 *params) \
	{ \
		NEXT(void (*)(GLuint, GLenum, GLuint64 *), #name); \
		if (fn) \
			fn(id, pname, params); \
		if (q.bad_timer && pname == GL_QUERY_RESULT) \
			*params *= 1000000u; \
	}
QUERY_RESULT(glGetQueryObjectui64v)
QUERY_RESULT(glGetQueryObjectui64vEXT)

static GLenum reset_status(GLenum real)
{
	pthread_mutex_lock(&q.lock);
	bool reset = q.reset_at && q.draws >= q.reset_at;
	pthread_mutex_unlock(&q.lock);
	return reset ? GL_UNKNOWN_CONTEXT_RESET : real;
}

#define RESET_STATUS(name) \
	EXPORT GLenum name(void) \
	{ \
		NEXT(GLenum (*)(void), #name); \
		return reset_status(fn ? fn() : 0); \
	}
RESET_STATUS(glGetGraphicsResetStatus)
RESET_STATUS(glGetGraphicsResetStatusKHR)
RESET_STATUS(glGetGraphicsResetStatusEXT)
RESET_STATUS(glGetGraphicsResetStatusARB)

/* eglGetProcAddress answers with the functions above for their names. */
EXPORT proc eglGetProcAddress(const char *name)
{
	static const struct {
		const char *name;
		proc fn;
	} ours[] = {
#define OURS(f) { #f, (proc)f }
		OURS(glDrawArrays), OURS(glDrawElements), OURS(glDrawArraysInstanced),
		OURS(glDrawElementsInstanced), OURS(glDispatchCompute), OURS(glFlush),
		OURS(glFinish), OURS(glReadPixels), OURS(eglSwapBuffers),
		OURS(glGetIntegerv), OURS(glGetQueryiv), OURS(glGetQueryivEXT),
		OURS(glGetQueryObjectui64v), OURS(glGetQueryObjectui64vEXT),
		OURS(glGetGraphicsResetStatus), OURS(glGetGraphicsResetStatusKHR),
		OURS(glGetGraphicsResetStatusEXT), OURS(glGetGraphicsResetStatusARB),
#undef OURS
	};
	pthread_once(&q.once, setup);
	proc real = q.egl_get_proc ? q.egl_get_proc(name) : NULL;
	for (size_t i = 0; name && real && i < sizeof(ours) / sizeof(ours[0]); i++)
		if (strcmp(name, ours[i].name) == 0)
			return ours[i].fn;
	return real;
}

/* ---- OpenCL ------------------------------------------------------------- */

EXPORT cl_int clEnqueueNDRangeKernel(void *queue, void *kernel, cl_uint dim, const size_t *offset,
                                     const size_t *global, const size_t *local, cl_uint nwait,
                                     void *const *wait, void **event)
{
	NEXT(cl_int (*)(void *, void *, cl_uint, const size_t *, const size_t *, const size_t *,
	                cl_uint, void *const *, void **), "clEnqueueNDRangeKernel");
	cl_int err = fn ? fn(queue, kernel, dim, offset, global, local, nwait, wait, event) : CL_INVALID_OPERATION;
	if (err == 0)
		record(1);
	return err;
}

EXPORT cl_int clFlush(void *queue)
{
	NEXT(cl_int (*)(void *), "clFlush");
	cl_int err = fn ? fn(queue) : CL_INVALID_COMMAND_QUEUE;
	submit();
	return err;
}

EXPORT cl_int clFinish(void *queue)
{
	NEXT(cl_int (*)(void *), "clFinish");
	cl_int err = fn ? fn(queue) : CL_INVALID_COMMAND_QUEUE;
	complete();
	return err;
}

EXPORT cl_int clWaitForEvents(cl_uint n, void *const *events)
{
	NEXT(cl_int (*)(cl_uint, void *const *), "clWaitForEvents");
	cl_int err = fn ? fn(n, events) : CL_INVALID_EVENT;
	complete();
	return err;
}

/* ---- Vulkan --------------------------------------------------------------- */

typedef int32_t vk_result;
typedef uint64_t vk_fence;
#define VK_SUCCESS 0
#define VK_ERROR_OUT_OF_HOST_MEMORY (-1)
#define VK_ERROR_INITIALIZATION_FAILED (-3)

/* VkSubmitInfo, as the ABI lays it out. */
struct vk_submit_info {
	int32_t sType;
	const void *pNext;
	uint32_t waitSemaphoreCount;
	const void *pWaitSemaphores;
	const void *pWaitDstStageMask;
	uint32_t commandBufferCount;
	void *const *pCommandBuffers;
	uint32_t signalSemaphoreCount;
	const void *pSignalSemaphores;
};

/* VkSubmitInfo2 and VkCommandBufferSubmitInfo (Vulkan 1.3, VK_KHR_synchronization2). */
struct vk_cb_submit_info {
	int32_t sType;
	const void *pNext;
	void *commandBuffer;
	uint32_t deviceMask;
};
struct vk_submit_info2 {
	int32_t sType;
	const void *pNext;
	uint32_t flags;
	uint32_t waitSemaphoreInfoCount;
	const void *pWaitSemaphoreInfos;
	uint32_t commandBufferInfoCount;
	const struct vk_cb_submit_info *pCommandBufferInfos;
	uint32_t signalSemaphoreInfoCount;
	const void *pSignalSemaphoreInfos;
};

/* The draws recorded in cb (creating its entry when `add`); q.lock held. */
static unsigned *cb_draws(void *cb, bool add)
{
	for (size_t i = 0; i < q.ncbs; i++)
		if (q.cbs[i].cb == cb)
			return &q.cbs[i].draws;
	if (!add)
		return NULL;
	if (q.ncbs == q.cap_cbs) {
		size_t cap = q.cap_cbs ? 2 * q.cap_cbs : 16;
		struct vk_cb *p = realloc(q.cbs, cap * sizeof(*p));
		if (!p)
			return NULL;
		q.cbs = p;
		q.cap_cbs = cap;
	}
	q.cbs[q.ncbs] = (struct vk_cb){ cb, 0 };
	return &q.cbs[q.ncbs++].draws;
}

static void vk_record(void *cb, unsigned n)
{
	pthread_once(&q.once, setup);
	pthread_mutex_lock(&q.lock);
	q.draws += n;
	unsigned *d = q.on ? cb_draws(cb, true) : NULL;
	if (d)
		*d += n;
	pthread_mutex_unlock(&q.lock);
}

static void vk_reset(void *cb)
{
	pthread_once(&q.once, setup);
	pthread_mutex_lock(&q.lock);
	unsigned *d = cb_draws(cb, false);
	if (d)
		*d = 0;
	pthread_mutex_unlock(&q.lock);
}

EXPORT vk_result vkBeginCommandBuffer(void *cb, const void *info)
{
	NEXT(vk_result (*)(void *, const void *), "vkBeginCommandBuffer");
	vk_reset(cb);
	return fn ? fn(cb, info) : VK_ERROR_INITIALIZATION_FAILED;
}

EXPORT vk_result vkResetCommandBuffer(void *cb, uint32_t flags)
{
	NEXT(vk_result (*)(void *, uint32_t), "vkResetCommandBuffer");
	vk_reset(cb);
	return fn ? fn(cb, flags) : VK_ERROR_INITIALIZATION_FAILED;
}

EXPORT void vkCmdDraw(void *cb, uint32_t vertices, uint32_t instances, uint32_t first,
                      uint32_t first_instance)
{
	NEXT(void (*)(void *, uint32_t, uint32_t, uint32_t, uint32_t), "vkCmdDraw");
	if (fn)
		fn(cb, vertices, instances, first, first_instance);
	vk_record(cb, 1);
}

EXPORT void vkCmdDrawIndexed(void *cb, uint32_t indices, uint32_t instances, uint32_t first,
                             int32_t offset, uint32_t first_instance)
{
	NEXT(void (*)(void *, uint32_t, uint32_t, uint32_t, int32_t, uint32_t), "vkCmdDrawIndexed");
	if (fn)
		fn(cb, indices, instances, first, offset, first_instance);
	vk_record(cb, 1);
}

#define DRAW_INDIRECT(name) \
	EXPORT void name(void *cb, uint64_t buffer, uint64_t offset, uint32_t count, uint32_t stride) \
	{ \
		NEXT(void (*)(void *, uint64_t, uint64_t, uint32_t, uint32_t), #name); \
		if (fn) \
			fn(cb, buffer, offset, count, stride); \
		vk_record(cb, count); \
	}
DRAW_INDIRECT(vkCmdDrawIndirect)
DRAW_INDIRECT(vkCmdDrawIndexedIndirect)

EXPORT void vkCmdDispatch(void *cb, uint32_t x, uint32_t y, uint32_t z)
{
	NEXT(void (*)(void *, uint32_t, uint32_t, uint32_t), "vkCmdDispatch");
	if (fn)
		fn(cb, x, y, z);
	vk_record(cb, 1);
}

EXPORT void vkCmdDispatchIndirect(void *cb, uint64_t buffer, uint64_t offset)
{
	NEXT(void (*)(void *, uint64_t, uint64_t), "vkCmdDispatchIndirect");
	if (fn)
		fn(cb, buffer, offset);
	vk_record(cb, 1);
}

EXPORT void vkCmdExecuteCommands(void *cb, uint32_t n, void *const *secondaries)
{
	NEXT(void (*)(void *, uint32_t, void *const *), "vkCmdExecuteCommands");
	if (fn)
		fn(cb, n, secondaries);
	pthread_once(&q.once, setup);
	pthread_mutex_lock(&q.lock);
	unsigned sum = 0;
	for (uint32_t i = 0; q.on && secondaries && i < n; i++) {
		unsigned *d = cb_draws(secondaries[i], false);
		sum += d ? *d : 0;
	}
	unsigned *d = sum ? cb_draws(cb, true) : NULL;
	if (d)
		*d += sum;
	pthread_mutex_unlock(&q.lock);
}

/* A successful submission: the previous one completes, and this one's
 * draws (the command buffers' tallies, added by add_cb under q.lock) are
 * in flight. */
static void submit_begin(void)
{
	pthread_once(&q.once, setup);
	pthread_mutex_lock(&q.lock);
}

static unsigned add_cb(void *cb)
{
	unsigned *d = q.on ? cb_draws(cb, false) : NULL;
	return d ? *d : 0;
}

static void submit_end(unsigned draws)
{
	if (q.on) {
		run(q.submitted);
		q.submitted = draws;
	}
	pthread_mutex_unlock(&q.lock);
}

EXPORT vk_result vkQueueSubmit(void *queue, uint32_t n, const struct vk_submit_info *submits,
                               vk_fence fence)
{
	NEXT(vk_result (*)(void *, uint32_t, const struct vk_submit_info *, vk_fence),
	     "vkQueueSubmit");
	vk_result r = fn ? fn(queue, n, submits, fence) : VK_ERROR_INITIALIZATION_FAILED;
	if (r != VK_SUCCESS)
		return r;
	submit_begin();
	unsigned draws = 0;
	for (uint32_t i = 0; submits && i < n; i++)
		for (uint32_t k = 0; k < submits[i].commandBufferCount; k++)
			draws += add_cb(submits[i].pCommandBuffers[k]);
	submit_end(draws);
	return r;
}

/* vkQueueSubmit2 and vkQueueSubmit2KHR (one command, by its Vulkan 1.3
 * and its extension name). */
static vk_result submit2(vk_result (*fn)(void *, uint32_t, const struct vk_submit_info2 *,
                                         vk_fence),
                         void *queue, uint32_t n, const struct vk_submit_info2 *submits,
                         vk_fence fence)
{
	vk_result r = fn ? fn(queue, n, submits, fence) : VK_ERROR_INITIALIZATION_FAILED;
	if (r != VK_SUCCESS)
		return r;
	submit_begin();
	unsigned draws = 0;
	for (uint32_t i = 0; submits && i < n; i++)
		for (uint32_t k = 0; k < submits[i].commandBufferInfoCount; k++)
			draws += add_cb(submits[i].pCommandBufferInfos[k].commandBuffer);
	submit_end(draws);
	return r;
}

EXPORT vk_result vkQueueSubmit2(void *queue, uint32_t n, const struct vk_submit_info2 *submits,
                                vk_fence fence)
{
	NEXT(vk_result (*)(void *, uint32_t, const struct vk_submit_info2 *, vk_fence),
	     "vkQueueSubmit2");
	return submit2(fn, queue, n, submits, fence);
}

EXPORT vk_result vkQueueSubmit2KHR(void *queue, uint32_t n,
                                   const struct vk_submit_info2 *submits, vk_fence fence)
{
	NEXT(vk_result (*)(void *, uint32_t, const struct vk_submit_info2 *, vk_fence),
	     "vkQueueSubmit2KHR");
	return submit2(fn, queue, n, submits, fence);
}

/* Vulkan's waits complete what was submitted (GL's recorded draws stay). */
static void vk_complete(void)
{
	pthread_once(&q.once, setup);
	pthread_mutex_lock(&q.lock);
	run(q.submitted);
	q.submitted = 0;
	pthread_mutex_unlock(&q.lock);
}

EXPORT vk_result vkQueueWaitIdle(void *queue)
{
	NEXT(vk_result (*)(void *), "vkQueueWaitIdle");
	vk_result r = fn ? fn(queue) : VK_ERROR_INITIALIZATION_FAILED;
	if (r == VK_SUCCESS)
		vk_complete();
	return r;
}

EXPORT vk_result vkDeviceWaitIdle(void *device)
{
	NEXT(vk_result (*)(void *), "vkDeviceWaitIdle");
	vk_result r = fn ? fn(device) : VK_ERROR_INITIALIZATION_FAILED;
	if (r == VK_SUCCESS)
		vk_complete();
	return r;
}

EXPORT vk_result vkWaitForFences(void *device, uint32_t n, const vk_fence *fences,
                                 uint32_t all, uint64_t timeout)
{
	NEXT(vk_result (*)(void *, uint32_t, const vk_fence *, uint32_t, uint64_t),
	     "vkWaitForFences");
	vk_result r = fn ? fn(device, n, fences, all, timeout) : VK_ERROR_INITIALIZATION_FAILED;
	if (r == VK_SUCCESS)
		vk_complete();
	return r;
}

/* The commands above, for a program that asks the loader for them. */
static proc vk_ours(const char *name)
{
	static const struct {
		const char *name;
		proc fn;
	} ours[] = {
#define OURS(f) { #f, (proc)f }
		OURS(vkBeginCommandBuffer), OURS(vkResetCommandBuffer), OURS(vkCmdDraw),
		OURS(vkCmdDrawIndexed), OURS(vkCmdDrawIndirect), OURS(vkCmdDrawIndexedIndirect),
		OURS(vkCmdDispatch), OURS(vkCmdDispatchIndirect), OURS(vkCmdExecuteCommands),
		OURS(vkQueueSubmit), OURS(vkQueueSubmit2), OURS(vkQueueSubmit2KHR),
		OURS(vkQueueWaitIdle), OURS(vkDeviceWaitIdle),
		OURS(vkWaitForFences),
#undef OURS
	};
	for (size_t i = 0; name && i < sizeof(ours) / sizeof(ours[0]); i++)
		if (strcmp(name, ours[i].name) == 0)
			return ours[i].fn;
	return NULL;
}

EXPORT proc vkGetDeviceProcAddr(void *device, const char *name)
{
	NEXT(proc (*)(void *, const char *), "vkGetDeviceProcAddr");
	proc real = fn ? fn(device, name) : NULL;
	proc mine = real ? vk_ours(name) : NULL;
	return mine ? mine : real;
}

EXPORT proc vkGetInstanceProcAddr(void *instance, const char *name)
{
	NEXT(proc (*)(void *, const char *), "vkGetInstanceProcAddr");
	proc real = fn ? fn(instance, name) : NULL;
	proc mine = real && instance ? vk_ours(name) : NULL;
	return mine ? mine : real;
}

/* For tests: how many frames of the workload the device has run. */
EXPORT uint64_t vmali_api_frames(void)
{
	struct vmali *vm = vmali_preload_device();
	return vm ? vmali_frames_run(vm) : 0;
}
