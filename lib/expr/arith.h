/* SPDX-License-Identifier: MIT */
/*
 * arith.h — the arithmetic policy of docs/counter-files.md as inline
 * functions.  Constant folding, the interpreter (expr.c) and the C generated
 * for built-in counters (native_gen.c) all compute through these, so no path
 * can give a counter a different value than another.
 */
#ifndef OPENGPA_EXPR_ARITH_H
#define OPENGPA_EXPR_ARITH_H

#include <math.h>

/* x / 0 is 0: an idle device makes most ratios 0/0. */
static inline double og_arith_div(double x, double y)
{
	return y == 0.0 ? 0.0 : x / y;
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

/* A result that is not finite is 0. */
static inline double og_arith_result(double x)
{
	return isfinite(x) ? x : 0.0;
}

#endif
