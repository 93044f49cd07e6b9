/* SPDX-License-Identifier: MIT */
/* table.c — checks and operations the GPA 3.x and 4.x front ends share (table.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "api/table.h"
#include "api/uuid.h"
#include "apictx/apictx.h"
#include "core/registry.h"

void ot_lock(void)
{
	og_lock_as(OG_FRONT_TABLE);
}

int ot_leave(int st)
{
	og_unlock();
	return st;
}

int ot_error(int st, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	og_logv(OG_LOG_ERROR, fmt, ap);
	va_end(ap);
	return st;
}

int ot_from_core(GPA_Status st)
{
	switch (st) {
	case GPA_STATUS_OK: return OT_OK;
	case GPA_STATUS_ERROR_NULL_POINTER: return OT_NULL_POINTER;
	case GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE: return OT_INDEX_OUT_OF_RANGE;
	case GPA_STATUS_ERROR_NOT_FOUND: return OT_COUNTER_NOT_FOUND;
	case GPA_STATUS_ERROR_ALREADY_ENABLED: return OT_ALREADY_ENABLED;
	case GPA_STATUS_ERROR_NO_COUNTERS_ENABLED: return OT_NO_COUNTERS_ENABLED;
	case GPA_STATUS_ERROR_NOT_ENABLED: return OT_NOT_ENABLED;
	case GPA_STATUS_ERROR_SAMPLE_NOT_FOUND: return OT_SAMPLE_NOT_FOUND;
	case GPA_STATUS_ERROR_SAMPLE_NOT_FOUND_IN_ALL_PASSES:
	case GPA_STATUS_ERROR_READING_COUNTER_RESULT: return OT_READING_SAMPLE_RESULT;
	case GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED: return OT_HARDWARE_NOT_SUPPORTED;
	case GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED: return OT_DRIVER_NOT_SUPPORTED;
	default: return OT_FAILED; /* a backend's or the planner's failure, logged there */
	}
}

/* ---- checks ------------------------------------------------------------ */

int ot_null(const char *fn, const char *what)
{
	return ot_error(OT_NULL_POINTER, "%s: %s is NULL; pass a valid pointer", fn, what);
}

int ot_context(const char *fn, const void *h, struct og_context **ctx)
{
	if (!h)
		return ot_null(fn, "the context");
	if (!(*ctx = og_handle_get(OG_HANDLE_CONTEXT, h)))
		return ot_error(OT_CONTEXT_NOT_FOUND,
		                "%s: %p is not an open context (closed already, or not a context "
		                "handle GpaOpenContext returned)", fn, h);
	return OT_OK;
}

int ot_session(const char *fn, const void *h, struct og_xsession **x)
{
	if (!h)
		return ot_null(fn, "the session");
	if (!(*x = og_handle_get(OG_HANDLE_SESSION, h)))
		return ot_error(OT_SESSION_NOT_FOUND,
		                "%s: %p is not a session (deleted already, its context closed, or "
		                "not a handle GpaCreateSession returned)", fn, h);
	return OT_OK;
}

int ot_command_list(const char *fn, const void *h, struct og_cmdlist **cl)
{
	if (!h)
		return ot_null(fn, "the command list");
	if (!(*cl = og_handle_get(OG_HANDLE_COMMAND_LIST, h)))
		return ot_error(OT_COMMAND_LIST_NOT_FOUND,
		                "%s: %p is not a command list (its session was deleted, or not a "
		                "handle GpaBeginCommandList returned)", fn, h);
	return OT_OK;
}

bool ot_is_context(const void *h)
{
	return og_handle_get(OG_HANDLE_CONTEXT, h) != NULL;
}

int ot_index(const char *fn, const struct og_context *ctx, uint32_t index)
{
	if (index >= ctx->cat.ncounters)
		return ot_error(OT_INDEX_OUT_OF_RANGE,
		                "%s: counter index %u is out of range; the context has %zu counters",
		                fn, index, ctx->cat.ncounters);
	return OT_OK;
}

bool ot_is_initialized(void)
{
	return og_registry()->table_initialized;
}

void ot_set_initialized(bool on)
{
	og_registry()->table_initialized = on;
}

int ot_initialized(const char *fn)
{
	if (!ot_is_initialized())
		return ot_error(OT_GPA_NOT_INITIALIZED, "%s: call GpaInitialize first", fn);
	return OT_OK;
}

/* ---- life cycle ---------------------------------------------------------- */

int ot_register_logging(unsigned type, GPA_LoggingCallbackPtrType callback)
{
	return ot_from_core(og_set_log_callback(type, callback));
}

void ot_drop_logging(void)
{
	og_registry()->callback[OG_FRONT_TABLE] = (struct og_log_callback){ 0 };
}

#define OPEN_HIDE_DERIVED 0x01u
#define OPEN_OBSOLETE 0x06u /* the 3.x "hide software / hardware counters" bits */
#define OPEN_CLOCK_MODES 0x78u
#define OPEN_HARDWARE_COUNTERS 0x80u

int ot_open_context(const char *fn, void *api_context, uint32_t flags, void **handle)
{
	uint32_t clocks = flags & OPEN_CLOCK_MODES;
	if (clocks & (clocks - 1))
		return ot_error(OT_INVALID_PARAMETER,
		                "%s: flags 0x%x ask for more than one clock mode; choose one", fn, flags);
	if (flags & OPEN_OBSOLETE)
		og_log(OG_LOG_MESSAGE, "%s: the hide-software/hardware-counters flags are obsolete "
		                       "and ignored (raw counters come with "
		                       "kGpaOpenContextEnableHardwareCountersBit)", fn);
	bool explicit_;
	const char *why;
	void *key = api_context, *info = NULL;
	if (og_api_wanted(&explicit_, &why) == OG_API_VK) {
		int vst = ot_vk_open_key(fn, api_context, &key);
		if (vst != OT_OK)
			return vst;
		info = api_context;
	}
	if (og_context_find(OG_FRONT_TABLE, key))
		return ot_error(OT_CONTEXT_ALREADY_OPEN,
		                "%s: a context is already open on %p; close it first", fn, key);
	struct og_open_options how = {
		.hardware_counters = flags & OPEN_HARDWARE_COUNTERS ? 1 : -1,
		.hide_derived = (flags & OPEN_HIDE_DERIVED) != 0,
		.api_info = info,
		.api_flags = flags,
	};
	struct og_context *ctx;
	GPA_Status st = og_context_open(OG_FRONT_TABLE, key, &how, &ctx);
	if (st != GPA_STATUS_OK)
		return ot_from_core(st);
	if (!(ctx->handle = og_handle_new(OG_HANDLE_CONTEXT, ctx))) {
		og_context_close(ctx);
		return ot_error(OT_FAILED, "%s: out of memory (or of handles)", fn);
	}
	ctx->open_flags = flags;
	*handle = ctx->handle;
	return OT_OK;
}

int ot_close_context(struct og_context *ctx)
{
	og_context_close(ctx); /* its sessions and command lists, and all their handles */
	return OT_OK;
}

int ot_create_session(const char *fn, struct og_context *ctx, uint32_t type, void **handle)
{
	if (type != OT_SAMPLE_TYPE_DISCRETE)
		return ot_error(OT_INCOMPATIBLE_SAMPLE_TYPES,
		                "%s: sample type %u is not supported here; only discrete counter "
		                "sessions are (docs/api-gpa3.md)", fn, type);
	struct og_xsession *x;
	GPA_Status st = og_xsession_create(ctx, type, &x);
	if (st != GPA_STATUS_OK)
		return ot_from_core(st);
	*handle = x->handle;
	return OT_OK;
}

int ot_delete_session(struct og_xsession *x)
{
	og_xsession_delete(x);
	return OT_OK;
}

int ot_begin_session(const char *fn, struct og_xsession *x)
{
	struct og_context *ctx = x->ctx;
	if (ctx->open_session && ctx->open_session != x->s)
		return ot_error(OT_OTHER_SESSION_ACTIVE,
		                "%s: another session of this context is running; end it first (one "
		                "session at a time per context)", fn);
	if (x->s)
		return ot_error(OT_SESSION_ALREADY_STARTED,
		                "%s: this session was begun already; a session is begun once (create "
		                "another one to measure again)", fn);
	const struct og_plan *plan;
	GPA_Status st = og_selection_plan(ctx, &x->sel, &plan);
	if (st != GPA_STATUS_OK)
		return ot_from_core(st);
	if (plan->npasses == 0)
		return ot_error(OT_NO_COUNTERS_ENABLED,
		                "%s: no counters are enabled in this session; enable some first", fn);
	if (ot_vk(ctx) && ot_vk_check_counters(fn, x) != OT_OK)
		return OT_FAILED;
	return ot_from_core(og_xsession_begin(x));
}

int ot_end_session(const char *fn, struct og_xsession *x)
{
	struct og_context *ctx = x->ctx;
	if (!ctx->open_session || (ctx->open_session == x->s && !x->running))
		return ot_error(OT_SESSION_NOT_STARTED, "%s: the session is not running; call "
		                                        "GpaBeginSession first", fn);
	if (ctx->open_session != x->s)
		return ot_error(OT_OTHER_SESSION_ACTIVE, "%s: another session of this context is "
		                                         "running", fn);
	size_t npasses = og_session_npasses(x->s);
	int32_t highest = og_session_highest_pass(x->s);
	if (highest != (int32_t)npasses - 1)
		return ot_error(OT_NOT_ENOUGH_PASSES,
		                "%s: the counters need %zu passes but passes up to %d were recorded; "
		                "record command lists for passes 0 to %zu (the session keeps running)",
		                fn, npasses, highest, npasses - 1);
	if (x->recording)
		return ot_error(OT_VARIABLE_NUMBER_OF_SAMPLES_IN_PASSES,
		                "%s: %u command lists are still recording; end them first", fn,
		                x->recording);
	if (x->sampling)
		return ot_error(OT_VARIABLE_NUMBER_OF_SAMPLES_IN_PASSES,
		                "%s: a sample is still open; end it first", fn);
	uint32_t first = og_session_pass_samples(x->s, 0);
	for (uint32_t p = 1; p < npasses; p++)
		if (og_session_pass_samples(x->s, p) != first)
			return ot_error(OT_VARIABLE_NUMBER_OF_SAMPLES_IN_PASSES,
			                "%s: pass %u has %u samples but pass 0 has %u; every pass must "
			                "sample the same workload with the same IDs (the session keeps "
			                "running)", fn, p, og_session_pass_samples(x->s, p), first);
	og_xsession_end(x);
	return OT_OK;
}

/* ---- counters of a session ------------------------------------------------ */

/* Counters are fixed once the session is begun: what it counted stays what
 * its results describe. */
static int counters_fixed(const char *fn, const struct og_xsession *x)
{
	if (x->s)
		return ot_error(OT_CANNOT_CHANGE_COUNTERS_WHEN_SAMPLING,
		                "%s: the session was begun; change its counters before "
		                "GpaBeginSession (or measure others in a new session)", fn);
	return OT_OK;
}

int ot_enable(const char *fn, struct og_xsession *x, uint32_t index, bool enable)
{
	int st = counters_fixed(fn, x);
	if (st == OT_OK)
		st = ot_index(fn, x->ctx, index);
	if (st != OT_OK)
		return st;
	return ot_from_core(enable ? og_selection_enable(x->ctx, &x->sel, index)
	                           : og_selection_disable(x->ctx, &x->sel, index));
}

int ot_enable_by_name(const char *fn, struct og_xsession *x, const char *name, bool enable)
{
	int st = counters_fixed(fn, x);
	if (st != OT_OK)
		return st;
	if (!name)
		return ot_null(fn, "the counter name");
	uint32_t index;
	if (!og_catalog_find(&x->ctx->cat, name, &index))
		return ot_error(OT_COUNTER_NOT_FOUND, "%s: no counter is named '%s' on this device",
		                fn, name);
	return ot_from_core(enable ? og_selection_enable(x->ctx, &x->sel, index)
	                           : og_selection_disable(x->ctx, &x->sel, index));
}

int ot_enable_all(const char *fn, struct og_xsession *x, bool enable)
{
	int st = counters_fixed(fn, x);
	if (st != OT_OK)
		return st;
	og_selection_clear(&x->sel, x->ctx->cat.ncounters);
	for (uint32_t i = 0; enable && i < x->ctx->cat.ncounters; i++)
		og_selection_enable(x->ctx, &x->sel, i);
	return OT_OK;
}

int ot_pass_count(struct og_xsession *x, uint32_t *passes)
{
	if (x->s) {
		*passes = (uint32_t)og_session_npasses(x->s);
		return OT_OK;
	}
	const struct og_plan *plan;
	GPA_Status st = og_selection_plan(x->ctx, &x->sel, &plan);
	if (st == GPA_STATUS_OK)
		*passes = (uint32_t)plan->npasses;
	return ot_from_core(st);
}

int ot_is_counter_enabled(const char *fn, struct og_xsession *x, uint32_t index)
{
	if (index < x->ctx->cat.ncounters && x->sel.is_enabled[index])
		return OT_OK;
	/* The answer "no", not a failure. */
	og_log(OG_LOG_MESSAGE, "%s: counter %u is not enabled in this session", fn, index);
	return OT_COUNTER_NOT_FOUND;
}

int ot_enabled_index(const char *fn, struct og_xsession *x, uint32_t n, uint32_t *index)
{
	if (n >= x->sel.nenabled)
		return ot_error(OT_INDEX_OUT_OF_RANGE, "%s: %u is out of range; %zu counters are "
		                                       "enabled", fn, n, x->sel.nenabled);
	*index = x->sel.enabled[n];
	return OT_OK;
}

const uint32_t *ot_session_counters(const struct og_xsession *x, size_t *n)
{
	*n = x->sel.nenabled;
	return x->sel.enabled;
}

/* ---- recording ------------------------------------------------------------ */

int ot_begin_command_list(const char *fn, struct og_xsession *x, uint32_t pass, void *list,
                          uint32_t type, void **handle)
{
	if (!x->running)
		return ot_error(OT_SESSION_NOT_STARTED,
		                "%s: the session is not running; call GpaBeginSession first", fn);
	if (type >= OT_COMMAND_LIST_LAST)
		return ot_error(OT_INVALID_PARAMETER, "%s: %u is not a command list type", fn, type);
	/* Any API: no list with kGpaCommandListNone (GL, CL, DX11), or a list
	 * (a key only) with Primary or Secondary (Vulkan, DX12). */
	if (type == OT_COMMAND_LIST_NONE && list)
		return ot_error(OT_INVALID_PARAMETER, "%s: a command list with type "
		                                      "kGpaCommandListNone; pass GPA_NULL_COMMAND_LIST, "
		                                      "or the list's own type", fn);
	if (type != OT_COMMAND_LIST_NONE && !list)
		return ot_null(fn, "the command list (a primary or secondary list needs one)");
	if (!handle)
		return ot_null(fn, "the command list ID pointer");
	struct og_cmdlist *old = og_handle_get(OG_HANDLE_COMMAND_LIST, *handle);
	if (old && old->recording)
		return ot_error(OT_COMMAND_LIST_ALREADY_STARTED,
		                "%s: the ID passed in names a command list that is still recording; "
		                "end it first", fn);
	size_t npasses = og_session_npasses(x->s);
	if (pass >= npasses)
		return ot_error(OT_FAILED, "%s: pass %u is beyond the session's %zu passes "
		                           "(GpaGetPassCount)", fn, pass, npasses);
	if (og_xsession_other_pass_recording(x, pass))
		return ot_error(OT_FAILED,
		                "%s: a command list of another pass is still recording; on this "
		                "device passes are counted one after the other (docs/api-gpa3.md)",
		                fn);
	struct og_cmdlist *cl;
	GPA_Status st = og_cmdlist_begin(x, pass, list, type, &cl);
	if (st != GPA_STATUS_OK)
		return OT_FAILED; /* the backend said why */
	if (ot_vk(x->ctx) && ot_vk_list_begin(fn, cl) != OT_OK) {
		og_cmdlist_end(cl);
		return OT_FAILED;
	}
	*handle = cl->handle;
	return OT_OK;
}

int ot_end_command_list(const char *fn, struct og_cmdlist *cl)
{
	if (!cl->recording)
		return ot_error(OT_COMMAND_LIST_ALREADY_ENDED, "%s: the command list was ended "
		                                               "already", fn);
	int vst = cl->vk ? ot_vk_list_end(fn, cl) : OT_OK;
	return og_cmdlist_end(cl) == GPA_STATUS_OK ? vst : OT_FAILED;
}

int ot_begin_sample(const char *fn, uint32_t id, struct og_cmdlist *cl)
{
	struct og_xsession *x = cl->x;
	if (cl->vk)
		return ot_vk_begin_sample(fn, id, cl);
	if (!cl->recording)
		return ot_error(OT_FAILED, "%s(%u): the command list has ended; begin samples on a "
		                           "recording one", fn, id);
	if (x->sampling == cl)
		return ot_error(OT_FAILED, "%s(%u): a sample is open on this command list; samples "
		                           "cannot nest, end it first", fn, id);
	if (x->sampling)
		return ot_error(OT_FAILED, "%s(%u): a sample is open on another command list; on "
		                           "this device samples are intervals of time and cannot "
		                           "overlap", fn, id);
	if (og_session_in_pass(x->s, id, cl->pass))
		return ot_error(OT_FAILED, "%s(%u): this sample ID was used in pass %u already; IDs "
		                           "are unique within a pass", fn, id, cl->pass);
	return og_cmdlist_sample_begin(cl, id) == GPA_STATUS_OK ? OT_OK : OT_FAILED;
}

int ot_end_sample(const char *fn, struct og_cmdlist *cl)
{
	if (cl->vk)
		return ot_vk_end_sample(fn, cl);
	if (!cl->recording || cl->x->sampling != cl)
		return ot_error(OT_FAILED, "%s: no sample is open on this command list", fn);
	return og_cmdlist_sample_end(cl) == GPA_STATUS_OK ? OT_OK : OT_FAILED;
}

int ot_secondary_lists(const char *fn)
{
	return ot_error(OT_API_NOT_SUPPORTED,
	                "%s: samples across command lists are not supported here: command lists "
	                "are markers on the CPU timeline (docs/api-gpa3.md)", fn);
}

int ot_continue_sample(const char *fn, uint32_t id, const void *primary)
{
	bool explicit_;
	const char *why;
	if (og_api_wanted(&explicit_, &why) != OG_API_VK)
		return ot_secondary_lists(fn);
	struct og_cmdlist *cl;
	int st = ot_command_list(fn, primary, &cl);
	return st == OT_OK ? ot_vk_continue_sample(fn, id, cl) : st;
}

int ot_copy_secondary(const char *fn, const void *secondary, const void *primary, uint32_t n,
                      const uint32_t *new_ids)
{
	bool explicit_;
	const char *why;
	if (og_api_wanted(&explicit_, &why) != OG_API_VK)
		return ot_secondary_lists(fn);
	struct og_cmdlist *sec, *pri;
	int st = ot_command_list(fn, secondary, &sec);
	if (st == OT_OK)
		st = ot_command_list(fn, primary, &pri);
	return st == OT_OK ? ot_vk_copy_secondary(fn, sec, pri, n, new_ids) : st;
}

/* ---- results ------------------------------------------------------------------ */

int ot_running(const char *fn, const struct og_xsession *x)
{
	if (x->running)
		return ot_error(OT_SESSION_NOT_ENDED, "%s: the session is still running; call "
		                                      "GpaEndSession first", fn);
	return OT_OK;
}

int ot_sample_in_pass0(const char *fn, const struct og_xsession *x, uint32_t id)
{
	if (!x->s || !og_session_in_pass(x->s, id, 0))
		return ot_error(OT_SAMPLE_NOT_FOUND, "%s: sample %u is not in the session's first "
		                                     "pass", fn, id);
	return OT_OK;
}

int ot_sample_id(const char *fn, const struct og_xsession *x, uint32_t k, uint32_t *id)
{
	if (!x->s || !og_session_pass0_sample(x->s, k, id))
		return ot_error(OT_SAMPLE_NOT_FOUND, "%s: the session has %u samples; %u is out of "
		                                     "range", fn, ot_sample_count(x), k);
	return OT_OK;
}

uint32_t ot_sample_count(const struct og_xsession *x)
{
	return x->s ? og_session_pass_samples(x->s, 0) : 0;
}

int ot_is_pass_complete(const char *fn, struct og_xsession *x, uint32_t pass)
{
	if (!x->s)
		return ot_error(OT_SESSION_NOT_STARTED, "%s: the session was never begun", fn);
	if (pass >= og_session_npasses(x->s) || (int32_t)pass > og_session_highest_pass(x->s))
		return ot_error(OT_INDEX_OUT_OF_RANGE,
		                "%s: pass %u was not recorded (the session has %zu passes)", fn, pass,
		                og_session_npasses(x->s));
	if (og_xsession_pass_recording(x, pass))
		return ot_error(OT_COMMAND_LIST_NOT_ENDED, "%s: a command list of pass %u is still "
		                                           "recording", fn, pass);
	if (x->sampling && x->sampling->pass == pass)
		return ot_error(OT_SAMPLE_NOT_ENDED, "%s: a sample of pass %u is still open", fn,
		                pass);
	if (ot_vk(x->ctx) && ot_vk_pass_check(fn, x, pass) != OT_OK)
		return OT_SAMPLE_NOT_ENDED;
	/* On the CPU timeline a pass's results are in when it ends; the GPU
	 * times of an API context's samples when its queries say so. */
	return og_session_pass_results_ready(x->s, pass) ? OT_OK : OT_RESULT_NOT_READY;
}

int ot_is_session_complete(const char *fn, struct og_xsession *x)
{
	if (!x->s)
		return ot_error(OT_SESSION_NOT_STARTED, "%s: the session was never begun", fn);
	int st = ot_running(fn, x);
	return st == OT_OK && !og_session_results_ready(x->s) ? OT_RESULT_NOT_READY : st;
}

size_t ot_result_size(const struct og_xsession *x)
{
	return x->sel.nenabled * sizeof(uint64_t);
}

int ot_sample_result(const char *fn, struct og_xsession *x, uint32_t id, size_t size, void *out)
{
	size_t need = ot_result_size(x);
	if (size < need)
		return ot_error(OT_READING_SAMPLE_RESULT,
		                "%s: the buffer has %zu bytes but the %zu enabled counters need %zu "
		                "(GpaGetSampleResultSize)", fn, size, x->sel.nenabled, need);
	if (ot_vk(x->ctx)) {
		int vst = ot_vk_result_check(fn, x, id);
		if (vst != OT_OK)
			return vst;
	}
	/* The core's batch read gives GPA 3.x's 8-byte values in enable order;
	 * a buffer that is not 8-byte aligned gets them through a copy. */
	union og_value local[64];
	union og_value *values = out;
	bool aligned = (uintptr_t)out % _Alignof(union og_value) == 0;
	if (!aligned)
		values = x->sel.nenabled <= 64 ? local : malloc(need);
	if (!values)
		return ot_error(OT_FAILED, "%s: out of memory", fn);
	GPA_Status st = og_session_read(x->ctx, x->s, id, values);
	if (!aligned) {
		if (st == GPA_STATUS_OK)
			memcpy(out, values, need);
		if (values != local)
			free(values);
	}
	if (st == GPA_STATUS_ERROR_SAMPLE_NOT_FOUND)
		return OT_READING_SAMPLE_RESULT; /* a pass lacks it: only after GpaAbortSession */
	return ot_from_core(st);
}

/* ---- counter and device metadata ------------------------------------------- */

int ot_data_type(const struct og_counter *c)
{
	return c->type == GPA_TYPE_FLOAT32 || c->type == GPA_TYPE_FLOAT64 ? OT_DATA_TYPE_FLOAT64
	                                                                  : OT_DATA_TYPE_UINT64;
}

/* The two GpaUuid layouts: data_1 is an unsigned long in 3.17 (24 bytes on
 * LP64), an unsigned int in 4.x (16 bytes).  The UUID's bytes go in as a
 * GUID holds them, so the usual text form of the fields is the RFC one. */
struct uuid3 {
	unsigned long data_1;
	unsigned short data_2, data_3;
	unsigned char data_4[8];
};
struct uuid4 {
	unsigned int data_1;
	unsigned short data_2, data_3;
	unsigned char data_4[8];
};
_Static_assert(sizeof(struct uuid4) == 16, "GPA 4.x's GpaUuid");

static void counter_query(const struct og_counter *c, enum ot_query q, void *out)
{
	uint8_t b[16];
	unsigned int d1;
	switch (q) {
	case OT_Q_NAME: *(const char **)out = c->name; return;
	case OT_Q_GROUP: *(const char **)out = c->group; return;
	case OT_Q_DESCRIPTION: *(const char **)out = c->text; return;
	case OT_Q_DATA_TYPE: *(int *)out = ot_data_type(c); return;
	case OT_Q_USAGE: *(int *)out = (int)c->usage; return; /* same numbers in 3.x/4.x */
	case OT_Q_SAMPLE_TYPE: *(int *)out = 1; return;        /* kGpaCounterSampleTypeDiscrete */
	case OT_Q_UUID3:
	case OT_Q_UUID4:
		og_counter_uuid(c->set, c->name, b);
		d1 = (unsigned int)b[0] << 24 | (unsigned int)b[1] << 16 | (unsigned int)b[2] << 8 | b[3];
		if (q == OT_Q_UUID3) {
			struct uuid3 *u = out;
			*u = (struct uuid3){ d1, (unsigned short)(b[4] << 8 | b[5]),
			                     (unsigned short)(b[6] << 8 | b[7]), { 0 } };
			memcpy(u->data_4, b + 8, 8);
		} else {
			struct uuid4 *u = out;
			*u = (struct uuid4){ d1, (unsigned short)(b[4] << 8 | b[5]),
			                     (unsigned short)(b[6] << 8 | b[7]), { 0 } };
			memcpy(u->data_4, b + 8, 8);
		}
		return;
	}
}

int ot_query3(const char *fn, const void *context, uint32_t index, enum ot_query q, void *out)
{
	struct og_context *ctx;
	int st = out ? ot_context(fn, context, &ctx) : ot_null(fn, "the output pointer");
	if (st == OT_OK)
		st = ot_index(fn, ctx, index);
	if (st == OT_OK)
		counter_query(&ctx->cat.counters[index], q, out);
	return st;
}

int ot_query4(const char *fn, const void *session, uint32_t index, enum ot_query q, void *out)
{
	struct og_xsession *x = NULL;
	int st = ot_initialized(fn);
	if (st == OT_OK)
		st = ot_session(fn, session, &x);
	if (st == OT_OK)
		st = ot_index(fn, x->ctx, index);
	if (st == OT_OK && !out)
		st = ot_null(fn, "the output pointer");
	if (st == OT_OK)
		counter_query(&x->ctx->cat.counters[index], q, out);
	return st;
}

int ot_num_counters3(const char *fn, const void *context, uint32_t *count)
{
	struct og_context *ctx;
	int st = count ? ot_context(fn, context, &ctx) : ot_null(fn, "the count pointer");
	if (st == OT_OK)
		*count = (uint32_t)ctx->cat.ncounters;
	return st;
}

int ot_num_counters4(const char *fn, const void *session, uint32_t *count)
{
	struct og_xsession *x = NULL;
	int st = ot_initialized(fn);
	if (st == OT_OK)
		st = ot_session(fn, session, &x);
	if (st == OT_OK && !count)
		st = ot_null(fn, "the count pointer");
	if (st == OT_OK)
		*count = (uint32_t)x->ctx->cat.ncounters;
	return st;
}

static int find_counter(const char *fn, const struct og_context *ctx, const char *name,
                        uint32_t *index)
{
	if (!og_catalog_find(&ctx->cat, name, index))
		return ot_error(OT_COUNTER_NOT_FOUND, "%s: no counter is named '%s' on this device",
		                fn, name);
	return OT_OK;
}

int ot_counter_index3(const char *fn, const void *context, const char *name, uint32_t *index)
{
	struct og_context *ctx;
	if (!name)
		return ot_null(fn, "the counter name");
	if (!index)
		return ot_null(fn, "the index pointer");
	int st = ot_context(fn, context, &ctx);
	return st == OT_OK ? find_counter(fn, ctx, name, index) : st;
}

int ot_counter_index4(const char *fn, const void *session, const char *name, uint32_t *index)
{
	struct og_xsession *x = NULL;
	int st = ot_initialized(fn);
	if (st == OT_OK)
		st = ot_session(fn, session, &x);
	if (st == OT_OK && !name)
		st = ot_null(fn, "the counter name");
	if (st == OT_OK && !index)
		st = ot_null(fn, "the index pointer");
	return st == OT_OK ? find_counter(fn, x->ctx, name, index) : st;
}

int ot_device_id(const char *fn, const struct og_context *ctx, uint32_t *device,
                 uint32_t *revision)
{
	if (!ctx->info.device_id)
		return ot_error(OT_FAILED, "%s: the %s backend did not identify the device", fn,
		                ctx->ops->name);
	*device = ctx->info.device_id;
	*revision = ctx->info.revision_id;
	return OT_OK;
}

int ot_device_name(const char *fn, const struct og_context *ctx, const char **name)
{
	if (!ctx->info.description[0])
		return ot_error(OT_FAILED, "%s: the %s backend did not name the device", fn,
		                ctx->ops->name);
	*name = ctx->info.description;
	return OT_OK;
}

int ot_data_type_str(int type, const char **out)
{
	static const char *const names[] = { "gpa_float64", "gpa_uint64" };
	*out = names[type];
	return OT_OK;
}

int ot_usage_type_str(int usage, const char **out)
{
	static const char *const names[] = {
		"ratio", "percentage", "cycles", "milliseconds", "bytes", "items", "kilobytes",
		"nanoseconds",
	};
	*out = names[usage];
	return OT_OK;
}

/* GPA 3.x/4.x's own texts, typo included; error -k is errors[k - 1]. */
static const char *const errors[] = {
	"GPA Error: Null Pointer.",
	"GPA Error: Context Not Open.",
	"GPA Error: Coontext Already Opened.",
	"GPA Error: Index Out Of Range.",
	"GPA Error: Counter Not Found.",
	"GPA Error: Already Enabled.",
	"GPA Error: No Counters Enabled.",
	"GPA Error: Not Enabled.",
	"GPA Error: Command List Already Ended.",
	"GPA Error: Command List Already Started.",
	"GPA Error: Command List Is Not Ended.",
	"GPA Error: Not Enough Passes.",
	"GPA Error: Sample Not Started.",
	"GPA Error: Sample Already Started.",
	"GPA Error: Sample Not Ended.",
	"GPA Error: Cannot Change Counters When Sampling.",
	"GPA Error: Session Not Found.",
	"GPA Error: Sample Not Found.",
	"GPA Error: Context Not Found.",
	"GPA Error: Command List Not Found.",
	"GPA Error: Reading Sample Result.",
	"GPA Error: Variable Number Of Samples In Passes.",
	"GPA Error: Failed.",
	"GPA Error: Hardware Not Supported.",
	"GPA Error: Driver Not Supported.",
	"GPA Error: API Not Supported.",
	"GPA Error: Incorrect Parameter.",
	"GPA Error: Loading The Library Failed.",
	"GPA Error: Major Version Mismatch Between The Loader And The GPUPerfAPI Library.",
	"GPA Error: Minor Version Mismatch Between The Loader And The GPUPerfAPI Library.",
	"GPA Error: GPA Has Not Been Initialized.",
	"GPA Error: GPA Has Already Been Initialized.",
	"GPA Error: Sample In Secondary Command List.",
	"GPA Error: Incompatible Sample Types.",
	"GPA Error: Session Already Started.",
	"GPA Error: Session Not Started.",
	"GPA Error: Session Not Ended.",
	"GPA Error: Invalid Counter Datatype.",
	"GPA Error: Invalid Counter Equation.",
	"GPA Error: Attempt to Retrieve Data Failed due to Timeout.",
	"GPA Error: Library Is Already Loaded.",
	"GPA Error: Other Session Is Active.",
	"GPA Error: Exception Occurred.",
	"GPA Error: Counter Group Data Is Invalid.",
};
_Static_assert(sizeof(errors) / sizeof(errors[0]) == -OT_STATUS_MIN, "one text per error");

const char *ot_status_str(int status)
{
	if (status == OT_OK)
		return "GPA Status: Ok.";
	if (status == OT_RESULT_NOT_READY)
		return "GPA Status: Counter Results Not Ready.";
	if (status > 0)
		return "GPA Status: Unknown Status.";
	if (status < OT_STATUS_MIN)
		return "GPA Error: Unknown Error.";
	return errors[-status - 1];
}

/* ---- the function tables ------------------------------------------------------- */

int ot_fill_table(const char *fn, void *table, const void *full, uint32_t major, uint32_t size)
{
	uint32_t header[2];
	memcpy(header, table, sizeof(header));
	uint32_t want[2] = { major, size };
	memcpy(table, want, sizeof(want)); /* always: the caller learns what is here */
	if (header[0] != major)
		return ot_error(OT_LIB_LOAD_MAJOR_VERSION_MISMATCH,
		                "%s: the caller asks for a version %u function table; this library "
		                "fills versions 3 (GPA 3.17) and 4 (GPA 4.3)", fn, header[0]);
	if (header[1] > size)
		return ot_error(OT_LIB_LOAD_MINOR_VERSION_MISMATCH,
		                "%s: the caller's version %u table is %u bytes, larger than this "
		                "library's (%u): it is for a newer GPA", fn, major, header[1], size);
	memcpy(table, full, header[1]);
	return OT_OK;
}
