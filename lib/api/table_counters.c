/* SPDX-License-Identifier: MIT */
/*
 * table_counters.c — which counters a GPA 3.x/4.x session counts (table.h):
 * enabling and disabling by index and name, the pass count, enabled indices.
 */
#include "api/table.h"

/* Counters are fixed once the session is begun: what it counted stays what
 * its results describe. */
static int counters_fixed(const char *fn, const struct og_xsession *x)
{
	if (x->s)
		return ot_error(OT_CANNOT_CHANGE_COUNTERS_WHEN_SAMPLING,
		                "%s: the session was begun; change its counters before "
		                "GpaBeginSession (or measure others in a new session)", fn);
	return OT_OK;
}

int ot_enable(const char *fn, struct og_xsession *x, uint32_t index, bool enable)
{
	int st = counters_fixed(fn, x);
	if (st == OT_OK)
		st = ot_index(fn, x->ctx, index);
	if (st != OT_OK)
		return st;
	index = ot_view_cat(x->ctx, index);
	return ot_from_core(enable ? og_selection_enable(x->ctx, &x->sel, index)
	                           : og_selection_disable(x->ctx, &x->sel, index));
}

int ot_enable_by_name(const char *fn, struct og_xsession *x, const char *name, bool enable)
{
	int st = counters_fixed(fn, x);
	if (st != OT_OK)
		return st;
	if (!name)
		return ot_null(fn, "the counter name");
	uint32_t index;
	if (!og_catalog_find(&x->ctx->cat, name, &index))
		return ot_error(OT_COUNTER_NOT_FOUND, "%s: no counter is named '%s' on this device",
		                fn, name);
	return ot_from_core(enable ? og_selection_enable(x->ctx, &x->sel, index)
	                           : og_selection_disable(x->ctx, &x->sel, index));
}

int ot_enable_all(const char *fn, struct og_xsession *x, bool enable)
{
	int st = counters_fixed(fn, x);
	if (st != OT_OK)
		return st;
	og_selection_clear(&x->sel, x->ctx->cat.ncounters);
	for (uint32_t i = 0; enable && i < x->ctx->cat.ncounters; i++)
		og_selection_enable(x->ctx, &x->sel, i);
	return OT_OK;
}

int ot_pass_count(struct og_xsession *x, uint32_t *passes)
{
	if (x->s) {
		*passes = (uint32_t)og_session_npasses(x->s);
		return OT_OK;
	}
	const struct og_plan *plan;
	GPA_Status st = og_selection_plan(x->ctx, &x->sel, &plan);
	if (st == GPA_STATUS_OK)
		*passes = (uint32_t)plan->npasses;
	return ot_from_core(st);
}

int ot_is_counter_enabled(const char *fn, struct og_xsession *x, uint32_t index)
{
	if (index < x->ctx->cat.ncounters && x->sel.is_enabled[ot_view_cat(x->ctx, index)])
		return OT_OK;
	/* The answer "no", not a failure. */
	og_log(OG_LOG_MESSAGE, "%s: counter %u is not enabled in this session", fn, index);
	return OT_COUNTER_NOT_FOUND;
}

int ot_enabled_index(const char *fn, struct og_xsession *x, uint32_t n, uint32_t *index)
{
	if (n >= x->sel.nenabled)
		return ot_error(OT_INDEX_OUT_OF_RANGE, "%s: %u is out of range; %zu counters are "
		                                       "enabled", fn, n, x->sel.nenabled);
	*index = ot_view_index(x->ctx, x->sel.enabled[n]);
	return OT_OK;
}

const uint32_t *ot_session_counters(const struct og_xsession *x, size_t *n)
{
	*n = x->sel.nenabled;
	return x->sel.enabled;
}
