/* SPDX-License-Identifier: MIT */
/*
 * bench_mali.c — what the Mali path costs per sample (results and the
 * command that produced them go to docs/performance.md):
 *
 *  1. summing one dump into per-counter totals (og_mali_sum_dump, every
 *     counter of every block) vs a plain memcpy of that dump, on an MP8 with
 *     2 L2 slices — target <= 1.5x (issue 29) — for typical counts and for
 *     the worst case (words that could carry out of 32 bits); every copy of
 *     the sum this CPU runs, the dump at two alignments and the copy into
 *     two destinations each round: per-round ratios, the worse alignment
 *     (bench_snapshot says why that is the floor);
 *  2. a whole kbase snapshot (DUMP, poll, GET_BUFFER, sum, PUT_BUFFER) on the
 *     virtual MP8, for scale;
 *  3. evaluating every counter of the built-in mali-g71 set for one sample,
 *     as a context does (generated C, lib/expr/native.h), vs the same
 *     formulas written in C — target <= 3x — and through the interpreter
 *     that user counter files get;
 *  4. one kinstr_prfcnt snapshot (checking the sample's metadata items and
 *     summing every block of every type) on a virtual Mali-G720 with 12
 *     cores vs a memcpy of the same sample bytes — target <= 1.5x — and the
 *     backend's whole end_sample there, for scale;
 *  5. GPA_OpenContext + GPA_CloseContext on that G720 (the built-in set's
 *     catalogue kept from the first open, every raw counter bound again to
 *     check it still applies: catalog/catalog_cache.h) vs opening the device by
 *     hand (open, version check, flags, properties, ENUM_INFO, SETUP, mmap,
 *     close).
 *
 *   bench-mali         every part
 *   bench-mali sum     part 1 alone
 *
 * Past 600 lines: five parts of one question (what a Mali sample costs),
 * sharing the virtual MP8's set-up and the per-round ratio helpers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "GPUPerfAPI.h"
#include "backend.h"
#include "catalog/catalog.h"
#include "catalog/counterfile.h"
#include "catalog/embedded.h"
#include "expr/expr.h"
#include "mali/kinstr_parse.h"
#include "mali/mali_common.h"
#include "mali/mali_sum.h"
#include "mali/mali_uapi.h"
#include "opengpa.h"
#include "g71_by_hand.h"
#if __has_include("vmali.h")
#include <fcntl.h>
#include <sys/mman.h>
#include "core/testing.h"
#include "vmali.h"
#define HAVE_VMALI 1
#endif

extern const struct og_backend_ops og_backend_mali;

/* Wall time: the end-to-end rows, which need the virtual device. */
__attribute__((unused)) static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static volatile uint64_t sink;

static double cpu_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* ---- 1 and 2: snapshots ---- */

/* Best of many short rounds in thread CPU time, memcpy and summing
 * interleaved: another process taking the CPU inflates neither side of the
 * ratio (long wall-clock rounds did, on a loaded 2-CPU VM). */
#define ROUNDS 200
#define PER_ROUND 2000

static double time_memcpy(uint32_t *copy, const uint32_t *dump, size_t bytes)
{
	double t0 = cpu_ns();
	for (int i = 0; i < PER_ROUND; i++) {
		memcpy(copy, dump, bytes);
		__asm__ volatile("" : : "r"(copy) : "memory");
	}
	return (cpu_ns() - t0) / PER_ROUND;
}

static double time_sum(const struct og_mali_layout *layout, const uint32_t *dump, size_t bytes,
                       struct og_mali_totals *t)
{
	double t0 = cpu_ns();
	for (int i = 0; i < PER_ROUND; i++) {
		if (!og_mali_sum_dump(layout, dump, bytes, t))
			abort();
		__asm__ volatile("" : : "r"(t) : "memory");
	}
	return (cpu_ns() - t0) / PER_ROUND;
}

/* What end_sample does after summing: every counter, in pass order. */
static double time_read(const struct og_mali_totals *t, const uint32_t *ids, size_t n,
                        uint64_t *deltas)
{
	double t0 = cpu_ns();
	for (int i = 0; i < PER_ROUND; i++) {
		for (size_t j = 0; j < n; j++)
			deltas[j] = og_mali_total(t, ids[j]);
		__asm__ volatile("" : : "r"(deltas), "r"(t) : "memory");
	}
	return (cpu_ns() - t0) / PER_ROUND;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Median and range of n per-round ratios (sorts them). */
static void print_ratios(const char *what, double *r, int n, const char *target)
{
	qsort(r, (size_t)n, sizeof *r, cmp_double);
	printf("  %-30s %.2fx median, %.2f-%.2fx over rounds%s\n", what, r[n / 2], r[0], r[n - 1],
	       target);
}

/* The floor is a memcpy of the dump, the least that turning a dump into
 * totals can cost: every byte read once and written once (the totals are
 * 2/3 of the dump's size, so the sum writes less).  Both sides, every
 * round, for the dump at two alignments (malloc's 16 bytes, and 64 as the
 * kernel's mmap'ed ring gives), the copy into a malloc'ed and a 64-byte
 * aligned destination: a side's floor is the faster copy of its dump, and
 * the round's figure the worse of the two alignments' ratios (issue 29:
 * the kinder alignment flattered the sum). */
static void bench_snapshot(void)
{
	struct og_mali_gpu gpu = { .product_id = 0x6000, .core_mask = 0xFF, .l2_slices = 2,
	                           .bus_width_bits = 128 };
	struct og_mali_layout layout;
	if (!og_mali_layout_init(&gpu, &layout))
		abort();
	size_t bytes = layout.dump_bytes, padded = (bytes + 63) / 64 * 64;
	/* Typical: every word below 2^24 (a 16 ms frame at 1 GHz is 2^24 cycles),
	 * the 32-bit lanes cannot carry out.  Worst: arbitrary 32-bit words, every
	 * chunk is summed again the exact way. */
	uint32_t *dump[2] = { malloc(bytes), aligned_alloc(64, padded) };
	uint32_t *worst = malloc(bytes), *copy = malloc(bytes), *copy64 = aligned_alloc(64, padded);
	if (!dump[0] || !dump[1] || !worst || !copy || !copy64)
		abort();
	for (size_t i = 0; i < bytes / 4; i++) {
		worst[i] = (uint32_t)(i * 2654435761u);
		dump[0][i] = dump[1][i] = worst[i] >> 8;
	}
	uint32_t all_ids[240];
	uint64_t deltas[240];
	for (uint32_t i = 0; i < 240; i++)
		all_ids[i] = (i / 60) * OG_MALI_MAX_VALUES + 4 + i % 60;
	/* Every copy of the sum this CPU runs, each timed the same way: the
	 * first is the one a context uses. */
	struct og_mali_sum_copy copies[4];
	int ncopies = (int)og_mali_sum_copies(copies, 4);
	struct og_mali_totals t;
	static double ratio[4][ROUNDS], ratio_worst[ROUNDS], ratio_at[2][ROUNDS];
	double mc[2] = { 1e30, 1e30 }, mc_to[2] = { 1e30, 1e30 }, sum[4] = { 1e30, 1e30, 1e30, 1e30 };
	double sum_worst = 1e30, rd = 1e30;
	for (int r = 0; r < ROUNDS; r++) {
		double floor_of[2];
		for (int a = 0; a < 2; a++) {
			double to_malloc = time_memcpy(copy, dump[a], bytes);
			double to_64 = time_memcpy(copy64, dump[a], bytes);
			floor_of[a] = to_malloc < to_64 ? to_malloc : to_64;
			mc[a] = floor_of[a] < mc[a] ? floor_of[a] : mc[a];
			mc_to[0] = to_malloc < mc_to[0] ? to_malloc : mc_to[0];
			mc_to[1] = to_64 < mc_to[1] ? to_64 : mc_to[1];
		}
		for (int c = 0; c < ncopies; c++) {
			layout.sum = copies[c].sum;
			double worse = 0;
			for (int a = 0; a < 2; a++) {
				double b = time_sum(&layout, dump[a], bytes, &t);
				sum[c] = b < sum[c] ? b : sum[c];
				worse = b / floor_of[a] > worse ? b / floor_of[a] : worse;
				if (c == 0)
					ratio_at[a][r] = b / floor_of[a];
			}
			ratio[c][r] = worse;
		}
		layout.sum = copies[0].sum;
		double w = time_sum(&layout, worst, bytes, &t);
		sum_worst = w < sum_worst ? w : sum_worst;
		ratio_worst[r] = w / floor_of[0];
		double d = time_read(&t, all_ids, 240, deltas);
		rd = d < rd ? d : rd;
	}
	sink = deltas[9] + copy[5] + copy64[5];
	printf("dump of %zu bytes (MP8, 2 L2 slices), %d alternating rounds of %d (thread CPU "
	       "time)\n", bytes, ROUNDS, PER_ROUND);
	printf("  memcpy of the dump, best     %8.1f ns   (dump malloc'ed %.1f, 64-byte aligned "
	       "%.1f; into malloc'ed %.1f, 64-byte aligned %.1f)\n",
	       mc[0] < mc[1] ? mc[0] : mc[1], mc[0], mc[1], mc_to[0], mc_to[1]);
	for (int c = 0; c < ncopies; c++) {
		char what[64];
		snprintf(what, sizeof what, "og_mali_sum_dump, %s%s", copies[c].name,
		         c == 0 ? " (used)" : "");
		printf("  %-30s %6.1f ns best\n", what, sum[c]);
		print_ratios("  ratio, worse alignment", ratio[c],
		             ROUNDS, c == 0 ? "   (target <= 1.5x)" : "");
		if (c == 0) { /* which alignment it was */
			print_ratios("    dump malloc'ed", ratio_at[0], ROUNDS, "");
			print_ratios("    dump 64-byte aligned", ratio_at[1], ROUNDS, "");
		}
	}
	printf("  og_mali_sum_dump, worst case %6.1f ns best (32-bit words: exact path)\n",
	       sum_worst);
	print_ratios("  ratio to the malloc'ed dump's", ratio_worst, ROUNDS, "");
	printf("  reading the 240 totals       %6.1f ns   (og_mali_total in pass order)\n", rd);
	free(dump[0]);
	free(dump[1]);
	free(worst);
	free(copy);
	free(copy64);

#ifdef HAVE_VMALI
	struct vmali_config cfg = {.gpu_id = 0x6000, .core_mask = 0xFF, .l2_slices = 2,
	                           .bus_width_bits = 128, .manual_frames = true};
	struct vmali *vm = vmali_create(&cfg);
	struct og_backend_host host = {vmali_sys(vm), NULL, NULL, NULL};
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

#define EXPR_ROUNDS 10
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
	for (int round = 0; round < EXPR_ROUNDS; round++) {
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
	       set->file, cat.ncounters, native, EXPR_ROUNDS, EXPR_PER_ROUND);
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

#ifdef HAVE_VMALI
/* ---- 4 and 5: kinstr_prfcnt on a virtual Mali-G720 MC12 ---- */

static const struct vmali_config g720 = { .gpu_id = 0xc000, .csf = true, .uk_major = 1,
	                                  .uk_minor = 21, .core_mask = 0xFFF, .l2_slices = 4,
	                                  .manual_frames = true };

/* A kinstr_prfcnt client made by hand: what a profiler must do before its
 * first sample.  Returns the reader fd (kfd: the device's), or -1. */
struct by_hand {
	int kfd, fd;
	uint8_t *map;
	uint32_t map_size, item_size;
	struct og_kinstr_enum en;
};

static int open_by_hand(const struct og_sys *s, struct by_hand *h)
{
	h->kfd = s->open(s->ctx, "/dev/mali0", O_RDWR | O_CLOEXEC, 0);
	struct og_kbase_version_check v = { 0, 0 };
	struct og_kbase_set_flags f = { OG_KBASE_CTX_SYSTEM_MONITOR };
	if (h->kfd < 0 || s->ioctl(s->ctx, h->kfd, OG_KBASE_VERSION_CHECK_CSF, &v) < 0 ||
	    s->ioctl(s->ctx, h->kfd, OG_KBASE_SET_FLAGS, &f) < 0)
		return -1;
	struct og_kbase_get_gpuprops q = { 0, 0, 0 };
	int need = s->ioctl(s->ctx, h->kfd, OG_KBASE_GET_GPUPROPS, &q);
	uint8_t props[4096];
	if (need <= 0 || need > (int)sizeof props)
		return -1;
	q.buffer = (uint64_t)(uintptr_t)props;
	q.size = (uint32_t)need;
	if (s->ioctl(s->ctx, h->kfd, OG_KBASE_GET_GPUPROPS, &q) <= 0)
		return -1;
	struct og_kinstr_enum_info e = { 0, 0, 0 };
	struct og_kinstr_enum_item items[32];
	char why[256];
	if (s->ioctl(s->ctx, h->kfd, OG_KBASE_KINSTR_ENUM_INFO, &e) < 0 || e.info_item_count > 32)
		return -1;
	e.info_list_ptr = (uint64_t)(uintptr_t)items;
	if (s->ioctl(s->ctx, h->kfd, OG_KBASE_KINSTR_ENUM_INFO, &e) < 0 ||
	    !og_kinstr_parse_enum(items, e.info_item_count, sizeof items[0], &h->en, why, sizeof why))
		return -1;
	struct og_kinstr_request_item req[OG_KINSTR_MAX_REQUESTS];
	union og_kinstr_setup su;
	memset(&su, 0, sizeof su);
	su.in.request_item_count = (uint32_t)og_kinstr_build_requests(&h->en, 0, 0, req);
	su.in.request_item_size = sizeof req[0];
	su.in.requests_ptr = (uint64_t)(uintptr_t)req;
	h->fd = s->ioctl(s->ctx, h->kfd, OG_KBASE_KINSTR_SETUP, &su);
	if (h->fd < 0)
		return -1;
	h->item_size = su.out.prfcnt_metadata_item_size;
	h->map_size = su.out.prfcnt_mmap_size_bytes;
	h->map = s->mmap(s->ctx, NULL, h->map_size, PROT_READ, MAP_PRIVATE, h->fd, 0);
	return h->map == MAP_FAILED ? -1 : h->fd;
}

static void close_by_hand(const struct og_sys *s, struct by_hand *h)
{
	s->munmap(s->ctx, h->map, h->map_size);
	s->close(s->ctx, h->fd);
	s->close(s->ctx, h->kfd);
}

#define KINSTR_ROUNDS 200
#define KINSTR_PER_ROUND 1000

static void bench_kinstr(void)
{
	struct vmali *vm = vmali_create(&g720);
	const struct og_sys *s = vm ? vmali_sys(vm) : NULL;
	struct by_hand h;
	if (!vm || open_by_hand(s, &h) < 0) {
		printf("kinstr_prfcnt: the virtual Mali-G720 is unavailable\n");
		vmali_destroy(vm);
		return;
	}
	/* One real sample of the virtual device: the bytes both sides read. */
	vmali_run_frames(vm, 3);
	struct og_kinstr_control_cmd c = { OG_KINSTR_CMD_START, { 0 }, 1 };
	struct og_kinstr_sample_access a = { 0, 0 };
	s->ioctl(s->ctx, h.fd, OG_KINSTR_CMD, &c);
	vmali_run_frames(vm, 3);
	c.cmd = OG_KINSTR_CMD_SAMPLE_SYNC;
	s->ioctl(s->ctx, h.fd, OG_KINSTR_CMD, &c);
	s->ioctl(s->ctx, h.fd, OG_KINSTR_GET_SAMPLE, &a);
	struct og_kinstr_layout l;
	char why[320];
	struct og_kinstr_sample smp;
	if (!og_kinstr_layout_init(&l, &h.en, g720.core_mask, h.item_size, h.map_size, why,
	                           sizeof why) ||
	    og_kinstr_parse_sample(&l, h.map, a.sample_offset_bytes, &smp, why, sizeof why) !=
	            OG_KINSTR_OK) {
		printf("kinstr_prfcnt: %s\n", why);
		return;
	}
	/* The sample's bytes: its metadata items, then every block's values.
	 * Thread CPU time, many short rounds alternating the two, the best of
	 * each: a shared machine inflates neither side of the ratio. */
	size_t slot = (size_t)(l.nblocks + 3) * h.item_size;
	for (uint32_t t = 0; t < OG_MALI_BLOCK_TYPES; t++)
		slot += (size_t)h.en.instances[t] * h.en.values[t] * 8u;
	uint8_t *copy = malloc(slot);
	struct og_mali_totals t;
	/* Every copy of the sum this CPU runs, the one a context picks first. */
	struct og_kinstr_sum_copy copies[4];
	size_t ncopies = og_kinstr_sum_copies(copies, 4);
	double mc = 1e30, parse = 1e30, snap[4] = { 1e30, 1e30, 1e30, 1e30 };
	for (int r = 0; r < KINSTR_ROUNDS; r++) {
		double t0 = cpu_ns();
		for (int i = 0; i < KINSTR_PER_ROUND; i++) {
			memcpy(copy, h.map + a.sample_offset_bytes, slot);
			__asm__ volatile("" : : "r"(copy) : "memory");
		}
		double t1 = cpu_ns();
		mc = (t1 - t0) / KINSTR_PER_ROUND < mc ? (t1 - t0) / KINSTR_PER_ROUND : mc;
		for (size_t k = 0; k < ncopies; k++) {
			l.sum = copies[k].sum;
			t0 = cpu_ns();
			for (int i = 0; i < KINSTR_PER_ROUND; i++) {
				og_kinstr_parse_sample(&l, h.map, a.sample_offset_bytes, &smp, why,
				                       sizeof why);
				og_kinstr_sum(&l, h.map, &smp, &t);
				__asm__ volatile("" : : "r"(&t), "r"(&smp) : "memory");
			}
			t1 = cpu_ns();
			snap[k] = (t1 - t0) / KINSTR_PER_ROUND < snap[k] ? (t1 - t0) / KINSTR_PER_ROUND
			                                                   : snap[k];
		}
		t0 = cpu_ns();
		for (int i = 0; i < KINSTR_PER_ROUND; i++) {
			og_kinstr_parse_sample(&l, h.map, a.sample_offset_bytes, &smp, why, sizeof why);
			__asm__ volatile("" : : "r"(&smp) : "memory");
		}
		t1 = cpu_ns();
		parse = (t1 - t0) / KINSTR_PER_ROUND < parse ? (t1 - t0) / KINSTR_PER_ROUND : parse;
	}
	sink = t.v[OG_MALI_SC * OG_MALI_MAX_VALUES + 9] + copy[7];
	printf("kinstr_prfcnt sample of %zu bytes (Mali-G720 MC12, 4 L2 slices, 128 values a "
	       "block: %u metadata items, %u blocks),\nbest of %d alternating rounds of %d "
	       "(thread CPU time)\n", slot, l.nblocks + 3, l.nblocks, KINSTR_ROUNDS,
	       KINSTR_PER_ROUND);
	printf("  memcpy of the sample          %8.1f ns\n", mc);
	for (size_t k = 0; k < ncopies; k++)
		printf("  parse + sum every block       %8.1f ns   %.2fx memcpy%s (%s copy%s)\n",
		       snap[k], snap[k] / mc, k == 0 ? " (target <= 1.5x)" : "", copies[k].name,
		       k == 0 ? ", the one a context picks here" : "");
	printf("    of which the metadata       %8.1f ns\n", parse);
	s->ioctl(s->ctx, h.fd, OG_KINSTR_PUT_SAMPLE, &a);
	free(copy);
	close_by_hand(s, &h);

	/* The backend's end_sample, ioctls and the virtual kernel included. */
	struct og_backend_host host = { s, NULL, NULL, NULL };
	void *st;
	struct og_device_info info;
	if (og_backend_mali.open(&host, "", &st, &info) == GPA_STATUS_OK) {
		uint32_t ids[4 * 124];
		uint64_t d[4 * 124];
		for (uint32_t i = 0; i < 4 * 124; i++)
			ids[i] = (i / 124) * OG_MALI_MAX_VALUES + 4 + i % 124;
		og_backend_mali.begin_pass(st, ids, 4 * 124);
		og_backend_mali.begin_sample(st);
		const int m = 5000;
		double t3 = now_ns();
		for (int i = 0; i < m; i++)
			og_backend_mali.end_sample(st, d);
		double t4 = now_ns();
		printf("  kbase end_sample on vmali     %8.1f ns   (SAMPLE_SYNC+poll+GET+parse+sum+PUT;"
		       " the virtual\n                                           kernel's own "
		       "work included)\n", (t4 - t3) / m);
		og_backend_mali.end_pass(st);
		og_backend_mali.close(st);
	}
	vmali_destroy(vm);
}

#define OPEN_ROUNDS 10
#define OPEN_PER_ROUND 100

static void bench_open_context(void)
{
	struct vmali *vm = vmali_create(&g720);
	if (!vm)
		return;
	const struct og_sys *s = vmali_sys(vm);
	og_testing_reset();
	og_testing_set_sys(s);
	if (GPA_Initialize() != GPA_STATUS_OK || OpenGPA_SetBackend("mali", NULL) != GPA_STATUS_OK) {
		vmali_destroy(vm);
		return;
	}
	static int key;
	double by_hand = 1e30, gpa = 1e30;
	gpa_uint32 counters = 0;
	for (int r = 0; r < OPEN_ROUNDS; r++) {
		double t0 = cpu_ns();
		for (int i = 0; i < OPEN_PER_ROUND; i++) {
			struct by_hand h;
			if (open_by_hand(s, &h) < 0)
				abort();
			close_by_hand(s, &h);
		}
		double t1 = cpu_ns();
		for (int i = 0; i < OPEN_PER_ROUND; i++) {
			if (GPA_OpenContext(&key) != GPA_STATUS_OK)
				abort();
			GPA_GetNumCounters(&counters);
			GPA_CloseContext();
		}
		double t2 = cpu_ns();
		by_hand = (t1 - t0) / OPEN_PER_ROUND < by_hand ? (t1 - t0) / OPEN_PER_ROUND : by_hand;
		gpa = (t2 - t1) / OPEN_PER_ROUND < gpa ? (t2 - t1) / OPEN_PER_ROUND : gpa;
	}
	GPA_Destroy();
	og_testing_set_sys(NULL);
	og_testing_reset();
	vmali_destroy(vm);
	printf("opening the Mali-G720 MC12 (kinstr_prfcnt), best of %d rounds of %d (thread CPU "
	       "time)\n", OPEN_ROUNDS, OPEN_PER_ROUND);
	printf("  by hand (open..mmap, close)   %8.1f us\n", by_hand / 1000);
	printf("  GPA_OpenContext + Close       %8.1f us   %.2fx by hand (%u counters)\n",
	       gpa / 1000, gpa / by_hand, (unsigned)counters);
}
#endif

int main(int argc, char **argv)
{
	bench_snapshot();
	if (argc > 1 && strcmp(argv[1], "sum") == 0)
		return 0; /* part 1 alone */
	bench_expressions();
#ifdef HAVE_VMALI
	bench_kinstr();
	bench_open_context();
#endif
	return 0;
}
