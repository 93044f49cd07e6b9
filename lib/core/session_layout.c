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
 * the other slots of the block are kept (and cost memory) for nothing.
 * Below that the row keeps only the leaves the session needs, compact, and
 * the set is gathered (struct block): a read copies the leaves it needs
 * into a scratch block and runs the generated code over that, so the
 * memory a sample costs never depends on how much of a set is enabled, and
 * the copy (one load and store a leaf) is what a partial set pays. */
static bool block_pays(const struct og_native_binding *b, const int8_t *raw_pass)
{
	uint32_t needed = 0;
	for (uint32_t j = 0; j < b->nraw; j++)
		needed += b->at_raw[j] != UINT32_MAX && raw_pass[b->at_raw[j]] >= 0;
	return b->nraw && 5 * needed >= 4 * b->nraw;
}

/* The parts of set b that hold the session's counters (native.h), into
 * parts[]; *used: how many of its counters the session reads.  Returns
 * the parts' reach: the leaves they read are below it. */
static uint32_t session_parts(const struct og_session *s, const struct og_catalog *cat,
                              const struct og_native_binding *b, uint64_t *parts, size_t *used)
{
	uint32_t reach = 0;
	memset(parts, 0, OG_NATIVE_PART_WORDS * sizeof(*parts));
	*used = 0;
	for (size_t k = 0; k < s->ncounters; k++) {
		const struct og_counter *c = &cat->counters[s->counters[k]];
		if (c->native != b)
			continue;
		++*used;
		uint32_t p = b->part_size ? og_native_part_of(b->ncounters, b->part_size, c->native_pos)
		                          : OG_NATIVE_MAX_PARTS;
		if (p >= OG_NATIVE_MAX_PARTS || !b->part_reach) {
			reach = b->nraw; /* cannot happen: native-gen makes at most that many */
			continue;
		}
		parts[p / 64] |= UINT64_C(1) << (p % 64);
		if (b->part_reach[p] > reach)
			reach = b->part_reach[p];
	}
	return reach < b->nraw ? reach : b->nraw;
}

/* The first `reach` leaves of a set kept in place pay by the same rule as
 * its whole block: the session needs at least 4/5 of them.  The parts that
 * hold its counters then run on the row as it is, with no copy and no
 * scratch; a session of the first counters of a set needs every one
 * (leaves are numbered as the set's counters first read them), bench-api
 * part 2's 88 the 59 of 59. */
static bool window_pays(const struct og_native_binding *b, const int8_t *raw_pass, uint32_t reach)
{
	uint32_t needed = 0;
	for (uint32_t j = 0; j < reach; j++)
		needed += b->at_raw[j] != UINT32_MAX && raw_pass[b->at_raw[j]] >= 0;
	return b->parts && reach && 5 * needed >= 4 * reach;
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
		if (!used)
			continue;
		struct block bl = { .set = b, .base = (uint32_t)s->nslots, .reach = b->nraw };
		if (!block_pays(b, plan->raw_pass)) {
			size_t n;
			bl.reach = session_parts(s, cat, b, bl.parts, &n);
			bl.partial = window_pays(b, plan->raw_pass, bl.reach);
			bl.gathered = !bl.partial;
			if (bl.gathered && b->nraw <= GATHER_MAX_LEAVES)
				s->blocks[s->nblocks++] = bl;
			if (bl.gathered)
				continue;
		}
		uint32_t base = bl.base;
		s->blocks[s->nblocks++] = bl;
		s->nslots += bl.reach;
		for (uint32_t j = 0; j < bl.reach; j++) {
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

/* The leaves of gathered block `b` the session has: every one, or (with c)
 * those c's function reads, which are the leaves its raw inputs stand for
 * (og_native_matches checked it).  Written to out when not NULL; returns
 * how many, or UINT32_MAX when one of c's is not in the row. */
static uint32_t block_leaves(const struct og_session *s, const struct block *b,
                             const struct og_counter *c, struct leaf_pair *out)
{
	uint32_t n = 0;
	for (uint32_t j = 0; j < b->set->nraw; j++) {
		uint32_t raw = b->set->at_raw[j];
		bool wanted = raw != UINT32_MAX;
		if (wanted && c) {
			wanted = false;
			for (size_t i = 0; i < c->ninputs; i++)
				wanted |= c->inputs[i] == raw;
		}
		if (!wanted)
			continue;
		if (s->slot_of_raw[raw].slot == UINT32_MAX) {
			if (c)
				return UINT32_MAX;
			continue;
		}
		if (out)
			out[n] = (struct leaf_pair){ s->slot_of_raw[raw].slot, j };
		n++;
	}
	return n;
}

/* The pairs gathered blocks and their counters copy (s->pairs): counted,
 * then written, so that the recipes can point into one array. */
static bool plan_gathers(struct og_session *s, const struct og_catalog *cat)
{
	size_t total = 0;
	for (int write = 0; write < 2; write++) {
		size_t at = 0;
		for (size_t b = 0; b < s->nblocks; b++) {
			struct block *bl = &s->blocks[b];
			if (!bl->gathered)
				continue;
			uint32_t n = block_leaves(s, bl, NULL, write ? &s->pairs[at] : NULL);
			if (write) {
				bl->leaves = &s->pairs[at];
				bl->nleaves = n;
			}
			at += n;
			for (size_t k = 0; k < s->ncounters; k++) {
				const struct og_counter *c = &cat->counters[s->counters[k]];
				struct recipe *r = &s->recipes[k];
				if (c->native != bl->set || r->kind != READ_GATHER)
					continue;
				n = block_leaves(s, bl, c, write ? &s->pairs[at] : NULL);
				if (n == UINT32_MAX) /* cannot happen: an enabled counter's raws are planned */
					continue;
				if (write) {
					r->leaves = &s->pairs[at];
					r->nleaves = n;
				}
				at += n;
			}
		}
		if (!write) {
			total = at;
			if (!total)
				return true;
			if (!(s->pairs = malloc(total * sizeof(*s->pairs))))
				return false;
			s->npairs = total;
		}
	}
	return true;
}

/* A batch read of a gathered block's counters: one call of each counter's
 * own function, or the set's function for the parts of the set that hold
 * them (native.h, og_native_parts_fn) over the whole scratch block (its
 * absent leaves zero) and the outputs wanted copied out.  The set's
 * function inlines every counter and shares their loads and common
 * subexpressions; a counter's own function is an indirect call, its
 * arguments and its loads on their own.  Measured on x86-64 (release build,
 * the G71 set of 321 counters): the set's function 96 ns, 0.3 ns a counter
 * computed; each counter's function called from the read loop 3.4 ns.  So
 * running parts pays once about one counter in 11 of those they compute is
 * wanted; one in 8 leaves room for CPUs whose indirect calls are cheaper.
 * Memory is the same either way (the scratch is on the reader's stack). */
static bool block_runs_parts(const struct og_native_binding *set, size_t used,
                             const uint64_t *parts)
{
	uint64_t computed = 0;
	for (int w = 0; w < OG_NATIVE_PART_WORDS; w++)
		computed += (uint64_t)__builtin_popcountll(parts[w]) * set->part_size; /* about */
	if (computed > set->ncounters)
		computed = set->ncounters;
	return set->parts && 8 * (uint64_t)used >= computed;
}

/* A partial or gathered block run by parts (the session's only block, its
 * answer copied out in runs): the parts whose every position p is the
 * session's counter p write the answer themselves, and the runs keep only
 * what the other parts write.  bench-api part 2's 88 counters are
 * positions 0-83 and 317-320 of their set: 21 parts in place, and the
 * last (316-320) left to plan_tail, whose tail 317-320 are answers 84-87. */
static void plan_in_place(struct og_session *s, struct block *bl)
{
	uint32_t size = bl->set->part_size, n = bl->set->ncounters;
	uint32_t count = size ? og_native_part_count(n, size) : 0;
	bool any = false;
	for (uint32_t p = 0; p < count && p < OG_NATIVE_MAX_PARTS; p++) {
		if (!(bl->parts[p / 64] >> (p % 64) & 1))
			continue;
		bool mine = true;
		uint32_t end = p + 1 == count ? n : (p + 1) * size;
		for (uint32_t q = p * size; mine && q < end; q++)
			mine = q < s->ncounters && s->recipes[q].position == q;
		if (!mine)
			continue;
		bl->out_parts[p / 64] |= UINT64_C(1) << (p % 64);
		bl->parts[p / 64] &= ~(UINT64_C(1) << (p % 64));
		any = true;
	}
	bl->in_place = any;
	bl->rest = false;
	for (int w = 0; w < OG_NATIVE_PART_WORDS; w++)
		bl->rest |= bl->parts[w] != 0;
}

/* After plan_in_place: when the one part left to run through the block's
 * outputs is the set's last, and the session's counters in it are the
 * set's tail (native.h) and nothing else, each the answer one after the
 * one before, the tail function writes them into the answer (bench-api
 * part 2's cycle budget, answers 84-87): no second call of the parts, no
 * runs to copy. */
static void plan_tail(struct og_session *s, struct block *bl)
{
	const struct og_native_binding *set = bl->set;
	uint32_t n = set->ncounters, size = set->part_size;
	if (!bl->rest || !set->tail || !size || !set->tail_size)
		return;
	uint32_t last = og_native_part_count(n, size) - 1;
	for (uint32_t w = 0; w < OG_NATIVE_PART_WORDS; w++)
		if (bl->parts[w] != (w == last / 64 ? UINT64_C(1) << (last % 64) : 0))
			return;
	uint32_t first = n - set->tail_size, found = 0, at = 0;
	for (size_t k = 0; k < s->ncounters; k++) {
		uint32_t pos = s->recipes[k].position;
		if (og_native_part_of(n, size, pos) != last)
			continue;
		if (pos < first)
			return; /* a counter of the part outside the tail */
		if (pos == first)
			at = (uint32_t)k;
		found++;
	}
	if (found != set->tail_size || at + set->tail_size > s->ncounters)
		return;
	for (uint32_t j = 0; j < set->tail_size; j++)
		if (s->recipes[at + j].position != first + j)
			return;
	bl->parts[last / 64] = 0;
	bl->rest = false;
	bl->tail = true;
	bl->tail_at = at;
}

static bool plan_reads(struct og_session *s, const struct og_catalog *cat)
{
	s->recipes = calloc(s->ncounters + 1, sizeof(*s->recipes));
	s->recipe_of = calloc(cat->ncounters + 1, sizeof(*s->recipe_of));
	s->ncatalog = (uint32_t)cat->ncounters;
	if (!s->recipes || !s->recipe_of)
		return false;
	for (size_t c = 0; c <= cat->ncounters; c++)
		s->recipe_of[c] = og_recipe_none(s);
	size_t width = 0;
	for (size_t b = 0; b < s->nblocks; b++) {
		struct block *bl = &s->blocks[b];
		size_t used = 0;
		if (bl->gathered)
			bl->reach = session_parts(s, cat, bl->set, bl->parts, &used);
		bl->whole = bl->gathered && block_runs_parts(bl->set, used, bl->parts);
	}
	for (size_t b = 0; b < s->nblocks; b++)
		if ((!s->blocks[b].gathered || s->blocks[b].whole) &&
		    s->blocks[b].set->ncounters > width)
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
				r->kind = s->blocks[b].gathered ? READ_GATHER : READ_NATIVE;
				r->block = (uint32_t)b;
				r->position = c->native_pos;
				r->slot = s->blocks[b].base; /* 0 when gathered: the row's start */
				r->fn = c->native_fn;
				r->k = s->blocks[b].set->k;
			}
		if (!(r->kind == READ_NATIVE && r->block == 0 && r->position == k))
			s->direct = false;
		gather &= (r->kind == READ_NATIVE || (r->kind == READ_GATHER && s->blocks[0].whole)) &&
		          r->block == 0;
		/* A raw count is read as it is (the set's function copies it too). */
		if (c->exact_raw && (r->integer || r->kind == READ_EXPR)) {
			r->kind = READ_RAW;
			r->slot = s->slot_of_raw[c->raw].slot;
		}
		s->interpreted |= r->kind == READ_EXPR;
	}
	if (!plan_gathers(s, cat))
		return false;
	/* A counter whose leaves the row lacks (none should) is interpreted. */
	for (size_t k = 0; k < s->ncounters; k++) {
		struct recipe *r = &s->recipes[k];
		if (r->kind == READ_GATHER && !r->leaves) {
			r->kind = READ_EXPR;
			s->interpreted = true;
		}
		s->gathers |= r->kind == READ_GATHER;
	}
	og_session_plan_single(s, cat);
	/* (An integer raw count read as READ_RAW is what the set writes too.) */
	if (gather && !s->direct) {
		struct block *bl = &s->blocks[0];
		if (bl->partial || bl->whole) {
			plan_in_place(s, bl);
			plan_tail(s, bl);
		}
		s->one_partial = bl->partial;
		if (!(s->runs = malloc(s->ncounters * sizeof(*s->runs) + 1)))
			return false;
		for (size_t k = 0; k < s->ncounters; k++) {
			struct run *last = s->nruns ? &s->runs[s->nruns - 1] : NULL;
			uint32_t from = s->recipes[k].position;
			uint32_t p = bl->in_place ? og_native_part_of(bl->set->ncounters,
			                                              bl->set->part_size, from)
			                          : OG_NATIVE_MAX_PARTS;
			if (p < OG_NATIVE_MAX_PARTS && bl->out_parts[p / 64] >> (p % 64) & 1)
				continue; /* written in place */
			if (bl->tail && k >= bl->tail_at && k < bl->tail_at + bl->set->tail_size)
				continue; /* written by the tail */
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
	s->frame_fd = ctx->frame_fd;
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


