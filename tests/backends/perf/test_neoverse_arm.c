/* SPDX-License-Identifier: MIT */
/*
 * test_neoverse_arm.c — each counters/neoverse-*.counters file against Arm's
 * published metric data for its core.
 *
 * The tables below are typed from Arm's telemetry-solution per-core metric
 * files (neoverse_<core>_<rev>_pmu.json under tools/topdown_tool/topdown_tool/
 * cpu_probe/metrics/; for N3 and V3 also data/pmu/cpu/neoverse/<core>.json),
 * not generated at build time: a change to a counter file has to agree with
 * them by hand.  For every core the test checks that
 *
 *   - every metric Arm publishes has its counter, and the file has no other;
 *   - the counter computes Arm's formula: both are compiled by the core's
 *     expression engine and evaluated on the same random counts;
 *   - every raw counter is the Arm event of that name, with Arm's code;
 *   - Arm's top-down groups (level 1, and level 2 on N3 and V3) map to the
 *     file's groups.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/counterfile.h"
#include "expr/expr.h"

struct arm_metric {
	const char *arm;     /* Arm's metric name */
	const char *counter; /* the counter in the opengpa file */
	const char *formula; /* Arm's formula, as the data prints it */
};

#define END { NULL, NULL, NULL }

/* Arm prints these with the same text for every core that has them. */
static const struct arm_metric stage2[] = {
	{ "frontend_stalled_cycles", "FrontendStalledCycles", "STALL_FRONTEND / CPU_CYCLES * 100" },
	{ "backend_stalled_cycles", "BackendStalledCycles", "STALL_BACKEND / CPU_CYCLES * 100" },
	{ "ipc", "InstructionsPerCycle", "INST_RETIRED / CPU_CYCLES" },
	{ "branch_mpki", "BranchMPKI", "BR_MIS_PRED_RETIRED / INST_RETIRED * 1000" },
	{ "itlb_mpki", "ITLBWalkMPKI", "ITLB_WALK / INST_RETIRED * 1000" },
	{ "dtlb_mpki", "DTLBWalkMPKI", "DTLB_WALK / INST_RETIRED * 1000" },
	{ "l1i_tlb_mpki", "L1ITLBMPKI", "L1I_TLB_REFILL / INST_RETIRED * 1000" },
	{ "l1d_tlb_mpki", "L1DTLBMPKI", "L1D_TLB_REFILL / INST_RETIRED * 1000" },
	{ "l2_tlb_mpki", "L2TLBMPKI", "L2D_TLB_REFILL / INST_RETIRED * 1000" },
	{ "l1i_cache_mpki", "L1ICacheMPKI", "L1I_CACHE_REFILL / INST_RETIRED * 1000" },
	{ "l1d_cache_mpki", "L1DCacheMPKI", "L1D_CACHE_REFILL / INST_RETIRED * 1000" },
	{ "l2_cache_mpki", "L2CacheMPKI", "L2D_CACHE_REFILL / INST_RETIRED * 1000" },
	{ "ll_cache_read_mpki", "LLCacheReadMPKI", "LL_CACHE_MISS_RD / INST_RETIRED * 1000" },
	{ "branch_misprediction_ratio", "BranchMispredictionRatio", "BR_MIS_PRED_RETIRED / BR_RETIRED" },
	{ "itlb_walk_ratio", "ITLBWalkRatio", "ITLB_WALK / L1I_TLB" },
	{ "dtlb_walk_ratio", "DTLBWalkRatio", "DTLB_WALK / L1D_TLB" },
	{ "l1i_tlb_miss_ratio", "L1ITLBMissRatio", "L1I_TLB_REFILL / L1I_TLB" },
	{ "l1d_tlb_miss_ratio", "L1DTLBMissRatio", "L1D_TLB_REFILL / L1D_TLB" },
	{ "l2_tlb_miss_ratio", "L2TLBMissRatio", "L2D_TLB_REFILL / L2D_TLB" },
	{ "l1i_cache_miss_ratio", "L1ICacheMissRatio", "L1I_CACHE_REFILL / L1I_CACHE" },
	{ "l1d_cache_miss_ratio", "L1DCacheMissRatio", "L1D_CACHE_REFILL / L1D_CACHE" },
	{ "l2_cache_miss_ratio", "L2CacheMissRatio", "L2D_CACHE_REFILL / L2D_CACHE" },
	{ "ll_cache_read_miss_ratio", "LLCacheReadMissRatio", "LL_CACHE_MISS_RD / LL_CACHE_RD" },
	{ "ll_cache_read_hit_ratio", "LLCacheReadHitRatio", "(LL_CACHE_RD - LL_CACHE_MISS_RD) / LL_CACHE_RD" },
	{ "load_percentage", "LoadPercentage", "LD_SPEC / INST_SPEC * 100" },
	{ "store_percentage", "StorePercentage", "ST_SPEC / INST_SPEC * 100" },
	{ "simd_percentage", "SIMDPercentage", "ASE_SPEC / INST_SPEC * 100" },
	{ "scalar_fp_percentage", "ScalarFPPercentage", "VFP_SPEC / INST_SPEC * 100" },
	{ "crypto_percentage", "CryptoPercentage", "CRYPTO_SPEC / INST_SPEC * 100" },
	END,
};

/* integer_dp_percentage and branch_percentage as every core but N3 prints them. */
static const struct arm_metric mix[] = {
	{ "integer_dp_percentage", "IntegerPercentage", "DP_SPEC / INST_SPEC * 100" },
	{ "branch_percentage", "BranchPercentage", "(BR_IMMED_SPEC + BR_INDIRECT_SPEC) / INST_SPEC * 100" },
	END,
};

static const struct arm_metric sve_all[] = {
	{ "sve_all_percentage", "SVEPercentage", "SVE_INST_SPEC / INST_SPEC * 100" },
	END,
};

/* What V2, N3 and V3 add: barriers, FP intensity and precision, SVE predication. */
static const struct arm_metric v2_extra[] = {
	{ "barrier_percentage", "BarrierPercentage", "(ISB_SPEC + DSB_SPEC + DMB_SPEC) / INST_SPEC * 100" },
	{ "fp16_percentage", "FP16Percentage", "FP_HP_SPEC / INST_SPEC * 100" },
	{ "fp32_percentage", "FP32Percentage", "FP_SP_SPEC / INST_SPEC * 100" },
	{ "fp64_percentage", "FP64Percentage", "FP_DP_SPEC / INST_SPEC * 100" },
	{ "fp_ops_per_cycle", "FPOpsPerCycle", "(FP_SCALE_OPS_SPEC + FP_FIXED_OPS_SPEC) / CPU_CYCLES" },
	{ "nonsve_fp_ops_per_cycle", "NonSVEFPOpsPerCycle", "FP_FIXED_OPS_SPEC / CPU_CYCLES" },
	{ "sve_fp_ops_per_cycle", "SVEFPOpsPerCycle", "FP_SCALE_OPS_SPEC / CPU_CYCLES" },
	{ "sve_predicate_percentage", "SVEPredicatePercentage", "SVE_PRED_SPEC / INST_SPEC * 100" },
	{ "sve_predicate_full_percentage", "SVEPredicateFullPercentage", "SVE_PRED_FULL_SPEC / SVE_PRED_SPEC * 100" },
	{ "sve_predicate_partial_percentage", "SVEPredicatePartialPercentage", "SVE_PRED_PARTIAL_SPEC / SVE_PRED_SPEC * 100" },
	{ "sve_predicate_empty_percentage", "SVEPredicateEmptyPercentage", "SVE_PRED_EMPTY_SPEC / SVE_PRED_SPEC * 100" },
	END,
};

/* Top-down level 1, per core. */
static const struct arm_metric n2_r0p2_l1[] = {
	{ "frontend_bound", "FrontendBound", "100 * ((STALL_SLOT_FRONTEND - CPU_CYCLES) / (5 * CPU_CYCLES) - BR_MIS_PRED / CPU_CYCLES)" },
	{ "backend_bound", "BackendBound", "100 * (STALL_SLOT_BACKEND / (CPU_CYCLES * 5) - BR_MIS_PRED * 3 / CPU_CYCLES)" },
	{ "bad_speculation", "BadSpeculation", "100 * ((1 - OP_RETIRED / OP_SPEC) * (1 - (STALL_SLOT - CPU_CYCLES) / (CPU_CYCLES * 5)) + BR_MIS_PRED * 4 / CPU_CYCLES)" },
	{ "retiring", "Retiring", "100 * (OP_RETIRED / OP_SPEC * (1 - (STALL_SLOT - CPU_CYCLES) / (CPU_CYCLES * 5)))" },
	END,
};

static const struct arm_metric n2_r0p3_l1[] = {
	{ "frontend_bound", "FrontendBound", "100 * (STALL_SLOT_FRONTEND / (CPU_CYCLES * 5) - BR_MIS_PRED / CPU_CYCLES)" },
	{ "backend_bound", "BackendBound", "100 * (STALL_SLOT_BACKEND / (CPU_CYCLES * 5) - BR_MIS_PRED * 3 / CPU_CYCLES)" },
	{ "bad_speculation", "BadSpeculation", "100 * ((1 - OP_RETIRED / OP_SPEC) * (1 - STALL_SLOT / (CPU_CYCLES * 5)) + BR_MIS_PRED * 4 / CPU_CYCLES)" },
	{ "retiring", "Retiring", "(1 - STALL_SLOT / (CPU_CYCLES * 5)) * (OP_RETIRED / OP_SPEC) * 100" },
	END,
};

/* V1 and V2 retiring are typed from reference/cpu-counters.md section 1.3,
 * which quotes the same data. */
static const struct arm_metric v1_l1[] = {
	{ "frontend_bound", "FrontendBound", "100 * (STALL_SLOT_FRONTEND / (CPU_CYCLES * 8) - BR_MIS_PRED * 4 / CPU_CYCLES)" },
	{ "backend_bound", "BackendBound", "STALL_SLOT_BACKEND / (8 * CPU_CYCLES) * 100" },
	{ "bad_speculation", "BadSpeculation", "100 * ((1 - OP_RETIRED / OP_SPEC) * (1 - STALL_SLOT / (CPU_CYCLES * 8)) + BR_MIS_PRED * 4 / CPU_CYCLES)" },
	{ "retiring", "Retiring", "100 * ((1 - STALL_SLOT / (CPU_CYCLES * 8)) * (OP_RETIRED / OP_SPEC))" },
	END,
};

static const struct arm_metric v2_l1[] = {
	{ "frontend_bound", "FrontendBound", "100 * (STALL_SLOT_FRONTEND / (CPU_CYCLES * 8) - BR_MIS_PRED / CPU_CYCLES)" },
	{ "backend_bound", "BackendBound", "100 * (STALL_SLOT_BACKEND / (CPU_CYCLES * 8) - BR_MIS_PRED * 3 / CPU_CYCLES)" },
	{ "bad_speculation", "BadSpeculation", "100 * ((1 - OP_RETIRED / OP_SPEC) * (1 - STALL_SLOT / (CPU_CYCLES * 8)) + BR_MIS_PRED * 4 / CPU_CYCLES)" },
	{ "retiring", "Retiring", "100 * ((OP_RETIRED / OP_SPEC) * (1 - STALL_SLOT / (CPU_CYCLES * 8)))" },
	END,
};

static const struct arm_metric n3_l1[] = {
	{ "frontend_bound", "FrontendBound", "(STALL_SLOT_FRONTEND / (5 * CPU_CYCLES) - STALL_FRONTEND_FLUSH / CPU_CYCLES) * 100" },
	{ "backend_bound", "BackendBound", "STALL_SLOT_BACKEND / (5 * CPU_CYCLES) * 100" },
	{ "bad_speculation", "BadSpeculation", "(1 - STALL_SLOT / (5 * CPU_CYCLES)) * (1 - OP_RETIRED / OP_SPEC) * 100 + STALL_FRONTEND_FLUSH / CPU_CYCLES * 100" },
	{ "retiring", "Retiring", "(1 - STALL_SLOT / (CPU_CYCLES * 5)) * (OP_RETIRED / OP_SPEC) * 100" },
	END,
};

static const struct arm_metric v3_l1[] = {
	{ "frontend_bound", "FrontendBound", "(STALL_SLOT_FRONTEND / (10 * CPU_CYCLES) - STALL_FRONTEND_FLUSH / CPU_CYCLES) * 100" },
	{ "backend_bound", "BackendBound", "STALL_SLOT_BACKEND / (10 * CPU_CYCLES) * 100" },
	{ "bad_speculation", "BadSpeculation", "(1 - STALL_SLOT / (10 * CPU_CYCLES)) * (1 - OP_RETIRED / OP_SPEC) * 100 + STALL_FRONTEND_FLUSH / CPU_CYCLES * 100" },
	{ "retiring", "Retiring", "(1 - STALL_SLOT / (CPU_CYCLES * 10)) * (OP_RETIRED / OP_SPEC) * 100" },
	END,
};

/* N3 and V3: Arm's groups Topdown_Frontend and Topdown_Backend. */
static const struct arm_metric topdown_frontend[] = {
	{ "frontend_core_bound", "FrontendCoreBound", "STALL_FRONTEND_CPUBOUND / STALL_FRONTEND * 100" },
	{ "frontend_mem_bound", "FrontendMemBound", "STALL_FRONTEND_MEMBOUND / STALL_FRONTEND * 100" },
	{ "frontend_core_flush_bound", "FrontendCoreFlushBound", "STALL_FRONTEND_FLUSH / STALL_FRONTEND_CPUBOUND * 100" },
	{ "frontend_core_flow_bound", "FrontendCoreFlowBound", "STALL_FRONTEND_FLOW / STALL_FRONTEND_CPUBOUND * 100" },
	{ "frontend_mem_cache_bound", "FrontendMemCacheBound", "(STALL_FRONTEND_L1I + STALL_FRONTEND_MEM) / STALL_FRONTEND_MEMBOUND * 100" },
	{ "frontend_mem_tlb_bound", "FrontendMemTLBBound", "STALL_FRONTEND_TLB / STALL_FRONTEND_MEMBOUND * 100" },
	{ "frontend_cache_l1i_bound", "FrontendCacheL1IBound", "STALL_FRONTEND_L1I / (STALL_FRONTEND_L1I + STALL_FRONTEND_MEM) * 100" },
	{ "frontend_cache_l2i_bound", "FrontendCacheL2IBound", "STALL_FRONTEND_MEM / (STALL_FRONTEND_L1I + STALL_FRONTEND_MEM) * 100" },
	END,
};

static const struct arm_metric topdown_backend[] = {
	{ "backend_core_bound", "BackendCoreBound", "STALL_BACKEND_CPUBOUND / STALL_BACKEND * 100" },
	{ "backend_mem_bound", "BackendMemBound", "STALL_BACKEND_MEMBOUND / STALL_BACKEND * 100" },
	{ "backend_core_rename_bound", "BackendCoreRenameBound", "STALL_BACKEND_RENAME / STALL_BACKEND_CPUBOUND * 100" },
	{ "backend_busy_bound", "BackendBusyBound", "STALL_BACKEND_BUSY / STALL_BACKEND * 100" },
	{ "backend_mem_cache_bound", "BackendMemCacheBound", "(STALL_BACKEND_L1D + STALL_BACKEND_MEM) / STALL_BACKEND_MEMBOUND * 100" },
	{ "backend_mem_tlb_bound", "BackendMemTLBBound", "STALL_BACKEND_TLB / STALL_BACKEND_MEMBOUND * 100" },
	{ "backend_mem_store_bound", "BackendMemStoreBound", "STALL_BACKEND_ST / STALL_BACKEND_MEMBOUND * 100" },
	{ "backend_cache_l1d_bound", "BackendCacheL1DBound", "STALL_BACKEND_L1D / (STALL_BACKEND_L1D + STALL_BACKEND_MEM) * 100" },
	{ "backend_cache_l2d_bound", "BackendCacheL2DBound", "STALL_BACKEND_MEM / (STALL_BACKEND_L1D + STALL_BACKEND_MEM) * 100" },
	END,
};

static const struct arm_metric n3v3_branch[] = {
	{ "branch_direct_ratio", "BranchDirectRatio", "BR_IMMED_RETIRED / BR_RETIRED" },
	{ "branch_indirect_ratio", "BranchIndirectRatio", "BR_IND_RETIRED / BR_RETIRED" },
	{ "branch_return_ratio", "BranchReturnRatio", "BR_RETURN_RETIRED / BR_RETIRED" },
	END,
};

/* N3 prints these two differently from every other core. */
static const struct arm_metric n3_mix[] = {
	{ "integer_dp_percentage", "IntegerPercentage", "(DP_SPEC - DSB_SPEC) / INST_SPEC * 100" },
	{ "branch_percentage", "BranchPercentage", "PC_WRITE_SPEC / INST_SPEC * 100" },
	END,
};

/* Arm's event codes (the data's "code" of each event the metrics use). */
static const struct {
	const char *name;
	unsigned code;
} codes[] = {
	{ "L1I_CACHE_REFILL", 0x0001 }, { "L1I_TLB_REFILL", 0x0002 }, { "L1D_CACHE_REFILL", 0x0003 },
	{ "L1D_CACHE", 0x0004 }, { "L1D_TLB_REFILL", 0x0005 }, { "INST_RETIRED", 0x0008 },
	{ "BR_IMMED_RETIRED", 0x000D }, { "BR_RETURN_RETIRED", 0x000E }, { "BR_MIS_PRED", 0x0010 },
	{ "CPU_CYCLES", 0x0011 }, { "L1I_CACHE", 0x0014 }, { "L2D_CACHE", 0x0016 },
	{ "L2D_CACHE_REFILL", 0x0017 }, { "INST_SPEC", 0x001B }, { "BR_RETIRED", 0x0021 },
	{ "BR_MIS_PRED_RETIRED", 0x0022 }, { "STALL_FRONTEND", 0x0023 }, { "STALL_BACKEND", 0x0024 },
	{ "L1D_TLB", 0x0025 }, { "L1I_TLB", 0x0026 }, { "L2D_TLB_REFILL", 0x002D },
	{ "L2D_TLB", 0x002F }, { "DTLB_WALK", 0x0034 }, { "ITLB_WALK", 0x0035 },
	{ "LL_CACHE_RD", 0x0036 }, { "LL_CACHE_MISS_RD", 0x0037 }, { "OP_RETIRED", 0x003A },
	{ "OP_SPEC", 0x003B }, { "STALL_SLOT_BACKEND", 0x003D }, { "STALL_SLOT_FRONTEND", 0x003E },
	{ "STALL_SLOT", 0x003F }, { "LD_SPEC", 0x0070 }, { "ST_SPEC", 0x0071 }, { "DP_SPEC", 0x0073 },
	{ "ASE_SPEC", 0x0074 }, { "VFP_SPEC", 0x0075 }, { "PC_WRITE_SPEC", 0x0076 },
	{ "CRYPTO_SPEC", 0x0077 }, { "BR_IMMED_SPEC", 0x0078 }, { "BR_INDIRECT_SPEC", 0x007A },
	{ "ISB_SPEC", 0x007C }, { "DSB_SPEC", 0x007D }, { "DMB_SPEC", 0x007E },
	{ "STALL_BACKEND_MEM", 0x4005 }, { "SVE_INST_SPEC", 0x8006 }, { "FP_HP_SPEC", 0x8014 },
	{ "FP_SP_SPEC", 0x8018 }, { "FP_DP_SPEC", 0x801C }, { "SVE_PRED_SPEC", 0x8074 },
	{ "SVE_PRED_EMPTY_SPEC", 0x8075 }, { "SVE_PRED_FULL_SPEC", 0x8076 },
	{ "SVE_PRED_PARTIAL_SPEC", 0x8077 }, { "FP_SCALE_OPS_SPEC", 0x80C0 },
	{ "FP_FIXED_OPS_SPEC", 0x80C1 }, { "BR_IND_RETIRED", 0x811D },
	{ "STALL_FRONTEND_MEMBOUND", 0x8158 }, { "STALL_FRONTEND_L1I", 0x8159 },
	{ "STALL_FRONTEND_MEM", 0x815B }, { "STALL_FRONTEND_TLB", 0x815C },
	{ "STALL_FRONTEND_CPUBOUND", 0x8160 }, { "STALL_FRONTEND_FLOW", 0x8161 },
	{ "STALL_FRONTEND_FLUSH", 0x8162 }, { "STALL_BACKEND_MEMBOUND", 0x8164 },
	{ "STALL_BACKEND_L1D", 0x8165 }, { "STALL_BACKEND_TLB", 0x8167 },
	{ "STALL_BACKEND_ST", 0x8168 }, { "STALL_BACKEND_CPUBOUND", 0x816A },
	{ "STALL_BACKEND_BUSY", 0x816B }, { "STALL_BACKEND_RENAME", 0x816D },
};

#define MAX_PARTS 8

struct core {
	const char *file;
	size_t nmetrics; /* how many metrics Arm publishes for the core */
	const struct arm_metric *parts[MAX_PARTS];
};

static const struct core cores[] = {
	{ "neoverse-n1", 31, { stage2, mix } },
	{ "neoverse-n2", 36, { n2_r0p2_l1, stage2, mix, sve_all } },
	{ "neoverse-n2-r0p3", 36, { n2_r0p3_l1, stage2, mix, sve_all } },
	{ "neoverse-v1", 36, { v1_l1, stage2, mix, sve_all } },
	{ "neoverse-v2", 47, { v2_l1, stage2, mix, sve_all, v2_extra } },
	{ "neoverse-n3", 67, { n3_l1, topdown_frontend, topdown_backend, stage2, n3_mix, sve_all, v2_extra, n3v3_branch } },
	{ "neoverse-v3", 67, { v3_l1, topdown_frontend, topdown_backend, stage2, mix, sve_all, v2_extra, n3v3_branch } },
};

/* ---- the file, compiled by the core's expression engine ---------------- */

#define MAX_ENTRIES 256

struct set {
	struct og_cf_file file;
	struct og_expr *expr[MAX_ENTRIES];
	uint32_t index[MAX_ENTRIES]; /* raw or constant slot of each entry */
	double constants[MAX_ENTRIES];
	size_t nraw, nconst;
	bool raw_only; /* resolve event names only (Arm's formulas) */
};

static bool resolve(void *ud, const char *name, size_t len, struct og_expr_ref *out)
{
	struct set *s = ud;
	for (size_t i = 0; i < s->file.count; i++) {
		const struct og_cf_entry *e = &s->file.entries[i];
		if (strlen(e->name) != len || strncmp(e->name, name, len) != 0)
			continue;
		if (e->kind == OG_CF_RAW)
			*out = (struct og_expr_ref){ OG_REF_RAW, s->index[i], NULL };
		else if (s->raw_only)
			return false;
		else if (e->kind == OG_CF_CONSTANT)
			*out = (struct og_expr_ref){ OG_REF_CONSTANT, s->index[i], NULL };
		else if (s->expr[i])
			*out = (struct og_expr_ref){ OG_REF_EXPR, 0, s->expr[i] };
		else
			return false;
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
	for (size_t i = 0; i < s->file.count; i++) {
		const struct og_cf_entry *e = &s->file.entries[i];
		if (e->kind == OG_CF_RAW)
			s->index[i] = (uint32_t)s->nraw++;
		else if (e->kind == OG_CF_CONSTANT) {
			s->index[i] = (uint32_t)s->nconst;
			s->constants[s->nconst++] = e->value;
		}
	}
	for (size_t i = 0; i < s->file.count; i++) {
		const struct og_cf_entry *e = &s->file.entries[i];
		if (e->kind != OG_CF_COUNTER)
			continue;
		s->expr[i] = og_expr_compile(e->field[OG_F_EXPRESSION], resolve, s, err, sizeof err);
		if (!s->expr[i])
			fail_msg("%s: counter %s: %s", name, e->name, err);
	}
}

static void unload(struct set *s)
{
	for (size_t i = 0; i < s->file.count; i++)
		og_expr_free(s->expr[i]);
	og_cf_free(&s->file);
}

static const struct og_cf_entry *entry(const struct set *s, const char *name, size_t *at)
{
	for (size_t i = 0; i < s->file.count; i++)
		if (strcmp(s->file.entries[i].name, name) == 0) {
			*at = i;
			return &s->file.entries[i];
		}
	return NULL;
}

static uint64_t next(uint64_t *state)
{
	*state = *state * 6364136223846793005ull + 1442695040888963407ull;
	return *state >> 11;
}

/* Arm's formula and the file's counter agree on random counts (every count
 * at least 1, so no denominator is 0 and both sides divide the same way). */
static void check_formula(struct set *s, const char *core, const struct arm_metric *m)
{
	size_t at = 0;
	const struct og_cf_entry *e = entry(s, m->counter, &at);
	if (!e || e->kind != OG_CF_COUNTER)
		fail_msg("%s: Arm's %s has no counter %s", core, m->arm, m->counter);
	char err[256];
	s->raw_only = true;
	struct og_expr *arm = og_expr_compile(m->formula, resolve, s, err, sizeof err);
	s->raw_only = false;
	if (!arm)
		fail_msg("%s: Arm's %s names an event the file does not declare: %s", core, m->arm, err);
	uint64_t seed = 0x5eed ^ at, values[MAX_ENTRIES];
	for (int trial = 0; trial < 200; trial++) {
		for (size_t i = 0; i < s->nraw; i++)
			values[i] = 1 + next(&seed) % 1000000u;
		double want = og_expr_eval(arm, values, s->constants);
		double got = og_expr_eval(s->expr[at], values, s->constants);
		if (fabs(want - got) > 1e-9 * fmax(1.0, fabs(want)))
			fail_msg("%s: %s = %.12g, Arm's %s (%s) = %.12g", core, m->counter, got, m->arm,
			         m->formula, want);
	}
	og_expr_free(arm);
}

static void check_raw_codes(const struct set *s, const char *core)
{
	for (size_t i = 0; i < s->file.count; i++) {
		const struct og_cf_entry *e = &s->file.entries[i];
		if (e->kind != OG_CF_RAW)
			continue;
		size_t k = 0;
		while (k < sizeof codes / sizeof codes[0] && strcmp(codes[k].name, e->name) != 0)
			k++;
		if (k == sizeof codes / sizeof codes[0])
			fail_msg("%s: raw %s is not an event Arm's metrics use", core, e->name);
		char want[32];
		snprintf(want, sizeof want, "raw:0x%x", codes[k].code);
		if (strcmp(e->field[OG_F_SOURCE], want) != 0)
			fail_msg("%s: raw %s has source %s, Arm's code is 0x%04X", core, e->name,
			         e->field[OG_F_SOURCE], codes[k].code);
	}
}

static void check_core(const struct core *c)
{
	struct set s;
	load(&s, c->file);
	check_raw_codes(&s, c->file);
	size_t n = 0;
	for (size_t p = 0; p < MAX_PARTS && c->parts[p]; p++)
		for (const struct arm_metric *m = c->parts[p]; m->arm; m++, n++)
			check_formula(&s, c->file, m);
	assert_int_equal(n, c->nmetrics);
	/* ...and nothing but Arm's metrics. */
	size_t counters = 0;
	for (size_t i = 0; i < s.file.count; i++)
		counters += s.file.entries[i].kind == OG_CF_COUNTER;
	if (counters != c->nmetrics)
		fail_msg("%s: %zu counters for Arm's %zu metrics", c->file, counters, c->nmetrics);
	unload(&s);
}

static void check_group(const char *file, const struct arm_metric *part, const char *group)
{
	struct set s;
	load(&s, file);
	for (const struct arm_metric *m = part; m->arm; m++) {
		size_t at = 0;
		const struct og_cf_entry *e = entry(&s, m->counter, &at);
		assert_non_null(e);
		if (strcmp(e->field[OG_F_GROUP], group) != 0)
			fail_msg("%s: %s is in group %s, not %s", file, m->counter, e->field[OG_F_GROUP],
			         group);
	}
	unload(&s);
}

static void test_every_core(void **unused)
{
	(void)unused;
	for (size_t i = 0; i < sizeof cores / sizeof cores[0]; i++)
		check_core(&cores[i]);
}

static void test_topdown_groups(void **unused)
{
	(void)unused;
	for (size_t i = 1; i < sizeof cores / sizeof cores[0]; i++)
		check_group(cores[i].file, cores[i].parts[0], "Topdown L1");
	static const char *const l2[] = { "neoverse-n3", "neoverse-v3" };
	for (size_t i = 0; i < 2; i++) {
		check_group(l2[i], topdown_frontend, "Topdown Frontend");
		check_group(l2[i], topdown_backend, "Topdown Backend");
	}
}

/* The comparison can fail: a file whose counter differs from Arm's formula
 * (here V2's FrontendBound checked against V1's) is caught. */
static void test_comparison_catches_a_wrong_formula(void **unused)
{
	(void)unused;
	struct set s;
	load(&s, "neoverse-v2");
	size_t at = 0;
	assert_non_null(entry(&s, "FrontendBound", &at));
	char err[256];
	s.raw_only = true;
	struct og_expr *v1 = og_expr_compile(v1_l1[0].formula, resolve, &s, err, sizeof err);
	s.raw_only = false;
	assert_non_null(v1);
	uint64_t values[MAX_ENTRIES];
	for (size_t i = 0; i < s.nraw; i++)
		values[i] = 1000 + i;
	assert_true(fabs(og_expr_eval(v1, values, s.constants) -
	                 og_expr_eval(s.expr[at], values, s.constants)) > 1e-3);
	og_expr_free(v1);
	unload(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_core),
		cmocka_unit_test(test_topdown_groups),
		cmocka_unit_test(test_comparison_catches_a_wrong_formula),
	};
	return cmocka_run_group_tests_name("neoverse-arm", tests, NULL, NULL);
}
