/* SPDX-License-Identifier: MIT */
/*
 * test_settings.c — OPENGPA_* environment variables, the extensions that
 * override them, and user counter files.
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

static int key;
static char dir[64];

static void write_file(const char *name, const char *text)
{
	char path[256];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

static char *path_of(const char *name)
{
	static char path[256];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/opengpa-test-XXXXXX");
	assert_non_null(mkdtemp(dir));
	tu_setup();
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tu_teardown();
	unsetenv("OPENGPA_BACKEND");
	unsetenv("OPENGPA_BACKEND_OPTIONS");
	unsetenv("OPENGPA_COUNTER_PATH");
	unsetenv("OPENGPA_SESSION_RING");
	unsetenv("OPENGPA_HARDWARE_COUNTERS");
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	return 0;
}

/* The fake backend without OpenGPA_SetBackend or its counter file. */
static void bare_setup(void)
{
	og_testing_reset();
	fake_reset();
	og_testing_set_backend(&fake_backend_ops);
	assert_int_equal(GPA_RegisterLoggingCallback(GPA_LOGGING_ERROR_AND_MESSAGE, tu_log_callback),
	                 GPA_STATUS_OK);
	tu_log_clear();
}

static gpa_uint32 num_counters(void)
{
	gpa_uint32 n = 0;
	assert_int_equal(GPA_GetNumCounters(&n), GPA_STATUS_OK);
	return n;
}

static void test_env_backend_and_path_file(void **state)
{
	(void)state;
	bare_setup();
	setenv("OPENGPA_BACKEND", "test", 1);
	setenv("OPENGPA_COUNTER_PATH", OG_TEST_FAKE_COUNTERS, 1);
	assert_int_equal(GPA_OpenContext(&key), GPA_STATUS_OK);
	const char *name = NULL;
	assert_int_equal(OpenGPA_GetBackend(&name), GPA_STATUS_OK);
	assert_string_equal(name, "test");
	assert_int_equal(num_counters(), FC_COUNT);
	assert_int_equal(GPA_CloseContext(), GPA_STATUS_OK);
	/* The call overrides the variable. */
	setenv("OPENGPA_BACKEND", "no-such-backend", 1);
	assert_int_equal(GPA_OpenContext(&key), GPA_STATUS_ERROR_FAILED);
	assert_true(tu_log_has("no-such-backend"));
	assert_int_equal(OpenGPA_SetBackend("test", NULL), GPA_STATUS_OK);
	assert_int_equal(GPA_OpenContext(&key), GPA_STATUS_OK);
	/* Options from the environment reach the backend. */
	assert_int_equal(GPA_CloseContext(), GPA_STATUS_OK);
	bare_setup();
	setenv("OPENGPA_BACKEND", "test", 1);
	setenv("OPENGPA_BACKEND_OPTIONS", "unknown-key=1", 1);
	assert_int_equal(GPA_OpenContext(&key), GPA_STATUS_ERROR_FAILED);
	assert_true(tu_log_has("unknown-key"));
}

static const char extra_counters[] =
	"# A user's file over the fake's raw counters.\n"
	"raw R9\n"
	"    source: slot:9\n"
	"    description: A raw counter the user declares.\n"
	"\n"
	"counter Double\n"
	"    group: User\n"
	"    usage: items\n"
	"    type: float64\n"
	"    description: Twice R0 plus the backend's scale\n"
	"        and R9.\n"
	"    expression: 2 * R0 + Scale + R9\n";

static const char ghost_counters[] =
	"counter Ghost\n"
	"    group: User\n"
	"    usage: items\n"
	"    type: float64\n"
	"    description: Names a raw counter of another device.\n"
	"    expression: NoSuchRaw * 2\n"
	"\n"
	"counter Fine\n"
	"    group: User\n"
	"    usage: items\n"
	"    type: uint64\n"
	"    description: Still offered.\n"
	"    expression: R1\n";

static void test_env_path_directory(void **state)
{
	(void)state;
	bare_setup();
	write_file("a.counters", extra_counters);
	write_file("b.counters", ghost_counters);
	write_file("ignored.txt", "not a counter file\n");
	char path[512];
	snprintf(path, sizeof(path), "%s:%s", OG_TEST_FAKE_COUNTERS, dir);
	setenv("OPENGPA_COUNTER_PATH", path, 1);
	assert_int_equal(OpenGPA_SetBackend("test", ""), GPA_STATUS_OK);
	assert_int_equal(GPA_OpenContext(&key), GPA_STATUS_OK);
	/* Ghost is skipped with one message naming it and its file. */
	assert_true(tu_log_has("Ghost"));
	assert_true(tu_log_has("b.counters:1"));
	assert_int_equal(num_counters(), FC_COUNT + 2);
	gpa_uint32 dbl = 0, fine = 0;
	assert_int_equal(GPA_GetCounterIndex("double", &dbl), GPA_STATUS_OK);
	assert_int_equal(dbl, FC_COUNT);
	assert_int_equal(GPA_GetCounterIndex("Fine", &fine), GPA_STATUS_OK);
	assert_int_equal(fine, FC_COUNT + 1);
	const char *text;
	assert_int_equal(OpenGPA_GetCounterText(dbl, &text), GPA_STATUS_OK);
	assert_string_equal(text, "Twice R0 plus the backend's scale and R9.");
	tu_log_clear();

	assert_int_equal(GPA_EnableCounter(dbl), GPA_STATUS_OK);
	assert_int_equal(GPA_EnableCounter(fine), GPA_STATUS_OK);
	const unsigned id = 3;
	gpa_uint32 s = tu_run_session(&id, 1);
	gpa_float64 v = 0;
	assert_int_equal(GPA_GetSampleFloat64(s, id, dbl, &v), GPA_STATUS_OK);
	/* R0 and R9 fit one pass (two per pass), R1 the next. */
	assert_true(v == 2.0 * (double)fake_value(0, 0, 0) + FAKE_SCALE + (double)fake_value(9, 0, 0));
	gpa_uint64 u = 0;
	assert_int_equal(GPA_GetSampleUInt64(s, id, fine, &u), GPA_STATUS_OK);
	assert_int_equal(u, fake_value(1, 0, 1));
	TU_NO_ERROR();
}

static void test_malformed_user_files(void **state)
{
	(void)state;
	/* An expression that does not parse: file, line and column. */
	write_file("bad.counters",
	           "\ncounter Bad\n    group: User\n    usage: items\n    type: float64\n"
	           "    description: Broken.\n    expression: (R0 + R1\n");
	assert_int_equal(OpenGPA_AddCounterFile(path_of("bad.counters")), GPA_STATUS_OK);
	assert_int_equal(GPA_OpenContext(&key), GPA_STATUS_ERROR_FAILED);
	assert_int_equal(tu_log.errors, 1);
	char want[300];
	snprintf(want, sizeof(want), "%s:2: counter Bad: expression column 9", path_of("bad.counters"));
	if (!tu_log_has(want))
		fail_msg("expected '%s' in '%s'", want, tu_log_last());
	tu_log_clear();

	/* A file that does not parse at all. */
	tu_setup();
	write_file("worse.counters", "counter NoFields\nbogus line\n");
	assert_int_equal(OpenGPA_AddCounterFile(path_of("worse.counters")), GPA_STATUS_OK);
	assert_int_equal(GPA_OpenContext(&key), GPA_STATUS_ERROR_FAILED);
	snprintf(want, sizeof(want), "%s:1:", path_of("worse.counters"));
	assert_true(tu_log_has(want));
	assert_int_equal(tu_log.errors, 1);

	/* A path that does not exist. */
	tu_setup();
	assert_int_equal(OpenGPA_AddCounterFile(path_of("missing.counters")), GPA_STATUS_OK);
	assert_int_equal(GPA_OpenContext(&key), GPA_STATUS_ERROR_FAILED);
	assert_true(tu_log_has("missing.counters"));
	assert_int_equal(tu_log.errors, 1);

	/* A name that clashes (ignoring case) with one already loaded. */
	tu_setup();
	write_file("dup.counters", "constant two\n    description: Clash.\n    value: 3\n");
	assert_int_equal(OpenGPA_AddCounterFile(path_of("dup.counters")), GPA_STATUS_OK);
	assert_int_equal(GPA_OpenContext(&key), GPA_STATUS_ERROR_FAILED);
	assert_true(tu_log_has("dup.counters:1"));
	assert_int_equal(tu_log.errors, 1);

	/* A file for another backend is skipped. */
	tu_setup();
	write_file("other.counters", "backend mali\n\ncounter Other\n    group: G\n    usage: items\n"
	                             "    type: float64\n    description: D.\n    expression: JM0\n");
	assert_int_equal(OpenGPA_AddCounterFile(path_of("other.counters")), GPA_STATUS_OK);
	assert_int_equal(GPA_OpenContext(&key), GPA_STATUS_OK);
	assert_int_equal(num_counters(), FC_COUNT);
	assert_true(tu_log_has("written for the mali backend"));
}

static void run_sessions(unsigned n)
{
	const unsigned id = 0;
	for (unsigned i = 0; i < n; i++)
		tu_run_session(&id, 1);
}

static void expect_sessions(gpa_uint32 first_kept, gpa_uint32 last)
{
	for (gpa_uint32 s = 1; s <= last; s++) {
		gpa_uint32 count = 0;
		bool ready = false;
		gpa_uint64 v;
		if (s < first_kept) {
			assert_int_equal(GPA_GetSampleCount(s, &count), GPA_STATUS_ERROR_SESSION_NOT_FOUND);
			assert_int_equal(GPA_IsSessionReady(&ready, s), GPA_STATUS_ERROR_SESSION_NOT_FOUND);
			assert_int_equal(GPA_IsSampleReady(&ready, s, 0), GPA_STATUS_ERROR_SESSION_NOT_FOUND);
			assert_int_equal(GPA_GetSampleUInt64(s, 0, FC_C0, &v),
			                 GPA_STATUS_ERROR_SESSION_NOT_FOUND);
			assert_int_equal(tu_log.errors, 4);
			tu_log_clear();
		} else {
			assert_int_equal(GPA_GetSampleCount(s, &count), GPA_STATUS_OK);
			assert_int_equal(count, 1);
			assert_int_equal(GPA_IsSessionReady(&ready, s), GPA_STATUS_OK);
			assert_true(ready);
			assert_int_equal(GPA_GetSampleUInt64(s, 0, FC_C0, &v), GPA_STATUS_OK);
			TU_NO_ERROR();
		}
	}
}

static void test_session_ring(void **state)
{
	(void)state;
	/* Default: the newest four. */
	assert_int_equal(GPA_OpenContext(&key), GPA_STATUS_OK);
	assert_int_equal(GPA_EnableCounter(FC_C0), GPA_STATUS_OK);
	tu_log_clear();
	run_sessions(4);
	expect_sessions(1, 4);
	run_sessions(2);
	expect_sessions(3, 6);
	/* Shrinking keeps the newest; growing keeps what is there. */
	assert_int_equal(OpenGPA_SetSessionRingSize(2), GPA_STATUS_OK);
	expect_sessions(5, 6);
	run_sessions(1);
	expect_sessions(6, 7);
	assert_int_equal(OpenGPA_SetSessionRingSize(5), GPA_STATUS_OK);
	expect_sessions(6, 7);
	run_sessions(4);
	expect_sessions(7, 11);
	assert_int_equal(OpenGPA_SetSessionRingSize(1), GPA_STATUS_OK);
	expect_sessions(11, 11);
	assert_int_equal(GPA_CloseContext(), GPA_STATUS_OK);

	/* OPENGPA_SESSION_RING sets it for contexts opened later. */
	setenv("OPENGPA_SESSION_RING", "2", 1);
	assert_int_equal(GPA_OpenContext(&key), GPA_STATUS_OK);
	assert_int_equal(GPA_EnableCounter(FC_C0), GPA_STATUS_OK);
	tu_log_clear();
	run_sessions(3);
	expect_sessions(2, 3);
	assert_int_equal(GPA_CloseContext(), GPA_STATUS_OK);
	/* A bad value is reported and the default used. */
	setenv("OPENGPA_SESSION_RING", "zero", 1);
	assert_int_equal(GPA_OpenContext(&key), GPA_STATUS_OK);
	assert_true(tu_log_has("OPENGPA_SESSION_RING=zero"));
	assert_int_equal(GPA_EnableCounter(FC_C0), GPA_STATUS_OK);
	tu_log_clear();
	run_sessions(5);
	expect_sessions(2, 5);
}

/* A backend without begin_multiplexed_pass cannot multiplex: the call says
 * so and the plan is untouched; every sample reports full coverage. */
static void test_multiplexing_unsupported(void **state)
{
	(void)state;
	assert_int_equal(OpenGPA_SetMultiplexing(1), GPA_STATUS_ERROR_COUNTERS_NOT_OPEN);
	setenv("OPENGPA_MULTIPLEX", "1", 1);
	tu_log_clear();
	assert_int_equal(GPA_OpenContext(&key), GPA_STATUS_OK);
	assert_true(tu_log_has("OPENGPA_MULTIPLEX: the test backend cannot time-share"));
	unsetenv("OPENGPA_MULTIPLEX");
	assert_int_equal(OpenGPA_SetMultiplexing(1), GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED);
	assert_true(tu_log_has("cannot time-share more"));
	assert_int_equal(OpenGPA_SetMultiplexing(0), GPA_STATUS_OK);
	assert_int_equal(GPA_EnableCounter(FC_C0), GPA_STATUS_OK);
	const unsigned id = 3;
	unsigned session = tu_run_session(&id, 1);
	gpa_float64 coverage = 0;
	assert_int_equal(OpenGPA_GetSampleCoverage(session, 3, &coverage), GPA_STATUS_OK);
	assert_true(coverage == 1.0);
	assert_int_equal(OpenGPA_GetSampleCoverage(session + 9, 3, &coverage),
	                 GPA_STATUS_ERROR_SESSION_NOT_FOUND);
}

static void test_hardware_counters(void **state)
{
	(void)state;
	setenv("OPENGPA_HARDWARE_COUNTERS", "1", 1);
	assert_int_equal(GPA_OpenContext(&key), GPA_STATUS_OK);
	/* After the derived counters: R0..R5, X0, X1 (Gone is not countable). */
	assert_int_equal(num_counters(), FC_COUNT + 8);
	const char *s;
	GPA_Type t;
	assert_int_equal(GPA_GetCounterName(FC_COUNT, &s), GPA_STATUS_OK);
	assert_string_equal(s, "R0");
	assert_int_equal(GPA_GetCounterName(FC_COUNT + 7, &s), GPA_STATUS_OK);
	assert_string_equal(s, "X1");
	for (gpa_uint32 i = FC_COUNT; i < FC_COUNT + 8; i++) {
		assert_int_equal(GPA_GetCounterDataType(i, &t), GPA_STATUS_OK);
		assert_int_equal(t, GPA_TYPE_UINT64);
	}
	assert_int_equal(OpenGPA_GetCounterExpression(FC_COUNT, &s), GPA_STATUS_OK);
	assert_string_equal(s, "slot:0");
	assert_int_equal(GPA_GetCounterDescription(FC_COUNT, &s), GPA_STATUS_OK);
	assert_string_equal(s, "#Hardware#Raw slot 0.");
	assert_int_equal(GPA_EnableCounter(FC_COUNT + 1), GPA_STATUS_OK);
	const unsigned id = 8;
	gpa_uint32 sess = tu_run_session(&id, 1);
	gpa_uint64 v;
	assert_int_equal(GPA_GetSampleUInt64(sess, id, FC_COUNT + 1, &v), GPA_STATUS_OK);
	assert_int_equal(v, fake_value(1, 0, 0));
	assert_int_equal(GPA_CloseContext(), GPA_STATUS_OK);
	/* The call overrides the variable. */
	assert_int_equal(OpenGPA_SetHardwareCounters(0), GPA_STATUS_OK);
	assert_int_equal(GPA_OpenContext(&key), GPA_STATUS_OK);
	assert_int_equal(num_counters(), FC_COUNT);
	assert_int_equal(GPA_CloseContext(), GPA_STATUS_OK);
	unsetenv("OPENGPA_HARDWARE_COUNTERS");
	assert_int_equal(OpenGPA_SetHardwareCounters(1), GPA_STATUS_OK);
	assert_int_equal(GPA_OpenContext(&key), GPA_STATUS_OK);
	assert_int_equal(num_counters(), FC_COUNT + 8);
	TU_NO_ERROR();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_env_backend_and_path_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_env_path_directory, setup, teardown),
		cmocka_unit_test_setup_teardown(test_malformed_user_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_session_ring, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hardware_counters, setup, teardown),
		cmocka_unit_test_setup_teardown(test_multiplexing_unsupported, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
