/* SPDX-License-Identifier: MIT */
/*
 * test_metadata.c — what the library says about itself: its version, the
 * backends compiled in, and the declared metadata of counters this device
 * cannot count (OpenGPA_GetVersion, OpenGPA_GetBackend*,
 * OpenGPA_GetUnavailableCounterInfo).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "fake_backend.h"
#include "test_util.h"

static int key;

static void test_version(void **unused)
{
	gpa_uint32 major = 99, minor = 99, patch = 99;
	/* No GPA_Initialize, no context. */
	assert_int_equal(OpenGPA_GetVersion(&major, &minor, &patch), GPA_STATUS_OK);
	assert_int_equal(major, OPENGPA_VERSION_MAJOR);
	assert_int_equal(minor, OPENGPA_VERSION_MINOR);
	assert_int_equal(patch, OPENGPA_VERSION_PATCH);
	assert_int_equal(OpenGPA_GetVersion(NULL, &minor, NULL), GPA_STATUS_OK);
	char text[32];
	snprintf(text, sizeof text, "%u.%u.%u", major, minor, patch);
	assert_string_equal(text, OPENGPA_VERSION_STRING);
	assert_true(OPENGPA_VERSION == OPENGPA_VERSION_OF(major, minor, patch));
	assert_true(OPENGPA_VERSION_OF(1, 0, 0) > OPENGPA_VERSION_OF(0, 255, 255));
}

static void test_backend_list(void **unused)
{
	gpa_uint32 n = 0;
	assert_int_equal(OpenGPA_GetBackendCount(&n), GPA_STATUS_OK);
	assert_true(n >= 1);
	bool perf = false;
	for (gpa_uint32 i = 0; i < n; i++) {
		const char *name = NULL, *summary = NULL;
		assert_int_equal(OpenGPA_GetBackendInfo(i, &name, &summary), GPA_STATUS_OK);
		assert_non_null(name);
		assert_true(summary && *summary);
		perf |= strcmp(name, "perf") == 0;
	}
	assert_true(perf); /* every build has it */
	tu_setup();
	const char *name, *summary;
	assert_int_equal(OpenGPA_GetBackendInfo(n, &name, &summary),
	                 GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE);
	assert_true(tu_log_has("out of range"));
	assert_int_equal(OpenGPA_GetBackendInfo(0, NULL, &summary), GPA_STATUS_ERROR_NULL_POINTER);
	assert_int_equal(OpenGPA_GetBackendCount(NULL), GPA_STATUS_ERROR_NULL_POINTER);
	tu_teardown();
}

static gpa_uint32 unavailable_index(const char *want)
{
	gpa_uint32 n = 0;
	assert_int_equal(OpenGPA_GetUnavailableCount(&n), GPA_STATUS_OK);
	for (gpa_uint32 i = 0; i < n; i++) {
		const char *name, *reason;
		assert_int_equal(OpenGPA_GetUnavailableCounter(i, &name, &reason), GPA_STATUS_OK);
		if (strcmp(name, want) == 0)
			return i;
	}
	fail_msg("%s is not among the unavailable counters", want);
	return 0;
}

static void test_unavailable_counter_info(void **unused)
{
	tu_open(&key);
	/* A derived counter that needs the missing raw counter... */
	const char *group = NULL, *text = NULL;
	GPA_Usage_Type usage = GPA_USAGE_TYPE__LAST;
	GPA_Type type = GPA_TYPE__LAST;
	gpa_uint32 i = unavailable_index("NeedsGone");
	assert_int_equal(OpenGPA_GetUnavailableCounterInfo(i, &group, &text, &usage, &type),
	                 GPA_STATUS_OK);
	assert_string_equal(group, "Fake");
	assert_string_equal(text, "Counter NeedsGone.");
	assert_int_equal(usage, GPA_USAGE_TYPE_ITEMS);
	assert_int_equal(type, GPA_TYPE_FLOAT64);
	/* ...and the raw counter itself, in the catalogue's default group. */
	i = unavailable_index("Gone");
	assert_int_equal(OpenGPA_GetUnavailableCounterInfo(i, &group, &text, NULL, &type),
	                 GPA_STATUS_OK);
	assert_string_equal(group, "Hardware");
	assert_string_equal(text, "Raw slot 20.");
	assert_int_equal(type, GPA_TYPE_UINT64);
	assert_int_equal(OpenGPA_GetUnavailableCounterInfo(i, NULL, NULL, NULL, NULL), GPA_STATUS_OK);
	gpa_uint32 n = 0;
	OpenGPA_GetUnavailableCount(&n);
	assert_int_equal(OpenGPA_GetUnavailableCounterInfo(n, &group, &text, &usage, &type),
	                 GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE);
	tu_teardown();
	assert_int_equal(OpenGPA_GetUnavailableCounterInfo(0, &group, &text, &usage, &type),
	                 GPA_STATUS_ERROR_COUNTERS_NOT_OPEN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_version),
		cmocka_unit_test(test_backend_list),
		cmocka_unit_test(test_unavailable_counter_info),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
