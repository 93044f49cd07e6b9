/* SPDX-License-Identifier: MIT */
/*
 * plan.c — the pass planner.
 *
 * GPA's promise is that every enabled counter is computed from one run of
 * the workload per pass, with no silent multiplexing.  The planner walks the
 * enabled counters in enable order and puts each counter's raw inputs into
 * the first pass that can take all of them (the backend's fits() decides),
 * so a derived counter's inputs are counted together whenever the hardware
 * allows it.  Only inputs that cannot be counted together at all are split
 * over passes; results still combine, because sample IDs are matched
 * across passes.
 */
#include <stdlib.h>
#include <string.h>

#include "core/registry.h"
#include "core/session_internal.h"

struct planner {
	struct og_context *ctx;
	struct og_plan *plan;
	uint32_t *candidate; /* backend ids of a pass plus the newcomers */
	size_t cap;          /* capacity of every pass array */
};

/* Raw counters the application's API measures (apictx.h) take no room on
 * the device: they fit in any pass, and the backend never sees them. */
static bool fits_with(struct planner *pl, const struct og_pass *pass, const uint32_t *raws, size_t n)
{
	const struct og_catalog *cat = &pl->ctx->cat;
	size_t k = 0;
	if (pass)
		for (size_t i = 0; i < pass->n; i++)
			if (!cat->raws[pass->raws[i]].api)
				pl->candidate[k++] = pass->backend_ids[i];
	size_t before = k;
	for (size_t i = 0; i < n; i++)
		if (!cat->raws[raws[i]].api)
			pl->candidate[k++] = cat->raws[raws[i]].backend_id;
	return k == before || pl->ctx->ops->fits(pl->ctx->state, pl->candidate, k);
}

static void add_to_pass(struct planner *pl, size_t p, const uint32_t *raws, size_t n)
{
	struct og_pass *pass = &pl->plan->passes[p];
	for (size_t i = 0; i < n; i++) {
		pass->raws[pass->n] = raws[i];
		pass->backend_ids[pass->n] = pl->ctx->cat.raws[raws[i]].backend_id;
		pass->n++;
		pl->plan->raw_pass[raws[i]] = (int8_t)p;
	}
}

static GPA_Status new_pass(struct planner *pl, size_t *p)
{
	struct og_plan *plan = pl->plan;
	if (plan->npasses == OG_MAX_PASSES)
		return og_error(GPA_STATUS_ERROR_FAILED,
		                "the enabled counters need more than %d passes on this device; enable "
		                "fewer counters per session", OG_MAX_PASSES);
	struct og_pass *pass = &plan->passes[plan->npasses];
	pass->raws = malloc(pl->cap * sizeof(*pass->raws));
	pass->backend_ids = malloc(pl->cap * sizeof(*pass->backend_ids));
	pass->n = 0;
	plan->npasses++; /* counted even on failure so plan_clear frees it */
	if (!pass->raws || !pass->backend_ids)
		return og_error(GPA_STATUS_ERROR_FAILED, "out of memory planning passes");
	*p = plan->npasses - 1;
	return GPA_STATUS_OK;
}

/* Puts raws[0..n) into one pass: an existing one if it fits, else a new one. */
static GPA_Status place_together(struct planner *pl, const uint32_t *raws, size_t n, bool *placed)
{
	for (size_t p = 0; p < pl->plan->npasses; p++)
		if (fits_with(pl, &pl->plan->passes[p], raws, n)) {
			add_to_pass(pl, p, raws, n);
			*placed = true;
			return GPA_STATUS_OK;
		}
	*placed = false;
	if (!fits_with(pl, NULL, raws, n))
		return GPA_STATUS_OK;
	size_t p = 0;
	GPA_Status st = new_pass(pl, &p);
	if (st == GPA_STATUS_OK) {
		add_to_pass(pl, p, raws, n);
		*placed = true;
	}
	return st;
}

/* Multiplexing: the passes become the groups of one pass, which the kernel
 * time-shares.  Each group is still one the backend's fits() accepted, so a
 * derived counter's inputs stay in one group and their ratios stay exact. */
static GPA_Status merge_into_one_pass(struct og_plan *plan, size_t nraw)
{
	if (plan->npasses < 2)
		return GPA_STATUS_OK;
	size_t total = 0;
	for (size_t p = 0; p < plan->npasses; p++)
		total += plan->passes[p].n;
	struct og_pass merged = { .n = 0, .ngroups = plan->npasses };
	merged.raws = malloc((total + 1) * sizeof(*merged.raws));
	merged.backend_ids = malloc((total + 1) * sizeof(*merged.backend_ids));
	merged.group_sizes = malloc(plan->npasses * sizeof(*merged.group_sizes));
	if (!merged.raws || !merged.backend_ids || !merged.group_sizes) {
		free(merged.raws);
		free(merged.backend_ids);
		free(merged.group_sizes);
		return og_error(GPA_STATUS_ERROR_FAILED, "out of memory planning passes");
	}
	for (size_t p = 0; p < plan->npasses; p++) {
		struct og_pass *pass = &plan->passes[p];
		memcpy(merged.raws + merged.n, pass->raws, pass->n * sizeof(*merged.raws));
		memcpy(merged.backend_ids + merged.n, pass->backend_ids,
		       pass->n * sizeof(*merged.backend_ids));
		merged.group_sizes[p] = pass->n;
		merged.n += pass->n;
		free(pass->raws);
		free(pass->backend_ids);
		free(pass->group_sizes);
		*pass = (struct og_pass){ 0 };
	}
	plan->passes[0] = merged;
	plan->npasses = 1;
	for (size_t r = 0; r < nraw; r++)
		if (plan->raw_pass[r] >= 0)
			plan->raw_pass[r] = 0;
	return GPA_STATUS_OK;
}

GPA_Status og_plan_build(struct og_context *ctx, const struct og_selection *sel,
                         struct og_plan *plan)
{
	const struct og_catalog *cat = &ctx->cat;
	memset(plan->raw_pass, -1, cat->nraw + 1);
	plan->npasses = 0;
	struct planner pl = { .ctx = ctx, .plan = plan, .cap = cat->nraw + 1 };
	pl.candidate = malloc(2 * pl.cap * sizeof(*pl.candidate));
	uint32_t *fresh = malloc(pl.cap * sizeof(*fresh));
	GPA_Status st = GPA_STATUS_OK;
	if (!pl.candidate || !fresh)
		st = og_error(GPA_STATUS_ERROR_FAILED, "out of memory planning passes");

	for (size_t e = 0; st == GPA_STATUS_OK && e < sel->nenabled; e++) {
		const struct og_counter *c = &cat->counters[sel->enabled[e]];
		size_t n = 0;
		for (size_t i = 0; i < c->ninputs; i++)
			if (plan->raw_pass[c->inputs[i]] < 0)
				fresh[n++] = c->inputs[i];
		if (n == 0)
			continue;
		bool placed;
		st = place_together(&pl, fresh, n, &placed);
		/* The inputs cannot be counted together: one by one, first fit. */
		for (size_t i = 0; st == GPA_STATUS_OK && !placed && i < n; i++) {
			bool one;
			st = place_together(&pl, &fresh[i], 1, &one);
			if (st == GPA_STATUS_OK && !one)
				st = og_error(GPA_STATUS_ERROR_FAILED,
				              "the %s backend cannot count raw counter %s in any pass; "
				              "disable counter %s", ctx->ops->name, cat->raws[fresh[i]].name,
				              c->name);
		}
	}
	free(pl.candidate);
	free(fresh);
	if (st == GPA_STATUS_OK && ctx->multiplex)
		st = merge_into_one_pass(plan, cat->nraw);
	return st;
}
