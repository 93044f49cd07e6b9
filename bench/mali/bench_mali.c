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
#include "g71_by_hand.h"
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
	struct og_mali_gpu gpu = {0x6000, 0, 0xFF, 2, 128};
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
		all_ids[i] = (i / 60) * 64 + 4 + i % 60;
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
		ids[i] = (i / 60) * 64 + 4 + i % 60;
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

/* Raw counters bind to their dump position (block * 64 + index), as the
 * kbase backend binds them. */
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
		raw[i] = dump[cat.raws[i].backend_id % 256];
		if (cat.raws[i].backend_id == 6)
			active = i;
	}
	for (size_t c = 0; c < cat.ncounters; c++)
		native += cat.counters[c].native != NULL;
	union og_value *set_out = calloc(cat.nnative ? cat.native[0].ncounters + 1 : 1,
	                                 sizeof(*set_out));
	/* The generated code reads the set's raw leaves in its own order, as a
	 * session's row keeps them. */
	uint64_t *leaf = calloc(cat.nnative ? cat.native[0].nraw + 1 : 1, sizeof(*leaf));
	size_t active_leaf = 0;
	for (uint32_t j = 0; cat.nnative && j < cat.native[0].nraw; j++) {
		uint32_t r = cat.native[0].at_raw[j];
		leaf[j] = r == UINT32_MAX ? 0 : raw[r];
		if (r == active)
			active_leaf = j;
	}
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
			leaf[active_leaf]++;
			if (cat.nnative)
				og_native_run(&cat.native[0], leaf, set_out);
			__asm__ volatile("" : : "r"(set_out) : "memory");
			acc += set_out[0].d;
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
	free(leaf);
	free(set_out);
	og_catalog_free(&cat);
}

int main(void)
{
	bench_snapshot();
	bench_expressions();
	return 0;
}
