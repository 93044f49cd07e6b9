/* SPDX-License-Identifier: MIT */
/*
 * test_mali_session_faults.c — Mali faults as a GPA client sees them: a dump
 * that never arrives, or a device that goes away, fails the sample it hit
 * while the session's other samples stay readable with the right values.
 * Both backends, on the virtual Mali-G71, through the GPA 2.x API.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "core/testing.h"
#include "opengpa.h"
#include "gpa_on_vmali.h"
#include "vmali.h"

static int log_errors;
static char last_error[600];

static void on_log(GPA_Logging_Type type, const char *msg)
{
	if (type != GPA_LOGGING_ERROR)
		return;
	log_errors++;
	snprintf(last_error, sizeof last_error, "%s", msg);
}

static struct vmali *current_vm;

static int teardown(void **unused)
{
	(void)unused;
	gv_release(&current_vm);
	return 0;
}

/* GPA_BeginSample of sample id, frames of work, GPA_EndSample; returns
 * EndSample's status and stores what the device counted as GPU active
 * cycles (JM:6) over the sample. */
static GPA_Status sample(gpa_uint32 id, unsigned frames, uint64_t *device_delta)
{
	assert_int_equal(GPA_BeginSample(id), GPA_STATUS_OK);
	uint64_t a = vmali_total(current_vm, VMALI_BLOCK_JM, VMALI_ALL, 6);
	vmali_run_frames(current_vm, frames);
	*device_delta = vmali_total(current_vm, VMALI_BLOCK_JM, VMALI_ALL, 6) - a;
	return GPA_EndSample();
}

enum fault { DUMP_NEVER_ARRIVES, DEVICE_VANISHES };

/* Samples 0 and 1 fine, the fault during sample 2, sample 3 after it. */
static void run(const char *backend, const char *options, enum fault fault)
{
	if (strcmp(backend, "panfrost") == 0 && !OG_TEST_HAVE_PANFROST)
		skip(); /* built without libdrm */
	struct vmali_config cfg = {.core_mask = 0xFF, .l2_slices = 2, .manual_frames = true,
	                           .panfrost_unstable_ioctls = true};
	current_vm = vmali_create(&cfg);
	assert_non_null(current_vm);
	og_testing_reset();
	og_testing_set_sys(vmali_sys(current_vm));
	log_errors = 0;
	assert_int_equal(GPA_RegisterLoggingCallback(GPA_LOGGING_ERROR, on_log), GPA_STATUS_OK);
	assert_int_equal(GPA_Initialize(), GPA_STATUS_OK);
	assert_int_equal(OpenGPA_SetBackend(backend, options), GPA_STATUS_OK);
	int key;
	assert_int_equal(GPA_OpenContext(&key), GPA_STATUS_OK);
	assert_int_equal(GPA_EnableCounterStr("GPUActiveCycles"), GPA_STATUS_OK);
	gpa_uint32 index;
	assert_int_equal(GPA_GetCounterIndex("GPUActiveCycles", &index), GPA_STATUS_OK);

	gpa_uint32 session;
	uint64_t want[4];
	assert_int_equal(GPA_BeginSession(&session), GPA_STATUS_OK);
	assert_int_equal(GPA_BeginPass(), GPA_STATUS_OK);
	assert_int_equal(sample(0, 1, &want[0]), GPA_STATUS_OK);
	assert_int_equal(sample(1, 2, &want[1]), GPA_STATUS_OK);
	assert_int_equal(log_errors, 0);

	struct vmali_faults f = {.dumps_never_arrive = fault == DUMP_NEVER_ARRIVES,
	                         .vanished = fault == DEVICE_VANISHES};
	assert_int_equal(GPA_BeginSample(2), GPA_STATUS_OK);
	vmali_run_frames(current_vm, 1);
	vmali_set_faults(current_vm, &f);
	assert_int_equal(GPA_EndSample(), GPA_STATUS_ERROR_FAILED);
	assert_int_equal(log_errors, 1);
	const char *why = fault == DEVICE_VANISHES ? "went away"
	                  : strcmp(backend, "mali") == 0 ? "did not arrive"
	                                                 : "timed out";
	if (!strstr(last_error, why))
		fail_msg("%s: log '%s' lacks '%s'", backend, last_error, why);

	f = (struct vmali_faults){0};
	vmali_set_faults(current_vm, &f);
	if (fault == DUMP_NEVER_ARRIVES)
		assert_int_equal(sample(3, 1, &want[3]), GPA_STATUS_OK);
	else /* gone stays gone, even if the node came back: a new context is needed */
		assert_int_equal(GPA_BeginSample(3), GPA_STATUS_ERROR_FAILED);
	assert_int_equal(GPA_EndPass(), GPA_STATUS_OK);
	assert_int_equal(GPA_EndSession(), GPA_STATUS_OK);

	gpa_uint64 v = 0;
	for (gpa_uint32 s = 0; s < 2; s++) {
		assert_int_equal(GPA_GetSampleUInt64(session, s, index, &v), GPA_STATUS_OK);
		assert_int_equal(v, want[s]);
		assert_true(v > 0);
	}
	assert_int_equal(GPA_GetSampleUInt64(session, 2, index, &v),
	                 GPA_STATUS_ERROR_READING_COUNTER_RESULT);
	if (fault == DUMP_NEVER_ARRIVES) {
		assert_int_equal(GPA_GetSampleUInt64(session, 3, index, &v), GPA_STATUS_OK);
		assert_int_equal(v, want[3]);
	} else {
		assert_int_equal(GPA_GetSampleUInt64(session, 3, index, &v),
		                 GPA_STATUS_ERROR_READING_COUNTER_RESULT);
	}
	assert_int_equal(GPA_CloseContext(), GPA_STATUS_OK);
}

static void test_kbase_dump_never_arrives(void **unused)
{
	(void)unused;
	run("mali", "timeout=50", DUMP_NEVER_ARRIVES);
}

static void test_kbase_device_vanishes(void **unused)
{
	(void)unused;
	run("mali", "timeout=50", DEVICE_VANISHES);
}

static void test_panfrost_dump_never_arrives(void **unused)
{
	(void)unused;
	run("panfrost", NULL, DUMP_NEVER_ARRIVES);
}

static void test_panfrost_device_vanishes(void **unused)
{
	(void)unused;
	run("panfrost", NULL, DEVICE_VANISHES);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_kbase_dump_never_arrives, teardown),
		cmocka_unit_test_teardown(test_kbase_device_vanishes, teardown),
		cmocka_unit_test_teardown(test_panfrost_dump_never_arrives, teardown),
		cmocka_unit_test_teardown(test_panfrost_device_vanishes, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
