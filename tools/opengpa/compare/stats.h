/* SPDX-License-Identifier: MIT */
/*
 * stats.h — the statistics of `opengpa compare`: Student's t distribution
 * and Welch's unequal-variances t-test from each side's mean, standard
 * error of the mean and number of runs (what `opengpa stat -r N
 * --opengpa-json` records).  Pure functions of doubles: no allocation, no
 * state; the tests hold them to SciPy (tests/tools/test_compare.py).
 */
#ifndef OPENGPA_TOOLS_COMPARE_STATS_H
#define OPENGPA_TOOLS_COMPARE_STATS_H

#include <stdbool.h>

/* The regularised incomplete beta function I_x(a, b), for a, b > 0 and x
 * in [0, 1]; NaN outside. */
double stats_incbeta(double x, double a, double b);

/* P(|T| >= |t|) for T of Student's t distribution with df > 0 degrees of
 * freedom (df may be fractional, as Welch's is). */
double stats_t_two_sided_p(double t, double df);

/* The q with P(|T| >= q) = alpha, for 0 < alpha < 1: the half-width of a
 * (1 - alpha) confidence interval is q standard errors. */
double stats_t_quantile_two_sided(double alpha, double df);

/* One side of a comparison: the mean over n runs and its standard error
 * (the sample standard deviation over sqrt(n)). */
struct stats_side {
	double mean, se;
	unsigned n;
};

struct stats_welch {
	bool tested;    /* false: a side has fewer than 2 runs, so no spread to test against */
	double diff;    /* b.mean - a.mean */
	double se;      /* the difference's standard error */
	double t, df;   /* Welch's t and its Welch-Satterthwaite degrees of freedom */
	double p;       /* two-sided; 1 when both spreads are 0 and the means equal, 0 when they differ */
	double lo, hi;  /* the difference's confidence interval (diff when untested) */
};

/* Welch's t-test of b against a at confidence 1 - alpha. */
void stats_welch(const struct stats_side *a, const struct stats_side *b, double alpha,
                 struct stats_welch *out);

#endif
