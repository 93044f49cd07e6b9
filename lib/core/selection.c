/* SPDX-License-Identifier: MIT */
/*
 * selection.c — an enable set: the counters enabled, in enable order, and
 * the pass plan made for them on demand (plan.c), kept until the set or
 * the context's planning changes.  The 2.x context has one; every 3.x/4.x
 * session its own.
 */
#include <stdlib.h>

#include "core/readers.h"
#include "core/session_internal.h"

static void plan_clear(struct og_plan *plan)
{
	for (size_t p = 0; p < plan->npasses; p++) {
		free(plan->passes[p].raws);
		free(plan->passes[p].backend_ids);
		free(plan->passes[p].group_sizes);
		plan->passes[p].group_sizes = NULL;
		plan->passes[p].ngroups = 0;
	}
	plan->npasses = 0;
}

GPA_Status og_selection_init(struct og_selection *sel, const struct og_context *ctx)
{
	*sel = (struct og_selection){ 0 };
	sel->enabled = calloc(ctx->cat.ncounters + 1, sizeof(*sel->enabled));
	sel->is_enabled = calloc(ctx->cat.ncounters + 1, 1);
	sel->plan.raw_pass = malloc(ctx->cat.nraw + 1);
	if (!sel->enabled || !sel->is_enabled || !sel->plan.raw_pass) {
		og_selection_free(sel);
		return GPA_STATUS_ERROR_FAILED;
	}
	return GPA_STATUS_OK;
}

void og_selection_free(struct og_selection *sel)
{
	plan_clear(&sel->plan);
	free(sel->plan.raw_pass);
	free(sel->enabled);
	free(sel->is_enabled);
	*sel = (struct og_selection){ 0 };
}

/* The set changed.  The 2.x context's (ctx->sel: its sessions are read
 * through the readers' caches, which test no enabled flag: readers.h):
 * no cache made before answers again.  A 3.x/4.x session's own set is not
 * read that way, and GpaEnableAllCounters changes it once per counter: no
 * fence and walk of the readers for it. */
static void changed(struct og_selection *sel, bool read_by_2x)
{
	__atomic_store_n(&sel->version, sel->version + 1, __ATOMIC_RELAXED);
	sel->plan_epoch = 0;
	if (read_by_2x)
		og_readers_changed();
}

GPA_Status og_selection_enable(struct og_context *ctx, struct og_selection *sel, uint32_t index)
{
	if (sel->is_enabled[index])
		return og_error(GPA_STATUS_ERROR_ALREADY_ENABLED, "counter %u (%s) is already enabled",
		                index, ctx->cat.counters[index].name);
	__atomic_store_n(&sel->is_enabled[index], 1, __ATOMIC_RELAXED); /* read unlocked */
	sel->enabled[sel->nenabled++] = index;
	changed(sel, sel == &ctx->sel);
	return GPA_STATUS_OK;
}

GPA_Status og_selection_disable(struct og_context *ctx, struct og_selection *sel, uint32_t index)
{
	if (!sel->is_enabled[index])
		return og_error(GPA_STATUS_ERROR_NOT_ENABLED, "counter %u (%s) is not enabled", index,
		                ctx->cat.counters[index].name);
	__atomic_store_n(&sel->is_enabled[index], 0, __ATOMIC_RELAXED);
	size_t j = 0;
	for (size_t i = 0; i < sel->nenabled; i++)
		if (sel->enabled[i] != index)
			sel->enabled[j++] = sel->enabled[i];
	sel->nenabled = j;
	changed(sel, sel == &ctx->sel);
	return GPA_STATUS_OK;
}

void og_selection_clear(struct og_selection *sel, size_t ncounters)
{
	for (size_t i = 0; i < ncounters; i++)
		__atomic_store_n(&sel->is_enabled[i], 0, __ATOMIC_RELAXED);
	sel->nenabled = 0;
	changed(sel, true); /* no context to tell: rare */
}

GPA_Status og_selection_plan(struct og_context *ctx, struct og_selection *sel,
                             const struct og_plan **plan)
{
	if (sel->plan_epoch != ctx->plan_epoch) {
		plan_clear(&sel->plan);
		GPA_Status st = og_plan_build(ctx, sel, &sel->plan);
		if (st != GPA_STATUS_OK) {
			plan_clear(&sel->plan);
			sel->plan_epoch = 0;
			return st;
		}
		sel->plan_epoch = ctx->plan_epoch;
	}
	*plan = &sel->plan;
	return GPA_STATUS_OK;
}
