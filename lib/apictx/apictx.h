/* SPDX-License-Identifier: MIT */
/*
 * apictx.h — the application's graphics or compute API behind a context.
 *
 * In GPA the pointer given to GPA_OpenContext is the application's API
 * context: the current GL or GLES context for libGPUPerfAPIGL.so and
 * …GLES.so, a cl_command_queue for …CL.so.  opengpa binds to it the same
 * way when it is loaded under those names (or told to: OpenGPA_SetContextApi,
 * OPENGPA_API), and the core calls here at sample boundaries:
 *
 *   og_apictx_boundary     the API context is usable on this thread, then
 *                          its queue is drained (glFinish, clFinish) or
 *                          flushed (glFlush, clFlush) as the sync mode says,
 *                          so the backend's snapshot that follows belongs to
 *                          the commands before it;
 *   og_apictx_time_begin   the API's own GPU timer around the sample (GL
 *   og_apictx_time_end     timer queries, OpenCL profiling events), issued
 *                          without waiting;
 *   og_apictx_read         the timer's result, when it is there (or waited
 *                          for, when results are requested).
 *
 * The API's entry points are looked up at run time in the libraries the
 * process already has (dlopen RTLD_NOLOAD, then dlsym), so the library has no
 * link-time dependency on GL or OpenCL, and interposers (a tracer, the
 * virtual Mali's draw-call clock) see opengpa's calls as they see the
 * application's.  A process that has no GL (or OpenCL) library loaded gets
 * a plain context, as if the library had been loaded as libopengpa.so.
 *
 * Everything here runs with the registry lock held, on the caller's thread
 * (GL calls only work on the thread where the context is current).
 */
#ifndef OPENGPA_APICTX_APICTX_H
#define OPENGPA_APICTX_APICTX_H

#include <stdbool.h>
#include <stdint.h>

#include "GPUPerfAPITypes.h"

enum og_api {
	OG_API_NONE, /* plain: the context pointer is a key */
	OG_API_GL,
	OG_API_GLES,
	OG_API_CL,
	OG_API_VK, /* the key is a GpaVkContextOpenInfo (lib/apictx/vk.h) */
};

/* What a sample boundary does to the API's queue; the numbers are
 * opengpa.h's OPENGPA_SYNC_*. */
enum og_sync {
	OG_SYNC_OFF = 1,    /* nothing: the snapshot is taken when the CPU gets there */
	OG_SYNC_FLUSH = 2,  /* glFlush / clFlush: submitted, not waited for */
	OG_SYNC_FINISH = 3, /* glFinish / clFinish: every earlier command has completed */
};

/* What an API timer measures, one value each (counter-file sources
 * "api:NAME", docs/counter-files.md). */
enum og_api_value {
	OG_API_GPU_TIME_NS, /* api:gpu-time: GPU time of the sample's commands */
	OG_API_NVALUES
};

struct og_apictx;

/* "gl", "gles", "cl", "none". */
const char *og_api_name(enum og_api api);
/* The API a library file name stands for: libGPUPerfAPIGL.so (and its
 * 32/-d/-Internal variants) GL, …GLES GLES, …CL CL, anything else NONE. */
enum og_api og_api_from_filename(const char *path);
/* Parses "gl", "gles", "cl", "vk", "none" (any case); false for anything else. */
bool og_api_parse(const char *text, enum og_api *api);
/* The API contexts opened now bind to: OpenGPA_SetContextApi, else
 * OPENGPA_API, else the name the library was loaded under.  *explicit_
 * says whether a setting chose it (then a missing API library is an error,
 * not a plain context); *how names the source for the log. */
enum og_api og_api_wanted(bool *explicit_, const char **how);

/* Binds to the application's context `key` (a GL context or a
 * cl_command_queue).  *out is NULL when the context is plain: `api` is
 * NONE, or the process has no library of that API and it was not asked for
 * explicitly (logged as a message).  `how` is og_api_wanted's.  Errors
 * name the cause and the fix. */
GPA_Status og_apictx_open(enum og_api api, bool explicit_, const char *how, void *key,
                          uint32_t flags, struct og_apictx **out);
/* Every timing must have been released. */
void og_apictx_close(struct og_apictx *a);

enum og_api og_apictx_api(const struct og_apictx *a);
/* One line for the log: the API context, the sync mode, where GPUTime
 * comes from. */
const char *og_apictx_describe(struct og_apictx *a);
enum og_sync og_apictx_sync(const struct og_apictx *a);
void og_apictx_set_sync(struct og_apictx *a, enum og_sync mode);
/* OPENGPA_SYNC's mode, or `fallback` when unset (a bad value is logged). */
enum og_sync og_sync_from_env(enum og_sync fallback);
const char *og_sync_name(enum og_sync mode);

/* Binds the counter-file source "api:NAME": OK with *value (an
 * enum og_api_value), NOT_FOUND with *why_not when this context cannot
 * measure it, FAILED for a name that is not one. */
GPA_Status og_apictx_bind(const struct og_apictx *a, const char *name, uint32_t *value,
                          const char **why_not);

/* A sample boundary: checks the API context is usable here (current on
 * this thread, not lost), then synchronises as the sync mode says.
 * `func` names the GPA call for messages. */
GPA_Status og_apictx_boundary(struct og_apictx *a, const char *func);

/* Starts the GPU timer of a sample; *token (never 0) names it until
 * og_apictx_release. */
GPA_Status og_apictx_time_begin(struct og_apictx *a, const char *func, uint32_t *token);
GPA_Status og_apictx_time_end(struct og_apictx *a, const char *func, uint32_t token);

enum og_api_read {
	OG_API_PENDING, /* the GPU has not got there yet (or cannot be asked from this thread) */
	OG_API_DONE,    /* values[0 .. OG_API_NVALUES) are filled */
	OG_API_FAILED,  /* no result, ever: logged with its cause */
};
/* The timer's values.  `wait` blocks until the GPU is there; PENDING then
 * means it cannot be read from this thread (GL: the context is not current
 * here), logged with the reason, and another thread still can. */
enum og_api_read og_apictx_read(struct og_apictx *a, uint32_t token, bool wait, uint64_t *values);
/* Forgets the timing (its API objects are released or reused). */
void og_apictx_release(struct og_apictx *a, uint32_t token);

/* Under `opengpa stat` (OPENGPA_FRAME_FD names its pipe), sends a sample
 * that ended, sample `id` from begin_ns to end_ns (CLOCK_MONOTONIC, the
 * boundaries after their sync), so the command's timeline shows it; `a`
 * is the context's API, NULL for a plain context.  Nothing on Vulkan, whose
 * samples are recorded, not run, between the calls.  Never fails the
 * sample: a record that cannot be sent is logged. */
void og_apictx_send_sample(const struct og_apictx *a, uint32_t id, uint64_t begin_ns,
                           uint64_t end_ns);

#endif
