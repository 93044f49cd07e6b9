/* SPDX-License-Identifier: MIT */
/*
 * table_view.c — the catalogue as GPA 3.x/4.x number and describe it
 * (table.h): GPUTime first, in nanoseconds, with GPA's own UUID.
 *
 * GPA 2.x documents GPUTime in milliseconds and the shared catalogue keeps
 * that (counters/gpa-timing.counters); GPA 3.x and 4.x define it as the
 * first public counter, Float64 nanoseconds, UUID
 * cbd338f2-de6c-7b14-92ad-ba724ca2e501 in every API's table
 * (../shared/reference/gpa-vulkan.md §5).  So the 3.x/4.x front end shows
 * the catalogue through a view: the counter named GPUTime whose catalogue
 * usage is milliseconds moves to index 0 (the counters before it move up
 * one, those after keep their index), its usage reads nanoseconds, its
 * values are multiplied by 10^6 here.  A context without such a counter
 * (a plain context) is shown as the catalogue is.
 */
#include <float.h>
#include <math.h>
#include <string.h>

#include "api/table.h"

void ot_view_open(struct og_context *ctx)
{
	ctx->table_gputime = UINT32_MAX;
	for (size_t i = 0; i < ctx->cat.ncounters; i++) {
		const struct og_counter *c = &ctx->cat.counters[i];
		if (strcmp(c->name, "GPUTime") == 0 && c->usage == GPA_USAGE_TYPE_MILLISECONDS) {
			ctx->table_gputime = (uint32_t)i;
			return;
		}
	}
}

uint32_t ot_view_cat(const struct og_context *ctx, uint32_t index)
{
	uint32_t g = ctx->table_gputime;
	if (g == UINT32_MAX || index > g)
		return index;
	return index == 0 ? g : index - 1;
}

uint32_t ot_view_index(const struct og_context *ctx, uint32_t cat)
{
	uint32_t g = ctx->table_gputime;
	if (g == UINT32_MAX || cat > g)
		return cat;
	return cat == g ? 0 : cat + 1;
}

bool ot_view_is_gputime(const struct og_context *ctx, uint32_t cat)
{
	return cat == ctx->table_gputime;
}

/* nearbyint() in the default rounding mode, without libm: it was the one
 * function the library took from libm.so, and loading libm cost a process
 * that loads the library as much as the rest of the load (issue 29,
 * docs/performance.md).  Adding and taking away 2^52 leaves the nearest
 * integer, ties to even, for |x| < 2^52; larger doubles are integers. */
static double round_to_integer(double x)
{
#if FLT_EVAL_METHOD == 0
	const double two52 = 4503599627370496.0;
	double a = __builtin_fabs(x);
	if (!(a < two52))
		return x; /* an integer already, an infinity or a NaN */
	return __builtin_copysign((a + two52) - two52, x);
#else
	return nearbyint(x); /* excess precision would keep the fraction */
#endif
}

void ot_view_values(const struct og_xsession *x, union og_value *values)
{
	uint32_t g = x->ctx->table_gputime;
	if (g == UINT32_MAX)
		return;
	for (size_t k = 0; k < x->sel.nenabled; k++) {
		if (x->sel.enabled[k] != g)
			continue;
		/* The raw time is whole nanoseconds: what the division into
		 * milliseconds left of it is rounded back to the integer. */
		double ns = values[k].d * 1e6, whole = round_to_integer(ns);
		values[k].d = fabs(ns - whole) <= fabs(ns) * 8 * DBL_EPSILON ? whole : ns;
	}
}
