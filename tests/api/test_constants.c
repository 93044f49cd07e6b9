/* SPDX-License-Identifier: MIT */
/*
 * test_constants.c — the user's say over device constants (OpenGPA_SetConstant,
 * OPENGPA_CONSTANTS) and the cycle-budget target (OpenGPA_SetCycleBudgetTarget,
 * OPENGPA_CYCLE_BUDGET), over the fake backend: an override reaches the
 * counters, beats the backend's and the file's values, and bad input is
 * refused, a malformed variable by failing the open.
 */
#include <math.h>
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

#include "fake_backend.h"
#include "test_util.h"

static int key;
static char dir[64];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/og-constants-XXXXXX");
	assert_non_null(mkdtemp(dir));
	return 0;
}

static int teardown_dir(void **state)
{
	(void)state;
	char path[128];
	snprintf(path, sizeof path, "%s/budget.counters", dir);
	unlink(path);
	rmdir(dir);
	return 0;
}

static int before(void **state)
{
	(void)state;
	unsetenv("OPENGPA_CONSTANTS");
	unsetenv("OPENGPA_CYCLE_BUDGET");
	tu_setup();
	fake_config.max_per_pass = 8;
	return 0;
}

static int after(void **state)
{
	(void)state;
	tu_teardown();
	unsetenv("OPENGPA_CONSTANTS");
	unsetenv("OPENGPA_CYCLE_BUDGET");
	return 0;
}

static double sample_f64(gpa_uint32 counter)
{
	assert_int_equal(GPA_EnableCounter(counter), GPA_STATUS_OK);
	const unsigned ids[] = { 0 };
	gpa_uint32 s = tu_run_session(ids, 1);
	gpa_float64 v = 0;
	assert_int_equal(GPA_GetSampleFloat64(s, 0, counter, &v), GPA_STATUS_OK);
	return v;
}

static gpa_uint32 index_of(const char *name)
{
	gpa_uint32 index = 0;
	if (GPA_GetCounterIndex(name, &index) != GPA_STATUS_OK)
		fail_msg("no counter %s", name);
	return index;
}

/* Which pass and sample the fake counts a one-counter session in. */
#define R(slot) ((double)fake_value(slot, 0, 0))

static void test_overrides_reach_the_counters(void **state)
{
	(void)state;
	/* Nobody provides Unknown: its counter is not offered... */
	assert_int_equal(GPA_OpenContext(&key), GPA_STATUS_OK);
	gpa_uint32 index;
	assert_int_equal(GPA_GetCounterIndex("NeedsUnknown", &index), GPA_STATUS_ERROR_NOT_FOUND);
	assert_int_equal(GPA_CloseContext(), GPA_STATUS_OK);
	/* ... until the user gives it; the backend's Scale and the file's Two are
	 * replaced too, for contexts opened after the call. */
	assert_int_equal(OpenGPA_SetConstant("Unknown", 5), GPA_STATUS_OK);
	assert_int_equal(OpenGPA_SetConstant("scale", 10), GPA_STATUS_OK); /* any case */
	assert_int_equal(OpenGPA_SetConstant("Two", 4), GPA_STATUS_OK);
	assert_int_equal(OpenGPA_SetConstant("Two", 8), GPA_STATUS_OK);    /* the last wins */
	assert_int_equal(GPA_OpenContext(&key), GPA_STATUS_OK);
	assert_true(sample_f64(index_of("NeedsUnknown")) == R(0) * 5);
	assert_int_equal(GPA_CloseContext(), GPA_STATUS_OK);
	assert_int_equal(GPA_OpenContext(&key), GPA_STATUS_OK);
	assert_true(sample_f64(FC_SCALED) == R(2) * 10);
	assert_int_equal(GPA_CloseContext(), GPA_STATUS_OK);
}

static void test_environment(void **state)
{
	(void)state;
	setenv("OPENGPA_CONSTANTS", "Unknown=7,Scale=1.5e1", 1);
	assert_int_equal(GPA_OpenContext(&key), GPA_STATUS_OK);
	assert_true(sample_f64(index_of("NeedsUnknown")) == R(0) * 7);
	assert_int_equal(GPA_CloseContext(), GPA_STATUS_OK);
	assert_int_equal(GPA_OpenContext(&key), GPA_STATUS_OK);
	assert_true(sample_f64(FC_SCALED) == R(2) * 15);
	assert_int_equal(GPA_CloseContext(), GPA_STATUS_OK);
	/* A call beats the variable. */
	assert_int_equal(OpenGPA_SetConstant("Unknown", 3), GPA_STATUS_OK);
	assert_int_equal(GPA_OpenContext(&key), GPA_STATUS_OK);
	assert_true(sample_f64(index_of("NeedsUnknown")) == R(0) * 3);
	assert_int_equal(GPA_CloseContext(), GPA_STATUS_OK);

	/* Malformed: the open fails and says which item and how to fix it. */
	static const char *const bad[] = { "Unknown", "Unknown=", "Unknown=abc", "1x=2", "a-b=1",
	                                   "Unknown=1,,Two=2", "Unknown=0x10", "Unknown=inf" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		setenv("OPENGPA_CONSTANTS", bad[i], 1);
		tu_log_clear();
		if (GPA_OpenContext(&key) == GPA_STATUS_OK)
			fail_msg("OPENGPA_CONSTANTS=%s accepted", bad[i]);
		assert_true(tu_log_has("OPENGPA_CONSTANTS: '"));
		assert_true(tu_log_has("is not NAME=NUMBER"));
	}
}

static void test_bad_calls(void **state)
{
	(void)state;
	assert_int_equal(OpenGPA_SetConstant(NULL, 1), GPA_STATUS_ERROR_NULL_POINTER);
	static const char *const names[] = { "", "9lives", "a-b", "white space",
	                                     "ThisNameIsFarTooLongToBeTheNameOfAnyConstantInAnyCounterFileAtAll" };
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		assert_int_equal(OpenGPA_SetConstant(names[i], 1), GPA_STATUS_ERROR_FAILED);
	assert_int_equal(OpenGPA_SetConstant("Two", NAN), GPA_STATUS_ERROR_FAILED);
	assert_int_equal(OpenGPA_SetConstant("Two", INFINITY), GPA_STATUS_ERROR_FAILED);
	char name[32];
	for (int i = 0; i < 64; i++) {
		snprintf(name, sizeof name, "C%d", i);
		assert_int_equal(OpenGPA_SetConstant(name, i), GPA_STATUS_OK);
	}
	assert_int_equal(OpenGPA_SetConstant("OneTooMany", 1), GPA_STATUS_ERROR_FAILED);
	assert_int_equal(OpenGPA_SetConstant("C3", 33), GPA_STATUS_OK); /* a known one still changes */

	assert_int_equal(OpenGPA_SetCycleBudgetTarget(0, 1080, 60), GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE);
	assert_int_equal(OpenGPA_SetCycleBudgetTarget(1920, 70000, 60),
	                 GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE);
	assert_int_equal(OpenGPA_SetCycleBudgetTarget(1920, 1080, 0), GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE);
	assert_int_equal(OpenGPA_SetCycleBudgetTarget(1920, 1080, -60),
	                 GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE);
	assert_int_equal(OpenGPA_SetCycleBudgetTarget(1920, 1080, NAN),
	                 GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE);
	assert_true(tu_log_has("the frame rate must be above 0"));
}

/* A file that uses the target's constants, as the Mali sets' budget does. */
static void write_budget_file(void)
{
	char path[128];
	snprintf(path, sizeof path, "%s/budget.counters", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("constant CycleBudgetWidth\n    description: The target's width.\n"
	      "constant CycleBudgetHeight\n    description: The target's height.\n"
	      "constant CycleBudgetFPS\n    description: The target's frame rate.\n"
	      "counter TargetPixelRate\n    group: Test\n    usage: items\n    type: float64\n"
	      "    description: Pixels per second of the target.\n"
	      "    expression: R0 * 0 + CycleBudgetWidth * CycleBudgetHeight * CycleBudgetFPS\n", f);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(OpenGPA_AddCounterFile(path), GPA_STATUS_OK);
}

static void test_cycle_budget_target(void **state)
{
	(void)state;
	write_budget_file();
	/* No target: the counter is not offered, and the reason says how to give one. */
	assert_int_equal(GPA_OpenContext(&key), GPA_STATUS_OK);
	gpa_uint32 n = 0, index;
	assert_int_equal(GPA_GetCounterIndex("TargetPixelRate", &index), GPA_STATUS_ERROR_NOT_FOUND);
	assert_int_equal(OpenGPA_GetUnavailableCount(&n), GPA_STATUS_OK);
	bool said = false;
	for (gpa_uint32 i = 0; i < n; i++) {
		const char *name, *reason;
		if (OpenGPA_GetUnavailableCounter(i, &name, &reason) == GPA_STATUS_OK &&
		    strcmp(name, "TargetPixelRate") == 0)
			said = strstr(reason, "constant CycleBudgetWidth (The target's width.); set it "
			                      "with OpenGPA_SetConstant or OPENGPA_CONSTANTS="
			                      "CycleBudgetWidth=VALUE") != NULL;
	}
	assert_true(said);
	assert_int_equal(GPA_CloseContext(), GPA_STATUS_OK);

	assert_int_equal(OpenGPA_SetCycleBudgetTarget(1920, 1080, 60), GPA_STATUS_OK);
	assert_int_equal(GPA_OpenContext(&key), GPA_STATUS_OK);
	assert_true(sample_f64(index_of("TargetPixelRate")) == 1920.0 * 1080 * 60);
	assert_int_equal(GPA_CloseContext(), GPA_STATUS_OK);

	/* 0, 0, 0 takes the target away again; the environment gives one. */
	assert_int_equal(OpenGPA_SetCycleBudgetTarget(0, 0, 0), GPA_STATUS_OK);
	setenv("OPENGPA_CYCLE_BUDGET", "1280x720@29.97", 1);
	assert_int_equal(GPA_OpenContext(&key), GPA_STATUS_OK);
	assert_true(sample_f64(index_of("TargetPixelRate")) == 1280.0 * 720 * 29.97);
	assert_int_equal(GPA_CloseContext(), GPA_STATUS_OK);
	/* A call beats the variable. */
	assert_int_equal(OpenGPA_SetCycleBudgetTarget(640, 480, 30), GPA_STATUS_OK);
	assert_int_equal(GPA_OpenContext(&key), GPA_STATUS_OK);
	assert_true(sample_f64(index_of("TargetPixelRate")) == 640.0 * 480 * 30);
	assert_int_equal(GPA_CloseContext(), GPA_STATUS_OK);

	static const char *const bad[] = { "1280x720", "1280x720@", "x720@30", "1280x@30",
	                                   "1280x720@0", "1280x720@-30", "0x720@30", "1280 x720@30",
	                                   "1280x720@30fps", "99999x720@30", "1280x720@nan" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		setenv("OPENGPA_CYCLE_BUDGET", bad[i], 1);
		tu_log_clear();
		if (GPA_OpenContext(&key) == GPA_STATUS_OK)
			fail_msg("OPENGPA_CYCLE_BUDGET=%s accepted", bad[i]);
		assert_true(tu_log_has("OPENGPA_CYCLE_BUDGET: '"));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_overrides_reach_the_counters, before, after),
		cmocka_unit_test_setup_teardown(test_environment, before, after),
		cmocka_unit_test_setup_teardown(test_bad_calls, before, after),
		cmocka_unit_test_setup_teardown(test_cycle_budget_target, before, after),
	};
	return cmocka_run_group_tests(tests, setup, teardown_dir);
}
