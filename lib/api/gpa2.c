/* SPDX-License-Identifier: MIT */
/*
 * gpa2.c — the GPA 2.x global-state API, a thin front end over the core.
 *
 * Each entry point takes the registry lock, checks its arguments in the
 * order GPA 2.x does (docs/api.md), calls the core, and unlocks (which
 * delivers queued log messages).  Behaviour rules live in the core; what is
 * here is argument order, status codes and the "current context".
 */
/* stdbool first: GPUPerfAPITypes.h then keeps C's one-byte _Bool for `bool`,
 * the same size as the gpa_uint8 it uses otherwise. */
#include <stdbool.h>
#include <stdlib.h>

#include "GPUPerfAPI.h"
#include "core/core.h"

#define TRACE() \
	do { \
		if (og_log_wants(OG_LOG_TRACE)) \
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

/* Opens the lock and finds the current context, or leaves with COUNTERS_NOT_OPEN. */
#define ENTER_CONTEXT(ctx) \
	og_lock(); \
	TRACE(); \
	struct og_context *ctx = og_context_current(); \
	if (!ctx) \
		return leave(no_context(__func__))

#define CHECK_INDEX(ctx, index) \
	if ((index) >= (ctx)->cat.ncounters) \
	return leave(bad_index(__func__, (index), (ctx)->cat.ncounters))

#define CHECK_NOT_SAMPLING(ctx) \
	if ((ctx)->open_session) \
	return leave(og_error(GPA_STATUS_ERROR_CANNOT_CHANGE_COUNTERS_WHEN_SAMPLING, \
	                      "%s: session %u is open; change counters before GPA_BeginSession " \
	                      "or after GPA_EndSession", __func__, \
	                      (ctx)->next_session_id - 1))

#define CHECK_POINTER(p) \
	if (!(p)) \
	return leave(null_pointer(__func__, #p))

/* ---- startup and contexts ---------------------------------------------- */

GPA_Status GPA_RegisterLoggingCallback(GPA_Logging_Type loggingType,
                                       GPA_LoggingCallbackPtrType pCallbackFuncPtr)
{
	og_lock();
	return leave(og_set_log_callback(loggingType, pCallbackFuncPtr));
}

GPA_Status GPA_Initialize(void)
{
	og_lock();
	TRACE();
	return leave(GPA_STATUS_OK);
}

GPA_Status GPA_Destroy(void)
{
	og_lock();
	TRACE();
	for (struct og_context *c = og_context_first(); c; c = c->next)
		if (c->open_session)
			return leave(og_error(GPA_STATUS_ERROR_SAMPLING_NOT_ENDED,
			                      "GPA_Destroy: session %u is still open; end it and close "
			                      "its context first", c->open_session ? c->next_session_id - 1 : 0));
	struct og_context *c;
	while ((c = og_context_first()) != NULL) {
		og_log(OG_LOG_MESSAGE, "GPA_Destroy: closing a context that was left open");
		og_context_close(c);
	}
	return leave(GPA_STATUS_OK);
}

GPA_Status GPA_OpenContext(void *pContext)
{
	og_lock();
	TRACE();
	CHECK_POINTER(pContext);
	if (og_context_find(pContext))
		return leave(og_error(GPA_STATUS_ERROR_COUNTERS_ALREADY_OPEN,
		                      "GPA_OpenContext: a context is already open on %p; select it with "
		                      "GPA_SelectContext or close it first", pContext));
	struct og_context *ctx;
	GPA_Status st = og_context_open(pContext, &ctx);
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
		                      "first", ctx->next_session_id - 1));
	og_context_close(ctx); /* the first remaining context becomes current */
	return leave(GPA_STATUS_OK);
}

GPA_Status GPA_SelectContext(void *pContext)
{
	og_lock();
	TRACE();
	CHECK_POINTER(pContext);
	struct og_context *ctx = og_context_find(pContext);
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
	ENTER_CONTEXT(ctx);
	CHECK_INDEX(ctx, index);
	CHECK_POINTER(ppName);
	*ppName = ctx->cat.counters[index].name;
	return leave(GPA_STATUS_OK);
}

GPA_Status GPA_GetCounterDescription(gpa_uint32 index, const char **ppDescription)
{
	ENTER_CONTEXT(ctx);
	CHECK_INDEX(ctx, index);
	CHECK_POINTER(ppDescription);
	*ppDescription = ctx->cat.counters[index].gpa_desc;
	return leave(GPA_STATUS_OK);
}

GPA_Status GPA_GetCounterDataType(gpa_uint32 index, GPA_Type *pCounterDataType)
{
	ENTER_CONTEXT(ctx);
	CHECK_INDEX(ctx, index);
	CHECK_POINTER(pCounterDataType);
	*pCounterDataType = ctx->cat.counters[index].type;
	return leave(GPA_STATUS_OK);
}

GPA_Status GPA_GetCounterUsageType(gpa_uint32 index, GPA_Usage_Type *pCounterUsageType)
{
	ENTER_CONTEXT(ctx);
	CHECK_INDEX(ctx, index);
	CHECK_POINTER(pCounterUsageType);
	*pCounterUsageType = ctx->cat.counters[index].usage;
	return leave(GPA_STATUS_OK);
}

GPA_Status GPA_GetCounterIndex(const char *pCounter, gpa_uint32 *pIndex)
{
	og_lock();
	TRACE();
	CHECK_POINTER(pCounter);
	CHECK_POINTER(pIndex);
	struct og_context *ctx = og_context_current();
	if (!ctx)
		return leave(no_context(__func__));
	if (!og_catalog_find(&ctx->cat, pCounter, pIndex))
		return leave(og_error(GPA_STATUS_ERROR_NOT_FOUND,
		                      "GPA_GetCounterIndex: no counter is named '%s' on this device "
		                      "(run `opengpa list` to see the names)", pCounter));
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
	CHECK_NOT_SAMPLING(ctx);
	CHECK_INDEX(ctx, index);
	return leave(og_counter_enable(ctx, index));
}

GPA_Status GPA_DisableCounter(gpa_uint32 index)
{
	ENTER_CONTEXT(ctx);
	CHECK_NOT_SAMPLING(ctx);
	CHECK_INDEX(ctx, index);
	return leave(og_counter_disable(ctx, index));
}

GPA_Status GPA_GetEnabledCount(gpa_uint32 *pCount)
{
	ENTER_CONTEXT(ctx);
	CHECK_POINTER(pCount);
	*pCount = (gpa_uint32)ctx->nenabled;
	return leave(GPA_STATUS_OK);
}

GPA_Status GPA_GetEnabledIndex(gpa_uint32 enabledNumber, gpa_uint32 *pEnabledCounterIndex)
{
	ENTER_CONTEXT(ctx);
	if (enabledNumber >= ctx->nenabled)
		return leave(og_error(GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE,
		                      "GPA_GetEnabledIndex: %u is out of range; %zu counters are "
		                      "enabled", enabledNumber, ctx->nenabled));
	CHECK_POINTER(pEnabledCounterIndex);
	*pEnabledCounterIndex = ctx->enabled[enabledNumber];
	return leave(GPA_STATUS_OK);
}

GPA_Status GPA_IsCounterEnabled(gpa_uint32 counterIndex)
{
	ENTER_CONTEXT(ctx);
	CHECK_INDEX(ctx, counterIndex);
	/* NOT_FOUND is the answer "no", not a failure: nothing is logged. */
	return leave(ctx->is_enabled[counterIndex] ? GPA_STATUS_OK : GPA_STATUS_ERROR_NOT_FOUND);
}

static GPA_Status by_name(const char *func, const char *name, bool enable)
{
	og_lock();
	TRACE();
	/* Context first: only GetCounterIndex, GetPassCount and GetSample* check
	 * their pointers before it (docs/api.md). */
	struct og_context *ctx = og_context_current();
	if (!ctx)
		return leave(no_context(func));
	if (!name)
		return leave(null_pointer(func, "pCounter"));
	if (ctx->open_session)
		return leave(og_error(GPA_STATUS_ERROR_CANNOT_CHANGE_COUNTERS_WHEN_SAMPLING,
		                      "%s: session %u is open; change counters before GPA_BeginSession "
		                      "or after GPA_EndSession", func, ctx->next_session_id - 1));
	gpa_uint32 index;
	if (!og_catalog_find(&ctx->cat, name, &index))
		return leave(og_error(GPA_STATUS_ERROR_NOT_FOUND,
		                      "%s: no counter is named '%s' on this device (run `opengpa list` "
		                      "to see the names)", func, name));
	return leave(enable ? og_counter_enable(ctx, index) : og_counter_disable(ctx, index));
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
	og_counter_disable_all(ctx);
	for (gpa_uint32 i = 0; i < ctx->cat.ncounters; i++)
		og_counter_enable(ctx, i);
	return leave(GPA_STATUS_OK);
}

GPA_Status GPA_DisableAllCounters(void)
{
	ENTER_CONTEXT(ctx);
	CHECK_NOT_SAMPLING(ctx);
	og_counter_disable_all(ctx);
	return leave(GPA_STATUS_OK);
}

GPA_Status GPA_GetPassCount(gpa_uint32 *pNumPasses)
{
	og_lock();
	TRACE();
	CHECK_POINTER(pNumPasses);
	struct og_context *ctx = og_context_current();
	if (!ctx)
		return leave(no_context(__func__));
	const struct og_plan *plan;
	GPA_Status st = og_context_plan(ctx, &plan);
	if (st == GPA_STATUS_OK)
		*pNumPasses = (gpa_uint32)plan->npasses;
	return leave(st);
}

/* ---- sessions, passes, samples ---------------------------------------- */

GPA_Status GPA_BeginSession(gpa_uint32 *pSessionID)
{
	ENTER_CONTEXT(ctx);
	CHECK_POINTER(pSessionID);
	return leave(og_session_begin(ctx, pSessionID));
}

GPA_Status GPA_EndSession(void)
{
	ENTER_CONTEXT(ctx);
	return leave(og_session_end(ctx));
}

GPA_Status GPA_BeginPass(void)
{
	ENTER_CONTEXT(ctx);
	return leave(og_pass_begin(ctx));
}

GPA_Status GPA_EndPass(void)
{
	ENTER_CONTEXT(ctx);
	return leave(og_pass_end(ctx));
}

GPA_Status GPA_BeginSample(gpa_uint32 sampleID)
{
	ENTER_CONTEXT(ctx);
	return leave(og_sample_begin(ctx, sampleID));
}

GPA_Status GPA_EndSample(void)
{
	ENTER_CONTEXT(ctx);
	return leave(og_sample_end(ctx));
}

/* ---- results ------------------------------------------------------------- */

static GPA_Status session_not_found(const char *func, gpa_uint32 id)
{
	return og_error(GPA_STATUS_ERROR_SESSION_NOT_FOUND,
	                "%s: session %u does not exist or was overwritten (the context keeps the "
	                "newest sessions only; see OPENGPA_SESSION_RING)", func, id);
}

GPA_Status GPA_GetSampleCount(gpa_uint32 sessionID, gpa_uint32 *pSampleCount)
{
	og_lock();
	TRACE();
	CHECK_POINTER(pSampleCount);
	struct og_context *ctx = og_context_current();
	if (!ctx)
		return leave(no_context(__func__));
	struct og_session *s = og_session_find(ctx, sessionID);
	if (!s)
		return leave(session_not_found(__func__, sessionID));
	return leave(og_session_sample_count(s, pSampleCount));
}

GPA_Status GPA_IsSampleReady(bool *pReadyResult, gpa_uint32 sessionID, gpa_uint32 sampleID)
{
	ENTER_CONTEXT(ctx);
	CHECK_POINTER(pReadyResult);
	struct og_session *s = og_session_find(ctx, sessionID);
	if (!s)
		return leave(session_not_found(__func__, sessionID));
	bool ready = false;
	GPA_Status st = og_session_sample_ready(s, sampleID, &ready);
	*pReadyResult = ready;
	return leave(st);
}

GPA_Status GPA_IsSessionReady(bool *pReadyResult, gpa_uint32 sessionID)
{
	ENTER_CONTEXT(ctx);
	CHECK_POINTER(pReadyResult);
	struct og_session *s = og_session_find(ctx, sessionID);
	if (!s)
		return leave(session_not_found(__func__, sessionID));
	*pReadyResult = og_session_ready(s);
	return leave(GPA_STATUS_OK);
}

static const char *type_name(GPA_Type type)
{
	static const char *const names[] = { "float32", "float64", "uint32", "uint64", "int32", "int64" };
	return (unsigned)type < GPA_TYPE__LAST ? names[type] : "?";
}

/* The shared body of the four GetSample functions, in GPA's check order:
 * pointer, counter index and type, session, enabled, sample; then wait. */
static GPA_Status get_sample(const char *func, gpa_uint32 sessionID, gpa_uint32 sampleID,
                             gpa_uint32 counter, GPA_Type want, const void *result,
                             double *value, uint64_t *exact, bool *is_exact)
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
	if (!og_session_has_counter(s, counter))
		return og_error(GPA_STATUS_ERROR_NOT_ENABLED,
		                "%s: counter %s was not enabled in session %u", func, c->name,
		                sessionID);
	/* Whether the passes this counter needs sampled it is the result's
	 * business: a sample missing from a pass the counter does not use is
	 * no error (and must log none). */
	if (!og_session_has_sample(s, sampleID))
		return og_error(GPA_STATUS_ERROR_SAMPLE_NOT_FOUND, "%s: sample %u is not in session %u",
		                func, sampleID, sessionID);
	/* GPA 2.x: results block until available (a periodic session's
	 * samples are, once complete). */
	GPA_Status st = og_sample_wait(ctx->serial, sessionID, sampleID, &ctx, &s);
	if (st != GPA_STATUS_OK)
		return st;
	return og_session_result(ctx, s, sampleID, counter, value, exact, is_exact);
}

/* Policy (docs/counter-files.md): integers never wrap; NaN never escapes. */
static uint64_t to_u64(double v, uint64_t max)
{
	if (!(v > 0.0))
		return 0;
	if (v >= (double)max)
		return max;
	return (uint64_t)(v + 0.5) > max ? max : (uint64_t)(v + 0.5);
}

GPA_Status GPA_GetSampleUInt64(gpa_uint32 sessionID, gpa_uint32 sampleID, gpa_uint32 counterID,
                               gpa_uint64 *pResult)
{
	og_lock();
	TRACE();
	double v;
	uint64_t exact = 0;
	bool is_exact = false;
	GPA_Status st = get_sample(__func__, sessionID, sampleID, counterID, GPA_TYPE_UINT64,
	                           pResult, &v, &exact, &is_exact);
	if (st == GPA_STATUS_OK)
		*pResult = is_exact ? exact : to_u64(v, UINT64_MAX);
	return leave(st);
}

GPA_Status GPA_GetSampleUInt32(gpa_uint32 sessionID, gpa_uint32 sampleID,
                               gpa_uint32 counterIndex, gpa_uint32 *pResult)
{
	og_lock();
	TRACE();
	double v;
	uint64_t exact = 0;
	bool is_exact = false;
	GPA_Status st = get_sample(__func__, sessionID, sampleID, counterIndex, GPA_TYPE_UINT32,
	                           pResult, &v, &exact, &is_exact);
	if (st == GPA_STATUS_OK)
		*pResult = (gpa_uint32)(is_exact ? (exact > UINT32_MAX ? UINT32_MAX : exact)
		                                 : to_u64(v, UINT32_MAX));
	return leave(st);
}

GPA_Status GPA_GetSampleFloat64(gpa_uint32 sessionID, gpa_uint32 sampleID,
                                gpa_uint32 counterIndex, gpa_float64 *pResult)
{
	og_lock();
	TRACE();
	double v;
	uint64_t exact;
	bool is_exact;
	GPA_Status st = get_sample(__func__, sessionID, sampleID, counterIndex, GPA_TYPE_FLOAT64,
	                           pResult, &v, &exact, &is_exact);
	if (st == GPA_STATUS_OK)
		*pResult = v;
	return leave(st);
}

GPA_Status GPA_GetSampleFloat32(gpa_uint32 sessionID, gpa_uint32 sampleID,
                                gpa_uint32 counterIndex, gpa_float32 *pResult)
{
	og_lock();
	TRACE();
	double v;
	uint64_t exact;
	bool is_exact;
	GPA_Status st = get_sample(__func__, sessionID, sampleID, counterIndex, GPA_TYPE_FLOAT32,
	                           pResult, &v, &exact, &is_exact);
	if (st == GPA_STATUS_OK)
		*pResult = (gpa_float32)v;
	return leave(st);
}
