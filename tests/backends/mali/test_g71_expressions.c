/* SPDX-License-Identifier: MIT */
/*
 * test_g71_expressions.c — every counter of counters/mali-g71.counters,
 * read through the GPA 2.x API from the mali and panfrost backends on the
 * virtual Mali-G71, against the same formulas written out here in C from the
 * guide (sections 3 to 11) over what the device says it counted.
 *
 * The expected side never goes through the expression engine: a typo in the
 * counter file, a wrong source index, a summing mistake in a backend or an
 * engine bug all show up as a mismatch.
 */
#include <math.h>
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
static char last_log[600];

static void on_log(GPA_Logging_Type type, const char *msg)
{
	if (type == GPA_LOGGING_ERROR)
		log_errors++;
	snprintf(last_log, sizeof last_log, "%s", msg);
}

/* Deltas of one sample, per block type and word, and the constants. */
struct sample {
	double v[4][64];
	double cores, slices, bus_bits;
};

static double dv(double a, double b)
{
	return b == 0 ? 0 : a / b; /* the counter files' policy: x / 0 = 0 */
}

static double pct(double ratio)
{
	double p = ratio * 100;
	return p > 100 ? 100 : p < 0 ? 0 : p;
}

struct expect {
	const char *name;
	double value;
	bool integer;
};

#define MAXE 100
static struct expect ex[MAXE];
static size_t nex;

static void E(const char *name, double value, bool integer)
{
	assert_true(nex < MAXE);
	ex[nex++] = (struct expect){name, value, integer};
}
#define F(n, v) E(n, v, false)
#define U(n, v) E(n, v, true)

/* The guide's expressions, transcribed by hand. */
static void expectations(const struct sample *s)
{
	const double *jm = s->v[0], *tl = s->v[1], *l2 = s->v[2], *sc = s->v[3];
	double ga = jm[6];
	nex = 0;
	/* 3 GPU activity */
	U("GPUActiveCycles", ga);
	U("NonFragmentQueueActiveCycles", jm[18]);
	U("FragmentQueueActiveCycles", jm[10]);
	U("TilerActiveCycles", tl[4]);
	U("GPUInterruptPendingCycles", jm[7]);
	F("NonFragmentQueueUtilization", pct(dv(jm[18], ga)));
	F("FragmentQueueUtilization", pct(dv(jm[10], ga)));
	F("TilerUtilization", pct(dv(tl[4], ga)));
	U("OutputExternalReadBytes", l2[32] * (s->bus_bits / 8));
	U("OutputExternalWriteBytes", l2[47] * (s->bus_bits / 8));
	F("OutputExternalReadStallRate", pct(dv(dv(l2[33], s->slices), ga)));
	F("OutputExternalWriteStallRate", pct(dv(dv(l2[48], s->slices), ga)));
	U("OutputExternalReadLatency0To127Cycles", l2[37]);
	U("OutputExternalReadLatency128To191Cycles", l2[38]);
	U("OutputExternalReadLatency192To255Cycles", l2[39]);
	U("OutputExternalReadLatency256To319Cycles", l2[40]);
	U("OutputExternalReadLatency320To383Cycles", l2[41]);
	U("OutputExternalReadLatency384PlusCycles", l2[32] - l2[37] - l2[38] - l2[39] - l2[40] - l2[41]);
	/* 4 content behaviour */
	double culled = tl[12] + tl[13] + tl[14], total = culled + tl[11];
	U("TotalInputPrimitives", total);
	U("CulledPrimitives", culled);
	U("VisiblePrimitives", tl[11]);
	F("VisiblePrimitivesRate", pct(dv(tl[11], total)));
	F("FacingOrXYPlaneTestCullRate", pct(dv(tl[12], total)));
	F("ZPlaneTestCullRate", pct(dv(tl[13], total - tl[12])));
	F("SampleTestCullRate", pct(dv(tl[14], total - tl[12] - tl[13])));
	U("PositionShaderThreadInvocations", tl[21] * 4);
	U("VaryingShaderThreadInvocations", tl[37] * 4);
	F("PositionThreadsPerInputPrimitive", dv(tl[21] * 4, total));
	F("VaryingThreadsPerInputPrimitive", dv(tl[37] * 4, tl[11]));
	double pixels = jm[9] * 1024;
	U("Pixels", pixels);
	F("CyclesPerPixel", dv(ga, pixels));
	F("FragmentsPerPixel", dv(sc[9] * 4, pixels));
	double qr = sc[11];
	F("EarlyZSTestedQuadPercentage", pct(dv(sc[12], qr)));
	F("EarlyZSUpdatedQuadPercentage", pct(dv(sc[13], qr)));
	F("EarlyZSKilledQuadPercentage", pct(dv(sc[14], qr)));
	F("FPKKilledQuadPercentage", pct(dv(qr - sc[14] - sc[9], qr)));
	F("LateZSTestedQuadPercentage", pct(dv(sc[15], qr)));
	F("LateZSKilledQuadPercentage", pct(dv(sc[16], qr)));
	/* 5 shader core data path */
	U("NonFragmentWarps", sc[24]);
	U("FragmentWarps", sc[9]);
	F("NonFragmentCyclesPerThread", dv(sc[22], sc[24] * 4));
	F("FragmentCyclesPerThread", dv(sc[4], sc[9] * 4));
	F("NonFragmentUtilization", pct(dv(dv(sc[22], s->cores), ga)));
	F("FragmentUtilization", pct(dv(dv(sc[4], s->cores), ga)));
	F("FragmentFPKBufferUtilization", pct(dv(sc[7], sc[4])));
	F("ExecutionCoreUtilization", pct(dv(dv(sc[26], s->cores), ga)));
	/* 6 functional units */
	double ec = sc[26], ls = sc[44] + sc[45] + sc[46] + sc[47] + sc[48];
	F("ArithmeticUnitUtilization", pct(dv(sc[28], ec)));
	F("VaryingUnitUtilization", pct(dv(sc[50] + sc[51], ec)));
	F("TextureUnitUtilization", pct(dv(sc[40], ec)));
	F("LoadStoreUnitUtilization", pct(dv(ls, ec)));
	F("DivergedInstructionIssueRate", pct(dv(sc[29], sc[28])));
	F("PartialCoverageRate", pct(dv(sc[10], sc[9])));
	F("UnchangedTileKillRate", pct(dv(sc[19], sc[18])));
	/* 7 varying unit */
	U("VaryingCycles", sc[50] + sc[51]);
	U("Interpolation16BitCycles", sc[51]);
	U("Interpolation32BitCycles", sc[50]);
	/* 8 texture unit */
	U("TextureFilteringCycles", sc[40]);
	F("TextureFilteringCyclesPerInstruction", dv(sc[40], sc[35]));
	F("TextureAccessesUsingCompressedTexturePercentage", pct(dv(sc[37], sc[35])));
	F("TextureAccessesUsing3DTexturePercentage", pct(dv(sc[38], sc[35])));
	F("TextureAccessesUsingTrilinearFilterPercentage", pct(dv(sc[39], sc[35])));
	F("TextureAccessesUsingMipmappingPercentage", pct(dv(sc[36], sc[35])));
	F("TextureBytesReadFromL2PerTextureCycle", dv(sc[58] * 16, sc[40]));
	F("TextureBytesReadFromExternalMemoryPerTextureCycle", dv(sc[59] * 16, sc[40]));
	/* 9 load/store unit */
	U("LoadStoreTotalIssues", ls);
	U("LoadStoreFullReadIssues", sc[44]);
	U("LoadStorePartialReadIssues", sc[45]);
	U("LoadStoreFullWriteIssues", sc[46]);
	U("LoadStorePartialWriteIssues", sc[47]);
	U("LoadStoreAtomicIssues", sc[48]);
	F("LoadStoreBytesReadFromL2PerAccessCycle", dv(sc[56] * 16, sc[44] + sc[45]));
	F("LoadStoreBytesReadFromExternalMemoryPerAccessCycle", dv(sc[57] * 16, sc[44] + sc[45]));
	F("LoadStoreBytesWrittenToL2PerAccessCycle", dv(sc[61] * 16, sc[46] + sc[47]));
	/* 10 memory traffic */
	U("FrontEndReadBytesFromL2Cache", sc[54] * 16);
	U("LoadStoreReadBytesFromL2Cache", sc[56] * 16);
	U("TextureReadBytesFromL2Cache", sc[58] * 16);
	U("FrontEndReadBytesFromExternalMemory", sc[55] * 16);
	U("LoadStoreReadBytesFromExternalMemory", sc[57] * 16);
	U("TextureReadBytesFromExternalMemory", sc[59] * 16);
	U("LoadStoreWriteBytes", sc[61] * 16);
	U("TileBufferWriteBytes", sc[62] * 16);
	/* 11 configuration */
	U("ShaderCoreCount", s->cores);
	U("L2CacheSliceCount", s->slices);
	U("ExternalBusBeatSize", s->bus_bits / 8);
}

static void snapshot(struct vmali *vm, double t[4][64])
{
	for (int b = 0; b < 4; b++)
		for (unsigned i = 0; i < 64; i++)
			t[b][i] = (double)vmali_total(vm, (enum vmali_block)b, VMALI_ALL, i);
}

/* The device of the running case; the teardown frees it even when an
 * assertion left the case half way. */
static struct vmali *current_vm;

static int teardown(void **unused)
{
	(void)unused;
	gv_release(&current_vm);
	return 0;
}

static void run_case(const char *backend, uint64_t mask, uint32_t slices, uint32_t bus_bits,
                     unsigned frames)
{
	struct vmali_config cfg = {.gpu_id = 0x6000, .core_mask = mask, .l2_slices = slices,
	                           .bus_width_bits = bus_bits, .manual_frames = true,
	                           .panfrost_unstable_ioctls = true};
	if (strcmp(backend, "panfrost") == 0 && !OG_TEST_HAVE_PANFROST)
		skip(); /* built without libdrm */
	struct vmali *vm = vmali_create(&cfg);
	assert_non_null(vm);
	current_vm = vm;
	og_testing_reset();
	og_testing_set_sys(vmali_sys(vm));
	log_errors = 0;
	assert_int_equal(GPA_RegisterLoggingCallback(GPA_LOGGING_ERROR_AND_MESSAGE, on_log), 0);
	assert_int_equal(GPA_Initialize(), GPA_STATUS_OK);
	assert_int_equal(OpenGPA_SetBackend(backend, NULL), GPA_STATUS_OK);
	int key;
	GPA_Status st = GPA_OpenContext(&key);
	if (st != GPA_STATUS_OK)
		fail_msg("%s: GPA_OpenContext: %d (%s)", backend, st, last_log);

	struct sample s;
	memset(&s, 0, sizeof s);
	s.cores = __builtin_popcountll(mask);
	s.slices = slices;
	s.bus_bits = bus_bits;
	expectations(&s); /* for the names */
	for (size_t i = 0; i < nex; i++)
		if (GPA_EnableCounterStr(ex[i].name) != GPA_STATUS_OK)
			fail_msg("%s: cannot enable %s (%s)", backend, ex[i].name, last_log);
	gpa_uint32 count = 0;
	assert_int_equal(GPA_GetEnabledCount(&count), GPA_STATUS_OK);
	assert_int_equal(count, nex);
	gpa_uint32 passes = 0;
	assert_int_equal(GPA_GetPassCount(&passes), GPA_STATUS_OK);
	assert_int_equal(passes, 1); /* every counter is enabled in the one reader */

	double t0[4][64], t1[4][64];
	gpa_uint32 session;
	assert_int_equal(GPA_BeginSession(&session), GPA_STATUS_OK);
	assert_int_equal(GPA_BeginPass(), GPA_STATUS_OK);
	vmali_run_frames(vm, 1); /* outside the sample */
	assert_int_equal(GPA_BeginSample(0), GPA_STATUS_OK);
	snapshot(vm, t0);
	vmali_run_frames(vm, frames);
	snapshot(vm, t1);
	assert_int_equal(GPA_EndSample(), GPA_STATUS_OK);
	assert_int_equal(GPA_EndPass(), GPA_STATUS_OK);
	assert_int_equal(GPA_EndSession(), GPA_STATUS_OK);
	bool ready = false;
	assert_int_equal(GPA_IsSessionReady(&ready, session), GPA_STATUS_OK);
	assert_true(ready);

	for (int b = 0; b < 4; b++)
		for (int i = 0; i < 64; i++)
			s.v[b][i] = t1[b][i] - t0[b][i];
	expectations(&s);
	size_t nonzero = 0;
	for (size_t i = 0; i < nex; i++) {
		gpa_uint32 index;
		GPA_Type type;
		assert_int_equal(GPA_GetCounterIndex(ex[i].name, &index), GPA_STATUS_OK);
		assert_int_equal(GPA_GetCounterDataType(index, &type), GPA_STATUS_OK);
		double got;
		if (ex[i].integer) {
			assert_int_equal(type, GPA_TYPE_UINT64);
			gpa_uint64 u = 0;
			assert_int_equal(GPA_GetSampleUInt64(session, 0, index, &u), GPA_STATUS_OK);
			got = (double)u;
			double want = ex[i].value < 0 ? 0 : nearbyint(ex[i].value);
			if (got != want)
				fail_msg("%s %s: got %.17g, want %.17g", backend, ex[i].name, got, want);
		} else {
			assert_int_equal(type, GPA_TYPE_FLOAT64);
			gpa_float64 f = 0;
			assert_int_equal(GPA_GetSampleFloat64(session, 0, index, &f), GPA_STATUS_OK);
			got = f;
			double tol = 1e-9 * fmax(1.0, fabs(ex[i].value));
			if (fabs(got - ex[i].value) > tol)
				fail_msg("%s %s: got %.17g, want %.17g", backend, ex[i].name, got,
				         ex[i].value);
		}
		nonzero += got != 0;
	}
	/* The workload exercises nearly everything (a check that can fail when
	 * the device or the script counts nothing). */
	if (frames)
		assert_true(nonzero >= nex - 10);
	assert_int_equal(log_errors, 0);
	assert_int_equal(GPA_CloseContext(), GPA_STATUS_OK);
}

static void test_kbase_mp8(void **unused)
{
	(void)unused;
	run_case("mali", 0xFF, 2, 128, 3);
}

static void test_kbase_sparse(void **unused)
{
	(void)unused;
	run_case("mali", 0x5B, 1, 64, 2);
}

static void test_kbase_idle(void **unused)
{
	(void)unused;
	run_case("mali", 0xFF, 2, 128, 0);
}

static void test_panfrost_mp8(void **unused)
{
	(void)unused;
	run_case("panfrost", 0xFF, 2, 128, 3);
}

static void test_panfrost_sparse(void **unused)
{
	(void)unused;
	run_case("panfrost", 0x2D, 4, 256, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_kbase_mp8, teardown),
		cmocka_unit_test_teardown(test_kbase_sparse, teardown),
		cmocka_unit_test_teardown(test_kbase_idle, teardown),
		cmocka_unit_test_teardown(test_panfrost_mp8, teardown),
		cmocka_unit_test_teardown(test_panfrost_sparse, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
