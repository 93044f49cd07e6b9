/* SPDX-License-Identifier: MIT */
/*
 * core.h — the handle-based core the API front ends are written on.
 *
 * Threading model: one mutex guards the whole registry (every context,
 * session and backend).  A front end takes it with og_lock() at the start of
 * each entry point and drops it with og_unlock() before returning; nothing
 * in the core locks on its own.  Log messages raised under the lock are
 * queued and handed to the client's callback by og_unlock(), after the lock
 * is released, so a callback may call back into the API.  The only call
 * that waits is og_session_wait(), which sleeps on a condition variable
 * with the lock released.
 */
#ifndef OPENGPA_CORE_CORE_H
#define OPENGPA_CORE_CORE_H

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#include "GPUPerfAPITypes.h"
#include "backend.h"
#include "core/catalog.h"

#define OG_DEFAULT_SESSION_RING 4
#define OG_MAX_PASSES 64

/* ---- registry, locking and logging (registry.c, log.c) ---------------- */

void og_lock(void);
void og_unlock(void);

/* Queue a message for the client's callback (and stderr if OPENGPA_LOG asks).
 * Lock held.  No trailing newline. */
void og_log(enum og_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void og_logv(enum og_log_level level, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0), nonnull(2)));
/* Logs an error and returns its status, for one-line error paths. */
GPA_Status og_error(GPA_Status status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool og_log_wants(enum og_log_level level);

GPA_Status og_set_log_callback(GPA_Logging_Type type, GPA_LoggingCallbackPtrType callback);

/* Settings for contexts opened later (extension API; override OPENGPA_*). */
struct og_settings {
	char *backend;         /* NULL: OPENGPA_BACKEND, else "auto" */
	char *backend_options; /* NULL: OPENGPA_BACKEND_OPTIONS */
	int hardware_counters; /* -1: OPENGPA_HARDWARE_COUNTERS */
	char **counter_files;
	size_t ncounter_files;
	const struct og_sys *sys; /* NULL: the real kernel (tests put virtual devices here) */
	const struct og_backend_ops *test_backend; /* backend "test", for the core's tests */
};
struct og_settings *og_settings(void);

/* ---- contexts (context.c) -------------------------------------------- */

struct og_plan {
	size_t npasses;
	struct og_pass {
		uint32_t *raws;        /* catalogue raw indices */
		uint32_t *backend_ids; /* the same, as the backend numbers them */
		size_t n;
		/* Multiplexed pass: groups the kernel time-shares, consecutive in
		 * raws, group_sizes[g] each; NULL/0 for an ordinary pass. */
		size_t *group_sizes;
		size_t ngroups;
	} passes[OG_MAX_PASSES];
	int8_t *raw_pass; /* per catalogue raw: its pass, or -1 */
};

struct og_session;

struct og_context {
	void *key;
	uint64_t serial;
	struct og_context *next;

	const struct og_backend_ops *ops;
	void *state;
	struct og_backend_host host;
	struct og_device_info info;
	struct og_catalog cat;
	uint64_t *scratch; /* nraw values, assembled for one evaluation */

	uint32_t *enabled; /* counter indices in enable order */
	size_t nenabled;
	uint8_t *is_enabled; /* per counter */

	struct og_plan plan;
	bool plan_valid;
	bool multiplex; /* one pass of time-shared groups (OpenGPA_SetMultiplexing) */
	uint64_t period_ns; /* sessions begun now sample periodically; 0 = not */

	struct og_session **ring;
	uint32_t ring_size;
	uint32_t next_session_id;
	struct og_session *open_session;
};

/* The backends this build contains, in the order `auto` tries them; NULL
 * past the last. */
const struct og_backend_ops *og_backend_at(size_t index);

GPA_Status og_context_open(void *key, struct og_context **out);
void og_context_close(struct og_context *ctx);
struct og_context *og_context_find(void *key);
struct og_context *og_context_current(void);
void og_context_make_current(struct og_context *ctx); /* NULL allowed */
struct og_context *og_context_first(void);
struct og_context *og_context_by_serial(uint64_t serial);

GPA_Status og_counter_enable(struct og_context *ctx, uint32_t index);
GPA_Status og_counter_disable(struct og_context *ctx, uint32_t index);
void og_counter_disable_all(struct og_context *ctx);
/* The current plan for the enabled counters (computed on demand). */
GPA_Status og_context_plan(struct og_context *ctx, const struct og_plan **plan);
GPA_Status og_context_set_ring_size(struct og_context *ctx, uint32_t size);
GPA_Status og_context_set_multiplex(struct og_context *ctx, bool enable);
/* Periodic sampling for sessions begun later (0 = off); checks the
 * backend's floor.  session_periodic.c. */
GPA_Status og_context_set_period(struct og_context *ctx, uint64_t period_ns);

/* ---- sessions (session.c) -------------------------------------------- */

GPA_Status og_session_begin(struct og_context *ctx, uint32_t *id);
GPA_Status og_session_end(struct og_context *ctx);
GPA_Status og_pass_begin(struct og_context *ctx);
GPA_Status og_pass_end(struct og_context *ctx);
GPA_Status og_sample_begin(struct og_context *ctx, uint32_t sample_id);
GPA_Status og_sample_end(struct og_context *ctx);

struct og_session *og_session_find(struct og_context *ctx, uint32_t id);
void og_session_free(struct og_session *s);
GPA_Status og_session_sample_count(struct og_session *s, uint32_t *count);
bool og_session_ready(const struct og_session *s);
GPA_Status og_session_sample_ready(struct og_session *s, uint32_t sample_id, bool *ready);
bool og_session_has_counter(const struct og_session *s, uint32_t counter);
bool og_session_has_sample(const struct og_session *s, uint32_t sample_id);
bool og_pass_is_open(const struct og_session *s);
/* Share of the sample the counters really counted (1 = all of it); session ready. */
GPA_Status og_session_sample_coverage(struct og_session *s, uint32_t sample_id, double *coverage);

/* Waits (lock released) until session `id` of the context with `serial`
 * is ready.  Returns OK with fresh pointers, or SESSION_NOT_FOUND /
 * COUNTERS_NOT_OPEN if it went away, or SAMPLING_NOT_ENDED if this very
 * thread holds the session open (waiting would never end). */
GPA_Status og_session_wait(uint64_t serial, uint32_t id, struct og_context **ctx,
                           struct og_session **s);
/* og_session_wait, except that a periodic session's complete sample
 * `sample_id` is returned at once, while its pass goes on. */
GPA_Status og_sample_wait(uint64_t serial, uint32_t id, uint32_t sample_id,
                          struct og_context **ctx, struct og_session **s);
/* Waits (lock released) until session `id` has `count` samples readable,
 * it is ready (no more will come), or timeout_ms passed; *available is how
 * many are readable then (a periodic session's are as they complete, the
 * client's when the session is ready).  SAMPLING_NOT_ENDED when this thread
 * is recording the session and nothing would come while it waits. */
GPA_Status og_session_wait_samples(uint64_t serial, uint32_t id, uint32_t count,
                                   uint32_t timeout_ms, uint32_t *available);
/* Wakes og_session_wait() callers; lock held. */
void og_session_notify(void);

/* Times and OG_SAMPLE_* flags of a sample (its first counted pass). */
GPA_Status og_session_sample_time(struct og_session *s, uint32_t sample_id,
                                  struct og_sample_time *t);
/* The session's sampling period (0: the client's samples) and whether the
 * kernel times it. */
uint64_t og_session_period(const struct og_session *s);
bool og_session_kernel_timed(const struct og_session *s);

/* Result of one counter for one sample, after the type checks.  Lock held,
 * session ready. */
GPA_Status og_session_result(struct og_context *ctx, struct og_session *s, uint32_t sample_id,
                             uint32_t counter, double *value, uint64_t *exact, bool *is_exact);

#endif
