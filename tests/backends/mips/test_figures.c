/* SPDX-License-Identifier: MIT */
/*
 * test_figures.c — the numbers MD00548 prints (Figures 4, 5 and 8, Tables 6,
 * 7 and 8), recomputed from the raw counts it prints with the expressions of
 * counters/mips-34k.counters, through the core's own counter-file reader and
 * expression engine, and compared at the printed precision.
 *
 * Relative speedup and relative execution time compare two runs, so no
 * counter file can express them: those use the note's own formula here.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "catalog/counterfile.h"
#include "expr/expr.h"
#include "mips/events.h"

static struct og_cf_file file;

/* Raw values by name: the table's order gives the indices. */
static size_t raw_index(const char *name, size_t len)
{
	for (size_t i = 0; i < og_mips_event_count; i++)
		if (strlen(og_mips_events[i].name) == len &&
		    strncmp(og_mips_events[i].name, name, len) == 0)
			return i;
	return SIZE_MAX;
}

static bool resolve(void *ud, const char *name, size_t len, struct og_expr_ref *out)
{
	(void)ud;
	size_t i = raw_index(name, len);
	if (i != SIZE_MAX) {
		out->kind = OG_REF_RAW;
		out->index = (uint32_t)i;
		return true;
	}
	if (len == 8 && strncmp(name, "ClockMHz", 8) == 0) {
		out->kind = OG_REF_CONSTANT;
		out->index = 0;
		return true;
	}
	return false;
}

struct sample {
	uint64_t raw[128];
};

static void set(struct sample *s, const char *name, uint64_t v)
{
	size_t i = raw_index(name, strlen(name));
	assert_true(i < 128);
	s->raw[i] = v;
}

/* Evaluates the file's expression for `counter` over the sample. */
static double metric(const struct sample *s, const char *counter)
{
	for (size_t i = 0; i < file.count; i++) {
		const struct og_cf_entry *e = &file.entries[i];
		if (e->kind != OG_CF_COUNTER || strcmp(e->name, counter) != 0)
			continue;
		char err[128];
		struct og_expr *x = og_expr_compile(e->field[OG_F_EXPRESSION], resolve, NULL, err,
		                                    sizeof err);
		if (!x)
			fail_msg("%s: %s", counter, err);
		const double constants[1] = {500};
		double v = og_expr_eval(x, s->raw, constants);
		og_expr_free(x);
		return v;
	}
	fail_msg("no counter %s in the file", counter);
	return 0;
}

/* Formats v with `decimals` places (and a '%' when percent) as the note does. */
static void expect_fmt(double v, int decimals, bool percent, const char *printed,
                       const char *what)
{
	char buf[64];
	snprintf(buf, sizeof buf, "%.*f%s", decimals, v, percent ? "%" : "");
	if (strcmp(buf, printed) != 0)
		fail_msg("%s: computed %s, MD00548 prints %s", what, buf, printed);
}

static int load(void **unused)
{
	char err[256];
	if (!og_cf_load(MIPS_COUNTERS_FILE, &file, err, sizeof err)) {
		print_error("%s\n", err);
		return -1;
	}
	return 0;
}

static int unload(void **unused)
{
	og_cf_free(&file);
	return 0;
}

static void test_every_expression_compiles(void **unused)
{
	size_t counters = 0;
	for (size_t i = 0; i < file.count; i++) {
		const struct og_cf_entry *e = &file.entries[i];
		if (e->kind != OG_CF_COUNTER)
			continue;
		char err[128];
		struct og_expr *x = og_expr_compile(e->field[OG_F_EXPRESSION], resolve, NULL, err,
		                                    sizeof err);
		if (!x)
			fail_msg("%s: %s", e->name, err);
		og_expr_free(x);
		counters++;
	}
	assert_true(counters >= 20);
}

static void test_figure4_grep_ipc(void **unused)
{
	struct sample s = {{0}};
	set(&s, "Cycles", 1241355);
	set(&s, "Instructions", 695424);
	expect_fmt(metric(&s, "IPC"), 3, false, "0.560", "Figure 4 IPC");
}

static void test_figure5_grep_cache(void **unused)
{
	struct sample s = {{0}};
	set(&s, "Cycles", 1235557);
	set(&s, "Instructions", 699255);
	set(&s, "ICacheAccesses", 497656);
	set(&s, "ICacheMisses", 8007);
	set(&s, "DCacheAccesses", 242055);
	set(&s, "DCacheWritebacks", 3501);
	set(&s, "DCacheMisses", 18236);
	expect_fmt(metric(&s, "IPC"), 3, false, "0.566", "Figure 5 IPC");
	expect_fmt(metric(&s, "DCacheMissRate"), 1, true, "7.5%", "Figure 5 D-$ miss rate");
	/* The figure prints 1.7%, but its I-cache miss line is garbled in the
	 * extracted text ("2010000 8007"); 8007 / 497656 is 1.6%.  Checked as
	 * computed so that a change of formula still shows up. */
	expect_fmt(metric(&s, "ICacheMissRate"), 1, true, "1.6%",
	           "Figure 5 I-$ miss rate (see note)");
}

static void test_figure8_single_tc(void **unused)
{
	struct sample s = {{0}};
	set(&s, "Cycles", 182220114);
	set(&s, "Instructions", 150634834);
	expect_fmt(metric(&s, "IPC"), 3, false, "0.827", "Figure 8 IPC");
	/* Its D-cache access count is cut to "43057" by the extraction; any
	 * 43,057,xxx gives the printed 1.0% with the printed 427,095 misses. */
	set(&s, "DCacheMisses", 427095);
	set(&s, "DCacheAccesses", 43057000);
	expect_fmt(metric(&s, "DCacheMissRate"), 1, true, "1.0%", "Figure 8 D-$ miss rate (low end)");
	set(&s, "DCacheAccesses", 43057999);
	expect_fmt(metric(&s, "DCacheMissRate"), 1, true, "1.0%", "Figure 8 D-$ miss rate (high end)");
}

/* Tables 7 and 8 share these rows (threads 1..5). */
static const uint64_t cycles7[5] = {183624622, 168450653, 167250453, 169070742, 172441901};
static const uint64_t instr7[5] = {151020049, 151086135, 151120799, 151162631, 151206089};
static const uint64_t stalls7[5] = {26770910, 11939387, 10932458, 12451991, 15394697};

static void test_table7_ipc_overhead_speedup(void **unused)
{
	static const char *const ipc[5] = {"0.822", "0.897", "0.904", "0.894", "0.877"};
	static const char *const overhead[5] = {"3.2%", "3.2%", "3.1%", "3.2%", "3.4%"};
	static const char *const speedup[5] = {"1.00", "1.09", "1.10", "1.09", "1.06"};
	for (int t = 0; t < 5; t++) {
		struct sample s = {{0}};
		set(&s, "Cycles", cycles7[t]);
		set(&s, "Instructions", instr7[t]);
		set(&s, "AllStalls", stalls7[t]);
		char what[64];
		snprintf(what, sizeof what, "Table 7 IPC, %d threads", t + 1);
		expect_fmt(metric(&s, "IPC"), 3, false, ipc[t], what);
		snprintf(what, sizeof what, "Table 7 cycle sharing overhead, %d threads", t + 1);
		expect_fmt(metric(&s, "CycleSharingOverhead"), 1, true, overhead[t], what);
		/* S = single-threaded cycle count / multi-threaded cycle count (§5.3). */
		snprintf(what, sizeof what, "Table 7 relative speedup, %d threads", t + 1);
		expect_fmt((double)cycles7[0] / (double)cycles7[t], 2, false, speedup[t], what);
	}
}

static void test_table8_stall_breakdown(void **unused)
{
	/* §5.3: for three threads the individual stall counters add up to
	 * 14,126,161 although all stalls are 10,932,458 (overlaps count once). */
	struct sample s = {{0}};
	set(&s, "Cycles", cycles7[2]);
	set(&s, "Instructions", instr7[2]);
	set(&s, "AllStalls", stalls7[2]);
	set(&s, "CacheFixups", 804660);         /* LSU replay stalls, event 24 even */
	set(&s, "Refetches", 6861);             /* event 24 odd */
	set(&s, "IFUStalls", 3534592);          /* "No instructions available", 25 even */
	set(&s, "ReplayTraps", 132180);         /* 18 odd */
	set(&s, "ALUStalls", 7240907);          /* 25 odd */
	set(&s, "ICacheMissStallCycles", 1686401);
	set(&s, "DCacheMissStallCycles", 720560);
	static const char *const parts[] = {"CacheFixups", "Refetches", "IFUStalls", "ReplayTraps",
	                                    "ALUStalls", "ICacheMissStallCycles",
	                                    "DCacheMissStallCycles"};
	uint64_t sum = 0;
	for (size_t i = 0; i < 7; i++)
		sum += s.raw[raw_index(parts[i], strlen(parts[i]))];
	assert_int_equal(sum, 14126161);
	assert_true(sum > stalls7[2]);
	/* "ALU stalls are the most significant source of stall cycles." */
	double alu = metric(&s, "ALUStallShare");
	const char *shares[] = {"LSUReplayStallShare", "IFUStallShare", "ReplayShare",
	                        "ICacheMissStallShare", "DCacheMissStallShare"};
	for (size_t i = 0; i < 5; i++)
		assert_true(alu > metric(&s, shares[i]));
	expect_fmt(metric(&s, "StallShare"), 1, false, "6.5", "Table 8 stall share, 3 threads");
}

static void test_table6_relative_execution_time(void **unused)
{
	/* "the ratio of the cycle count for blocksizes above 64 to the cycle
	 * count with blocksize equal to 64" (§5.1). */
	static const uint64_t cycles[6] = {522337380,  754283302,  1198406121,
	                                   2137115472, 3967414208, 7689066234};
	static const char *const printed[6] = {"1.00", "1.45", "2.29", "4.08", "7.60", "14.72"};
	/* Blocksizes 128 and 512 print 1.45 and 4.08 where the printed cycle
	 * counts give 1.44 and 4.09: the note probably divided wall-clock
	 * times there.  The other four agree to the printed precision. */
	static const char *const computed[6] = {"1.00", "1.44", "2.29", "4.09", "7.60", "14.72"};
	for (int i = 0; i < 6; i++) {
		char what[64];
		snprintf(what, sizeof what, "Table 6 relative time, row %d (printed %s)", i, printed[i]);
		expect_fmt((double)cycles[i] / (double)cycles[0], 2, false, computed[i], what);
	}
	/* And the IPC the table implies is below one throughout. */
	static const uint64_t instr[6] = {446849798,  667638291,  1110112990,
	                                  2012639686, 3812539153, 7431331191};
	for (int i = 0; i < 6; i++) {
		struct sample s = {{0}};
		set(&s, "Cycles", cycles[i]);
		set(&s, "Instructions", instr[i]);
		double v = metric(&s, "IPC");
		assert_true(v > 0.8 && v < 1.0);
	}
}

static void test_idle_sample_is_zero(void **unused)
{
	struct sample s = {{0}};
	static const char *const all[] = {"IPC", "CycleSharingOverhead", "ICacheMissRate",
	                                  "DCacheMissRate", "L2MissRate", "BranchMispredictionRate"};
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
		assert_true(metric(&s, all[i]) == 0.0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_expression_compiles),
		cmocka_unit_test(test_figure4_grep_ipc),
		cmocka_unit_test(test_figure5_grep_cache),
		cmocka_unit_test(test_figure8_single_tc),
		cmocka_unit_test(test_table7_ipc_overhead_speedup),
		cmocka_unit_test(test_table8_stall_breakdown),
		cmocka_unit_test(test_table6_relative_execution_time),
		cmocka_unit_test(test_idle_sample_is_zero),
	};
	return cmocka_run_group_tests(tests, load, unload);
}
