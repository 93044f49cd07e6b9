/* SPDX-License-Identifier: MIT */
/*
 * session_layout.c — a session laid out for its plan: which slot of a
 * sample's row each raw counter fills (a built-in set's raws as a block in
 * the set's own order, so its generated code reads the row in place), the
 * pairs each pass scatters its counts by, and the recipe each counter is
 * read by (session_state.h).
 */
#include "core/session_state.h"

/* ---- layout and recipes ----------------------------------------------- */

/* A set's block pays when the session needs at least 4/5 of its raw leaves:
 * the other slots of the block are kept (and cost memory) for nothing. */
static bool block_pays(const struct og_native_binding *b, const int8_t *raw_pass)
{
	uint32_t needed = 0;
	for (uint32_t j = 0; j < b->nraw; j++)
		needed += b->at_raw[j] != UINT32_MAX && raw_pass[b->at_raw[j]] >= 0;
	return b->nraw && 5 * needed >= 4 * b->nraw;
}

/* Where an API value goes (lay_out); false without memory. */
static bool add_api_slot(struct og_session *s, uint32_t slot, uint32_t value)
{
	uint32_t *a = realloc(s->api_slot, (s->napi + 1) * sizeof(*a));
	if (a)
		s->api_slot = a;
	uint32_t *v = a ? realloc(s->api_value, (s->napi + 1) * sizeof(*v)) : NULL;
	if (!v)
		return false;
	s->api_value = v;
	s->api_slot[s->napi] = slot;
	s->api_value[s->napi++] = value;
	return true;
}

/* Slots: each planned raw counter gets one (its primary, slot_of_raw), and
 * also every block leaf it is; then each pass's (delta -> slot) pairs. */
static bool lay_out(struct og_session *s, const struct og_catalog *cat, const struct og_plan *plan)
{
	size_t nextra = 0, cap_extra = 0;
	struct { uint32_t raw, slot; } *extra = NULL;
	for (size_t i = 0; i < cat->nnative && s->nblocks < 4; i++) {
		const struct og_native_binding *b = &cat->native[i];
		bool used = false;
		for (size_t k = 0; k < s->ncounters; k++)
			used |= cat->counters[s->counters[k]].native == b;
		if (!used || !block_pays(b, plan->raw_pass))
			continue;
		uint32_t base = (uint32_t)s->nslots;
		s->blocks[s->nblocks++] = (struct block){ b, base };
		s->nslots += b->nraw;
		for (uint32_t j = 0; j < b->nraw; j++) {
			uint32_t r = b->at_raw[j];
			if (r == UINT32_MAX || plan->raw_pass[r] < 0)
				continue;
			if (s->slot_of_raw[r].slot == UINT32_MAX) {
				s->slot_of_raw[r] = (struct raw_slot){ base + j, (uint32_t)plan->raw_pass[r] };
				continue;
			}
			if (nextra == cap_extra) {
				cap_extra = cap_extra ? 2 * cap_extra : 16;
				void *grown = realloc(extra, cap_extra * sizeof(*extra));
				if (!grown) {
					free(extra);
					return false;
				}
				extra = grown;
			}
			extra[nextra].raw = r;
			extra[nextra++].slot = base + j;
		}
	}
	for (size_t r = 0; r < cat->nraw; r++)
		if (plan->raw_pass[r] >= 0 && s->slot_of_raw[r].slot == UINT32_MAX)
			s->slot_of_raw[r] = (struct raw_slot){ (uint32_t)s->nslots++,
			                                       (uint32_t)plan->raw_pass[r] };
	/* The backend's counts arrive as deltas[b] for its b-th raw counter of
	 * the pass; those the application's API measures come as the API's
	 * values (collect()).  A raw counter may fill more than one slot. */
	bool ok = true;
	for (size_t p = 0; ok && p < plan->npasses; p++) {
		const struct og_pass *pp = &plan->passes[p];
		size_t cap = pp->n + nextra + 1;
		s->pass[p].src = malloc(cap * sizeof(uint32_t));
		s->pass[p].dst = malloc(cap * sizeof(uint32_t));
		if (!(ok = s->pass[p].src && s->pass[p].dst))
			break;
		size_t n = 0, b = 0;
		for (size_t i = 0; ok && i < pp->n; i++) {
			uint32_t r = pp->raws[i];
			for (size_t e = 0; ok && e <= nextra; e++) {
				uint32_t slot = e == 0 ? s->slot_of_raw[r].slot : extra[e - 1].slot;
				if (e > 0 && extra[e - 1].raw != r)
					continue;
				if (!cat->raws[r].api) {
					s->pass[p].src[n] = (uint32_t)b;
					s->pass[p].dst[n++] = slot;
				} else {
					ok = add_api_slot(s, slot, cat->raws[r].backend_id);
				}
			}
			b += !cat->raws[r].api;
		}
		s->pass[p].npairs = n;
	}
	free(extra);
	return ok;
}

static bool plan_reads(struct og_session *s, const struct og_catalog *cat)
{
	s->recipes = calloc(s->ncounters + 1, sizeof(*s->recipes));
	s->recipe_of = calloc(cat->ncounters + 1, sizeof(*s->recipe_of));
	s->ncatalog = (uint32_t)cat->ncounters;
	if (!s->recipes || !s->recipe_of)
		return false;
	size_t width = 0;
	for (size_t b = 0; b < s->nblocks; b++)
		if (s->blocks[b].set->ncounters > width)
			width = s->blocks[b].set->ncounters;
	s->set_stride = width;
	s->set_out = calloc(s->nblocks * width + 1, sizeof(*s->set_out));
	if (!s->set_out)
		return false;
	s->direct = s->nblocks == 1 && s->ncounters == s->blocks[0].set->ncounters;
	bool gather = s->nblocks == 1;
	for (size_t k = 0; k < s->ncounters; k++) {
		const struct og_counter *c = &cat->counters[s->counters[k]];
		struct recipe *r = &s->recipes[k];
		s->recipe_of[s->counters[k]] = r;
		r->integer = c->type != GPA_TYPE_FLOAT32 && c->type != GPA_TYPE_FLOAT64;
		r->type = (uint8_t)c->type;
		r->max = c->type == GPA_TYPE_UINT32 ? UINT32_MAX : UINT64_MAX;
		for (size_t i = 0; i < c->ninputs; i++) {
			r->need |= 1ull << s->slot_of_raw[c->inputs[i]].pass;
			r->api |= cat->raws[c->inputs[i]].api;
		}
		s->uses_api |= r->api;
		s->need_all |= r->need;
		r->kind = READ_EXPR;
		for (size_t b = 0; b < s->nblocks; b++)
			if (c->native == s->blocks[b].set) {
				r->kind = READ_NATIVE;
				r->block = (uint32_t)b;
				r->position = c->native_pos;
				r->slot = s->blocks[b].base;
				r->fn = c->native_fn;
				r->k = s->blocks[b].set->k;
			}
		if (!(r->kind == READ_NATIVE && r->block == 0 && r->position == k))
			s->direct = false;
		gather &= r->kind == READ_NATIVE && r->block == 0;
		/* A raw count is read as it is (the set's function copies it too). */
		if (c->exact_raw && (r->integer || r->kind == READ_EXPR)) {
			r->kind = READ_RAW;
			r->slot = s->slot_of_raw[c->raw].slot;
		}
		s->interpreted |= r->kind == READ_EXPR;
	}
	/* (An integer raw count read as READ_RAW is what the set writes too.) */
	if (gather && !s->direct) {
		if (!(s->runs = malloc(s->ncounters * sizeof(*s->runs))))
			return false;
		for (size_t k = 0; k < s->ncounters; k++) {
			struct run *last = s->nruns ? &s->runs[s->nruns - 1] : NULL;
			uint32_t from = s->recipes[k].position;
			if (last && last->from + last->n == from)
				last->n++;
			else
				s->runs[s->nruns++] = (struct run){ from, (uint32_t)k, 1 };
		}
	}
	return true;
}

struct og_session *og_session_create(struct og_context *ctx, const struct og_selection *sel,
                                     const struct og_plan *plan)
{
	const struct og_catalog *cat = &ctx->cat;
	struct og_session *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->highest_pass = -1;
	s->counters = malloc((sel->nenabled + 1) * sizeof(*s->counters));
	s->slot_of_raw = malloc((cat->nraw + 1) * sizeof(*s->slot_of_raw));
	if (!s->counters || !s->slot_of_raw)
		goto oom;
	memcpy(s->counters, sel->enabled, sel->nenabled * sizeof(*s->counters));
	s->ncounters = sel->nenabled;
	for (size_t r = 0; r < cat->nraw; r++)
		s->slot_of_raw[r] = (struct raw_slot){ UINT32_MAX, 0 };

	/* Each pass: the backend's raw counters, in plan order; those the
	 * application's API measures (apictx.h) the backend never sees, and a
	 * multiplexed pass's groups shrink by the ones they held. */
	size_t maxn = 0;
	s->api = ctx->api;
	s->api_pass = -1;
	for (size_t p = 0; p < plan->npasses; p++) {
		const struct og_pass *pp = &plan->passes[p];
		s->pass[p].n = pp->n;
		s->pass[p].backend_ids = malloc((pp->n + 1) * sizeof(uint32_t));
		s->npasses = p + 1;
		if (!s->pass[p].backend_ids)
			goto oom;
		size_t nb = 0;
		for (size_t i = 0; i < pp->n; i++)
			if (!cat->raws[pp->raws[i]].api)
				s->pass[p].backend_ids[nb++] = pp->backend_ids[i];
		s->pass[p].nbackend = nb;
		if (nb < pp->n)
			s->api_pass = (int32_t)p; /* they all fit in the first pass: one pass has them */
		if (pp->ngroups > 1) {
			s->pass[p].group_sizes = malloc(pp->ngroups * sizeof(size_t));
			if (!s->pass[p].group_sizes)
				goto oom;
			size_t at = 0, ng = 0;
			for (size_t g = 0; g < pp->ngroups; g++) {
				size_t kept = 0;
				for (size_t i = at; i < at + pp->group_sizes[g]; i++)
					kept += !cat->raws[pp->raws[i]].api;
				at += pp->group_sizes[g];
				if (kept)
					s->pass[p].group_sizes[ng++] = kept;
			}
			s->pass[p].ngroups = ng;
		}
		if (nb > maxn)
			maxn = nb;
	}
	s->deltas = calloc(maxn + 1, sizeof(*s->deltas));
	if (!s->deltas || !lay_out(s, cat, plan) || !plan_reads(s, cat))
		goto oom;
	s->owner = pthread_self();
	return s;
oom:
	og_session_free(s);
	return NULL;
}


