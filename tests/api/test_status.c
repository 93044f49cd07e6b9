/* SPDX-License-Identifier: MIT */
/*
 * test_status.c — every status path of the 40 GPA 2.x entry points and the
 * OpenGPA_* extensions that needs no session, in the check order of
 * docs/api.md (GPA 2.x's own), plus the ABI's numbers and strings.
 *
 * Past 600 lines because it is one walk over every entry point's refusals
 * in that order: split, the order docs/api.md promises would have no one
 * place where it is checked.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/testing.h"
#include "fake_backend.h"
#include "test_util.h"

/* ---- the ABI's numbers (reference: GPA 2.23.1 headers) --------------- */

_Static_assert(sizeof(GPA_Status) == 4, "GPA_Status is an int-sized enum");
_Static_assert(GPA_STATUS_OK == 0, "");
_Static_assert(GPA_STATUS_ERROR_NULL_POINTER == 1, "");
_Static_assert(GPA_STATUS_ERROR_COUNTERS_NOT_OPEN == 2, "");
_Static_assert(GPA_STATUS_ERROR_COUNTERS_ALREADY_OPEN == 3, "");
_Static_assert(GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE == 4, "");
_Static_assert(GPA_STATUS_ERROR_NOT_FOUND == 5, "");
_Static_assert(GPA_STATUS_ERROR_ALREADY_ENABLED == 6, "");
_Static_assert(GPA_STATUS_ERROR_NO_COUNTERS_ENABLED == 7, "");
_Static_assert(GPA_STATUS_ERROR_NOT_ENABLED == 8, "");
_Static_assert(GPA_STATUS_ERROR_SAMPLING_NOT_STARTED == 9, "");
_Static_assert(GPA_STATUS_ERROR_SAMPLING_ALREADY_STARTED == 10, "");
_Static_assert(GPA_STATUS_ERROR_SAMPLING_NOT_ENDED == 11, "");
_Static_assert(GPA_STATUS_ERROR_NOT_ENOUGH_PASSES == 12, "");
_Static_assert(GPA_STATUS_ERROR_PASS_NOT_ENDED == 13, "");
_Static_assert(GPA_STATUS_ERROR_PASS_NOT_STARTED == 14, "");
_Static_assert(GPA_STATUS_ERROR_PASS_ALREADY_STARTED == 15, "");
_Static_assert(GPA_STATUS_ERROR_SAMPLE_NOT_STARTED == 16, "");
_Static_assert(GPA_STATUS_ERROR_SAMPLE_ALREADY_STARTED == 17, "");
_Static_assert(GPA_STATUS_ERROR_SAMPLE_NOT_ENDED == 18, "");
_Static_assert(GPA_STATUS_ERROR_CANNOT_CHANGE_COUNTERS_WHEN_SAMPLING == 19, "");
_Static_assert(GPA_STATUS_ERROR_SESSION_NOT_FOUND == 20, "");
_Static_assert(GPA_STATUS_ERROR_SAMPLE_NOT_FOUND == 21, "");
_Static_assert(GPA_STATUS_ERROR_SAMPLE_NOT_FOUND_IN_ALL_PASSES == 22, "");
_Static_assert(GPA_STATUS_ERROR_COUNTER_NOT_OF_SPECIFIED_TYPE == 23, "");
_Static_assert(GPA_STATUS_ERROR_READING_COUNTER_RESULT == 24, "");
_Static_assert(GPA_STATUS_ERROR_VARIABLE_NUMBER_OF_SAMPLES_IN_PASSES == 25, "");
_Static_assert(GPA_STATUS_ERROR_FAILED == 26, "");
_Static_assert(GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED == 27, "");
_Static_assert(GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED == 28, "");
_Static_assert(GPA_STATUS_INTERNAL == 256, "");
_Static_assert(GPA_STATUS_OK_HANDLED == 256, "");

_Static_assert(GPA_TYPE_FLOAT32 == 0 && GPA_TYPE_FLOAT64 == 1 && GPA_TYPE_UINT32 == 2 &&
               GPA_TYPE_UINT64 == 3 && GPA_TYPE_INT32 == 4 && GPA_TYPE_INT64 == 5 &&
               GPA_TYPE__LAST == 6, "GPA_Type");
_Static_assert(GPA_USAGE_TYPE_RATIO == 0 && GPA_USAGE_TYPE_PERCENTAGE == 1 &&
               GPA_USAGE_TYPE_CYCLES == 2 && GPA_USAGE_TYPE_MILLISECONDS == 3 &&
               GPA_USAGE_TYPE_BYTES == 4 && GPA_USAGE_TYPE_ITEMS == 5 &&
               GPA_USAGE_TYPE_KILOBYTES == 6 && GPA_USAGE_TYPE__LAST == 7, "GPA_Usage_Type");
_Static_assert(GPA_LOGGING_NONE == 0 && GPA_LOGGING_ERROR == 1 && GPA_LOGGING_MESSAGE == 2 &&
               GPA_LOGGING_ERROR_AND_MESSAGE == 3 && GPA_LOGGING_TRACE == 4 &&
               GPA_LOGGING_ERROR_AND_TRACE == 5 && GPA_LOGGING_MESSAGE_AND_TRACE == 6 &&
               GPA_LOGGING_ERROR_MESSAGE_AND_TRACE == 7 && GPA_LOGGING_ALL == 0xFF,
               "GPA_Logging_Type");
_Static_assert(GPA_API_DIRECTX_11 == 0 && GPA_API_DIRECTX_12 == 1 && GPA_API_OPENGL == 2 &&
               GPA_API_OPENGLES == 3 && GPA_API_OPENCL == 4 && GPA_API_HSA == 5 &&
               GPA_API__LAST == 6, "GPA_API_Type");
_Static_assert(sizeof(bool) == 1, "the ready flags are one byte");

/* A call that fails with `want` and logs exactly one error. */
#define STATUS1(call, want) \
	do { \
		assert_int_equal((call), (want)); \
		TU_ONE_ERROR(); \
	} while (0)

static int key_a, key_b, key_c;

/* ---- strings ----------------------------------------------------------- */

static void test_status_strings(void **state)
{
	(void)state;
	static const char *const want[] = {
		"Ok", "Null Pointer", "Counters Not Open", "Counters Already Opened",
		"Index Out Of Range", "Not Found", "Already Enabled", "No Counters Enabled",
		"Not Enabled", "Sampling Not Started", "Sampling Already Started",
		"Sampling Not Ended", "Not Enough Passes", "Pass Not Ended", "Pass Not Started",
		"Pass Already Started", "Sample Not Started", "Sample Already Started",
		"Sample Not Ended", "Cannot Change Counters When Sampling", "Session Not Found",
		"Sample Not Found", "Sample Not Found In All Passes", "Counter Not Of Specified Type",
		"Reading Counter Result", "Variable Number Of Samples In Passes", "Failed",
		"Hardware Not Supported", "Driver Not Supported",
	};
	for (unsigned i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_string_equal(GPA_GetStatusAsStr((GPA_Status)i), want[i]);
	assert_string_equal(GPA_GetStatusAsStr((GPA_Status)29), "Unknown error");
	assert_string_equal(GPA_GetStatusAsStr(GPA_STATUS_INTERNAL), "Unknown error");
	assert_string_equal(GPA_GetStatusAsStr((GPA_Status)-1), "Unknown error");
	TU_NO_ERROR();
}

static void test_type_strings(void **state)
{
	(void)state;
	static const char *const types[] = { "gpa_float32", "gpa_float64", "gpa_uint32",
	                                     "gpa_uint64", "gpa_int32", "gpa_int64" };
	static const char *const usages[] = { "ratio", "percentage", "cycles", "milliseconds",
	                                      "bytes", "items", "kilobytes" };
	const char *s = NULL;
	for (unsigned i = 0; i < 6; i++) {
		assert_int_equal(GPA_GetDataTypeAsStr((GPA_Type)i, &s), GPA_STATUS_OK);
		assert_string_equal(s, types[i]);
	}
	for (unsigned i = 0; i < 7; i++) {
		assert_int_equal(GPA_GetUsageTypeAsStr((GPA_Usage_Type)i, &s), GPA_STATUS_OK);
		assert_string_equal(s, usages[i]);
	}
	TU_NO_ERROR();
	/* Range before NULL, and no context needed. */
	assert_int_equal(GPA_GetDataTypeAsStr(GPA_TYPE__LAST, NULL), GPA_STATUS_ERROR_NOT_FOUND);
	TU_ONE_ERROR();
	assert_int_equal(GPA_GetDataTypeAsStr(GPA_TYPE_UINT64, NULL), GPA_STATUS_ERROR_NULL_POINTER);
	TU_ONE_ERROR();
	assert_int_equal(GPA_GetUsageTypeAsStr(GPA_USAGE_TYPE__LAST, NULL),
	                 GPA_STATUS_ERROR_NOT_FOUND);
	TU_ONE_ERROR();
	assert_int_equal(GPA_GetUsageTypeAsStr((GPA_Usage_Type)1000, &s), GPA_STATUS_ERROR_NOT_FOUND);
	TU_ONE_ERROR();
	assert_int_equal(GPA_GetUsageTypeAsStr(GPA_USAGE_TYPE_BYTES, NULL),
	                 GPA_STATUS_ERROR_NULL_POINTER);
	TU_ONE_ERROR();
}

/* ---- nothing open ------------------------------------------------------- */

static void test_no_context(void **state)
{
	(void)state;
	gpa_uint32 u = 0;
	const char *s = NULL;
	GPA_Type t;
	GPA_Usage_Type ut;
	bool ready = false;
	gpa_uint64 u64;
	gpa_float64 f64;
	gpa_float32 f32;

	assert_int_equal(GPA_Initialize(), GPA_STATUS_OK);
	assert_int_equal(GPA_Destroy(), GPA_STATUS_OK);
	TU_NO_ERROR();

#define NOT_OPEN(call) \
	do { \
		assert_int_equal((call), GPA_STATUS_ERROR_COUNTERS_NOT_OPEN); \
		TU_ONE_ERROR(); \
	} while (0)
#define NOT_OPEN_AS(call, message) \
	do { \
		assert_int_equal((call), GPA_STATUS_ERROR_COUNTERS_NOT_OPEN); \
		assert_true(tu_log_has(message)); \
		TU_ONE_ERROR(); \
	} while (0)
	NOT_OPEN(GPA_CloseContext());
	NOT_OPEN(GPA_SelectContext(&key_a));
	NOT_OPEN(GPA_GetNumCounters(&u));
	NOT_OPEN(GPA_GetNumCounters(NULL));
	/* Context before index before pointer. */
	NOT_OPEN(GPA_GetCounterName(12345, NULL));
	NOT_OPEN(GPA_GetCounterDescription(12345, NULL));
	NOT_OPEN(GPA_GetCounterDataType(12345, NULL));
	NOT_OPEN(GPA_GetCounterUsageType(12345, NULL));
	NOT_OPEN(GPA_GetCounterName(0, &s));
	NOT_OPEN(GPA_GetCounterDescription(0, &s));
	NOT_OPEN(GPA_GetCounterDataType(0, &t));
	NOT_OPEN(GPA_GetCounterUsageType(0, &ut));
	NOT_OPEN(GPA_EnableCounter(0));
	NOT_OPEN(GPA_EnableCounter(12345));
	NOT_OPEN(GPA_DisableCounter(0));
	NOT_OPEN(GPA_GetEnabledCount(&u));
	NOT_OPEN(GPA_GetEnabledCount(NULL));
	NOT_OPEN(GPA_GetEnabledIndex(0, &u));
	NOT_OPEN(GPA_GetEnabledIndex(99, NULL));
	NOT_OPEN(GPA_IsCounterEnabled(0));
	NOT_OPEN(GPA_EnableCounterStr("C0"));
	NOT_OPEN(GPA_DisableCounterStr("C0"));
	NOT_OPEN(GPA_EnableAllCounters());
	NOT_OPEN(GPA_DisableAllCounters());
	NOT_OPEN(GPA_GetCounterIndex("C0", &u));
	NOT_OPEN(GPA_GetPassCount(&u));
	NOT_OPEN(GPA_BeginSession(&u));
	NOT_OPEN(GPA_BeginSession(NULL));
	NOT_OPEN(GPA_EndSession());
	NOT_OPEN(GPA_BeginPass());
	NOT_OPEN(GPA_EndPass());
	NOT_OPEN(GPA_BeginSample(0));
	NOT_OPEN(GPA_EndSample());
	NOT_OPEN(GPA_GetSampleCount(1, &u));
	NOT_OPEN(GPA_IsSampleReady(&ready, 1, 0));
	NOT_OPEN(GPA_IsSessionReady(&ready, 1));
	/* Not among 2.x's pointer-first exceptions: context first. */
	NOT_OPEN(GPA_IsSampleReady(NULL, 1, 0));
	NOT_OPEN(GPA_IsSessionReady(NULL, 1));
	NOT_OPEN(GPA_GetSampleUInt64(1, 0, 0, &u64));
	NOT_OPEN(GPA_GetSampleUInt32(1, 0, 0, &u));
	NOT_OPEN(GPA_GetSampleFloat64(1, 0, 0, &f64));
	NOT_OPEN(GPA_GetSampleFloat32(1, 0, 0, &f32));
	NOT_OPEN(GPA_GetDeviceID(&u));
	NOT_OPEN(GPA_GetDeviceDesc(&s));
	NOT_OPEN(OpenGPA_GetBackend(&s));
	NOT_OPEN(OpenGPA_SetBackendOption("k", "v"));
	NOT_OPEN(OpenGPA_SetSessionRingSize(8));
	/* The four share one helper: each refusal names its own entry point. */
	NOT_OPEN_AS(OpenGPA_GetCounterGroup(12345, NULL), "OpenGPA_GetCounterGroup: no context is open");
	NOT_OPEN_AS(OpenGPA_GetCounterText(0, &s), "OpenGPA_GetCounterText: no context is open");
	NOT_OPEN_AS(OpenGPA_GetCounterExpression(0, &s), "OpenGPA_GetCounterExpression: no context is open");
	NOT_OPEN_AS(OpenGPA_GetCounterAlias(0, &s), "OpenGPA_GetCounterAlias: no context is open");
	NOT_OPEN(OpenGPA_GetCounterHeadline(0, &u));
	NOT_OPEN(OpenGPA_GetCounterPass(12345, NULL));
#undef NOT_OPEN

	/* These check their pointers before the context. */
#define NULL_PTR(call) \
	do { \
		assert_int_equal((call), GPA_STATUS_ERROR_NULL_POINTER); \
		TU_ONE_ERROR(); \
	} while (0)
	NULL_PTR(GPA_OpenContext(NULL));
	NULL_PTR(GPA_SelectContext(NULL));
	NULL_PTR(GPA_GetCounterIndex(NULL, &u));
	NULL_PTR(GPA_EnableCounterStr(NULL));
	NULL_PTR(GPA_DisableCounterStr(NULL));
	NULL_PTR(GPA_GetCounterIndex("C0", NULL));
	NULL_PTR(GPA_GetPassCount(NULL));
	NULL_PTR(GPA_GetSampleUInt64(1, 0, 12345, NULL));
	NULL_PTR(GPA_GetSampleUInt32(1, 0, 12345, NULL));
	NULL_PTR(GPA_GetSampleFloat64(1, 0, 12345, NULL));
	NULL_PTR(GPA_GetSampleFloat32(1, 0, 12345, NULL));
	NULL_PTR(GPA_GetSampleCount(1, NULL));
	NULL_PTR(OpenGPA_GetBackend(NULL));
	NULL_PTR(OpenGPA_SetBackendOption(NULL, "v"));
	NULL_PTR(OpenGPA_AddCounterFile(NULL));
	NULL_PTR(GPA_RegisterLoggingCallback(GPA_LOGGING_ERROR, NULL));
#undef NULL_PTR
}

/* ---- contexts -------------------------------------------------------- */

static void test_open_close(void **state)
{
	(void)state;
	assert_int_equal(GPA_OpenContext(&key_a), GPA_STATUS_OK);
	assert_true(tu_log_has("opened a context on " FAKE_DESCRIPTION));
	TU_NO_ERROR();
	assert_int_equal(GPA_OpenContext(&key_a), GPA_STATUS_ERROR_COUNTERS_ALREADY_OPEN);
	TU_ONE_ERROR();
	assert_int_equal(GPA_SelectContext(&key_b), GPA_STATUS_ERROR_COUNTERS_NOT_OPEN);
	TU_ONE_ERROR();
	assert_int_equal(GPA_SelectContext(&key_a), GPA_STATUS_OK);

	gpa_uint32 id = 0;
	const char *desc = NULL;
	assert_int_equal(GPA_GetDeviceID(&id), GPA_STATUS_OK);
	assert_int_equal(id, FAKE_DEVICE_ID);
	assert_int_equal(GPA_GetDeviceDesc(&desc), GPA_STATUS_OK);
	assert_string_equal(desc, FAKE_DESCRIPTION);
	const char *backend = NULL;
	assert_int_equal(OpenGPA_GetBackend(&backend), GPA_STATUS_OK);
	assert_string_equal(backend, "test");
	TU_NO_ERROR();
	assert_int_equal(GPA_GetDeviceID(NULL), GPA_STATUS_ERROR_NULL_POINTER);
	TU_ONE_ERROR();
	assert_int_equal(GPA_GetDeviceDesc(NULL), GPA_STATUS_ERROR_NULL_POINTER);
	TU_ONE_ERROR();

	assert_int_equal(GPA_CloseContext(), GPA_STATUS_OK);
	assert_int_equal(fake_stats.closes, 1);
	assert_int_equal(GPA_CloseContext(), GPA_STATUS_ERROR_COUNTERS_NOT_OPEN);
	TU_ONE_ERROR();
	/* Reopening the same key works once it is closed.  GPA_Destroy closes
	 * nothing (GPA 2.x's GL and CL do nothing there). */
	assert_int_equal(GPA_OpenContext(&key_a), GPA_STATUS_OK);
	assert_int_equal(GPA_Destroy(), GPA_STATUS_OK);
	assert_int_equal(GPA_GetNumCounters(&id), GPA_STATUS_OK);
	TU_NO_ERROR();
}

static void expect_current_device(gpa_uint32 n_enabled)
{
	gpa_uint32 u = 99;
	assert_int_equal(GPA_GetEnabledCount(&u), GPA_STATUS_OK);
	assert_int_equal(u, n_enabled);
}

static void test_several_contexts(void **state)
{
	(void)state;
	/* Each context remembers its own enable set: enable k counters on the k-th. */
	assert_int_equal(GPA_OpenContext(&key_a), GPA_STATUS_OK);
	assert_int_equal(GPA_EnableCounter(0), GPA_STATUS_OK);
	assert_int_equal(GPA_OpenContext(&key_b), GPA_STATUS_OK);
	expect_current_device(0); /* the new context is current */
	assert_int_equal(GPA_EnableCounter(0), GPA_STATUS_OK);
	assert_int_equal(GPA_EnableCounter(1), GPA_STATUS_OK);
	assert_int_equal(GPA_OpenContext(&key_c), GPA_STATUS_OK);
	for (int i = 0; i < 3; i++)
		assert_int_equal(GPA_EnableCounter((gpa_uint32)i), GPA_STATUS_OK);

	assert_int_equal(GPA_SelectContext(&key_a), GPA_STATUS_OK);
	expect_current_device(1);
	assert_int_equal(GPA_SelectContext(&key_c), GPA_STATUS_OK);
	expect_current_device(3);
	assert_int_equal(GPA_SelectContext(&key_b), GPA_STATUS_OK);
	expect_current_device(2);

	/* Closing the current context makes the first remaining one current:
	 * the first opened, as GPA 2.x keeps its list in open order. */
	assert_int_equal(GPA_CloseContext(), GPA_STATUS_OK);
	expect_current_device(1);
	assert_int_equal(GPA_SelectContext(&key_b), GPA_STATUS_ERROR_COUNTERS_NOT_OPEN);
	TU_ONE_ERROR();
	assert_int_equal(GPA_CloseContext(), GPA_STATUS_OK);
	expect_current_device(3);
	assert_int_equal(GPA_CloseContext(), GPA_STATUS_OK);
	gpa_uint32 u;
	assert_int_equal(GPA_GetEnabledCount(&u), GPA_STATUS_ERROR_COUNTERS_NOT_OPEN);
	TU_ONE_ERROR();
}

static void test_open_fails(void **state)
{
	(void)state;
	fake_config.fail_open = true;
	assert_int_equal(GPA_OpenContext(&key_a), GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED);
	assert_true(tu_log.errors >= 1);
	assert_true(tu_log_has("fake: no fake device"));
	tu_log_clear();
	gpa_uint32 u;
	assert_int_equal(GPA_GetNumCounters(&u), GPA_STATUS_ERROR_COUNTERS_NOT_OPEN);
	fake_config.fail_open = false;
	tu_log_clear();
	/* A backend this build does not have. */
	assert_int_equal(OpenGPA_SetBackend("no-such-backend", NULL), GPA_STATUS_OK);
	assert_int_equal(GPA_OpenContext(&key_a), GPA_STATUS_ERROR_FAILED);
	TU_ONE_ERROR();
	/* An option the backend does not know. */
	assert_int_equal(OpenGPA_SetBackend("test", "bogus=1"), GPA_STATUS_OK);
	assert_int_equal(GPA_OpenContext(&key_a), GPA_STATUS_ERROR_FAILED);
	assert_true(tu_log_has("bogus"));
	tu_log_clear();
	assert_int_equal(OpenGPA_SetBackend("test", "flag"), GPA_STATUS_OK);
	assert_int_equal(GPA_OpenContext(&key_a), GPA_STATUS_OK);
	TU_NO_ERROR();
}

/* ---- counter queries ------------------------------------------------- */

static void test_counter_queries(void **state)
{
	(void)state;
	assert_int_equal(GPA_OpenContext(&key_a), GPA_STATUS_OK);
	tu_log_clear();
	gpa_uint32 n = 0;
	assert_int_equal(GPA_GetNumCounters(&n), GPA_STATUS_OK);
	assert_int_equal(n, FC_COUNT);
	assert_int_equal(GPA_GetNumCounters(NULL), GPA_STATUS_ERROR_NULL_POINTER);
	TU_ONE_ERROR();

	const char *s = NULL;
	GPA_Type t;
	GPA_Usage_Type u;
	assert_int_equal(GPA_GetCounterName(FC_SUM01, &s), GPA_STATUS_OK);
	assert_string_equal(s, "Sum01");
	assert_int_equal(GPA_GetCounterDescription(FC_SUM01, &s), GPA_STATUS_OK);
	assert_string_equal(s, "#Fake#Counter Sum01.");
	assert_int_equal(GPA_GetCounterDataType(FC_HALF, &t), GPA_STATUS_OK);
	assert_int_equal(t, GPA_TYPE_FLOAT32);
	assert_int_equal(GPA_GetCounterUsageType(FC_HALF, &u), GPA_STATUS_OK);
	assert_int_equal(u, GPA_USAGE_TYPE_PERCENTAGE);
	assert_int_equal(GPA_GetCounterDataType(FC_SMALL, &t), GPA_STATUS_OK);
	assert_int_equal(t, GPA_TYPE_UINT32);
	assert_int_equal(OpenGPA_GetCounterGroup(FC_SUM01, &s), GPA_STATUS_OK);
	assert_string_equal(s, "Fake");
	assert_int_equal(OpenGPA_GetCounterText(FC_SUM01, &s), GPA_STATUS_OK);
	assert_string_equal(s, "Counter Sum01.");
	assert_int_equal(OpenGPA_GetCounterExpression(FC_SUM01, &s), GPA_STATUS_OK);
	assert_string_equal(s, "$R0 + $R1");
	assert_int_equal(OpenGPA_GetCounterAlias(FC_SUM01, &s), GPA_STATUS_OK);
	assert_string_equal(s, "FakeSum01 AddedUp");
	assert_int_equal(OpenGPA_GetCounterAlias(FC_XSUM, &s), GPA_STATUS_OK);
	assert_string_equal(s, "");
	gpa_uint32 headline = 7;
	assert_int_equal(OpenGPA_GetCounterHeadline(FC_SUM01, &headline), GPA_STATUS_OK);
	assert_int_equal(headline, 1);
	assert_int_equal(OpenGPA_GetCounterHeadline(FC_XSUM, &headline), GPA_STATUS_OK);
	assert_int_equal(headline, 0);
	assert_int_equal(OpenGPA_GetCounterHeadline(FC_XSUM, NULL), GPA_STATUS_ERROR_NULL_POINTER);
	TU_ONE_ERROR();
	TU_NO_ERROR();

	/* Index before pointer. */
	STATUS1(GPA_GetCounterName(n, NULL), GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE);
	STATUS1(GPA_GetCounterDescription(n, NULL), GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE);
	STATUS1(GPA_GetCounterDataType(n, NULL), GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE);
	STATUS1(GPA_GetCounterUsageType(UINT32_MAX, NULL), GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE);
	STATUS1(OpenGPA_GetCounterGroup(n, NULL), GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE);
	STATUS1(OpenGPA_GetCounterText(n, NULL), GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE);
	STATUS1(OpenGPA_GetCounterExpression(n, NULL), GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE);
	STATUS1(OpenGPA_GetCounterAlias(n, NULL), GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE);
	STATUS1(OpenGPA_GetCounterPass(n, NULL), GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE);
	STATUS1(GPA_GetCounterName(0, NULL), GPA_STATUS_ERROR_NULL_POINTER);
	STATUS1(GPA_GetCounterDescription(0, NULL), GPA_STATUS_ERROR_NULL_POINTER);
	STATUS1(GPA_GetCounterDataType(0, NULL), GPA_STATUS_ERROR_NULL_POINTER);
	STATUS1(GPA_GetCounterUsageType(0, NULL), GPA_STATUS_ERROR_NULL_POINTER);
	STATUS1(OpenGPA_GetCounterGroup(0, NULL), GPA_STATUS_ERROR_NULL_POINTER);
	STATUS1(OpenGPA_GetCounterText(0, NULL), GPA_STATUS_ERROR_NULL_POINTER);
	STATUS1(OpenGPA_GetCounterExpression(0, NULL), GPA_STATUS_ERROR_NULL_POINTER);
	STATUS1(OpenGPA_GetCounterAlias(0, NULL), GPA_STATUS_ERROR_NULL_POINTER);
	STATUS1(OpenGPA_GetCounterPass(0, NULL), GPA_STATUS_ERROR_NULL_POINTER);

	/* Names match ignoring case; the first match wins. */
	gpa_uint32 index = 99;
	assert_int_equal(GPA_GetCounterIndex("sum01", &index), GPA_STATUS_OK);
	assert_int_equal(index, FC_SUM01);
	assert_int_equal(GPA_GetCounterIndex("SUM13", &index), GPA_STATUS_OK);
	assert_int_equal(index, FC_SUM13);
	assert_int_equal(GPA_GetCounterIndex("nEsTeD", &index), GPA_STATUS_OK);
	assert_int_equal(index, FC_NESTED);
	/* An alias finds its counter, which keeps its own name. */
	assert_int_equal(GPA_GetCounterIndex("addedup", &index), GPA_STATUS_OK);
	assert_int_equal(index, FC_SUM01);
	assert_int_equal(GPA_GetCounterIndex("FAKESUM01", &index), GPA_STATUS_OK);
	assert_int_equal(index, FC_SUM01);
	assert_int_equal(GPA_GetCounterName(index, &s), GPA_STATUS_OK);
	assert_string_equal(s, "Sum01");
	TU_NO_ERROR();
	STATUS1(GPA_GetCounterIndex("NoSuchCounter", &index), GPA_STATUS_ERROR_NOT_FOUND);
	/* Raw counters and unavailable counters are not public counters. */
	STATUS1(GPA_GetCounterIndex("R0", &index), GPA_STATUS_ERROR_NOT_FOUND);
	STATUS1(GPA_GetCounterIndex("NeedsGone", &index), GPA_STATUS_ERROR_NOT_FOUND);
	STATUS1(GPA_GetCounterIndex("NeedsUnknown", &index), GPA_STATUS_ERROR_NOT_FOUND);
	STATUS1(GPA_GetCounterIndex("", &index), GPA_STATUS_ERROR_NOT_FOUND);
}

/* ---- enabling ------------------------------------------------------- */

static void test_enable_order(void **state)
{
	(void)state;
	assert_int_equal(GPA_OpenContext(&key_a), GPA_STATUS_OK);
	tu_log_clear();
	gpa_uint32 n = 0, idx = 0;
	/* IsCounterEnabled says "no" with NOT_FOUND and logs it as a message,
	 * not as an error, as GPA does. */
	assert_int_equal(GPA_IsCounterEnabled(FC_C3), GPA_STATUS_ERROR_NOT_FOUND);
	assert_int_equal(tu_log.messages, 1);
	TU_NO_ERROR();
	STATUS1(GPA_IsCounterEnabled(FC_COUNT), GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE);
	STATUS1(GPA_GetEnabledIndex(0, &idx), GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE);
	STATUS1(GPA_GetEnabledCount(NULL), GPA_STATUS_ERROR_NULL_POINTER);

	assert_int_equal(GPA_EnableCounter(FC_C3), GPA_STATUS_OK);
	assert_int_equal(GPA_EnableCounterStr("sum01"), GPA_STATUS_OK);
	assert_int_equal(GPA_EnableCounter(FC_C0), GPA_STATUS_OK);
	TU_NO_ERROR();
	STATUS1(GPA_EnableCounter(FC_C3), GPA_STATUS_ERROR_ALREADY_ENABLED);
	STATUS1(GPA_EnableCounterStr("SUM01"), GPA_STATUS_ERROR_ALREADY_ENABLED);
	STATUS1(GPA_EnableCounter(FC_COUNT), GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE);
	STATUS1(GPA_DisableCounter(FC_COUNT), GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE);
	STATUS1(GPA_EnableCounterStr("nope"), GPA_STATUS_ERROR_NOT_FOUND);
	STATUS1(GPA_DisableCounterStr("nope"), GPA_STATUS_ERROR_NOT_FOUND);
	STATUS1(GPA_EnableCounterStr(NULL), GPA_STATUS_ERROR_NULL_POINTER);
	STATUS1(GPA_DisableCounterStr(NULL), GPA_STATUS_ERROR_NULL_POINTER);
	STATUS1(GPA_DisableCounter(FC_C1), GPA_STATUS_ERROR_NOT_ENABLED);
	STATUS1(GPA_DisableCounterStr("c1"), GPA_STATUS_ERROR_NOT_ENABLED);

	/* The enabled list keeps the order of the enable calls. */
	assert_int_equal(GPA_GetEnabledCount(&n), GPA_STATUS_OK);
	assert_int_equal(n, 3);
	const gpa_uint32 order[] = { FC_C3, FC_SUM01, FC_C0 };
	for (gpa_uint32 i = 0; i < 3; i++) {
		assert_int_equal(GPA_GetEnabledIndex(i, &idx), GPA_STATUS_OK);
		assert_int_equal(idx, order[i]);
		assert_int_equal(GPA_IsCounterEnabled(order[i]), GPA_STATUS_OK);
	}
	STATUS1(GPA_GetEnabledIndex(3, &idx), GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE);
	/* Pointer before range. */
	STATUS1(GPA_GetEnabledIndex(3, NULL), GPA_STATUS_ERROR_NULL_POINTER);
	STATUS1(GPA_GetEnabledIndex(0, NULL), GPA_STATUS_ERROR_NULL_POINTER);

	/* Disabling keeps the others' order. */
	assert_int_equal(GPA_DisableCounterStr("SUM01"), GPA_STATUS_OK);
	assert_int_equal(GPA_GetEnabledIndex(1, &idx), GPA_STATUS_OK);
	assert_int_equal(idx, FC_C0);
	assert_int_equal(GPA_IsCounterEnabled(FC_SUM01), GPA_STATUS_ERROR_NOT_FOUND);
	TU_NO_ERROR();
	assert_int_equal(GPA_EnableCounter(FC_SUM01), GPA_STATUS_OK);
	assert_int_equal(GPA_GetEnabledIndex(2, &idx), GPA_STATUS_OK);
	assert_int_equal(idx, FC_SUM01);

	/* EnableAllCounters: disable all, then 0..N-1 in order. */
	assert_int_equal(GPA_EnableAllCounters(), GPA_STATUS_OK);
	TU_NO_ERROR(); /* already-enabled counters are not an error here */
	assert_int_equal(GPA_GetEnabledCount(&n), GPA_STATUS_OK);
	assert_int_equal(n, FC_COUNT);
	for (gpa_uint32 i = 0; i < FC_COUNT; i++) {
		assert_int_equal(GPA_GetEnabledIndex(i, &idx), GPA_STATUS_OK);
		assert_int_equal(idx, i);
	}
	assert_int_equal(GPA_DisableAllCounters(), GPA_STATUS_OK);
	assert_int_equal(GPA_GetEnabledCount(&n), GPA_STATUS_OK);
	assert_int_equal(n, 0);
	assert_int_equal(GPA_DisableAllCounters(), GPA_STATUS_OK);
	TU_NO_ERROR();

	/* Nothing enabled: no passes, no session. */
	gpa_uint32 passes = 9, session = 0;
	assert_int_equal(GPA_GetPassCount(&passes), GPA_STATUS_OK);
	assert_int_equal(passes, 0);
	STATUS1(GPA_BeginSession(&session), GPA_STATUS_ERROR_NO_COUNTERS_ENABLED);
	STATUS1(OpenGPA_GetCounterPass(FC_C0, &passes), GPA_STATUS_ERROR_NOT_ENABLED);
}

/* ---- logging ------------------------------------------------------------- */

static int reentrant_calls;

static void reentrant_callback(GPA_Logging_Type type, const char *msg)
{
	tu_log_callback(type, msg);
	/* Calling back into the API from the callback must not deadlock. */
	gpa_uint32 n;
	if (reentrant_calls++ < 4)
		GPA_GetNumCounters(&n);
}

static void test_logging(void **state)
{
	(void)state;
	tu_log_clear();
	assert_int_equal(GPA_RegisterLoggingCallback(GPA_LOGGING_MESSAGE, tu_log_callback),
	                 GPA_STATUS_OK);
	assert_int_equal(tu_log.count, 1);
	assert_string_equal(tu_log.text[0], "Logging callback registered successfully.");
	assert_int_equal(tu_log.type[0], GPA_LOGGING_MESSAGE);
	tu_log_clear();
	/* Errors are not in the mask: nothing arrives. */
	gpa_uint32 n;
	assert_int_equal(GPA_GetNumCounters(&n), GPA_STATUS_ERROR_COUNTERS_NOT_OPEN);
	assert_int_equal(tu_log.count, 0);
	/* NONE stops logging; NULL with a mask is refused. */
	assert_int_equal(GPA_RegisterLoggingCallback(GPA_LOGGING_NONE, NULL), GPA_STATUS_OK);
	assert_int_equal(GPA_GetNumCounters(&n), GPA_STATUS_ERROR_COUNTERS_NOT_OPEN);
	assert_int_equal(tu_log.count, 0);
	assert_int_equal(GPA_RegisterLoggingCallback(GPA_LOGGING_ERROR, NULL),
	                 GPA_STATUS_ERROR_NULL_POINTER);

	/* Errors only: registration itself is a message, so it is not delivered. */
	assert_int_equal(GPA_RegisterLoggingCallback(GPA_LOGGING_ERROR, reentrant_callback),
	                 GPA_STATUS_OK);
	assert_int_equal(tu_log.count, 0);
	reentrant_calls = 0;
	assert_int_equal(GPA_GetNumCounters(&n), GPA_STATUS_ERROR_COUNTERS_NOT_OPEN);
	/* One error per call, and the callback's own calls log theirs. */
	assert_int_equal(tu_log.errors, 5);
	assert_int_equal(tu_log.newline, 0);
	assert_true(strstr(tu_log.text[0], "GPA_GetNumCounters") != NULL);
	assert_true(strstr(tu_log.text[0], "GPA_OpenContext") != NULL); /* names the fix */

	/* Trace mode: entry points are traced as messages of type TRACE. */
	tu_log_clear();
	assert_int_equal(GPA_RegisterLoggingCallback(GPA_LOGGING_TRACE, tu_log_callback),
	                 GPA_STATUS_OK);
	assert_int_equal(GPA_Initialize(), GPA_STATUS_OK);
	assert_true(tu_log_has("GPA_Initialize"));
	assert_int_equal(tu_log.errors, 0);
}

/* ---- extensions without a session ---------------------------------------- */

static void test_extensions(void **state)
{
	(void)state;
	assert_int_equal(GPA_OpenContext(&key_a), GPA_STATUS_OK);
	tu_log_clear();
	/* The fake has no run-time options. */
	STATUS1(OpenGPA_SetBackendOption("pid", "1"), GPA_STATUS_ERROR_NOT_FOUND);
	STATUS1(OpenGPA_SetBackendOption("pid", NULL), GPA_STATUS_ERROR_NULL_POINTER);
	STATUS1(OpenGPA_SetSessionRingSize(0), GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE);
	STATUS1(OpenGPA_SetSessionRingSize(4097), GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE);
	assert_int_equal(OpenGPA_SetSessionRingSize(1), GPA_STATUS_OK);
	assert_int_equal(OpenGPA_SetSessionRingSize(4096), GPA_STATUS_OK);
	assert_int_equal(OpenGPA_SetHardwareCounters(1), GPA_STATUS_OK);
	assert_int_equal(OpenGPA_SetHardwareCounters(0), GPA_STATUS_OK);
	assert_int_equal(OpenGPA_SetBackend(NULL, NULL), GPA_STATUS_OK);
	TU_NO_ERROR();

	/* GetCounterPass: pass of the counter's inputs in the current plan. */
	gpa_uint32 pass = 99;
	STATUS1(OpenGPA_GetCounterPass(FC_C0, &pass), GPA_STATUS_ERROR_NOT_ENABLED);
	assert_int_equal(GPA_EnableCounter(FC_C0), GPA_STATUS_OK);
	assert_int_equal(OpenGPA_GetCounterPass(FC_C0, &pass), GPA_STATUS_OK);
	assert_int_equal(pass, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		TU_TEST(test_status_strings),
		TU_TEST(test_type_strings),
		TU_TEST(test_no_context),
		TU_TEST(test_open_close),
		TU_TEST(test_several_contexts),
		TU_TEST(test_open_fails),
		TU_TEST(test_counter_queries),
		TU_TEST(test_enable_order),
		TU_TEST(test_logging),
		TU_TEST(test_extensions),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
