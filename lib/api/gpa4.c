/* SPDX-License-Identifier: MIT */
/*
 * gpa4.c — the GPA 4.3 function table (major version 4, 72 entries), the
 * exported Gpa* names, and GpaGetFuncTable, which fills a 3.17 table
 * (gpa3.c) or a 4.3 one as the caller's major_version asks.
 *
 * Each entry checks in GPA 4.3's order (docs/api-gpa3.md): GpaInitialize
 * first, then handles before pointers.  The exported names are these,
 * with one addition for clients of GPA 3.x that look names up one by one:
 * the counter queries, which take a session in 4.x and a context in 3.x,
 * answer as GPA 3.17 does when they are handed a context.
 */
#include <string.h>

/* The core first: its 2.x types define UNREFERENCED_PARAMETER as GPA 2.x
 * does, and the 3.x/4.x header then keeps it. */
#include "api/table.h"

#include "gpa4/gpu_performance_api/gpu_perf_api.h"

#include "api/table_entry.h"

OT_ASSERT_VERSION_VALUES("GPA 4.3");
_Static_assert(OT_SAMPLE_TYPE_MAX + 1 == (unsigned)kGpaSessionSampleTypeLast,
               "GPA 4.3 session types");

/* Handle checks, each behind the initialisation check. */
#define INITIALIZED_HANDLE(type, var, look_up, id) \
	ENTER(); \
	type *var; \
	CHECK(ot_initialized(__func__)); \
	CHECK(look_up(__func__, id, &var))
#define CONTEXT(ctx, id) INITIALIZED_HANDLE(struct og_context, ctx, ot_context, id)
#define SESSION(x, id) INITIALIZED_HANDLE(struct og_xsession, x, ot_session, id)
#define COMMAND_LIST(cl, id) INITIALIZED_HANDLE(struct og_cmdlist, cl, ot_command_list, id)

/* ---- life cycle ------------------------------------------------------------ */

GpaStatus GpaRegisterLoggingCallback(GpaLoggingType type, GpaLoggingCallbackPtrType cb)
{
	ENTER();
	RETURN(ot_register_logging((unsigned)type, (GPA_LoggingCallbackPtrType)cb));
}

GpaStatus GpaInitialize(GpaInitializeFlags flags)
{
	ENTER();
	if (ot_is_initialized())
		RETURN(ot_error(OT_GPA_ALREADY_INITIALIZED, "%s: GPA is initialised already",
		                __func__));
	if (flags != kGpaInitializeDefaultBit && flags != kGpaInitializeSimultaneousQueuesEnableBit &&
	    flags != kGpaInitializeEnableSqttBit)
		RETURN(ot_error(OT_INVALID_PARAMETER, "%s: flags 0x%x are not initialisation flags",
		                __func__, flags));
	ot_set_initialized(true);
	RETURN(OT_OK);
}

GpaStatus GpaDestroy(void)
{
	ENTER();
	int st = ot_initialized(__func__);
	ot_set_initialized(false);
	og_context_forget_catalogs();
	ot_drop_logging();
	RETURN(st);
}

GpaStatus GpaOpenContext(void *api_context, GpaOpenContextFlags flags, GpaContextId *id)
{
	ENTER();
	CHECK(ot_initialized(__func__));
	NOT_NULL(api_context);
	NOT_NULL(id);
	void *h;
	CHECK(ot_open_context(__func__, api_context, flags, &h));
	*id = h;
	RETURN(OT_OK);
}

GpaStatus GpaCloseContext(GpaContextId id)
{
	CONTEXT(ctx, id);
	RETURN(ot_close_context(ctx));
}

/* ---- the context ---------------------------------------------------------------- */

GpaStatus GpaGetSupportedSampleTypes(GpaContextId id, GpaContextSampleTypeFlags *types)
{
	CONTEXT(ctx, id);
	NOT_NULL(types);
	*types = kGpaContextSampleTypeDiscreteCounter;
	RETURN(OT_OK);
}

GpaStatus GpaGetDeviceAndRevisionId(GpaContextId id, GpaUInt32 *device, GpaUInt32 *revision)
{
	CONTEXT(ctx, id);
	NOT_NULL(device);
	NOT_NULL(revision);
	RETURN(ot_device_id(__func__, ctx, device, revision));
}

GpaStatus GpaGetDeviceName(GpaContextId id, const char **name)
{
	CONTEXT(ctx, id);
	NOT_NULL(name);
	RETURN(ot_device_name(__func__, ctx, name));
}

GpaStatus GpaGetDeviceGeneration(GpaContextId id, GpaHwGeneration *generation)
{
	CONTEXT(ctx, id);
	NOT_NULL(generation);
	*generation = kGpaHwGenerationNone; /* no AMD generation */
	RETURN(OT_OK);
}

/* Shader-engine sizes are AMD's; opengpa validates them, as GPA does, and
 * has no use for them. */
GpaStatus GpaUpdateDeviceInformation(GpaContextId id, GpaUInt32 shader_engines,
                                     GpaUInt32 compute_units, GpaUInt32 simds,
                                     GpaUInt32 waves_per_simd)
{
	ENTER();
	if (!shader_engines || !compute_units || !simds || !waves_per_simd)
		RETURN(ot_error(OT_INVALID_PARAMETER, "%s: every count must be at least 1", __func__));
	struct og_context *ctx;
	CHECK(ot_initialized(__func__));
	CHECK(ot_context(__func__, id, &ctx));
	RETURN(OT_OK);
}

static int no_amd_limit(const char *fn, const struct og_context *ctx, const void *out)
{
	if (!out)
		return ot_null(fn, "the output pointer");
	return ot_error(OT_FAILED, "%s: the %s backend's device has no AMD shader limits to give",
	                fn, ctx->ops->name);
}

GpaStatus GpaGetDeviceMaxWaveSlots(GpaContextId id, GpaUInt32 *slots)
{
	CONTEXT(ctx, id);
	RETURN(no_amd_limit(__func__, ctx, slots));
}

GpaStatus GpaGetDeviceMaxVgprs(GpaContextId id, GpaUInt32 *vgprs)
{
	CONTEXT(ctx, id);
	RETURN(no_amd_limit(__func__, ctx, vgprs));
}

GpaStatus GpaGetDeviceMaxLdsBytes(GpaContextId id, GpaUInt32 *bytes)
{
	CONTEXT(ctx, id);
	RETURN(no_amd_limit(__func__, ctx, bytes));
}

/* ---- counters: of a session (4.x), or of a context (3.x clients) ---------------- */

GpaStatus GpaGetNumCounters(GpaSessionId id, GpaUInt32 *count)
{
	ENTER();
	RETURN(ot_is_context(id) ? ot_num_counters3(__func__, id, count)
	                         : ot_num_counters4(__func__, id, count));
}

GpaStatus GpaGetCounterIndex(GpaSessionId id, const char *name, GpaUInt32 *index)
{
	ENTER();
	RETURN(ot_is_context(id) ? ot_counter_index3(__func__, id, name, index)
	                         : ot_counter_index4(__func__, id, name, index));
}

#define QUERY(name, q3, q4, type) \
	GpaStatus name(GpaSessionId id, GpaUInt32 index, type out) \
	{ \
		ENTER(); \
		RETURN(ot_is_context(id) ? ot_query3(__func__, id, index, q3, out) \
		                         : ot_query4(__func__, id, index, q4, out)); \
	}
QUERY(GpaGetCounterName, OT_Q_NAME, OT_Q_NAME, const char **)
QUERY(GpaGetCounterGroup, OT_Q_GROUP, OT_Q_GROUP, const char **)
QUERY(GpaGetCounterDescription, OT_Q_DESCRIPTION, OT_Q_DESCRIPTION, const char **)
QUERY(GpaGetCounterDataType, OT_Q_DATA_TYPE, OT_Q_DATA_TYPE, GpaDataType *)
QUERY(GpaGetCounterUsageType, OT_Q_USAGE, OT_Q_USAGE, GpaUsageType *)
QUERY(GpaGetCounterUuid, OT_Q_UUID3, OT_Q_UUID4, GpaUuid *)
QUERY(GpaGetCounterSampleType, OT_Q_SAMPLE_TYPE, OT_Q_SAMPLE_TYPE, GpaCounterSampleType *)
#undef QUERY

GpaStatus GpaGetDataTypeAsStr(GpaDataType type, const char **text)
{
	ENTER();
	if ((unsigned)type >= kGpaDataTypeLast)
		RETURN(ot_error(OT_INVALID_PARAMETER, "%s: %d is not a data type", __func__, type));
	NOT_NULL(text);
	RETURN(ot_data_type_str(type, text));
}

GpaStatus GpaGetUsageTypeAsStr(GpaUsageType usage, const char **text)
{
	ENTER();
	if ((unsigned)usage >= kGpaUsageTypeLast)
		RETURN(ot_error(OT_INVALID_PARAMETER, "%s: %d is not a usage type", __func__, usage));
	NOT_NULL(text);
	RETURN(ot_usage_type_str(usage, text));
}

/* ---- sessions ------------------------------------------------------------------------ */

GpaStatus GpaCreateSession(GpaContextId id, GpaSessionSampleType type, GpaSessionId *session)
{
	CONTEXT(ctx, id);
	if ((unsigned)type > OT_SAMPLE_TYPE_MAX)
		RETURN(ot_error(OT_INVALID_PARAMETER, "%s: %d is not a session sample type",
		                __func__, type));
	NOT_NULL(session);
	void *h;
	CHECK(ot_create_session(__func__, ctx, (uint32_t)type, &h));
	*session = h;
	RETURN(OT_OK);
}

GpaStatus GpaDeleteSession(GpaSessionId id)
{
	SESSION(x, id);
	RETURN(ot_delete_session(x));
}

GpaStatus GpaBeginSession(GpaSessionId id)
{
	SESSION(x, id);
	RETURN(ot_begin_session(__func__, x));
}

GpaStatus GpaEndSession(GpaSessionId id)
{
	SESSION(x, id);
	RETURN(ot_end_session(__func__, x));
}

/* Back to before GpaBeginSession, its counters kept, to measure again. */
GpaStatus GpaResetSession(GpaSessionId id)
{
	SESSION(x, id);
	CHECK(ot_running(__func__, x));
	og_xsession_reset(x);
	RETURN(OT_OK);
}

/* Ends a running session whatever is missing; its results are what was
 * counted (counters of missing passes read as ReadingSampleResult). */
GpaStatus GpaAbortSession(GpaSessionId id)
{
	SESSION(x, id);
	if (!x->running)
		RETURN(ot_error(OT_SESSION_NOT_STARTED, "%s: the session is not running", __func__));
	og_xsession_abort(x);
	RETURN(OT_OK);
}

/* ---- SQTT and SPM: AMD's thread trace and streaming counters --------------------------- */

/* Only discrete-counter sessions exist here (GpaCreateSession refuses the
 * others), so these find none of what they need. */
static int not_traced(const char *fn)
{
	return ot_error(OT_INCOMPATIBLE_SAMPLE_TYPES,
	                "%s: this is a discrete-counter session; thread traces and streaming "
	                "counters are AMD hardware features opengpa does not have", fn);
}

#define TRACE_ENTRY(name, params, ...) \
	GpaStatus name params \
	{ \
		SESSION(x, id); \
		(void)x; \
		__VA_ARGS__; \
		RETURN(not_traced(__func__)); \
	}
TRACE_ENTRY(GpaSqttGetInstructionMask, (GpaSessionId id, GpaSqttInstructionFlags *mask),
            NOT_NULL(mask))
TRACE_ENTRY(GpaSqttSetInstructionMask, (GpaSessionId id, GpaSqttInstructionFlags mask),
            (void)mask)
TRACE_ENTRY(GpaSqttGetComputeUnitId, (GpaSessionId id, GpaUInt32 *unit), NOT_NULL(unit))
TRACE_ENTRY(GpaSqttSetComputeUnitId, (GpaSessionId id, GpaUInt32 unit), (void)unit)
TRACE_ENTRY(GpaSqttBegin, (GpaSessionId id, void *list), (void)list)
TRACE_ENTRY(GpaSqttEnd, (GpaSessionId id, void *list), (void)list)
TRACE_ENTRY(GpaSqttGetSampleResultSize, (GpaSessionId id, size_t *size), NOT_NULL(size))
TRACE_ENTRY(GpaSqttGetSampleResult, (GpaSessionId id, size_t size, void *results),
            (void)size; NOT_NULL(results))
TRACE_ENTRY(GpaSpmSetSampleInterval, (GpaSessionId id, GpaUInt32 interval), (void)interval)
TRACE_ENTRY(GpaSpmSetDuration, (GpaSessionId id, GpaUInt32 ns), (void)ns)
TRACE_ENTRY(GpaSpmBegin, (GpaSessionId id, void *list), (void)list)
TRACE_ENTRY(GpaSpmEnd, (GpaSessionId id, void *list), (void)list)
TRACE_ENTRY(GpaSpmGetSampleResultSize, (GpaSessionId id, size_t *size), NOT_NULL(size))
TRACE_ENTRY(GpaSpmGetSampleResult, (GpaSessionId id, size_t size, void *results),
            (void)size; NOT_NULL(results))
TRACE_ENTRY(GpaSpmCalculateDerivedCounters,
            (GpaSessionId id, GpaSpmData *data, GpaUInt32 count, GpaUInt64 *results),
            (void)count; NOT_NULL(data); NOT_NULL(results))
TRACE_ENTRY(GpaSqttSpmBegin, (GpaSessionId id, void *list), (void)list)
TRACE_ENTRY(GpaSqttSpmEnd, (GpaSessionId id, void *list), (void)list)
#undef TRACE_ENTRY

/* ---- a session's counters ---------------------------------------------------------------- */

GpaStatus GpaEnableCounter(GpaSessionId id, GpaUInt32 index)
{
	SESSION(x, id);
	RETURN(ot_enable(__func__, x, index, true));
}

GpaStatus GpaDisableCounter(GpaSessionId id, GpaUInt32 index)
{
	SESSION(x, id);
	RETURN(ot_enable(__func__, x, index, false));
}

GpaStatus GpaEnableCounterByName(GpaSessionId id, const char *name)
{
	SESSION(x, id);
	RETURN(ot_enable_by_name(__func__, x, name, true));
}

GpaStatus GpaDisableCounterByName(GpaSessionId id, const char *name)
{
	SESSION(x, id);
	RETURN(ot_enable_by_name(__func__, x, name, false));
}

GpaStatus GpaEnableAllCounters(GpaSessionId id)
{
	SESSION(x, id);
	RETURN(ot_enable_all(__func__, x, true));
}

GpaStatus GpaDisableAllCounters(GpaSessionId id)
{
	SESSION(x, id);
	RETURN(ot_enable_all(__func__, x, false));
}

GpaStatus GpaGetPassCount(GpaSessionId id, GpaUInt32 *passes)
{
	SESSION(x, id);
	NOT_NULL(passes);
	RETURN(ot_pass_count(x, passes));
}

GpaStatus GpaGetNumEnabledCounters(GpaSessionId id, GpaUInt32 *count)
{
	SESSION(x, id);
	NOT_NULL(count);
	size_t n;
	ot_session_counters(x, &n);
	*count = (GpaUInt32)n;
	RETURN(OT_OK);
}

GpaStatus GpaGetEnabledIndex(GpaSessionId id, GpaUInt32 number, GpaUInt32 *index)
{
	SESSION(x, id);
	NOT_NULL(index);
	RETURN(ot_enabled_index(__func__, x, number, index));
}

GpaStatus GpaIsCounterEnabled(GpaSessionId id, GpaUInt32 index)
{
	SESSION(x, id);
	RETURN(ot_is_counter_enabled(__func__, x, index));
}

/* ---- command lists and samples ------------------------------------------------------------ */

GpaStatus GpaBeginCommandList(GpaSessionId id, GpaUInt32 pass, void *list, GpaCommandListType type,
                              GpaCommandListId *out)
{
	SESSION(x, id);
	RETURN(ot_begin_command_list(__func__, x, pass, list, (uint32_t)type, (void **)out));
}

GpaStatus GpaEndCommandList(GpaCommandListId id)
{
	COMMAND_LIST(cl, id);
	RETURN(ot_end_command_list(__func__, cl));
}

GpaStatus GpaBeginSample(GpaUInt32 sample, GpaCommandListId id)
{
	COMMAND_LIST(cl, id);
	RETURN(ot_begin_sample(__func__, sample, cl));
}

GpaStatus GpaEndSample(GpaCommandListId id)
{
	COMMAND_LIST(cl, id);
	RETURN(ot_end_sample(__func__, cl));
}

GpaStatus GpaContinueSampleOnCommandList(GpaUInt32 sample, GpaCommandListId primary)
{
	ENTER();
	CHECK(ot_initialized(__func__));
	RETURN(ot_continue_sample(__func__, sample, primary));
}

GpaStatus GpaCopySecondarySamples(GpaCommandListId secondary, GpaCommandListId primary,
                                  GpaUInt32 count, GpaUInt32 *new_ids)
{
	ENTER();
	CHECK(ot_initialized(__func__));
	RETURN(ot_copy_secondary(__func__, secondary, primary, count, new_ids));
}

/* ---- results -------------------------------------------------------------------------------- */

GpaStatus GpaGetSampleCount(GpaSessionId id, GpaUInt32 *count)
{
	SESSION(x, id);
	CHECK(ot_running(__func__, x));
	NOT_NULL(count);
	*count = ot_sample_count(x);
	RETURN(OT_OK);
}

GpaStatus GpaGetSampleId(GpaSessionId id, GpaUInt32 index, GpaUInt32 *sample)
{
	SESSION(x, id);
	CHECK(ot_running(__func__, x));
	NOT_NULL(sample);
	RETURN(ot_sample_id(__func__, x, index, sample));
}

GpaStatus GpaIsPassComplete(GpaSessionId id, GpaUInt32 pass)
{
	SESSION(x, id);
	RETURN(ot_is_pass_complete(__func__, x, pass));
}

GpaStatus GpaIsSessionComplete(GpaSessionId id)
{
	SESSION(x, id);
	RETURN(ot_is_session_complete(__func__, x));
}

GpaStatus GpaGetSampleResultSize(GpaSessionId id, GpaUInt32 sample, size_t *size)
{
	SESSION(x, id);
	NOT_NULL(size);
	CHECK(ot_sample_in_pass0(__func__, x, sample));
	CHECK(ot_running(__func__, x));
	*size = ot_result_size(x);
	RETURN(OT_OK);
}

GpaStatus GpaGetSampleResult(GpaSessionId id, GpaUInt32 sample, size_t size, void *results)
{
	SESSION(x, id);
	NOT_NULL(results);
	CHECK(ot_sample_in_pass0(__func__, x, sample));
	CHECK(ot_running(__func__, x));
	RETURN(ot_sample_result(__func__, x, sample, size, results));
}

const char *GpaGetStatusAsStr(GpaStatus status)
{
	return ot_status_str(status);
}

GpaStatus GpaGetVersion(GpaUInt32 *major, GpaUInt32 *minor, GpaUInt32 *build, GpaUInt32 *update)
{
	ENTER();
	RETURN(ot_version(__func__, 4, 3, major, minor, build, update));
}

/* ---- the table ---------------------------------------------------------------------------- */

_Static_assert(sizeof(GpaFunctionTable) == 8 + 72 * sizeof(void (*)(void)), "GPA 4.3: 72 entries");

static const GpaFunctionTable full = {
	.major_version = 4,
	.minor_version = sizeof(GpaFunctionTable),
#define GPA_FUNCTION_PREFIX(f) .f = f,
#include "gpa4/gpu_performance_api/gpu_perf_api_functions.h"
#undef GPA_FUNCTION_PREFIX
};

/* The caller's major_version picks the table: 3 gets GPA 3.17's, anything
 * else is answered as GPA 4.3 would (4 and its size written back,
 * LibLoadMajorVersionMismatch unless it asked for 4). */
GpaStatus GpaGetFuncTable(void *table)
{
	ENTER();
	NOT_NULL(table);
	GpaUInt32 major;
	memcpy(&major, table, sizeof(major));
	if (major == 3) {
		uint32_t size;
		const void *gpa3 = og_gpa3_table(&size);
		RETURN(ot_fill_table(__func__, table, gpa3, 3, size));
	}
	RETURN(ot_fill_table(__func__, table, &full, 4, sizeof(full)));
}
