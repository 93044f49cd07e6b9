/* SPDX-License-Identifier: MIT */
/*
 * apictx/gl.c — a GL or GLES context as a GPA context (apictx.h).
 *
 * The context is the one current on the thread that opens the GPA context,
 * through EGL or GLX, whichever the process has loaded; it must be current
 * at every sample boundary after that (checked: a sample on another thread
 * or after the context changed fails with the reason).  Synchronisation is
 * glFinish or glFlush.  GPU time comes from the API's own timer:
 *
 *   - GL_TIMESTAMP written by glQueryCounter at BeginSample and EndSample,
 *     when the driver's timestamp counter has bits: it never conflicts with
 *     the application's own queries;
 *   - otherwise a GL_TIME_ELAPSED query around the sample (GL allows one at
 *     a time, so a sample begun while the application has one of its own
 *     active is refused rather than breaking the application's).
 *
 * Desktop GL needs 3.3 or GL_ARB_timer_query, GLES needs
 * GL_EXT_disjoint_timer_query, whose GL_GPU_DISJOINT_EXT flag (set when the
 * GPU's timer jumped: a frequency change, a power event) turns the result of
 * every sample in flight into an error.  Reading that flag clears it, for
 * the application too (EXT_disjoint_timer_query has one flag per context).
 *
 * No GL header is included: the library builds where GL is not installed.
 * The few enums are the Khronos registry's numbers.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apictx/impl.h"
#include "core/core.h"

typedef unsigned int GLenum;
typedef unsigned int GLuint;
typedef int GLint;
typedef int GLsizei;
typedef unsigned char GLubyte;
typedef uint64_t GLuint64;

#define GL_NO_ERROR 0
#define GL_RENDERER 0x1F01
#define GL_VERSION 0x1F02
#define GL_EXTENSIONS 0x1F03
#define GL_NUM_EXTENSIONS 0x821D
#define GL_QUERY_COUNTER_BITS 0x8864
#define GL_CURRENT_QUERY 0x8865
#define GL_QUERY_RESULT 0x8866
#define GL_QUERY_RESULT_AVAILABLE 0x8867
#define GL_TIME_ELAPSED 0x88BF
#define GL_TIMESTAMP 0x8E28
#define GL_GPU_DISJOINT_EXT 0x8FBB

/* Query objects kept for reuse: enough for the samples a client has in
 * flight at once (more are made as needed, and deleted at close). */
#define POOL_KEEP 1024

struct gl {
	void *egl_lib, *glx_lib, *gl_lib;
	void *ctx;   /* the EGLContext or GLXContext */
	bool egl;    /* which of the two it is */
	bool es;
	bool timestamps; /* GL_TIMESTAMP pairs, else one GL_TIME_ELAPSED query */
	bool disjoint;   /* GL_EXT_disjoint_timer_query */
	void *(*get_current)(void);
	void (*(*get_proc)(const char *))(void);
	void (*finish)(void);
	void (*flush)(void);
	const GLubyte *(*get_string)(GLenum);
	const GLubyte *(*get_stringi)(GLenum, GLuint);
	void (*get_integerv)(GLenum, GLint *);
	void (*gen_queries)(GLsizei, GLuint *);
	void (*delete_queries)(GLsizei, const GLuint *);
	void (*begin_query)(GLenum, GLuint);
	void (*end_query)(GLenum);
	void (*query_counter)(GLuint, GLenum);
	void (*get_queryiv)(GLenum, GLenum, GLint *);
	void (*get_query_objectuiv)(GLuint, GLenum, GLuint *);
	void (*get_query_objectui64v)(GLuint, GLenum, GLuint64 *);
	GLenum (*reset_status)(void);
	GLuint *pool; /* query objects to reuse */
	size_t npool, cappool;
};

static const char *const egl_libs[] = { "libEGL.so.1", "libEGL.so", NULL };
static const char *const glx_libs[] = { "libGLX.so.0", "libGL.so.1", NULL };
static const char *const gl_libs[] = { "libGLESv2.so.2", "libGL.so.1", "libOpenGL.so.0",
	                               "libGLESv2.so", NULL };

/* A GL entry point: exported (the global scope first, so interposers see
 * it), else through eglGetProcAddress / glXGetProcAddressARB.  Those may
 * answer for names the driver lacks, so extension functions are only looked
 * up once the extension is known to be there. */
static void *gl_proc(struct gl *g, const char *name)
{
	void *p = og_api_sym(g->gl_lib, name);
	if (!p && g->get_proc)
		p = (void *)g->get_proc(name);
	return p;
}

/* Looks `name` up with each suffix in turn ("" and "EXT", say). */
static void *gl_proc_any(struct gl *g, const char *name, const char *const *suffixes)
{
	for (size_t i = 0; suffixes[i]; i++) {
		char full[64];
		snprintf(full, sizeof(full), "%s%s", name, suffixes[i]);
		void *p = gl_proc(g, full);
		if (p)
			return p;
	}
	return NULL;
}

static bool has_extension(struct gl *g, int major, const char *ext)
{
	if (major >= 3 && g->get_stringi) {
		GLint n = 0;
		g->get_integerv(GL_NUM_EXTENSIONS, &n);
		for (GLint i = 0; i < n && i < 4096; i++) {
			const char *e = (const char *)g->get_stringi(GL_EXTENSIONS, (GLuint)i);
			if (e && strcmp(e, ext) == 0)
				return true;
		}
		return false;
	}
	const char *all = (const char *)g->get_string(GL_EXTENSIONS);
	size_t len = strlen(ext);
	for (const char *p = all; p && (p = strstr(p, ext)); p += len)
		if ((p == all || p[-1] == ' ') && (p[len] == ' ' || p[len] == '\0'))
			return true;
	return false;
}

static void unload(struct gl *g)
{
	if (g->egl_lib)
		dlclose(g->egl_lib);
	if (g->glx_lib)
		dlclose(g->glx_lib);
	if (g->gl_lib)
		dlclose(g->gl_lib);
	free(g->pool);
	free(g);
}

/* Sets up the timer functions, or says in a->timer_why why there are none. */
static void find_timer(struct og_apictx *a, struct gl *g, int major, int minor)
{
	static const char *const es_names[] = { "EXT", NULL };
	static const char *const gl_names[] = { "", NULL };
	const char *const *suffix;
	if (g->es) {
		if (!has_extension(g, major, "GL_EXT_disjoint_timer_query")) {
			a->timer_why = "this GLES context lacks GL_EXT_disjoint_timer_query, the only "
			               "GPU timer GLES has";
			return;
		}
		g->disjoint = true;
		suffix = es_names;
	} else {
		if (major * 10 + minor < 33 && !has_extension(g, major, "GL_ARB_timer_query")) {
			a->timer_why = "this GL context has neither GL 3.3 nor GL_ARB_timer_query";
			return;
		}
		suffix = gl_names;
	}
	g->gen_queries = gl_proc_any(g, "glGenQueries", suffix);
	g->delete_queries = gl_proc_any(g, "glDeleteQueries", suffix);
	g->begin_query = gl_proc_any(g, "glBeginQuery", suffix);
	g->end_query = gl_proc_any(g, "glEndQuery", suffix);
	g->query_counter = gl_proc_any(g, "glQueryCounter", suffix);
	g->get_queryiv = gl_proc_any(g, "glGetQueryiv", suffix);
	g->get_query_objectuiv = gl_proc_any(g, "glGetQueryObjectuiv", suffix);
	g->get_query_objectui64v = gl_proc_any(g, "glGetQueryObjectui64v", suffix);
	if (!g->gen_queries || !g->delete_queries || !g->begin_query || !g->end_query ||
	    !g->query_counter || !g->get_queryiv || !g->get_query_objectuiv ||
	    !g->get_query_objectui64v) {
		a->timer_why = "the GL library does not provide the timer query functions its "
		               "context advertises";
		return;
	}
	GLint ts_bits = 0, te_bits = 0;
	g->get_queryiv(GL_TIMESTAMP, GL_QUERY_COUNTER_BITS, &ts_bits);
	g->get_queryiv(GL_TIME_ELAPSED, GL_QUERY_COUNTER_BITS, &te_bits);
	g->timestamps = ts_bits > 0;
	if (!g->timestamps && te_bits <= 0) {
		a->timer_why = "the driver's GPU timer has no bits (GL_QUERY_COUNTER_BITS is 0)";
		return;
	}
	a->timer_what = g->timestamps ? "GL_TIMESTAMP queries at BeginSample and EndSample"
	                              : "a GL_TIME_ELAPSED query around each sample";
}

static GPA_Status gl_open(struct og_apictx *a, void *key)
{
	struct gl *g = calloc(1, sizeof(*g));
	if (!g)
		return og_error(GPA_STATUS_ERROR_FAILED, "opening a context: out of memory");
	g->egl_lib = og_api_loaded(egl_libs);
	g->glx_lib = og_api_loaded(glx_libs);
	g->gl_lib = og_api_loaded(gl_libs);
	void *(*egl_current)(void) = g->egl_lib ? og_api_sym(g->egl_lib, "eglGetCurrentContext") : NULL;
	void *(*glx_current)(void) = g->glx_lib ? og_api_sym(g->glx_lib, "glXGetCurrentContext") : NULL;
	if (!egl_current && !glx_current) {
		unload(g);
		return GPA_STATUS_ERROR_NOT_FOUND; /* no GL in this process */
	}
	void *egl_ctx = egl_current ? egl_current() : NULL;
	void *glx_ctx = glx_current ? glx_current() : NULL;
	if (!egl_ctx && !glx_ctx) {
		unload(g);
		return og_error(GPA_STATUS_ERROR_FAILED,
		                "GPA_OpenContext(%p): no %s context is current on this thread; make the "
		                "application's context current (eglMakeCurrent, glXMakeCurrent) and "
		                "open the GPA context on it, as GPA requires", key, og_api_name(a->api));
	}
	g->egl = egl_ctx && (key == egl_ctx || key != glx_ctx);
	g->ctx = g->egl ? egl_ctx : glx_ctx;
	g->get_current = g->egl ? egl_current : glx_current;
	g->get_proc = g->egl ? og_api_sym(g->egl_lib, "eglGetProcAddress")
	                     : og_api_sym(g->glx_lib, "glXGetProcAddressARB");
	if (key != g->ctx)
		og_log(OG_LOG_MESSAGE, "GPA_OpenContext(%p): that is not the current %s context; "
		       "opengpa counts on the current one, %p, as GPA does", key,
		       g->egl ? "EGL" : "GLX", g->ctx);
	g->finish = gl_proc(g, "glFinish");
	g->flush = gl_proc(g, "glFlush");
	g->get_string = gl_proc(g, "glGetString");
	g->get_integerv = gl_proc(g, "glGetIntegerv");
	g->get_stringi = gl_proc(g, "glGetStringi");
	const char *version = g->get_string ? (const char *)g->get_string(GL_VERSION) : NULL;
	if (!g->finish || !g->flush || !g->get_integerv || !version) {
		unload(g);
		return og_error(GPA_STATUS_ERROR_FAILED,
		                "GPA_OpenContext(%p): the process's GL library does not answer "
		                "glGetString(GL_VERSION) for the current context; is it a GL context?",
		                key);
	}
	int major = 0, minor = 0;
	g->es = strncmp(version, "OpenGL ES", 9) == 0;
	if (sscanf(version + (g->es ? 9 : 0), "%*[^0-9]%d.%d", &major, &minor) < 2 &&
	    sscanf(version + (g->es ? 9 : 0), "%d.%d", &major, &minor) < 2)
		major = minor = 0;
	if ((a->api == OG_API_GLES) != g->es)
		og_log(OG_LOG_MESSAGE, "GPA_OpenContext: the library was asked for a %s context "
		       "but the current one is %s (%s); counting on it as it is",
		       og_api_name(a->api), g->es ? "GLES" : "desktop GL", version);
	a->api = g->es ? OG_API_GLES : OG_API_GL;
	static const char *const reset_names[] = { "", "KHR", "EXT", "ARB", NULL };
	static const char *const reset_exts[] = { NULL, "GL_KHR_robustness", "GL_EXT_robustness",
		                                  "GL_ARB_robustness", NULL };
	bool core_reset = g->es ? major * 10 + minor >= 32 : major * 10 + minor >= 45;
	for (size_t i = 0; reset_names[i] && !g->reset_status; i++) {
		if (i == 0 ? !core_reset : !has_extension(g, major, reset_exts[i]))
			continue;
		const char *one[] = { reset_names[i], NULL };
		g->reset_status = gl_proc_any(g, "glGetGraphicsResetStatus", one);
	}
	find_timer(a, g, major, minor);
	const char *renderer = (const char *)g->get_string(GL_RENDERER);
	snprintf(a->desc, sizeof(a->desc), "%s context %p (%s): %s%s%s", g->es ? "GLES" : "GL",
	         g->ctx, g->egl ? "EGL" : "GLX", version, renderer ? ", " : "",
	         renderer ? renderer : "");
	a->priv = g;
	return GPA_STATUS_OK;
}

static void gl_close(struct og_apictx *a)
{
	struct gl *g = a->priv;
	if (g->npool) {
		if (g->get_current() == g->ctx)
			g->delete_queries((GLsizei)g->npool, g->pool);
		else
			og_log(OG_LOG_MESSAGE, "closing the GPA context of GL context %p on a thread "
			       "where it is not current: its %zu timer queries go with the GL context",
			       g->ctx, g->npool);
	}
	unload(g);
}

static const char *reset_name(GLenum r)
{
	switch (r) {
	case 0x8253: return "GL_GUILTY_CONTEXT_RESET";
	case 0x8254: return "GL_INNOCENT_CONTEXT_RESET";
	case 0x8255: return "GL_UNKNOWN_CONTEXT_RESET";
	default: return "a reset";
	}
}

static GPA_Status gl_usable(struct og_apictx *a, const char *func)
{
	struct gl *g = a->priv;
	if (a->lost)
		return og_error(GPA_STATUS_ERROR_FAILED, "%s: GL context %p was lost; create a new GL "
		                "context and open a GPA context on it", func, g->ctx);
	void *cur = g->get_current();
	if (cur != g->ctx)
		return og_error(GPA_STATUS_ERROR_FAILED,
		                "%s: GL context %p, which this GPA context counts on, is not current "
		                "on this thread (%s is); make it current (%s) before sampling, or "
		                "open a GPA context on the one that is", func, g->ctx,
		                cur ? "another context" : "none", g->egl ? "eglMakeCurrent"
		                                                         : "glXMakeCurrent");
	GLenum r = g->reset_status ? g->reset_status() : GL_NO_ERROR;
	if (r != GL_NO_ERROR) {
		a->lost = true;
		return og_error(GPA_STATUS_ERROR_FAILED,
		                "%s: GL context %p was lost (%s): its GPU work and timers are gone; "
		                "create a new GL context and open a GPA context on it", func, g->ctx,
		                reset_name(r));
	}
	return GPA_STATUS_OK;
}

static GPA_Status gl_sync(struct og_apictx *a, enum og_sync mode, const char *func)
{
	struct gl *g = a->priv;
	(void)func;
	if (mode == OG_SYNC_FINISH)
		g->finish();
	else
		g->flush();
	return GPA_STATUS_OK;
}

/* GL_GPU_DISJOINT_EXT is set: every timing in flight is suspect. */
static void check_disjoint(struct og_apictx *a, struct gl *g)
{
	GLint disjoint = 0;
	if (g->disjoint) {
		g->get_integerv(GL_GPU_DISJOINT_EXT, &disjoint);
		if (disjoint)
			og_apictx_mark_disjoint(a);
	}
}

static GLuint take_query(struct gl *g)
{
	if (g->npool)
		return g->pool[--g->npool];
	GLuint q = 0;
	g->gen_queries(1, &q);
	return q;
}

static void give_query(struct gl *g, GLuint q)
{
	if (!q)
		return;
	if (g->npool == g->cappool && g->cappool < POOL_KEEP) {
		size_t cap = g->cappool ? 2 * g->cappool : 64;
		GLuint *pool = realloc(g->pool, cap * sizeof(*pool));
		if (pool) {
			g->pool = pool;
			g->cappool = cap;
		}
	}
	if (g->npool < g->cappool)
		g->pool[g->npool++] = q;
	else if (g->get_current() == g->ctx)
		g->delete_queries(1, &q);
	/* else it goes with the GL context */
}

static GPA_Status gl_time_begin(struct og_apictx *a, struct og_api_timing *t, const char *func)
{
	struct gl *g = a->priv;
	check_disjoint(a, g); /* earlier samples in flight; not this one */
	GLuint q = 0;
	if (!g->timestamps) {
		GLint active = 0;
		g->get_queryiv(GL_TIME_ELAPSED, GL_CURRENT_QUERY, &active);
		if (active)
			return og_error(GPA_STATUS_ERROR_FAILED,
			                "%s: the application has a GL_TIME_ELAPSED query of its own "
			                "active (query %d), and GL allows one at a time; this driver has "
			                "no GL_TIMESTAMP to time samples otherwise: end yours first",
			                func, active);
	}
	if (!(q = take_query(g)))
		return og_error(GPA_STATUS_ERROR_FAILED, "%s: glGenQueries gave no query object", func);
	t->obj[0] = q;
	if (g->timestamps)
		g->query_counter(q, GL_TIMESTAMP);
	else
		g->begin_query(GL_TIME_ELAPSED, q);
	return GPA_STATUS_OK;
}

static GPA_Status gl_time_end(struct og_apictx *a, struct og_api_timing *t, const char *func)
{
	struct gl *g = a->priv;
	if (!g->timestamps) {
		g->end_query(GL_TIME_ELAPSED);
		return GPA_STATUS_OK;
	}
	GLuint q = take_query(g);
	if (!q)
		return og_error(GPA_STATUS_ERROR_FAILED, "%s: glGenQueries gave no query object", func);
	t->obj[1] = q;
	g->query_counter(q, GL_TIMESTAMP);
	return GPA_STATUS_OK;
}

/* The query's result, or UINT64_MAX when the driver wrote none. */
static GLuint64 result(struct gl *g, GLuint q)
{
	GLuint64 v = UINT64_MAX;
	g->get_query_objectui64v(q, GL_QUERY_RESULT, &v);
	return v;
}

static enum og_api_read gl_time_read(struct og_apictx *a, struct og_api_timing *t, bool wait,
                                     uint64_t *ns)
{
	struct gl *g = a->priv;
	if (a->lost) {
		og_log(OG_LOG_ERROR, "GL context %p was lost before the sample's GPU time was read",
		       g->ctx);
		return OG_API_FAILED;
	}
	if (g->get_current() != g->ctx) {
		/* Not lost: the thread that renders can still read it. */
		if (wait)
			og_log(OG_LOG_ERROR, "the sample's GPU time is in timer queries of GL context "
			       "%p, which is not current on this thread: read results on the thread "
			       "that renders, or use synchronised samples (they are read at "
			       "GPA_EndSample)", g->ctx);
		return OG_API_PENDING;
	}
	GLuint last = (GLuint)(g->timestamps ? t->obj[1] : t->obj[0]);
	GLuint available = 0;
	g->get_query_objectuiv(last, GL_QUERY_RESULT_AVAILABLE, &available);
	if (!available && !wait)
		return OG_API_PENDING;
	GLuint64 begin = result(g, (GLuint)t->obj[0]);
	GLuint64 end = g->timestamps ? result(g, last) : 0;
	check_disjoint(a, g);
	if (begin == UINT64_MAX || end == UINT64_MAX) {
		og_log(OG_LOG_ERROR, "the GL driver gave no result for the sample's timer query");
		return OG_API_FAILED;
	}
	if (t->disjoint) {
		og_log(OG_LOG_ERROR, "GL_GPU_DISJOINT_EXT: the GPU's timer jumped (a clock or power "
		       "change) while the sample was timed, so its GPUTime means nothing; sample "
		       "again");
		return OG_API_FAILED;
	}
	*ns = g->timestamps ? (end > begin ? end - begin : 0) : begin;
	return OG_API_DONE;
}

static void gl_time_free(struct og_apictx *a, struct og_api_timing *t)
{
	struct gl *g = a->priv;
	give_query(g, (GLuint)t->obj[0]);
	give_query(g, (GLuint)t->obj[1]);
	t->obj[0] = t->obj[1] = 0;
}

const struct og_api_impl og_api_gl = {
	.open = gl_open,
	.close = gl_close,
	.usable = gl_usable,
	.sync = gl_sync,
	.time_begin = gl_time_begin,
	.time_end = gl_time_end,
	.time_read = gl_time_read,
	.time_free = gl_time_free,
};
