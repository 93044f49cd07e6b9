/* SPDX-License-Identifier: MIT */
/*
 * test_model_inputs.c — what the FPS model is fed: the device table and
 * device specifications (lib/models/devices.h), profiles and the measured
 * inputs taken from them (profile.h), and og_fps_predict's refusal of bad
 * input.  The paper itself is tests/models/test_fps_paper.c.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "devices.h"
#include "fps.h"
#include "profile.h"

static struct og_model_table table;

static int setup(void **state)
{
	(void)state;
	char err[512];
	memset(&table, 0, sizeof table);
	if (!og_model_table_builtin(&table, err, sizeof err))
		fail_msg("%s", err);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	og_model_table_free(&table);
	return 0;
}

static void expect_error(bool ok, const char *err, const char *needle)
{
	if (ok)
		fail_msg("accepted; expected an error containing '%s'", needle);
	if (!strstr(err, needle))
		fail_msg("error '%s' does not contain '%s'", err, needle);
}

/* ---- numbers and the table -------------------------------------------- */

static void test_numbers(void **state)
{
	(void)state;
	double v;
	assert_true(og_model_parse_number("83.2G", &v) && v == 83.2e9);
	assert_true(og_model_parse_number("0.5137G", &v) && fabs(v - 0.5137e9) < 1e-3);
	assert_true(og_model_parse_number("850M", &v) && v == 850e6);
	assert_true(og_model_parse_number("1e3", &v) && v == 1000.0);
	assert_true(og_model_parse_number("12", &v) && v == 12.0);
	static const char *const bad[] = { "", " 1", "1 ", "G", "1g", "1GG", "0x10", "inf", "nan",
	                                   "1e999", "1,5", "--1", "1.2.3" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		if (og_model_parse_number(bad[i], &v))
			fail_msg("accepted '%s'", bad[i]);
}

static void test_builtin_table(void **state)
{
	(void)state;
	/* Every Mali GPU of Arm's product list has an entry. */
	static const char *const mali[] = {
		"mali-g31", "mali-g51", "mali-g52", "mali-g71", "mali-g72", "mali-g76", "mali-g57",
		"mali-g68", "mali-g77", "mali-g78", "mali-g78ae", "mali-g310", "mali-g510",
		"mali-g610", "mali-g710", "mali-g615", "mali-g715", "mali-g620", "mali-g720",
		"mali-g625", "mali-g725", "mali-g1-pro", "mali-g1-premium", "mali-g1-ultra",
	};
	for (size_t i = 0; i < sizeof mali / sizeof mali[0]; i++) {
		const struct og_model_device *d = og_model_table_find(&table, mali[i]);
		if (!d)
			fail_msg("no entry %s", mali[i]);
		assert_true(d->match[0] && d->family[0]);
	}
	/* Descriptions as the Mali backend writes them find their entry, and a
	 * longer name is not taken for a shorter one. */
	assert_string_equal(og_model_table_match(&table, "Mali-G71 MP8")->id, "mali-g71");
	assert_string_equal(og_model_table_match(&table, "Mali-G710 MC10")->id, "mali-g710");
	assert_string_equal(og_model_table_match(&table, "Mali-G78")->id, "mali-g78");
	assert_null(og_model_table_match(&table, "Mali-G7"));
	assert_null(og_model_table_match(&table, "LG G4"));
	assert_string_equal(og_model_table_find(&table, "G4")->id, "g4"); /* ids ignore case */
}

static void test_table_errors(void **state)
{
	(void)state;
	static const struct {
		const char *text, *needle;
	} cases[] = {
		{ "device x\n", "device x has no name" },
		{ "device Bad_Id\n    name: x\n", "device id 'Bad_Id'" },
		{ "device x\n    name: x\n    gflops: lots\n", "test:3: gflops=lots: not a number" },
		{ "device x\n    name: x\n    gflops: -1\n", "must be above 0" },
		{ "device x\n    name: x\n    colour: red\n", "test:3: unknown key 'colour'" },
		{ "device x\n    name: x\n    egpu: 20\n", "measured per scene" },
		{ "    name: x\n", "test:1: an indented line outside an entry" },
		{ "devices x\n", "test:1: expected 'device ID'" },
		{ "device x\n    name: x\n    gflops: 1\n        more\n", "test:4: expected 'key: value'" },
		{ "constant usi-per-gflops\n", "has no value" },
		{ "constant usi-per-gflops\n    value: 0\n", "value: not a number above 0" },
		{ "constant other\n", "expected 'device ID' or 'constant usi-per-gflops'" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct og_model_table t = { 0 };
		char err[512] = "";
		expect_error(og_model_table_parse(&t, "test", cases[i].text, err, sizeof err), err,
		             cases[i].needle);
		og_model_table_free(&t);
	}
}

/* A user's file adds devices and replaces the fields it gives of known ones. */
static void test_table_override(void **state)
{
	(void)state;
	struct og_model_table t = { 0 };
	char err[512];
	assert_true(og_model_table_builtin(&t, err, sizeof err));
	size_t before = t.count;
	const char *mine = "device g4   # a better measurement\n    usi-max: 80G\n"
	                   "device my-gpu\n    name: My GPU\n    gflops: 100\n"
	                   "    note: measured\n        on my bench\n";
	assert_true(og_model_table_parse(&t, "mine", mine, err, sizeof err));
	assert_int_equal(t.count, before + 1);
	const struct og_model_device *g4 = og_model_table_find(&t, "g4");
	assert_true(g4->value[OG_MODEL_USI_MAX] == 80e9);
	assert_true(g4->value[OG_MODEL_GFLOPS] == 163.2); /* kept */
	assert_string_equal(g4->name, "LG G4");
	assert_string_equal(og_model_table_find(&t, "my-gpu")->note, "measured on my bench");
	og_model_table_free(&t);
	expect_error(og_model_table_load(&t, "/nonexistent/devices.table", err, sizeof err), err,
	             "/nonexistent/devices.table: No such file");
	og_model_table_free(&t);
}

/* ---- device specifications and their numbers --------------------------- */

static void test_specs(void **state)
{
	(void)state;
	struct og_model_device d;
	struct og_fps_device f;
	struct og_model_working how;
	char err[1024];

	/* GF_Device = cores × FMA × 2 × clock; USI_Max = cores × per clock × clock. */
	assert_true(og_model_device_parse_spec(&table, "mali-g71,cores=8,mhz=850", &d, err, sizeof err));
	assert_int_equal(d.origin[OG_MODEL_CORES], OG_MODEL_FROM_USER);
	assert_true(og_model_device_resolve(&d, &table, &f, &how, err, sizeof err));
	assert_true(fabs(f.gflops - 8 * 12 * 2 * 0.85) < 1e-9);
	assert_true(fabs(f.usi_max - 8 * 1 * 850e6) < 1e-3);
	assert_true(fabs(f.usi_per_gflops - 1e9 / 24) < 1e-3);
	assert_non_null(strstr(how.gflops, "8 cores x 12 FMA x 2 x 850 MHz"));
	/* The same device at the peak: USI_Max ÷ USI_GFLOPS is GF_Device. */
	assert_true(fabs(f.usi_max / f.usi_per_gflops - f.gflops) < 1e-9);

	/* Given numbers win over the formula. */
	assert_true(og_model_device_parse_spec(&table, "mali-g76,gflops=300,usi-max=5G", &d, err,
	                                       sizeof err));
	assert_true(og_model_device_resolve(&d, &table, &f, &how, err, sizeof err));
	assert_true(f.gflops == 300 && f.usi_max == 5e9);
	assert_string_equal(how.gflops, "given");

	/* The paper's phones: table numbers, the paper's USI per GFLOPS. */
	assert_true(og_model_device_parse_spec(&table, "g3-cat6", &d, err, sizeof err));
	assert_true(og_model_device_resolve(&d, &table, &f, &how, err, sizeof err));
	assert_true(f.gflops == 172.8 && fabs(f.usi_per_gflops - 0.5137e9) < 1);
	assert_string_equal(how.usi_per_gflops, "the paper's constant");

	/* A target's measured efficiency. */
	assert_true(og_model_device_parse_spec(&table, "g5,egpu=26.83,etmu=0", &d, err, sizeof err));
	assert_true(d.value[OG_MODEL_EGPU] == 26.83 && d.origin[OG_MODEL_ETMU] == OG_MODEL_FROM_USER);

	/* What is missing, and the key that gives it. */
	assert_true(og_model_device_parse_spec(&table, "mali-g76", &d, err, sizeof err));
	expect_error(og_model_device_resolve(&d, &table, &f, &how, err, sizeof err), err,
	             "give cores= and mhz= (or gflops=)");
	assert_true(og_model_device_parse_spec(&table, "mali-g720,cores=6,mhz=1000", &d, err,
	                                       sizeof err));
	expect_error(og_model_device_resolve(&d, &table, &f, &how, err, sizeof err), err,
	             "its GFLOPS are not known: give gflops=, or fma-per-core=");
	assert_true(og_model_device_parse_spec(&table, "mali-g52,cores=2,mhz=850", &d, err,
	                                       sizeof err));
	expect_error(og_model_device_resolve(&d, &table, &f, &how, err, sizeof err), err,
	             "fma-per-core=16");

	/* Malformed specifications. */
	expect_error(og_model_device_parse_spec(&table, "mali-g99", &d, err, sizeof err), err,
	             "unknown device 'mali-g99'; the known devices are: g4, g3-cat6, g-flex2, g5, "
	             "mali-g31");
	expect_error(og_model_device_parse_spec(&table, "", &d, err, sizeof err), err,
	             "no device named");
	expect_error(og_model_device_parse_spec(&table, "g4,", &d, err, sizeof err), err,
	             "expected KEY=VALUE");
	expect_error(og_model_device_parse_spec(&table, "g4,cores", &d, err, sizeof err), err,
	             "'cores' is not KEY=VALUE");
	expect_error(og_model_device_parse_spec(&table, "g4,cores=0", &d, err, sizeof err), err,
	             "cores=0: must be above 0");
	expect_error(og_model_device_parse_spec(&table, "g4,mhz=-600", &d, err, sizeof err), err,
	             "must be above 0");
	expect_error(og_model_device_parse_spec(&table, "g4,egpu=120", &d, err, sizeof err), err,
	             "from 0 to 100");
	expect_error(og_model_device_parse_spec(&table, "g4,speed=3", &d, err, sizeof err), err,
	             "unknown key 'speed'");
	expect_error(og_model_device_parse_spec(&table, "g4,gflops=fast", &d, err, sizeof err), err,
	             "not a number");
}

/* ---- the model's arithmetic and its guards ------------------------------- */

static void test_predict_properties(void **state)
{
	(void)state;
	struct og_fps_device src = { .gflops = 163.2, .usi_per_gflops = 0.5137e9 };
	src.usi_max = src.gflops * src.usi_per_gflops;
	struct og_fps_device dst = { .gflops = 339.4, .usi_per_gflops = 0.5137e9 };
	dst.usi_max = dst.gflops * dst.usi_per_gflops;
	struct og_fps_measured m = { .usi = 16.2e9, .gpuu = 95.68, .fps = 16 };
	struct og_fps_result r;
	char err[256];
	/* Predicting the device the profile came from gives back FPS_Corrected. */
	assert_true(og_fps_predict(&m, &src, &src, NULL, &r, err, sizeof err));
	assert_true(fabs(r.fps - r.fps_corrected) < 1e-9 * r.fps);
	assert_true(fabs(r.fps_corrected - 16 * 100 / 95.68) < 1e-12);
	assert_true(fabs(r.usi_frame - r.usi_corrected / r.fps_corrected) < 1e-3);
	/* Without the target's efficiency, the source's is carried over: the
	 * prediction scales with GFLOPS; ETMU adds its share. */
	assert_true(og_fps_predict(&m, &src, &dst, NULL, &r, err, sizeof err));
	assert_true(fabs(r.fps - r.fps_corrected * 339.4 / 163.2) < 1e-9 * r.fps);
	assert_false(r.egpu_given);
	struct og_fps_options opt = { .etmu = r.egpu };
	double base = r.fps;
	assert_true(og_fps_predict(&m, &src, &dst, &opt, &r, err, sizeof err));
	assert_true(fabs(r.fps - 2 * base) < 1e-9 * base);
	/* The paper's Table 8, G3 CAT6 in MANHATTAN: its own efficiency and the
	 * scene's GF_Frame. */
	struct og_fps_options paper = { .gf_frame = 1.9466, .has_target_egpu = true,
	                                 .target_egpu = 18.09, .etmu = 10.86 };
	struct og_fps_device g3 = { .gflops = 172.8, .usi_max = 85.0e9, .usi_per_gflops = 0.5137e9 };
	struct og_fps_measured g3m = { .usi = 24.6e9 * 0.691, .gpuu = 69.10, .fps = 16 };
	assert_true(og_fps_predict(&g3m, &g3, &g3, &paper, &r, err, sizeof err));
	assert_true(fabs(r.fps - 25.70) < 0.005 && fabs(r.fps_corrected - 23.15) < 0.01);
	assert_true(r.gf_frame_given && r.egpu_given);
}

static void test_predict_refuses_garbage(void **state)
{
	(void)state;
	struct og_fps_device dev = { .gflops = 163.2, .usi_max = 82e9, .usi_per_gflops = 0.5137e9 };
	static const struct {
		struct og_fps_measured m;
		const char *needle;
	} cases[] = {
		{ { 1e9, 50, 0 }, "frame rate (0 FPS) must be a number above 0" },
		{ { 1e9, 50, -30 }, "frame rate (-30 FPS)" },
		{ { 1e9, 0, 30 }, "GPU utilisation (0 %) must be above 0" },
		{ { 1e9, -5, 30 }, "GPU utilisation (-5 %)" },
		{ { 1e9, 100.5, 30 }, "at most 100" },
		{ { 0, 50, 30 }, "USI (0 instructions per second)" },
		{ { NAN, 50, 30 }, "USI (nan" },
		{ { 1e9, INFINITY, 30 }, "GPU utilisation (inf" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct og_fps_result r = { .fps = 123 };
		char err[256] = "";
		expect_error(og_fps_predict(&cases[i].m, &dev, &dev, NULL, &r, err, sizeof err), err,
		             cases[i].needle);
		assert_true(r.fps == 0 && r.usi_corrected == 0); /* nothing computed */
	}
	struct og_fps_measured ok = { 1e9, 50, 30 };
	struct og_fps_result r;
	char err[256];
	struct og_fps_device broken = dev;
	broken.gflops = 0;
	expect_error(og_fps_predict(&ok, &dev, &broken, NULL, &r, err, sizeof err), err,
	             "target device's GFLOPS (0)");
	struct og_fps_options opt = { .etmu = -1 };
	expect_error(og_fps_predict(&ok, &dev, &dev, &opt, &r, err, sizeof err), err, "ETMU (-1");
	opt = (struct og_fps_options){ .has_target_egpu = true, .target_egpu = 101 };
	expect_error(og_fps_predict(&ok, &dev, &dev, &opt, &r, err, sizeof err), err,
	             "target's EGPU (101 %)");
	opt = (struct og_fps_options){ .gf_frame = -2 };
	expect_error(og_fps_predict(&ok, &dev, &dev, &opt, &r, err, sizeof err), err,
	             "GF_Frame given (-2)");
}

/* ---- profiles ---------------------------------------------------------------- */

/* An `opengpa stat --json` report of a Mali-G71 MP8 at 850 MHz over half a
 * second: 1.2e9 instructions, 2.125e8 active cycles (50 %), 30 fragment
 * jobs. */
static const char *const g71_report =
	"{\"command\": [\"./game\"], \"backend\": \"mali\", \"device\": \"Mali-G71 MP8\", "
	"\"runs\": 1, \"repeats\": 1, \"passes\": 1, \"seconds_per_run\": 0.500000, "
	"\"coverage\": 1.000000, \"exit_status\": 0, \"counters\": [\n"
	"  {\"name\": \"GPUActiveCycles\", \"group\": \"GPU Cycles\", \"usage\": \"cycles\", "
	"\"aliases\": [\"MaliGPUActiveCy\"], \"supported\": true, \"value\": 212500000},\n"
	"  {\"name\": \"MaliCoreInstructionsExecutedInstructions\", \"supported\": true, "
	"\"value\": 1200000000},\n"
	"  {\"name\": \"MaliHwJM_JS0_JOBS\", \"supported\": true, \"value\": 30},\n"
	"  {\"name\": \"ShaderCoreCount\", \"supported\": true, \"value\": 8},\n"
	"  {\"name\": \"MaxClockMHz\", \"supported\": true, \"value\": 850},\n"
	"  {\"name\": \"L2ReadHitRate\", \"supported\": false, \"reason\": \"x\", \"value\": null}\n"
	"]}\n";

static void test_profile_inputs(void **state)
{
	(void)state;
	struct og_profile p;
	char err[1024];
	if (!og_profile_from_json(&p, "g71.json", g71_report, strlen(g71_report), err, sizeof err))
		fail_msg("%s", err);
	assert_string_equal(p.device, "Mali-G71 MP8");
	assert_true(p.seconds == 0.5 && p.count == 6);
	assert_non_null(og_profile_find(&p, "maligpuactivecy")); /* by alias, any case */
	struct og_model_measurement m;
	assert_true(og_model_measure(&p, NULL, &m, err, sizeof err));
	assert_true(fabs(m.m.usi - 2.4e9) < 1);
	assert_true(fabs(m.m.gpuu - 50.0) < 1e-9);
	assert_true(fabs(m.m.fps - 60.0) < 1e-9);
	assert_true(m.cores == 8 && m.clock_mhz == 850);
	assert_string_equal(m.counter[OG_ROLE_INSTRUCTIONS], "MaliCoreInstructionsExecutedInstructions");
	assert_string_equal(m.counter[OG_ROLE_FRAMES], "MaliHwJM_JS0_JOBS");

	/* Two render passes a frame halve the frame rate; --frames and --fps
	 * stand in for the count; a user's clock changes the utilisation. */
	struct og_model_overrides o = { .passes_per_frame = 2 };
	assert_true(og_model_measure(&p, &o, &m, err, sizeof err) && fabs(m.m.fps - 30) < 1e-9);
	o = (struct og_model_overrides){ .frames = 12 };
	assert_true(og_model_measure(&p, &o, &m, err, sizeof err) && fabs(m.m.fps - 24) < 1e-9);
	assert_true(m.frames_given && !m.counter[OG_ROLE_FRAMES]);
	o = (struct og_model_overrides){ .clock_mhz = 1000 };
	assert_true(og_model_measure(&p, &o, &m, err, sizeof err) && fabs(m.m.gpuu - 42.5) < 1e-9);

	/* Refused: zero or negative numbers, an impossible utilisation. */
	o = (struct og_model_overrides){ .fps = -1 };
	expect_error(og_model_measure(&p, &o, &m, err, sizeof err), err,
	             "frame rate given (-1) must be a number above 0");
	o = (struct og_model_overrides){ .gpuu = 150 };
	expect_error(og_model_measure(&p, &o, &m, err, sizeof err), err, "above 100 %");
	o = (struct og_model_overrides){ .clock_mhz = 200 };
	expect_error(og_model_measure(&p, &o, &m, err, sizeof err), err,
	             "GPU utilisation 212.5 % is above 100 %");
	og_profile_free(&p);
}

static void test_profile_lacks(void **state)
{
	(void)state;
	struct og_profile p;
	struct og_model_measurement m;
	char err[1024];
	/* A perf profile: none of the model's counters. */
	const char *perf = "{\"device\": \"Intel Xeon\", \"seconds_per_run\": 1.5, \"counters\": "
	                   "[{\"name\": \"TaskClock\", \"value\": 1500}]}";
	assert_true(og_profile_from_json(&p, "perf.json", perf, strlen(perf), err, sizeof err));
	expect_error(og_model_measure(&p, NULL, &m, err, sizeof err), err,
	             "perf.json lacks what the model needs: shader instructions (one of "
	             "MaliEngInstr, MaliEngArithInstr, MaliCoreInstructionsExecutedInstructions or "
	             "UnifiedShaderInstructions, or --usi); GPU active cycles (one of MaliGPUActiveCy "
	             "or GPUActiveCycles, or --gpuu); maximum GPU clock "
	             "(MaxClockMHz, or --on ID,mhz=MHZ, or --gpuu); render passes (one of "
	             "MaliFragQueueJob, MaliMainQueueJob or MaliHwJM_JS0_JOBS, or --frames or --fps)");
	/* Given all three, the profile is not asked. */
	struct og_model_overrides o = { .usi = 1e9, .gpuu = 40, .fps = 30 };
	assert_true(og_model_measure(&p, &o, &m, err, sizeof err));
	assert_true(og_model_measure(NULL, &o, &m, err, sizeof err));
	o.fps = 0;
	expect_error(og_model_measure(NULL, &o, &m, err, sizeof err), err,
	             "without a profile the model needs USI, GPU utilisation and FPS given");
	og_profile_free(&p);

	/* Counters present without a value (not countable there). */
	const char *nulls = "{\"device\": \"Mali-G77 MC9\", \"seconds_per_run\": 1, \"counters\": ["
	                    "{\"name\": \"A\", \"aliases\": \"MaliEngArithInstr\", \"value\": null},"
	                    "{\"name\": \"B\", \"aliases\": [\"MaliGPUActiveCy\"], \"value\": 5},"
	                    "{\"name\": \"MaxClockMHz\", \"value\": 800},"
	                    "{\"name\": \"C\", \"aliases\": [\"MaliFragQueueJob\"], \"value\": 0}]}";
	assert_true(og_profile_from_json(&p, "g77.json", nulls, strlen(nulls), err, sizeof err));
	expect_error(og_model_measure(&p, NULL, &m, err, sizeof err), err,
	             "in it without a value");
	o = (struct og_model_overrides){ .usi = 1e9 };
	expect_error(og_model_measure(&p, &o, &m, err, sizeof err), err,
	             "counted 0 render passes: no frame was rendered");
	og_profile_free(&p);

	/* An idle GPU, a run that took no time. */
	const char *idle = "{\"device\": \"Mali-G71 MP2\", \"seconds_per_run\": 1, \"counters\": ["
	                   "{\"name\": \"I\", \"aliases\": [\"MaliEngInstr\"], \"value\": 10},"
	                   "{\"name\": \"A\", \"aliases\": [\"MaliGPUActiveCy\"], \"value\": 0},"
	                   "{\"name\": \"MaxClockMHz\", \"value\": 800},"
	                   "{\"name\": \"F\", \"aliases\": [\"MaliFragQueueJob\"], \"value\": 3}]}";
	assert_true(og_profile_from_json(&p, "idle.json", idle, strlen(idle), err, sizeof err));
	expect_error(og_model_measure(&p, NULL, &m, err, sizeof err), err, "the GPU was idle");
	og_profile_free(&p);
	const char *instant = "{\"device\": \"x\", \"seconds_per_run\": 0, \"counters\": []}";
	assert_true(og_profile_from_json(&p, "0s.json", instant, strlen(instant), err, sizeof err));
	expect_error(og_model_measure(&p, NULL, &m, err, sizeof err), err, "lasted 0 seconds");
	og_profile_free(&p);
}

static void test_profile_malformed(void **state)
{
	(void)state;
	static const struct {
		const char *text, *needle;
	} cases[] = {
		{ "[]", "not a JSON object" },
		{ "{\"counters\": []}", "no \"device\" string" },
		{ "{\"device\": \"x\", \"counters\": []}", "no \"seconds_per_run\" number" },
		{ "{\"device\": \"x\", \"seconds_per_run\": 1}", "no \"counters\" array" },
		{ "{\"device\": \"x\", \"seconds_per_run\": 1, \"counters\": [{\"value\": 1}]}",
		  "counter 1 has no \"name\"" },
		{ "{\"device\": \"x\", \"seconds_per_run\": 1, \"counters\": [{\"name\": \"A\", "
		  "\"value\": \"12\"}]}", "counter A: \"value\" is neither a number nor null" },
		{ "{\"device\": \"x\", \"seconds_per_run\": 1, \"counters\": [{\"name\": \"A\", "
		  "\"aliases\": 3, \"value\": 1}]}", "\"aliases\" is neither" },
		{ "{\"device\": \"x\", \"seconds_per_run\": 1, \"runs\": 0, \"counters\": []}",
		  "\"runs\" is not a whole number" },
		{ "{\"device\": \"x\", \"seconds_per_run\": 1, \"counters\": [}", "not JSON (offset " },
		{ "Counter stats for 'true'", "not JSON" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct og_profile p;
		char err[512] = "";
		expect_error(og_profile_from_json(&p, "bad.json", cases[i].text, strlen(cases[i].text),
		                                  err, sizeof err), err, cases[i].needle);
		assert_true(strncmp(err, "bad.json: ", 10) == 0);
		og_profile_free(&p);
	}
	struct og_profile p;
	char err[512];
	expect_error(og_profile_load(&p, "/nonexistent.json", err, sizeof err), err,
	             "/nonexistent.json: No such file or directory");
	og_profile_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_builtin_table),
		cmocka_unit_test(test_table_errors),
		cmocka_unit_test(test_table_override),
		cmocka_unit_test(test_specs),
		cmocka_unit_test(test_predict_properties),
		cmocka_unit_test(test_predict_refuses_garbage),
		cmocka_unit_test(test_profile_inputs),
		cmocka_unit_test(test_profile_lacks),
		cmocka_unit_test(test_profile_malformed),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
