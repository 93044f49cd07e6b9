/* SPDX-License-Identifier: MIT */
/* test_api.c — the mips backend behind the GPA 2.x API, over the virtual 34K:
 * the embedded counter set loads, the planner packs the derived counters'
 * inputs into the fewest passes, and the derived values follow the model. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "GPUPerfAPI.h"
#include "core/testing.h"
#include "opengpa.h"
#include "v34k.h"

static char last_error[512];

static void on_log(GPA_Logging_Type type, const char *msg)
{
	if (type & GPA_LOGGING_ERROR)
		snprintf(last_error, sizeof last_error, "%s", msg);
}

static double sample(gpa_uint32 session, const char *name)
{
	gpa_uint32 index;
	assert_int_equal(GPA_GetCounterIndex(name, &index), GPA_STATUS_OK);
	gpa_float64 v = -1;
	assert_int_equal(GPA_GetSampleFloat64(session, 0, index, &v), GPA_STATUS_OK);
	return v;
}

static void test_derived_counters_over_v34k(void **unused)
{
	struct v34k *dev = v34k_new(NULL);
	og_testing_reset();
	og_testing_set_sys(v34k_sys(dev));
	assert_int_equal(GPA_RegisterLoggingCallback(GPA_LOGGING_ERROR_AND_MESSAGE, on_log),
	                 GPA_STATUS_OK);
	assert_int_equal(OpenGPA_SetBackend("mips", "modes=u"), GPA_STATUS_OK);
	GPA_Initialize();
	int key = 0;
	if (GPA_OpenContext(&key) != GPA_STATUS_OK)
		fail_msg("GPA_OpenContext: %s", last_error);
	static const char *const enable[] = {"IPC", "DCacheMissRate", "CycleSharingOverhead",
	                                     "ICacheMissRate"};
	for (size_t i = 0; i < 4; i++)
		if (GPA_EnableCounterStr(enable[i]) != GPA_STATUS_OK)
			fail_msg("enable %s: %s", enable[i], last_error);
	/* Cycles, Instructions and D-cache misses (either bank), D-cache and
	 * I-cache accesses and all stalls (even), I-cache misses (odd): 7 raw
	 * counters, 3 even-only, so at least 2 passes. */
	gpa_uint32 passes = 0;
	assert_int_equal(GPA_GetPassCount(&passes), GPA_STATUS_OK);
	print_message("%u passes\n", passes);
	assert_true(passes >= 2 && passes <= 4);
	gpa_uint32 session = 0;
	assert_int_equal(GPA_BeginSession(&session), GPA_STATUS_OK);
	for (gpa_uint32 p = 0; p < passes; p++) {
		if (GPA_BeginPass() != GPA_STATUS_OK)
			fail_msg("pass %u: %s", p, last_error);
		assert_int_equal(GPA_BeginSample(0), GPA_STATUS_OK);
		v34k_run(dev, 3000000, V34K_USER, 0, 0);
		v34k_run(dev, 1000000, V34K_KERNEL, 0, 0); /* not counted */
		if (GPA_EndSample() != GPA_STATUS_OK)
			fail_msg("sample: %s", last_error);
		assert_int_equal(GPA_EndPass(), GPA_STATUS_OK);
	}
	assert_int_equal(GPA_EndSession(), GPA_STATUS_OK);
	bool ready = false;
	assert_int_equal(GPA_IsSessionReady(&ready, session), GPA_STATUS_OK);
	assert_true(ready);
	/* The model: instructions 4/5 of cycles, stalls 17/100, D-cache misses
	 * 1/20 of accesses, I-cache misses 1/60 of accesses. */
	const uint64_t c = 3000000;
	double ipc = (double)v34k_model_count(c, 0, 1) / (double)c;
	double dmr = 100.0 * (double)v34k_model_count(c, 0, 11) / (double)v34k_model_count(c, 0, 10);
	double imr = 100.0 * (double)v34k_model_count(c, 1, 9) / (double)v34k_model_count(c, 0, 9);
	double over = 100.0 * (double)(c - v34k_model_count(c, 0, 1) - v34k_model_count(c, 0, 18)) /
	              (double)c;
	assert_float_equal(sample(session, "IPC"), ipc, 1e-12);
	assert_float_equal(sample(session, "DCacheMissRate"), dmr, 1e-9);
	assert_float_equal(sample(session, "ICacheMissRate"), imr, 1e-9);
	assert_float_equal(sample(session, "CycleSharingOverhead"), over, 1e-9);
	assert_int_equal(GPA_CloseContext(), GPA_STATUS_OK);
	GPA_Destroy();
	GPA_RegisterLoggingCallback(GPA_LOGGING_NONE, NULL);
	og_testing_reset();
	/* Close put back the controls found at open (all zero on a new device). */
	for (unsigned k = 0; k < 4; k++)
		assert_int_equal(v34k_ctl(dev, k) & 0x3fffffffu, 0);
	v34k_free(dev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_derived_counters_over_v34k),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
