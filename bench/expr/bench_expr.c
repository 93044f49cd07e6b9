/* SPDX-License-Identifier: MIT */
/*
 * bench_expr.c — where the expression engine's time goes (results and the
 * command go to docs/performance.md).
 *
 * bench-mali compares the engine, called once per counter, with formulas
 * inlined into one C function, so its ratio also holds the price of one call
 * per counter.  Here the shapes of mali-g71's counters are timed three ways
 * in alternating rounds of one run:
 *
 *   inlined  every formula in one C function (bench-mali's "hand-written");
 *   called   the same formulas, one out-of-line C function each, called once
 *            per counter the way the core calls og_expr_eval;
 *   engine   og_expr_eval on the compiled expressions.
 *
 * engine / called is the engine's own overhead; called / inlined is what
 * calling once per counter costs whatever evaluates it.
 *
 *   bench-expr [ITERATIONS_PER_ROUND]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "expr/expr.h"

#define ROUNDS 15
/* Out of line and opaque to the optimiser, as og_expr_eval is to its
 * callers: GCC would otherwise specialise each function for its one caller. */
#if defined(__GNUC__) && !defined(__clang__)
#define NOINLINE __attribute__((noipa))
#else
#define NOINLINE __attribute__((noinline))
#endif

/* One of each shape mali-g71.counters uses, named after a counter there. */
static const char *const formulas[] = {
	"a",                                                   /* GPUActiveCycles */
	"a * 16",                                              /* LoadStoreWriteBytes */
	"max(min((a / b) * 100, 100), 0)",                     /* TilerUtilization */
	"max(min((a / K / b) * 100, 100), 0)",                 /* FragmentUtilization */
	"(a * 4) / (b * 1024)",                                /* FragmentsPerPixel */
	"a + b + c + d + e",                                   /* LoadStoreTotalIssues */
	"max(min(((a + b + c + d + e) / f) * 100, 100), 0)",   /* LoadStoreUnitUtilization */
	"a - b - c - d",                                       /* OutputExternalReadLatency384Plus */
};
#define NFORMULAS (sizeof(formulas) / sizeof(formulas[0]))

static double dv(double a, double b)
{
	return b == 0 ? 0 : a / b;
}

static double pct(double r)
{
	double p = r * 100;
	return p > 100 ? 100 : p < 0 ? 0 : p;
}

#define A ((double)r[0])
#define B ((double)r[1])
#define C ((double)r[2])
#define D ((double)r[3])
#define E ((double)r[4])
#define F ((double)r[5])

static inline void inlined(const uint64_t *r, const double *k, double *out)
{
	out[0] = A;
	out[1] = A * 16;
	out[2] = pct(dv(A, B));
	out[3] = pct(dv(dv(A, k[0]), B));
	out[4] = dv(A * 4, B * 1024);
	out[5] = A + B + C + D + E;
	out[6] = pct(dv(A + B + C + D + E, F));
	out[7] = A - B - C - D;
}

static NOINLINE double f0(const uint64_t *r, const double *k) { (void)k; return A; }
static NOINLINE double f1(const uint64_t *r, const double *k) { (void)k; return A * 16; }
static NOINLINE double f2(const uint64_t *r, const double *k) { (void)k; return pct(dv(A, B)); }
static NOINLINE double f3(const uint64_t *r, const double *k) { return pct(dv(dv(A, k[0]), B)); }
static NOINLINE double f4(const uint64_t *r, const double *k) { (void)k; return dv(A * 4, B * 1024); }
static NOINLINE double f5(const uint64_t *r, const double *k) { (void)k; return A + B + C + D + E; }
static NOINLINE double f6(const uint64_t *r, const double *k)
{
	(void)k;
	return pct(dv(A + B + C + D + E, F));
}
static NOINLINE double f7(const uint64_t *r, const double *k) { (void)k; return A - B - C - D; }

static void called(const uint64_t *r, const double *k, double *out)
{
	out[0] = f0(r, k);
	out[1] = f1(r, k);
	out[2] = f2(r, k);
	out[3] = f3(r, k);
	out[4] = f4(r, k);
	out[5] = f5(r, k);
	out[6] = f6(r, k);
	out[7] = f7(r, k);
}

static bool resolve(void *ud, const char *name, size_t len, struct og_expr_ref *out)
{
	(void)ud;
	if (len != 1)
		return false;
	if (name[0] == 'K')
		*out = (struct og_expr_ref){ .kind = OG_REF_CONSTANT, .index = 0 };
	else if (name[0] >= 'a' && name[0] <= 'f')
		*out = (struct og_expr_ref){ .kind = OG_REF_RAW, .index = (uint32_t)(name[0] - 'a') };
	else
		return false;
	return true;
}

/* CPU time of this thread: the machines that build opengpa are shared, and
 * a round during which the thread was preempted should not count. */
static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100000;
	if (n <= 0) {
		fprintf(stderr, "usage: bench-expr [ITERATIONS_PER_ROUND > 0]\n");
		return 2;
	}
	struct og_expr *compiled[NFORMULAS];
	for (size_t i = 0; i < NFORMULAS; i++) {
		char err[128];
		compiled[i] = og_expr_compile(formulas[i], resolve, NULL, err, sizeof(err));
		if (!compiled[i]) {
			fprintf(stderr, "bench-expr: '%s': %s\n", formulas[i], err);
			return 1;
		}
	}
	uint64_t raw[6] = { 5000, 4000, 300, 200, 100, 9000 };
	double k[1] = { 8 }, out[NFORMULAS];
	double best[3] = { 1e300, 1e300, 1e300 }, vs_inlined[ROUNDS], vs_called[ROUNDS];
	for (int round = 0; round < ROUNDS; round++) {
		double t[4];
		t[0] = now_ns();
		for (int it = 0; it < n; it++) {
			raw[0]++;
			inlined(raw, k, out);
			__asm__ volatile("" : : "r"(out) : "memory");
		}
		t[1] = now_ns();
		for (int it = 0; it < n; it++) {
			raw[0]++;
			called(raw, k, out);
			__asm__ volatile("" : : "r"(out) : "memory");
		}
		t[2] = now_ns();
		for (int it = 0; it < n; it++) {
			raw[0]++;
			for (size_t i = 0; i < NFORMULAS; i++)
				out[i] = og_expr_eval(compiled[i], raw, k);
			__asm__ volatile("" : : "r"(out) : "memory");
		}
		t[3] = now_ns();
		double ns[3];
		for (int v = 0; v < 3; v++) {
			ns[v] = (t[v + 1] - t[v]) / n;
			if (ns[v] < best[v])
				best[v] = ns[v];
		}
		vs_inlined[round] = ns[2] / ns[0];
		vs_called[round] = ns[2] / ns[1];
	}
	qsort(vs_inlined, ROUNDS, sizeof(double), by_value);
	qsort(vs_called, ROUNDS, sizeof(double), by_value);
	printf("%zu formulas (the shapes of mali-g71's counters), best of %d alternating rounds of %d\n",
	       NFORMULAS, ROUNDS, n);
	printf("  inlined C                    %8.1f ns\n", best[0]);
	printf("  called C, one call each      %8.1f ns   %.2fx inlined\n", best[1], best[1] / best[0]);
	printf("  expression engine            %8.1f ns   %.2fx inlined, %.2fx called\n", best[2],
	       best[2] / best[0], best[2] / best[1]);
	printf("  engine per round: %.2f-%.2fx inlined (median %.2f), %.2f-%.2fx called (median %.2f)\n",
	       vs_inlined[0], vs_inlined[ROUNDS - 1], vs_inlined[ROUNDS / 2], vs_called[0],
	       vs_called[ROUNDS - 1], vs_called[ROUNDS / 2]);
	for (size_t i = 0; i < NFORMULAS; i++)
		og_expr_free(compiled[i]);
	return 0;
}
