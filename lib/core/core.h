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

#include "GPUPerfAPIFunctionTypes-Private.h"
#include "GPUPerfAPITypes.h"
#include "backend.h"
#include "catalog/catalog.h"
#include "core/sample_clock.h"

#define OG_DEFAULT_SESSION_RING 4
#define OG_MAX_PASSES 64

/* ---- registry, locking and logging (registry.c, log.c) ---------------- */

/* The API families that share the core.  Each has its own logging callback
 * and its own contexts: a GPA 2.x client and a 3.x/4.x client in one
 * process neither see nor close each other's contexts, and GpaDestroy does
 * not take the 2.x client's callback away. */
enum og_front {
	OG_FRONT_GPA2,  /* GPA_* and OpenGPA_* */
	OG_FRONT_TABLE, /* Gpa* and GpaGetFuncTable (3.x and 4.x) */
	OG_FRONT_COUNT
};

/* og_lock() is og_lock_as(OG_FRONT_GPA2).  The front names whose callback
 * receives the messages queued until og_unlock(). */
void og_lock(void);
void og_lock_as(enum og_front front);
void og_unlock(void);

/* Queue a message for the client's callback (and stderr if OPENGPA_LOG asks).
 * Lock held.  No trailing newline. */
void og_log(enum og_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void og_logv(enum og_log_level level, const char *fmt, va_list ap)
	__attribute__((format(printf, 2, 0), nonnull(2)));
/* Logs an error and returns its status, for one-line error paths. */
GPA_Status og_error(GPA_Status status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool og_log_wants(enum og_log_level level);
/* After changing a callback or mask by hand (the setters below call it). */
void og_log_changed(void);

/* The locking front's callback.  `mask` is a GPA_Logging_Type (3.x/4.x
 * use the same bits); a NULL callback with a mask stops nothing and fails. */
GPA_Status og_set_log_callback(unsigned mask, GPA_LoggingCallbackPtrType callback);
/* GPA 2.x's internal debug channel (GPUPerfAPI-Private.h), same rules; it
 * sees the 2.x front's messages too. */
GPA_Status og_set_debug_callback(unsigned mask, GPA_LoggingDebugCallbackPtrType callback);

/* Settings for contexts opened later (extension API; override OPENGPA_*). */
/* A device constant the user set (OpenGPA_SetConstant, the cycle-budget
 * target): it replaces the backend's value, or the counter file's. */
#define OG_CONSTANT_NAME_MAX 64
#define OG_CONSTANT_OVERRIDES_MAX 64
struct og_constant_override {
	char name[OG_CONSTANT_NAME_MAX];
	double value;
};

struct og_settings {
	char *backend;         /* NULL: OPENGPA_BACKEND, else "auto" */
	char *backend_options; /* NULL: OPENGPA_BACKEND_OPTIONS */
	int hardware_counters; /* -1: OPENGPA_HARDWARE_COUNTERS */
	int instance_counters; /* -1: OPENGPA_INSTANCE_COUNTERS */
	char **counter_files;
	size_t ncounter_files;
	const struct og_sys *sys; /* NULL: the real kernel (tests put virtual devices here) */
	char *api;             /* NULL: OPENGPA_API, else the library's file name (apictx.h) */
	/* The API the library's file name gives, plus one; 0 until
	 * og_api_wanted first asks dladdr (7,000 instructions an open, for a
	 * name that does not change while the library is loaded). */
	int api_from_name;
	const struct og_backend_ops *test_backend; /* backend "test", for the core's tests */
	void (*fill_hook)(void); /* og_testing_set_fill_hook (testing.h) */
	struct og_constant_override constants[OG_CONSTANT_OVERRIDES_MAX];
	size_t nconstants;
};
struct og_settings *og_settings(void);

/* ---- constants the user sets (constants.c) ------------------------------
 * Lock held.  The settings win over OPENGPA_CYCLE_BUDGET and
 * OPENGPA_CONSTANTS, which og_constants_read_env reads and checks once
 * when a context opens. */
GPA_Status og_constant_set(const char *name, double value);
/* The cycle-budget target as its three constants; 0, 0, 0 clears it. */
GPA_Status og_cycle_budget_set(double width, double height, double fps);
/* The environment's constants as one open reads them. */
struct og_env_constants {
	const char *constants; /* OPENGPA_CONSTANTS, checked; NULL when unset */
	bool budget;           /* OPENGPA_CYCLE_BUDGET gave the target's three */
	double budget_values[3];
};
GPA_Status og_constants_read_env(struct og_env_constants *env);
/* The value the user gave constant `name`, if any (env: what the open
 * read). */
bool og_constant_lookup(const struct og_env_constants *env, const char *name, double *value);

/* ---- handles (handles.c) ----------------------------------------------- */

/* Opaque handles for the 3.x/4.x front ends: a slot number, a generation
 * and a kind packed into a pointer-sized value, so a stale handle (its
 * object deleted), a handle of another kind, or any other pointer value is
 * recognised and never dereferenced. */
enum og_handle_kind {
	OG_HANDLE_CONTEXT = 1,
	OG_HANDLE_SESSION = 2,
	OG_HANDLE_COMMAND_LIST = 3,
};

/* Lock held.  NULL without memory (or slots). */
void *og_handle_new(enum og_handle_kind kind, void *object);
/* The object behind `handle` if it is a live handle of `kind`, else NULL. */
void *og_handle_get(enum og_handle_kind kind, const void *handle);
void og_handle_free(const void *handle);

/* ---- contexts (context.c; enable sets: selection.c) -------------------- */

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

/* Enabled counters in enable order and the pass plan for them: the 2.x
 * context has one, every 3.x/4.x session its own. */
struct og_selection {
	uint32_t *enabled; /* counter indices in enable order */
	size_t nenabled;
	uint8_t *is_enabled; /* per counter */
	/* Changes with every change of the set (lock held; read unlocked): a
	 * session of the 2.x set keeps the one it began with (og_session.
	 * sel_version), so that an unlocked read knows its counters are still
	 * the enabled ones (readers.h). */
	uint32_t version;
	struct og_plan plan;
	uint64_t plan_epoch; /* the context's plan_epoch the plan was made for; 0: none */
};

struct og_session;
struct og_xsession;
struct og_apictx;

/* How a context's counter list is made (3.x/4.x open flags). */
struct og_open_options {
	int hardware_counters; /* -1: the setting (OpenGPA_SetHardwareCounters / environment) */
	bool hide_derived;     /* offer raw counters only */
	/* Vulkan: the open info the API context reads (the key is its
	 * VkPhysicalDevice), and GpaOpenContext's flags. */
	void *api_info;
	uint32_t api_flags;
};

/* Session id at slot[(id - 1) & mask]: a power of two of slots, at least
 * size. */
struct og_ring {
	uint32_t size, mask;
	struct og_session *slot[];
};

struct og_context {
	void *key;
	uint64_t serial;
	enum og_front front;
	struct og_context *next;

	const struct og_backend_ops *ops;
	void *state;
	/* The application's GL/GLES context or OpenCL queue the key stands
	 * for (apictx.h); NULL for a plain context, whose key is only a key. */
	struct og_apictx *api;
	int frame_fd; /* OPENGPA_FRAME_FD as the context opened; -1: none */
	struct og_backend_host host;
	struct og_device_info info;
	struct og_catalog cat;
	/* The kept catalogue cat shares (catalog_cache.h); NULL: cat is its own. */
	struct og_catalog_entry *cat_entry;
	uint64_t *scratch; /* nraw values, assembled for one evaluation */

	struct og_selection sel; /* the 2.x enable set */
	bool multiplex; /* one pass of time-shared groups (OpenGPA_SetMultiplexing) */
	uint64_t plan_epoch; /* changes when every plan must be made again */
	uint64_t period_ns; /* sessions begun now sample periodically; 0 = not */
	uint32_t periodic_window; /* samples a periodic session keeps; 0 = all */

	/* The newest ring->size sessions (2.x), read without the lock too
	 * (readers.h): replaced whole, slots stored with release. */
	struct og_ring *ring;
	uint32_t next_session_id;
	struct og_session *open_session; /* the active session, of either model */
	struct og_sample_clock sample_clock; /* its samples' begin and end times */

	/* 3.x/4.x (explicit.h): the context's handle and its sessions. */
	void *handle;
	uint32_t open_flags; /* as the front end numbers them */
	/* The catalogue index of the GPUTime 3.x/4.x show at index 0, in
	 * nanoseconds (lib/api/table_view.c); UINT32_MAX: none. */
	uint32_t table_gputime;
	struct og_xsession *xsessions;
};

/* The backends this build contains, in the order `auto` tries them; NULL
 * past the last. */
const struct og_backend_ops *og_backend_at(size_t index);

/* Opens a context for `front` (options NULL: the defaults). */
GPA_Status og_context_open(enum og_front front, void *key, const struct og_open_options *options,
                           struct og_context **out);
void og_context_close(struct og_context *ctx);
/* Frees the catalogues kept between opens (catalog_cache.h) that no open
 * context uses: GPA_Destroy, GpaDestroy.  Lock held. */
void og_context_forget_catalogs(void);
struct og_context *og_context_find(enum og_front front, void *key);
/* The 2.x current context. */
struct og_context *og_context_current(void);
void og_context_make_current(struct og_context *ctx); /* NULL allowed */
struct og_context *og_context_by_serial(uint64_t serial);

GPA_Status og_selection_init(struct og_selection *sel, const struct og_context *ctx);
void og_selection_free(struct og_selection *sel);
/* ALREADY_ENABLED / NOT_ENABLED (logged) when the state is already so. */
GPA_Status og_selection_enable(struct og_context *ctx, struct og_selection *sel, uint32_t index);
GPA_Status og_selection_disable(struct og_context *ctx, struct og_selection *sel, uint32_t index);
void og_selection_clear(struct og_selection *sel, size_t ncounters);
/* The plan for the selection (computed on demand). */
GPA_Status og_selection_plan(struct og_context *ctx, struct og_selection *sel,
                             const struct og_plan **plan);
GPA_Status og_context_set_ring_size(struct og_context *ctx, uint32_t size);
GPA_Status og_context_set_multiplex(struct og_context *ctx, bool enable);
/* Periodic sampling for sessions begun later (0 = off); checks the
 * backend's floor.  session_periodic.c. */
GPA_Status og_context_set_period(struct og_context *ctx, uint64_t period_ns);
/* How many samples periodic sessions begun later keep (0 = all). */
GPA_Status og_context_set_window(struct og_context *ctx, uint32_t samples);

/* ---- sessions (session.c, session_query.c, session_wait.c, ...) ------- */

/* The sample ID that names every sample of a session at once
 * (OPENGPA_SAMPLES_TOTAL), unless the client used it for a sample. */
#define OG_SAMPLES_TOTAL UINT32_MAX

/* Bookkeeping only: the front ends check their preconditions, in their own
 * order and with their own statuses, before calling these.  What fails
 * here (memory, the backend) is logged here. */

/* A session counting `sel`'s plan (at least one pass), now the context's
 * active one.  The caller owns it (og_session_free). */
GPA_Status og_session_start(struct og_context *ctx, struct og_selection *sel,
                            struct og_session **out);
/* 2.x: og_session_start on the context's selection, kept in the ring under
 * the next session ID. */
GPA_Status og_session_begin(struct og_context *ctx, uint32_t *id);
/* No longer active; its results are complete. */
void og_session_end(struct og_context *ctx, struct og_session *s);
/* Begins pass `pass` (a pass the plan does not have is an extra pass:
 * samples in it are checked but not counted).  No pass may be open. */
GPA_Status og_pass_begin(struct og_context *ctx, struct og_session *s, uint32_t pass);
/* Ends the open pass; no sample may be open. */
GPA_Status og_pass_end(struct og_context *ctx, struct og_session *s);
/* A pass is open, no sample is, and `id` was not begun in this pass. */
GPA_Status og_sample_begin(struct og_context *ctx, struct og_session *s, uint32_t id);
/* GPA_BeginSample's checks of the session in GPA 2.23.1's order (a pass is
 * open, no sample is, `id` is new in the pass, unless the session samples by
 * itself, which og_sample_begin refuses first) and then og_sample_begin,
 * in one call and one id lookup: every sample pays for it.  A refusal
 * changes nothing and says which check failed (*pass: the open pass, from
 * NESTED on; *open: the open sample, for NESTED); OG_BEGIN_TAKEN: *status
 * is og_sample_begin's. */
enum og_begin_refusal {
	OG_BEGIN_TAKEN,
	OG_BEGIN_NO_PASS,
	OG_BEGIN_NESTED,
	OG_BEGIN_DUPLICATE,
};
enum og_begin_refusal og_sample_begin_checked(struct og_context *ctx, struct og_session *s,
                                              uint32_t id, uint32_t *pass, uint32_t *open,
                                              GPA_Status *status);
/* A sample is open. */
GPA_Status og_sample_end(struct og_context *ctx, struct og_session *s);
/* GPA_EndSample's one check and og_sample_end in one call: false, and
 * nothing done, when no sample is open. */
bool og_sample_end_open(struct og_context *ctx, struct og_session *s, GPA_Status *status);
/* A sample recorded into a command buffer (Vulkan): begun and ended at once
 * in the open pass `pass`, no CPU interval (core/session_record.c).  DUPLICATE:
 * `id` was begun in that pass already, nothing done; FAILED: logged; OK:
 * *token is its API timing token (0: none). */
enum og_record { OG_RECORD_OK, OG_RECORD_DUPLICATE, OG_RECORD_FAILED };
enum og_record og_sample_record(struct og_context *ctx, struct og_session *s, uint32_t pass,
                                uint32_t id, uint32_t *token);
/* The API results of recorded samples that are in, oldest first, up to the
 * first that is not: their timings go back to the API context (a command
 * list begins: what earlier lists ran is read then, not at each sample). */
void og_session_collect_recorded(struct og_session *s);

/* Device counts that come after recording (a Vulkan command buffer runs
 * after it was recorded, lib/apictx/vk_dev.c).  Once deferred, a sample
 * of a pass with device counters takes no snapshot at og_sample_begin/end:
 * it owes that pass's counts until og_session_deliver gives them (the
 * backend's deltas of the pass, as end_sample writes them; NULL: the
 * sample failed, logged by the caller).  Results are not ready while any
 * is owed.  Deliver OK, or FAILED (logged) for a sample that owes nothing
 * in that pass. */
void og_session_defer_device(struct og_session *s);
/* How many backend raws pass `pass` counts (the length of its deltas). */
size_t og_session_pass_device_count(const struct og_session *s, uint32_t pass);
GPA_Status og_session_deliver(struct og_session *s, uint32_t id, uint32_t pass,
                              const uint64_t *deltas);
/* Samples still owed their device counts. */
size_t og_session_owed(const struct og_session *s);

struct og_session *og_session_find(struct og_context *ctx, uint32_t id);
void og_session_free(struct og_session *s);

/* State, for the front ends' checks. */
uint32_t og_session_id(const struct og_session *s);
bool og_session_ended(const struct og_session *s);
size_t og_session_npasses(const struct og_session *s);
bool og_session_pass_open(const struct og_session *s, uint32_t *pass);
bool og_session_sample_open(const struct og_session *s, uint32_t *id);
/* BeginPass calls so far (2.x numbering), passes of the plan ended, and the
 * highest pass begun (-1: none). */
uint32_t og_session_passes_begun(const struct og_session *s);
uint32_t og_session_passes_done(const struct og_session *s);
int32_t og_session_highest_pass(const struct og_session *s);
/* Samples begun in `pass` (the open pass included, extra or not). */
uint32_t og_session_pass_samples(const struct og_session *s, uint32_t pass);
/* Whether `id` was begun in `pass` (the open extra pass included). */
bool og_session_in_pass(const struct og_session *s, uint32_t id, uint32_t pass);
/* The k-th sample of pass 0, in the order pass 0 began them. */
bool og_session_pass0_sample(const struct og_session *s, uint32_t k, uint32_t *id);
/* Sample `id`'s API timing token (apictx.h) while its result is not in; 0: none. */
uint32_t og_session_sample_token(const struct og_session *s, uint32_t id);
/* Enabled counters of the session, in enable order. */
const uint32_t *og_session_counters(const struct og_session *s, size_t *n);
bool og_session_has_counter(const struct og_session *s, uint32_t counter);
bool og_session_has_sample(const struct og_session *s, uint32_t sample_id);

/* 2.x readiness: every planned pass done, or the session ended. */
bool og_session_ready(const struct og_session *s);
/* og_session_ready, and every sample's API timer result in (apictx.h):
 * asks the API without waiting. */
bool og_session_results_ready(struct og_session *s);
/* Whether pass `pass`'s API timer results are all in (asked without
 * waiting); true for a pass that has none. */
bool og_session_pass_results_ready(struct og_session *s, uint32_t pass);
/* 2.x GPA_IsSampleReady from the session on: *ready = false, then
 * SAMPLE_NOT_FOUND_IN_ALL_PASSES when a planned pass lacks the sample and
 * will not get it (never begun in it, or the pass never ran). */
GPA_Status og_session_sample_ready(struct og_session *s, uint32_t sample_id, bool *ready);
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

/* Logs why sample `id` is not in the session (never there, not yet, or
 * dropped by the periodic window) and returns SAMPLE_NOT_FOUND. */
GPA_Status og_session_no_sample(const char *func, const struct og_session *s, uint32_t id);

/* Times and OG_SAMPLE_* flags of a sample (its first counted pass). */
GPA_Status og_session_sample_time(struct og_session *s, uint32_t sample_id,
                                  struct og_sample_time *t);
/* The session's sampling period (0: the client's samples) and whether the
 * kernel times it. */
uint64_t og_session_period(const struct og_session *s);
bool og_session_kernel_timed(const struct og_session *s);

/* GPA_GetSample*: session `id` of the current context, read without the
 * lock (readers.h) when the answer is there (the session ended, the
 * counter enabled and of `type`, the sample complete), stored at `result`
 * as `type` (an integer clamped to it).  Anything else is
 * og_gpa2_get_sample's to check and answer, with the same arguments. */
typedef GPA_Status og_get_sample_fn(uint32_t id, uint32_t sample_id, uint32_t counter,
                                    GPA_Type type, void *result);
/* lib/api/gpa2.c: the GPA 2.x GetSample functions under the lock, in GPA's
 * check order.  Named here rather than passed in, so that the unlocked
 * read keeps one argument register less live (no register saved). */
og_get_sample_fn og_gpa2_get_sample;
/* GPA_GetSampleFloat64 and the three others (GPUPerfAPI.h) are the
 * unlocked reads themselves, one per type (the type is then no test on the
 * read path), in session_results.c. */
/* OpenGPA_GetSampleResults as og_session_get_sample does GPA_GetSample*:
 * every counter (count at least the session's) without the lock when the
 * answer is there, else `locked`'s, with the same arguments. */
typedef GPA_Status og_get_results_fn(uint32_t id, uint32_t sample_id, uint32_t count,
                                     union og_value *out);
GPA_Status og_session_get_results(uint32_t id, uint32_t sample_id, uint32_t count,
                                  union og_value *out, og_get_results_fn *locked);
/* Every counter of the session for one sample: out[k] for the session's
 * k-th counter (og_session_counters).  Lock held, session ready.  Errors as
 * og_session_result's, for the first counter that has no value. */
GPA_Status og_session_read(struct og_context *ctx, struct og_session *s, uint32_t sample_id,
                           union og_value *out);

/* Result of one counter for one sample, after the type checks.  Lock held,
 * session ready.  SAMPLE_NOT_FOUND when the sample is not in the session or
 * missing from a pass the counter needs, READING_COUNTER_RESULT when the
 * device could not read it. */
GPA_Status og_session_result(struct og_context *ctx, struct og_session *s, uint32_t sample_id,
                             uint32_t counter, double *value, uint64_t *exact, bool *is_exact);

#endif
