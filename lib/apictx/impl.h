/* SPDX-License-Identifier: MIT */
/*
 * apictx/impl.h — what apictx.c (the API-neutral part: which API, timings,
 * sync mode) shares with one file per API family: apictx/gl.c (GL and GLES
 * through EGL or GLX) and apictx/cl.c (OpenCL).
 */
#ifndef OPENGPA_APICTX_IMPL_H
#define OPENGPA_APICTX_IMPL_H

#include <stddef.h>

#include "apictx/apictx.h"

/* One sample's GPU timer: the API's objects (GL query names, cl_events). */
struct og_api_timing {
	uint64_t obj[2];
	uint8_t state;   /* TIMING_* in apictx.c */
	bool disjoint;   /* GLES: the GPU's timer was disjoint while it was in flight */
	uint32_t next_free;
};

/* An API family.  Every call has the registry lock; each logs its own
 * failures (og_error) with the cause and the fix. */
struct og_api_impl {
	/* Finds the application's context `key` in the process's libraries.
	 * NOT_FOUND, logging nothing, when the process has no library of this
	 * API at all (the caller decides whether that means a plain context).
	 * On success a->priv, a->desc and, when the API cannot time samples,
	 * a->timer_why are set. */
	GPA_Status (*open)(struct og_apictx *a, void *key);
	void (*close)(struct og_apictx *a);
	/* The API context can be used from this thread now. */
	GPA_Status (*usable)(struct og_apictx *a, const char *func);
	GPA_Status (*sync)(struct og_apictx *a, enum og_sync mode, const char *func);
	GPA_Status (*time_begin)(struct og_apictx *a, struct og_api_timing *t, const char *func);
	GPA_Status (*time_end)(struct og_apictx *a, struct og_api_timing *t, const char *func);
	/* DONE with *ns, PENDING, or FAILED (logged).  The timing's objects
	 * stay until time_free. */
	enum og_api_read (*time_read)(struct og_apictx *a, struct og_api_timing *t, bool wait,
	                              uint64_t *ns);
	/* Gives the objects back (no API call that needs the context current). */
	void (*time_free)(struct og_apictx *a, struct og_api_timing *t);
};

extern const struct og_api_impl og_api_gl;
extern const struct og_api_impl og_api_cl;
extern const struct og_api_impl og_api_vk; /* lib/apictx/vk.c */

struct og_apictx {
	enum og_api api;
	const struct og_api_impl *impl;
	void *priv;
	enum og_sync sync;
	uint32_t open_flags;     /* GpaOpenContext's flags (Vulkan: which open info) */
	bool lost;              /* the API context is gone: every boundary fails */
	char desc[256];         /* "GLES context 0x… (EGL): OpenGL ES 3.2 Mesa …" */
	char line[512];         /* og_apictx_describe's buffer */
	const char *timer_what; /* "GL_TIMESTAMP queries", ... */
	const char *timer_why;  /* NULL: samples can be timed; else why not (static) */

	/* Timings handed out: token = index + 1.  Bounded (OG_API_MAX_TIMINGS). */
	struct og_api_timing *timings;
	uint32_t ntimings, free_head; /* free_head: index + 1 of a free one, 0 = none */
	uint32_t live;
};

/* Marks every timing still in flight as disjoint (GLES: GL_GPU_DISJOINT_EXT
 * was set). */
void og_apictx_mark_disjoint(struct og_apictx *a);

/* Shared by the API files: the first of `names` the process has loaded
 * (dlopen RTLD_NOLOAD; the caller dlcloses it), or NULL. */
void *og_api_loaded(const char *const *names);
/* An entry point: the global scope first (where interposers are), then
 * `lib`. */
void *og_api_sym(void *lib, const char *name);

#endif
