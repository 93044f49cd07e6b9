/* SPDX-License-Identifier: MIT */
/*
 * gpa3.c — the GPA 3.17 function table (major version 3, 49 entries).
 *
 * A client reaches these through GpaGetFuncTable with major_version 3 (or,
 * written for GPA 3.0-3.7, through GPA_GetFuncTable); the exported Gpa*
 * names are GPA 4.3's (gpa4.c).  Each entry checks in GPA 3.17's order
 * (docs/api-gpa3.md) and leaves the rest to table.c and the core.  The
 * functions carry the Gpa* names so that messages name the entry point the
 * client called; they are static and differ from the exported ones.
 */
#include <string.h>

/* The core first: its 2.x types define UNREFERENCED_PARAMETER as GPA 2.x
 * does, and the 3.x/4.x header then keeps it. */
#include "api/table.h"

#include "gpa3/gpu_performance_api/gpu_perf_api_function_types.h"

#include "api/table_entry.h"

/* The statuses table.c returns are GPA 3.17's. */
OT_ASSERT_VERSION_VALUES("GPA 3.17");
_Static_assert(sizeof(GpaUuid) == 8 + 2 * sizeof(unsigned long), "GPA 3.17's GpaUuid");

/* ---- life cycle ------------------------------------------------------------ */

static GpaStatus GpaRegisterLoggingCallback(GpaLoggingType type, GpaLoggingCallbackPtrType cb)
{
	ENTER();
	RETURN(ot_register_logging((unsigned)type, (GPA_LoggingCallbackPtrType)cb));
}

static GpaStatus GpaInitialize(GpaInitializeFlags flags)
{
	ENTER();
	/* 3.17 also takes 1, its undocumented "simultaneous queues" bit. */
	if (flags > 1)
		RETURN(ot_error(OT_INVALID_PARAMETER, "%s: flags 0x%x are not initialisation flags",
		                __func__, flags));
	if (ot_is_initialized())
		RETURN(ot_error(OT_GPA_ALREADY_INITIALIZED, "%s: GPA is initialised already",
		                __func__));
	ot_set_initialized(true);
	RETURN(OT_OK);
}

static GpaStatus GpaDestroy(void)
{
	ENTER();
	int st = ot_initialized(__func__);
	ot_set_initialized(false);
	og_context_forget_catalogs();
	ot_drop_logging(); /* either way, as GPA does */
	RETURN(st);
}

static GpaStatus GpaOpenContext(void *api_context, GpaOpenContextFlags flags, GpaContextId *id)
{
	ENTER();
	NOT_NULL(api_context);
	NOT_NULL(id);
	void *h;
	CHECK(ot_open_context(__func__, api_context, flags, &h));
	*id = h;
	RETURN(OT_OK);
}

static GpaStatus GpaCloseContext(GpaContextId id)
{
	ENTER();
	CONTEXT_OF(ctx, id);
	RETURN(ot_close_context(ctx));
}

/* ---- the context ---------------------------------------------------------------- */

static GpaStatus GpaGetSupportedSampleTypes(GpaContextId id, GpaContextSampleTypeFlags *types)
{
	ENTER();
	NOT_NULL(types);
	CONTEXT_OF(ctx, id);
	*types = kGpaContextSampleTypeDiscreteCounter;
	RETURN(OT_OK);
}

static GpaStatus GpaGetDeviceAndRevisionId(GpaContextId id, GpaUInt32 *device, GpaUInt32 *revision)
{
	ENTER();
	NOT_NULL(device);
	NOT_NULL(revision);
	CONTEXT_OF(ctx, id);
	RETURN(ot_device_id(__func__, ctx, device, revision));
}

static GpaStatus GpaGetDeviceName(GpaContextId id, const char **name)
{
	ENTER();
	NOT_NULL(name);
	CONTEXT_OF(ctx, id);
	RETURN(ot_device_name(__func__, ctx, name));
}

static GpaStatus GpaGetDeviceGeneration(GpaContextId id, GpaHwGeneration *generation)
{
	ENTER();
	NOT_NULL(generation);
	CONTEXT_OF(ctx, id);
	*generation = kGpaHwGenerationNone; /* no AMD generation */
	RETURN(OT_OK);
}

static GpaStatus GpaGetNumCounters(GpaContextId id, GpaUInt32 *count)
{
	ENTER();
	RETURN(ot_num_counters3(__func__, id, count));
}

static GpaStatus GpaGetCounterIndex(GpaContextId id, const char *name, GpaUInt32 *index)
{
	ENTER();
	RETURN(ot_counter_index3(__func__, id, name, index));
}

#define QUERY(name, q, type) \
	static GpaStatus name(GpaContextId id, GpaUInt32 index, type out) \
	{ \
		ENTER(); \
		RETURN(ot_query3(__func__, id, index, q, out)); \
	}
QUERY(GpaGetCounterName, OT_Q_NAME, const char **)
QUERY(GpaGetCounterGroup, OT_Q_GROUP, const char **)
QUERY(GpaGetCounterDescription, OT_Q_DESCRIPTION, const char **)
QUERY(GpaGetCounterDataType, OT_Q_DATA_TYPE, GpaDataType *)
QUERY(GpaGetCounterUsageType, OT_Q_USAGE, GpaUsageType *)
QUERY(GpaGetCounterUuid, OT_Q_UUID3, GpaUuid *)
QUERY(GpaGetCounterSampleType, OT_Q_SAMPLE_TYPE, GpaCounterSampleType *)
#undef QUERY

static GpaStatus GpaGetDataTypeAsStr(GpaDataType type, const char **text)
{
	ENTER();
	NOT_NULL(text);
	if ((unsigned)type >= kGpaDataTypeLast)
		RETURN(ot_error(OT_INVALID_PARAMETER, "%s: %d is not a data type", __func__, type));
	RETURN(ot_data_type_str(type, text));
}

static GpaStatus GpaGetUsageTypeAsStr(GpaUsageType usage, const char **text)
{
	ENTER();
	NOT_NULL(text);
	if ((unsigned)usage >= kGpaUsageTypeLast)
		RETURN(ot_error(OT_INVALID_PARAMETER, "%s: %d is not a usage type", __func__, usage));
	RETURN(ot_usage_type_str(usage, text));
}

/* ---- sessions and counters -------------------------------------------------------- */

static GpaStatus GpaCreateSession(GpaContextId id, GpaSessionSampleType type, GpaSessionId *session)
{
	ENTER();
	NOT_NULL(session);
	CONTEXT_OF(ctx, id);
	if ((unsigned)type > OT_SAMPLE_TYPE_MAX)
		RETURN(ot_error(OT_INVALID_PARAMETER, "%s: %d is not a session sample type",
		                __func__, type));
	void *h;
	CHECK(ot_create_session(__func__, ctx, (uint32_t)type, &h));
	*session = h;
	RETURN(OT_OK);
}

#define SESSION(x, id) \
	ENTER(); \
	SESSION_OF(x, id)

static GpaStatus GpaDeleteSession(GpaSessionId id)
{
	SESSION(x, id);
	RETURN(ot_delete_session(x));
}

static GpaStatus GpaBeginSession(GpaSessionId id)
{
	SESSION(x, id);
	RETURN(ot_begin_session(__func__, x));
}

static GpaStatus GpaEndSession(GpaSessionId id)
{
	SESSION(x, id);
	RETURN(ot_end_session(__func__, x));
}

static GpaStatus GpaEnableCounter(GpaSessionId id, GpaUInt32 index)
{
	SESSION(x, id);
	RETURN(ot_enable(__func__, x, index, true));
}

static GpaStatus GpaDisableCounter(GpaSessionId id, GpaUInt32 index)
{
	SESSION(x, id);
	RETURN(ot_enable(__func__, x, index, false));
}

static GpaStatus GpaEnableCounterByName(GpaSessionId id, const char *name)
{
	SESSION(x, id);
	RETURN(ot_enable_by_name(__func__, x, name, true));
}

static GpaStatus GpaDisableCounterByName(GpaSessionId id, const char *name)
{
	SESSION(x, id);
	RETURN(ot_enable_by_name(__func__, x, name, false));
}

static GpaStatus GpaEnableAllCounters(GpaSessionId id)
{
	SESSION(x, id);
	RETURN(ot_enable_all(__func__, x, true));
}

static GpaStatus GpaDisableAllCounters(GpaSessionId id)
{
	SESSION(x, id);
	RETURN(ot_enable_all(__func__, x, false));
}

static GpaStatus GpaGetPassCount(GpaSessionId id, GpaUInt32 *passes)
{
	SESSION(x, id);
	NOT_NULL(passes);
	RETURN(ot_pass_count(x, passes));
}

static GpaStatus GpaGetNumEnabledCounters(GpaSessionId id, GpaUInt32 *count)
{
	SESSION(x, id);
	NOT_NULL(count);
	size_t n;
	ot_session_counters(x, &n);
	*count = (GpaUInt32)n;
	RETURN(OT_OK);
}

static GpaStatus GpaGetEnabledIndex(GpaSessionId id, GpaUInt32 number, GpaUInt32 *index)
{
	SESSION(x, id);
	NOT_NULL(index);
	RETURN(ot_enabled_index(__func__, x, number, index));
}

static GpaStatus GpaIsCounterEnabled(GpaSessionId id, GpaUInt32 index)
{
	SESSION(x, id);
	RETURN(ot_is_counter_enabled(__func__, x, index));
}

/* ---- command lists and samples ------------------------------------------------------- */

static GpaStatus GpaBeginCommandList(GpaSessionId id, GpaUInt32 pass, void *list,
                                     GpaCommandListType type, GpaCommandListId *out)
{
	SESSION(x, id);
	RETURN(ot_begin_command_list(__func__, x, pass, list, (uint32_t)type, (void **)out));
}

#define COMMAND_LIST(cl, id) \
	ENTER(); \
	HANDLE_OF(struct og_cmdlist, cl, ot_command_list, id)

static GpaStatus GpaEndCommandList(GpaCommandListId id)
{
	COMMAND_LIST(cl, id);
	RETURN(ot_end_command_list(__func__, cl));
}

static GpaStatus GpaBeginSample(GpaUInt32 sample, GpaCommandListId id)
{
	COMMAND_LIST(cl, id);
	RETURN(ot_begin_sample(__func__, sample, cl));
}

static GpaStatus GpaEndSample(GpaCommandListId id)
{
	COMMAND_LIST(cl, id);
	RETURN(ot_end_sample(__func__, cl));
}

/* Before any handle is looked at, as GPA's GL does. */
static GpaStatus GpaContinueSampleOnCommandList(GpaUInt32 sample, GpaCommandListId primary)
{
	ENTER();
	RETURN(ot_continue_sample(__func__, sample, primary));
}

static GpaStatus GpaCopySecondarySamples(GpaCommandListId secondary, GpaCommandListId primary,
                                         GpaUInt32 count, GpaUInt32 *new_ids)
{
	ENTER();
	RETURN(ot_copy_secondary(__func__, secondary, primary, count, new_ids));
}

/* ---- results ------------------------------------------------------------------------- */

static GpaStatus GpaGetSampleCount(GpaSessionId id, GpaUInt32 *count)
{
	ENTER();
	NOT_NULL(count);
	SESSION_OF(x, id);
	CHECK(ot_running(__func__, x));
	*count = ot_sample_count(x);
	RETURN(OT_OK);
}

static GpaStatus GpaGetSampleId(GpaSessionId id, GpaUInt32 index, GpaUInt32 *sample)
{
	ENTER();
	NOT_NULL(sample);
	SESSION_OF(x, id);
	CHECK(ot_running(__func__, x));
	RETURN(ot_sample_id(__func__, x, index, sample));
}

static GpaStatus GpaIsPassComplete(GpaSessionId id, GpaUInt32 pass)
{
	SESSION(x, id);
	RETURN(ot_is_pass_complete(__func__, x, pass));
}

static GpaStatus GpaIsSessionComplete(GpaSessionId id)
{
	SESSION(x, id);
	RETURN(ot_is_session_complete(__func__, x));
}

static GpaStatus GpaGetSampleResultSize(GpaSessionId id, GpaUInt32 sample, size_t *size)
{
	ENTER();
	NOT_NULL(size);
	SESSION_OF(x, id);
	CHECK(ot_sample_in_pass0(__func__, x, sample));
	CHECK(ot_running(__func__, x));
	*size = ot_result_size(x);
	RETURN(OT_OK);
}

static GpaStatus GpaGetSampleResult(GpaSessionId id, GpaUInt32 sample, size_t size, void *results)
{
	ENTER();
	NOT_NULL(results);
	SESSION_OF(x, id);
	CHECK(ot_sample_in_pass0(__func__, x, sample));
	CHECK(ot_running(__func__, x));
	RETURN(ot_sample_result(__func__, x, sample, size, results));
}

static const char *GpaGetStatusAsStr(GpaStatus status)
{
	return ot_status_str(status);
}

static GpaStatus GpaGetVersion(GpaUInt32 *major, GpaUInt32 *minor, GpaUInt32 *build,
                               GpaUInt32 *update)
{
	ENTER();
	RETURN(ot_version(__func__, 3, 17, major, minor, build, update));
}

/* ---- the table --------------------------------------------------------------------------- */

static GpaStatus GpaGetFuncTable(void *table);

struct table {
	GpaUInt32 major_version;
	GpaUInt32 minor_version;
#define GPA_FUNCTION_PREFIX(f) f##PtrType f;
#include "gpa3/gpu_performance_api/gpu_perf_api_functions.h"
#undef GPA_FUNCTION_PREFIX
};
_Static_assert(sizeof(struct table) == 8 + 49 * sizeof(void (*)(void)), "GPA 3.17: 49 entries");
_Static_assert(OT_GPA3_DEPRECATED_TABLE_SIZE == offsetof(struct table, GpaGetDeviceGeneration),
               "GPA_GetFuncTable serves the first 48 entries");

static const struct table full = {
	.major_version = 3,
	.minor_version = sizeof(struct table),
#define GPA_FUNCTION_PREFIX(f) .f = f,
#include "gpa3/gpu_performance_api/gpu_perf_api_functions.h"
#undef GPA_FUNCTION_PREFIX
};

const void *og_gpa3_table(uint32_t *size)
{
	*size = sizeof(full);
	return &full;
}

/* The table's own entry: the same handshake as the exported one, which
 * answers both majors (gpa4.c). */
static GpaStatus GpaGetFuncTable(void *table)
{
	ENTER();
	NOT_NULL(table);
	RETURN(ot_fill_table(__func__, table, &full, 3, sizeof(full)));
}

/* GPA 3.0-3.7's name for it (RenderDoc's and KTT's older builds look it up):
 * their 48-entry table, which is this one's prefix, version 3 and 392 bytes
 * on LP64 (GPA 3.0's 46-entry, 376-byte table is a prefix of it too). */
__attribute__((visibility("default"))) GpaStatus GPA_GetFuncTable(void *table);

GpaStatus GPA_GetFuncTable(void *table)
{
	ENTER();
	NOT_NULL(table);
	struct table prefix = full;
	prefix.minor_version = OT_GPA3_DEPRECATED_TABLE_SIZE;
	RETURN(ot_fill_table(__func__, table, &prefix, 3, OT_GPA3_DEPRECATED_TABLE_SIZE));
}
