/* SPDX-License-Identifier: MIT */
/*
 * apictx.c — which API a context binds to, the sync mode, and the
 * timings the core holds for its samples (apictx.h).  The API calls
 * themselves are in apictx/gl.c and apictx/cl.c.
 *
 * Which name the library was loaded under: the aliases are symbolic links
 * to one libopengpa.so.1, and the dynamic loader keeps the name it opened
 * an object by (the link map's l_name, what dladdr reports), so dladdr on
 * one of our own functions says "…/libGPUPerfAPIGLES.so" when a GPA tool
 * dlopened that name.  A process that loaded the library first under
 * another name (linked as libopengpa.so.1, say) keeps that name for it:
 * OpenGPA_SetContextApi or OPENGPA_API say what the context is then.
 * (Separate shim libraries per name would tell the loads apart in that
 * case too, but every GPA tool opens one name per process, and one file
 * under four names is what the packages already ship.)
 */
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/stat.h>

#include "apictx/impl.h"
#include "core/core.h"

/* Timings in flight at once: a sample holds one until its result is read
 * or its session is overwritten.  Far beyond what any client keeps unread;
 * past it a sample's GPUTime fails with a message, and nothing grows. */
#define OG_API_MAX_TIMINGS (1u << 18)

enum { TIMING_FREE, TIMING_BEGUN, TIMING_ENDED };

const char *og_api_name(enum og_api api)
{
	switch (api) {
	case OG_API_GL: return "gl";
	case OG_API_GLES: return "gles";
	case OG_API_CL: return "cl";
	case OG_API_VK: return "vk";
	default: return "none";
	}
}

bool og_api_parse(const char *text, enum og_api *api)
{
	static const enum og_api all[] = { OG_API_NONE, OG_API_GL, OG_API_GLES, OG_API_CL,
	                                   OG_API_VK };
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (strcasecmp(text, og_api_name(all[i])) == 0) {
			*api = all[i];
			return true;
		}
	return false;
}

enum og_api og_api_from_filename(const char *path)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	static const char prefix[] = "libGPUPerfAPI";
	if (strncmp(base, prefix, sizeof(prefix) - 1) != 0)
		return OG_API_NONE;
	base += sizeof(prefix) - 1;
	/* GLES before GL; what follows the API is GPA's suffix ("32", "-d",
	 * "-Internal") or ".so", never more letters (…GLX would be another API). */
	static const struct {
		const char *name;
		enum og_api api;
	} names[] = { { "GLES", OG_API_GLES }, { "GL", OG_API_GL }, { "CL", OG_API_CL },
	                { "VK", OG_API_VK } };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t n = strlen(names[i].name);
		if (strncmp(base, names[i].name, n) == 0 &&
		    (base[n] == '.' || base[n] == '-' || base[n] == '3'))
			return names[i].api;
	}
	return OG_API_NONE;
}

enum og_api og_api_wanted(bool *explicit_, const char **how)
{
	enum og_api api = OG_API_NONE;
	const char *set = og_settings()->api;
	if (set && strcasecmp(set, "auto") != 0 && og_api_parse(set, &api)) {
		*explicit_ = true;
		*how = "OpenGPA_SetContextApi";
		return api;
	}
	const char *env = set ? NULL : secure_getenv("OPENGPA_API");
	if (env && *env && strcasecmp(env, "auto") != 0) {
		if (og_api_parse(env, &api)) {
			*explicit_ = true;
			*how = "OPENGPA_API";
			return api;
		}
		og_log(OG_LOG_ERROR, "OPENGPA_API=%s is not one of auto, none, gl, gles, cl, vk; using "
		       "the name the library was loaded under", env);
	}
	*explicit_ = false;
	*how = "the library's file name";
	int *known = &og_settings()->api_from_name;
	int k = __atomic_load_n(known, __ATOMIC_RELAXED);
	if (k > 0)
		return (enum og_api)(k - 1);
	Dl_info info;
	api = OG_API_NONE;
	if (dladdr((void *)&og_api_wanted, &info) && info.dli_fname)
		api = og_api_from_filename(info.dli_fname);
	__atomic_store_n(known, (int)api + 1, __ATOMIC_RELAXED);
	return api;
}

const char *og_sync_name(enum og_sync mode)
{
	switch (mode) {
	case OG_SYNC_OFF: return "off";
	case OG_SYNC_FLUSH: return "flush";
	default: return "finish";
	}
}

enum og_sync og_sync_from_env(enum og_sync fallback)
{
	const char *v = secure_getenv("OPENGPA_SYNC");
	if (!v || !*v)
		return fallback;
	static const enum og_sync all[] = { OG_SYNC_OFF, OG_SYNC_FLUSH, OG_SYNC_FINISH };
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (strcasecmp(v, og_sync_name(all[i])) == 0)
			return all[i];
	og_log(OG_LOG_ERROR, "OPENGPA_SYNC=%s is not one of finish, flush, off; using %s", v,
	       og_sync_name(fallback));
	return fallback;
}

/* ---- opening ------------------------------------------------------------ */

void *og_api_loaded(const char *const *names)
{
	for (size_t i = 0; names[i]; i++) {
		void *h = dlopen(names[i], RTLD_LAZY | RTLD_NOLOAD);
		if (h)
			return h;
	}
	return NULL;
}

void *og_api_sym(void *lib, const char *name)
{
	void *p = dlsym(RTLD_DEFAULT, name);
	return p || !lib ? p : dlsym(lib, name);
}

GPA_Status og_apictx_open(enum og_api api, bool explicit_, const char *how, void *key,
                          uint32_t flags, struct og_apictx **out)
{
	*out = NULL;
	if (api == OG_API_NONE)
		return GPA_STATUS_OK;
	struct og_apictx *a = calloc(1, sizeof(*a));
	if (!a)
		return og_error(GPA_STATUS_ERROR_FAILED, "opening a context: out of memory");
	a->api = api;
	a->impl = api == OG_API_CL ? &og_api_cl : api == OG_API_VK ? &og_api_vk : &og_api_gl;
	a->open_flags = flags;
	a->sync = og_sync_from_env(OG_SYNC_FINISH);
	GPA_Status st = a->impl->open(a, key);
	if (st == GPA_STATUS_OK) {
		*out = a;
		return st;
	}
	free(a);
	if (st != GPA_STATUS_ERROR_NOT_FOUND)
		return st;
	const char *what = api == OG_API_CL ? "OpenCL" : api == OG_API_VK ? "Vulkan" : "GL";
	/* A Vulkan client's command lists are command buffers: never plain. */
	if (explicit_ || api == OG_API_VK)
		return og_error(GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED,
		                "GPA_OpenContext(%p): %s asks for a %s context, but this process has "
		                "no %s library loaded (libOpenCL, libEGL, libGL, libvulkan); open the context "
		                "after the application has created its own, or set OPENGPA_API=none",
		                key, how, og_api_name(api), what);
	og_log(OG_LOG_MESSAGE, "GPA_OpenContext(%p): loaded as a %s library, but this process has "
	       "no %s library loaded: the context is plain (the pointer is only a key) and samples "
	       "are not synchronised with any API", key, og_api_name(api), what);
	return GPA_STATUS_OK;
}

void og_apictx_close(struct og_apictx *a)
{
	if (!a)
		return;
	for (uint32_t i = 0; i < a->ntimings; i++)
		if (a->timings[i].state != TIMING_FREE)
			og_apictx_release(a, i + 1);
	a->impl->close(a);
	free(a->timings);
	free(a);
}

enum og_api og_apictx_api(const struct og_apictx *a)
{
	return a->api;
}

const char *og_apictx_describe(struct og_apictx *a)
{
	static const char *const how[] = {
		[OG_SYNC_OFF] = "not synchronised",
		[OG_SYNC_FLUSH] = "flushed at BeginSample and EndSample, not waited for",
		[OG_SYNC_FINISH] = "synchronised (the queue drains at BeginSample and EndSample)",
	};
	snprintf(a->line, sizeof(a->line), "%s; samples %s; GPUTime %s%s", a->desc, how[a->sync],
	         a->timer_why ? "unavailable: " : "from ",
	         a->timer_why ? a->timer_why : a->timer_what);
	return a->line;
}

enum og_sync og_apictx_sync(const struct og_apictx *a)
{
	return a->sync;
}

void og_apictx_set_sync(struct og_apictx *a, enum og_sync mode)
{
	a->sync = mode;
}

GPA_Status og_apictx_bind(const struct og_apictx *a, const char *name, uint32_t *value,
                          const char **why_not)
{
	if (strcmp(name, "gpu-time") != 0) {
		*why_not = "unknown api: source (the API sources are: api:gpu-time)";
		return GPA_STATUS_ERROR_FAILED;
	}
	*value = OG_API_GPU_TIME_NS;
	if (a->timer_why) {
		*why_not = a->timer_why;
		return GPA_STATUS_ERROR_NOT_FOUND;
	}
	return GPA_STATUS_OK;
}

/* ---- sample boundaries --------------------------------------------------- */

GPA_Status og_apictx_boundary(struct og_apictx *a, const char *func)
{
	GPA_Status st = a->impl->usable(a, func);
	if (st == GPA_STATUS_OK && a->sync != OG_SYNC_OFF)
		st = a->impl->sync(a, a->sync, func);
	return st;
}

static struct og_api_timing *timing(struct og_apictx *a, uint32_t token)
{
	return token && token <= a->ntimings && a->timings[token - 1].state != TIMING_FREE
	       ? &a->timings[token - 1]
	       : NULL;
}

GPA_Status og_apictx_time_begin(struct og_apictx *a, const char *func, uint32_t *token)
{
	uint32_t index;
	if (a->free_head) {
		index = a->free_head - 1;
		a->free_head = a->timings[index].next_free;
	} else {
		if (a->ntimings == OG_API_MAX_TIMINGS)
			return og_error(GPA_STATUS_ERROR_FAILED,
			                "%s: %u samples' GPU times are still unread; read results "
			                "(GPA_GetSample*) or let old sessions be overwritten", func,
			                OG_API_MAX_TIMINGS);
		if ((a->ntimings & (a->ntimings - 1)) == 0) { /* 0, 1, 2, 4, ...: grow */
			uint32_t cap = a->ntimings ? 2 * a->ntimings : 16;
			struct og_api_timing *t = realloc(a->timings, cap * sizeof(*t));
			if (!t)
				return og_error(GPA_STATUS_ERROR_FAILED, "%s: out of memory", func);
			a->timings = t;
		}
		index = a->ntimings++;
	}
	/* Not in flight until its begin is issued: a disjoint timer seen while
	 * beginning it concerns the samples before it. */
	struct og_api_timing *t = &a->timings[index];
	*t = (struct og_api_timing){ .state = TIMING_FREE };
	GPA_Status st = a->impl->time_begin(a, t, func);
	if (st != GPA_STATUS_OK) {
		t->next_free = a->free_head;
		a->free_head = index + 1;
		return st;
	}
	t->state = TIMING_BEGUN;
	a->live++;
	*token = index + 1;
	return GPA_STATUS_OK;
}

GPA_Status og_apictx_time_end(struct og_apictx *a, const char *func, uint32_t token)
{
	struct og_api_timing *t = timing(a, token);
	if (!t || t->state != TIMING_BEGUN)
		return og_error(GPA_STATUS_ERROR_FAILED, "%s: internal error: no GPU timer is running "
		                "for this sample", func);
	GPA_Status st = a->impl->time_end(a, t, func);
	if (st == GPA_STATUS_OK)
		t->state = TIMING_ENDED;
	return st;
}

enum og_api_read og_apictx_read(struct og_apictx *a, uint32_t token, bool wait, uint64_t *values)
{
	struct og_api_timing *t = timing(a, token);
	if (!t || t->state != TIMING_ENDED) {
		og_log(OG_LOG_ERROR, "the sample's GPU timer was never stopped (its EndSample failed); "
		       "it has no GPUTime");
		return OG_API_FAILED;
	}
	uint64_t ns = 0;
	enum og_api_read r = a->impl->time_read(a, t, wait, &ns);
	if (r == OG_API_DONE)
		values[OG_API_GPU_TIME_NS] = ns;
	return r;
}

void og_apictx_release(struct og_apictx *a, uint32_t token)
{
	struct og_api_timing *t = timing(a, token);
	if (!t)
		return;
	a->impl->time_free(a, t);
	t->state = TIMING_FREE;
	t->next_free = a->free_head;
	a->free_head = token;
	a->live--;
}

void og_apictx_mark_disjoint(struct og_apictx *a)
{
	for (uint32_t i = 0; i < a->ntimings; i++)
		if (a->timings[i].state != TIMING_FREE)
			a->timings[i].disjoint = true;
}

/* ---- samples on opengpa stat's timeline ----------------------------------- */

int og_apictx_frame_fd(void)
{
	const char *v = getenv("OPENGPA_FRAME_FD");
	if (!v || !*v)
		return -1;
	char *end;
	errno = 0;
	long fd = strtol(v, &end, 10);
	if (*end || errno || fd < 0 || fd > INT_MAX) {
		og_log(OG_LOG_MESSAGE, "OPENGPA_FRAME_FD='%s' is not a descriptor: this context's "
		       "samples are not on opengpa stat's timeline; unset OPENGPA_FRAME_FD", v);
		return -1;
	}
	return (int)fd;
}

void og_apictx_send_sample(const struct og_apictx *a, int frame_fd, uint32_t id,
                           uint64_t begin_ns, uint64_t end_ns)
{
	if (frame_fd < 0 || (a && a->api == OG_API_VK))
		return;
	int fd = frame_fd;
	struct stat st;
	/* Only ever a pipe (as OpenGPA_MarkFrame), checked at each sample: a
	 * number the program closed and reused for a file of its own since the
	 * context opened must not get our bytes.  Only a program under
	 * opengpa stat pays for the check. */
	if (fstat(fd, &st) != 0 || !S_ISFIFO(st.st_mode)) {
		og_log(OG_LOG_MESSAGE, "EndSample(%u): OPENGPA_FRAME_FD=%d is not an open pipe: "
		       "the sample is not on opengpa stat's timeline; unset OPENGPA_FRAME_FD", id, fd);
		return;
	}
	/* tools/opengpa/frame_marks.h: the begin with the top bit set, the end,
	 * the ID, in one write (24 bytes, under PIPE_BUF: whole). */
	uint64_t rec[3] = { (begin_ns & ~(UINT64_C(1) << 63)) | UINT64_C(1) << 63, end_ns, id };
	ssize_t n;
	while ((n = write((int)fd, rec, sizeof rec)) < 0 && errno == EINTR)
		;
	if (n != (ssize_t)sizeof rec)
		og_log(OG_LOG_MESSAGE, "EndSample(%u): the sample is not on opengpa stat's timeline: "
		       "%s", id, n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)
		                  ? "its reader is behind (the pipe is full)"
		                  : n < 0 ? strerror(errno) : "short write");
}
