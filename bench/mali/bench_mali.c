/* SPDX-License-Identifier: MIT */
/*
 * bench_mali.c — what the Mali path costs per sample (results and the
 * command that produced them go to docs/performance.md):
 *
 *  1. summing one dump into per-counter totals (og_mali_sum_dump, every
 *     counter of every block) vs a plain memcpy of that dump, on an MP8 with
 *     2 L2 slices — target <= 2x — for typical counts and for the worst case
 *     (words that could carry out of 32 bits);
 *  2. a whole kbase snapshot (DUMP, poll, GET_BUFFER, sum, PUT_BUFFER) on the
 *     virtual MP8, for scale;
 *  3. evaluating every counter of the built-in mali-g71 set for one sample,
 *     as a context does (generated C, lib/expr/native.h), vs the same
 *     formulas written in C — target <= 3x — and through the interpreter
 *     that user counter files get.
 *
 *   bench-mali
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend.h"
#include "core/catalog.h"
#include "core/counterfile.h"
#include "core/embedded.h"
#include "expr/expr.h"
#include "mali/mali_common.h"
#include "mali/mali_sum.h"
#if __has_include("vmali.h")
#include "vmali.h"
#define HAVE_VMALI 1
#endif

extern const struct og_backend_ops og_backend_mali;

static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static volatile uint64_t sink;

/* ---- 1 and 2: snapshots ---- */

/* Best of several rounds, memcpy and summing interleaved, so another
 * process taking the CPU for a while inflates neither side of the ratio. */
#define ROUNDS 10
#define PER_ROUND 200000

static double time_memcpy(uint32_t *copy, const uint32_t *dump, size_t bytes)
{
	double t0 = now_ns();
	for (int i = 0; i < PER_ROUND; i++) {
		memcpy(copy, dump, bytes);
		__asm__ volatile("" : : "r"(copy) : "memory");
	}
	return (now_ns() - t0) / PER_ROUND;
}

static double time_sum(const struct og_mali_layout *layout, const uint32_t *dump, size_t bytes,
                       struct og_mali_totals *t)
{
	double t0 = now_ns();
	for (int i = 0; i < PER_ROUND; i++) {
		if (!og_mali_sum_dump(layout, dump, bytes, t))
			abort();
		__asm__ volatile("" : : "r"(t) : "memory");
	}
	return (now_ns() - t0) / PER_ROUND;
}

/* What end_sample does after summing: every counter, in pass order. */
static double time_read(const struct og_mali_totals *t, const uint32_t *ids, size_t n,
                        uint64_t *deltas)
{
	double t0 = now_ns();
	for (int i = 0; i < PER_ROUND; i++) {
		for (size_t j = 0; j < n; j++)
			deltas[j] = og_mali_total(t, ids[j]);
		__asm__ volatile("" : : "r"(deltas), "r"(t) : "memory");
	}
	return (now_ns() - t0) / PER_ROUND;
}

static void bench_snapshot(void)
{
	struct og_mali_gpu gpu = {0x6000, 0, 0xFF, 2, 128, NULL};
	struct og_mali_layout layout;
	if (!og_mali_layout_init(&gpu, &layout))
		abort();
	size_t bytes = layout.dump_bytes;
	/* Typical: every word below 2^24 (a 16 ms frame at 1 GHz is 2^24 cycles),
	 * the 32-bit lanes cannot carry out.  Worst: arbitrary 32-bit words, every
	 * chunk is summed again the exact way. */
	uint32_t *typical = malloc(bytes), *worst = malloc(bytes), *copy = malloc(bytes);
	for (size_t i = 0; i < bytes / 4; i++) {
		worst[i] = (uint32_t)(i * 2654435761u);
		typical[i] = worst[i] >> 8;
	}
	uint32_t all_ids[240];
	uint64_t deltas[240];
	for (uint32_t i = 0; i < 240; i++)
		all_ids[i] = (i / 60) * OG_MALI_MAX_VALUES + 4 + i % 60;
	struct og_mali_totals t;
	double mc = 1e30, sum = 1e30, sum_worst = 1e30, rd = 1e30;
	for (int r = 0; r < ROUNDS; r++) {
		double a = time_memcpy(copy, typical, bytes);
		double b = time_sum(&layout, typical, bytes, &t);
		double c = time_sum(&layout, worst, bytes, &t);
		double d = time_read(&t, all_ids, 240, deltas);
		mc = a < mc ? a : mc;
		sum = b < sum ? b : sum;
		sum_worst = c < sum_worst ? c : sum_worst;
		rd = d < rd ? d : rd;
	}
	sink = deltas[9] + copy[5];
	printf("dump of %zu bytes (MP8, 2 L2 slices), best of %d rounds\n", bytes, ROUNDS);
	printf("  memcpy of the dump           %8.1f ns\n", mc);
	printf("  og_mali_sum_dump, typical    %8.1f ns   %.2fx memcpy (target <= 2x)\n", sum,
	       sum / mc);
	printf("  og_mali_sum_dump, worst case %8.1f ns   %.2fx memcpy (32-bit words: exact path)\n",
	       sum_worst, sum_worst / mc);
	printf("  reading the 240 totals       %8.1f ns   (og_mali_total in pass order)\n", rd);
	free(typical);
	free(worst);
	free(copy);

#ifdef HAVE_VMALI
	struct vmali_config cfg = {.gpu_id = 0x6000, .core_mask = 0xFF, .l2_slices = 2,
	                           .bus_width_bits = 128, .manual_frames = true};
	struct vmali *vm = vmali_create(&cfg);
	struct og_backend_host host = {vmali_sys(vm), NULL, NULL};
	void *st;
	struct og_device_info info;
	if (!vm || og_backend_mali.open(&host, "", &st, &info) != GPA_STATUS_OK) {
		printf("  (virtual device unavailable: no end-to-end figure)\n");
		return;
	}
	uint32_t ids[240];
	for (uint32_t i = 0; i < 240; i++)
		ids[i] = (i / 60) * OG_MALI_MAX_VALUES + 4 + i % 60;
	uint64_t d[240];
	og_backend_mali.begin_pass(st, ids, 240);
	const int m = 20000;
	double t3 = now_ns();
	for (int i = 0; i < m; i++)
		og_backend_mali.end_sample(st, d);
	double t4 = now_ns();
	printf("  kbase end_sample on vmali    %8.1f ns   (DUMP+poll+GET+sum+PUT; the virtual\n"
	       "                                          device's own work included)\n",
	       (t4 - t3) / m);
	og_backend_mali.end_pass(st);
	og_backend_mali.close(st);
	vmali_destroy(vm);
#else
	printf("  (built without the virtual device: no end-to-end figure)\n");
#endif
}

/* ---- 3: expressions ---- */

static double cpu_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* Raw counters bind as the kbase backend binds them (block * 128 + index). */
static GPA_Status bind_dump_position(void *ud, const char *name, const char *source, uint32_t *id,
                                     const char **why_not)
{
	(void)ud;
	(void)name;
	return og_mali_parse_source(source, id, why_not);
}

/* An MP8 with 2 L2 slices and a 128-bit bus, as in part 1. */
static GPA_Status mp8_constant(void *ud, const char *name, double *value)
{
	(void)ud;
	*value = strstr(name, "ShaderCore") ? 8 : strstr(name, "L2Slice") ? 2 : 128;
	return GPA_STATUS_OK;
}

static double dv(double a, double b)
{
	return b == 0 ? 0 : a / b;
}

static double pct(double r)
{
	double p = r * 100;
	return p > 100 ? 100 : p < 0 ? 0 : p;
}

/* The guide's formulas in C over raw[block*64 + index]. */
static void by_hand(const uint64_t *raw, const double *k, double *out)
{
#define J(i) ((double)raw[0 * 64 + (i)])
#define T(i) ((double)raw[1 * 64 + (i)])
#define L(i) ((double)raw[2 * 64 + (i)])
#define S(i) ((double)raw[3 * 64 + (i)])
	double ga = J(6), cores = k[0], slices = k[1], bus = k[2];
	double culled = T(12) + T(13) + T(14), total = culled + T(11), px = J(9) * 1024;
	double qr = S(11), ec = S(26), ls = S(44) + S(45) + S(46) + S(47) + S(48);
	int n = 0;
	out[n++] = ga; out[n++] = J(18); out[n++] = J(10); out[n++] = T(4); out[n++] = J(7);
	out[n++] = pct(dv(J(18), ga)); out[n++] = pct(dv(J(10), ga)); out[n++] = pct(dv(T(4), ga));
	out[n++] = L(32) * (bus / 8); out[n++] = L(47) * (bus / 8);
	out[n++] = pct(dv(dv(L(33), slices), ga)); out[n++] = pct(dv(dv(L(48), slices), ga));
	for (int i = 37; i <= 41; i++)
		out[n++] = L(i);
	out[n++] = L(32) - L(37) - L(38) - L(39) - L(40) - L(41);
	out[n++] = total; out[n++] = culled; out[n++] = T(11);
	out[n++] = pct(dv(T(11), total)); out[n++] = pct(dv(T(12), total));
	out[n++] = pct(dv(T(13), total - T(12))); out[n++] = pct(dv(T(14), total - T(12) - T(13)));
	out[n++] = T(21) * 4; out[n++] = T(37) * 4; out[n++] = dv(T(21) * 4, total);
	out[n++] = dv(T(37) * 4, T(11));
	out[n++] = px; out[n++] = dv(ga, px); out[n++] = dv(S(9) * 4, px);
	out[n++] = pct(dv(S(12), qr)); out[n++] = pct(dv(S(13), qr)); out[n++] = pct(dv(S(14), qr));
	out[n++] = pct(dv(qr - S(14) - S(9), qr)); out[n++] = pct(dv(S(15), qr));
	out[n++] = pct(dv(S(16), qr));
	out[n++] = S(24); out[n++] = S(9); out[n++] = dv(S(22), S(24) * 4); out[n++] = dv(S(4), S(9) * 4);
	out[n++] = pct(dv(dv(S(22), cores), ga)); out[n++] = pct(dv(dv(S(4), cores), ga));
	out[n++] = pct(dv(S(7), S(4))); out[n++] = pct(dv(dv(S(26), cores), ga));
	out[n++] = pct(dv(S(28), ec)); out[n++] = pct(dv(S(50) + S(51), ec));
	out[n++] = pct(dv(S(40), ec)); out[n++] = pct(dv(ls, ec));
	out[n++] = pct(dv(S(29), S(28))); out[n++] = pct(dv(S(10), S(9))); out[n++] = pct(dv(S(19), S(18)));
	out[n++] = S(50) + S(51); out[n++] = S(51); out[n++] = S(50);
	out[n++] = S(40); out[n++] = dv(S(40), S(35));
	for (int i = 37; i >= 36; i--)
		out[n++] = pct(dv(S(i), S(35)));
	out[n++] = pct(dv(S(38), S(35))); out[n++] = pct(dv(S(39), S(35)));
	out[n++] = dv(S(58) * 16, S(40)); out[n++] = dv(S(59) * 16, S(40));
	out[n++] = ls;
	for (int i = 44; i <= 48; i++)
		out[n++] = S(i);
	out[n++] = dv(S(56) * 16, S(44) + S(45)); out[n++] = dv(S(57) * 16, S(44) + S(45));
	out[n++] = dv(S(61) * 16, S(46) + S(47));
	for (int i = 54; i <= 59; i++)
		out[n++] = S(i) * 16;
	out[n++] = S(61) * 16; out[n++] = S(62) * 16;
	out[n++] = cores; out[n++] = slices; out[n++] = bus / 8;
#undef J
#undef T
#undef L
#undef S
}

#define EXPR_PER_ROUND 20000

static void bench_expressions(void)
{
	const struct og_embedded_set *set = NULL;
	for (size_t i = 0; i < og_embedded_set_count; i++)
		if (strcmp(og_embedded_sets[i].name, "mali-g71") == 0)
			set = &og_embedded_sets[i];
	struct og_cf_file *file = calloc(1, sizeof(*file));
	char err[512];
	if (!set || !file || !og_cf_parse(set->file, set->text, file, err, sizeof err)) {
		printf("mali-g71 counters are not built in\n");
		free(file);
		return;
	}
	/* The catalogue a kbase context builds: what GPA_GetSampleResult runs. */
	struct og_binder binder = { .bind_raw = bind_dump_position, .constant = mp8_constant };
	struct og_catalog cat;
	if (og_catalog_build(&cat, file, 1, 1, &binder, NULL, 0, false, err, sizeof err) !=
	    GPA_STATUS_OK) {
		printf("mali-g71: %s\n", err);
		return;
	}
	/* The same sample twice: at dump positions for the C, in catalogue
	 * order for the library.  GPU_ACTIVE changes every sample so that
	 * nothing is computed once outside the loop. */
	uint64_t dump[4 * 64], *raw = calloc(cat.nraw + 1, sizeof(*raw));
	for (int i = 0; i < 256; i++)
		dump[i] = 1000 + (uint64_t)i * 37;
	size_t active = 0, native = 0;
	for (size_t i = 0; i < cat.nraw; i++) {
		uint32_t id = cat.raws[i].backend_id;
		raw[i] = dump[(id / OG_MALI_MAX_VALUES) * 64 + id % OG_MALI_MAX_VALUES];
		if (cat.raws[i].backend_id == 6)
			active = i;
	}
	for (size_t c = 0; c < cat.ncounters; c++)
		native += cat.counters[c].native != NULL;
	double *set_out = calloc(cat.nnative ? cat.native[0].ncounters + 1 : 1, sizeof(double));
	if (cat.nnative != 1 || native != cat.ncounters)
		printf("mali-g71: expected one generated set covering every counter; the library "
		       "figure below is not the whole set\n");

	double out[128], acc = 0;
	double best[3] = { 1e300, 1e300, 1e300 };
	for (int round = 0; round < ROUNDS; round++) {
		double t0 = cpu_ns();
		for (int it = 0; it < EXPR_PER_ROUND; it++) {
			dump[6]++;
			by_hand(dump, cat.const_values, out);
			__asm__ volatile("" : : "r"(out) : "memory");
			acc += out[0];
		}
		double t1 = cpu_ns();
		for (int it = 0; it < EXPR_PER_ROUND; it++) {
			raw[active]++;
			for (size_t n = 0; n < cat.nnative; n++)
				og_native_run(&cat.native[n], raw, cat.const_values, set_out);
			__asm__ volatile("" : : "r"(set_out) : "memory");
			acc += set_out[0];
		}
		double t2 = cpu_ns();
		for (int it = 0; it < EXPR_PER_ROUND; it++) {
			raw[active]++;
			for (size_t c = 0; c < cat.ncounters; c++)
				acc += og_expr_eval(cat.counters[c].expr, raw, cat.const_values);
		}
		double t3 = cpu_ns();
		double ns[3] = { t1 - t0, t2 - t1, t3 - t2 };
		for (int v = 0; v < 3; v++)
			if (ns[v] / EXPR_PER_ROUND < best[v])
				best[v] = ns[v] / EXPR_PER_ROUND;
	}
	sink = (uint64_t)acc;
	printf("every counter of %s (%zu counters, %zu with generated code), one sample,\n"
	       "best of %d alternating rounds of %d (thread CPU time)\n",
	       set->file, cat.ncounters, native, ROUNDS, EXPR_PER_ROUND);
	printf("  hand-written C               %8.1f ns\n", best[0]);
	printf("  library (generated set)      %8.1f ns   %.2fx hand-written (target <= 3x)\n",
	       best[1], best[1] / best[0]);
	printf("  interpreter (user files)     %8.1f ns   %.2fx hand-written\n", best[2],
	       best[2] / best[0]);
	free(raw);
	free(set_out);
	og_catalog_free(&cat);
}

int main(void)
{
	bench_snapshot();
	bench_expressions();
	return 0;
}
