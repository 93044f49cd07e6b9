/* SPDX-License-Identifier: MIT */
/* cl_work.c — see cl_work.h. */
#include "cl_work.h"

#include <stdio.h>
#include <string.h>

static const char source[] =
	"__kernel void spin(__global float *out, int loop) {\n"
	"  int i = get_global_id(0);\n"
	"  float x = i;\n"
	"  for (int k = 0; k < loop; k++) x = x * 1.0001f + 0.5f;\n"
	"  out[i] = x;\n"
	"}\n";

static bool fail(struct cl_work *w, const char *what, cl_int err)
{
	snprintf(w->error, sizeof(w->error), "%s: %d", what, err);
	return false;
}

cl_command_queue cl_work_queue(struct cl_work *w, bool profiling)
{
	cl_queue_properties props[] = { CL_QUEUE_PROPERTIES, CL_QUEUE_PROFILING_ENABLE, 0 };
	cl_int err;
	return clCreateCommandQueueWithProperties(w->ctx, w->dev, profiling ? props : NULL, &err);
}

bool cl_work_open(struct cl_work *w, bool profiling)
{
	memset(w, 0, sizeof(*w));
	cl_platform_id platform;
	cl_uint n = 0;
	cl_int err = clGetPlatformIDs(1, &platform, &n);
	if (err != CL_SUCCESS || n == 0)
		return fail(w, "no OpenCL platform (pocl-opencl-icd)", err);
	if ((err = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &w->dev, &n)) != CL_SUCCESS)
		return fail(w, "no OpenCL device", err);
	w->ctx = clCreateContext(NULL, 1, &w->dev, NULL, NULL, &err);
	if (!w->ctx)
		return fail(w, "clCreateContext", err);
	if (!(w->queue = cl_work_queue(w, profiling)))
		return fail(w, "clCreateCommandQueueWithProperties", err);
	const char *src = source;
	w->program = clCreateProgramWithSource(w->ctx, 1, &src, NULL, &err);
	if (!w->program || (err = clBuildProgram(w->program, 1, &w->dev, NULL, NULL, NULL)) != CL_SUCCESS)
		return fail(w, "building the kernel", err);
	if (!(w->kernel = clCreateKernel(w->program, "spin", &err)))
		return fail(w, "clCreateKernel", err);
	if (!(w->out = clCreateBuffer(w->ctx, CL_MEM_WRITE_ONLY, 4096 * sizeof(float), NULL, &err)))
		return fail(w, "clCreateBuffer", err);
	return true;
}

void cl_work_run(struct cl_work *w, cl_command_queue q, unsigned launches, int loop)
{
	size_t global = 4096;
	clSetKernelArg(w->kernel, 0, sizeof(w->out), &w->out);
	clSetKernelArg(w->kernel, 1, sizeof(loop), &loop);
	for (unsigned i = 0; i < launches; i++)
		clEnqueueNDRangeKernel(q, w->kernel, 1, NULL, &global, NULL, 0, NULL, NULL);
}

void cl_work_close(struct cl_work *w)
{
	if (w->out)
		clReleaseMemObject(w->out);
	if (w->kernel)
		clReleaseKernel(w->kernel);
	if (w->program)
		clReleaseProgram(w->program);
	if (w->queue)
		clReleaseCommandQueue(w->queue);
	if (w->ctx)
		clReleaseContext(w->ctx);
	memset(w, 0, sizeof(*w));
}
