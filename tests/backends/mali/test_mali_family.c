/* SPDX-License-Identifier: MIT */
/*
 * test_mali_family.c — every Mali counter layout on the virtual device,
 * through the GPA API (issue #10 item 9): for each GPU the set loads and
 * names the product, every counter evaluates (finite, not negative,
 * percentages at most 100) in one pass, and a few derived counters per
 * architecture equal what this test works out from the workload script
 * and the layout's own constants (Arm's task, tile and shading-request
 * sizes), found by Arm's machine names.
 */
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "core/testing.h"
#include "opengpa.h"
#include "gpa_on_vmali.h"
#include "vmali.h"

/* The script: 10000 primitives a frame, 30% culled by facing or X/Y, 10% by
 * Z, 5% by the sample test, 5% by scissor: 5000 visible; 1.5 vertices shaded
 * per primitive; a 1280x720 target. */
#define SCRIPT                                                                               \
	"frame prims=10000 culled=0.3 clipped=0.1 satcull=0.05 scissor=0.05 verts_per_prim=1.5 " \
	"width=1280 height=720 rays=4000"
#define FRAMES 2

/* Arm's constants per layout (its database: MaliFragQueueTaskSize or
 * MaliMainQueueTaskSize, MaliGPUTileSize, MaliGPUGeomTaskSize). */
struct layout_consts {
	const char *set;
	unsigned task, tile, geom;
};
static const struct layout_consts consts[] = {
	{ "mali-g31", 32, 16, 4 },  { "mali-g51", 32, 16, 4 },  { "mali-g52", 32, 16, 4 },
	{ "mali-g71", 32, 16, 4 },  { "mali-g72", 32, 16, 4 },  { "mali-g76", 32, 16, 4 },
	{ "mali-g77", 32, 16, 4 },  { "mali-g78", 32, 16, 4 },  { "mali-g710", 32, 32, 4 },
	{ "mali-g715", 32, 32, 4 }, { "mali-g720", 64, 32, 4 }, { "mali-g725", 64, 32, 16 },
	{ "mali-g1", 64, 32, 16 },
};

static char last_error[600];
static int errors;

static void on_log(GPA_Logging_Type type, const char *msg)
{
	if (type & GPA_LOGGING_ERROR) {
		errors++;
		snprintf(last_error, sizeof last_error, "%s", msg);
	}
}

static struct vmali *vm;

static int teardown(void **unused)
{
	(void)unused;
	gv_release(&vm);
	return 0;
}

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

static double result(gpa_uint32 session, const char *name, bool *found)
{
	gpa_uint32 index;
	*found = GPA_GetCounterIndex(name, &index) == GPA_STATUS_OK;
	if (!*found)
		return 0;
	GPA_Type type;
	assert_int_equal(GPA_GetCounterDataType(index, &type), GPA_STATUS_OK);
	if (type == GPA_TYPE_UINT64) {
		gpa_uint64 u = 0;
		assert_int_equal(GPA_GetSampleUInt64(session, 0, index, &u), GPA_STATUS_OK);
		return (double)u;
	}
	gpa_float64 f = 0;
	assert_int_equal(GPA_GetSampleFloat64(session, 0, index, &f), GPA_STATUS_OK);
	return f;
}

static void expect(gpa_uint32 session, const char *name, double want, bool required)
{
	bool found;
	double got = result(session, name, &found);
	if (!found) {
		if (required)
			fail_msg("%s is not a counter of this set", name);
		return;
	}
	if (fabs(got - want) > 1e-9 * fmax(1, fabs(want)))
		fail_msg("%s: %.17g, want %.17g", name, got, want);
}

struct gpu_case {
	uint32_t id;
	const char *desc, *set;
	uint64_t mask;
	uint32_t slices, bus;
	uint16_t uk_minor; /* on JM 11.x or CSF 1.x by the product */
};

static void run(const struct gpu_case *c)
{
	bool csf = false;
	assert_true(vmali_product_csf(c->id, &csf));
	struct vmali_config cfg = { .gpu_id = c->id, .csf = csf, .uk_major = csf ? 1 : 11,
		                    .uk_minor = c->uk_minor, .core_mask = c->mask,
		                    .l2_slices = c->slices, .bus_width_bits = c->bus,
		                    .manual_frames = true, .workload = SCRIPT };
	vm = vmali_create(&cfg);
	assert_non_null(vm);
	og_testing_reset();
	og_testing_set_sys(vmali_sys(vm));
	errors = 0;
	assert_int_equal(GPA_RegisterLoggingCallback(GPA_LOGGING_ERROR, on_log), GPA_STATUS_OK);
	assert_int_equal(GPA_Initialize(), GPA_STATUS_OK);
	assert_int_equal(OpenGPA_SetBackend("mali", NULL), GPA_STATUS_OK);
	static int key;
	if (GPA_OpenContext(&key) != GPA_STATUS_OK)
		fail_msg("%s: GPA_OpenContext: %s", c->desc, last_error);
	const char *desc = NULL;
	assert_int_equal(GPA_GetDeviceDesc(&desc), GPA_STATUS_OK);
	assert_string_equal(desc, c->desc);
	gpa_uint32 n = 0;
	assert_int_equal(GPA_GetNumCounters(&n), GPA_STATUS_OK);
	assert_true(n > 50);
	assert_int_equal(GPA_EnableAllCounters(), GPA_STATUS_OK);
	gpa_uint32 passes = 0;
	assert_int_equal(GPA_GetPassCount(&passes), GPA_STATUS_OK);
	assert_int_equal(passes, 1);

	gpa_uint32 session;
	assert_int_equal(GPA_BeginSession(&session), GPA_STATUS_OK);
	assert_int_equal(GPA_BeginPass(), GPA_STATUS_OK);
	assert_int_equal(GPA_BeginSample(0), GPA_STATUS_OK);
	uint64_t beats0 = vmali_total(vm, VMALI_BLOCK_L2, VMALI_ALL,
	                              (unsigned)vmali_counter_index(vm, VMALI_BLOCK_L2,
	                                                            "L2_EXT_READ_BEATS"));
	vmali_run_frames(vm, FRAMES);
	uint64_t beats = vmali_total(vm, VMALI_BLOCK_L2, VMALI_ALL,
	                             (unsigned)vmali_counter_index(vm, VMALI_BLOCK_L2,
	                                                           "L2_EXT_READ_BEATS")) - beats0;
	assert_int_equal(GPA_EndSample(), GPA_STATUS_OK);
	assert_int_equal(GPA_EndPass(), GPA_STATUS_OK);
	assert_int_equal(GPA_EndSession(), GPA_STATUS_OK);

	/* Every counter evaluates, and to something a GPU could count. */
	size_t nonzero = 0;
	for (gpa_uint32 i = 0; i < n; i++) {
		const char *name = NULL;
		GPA_Type type;
		GPA_Usage_Type usage;
		assert_int_equal(GPA_GetCounterName(i, &name), GPA_STATUS_OK);
		assert_int_equal(GPA_GetCounterDataType(i, &type), GPA_STATUS_OK);
		assert_int_equal(GPA_GetCounterUsageType(i, &usage), GPA_STATUS_OK);
		double v;
		if (type == GPA_TYPE_UINT64) {
			gpa_uint64 u = 0;
			if (GPA_GetSampleUInt64(session, 0, i, &u) != GPA_STATUS_OK)
				fail_msg("%s: %s does not evaluate: %s", c->desc, name, last_error);
			v = (double)u;
		} else {
			assert_int_equal(type, GPA_TYPE_FLOAT64);
			gpa_float64 f = 0;
			if (GPA_GetSampleFloat64(session, 0, i, &f) != GPA_STATUS_OK)
				fail_msg("%s: %s does not evaluate: %s", c->desc, name, last_error);
			v = f;
		}
		if (!isfinite(v) || v < 0)
			fail_msg("%s: %s = %g", c->desc, name, v);
		if (usage == GPA_USAGE_TYPE_PERCENTAGE && v > 100.0 + 1e-9)
			fail_msg("%s: %s = %g%%: the model breaks an invariant this rate relies on",
			         c->desc, name, v);
		nonzero += v != 0;
	}
	if (nonzero < n * 9 / 10)
		fail_msg("%s: only %zu of %u counters counted anything", c->desc, nonzero, n);
	if (errors)
		fail_msg("%s: %d errors logged, the last: %s", c->desc, errors, last_error);

	/* Derived counters against the script. */
	const struct layout_consts *k = NULL;
	for (size_t i = 0; i < sizeof consts / sizeof consts[0]; i++)
		if (strcmp(consts[i].set, c->set) == 0)
			k = &consts[i];
	assert_non_null(k);
	expect(session, "MaliGeomTotalPrim", 10000.0 * FRAMES, true);
	expect(session, "MaliGeomVisibleRate", 50.0, true);
	double tasks = (double)(ceil_div(1280, k->task) * ceil_div(720, k->task));
	expect(session, "MaliGPUPix", tasks * k->task * k->task * FRAMES, true);
	expect(session, "MaliGeomPosShadThread", (double)(ceil_div(15000, k->geom) * k->geom) * FRAMES,
	       true);
	/* The reviewed Mali-G71 set has no tile counter of its own. */
	double tiles = (double)(ceil_div(1280, k->tile) * ceil_div(720, k->tile));
	expect(session, "MaliFragTile", tiles * FRAMES, strcmp(c->set, "mali-g71") != 0);
	/* The external bus: the device's beats at the bus width it reported. */
	assert_true(beats > 0);
	expect(session, "MaliExtBusRdBy", (double)beats * c->bus / 8, true);
}

#define CASE(name, ...)                                                \
	static void name(void **unused)                                \
	{                                                              \
		(void)unused;                                          \
		static const struct gpu_case c = { __VA_ARGS__ };      \
		run(&c);                                               \
	}

/* Each layout, on the latest driver (kinstr_prfcnt), and some of the GPUs
 * that share a layout; vinstr for a few of the 64-value ones. */
CASE(g31, 0x7003, "Mali-G31 MP2", "mali-g31", 0x3, 1, 64, 40)
CASE(g51, 0x7000, "Mali-G51 MP4", "mali-g51", 0xF, 1, 128, 40)
CASE(g52, 0x7002, "Mali-G52 MP2", "mali-g52", 0x3, 1, 128, 39)
CASE(g71, 0x6000, "Mali-G71 MP8", "mali-g71", 0xFF, 2, 128, 40)
CASE(g72, 0x6001, "Mali-G72 MP12", "mali-g72", 0xFFF, 2, 128, 40)
CASE(g76, 0x7001, "Mali-G76 MP10", "mali-g76", 0x3FF, 2, 128, 38)
CASE(g57, 0x9001, "Mali-G57 MC6", "mali-g77", 0x3F, 2, 128, 40)
CASE(g77, 0x9000, "Mali-G77 MC9", "mali-g77", 0x1FF, 2, 256, 40)
CASE(g78, 0x9002, "Mali-G78 MC14", "mali-g78", 0x3FFF, 4, 256, 40)
CASE(g68, 0x9004, "Mali-G68 MC4", "mali-g78", 0xF, 1, 128, 31)
CASE(g610, 0xa007, "Mali-G610 MC4", "mali-g710", 0xF, 1, 128, 21)
CASE(g710, 0xa002, "Mali-G710 MC10", "mali-g710", 0x3FF, 2, 128, 20)
CASE(g615, 0xb003, "Mali-G615 MC6", "mali-g715", 0x3F, 2, 128, 21)
CASE(g715, 0xb002, "Mali-G715 MC7", "mali-g715", 0x7F, 2, 128, 17)
CASE(g720, 0xc000, "Mali-G720 MC12", "mali-g720", 0xFFF, 4, 128, 21)
CASE(g620, 0xc001, "Mali-G620 MC5", "mali-g720", 0x5B, 2, 128, 21)
CASE(g725, 0xd000, "Mali-G725 MC12", "mali-g725", 0xFFF, 4, 256, 22)
CASE(g1, 0xe000, "Mali G1-Ultra MC10", "mali-g1", 0x3FF, 4, 128, 22)
CASE(g1pro, 0xe003, "Mali G1-Pro MC3", "mali-g1", 0x7, 1, 64, 21)

/* The CSF firmware and command-stream-group blocks (issue 25): Arm's
 * database names none of their values, so each set has MaliHwCSF_<n> and
 * MaliHwCSG_<n> for every value past the header; each reads what the
 * virtual device counted there, CSG summed over the groups. */
static void csf_blocks(uint32_t id, uint16_t uk_minor, uint8_t groups, unsigned values)
{
	struct vmali_config cfg = { .gpu_id = id, .csf = true, .uk_major = 1,
		                    .uk_minor = uk_minor, .core_mask = 0xF, .l2_slices = 1,
		                    .bus_width_bits = 128, .csg_blocks = groups,
		                    .manual_frames = true, .workload = SCRIPT };
	vm = vmali_create(&cfg);
	assert_non_null(vm);
	assert_int_equal(vmali_values_per_block(vm), values);
	og_testing_reset();
	og_testing_set_sys(vmali_sys(vm));
	errors = 0;
	/* A user's counter file reaches them too. */
	char file[] = "/tmp/opengpa-csf-XXXXXX";
	int fd = mkstemp(file);
	assert_true(fd >= 0);
	FILE *f = fdopen(fd, "w");
	assert_non_null(f);
	fprintf(f, "counter UserCSGSum\n    group: Test\n    usage: items\n    type: uint64\n"
	           "    description: Two command-stream-group values.\n"
	           "    expression: $MaliHwCSG_4 + $MaliHwCSG_%u\n", values - 1);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(GPA_RegisterLoggingCallback(GPA_LOGGING_ERROR, on_log), GPA_STATUS_OK);
	assert_int_equal(GPA_Initialize(), GPA_STATUS_OK);
	assert_int_equal(OpenGPA_SetBackend("mali", NULL), GPA_STATUS_OK);
	assert_int_equal(OpenGPA_SetHardwareCounters(1), GPA_STATUS_OK);
	assert_int_equal(OpenGPA_AddCounterFile(file), GPA_STATUS_OK);
	static int key;
	GPA_Status opened = GPA_OpenContext(&key);
	unlink(file);
	if (opened != GPA_STATUS_OK)
		fail_msg("GPA_OpenContext: %s", last_error);
	assert_int_equal(GPA_EnableCounterStr("UserCSGSum"), GPA_STATUS_OK);
	static const char *const kind[2] = { "CSF", "CSG" };
	static const enum vmali_block block[2] = { VMALI_BLOCK_FW, VMALI_BLOCK_CSG };
	char name[32];
	for (int b = 0; b < 2; b++)
		for (unsigned i = 4; i < values; i++) {
			snprintf(name, sizeof name, "MaliHw%s_%u", kind[b], i);
			if (GPA_EnableCounterStr(name) != GPA_STATUS_OK)
				fail_msg("%s: %s", name, last_error);
		}
	/* The header is not a counter, nor is a value past the block. */
	gpa_uint32 index;
	assert_int_not_equal(GPA_GetCounterIndex("MaliHwCSF_3", &index), GPA_STATUS_OK);
	snprintf(name, sizeof name, "MaliHwCSG_%u", values);
	assert_int_not_equal(GPA_GetCounterIndex(name, &index), GPA_STATUS_OK);
	assert_int_equal(errors, 2); /* each refused lookup logs once */
	errors = 0;

	uint64_t before[2][128];
	for (int b = 0; b < 2; b++)
		for (unsigned i = 4; i < values; i++)
			before[b][i] = vmali_total(vm, block[b], VMALI_ALL, i);
	gpa_uint32 session;
	assert_int_equal(GPA_BeginSession(&session), GPA_STATUS_OK);
	assert_int_equal(GPA_BeginPass(), GPA_STATUS_OK);
	assert_int_equal(GPA_BeginSample(0), GPA_STATUS_OK);
	vmali_run_frames(vm, FRAMES);
	assert_int_equal(GPA_EndSample(), GPA_STATUS_OK);
	assert_int_equal(GPA_EndPass(), GPA_STATUS_OK);
	assert_int_equal(GPA_EndSession(), GPA_STATUS_OK);
	for (int b = 0; b < 2; b++)
		for (unsigned i = 4; i < values; i++) {
			uint64_t want = vmali_total(vm, block[b], VMALI_ALL, i) - before[b][i];
			uint64_t first = vmali_total(vm, block[b], 0, i);
			if (want == 0 || (b == 1 && groups > 1 && first >= want))
				fail_msg("the virtual device counted %llu at %s:%u (group 0: %llu): "
				         "nothing to check against",
				         (unsigned long long)want, kind[b], i, (unsigned long long)first);
			snprintf(name, sizeof name, "MaliHw%s_%u", kind[b], i);
			expect(session, name, (double)want, true);
		}
	expect(session, "UserCSGSum",
	       (double)(vmali_total(vm, VMALI_BLOCK_CSG, VMALI_ALL, 4) - before[1][4] +
	                vmali_total(vm, VMALI_BLOCK_CSG, VMALI_ALL, values - 1) -
	                before[1][values - 1]),
	       true);
	if (errors)
		fail_msg("%d errors logged, the last: %s", errors, last_error);
}

static void csf_blocks_g610(void **unused)
{
	(void)unused;
	csf_blocks(0xa007, 21, 3, 64);
}

static void csf_blocks_g720(void **unused)
{
	(void)unused;
	csf_blocks(0xc000, 21, 2, 128);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(g31, teardown),   cmocka_unit_test_teardown(g51, teardown),
		cmocka_unit_test_teardown(g52, teardown),   cmocka_unit_test_teardown(g71, teardown),
		cmocka_unit_test_teardown(g72, teardown),   cmocka_unit_test_teardown(g76, teardown),
		cmocka_unit_test_teardown(g57, teardown),   cmocka_unit_test_teardown(g77, teardown),
		cmocka_unit_test_teardown(g78, teardown),   cmocka_unit_test_teardown(g68, teardown),
		cmocka_unit_test_teardown(g610, teardown),  cmocka_unit_test_teardown(g710, teardown),
		cmocka_unit_test_teardown(g615, teardown),  cmocka_unit_test_teardown(g715, teardown),
		cmocka_unit_test_teardown(g720, teardown),  cmocka_unit_test_teardown(g620, teardown),
		cmocka_unit_test_teardown(g725, teardown),  cmocka_unit_test_teardown(g1, teardown),
		cmocka_unit_test_teardown(g1pro, teardown),
		cmocka_unit_test_teardown(csf_blocks_g610, teardown),
		cmocka_unit_test_teardown(csf_blocks_g720, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
