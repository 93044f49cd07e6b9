/* SPDX-License-Identifier: MIT */
/* stats.c — Student's t distribution and Welch's t-test (stats.h). */
#include "stats.h"

#include <float.h>
#include <math.h>

/* The continued fraction of I_x(a, b) (its even and odd terms), evaluated by
 * the modified Lentz method; converges fast for x < (a + 1) / (a + b + 2). */
static double incbeta_fraction(double x, double a, double b)
{
	const double tiny = 1e-300;
	double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0);
	if (fabs(d) < tiny)
		d = tiny;
	d = 1.0 / d;
	double f = d;
	for (int m = 1; m <= 1000; m++) {
		double m2 = 2.0 * m;
		/* even step: m (b - m) x / ((a + 2m - 1)(a + 2m)) */
		double num = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
		d = 1.0 + num * d;
		c = 1.0 + num / c;
		if (fabs(d) < tiny)
			d = tiny;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1.0 / d;
		f *= d * c;
		/* odd step: -(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1)) */
		num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
		d = 1.0 + num * d;
		c = 1.0 + num / c;
		if (fabs(d) < tiny)
			d = tiny;
		if (fabs(c) < tiny)
			c = tiny;
		d = 1.0 / d;
		double step = d * c;
		f *= step;
		if (fabs(step - 1.0) < 4.0 * DBL_EPSILON)
			break;
	}
	return f;
}

double stats_incbeta(double x, double a, double b)
{
	if (!(a > 0.0 && b > 0.0 && x >= 0.0 && x <= 1.0))
		return NAN;
	if (x == 0.0 || x == 1.0)
		return x;
	/* x^a (1-x)^b / (a B(a, b)), in logarithms so large a, b do not overflow. */
	double front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1.0) / (a + b + 2.0))
		return front * incbeta_fraction(x, a, b) / a;
	/* The symmetry I_x(a, b) = 1 - I_{1-x}(b, a) keeps the fraction where it converges. */
	return 1.0 - front * incbeta_fraction(1.0 - x, b, a) / b;
}

double stats_t_two_sided_p(double t, double df)
{
	if (!(df > 0.0) || isnan(t))
		return NAN;
	if (isinf(t))
		return 0.0;
	/* P(|T| >= |t|) = I_{df / (df + t^2)}(df / 2, 1 / 2) */
	return stats_incbeta(df / (df + t * t), 0.5 * df, 0.5);
}

double stats_t_quantile_two_sided(double alpha, double df)
{
	if (!(alpha > 0.0 && alpha < 1.0 && df > 0.0))
		return NAN;
	/* p falls as q grows: bracket, then bisect to the last bit. */
	double lo = 0.0, hi = 1.0;
	while (stats_t_two_sided_p(hi, df) > alpha && hi < 1e300)
		hi *= 2.0;
	for (int i = 0; i < 200 && hi - lo > 1e-15 * hi; i++) {
		double mid = 0.5 * (lo + hi);
		if (stats_t_two_sided_p(mid, df) > alpha)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

void stats_welch(const struct stats_side *a, const struct stats_side *b, double alpha,
                 struct stats_welch *out)
{
	out->diff = b->mean - a->mean;
	out->lo = out->hi = out->diff;
	out->t = out->df = out->se = out->p = NAN;
	out->tested = a->n >= 2 && b->n >= 2;
	if (!out->tested)
		return;
	double va = a->se * a->se, vb = b->se * b->se;
	out->se = sqrt(va + vb);
	if (out->se == 0.0) {
		/* Every run of both sides gave the same value: any difference is certain. */
		out->p = out->diff == 0.0 ? 1.0 : 0.0;
		out->t = out->diff == 0.0 ? 0.0 : copysign(INFINITY, out->diff);
		out->df = (double)(a->n + b->n - 2);
		return;
	}
	out->t = out->diff / out->se;
	out->df = (va + vb) * (va + vb) / (va * va / (a->n - 1) + vb * vb / (b->n - 1));
	out->p = stats_t_two_sided_p(out->t, out->df);
	double q = stats_t_quantile_two_sided(alpha, out->df);
	out->lo = out->diff - q * out->se;
	out->hi = out->diff + q * out->se;
}
