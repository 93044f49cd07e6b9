/* SPDX-License-Identifier: MIT */
/*
 * test_gpa4.c — the GPA 4.3 function table and the exported Gpa* names
 * over the fake backend: the handshake, what 4.3 checks differently from
 * 3.17 (GpaInitialize first, handles before pointers, counters of a
 * session), the entries 4.x added, and the exported counter queries given
 * a 3.x context.  test_gpa3.c has what the two versions share.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/testing.h"
#include "fake_backend.h"
#include "test_util.h"

#include "gpa4/gpu_performance_api/gpu_perf_api.h"
#include "opengpa.h"

#include "gpa_table_test.h"

static GpaFunctionTable t;
static int key_a;

static void log4(GpaLoggingType type, const char *msg)
{
	tu_log_callback((GPA_Logging_Type)type, msg);
}

static int setup(void **state)
{
	(void)state;
	tu_setup();
	gt_table(&t, log4);
	tu_log_clear();
	return 0;
}

static GpaContextId open_context(void)
{
	GpaContextId ctx = NULL;
	OK(t.GpaInitialize(kGpaInitializeDefaultBit));
	OK(t.GpaOpenContext(&key_a, kGpaOpenContextDefaultBit, &ctx));
	tu_log_clear();
	return ctx;
}

static GpaSessionId new_session(GpaContextId ctx)
{
	GpaSessionId s = NULL;
	OK(t.GpaCreateSession(ctx, kGpaSessionSampleTypeDiscreteCounter, &s));
	return s;
}

static void run_passes(GpaSessionId s, GpaUInt32 passes, GpaUInt32 id)
{
	for (GpaUInt32 p = 0; p < passes; p++) {
		GpaCommandListId cl = NULL;
		OK(t.GpaBeginCommandList(s, p, GPA_NULL_COMMAND_LIST, kGpaCommandListNone, &cl));
		OK(t.GpaBeginSample(id, cl));
		OK(t.GpaEndSample(cl));
		OK(t.GpaEndCommandList(cl));
	}
}

static void test_table(void **state)
{
	(void)state;
	assert_int_equal(sizeof(GpaFunctionTable), 8 + 72 * sizeof(void *));
	assert_int_equal(t.major_version, 4);
	assert_int_equal(t.minor_version, sizeof(GpaFunctionTable));
	/* The table holds the exported functions, in 4.3's order. */
#define GPA_FUNCTION_PREFIX(f) assert_ptr_equal((void *)t.f, (void *)f);
#include "gpa4/gpu_performance_api/gpu_perf_api_functions.h"
#undef GPA_FUNCTION_PREFIX
	/* GPA 4.0's table (67 entries, 544 bytes) is a prefix of 4.3's. */
	GpaFunctionTable old;
	memset(&old, 0, sizeof(old));
	old.major_version = 4;
	old.minor_version = offsetof(GpaFunctionTable, GpaGetDeviceMaxWaveSlots);
	assert_int_equal(old.minor_version, 8 + 67 * sizeof(void *));
	OK(GpaGetFuncTable(&old));
	assert_non_null(old.GpaGetDeviceGeneration);
	assert_null(old.GpaGetDeviceMaxWaveSlots);
	old.minor_version = sizeof(old) + 1;
	STATUS1(GpaGetFuncTable(&old), kGpaStatusErrorLibLoadMinorVersionMismatch);
	old.major_version = 5;
	STATUS1(t.GpaGetFuncTable(&old), kGpaStatusErrorLibLoadMajorVersionMismatch);
	assert_int_equal(old.major_version, 4);
	assert_int_equal(old.minor_version, sizeof(old));
}

static void test_initialize_gate(void **state)
{
	(void)state;
	const GpaStatus ni = kGpaStatusErrorGpaNotInitialized;
	GpaContextId ctx = NULL;
	GpaUInt32 n;
	/* Before GpaInitialize, everything that takes a handle says so first. */
	STATUS1(t.GpaOpenContext(NULL, 0, NULL), ni);
	STATUS1(t.GpaCloseContext(BOGUS_CONTEXT), ni);
	STATUS1(t.GpaGetDeviceName(NULL, NULL), ni);
	STATUS1(t.GpaGetNumCounters(BOGUS_SESSION, &n), ni);
	STATUS1(t.GpaCreateSession(BOGUS_CONTEXT, 99, NULL), ni);
	STATUS1(t.GpaBeginSession(NULL), ni);
	STATUS1(t.GpaEndSample(BOGUS_LIST), ni);
	STATUS1(t.GpaContinueSampleOnCommandList(0, NULL), ni);
	STATUS1(t.GpaSqttBegin(BOGUS_SESSION, NULL), ni);
	STATUS1(t.GpaDestroy(), ni);
	/* ... which dropped the logger, as GPA does. */
	OK(t.GpaRegisterLoggingCallback(kGpaLoggingErrorAndMessage, log4));
	tu_log_clear();
	/* Not the handle-free entries. */
	const char *s;
	OK(t.GpaGetDataTypeAsStr(kGpaDataTypeUint64, &s));
	GpaUInt32 v[4];
	OK(t.GpaGetVersion(&v[0], &v[1], &v[2], &v[3]));
	assert_true(v[0] == 4 && v[1] == 3 && v[2] == 0 && v[3] == 0);
	/* Already before the flags in 4.3; bad flags leave it uninitialised. */
	STATUS1(t.GpaInitialize(0x02), kGpaStatusErrorInvalidParameter);
	STATUS1(t.GpaOpenContext(&key_a, 0, &ctx), ni);
	OK(t.GpaInitialize(kGpaInitializeEnableSqttBit));
	STATUS1(t.GpaInitialize(0xBADF00D), kGpaStatusErrorGpaAlreadyInitialized);
	OK(t.GpaOpenContext(&key_a, 0, &ctx));
	OK(t.GpaDestroy());
	/* The context outlives GpaDestroy, but is out of reach until GpaInitialize. */
	OK(t.GpaRegisterLoggingCallback(kGpaLoggingError, log4));
	tu_log_clear();
	STATUS1(t.GpaCloseContext(ctx), ni);
	OK(t.GpaInitialize(kGpaInitializeSimultaneousQueuesEnableBit));
	OK(t.GpaCloseContext(ctx));
}

static void test_handles_before_pointers(void **state)
{
	(void)state;
	GpaContextId ctx = open_context();
	GpaSessionId s = new_session(ctx);
	GpaContextSampleTypeFlags types;
	const GpaStatus cnf = kGpaStatusErrorContextNotFound, snf = kGpaStatusErrorSessionNotFound;
	STATUS1(t.GpaGetSupportedSampleTypes(BOGUS_CONTEXT, NULL), cnf);
	STATUS1(t.GpaGetDeviceAndRevisionId(BOGUS_CONTEXT, NULL, NULL), cnf);
	STATUS1(t.GpaGetDeviceName(BOGUS_CONTEXT, NULL), cnf);
	STATUS1(t.GpaGetDeviceGeneration(BOGUS_CONTEXT, NULL), cnf);
	STATUS1(t.GpaGetNumCounters(BOGUS_SESSION, NULL), snf);
	STATUS1(t.GpaGetCounterName(BOGUS_SESSION, 9999, NULL), snf);
	STATUS1(t.GpaGetCounterName(s, FC_COUNT, NULL), kGpaStatusErrorIndexOutOfRange);
	STATUS1(t.GpaGetCounterUuid(s, 0, NULL), kGpaStatusErrorNullPointer);
	STATUS1(t.GpaGetCounterIndex(BOGUS_SESSION, NULL, NULL), snf);
	STATUS1(t.GpaGetCounterIndex(s, NULL, NULL), kGpaStatusErrorNullPointer);
	STATUS1(t.GpaGetSampleCount(BOGUS_SESSION, NULL), snf);
	STATUS1(t.GpaGetSampleId(BOGUS_SESSION, 0, NULL), snf);
	STATUS1(t.GpaGetSampleResultSize(BOGUS_SESSION, 0, NULL), snf);
	STATUS1(t.GpaGetSampleResult(BOGUS_SESSION, 0, 8, NULL), snf);
	STATUS1(t.GpaCreateSession(BOGUS_CONTEXT, 99, NULL), cnf);
	STATUS1(t.GpaCreateSession(ctx, (GpaSessionSampleType)4, NULL),
	        kGpaStatusErrorInvalidParameter);
	STATUS1(t.GpaCreateSession(ctx, kGpaSessionSampleTypeSqtt, NULL), kGpaStatusErrorNullPointer);
	GpaSessionId other;
	STATUS1(t.GpaCreateSession(ctx, kGpaSessionSampleTypeStreamingCounter, &other),
	        kGpaStatusErrorIncompatibleSampleTypes);
	/* The strings: value first in 4.3. */
	STATUS1(t.GpaGetDataTypeAsStr(kGpaDataTypeLast, NULL), kGpaStatusErrorInvalidParameter);
	STATUS1(t.GpaGetUsageTypeAsStr(kGpaUsageTypeLast, NULL), kGpaStatusErrorInvalidParameter);
	STATUS1(t.GpaGetUsageTypeAsStr(kGpaUsageTypeBytes, NULL), kGpaStatusErrorNullPointer);
	OK(t.GpaGetSupportedSampleTypes(ctx, &types));
	assert_int_equal(types, kGpaContextSampleTypeDiscreteCounter); /* 0x01 in 4.x */
	/* Results: running before the pointer. */
	OK(t.GpaEnableCounter(s, FC_C0));
	OK(t.GpaBeginSession(s));
	STATUS1(t.GpaGetSampleCount(s, NULL), kGpaStatusErrorSessionNotEnded);
	STATUS1(t.GpaGetSampleId(s, 0, NULL), kGpaStatusErrorSessionNotEnded);
	/* The sample before the running state. */
	size_t size;
	STATUS1(t.GpaGetSampleResultSize(s, 0, &size), kGpaStatusErrorSampleNotFound);
	run_passes(s, 1, 0);
	STATUS1(t.GpaGetSampleResultSize(s, 0, &size), kGpaStatusErrorSessionNotEnded);
	OK(t.GpaEndSession(s));
	GpaUInt32 n = 9;
	OK(t.GpaGetSampleCount(s, &n));
	assert_int_equal(n, 1);
}

static void test_counters_of_a_session(void **state)
{
	(void)state;
	GpaContextId ctx = open_context();
	GpaSessionId s = new_session(ctx);
	GpaUInt32 n = 0, index = 0;
	const char *name = NULL;
	GpaDataType type;
	GpaUuid uuid4;
	OK(t.GpaGetNumCounters(s, &n));
	assert_int_equal(n, FC_COUNT);
	OK(t.GpaGetCounterIndex(s, "sum13", &index));
	assert_int_equal(index, FC_SUM13);
	OK(t.GpaGetCounterName(s, index, &name));
	assert_string_equal(name, "Sum13");
	OK(t.GpaGetCounterDataType(s, index, &type));
	assert_int_equal(type, kGpaDataTypeFloat64);
	/* 16 bytes in 4.x, the same UUID as 3.x's 24-byte layout carries. */
	OK(t.GpaGetCounterUuid(s, FC_C0, &uuid4));
	assert_int_equal(uuid4.data_1, 0xd57cf9b2u);
	assert_int_equal(uuid4.data_2, 0x4ba2);
	assert_int_equal(uuid4.data_3, 0x5503);
	const unsigned char tail[8] = { 0xb5, 0x53, 0x95, 0x2d, 0xe5, 0x53, 0xe6, 0xd4 };
	assert_memory_equal(uuid4.data_4, tail, 8);

	/* A GPA 3.x client calling the exported names one by one passes a
	 * context: it gets 3.17's answers, layout and order. */
	struct { unsigned long d1; unsigned short d2, d3; unsigned char d4[8]; } uuid3;
	assert_int_equal(sizeof(uuid3), 8 + 2 * sizeof(unsigned long));
	memset(&uuid3, 0xEE, sizeof(uuid3));
	OK(GpaGetCounterUuid((GpaSessionId)ctx, FC_C0, (GpaUuid *)&uuid3));
	assert_int_equal(uuid3.d1, 0xd57cf9b2u);
	assert_memory_equal(uuid3.d4, tail, 8);
	n = 0;
	OK(GpaGetNumCounters((GpaSessionId)ctx, &n));
	assert_int_equal(n, FC_COUNT);
	OK(GpaGetCounterName((GpaSessionId)ctx, FC_C1, &name));
	assert_string_equal(name, "C1");
	OK(GpaGetCounterIndex((GpaSessionId)ctx, "C2", &index));
	assert_int_equal(index, FC_C2);
	/* 3.17's order there: the output before the handle. */
	STATUS1(GpaGetCounterName((GpaSessionId)ctx, FC_COUNT, NULL), kGpaStatusErrorNullPointer);
	STATUS1(GpaGetCounterName((GpaSessionId)ctx, FC_COUNT, &name), kGpaStatusErrorIndexOutOfRange);
	/* A command list is neither. */
	OK(t.GpaEnableCounter(s, FC_C0));
	OK(t.GpaBeginSession(s));
	GpaCommandListId cl = NULL;
	OK(t.GpaBeginCommandList(s, 0, GPA_NULL_COMMAND_LIST, kGpaCommandListNone, &cl));
	STATUS1(GpaGetNumCounters((GpaSessionId)cl, &n), kGpaStatusErrorSessionNotFound);
}

static void test_device_entries(void **state)
{
	(void)state;
	GpaContextId ctx = open_context();
	/* Zero counts first, even before the handle. */
	STATUS1(t.GpaUpdateDeviceInformation(BOGUS_CONTEXT, 4, 0, 2, 8),
	        kGpaStatusErrorInvalidParameter);
	STATUS1(t.GpaUpdateDeviceInformation(BOGUS_CONTEXT, 4, 16, 2, 8),
	        kGpaStatusErrorContextNotFound);
	OK(t.GpaUpdateDeviceInformation(ctx, 4, 16, 2, 8));
	GpaUInt32 v;
	STATUS1(t.GpaGetDeviceMaxWaveSlots(BOGUS_CONTEXT, &v), kGpaStatusErrorContextNotFound);
	STATUS1(t.GpaGetDeviceMaxWaveSlots(ctx, NULL), kGpaStatusErrorNullPointer);
	STATUS1(t.GpaGetDeviceMaxWaveSlots(ctx, &v), kGpaStatusErrorFailed);
	STATUS1(t.GpaGetDeviceMaxVgprs(ctx, &v), kGpaStatusErrorFailed);
	STATUS1(t.GpaGetDeviceMaxLdsBytes(ctx, &v), kGpaStatusErrorFailed);
	GpaUInt32 dev = 0, rev = 0;
	OK(t.GpaGetDeviceAndRevisionId(ctx, &dev, &rev));
	assert_int_equal(dev, FAKE_DEVICE_ID);
}

static void test_trace_entries(void **state)
{
	(void)state;
	GpaContextId ctx = open_context();
	GpaSessionId s = new_session(ctx);
	const GpaStatus no = kGpaStatusErrorIncompatibleSampleTypes;
	GpaSqttInstructionFlags mask;
	GpaUInt32 unit;
	size_t size;
	GpaUInt64 out;
	GpaSpmData data;
	STATUS1(t.GpaSqttGetInstructionMask(BOGUS_SESSION, &mask), kGpaStatusErrorSessionNotFound);
	STATUS1(t.GpaSqttGetInstructionMask(s, NULL), kGpaStatusErrorNullPointer);
	STATUS1(t.GpaSqttGetInstructionMask(s, &mask), no);
	STATUS1(t.GpaSqttSetInstructionMask(s, kGpaSqttInstructionTypeAll), no);
	STATUS1(t.GpaSqttGetComputeUnitId(s, &unit), no);
	STATUS1(t.GpaSqttSetComputeUnitId(s, 1), no);
	STATUS1(t.GpaSqttBegin(s, NULL), no);
	STATUS1(t.GpaSqttEnd(s, NULL), no);
	STATUS1(t.GpaSqttGetSampleResultSize(s, &size), no);
	STATUS1(t.GpaSqttGetSampleResult(s, 8, NULL), kGpaStatusErrorNullPointer);
	STATUS1(t.GpaSqttGetSampleResult(s, 8, &out), no);
	STATUS1(t.GpaSpmSetSampleInterval(s, 1000), no);
	STATUS1(t.GpaSpmSetDuration(s, 1000), no);
	STATUS1(t.GpaSpmBegin(s, NULL), no);
	STATUS1(t.GpaSpmEnd(s, NULL), no);
	STATUS1(t.GpaSpmGetSampleResultSize(s, &size), no);
	STATUS1(t.GpaSpmGetSampleResult(s, 8, &out), no);
	STATUS1(t.GpaSpmCalculateDerivedCounters(s, &data, 1, NULL), kGpaStatusErrorNullPointer);
	STATUS1(t.GpaSpmCalculateDerivedCounters(s, &data, 1, &out), no);
	STATUS1(t.GpaSqttSpmBegin(s, NULL), no);
	STATUS1(t.GpaSqttSpmEnd(s, NULL), no);
}

static void test_reset_and_abort(void **state)
{
	(void)state;
	GpaContextId ctx = open_context();
	GpaSessionId s = new_session(ctx);
	for (GpaUInt32 c = FC_C0; c <= FC_C5; c++)
		OK(t.GpaEnableCounter(s, c));
	GpaUInt32 passes = 0;
	OK(t.GpaGetPassCount(s, &passes));
	assert_int_equal(passes, 3);
	STATUS1(t.GpaAbortSession(s), kGpaStatusErrorSessionNotStarted);
	STATUS1(t.GpaAbortSession(BOGUS_SESSION), kGpaStatusErrorSessionNotFound);
	OK(t.GpaBeginSession(s));
	STATUS1(t.GpaResetSession(s), kGpaStatusErrorSessionNotEnded);
	/* Abort with pass 1 recording and a sample open: ended all the same. */
	run_passes(s, 1, 4);
	GpaCommandListId cl = NULL;
	OK(t.GpaBeginCommandList(s, 1, GPA_NULL_COMMAND_LIST, kGpaCommandListNone, &cl));
	OK(t.GpaBeginSample(4, cl));
	OK(t.GpaAbortSession(s));
	OK(t.GpaIsSessionComplete(s));
	STATUS1(t.GpaEndSample(cl), kGpaStatusErrorFailed); /* closed by the abort */
	/* What pass 0 counted is there; the counters of passes 1 and 2 are not. */
	GpaUInt64 buf[6];
	STATUS1(t.GpaGetSampleResult(s, 4, sizeof(buf), buf), kGpaStatusErrorReadingSampleResult);
	/* Reset: begun again with the same counters. */
	OK(t.GpaResetSession(s));
	GpaUInt32 n = 0;
	OK(t.GpaGetNumEnabledCounters(s, &n));
	assert_int_equal(n, 6);
	OK(t.GpaBeginSession(s));
	unsigned first = fake_stats.pass_seq;
	run_passes(s, passes, 4);
	OK(t.GpaEndSession(s));
	OK(t.GpaGetSampleResult(s, 4, sizeof(buf), buf));
	for (GpaUInt32 c = 0; c < 6; c++)
		assert_int_equal(buf[c], fake_value(c, 0, first + c / 2));
}

/* The exported names are a complete API by themselves. */
static void test_exported_names(void **state)
{
	(void)state;
	GpaContextId ctx = NULL;
	GpaSessionId s = NULL;
	OK(GpaInitialize(kGpaInitializeDefaultBit));
	OK(GpaOpenContext(&key_a, kGpaOpenContextDefaultBit, &ctx));
	OK(GpaCreateSession(ctx, kGpaSessionSampleTypeDiscreteCounter, &s));
	OK(GpaEnableCounterByName(s, "XSum"));
	GpaUInt32 passes = 0;
	OK(GpaGetPassCount(s, &passes));
	assert_int_equal(passes, 2); /* X0 and X1 cannot share a pass on the fake */
	OK(GpaBeginSession(s));
	unsigned first = fake_stats.pass_seq;
	for (GpaUInt32 p = 0; p < passes; p++) {
		GpaCommandListId cl = NULL;
		OK(GpaBeginCommandList(s, p, GPA_NULL_COMMAND_LIST, kGpaCommandListNone, &cl));
		OK(GpaBeginSample(9, cl));
		OK(GpaEndSample(cl));
		OK(GpaEndCommandList(cl));
		OK(GpaIsPassComplete(s, p));
	}
	OK(GpaEndSession(s));
	OK(GpaIsSessionComplete(s));
	size_t size = 0;
	OK(GpaGetSampleResultSize(s, 9, &size));
	double v = 0;
	OK(GpaGetSampleResult(s, 9, size, &v));
	/* XSum = X0 + X1 (slots 10 and 11), each counted in its own pass. */
	double want = (double)(fake_value(10, 0, first) + fake_value(11, 0, first + 1));
	assert_true(v == want);
	OK(GpaDeleteSession(s));
	OK(GpaCloseContext(ctx));
	OK(GpaDestroy());
	assert_string_equal(GpaGetStatusAsStr(kGpaStatusErrorTimeout),
	                    "GPA Error: Attempt to Retrieve Data Failed due to Timeout.");
}

/* GPUTime as GPA 4.x defines it: a counter file gives the fake backend a
 * GPUTime in milliseconds after every other counter; the session's queries
 * show it at index 0, in nanoseconds, with GPA's UUID (16-byte GpaUuid). */
static void test_gputime_first(void **state)
{
	(void)state;
	static const char text[] =
		"counter GPUTime\n    group: Timing\n    usage: milliseconds\n    type: float64\n"
		"    description: R0 as milliseconds.\n    expression: R0 / 1000000\n";
	char path[] = "/tmp/opengpa-test-gputime-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, sizeof text - 1), (ssize_t)(sizeof text - 1));
	close(fd);
	GPA_Status added = OpenGPA_AddCounterFile(path);
	GpaContextId ctx = open_context();
	unlink(path);
	assert_int_equal(added, GPA_STATUS_OK);
	GpaSessionId s = new_session(ctx);
	GpaUInt32 index = 99;
	OK(t.GpaGetCounterIndex(s, "GPUTime", &index));
	assert_int_equal(index, 0);
	OK(t.GpaGetCounterIndex(s, "C0", &index));
	assert_int_equal(index, FC_C0 + 1);
	GpaUsageType usage = kGpaUsageTypeMilliseconds;
	OK(t.GpaGetCounterUsageType(s, 0, &usage));
	assert_int_equal(usage, kGpaUsageTypeNanoseconds);
	GpaUuid uuid;
	memset(&uuid, 0xEE, sizeof(uuid));
	OK(t.GpaGetCounterUuid(s, 0, &uuid));
	static const unsigned char tail[8] = { 0x92, 0xad, 0xba, 0x72, 0x4c, 0xa2, 0xe5, 0x01 };
	assert_int_equal(uuid.data_1, 0xcbd338f2u);
	assert_int_equal(uuid.data_2, 0xde6c);
	assert_int_equal(uuid.data_3, 0x7b14);
	assert_memory_equal(uuid.data_4, tail, 8);
	OK(t.GpaEnableCounter(s, 0));
	OK(t.GpaBeginSession(s));
	unsigned first = fake_stats.pass_seq;
	run_passes(s, 1, 9);
	OK(t.GpaEndSession(s));
	double v = 0;
	OK(t.GpaGetSampleResult(s, 9, sizeof(v), &v));
	assert_true(v == (double)fake_value(0, 0, first));
	OK(t.GpaDeleteSession(s));
	OK(t.GpaCloseContext(ctx));
	OK(t.GpaDestroy());
	TU_NO_ERROR();
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, tu_fixture_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_table), T(test_initialize_gate), T(test_handles_before_pointers),
		T(test_counters_of_a_session), T(test_device_entries), T(test_trace_entries),
		T(test_reset_and_abort), T(test_exported_names), T(test_gputime_first),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
