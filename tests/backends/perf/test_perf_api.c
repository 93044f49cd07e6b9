/* SPDX-License-Identifier: MIT */
/* test_perf_api.c — the perf backend under the whole library, over the
 * simulated kernel: the MIDR picks the Neoverse set, the core loads it with
 * perf-generic, and the probed counter budget decides the pass count. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <string.h>

#include "GPUPerfAPI.h"
#include "core/testing.h"
#include "fake_perf.h"
#include "fake_spe.h"
#include "opengpa.h"
#include "spe_bytes.h"

static struct fake_perf K;
static struct fake_spe P;
static int device;

static void open_arm(const char *midr, unsigned slots)
{
	fake_perf_init(&K);
	fake_perf_set_file(&K, "/proc/cpuinfo", "processor\t: 0\nBogoMIPS\t: 50.00\n");
	fake_perf_set_file(&K, "/sys/devices/system/cpu/cpu0/regs/identification/midr_el1", midr);
	K.pmu = true;
	K.hw_slots = slots;
	og_testing_reset();
	og_testing_set_sys(&K.sys);
	assert_int_equal(GPA_Initialize(), GPA_STATUS_OK);
	assert_int_equal(OpenGPA_SetBackend("perf", ""), GPA_STATUS_OK);
	assert_int_equal(GPA_OpenContext(&device), GPA_STATUS_OK);
}

static void close_all(void)
{
	assert_int_equal(GPA_CloseContext(), GPA_STATUS_OK);
	assert_int_equal(GPA_Destroy(), GPA_STATUS_OK);
	og_testing_reset();
	assert_int_equal(fake_perf_open_fds(&K), 0);
}

static void enable_level1(void)
{
	static const char *const l1[] = { "FrontendBound", "BackendBound", "BadSpeculation",
		                          "Retiring" };
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(GPA_EnableCounterStr(l1[i]), GPA_STATUS_OK);
}

static void run_session(gpa_uint32 passes)
{
	gpa_uint32 session;
	assert_int_equal(GPA_BeginSession(&session), GPA_STATUS_OK);
	for (gpa_uint32 p = 0; p < passes; p++) {
		assert_int_equal(GPA_BeginPass(), GPA_STATUS_OK);
		assert_int_equal(GPA_BeginSample(0), GPA_STATUS_OK);
		assert_int_equal(GPA_EndSample(), GPA_STATUS_OK);
		assert_int_equal(GPA_EndPass(), GPA_STATUS_OK);
	}
	assert_int_equal(GPA_EndSession(), GPA_STATUS_OK);
	gpa_uint8 ready = 0; /* GPA 2.x headers make bool an unsigned char */
	assert_int_equal(GPA_IsSessionReady(&ready, session), GPA_STATUS_OK);
	assert_true(ready);
	gpa_uint32 index;
	gpa_float64 v = -1;
	assert_int_equal(GPA_GetCounterIndex("Retiring", &index), GPA_STATUS_OK);
	assert_int_equal(GPA_GetSampleFloat64(session, 0, index, &v), GPA_STATUS_OK);
}

static void test_n2_r0p3_one_pass(void **unused)
{
	(void)unused;
	open_arm("0x410fd493\n", 8);
	const char *desc = NULL;
	assert_int_equal(GPA_GetDeviceDesc(&desc), GPA_STATUS_OK);
	assert_string_equal(desc, "Arm Neoverse-N2 r0p3");
	gpa_uint32 id = 0, index;
	assert_int_equal(GPA_GetDeviceID(&id), GPA_STATUS_OK);
	assert_int_equal(id, 0x410fd493);
	/* Both sets are loaded: the core's top-down and the generic counters. */
	assert_int_equal(GPA_GetCounterIndex("FrontendBound", &index), GPA_STATUS_OK);
	assert_int_equal(GPA_GetCounterIndex("PageFaults", &index), GPA_STATUS_OK);
	assert_int_equal(GPA_GetCounterIndex("IPC", &index), GPA_STATUS_OK);
	enable_level1();
	gpa_uint32 passes = 0;
	assert_int_equal(GPA_GetPassCount(&passes), GPA_STATUS_OK);
	assert_int_equal(passes, 1); /* 7 events, 8 counters */
	run_session(passes);
	close_all();
}

/* Sets what one sample of an open raw event counts (each group read adds
 * step, and a sample is two reads). */
static void set_count(uint64_t code, uint64_t count)
{
	struct fake_event *e = fake_perf_find(&K, PERF_TYPE_RAW, code);
	assert_non_null(e);
	e->step = count;
}

/* An Azure Cobalt 100 that reports r0p3 counts slots as an Arm N2 r0p3
 * does: FrontendBound must not subtract CPU_CYCLES from the slot count,
 * which would put it 20 points of slots (C / 5C) low. */
static void test_cobalt_r0p3_frontend_bound(void **unused)
{
	(void)unused;
	open_arm("0x6d0fd493\n", 8);
	gpa_uint32 index, session;
	assert_int_equal(GPA_GetCounterIndex("FrontendBound", &index), GPA_STATUS_OK);
	assert_int_equal(GPA_EnableCounterStr("FrontendBound"), GPA_STATUS_OK);
	assert_int_equal(GPA_BeginSession(&session), GPA_STATUS_OK);
	assert_int_equal(GPA_BeginPass(), GPA_STATUS_OK);
	set_count(0x11, 1000); /* CPU_CYCLES */
	set_count(0x3e, 2000); /* STALL_SLOT_FRONTEND */
	set_count(0x10, 10);   /* BR_MIS_PRED */
	assert_int_equal(GPA_BeginSample(0), GPA_STATUS_OK);
	assert_int_equal(GPA_EndSample(), GPA_STATUS_OK);
	assert_int_equal(GPA_EndPass(), GPA_STATUS_OK);
	assert_int_equal(GPA_EndSession(), GPA_STATUS_OK);
	gpa_float64 v = -1;
	assert_int_equal(GPA_GetSampleFloat64(session, 0, index, &v), GPA_STATUS_OK);
	/* 100 * (2000 / (5 * 1000) - 10 / 1000); the r0p0-r0p2 formula gives 19. */
	assert_true(v > 38.999 && v < 39.001);
	close_all();
}

static double sample_value(gpa_uint32 session, const char *name)
{
	gpa_uint32 index;
	gpa_float64 v = -1;
	assert_int_equal(GPA_GetCounterIndex(name, &index), GPA_STATUS_OK);
	assert_int_equal(GPA_GetSampleFloat64(session, 0, index, &v), GPA_STATUS_OK);
	return v;
}

/* SPE's counters through the whole library: the arm-spe set is loaded on an
 * Arm core, and a sample's records become GPA counters. */
static void test_spe_counters(void **unused)
{
	(void)unused;
	fake_perf_init(&K);
	fake_spe_init(&P, &K);
	fake_perf_set_file(&K, "/proc/cpuinfo", "processor\t: 0\nBogoMIPS\t: 50.00\n");
	fake_perf_set_file(&K, "/sys/devices/system/cpu/cpu0/regs/identification/midr_el1",
	                   "0x410fd4f0\n");
	K.pmu = true;
	K.hw_slots = 6;
	og_testing_reset();
	og_testing_set_sys(&P.sys);
	assert_int_equal(GPA_Initialize(), GPA_STATUS_OK);
	assert_int_equal(OpenGPA_SetBackend("perf", ""), GPA_STATUS_OK);
	assert_int_equal(GPA_OpenContext(&device), GPA_STATUS_OK);
	static const char *const names[] = { "SPELoadsFromDRAMPercentage", "SPELoadLatency99th",
		                             "SPELoadLatencyMean", "SPEBranchMispredictPercentage",
		                             "SPETLBWalkPercentage", "SPELoadPercentage" };
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		assert_int_equal(GPA_EnableCounterStr(names[i]), GPA_STATUS_OK);
	gpa_uint32 session, passes = 0;
	assert_int_equal(GPA_GetPassCount(&passes), GPA_STATUS_OK);
	assert_int_equal(passes, 1);
	assert_int_equal(GPA_BeginSession(&session), GPA_STATUS_OK);
	assert_int_equal(GPA_BeginPass(), GPA_STATUS_OK);
	assert_int_equal(GPA_BeginSample(0), GPA_STATUS_OK);
	struct spe_bytes b = { .n = 0 };
	for (int i = 0; i < 99; i++)
		spe_load(&b, 0x1000, 10, 0, 0x0);        /* 99 L1 hits of 10 cycles */
	spe_load(&b, 0x2000, 400, 1u << 5, 0xe);        /* one DRAM load with a walk */
	spe_branch(&b, 0x3000, 1);
	spe_branch(&b, 0x3004, 0);
	spe_branch(&b, 0x3008, 0);
	spe_branch(&b, 0x300c, 0);
	fake_spe_write(fake_spe_event(&P, -1), b.b, b.n);
	assert_int_equal(GPA_EndSample(), GPA_STATUS_OK);
	assert_int_equal(GPA_EndPass(), GPA_STATUS_OK);
	assert_int_equal(GPA_EndSession(), GPA_STATUS_OK);
	assert_float_equal(sample_value(session, "SPELoadsFromDRAMPercentage"), 1.0, 1e-9);
	assert_float_equal(sample_value(session, "SPELoadLatency99th"), 10.0, 1e-9);
	assert_float_equal(sample_value(session, "SPELoadLatencyMean"), (99 * 10 + 400) / 100.0,
	                   1e-9);
	assert_float_equal(sample_value(session, "SPEBranchMispredictPercentage"), 25.0, 1e-9);
	assert_float_equal(sample_value(session, "SPETLBWalkPercentage"), 1.0, 1e-9);
	assert_float_equal(sample_value(session, "SPELoadPercentage"), 100.0 * 100 / 104, 1e-9);
	close_all();
	assert_int_equal(P.opens, P.closes);
	assert_int_equal(P.maps, P.unmaps);
	fake_spe_free(&P);
}

/* Without an SPE PMU the SPE counters are listed as not countable, with
 * the reason, and everything else is there. */
static void test_spe_absent(void **unused)
{
	(void)unused;
	open_arm("0x410fd4f0\n", 6);
	gpa_uint32 index, n = 0;
	assert_int_not_equal(GPA_GetCounterIndex("SPELoadLatency99th", &index), GPA_STATUS_OK);
	assert_int_equal(GPA_GetCounterIndex("FrontendBound", &index), GPA_STATUS_OK);
	assert_int_equal(OpenGPA_GetUnavailableCount(&n), GPA_STATUS_OK);
	bool said = false;
	for (gpa_uint32 i = 0; i < n; i++) {
		const char *name = "", *why = "";
		assert_int_equal(OpenGPA_GetUnavailableCounter(i, &name, &why), GPA_STATUS_OK);
		if (strcmp(name, "SPELoadLatency99th") == 0)
			said = strstr(why, "no SPE PMU") != NULL;
	}
	assert_true(said);
	close_all();
}

static void test_small_pmu_two_passes(void **unused)
{
	(void)unused;
	open_arm("0x410fd4f0\n", 4);
	enable_level1();
	gpa_uint32 passes = 0;
	assert_int_equal(GPA_GetPassCount(&passes), GPA_STATUS_OK);
	assert_int_equal(passes, 2); /* 7 events, 4 counters */
	run_session(passes);
	close_all();
}

static void test_no_pmu_hides_hardware_counters(void **unused)
{
	(void)unused;
	fake_perf_init(&K);
	og_testing_reset();
	og_testing_set_sys(&K.sys);
	assert_int_equal(GPA_Initialize(), GPA_STATUS_OK);
	assert_int_equal(OpenGPA_SetBackend("perf", ""), GPA_STATUS_OK);
	assert_int_equal(GPA_OpenContext(&device), GPA_STATUS_OK);
	gpa_uint32 index;
	assert_int_equal(GPA_GetCounterIndex("TaskClock", &index), GPA_STATUS_OK);
	assert_int_not_equal(GPA_GetCounterIndex("IPC", &index), GPA_STATUS_OK);
	assert_int_not_equal(GPA_GetCounterIndex("Cycles", &index), GPA_STATUS_OK);
	close_all();
}

/* Multiplexing: the two passes level 1 needs on a 4-counter PMU become one
 * pass of two time-shared groups, each group's counts scaled on its own. */
static void test_small_pmu_multiplexed(void **unused)
{
	(void)unused;
	open_arm("0x410fd4f0\n", 4);
	enable_level1();
	assert_int_equal(OpenGPA_SetMultiplexing(1), GPA_STATUS_OK);
	gpa_uint32 passes = 0;
	assert_int_equal(GPA_GetPassCount(&passes), GPA_STATUS_OK);
	assert_int_equal(passes, 1);
	K.running_permille = 500;
	gpa_uint32 session;
	assert_int_equal(GPA_BeginSession(&session), GPA_STATUS_OK);
	assert_int_equal(OpenGPA_SetMultiplexing(0), GPA_STATUS_ERROR_SAMPLING_ALREADY_STARTED);
	assert_int_equal(GPA_BeginPass(), GPA_STATUS_OK);
	int groups = 0;
	for (int i = 0; i < K.nev; i++)
		groups += K.ev[i].open && K.ev[i].leader == i;
	assert_int_equal(groups, 2);
	assert_int_equal(GPA_BeginSample(7), GPA_STATUS_OK);
	assert_int_equal(GPA_EndSample(), GPA_STATUS_OK);
	assert_int_equal(GPA_EndPass(), GPA_STATUS_OK);
	assert_int_equal(GPA_EndSession(), GPA_STATUS_OK);
	gpa_float64 coverage = 0;
	assert_int_equal(OpenGPA_GetSampleCoverage(session, 7, &coverage), GPA_STATUS_OK);
	assert_true(coverage > 0.499 && coverage < 0.501);
	assert_int_equal(OpenGPA_GetSampleCoverage(session, 8, &coverage),
	                 GPA_STATUS_ERROR_SAMPLE_NOT_FOUND);
	assert_int_equal(OpenGPA_GetSampleCoverage(session, 7, NULL), GPA_STATUS_ERROR_NULL_POINTER);
	gpa_uint32 index;
	gpa_float64 v = -1;
	assert_int_equal(GPA_GetCounterIndex("Retiring", &index), GPA_STATUS_OK);
	assert_int_equal(GPA_GetSampleFloat64(session, 7, index, &v), GPA_STATUS_OK);
	/* Off again: back to two passes, and a full-coverage sample. */
	K.running_permille = 1000;
	assert_int_equal(OpenGPA_SetMultiplexing(0), GPA_STATUS_OK);
	assert_int_equal(GPA_GetPassCount(&passes), GPA_STATUS_OK);
	assert_int_equal(passes, 2);
	run_session(passes);
	assert_int_equal(OpenGPA_GetSampleCoverage(session + 1, 0, &coverage), GPA_STATUS_OK);
	assert_true(coverage == 1.0);
	close_all();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_n2_r0p3_one_pass),
		cmocka_unit_test(test_cobalt_r0p3_frontend_bound),
		cmocka_unit_test(test_spe_counters),
		cmocka_unit_test(test_spe_absent),
		cmocka_unit_test(test_small_pmu_two_passes),
		cmocka_unit_test(test_small_pmu_multiplexed),
		cmocka_unit_test(test_no_pmu_hides_hardware_counters),
	};
	return cmocka_run_group_tests_name("perf-api", tests, NULL, NULL);
}
