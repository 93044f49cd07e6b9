/* SPDX-License-Identifier: MIT */
/* test_perf_topdown.c — the Neoverse counter sets: every expression compiles,
 * top-down level 1 adds up to 100 % for any consistent input
 * (STALL_SLOT = STALL_SLOT_FRONTEND + STALL_SLOT_BACKEND, OP_RETIRED <=
 * OP_SPEC) on every core and revision, and on N3 and V3 each level-2 group
 * adds up to 100 % of its parent's stall cycles when the stall events add up
 * as Arm defines them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "catalog/counterfile.h"
#include "expr/expr.h"

#define MAX_ENTRIES 256

struct set {
	struct og_cf_file file;
	struct og_expr *expr[MAX_ENTRIES];
	uint32_t raw_index[MAX_ENTRIES];     /* entry -> raw array slot */
	uint32_t const_index[MAX_ENTRIES];   /* entry -> constant array slot */
	double constants[MAX_ENTRIES];
	size_t nraw, nconst;
};

static bool resolve(void *ud, const char *name, size_t len, struct og_expr_ref *out)
{
	struct set *s = ud;
	for (size_t i = 0; i < s->file.count; i++) {
		const struct og_cf_entry *e = &s->file.entries[i];
		if (strlen(e->name) != len || strncmp(e->name, name, len) != 0)
			continue;
		if (e->kind == OG_CF_RAW)
			*out = (struct og_expr_ref){ OG_REF_RAW, s->raw_index[i], NULL };
		else if (e->kind == OG_CF_CONSTANT)
			*out = (struct og_expr_ref){ OG_REF_CONSTANT, s->const_index[i], NULL };
		else if (s->expr[i])
			*out = (struct og_expr_ref){ OG_REF_EXPR, 0, s->expr[i] };
		else
			return false; /* a counter used before it is defined */
		return true;
	}
	return false;
}

static void load(struct set *s, const char *name)
{
	char path[512], err[256];
	memset(s, 0, sizeof *s);
	snprintf(path, sizeof path, "%s/%s.counters", OG_PERF_COUNTERS_DIR, name);
	if (!og_cf_load(path, &s->file, err, sizeof err))
		fail_msg("%s", err);
	assert_true(s->file.count <= MAX_ENTRIES);
	assert_non_null(s->file.backend);
	assert_string_equal(s->file.backend, "perf");
	for (size_t i = 0; i < s->file.count; i++) {
		const struct og_cf_entry *e = &s->file.entries[i];
		if (e->kind == OG_CF_RAW) {
			s->raw_index[i] = (uint32_t)s->nraw++;
			/* Every Neoverse event is a raw CPU PMU code. */
			assert_memory_equal(e->field[OG_F_SOURCE], "raw:0x", 6);
		} else if (e->kind == OG_CF_CONSTANT) {
			assert_non_null(e->field[OG_F_VALUE]);
			s->const_index[i] = (uint32_t)s->nconst;
			s->constants[s->nconst++] = e->value;
		}
	}
	for (size_t i = 0; i < s->file.count; i++) {
		const struct og_cf_entry *e = &s->file.entries[i];
		if (e->kind != OG_CF_COUNTER)
			continue;
		s->expr[i] = og_expr_compile(e->field[OG_F_EXPRESSION], resolve, s, err, sizeof err);
		if (!s->expr[i])
			fail_msg("%s: counter %s: %s", path, e->name, err);
	}
}

static void unload(struct set *s)
{
	for (size_t i = 0; i < s->file.count; i++)
		og_expr_free(s->expr[i]);
	og_cf_free(&s->file);
}

static const struct og_expr *counter(struct set *s, const char *name)
{
	for (size_t i = 0; i < s->file.count; i++)
		if (s->file.entries[i].kind == OG_CF_COUNTER && strcmp(s->file.entries[i].name, name) == 0)
			return s->expr[i];
	fail_msg("no counter %s", name);
	return NULL;
}

static uint64_t *find_raw(struct set *s, uint64_t *values, const char *name)
{
	for (size_t i = 0; i < s->file.count; i++)
		if (s->file.entries[i].kind == OG_CF_RAW && strcmp(s->file.entries[i].name, name) == 0)
			return &values[s->raw_index[i]];
	return NULL;
}

static uint64_t *raw(struct set *s, uint64_t *values, const char *name)
{
	uint64_t *v = find_raw(s, values, name);
	if (!v)
		fail_msg("no raw counter %s", name);
	return v;
}

/* A fixed-seed generator: the test is the same on every run. */
static uint64_t next(uint64_t *state)
{
	*state = *state * 6364136223846793005ull + 1442695040888963407ull;
	return *state >> 11;
}

static void check_level1_sums(const char *name, double slots)
{
	struct set s;
	load(&s, name);
	assert_true(s.nconst == 1 && s.constants[0] == slots);
	uint64_t seed = 12345, values[MAX_ENTRIES];
	for (int trial = 0; trial < 2000; trial++) {
		for (size_t i = 0; i < s.nraw; i++)
			values[i] = next(&seed) % 1000000000u;
		uint64_t c = 1 + next(&seed) % 1000000000u;
		uint64_t ssf = next(&seed) % (uint64_t)(slots * (double)c + 1);
		uint64_t ssb = next(&seed) % (uint64_t)(slots * (double)c - (double)ssf + 1);
		uint64_t spec = 1 + next(&seed) % 4000000000u;
		*raw(&s, values, "CPU_CYCLES") = c;
		*raw(&s, values, "STALL_SLOT_FRONTEND") = ssf;
		*raw(&s, values, "STALL_SLOT_BACKEND") = ssb;
		*raw(&s, values, "STALL_SLOT") = ssf + ssb;
		*raw(&s, values, "OP_SPEC") = spec;
		*raw(&s, values, "OP_RETIRED") = next(&seed) % (spec + 1);
		/* The correction term: BR_MIS_PRED on N2, V1, V2, flush cycles on
		 * N3 and V3.  Whichever the file has, it must cancel out. */
		uint64_t *correction = find_raw(&s, values, "BR_MIS_PRED");
		if (!correction)
			correction = raw(&s, values, "STALL_FRONTEND_FLUSH");
		*correction = next(&seed) % (c / 4 + 1);
		double sum = 0;
		static const char *const l1[] = { "FrontendBound", "BackendBound", "BadSpeculation",
			                          "Retiring" };
		for (size_t k = 0; k < 4; k++)
			sum += og_expr_eval(counter(&s, l1[k]), values, s.constants);
		if (fabs(sum - 100.0) > 1e-6)
			fail_msg("%s trial %d: level 1 sums to %.9f", name, trial, sum);
	}
	unload(&s);
}

static void test_n2(void **unused)
{
	(void)unused;
	check_level1_sums("neoverse-n2", 5);
}

static void test_n2_r0p3(void **unused)
{
	(void)unused;
	check_level1_sums("neoverse-n2-r0p3", 5);
}

static void test_v1(void **unused)
{
	(void)unused;
	check_level1_sums("neoverse-v1", 8);
}

static void test_v2(void **unused)
{
	(void)unused;
	check_level1_sums("neoverse-v2", 8);
}

static void test_n3(void **unused)
{
	(void)unused;
	check_level1_sums("neoverse-n3", 5);
}

static void test_v3(void **unused)
{
	(void)unused;
	check_level1_sums("neoverse-v3", 10);
}

static double eval(struct set *s, const uint64_t *values, const char *name)
{
	return og_expr_eval(counter(s, name), values, s->constants);
}

static void sums_to_100(struct set *s, const uint64_t *values, const char *what,
                        const char *const *parts, size_t n)
{
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += eval(s, values, parts[i]);
	if (fabs(sum - 100.0) > 1e-6)
		fail_msg("%s: the parts of %s sum to %.9f", s->file.origin, what, sum);
}

/* Arm's level-2 tree for N3 and V3 (the decision_tree of its data): each
 * node's children split the node's stall cycles.  The synthetic counts keep
 * Arm's event definitions: STALL_FRONTEND = CPUBOUND + MEMBOUND, CPUBOUND =
 * FLUSH + FLOW, MEMBOUND = L1I + MEM + TLB, and the backend alike with
 * MEMBOUND = L1D + MEM + TLB + ST.  BackendCoreRenameBound is the one child
 * of BackendCoreBound and BackendBusyBound has no parent in Arm's tree, so
 * neither is part of a sum; both stay within 0..100. */
static void check_level2_sums(const char *name)
{
	struct set s;
	load(&s, name);
	uint64_t seed = 777, values[MAX_ENTRIES];
	for (int trial = 0; trial < 2000; trial++) {
		for (size_t i = 0; i < s.nraw; i++)
			values[i] = 1 + next(&seed) % 1000000000u;
		uint64_t flush = 1 + next(&seed) % 1000000, flow = 1 + next(&seed) % 1000000;
		uint64_t l1i = 1 + next(&seed) % 1000000, mem = next(&seed) % 1000000;
		uint64_t tlb = next(&seed) % 1000000;
		*raw(&s, values, "STALL_FRONTEND_FLUSH") = flush;
		*raw(&s, values, "STALL_FRONTEND_FLOW") = flow;
		*raw(&s, values, "STALL_FRONTEND_CPUBOUND") = flush + flow;
		*raw(&s, values, "STALL_FRONTEND_L1I") = l1i;
		*raw(&s, values, "STALL_FRONTEND_MEM") = mem;
		*raw(&s, values, "STALL_FRONTEND_TLB") = tlb;
		*raw(&s, values, "STALL_FRONTEND_MEMBOUND") = l1i + mem + tlb;
		*raw(&s, values, "STALL_FRONTEND") = flush + flow + l1i + mem + tlb;
		uint64_t core = 1 + next(&seed) % 1000000, l1d = 1 + next(&seed) % 1000000;
		uint64_t bmem = next(&seed) % 1000000, btlb = next(&seed) % 1000000;
		uint64_t st = next(&seed) % 1000000;
		*raw(&s, values, "STALL_BACKEND_CPUBOUND") = core;
		*raw(&s, values, "STALL_BACKEND_RENAME") = next(&seed) % (core + 1);
		*raw(&s, values, "STALL_BACKEND_L1D") = l1d;
		*raw(&s, values, "STALL_BACKEND_MEM") = bmem;
		*raw(&s, values, "STALL_BACKEND_TLB") = btlb;
		*raw(&s, values, "STALL_BACKEND_ST") = st;
		*raw(&s, values, "STALL_BACKEND_MEMBOUND") = l1d + bmem + btlb + st;
		uint64_t backend = core + l1d + bmem + btlb + st;
		*raw(&s, values, "STALL_BACKEND") = backend;
		*raw(&s, values, "STALL_BACKEND_BUSY") = next(&seed) % (backend + 1);

		static const char *const fe[] = { "FrontendCoreBound", "FrontendMemBound" };
		static const char *const fe_core[] = { "FrontendCoreFlushBound", "FrontendCoreFlowBound" };
		static const char *const fe_mem[] = { "FrontendMemCacheBound", "FrontendMemTLBBound" };
		static const char *const fe_cache[] = { "FrontendCacheL1IBound", "FrontendCacheL2IBound" };
		static const char *const be[] = { "BackendCoreBound", "BackendMemBound" };
		static const char *const be_mem[] = { "BackendMemCacheBound", "BackendMemTLBBound",
			                              "BackendMemStoreBound" };
		static const char *const be_cache[] = { "BackendCacheL1DBound", "BackendCacheL2DBound" };
		sums_to_100(&s, values, "FrontendBound", fe, 2);
		sums_to_100(&s, values, "FrontendCoreBound", fe_core, 2);
		sums_to_100(&s, values, "FrontendMemBound", fe_mem, 2);
		sums_to_100(&s, values, "FrontendMemCacheBound", fe_cache, 2);
		sums_to_100(&s, values, "BackendBound", be, 2);
		sums_to_100(&s, values, "BackendMemBound", be_mem, 3);
		sums_to_100(&s, values, "BackendMemCacheBound", be_cache, 2);
		double rename = eval(&s, values, "BackendCoreRenameBound");
		double busy = eval(&s, values, "BackendBusyBound");
		assert_true(rename >= 0 && rename <= 100 && busy >= 0 && busy <= 100);
	}
	unload(&s);
}

static void test_n3_level2(void **unused)
{
	(void)unused;
	check_level2_sums("neoverse-n3");
}

static void test_v3_level2(void **unused)
{
	(void)unused;
	check_level2_sums("neoverse-v3");
}

/* N3 at a known point, so a tree that sums right but splits wrong still
 * fails: C = 1000, 5000 slots, SSF = 1500, SSB = 1000, flush = 100,
 * R/S = 3/4.  FE = 30 - 10 = 20, BE = 20, BS = 0.5 * 0.25 * 100 + 10 = 22.5,
 * RET = 0.5 * 0.75 * 100 = 37.5; frontend stalls 400 = 100 flush + 60 flow +
 * 240 memory (120 L1I + 80 L2 + 40 TLB). */
static void test_n3_known_point(void **unused)
{
	(void)unused;
	struct set s;
	load(&s, "neoverse-n3");
	uint64_t values[MAX_ENTRIES] = { 0 };
	*raw(&s, values, "CPU_CYCLES") = 1000;
	*raw(&s, values, "STALL_SLOT_FRONTEND") = 1500;
	*raw(&s, values, "STALL_SLOT_BACKEND") = 1000;
	*raw(&s, values, "STALL_SLOT") = 2500;
	*raw(&s, values, "OP_SPEC") = 4000;
	*raw(&s, values, "OP_RETIRED") = 3000;
	*raw(&s, values, "STALL_FRONTEND_FLUSH") = 100;
	*raw(&s, values, "STALL_FRONTEND_FLOW") = 60;
	*raw(&s, values, "STALL_FRONTEND_CPUBOUND") = 160;
	*raw(&s, values, "STALL_FRONTEND_L1I") = 120;
	*raw(&s, values, "STALL_FRONTEND_MEM") = 80;
	*raw(&s, values, "STALL_FRONTEND_TLB") = 40;
	*raw(&s, values, "STALL_FRONTEND_MEMBOUND") = 240;
	*raw(&s, values, "STALL_FRONTEND") = 400;
	assert_float_equal(eval(&s, values, "FrontendBound"), 20.0, 1e-9);
	assert_float_equal(eval(&s, values, "BackendBound"), 20.0, 1e-9);
	assert_float_equal(eval(&s, values, "BadSpeculation"), 22.5, 1e-9);
	assert_float_equal(eval(&s, values, "Retiring"), 37.5, 1e-9);
	assert_float_equal(eval(&s, values, "FrontendCoreBound"), 40.0, 1e-9);
	assert_float_equal(eval(&s, values, "FrontendCoreFlushBound"), 62.5, 1e-9);
	assert_float_equal(eval(&s, values, "FrontendMemTLBBound"), 100.0 / 6.0, 1e-9);
	assert_float_equal(eval(&s, values, "FrontendCacheL1IBound"), 60.0, 1e-9);
	unload(&s);
}

/* A known point, so a formula that sums to 100 but is wrong still fails:
 * V2, C = 1000, 8 slots = 8000 slots, SSF = 2000, SSB = 1000, R/S = 3/4,
 * B = 10.  FE = 25 - 1 = 24, BE = 12.5 - 3 = 9.5,
 * BS = 0.25 * 0.625 * 100 + 4 = 19.625, RET = 0.75 * 0.625 * 100 = 46.875. */
static void test_v2_known_point(void **unused)
{
	(void)unused;
	struct set s;
	load(&s, "neoverse-v2");
	uint64_t values[MAX_ENTRIES] = { 0 };
	*raw(&s, values, "CPU_CYCLES") = 1000;
	*raw(&s, values, "STALL_SLOT_FRONTEND") = 2000;
	*raw(&s, values, "STALL_SLOT_BACKEND") = 1000;
	*raw(&s, values, "STALL_SLOT") = 3000;
	*raw(&s, values, "OP_SPEC") = 4000;
	*raw(&s, values, "OP_RETIRED") = 3000;
	*raw(&s, values, "BR_MIS_PRED") = 10;
	assert_float_equal(og_expr_eval(counter(&s, "FrontendBound"), values, s.constants), 24.0, 1e-9);
	assert_float_equal(og_expr_eval(counter(&s, "BackendBound"), values, s.constants), 9.5, 1e-9);
	assert_float_equal(og_expr_eval(counter(&s, "BadSpeculation"), values, s.constants), 19.625,
	                   1e-9);
	assert_float_equal(og_expr_eval(counter(&s, "Retiring"), values, s.constants), 46.875, 1e-9);
	unload(&s);
}

static void test_n1_cycle_accounting(void **unused)
{
	(void)unused;
	struct set s;
	load(&s, "neoverse-n1");
	uint64_t values[MAX_ENTRIES] = { 0 };
	*raw(&s, values, "CPU_CYCLES") = 1000;
	*raw(&s, values, "STALL_FRONTEND") = 150;
	*raw(&s, values, "STALL_BACKEND") = 400;
	assert_float_equal(og_expr_eval(counter(&s, "FrontendStalledCycles"), values, s.constants),
	                   15.0, 1e-9);
	assert_float_equal(og_expr_eval(counter(&s, "BackendStalledCycles"), values, s.constants),
	                   40.0, 1e-9);
	/* N1 has no slot events, so no level 1 in its file. */
	for (size_t i = 0; i < s.file.count; i++)
		assert_string_not_equal(s.file.entries[i].name, "FrontendBound");
	unload(&s);
}

static void test_generic_set(void **unused)
{
	(void)unused;
	struct set s;
	char path[512], err[256];
	memset(&s, 0, sizeof s);
	snprintf(path, sizeof path, "%s/perf-generic.counters", OG_PERF_COUNTERS_DIR);
	if (!og_cf_load(path, &s.file, err, sizeof err))
		fail_msg("%s", err);
	for (size_t i = 0; i < s.file.count; i++)
		if (s.file.entries[i].kind == OG_CF_RAW)
			s.raw_index[i] = (uint32_t)s.nraw++;
	for (size_t i = 0; i < s.file.count; i++) {
		const struct og_cf_entry *e = &s.file.entries[i];
		if (e->kind != OG_CF_COUNTER)
			continue;
		s.expr[i] = og_expr_compile(e->field[OG_F_EXPRESSION], resolve, &s, err, sizeof err);
		if (!s.expr[i])
			fail_msg("%s: counter %s: %s", path, e->name, err);
	}
	uint64_t values[MAX_ENTRIES] = { 0 };
	*raw(&s, values, "SwTaskClock") = 30000000;
	*raw(&s, values, "TimeWall") = 40000000;
	assert_float_equal(og_expr_eval(counter(&s, "CPUUtilization"), values, s.constants), 75.0,
	                   1e-9);
	assert_float_equal(og_expr_eval(counter(&s, "TaskClock"), values, s.constants), 30.0, 1e-9);
	unload(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_n2),
		cmocka_unit_test(test_n2_r0p3),
		cmocka_unit_test(test_v1),
		cmocka_unit_test(test_v2),
		cmocka_unit_test(test_v2_known_point),
		cmocka_unit_test(test_n3),
		cmocka_unit_test(test_v3),
		cmocka_unit_test(test_n3_level2),
		cmocka_unit_test(test_v3_level2),
		cmocka_unit_test(test_n3_known_point),
		cmocka_unit_test(test_n1_cycle_accounting),
		cmocka_unit_test(test_generic_set),
	};
	return cmocka_run_group_tests_name("perf-topdown", tests, NULL, NULL);
}
