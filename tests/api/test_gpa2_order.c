/* SPDX-License-Identifier: MIT */
/*
 * test_gpa2_order.c — GPA 2.23.1's check order, one test per case.
 *
 * Each test is one arrow of one row of the per-entry-point table
 * (../shared/reference/gpa-abi.md §1.11, reproduced in docs/api.md): the
 * test's name starts with the row number, and sets up the state in which
 * that check is the first to fail, with the later checks' faults present
 * too wherever they can be, so a check done too early or too late shows.
 * Rows 35-38 (the four GetSample functions) are tested together, each case
 * for all four.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#define AMDT_INTERNAL 1
#include "GPUPerfAPI-Private.h"
#include "core/testing.h"
#include "fake_backend.h"
#include "test_util.h"

/* A call that fails with `want` and logs exactly one error. */
#define STATUS1(call, want) \
	do { \
		assert_int_equal((call), (want)); \
		TU_ONE_ERROR(); \
	} while (0)
#define OK(call) assert_int_equal((call), GPA_STATUS_OK)
#define NOT_OPEN(call) STATUS1(call, GPA_STATUS_ERROR_COUNTERS_NOT_OPEN)

static int key_a, key_b;
static const gpa_uint32 BAD_INDEX = FC_COUNT + 100;

static void open_a(void)
{
	OK(GPA_OpenContext(&key_a));
	tu_log_clear();
}

/* Context open, C0 enabled, session 1 open; returns its ID. */
static gpa_uint32 open_session(void)
{
	open_a();
	gpa_uint32 s = 0;
	OK(GPA_EnableCounter(FC_C0));
	OK(GPA_BeginSession(&s));
	return s;
}

/* Context open, C0, C1 and C2 enabled: two passes (C2 in the second). */
static void open_two_passes(void)
{
	open_a();
	OK(GPA_EnableCounter(FC_C0));
	OK(GPA_EnableCounter(FC_C1));
	OK(GPA_EnableCounter(FC_C2));
	assert_int_equal(tu_passes(), 2);
	assert_int_equal(tu_pass_of(FC_C2), 1);
}

/* open_two_passes, and session 1 recorded with samples 0 and 1 in both. */
static gpa_uint32 recorded_session(void)
{
	open_two_passes();
	const unsigned ids[] = { 0, 1 };
	gpa_uint32 s = tu_run_session(ids, 2);
	tu_log_clear();
	return s;
}

/* ---- 1 RegisterLoggingCallback ------------------------------------------- */

static void t01_logging_null_callback(void **state)
{
	(void)state;
	assert_int_equal(GPA_RegisterLoggingCallback(GPA_LOGGING_ERROR, NULL),
	                 GPA_STATUS_ERROR_NULL_POINTER);
	tu_log_clear();
}

static void t01_logging_none_with_null_switches_off(void **state)
{
	(void)state;
	OK(GPA_RegisterLoggingCallback(GPA_LOGGING_NONE, NULL));
	assert_int_equal(GPA_CloseContext(), GPA_STATUS_ERROR_COUNTERS_NOT_OPEN);
	assert_int_equal(tu_log.count, 0);
}

static void t01_logging_installed_says_so(void **state)
{
	(void)state;
	OK(GPA_RegisterLoggingCallback(GPA_LOGGING_MESSAGE, tu_log_callback));
	assert_int_equal(tu_log.count, 1);
	assert_string_equal(tu_log.text[0], "Logging callback registered successfully.");
	assert_int_equal(tu_log.type[0], GPA_LOGGING_MESSAGE);
}

/* ---- 2 Initialize, 3 Destroy ----------------------------------------- */

static void t02_initialize_any_number_of_times(void **state)
{
	(void)state;
	for (int i = 0; i < 3; i++)
		OK(GPA_Initialize());
	open_a();
	OK(GPA_Initialize());
	gpa_uint32 n;
	OK(GPA_GetNumCounters(&n));
	TU_NO_ERROR();
}

static void t03_destroy_changes_nothing(void **state)
{
	(void)state;
	gpa_uint32 s = open_session(), n = 0;
	OK(GPA_Destroy());
	OK(GPA_Destroy());
	TU_NO_ERROR();
	/* The context is current, its session open, its counters enabled. */
	OK(GPA_GetEnabledCount(&n));
	assert_int_equal(n, 1);
	OK(GPA_BeginPass());
	OK(GPA_BeginSample(3));
	OK(GPA_EndSample());
	OK(GPA_EndPass());
	OK(GPA_EndSession());
	gpa_uint64 v;
	OK(GPA_GetSampleUInt64(s, 3, FC_C0, &v));
	assert_int_equal(fake_stats.closes, 0);
}

/* ---- 4 OpenContext ---------------------------------------------------- */

static void t04_open_null(void **state)
{
	(void)state;
	STATUS1(GPA_OpenContext(NULL), GPA_STATUS_ERROR_NULL_POINTER);
}

static void t04_open_already_open(void **state)
{
	(void)state;
	open_a();
	OK(GPA_OpenContext(&key_b));
	STATUS1(GPA_OpenContext(&key_a), GPA_STATUS_ERROR_COUNTERS_ALREADY_OPEN);
	/* Nothing changed: b is still current. */
	OK(GPA_EnableCounter(FC_C1));
	OK(GPA_SelectContext(&key_a));
	assert_int_equal(GPA_IsCounterEnabled(FC_C1), GPA_STATUS_ERROR_NOT_FOUND);
	tu_log_clear();
}

static void t04_open_backend_fails(void **state)
{
	(void)state;
	open_a();
	OK(GPA_EnableCounter(FC_C2));
	fake_config.fail_open = true;
	assert_int_equal(GPA_OpenContext(&key_b), GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED);
	assert_true(tu_log.errors >= 1);
	tu_log_clear();
	/* The previous context stays current. */
	OK(GPA_IsCounterEnabled(FC_C2));
	STATUS1(GPA_SelectContext(&key_b), GPA_STATUS_ERROR_COUNTERS_NOT_OPEN);
}

static void t04_open_ok_becomes_current(void **state)
{
	(void)state;
	open_a();
	OK(GPA_EnableCounter(FC_C2));
	OK(GPA_OpenContext(&key_b));
	gpa_uint32 n = 9;
	OK(GPA_GetEnabledCount(&n));
	assert_int_equal(n, 0);
}

/* ---- 5 CloseContext, 6 SelectContext ------------------------------------ */

static void t05_close_no_context(void **state)
{
	(void)state;
	NOT_OPEN(GPA_CloseContext());
}

static void t05_close_session_open(void **state)
{
	(void)state;
	open_session();
	STATUS1(GPA_CloseContext(), GPA_STATUS_ERROR_SAMPLING_NOT_ENDED);
}

static void t05_close_first_remaining_becomes_current(void **state)
{
	(void)state;
	open_a();
	OK(GPA_EnableCounter(FC_C3));
	OK(GPA_OpenContext(&key_b));
	OK(GPA_OpenContext(&(int){ 0 }));
	OK(GPA_CloseContext());
	assert_int_equal(fake_stats.closes, 1);
	OK(GPA_IsCounterEnabled(FC_C3)); /* a, the first opened */
}

static void t06_select_null(void **state)
{
	(void)state;
	STATUS1(GPA_SelectContext(NULL), GPA_STATUS_ERROR_NULL_POINTER);
}

static void t06_select_not_open(void **state)
{
	(void)state;
	open_a();
	STATUS1(GPA_SelectContext(&key_b), GPA_STATUS_ERROR_COUNTERS_NOT_OPEN);
}

static void t06_select_ok(void **state)
{
	(void)state;
	open_a();
	OK(GPA_EnableCounter(FC_C4));
	OK(GPA_OpenContext(&key_b));
	OK(GPA_SelectContext(&key_a));
	OK(GPA_IsCounterEnabled(FC_C4));
}

/* ---- 7 GetNumCounters, 8-11 counter queries ------------------------------ */

static void t07_num_counters_no_context(void **state)
{
	(void)state;
	NOT_OPEN(GPA_GetNumCounters(NULL));
}

static void t07_num_counters_null(void **state)
{
	(void)state;
	open_a();
	STATUS1(GPA_GetNumCounters(NULL), GPA_STATUS_ERROR_NULL_POINTER);
}

static void t07_num_counters_ok(void **state)
{
	(void)state;
	open_a();
	gpa_uint32 n = 0;
	OK(GPA_GetNumCounters(&n));
	assert_int_equal(n, FC_COUNT);
}

static void t08_11_queries_no_context(void **state)
{
	(void)state;
	NOT_OPEN(GPA_GetCounterName(BAD_INDEX, NULL));
	NOT_OPEN(GPA_GetCounterDescription(BAD_INDEX, NULL));
	NOT_OPEN(GPA_GetCounterDataType(BAD_INDEX, NULL));
	NOT_OPEN(GPA_GetCounterUsageType(BAD_INDEX, NULL));
}

static void t08_11_queries_index(void **state)
{
	(void)state;
	open_a();
	const GPA_Status want = GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE;
	STATUS1(GPA_GetCounterName(FC_COUNT, NULL), want);
	STATUS1(GPA_GetCounterDescription(FC_COUNT, NULL), want);
	STATUS1(GPA_GetCounterDataType(FC_COUNT, NULL), want);
	STATUS1(GPA_GetCounterUsageType(FC_COUNT, NULL), want);
}

static void t08_11_queries_null(void **state)
{
	(void)state;
	open_a();
	const GPA_Status want = GPA_STATUS_ERROR_NULL_POINTER;
	STATUS1(GPA_GetCounterName(0, NULL), want);
	STATUS1(GPA_GetCounterDescription(0, NULL), want);
	STATUS1(GPA_GetCounterDataType(0, NULL), want);
	STATUS1(GPA_GetCounterUsageType(0, NULL), want);
}

static void t08_11_queries_ok(void **state)
{
	(void)state;
	open_a();
	const char *name = NULL, *desc = NULL;
	GPA_Type type;
	GPA_Usage_Type usage;
	OK(GPA_GetCounterName(FC_HALF, &name));
	OK(GPA_GetCounterDescription(FC_HALF, &desc));
	OK(GPA_GetCounterDataType(FC_HALF, &type));
	OK(GPA_GetCounterUsageType(FC_HALF, &usage));
	assert_string_equal(name, "Half");
	assert_int_equal(desc[0], '#'); /* "#Group#description", the 2.x form */
	assert_int_equal(type, GPA_TYPE_FLOAT32);
	TU_NO_ERROR();
}

/* ---- 12, 13 *AsStr, 14 GetStatusAsStr ------------------------------------- */

static void t12_data_type_str_range(void **state)
{
	(void)state;
	STATUS1(GPA_GetDataTypeAsStr(GPA_TYPE__LAST, NULL), GPA_STATUS_ERROR_NOT_FOUND);
}

static void t12_data_type_str_null(void **state)
{
	(void)state;
	STATUS1(GPA_GetDataTypeAsStr(GPA_TYPE_INT64, NULL), GPA_STATUS_ERROR_NULL_POINTER);
}

static void t12_data_type_str_ok_without_context(void **state)
{
	(void)state;
	const char *s = NULL;
	OK(GPA_GetDataTypeAsStr(GPA_TYPE_UINT32, &s));
	assert_string_equal(s, "gpa_uint32");
}

static void t13_usage_type_str_range(void **state)
{
	(void)state;
	STATUS1(GPA_GetUsageTypeAsStr(GPA_USAGE_TYPE__LAST, NULL), GPA_STATUS_ERROR_NOT_FOUND);
}

static void t13_usage_type_str_null(void **state)
{
	(void)state;
	STATUS1(GPA_GetUsageTypeAsStr(GPA_USAGE_TYPE_KILOBYTES, NULL), GPA_STATUS_ERROR_NULL_POINTER);
}

static void t13_usage_type_str_ok_without_context(void **state)
{
	(void)state;
	const char *s = NULL;
	OK(GPA_GetUsageTypeAsStr(GPA_USAGE_TYPE_KILOBYTES, &s));
	assert_string_equal(s, "kilobytes");
}

static void t14_status_str_never_null(void **state)
{
	(void)state;
	assert_string_equal(GPA_GetStatusAsStr(GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED),
	                    "Driver Not Supported");
	assert_string_equal(GPA_GetStatusAsStr((GPA_Status)29), "Unknown error");
	assert_string_equal(GPA_GetStatusAsStr((GPA_Status)-5), "Unknown error");
	assert_int_equal(tu_log.count, 0);
}

/* ---- 15 EnableCounter, 16 DisableCounter --------------------------------- */

static void t15_enable_no_context(void **state)
{
	(void)state;
	NOT_OPEN(GPA_EnableCounter(BAD_INDEX));
}

static void t15_enable_index_before_session(void **state)
{
	(void)state;
	open_session();
	STATUS1(GPA_EnableCounter(BAD_INDEX), GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE);
}

static void t15_enable_session_before_state(void **state)
{
	(void)state;
	open_session();
	STATUS1(GPA_EnableCounter(FC_C0), GPA_STATUS_ERROR_CANNOT_CHANGE_COUNTERS_WHEN_SAMPLING);
}

static void t15_enable_already(void **state)
{
	(void)state;
	open_a();
	OK(GPA_EnableCounter(FC_C1));
	STATUS1(GPA_EnableCounter(FC_C1), GPA_STATUS_ERROR_ALREADY_ENABLED);
}

static void t15_enable_ok_appends(void **state)
{
	(void)state;
	open_a();
	OK(GPA_EnableCounter(FC_C3));
	OK(GPA_EnableCounter(FC_C1));
	gpa_uint32 i = 99;
	OK(GPA_GetEnabledIndex(1, &i));
	assert_int_equal(i, FC_C1);
}

static void t16_disable_no_context(void **state)
{
	(void)state;
	NOT_OPEN(GPA_DisableCounter(BAD_INDEX));
}

static void t16_disable_index_before_session(void **state)
{
	(void)state;
	open_session();
	STATUS1(GPA_DisableCounter(BAD_INDEX), GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE);
}

static void t16_disable_session_before_state(void **state)
{
	(void)state;
	open_session();
	STATUS1(GPA_DisableCounter(FC_C5), GPA_STATUS_ERROR_CANNOT_CHANGE_COUNTERS_WHEN_SAMPLING);
}

static void t16_disable_not_enabled(void **state)
{
	(void)state;
	open_a();
	STATUS1(GPA_DisableCounter(FC_C5), GPA_STATUS_ERROR_NOT_ENABLED);
}

static void t16_disable_ok(void **state)
{
	(void)state;
	open_a();
	OK(GPA_EnableCounter(FC_C5));
	OK(GPA_DisableCounter(FC_C5));
	assert_int_equal(GPA_IsCounterEnabled(FC_C5), GPA_STATUS_ERROR_NOT_FOUND);
	tu_log_clear();
}

/* ---- 17 GetEnabledCount, 18 GetEnabledIndex, 19 IsCounterEnabled --------- */

static void t17_enabled_count_no_context(void **state)
{
	(void)state;
	NOT_OPEN(GPA_GetEnabledCount(NULL));
}

static void t17_enabled_count_null(void **state)
{
	(void)state;
	open_a();
	STATUS1(GPA_GetEnabledCount(NULL), GPA_STATUS_ERROR_NULL_POINTER);
}

static void t17_enabled_count_ok(void **state)
{
	(void)state;
	open_a();
	OK(GPA_EnableCounter(FC_C2));
	gpa_uint32 n = 0;
	OK(GPA_GetEnabledCount(&n));
	assert_int_equal(n, 1);
}

static void t18_enabled_index_no_context(void **state)
{
	(void)state;
	NOT_OPEN(GPA_GetEnabledIndex(99, NULL));
}

static void t18_enabled_index_null_before_range(void **state)
{
	(void)state;
	open_a();
	STATUS1(GPA_GetEnabledIndex(99, NULL), GPA_STATUS_ERROR_NULL_POINTER);
}

static void t18_enabled_index_range(void **state)
{
	(void)state;
	open_a();
	OK(GPA_EnableCounter(FC_C2));
	gpa_uint32 i;
	STATUS1(GPA_GetEnabledIndex(1, &i), GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE);
}

static void t18_enabled_index_ok(void **state)
{
	(void)state;
	open_a();
	OK(GPA_EnableCounter(FC_C2));
	gpa_uint32 i = 99;
	OK(GPA_GetEnabledIndex(0, &i));
	assert_int_equal(i, FC_C2);
}

static void t19_is_enabled_no_context(void **state)
{
	(void)state;
	NOT_OPEN(GPA_IsCounterEnabled(BAD_INDEX));
}

static void t19_is_enabled_index(void **state)
{
	(void)state;
	open_a();
	STATUS1(GPA_IsCounterEnabled(BAD_INDEX), GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE);
}

static void t19_is_enabled_yes_during_session(void **state)
{
	(void)state;
	open_session();
	OK(GPA_IsCounterEnabled(FC_C0));
	assert_int_equal(tu_log.count, 0);
}

static void t19_is_enabled_no_is_a_message(void **state)
{
	(void)state;
	open_a();
	assert_int_equal(GPA_IsCounterEnabled(FC_C1), GPA_STATUS_ERROR_NOT_FOUND);
	assert_int_equal(tu_log.errors, 0);
	assert_int_equal(tu_log.messages, 1);
}

/* ---- 20 EnableCounterStr, 21 DisableCounterStr ---------------------------- */

static GPA_Status by_name(bool enable, const char *name)
{
	return enable ? GPA_EnableCounterStr(name) : GPA_DisableCounterStr(name);
}

static void t20_21_str_null_before_context(void **state)
{
	(void)state;
	for (int e = 0; e < 2; e++)
		STATUS1(by_name(e, NULL), GPA_STATUS_ERROR_NULL_POINTER);
}

static void t20_21_str_no_context(void **state)
{
	(void)state;
	for (int e = 0; e < 2; e++)
		NOT_OPEN(by_name(e, "nothing"));
}

static void t20_21_str_not_found_before_session(void **state)
{
	(void)state;
	open_session();
	for (int e = 0; e < 2; e++)
		STATUS1(by_name(e, "nothing"), GPA_STATUS_ERROR_NOT_FOUND);
}

static void t20_21_str_session_before_state(void **state)
{
	(void)state;
	open_session();
	STATUS1(by_name(true, "c0"), GPA_STATUS_ERROR_CANNOT_CHANGE_COUNTERS_WHEN_SAMPLING);
	STATUS1(by_name(false, "c5"), GPA_STATUS_ERROR_CANNOT_CHANGE_COUNTERS_WHEN_SAMPLING);
}

static void t20_str_already_enabled(void **state)
{
	(void)state;
	open_a();
	OK(GPA_EnableCounterStr("C1"));
	STATUS1(GPA_EnableCounterStr("c1"), GPA_STATUS_ERROR_ALREADY_ENABLED);
}

static void t21_str_not_enabled(void **state)
{
	(void)state;
	open_a();
	STATUS1(GPA_DisableCounterStr("c1"), GPA_STATUS_ERROR_NOT_ENABLED);
}

static void t20_21_str_ok_ignoring_case(void **state)
{
	(void)state;
	open_a();
	OK(GPA_EnableCounterStr("sUm01"));
	OK(GPA_IsCounterEnabled(FC_SUM01));
	OK(GPA_DisableCounterStr("SUM01"));
	TU_NO_ERROR();
}

/* ---- 22 EnableAllCounters, 23 DisableAllCounters --------------------------- */

static void t22_23_all_no_context(void **state)
{
	(void)state;
	NOT_OPEN(GPA_EnableAllCounters());
	NOT_OPEN(GPA_DisableAllCounters());
}

static void t22_23_all_session_open(void **state)
{
	(void)state;
	open_session();
	STATUS1(GPA_EnableAllCounters(), GPA_STATUS_ERROR_CANNOT_CHANGE_COUNTERS_WHEN_SAMPLING);
	STATUS1(GPA_DisableAllCounters(), GPA_STATUS_ERROR_CANNOT_CHANGE_COUNTERS_WHEN_SAMPLING);
}

static void t22_enable_all_ok_in_index_order(void **state)
{
	(void)state;
	open_a();
	OK(GPA_EnableCounter(FC_C5));
	OK(GPA_EnableAllCounters());
	TU_NO_ERROR();
	for (gpa_uint32 n = 0; n < FC_COUNT; n++) {
		gpa_uint32 i = 99;
		OK(GPA_GetEnabledIndex(n, &i));
		assert_int_equal(i, n);
	}
}

static void t23_disable_all_ok(void **state)
{
	(void)state;
	open_a();
	OK(GPA_EnableAllCounters());
	OK(GPA_DisableAllCounters());
	gpa_uint32 n = 9;
	OK(GPA_GetEnabledCount(&n));
	assert_int_equal(n, 0);
}

/* ---- 24 GetCounterIndex, 25 GetPassCount --------------------------------- */

static void t24_index_name_null_first(void **state)
{
	(void)state;
	STATUS1(GPA_GetCounterIndex(NULL, NULL), GPA_STATUS_ERROR_NULL_POINTER);
}

static void t24_index_out_null_before_context(void **state)
{
	(void)state;
	STATUS1(GPA_GetCounterIndex("nothing", NULL), GPA_STATUS_ERROR_NULL_POINTER);
}

static void t24_index_no_context(void **state)
{
	(void)state;
	gpa_uint32 i;
	NOT_OPEN(GPA_GetCounterIndex("nothing", &i));
}

static void t24_index_not_found(void **state)
{
	(void)state;
	open_a();
	gpa_uint32 i;
	STATUS1(GPA_GetCounterIndex("nothing", &i), GPA_STATUS_ERROR_NOT_FOUND);
}

static void t24_index_ok_ignoring_case(void **state)
{
	(void)state;
	open_a();
	gpa_uint32 i = 0;
	OK(GPA_GetCounterIndex("nested", &i));
	assert_int_equal(i, FC_NESTED);
}

static void t25_pass_count_null_before_context(void **state)
{
	(void)state;
	STATUS1(GPA_GetPassCount(NULL), GPA_STATUS_ERROR_NULL_POINTER);
}

static void t25_pass_count_no_context(void **state)
{
	(void)state;
	gpa_uint32 n;
	NOT_OPEN(GPA_GetPassCount(&n));
}

static void t25_pass_count_cannot_schedule(void **state)
{
	(void)state;
	open_a();
	fake_config.max_per_pass = 0; /* nothing fits anywhere */
	OK(GPA_EnableCounter(FC_C0));
	gpa_uint32 n;
	STATUS1(GPA_GetPassCount(&n), GPA_STATUS_ERROR_FAILED);
}

static void t25_pass_count_ok(void **state)
{
	(void)state;
	open_a();
	gpa_uint32 n = 9;
	OK(GPA_GetPassCount(&n));
	assert_int_equal(n, 0); /* nothing enabled */
	for (gpa_uint32 c = FC_C0; c <= FC_C5; c++)
		OK(GPA_EnableCounter(c));
	OK(GPA_GetPassCount(&n));
	assert_int_equal(n, 3);
}

/* ---- 26 BeginSession, 27 EndSession ------------------------------------- */

static void t26_begin_session_no_context(void **state)
{
	(void)state;
	NOT_OPEN(GPA_BeginSession(NULL));
}

static void t26_begin_session_null(void **state)
{
	(void)state;
	open_session();
	STATUS1(GPA_BeginSession(NULL), GPA_STATUS_ERROR_NULL_POINTER);
}

static void t26_begin_session_cannot_schedule(void **state)
{
	(void)state;
	open_a();
	fake_config.max_per_pass = 0;
	OK(GPA_EnableCounter(FC_C0));
	gpa_uint32 s;
	STATUS1(GPA_BeginSession(&s), GPA_STATUS_ERROR_FAILED);
}

static void t26_begin_session_nothing_enabled(void **state)
{
	(void)state;
	open_a();
	gpa_uint32 s;
	STATUS1(GPA_BeginSession(&s), GPA_STATUS_ERROR_NO_COUNTERS_ENABLED);
}

static void t26_begin_session_already(void **state)
{
	(void)state;
	open_session();
	gpa_uint32 s;
	STATUS1(GPA_BeginSession(&s), GPA_STATUS_ERROR_SAMPLING_ALREADY_STARTED);
}

static void t26_begin_session_ids_and_ring(void **state)
{
	(void)state;
	open_a();
	OK(GPA_EnableCounter(FC_C0));
	const unsigned id = 0;
	for (gpa_uint32 want = 1; want <= 5; want++)
		assert_int_equal(tu_run_session(&id, 1), want);
	/* The ring keeps the newest four: 1 was overwritten. */
	gpa_uint32 n;
	STATUS1(GPA_GetSampleCount(1, &n), GPA_STATUS_ERROR_SESSION_NOT_FOUND);
	OK(GPA_GetSampleCount(2, &n));
}

static void t27_end_session_no_context(void **state)
{
	(void)state;
	NOT_OPEN(GPA_EndSession());
}

static void t27_end_session_none(void **state)
{
	(void)state;
	open_a();
	STATUS1(GPA_EndSession(), GPA_STATUS_ERROR_SAMPLING_NOT_STARTED);
}

static void t27_end_session_pass_open(void **state)
{
	(void)state;
	open_session();
	OK(GPA_BeginPass());
	STATUS1(GPA_EndSession(), GPA_STATUS_ERROR_PASS_NOT_ENDED);
}

static void t27_end_session_not_enough_passes_ends_anyway(void **state)
{
	(void)state;
	open_two_passes();
	gpa_uint32 s;
	OK(GPA_BeginSession(&s));
	STATUS1(GPA_EndSession(), GPA_STATUS_ERROR_NOT_ENOUGH_PASSES);
	STATUS1(GPA_EndSession(), GPA_STATUS_ERROR_SAMPLING_NOT_STARTED);
	bool ready = false;
	OK(GPA_IsSessionReady(&ready, s));
	assert_true(ready);
}

static void t27_end_session_extra_passes_fine(void **state)
{
	(void)state;
	open_session();
	for (int p = 0; p < 3; p++) {
		OK(GPA_BeginPass());
		OK(GPA_EndPass());
	}
	OK(GPA_EndSession());
}

/* ---- 28 BeginPass, 29 EndPass -------------------------------------------- */

static void t28_begin_pass_no_context(void **state)
{
	(void)state;
	NOT_OPEN(GPA_BeginPass());
}

static void t28_begin_pass_no_session(void **state)
{
	(void)state;
	open_a();
	STATUS1(GPA_BeginPass(), GPA_STATUS_ERROR_SAMPLING_NOT_STARTED);
}

static void t28_begin_pass_already(void **state)
{
	(void)state;
	open_session();
	OK(GPA_BeginPass());
	STATUS1(GPA_BeginPass(), GPA_STATUS_ERROR_PASS_ALREADY_STARTED);
}

static void t28_begin_pass_no_upper_limit(void **state)
{
	(void)state;
	open_session();
	for (int p = 0; p < 10; p++) {
		OK(GPA_BeginPass());
		OK(GPA_EndPass());
	}
	assert_int_equal(fake_stats.pass_seq, 1); /* only the planned pass reached the device */
}

static void t29_end_pass_no_context(void **state)
{
	(void)state;
	NOT_OPEN(GPA_EndPass());
}

static void t29_end_pass_no_session(void **state)
{
	(void)state;
	open_a();
	STATUS1(GPA_EndPass(), GPA_STATUS_ERROR_SAMPLING_NOT_STARTED);
}

static void t29_end_pass_no_pass(void **state)
{
	(void)state;
	open_session();
	STATUS1(GPA_EndPass(), GPA_STATUS_ERROR_PASS_NOT_STARTED);
}

static void t29_end_pass_sample_open(void **state)
{
	(void)state;
	open_session();
	OK(GPA_BeginPass());
	OK(GPA_BeginSample(1));
	STATUS1(GPA_EndPass(), GPA_STATUS_ERROR_SAMPLE_NOT_ENDED);
}

static void t29_end_pass_variable_still_closes(void **state)
{
	(void)state;
	open_two_passes();
	gpa_uint32 s;
	OK(GPA_BeginSession(&s));
	OK(GPA_BeginPass());
	OK(GPA_BeginSample(1));
	OK(GPA_EndSample());
	OK(GPA_EndPass());
	OK(GPA_BeginPass());
	STATUS1(GPA_EndPass(), GPA_STATUS_ERROR_VARIABLE_NUMBER_OF_SAMPLES_IN_PASSES);
	STATUS1(GPA_EndPass(), GPA_STATUS_ERROR_PASS_NOT_STARTED);
	OK(GPA_EndSession());
}

static void t29_end_pass_extra_pass_variable(void **state)
{
	(void)state;
	open_session();
	OK(GPA_BeginPass());
	OK(GPA_BeginSample(1));
	OK(GPA_EndSample());
	OK(GPA_EndPass());
	/* Beyond the plan: the same sample, but an extra pass counts none. */
	OK(GPA_BeginPass());
	OK(GPA_BeginSample(1));
	OK(GPA_EndSample());
	STATUS1(GPA_EndPass(), GPA_STATUS_ERROR_VARIABLE_NUMBER_OF_SAMPLES_IN_PASSES);
}

static void t29_end_pass_extra_pass_ok_without_samples(void **state)
{
	(void)state;
	open_session();
	OK(GPA_BeginPass());
	OK(GPA_EndPass());
	OK(GPA_BeginPass());
	OK(GPA_BeginSample(1));
	OK(GPA_EndSample());
	OK(GPA_EndPass());
}

/* ---- 30 BeginSample, 31 EndSample ------------------------------------------ */

static void t30_begin_sample_no_context(void **state)
{
	(void)state;
	NOT_OPEN(GPA_BeginSample(0));
}

static void t30_begin_sample_no_session(void **state)
{
	(void)state;
	open_a();
	STATUS1(GPA_BeginSample(0), GPA_STATUS_ERROR_SAMPLING_NOT_STARTED);
}

static void t30_begin_sample_no_pass(void **state)
{
	(void)state;
	open_session();
	STATUS1(GPA_BeginSample(0), GPA_STATUS_ERROR_PASS_NOT_STARTED);
}

static void t30_begin_sample_nested(void **state)
{
	(void)state;
	open_session();
	OK(GPA_BeginPass());
	OK(GPA_BeginSample(0));
	STATUS1(GPA_BeginSample(1), GPA_STATUS_ERROR_SAMPLE_ALREADY_STARTED);
}

static void t30_begin_sample_id_used_in_pass(void **state)
{
	(void)state;
	open_session();
	OK(GPA_BeginPass());
	OK(GPA_BeginSample(7));
	OK(GPA_EndSample());
	STATUS1(GPA_BeginSample(7), GPA_STATUS_ERROR_SAMPLE_ALREADY_STARTED);
}

static void t30_begin_sample_extra_pass_records_nothing(void **state)
{
	(void)state;
	gpa_uint32 s = open_session();
	OK(GPA_BeginPass());
	OK(GPA_EndPass());
	OK(GPA_BeginPass());
	unsigned before = fake_stats.begin_samples;
	OK(GPA_BeginSample(42));
	STATUS1(GPA_BeginSample(43), GPA_STATUS_ERROR_SAMPLE_ALREADY_STARTED);
	OK(GPA_EndSample());
	STATUS1(GPA_BeginSample(42), GPA_STATUS_ERROR_SAMPLE_ALREADY_STARTED);
	assert_int_equal(fake_stats.begin_samples, before);
	OK(GPA_EndPass());
	OK(GPA_EndSession());
	gpa_uint32 n = 9;
	OK(GPA_GetSampleCount(s, &n));
	assert_int_equal(n, 0);
}

static void t30_begin_sample_backend_fails(void **state)
{
	(void)state;
	open_session();
	OK(GPA_BeginPass());
	fake_config.fail_begin_sample = true;
	STATUS1(GPA_BeginSample(1), GPA_STATUS_ERROR_FAILED);
	/* No sample is open, and the ID was used in this pass. */
	fake_config.fail_begin_sample = false;
	STATUS1(GPA_EndSample(), GPA_STATUS_ERROR_SAMPLE_NOT_STARTED);
	STATUS1(GPA_BeginSample(1), GPA_STATUS_ERROR_SAMPLE_ALREADY_STARTED);
}

static void t31_end_sample_no_context(void **state)
{
	(void)state;
	NOT_OPEN(GPA_EndSample());
}

static void t31_end_sample_no_session_is_not_started(void **state)
{
	(void)state;
	open_a();
	STATUS1(GPA_EndSample(), GPA_STATUS_ERROR_SAMPLE_NOT_STARTED);
}

static void t31_end_sample_no_pass_is_not_started(void **state)
{
	(void)state;
	open_session();
	STATUS1(GPA_EndSample(), GPA_STATUS_ERROR_SAMPLE_NOT_STARTED);
}

static void t31_end_sample_none_open(void **state)
{
	(void)state;
	open_session();
	OK(GPA_BeginPass());
	STATUS1(GPA_EndSample(), GPA_STATUS_ERROR_SAMPLE_NOT_STARTED);
}

static void t31_end_sample_extra_pass(void **state)
{
	(void)state;
	open_session();
	OK(GPA_BeginPass());
	OK(GPA_EndPass());
	OK(GPA_BeginPass());
	STATUS1(GPA_EndSample(), GPA_STATUS_ERROR_SAMPLE_NOT_STARTED);
	OK(GPA_BeginSample(1));
	OK(GPA_EndSample());
	STATUS1(GPA_EndSample(), GPA_STATUS_ERROR_SAMPLE_NOT_STARTED);
}

static void t31_end_sample_backend_fails(void **state)
{
	(void)state;
	gpa_uint32 s = open_session();
	fake_config.fail_end_sample_pass = 0;
	fake_config.fail_end_sample_ordinal = 1;
	OK(GPA_BeginPass());
	OK(GPA_BeginSample(0));
	OK(GPA_EndSample());
	OK(GPA_BeginSample(1));
	STATUS1(GPA_EndSample(), GPA_STATUS_ERROR_FAILED);
	/* Counted all the same: pass 0 has two samples. */
	gpa_uint32 n = 0;
	OK(GPA_GetSampleCount(s, &n));
	assert_int_equal(n, 2);
}

/* ---- 32 GetSampleCount ---------------------------------------------------- */

static void t32_sample_count_null(void **state)
{
	(void)state;
	STATUS1(GPA_GetSampleCount(1, NULL), GPA_STATUS_ERROR_NULL_POINTER);
}

/* GPA 2.23.1 crashes here (no context check); opengpa answers. */
static void t32_sample_count_no_context(void **state)
{
	(void)state;
	gpa_uint32 n;
	NOT_OPEN(GPA_GetSampleCount(1, &n));
}

static void t32_sample_count_session_not_found(void **state)
{
	(void)state;
	open_session();
	gpa_uint32 n;
	STATUS1(GPA_GetSampleCount(2, &n), GPA_STATUS_ERROR_SESSION_NOT_FOUND);
}

static void t32_sample_count_zero_before_pass(void **state)
{
	(void)state;
	gpa_uint32 s = open_session(), n = 9;
	OK(GPA_GetSampleCount(s, &n));
	assert_int_equal(n, 0);
}

static void t32_sample_count_pass0_open_sample_counts(void **state)
{
	(void)state;
	gpa_uint32 s = open_session(), n = 0;
	OK(GPA_BeginPass());
	OK(GPA_BeginSample(5));
	OK(GPA_GetSampleCount(s, &n));
	assert_int_equal(n, 1);
}

/* ---- 33 IsSampleReady, 34 IsSessionReady ------------------------------------ */

static void t33_sample_ready_no_context(void **state)
{
	(void)state;
	NOT_OPEN(GPA_IsSampleReady(NULL, 1, 0));
}

static void t33_sample_ready_null(void **state)
{
	(void)state;
	open_a();
	STATUS1(GPA_IsSampleReady(NULL, 99, 0), GPA_STATUS_ERROR_NULL_POINTER);
}

static void t33_sample_ready_session_not_found_clears_flag(void **state)
{
	(void)state;
	open_a();
	bool ready = true;
	STATUS1(GPA_IsSampleReady(&ready, 99, 0), GPA_STATUS_ERROR_SESSION_NOT_FOUND);
	assert_false(ready);
}

static void t33_sample_ready_unknown_sample(void **state)
{
	(void)state;
	gpa_uint32 s = recorded_session();
	bool ready = true;
	STATUS1(GPA_IsSampleReady(&ready, s, 1234), GPA_STATUS_ERROR_SAMPLE_NOT_FOUND_IN_ALL_PASSES);
	assert_false(ready);
}

static void t33_sample_ready_pass_never_run(void **state)
{
	(void)state;
	open_two_passes();
	gpa_uint32 s;
	OK(GPA_BeginSession(&s));
	OK(GPA_BeginPass());
	OK(GPA_BeginSample(1));
	OK(GPA_EndSample());
	OK(GPA_EndPass());
	bool ready = true;
	STATUS1(GPA_IsSampleReady(&ready, s, 1), GPA_STATUS_ERROR_SAMPLE_NOT_FOUND_IN_ALL_PASSES);
	assert_false(ready);
}

static void t33_sample_ready_pending(void **state)
{
	(void)state;
	gpa_uint32 s = open_session();
	OK(GPA_BeginPass());
	OK(GPA_BeginSample(1));
	bool ready = true;
	OK(GPA_IsSampleReady(&ready, s, 1));
	assert_false(ready);
}

static void t33_sample_ready_ok(void **state)
{
	(void)state;
	gpa_uint32 s = recorded_session();
	bool ready = false;
	OK(GPA_IsSampleReady(&ready, s, 1));
	assert_true(ready);
}

static void t34_session_ready_no_context(void **state)
{
	(void)state;
	NOT_OPEN(GPA_IsSessionReady(NULL, 1));
}

static void t34_session_ready_null(void **state)
{
	(void)state;
	open_a();
	STATUS1(GPA_IsSessionReady(NULL, 99), GPA_STATUS_ERROR_NULL_POINTER);
}

static void t34_session_ready_not_found_leaves_flag(void **state)
{
	(void)state;
	open_a();
	bool ready = true;
	STATUS1(GPA_IsSessionReady(&ready, 99), GPA_STATUS_ERROR_SESSION_NOT_FOUND);
	assert_true(ready);
}

static void t34_session_ready_while_open_and_after(void **state)
{
	(void)state;
	gpa_uint32 s = open_session();
	bool ready = true;
	OK(GPA_IsSessionReady(&ready, s));
	assert_false(ready);
	OK(GPA_BeginPass());
	OK(GPA_EndPass());
	OK(GPA_EndSession());
	OK(GPA_IsSessionReady(&ready, s));
	assert_true(ready);
}

/* ---- 35-38 GetSampleUInt64 / UInt32 / Float64 / Float32 --------------------- */

/* The four getters, each on a counter of its own type; `counter` other
 * than UINT32_MAX overrides. */
static const gpa_uint32 typed_counter[4] = { FC_C0, FC_SMALL, FC_SUM01, FC_HALF };

static GPA_Status get(int which, gpa_uint32 s, gpa_uint32 sample, gpa_uint32 counter, bool null)
{
	gpa_uint64 u64;
	gpa_uint32 u32;
	gpa_float64 f64;
	gpa_float32 f32;
	switch (which) {
	case 0: return GPA_GetSampleUInt64(s, sample, counter, null ? NULL : &u64);
	case 1: return GPA_GetSampleUInt32(s, sample, counter, null ? NULL : &u32);
	case 2: return GPA_GetSampleFloat64(s, sample, counter, null ? NULL : &f64);
	default: return GPA_GetSampleFloat32(s, sample, counter, null ? NULL : &f32);
	}
}

static void t35_38_null_first(void **state)
{
	(void)state;
	for (int w = 0; w < 4; w++)
		STATUS1(get(w, 99, 99, BAD_INDEX, true), GPA_STATUS_ERROR_NULL_POINTER);
}

static void t35_38_no_context(void **state)
{
	(void)state;
	for (int w = 0; w < 4; w++)
		NOT_OPEN(get(w, 99, 99, BAD_INDEX, false));
}

static void t35_38_index(void **state)
{
	(void)state;
	open_a();
	for (int w = 0; w < 4; w++)
		STATUS1(get(w, 99, 99, BAD_INDEX, false), GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE);
}

static void t35_38_type_before_session(void **state)
{
	(void)state;
	open_a();
	for (int w = 0; w < 4; w++)
		STATUS1(get(w, 99, 99, typed_counter[(w + 1) % 4], false),
		        GPA_STATUS_ERROR_COUNTER_NOT_OF_SPECIFIED_TYPE);
}

static void t35_38_session_not_found(void **state)
{
	(void)state;
	open_a();
	for (int w = 0; w < 4; w++)
		STATUS1(get(w, 99, 99, typed_counter[w], false), GPA_STATUS_ERROR_SESSION_NOT_FOUND);
}

static void t35_38_not_enabled_now(void **state)
{
	(void)state;
	gpa_uint32 s = recorded_session();
	/* Counted by the session, but not enabled any more. */
	OK(GPA_DisableCounter(FC_C0));
	STATUS1(get(0, s, 0, FC_C0, false), GPA_STATUS_ERROR_NOT_ENABLED);
	for (int w = 1; w < 4; w++)
		STATUS1(get(w, s, 9999, typed_counter[w], false), GPA_STATUS_ERROR_NOT_ENABLED);
}

static void t35_38_sample_missing_from_a_pass(void **state)
{
	(void)state;
	gpa_uint32 s = recorded_session();
	/* C2 is counted in pass 1; sample 1234 is in no pass. */
	STATUS1(get(0, s, 1234, FC_C2, false), GPA_STATUS_ERROR_SAMPLE_NOT_FOUND);
}

static void t35_38_reading_failed(void **state)
{
	(void)state;
	open_a();
	OK(GPA_EnableCounter(FC_C0));
	fake_config.fail_end_sample_pass = 0;
	fake_config.fail_end_sample_ordinal = 0;
	gpa_uint32 s;
	OK(GPA_BeginSession(&s));
	OK(GPA_BeginPass());
	OK(GPA_BeginSample(0));
	STATUS1(GPA_EndSample(), GPA_STATUS_ERROR_FAILED);
	OK(GPA_EndPass());
	OK(GPA_EndSession());
	STATUS1(get(0, s, 0, FC_C0, false), GPA_STATUS_ERROR_READING_COUNTER_RESULT);
}

static void t35_38_ok(void **state)
{
	(void)state;
	open_a();
	for (int w = 0; w < 4; w++)
		OK(GPA_EnableCounter(typed_counter[w]));
	const unsigned ids[] = { 4 };
	gpa_uint32 s = tu_run_session(ids, 1);
	for (int w = 0; w < 4; w++)
		OK(get(w, s, 4, typed_counter[w], false));
	TU_NO_ERROR();
}

/* ---- 39 GetDeviceID, 40 GetDeviceDesc ----------------------------------- */

static void t39_40_device_no_context(void **state)
{
	(void)state;
	NOT_OPEN(GPA_GetDeviceID(NULL));
	NOT_OPEN(GPA_GetDeviceDesc(NULL));
}

static void t39_40_device_null(void **state)
{
	(void)state;
	open_a();
	STATUS1(GPA_GetDeviceID(NULL), GPA_STATUS_ERROR_NULL_POINTER);
	STATUS1(GPA_GetDeviceDesc(NULL), GPA_STATUS_ERROR_NULL_POINTER);
}

static void t39_40_device_ok(void **state)
{
	(void)state;
	open_a();
	gpa_uint32 id = 0;
	const char *desc = NULL;
	OK(GPA_GetDeviceID(&id));
	OK(GPA_GetDeviceDesc(&desc));
	assert_int_equal(id, FAKE_DEVICE_ID);
	assert_string_equal(desc, FAKE_DESCRIPTION);
}

/* ---- the private entry points (gpa-abi.md §1.13) -------------------------- */

static void x_profile_start_stop_ok(void **state)
{
	(void)state;
	OK(GPA_InternalProfileStart());
	OK(GPA_InternalProfileStop(NULL)); /* the argument is not checked */
	assert_int_equal(tu_log.errors, 0);
}

static unsigned debug_messages;

static void debug_callback(enum GPA_Log_Debug_Type type, const char *msg)
{
	(void)type;
	(void)msg;
	debug_messages++;
}

static void x_debug_callback(void **state)
{
	(void)state;
	assert_int_equal(GPA_RegisterLoggingDebugCallback(GPA_LOG_ERROR, NULL),
	                 GPA_STATUS_ERROR_NULL_POINTER);
	tu_log_clear();
	OK(GPA_RegisterLoggingDebugCallback(GPA_LOG_NONE, NULL));
	debug_messages = 0;
	OK(GPA_RegisterLoggingDebugCallback(GPA_LOG_ERROR_AND_MESSAGE, debug_callback));
	assert_int_equal(debug_messages, 1); /* it says it is registered */
	gpa_uint32 n;
	NOT_OPEN(GPA_GetNumCounters(&n));
	assert_int_equal(debug_messages, 2); /* and sees the 2.x messages */
	OK(GPA_RegisterLoggingDebugCallback(GPA_LOG_NONE, NULL));
}

static void x_draw_call_counts(void **state)
{
	(void)state;
	NOT_OPEN(GPA_InternalSetDrawCallCounts(4));
	open_session();
	STATUS1(GPA_InternalSetDrawCallCounts(4), GPA_STATUS_ERROR_SAMPLING_ALREADY_STARTED);
	OK(GPA_BeginPass());
	OK(GPA_EndPass());
	OK(GPA_EndSession());
	OK(GPA_InternalSetDrawCallCounts(4));
}

#define T(name) TU_TEST(name)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(t01_logging_null_callback), T(t01_logging_none_with_null_switches_off),
		T(t01_logging_installed_says_so),
		T(t02_initialize_any_number_of_times), T(t03_destroy_changes_nothing),
		T(t04_open_null), T(t04_open_already_open), T(t04_open_backend_fails),
		T(t04_open_ok_becomes_current),
		T(t05_close_no_context), T(t05_close_session_open),
		T(t05_close_first_remaining_becomes_current),
		T(t06_select_null), T(t06_select_not_open), T(t06_select_ok),
		T(t07_num_counters_no_context), T(t07_num_counters_null), T(t07_num_counters_ok),
		T(t08_11_queries_no_context), T(t08_11_queries_index), T(t08_11_queries_null),
		T(t08_11_queries_ok),
		T(t12_data_type_str_range), T(t12_data_type_str_null),
		T(t12_data_type_str_ok_without_context),
		T(t13_usage_type_str_range), T(t13_usage_type_str_null),
		T(t13_usage_type_str_ok_without_context), T(t14_status_str_never_null),
		T(t15_enable_no_context), T(t15_enable_index_before_session),
		T(t15_enable_session_before_state), T(t15_enable_already), T(t15_enable_ok_appends),
		T(t16_disable_no_context), T(t16_disable_index_before_session),
		T(t16_disable_session_before_state), T(t16_disable_not_enabled), T(t16_disable_ok),
		T(t17_enabled_count_no_context), T(t17_enabled_count_null), T(t17_enabled_count_ok),
		T(t18_enabled_index_no_context), T(t18_enabled_index_null_before_range),
		T(t18_enabled_index_range), T(t18_enabled_index_ok),
		T(t19_is_enabled_no_context), T(t19_is_enabled_index),
		T(t19_is_enabled_yes_during_session), T(t19_is_enabled_no_is_a_message),
		T(t20_21_str_null_before_context), T(t20_21_str_no_context),
		T(t20_21_str_not_found_before_session), T(t20_21_str_session_before_state),
		T(t20_str_already_enabled), T(t21_str_not_enabled), T(t20_21_str_ok_ignoring_case),
		T(t22_23_all_no_context), T(t22_23_all_session_open),
		T(t22_enable_all_ok_in_index_order), T(t23_disable_all_ok),
		T(t24_index_name_null_first), T(t24_index_out_null_before_context),
		T(t24_index_no_context), T(t24_index_not_found), T(t24_index_ok_ignoring_case),
		T(t25_pass_count_null_before_context), T(t25_pass_count_no_context),
		T(t25_pass_count_cannot_schedule), T(t25_pass_count_ok),
		T(t26_begin_session_no_context), T(t26_begin_session_null),
		T(t26_begin_session_cannot_schedule), T(t26_begin_session_nothing_enabled),
		T(t26_begin_session_already), T(t26_begin_session_ids_and_ring),
		T(t27_end_session_no_context), T(t27_end_session_none), T(t27_end_session_pass_open),
		T(t27_end_session_not_enough_passes_ends_anyway), T(t27_end_session_extra_passes_fine),
		T(t28_begin_pass_no_context), T(t28_begin_pass_no_session), T(t28_begin_pass_already),
		T(t28_begin_pass_no_upper_limit),
		T(t29_end_pass_no_context), T(t29_end_pass_no_session), T(t29_end_pass_no_pass),
		T(t29_end_pass_sample_open), T(t29_end_pass_variable_still_closes),
		T(t29_end_pass_extra_pass_variable), T(t29_end_pass_extra_pass_ok_without_samples),
		T(t30_begin_sample_no_context), T(t30_begin_sample_no_session),
		T(t30_begin_sample_no_pass), T(t30_begin_sample_nested),
		T(t30_begin_sample_id_used_in_pass), T(t30_begin_sample_extra_pass_records_nothing),
		T(t30_begin_sample_backend_fails),
		T(t31_end_sample_no_context), T(t31_end_sample_no_session_is_not_started),
		T(t31_end_sample_no_pass_is_not_started), T(t31_end_sample_none_open),
		T(t31_end_sample_extra_pass), T(t31_end_sample_backend_fails),
		T(t32_sample_count_null), T(t32_sample_count_no_context),
		T(t32_sample_count_session_not_found), T(t32_sample_count_zero_before_pass),
		T(t32_sample_count_pass0_open_sample_counts),
		T(t33_sample_ready_no_context), T(t33_sample_ready_null),
		T(t33_sample_ready_session_not_found_clears_flag), T(t33_sample_ready_unknown_sample),
		T(t33_sample_ready_pass_never_run), T(t33_sample_ready_pending), T(t33_sample_ready_ok),
		T(t34_session_ready_no_context), T(t34_session_ready_null),
		T(t34_session_ready_not_found_leaves_flag), T(t34_session_ready_while_open_and_after),
		T(t35_38_null_first), T(t35_38_no_context), T(t35_38_index),
		T(t35_38_type_before_session), T(t35_38_session_not_found), T(t35_38_not_enabled_now),
		T(t35_38_sample_missing_from_a_pass), T(t35_38_reading_failed), T(t35_38_ok),
		T(t39_40_device_no_context), T(t39_40_device_null), T(t39_40_device_ok),
		T(x_profile_start_stop_ok), T(x_debug_callback), T(x_draw_call_counts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
