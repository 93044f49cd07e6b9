/* SPDX-License-Identifier: MIT */
/*
 * table.h — what the GPA 3.x and 4.x front ends (gpa3.c, gpa4.c) share.
 *
 * The two function tables differ in their order of checks, in a few
 * values and in the entries 4.0 inserted; what a check or an operation
 * does is the same in both, and lives here.  Each front end calls these in
 * its own version's order.  Statuses are GpaStatus numbers, which 3.17 and
 * 4.3 share (each front end asserts that against its own header).  Every
 * function logs its failure, naming the entry point `fn`, and expects the
 * lock to be held (ot_lock).
 */
#ifndef OPENGPA_API_TABLE_H
#define OPENGPA_API_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/explicit.h"
#include "core/registry.h"

enum ot_status {
	OT_OK = 0,
	OT_RESULT_NOT_READY = 1,
	OT_NULL_POINTER = -1,
	OT_CONTEXT_NOT_OPEN = -2,
	OT_CONTEXT_ALREADY_OPEN = -3,
	OT_INDEX_OUT_OF_RANGE = -4,
	OT_COUNTER_NOT_FOUND = -5,
	OT_ALREADY_ENABLED = -6,
	OT_NO_COUNTERS_ENABLED = -7,
	OT_NOT_ENABLED = -8,
	OT_COMMAND_LIST_ALREADY_ENDED = -9,
	OT_COMMAND_LIST_ALREADY_STARTED = -10,
	OT_COMMAND_LIST_NOT_ENDED = -11,
	OT_NOT_ENOUGH_PASSES = -12,
	OT_SAMPLE_NOT_ENDED = -15,
	OT_CANNOT_CHANGE_COUNTERS_WHEN_SAMPLING = -16,
	OT_SESSION_NOT_FOUND = -17,
	OT_SAMPLE_NOT_FOUND = -18,
	OT_CONTEXT_NOT_FOUND = -19,
	OT_COMMAND_LIST_NOT_FOUND = -20,
	OT_READING_SAMPLE_RESULT = -21,
	OT_VARIABLE_NUMBER_OF_SAMPLES_IN_PASSES = -22,
	OT_FAILED = -23,
	OT_HARDWARE_NOT_SUPPORTED = -24,
	OT_DRIVER_NOT_SUPPORTED = -25,
	OT_API_NOT_SUPPORTED = -26,
	OT_INVALID_PARAMETER = -27,
	OT_LIB_LOAD_MAJOR_VERSION_MISMATCH = -29,
	OT_LIB_LOAD_MINOR_VERSION_MISMATCH = -30,
	OT_GPA_NOT_INITIALIZED = -31,
	OT_GPA_ALREADY_INITIALIZED = -32,
	OT_SAMPLE_IN_SECONDARY_COMMAND_LIST = -33,
	OT_INCOMPATIBLE_SAMPLE_TYPES = -34,
	OT_SESSION_ALREADY_STARTED = -35,
	OT_SESSION_NOT_STARTED = -36,
	OT_SESSION_NOT_ENDED = -37,
	OT_TIMEOUT = -40,
	OT_OTHER_SESSION_ACTIVE = -42,
	OT_STATUS_MIN = -44,
};

/* GpaSessionSampleType values both versions share, and the largest each
 * knows of (GPA 3.17 knows 1-3 internally, 4.3 in its header). */
#define OT_SAMPLE_TYPE_DISCRETE 0u
#define OT_SAMPLE_TYPE_MAX 3u
#define OT_COMMAND_LIST_NONE 0u
#define OT_COMMAND_LIST_LAST 3u /* None, Primary, Secondary */
#define OT_DATA_TYPE_FLOAT64 0
#define OT_DATA_TYPE_UINT64 1
#define OT_USAGE_NANOSECONDS 7 /* GPUTime's, 3.x/4.x only */

/* Every entry takes the registry lock once and leaves through ot_leave:
 * inline, a call each fewer on every entry (a Vulkan sample makes three). */
static inline void ot_lock(void)
{
	og_lock_front(OG_FRONT_TABLE);
}
/* Unlocks (delivering queued messages) and returns st. */
static inline int ot_leave(int st)
{
	og_unlock_front();
	return st;
}
int ot_error(int st, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A core status as a GpaStatus. */
int ot_from_core(GPA_Status st);

/* ---- checks ---- */

int ot_null(const char *fn, const char *what);
/* h NULL → NULL_POINTER; not a live context/session/command list handle →
 * CONTEXT_/SESSION_/COMMAND_LIST_NOT_FOUND. */
int ot_context(const char *fn, const void *h, struct og_context **ctx);
int ot_session_missing(const char *fn, const void *h);
int ot_command_list_missing(const char *fn, const void *h);
/* Inline, every sample's entries look one up; the messages out of line. */
static inline int ot_session(const char *fn, const void *h, struct og_xsession **x)
{
	*x = og_handle_object(OG_HANDLE_SESSION, h);
	return *x ? OT_OK : ot_session_missing(fn, h);
}
static inline int ot_command_list(const char *fn, const void *h, struct og_cmdlist **cl)
{
	*cl = og_handle_object(OG_HANDLE_COMMAND_LIST, h);
	return *cl ? OT_OK : ot_command_list_missing(fn, h);
}
bool ot_is_context(const void *h);
int ot_index(const char *fn, const struct og_context *ctx, uint32_t index);
/* GpaInitialize not called (or GpaDestroy since) → GPA_NOT_INITIALIZED. */
int ot_initialized(const char *fn);
bool ot_is_initialized(void);
void ot_set_initialized(bool on);

/* ---- life cycle ---- */

int ot_register_logging(unsigned type, GPA_LoggingCallbackPtrType callback);
/* Forgets the logging callback (GpaDestroy does). */
void ot_drop_logging(void);
/* OpenContext after its pointer checks: clock modes, identity, open, handle. */
int ot_open_context(const char *fn, void *api_context, uint32_t flags, void **handle);
int ot_close_context(struct og_context *ctx);
int ot_create_session(const char *fn, struct og_context *ctx, uint32_t type, void **handle);
int ot_delete_session(struct og_xsession *x);
int ot_begin_session(const char *fn, struct og_xsession *x);
int ot_end_session(const char *fn, struct og_xsession *x);

/* ---- counters of a session ---- */

int ot_enable(const char *fn, struct og_xsession *x, uint32_t index, bool enable);
int ot_enable_by_name(const char *fn, struct og_xsession *x, const char *name, bool enable);
int ot_enable_all(const char *fn, struct og_xsession *x, bool enable);
int ot_pass_count(struct og_xsession *x, uint32_t *passes);
int ot_is_counter_enabled(const char *fn, struct og_xsession *x, uint32_t index);
int ot_enabled_index(const char *fn, struct og_xsession *x, uint32_t n, uint32_t *index);
/* The session's counters, enable order: its own while not begun, what it
 * counts from BeginSession on. */
const uint32_t *ot_session_counters(const struct og_xsession *x, size_t *n);

/* ---- recording ---- */

int ot_begin_command_list(const char *fn, struct og_xsession *x, uint32_t pass, void *list,
                          uint32_t type, void **handle);
int ot_end_command_list(const char *fn, struct og_cmdlist *cl);
int ot_begin_sample(const char *fn, uint32_t id, struct og_cmdlist *cl);
int ot_end_sample(const char *fn, struct og_cmdlist *cl);
int ot_secondary_lists(const char *fn);
/* ContinueSampleOnCommandList and CopySecondarySamples after the
 * initialisation check: ApiNotSupported except on Vulkan. */
int ot_continue_sample(const char *fn, uint32_t id, const void *primary);
int ot_copy_secondary(const char *fn, const void *secondary, const void *primary, uint32_t n,
                      const uint32_t *new_ids);

/* ---- Vulkan contexts (lib/apictx/vk_gpa.c) ---- */

bool ot_vk(const struct og_context *ctx);
int ot_vk_open_key(const char *fn, void *api_context, void **key);
int ot_vk_list_begin(const char *fn, struct og_cmdlist *cl);
int ot_vk_list_end(const char *fn, struct og_cmdlist *cl);
int ot_vk_begin_sample(const char *fn, uint32_t id, struct og_cmdlist *cl);
int ot_vk_end_sample(const char *fn, struct og_cmdlist *cl);
int ot_vk_continue_sample(const char *fn, uint32_t id, struct og_cmdlist *cl);
int ot_vk_copy_secondary(const char *fn, struct og_cmdlist *sec, struct og_cmdlist *pri,
                         uint32_t n, const uint32_t *new_ids);
/* BeginSession: only counters the API measures (GPUTime). */
/* After og_xsession_begin: device counters per sample (apictx/vk_dev.c). */
int ot_vk_session_begun(const char *fn, struct og_xsession *x);
int ot_vk_pass_check(const char *fn, const struct og_xsession *x, uint32_t pass);
/* GetSampleResult's wait: secondary samples, open samples, 5 s. */
int ot_vk_result_check(const char *fn, struct og_xsession *x, uint32_t id);

/* ---- GPA 3.x/4.x's view of the catalogue (table_view.c) ---- */

/* Finds the GPUTime the view shows first (the counter named GPUTime in
 * milliseconds); at GpaOpenContext. */
void ot_view_open(struct og_context *ctx);
/* A 3.x/4.x counter index as the catalogue's, and back. */
uint32_t ot_view_cat(const struct og_context *ctx, uint32_t index);
uint32_t ot_view_index(const struct og_context *ctx, uint32_t cat);
/* Whether catalogue counter `cat` is that GPUTime. */
bool ot_view_is_gputime(const struct og_context *ctx, uint32_t cat);
/* A sample's values in enable order, GPUTime's milliseconds made
 * nanoseconds. */
void ot_view_values(const struct og_xsession *x, union og_value *values);

/* ---- results ---- */

int ot_running(const char *fn, const struct og_xsession *x);
int ot_sample_in_pass0(const char *fn, const struct og_xsession *x, uint32_t id);
int ot_sample_id(const char *fn, const struct og_xsession *x, uint32_t k, uint32_t *id);
uint32_t ot_sample_count(const struct og_xsession *x);
int ot_is_pass_complete(const char *fn, struct og_xsession *x, uint32_t pass);
int ot_is_session_complete(const char *fn, struct og_xsession *x);
size_t ot_result_size(const struct og_xsession *x);
/* GetSampleResult after its checks up to the session's state: the size,
 * then every enabled counter's 8-byte value in enable order. */
int ot_sample_result(const char *fn, struct og_xsession *x, uint32_t id, size_t size, void *out);

/* ---- counter and device metadata ---- */

/* What a counter query writes: a const char *, a GpaDataType, a
 * GpaUsageType, a GpaUuid of 3.17 (24 bytes on LP64) or of 4.3 (16 bytes),
 * a GpaCounterSampleType. */
enum ot_query {
	OT_Q_NAME, OT_Q_GROUP, OT_Q_DESCRIPTION, OT_Q_DATA_TYPE, OT_Q_USAGE, OT_Q_UUID3,
	OT_Q_UUID4, OT_Q_SAMPLE_TYPE,
};
/* GPA 3.17's order, on a context: output, context, index. */
int ot_query3(const char *fn, const void *context, uint32_t index, enum ot_query q, void *out);
/* GPA 4.3's order, on a session: initialised, session, index, output. */
int ot_query4(const char *fn, const void *session, uint32_t index, enum ot_query q, void *out);
int ot_num_counters3(const char *fn, const void *context, uint32_t *count);
int ot_num_counters4(const char *fn, const void *session, uint32_t *count);
int ot_counter_index3(const char *fn, const void *context, const char *name, uint32_t *index);
int ot_counter_index4(const char *fn, const void *session, const char *name, uint32_t *index);

int ot_data_type(const struct og_counter *c);
int ot_device_id(const char *fn, const struct og_context *ctx, uint32_t *device,
                 uint32_t *revision);
int ot_device_name(const char *fn, const struct og_context *ctx, const char **name);
int ot_data_type_str(int type, const char **out);
int ot_usage_type_str(int usage, const char **out);
const char *ot_status_str(int status);
/* GpaGetVersion after the lock: `version_major`.`version_minor`, build
 * and update 0. */
int ot_version(const char *fn, uint32_t version_major, uint32_t version_minor, uint32_t *major,
               uint32_t *minor, uint32_t *build, uint32_t *update);

/* ---- the function tables ---- */

/* GpaGetFuncTable's handshake over one version's complete table `full` of
 * `size` bytes (whose header already holds `major` and `size`). */
int ot_fill_table(const char *fn, void *table, const void *full, uint32_t major, uint32_t size);
/* gpa3.c: its complete 3.17 table, and the 48-entry prefix GPA_GetFuncTable
 * (3.0-3.7 clients) serves. */
const void *og_gpa3_table(uint32_t *size);
#define OT_GPA3_DEPRECATED_TABLE_SIZE (8u + 48u * (uint32_t)sizeof(void (*)(void)))

#endif
