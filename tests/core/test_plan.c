/* SPDX-License-Identifier: MIT */
/* test_plan.c — the pass planner, seen through GPA_GetPassCount and
 * OpenGPA_GetCounterPass over the fake backend. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "fake_backend.h"
#include "test_util.h"

static int key;

static int setup(void **state)
{
	(void)state;
	tu_open(&key);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tu_teardown();
	return 0;
}

static void enable(const gpa_uint32 *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		assert_int_equal(GPA_EnableCounter(list[i]), GPA_STATUS_OK);
}

static void test_three_passes(void **state)
{
	(void)state;
	const gpa_uint32 six[] = { FC_C0, FC_C1, FC_C2, FC_C3, FC_C4, FC_C5 };
	enable(six, 6);
	assert_int_equal(tu_passes(), 3);
	for (gpa_uint32 i = 0; i < 6; i++)
		assert_int_equal(tu_pass_of(six[i]), i / 2);
	/* The plan follows the enable set. */
	assert_int_equal(GPA_DisableCounter(FC_C5), GPA_STATUS_OK);
	assert_int_equal(tu_passes(), 3);
	assert_int_equal(GPA_DisableCounter(FC_C4), GPA_STATUS_OK);
	assert_int_equal(tu_passes(), 2);
	fake_config.max_per_pass = 1;
	/* The backend's answer is asked again only when the enable set changes. */
	assert_int_equal(GPA_DisableCounter(FC_C3), GPA_STATUS_OK);
	assert_int_equal(tu_passes(), 3);
	TU_NO_ERROR();
}

static void test_inputs_kept_together(void **state)
{
	(void)state;
	/* C0 and C2 fill pass 0; Sum13's two inputs go together into pass 1,
	 * not one into a gap each. */
	const gpa_uint32 list[] = { FC_C0, FC_C2, FC_SUM13, FC_C1, FC_C3 };
	enable(list, 5);
	assert_int_equal(tu_passes(), 2);
	assert_int_equal(tu_pass_of(FC_C0), 0);
	assert_int_equal(tu_pass_of(FC_C2), 0);
	assert_int_equal(tu_pass_of(FC_SUM13), 1);
	assert_int_equal(tu_pass_of(FC_C1), 1);
	assert_int_equal(tu_pass_of(FC_C3), 1);

	/* A later counter that fits into an earlier pass's gap goes there. */
	assert_int_equal(GPA_DisableAllCounters(), GPA_STATUS_OK);
	const gpa_uint32 gap[] = { FC_C0, FC_SUM13, FC_C2 };
	enable(gap, 3);
	assert_int_equal(tu_passes(), 2);
	assert_int_equal(tu_pass_of(FC_C2), 0);
	TU_NO_ERROR();
}

static void test_split_when_impossible(void **state)
{
	(void)state;
	/* X0 and X1 can never share a pass: the counter spans two. */
	assert_int_equal(GPA_EnableCounter(FC_XSUM), GPA_STATUS_OK);
	assert_int_equal(tu_passes(), 2);
	assert_int_equal(tu_pass_of(FC_XSUM), 1);
	/* Ordinary raws join them. */
	const gpa_uint32 list[] = { FC_C0, FC_C1 };
	enable(list, 2);
	assert_int_equal(tu_passes(), 2);
	assert_int_equal(tu_pass_of(FC_C0), 0);
	assert_int_equal(tu_pass_of(FC_C1), 1);
	TU_NO_ERROR();
}

static void test_shared_raw_planned_once(void **state)
{
	(void)state;
	/* R0 and R1 are inputs of three counters; each is counted once (the
	 * fake's fits() refuses a raw that appears twice). */
	const gpa_uint32 list[] = { FC_C0, FC_SUM01, FC_C1, FC_NESTED };
	enable(list, 4);
	assert_int_equal(tu_passes(), 1);
	const unsigned id = 1;
	tu_run_session(&id, 1);
	assert_int_equal(fake_stats.last_pass_n, 2);
	TU_NO_ERROR();
}

static void test_unplaceable(void **state)
{
	(void)state;
	fake_config.max_per_pass = 0;
	assert_int_equal(GPA_EnableCounter(FC_C0), GPA_STATUS_OK);
	gpa_uint32 n = 0, s = 0;
	assert_int_equal(GPA_GetPassCount(&n), GPA_STATUS_ERROR_FAILED);
	assert_true(tu_log_has("R0"));
	TU_ONE_ERROR();
	assert_int_equal(GPA_BeginSession(&s), GPA_STATUS_ERROR_FAILED);
	TU_ONE_ERROR();
	/* Many passes: one raw per pass. */
	fake_config.max_per_pass = 1;
	const gpa_uint32 more[] = { FC_C1, FC_C2, FC_C3, FC_C4, FC_C5, FC_XSUM };
	enable(more, 6);
	assert_int_equal(tu_passes(), 8);
	const unsigned ids[] = { 4, 2 };
	tu_run_session(ids, 2);
	TU_NO_ERROR();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_three_passes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_inputs_kept_together, setup, teardown),
		cmocka_unit_test_setup_teardown(test_split_when_impossible, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shared_raw_planned_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unplaceable, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
