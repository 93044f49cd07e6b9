/* SPDX-License-Identifier: MIT */
/*
 * cl_work.h — an OpenCL queue with a kernel of known work on whatever
 * platform the ICD loader finds (pocl on the CPU in CI): `spin` runs a
 * loop of a given length in each of 4096 work items.
 */
#ifndef OPENGPA_TESTS_APICTX_CL_WORK_H
#define OPENGPA_TESTS_APICTX_CL_WORK_H

#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <stdbool.h>

struct cl_work {
	cl_context ctx;
	cl_device_id dev;
	cl_command_queue queue;
	cl_program program;
	cl_kernel kernel;
	cl_mem out;
	char error[256];
};

/* The first device of the first platform; a queue with profiling when
 * `profiling`.  False with w->error set. */
bool cl_work_open(struct cl_work *w, bool profiling);
/* Another queue on the same device (profiling or not). */
cl_command_queue cl_work_queue(struct cl_work *w, bool profiling);
/* Enqueues `launches` kernels of `loop` iterations per work item. */
void cl_work_run(struct cl_work *w, cl_command_queue q, unsigned launches, int loop);
void cl_work_close(struct cl_work *w);

#endif
