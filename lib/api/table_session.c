/* SPDX-License-Identifier: MIT */
/*
 * table_session.c — life cycle for GPA 3.x/4.x (table.h): logging callback,
 * opening and closing contexts, creating, beginning and ending sessions.
 */
#include "api/table.h"
#include "apictx/apictx.h"
#include "core/registry.h"

int ot_register_logging(unsigned type, GPA_LoggingCallbackPtrType callback)
{
	return ot_from_core(og_set_log_callback(type, callback));
}

void ot_drop_logging(void)
{
	og_registry()->callback[OG_FRONT_TABLE] = (struct og_log_callback){ 0 };
	og_log_changed();
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
	ot_view_open(ctx);
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
	int begun = ot_from_core(og_xsession_begin(x));
	return begun == OT_OK && ot_vk(ctx) ? ot_vk_session_begun(fn, x) : begun;
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
