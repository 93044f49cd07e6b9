/* SPDX-License-Identifier: MIT */
/*
 * vmali_workload.c — the frame script (the model that turns a frame into
 * counter values is vmali_model.c).
 *
 * Script: one frame per line (';' also ends a line), '#' starts a comment:
 *     frame key=value key=value ...
 * Every key has a default (the table below); fractions are in [0, 1].
 *   count          times this line repeats before the next (whole, >= 1)
 *   prims          primitives entering the tiler; lines, points: fractions
 *   culled, clipped, satcull, scissor  fractions of the input culled by the
 *                  facing/XY, Z-plane, sample and scissor tests (sum <= 1); the
 *                  rest are visible
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
 *   rays           ray-tracing rays per frame (GPUs with a ray tracing unit)
 *   prepass        share of fragment work in the hidden-surface pre-pass
 *   latency        mean external read latency in cycles (sets the bins)
 *   fps, clock_mhz GPU cycles per frame = clock / fps (at least GPU active)
 *   serial         share of the shorter queue that does not overlap
 *   imbalance      how unevenly fragment, compute and ray work spreads over the
 *                  shader cores: the present cores, ranked from the lowest
 *                  bit of the core mask (k = 0 .. n-1), get weights
 *                  1 + imbalance * k / (n - 1); 0 (the default) is even
 *   slice_imbalance the same for the L2 slices' read and write traffic
 *                  (slice k of n: 1 + slice_imbalance * k / (n - 1))
 *                  Each share is whole; the shares add up to the frame's total.
 * The script loops: after the last line the first runs again.
 *
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmali_internal.h"

const char vmali_default_workload[] =
	"# A game-like 1080p scene with some ray-traced shadows, a UI overlay and a\n"
	"# compute-heavy post pass.\n"
	"frame count=2 scissor=0.02 rays=20000\n"
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
	K(satcull, 0.05, 1),      K(scissor, 0, 1),          K(verts_per_prim, 1.2, 16),
	K(width, 1920, 16384),
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
	K(rays, 0, 1e8),          K(prepass, 0.1, 0.5),      K(fps, 60, 1e4),
	K(clock_mhz, 850, 1e4),   K(serial, 0.2, 1),         K(imbalance, 0, 16),
	K(slice_imbalance, 0, 16),
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
	if (f->culled + f->clipped + f->satcull + f->scissor > 1.0 + 1e-9) {
		snprintf(err, err_len, "workload line %u: culled + clipped + satcull + scissor exceed 1",
		         line);
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
