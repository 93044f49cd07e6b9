/* SPDX-License-Identifier: MIT */
/*
 * vmali_model.c — one scripted frame (vmali_workload.c) turned into the
 * hardware counters of any Mali layout, by counter name.
 *
 * The model computes, per block instance, one value for every hardware
 * counter name Arm's layouts use (Bifrost's job manager, Valhall's and the
 * 5th generation's command-stream front ends, tilers, memory systems and
 * shader cores, ray tracing included); each layout then takes the names it
 * has, at its own indices.  A name the model has no rule for gets a small
 * share of its block's busy cycles (vmali_unmodelled_counters() says how
 * many; a test requires none for the layouts in the tree).
 *
 * Every dependent counter is derived from the quantities it depends on, per
 * shader core and per L2 slice, in integers, so the relations Arm's
 * expressions rely on hold in every block and therefore in every sum:
 *   face + frustum + scissor + sample culled + visible = input primitives
 *     (older layouts: culled + clipped + sample culled + visible)
 *   EZS kill <= EZS test <= rasterised quads; shaded quads
 *     (warps x warp size / 4) <= rasterised - EZS kill; occluders too
 *   the issue cycles of every unit (arithmetic as any of Arm's ALU formulas
 *     reads it, texture, load/store, varying, attribute, blend, ray
 *     tracing) <= execution-core active <= shader-core active
 *   shader-core active <= GPU active (per core); every queue's active and
 *     blocked cycles <= GPU active, blocked <= queued
 *   every kind of texture request, tile, hit and bin <= its total
 *   latency bins <= read beats; outstanding-queue bins <= reads
 *   GPU clock cycles >= GPU active
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmali_internal.h"

/* ---- the names, by block ---- */

#define FE_NAMES(X)                                                                       \
	X(GPU_ACTIVE) X(IRQ_ACTIVE) X(MESSAGES_SENT) X(MESSAGES_RECEIVED) X(CACHE_FLUSH)  \
	X(CACHE_FLUSH_CYCLES) X(JS0_ACTIVE) X(JS0_JOBS) X(JS0_TASKS) X(JS0_WAIT_DEPEND)   \
	X(JS0_WAIT_FINISH) X(JS0_WAIT_FLUSH) X(JS0_WAIT_ISSUE) X(JS0_WAIT_READ)           \
	X(JS1_ACTIVE) X(JS1_JOBS) X(JS1_TASKS) X(JS1_WAIT_DEPEND) X(JS1_WAIT_FINISH)      \
	X(JS1_WAIT_FLUSH) X(JS1_WAIT_ISSUE) X(JS1_WAIT_READ) X(JS2_ACTIVE) X(JS2_JOBS)    \
	X(JS2_TASKS) X(JS2_WAIT_DEPEND) X(JS2_WAIT_FINISH) X(JS2_WAIT_FLUSH)              \
	X(JS2_WAIT_ISSUE) X(JS2_WAIT_READ) X(GPU_ITER_ACTIVE) X(GPU_IRQ_ACTIVE)           \
	X(GPU_IRQ_COUNT) X(MCU_ACTIVE) X(CEU_ACTIVE) X(LSU_ACTIVE) X(DOORBELL_IRQ_ACTIVE) \
	X(ITER_COMP_ACTIVE) X(ITER_COMP_EP_DRAIN) X(ITER_COMP_IRQ_ACTIVE)                 \
	X(ITER_COMP_JOB_COMPLETED) X(ITER_COMP_READY_BLOCKED) X(ITER_COMP_TASK_COMPLETED) \
	X(ITER_FRAG_ACTIVE) X(ITER_FRAG_IRQ_ACTIVE) X(ITER_FRAG_JOB_COMPLETED)            \
	X(ITER_FRAG_READY_BLOCKED) X(ITER_FRAG_TASK_COMPLETED) X(ITER_TILER_ACTIVE)       \
	X(ITER_TILER_EP_DRAIN) X(ITER_TILER_IDVS_TASK_COMPLETED) X(ITER_TILER_IRQ_ACTIVE) \
	X(ITER_TILER_JOB_COMPLETED) X(ITER_TILER_READY_BLOCKED) X(CSHWIF0_ENABLED)        \
	X(CSHWIF1_ENABLED) X(CSHWIF2_ENABLED) X(CSHWIF3_ENABLED) X(CSHWIF4_ENABLED)       \
	X(CSHWIF5_ENABLED) X(CSHWIF0_WAIT_BLOCKED) X(CSHWIF1_WAIT_BLOCKED)                \
	X(CSHWIF2_WAIT_BLOCKED) X(CSHWIF3_WAIT_BLOCKED) X(CSHWIF4_WAIT_BLOCKED)           \
	X(CSHWIF5_WAIT_BLOCKED)

#define TILER_NAMES(X)                                                                    \
	X(TILER_ACTIVE) X(JOBS_PROCESSED) X(TRIANGLES) X(LINES) X(POINTS) X(FRONT_FACING)  \
	X(BACK_FACING) X(PRIM_VISIBLE) X(PRIM_CULLED) X(PRIM_CLIPPED) X(PRIM_SAT_CULLED)   \
	X(PRIM_FACE_CULLED) X(PRIM_FRUSTUM_CULLED) X(PRIM_SAMPLE_CULLED)                   \
	X(PRIM_SCISSOR_CULLED) X(PRIM_VISIBLE_DVS) X(BUS_READ) X(BUS_WRITE)                \
	X(IDVS_POS_SHAD_REQ) X(IDVS_VAR_SHAD_REQ) X(IDVS_POS_SHAD_STALL)                   \
	X(IDVS_VAR_SHAD_STALL) X(IDVS_POS_SHAD_WAIT) X(IDVS_POS_FIFO_FULL) X(POS_FIFO_FULL) \
	X(IDVS_VBU_HIT) X(IDVS_VBU_MISS) X(VBU_HIT) X(VCACHE_HIT) X(VCACHE_MISS)            \
	X(POS_SHADER_WARPS) X(POS_SHADER_PARTIAL_WARPS) X(POS_SHADER_STALL)                \
	X(VAR_SHADER_WARPS) X(VAR_SHADER_PARTIAL_WARPS) X(VAR_SHADER_STALL)                \
	X(PRIMASSY_POS_SHADER_WAIT) X(PCACHE_HIT) X(PCACHE_MISS) X(UTLB_TRANS)             \
	X(UTLB_TRANS_HIT) X(UTLB_MMU_REQ) X(BIN_ALLOC_INIT) X(BIN_ALLOC_OVERFLOW)          \
	X(LOADING_DESC) X(IDVS_VBU_LINE_DEALLOCATE) X(COMPRESS_MISS) X(WRBUF_HIT)          \
	X(WRBUF_MISS) X(WRBUF_ACTIVE) X(PREFETCH_STALL) X(VCACHE_LINE_WAIT)                \
	X(VFETCH_POS_READ_WAIT) X(VFETCH_VERTEX_WAIT) X(VFETCH_STALL) X(PRIMASSY_STALL)     \
	X(BBOX_GEN_STALL) X(BINNER_STALL) X(ITER_STALL) X(COMPRESS_STALL)                  \
	X(PCACHE_MISS_STALL) X(PCACHE_EVICT_STALL) X(PMGR_PTR_WR_STALL) X(PMGR_PTR_RD_STALL) \
	X(PMGR_CMD_WR_STALL) X(WRBUF_NO_FREE_LINE_STALL) X(WRBUF_NO_AXI_ID_STALL)          \
	X(WRBUF_AXI_STALL) X(UTLB_TRANS_STALL) X(UTLB_TRANS_MISS_DELAY)

#define L2_NAMES(X)                                                                       \
	X(L2_ANY_LOOKUP) X(L2_READ_LOOKUP) X(L2_WRITE_LOOKUP) X(L2_EXT_SNOOP_LOOKUP)        \
	X(L2_RD_MSG_IN) X(L2_RD_MSG_IN_CU) X(L2_RD_MSG_IN_EVICT) X(L2_RD_MSG_IN_STALL)      \
	X(L2_WR_MSG_IN) X(L2_WR_MSG_IN_STALL) X(L2_SNP_MSG_IN) X(L2_SNP_MSG_IN_STALL)       \
	X(L2_RD_MSG_OUT) X(L2_RD_MSG_OUT_STALL) X(L2_WR_MSG_OUT) X(L2_EXT_READ)             \
	X(L2_EXT_READ_NOSNP) X(L2_EXT_READ_UNIQUE) X(L2_EXT_READ_BEATS) X(L2_EXT_AR_STALL)  \
	X(L2_EXT_AR_CNT_Q1) X(L2_EXT_AR_CNT_Q2) X(L2_EXT_AR_CNT_Q3) X(L2_EXT_RRESP_0_127)   \
	X(L2_EXT_RRESP_128_191) X(L2_EXT_RRESP_192_255) X(L2_EXT_RRESP_256_319)             \
	X(L2_EXT_RRESP_320_383) X(L2_EXT_WRITE) X(L2_EXT_WRITE_NOSNP_FULL)                  \
	X(L2_EXT_WRITE_NOSNP_PTL) X(L2_EXT_WRITE_SNP_FULL) X(L2_EXT_WRITE_SNP_PTL)          \
	X(L2_EXT_WRITE_BEATS) X(L2_EXT_W_STALL) X(L2_EXT_AW_CNT_Q1) X(L2_EXT_AW_CNT_Q2)     \
	X(L2_EXT_AW_CNT_Q3) X(L2_EXT_SNOOP) X(L2_EXT_SNOOP_STALL) X(L2_EXT_SNOOP_INTERNAL)  \
	X(L2_EXT_SNOOP_RESP_CLEAN) X(L2_EXT_SNOOP_RESP_DATA) X(MMU_REQUESTS)                \
	X(MMU_TABLE_READS_L3) X(MMU_TABLE_READS_L2) X(MMU_HIT_L3) X(MMU_HIT_L2)             \
	X(MMU_S2_REQUESTS) X(MMU_S2_TABLE_READS_L3) X(MMU_S2_TABLE_READS_L2)                \
	X(MMU_S2_HIT_L3) X(MMU_S2_HIT_L2)

#define SC_NAMES(X)                                                                         \
	X(SHADER_CORE_ACTIVE) X(FRAG_ACTIVE) X(COMPUTE_ACTIVE) X(EXEC_CORE_ACTIVE)            \
	X(EXEC_ACTIVE) X(FRAG_FPK_ACTIVE) X(FRAG_STARVING) X(COMPUTE_STARVING)                \
	X(FRAG_PRIMITIVES) X(FRAG_PRIMITIVES_OUT) X(FRAG_PRIMITIVES_OUT_PRE_PASS)             \
	X(FRAG_PRIMITIVES_HSR_CULLED) X(FRAG_PRIMITIVES_HSR_DISABLED) X(FRAG_PRIM_RAST)       \
	X(FRAG_QUADS_RAST) X(FRAG_QUADS_COARSE) X(FRAG_PARTIAL_QUADS_RAST)                    \
	X(FRAG_QUADS_EZS_TEST) X(FRAG_QUADS_EZS_KILL) X(FRAG_QUADS_EZS_UPDATE)                \
	X(FRAG_QUADS_HSR_BUF_TEST) X(FRAG_QUADS_HSR_BUF_KILLED)                               \
	X(FRAG_QUADS_HSR_BUF_EZS_UPDATE) X(QUAD_FPK_KILLER) X(FRAG_LZS_TEST) X(FRAG_LZS_KILL) \
	X(FRAG_WARPS) X(FRAG_WARPS_PRE_PASS) X(FRAG_PARTIAL_WARPS) X(FRAG_SHADER_THREADS)     \
	X(FRAG_MAIN_PASS_STALLED_BY_PRE_PASS) X(FULL_QUAD_WARPS) X(FULL_WARPS)                \
	X(WARP_REG_SIZE_64) X(DVS_WARPS) X(FRAG_PTILES) X(FRAG_TRANS_ELIM) X(COMPUTE_TASKS)   \
	X(COMPUTE_WARPS) X(EXEC_INSTR_COUNT) X(EXEC_INSTR_FMA) X(EXEC_INSTR_CVT)              \
	X(EXEC_INSTR_SFU) X(EXEC_INSTR_DIVERGED) X(EXEC_INSTR_NARROW) X(EXEC_INSTR_SLOT_1)    \
	X(EXEC_ISSUE_SLOT_ANY) X(EXEC_INSTR_STARVING) X(EXEC_STARVE_ARITH)                    \
	X(EXEC_STARVE_ICACHE) X(EXEC_ICACHE_MISS) X(EXEC_MSG_STALLED_ATTR)                    \
	X(EXEC_MSG_STALLED_BLEND) X(EXEC_MSG_STALLED_LSC) X(EXEC_MSG_STALLED_RTU)             \
	X(EXEC_MSG_STALLED_TEX) X(EXEC_MSG_STALLED_VARY) X(EXEC_MSG_STALLED_ZS)               \
	X(ARITH_INSTR_SINGLE_FMA) X(ARITH_INSTR_DOUBLE) X(ARITH_INSTR_MSG)                    \
	X(ARITH_INSTR_MSG_ONLY) X(ARITH_INSTR_FP_MUL) X(CALL_BLEND_SHADER) X(BLEND_ISSUE)     \
	X(ATTR_INSTR) X(ATTR_ISSUE) X(VARY_INSTR) X(VARY_SLOT_32) X(VARY_SLOT_16)             \
	X(LS_MEM_READ_FULL) X(LS_MEM_READ_SHORT) X(LS_MEM_WRITE_FULL) X(LS_MEM_WRITE_SHORT)   \
	X(LS_MEM_ATOMIC) X(TEX_INSTR) X(TEX_INSTR_MIPMAP) X(TEX_INSTR_COMPRESSED)             \
	X(TEX_INSTR_3D) X(TEX_INSTR_TRILINEAR) X(TEX_COORD_ISSUE) X(TEX_COORD_STALL)          \
	X(TEX_STARVE_CACHE) X(TEX_STARVE_FILTER) X(TEX_MSGI_NUM_QUADS) X(TEX_MSGI_NUM_FLITS)  \
	X(TEX_MSGI_CLK_STARVED) X(TEX_MSGO_NUM_MSG) X(TEX_MSGO_NUM_SINGLE_QUAD_MSG)           \
	X(TEX_MSGO_NUM_FLITS) X(TEX_FILT_NUM_OPERATIONS) X(TEX_FILT_NUM_FXR_OPERATIONS)       \
	X(TEX_FILT_NUM_FST_OPERATIONS) X(TEX_TFCH_NUM_OPERATIONS)                             \
	X(TEX_TFCH_NUM_TCL_OPERATIONS) X(TEX_TFCH_NUM_LINES_FETCHED)                          \
	X(TEX_TFCH_NUM_LINES_FETCHED_BLOCK_COMPRESSED) X(TEX_TFCH_CLK_STALLED)                \
	X(TEX_TFCH_STARVED_PENDING_DATA_FETCH) X(TEX_CFCH_NUM_DIRECT_PATH_OPERATIONS)         \
	X(TEX_CFCH_NUM_RP_OPERATIONS) X(TEX_CFCH_NUM_L1_CL_OPERATIONS)                        \
	X(TEX_CFCH_NUM_L1_CT_OPERATIONS) X(TEX_CFCH_NUM_OUTPUT_OPERATIONS)                    \
	X(TEX_TIDX_NUM_OPERATIONS) X(TEX_TIDX_NUM_SPLIT_MIP_MAP) X(TEX_DFCH_NUM_PASSES)       \
	X(TEX_DFCH_NUM_PASSES_MIP_MAP) X(TEX_DFCH_NUM_PASSES_MISS) X(TEX_DFCH_CLK_STALLED)    \
	X(TEX_TEXP_CLK_ACTIVE) X(TEX_RSPS_NUM_OPERATIONS) X(BEATS_RD_FTC) X(BEATS_RD_FTC_EXT) \
	X(BEATS_RD_LSC) X(BEATS_RD_LSC_EXT) X(BEATS_RD_TEX) X(BEATS_RD_TEX_EXT)               \
	X(BEATS_RD_OTHER) X(BEATS_RD_RTU) X(BEATS_RD_RTU_EXT) X(BEATS_WR_LSC)                 \
	X(BEATS_WR_LSC_WB) X(BEATS_WR_LSC_OTHER) X(BEATS_WR_TIB) X(BEATS_WR_OTHER)            \
	X(RT_ACTIVE) X(RT_RAYS_STARTED) X(RT_RAY_BOX) X(RT_RAY_BOX_ISSUED) X(RT_RAY_BOX_TLAS)  \
	X(RT_RAY_BOX_BIN_1_4) X(RT_RAY_BOX_BIN_5_8) X(RT_RAY_BOX_BIN_9_12)                    \
	X(RT_RAY_BOX_BIN_13_16) X(RT_RAY_TRI) X(RT_RAY_TRI_ISSUED) X(RT_RAY_TRI_CULL)         \
	X(RT_RAY_TRI_BIN_1_4) X(RT_RAY_TRI_BIN_5_8) X(RT_RAY_TRI_BIN_9_12)                    \
	X(RT_RAY_TRI_BIN_13_16) X(RT_BOX_ISSUE_COUNT) X(RT_BOX_ISSUE_CYCLES)                  \
	X(RT_TRI_ISSUE_COUNT) X(RT_TRI_ISSUE_CYCLES) X(RT_RAY_INSTANCE)                       \
	X(RT_RAY_INSTANCE_CULL) X(RT_CACHE_READ_HIT) X(RT_CACHE_READ_MISS) X(RT_MISS)         \
	X(RT_OPAQUE_HIT) X(RT_NON_OPAQUE_HIT) X(RT_TERM_FIRST_HIT) X(RT_TRACE_MSG_NEW)        \
	X(RT_TRACE_MSG_RESUME) X(RT_TRACE_RESUME) X(RT_TRAVERSAL_STACK_OVERFLOW)

#define ENUM(n) Q_##n,
enum { FE_NAMES(ENUM) TILER_NAMES(ENUM) L2_NAMES(ENUM) SC_NAMES(ENUM) Q_COUNT };
#undef ENUM
/* Where each block's names start (the first name of each list). */
enum { Q_TILER_FIRST = Q_TILER_ACTIVE, Q_L2_FIRST = Q_L2_ANY_LOOKUP,
       Q_SC_FIRST = Q_SHADER_CORE_ACTIVE };
#define TEXT(n) #n,
static const char *const q_names[Q_COUNT] = {
	FE_NAMES(TEXT) TILER_NAMES(TEXT) L2_NAMES(TEXT) SC_NAMES(TEXT)
};
#undef TEXT

/* The names of each block type: [first, end) of the enum. */
static const int16_t q_range[4][2] = {
	{ 0, Q_TILER_FIRST }, { Q_TILER_FIRST, Q_L2_FIRST }, { Q_L2_FIRST, Q_SC_FIRST },
	{ Q_SC_FIRST, Q_COUNT },
};

/* ---- the layout's plan ---- */

static uint16_t share_of(const char *name)
{
	uint32_t h = 2166136261u;
	for (const char *c = name; *c; c++)
		h = (h ^ (uint8_t)*c) * 16777619u;
	return (uint16_t)(10 + h % 80); /* 1.0% .. 8.9% of the block's busy cycles */
}

int vmali_model_init(struct vmali_model *m, const struct vmali_layout *l,
                     const struct vmali_geom *g, char *err, size_t err_len)
{
	memset(m, 0, sizeof(*m));
	m->k = l->k;
	m->plan = calloc(l->n ? l->n : 1, sizeof(*m->plan));
	if (!m->plan) {
		snprintf(err, err_len, "out of memory for the %s layout", l->key);
		return -1;
	}
	for (size_t i = 0; i < l->n; i++) {
		const struct vmali_layout_counter *c = &l->counters[i];
		if (c->index < VMALI_HEADER_WORDS || c->index >= g->values ||
		    c->block >= VMALI_BLOCK_TYPES) {
			snprintf(err, err_len, "layout %s puts %s at block %u index %u; its blocks have "
			         "%u values", l->key, c->name, c->block, c->index, g->values);
			vmali_model_free(m);
			return -1;
		}
		struct vmali_plan_entry *e = &m->plan[m->n++];
		e->block = c->block;
		e->index = c->index;
		e->shift = c->shift < 16 ? c->shift : 16;
		e->slot = -1;
		if (c->block < 4)
			for (int16_t q = q_range[c->block][0]; q < q_range[c->block][1]; q++)
				if (strcmp(q_names[q], c->name) == 0)
					e->slot = q;
		if (e->slot < 0) {
			e->permille = share_of(c->name);
			m->unmodelled++;
		}
		m->scissor_counted |= e->slot == Q_PRIM_SCISSOR_CULLED;
	}
	return 0;
}

void vmali_model_free(struct vmali_model *m)
{
	free(m->plan);
	m->plan = NULL;
	m->n = 0;
}

/* ---- arithmetic ---- */

static uint64_t fr(uint64_t total, double f)
{
	double v = (double)llround((double)total * f);
	if (v < 0)
		return 0;
	return v > (double)total ? total : (uint64_t)v;
}

static uint64_t scale(uint64_t n, double f)
{
	return (uint64_t)llround((double)n * f);
}

/* Share k of n of `total`: even, the remainder to the lowest shares, so a
 * smaller total never gets a larger share than a bigger one. */
static uint64_t split(uint64_t total, uint32_t n, uint32_t k)
{
	return total / n + (k < total % n ? 1 : 0);
}

/* floor(total * c / w) without overflow (c <= w <= 2^20). */
static uint64_t part(uint64_t total, uint64_t c, uint64_t w)
{
	return total / w * c + total % w * c / w;
}

/* Share k of n of `total` under weights 1 + imb * i / (n - 1) (in
 * thousandths): whole shares that add up to total; imb 0 is split(). */
static uint64_t wsplit(uint64_t total, uint32_t n, uint32_t k, double imb)
{
	if (imb <= 0 || n < 2)
		return split(total, n, k);
	uint64_t w = 0, c0 = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (i == k)
			c0 = w;
		w += 1000u + (uint64_t)llround(1000.0 * imb * i / (n - 1));
	}
	uint64_t c1 = c0 + 1000u + (uint64_t)llround(1000.0 * imb * k / (n - 1));
	return part(total, c1, w) - part(total, c0, w);
}

static uint64_t max2(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static uint64_t min2(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
	return b ? (a + b - 1) / b : 0;
}

/* ---- one frame ---- */

struct scene {
	uint64_t prims, lines, points, tris, face, xy, z, scissor, sample, visible, back;
	uint64_t pos_req, var_req, tiler_active;
	uint64_t tasks, tiles, quads, cwarps, rays;
};

struct core_sums {
	uint64_t max_frag, max_compute, max_core, rd_lines, wr_lines;
};

static void tiler(const struct vmali_frame *f, const struct vmali_model *m, struct scene *s,
                  uint64_t *q)
{
	const struct vmali_layout_consts *k = &m->k;
	uint64_t P = (uint64_t)f->prims;
	s->prims = P;
	s->lines = fr(P, f->lines);
	s->points = fr(P - s->lines, f->points);
	s->tris = P - s->lines - s->points;
	uint64_t left = P;
	uint64_t culled = fr(P, f->culled);
	left -= culled;
	s->z = min2(fr(P, f->clipped), left);
	left -= s->z;
	s->sample = min2(fr(P, f->satcull), left);
	left -= s->sample;
	s->scissor = min2(fr(P, f->scissor), left);
	left -= s->scissor;
	s->visible = left;
	s->face = fr(culled, 0.8); /* the facing test; the rest lay outside in X or Y */
	s->xy = culled - s->face;
	s->back = min2(s->face, s->tris);
	s->pos_req = ceil_div(scale(P, f->verts_per_prim), (uint64_t)k->geom_task);
	s->var_req = ceil_div(scale(s->visible, f->verts_per_prim), (uint64_t)k->geom_task);
	uint64_t ta = P ? P * 2 + s->pos_req * 4 + 1000 : 0;
	s->tiler_active = ta;

	q[Q_TILER_ACTIVE] = ta;
	q[Q_JOBS_PROCESSED] = P ? 1 : 0;
	q[Q_TRIANGLES] = s->tris;
	q[Q_LINES] = s->lines;
	q[Q_POINTS] = s->points;
	q[Q_FRONT_FACING] = s->tris - s->back;
	q[Q_BACK_FACING] = s->back;
	q[Q_PRIM_VISIBLE] = s->visible;
	/* Older tilers count facing, X/Y and scissor culling together. */
	q[Q_PRIM_CULLED] = culled + s->scissor;
	q[Q_PRIM_CLIPPED] = s->z;
	q[Q_PRIM_SAT_CULLED] = s->sample;
	q[Q_PRIM_FACE_CULLED] = s->face;
	/* A tiler without a scissor counter counts those with the frustum's. */
	q[Q_PRIM_FRUSTUM_CULLED] = s->xy + s->z + (m->scissor_counted ? 0 : s->scissor);
	q[Q_PRIM_SAMPLE_CULLED] = s->sample;
	q[Q_PRIM_SCISSOR_CULLED] = s->scissor;
	q[Q_PRIM_VISIBLE_DVS] = fr(s->visible, 0.3);
	q[Q_BUS_READ] = P / 2;
	q[Q_BUS_WRITE] = s->visible / 2;
	q[Q_IDVS_POS_SHAD_REQ] = s->pos_req;
	q[Q_IDVS_VAR_SHAD_REQ] = s->var_req;
	q[Q_IDVS_POS_SHAD_STALL] = fr(ta, 0.04);
	q[Q_IDVS_VAR_SHAD_STALL] = fr(ta, 0.03);
	q[Q_IDVS_POS_SHAD_WAIT] = fr(ta, 0.01);
	q[Q_IDVS_POS_FIFO_FULL] = fr(ta, 0.02);
	q[Q_POS_FIFO_FULL] = fr(ta, 0.02);
	q[Q_IDVS_VBU_HIT] = q[Q_VBU_HIT] = fr(s->var_req, 0.7);
	q[Q_IDVS_VBU_MISS] = s->var_req - q[Q_IDVS_VBU_HIT];
	q[Q_VCACHE_HIT] = fr(P * 3, 0.6);
	q[Q_VCACHE_MISS] = P * 3 - q[Q_VCACHE_HIT];
	uint64_t pw = ceil_div(s->pos_req * (uint64_t)k->geom_task, (uint64_t)k->warp_size);
	uint64_t vw = ceil_div(s->var_req * (uint64_t)k->geom_task, (uint64_t)k->warp_size);
	q[Q_POS_SHADER_WARPS] = pw;
	q[Q_POS_SHADER_PARTIAL_WARPS] = fr(pw, 0.1);
	q[Q_POS_SHADER_STALL] = fr(ta, 0.03);
	q[Q_VAR_SHADER_WARPS] = vw;
	q[Q_VAR_SHADER_PARTIAL_WARPS] = fr(vw, 0.1);
	q[Q_VAR_SHADER_STALL] = fr(ta, 0.02);
	q[Q_PRIMASSY_POS_SHADER_WAIT] = fr(ta, 0.05);
	q[Q_PCACHE_HIT] = fr(s->visible, 0.8);
	q[Q_PCACHE_MISS] = s->visible - q[Q_PCACHE_HIT];
	q[Q_UTLB_TRANS] = P / 8;
	q[Q_UTLB_TRANS_HIT] = fr(P / 8, 0.95);
	q[Q_UTLB_MMU_REQ] = P / 8 - q[Q_UTLB_TRANS_HIT];
	q[Q_BIN_ALLOC_INIT] = P ? 64 : 0;
	q[Q_BIN_ALLOC_OVERFLOW] = P ? 2 : 0;
	q[Q_LOADING_DESC] = P ? 16 : 0;
	q[Q_IDVS_VBU_LINE_DEALLOCATE] = q[Q_IDVS_VBU_MISS];
	q[Q_COMPRESS_MISS] = fr(s->visible, 0.01);
	q[Q_WRBUF_HIT] = fr(s->visible / 2, 0.9);
	q[Q_WRBUF_MISS] = s->visible / 2 - q[Q_WRBUF_HIT];
	q[Q_WRBUF_ACTIVE] = fr(ta, 0.2);
	/* Stall and wait cycles of the tiler's stages (Mali-G71's extra
	 * counters): small shares of its active cycles, none above 3%. */
	static const int stalls[] = {
		Q_PREFETCH_STALL, Q_VCACHE_LINE_WAIT, Q_VFETCH_POS_READ_WAIT, Q_VFETCH_VERTEX_WAIT,
		Q_VFETCH_STALL, Q_PRIMASSY_STALL, Q_BBOX_GEN_STALL, Q_BINNER_STALL, Q_ITER_STALL,
		Q_COMPRESS_STALL, Q_PCACHE_MISS_STALL, Q_PCACHE_EVICT_STALL, Q_PMGR_PTR_WR_STALL,
		Q_PMGR_PTR_RD_STALL, Q_PMGR_CMD_WR_STALL, Q_WRBUF_NO_FREE_LINE_STALL,
		Q_WRBUF_NO_AXI_ID_STALL, Q_WRBUF_AXI_STALL, Q_UTLB_TRANS_STALL, Q_UTLB_TRANS_MISS_DELAY,
	};
	for (size_t i = 0; i < sizeof(stalls) / sizeof(stalls[0]); i++)
		q[stalls[i]] = fr(ta, 0.005 + 0.00125 * (double)i);
}

static void shader_core(const struct vmali_frame *f, const struct vmali_layout_consts *k,
                        uint64_t Q, uint64_t tiles, uint64_t prims, uint64_t cw, uint64_t rays,
                        uint64_t *q, struct core_sums *s)
{
	uint64_t ws = (uint64_t)k->warp_size;
	uint64_t ezs_t = fr(Q, f->ezs_test);
	uint64_t ezs_k = fr(ezs_t, f->ezs_kill);
	uint64_t surv = Q - ezs_k;
	uint64_t fpk_k = fr(surv, f->fpk_kill);
	uint64_t shaded = surv - fpk_k;
	/* A warp shades warp_size / 4 quads; rounding down keeps the quads it
	 * shades within those that survived. */
	uint64_t fw = shaded * 4 / ws;
	uint64_t instr_f = scale(fw, f->frag_instr), instr_c = scale(cw, f->compute_instr);
	uint64_t arith = instr_f + instr_c;
	uint64_t tex = scale(fw, f->tex);
	uint64_t tex_issue = scale(tex, f->tex_cpi);
	uint64_t vary = scale(fw, f->varying);
	uint64_t vary16 = fr(vary, f->vary16);
	uint64_t vary_cy = ceil_div(vary, (uint64_t)k->var_slots);
	uint64_t ls_r = scale(cw, f->ls_reads), ls_w = scale(cw, f->ls_writes);
	uint64_t atom = scale(cw, f->atomics);
	uint64_t ls_r_short = fr(ls_r, f->ls_partial), ls_w_short = fr(ls_w, f->ls_partial);
	uint64_t box = rays * 8, tri = rays * 2;
	uint64_t box_cy = ceil_div(box, 2), tri_cy = tri;
	uint64_t rt_need = max2(box_cy, tri_cy);
	uint64_t rt_active = rt_need ? rt_need + rt_need / 8 : 0;

	/* Issue cycles bound the active cycles from below: one instruction,
	 * load/store access, varying issue, texture issue or ray-tracing step
	 * per cycle. */
	uint64_t frag_need = max2(max2(instr_f, vary_cy), tex_issue);
	uint64_t comp_need = max2(max2(instr_c, ls_r + ls_w + atom), rt_active);
	/* A core with tiles is busy rasterising them even if every quad dies. */
	uint64_t frag_active =
		(frag_need || tiles || Q) ? frag_need + frag_need / 8 + tiles * 4 + Q / 4 : 0;
	uint64_t comp_active = comp_need ? comp_need + comp_need / 10 + 64 : 0;
	uint64_t exec = frag_need + comp_need;

	q[Q_SHADER_CORE_ACTIVE] = frag_active + comp_active;
	q[Q_FRAG_ACTIVE] = frag_active;
	q[Q_COMPUTE_ACTIVE] = comp_active;
	q[Q_EXEC_CORE_ACTIVE] = exec;
	q[Q_EXEC_ACTIVE] = exec;
	q[Q_FRAG_FPK_ACTIVE] = fr(frag_active, 0.8);
	q[Q_FRAG_STARVING] = fr(frag_active, 0.02);
	q[Q_COMPUTE_STARVING] = fr(comp_active, 0.02);

	uint64_t pre = fr(prims, f->prepass);
	q[Q_FRAG_PRIMITIVES] = prims;
	q[Q_FRAG_PRIMITIVES_OUT] = prims;
	q[Q_FRAG_PRIMITIVES_OUT_PRE_PASS] = pre;
	q[Q_FRAG_PRIMITIVES_HSR_CULLED] = fr(prims, 0.05);
	q[Q_FRAG_PRIMITIVES_HSR_DISABLED] = fr(prims, 0.1);
	q[Q_FRAG_PRIM_RAST] = fr(prims, 0.9);
	q[Q_FRAG_QUADS_RAST] = Q;
	q[Q_FRAG_QUADS_COARSE] = fr(Q, 0.3);
	q[Q_FRAG_PARTIAL_QUADS_RAST] = fr(Q, 0.15);
	q[Q_FRAG_QUADS_EZS_TEST] = ezs_t;
	q[Q_FRAG_QUADS_EZS_KILL] = ezs_k;
	q[Q_FRAG_QUADS_EZS_UPDATE] = fr(ezs_t - ezs_k, f->ezs_update);
	uint64_t hsr = fr(Q, f->prepass);
	q[Q_FRAG_QUADS_HSR_BUF_TEST] = hsr;
	q[Q_FRAG_QUADS_HSR_BUF_KILLED] = fr(hsr, 0.3);
	q[Q_FRAG_QUADS_HSR_BUF_EZS_UPDATE] = fr(hsr, 0.5);
	q[Q_QUAD_FPK_KILLER] = fr(surv, f->occluder);
	uint64_t lzs_t = fr(fw, f->lzs_test);
	q[Q_FRAG_LZS_TEST] = lzs_t;
	q[Q_FRAG_LZS_KILL] = fr(lzs_t, f->lzs_kill);
	q[Q_FRAG_WARPS] = fw;
	q[Q_FRAG_WARPS_PRE_PASS] = fr(fw, f->prepass / 2);
	q[Q_FRAG_PARTIAL_WARPS] = fr(fw, f->partial);
	q[Q_FRAG_SHADER_THREADS] = fr(fw * ws, 0.9);
	q[Q_FRAG_MAIN_PASS_STALLED_BY_PRE_PASS] = fr(frag_active, 0.03);
	q[Q_FULL_QUAD_WARPS] = fr(fw + cw, 0.7);
	q[Q_FULL_WARPS] = fr(fw + cw, 0.75);
	q[Q_WARP_REG_SIZE_64] = fr(fw + cw, 0.2);
	q[Q_DVS_WARPS] = fr(fw, 0.05);
	q[Q_FRAG_PTILES] = tiles;
	q[Q_FRAG_TRANS_ELIM] = fr(tiles, f->trans_elim);
	q[Q_COMPUTE_TASKS] = ceil_div(cw, 16);
	q[Q_COMPUTE_WARPS] = cw;

	/* Arithmetic: 60% FMA, 25% CVT, 15% SFU, so that every form of Arm's
	 * ALU-issue formula stays within the execution core's active cycles. */
	uint64_t fma = fr(arith, 0.6), cvt = fr(arith, 0.25);
	q[Q_EXEC_INSTR_COUNT] = arith;
	q[Q_EXEC_INSTR_FMA] = fma;
	q[Q_EXEC_INSTR_CVT] = cvt;
	q[Q_EXEC_INSTR_SFU] = arith - fma - cvt;
	q[Q_EXEC_INSTR_DIVERGED] = fr(arith, f->diverged);
	q[Q_EXEC_INSTR_NARROW] = fr(arith, 0.3);
	q[Q_EXEC_INSTR_SLOT_1] = fr(arith, 0.3);
	q[Q_EXEC_ISSUE_SLOT_ANY] = fr(exec, 0.7);
	q[Q_EXEC_INSTR_STARVING] = fr(exec, 0.05);
	q[Q_EXEC_STARVE_ARITH] = fr(exec, 0.05);
	q[Q_EXEC_STARVE_ICACHE] = fr(exec, 0.01);
	q[Q_EXEC_ICACHE_MISS] = fr(arith, 0.001);
	q[Q_EXEC_MSG_STALLED_ATTR] = fr(exec, 0.01);
	q[Q_EXEC_MSG_STALLED_BLEND] = fr(exec, 0.02);
	q[Q_EXEC_MSG_STALLED_LSC] = fr(exec, 0.03);
	q[Q_EXEC_MSG_STALLED_RTU] = fr(exec, rays ? 0.02 : 0);
	q[Q_EXEC_MSG_STALLED_TEX] = fr(exec, 0.04);
	q[Q_EXEC_MSG_STALLED_VARY] = fr(exec, 0.02);
	q[Q_EXEC_MSG_STALLED_ZS] = fr(exec, 0.01);
	q[Q_ARITH_INSTR_SINGLE_FMA] = fr(arith, 0.55);
	q[Q_ARITH_INSTR_DOUBLE] = fr(arith, 0.1);
	q[Q_ARITH_INSTR_MSG] = fr(arith, 0.1);
	q[Q_ARITH_INSTR_MSG_ONLY] = fr(fr(arith, 0.1), 0.5);
	q[Q_ARITH_INSTR_FP_MUL] = fr(arith, 0.3);
	q[Q_CALL_BLEND_SHADER] = fr(fw, 0.02);
	q[Q_BLEND_ISSUE] = fr(exec, 0.04);
	q[Q_ATTR_INSTR] = cw;
	q[Q_ATTR_ISSUE] = fr(exec, 0.05);
	q[Q_VARY_INSTR] = ceil_div(vary, 2);
	q[Q_VARY_SLOT_32] = vary - vary16;
	q[Q_VARY_SLOT_16] = vary16;
	q[Q_LS_MEM_READ_FULL] = ls_r - ls_r_short;
	q[Q_LS_MEM_READ_SHORT] = ls_r_short;
	q[Q_LS_MEM_WRITE_FULL] = ls_w - ls_w_short;
	q[Q_LS_MEM_WRITE_SHORT] = ls_w_short;
	q[Q_LS_MEM_ATOMIC] = atom;

	/* Texturing: every request is one quad; all the texture unit's cycle
	 * counters are shares of its issue cycles. */
	q[Q_TEX_INSTR] = tex;
	q[Q_TEX_INSTR_MIPMAP] = fr(tex, f->mip);
	q[Q_TEX_INSTR_COMPRESSED] = fr(tex, f->compressed);
	q[Q_TEX_INSTR_3D] = fr(tex, f->tex3d);
	q[Q_TEX_INSTR_TRILINEAR] = fr(tex, f->trilinear);
	q[Q_TEX_COORD_ISSUE] = tex_issue;
	q[Q_TEX_COORD_STALL] = fr(tex_issue, 0.1);
	q[Q_TEX_STARVE_CACHE] = fr(tex_issue, 0.05);
	q[Q_TEX_STARVE_FILTER] = fr(tex_issue, 0.03);
	uint64_t msgs = ceil_div(tex, 2);
	q[Q_TEX_MSGI_NUM_QUADS] = tex;
	q[Q_TEX_MSGI_NUM_FLITS] = fr(tex_issue, 0.75);
	q[Q_TEX_MSGI_CLK_STARVED] = fr(tex_issue, 0.02);
	q[Q_TEX_MSGO_NUM_MSG] = msgs; /* two quads a message, one when odd */
	q[Q_TEX_MSGO_NUM_SINGLE_QUAD_MSG] = msgs * 2 - tex;
	q[Q_TEX_MSGO_NUM_FLITS] = fr(tex_issue, 0.5);
	q[Q_TEX_FILT_NUM_OPERATIONS] = tex_issue;
	q[Q_TEX_FILT_NUM_FXR_OPERATIONS] = fr(tex_issue, 0.3);
	q[Q_TEX_FILT_NUM_FST_OPERATIONS] = fr(tex_issue, f->trilinear / 2);
	q[Q_TEX_TFCH_NUM_OPERATIONS] = fr(tex_issue, 0.9);
	q[Q_TEX_TFCH_NUM_TCL_OPERATIONS] = fr(tex_issue, 0.7);
	uint64_t lines = fr(tex, f->l2_miss * 2 > 1 ? 1 : f->l2_miss * 2);
	q[Q_TEX_TFCH_NUM_LINES_FETCHED] = lines;
	q[Q_TEX_TFCH_NUM_LINES_FETCHED_BLOCK_COMPRESSED] = fr(lines, f->compressed);
	q[Q_TEX_TFCH_CLK_STALLED] = fr(tex_issue, 0.04);
	q[Q_TEX_TFCH_STARVED_PENDING_DATA_FETCH] = fr(tex_issue, 0.03);
	q[Q_TEX_CFCH_NUM_DIRECT_PATH_OPERATIONS] = fr(tex_issue, 0.5);
	q[Q_TEX_CFCH_NUM_RP_OPERATIONS] = fr(tex_issue, 0.2);
	q[Q_TEX_CFCH_NUM_L1_CL_OPERATIONS] = fr(tex_issue, 0.6);
	q[Q_TEX_CFCH_NUM_L1_CT_OPERATIONS] = fr(tex_issue, 0.65);
	q[Q_TEX_CFCH_NUM_OUTPUT_OPERATIONS] = fr(tex_issue, 0.55);
	q[Q_TEX_TIDX_NUM_OPERATIONS] = fr(tex_issue, 0.5);
	q[Q_TEX_TIDX_NUM_SPLIT_MIP_MAP] = fr(tex, f->trilinear);
	uint64_t passes = tex + fr(tex, f->trilinear);
	q[Q_TEX_DFCH_NUM_PASSES] = passes;
	q[Q_TEX_DFCH_NUM_PASSES_MIP_MAP] = fr(passes, f->mip);
	q[Q_TEX_DFCH_NUM_PASSES_MISS] = fr(passes, 0.02);
	q[Q_TEX_DFCH_CLK_STALLED] = fr(tex_issue, 0.02);
	q[Q_TEX_TEXP_CLK_ACTIVE] = tex_issue;
	q[Q_TEX_RSPS_NUM_OPERATIONS] = tex;

	/* 16-byte beats on the core's bus. */
	uint64_t rd_ftc = tiles * 4, rd_lsc = ls_r + atom, rd_tex = tex * 2, rd_other = tiles;
	uint64_t rd_rtu = rays ? rays / 2 + 1 : 0;
	uint64_t wr_lsc = ls_w + atom, wr_tib = (tiles - q[Q_FRAG_TRANS_ELIM]) * 64;
	uint64_t wr_other = tiles / 4;
	q[Q_BEATS_RD_FTC] = rd_ftc;
	q[Q_BEATS_RD_FTC_EXT] = fr(rd_ftc, f->l2_miss);
	q[Q_BEATS_RD_LSC] = rd_lsc;
	q[Q_BEATS_RD_LSC_EXT] = fr(rd_lsc, f->l2_miss);
	q[Q_BEATS_RD_TEX] = rd_tex;
	q[Q_BEATS_RD_TEX_EXT] = fr(rd_tex, f->l2_miss);
	q[Q_BEATS_RD_OTHER] = rd_other;
	q[Q_BEATS_RD_RTU] = rd_rtu;
	q[Q_BEATS_RD_RTU_EXT] = fr(rd_rtu, f->l2_miss);
	q[Q_BEATS_WR_LSC] = wr_lsc;
	q[Q_BEATS_WR_LSC_WB] = fr(wr_lsc, 0.7);
	q[Q_BEATS_WR_LSC_OTHER] = wr_lsc - q[Q_BEATS_WR_LSC_WB];
	q[Q_BEATS_WR_TIB] = wr_tib;
	q[Q_BEATS_WR_OTHER] = wr_other;

	/* Ray tracing: 8 box and 2 triangle tests a ray; outcomes split. */
	q[Q_RT_ACTIVE] = rt_active;
	q[Q_RT_RAYS_STARTED] = rays;
	q[Q_RT_RAY_BOX] = box;
	q[Q_RT_RAY_BOX_ISSUED] = box_cy;
	q[Q_RT_RAY_BOX_TLAS] = fr(box, 0.2);
	q[Q_RT_RAY_BOX_BIN_1_4] = fr(box, 0.4);
	q[Q_RT_RAY_BOX_BIN_5_8] = fr(box, 0.3);
	q[Q_RT_RAY_BOX_BIN_9_12] = fr(box, 0.2);
	q[Q_RT_RAY_BOX_BIN_13_16] = fr(box, 0.05);
	q[Q_RT_RAY_TRI] = tri;
	q[Q_RT_RAY_TRI_ISSUED] = tri_cy;
	q[Q_RT_RAY_TRI_CULL] = fr(tri, 0.2);
	q[Q_RT_RAY_TRI_BIN_1_4] = fr(tri, 0.5);
	q[Q_RT_RAY_TRI_BIN_5_8] = fr(tri, 0.3);
	q[Q_RT_RAY_TRI_BIN_9_12] = fr(tri, 0.1);
	q[Q_RT_RAY_TRI_BIN_13_16] = fr(tri, 0.05);
	q[Q_RT_BOX_ISSUE_COUNT] = box_cy;
	q[Q_RT_BOX_ISSUE_CYCLES] = box_cy;
	q[Q_RT_TRI_ISSUE_COUNT] = fr(tri_cy, 0.2);
	q[Q_RT_TRI_ISSUE_CYCLES] = tri_cy;
	q[Q_RT_RAY_INSTANCE] = rays * 2;
	q[Q_RT_RAY_INSTANCE_CULL] = fr(rays * 2, 0.1);
	q[Q_RT_CACHE_READ_HIT] = fr(box + tri, 0.9);
	q[Q_RT_CACHE_READ_MISS] = box + tri - q[Q_RT_CACHE_READ_HIT];
	q[Q_RT_MISS] = fr(rays, 0.3);
	q[Q_RT_OPAQUE_HIT] = fr(rays, 0.5);
	q[Q_RT_NON_OPAQUE_HIT] = rays - q[Q_RT_MISS] - q[Q_RT_OPAQUE_HIT];
	q[Q_RT_TERM_FIRST_HIT] = fr(rays, 0.4);
	q[Q_RT_TRACE_MSG_NEW] = ceil_div(rays, 4);
	q[Q_RT_TRACE_MSG_RESUME] = fr(ceil_div(rays, 4), 0.1);
	q[Q_RT_TRACE_RESUME] = fr(rays, 0.05);
	q[Q_RT_TRAVERSAL_STACK_OVERFLOW] = fr(rays, 0.001);

	s->max_frag = max2(s->max_frag, frag_active);
	s->max_compute = max2(s->max_compute, comp_active);
	s->max_core = max2(s->max_core, frag_active + comp_active);
	/* 64-byte L2 lines = 4 beats */
	s->rd_lines += ceil_div(rd_ftc + rd_lsc + rd_tex + rd_other + rd_rtu, 4);
	s->wr_lines += ceil_div(wr_lsc + wr_tib + wr_other, 4);
}

/* Read beats by latency bin: weight each bin by closeness to the mean. */
static void latency_bins(uint64_t beats, double mean, uint64_t *bins)
{
	static const double centre[6] = { 64, 160, 224, 288, 352, 448 };
	double w[6], sum = 0;
	for (int i = 0; i < 6; i++) {
		double d = 1.0 + fabs(centre[i] - mean) / 64.0;
		w[i] = 1.0 / (d * d);
		sum += w[i];
	}
	for (int i = 0; i < 5; i++) /* the sixth (>383) is what the others leave */
		bins[i] = (uint64_t)floor((double)beats * w[i] / sum);
}

static void memory(const struct vmali_frame *f, const struct vmali_geom *g, uint64_t rd,
                   uint64_t wr, uint64_t gpu, uint64_t *q)
{
	uint64_t beats_per_line = g->bus_bytes >= 64 ? 1 : 64 / g->bus_bytes;
	uint64_t ext_r = fr(rd, f->l2_miss), ext_w = fr(wr, f->l2_wr_miss);
	uint64_t rbeats = ext_r * beats_per_line, wbeats = ext_w * beats_per_line;
	uint64_t mmu = fr(rd + wr, 0.01), snoop = fr(rd, 0.01);
	uint64_t bins[5];

	q[Q_L2_ANY_LOOKUP] = rd + wr + snoop;
	q[Q_L2_READ_LOOKUP] = rd;
	q[Q_L2_WRITE_LOOKUP] = wr;
	q[Q_L2_EXT_SNOOP_LOOKUP] = snoop;
	q[Q_L2_RD_MSG_IN] = rd;
	q[Q_L2_RD_MSG_IN_CU] = fr(rd, 0.02);
	q[Q_L2_RD_MSG_IN_EVICT] = fr(rd, 0.03);
	q[Q_L2_RD_MSG_IN_STALL] = fr(gpu, rd ? 0.02 : 0);
	q[Q_L2_WR_MSG_IN] = wr;
	q[Q_L2_WR_MSG_IN_STALL] = fr(gpu, wr ? 0.01 : 0);
	q[Q_L2_SNP_MSG_IN] = snoop;
	q[Q_L2_SNP_MSG_IN_STALL] = fr(gpu, snoop ? 0.002 : 0);
	q[Q_L2_RD_MSG_OUT] = ext_r;
	q[Q_L2_RD_MSG_OUT_STALL] = fr(gpu, ext_r ? 0.01 : 0);
	q[Q_L2_WR_MSG_OUT] = ext_w;
	q[Q_L2_EXT_READ] = ext_r;
	q[Q_L2_EXT_READ_UNIQUE] = fr(ext_r, 0.05);
	q[Q_L2_EXT_READ_NOSNP] = ext_r - q[Q_L2_EXT_READ_UNIQUE];
	q[Q_L2_EXT_READ_BEATS] = rbeats;
	q[Q_L2_EXT_AR_STALL] = fr(gpu, ext_r ? 0.05 : 0);
	q[Q_L2_EXT_AR_CNT_Q1] = fr(ext_r, 0.4);
	q[Q_L2_EXT_AR_CNT_Q2] = fr(ext_r, 0.3);
	q[Q_L2_EXT_AR_CNT_Q3] = fr(ext_r, 0.2);
	latency_bins(rbeats, f->latency, bins);
	q[Q_L2_EXT_RRESP_0_127] = bins[0];
	q[Q_L2_EXT_RRESP_128_191] = bins[1];
	q[Q_L2_EXT_RRESP_192_255] = bins[2];
	q[Q_L2_EXT_RRESP_256_319] = bins[3];
	q[Q_L2_EXT_RRESP_320_383] = bins[4];
	uint64_t full = fr(ext_w, 0.9), snp = fr(ext_w, 0.1);
	q[Q_L2_EXT_WRITE] = ext_w;
	q[Q_L2_EXT_WRITE_SNP_FULL] = fr(snp, 0.8);
	q[Q_L2_EXT_WRITE_SNP_PTL] = snp - q[Q_L2_EXT_WRITE_SNP_FULL];
	q[Q_L2_EXT_WRITE_NOSNP_FULL] = full - q[Q_L2_EXT_WRITE_SNP_FULL];
	q[Q_L2_EXT_WRITE_NOSNP_PTL] = ext_w - full - q[Q_L2_EXT_WRITE_SNP_PTL];
	q[Q_L2_EXT_WRITE_BEATS] = wbeats;
	q[Q_L2_EXT_W_STALL] = fr(gpu, ext_w ? 0.03 : 0);
	q[Q_L2_EXT_AW_CNT_Q1] = fr(ext_w, 0.5);
	q[Q_L2_EXT_AW_CNT_Q2] = fr(ext_w, 0.25);
	q[Q_L2_EXT_AW_CNT_Q3] = fr(ext_w, 0.1);
	q[Q_L2_EXT_SNOOP] = fr(ext_r, 0.01);
	q[Q_L2_EXT_SNOOP_STALL] = fr(gpu, ext_r ? 0.001 : 0);
	q[Q_L2_EXT_SNOOP_INTERNAL] = fr(q[Q_L2_EXT_SNOOP], 0.5);
	q[Q_L2_EXT_SNOOP_RESP_CLEAN] = fr(q[Q_L2_EXT_SNOOP], 0.3);
	q[Q_L2_EXT_SNOOP_RESP_DATA] = fr(q[Q_L2_EXT_SNOOP], 0.2);
	q[Q_MMU_REQUESTS] = mmu;
	q[Q_MMU_TABLE_READS_L3] = fr(mmu, 0.05);
	q[Q_MMU_TABLE_READS_L2] = fr(mmu, 0.1);
	q[Q_MMU_HIT_L3] = fr(mmu, 0.85);
	q[Q_MMU_HIT_L2] = fr(mmu, 0.9);
	uint64_t s2 = fr(mmu, 0.5);
	q[Q_MMU_S2_REQUESTS] = s2;
	q[Q_MMU_S2_TABLE_READS_L3] = fr(s2, 0.05);
	q[Q_MMU_S2_TABLE_READS_L2] = fr(s2, 0.1);
	q[Q_MMU_S2_HIT_L3] = fr(s2, 0.85);
	q[Q_MMU_S2_HIT_L2] = fr(s2, 0.9);
}

/* The front end: job slots on job-manager GPUs, queues and command-stream
 * interfaces on CSF GPUs; the layout keeps the names it has. */
static uint64_t front_end(const struct scene *sc, const struct core_sums *s,
                          const struct vmali_frame *f, uint64_t *q, uint64_t *gpu_iter)
{
	uint64_t js0 = s->max_frag ? s->max_frag + 500 : 0;
	uint64_t compq = s->max_compute ? s->max_compute + 500 : 0;
	uint64_t tilerq = sc->tiler_active ? sc->tiler_active + 500 : 0;
	uint64_t js1 = max2(s->max_compute, sc->tiler_active);
	js1 = js1 ? js1 + 500 : 0;
	uint64_t js2 = (sc->cwarps || sc->prims) ? 200 : 0;
	uint64_t lo = min2(js0, js1);
	uint64_t gpu = max2(max2(max2(js0, js1), max2(compq, tilerq)), s->max_core);
	gpu = gpu ? gpu + scale(lo, f->serial) + 64 : 0;
	/* CSF: GPU_ITER_ACTIVE is "any queue active"; GPU_ACTIVE adds the
	 * firmware's own housekeeping on top. */
	*gpu_iter = gpu;
	uint64_t gpu_all = gpu ? gpu + 256 : 0;

	q[Q_GPU_ACTIVE] = gpu_all;
	q[Q_GPU_ITER_ACTIVE] = gpu;
	q[Q_IRQ_ACTIVE] = q[Q_GPU_IRQ_ACTIVE] = gpu ? 300 : 0;
	q[Q_GPU_IRQ_COUNT] = gpu ? 3 : 0;
	q[Q_MESSAGES_SENT] = q[Q_MESSAGES_RECEIVED] = sc->tasks + 4;
	q[Q_CACHE_FLUSH] = 1;
	q[Q_CACHE_FLUSH_CYCLES] = gpu ? 200 : 0;
	uint64_t slot[3] = { js0, js1, js2 };
	uint64_t jobs[3] = { js0 ? 1u : 0u, (sc->prims ? 1u : 0u) + (sc->cwarps ? 1u : 0u),
		             js2 ? 1u : 0u };
	uint64_t tasks[3] = { js0 ? sc->tasks : 0,
		              ceil_div(sc->cwarps, 16) + ceil_div(sc->pos_req, 64), js2 ? 1u : 0u };
	for (int j = 0; j < 3; j++) {
		int b = Q_JS0_ACTIVE + j * (Q_JS1_ACTIVE - Q_JS0_ACTIVE);
		q[b] = slot[j];
		q[b + (Q_JS0_JOBS - Q_JS0_ACTIVE)] = jobs[j];
		q[b + (Q_JS0_TASKS - Q_JS0_ACTIVE)] = tasks[j];
		q[b + (Q_JS0_WAIT_DEPEND - Q_JS0_ACTIVE)] = fr(slot[j], 0.01);
		q[b + (Q_JS0_WAIT_FINISH - Q_JS0_ACTIVE)] = fr(slot[j], 0.02);
		q[b + (Q_JS0_WAIT_FLUSH - Q_JS0_ACTIVE)] = fr(slot[j], 0.005);
		q[b + (Q_JS0_WAIT_ISSUE - Q_JS0_ACTIVE)] = fr(slot[j], 0.01);
		q[b + (Q_JS0_WAIT_READ - Q_JS0_ACTIVE)] = slot[j] ? 100 : 0;
	}
	q[Q_MCU_ACTIVE] = fr(gpu, 0.12);
	q[Q_CEU_ACTIVE] = fr(gpu, 0.08);
	q[Q_LSU_ACTIVE] = fr(gpu, 0.05);
	q[Q_DOORBELL_IRQ_ACTIVE] = gpu ? 40 : 0;
	q[Q_ITER_FRAG_ACTIVE] = js0;
	q[Q_ITER_FRAG_READY_BLOCKED] = fr(js0, 0.05);
	q[Q_ITER_FRAG_TASK_COMPLETED] = js0 ? sc->tasks : 0;
	q[Q_ITER_FRAG_JOB_COMPLETED] = js0 ? 1 : 0;
	q[Q_ITER_FRAG_IRQ_ACTIVE] = js0 ? 50 : 0;
	q[Q_ITER_COMP_ACTIVE] = compq;
	q[Q_ITER_COMP_READY_BLOCKED] = fr(compq, 0.04);
	q[Q_ITER_COMP_EP_DRAIN] = fr(compq, 0.02);
	q[Q_ITER_COMP_TASK_COMPLETED] = ceil_div(sc->cwarps, 16);
	q[Q_ITER_COMP_JOB_COMPLETED] = sc->cwarps ? 1 : 0;
	q[Q_ITER_COMP_IRQ_ACTIVE] = compq ? 50 : 0;
	q[Q_ITER_TILER_ACTIVE] = tilerq;
	q[Q_ITER_TILER_READY_BLOCKED] = fr(tilerq, 0.05);
	q[Q_ITER_TILER_EP_DRAIN] = fr(tilerq, 0.02);
	q[Q_ITER_TILER_IDVS_TASK_COMPLETED] = sc->pos_req;
	q[Q_ITER_TILER_JOB_COMPLETED] = sc->prims ? 1 : 0;
	q[Q_ITER_TILER_IRQ_ACTIVE] = tilerq ? 50 : 0;
	uint64_t cs[6] = { js0, compq, tilerq, fr(gpu, 0.02), fr(gpu, 0.01), fr(gpu, 0.005) };
	for (int i = 0; i < 6; i++) {
		q[Q_CSHWIF0_ENABLED + i] = cs[i];
		q[Q_CSHWIF0_WAIT_BLOCKED + i] = fr(cs[i], 0.1);
	}
	return gpu_all;
}

/* Counters the model has no rule for, and the firmware and command stream
 * group blocks no layout describes: shares of the block's busy cycles. */
static void scatter(const struct vmali_model *m, uint32_t block, const uint64_t *q,
                    uint64_t busy, uint64_t *out)
{
	for (size_t i = 0; i < m->n; i++) {
		const struct vmali_plan_entry *e = &m->plan[i];
		if (e->block != block)
			continue;
		uint64_t v = e->slot >= 0 ? q[e->slot] : fr(busy, e->permille / 1000.0);
		out[e->index] += v >> e->shift; /* counted in units of 1 << shift */
	}
}

uint64_t vmali_frame_run(const struct vmali_frame *f, const struct vmali_geom *g,
                         const struct vmali_model *m, uint64_t *blocks, uint64_t *cycles_sc)
{
	const struct vmali_layout_consts *k = &m->k;
	uint64_t q[Q_COUNT];
	uint32_t V = g->values;
	uint32_t ncores = (uint32_t)__builtin_popcountll(g->core_mask);
	struct scene sc = { 0 };

	memset(q, 0, sizeof(q));
	tiler(f, m, &sc, q);
	scatter(m, VMALI_BLOCK_TILER, q, q[Q_TILER_ACTIVE],
	        blocks + (size_t)g->first[VMALI_BLOCK_TILER] * V);

	/* Fragment and compute work, spread over the present cores. */
	uint64_t w = (uint64_t)f->width, h = (uint64_t)f->height;
	uint64_t task = (uint64_t)k->task_size, tile = (uint64_t)k->tile_size;
	sc.tasks = ceil_div(w, task) * ceil_div(h, task);
	sc.tiles = ceil_div(w, tile) * ceil_div(h, tile);
	sc.quads = scale(ceil_div(w, 2) * ceil_div(h, 2), f->overdraw);
	sc.cwarps = (uint64_t)f->compute_warps;
	sc.rays = (uint64_t)f->rays;
	struct core_sums s = { 0 };
	uint32_t n = 0;
	for (uint32_t bit = 0; bit < g->sc_blocks; bit++) {
		if (!(g->core_mask >> bit & 1))
			continue;
		memset(q + Q_SC_FIRST, 0, (Q_COUNT - Q_SC_FIRST) * sizeof(q[0]));
		double im = f->imbalance;
		shader_core(f, k, wsplit(sc.quads, ncores, n, im), wsplit(sc.tiles, ncores, n, im),
		            wsplit(sc.visible, ncores, n, im), wsplit(sc.cwarps, ncores, n, im),
		            wsplit(sc.rays, ncores, n, im), q, &s);
		scatter(m, VMALI_BLOCK_SC, q, q[Q_EXEC_CORE_ACTIVE],
		        blocks + (size_t)(g->first[VMALI_BLOCK_SC] + bit) * V);
		n++;
	}
	s.rd_lines += sc.prims / 2;
	s.wr_lines += sc.visible / 2;

	uint64_t gpu_iter;
	uint64_t gpu = front_end(&sc, &s, f, q, &gpu_iter);
	scatter(m, VMALI_BLOCK_FE, q, gpu_iter, blocks + (size_t)g->first[VMALI_BLOCK_FE] * V);

	for (uint32_t l = 0; l < g->l2_slices; l++) {
		memory(f, g, wsplit(s.rd_lines, g->l2_slices, l, f->slice_imbalance),
		       wsplit(s.wr_lines, g->l2_slices, l, f->slice_imbalance), gpu_iter, q);
		scatter(m, VMALI_BLOCK_L2, q, q[Q_L2_ANY_LOOKUP],
		        blocks + (size_t)(g->first[VMALI_BLOCK_L2] + l) * V);
	}

	/* Firmware and command stream groups (CSF): counters no layout names;
	 * small shares of the firmware's busy time, distinct per value. */
	for (uint32_t t = VMALI_BLOCK_FW; t <= VMALI_BLOCK_CSG; t++)
		for (uint32_t i = 0; i < g->count[t]; i++) {
			uint64_t *b = blocks + (size_t)(g->first[t] + i) * V;
			for (uint32_t v = VMALI_HEADER_WORDS; v < V; v++)
				b[v] += fr(q[Q_MCU_ACTIVE], (double)(v % 13 + 1) / (100.0 * (i + 1)));
		}

	uint64_t cycles = max2(gpu, (uint64_t)llround(f->clock_mhz * 1e6 / f->fps));
	*cycles_sc = cycles + cycles / 8; /* the shader cores' clock runs a little faster */
	return cycles;
}
