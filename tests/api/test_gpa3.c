/* SPDX-License-Identifier: MIT */
/*
 * test_gpa3.c — the GPA 3.17 function table over the fake backend: the
 * version handshake, every one of the 49 entries with good and bad
 * arguments in GPA 3.17's order, handles after DeleteSession and
 * CloseContext, results over multi-pass sessions, and a GPA 2.x client in
 * the same process.  The client side knows only GPA 3.17's headers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/testing.h"
#include "fake_backend.h"
#include "test_util.h"

#include "gpa3/gpu_performance_api/gpu_perf_api.h"
#include "opengpa.h"

#include "gpa_table_test.h"

static GpaFunctionTable t;
static unsigned no_full_stop; /* messages that did not end with '.' */
static int key_a, key_b;

static void log3(GpaLoggingType type, const char *msg)
{
	size_t n = strlen(msg);
	if (!n || msg[n - 1] != '.')
		no_full_stop++;
	tu_log_callback((GPA_Logging_Type)type, msg);
}

static int setup(void **state)
{
	(void)state;
	tu_setup();
	no_full_stop = 0;
	gt_table(&t, log3);
	OK(t.GpaInitialize(kGpaInitializeDefaultBit));
	tu_log_clear();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	assert_int_equal(no_full_stop, 0);
	tu_teardown();
	return 0;
}

static GpaContextId open_context(void *key)
{
	GpaContextId ctx = NULL;
	OK(t.GpaOpenContext(key, kGpaOpenContextDefaultBit, &ctx));
	assert_non_null(ctx);
	tu_log_clear();
	return ctx;
}

static GpaSessionId new_session(GpaContextId ctx)
{
	GpaSessionId s = NULL;
	OK(t.GpaCreateSession(ctx, kGpaSessionSampleTypeDiscreteCounter, &s));
	return s;
}

/* A new session of ctx counting C0, C1 and C2: two passes. */
static GpaSessionId two_pass_session_of(GpaContextId ctx)
{
	GpaSessionId s = new_session(ctx);
	OK(t.GpaEnableCounter(s, FC_C0));
	OK(t.GpaEnableCounterByName(s, "c1"));
	OK(t.GpaEnableCounter(s, FC_C2));
	GpaUInt32 passes = 0;
	OK(t.GpaGetPassCount(s, &passes));
	assert_int_equal(passes, 2);
	return s;
}

/* The same, on a fresh context. */
static GpaSessionId two_pass_session(GpaContextId *ctx_out)
{
	GpaContextId ctx = open_context(&key_a);
	if (ctx_out)
		*ctx_out = ctx;
	return two_pass_session_of(ctx);
}

/* Every pass: one command list sampling ids[0..n). */
static void record(GpaSessionId s, const GpaUInt32 *ids, size_t n)
{
	GpaUInt32 passes = 0;
	OK(t.GpaGetPassCount(s, &passes));
	for (GpaUInt32 p = 0; p < passes; p++) {
		GpaCommandListId cl = NULL;
		OK(t.GpaBeginCommandList(s, p, GPA_NULL_COMMAND_LIST, kGpaCommandListNone, &cl));
		for (size_t i = 0; i < n; i++) {
			OK(t.GpaBeginSample(ids[i], cl));
			OK(t.GpaEndSample(cl));
		}
		OK(t.GpaEndCommandList(cl));
	}
}

/* ---- the handshake ------------------------------------------------------- */

static void test_table_versions(void **state)
{
	(void)state;
	assert_int_equal(sizeof(GpaFunctionTable), 8 + 49 * sizeof(void *));
	/* Every entry is there. */
	void *const *entry = (void *const *)((const char *)&t + 8);
	for (int i = 0; i < 49; i++)
		assert_non_null(entry[i]);
	assert_int_equal(t.major_version, 3);
	assert_int_equal(t.minor_version, 8 + 49 * sizeof(void *));

	/* Majors it cannot serve: GPA's answer, its own version written back. */
	const GpaUInt32 majors[] = { 0, 1, 2, 5, 1024 };
	for (size_t i = 0; i < 5; i++) {
		GpaFunctionTable other;
		memset(&other, 0, sizeof(other));
		other.major_version = majors[i];
		other.minor_version = sizeof(other);
		STATUS1(GpaGetFuncTable(&other), kGpaStatusErrorLibLoadMajorVersionMismatch);
		assert_int_equal(other.major_version, 4); /* the newest it has */
		assert_null(other.GpaGetFuncTable);
	}
	/* Major 4 is served by the same library (test_gpa4.c has the rest). */
	GpaUInt32 four[2 + 2 * 72] = { 4, 8 + 72 * sizeof(void *) };
	OK(GpaGetFuncTable(four));
	/* Larger than the library's 3.x table: a newer client. */
	GpaFunctionTable big;
	memset(&big, 0, sizeof(big));
	big.major_version = 3;
	big.minor_version = sizeof(big) + 8;
	STATUS1(GpaGetFuncTable(&big), kGpaStatusErrorLibLoadMinorVersionMismatch);
	assert_int_equal(big.minor_version, sizeof(big));
	assert_null(big.GpaGetFuncTable);
	STATUS1(GpaGetFuncTable(NULL), kGpaStatusErrorNullPointer);
}

static void test_table_short(void **state)
{
	(void)state;
	/* RenderDoc's 3.8 table: 48 entries, 392 bytes on LP64.  The entry it
	 * does not know stays as it was. */
	GpaFunctionTable rd;
	memset(&rd, 0, sizeof(rd));
	rd.GpaGetDeviceGeneration = (GpaGetDeviceGenerationPtrType)(uintptr_t)1;
	rd.major_version = 3;
	rd.minor_version = offsetof(GpaFunctionTable, GpaGetDeviceGeneration);
	OK(GpaGetFuncTable(&rd));
	assert_int_equal(rd.minor_version, sizeof(GpaFunctionTable)); /* it can tell we are newer */
	assert_ptr_equal(rd.GpaGetVersion, t.GpaGetVersion);
	assert_true((uintptr_t)rd.GpaGetDeviceGeneration == 1);
	/* GPA 3.0's 46 entries, and a table of one entry. */
	const size_t entries[] = { 46, 1 };
	for (size_t i = 0; i < 2; i++) {
		size_t n = entries[i];
		GpaFunctionTable small;
		memset(&small, 0, sizeof(small));
		small.major_version = 3;
		small.minor_version = (GpaUInt32)(8 + n * sizeof(void *));
		OK(GpaGetFuncTable(&small));
		assert_non_null(small.GpaGetFuncTable);
		assert_true(n == 1 ? !small.GpaRegisterLoggingCallback : !small.GpaGetSampleId);
	}
	/* Through the table's own entry, and under GPA 3.0-3.7's name. */
	GpaFunctionTable again;
	memset(&again, 0, sizeof(again));
	again.major_version = 3;
	again.minor_version = sizeof(again);
	OK(t.GpaGetFuncTable(&again));
	assert_memory_equal(&again, &t, sizeof(t));
	/* 392 bytes on LP64, 200 on 32-bit targets: 8 + 48 pointers. */
	const GpaUInt32 deprecated_size = offsetof(GpaFunctionTable, GpaGetDeviceGeneration);
	memset(&again, 0, sizeof(again));
	again.major_version = 3;
	again.minor_version = deprecated_size;
	OK(GPA_GetFuncTable(&again));
	assert_int_equal(again.minor_version, deprecated_size);
	assert_ptr_equal(again.GpaGetVersion, t.GpaGetVersion);
	assert_null(again.GpaGetDeviceGeneration);
	again.minor_version = sizeof(again);
	STATUS1(GPA_GetFuncTable(&again), kGpaStatusErrorLibLoadMinorVersionMismatch);
	assert_int_equal(again.minor_version, deprecated_size);
}

/* ---- logging, initialise, destroy ------------------------------------------ */

static void test_logging(void **state)
{
	(void)state;
	assert_int_equal(t.GpaRegisterLoggingCallback(kGpaLoggingError, NULL),
	                 kGpaStatusErrorNullPointer);
	tu_log_clear();
	OK(t.GpaRegisterLoggingCallback(kGpaLoggingNone, NULL));
	assert_int_equal(t.GpaCloseContext(BOGUS_CONTEXT), kGpaStatusErrorContextNotFound);
	assert_int_equal(tu_log.count, 0);
	OK(t.GpaRegisterLoggingCallback(kGpaLoggingMessage, log3));
	assert_string_equal(tu_log_last(), "Logging callback registered successfully.");
	/* Every message ends with '.' (checked in teardown). */
	OK(t.GpaRegisterLoggingCallback(kGpaLoggingErrorAndMessage, log3));
	STATUS1(t.GpaCloseContext(BOGUS_CONTEXT), kGpaStatusErrorContextNotFound);
}

static void test_initialize_destroy(void **state)
{
	(void)state;
	/* 3.17: the flags first, then "already". */
	STATUS1(t.GpaInitialize(0xBADF00D), kGpaStatusErrorInvalidParameter);
	STATUS1(t.GpaInitialize(kGpaInitializeDefaultBit), kGpaStatusErrorGpaAlreadyInitialized);
	OK(t.GpaDestroy());
	/* Destroy dropped the logger: register again to hear the next error. */
	assert_int_equal(t.GpaDestroy(), kGpaStatusErrorGpaNotInitialized);
	assert_int_equal(tu_log.count, 0);
	OK(t.GpaRegisterLoggingCallback(kGpaLoggingErrorAndMessage, log3));
	tu_log_clear();
	/* No entry but these two asks for GpaInitialize in 3.17. */
	GpaContextId ctx = open_context(&key_a);
	OK(t.GpaCloseContext(ctx));
	OK(t.GpaInitialize(1)); /* 3.17's own "simultaneous queues" value */
	OK(t.GpaDestroy());
}

/* ---- contexts --------------------------------------------------------------- */

static void test_open_close(void **state)
{
	(void)state;
	GpaContextId ctx = NULL;
	STATUS1(t.GpaOpenContext(NULL, 0, &ctx), kGpaStatusErrorNullPointer);
	STATUS1(t.GpaOpenContext(&key_a, 0, NULL), kGpaStatusErrorNullPointer);
	STATUS1(t.GpaOpenContext(&key_a, kGpaOpenContextClockModePeakBit |
	                                 kGpaOpenContextClockModeNoneBit, &ctx),
	        kGpaStatusErrorInvalidParameter);
	OK(t.GpaOpenContext(&key_a, kGpaOpenContextClockModePeakBit, &ctx));
	GpaContextId again = NULL;
	STATUS1(t.GpaOpenContext(&key_a, 0, &again), kGpaStatusErrorContextAlreadyOpen);
	fake_config.fail_open = true;
	assert_int_equal(t.GpaOpenContext(&key_b, 0, &again), kGpaStatusErrorHardwareNotSupported);
	tu_log_clear();
	fake_config.fail_open = false;

	STATUS1(t.GpaCloseContext(NULL), kGpaStatusErrorNullPointer);
	STATUS1(t.GpaCloseContext(BOGUS_CONTEXT), kGpaStatusErrorContextNotFound);
	GpaSessionId s = new_session(ctx);
	STATUS1(t.GpaCloseContext((GpaContextId)s), kGpaStatusErrorContextNotFound); /* foreign */
	OK(t.GpaCloseContext(ctx));
	/* Stale: the context, and the session it took with it. */
	STATUS1(t.GpaCloseContext(ctx), kGpaStatusErrorContextNotFound);
	GpaUInt32 n;
	STATUS1(t.GpaGetNumCounters(ctx, &n), kGpaStatusErrorContextNotFound);
	STATUS1(t.GpaBeginSession(s), kGpaStatusErrorSessionNotFound);
	/* The key is free again. */
	ctx = open_context(&key_a);
	OK(t.GpaCloseContext(ctx));
}

static void test_open_flags(void **state)
{
	(void)state;
	GpaContextId all = NULL, raw = NULL;
	OK(t.GpaOpenContext(&key_a, kGpaOpenContextEnableHardwareCountersBit, &all));
	OK(t.GpaOpenContext(&key_b, kGpaOpenContextEnableHardwareCountersBit |
	                            kGpaOpenContextHideDerivedCountersBit, &raw));
	GpaUInt32 n_all = 0, n_raw = 0, index = 0;
	OK(t.GpaGetNumCounters(all, &n_all));
	OK(t.GpaGetNumCounters(raw, &n_raw));
	assert_int_equal(n_all, FC_COUNT + n_raw);
	/* Raw counters follow the derived ones; hidden, they come first. */
	OK(t.GpaGetCounterIndex(raw, "R0", &index));
	assert_int_equal(index, 0);
	OK(t.GpaGetCounterIndex(all, "R0", &index));
	assert_int_equal(index, FC_COUNT);
	STATUS1(t.GpaGetCounterIndex(raw, "C0", &index), kGpaStatusErrorCounterNotFound);
	/* The obsolete hide bits are accepted (and said to be ignored). */
	GpaContextId obsolete = NULL;
	OK(t.GpaOpenContext(&(int){ 0 }, kGpaOpenContextHideSoftwareCountersBit_obsolete, &obsolete));
	assert_int_equal(tu_log.errors, 0);
	tu_log_clear();
}

static void test_device_queries(void **state)
{
	(void)state;
	GpaContextId ctx = open_context(&key_a);
	GpaContextSampleTypeFlags types = 99;
	GpaUInt32 dev = 0, rev = 0;
	const char *name = NULL;
	GpaHwGeneration gen = kGpaHwGenerationGfx9;
	/* 3.17: output pointers before the context. */
	STATUS1(t.GpaGetSupportedSampleTypes(BOGUS_CONTEXT, NULL), kGpaStatusErrorNullPointer);
	STATUS1(t.GpaGetDeviceAndRevisionId(BOGUS_CONTEXT, &dev, NULL), kGpaStatusErrorNullPointer);
	STATUS1(t.GpaGetDeviceAndRevisionId(BOGUS_CONTEXT, NULL, &rev), kGpaStatusErrorNullPointer);
	STATUS1(t.GpaGetDeviceName(BOGUS_CONTEXT, NULL), kGpaStatusErrorNullPointer);
	STATUS1(t.GpaGetDeviceGeneration(BOGUS_CONTEXT, NULL), kGpaStatusErrorNullPointer);
	STATUS1(t.GpaGetSupportedSampleTypes(BOGUS_CONTEXT, &types), kGpaStatusErrorContextNotFound);
	STATUS1(t.GpaGetDeviceAndRevisionId(BOGUS_CONTEXT, &dev, &rev), kGpaStatusErrorContextNotFound);
	STATUS1(t.GpaGetDeviceName(NULL, &name), kGpaStatusErrorNullPointer);
	STATUS1(t.GpaGetDeviceGeneration(BOGUS_CONTEXT, &gen), kGpaStatusErrorContextNotFound);
	OK(t.GpaGetSupportedSampleTypes(ctx, &types));
	assert_int_equal(types, kGpaContextSampleTypeDiscreteCounter);
	OK(t.GpaGetDeviceAndRevisionId(ctx, &dev, &rev));
	assert_int_equal(dev, FAKE_DEVICE_ID);
	assert_int_equal(rev, FAKE_REVISION);
	OK(t.GpaGetDeviceName(ctx, &name));
	assert_string_equal(name, FAKE_DESCRIPTION);
	OK(t.GpaGetDeviceGeneration(ctx, &gen));
	assert_int_equal(gen, kGpaHwGenerationNone);
	GpaUInt32 major = 0, minor = 0, build = 9, update = 9;
	STATUS1(t.GpaGetVersion(&major, &minor, &build, NULL), kGpaStatusErrorNullPointer);
	STATUS1(t.GpaGetVersion(NULL, &minor, &build, &update), kGpaStatusErrorNullPointer);
	OK(t.GpaGetVersion(&major, &minor, &build, &update));
	assert_true(major == 3 && minor == 17 && build == 0 && update == 0);
}

/* ---- counters -------------------------------------------------------------------- */

static void test_counter_queries(void **state)
{
	(void)state;
	GpaContextId ctx = open_context(&key_a);
	GpaUInt32 n = 0, index = 0;
	const char *s = NULL;
	GpaDataType type;
	GpaUsageType usage;
	GpaUuid uuid;
	GpaCounterSampleType sample_type;
	STATUS1(t.GpaGetNumCounters(BOGUS_CONTEXT, NULL), kGpaStatusErrorNullPointer);
	STATUS1(t.GpaGetNumCounters(BOGUS_CONTEXT, &n), kGpaStatusErrorContextNotFound);
	OK(t.GpaGetNumCounters(ctx, &n));
	assert_int_equal(n, FC_COUNT);
	/* Output, context, index. */
	STATUS1(t.GpaGetCounterName(BOGUS_CONTEXT, 9999, NULL), kGpaStatusErrorNullPointer);
	STATUS1(t.GpaGetCounterGroup(BOGUS_CONTEXT, 9999, &s), kGpaStatusErrorContextNotFound);
	STATUS1(t.GpaGetCounterDescription(ctx, FC_COUNT, &s), kGpaStatusErrorIndexOutOfRange);
	STATUS1(t.GpaGetCounterDataType(ctx, FC_COUNT, &type), kGpaStatusErrorIndexOutOfRange);
	STATUS1(t.GpaGetCounterUsageType(ctx, FC_COUNT, NULL), kGpaStatusErrorNullPointer);
	STATUS1(t.GpaGetCounterUuid(NULL, 0, &uuid), kGpaStatusErrorNullPointer);
	STATUS1(t.GpaGetCounterSampleType(ctx, FC_COUNT, &sample_type),
	        kGpaStatusErrorIndexOutOfRange);
	OK(t.GpaGetCounterName(ctx, FC_SUM01, &s));
	assert_string_equal(s, "Sum01");
	OK(t.GpaGetCounterGroup(ctx, FC_SUM01, &s));
	assert_string_equal(s, "Fake");
	OK(t.GpaGetCounterDescription(ctx, FC_SUM01, &s));
	assert_true(s[0] != '#'); /* 3.x: the group is not in the description */
	const struct { GpaUInt32 counter; GpaDataType type; } types[] = {
		{ FC_C0, kGpaDataTypeUint64 }, { FC_SMALL, kGpaDataTypeUint64 },
		{ FC_SUM01, kGpaDataTypeFloat64 }, { FC_HALF, kGpaDataTypeFloat64 },
	};
	for (size_t i = 0; i < 4; i++) {
		OK(t.GpaGetCounterDataType(ctx, types[i].counter, &type));
		assert_int_equal(type, types[i].type);
	}
	OK(t.GpaGetCounterUsageType(ctx, FC_C0, &usage));
	assert_int_equal(usage, kGpaUsageTypeItems);
	OK(t.GpaGetCounterSampleType(ctx, FC_C0, &sample_type));
	assert_int_equal(sample_type, kGpaCounterSampleTypeDiscrete);
	/* uuid5(a7855c79-c412-5bbb-832b-53ec7c9d3f47, "fake/C0"), as Python's
	 * uuid module computes it: d57cf9b2-4ba2-5503-b553-952de553e6d4. */
	memset(&uuid, 0xEE, sizeof(uuid));
	OK(t.GpaGetCounterUuid(ctx, FC_C0, &uuid));
	assert_int_equal(uuid.data_1, 0xd57cf9b2u);
	assert_int_equal(uuid.data_2, 0x4ba2);
	assert_int_equal(uuid.data_3, 0x5503);
	const unsigned char tail[8] = { 0xb5, 0x53, 0x95, 0x2d, 0xe5, 0x53, 0xe6, 0xd4 };
	assert_memory_equal(uuid.data_4, tail, 8);
	/* Distinct per counter. */
	GpaUuid other;
	OK(t.GpaGetCounterUuid(ctx, FC_C1, &other));
	assert_true(memcmp(&uuid, &other, sizeof(uuid)) != 0);

	/* Name, output, context, match (any case, first match). */
	STATUS1(t.GpaGetCounterIndex(BOGUS_CONTEXT, NULL, NULL), kGpaStatusErrorNullPointer);
	STATUS1(t.GpaGetCounterIndex(BOGUS_CONTEXT, "C0", NULL), kGpaStatusErrorNullPointer);
	STATUS1(t.GpaGetCounterIndex(BOGUS_CONTEXT, "C0", &index), kGpaStatusErrorContextNotFound);
	STATUS1(t.GpaGetCounterIndex(ctx, "nothing", &index), kGpaStatusErrorCounterNotFound);
	OK(t.GpaGetCounterIndex(ctx, "nEsTeD", &index));
	assert_int_equal(index, FC_NESTED);

	/* The strings: output first in 3.17. */
	STATUS1(t.GpaGetDataTypeAsStr(kGpaDataTypeLast, NULL), kGpaStatusErrorNullPointer);
	STATUS1(t.GpaGetDataTypeAsStr(kGpaDataTypeLast, &s), kGpaStatusErrorInvalidParameter);
	STATUS1(t.GpaGetUsageTypeAsStr(kGpaUsageTypeLast, NULL), kGpaStatusErrorNullPointer);
	STATUS1(t.GpaGetUsageTypeAsStr((GpaUsageType)-1, &s), kGpaStatusErrorInvalidParameter);
	OK(t.GpaGetDataTypeAsStr(kGpaDataTypeUint64, &s));
	assert_string_equal(s, "gpa_uint64");
	OK(t.GpaGetDataTypeAsStr(kGpaDataTypeFloat64, &s));
	assert_string_equal(s, "gpa_float64");
	OK(t.GpaGetUsageTypeAsStr(kGpaUsageTypeNanoseconds, &s));
	assert_string_equal(s, "nanoseconds");
	TU_NO_ERROR();
}

static void test_status_strings(void **state)
{
	(void)state;
	assert_string_equal(t.GpaGetStatusAsStr(kGpaStatusOk), "GPA Status: Ok.");
	assert_string_equal(t.GpaGetStatusAsStr(kGpaStatusResultNotReady),
	                    "GPA Status: Counter Results Not Ready.");
	assert_string_equal(t.GpaGetStatusAsStr(kGpaStatusErrorNullPointer),
	                    "GPA Error: Null Pointer.");
	assert_string_equal(t.GpaGetStatusAsStr(kGpaStatusErrorContextAlreadyOpen),
	                    "GPA Error: Coontext Already Opened.");
	assert_string_equal(t.GpaGetStatusAsStr(kGpaStatusErrorInvalidCounterGroupData),
	                    "GPA Error: Counter Group Data Is Invalid.");
	assert_string_equal(t.GpaGetStatusAsStr((GpaStatus)-45), "GPA Error: Unknown Error.");
	assert_string_equal(t.GpaGetStatusAsStr(kGpaStatusInternal), "GPA Status: Unknown Status.");
	for (int st = kGpaStatusMin; st <= kGpaStatusMax; st++) {
		const char *text = t.GpaGetStatusAsStr((GpaStatus)st);
		assert_true(strncmp(text, st < 0 ? "GPA Error: " : "GPA Status: ", st < 0 ? 11 : 12) == 0);
		assert_int_equal(text[strlen(text) - 1], '.');
	}
}

/* ---- sessions ------------------------------------------------------------------ */

static void test_create_delete(void **state)
{
	(void)state;
	GpaContextId ctx = open_context(&key_a);
	GpaSessionId s = NULL;
	STATUS1(t.GpaCreateSession(BOGUS_CONTEXT, 99, NULL), kGpaStatusErrorNullPointer);
	STATUS1(t.GpaCreateSession(BOGUS_CONTEXT, 99, &s), kGpaStatusErrorContextNotFound);
	STATUS1(t.GpaCreateSession(ctx, (GpaSessionSampleType)4, &s), kGpaStatusErrorInvalidParameter);
	for (int type = 1; type <= 3; type++)
		STATUS1(t.GpaCreateSession(ctx, (GpaSessionSampleType)type, &s),
		        kGpaStatusErrorIncompatibleSampleTypes);
	s = new_session(ctx);
	GpaSessionId s2 = new_session(ctx); /* several per context */
	STATUS1(t.GpaDeleteSession(NULL), kGpaStatusErrorNullPointer);
	STATUS1(t.GpaDeleteSession(BOGUS_SESSION), kGpaStatusErrorSessionNotFound);
	STATUS1(t.GpaDeleteSession((GpaSessionId)ctx), kGpaStatusErrorSessionNotFound); /* foreign */
	OK(t.GpaDeleteSession(s));
	STATUS1(t.GpaDeleteSession(s), kGpaStatusErrorSessionNotFound); /* stale */
	/* A running session, with a recording command list, can be deleted:
	 * its handles go with it. */
	OK(t.GpaEnableCounter(s2, FC_C0));
	OK(t.GpaBeginSession(s2));
	GpaCommandListId cl = NULL;
	OK(t.GpaBeginCommandList(s2, 0, GPA_NULL_COMMAND_LIST, kGpaCommandListNone, &cl));
	OK(t.GpaBeginSample(1, cl));
	/* A handle is looked up whole: a live list's with its top (generation)
	 * bit or bit 4 changed names nothing, nor does it as a session. */
	uintptr_t v = (uintptr_t)cl, top = (uintptr_t)1 << (sizeof(v) * 8 - 1);
	STATUS1(t.GpaEndSample((GpaCommandListId)(v ^ top)), kGpaStatusErrorCommandListNotFound);
	STATUS1(t.GpaEndSample((GpaCommandListId)(v ^ 0x10)), kGpaStatusErrorCommandListNotFound);
	STATUS1(t.GpaEndSession((GpaSessionId)cl), kGpaStatusErrorSessionNotFound);
	OK(t.GpaEndSample(cl));
	OK(t.GpaBeginSample(2, cl));
	OK(t.GpaDeleteSession(s2));
	STATUS1(t.GpaEndSample(cl), kGpaStatusErrorCommandListNotFound);
	STATUS1(t.GpaEndCommandList(cl), kGpaStatusErrorCommandListNotFound);
	/* The context can run another session now. */
	s = new_session(ctx);
	OK(t.GpaEnableCounter(s, FC_C0));
	OK(t.GpaBeginSession(s));
}

static void test_enable(void **state)
{
	(void)state;
	GpaContextId ctx = open_context(&key_a);
	GpaSessionId s = new_session(ctx), other = new_session(ctx);
	GpaUInt32 n = 9, index = 9;
	STATUS1(t.GpaEnableCounter(BOGUS_SESSION, 0), kGpaStatusErrorSessionNotFound);
	STATUS1(t.GpaDisableCounter(NULL, 0), kGpaStatusErrorNullPointer);
	STATUS1(t.GpaEnableCounter(s, FC_COUNT), kGpaStatusErrorIndexOutOfRange);
	STATUS1(t.GpaDisableCounter(s, FC_COUNT), kGpaStatusErrorIndexOutOfRange);
	OK(t.GpaEnableCounter(s, FC_C3));
	STATUS1(t.GpaEnableCounter(s, FC_C3), kGpaStatusErrorAlreadyEnabled);
	STATUS1(t.GpaDisableCounter(s, FC_C4), kGpaStatusErrorNotEnabled);
	STATUS1(t.GpaEnableCounterByName(s, "nothing"), kGpaStatusErrorCounterNotFound);
	STATUS1(t.GpaEnableCounterByName(s, NULL), kGpaStatusErrorNullPointer);
	STATUS1(t.GpaDisableCounterByName(BOGUS_SESSION, "C0"), kGpaStatusErrorSessionNotFound);
	OK(t.GpaEnableCounterByName(s, "sum01"));
	STATUS1(t.GpaEnableCounterByName(s, "SUM01"), kGpaStatusErrorAlreadyEnabled);
	OK(t.GpaEnableCounter(s, FC_C0));
	/* Enable order, per session. */
	STATUS1(t.GpaGetNumEnabledCounters(BOGUS_SESSION, NULL), kGpaStatusErrorSessionNotFound);
	STATUS1(t.GpaGetNumEnabledCounters(s, NULL), kGpaStatusErrorNullPointer);
	OK(t.GpaGetNumEnabledCounters(s, &n));
	assert_int_equal(n, 3);
	OK(t.GpaGetNumEnabledCounters(other, &n));
	assert_int_equal(n, 0);
	const GpaUInt32 order[] = { FC_C3, FC_SUM01, FC_C0 };
	for (GpaUInt32 i = 0; i < 3; i++) {
		OK(t.GpaGetEnabledIndex(s, i, &index));
		assert_int_equal(index, order[i]);
	}
	STATUS1(t.GpaGetEnabledIndex(BOGUS_SESSION, 99, NULL), kGpaStatusErrorSessionNotFound);
	STATUS1(t.GpaGetEnabledIndex(s, 99, NULL), kGpaStatusErrorNullPointer);
	STATUS1(t.GpaGetEnabledIndex(s, 3, &index), kGpaStatusErrorIndexOutOfRange);
	STATUS1(t.GpaIsCounterEnabled(BOGUS_SESSION, FC_C3), kGpaStatusErrorSessionNotFound);
	OK(t.GpaIsCounterEnabled(s, FC_C3));
	/* "No" is an answer: no error, and no range check (nor a crash). */
	assert_int_equal(t.GpaIsCounterEnabled(s, FC_C4), kGpaStatusErrorCounterNotFound);
	assert_int_equal(t.GpaIsCounterEnabled(s, 0xFFFFFFFFu), kGpaStatusErrorCounterNotFound);
	assert_int_equal(tu_log.errors, 0);
	tu_log_clear();
	OK(t.GpaDisableCounterByName(s, "Sum01"));
	OK(t.GpaGetEnabledIndex(s, 1, &index));
	assert_int_equal(index, FC_C0);
	/* All: cleared, then 0..N-1. */
	STATUS1(t.GpaEnableAllCounters(BOGUS_SESSION), kGpaStatusErrorSessionNotFound);
	OK(t.GpaEnableAllCounters(s));
	OK(t.GpaGetEnabledIndex(s, 3, &index));
	assert_int_equal(index, 3);
	OK(t.GpaDisableAllCounters(s));
	OK(t.GpaGetNumEnabledCounters(s, &n));
	assert_int_equal(n, 0);
	/* Pass counts follow the session's own counters. */
	STATUS1(t.GpaGetPassCount(BOGUS_SESSION, NULL), kGpaStatusErrorSessionNotFound);
	STATUS1(t.GpaGetPassCount(s, NULL), kGpaStatusErrorNullPointer);
	OK(t.GpaGetPassCount(s, &n));
	assert_int_equal(n, 0);
	OK(t.GpaEnableAllCounters(other));
	OK(t.GpaGetPassCount(other, &n));
	assert_true(n >= 3);
	/* Fixed once begun. */
	OK(t.GpaBeginSession(other));
	const GpaStatus fixed = kGpaStatusErrorCannotChangeCountersWhenSampling;
	STATUS1(t.GpaEnableCounter(other, FC_COUNT), fixed); /* before the index */
	STATUS1(t.GpaDisableCounter(other, FC_C0), fixed);
	STATUS1(t.GpaEnableCounterByName(other, "nothing"), fixed);
	STATUS1(t.GpaDisableCounterByName(other, "C0"), fixed);
	STATUS1(t.GpaEnableAllCounters(other), fixed);
	STATUS1(t.GpaDisableAllCounters(other), fixed);
	OK(t.GpaIsCounterEnabled(other, FC_C0)); /* questions are fine */
	OK(t.GpaGetPassCount(other, &n));
}

static void test_begin_end_session(void **state)
{
	(void)state;
	GpaContextId ctx;
	GpaSessionId s = two_pass_session(&ctx), other = new_session(ctx), empty = new_session(ctx);
	STATUS1(t.GpaBeginSession(NULL), kGpaStatusErrorNullPointer);
	STATUS1(t.GpaBeginSession(BOGUS_SESSION), kGpaStatusErrorSessionNotFound);
	STATUS1(t.GpaBeginSession(empty), kGpaStatusErrorNoCountersEnabled);
	STATUS1(t.GpaEndSession(BOGUS_SESSION), kGpaStatusErrorSessionNotFound);
	STATUS1(t.GpaEndSession(s), kGpaStatusErrorSessionNotStarted);
	OK(t.GpaEnableCounter(other, FC_C0));
	OK(t.GpaBeginSession(s));
	STATUS1(t.GpaBeginSession(s), kGpaStatusErrorSessionAlreadyStarted);
	STATUS1(t.GpaBeginSession(other), kGpaStatusErrorOtherSessionActive);
	STATUS1(t.GpaEndSession(other), kGpaStatusErrorOtherSessionActive);
	/* Not every pass: refused, and the session keeps running. */
	STATUS1(t.GpaEndSession(s), kGpaStatusErrorNotEnoughPasses);
	GpaCommandListId cl0 = NULL, cl1 = NULL;
	OK(t.GpaBeginCommandList(s, 0, GPA_NULL_COMMAND_LIST, kGpaCommandListNone, &cl0));
	OK(t.GpaBeginSample(0, cl0));
	OK(t.GpaEndSample(cl0));
	OK(t.GpaBeginSample(1, cl0));
	OK(t.GpaEndSample(cl0));
	OK(t.GpaEndCommandList(cl0));
	STATUS1(t.GpaEndSession(s), kGpaStatusErrorNotEnoughPasses);
	OK(t.GpaBeginCommandList(s, 1, GPA_NULL_COMMAND_LIST, kGpaCommandListNone, &cl1));
	OK(t.GpaBeginSample(0, cl1));
	/* A list recording, or a sample open: not the same samples yet. */
	STATUS1(t.GpaEndSession(s), kGpaStatusErrorVariableNumberOfSamplesInPasses);
	OK(t.GpaEndSample(cl1));
	STATUS1(t.GpaEndSession(s), kGpaStatusErrorVariableNumberOfSamplesInPasses);
	OK(t.GpaEndCommandList(cl1));
	/* Pass 1 has one sample, pass 0 two. */
	STATUS1(t.GpaEndSession(s), kGpaStatusErrorVariableNumberOfSamplesInPasses);
	GpaCommandListId cl2 = NULL;
	OK(t.GpaBeginCommandList(s, 1, GPA_NULL_COMMAND_LIST, kGpaCommandListNone, &cl2));
	OK(t.GpaBeginSample(1, cl2));
	OK(t.GpaEndSample(cl2));
	OK(t.GpaEndCommandList(cl2));
	OK(t.GpaEndSession(s));
	STATUS1(t.GpaEndSession(s), kGpaStatusErrorSessionNotStarted);
	STATUS1(t.GpaBeginSession(s), kGpaStatusErrorSessionAlreadyStarted); /* once */
	/* The context is free for another session. */
	OK(t.GpaBeginSession(other));
}

/* ---- command lists and samples ------------------------------------------------------- */

static void test_command_lists(void **state)
{
	(void)state;
	GpaSessionId s = two_pass_session(NULL);
	GpaCommandListId cl = NULL, cl2 = NULL;
	int vk_buffer, vk_buffer2;
	const GpaStatus not_started = kGpaStatusErrorSessionNotStarted;
	STATUS1(t.GpaBeginCommandList(BOGUS_SESSION, 0, NULL, kGpaCommandListNone, &cl),
	        kGpaStatusErrorSessionNotFound);
	STATUS1(t.GpaBeginCommandList(s, 0, NULL, kGpaCommandListNone, &cl), not_started);
	OK(t.GpaBeginSession(s));
	STATUS1(t.GpaBeginCommandList(s, 0, NULL, kGpaCommandListLast, &cl),
	        kGpaStatusErrorInvalidParameter);
	STATUS1(t.GpaBeginCommandList(s, 0, &vk_buffer, kGpaCommandListNone, &cl),
	        kGpaStatusErrorInvalidParameter);
	STATUS1(t.GpaBeginCommandList(s, 0, NULL, kGpaCommandListPrimary, &cl),
	        kGpaStatusErrorNullPointer);
	STATUS1(t.GpaBeginCommandList(s, 0, NULL, kGpaCommandListNone, NULL),
	        kGpaStatusErrorNullPointer);
	STATUS1(t.GpaBeginCommandList(s, 2, NULL, kGpaCommandListNone, &cl), kGpaStatusErrorFailed);
	/* A Vulkan-style list is a key: several lists may record one pass. */
	OK(t.GpaBeginCommandList(s, 0, &vk_buffer, kGpaCommandListPrimary, &cl));
	STATUS1(t.GpaBeginCommandList(s, 0, NULL, kGpaCommandListNone, &cl),
	        kGpaStatusErrorCommandListAlreadyStarted);
	OK(t.GpaBeginCommandList(s, 0, &vk_buffer2, kGpaCommandListSecondary, &cl2));
	GpaCommandListId cl3 = NULL;
	/* One pass on the device at a time. */
	STATUS1(t.GpaBeginCommandList(s, 1, NULL, kGpaCommandListNone, &cl3), kGpaStatusErrorFailed);

	/* Samples. */
	STATUS1(t.GpaBeginSample(0, NULL), kGpaStatusErrorNullPointer);
	STATUS1(t.GpaBeginSample(0, BOGUS_LIST), kGpaStatusErrorCommandListNotFound);
	STATUS1(t.GpaBeginSample(0, (GpaCommandListId)s), kGpaStatusErrorCommandListNotFound);
	STATUS1(t.GpaEndSample(cl), kGpaStatusErrorFailed); /* none open */
	OK(t.GpaBeginSample(7, cl));
	STATUS1(t.GpaBeginSample(8, cl), kGpaStatusErrorFailed);  /* no nesting */
	STATUS1(t.GpaBeginSample(8, cl2), kGpaStatusErrorFailed); /* no overlap */
	STATUS1(t.GpaEndSample(cl2), kGpaStatusErrorFailed);
	OK(t.GpaEndSample(cl));
	STATUS1(t.GpaBeginSample(7, cl2), kGpaStatusErrorFailed); /* unique in the pass */
	OK(t.GpaBeginSample(8, cl2));
	/* Ending the list ends its sample. */
	OK(t.GpaEndCommandList(cl2));
	STATUS1(t.GpaEndCommandList(cl2), kGpaStatusErrorCommandListAlreadyEnded);
	STATUS1(t.GpaBeginSample(9, cl2), kGpaStatusErrorFailed);
	STATUS1(t.GpaEndCommandList(NULL), kGpaStatusErrorNullPointer);
	STATUS1(t.GpaEndCommandList(BOGUS_LIST), kGpaStatusErrorCommandListNotFound);
	OK(t.GpaEndCommandList(cl));
	/* The handle may be reused for the next list once its list ended. */
	OK(t.GpaBeginCommandList(s, 1, NULL, kGpaCommandListNone, &cl));
	for (GpaUInt32 id = 7; id <= 8; id++) {
		OK(t.GpaBeginSample(id, cl));
		OK(t.GpaEndSample(cl));
	}
	OK(t.GpaEndCommandList(cl));
	OK(t.GpaEndSession(s));
	/* Secondary command lists: not here, whatever the handles. */
	STATUS1(t.GpaContinueSampleOnCommandList(0, BOGUS_LIST), kGpaStatusErrorApiNotSupported);
	GpaUInt32 ids[2];
	STATUS1(t.GpaCopySecondarySamples(NULL, NULL, 2, ids), kGpaStatusErrorApiNotSupported);
}

/* ---- results ----------------------------------------------------------------------------- */

static void test_results(void **state)
{
	(void)state;
	GpaContextId ctx;
	GpaSessionId s = two_pass_session(&ctx);
	GpaUInt32 n = 9, id = 9;
	size_t size = 0;
	GpaUInt64 buf[4];
	const GpaStatus not_ended = kGpaStatusErrorSessionNotEnded;
	/* Before BeginSession. */
	OK(t.GpaGetSampleCount(s, &n));
	assert_int_equal(n, 0);
	STATUS1(t.GpaIsPassComplete(s, 0), kGpaStatusErrorSessionNotStarted);
	STATUS1(t.GpaIsSessionComplete(s), kGpaStatusErrorSessionNotStarted);
	STATUS1(t.GpaGetSampleResultSize(s, 0, &size), kGpaStatusErrorSampleNotFound);
	OK(t.GpaBeginSession(s));
	const GpaUInt32 ids[] = { 30, 10, 20 };
	GpaCommandListId cl = NULL;
	OK(t.GpaBeginCommandList(s, 0, NULL, kGpaCommandListNone, &cl));
	OK(t.GpaBeginSample(30, cl));
	STATUS1(t.GpaIsPassComplete(s, 0), kGpaStatusErrorCommandListNotEnded);
	OK(t.GpaEndCommandList(cl));
	STATUS1(t.GpaIsPassComplete(s, 1), kGpaStatusErrorIndexOutOfRange); /* not recorded */
	STATUS1(t.GpaIsPassComplete(s, 2), kGpaStatusErrorIndexOutOfRange);
	OK(t.GpaIsPassComplete(s, 0)); /* while the session runs */
	STATUS1(t.GpaIsSessionComplete(s), not_ended);
	STATUS1(t.GpaGetSampleCount(s, &n), not_ended);
	STATUS1(t.GpaGetSampleId(s, 0, &id), not_ended);
	STATUS1(t.GpaGetSampleResultSize(s, 30, &size), not_ended);
	STATUS1(t.GpaGetSampleResult(s, 30, sizeof(buf), buf), not_ended);
	/* A session whose pass 0 already has sample 30: redo it in a new one. */
	OK(t.GpaDeleteSession(s));
	s = two_pass_session_of(ctx);
	OK(t.GpaBeginSession(s));
	unsigned first = fake_stats.pass_seq; /* the fake numbers passes since the open */
	record(s, ids, 3);
	OK(t.GpaEndSession(s));
	OK(t.GpaIsSessionComplete(s));
	OK(t.GpaIsPassComplete(s, 1));

	STATUS1(t.GpaGetSampleCount(BOGUS_SESSION, NULL), kGpaStatusErrorNullPointer); /* 3.17 */
	STATUS1(t.GpaGetSampleCount(BOGUS_SESSION, &n), kGpaStatusErrorSessionNotFound);
	OK(t.GpaGetSampleCount(s, &n));
	assert_int_equal(n, 3);
	STATUS1(t.GpaGetSampleId(BOGUS_SESSION, 0, NULL), kGpaStatusErrorNullPointer);
	STATUS1(t.GpaGetSampleId(s, 3, &id), kGpaStatusErrorSampleNotFound);
	for (GpaUInt32 k = 0; k < 3; k++) {
		OK(t.GpaGetSampleId(s, k, &id));
		assert_int_equal(id, ids[k]);
	}
	STATUS1(t.GpaGetSampleResultSize(BOGUS_SESSION, 10, NULL), kGpaStatusErrorNullPointer);
	STATUS1(t.GpaGetSampleResultSize(BOGUS_SESSION, 10, &size), kGpaStatusErrorSessionNotFound);
	STATUS1(t.GpaGetSampleResultSize(s, 11, &size), kGpaStatusErrorSampleNotFound);
	OK(t.GpaGetSampleResultSize(s, 10, &size));
	assert_int_equal(size, 3 * 8);
	STATUS1(t.GpaGetSampleResult(BOGUS_SESSION, 10, 0, NULL), kGpaStatusErrorNullPointer);
	STATUS1(t.GpaGetSampleResult(BOGUS_SESSION, 10, sizeof(buf), buf),
	        kGpaStatusErrorSessionNotFound);
	STATUS1(t.GpaGetSampleResult(s, 11, sizeof(buf), buf), kGpaStatusErrorSampleNotFound);
	STATUS1(t.GpaGetSampleResult(s, 10, size - 1, buf), kGpaStatusErrorReadingSampleResult);
	/* One 8-byte value per enabled counter, in enable order: C0 and C1 in
	 * pass 0, C2 in pass 1 (the fake's second pass). */
	for (GpaUInt32 k = 0; k < 3; k++) {
		memset(buf, 0, sizeof(buf));
		OK(t.GpaGetSampleResult(s, ids[k], size, buf));
		assert_int_equal(buf[0], fake_value(0, k, first));
		assert_int_equal(buf[1], fake_value(1, k, first));
		assert_int_equal(buf[2], fake_value(2, k, first + 1));
		assert_int_equal(buf[3], 0); /* nothing past the size */
	}
	TU_NO_ERROR();
}

static void test_result_types(void **state)
{
	(void)state;
	GpaContextId ctx = open_context(&key_a);
	GpaSessionId s = new_session(ctx);
	/* A float64, a uint32 and a float32 counter. */
	OK(t.GpaEnableCounter(s, FC_SCALED));
	OK(t.GpaEnableCounter(s, FC_SMALL));
	OK(t.GpaEnableCounter(s, FC_HALF));
	OK(t.GpaBeginSession(s));
	const GpaUInt32 ids[] = { 5 };
	record(s, ids, 1);
	OK(t.GpaEndSession(s));
	unsigned char buf[24];
	OK(t.GpaGetSampleResult(s, 5, sizeof(buf), buf));
	/* The same values GPA 2.x's typed reads give. */
	OK(GPA_OpenContext(&key_a));
	OK(GPA_EnableCounter(FC_SCALED));
	OK(GPA_EnableCounter(FC_SMALL));
	OK(GPA_EnableCounter(FC_HALF));
	const unsigned id = 5;
	gpa_uint32 s2 = tu_run_session(&id, 1);
	gpa_float64 scaled;
	gpa_uint32 small;
	gpa_float32 half;
	OK(GPA_GetSampleFloat64(s2, 5, FC_SCALED, &scaled));
	OK(GPA_GetSampleUInt32(s2, 5, FC_SMALL, &small));
	OK(GPA_GetSampleFloat32(s2, 5, FC_HALF, &half));
	double d;
	GpaUInt64 u;
	memcpy(&d, buf, 8);
	assert_true(d == scaled);
	memcpy(&u, buf + 8, 8);
	assert_int_equal(u, small);
	memcpy(&d, buf + 16, 8);
	assert_true((float)d == half);
}

/* Two errors at once: the one GPA 3.17 checks first is the one returned
 * (the fact sheet's check orders).  Each line breaks two rules of its entry
 * point; swapping two checks in the library changes the status. */
static void test_two_errors_at_once(void **state)
{
	(void)state;
	GpaContextId ctx = open_context(&key_a);
	GpaSessionId s = new_session(ctx);
	GpaUInt32 u = 0;
	const char *str = NULL;
	size_t size = 0;
	GpaSessionId out = NULL;
	/* Context queries: the output pointer before the context. */
	STATUS1(t.GpaGetNumCounters(BOGUS_CONTEXT, NULL), kGpaStatusErrorNullPointer);
	STATUS1(t.GpaGetCounterName(BOGUS_CONTEXT, 0, NULL), kGpaStatusErrorNullPointer);
	/* ... the context before the index. */
	STATUS1(t.GpaGetCounterName(BOGUS_CONTEXT, 1u << 30, &str), kGpaStatusErrorContextNotFound);
	STATUS1(t.GpaGetCounterName(ctx, 1u << 30, NULL), kGpaStatusErrorNullPointer);
	STATUS1(t.GpaGetCounterIndex(BOGUS_CONTEXT, NULL, &u), kGpaStatusErrorNullPointer);
	STATUS1(t.GpaGetCounterIndex(BOGUS_CONTEXT, "C0", NULL), kGpaStatusErrorNullPointer);
	STATUS1(t.GpaGetCounterIndex(BOGUS_CONTEXT, "Nope", &u), kGpaStatusErrorContextNotFound);
	STATUS1(t.GpaGetDataTypeAsStr(kGpaDataTypeLast, NULL), kGpaStatusErrorNullPointer);
	STATUS1(t.GpaGetUsageTypeAsStr(kGpaUsageTypeLast, NULL), kGpaStatusErrorNullPointer);
	/* CreateSession: out, then context, then the type. */
	STATUS1(t.GpaCreateSession(BOGUS_CONTEXT, (GpaSessionSampleType)99, NULL),
	        kGpaStatusErrorNullPointer);
	STATUS1(t.GpaCreateSession(BOGUS_CONTEXT, (GpaSessionSampleType)99, &out),
	        kGpaStatusErrorContextNotFound);
	/* Session queries: the handle before the output pointer. */
	STATUS1(t.GpaGetPassCount(BOGUS_SESSION, NULL), kGpaStatusErrorSessionNotFound);
	STATUS1(t.GpaGetNumEnabledCounters(BOGUS_SESSION, NULL), kGpaStatusErrorSessionNotFound);
	STATUS1(t.GpaGetEnabledIndex(BOGUS_SESSION, 99, NULL), kGpaStatusErrorSessionNotFound);
	STATUS1(t.GpaGetEnabledIndex(s, 99, NULL), kGpaStatusErrorNullPointer);
	/* Result getters: the output pointer before the session. */
	STATUS1(t.GpaGetSampleCount(BOGUS_SESSION, NULL), kGpaStatusErrorNullPointer);
	STATUS1(t.GpaGetSampleId(BOGUS_SESSION, 0, NULL), kGpaStatusErrorNullPointer);
	STATUS1(t.GpaGetSampleResultSize(BOGUS_SESSION, 0, NULL), kGpaStatusErrorNullPointer);
	STATUS1(t.GpaGetSampleResult(BOGUS_SESSION, 0, 8, NULL), kGpaStatusErrorNullPointer);
	/* EnableCounter: running before the index; BeginSession: another
	 * session active before this one's own state. */
	OK(t.GpaEnableCounter(s, FC_C0));
	OK(t.GpaBeginSession(s));
	STATUS1(t.GpaEnableCounter(s, 1u << 30), kGpaStatusErrorCannotChangeCountersWhenSampling);
	STATUS1(t.GpaDisableCounter(s, 1u << 30), kGpaStatusErrorCannotChangeCountersWhenSampling);
	GpaSessionId other = new_session(ctx);
	STATUS1(t.GpaBeginSession(other), kGpaStatusErrorOtherSessionActive);
	/* While running: the sample ID before "not ended" (3.17). */
	STATUS1(t.GpaGetSampleResultSize(s, 12345, &size), kGpaStatusErrorSampleNotFound);
	STATUS1(t.GpaGetSampleCount(s, &u), kGpaStatusErrorSessionNotEnded);
	STATUS1(t.GpaGetSampleCount(BOGUS_SESSION, &u), kGpaStatusErrorSessionNotFound);
	/* EndSession of the one that is not active while another is. */
	STATUS1(t.GpaEndSession(other), kGpaStatusErrorOtherSessionActive);
}

/* ---- a GPA 2.x client in the same process -------------------------------------------------- */

static unsigned messages2;

static void log_gpa2(GPA_Logging_Type type, const char *msg)
{
	(void)type;
	(void)msg;
	messages2++;
}

static void test_with_gpa2(void **state)
{
	(void)state;
	/* Both open a context on the same key: they are separate. */
	OK(GPA_RegisterLoggingCallback(GPA_LOGGING_ERROR, log_gpa2));
	OK(GPA_OpenContext(&key_a));
	GpaContextId ctx = open_context(&key_a);
	OK(GPA_EnableCounter(FC_C5));
	GpaSessionId s = new_session(ctx);
	OK(t.GpaEnableCounter(s, FC_C4));
	/* 2.x sees its own context only, 3.x its own. */
	gpa_uint32 n = 0;
	OK(GPA_GetEnabledCount(&n));
	assert_int_equal(n, 1);
	OK(t.GpaBeginSession(s));
	/* A 3.x session running does not block 2.x, nor the reverse. */
	const unsigned id = 1;
	gpa_uint32 s2 = tu_run_session(&id, 1);
	const GpaUInt32 ids[] = { 1 };
	record(s, ids, 1);
	OK(t.GpaEndSession(s));
	gpa_uint64 v2 = 0;
	GpaUInt64 v3 = 0;
	OK(GPA_GetSampleUInt64(s2, 1, FC_C5, &v2));
	OK(t.GpaGetSampleResult(s, 1, 8, &v3));
	/* The fake numbers its passes across both contexts. */
	assert_int_equal(v2, fake_value(5, 0, 0));
	assert_int_equal(v3, fake_value(4, 0, 1));
	/* Closing one side leaves the other; GpaDestroy leaves 2.x's logger. */
	OK(GPA_CloseContext());
	OK(t.GpaGetNumCounters(ctx, &n));
	OK(t.GpaDestroy());
	messages2 = 0;
	assert_int_equal(GPA_GetEnabledCount(&n), GPA_STATUS_ERROR_COUNTERS_NOT_OPEN);
	assert_int_equal(messages2, 1);
	/* 3.x's context stays usable without GpaInitialize in 3.17 ... */
	OK(t.GpaGetNumCounters(ctx, &n));
	/* ... and 2.x errors do not reach the 3.x callback, nor the reverse. */
	OK(t.GpaRegisterLoggingCallback(kGpaLoggingError, log3));
	tu_log_clear();
	assert_int_equal(GPA_CloseContext(), GPA_STATUS_ERROR_COUNTERS_NOT_OPEN);
	assert_int_equal(tu_log.count, 0);
	assert_int_equal(messages2, 2);
	assert_int_equal(t.GpaCloseContext(BOGUS_CONTEXT), kGpaStatusErrorContextNotFound);
	assert_int_equal(messages2, 2);
	TU_ONE_ERROR();
	OK(t.GpaCloseContext(ctx));
}

/* GPUTime as GPA 3.x defines it, whatever the catalogue's order: a counter
 * file gives the fake backend a GPUTime in milliseconds (GPA 2.x's unit, as
 * counters/gpa-timing.counters has it), after every other counter.  The
 * table shows it at index 0 in nanoseconds with GPA's UUID; the counters
 * before it move up one. */
static const char gputime_file[] =
	"counter GPUTime\n    group: Timing\n    usage: milliseconds\n    type: float64\n"
	"    description: R0 as milliseconds.\n    expression: R0 / 1000000\n";

static void test_gputime_first(void **state)
{
	(void)state;
	char path[] = "/tmp/opengpa-test-gputime-XXXXXX";
	tu_write_temp(path, gputime_file);
	GPA_Status added = OpenGPA_AddCounterFile(path);
	GpaContextId ctx = NULL;
	GpaStatus opened = t.GpaOpenContext(&key_a, kGpaOpenContextDefaultBit, &ctx);
	unlink(path);
	assert_int_equal(added, GPA_STATUS_OK);
	OK(opened);
	tu_log_clear();

	GpaUInt32 n = 0, index = 99;
	OK(t.GpaGetNumCounters(ctx, &n));
	OK(t.GpaGetCounterIndex(ctx, "GPUTime", &index));
	assert_int_equal(index, 0);
	const char *name = NULL;
	OK(t.GpaGetCounterName(ctx, 0, &name));
	assert_string_equal(name, "GPUTime");
	OK(t.GpaGetCounterName(ctx, FC_C0 + 1, &name));
	assert_string_equal(name, "C0");
	OK(t.GpaGetCounterIndex(ctx, "C0", &index));
	assert_int_equal(index, FC_C0 + 1);
	OK(t.GpaGetCounterName(ctx, n - 1, &name));
	assert_string_not_equal(name, "GPUTime");
	GpaUsageType usage = kGpaUsageTypeMilliseconds;
	OK(t.GpaGetCounterUsageType(ctx, 0, &usage));
	assert_int_equal(usage, kGpaUsageTypeNanoseconds);
	OK(t.GpaGetCounterUsageType(ctx, FC_C0 + 1, &usage));
	assert_int_equal(usage, kGpaUsageTypeItems);
	GpaDataType type = kGpaDataTypeUint64;
	OK(t.GpaGetCounterDataType(ctx, 0, &type));
	assert_int_equal(type, kGpaDataTypeFloat64);
	const char *text = NULL;
	OK(t.GpaGetCounterDescription(ctx, 0, &text));
	assert_non_null(strstr(text, "nanoseconds"));
	GpaUuid uuid;
	memset(&uuid, 0xEE, sizeof(uuid));
	OK(t.GpaGetCounterUuid(ctx, 0, &uuid));
	static const unsigned char tail[8] = { 0x92, 0xad, 0xba, 0x72, 0x4c, 0xa2, 0xe5, 0x01 };
	assert_int_equal(uuid.data_1, 0xcbd338f2u);
	assert_int_equal(uuid.data_2, 0xde6c);
	assert_int_equal(uuid.data_3, 0x7b14);
	assert_memory_equal(uuid.data_4, tail, 8);

	/* Enabled by its index 0 and C0 by its new one; read back the same. */
	GpaSessionId s = new_session(ctx);
	OK(t.GpaEnableCounter(s, FC_C0 + 1));
	OK(t.GpaEnableCounter(s, 0));
	OK(t.GpaIsCounterEnabled(s, 0));
	GpaUInt32 enabled = 99;
	OK(t.GpaGetEnabledIndex(s, 0, &enabled));
	assert_int_equal(enabled, FC_C0 + 1);
	OK(t.GpaGetEnabledIndex(s, 1, &enabled));
	assert_int_equal(enabled, 0);
	OK(t.GpaBeginSession(s));
	unsigned first = fake_stats.pass_seq;
	/* Counts whose milliseconds times 10^6 are not whole (123 ns is
	 * 122.99999999999999 so), for both samples. */
	for (uint64_t off = 0; off < 100000; off++) {
		volatile double a = (double)(fake_value(0, 0, first) + off) / 1e6,
		                b = (double)(fake_value(0, 1, first) + off) / 1e6;
		if (a * 1e6 != (double)(fake_value(0, 0, first) + off) &&
		    b * 1e6 != (double)(fake_value(0, 1, first) + off)) {
			fake_config.value_offset = off;
			break;
		}
	}
	assert_true(fake_config.value_offset != 0);
	const GpaUInt32 ids[] = { 5, 6 };
	record(s, ids, 2);
	OK(t.GpaEndSession(s));
	/* GPUTime is R0's count in nanoseconds, exactly: the milliseconds the
	 * catalogue computed made whole nanoseconds again. */
	for (GpaUInt32 k = 0; k < 2; k++) {
		union {
			GpaUInt64 u;
			GpaFloat64 d;
		} v[2];
		uint64_t want = fake_value(0, k, first) + fake_config.value_offset;
		OK(t.GpaGetSampleResult(s, ids[k], sizeof(v), v));
		assert_int_equal(v[0].u, want);
		if (v[1].d != (double)want)
			fail_msg("sample %u: GPUTime %.17g, not %llu ns", k, v[1].d,
			         (unsigned long long)want);
	}
	OK(t.GpaDeleteSession(s));
	OK(t.GpaCloseContext(ctx));
	TU_NO_ERROR();
}

#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_table_versions), T(test_table_short), T(test_logging),
		T(test_initialize_destroy), T(test_open_close), T(test_open_flags),
		T(test_device_queries), T(test_counter_queries), T(test_status_strings),
		T(test_create_delete), T(test_enable), T(test_begin_end_session),
		T(test_command_lists), T(test_results), T(test_result_types), T(test_with_gpa2),
		T(test_two_errors_at_once), T(test_gputime_first),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
