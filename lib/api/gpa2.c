/* SPDX-License-Identifier: MIT */
/*
 * gpa2.c — the GPA 2.x global-state API, a thin front end over the core.
 *
 * Each entry point takes the registry lock, checks its arguments and the
 * state in exactly the order GPA 2.23.1 does (the table in docs/api.md,
 * one test per case in tests/api/test_gpa2_order.c), calls the core, and
 * unlocks (which delivers queued log messages).  Bookkeeping lives in the
 * core; what is here is the order of checks, the status codes, the pass
 * numbering and the "current context".
 *
 * Why one file over 600 lines: it is one job, the 37 GPA_ entry points of one
 * API, each a few lines of checks in GPA 2.23.1's order around one core
 * call.  The order table in docs/api.md reads top to bottom against it;
 * split by entry point, the shared macros and the current-context rule
 * would be repeated or moved into a header that only this file includes.
 */
/* stdbool first: GPUPerfAPITypes.h then keeps C's one-byte _Bool for `bool`,
 * the same size as the gpa_uint8 it uses otherwise. */
#include <stdbool.h>
#include <stdlib.h>

#include "GPUPerfAPI.h"
#include "core/core.h"
#include "core/readers.h"
#include "core/registry.h"
#include "expr/arith.h"

/* Every entry point, lock held: one load when nobody traces. */
#define TRACE() \
	do { \
		if (og_trace_maybe_wanted(OG_FRONT_GPA2)) \
			og_log(OG_LOG_TRACE, "%s", __func__); \
	} while (0)

static GPA_Status leave(GPA_Status status)
{
	og_unlock();
	return status;
}

static GPA_Status no_context(const char *func)
{
	return og_error(GPA_STATUS_ERROR_COUNTERS_NOT_OPEN,
	                "%s: no context is open; call GPA_OpenContext first", func);
}

static GPA_Status null_pointer(const char *func, const char *arg)
{
	return og_error(GPA_STATUS_ERROR_NULL_POINTER, "%s: %s is NULL; pass a valid pointer", func, arg);
}

static GPA_Status bad_index(const char *func, gpa_uint32 index, size_t count)
{
	return og_error(GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE,
	                "%s: counter index %u is out of range; this context has %zu counters "
	                "(0 to %zu)", func, index, count, count ? count - 1 : 0);
}

static GPA_Status sampling(const char *func, const struct og_context *ctx)
{
	return og_error(GPA_STATUS_ERROR_CANNOT_CHANGE_COUNTERS_WHEN_SAMPLING,
	                "%s: session %u is open; change counters before GPA_BeginSession or after "
	                "GPA_EndSession", func, og_session_id(ctx->open_session));
}

static GPA_Status no_session(const char *func)
{
	return og_error(GPA_STATUS_ERROR_SAMPLING_NOT_STARTED,
	                "%s: no session is open; call GPA_BeginSession first", func);
}

static GPA_Status not_found(const char *func, const char *name)
{
	return og_error(GPA_STATUS_ERROR_NOT_FOUND,
	                "%s: no counter is named '%s' on this device (run `opengpa list` to see "
	                "the names)", func, name);
}

/* The current context, or leave with COUNTERS_NOT_OPEN (lock held). */
#define CURRENT_CONTEXT(ctx) \
	struct og_context *ctx = og_registry()->current; \
	if (!ctx) \
		return leave(no_context(__func__))

/* Opens the lock and finds the current context. */
#define ENTER_CONTEXT(ctx) \
	og_lock(); \
	TRACE(); \
	CURRENT_CONTEXT(ctx)

#define CHECK_INDEX(ctx, index) \
	if ((index) >= (ctx)->cat.ncounters) \
	return leave(bad_index(__func__, (index), (ctx)->cat.ncounters))

#define CHECK_NOT_SAMPLING(ctx) \
	if ((ctx)->open_session) \
	return leave(sampling(__func__, ctx))

#define CHECK_POINTER(p) \
	if (!(p)) \
	return leave(null_pointer(__func__, #p))

/* The session open on ctx, or leave with SAMPLING_NOT_STARTED. */
#define OPEN_SESSION(ctx, s) \
	struct og_session *s = ctx->open_session; \
	if (!s) \
		return leave(no_session(__func__))

/* The getters of one counter's fields, in GPA's order: context, index,
 * pointer. */
#define GET_COUNTER_FIELD(index, p, field) \
	ENTER_CONTEXT(ctx); \
	CHECK_INDEX(ctx, index); \
	CHECK_POINTER(p); \
	*(p) = ctx->cat.counters[index].field; \
	return leave(GPA_STATUS_OK)

/* ---- startup and contexts ---------------------------------------------- */

GPA_Status GPA_RegisterLoggingCallback(GPA_Logging_Type loggingType,
                                       GPA_LoggingCallbackPtrType pCallbackFuncPtr)
{
	og_lock();
	return leave(og_set_log_callback((unsigned)loggingType, pCallbackFuncPtr));
}

GPA_Status GPA_Initialize(void)
{
	og_lock();
	TRACE();
	return leave(GPA_STATUS_OK);
}

/* GPA 2.x's GL and CL libraries do nothing here: contexts, sessions and
 * enabled counters stay, and the current context stays usable. */
GPA_Status GPA_Destroy(void)
{
	og_lock();
	TRACE();
	og_context_forget_catalogs();
	return leave(GPA_STATUS_OK);
}

GPA_Status GPA_OpenContext(void *pContext)
{
	og_lock();
	TRACE();
	CHECK_POINTER(pContext);
	if (og_context_find(OG_FRONT_GPA2, pContext))
		return leave(og_error(GPA_STATUS_ERROR_COUNTERS_ALREADY_OPEN,
		                      "GPA_OpenContext: a context is already open on %p; select it with "
		                      "GPA_SelectContext or close it first", pContext));
	struct og_context *ctx;
	GPA_Status st = og_context_open(OG_FRONT_GPA2, pContext, NULL, &ctx);
	if (st == GPA_STATUS_OK)
		og_context_make_current(ctx);
	return leave(st);
}

GPA_Status GPA_CloseContext(void)
{
	ENTER_CONTEXT(ctx);
	if (ctx->open_session)
		return leave(og_error(GPA_STATUS_ERROR_SAMPLING_NOT_ENDED,
		                      "GPA_CloseContext: session %u is still open; call GPA_EndSession "
		                      "first", og_session_id(ctx->open_session)));
	og_context_close(ctx); /* the first remaining context becomes current */
	return leave(GPA_STATUS_OK);
}

GPA_Status GPA_SelectContext(void *pContext)
{
	og_lock();
	TRACE();
	CHECK_POINTER(pContext);
	struct og_context *ctx = og_context_find(OG_FRONT_GPA2, pContext);
	if (!ctx)
		return leave(og_error(GPA_STATUS_ERROR_COUNTERS_NOT_OPEN,
		                      "GPA_SelectContext: no context is open on %p; open it with "
		                      "GPA_OpenContext first", pContext));
	og_context_make_current(ctx);
	return leave(GPA_STATUS_OK);
}

/* ---- counter queries ------------------------------------------------------ */

GPA_Status GPA_GetNumCounters(gpa_uint32 *pCount)
{
	ENTER_CONTEXT(ctx);
	CHECK_POINTER(pCount);
	*pCount = (gpa_uint32)ctx->cat.ncounters;
	return leave(GPA_STATUS_OK);
}

GPA_Status GPA_GetCounterName(gpa_uint32 index, const char **ppName)
{
	GET_COUNTER_FIELD(index, ppName, name);
}

GPA_Status GPA_GetCounterDescription(gpa_uint32 index, const char **ppDescription)
{
	GET_COUNTER_FIELD(index, ppDescription, gpa_desc);
}

GPA_Status GPA_GetCounterDataType(gpa_uint32 index, GPA_Type *pCounterDataType)
{
	GET_COUNTER_FIELD(index, pCounterDataType, type);
}

GPA_Status GPA_GetCounterUsageType(gpa_uint32 index, GPA_Usage_Type *pCounterUsageType)
{
	GET_COUNTER_FIELD(index, pCounterUsageType, usage);
}

GPA_Status GPA_GetCounterIndex(const char *pCounter, gpa_uint32 *pIndex)
{
	og_lock();
	TRACE();
	CHECK_POINTER(pCounter);
	CHECK_POINTER(pIndex);
	CURRENT_CONTEXT(ctx);
	if (!og_catalog_find(&ctx->cat, pCounter, pIndex))
		return leave(not_found(__func__, pCounter));
	return leave(GPA_STATUS_OK);
}

GPA_Status GPA_GetDeviceID(gpa_uint32 *pDeviceID)
{
	ENTER_CONTEXT(ctx);
	CHECK_POINTER(pDeviceID);
	*pDeviceID = ctx->info.device_id;
	return leave(GPA_STATUS_OK);
}

GPA_Status GPA_GetDeviceDesc(const char **ppDesc)
{
	ENTER_CONTEXT(ctx);
	CHECK_POINTER(ppDesc);
	*ppDesc = ctx->info.description;
	return leave(GPA_STATUS_OK);
}

/* ---- enabling ------------------------------------------------------------ */

GPA_Status GPA_EnableCounter(gpa_uint32 index)
{
	ENTER_CONTEXT(ctx);
	CHECK_INDEX(ctx, index);
	CHECK_NOT_SAMPLING(ctx);
	return leave(og_selection_enable(ctx, &ctx->sel, index));
}

GPA_Status GPA_DisableCounter(gpa_uint32 index)
{
	ENTER_CONTEXT(ctx);
	CHECK_INDEX(ctx, index);
	CHECK_NOT_SAMPLING(ctx);
	return leave(og_selection_disable(ctx, &ctx->sel, index));
}

GPA_Status GPA_GetEnabledCount(gpa_uint32 *pCount)
{
	ENTER_CONTEXT(ctx);
	CHECK_POINTER(pCount);
	*pCount = (gpa_uint32)ctx->sel.nenabled;
	return leave(GPA_STATUS_OK);
}

GPA_Status GPA_GetEnabledIndex(gpa_uint32 enabledNumber, gpa_uint32 *pEnabledCounterIndex)
{
	ENTER_CONTEXT(ctx);
	CHECK_POINTER(pEnabledCounterIndex);
	if (enabledNumber >= ctx->sel.nenabled)
		return leave(og_error(GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE,
		                      "GPA_GetEnabledIndex: %u is out of range; %zu counters are "
		                      "enabled", enabledNumber, ctx->sel.nenabled));
	*pEnabledCounterIndex = ctx->sel.enabled[enabledNumber];
	return leave(GPA_STATUS_OK);
}

GPA_Status GPA_IsCounterEnabled(gpa_uint32 counterIndex)
{
	ENTER_CONTEXT(ctx);
	CHECK_INDEX(ctx, counterIndex);
	if (ctx->sel.is_enabled[counterIndex])
		return leave(GPA_STATUS_OK);
	/* The answer "no": GPA logs it as a message, not as an error. */
	og_log(OG_LOG_MESSAGE, "GPA_IsCounterEnabled: counter %u (%s) is not enabled", counterIndex,
	       ctx->cat.counters[counterIndex].name);
	return leave(GPA_STATUS_ERROR_NOT_FOUND);
}

/* GPA looks the name up first (name, context, match), then enables or
 * disables the index it found: an unknown name is NOT_FOUND even while a
 * session is open. */
static GPA_Status by_name(const char *func, const char *name, bool enable)
{
	og_lock();
	TRACE();
	if (!name)
		return leave(null_pointer(func, "pCounter"));
	struct og_context *ctx = og_context_current();
	if (!ctx)
		return leave(no_context(func));
	gpa_uint32 index;
	if (!og_catalog_find(&ctx->cat, name, &index))
		return leave(not_found(func, name));
	if (ctx->open_session)
		return leave(sampling(func, ctx));
	return leave(enable ? og_selection_enable(ctx, &ctx->sel, index)
	                    : og_selection_disable(ctx, &ctx->sel, index));
}

GPA_Status GPA_EnableCounterStr(const char *pCounter)
{
	return by_name(__func__, pCounter, true);
}

GPA_Status GPA_DisableCounterStr(const char *pCounter)
{
	return by_name(__func__, pCounter, false);
}

GPA_Status GPA_EnableAllCounters(void)
{
	ENTER_CONTEXT(ctx);
	CHECK_NOT_SAMPLING(ctx);
	/* As GPA: disable all, then enable 0..N-1 in order. */
	og_selection_clear(&ctx->sel, ctx->cat.ncounters);
	for (gpa_uint32 i = 0; i < ctx->cat.ncounters; i++)
		og_selection_enable(ctx, &ctx->sel, i);
	return leave(GPA_STATUS_OK);
}

GPA_Status GPA_DisableAllCounters(void)
{
	ENTER_CONTEXT(ctx);
	CHECK_NOT_SAMPLING(ctx);
	og_selection_clear(&ctx->sel, ctx->cat.ncounters);
	return leave(GPA_STATUS_OK);
}

GPA_Status GPA_GetPassCount(gpa_uint32 *pNumPasses)
{
	og_lock();
	TRACE();
	CHECK_POINTER(pNumPasses);
	CURRENT_CONTEXT(ctx);
	const struct og_plan *plan;
	GPA_Status st = og_selection_plan(ctx, &ctx->sel, &plan);
	if (st == GPA_STATUS_OK)
		*pNumPasses = (gpa_uint32)plan->npasses;
	return leave(st);
}

/* ---- sessions, passes, samples ---------------------------------------- */

GPA_Status GPA_BeginSession(gpa_uint32 *pSessionID)
{
	ENTER_CONTEXT(ctx);
	CHECK_POINTER(pSessionID);
	const struct og_plan *plan;
	GPA_Status st = og_selection_plan(ctx, &ctx->sel, &plan);
	if (st != GPA_STATUS_OK)
		return leave(st);
	if (plan->npasses == 0)
		return leave(og_error(GPA_STATUS_ERROR_NO_COUNTERS_ENABLED,
		                      "GPA_BeginSession: no counters are enabled; enable some with "
		                      "GPA_EnableCounter or GPA_EnableAllCounters first"));
	if (ctx->open_session)
		return leave(og_error(GPA_STATUS_ERROR_SAMPLING_ALREADY_STARTED,
		                      "GPA_BeginSession: session %u is still open; call GPA_EndSession "
		                      "first", og_session_id(ctx->open_session)));
	return leave(og_session_begin(ctx, pSessionID));
}

GPA_Status GPA_EndSession(void)
{
	ENTER_CONTEXT(ctx);
	OPEN_SESSION(ctx, s);
	uint32_t pass;
	if (og_session_pass_open(s, &pass))
		return leave(og_error(GPA_STATUS_ERROR_PASS_NOT_ENDED,
		                      "GPA_EndSession: pass %u is still open; call GPA_EndPass first",
		                      pass));
	og_session_end(ctx, s);
	/* Ended all the same ("potentially recoverable"): what was counted stays. */
	if (og_session_passes_done(s) < og_session_npasses(s))
		return leave(og_error(GPA_STATUS_ERROR_NOT_ENOUGH_PASSES,
		                      "GPA_EndSession: session %u ended after %u of the %zu passes its "
		                      "counters need; loop GPA_BeginPass/GPA_EndPass GPA_GetPassCount "
		                      "times (the counters of the missing passes have no results)",
		                      og_session_id(s), og_session_passes_done(s),
		                      og_session_npasses(s)));
	return leave(GPA_STATUS_OK);
}

GPA_Status GPA_BeginPass(void)
{
	ENTER_CONTEXT(ctx);
	OPEN_SESSION(ctx, s);
	uint32_t pass;
	if (og_session_pass_open(s, &pass))
		return leave(og_error(GPA_STATUS_ERROR_PASS_ALREADY_STARTED,
		                      "GPA_BeginPass: pass %u is already open; call GPA_EndPass first",
		                      pass));
	/* No upper limit: passes beyond GPA_GetPassCount count nothing. */
	return leave(og_pass_begin(ctx, s, og_session_passes_begun(s)));
}

GPA_Status GPA_EndPass(void)
{
	ENTER_CONTEXT(ctx);
	OPEN_SESSION(ctx, s);
	uint32_t pass, id;
	if (!og_session_pass_open(s, &pass))
		return leave(og_error(GPA_STATUS_ERROR_PASS_NOT_STARTED,
		                      "GPA_EndPass: no pass is open; call GPA_BeginPass first"));
	if (og_session_sample_open(s, &id))
		return leave(og_error(GPA_STATUS_ERROR_SAMPLE_NOT_ENDED,
		                      "GPA_EndPass: sample %u is still open; call GPA_EndSample first",
		                      id));
	uint32_t here = og_session_pass_samples(s, pass), first = og_session_pass_samples(s, 0);
	GPA_Status st = og_pass_end(ctx, s);
	/* The pass is closed either way.  An extra pass counts no samples. */
	bool counted = pass < og_session_npasses(s);
	if (pass > 0 && (counted ? here : 0) != first)
		return leave(og_error(GPA_STATUS_ERROR_VARIABLE_NUMBER_OF_SAMPLES_IN_PASSES,
		                      "GPA_EndPass: pass %u had %u samples but pass 0 had %u; every "
		                      "pass must sample the same workload with the same sample IDs%s",
		                      pass, counted ? here : 0, first,
		                      counted ? "" : " (this pass is beyond GPA_GetPassCount and "
		                                     "counts none)"));
	return leave(st);
}

GPA_Status GPA_BeginSample(gpa_uint32 sampleID)
{
	ENTER_CONTEXT(ctx);
	OPEN_SESSION(ctx, s);
	/* The session's checks and the sample in one core call (the order is
	 * og_sample_begin_checked's); the messages are the API's. */
	uint32_t pass = 0, open = 0;
	GPA_Status st = GPA_STATUS_OK;
	switch (og_sample_begin_checked(ctx, s, sampleID, &pass, &open, &st)) {
	case OG_BEGIN_TAKEN:
		return leave(st);
	case OG_BEGIN_NO_PASS:
		return leave(og_error(GPA_STATUS_ERROR_PASS_NOT_STARTED,
		                      "GPA_BeginSample: no pass is open; call GPA_BeginPass first"));
	case OG_BEGIN_NESTED:
		return leave(og_error(GPA_STATUS_ERROR_SAMPLE_ALREADY_STARTED,
		                      "GPA_BeginSample(%u): sample %u is still open; samples cannot "
		                      "nest, call GPA_EndSample first", sampleID, open));
	case OG_BEGIN_DUPLICATE:
		break;
	}
	return leave(og_error(GPA_STATUS_ERROR_SAMPLE_ALREADY_STARTED,
	                      "GPA_BeginSample(%u): this sample ID was already used in pass %u; "
	                      "IDs must be unique within a pass", sampleID, pass));
}

/* GPA checks only for an open sample: with no session or no pass there is
 * none either, so those are SAMPLE_NOT_STARTED too. */
GPA_Status GPA_EndSample(void)
{
	ENTER_CONTEXT(ctx);
	struct og_session *s = ctx->open_session;
	GPA_Status st = GPA_STATUS_OK;
	if (!s || !og_sample_end_open(ctx, s, &st))
		return leave(og_error(GPA_STATUS_ERROR_SAMPLE_NOT_STARTED,
		                      "GPA_EndSample: no sample is open; call GPA_BeginSample first"));
	return leave(st);
}

/* ---- results ------------------------------------------------------------- */

static GPA_Status session_not_found(const char *func, gpa_uint32 id)
{
	return og_error(GPA_STATUS_ERROR_SESSION_NOT_FOUND,
	                "%s: session %u does not exist or was overwritten (the context keeps the "
	                "newest sessions only; see OPENGPA_SESSION_RING)", func, id);
}

/* Session `id` of ctx, or leave with SESSION_NOT_FOUND. */
#define FIND_SESSION(ctx, s, id) \
	struct og_session *s = og_session_find(ctx, id); \
	if (!s) \
		return leave(session_not_found(__func__, id))

/* GPA 2.23.1 reads the current context here without checking it (and
 * crashes without one); opengpa answers COUNTERS_NOT_OPEN. */
GPA_Status GPA_GetSampleCount(gpa_uint32 sessionID, gpa_uint32 *pSampleCount)
{
	og_lock();
	TRACE();
	CHECK_POINTER(pSampleCount);
	CURRENT_CONTEXT(ctx);
	FIND_SESSION(ctx, s, sessionID);
	/* Pass 0 defines the samples: 0 before it begins, an open sample counts. */
	*pSampleCount = og_session_pass_samples(s, 0);
	return leave(GPA_STATUS_OK);
}

GPA_Status GPA_IsSampleReady(bool *pReadyResult, gpa_uint32 sessionID, gpa_uint32 sampleID)
{
	ENTER_CONTEXT(ctx);
	CHECK_POINTER(pReadyResult);
	*pReadyResult = false;
	FIND_SESSION(ctx, s, sessionID);
	bool ready = false;
	GPA_Status st = og_session_sample_ready(s, sampleID, &ready);
	*pReadyResult = ready;
	return leave(st);
}

GPA_Status GPA_IsSessionReady(bool *pReadyResult, gpa_uint32 sessionID)
{
	ENTER_CONTEXT(ctx);
	CHECK_POINTER(pReadyResult);
	FIND_SESSION(ctx, s, sessionID);
	*pReadyResult = og_session_results_ready(s);
	return leave(GPA_STATUS_OK);
}

static const char *type_name(GPA_Type type)
{
	static const char *const names[] = { "float32", "float64", "uint32", "uint64", "int32", "int64" };
	return (unsigned)type < GPA_TYPE__LAST ? names[type] : "?";
}

/* The checks of the four GetSample functions, in GPA's check order:
 * pointer, context, counter index, type, session, enabled now; then wait,
 * then the sample.  Lock held. */
static GPA_Status get_sample_locked(const char *func, gpa_uint32 sessionID,
                                    gpa_uint32 sampleID, gpa_uint32 counter, GPA_Type want,
                                    const void *result, double *value, uint64_t *exact,
                                    bool *is_exact)
{
	if (!result)
		return null_pointer(func, "pResult");
	struct og_context *ctx = og_context_current();
	if (!ctx)
		return no_context(func);
	if (counter >= ctx->cat.ncounters)
		return bad_index(func, counter, ctx->cat.ncounters);
	const struct og_counter *c = &ctx->cat.counters[counter];
	if (c->type != want)
		return og_error(GPA_STATUS_ERROR_COUNTER_NOT_OF_SPECIFIED_TYPE,
		                "%s: counter %s is %s, not %s; read it with the matching "
		                "GPA_GetSample function", func, c->name, type_name(c->type),
		                type_name(want));
	struct og_session *s = og_session_find(ctx, sessionID);
	if (!s)
		return session_not_found(func, sessionID);
	/* GPA asks the context's enable set as it is now, not as the session
	 * began. */
	if (!ctx->sel.is_enabled[counter])
		return og_error(GPA_STATUS_ERROR_NOT_ENABLED,
		                "%s: counter %s is not enabled (GPA 2.x checks the counters enabled "
		                "now, not those session %u began with)", func, c->name, sessionID);
	if (!og_session_has_counter(s, counter))
		return og_error(GPA_STATUS_ERROR_READING_COUNTER_RESULT,
		                "%s: counter %s was enabled after session %u began, which has no "
		                "result for it", func, c->name, sessionID);
	/* A periodic session (an extension) has its samples as they complete:
	 * one not there yet is not found rather than waited for. */
	if (og_session_period(s) && !og_session_has_sample(s, sampleID))
		return og_session_no_sample(func, s, sampleID);
	/* GPA 2.x: results block until available (a periodic session's
	 * samples are, once complete). */
	if (!og_session_ready(s)) {
		GPA_Status st = og_sample_wait(ctx->serial, sessionID, sampleID, &ctx, &s);
		if (st != GPA_STATUS_OK)
			return st;
	}
	return og_session_result(ctx, s, sampleID, counter, value, exact, is_exact);
}

/* Policy (docs/counter-files.md): integers never wrap; NaN never escapes. */
static void store(GPA_Type type, void *result, double v, uint64_t exact, bool is_exact)
{
	switch (type) {
	case GPA_TYPE_UINT64:
		*(gpa_uint64 *)result = is_exact ? exact : og_arith_to_u64(v, UINT64_MAX);
		break;
	case GPA_TYPE_UINT32:
		*(gpa_uint32 *)result = (gpa_uint32)(is_exact ? og_arith_clamp_u64(exact, UINT32_MAX)
		                                              : og_arith_to_u64(v, UINT32_MAX));
		break;
	case GPA_TYPE_FLOAT64:
		*(gpa_float64 *)result = v;
		break;
	default:
		*(gpa_float32 *)result = (gpa_float32)v;
		break;
	}
}

/* The four GetSample functions when the answer is not simply there to
 * read: under the lock, which says what is wrong or waits. */
GPA_Status og_gpa2_get_sample(gpa_uint32 sessionID, gpa_uint32 sampleID, gpa_uint32 counter,
                              GPA_Type want, void *result)
{
	static const char *const names[] = {
		[GPA_TYPE_FLOAT32] = "GPA_GetSampleFloat32",
		[GPA_TYPE_FLOAT64] = "GPA_GetSampleFloat64",
		[GPA_TYPE_UINT32] = "GPA_GetSampleUInt32",
		[GPA_TYPE_UINT64] = "GPA_GetSampleUInt64",
	};
	const char *func = names[want];
	og_lock();
	if (og_log_wants(OG_LOG_TRACE))
		og_log(OG_LOG_TRACE, "%s", func);
	og_reader_join(); /* this thread's next reads need no lock */
	double v;
	uint64_t exact = 0;
	bool is_exact = false;
	GPA_Status st = get_sample_locked(func, sessionID, sampleID, counter, want, result, &v,
	                                  &exact, &is_exact);
	if (st == GPA_STATUS_OK)
		store(want, result, v, exact, is_exact);
	return leave(st);
}

/* GPA_GetSampleUInt64, UInt32, Float64 and Float32 are defined in
 * lib/core/session_results.c: each is the unlocked read itself (an answer
 * that is there is read without the lock, core/readers.h), which calls
 * og_gpa2_get_sample above for anything else. */
