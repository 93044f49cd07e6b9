/* SPDX-License-Identifier: MIT */
/*
 * arith.h — the arithmetic policy of docs/counter-files.md as inline
 * functions.  Constant folding, the interpreter (expr_eval.c) and the C generated
 * for built-in counters (native_gen.c) all compute through these, so no path
 * can give a counter a different value than another.
 */
#ifndef OPENGPA_EXPR_ARITH_H
#define OPENGPA_EXPR_ARITH_H

#include <math.h>
#include <stdint.h>
#include <string.h>

/* x / 0 is 0: an idle device makes most ratios 0/0. */
static inline double og_arith_div(double x, double y)
{
	return y == 0.0 ? 0.0 : x / y;
}

/* The same for a y known to be neither NaN nor below 0 (the generated code
 * proves it: a count, a sum or product of counts): then y > 0 is y != 0
 * (-0 is neither), one comparison where y == 0 also tests for NaN. */
static inline double og_arith_div_count(double x, double y)
{
	return y > 0.0 ? x / y : 0.0;
}

/* fmin()/fmax() as C99 defines them (a NaN operand is ignored; for zeros of
 * both signs the first operand wins, as glibc does), written out because
 * compilers call libm for them. */
static inline double og_arith_min(double x, double y)
{
	return (y < x || isnan(x)) ? y : x;
}

static inline double og_arith_max(double x, double y)
{
	return (y > x || isnan(x)) ? y : x;
}

/* The same, for an x known not to be NaN (the generated code proves it). */
static inline double og_arith_min_num(double x, double y)
{
	return y < x ? y : x;
}

static inline double og_arith_max_num(double x, double y)
{
	return y > x ? y : x;
}

/* A result that is not finite is 0. */
static inline double og_arith_result(double x)
{
	return isfinite(x) ? x : 0.0;
}

/* An integer counter's value: rounded, never negative, never past max (the
 * integer type's largest), and 0 for NaN. */
static inline uint64_t og_arith_to_u64(double v, uint64_t max)
{
	/* Counts are far below 2^62: one conversion, no branch on its way.  A
	 * double in [+0, 2^62) is one whose bits, as an unsigned integer, are
	 * below 2^62's (a negative one has the top bit set; NaNs and
	 * infinities lie above): one integer comparison for the two. */
	uint64_t bits;
	memcpy(&bits, &v, sizeof(bits));
	if (__builtin_expect(bits < UINT64_C(0x43D0000000000000), 1)) {
		uint64_t r = (uint64_t)(int64_t)(v + 0.5);
		return r > max ? max : r;
	}
	if (!(v > 0.0))
		return 0;
	if (v >= (double)max)
		return max;
	uint64_t r = (uint64_t)(v + 0.5);
	return r > max ? max : r;
}

/* og_arith_to_u64 of a whole number below 2^52 in magnitude, computed in
 * integers (the generated code's integer_text): 0 when negative. */
static inline uint64_t og_arith_int_to_u64(int64_t v, uint64_t max)
{
	uint64_t r = v < 0 ? 0 : (uint64_t)v;
	return r > max ? max : r;
}

/* A raw count as an integer counter of a narrower type gives it. */
static inline uint64_t og_arith_clamp_u64(uint64_t v, uint64_t max)
{
	return v > max ? max : v;
}

#endif
