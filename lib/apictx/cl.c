/* SPDX-License-Identifier: MIT */
/*
 * apictx/cl.c — an OpenCL command queue as a GPA context (apictx.h).
 *
 * The context pointer is a cl_command_queue, as in GPA's CL library.  The
 * GPA context holds a reference to it (clRetainCommandQueue) until it
 * closes, so the queue cannot go away under a sample.  Synchronisation is
 * clFinish or clFlush on that queue.  GPU time comes from OpenCL's event
 * profiling, when the application created the queue with
 * CL_QUEUE_PROFILING_ENABLE: a barrier is enqueued at BeginSample and at
 * EndSample, and the sample's time is the span between their completions on
 * the device's clock (CL_PROFILING_COMMAND_END).  A barrier, not a marker:
 * on an out-of-order queue too, the sample's commands start after the
 * first and the commands after EndSample after the second.  That span
 * includes any time the device sat idle inside the sample (the host not
 * enqueueing): docs/api.md says what cannot be attributed.
 *
 * No OpenCL header is included: the library builds where OpenCL is not
 * installed.  The few enums are the Khronos registry's numbers.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "apictx/impl.h"
#include "core/core.h"

typedef int32_t cl_int;
typedef uint32_t cl_uint;
typedef uint64_t cl_ulong;
typedef void *cl_command_queue;
typedef void *cl_event;
typedef void *cl_device_id;
typedef void *cl_context;

#define CL_SUCCESS 0
#define CL_COMPLETE 0
#define CL_DEVICE_NAME 0x102B
#define CL_DEVICE_VERSION 0x102F
#define CL_CONTEXT_DEVICES 0x1081
#define CL_QUEUE_CONTEXT 0x1090
#define CL_QUEUE_DEVICE 0x1091
#define CL_QUEUE_PROPERTIES 0x1093
#define CL_QUEUE_PROFILING_ENABLE (1u << 1)
#define CL_EVENT_COMMAND_EXECUTION_STATUS 0x11D3
#define CL_PROFILING_COMMAND_END 0x1283

/* The entry points used: member, OpenCL name, type.  The first ones are
 * OpenCL 1.0's and required; the timer needs the rest. */
#define CL_ENTRY_POINTS(X) \
	X(get_queue_info, clGetCommandQueueInfo, \
	  cl_int (*)(cl_command_queue, cl_uint, size_t, void *, size_t *)) \
	X(retain_queue, clRetainCommandQueue, cl_int (*)(cl_command_queue)) \
	X(release_queue, clReleaseCommandQueue, cl_int (*)(cl_command_queue)) \
	X(finish, clFinish, cl_int (*)(cl_command_queue)) \
	X(flush, clFlush, cl_int (*)(cl_command_queue)) \
	X(get_device_info, clGetDeviceInfo, cl_int (*)(cl_device_id, cl_uint, size_t, void *, size_t *)) \
	X(get_context_info, clGetContextInfo, cl_int (*)(cl_context, cl_uint, size_t, void *, size_t *)) \
	X(barrier, clEnqueueBarrierWithWaitList, \
	  cl_int (*)(cl_command_queue, cl_uint, const cl_event *, cl_event *)) \
	X(get_event_info, clGetEventInfo, cl_int (*)(cl_event, cl_uint, size_t, void *, size_t *)) \
	X(get_profiling_info, clGetEventProfilingInfo, \
	  cl_int (*)(cl_event, cl_uint, size_t, void *, size_t *)) \
	X(wait_for_events, clWaitForEvents, cl_int (*)(cl_uint, const cl_event *)) \
	X(release_event, clReleaseEvent, cl_int (*)(cl_event))
#define CL_REQUIRED 7 /* the first seven */

struct cl {
	void *lib;
	cl_command_queue queue;
#define MEMBER(member, name, type) __typeof__(type) member;
	CL_ENTRY_POINTS(MEMBER)
#undef MEMBER
};

static const char *const cl_libs[] = { "libOpenCL.so.1", "libOpenCL.so", NULL };

/* Copies n bytes at p into out without touching them from user space:
 * the kernel copies them, or says EFAULT.  p is whatever the caller passed
 * (a GPA 2.x key is any pointer, perhaps to fewer than n bytes), so the copy
 * must not be a plain read, which AddressSanitizer would rightly report in
 * an instrumented application.  process_vm_readv on this process first;
 * where a seccomp policy refuses it, a pipe (write checks the range, then
 * the bytes are read back). */
static bool read_via_kernel(const void *p, void *out, size_t n)
{
	struct iovec local = { out, n }, remote = { (void *)(uintptr_t)p, n };
	ssize_t got = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
	if (got >= 0)
		return got == (ssize_t)n;
	if (errno == EFAULT)
		return false;
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) != 0)
		return false;
	bool ok = syscall(SYS_write, fds[1], p, n) == (long)n && read(fds[0], out, n) == (ssize_t)n;
	close(fds[0]);
	close(fds[1]);
	return ok;
}

/* An OpenCL object starts with its ICD dispatch table's address, which is
 * in the OpenCL implementation's library.  Anything else (a GL context
 * given to the CL library, a stale pointer) is refused here rather than
 * handed to the ICD loader, which would call through it. */
static bool looks_like_cl_object(const void *p)
{
	void *dispatch;
	if (!read_via_kernel(p, &dispatch, sizeof(dispatch)))
		return false;
	Dl_info info;
	return dispatch && dladdr(dispatch, &info) != 0;
}

/* The runtime may answer queue queries for any object (pocl does, with
 * whatever is at the queue's offsets): a queue's context must be an OpenCL
 * object whose devices include the queue's device. */
static bool is_queue(struct cl *c, void *key, cl_device_id *dev)
{
	cl_context ctx = NULL;
	cl_device_id devs[64];
	size_t size = 0;
	if (c->get_queue_info(key, CL_QUEUE_CONTEXT, sizeof(ctx), &ctx, NULL) != CL_SUCCESS ||
	    c->get_queue_info(key, CL_QUEUE_DEVICE, sizeof(*dev), dev, NULL) != CL_SUCCESS ||
	    !looks_like_cl_object(ctx) || !looks_like_cl_object(*dev) ||
	    c->get_context_info(ctx, CL_CONTEXT_DEVICES, sizeof(devs), devs, &size) != CL_SUCCESS)
		return false;
	for (size_t i = 0; i < size / sizeof(devs[0]) && i < 64; i++)
		if (devs[i] == *dev)
			return true;
	return false;
}

static GPA_Status cl_open(struct og_apictx *a, void *key)
{
	struct cl *c = calloc(1, sizeof(*c));
	if (!c)
		return og_error(GPA_STATUS_ERROR_FAILED, "opening a context: out of memory");
	if (!(c->lib = og_api_loaded(cl_libs))) {
		free(c);
		return GPA_STATUS_ERROR_NOT_FOUND; /* no OpenCL in this process */
	}
	int found = 0, required = 0;
#define LOOK_UP(member, name, type) \
	if ((*(void **)&c->member = og_api_sym(c->lib, #name)) && required < CL_REQUIRED) \
		found++; \
	required++;
	CL_ENTRY_POINTS(LOOK_UP)
#undef LOOK_UP
	GPA_Status st = GPA_STATUS_OK;
	cl_ulong props = 0;
	cl_device_id dev = NULL;
	cl_int err;
	if (found < CL_REQUIRED)
		st = og_error(GPA_STATUS_ERROR_FAILED, "GPA_OpenContext: the process's OpenCL library "
		              "lacks OpenCL 1.0's queue functions");
	else if (!looks_like_cl_object(key))
		st = og_error(GPA_STATUS_ERROR_FAILED,
		              "GPA_OpenContext(%p): that is not an OpenCL object; loaded as a CL "
		              "library, the context is the application's cl_command_queue", key);
	else if ((err = c->get_queue_info(key, CL_QUEUE_PROPERTIES, sizeof(props), &props, NULL)) !=
	         CL_SUCCESS || !is_queue(c, key, &dev))
		st = og_error(GPA_STATUS_ERROR_FAILED,
		              "GPA_OpenContext(%p): not a live cl_command_queue (clGetCommandQueueInfo "
		              "says %d%s); pass the queue the samples' commands go to", key, err,
		              err == CL_SUCCESS ? ", but its context and device do not match" : "");
	else if ((err = c->retain_queue(key)) != CL_SUCCESS)
		st = og_error(GPA_STATUS_ERROR_FAILED, "GPA_OpenContext(%p): clRetainCommandQueue "
		              "says %d", key, err);
	if (st != GPA_STATUS_OK) {
		dlclose(c->lib);
		free(c);
		return st;
	}
	c->queue = key;
	char name[128] = "?", version[64] = "";
	if (c->get_device_info(dev, CL_DEVICE_NAME, sizeof(name) - 1, name, NULL) != CL_SUCCESS)
		strcpy(name, "?");
	if (c->get_device_info(dev, CL_DEVICE_VERSION, sizeof(version) - 1, version, NULL) !=
	    CL_SUCCESS)
		version[0] = '\0';
	name[sizeof(name) - 1] = version[sizeof(version) - 1] = '\0';
	snprintf(a->desc, sizeof(a->desc), "OpenCL command queue %p: %s%s%s", key, name,
	         version[0] ? ", " : "", version);
	if (!(props & CL_QUEUE_PROFILING_ENABLE))
		a->timer_why = "the command queue was created without CL_QUEUE_PROFILING_ENABLE; "
		               "create it with that property to time samples";
	else if (!c->barrier || !c->get_event_info || !c->get_profiling_info ||
	         !c->wait_for_events || !c->release_event)
		a->timer_why = "the OpenCL library lacks OpenCL 1.2's clEnqueueBarrierWithWaitList";
	else
		a->timer_what = "OpenCL profiling of a barrier at BeginSample and at EndSample";
	a->priv = c;
	return GPA_STATUS_OK;
}

static void cl_close(struct og_apictx *a)
{
	struct cl *c = a->priv;
	c->release_queue(c->queue);
	dlclose(c->lib);
	free(c);
}

static GPA_Status cl_usable(struct og_apictx *a, const char *func)
{
	struct cl *c = a->priv;
	if (a->lost)
		return og_error(GPA_STATUS_ERROR_FAILED, "%s: OpenCL queue %p failed earlier (see "
		                "the earlier message); open a GPA context on a new queue", func,
		                c->queue);
	return GPA_STATUS_OK;
}

static GPA_Status cl_sync(struct og_apictx *a, enum og_sync mode, const char *func)
{
	struct cl *c = a->priv;
	cl_int err = mode == OG_SYNC_FINISH ? c->finish(c->queue) : c->flush(c->queue);
	if (err == CL_SUCCESS)
		return GPA_STATUS_OK;
	/* Out of resources, or the device went away: nothing later will do. */
	a->lost = true;
	return og_error(GPA_STATUS_ERROR_FAILED, "%s: %s on OpenCL queue %p says %d: the queue "
	                "cannot run commands any more; open a GPA context on a new queue", func,
	                mode == OG_SYNC_FINISH ? "clFinish" : "clFlush", c->queue, err);
}

static GPA_Status enqueue_barrier(struct cl *c, uint64_t *slot, const char *func)
{
	cl_event ev = NULL;
	cl_int err = c->barrier(c->queue, 0, NULL, &ev);
	if (err != CL_SUCCESS || !ev)
		return og_error(GPA_STATUS_ERROR_FAILED, "%s: clEnqueueBarrierWithWaitList on queue "
		                "%p says %d; the sample has no GPUTime", func, c->queue, err);
	*slot = (uint64_t)(uintptr_t)ev;
	return GPA_STATUS_OK;
}

static GPA_Status cl_time_begin(struct og_apictx *a, struct og_api_timing *t, const char *func)
{
	return enqueue_barrier(a->priv, &t->obj[0], func);
}

static GPA_Status cl_time_end(struct og_apictx *a, struct og_api_timing *t, const char *func)
{
	return enqueue_barrier(a->priv, &t->obj[1], func);
}

static enum og_api_read cl_time_read(struct og_apictx *a, struct og_api_timing *t, bool wait,
                                     uint64_t *ns)
{
	struct cl *c = a->priv;
	cl_event begin = (cl_event)(uintptr_t)t->obj[0], end = (cl_event)(uintptr_t)t->obj[1];
	cl_int status = 1;
	cl_int err = c->get_event_info(end, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status),
	                               &status, NULL);
	if (err == CL_SUCCESS && status > CL_COMPLETE) {
		if (!wait)
			return OG_API_PENDING;
		err = c->wait_for_events(1, &end);
		if (err == CL_SUCCESS)
			err = c->get_event_info(end, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status),
			                        &status, NULL);
	}
	cl_ulong b = 0, e = 0;
	if (err == CL_SUCCESS && status == CL_COMPLETE)
		err = c->get_profiling_info(begin, CL_PROFILING_COMMAND_END, sizeof(b), &b, NULL);
	if (err == CL_SUCCESS && status == CL_COMPLETE)
		err = c->get_profiling_info(end, CL_PROFILING_COMMAND_END, sizeof(e), &e, NULL);
	if (err != CL_SUCCESS || status != CL_COMPLETE) {
		og_log(OG_LOG_ERROR, "the sample's GPU time on OpenCL queue %p cannot be read: the "
		       "end barrier's %s is %d", c->queue, err != CL_SUCCESS ? "query" : "status",
		       err != CL_SUCCESS ? err : status);
		return OG_API_FAILED;
	}
	*ns = e > b ? e - b : 0;
	return OG_API_DONE;
}

static void cl_time_free(struct og_apictx *a, struct og_api_timing *t)
{
	struct cl *c = a->priv;
	for (int i = 0; i < 2; i++)
		if (t->obj[i])
			c->release_event((cl_event)(uintptr_t)t->obj[i]);
	t->obj[0] = t->obj[1] = 0;
}

const struct og_api_impl og_api_cl = {
	.open = cl_open,
	.close = cl_close,
	.usable = cl_usable,
	.sync = cl_sync,
	.time_begin = cl_time_begin,
	.time_end = cl_time_end,
	.time_read = cl_time_read,
	.time_free = cl_time_free,
};
