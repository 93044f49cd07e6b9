/* SPDX-License-Identifier: MIT */
/*
 * vmali_workload.c — the frame script and the model that turns one frame into
 * Mali-G71 counter values.
 *
 * Script: one frame per line (';' also ends a line), '#' starts a comment:
 *     frame key=value key=value ...
 * Every key has a default (the table below); fractions are in [0, 1].
 *   count          times this line repeats before the next (whole, >= 1)
 *   prims          primitives entering the tiler; lines, points: fractions
 *   culled, clipped, satcull   fractions of the input culled by the facing/XY,
 *                  Z-plane and sample tests (sum <= 1); the rest are visible
 *   verts_per_prim position-shaded vertices per primitive (IDVS, 4 per request)
 *   width, height  render target; 32x32 tasks, 16x16 tiles, 2x2 quads
 *   overdraw       rasterised quads per screen quad
 *   ezs_test, ezs_kill, ezs_update  early ZS: tested / killed of tested /
 *                  updating of the survivors
 *   fpk_kill       EZS survivors removed by forward pixel kill
 *   occluder       EZS survivors that are FPK occluders
 *   lzs_test, lzs_kill, partial     late ZS tested / killed, partial warps
 *   trans_elim     tiles eliminated by transaction elimination
 *   frag_instr     instructions per fragment warp (one quad per 4-wide warp)
 *   compute_warps, compute_instr    non-fragment warps and their instructions
 *   diverged       diverged instructions
 *   tex (per fragment warp), mip, compressed, tex3d, trilinear, tex_cpi
 *   varying (32-bit slots per fragment warp), vary16 (16-bit share)
 *   ls_reads, ls_writes, atomics (per compute warp), ls_partial
 *   l2_miss, l2_wr_miss  L2 read / write lookups that go to the bus
 *   latency        mean external read latency in cycles (sets the bins)
 *   fps, clock_mhz GPU cycles per frame = clock / fps (at least GPU active)
 *   serial         share of the shorter queue that does not overlap
 * The script loops: after the last line the first runs again.
 *
 * The model derives every dependent counter from the quantities it depends
 * on, per shader core and per L2 slice, in integers, so the invariants the
 * guide's expressions rely on hold in every block and therefore in every sum:
 *   culled + clipped + sample-culled + visible = input primitives
 *   EZS kill <= EZS test <= rasterised quads; warps = quads - EZS kill - FPK kill
 *   FPK occluders <= quads surviving EZS; partial warps <= warps
 *   diverged <= instructions <= execution-core active cycles
 *   texture request kinds <= texture requests; eliminated tiles <= tiles
 *   latency bins sum <= read beats; outstanding-queue bins sum <= reads
 *   GPU active >= each queue's active >= each core's active; cycles >= GPU active
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmali_internal.h"

const char vmali_default_workload[] =
	"# A game-like 1080p scene, a UI overlay and a compute-heavy post pass.\n"
	"frame count=2\n"
	"frame prims=8000 culled=0.1 clipped=0.0 satcull=0.02 overdraw=1.2 frag_instr=8 "
	"compute_warps=200 tex=1 trans_elim=0.6\n"
	"frame prims=2000 overdraw=1.0 compute_warps=20000 compute_instr=120 ls_reads=8 "
	"ls_writes=4 atomics=0.5 tex=0.5 trans_elim=0.0\n";

struct key {
	const char *name;
	size_t off;
	double def;
	double max; /* fractions: 1; others: a sanity bound */
};

#define K(field, def, max) { #field, offsetof(struct vmali_frame, field), def, max }
static const struct key keys[] = {
	K(count, 1, 1e6),         K(prims, 50000, 1e8),      K(lines, 0, 1),
	K(points, 0, 1),          K(culled, 0.45, 1),        K(clipped, 0.05, 1),
	K(satcull, 0.05, 1),      K(verts_per_prim, 1.2, 16), K(width, 1920, 16384),
	K(height, 1080, 16384),   K(overdraw, 2.0, 64),      K(ezs_test, 0.9, 1),
	K(ezs_kill, 0.3, 1),      K(ezs_update, 0.6, 1),     K(fpk_kill, 0.1, 1),
	K(occluder, 0.5, 1),      K(lzs_test, 0.05, 1),      K(lzs_kill, 0.2, 1),
	K(partial, 0.1, 1),       K(trans_elim, 0.2, 1),     K(frag_instr, 30, 4096),
	K(compute_warps, 2000, 1e8), K(compute_instr, 40, 4096), K(diverged, 0.05, 1),
	K(tex, 2, 64),            K(mip, 0.8, 1),            K(compressed, 0.7, 1),
	K(tex3d, 0, 1),           K(trilinear, 0.3, 1),      K(tex_cpi, 1.5, 64),
	K(varying, 4, 64),        K(vary16, 0.5, 1),         K(ls_reads, 4, 256),
	K(ls_writes, 2, 256),     K(ls_partial, 0.2, 1),     K(atomics, 0, 256),
	K(l2_miss, 0.2, 1),       K(l2_wr_miss, 0.5, 1),     K(latency, 200, 4096),
	K(fps, 60, 1e4),          K(clock_mhz, 850, 1e4),    K(serial, 0.2, 1),
};
#undef K

static void frame_defaults(struct vmali_frame *f)
{
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		*(double *)(void *)((char *)f + keys[i].off) = keys[i].def;
}

static int parse_pair(struct vmali_frame *f, const char *tok, size_t len, unsigned line,
                      char *err, size_t err_len)
{
	const char *eq = memchr(tok, '=', len);
	if (!eq) {
		snprintf(err, err_len, "workload line %u: '%.*s' is not key=value", line, (int)len,
		         tok);
		return -1;
	}
	size_t klen = (size_t)(eq - tok);
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (strlen(keys[i].name) != klen || memcmp(keys[i].name, tok, klen) != 0)
			continue;
		char num[64];
		size_t vlen = len - klen - 1;
		if (vlen == 0 || vlen >= sizeof(num))
			break;
		memcpy(num, eq + 1, vlen);
		num[vlen] = '\0';
		char *end;
		errno = 0;
		double v = strtod(num, &end);
		if (errno || *end || !isfinite(v) || v < 0 || v > keys[i].max) {
			snprintf(err, err_len, "workload line %u: %s=%s must be a number in [0, %g]",
			         line, keys[i].name, num, keys[i].max);
			return -1;
		}
		if (i == 0 && (v < 1 || v != floor(v))) {
			snprintf(err, err_len, "workload line %u: count must be a whole number >= 1",
			         line);
			return -1;
		}
		*(double *)(void *)((char *)f + keys[i].off) = v;
		return 0;
	}
	snprintf(err, err_len, "workload line %u: unknown or empty key in '%.*s'", line, (int)len,
	         tok);
	return -1;
}

/* One line: "frame key=value ...", blank, or a # comment. */
static int parse_line(const char *s, size_t len, unsigned line, struct vmali_script *out,
                      char *err, size_t err_len)
{
	size_t i = 0;
	while (i < len && isspace((unsigned char)s[i]))
		i++;
	if (i == len || s[i] == '#')
		return 0;
	size_t start = i;
	while (i < len && !isspace((unsigned char)s[i]))
		i++;
	if (i - start != 5 || memcmp(s + start, "frame", 5) != 0) {
		snprintf(err, err_len, "workload line %u: expected 'frame key=value ...'", line);
		return -1;
	}
	if (out->n >= VMALI_MAX_FRAMES) {
		snprintf(err, err_len, "workload: more than %u frame lines", VMALI_MAX_FRAMES);
		return -1;
	}
	struct vmali_frame *f = &out->frames[out->n];
	frame_defaults(f);
	for (;;) {
		while (i < len && isspace((unsigned char)s[i]))
			i++;
		if (i == len || s[i] == '#')
			break;
		start = i;
		while (i < len && !isspace((unsigned char)s[i]))
			i++;
		if (parse_pair(f, s + start, i - start, line, err, err_len))
			return -1;
	}
	if (f->culled + f->clipped + f->satcull > 1.0 + 1e-9) {
		snprintf(err, err_len, "workload line %u: culled + clipped + satcull exceed 1", line);
		return -1;
	}
	if (f->fps <= 0 || f->clock_mhz <= 0) {
		snprintf(err, err_len, "workload line %u: fps and clock_mhz must be positive", line);
		return -1;
	}
	out->n++;
	return 0;
}

int vmali_script_parse(const char *text, struct vmali_script *out, char *err, size_t err_len)
{
	out->n = 0;
	out->frames = calloc(VMALI_MAX_FRAMES, sizeof(*out->frames));
	if (!out->frames) {
		snprintf(err, err_len, "workload: out of memory");
		return -1;
	}
	unsigned line = 1;
	const char *p = text;
	for (;;) {
		size_t len = strcspn(p, "\n;");
		if (parse_line(p, len, line, out, err, err_len)) {
			vmali_script_free(out);
			return -1;
		}
		if (!p[len])
			break;
		p += len + 1;
		line++;
	}
	if (out->n == 0) {
		snprintf(err, err_len, "workload: no 'frame' line");
		vmali_script_free(out);
		return -1;
	}
	return 0;
}

void vmali_script_free(struct vmali_script *s)
{
	free(s->frames);
	s->frames = NULL;
	s->n = 0;
}

/* ---- the model ---- */

static uint64_t frac(uint64_t total, double f)
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

static uint64_t max2(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static uint64_t ceil_div(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

/* Counter indices (reference §5.2). */
enum {
	JM_MESSAGES_SENT = 4, JM_MESSAGES_RECEIVED = 5, JM_GPU_ACTIVE = 6, JM_IRQ_ACTIVE = 7,
	JM_JS0_JOBS = 8, JM_JS0_TASKS = 9, JM_JS0_ACTIVE = 10, JM_JS0_WAIT_READ = 12,
	JM_JS1_JOBS = 16, JM_JS1_TASKS = 17, JM_JS1_ACTIVE = 18, JM_JS1_WAIT_READ = 20,
	JM_CACHE_FLUSH = 63,
};
enum {
	T_ACTIVE = 4, T_JOBS = 5, T_TRIANGLES = 6, T_LINES = 7, T_POINTS = 8, T_FRONT = 9,
	T_BACK = 10, T_VISIBLE = 11, T_CULLED = 12, T_CLIPPED = 13, T_SAT_CULLED = 14,
	T_BUS_READ = 17, T_BUS_WRITE = 19, T_POS_REQ = 21, T_VCACHE_HIT = 26, T_VCACHE_MISS = 27,
	T_VAR_REQ = 37, T_PCACHE_HIT = 43, T_PCACHE_MISS = 44, T_UTLB_TRANS = 59,
	T_UTLB_HIT = 60,
};
enum {
	SC_FRAG_ACTIVE = 4, SC_FRAG_PRIMITIVES = 5, SC_FRAG_PRIM_RAST = 6, SC_FRAG_FPK_ACTIVE = 7,
	SC_FRAG_STARVING = 8, SC_FRAG_WARPS = 9, SC_FRAG_PARTIAL_WARPS = 10, SC_QUADS_RAST = 11,
	SC_EZS_TEST = 12, SC_EZS_UPDATE = 13, SC_EZS_KILL = 14, SC_LZS_TEST = 15, SC_LZS_KILL = 16,
	SC_PTILES = 18, SC_TRANS_ELIM = 19, SC_FPK_KILLER = 20, SC_COMPUTE_ACTIVE = 22,
	SC_COMPUTE_TASKS = 23, SC_COMPUTE_WARPS = 24, SC_COMPUTE_STARVING = 25,
	SC_EXEC_CORE_ACTIVE = 26, SC_EXEC_ACTIVE = 27, SC_INSTR = 28, SC_DIVERGED = 29,
	SC_INSTR_STARVING = 30, SC_FMA = 31, SC_DOUBLE = 32, SC_MSG = 33, SC_MSG_ONLY = 34,
	SC_TEX = 35, SC_TEX_MIP = 36, SC_TEX_COMP = 37, SC_TEX_3D = 38, SC_TEX_TRI = 39,
	SC_TEX_ISSUE = 40, SC_TEX_STALL = 41, SC_LS_RD_FULL = 44, SC_LS_RD_SHORT = 45,
	SC_LS_WR_FULL = 46, SC_LS_WR_SHORT = 47, SC_LS_ATOMIC = 48, SC_VARY_INSTR = 49,
	SC_VARY_32 = 50, SC_VARY_16 = 51, SC_ATTR_INSTR = 52, SC_FP_MUL = 53, SC_RD_FTC = 54,
	SC_RD_FTC_EXT = 55, SC_RD_LSC = 56, SC_RD_LSC_EXT = 57, SC_RD_TEX = 58,
	SC_RD_TEX_EXT = 59, SC_RD_OTHER = 60, SC_WR_LSC = 61, SC_WR_TIB = 62, SC_WR_OTHER = 63,
};
enum {
	L2_MMU_REQUESTS = 4, L2_MMU_TABLE_READS_L2 = 6, L2_MMU_HIT_L2 = 8, L2_RD_MSG_IN = 16,
	L2_WR_MSG_IN = 18, L2_RD_MSG_OUT = 22, L2_WR_MSG_OUT = 24, L2_ANY_LOOKUP = 25,
	L2_READ_LOOKUP = 26, L2_WRITE_LOOKUP = 27, L2_EXT_READ = 29, L2_EXT_READ_NOSNP = 30,
	L2_EXT_READ_BEATS = 32, L2_EXT_AR_STALL = 33, L2_EXT_AR_Q1 = 34, L2_EXT_RRESP_0 = 37,
	L2_EXT_WRITE = 42, L2_EXT_WRITE_NOSNP_FULL = 43, L2_EXT_WRITE_NOSNP_PTL = 44,
	L2_EXT_WRITE_BEATS = 47, L2_EXT_W_STALL = 48, L2_EXT_AW_Q1 = 49,
};

struct core_sums {
	uint64_t max_frag, max_compute, max_core, rd_lines, wr_lines;
};

static void run_core(const struct vmali_frame *f, uint64_t *b, uint64_t quads, uint64_t tiles,
                     uint64_t prims, uint64_t cwarps, struct core_sums *s)
{
	uint64_t ezs_t = frac(quads, f->ezs_test);
	uint64_t ezs_k = frac(ezs_t, f->ezs_kill);
	uint64_t surv = quads - ezs_k;
	uint64_t fpk_k = frac(surv, f->fpk_kill);
	uint64_t warps = surv - fpk_k; /* one quad per 4-wide warp */
	uint64_t lzs_t = frac(warps, f->lzs_test);
	uint64_t instr_f = scale(warps, f->frag_instr);
	uint64_t instr_c = scale(cwarps, f->compute_instr);
	uint64_t instr = instr_f + instr_c;
	uint64_t tex = scale(warps, f->tex);
	uint64_t tex_issue = scale(tex, f->tex_cpi);
	uint64_t vary = scale(warps, f->varying);
	uint64_t vary16 = frac(vary, f->vary16);
	uint64_t ls_r = scale(cwarps, f->ls_reads);
	uint64_t ls_w = scale(cwarps, f->ls_writes);
	uint64_t atom = scale(cwarps, f->atomics);
	uint64_t ls_r_short = frac(ls_r, f->ls_partial);
	uint64_t ls_w_short = frac(ls_w, f->ls_partial);
	uint64_t trans = frac(tiles, f->trans_elim);

	/* Issue cycles bound the active cycles from below: one instruction,
	 * load/store access, varying slot or texture issue per cycle. */
	uint64_t frag_need = max2(max2(instr_f, vary), tex_issue);
	uint64_t comp_need = max2(instr_c, ls_r + ls_w + atom);
	/* A core with tiles is busy rasterising them even if every quad dies. */
	uint64_t frag_active =
		(frag_need || tiles || quads) ? frag_need + frag_need / 8 + tiles * 4 + quads / 4 : 0;
	uint64_t comp_active = comp_need ? comp_need + comp_need / 10 + 64 : 0;

	b[SC_FRAG_ACTIVE] += frag_active;
	b[SC_FRAG_PRIMITIVES] += prims;
	b[SC_FRAG_PRIM_RAST] += frac(prims, 0.9);
	b[SC_FRAG_FPK_ACTIVE] += frac(frag_active, 0.8);
	b[SC_FRAG_STARVING] += frac(frag_active, 0.02);
	b[SC_FRAG_WARPS] += warps;
	b[SC_FRAG_PARTIAL_WARPS] += frac(warps, f->partial);
	b[SC_QUADS_RAST] += quads;
	b[SC_EZS_TEST] += ezs_t;
	b[SC_EZS_UPDATE] += frac(ezs_t - ezs_k, f->ezs_update);
	b[SC_EZS_KILL] += ezs_k;
	b[SC_LZS_TEST] += lzs_t;
	b[SC_LZS_KILL] += frac(lzs_t, f->lzs_kill);
	b[SC_PTILES] += tiles;
	b[SC_TRANS_ELIM] += trans;
	b[SC_FPK_KILLER] += frac(surv, f->occluder);
	b[SC_COMPUTE_ACTIVE] += comp_active;
	b[SC_COMPUTE_TASKS] += ceil_div(cwarps, 16);
	b[SC_COMPUTE_WARPS] += cwarps;
	b[SC_COMPUTE_STARVING] += frac(comp_active, 0.02);
	b[SC_EXEC_CORE_ACTIVE] += frag_need + comp_need;
	b[SC_EXEC_ACTIVE] += frag_need + comp_need;
	b[SC_INSTR] += instr;
	b[SC_DIVERGED] += frac(instr, f->diverged);
	b[SC_INSTR_STARVING] += frac(frag_need + comp_need, 0.05);
	b[SC_FMA] += frac(instr, 0.55);
	b[SC_DOUBLE] += frac(instr, 0.1);
	b[SC_MSG] += frac(instr, 0.1);
	b[SC_MSG_ONLY] += frac(frac(instr, 0.1), 0.5);
	b[SC_FP_MUL] += frac(instr, 0.3);
	b[SC_TEX] += tex;
	b[SC_TEX_MIP] += frac(tex, f->mip);
	b[SC_TEX_COMP] += frac(tex, f->compressed);
	b[SC_TEX_3D] += frac(tex, f->tex3d);
	b[SC_TEX_TRI] += frac(tex, f->trilinear);
	b[SC_TEX_ISSUE] += tex_issue;
	b[SC_TEX_STALL] += frac(tex_issue, 0.1);
	b[SC_LS_RD_FULL] += ls_r - ls_r_short;
	b[SC_LS_RD_SHORT] += ls_r_short;
	b[SC_LS_WR_FULL] += ls_w - ls_w_short;
	b[SC_LS_WR_SHORT] += ls_w_short;
	b[SC_LS_ATOMIC] += atom;
	b[SC_VARY_INSTR] += ceil_div(vary, 2);
	b[SC_VARY_32] += vary - vary16;
	b[SC_VARY_16] += vary16;
	b[SC_ATTR_INSTR] += cwarps;

	/* 16-byte beats on the core's bus. */
	uint64_t rd_ftc = tiles * 4, rd_lsc = ls_r + atom, rd_tex = tex * 2, rd_other = tiles;
	uint64_t wr_lsc = ls_w + atom, wr_tib = (tiles - trans) * 64, wr_other = tiles / 4;
	b[SC_RD_FTC] += rd_ftc;
	b[SC_RD_FTC_EXT] += frac(rd_ftc, f->l2_miss);
	b[SC_RD_LSC] += rd_lsc;
	b[SC_RD_LSC_EXT] += frac(rd_lsc, f->l2_miss);
	b[SC_RD_TEX] += rd_tex;
	b[SC_RD_TEX_EXT] += frac(rd_tex, f->l2_miss);
	b[SC_RD_OTHER] += rd_other;
	b[SC_WR_LSC] += wr_lsc;
	b[SC_WR_TIB] += wr_tib;
	b[SC_WR_OTHER] += wr_other;

	s->max_frag = max2(s->max_frag, frag_active);
	s->max_compute = max2(s->max_compute, comp_active);
	s->max_core = max2(s->max_core, frag_active + comp_active);
	/* 64-byte L2 lines = 4 beats */
	s->rd_lines += ceil_div(rd_ftc + rd_lsc + rd_tex + rd_other, 4);
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

static void run_l2(const struct vmali_frame *f, const struct vmali_geom *g, uint64_t *b,
                   uint64_t rd, uint64_t wr, uint64_t gpu_active)
{
	uint64_t beats_per_line = g->bus_bytes >= 64 ? 1 : 64 / g->bus_bytes;
	uint64_t ext_r = frac(rd, f->l2_miss), ext_w = frac(wr, f->l2_wr_miss);
	uint64_t rbeats = ext_r * beats_per_line, wbeats = ext_w * beats_per_line;
	uint64_t mmu = frac(rd + wr, 0.01);
	uint64_t bins[5];

	b[L2_MMU_REQUESTS] += mmu;
	b[L2_MMU_TABLE_READS_L2] += frac(mmu, 0.1);
	b[L2_MMU_HIT_L2] += frac(mmu, 0.9);
	b[L2_RD_MSG_IN] += rd;
	b[L2_WR_MSG_IN] += wr;
	b[L2_RD_MSG_OUT] += ext_r;
	b[L2_WR_MSG_OUT] += ext_w;
	b[L2_ANY_LOOKUP] += rd + wr;
	b[L2_READ_LOOKUP] += rd;
	b[L2_WRITE_LOOKUP] += wr;
	b[L2_EXT_READ] += ext_r;
	b[L2_EXT_READ_NOSNP] += ext_r;
	b[L2_EXT_READ_BEATS] += rbeats;
	b[L2_EXT_AR_STALL] += frac(gpu_active, ext_r ? 0.05 : 0);
	b[L2_EXT_AR_Q1] += frac(ext_r, 0.4);
	b[L2_EXT_AR_Q1 + 1] += frac(ext_r, 0.3);
	b[L2_EXT_AR_Q1 + 2] += frac(ext_r, 0.2);
	latency_bins(rbeats, f->latency, bins);
	for (int i = 0; i < 5; i++)
		b[L2_EXT_RRESP_0 + i] += bins[i];
	b[L2_EXT_WRITE] += ext_w;
	b[L2_EXT_WRITE_NOSNP_FULL] += frac(ext_w, 0.9);
	b[L2_EXT_WRITE_NOSNP_PTL] += ext_w - frac(ext_w, 0.9);
	b[L2_EXT_WRITE_BEATS] += wbeats;
	b[L2_EXT_W_STALL] += frac(gpu_active, ext_w ? 0.03 : 0);
	b[L2_EXT_AW_Q1] += frac(ext_w, 0.5);
	b[L2_EXT_AW_Q1 + 1] += frac(ext_w, 0.25);
	b[L2_EXT_AW_Q1 + 2] += frac(ext_w, 0.1);
}

uint64_t vmali_frame_run(const struct vmali_frame *f, const struct vmali_geom *g,
                         uint64_t *blocks)
{
	uint64_t *jm = blocks, *tiler = blocks + VMALI_COUNTERS_PER_BLOCK;
	uint32_t ncores = (uint32_t)__builtin_popcountll(g->core_mask);

	/* Geometry (tiler). */
	uint64_t prims = (uint64_t)f->prims;
	uint64_t lines = frac(prims, f->lines);
	uint64_t points = frac(prims - lines, f->points);
	uint64_t tris = prims - lines - points;
	uint64_t culled = frac(prims, f->culled);
	uint64_t clipped = frac(prims, f->clipped);
	clipped = clipped < prims - culled ? clipped : prims - culled;
	uint64_t sat = frac(prims, f->satcull);
	sat = sat < prims - culled - clipped ? sat : prims - culled - clipped;
	uint64_t visible = prims - culled - clipped - sat;
	uint64_t back = culled < tris ? culled : tris;
	uint64_t pos_req = ceil_div(scale(prims, f->verts_per_prim), 4);
	uint64_t var_req = ceil_div(scale(visible, f->verts_per_prim), 4);
	uint64_t tiler_active = prims ? prims * 2 + pos_req * 4 + 1000 : 0;

	tiler[T_ACTIVE] += tiler_active;
	tiler[T_JOBS] += prims ? 1 : 0;
	tiler[T_TRIANGLES] += tris;
	tiler[T_LINES] += lines;
	tiler[T_POINTS] += points;
	tiler[T_FRONT] += tris - back;
	tiler[T_BACK] += back;
	tiler[T_VISIBLE] += visible;
	tiler[T_CULLED] += culled;
	tiler[T_CLIPPED] += clipped;
	tiler[T_SAT_CULLED] += sat;
	tiler[T_BUS_READ] += prims / 2;
	tiler[T_BUS_WRITE] += visible / 2;
	tiler[T_POS_REQ] += pos_req;
	tiler[T_VAR_REQ] += var_req;
	tiler[T_VCACHE_HIT] += frac(prims * 3, 0.6);
	tiler[T_VCACHE_MISS] += prims * 3 - frac(prims * 3, 0.6);
	tiler[T_PCACHE_HIT] += frac(visible, 0.8);
	tiler[T_PCACHE_MISS] += visible - frac(visible, 0.8);
	tiler[T_UTLB_TRANS] += prims / 8;
	tiler[T_UTLB_HIT] += frac(prims / 8, 0.95);

	/* Fragment and compute work, spread over the present cores. */
	uint64_t w = (uint64_t)f->width, h = (uint64_t)f->height;
	uint64_t tasks = ceil_div(w, 32) * ceil_div(h, 32);
	uint64_t tiles = ceil_div(w, 16) * ceil_div(h, 16);
	uint64_t quads = scale(ceil_div(w, 2) * ceil_div(h, 2), f->overdraw);
	uint64_t cwarps = (uint64_t)f->compute_warps;
	struct core_sums s = { 0 };
	uint32_t k = 0;
	for (uint32_t bit = 0; bit < g->sc_blocks; bit++) {
		if (!(g->core_mask >> bit & 1))
			continue;
		uint64_t *b = blocks + (size_t)(2 + g->l2_slices + bit) * VMALI_COUNTERS_PER_BLOCK;
		run_core(f, b, split(quads, ncores, k), split(tiles, ncores, k),
		         split(visible, ncores, k), split(cwarps, ncores, k), &s);
		k++;
	}
	s.rd_lines += prims / 2;
	s.wr_lines += visible / 2;

	/* Queues and the GPU: a queue is active while any core works on it
	 * (plus dispatch overhead); the GPU while any queue or core is. */
	uint64_t js0 = s.max_frag ? s.max_frag + 500 : 0;
	uint64_t js1 = max2(s.max_compute, tiler_active);
	js1 = js1 ? js1 + 500 : 0;
	uint64_t lo = js0 < js1 ? js0 : js1;
	uint64_t gpu = max2(max2(js0, js1), s.max_core) + scale(lo, f->serial);
	uint64_t cycles = max2(gpu, (uint64_t)llround(f->clock_mhz * 1e6 / f->fps));
	jm[JM_MESSAGES_SENT] += tasks + 4;
	jm[JM_MESSAGES_RECEIVED] += tasks + 4;
	jm[JM_GPU_ACTIVE] += gpu;
	jm[JM_IRQ_ACTIVE] += gpu ? 300 : 0;
	jm[JM_JS0_JOBS] += js0 ? 1 : 0;
	jm[JM_JS0_TASKS] += js0 ? tasks : 0;
	jm[JM_JS0_ACTIVE] += js0;
	jm[JM_JS0_WAIT_READ] += js0 ? 100 : 0;
	jm[JM_JS1_JOBS] += (prims ? 1 : 0) + (cwarps ? 1 : 0);
	jm[JM_JS1_TASKS] += ceil_div(cwarps, 16) + ceil_div(pos_req, 64);
	jm[JM_JS1_ACTIVE] += js1;
	jm[JM_JS1_WAIT_READ] += js1 ? 100 : 0;
	jm[JM_CACHE_FLUSH] += 1;

	for (uint32_t l = 0; l < g->l2_slices; l++)
		run_l2(f, g, blocks + (size_t)(2 + l) * VMALI_COUNTERS_PER_BLOCK,
		       split(s.rd_lines, g->l2_slices, l), split(s.wr_lines, g->l2_slices, l), gpu);
	return cycles;
}
