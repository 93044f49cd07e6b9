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
 *  3. evaluating every counter of mali-g71.counters through the expression
 *     engine for one sample vs the same formulas written in C — target <= 3x.
 *
 *   bench-mali [COUNTER_FILE]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend.h"
#include "core/counterfile.h"
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
struct names {
	struct og_cf_file *f;
	struct og_expr **compiled;
	uint32_t *raw_index, *const_index;
};

static bool resolve(void *ud, const char *name, size_t len, struct og_expr_ref *out)
{
	struct names *nm = ud;
	for (size_t i = 0; i < nm->f->count; i++) {
		const struct og_cf_entry *e = &nm->f->entries[i];
		if (strlen(e->name) != len || strncmp(e->name, name, len) != 0)
			continue;
		if (e->kind == OG_CF_RAW)
			*out = (struct og_expr_ref){OG_REF_RAW, nm->raw_index[i], NULL};
		else if (e->kind == OG_CF_CONSTANT)
			*out = (struct og_expr_ref){OG_REF_CONSTANT, nm->const_index[i], NULL};
		else if (nm->compiled[i])
			*out = (struct og_expr_ref){OG_REF_EXPR, 0, nm->compiled[i]};
		else
			return false;
		return true;
	}
	return false;
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

static void bench_expressions(const char *path)
{
	struct og_cf_file f;
	char err[512];
	if (!og_cf_load(path, &f, err, sizeof err)) {
		printf("cannot load %s: %s\n", path, err);
		return;
	}
	struct names nm = {&f, calloc(f.count, sizeof(struct og_expr *)),
	                   calloc(f.count, sizeof(uint32_t)), calloc(f.count, sizeof(uint32_t))};
	/* Raw values live at their dump position (block * 64 + index), the way
	 * a backend delivers them; constants in declaration order. */
	uint64_t raw[4 * 64];
	double k[3] = {8, 2, 128};
	for (int i = 0; i < 256; i++)
		raw[i] = 1000 + (uint64_t)i * 37;
	uint32_t nconst = 0;
	for (size_t i = 0; i < f.count; i++) {
		const struct og_cf_entry *e = &f.entries[i];
		if (e->kind == OG_CF_CONSTANT)
			nm.const_index[i] = nconst++;
		if (e->kind == OG_CF_RAW) {
			const char *why;
			uint32_t id = 0;
			og_mali_parse_source(e->field[OG_F_SOURCE], &id, &why);
			nm.raw_index[i] = id < 256 ? id : 0;
		}
	}
	size_t ncounters = 0;
	for (size_t i = 0; i < f.count; i++) {
		if (f.entries[i].kind != OG_CF_COUNTER)
			continue;
		nm.compiled[i] = og_expr_compile(f.entries[i].field[OG_F_EXPRESSION], resolve, &nm,
		                                 err, sizeof err);
		if (!nm.compiled[i]) {
			printf("%s: %s\n", f.entries[i].name, err);
			return;
		}
		ncounters++;
	}
	double out[128];
	const int n = 200000;
	double acc = 0;
	double t0 = now_ns();
	for (int it = 0; it < n; it++) {
		raw[6] += 1;
		for (size_t i = 0; i < f.count; i++)
			if (nm.compiled[i])
				acc += og_expr_eval(nm.compiled[i], raw, k);
	}
	double t1 = now_ns();
	for (int it = 0; it < n; it++) {
		raw[6] += 1;
		by_hand(raw, k, out);
		__asm__ volatile("" : : "r"(out) : "memory");
		acc += out[0];
	}
	double t2 = now_ns();
	sink = (uint64_t)acc;
	double eng = (t1 - t0) / n, hand = (t2 - t1) / n;
	printf("every counter of %s (%zu counters), one sample\n", path, ncounters);
	printf("  hand-written C               %8.1f ns\n", hand);
	printf("  expression engine            %8.1f ns   %.2fx hand-written (target <= 3x)\n", eng,
	       eng / hand);
	for (size_t i = 0; i < f.count; i++)
		og_expr_free(nm.compiled[i]);
	free(nm.compiled);
	free(nm.raw_index);
	free(nm.const_index);
	og_cf_free(&f);
}

int main(int argc, char **argv)
{
	bench_snapshot();
	bench_expressions(argc > 1 ? argv[1] : OG_MALI_COUNTERS);
	return 0;
}
