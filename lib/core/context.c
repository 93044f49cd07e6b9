/* SPDX-License-Identifier: MIT */
/*
 * context.c — a context's life: the backends this build has, opening one
 * (the application's API context first, then the backend, then the
 * catalogue from the counter files context_files.c collects), finding it,
 * its settings (multiplexing, the session ring), closing it.  Its enable
 * set is selection.c's.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "backend_list.h"
#include "apictx/apictx.h"
#include "core/context_files.h"
#include "core/explicit.h"
#include "core/readers.h"
#include "core/registry.h"

#define X(name) extern const struct og_backend_ops og_backend_##name;
OG_BACKEND_LIST(X)
#undef X

/* A backend this build left out (meson's summary says which and why) is
 * still listed, last, with why: naming it, or `opengpa list --backends`,
 * tells the user what the build lacks rather than that no such backend
 * exists.  Its open says so; the core calls nothing else on it. */
#define X(b, why)                                                                                 \
	static GPA_Status left_out_##b(const struct og_backend_host *host, const char *options,   \
	                               void **state, struct og_device_info *info)                 \
	{                                                                                         \
		(void)options, (void)state, (void)info;                                           \
		host->log(host->log_ctx, OG_LOG_ERROR,                                            \
		          "%s: left out of this build of opengpa: %s; rebuild with it", #b, why); \
		return GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED;                                   \
	}                                                                                         \
	static const struct og_backend_ops og_left_out_##b = {                                    \
		.name = #b,                                                                       \
		.summary = "left out of this build: " why,                                        \
		.open = left_out_##b,                                                             \
	};
OG_BACKENDS_LEFT_OUT(X)
#undef X

static const struct og_backend_ops *const backends[] = {
#define X(name) &og_backend_##name,
	OG_BACKEND_LIST(X)
#undef X
#define X(b, why) &og_left_out_##b,
	OG_BACKENDS_LEFT_OUT(X)
#undef X
	NULL,
};

const struct og_backend_ops *og_backend_at(size_t index)
{
	return index < sizeof(backends) / sizeof(backends[0]) ? backends[index] : NULL;
}

/* While `auto` probes, a backend's errors are expected (no Mali on a
 * laptop): they are logged as messages, and only the overall failure is an
 * error.  A non-NULL log_ctx marks the probing. */
__attribute__((format(printf, 3, 4))) static void host_log(void *log_ctx, enum og_log_level level,
                                                          const char *fmt, ...)
{
	if (log_ctx && level == OG_LOG_ERROR)
		level = OG_LOG_MESSAGE;
	va_list ap;
	va_start(ap, fmt);
	og_logv(level, fmt, ap);
	va_end(ap);
}

/* Whether host_log's message would reach anyone (lock held, as for the
 * log itself). */
static bool host_log_wants(void *log_ctx, enum og_log_level level)
{
	return og_log_wants(log_ctx && level == OG_LOG_ERROR ? OG_LOG_MESSAGE : level);
}

/* ---- registry of contexts -------------------------------------------- */

struct og_context *og_context_find(enum og_front front, void *key)
{
	for (struct og_context *c = og_registry()->contexts; c; c = c->next)
		if (c->front == front && c->key == key)
			return c;
	return NULL;
}

struct og_context *og_context_by_serial(uint64_t serial)
{
	for (struct og_context *c = og_registry()->contexts; c; c = c->next)
		if (c->serial == serial)
			return c;
	return NULL;
}

struct og_context *og_context_current(void)
{
	return og_registry()->current;
}

void og_context_make_current(struct og_context *ctx)
{
	__atomic_store_n(&og_registry()->current, ctx, __ATOMIC_RELEASE);
	og_readers_changed();
}

/* ---- opening ------------------------------------------------------------ */

/* The OPENGPA_* variables this file reads at each open, found in one walk
 * of the environment: each secure_getenv walks all of it, and an open made
 * six of them here (3.5k instructions with ten variables set, more in a
 * desktop's environment).  Read at every open, so a variable set between
 * two opens is seen by the second; none in a set-user-ID process, as
 * secure_getenv; the first definition of a name wins, as getenv's. */
struct open_env {
	const char *backend, *options, *ring, *multiplex, *hardware, *instance;
};

static void read_open_env(struct open_env *e)
{
	memset(e, 0, sizeof(*e));
	if (getauxval(AT_SECURE))
		return;
	/* (tests/tools/check_env_docs.py reads these names.) */
	static const struct {
		const char *name;
		size_t at;
	} names[] = {
		{ "OPENGPA_BACKEND", offsetof(struct open_env, backend) },
		{ "OPENGPA_BACKEND_OPTIONS", offsetof(struct open_env, options) },
		{ "OPENGPA_SESSION_RING", offsetof(struct open_env, ring) },
		{ "OPENGPA_MULTIPLEX", offsetof(struct open_env, multiplex) },
		{ "OPENGPA_HARDWARE_COUNTERS", offsetof(struct open_env, hardware) },
		{ "OPENGPA_INSTANCE_COUNTERS", offsetof(struct open_env, instance) },
	};
	for (char **p = environ; p && *p; p++) {
		if ((*p)[0] != 'O' || strncmp(*p, "OPENGPA_", 8) != 0)
			continue; /* most variables: one byte compared */
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			size_t n = strlen(names[i].name);
			const char **slot = (const char **)((char *)e + names[i].at);
			if (strncmp(*p, names[i].name, n) == 0 && (*p)[n] == '=' && !*slot)
				*slot = *p + n + 1;
		}
	}
}

static const char *setting(const char *value, const char *env, const char *fallback)
{
	if (value)
		return value;
	return env && *env ? env : fallback;
}

static bool env_true(const char *v)
{
	return v && (strcmp(v, "1") == 0 || strcasecmp(v, "yes") == 0 || strcasecmp(v, "true") == 0);
}

static GPA_Status open_backend(struct og_context *ctx, const char *name, const char *options)
{
	const struct og_settings *set = og_settings();
	ctx->host.sys = set->sys ? set->sys : og_sys_real();
	ctx->host.log = host_log;
	ctx->host.log_wants = host_log_wants;
	ctx->host.log_ctx = NULL;

	if (strcmp(name, "test") == 0 && set->test_backend) {
		ctx->ops = set->test_backend;
		return ctx->ops->open(&ctx->host, options, &ctx->state, &ctx->info);
	}
	if (strcmp(name, "auto") != 0) {
		for (size_t i = 0; backends[i]; i++) {
			if (strcmp(backends[i]->name, name) != 0)
				continue;
			ctx->ops = backends[i];
			return ctx->ops->open(&ctx->host, options, &ctx->state, &ctx->info);
		}
		char list[256] = "";
		for (size_t i = 0; backends[i]; i++) {
			strncat(list, i ? ", " : "", sizeof(list) - strlen(list) - 1);
			strncat(list, backends[i]->name, sizeof(list) - strlen(list) - 1);
		}
		return og_error(GPA_STATUS_ERROR_FAILED,
		                "backend '%s' is not in this build of opengpa; set OPENGPA_BACKEND to "
		                "auto or one of: %s", name, list);
	}

	if (*options)
		return og_error(GPA_STATUS_ERROR_FAILED,
		                "backend options '%s' need a named backend: set OPENGPA_BACKEND (or "
		                "OpenGPA_SetBackend) to the backend they are for", options);
	/* auto: the first backend whose device is here, GPUs before the CPU. */
	ctx->host.log_ctx = ctx;
	for (size_t i = 0; backends[i]; i++) {
		memset(&ctx->info, 0, sizeof(ctx->info));
		GPA_Status st = backends[i]->open(&ctx->host, "", &ctx->state, &ctx->info);
		if (st == GPA_STATUS_OK) {
			ctx->ops = backends[i];
			ctx->host.log_ctx = NULL;
			return GPA_STATUS_OK;
		}
	}
	ctx->host.log_ctx = NULL;
	return og_error(GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED,
	                "no backend found a device it can count (set OPENGPA_LOG=message to see "
	                "what each backend tried, or name one with OPENGPA_BACKEND)");
}

static bool api_source(const char *source)
{
	/* Asked for every raw counter of every open: no library call. */
	return source && source[0] == 'a' && source[1] == 'p' && source[2] == 'i' &&
	       source[3] == ':';
}

/* What the catalogue's questions go to: the context, and the user's
 * constants in the environment as this open read them. */
struct binding {
	struct og_context *ctx;
	const struct og_env_constants *env;
};

/* "api:" sources are the application's API's (apictx.h), the rest the
 * backend's. */
static GPA_Status bind_raw(void *ud, const char *name, const char *source, uint32_t *id,
                           const char **why_not)
{
	struct og_context *ctx = ((struct binding *)ud)->ctx;
	if (!api_source(source))
		return ctx->ops->bind_raw(ctx->state, name, source, id, why_not);
	if (ctx->api)
		return og_apictx_bind(ctx->api, source + 4, id, why_not);
	*why_not = "it is measured by the application's GL, GLES or OpenCL context, and this "
	           "context is plain (docs/api.md, \"Contexts and samples\")";
	return GPA_STATUS_ERROR_NOT_FOUND;
}

static bool rebind(void *ud, const char *source, uint32_t id, GPA_Status *status,
                   const char **why_not)
{
	struct og_context *ctx = ((struct binding *)ud)->ctx;
	if (api_source(source) || !ctx->ops->raw_why_not)
		return false;
	*why_not = ctx->ops->raw_why_not(ctx->state, id);
	*status = *why_not ? GPA_STATUS_ERROR_NOT_FOUND : GPA_STATUS_OK;
	return true;
}

static GPA_Status bind_constant(void *ud, const char *name, double *value)
{
	struct og_context *ctx = ((struct binding *)ud)->ctx;
	return ctx->ops->constant ? ctx->ops->constant(ctx->state, name, value)
	                          : GPA_STATUS_ERROR_NOT_FOUND;
}

static size_t bind_instances(void *ud, const char *source, uint32_t id,
                             struct og_raw_instance *out, size_t max)
{
	struct og_context *ctx = ((struct binding *)ud)->ctx;
	return api_source(source) || !ctx->ops->raw_instances
	               ? 0
	               : ctx->ops->raw_instances(ctx->state, id, out, max);
}

static bool bind_instances_key(void *ud, uint64_t *key)
{
	struct og_context *ctx = ((struct binding *)ud)->ctx;
	if (!ctx->ops->instances_key)
		return false;
	*key = ctx->ops->instances_key(ctx->state);
	return true;
}

/* The backend's answers_key stands for every answer of a plain context:
 * there "api:" sources get one fixed refusal.  An API context's answers
 * depend on its API too, so its catalogue is checked question by question. */
static size_t bind_answers_key(void *ud, void *buf, size_t max)
{
	struct og_context *ctx = ((struct binding *)ud)->ctx;
	return ctx->api || !ctx->ops->answers_key ? 0 : ctx->ops->answers_key(ctx->state, buf, max);
}

static bool bind_counts_instances(void *ud, const char *name)
{
	struct og_context *ctx = ((struct binding *)ud)->ctx;
	return ctx->ops->constant_counts_instances &&
	       ctx->ops->constant_counts_instances(ctx->state, name);
}

static bool bind_override(void *ud, const char *name, double *value)
{
	return og_constant_lookup(((struct binding *)ud)->env, name, value);
}

__attribute__((format(printf, 3, 4))) static void bind_log(void *ud, bool error, const char *fmt, ...)
{
	(void)ud;
	va_list ap;
	va_start(ap, fmt);
	og_logv(error ? OG_LOG_ERROR : OG_LOG_MESSAGE, fmt, ap);
	va_end(ap);
}

static void mark_api_raws(struct og_catalog *cat)
{
	for (size_t r = 0; r < cat->nraw; r++)
		cat->raws[r].api = api_source(cat->raws[r].source);
}

/* The catalogue: kept from an earlier open when this one's backend answers
 * as that one's did (catalog_cache.h), else built. */
static GPA_Status build_catalog(struct og_context *ctx, const struct og_open_options *opt,
                                const struct og_env_constants *env, const struct open_env *oe)
{
	struct og_file_list fl = { 0 };
	size_t nbuiltin = 0;
	GPA_Status st = og_context_files(&ctx->info, ctx->api != NULL, &fl, &nbuiltin);
	if (st != GPA_STATUS_OK) {
		og_file_list_free(&fl);
		return st;
	}
	const struct og_settings *set = og_settings();
	bool hw = opt->hardware_counters >= 0 ? opt->hardware_counters > 0
	        : set->hardware_counters >= 0 ? set->hardware_counters > 0
	                                      : env_true(oe->hardware);
	/* Per-instance copies only when asked for (opengpa.h): without the
	 * binder's instances the catalogue makes none. */
	bool inst = set->instance_counters >= 0 ? set->instance_counters > 0
	                                        : env_true(oe->instance);
	size_t nextra = 0;
	const struct og_raw_desc *extra = ctx->ops->extra_raw ? ctx->ops->extra_raw(ctx->state, &nextra)
	                                                      : NULL;
	struct binding to = { ctx, env };
	struct og_binder binder = {
		.ud = &to, .backend = ctx->ops->name, .bind_raw = bind_raw, .rebind = rebind,
		.constant = bind_constant, .override = bind_override, .log = bind_log,
		.instances = inst && ctx->ops->raw_instances ? bind_instances : NULL,
		.counts_instances = bind_counts_instances,
		.instances_key = bind_instances_key,
		.answers_key = bind_answers_key,
	};
	const struct og_catalog_request req = {
		.backend = ctx->ops, .files = fl.files, .nfiles = fl.count, .nbuiltin = nbuiltin,
		.binder = &binder, .extra = extra, .nextra = extra ? nextra : 0,
		.hardware_counters = hw, .instance_counters = inst, .hide_derived = opt->hide_derived,
		.finish = mark_api_raws,
	};
	char err[512];
	st = og_catalog_get(&og_registry()->catalogs, &req, &ctx->cat, &ctx->cat_entry, err,
	                    sizeof(err));
	if (st != GPA_STATUS_OK)
		return og_error(st, "cannot build the counter list: %s", err);
	if (ctx->cat.ncounters == 0)
		return og_error(GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED,
		                "the %s backend opened %s but none of its counters can be counted here "
		                "(set OPENGPA_LOG=message to see why)", ctx->ops->name,
		                ctx->info.description);
	return GPA_STATUS_OK;
}

/* The ring's slots: a power of two, at least `size`, so that finding a
 * session is a mask, not a division. */
static struct og_ring *ring_new(uint32_t size)
{
	uint32_t cap = 1;
	while (cap < size)
		cap *= 2;
	struct og_ring *ring = calloc(1, sizeof(*ring) + cap * sizeof(ring->slot[0]));
	if (ring)
		*ring = (struct og_ring){ size, cap - 1 };
	return ring;
}

static unsigned ring_size_from_env(const char *v)
{
	if (!v || !*v)
		return OG_DEFAULT_SESSION_RING;
	char *end;
	unsigned long n = strtoul(v, &end, 10);
	if (*end || n < 1 || n > 4096) {
		og_log(OG_LOG_ERROR, "OPENGPA_SESSION_RING=%s is not a number from 1 to 4096; using %d",
		       v, OG_DEFAULT_SESSION_RING);
		return OG_DEFAULT_SESSION_RING;
	}
	return (unsigned)n;
}

GPA_Status og_context_open(enum og_front front, void *key, const struct og_open_options *how,
                           struct og_context **out)
{
	static const struct og_open_options defaults = { .hardware_counters = -1 };
	struct og_context *ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return og_error(GPA_STATUS_ERROR_FAILED, "opening a context: out of memory");
	ctx->key = key;
	ctx->front = front;
	ctx->next_session_id = 1;
	ctx->plan_epoch = 1;
	ctx->frame_fd = -1;

	/* The application's API first: its context must be there whatever
	 * the backend finds. */
	bool explicit_api;
	const char *api_how;
	enum og_api api = og_api_wanted(&explicit_api, &api_how);
	GPA_Status st = og_apictx_open(api, explicit_api, api_how,
	                               how && how->api_info ? how->api_info : key,
	                               how ? how->api_flags : 0, &ctx->api);
	const struct og_settings *set = og_settings();
	struct open_env oe;
	read_open_env(&oe);
	const char *backend = setting(set->backend, oe.backend, "auto");
	const char *options = setting(set->backend_options, oe.options, "");
	if (st == GPA_STATUS_OK)
		st = open_backend(ctx, backend, options);
	if (st != GPA_STATUS_OK) {
		ctx->ops = NULL; /* nothing to close */
		og_context_close(ctx);
		return st;
	}
	struct og_env_constants env;
	st = og_constants_read_env(&env);
	if (st == GPA_STATUS_OK)
		st = build_catalog(ctx, how ? how : &defaults, &env, &oe);
	if (st == GPA_STATUS_OK) {
		unsigned ring_size = ring_size_from_env(oe.ring);
		ctx->multiplex = env_true(oe.multiplex);
		ctx->frame_fd = og_apictx_frame_fd();
		if (ctx->multiplex && !ctx->ops->begin_multiplexed_pass) {
			og_log(OG_LOG_MESSAGE, "OPENGPA_MULTIPLEX: the %s backend cannot time-share "
			       "counters; they take the passes GPA_GetPassCount says", ctx->ops->name);
			ctx->multiplex = false;
		}
		ctx->ring = ring_new(ring_size);
		ctx->scratch = calloc(ctx->cat.nraw + 1, sizeof(*ctx->scratch));
		if (!ctx->ring || !ctx->scratch || og_selection_init(&ctx->sel, ctx) != GPA_STATUS_OK)
			st = og_error(GPA_STATUS_ERROR_FAILED, "opening a context: out of memory");
	}
	if (st != GPA_STATUS_OK) {
		og_context_close(ctx);
		return st;
	}
	struct og_registry *r = og_registry();
	ctx->serial = r->next_serial++;
	/* Open order: closing the current context selects the first opened 2.x
	 * one that remains, as GPA 2.x does. */
	struct og_context **tail = &r->contexts;
	while (*tail)
		tail = &(*tail)->next;
	*tail = ctx;
	og_log(OG_LOG_MESSAGE, "opened a context on %s through the %s backend: %zu counters; %s",
	       ctx->info.description, ctx->ops->name, ctx->cat.ncounters,
	       ctx->api ? og_apictx_describe(ctx->api)
	                : (const char *)"plain: the context pointer is a key, samples are not "
	                                "synchronised");
	*out = ctx;
	return GPA_STATUS_OK;
}

void og_context_close(struct og_context *ctx)
{
	struct og_registry *r = og_registry();
	for (struct og_context **pp = &r->contexts; *pp; pp = &(*pp)->next)
		if (*pp == ctx) {
			*pp = ctx->next;
			break;
		}
	if (r->current == ctx) {
		struct og_context *next = r->contexts;
		while (next && next->front != OG_FRONT_GPA2)
			next = next->next;
		og_context_make_current(next);
	}
	/* A reader may have found it current before: none reads it after this
	 * (a context made current and then not is no different). */
	og_readers_sync();
	og_xsession_delete_all(ctx);
	og_handle_free(ctx->handle);
	for (uint32_t i = 0; ctx->ring && i <= ctx->ring->mask; i++)
		og_session_free(ctx->ring->slot[i]);
	if (ctx->ops)
		ctx->ops->close(ctx->state);
	og_apictx_close(ctx->api); /* after the sessions, which held its timings */
	og_selection_free(&ctx->sel);
	og_catalog_release(&r->catalogs, &ctx->cat, ctx->cat_entry);
	ctx->cat_entry = NULL;
	free(ctx->ring);
	free(ctx->scratch);
	free(ctx);
	og_session_notify();
}

void og_context_forget_catalogs(void)
{
	og_catalog_cache_trim(&og_registry()->catalogs);
}

GPA_Status og_context_set_multiplex(struct og_context *ctx, bool enable)
{
	if (enable && !ctx->ops->begin_multiplexed_pass)
		return og_error(GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED,
		                "the %s backend counts every counter it can at once and cannot "
		                "time-share more; its counters take the passes GPA_GetPassCount says",
		                ctx->ops->name);
	if (ctx->multiplex != enable)
		ctx->plan_epoch++; /* every selection plans again */
	ctx->multiplex = enable;
	return GPA_STATUS_OK;
}

GPA_Status og_context_set_ring_size(struct og_context *ctx, uint32_t size)
{
	if (size < 1 || size > 4096)
		return og_error(GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE,
		                "session ring size %u is out of range: choose 1 to 4096", size);
	struct og_ring *ring = ring_new(size), *old = ctx->ring;
	if (!ring)
		return og_error(GPA_STATUS_ERROR_FAILED, "out of memory");
	/* Keep the newest sessions that fit. */
	for (uint32_t i = 0; i <= old->mask; i++) {
		struct og_session *s = old->slot[i];
		if (s && og_session_id(s) + size >= ctx->next_session_id)
			ring->slot[(og_session_id(s) - 1) & ring->mask] = s;
	}
	__atomic_store_n(&ctx->ring, ring, __ATOMIC_RELEASE);
	og_readers_sync(); /* none reads the old ring now */
	for (uint32_t i = 0; i <= old->mask; i++) {
		struct og_session *s = old->slot[i];
		if (s && ring->slot[(og_session_id(s) - 1) & ring->mask] != s)
			og_session_free(s);
	}
	free(old);
	return GPA_STATUS_OK;
}
