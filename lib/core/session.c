/* SPDX-License-Identifier: MIT */
/*
 * session.c — sessions, passes and samples, and the ring of finished
 * sessions whose results stay readable.
 *
 * A session copies the plan and the enabled counters when it begins, so
 * results stay readable after the client enables other counters.  Each
 * sample keeps one uint64 per raw counter of the plan ("slots"), filled by
 * the pass that counts it; results are computed from those when queried,
 * and nothing else is kept per sample.
 *
 * The slots are laid out for reading.  When a session counts (nearly) all
 * the raw counters of a built-in set whose generated code it uses, those
 * raw counters take the slots of a block in the set's own leaf order, so
 * the generated code reads a sample's row in place (native.h): a batch
 * read is one call of the set's function, a single read one call of the
 * counter's.  Passes scatter their counts into the slots as samples end.
 *
 * The functions here keep the books; the front ends check the caller's
 * order of calls first, each in its own API's order and statuses (2.x
 * numbers its passes itself, 3.x/4.x name them in BeginCommandList).
 *
 * A periodic session (OpenGPA_SetSamplingPeriod) has one pass whose samples
 * the core appends itself (session_periodic.c, og_session_append): each is
 * readable as soon as it is complete, while the pass goes on.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/apictx.h"
#include "core/readers.h"
#include "core/registry.h"
#include "core/session_internal.h"
#include "expr/arith.h"

/* uint32 id -> index, open addressing; vals hold index + 1, 0 = empty. */
struct id_map {
	uint32_t *keys;
	uint32_t *vals;
	size_t cap, count;
};

/* 56 bytes, beside the sample's row of raw counts. */
struct sample {
	uint64_t begun;   /* bit p: begun in pass p */
	uint64_t passes;  /* bit p: ended in pass p */
	uint64_t begin_ns, end_ns; /* of the first pass that counted it */
	uint32_t id;
	uint32_t flags;   /* OG_SAMPLE_* of that pass */
	float coverage;   /* least share of it the counters really counted */
	uint32_t api_token; /* its API timer (apictx.h) until the result is in; 0: none */
	bool failed;      /* the backend could not read it */
	bool api_failed;  /* the API timer gave no result */
};

/* How the session reads one of its counters. */
enum recipe_kind {
	READ_RAW,    /* a raw count: slot */
	READ_NATIVE, /* generated code: block, position in its set */
	READ_EXPR,   /* the interpreter */
};

struct recipe {
	uint64_t need; /* bit p: a raw input of pass p */
	uint8_t kind;
	bool integer;  /* an integer counter: og_value.u, at most max */
	bool api;      /* reads a raw counter the application's API measures */
	uint8_t type;  /* GPA_Type */
	uint32_t slot; /* READ_RAW: the raw's slot; READ_NATIVE: the block's base */
	uint32_t block, position; /* READ_NATIVE: in blocks[], in its set */
	uint64_t max;
	og_native_counter_fn *fn; /* READ_NATIVE: the counter's own function */
	const double *k;         /* and the set's constants */
};

/* A built-in set's raw leaves in its own order at row[base ...]. */
struct block {
	const struct og_native_binding *set;
	uint32_t base;
};

/* The most block outputs an unlocked batch read keeps on its stack. */
#define UNLOCKED_SET_OUT 512

/* og_session.unlocked: how og_session_get_sample may read it. */
enum {
	UNLOCKED_NO,       /* open, or periodic: under the lock */
	UNLOCKED_SAMPLES,  /* ended: each sample's passes are checked */
	UNLOCKED_COMPLETE, /* ended, and every sample has every pass */
};

struct og_session {
	/* What og_session_fast_result reads, together. */
	uint32_t id;
	uint8_t unlocked; /* UNLOCKED_*: stored with release when it ends */
	bool sparse;      /* see index below */
	uint32_t ncatalog; /* the catalogue's counters: recipe_of[]'s length */
	uint32_t first_id; /* samples[0].id (dense ids) */
	const struct recipe **recipe_of;
	struct recipe *recipes;
	uint64_t *values; /* nsamples * nslots */
	size_t nsamples, nslots;

	bool ended;
	pthread_t owner;

	/* What the session counts, fixed at begin. */
	uint32_t *counters; /* enabled counter indices, enable order */
	size_t ncounters;
	size_t npasses;
	/* Per catalogue raw: where its value is kept and which pass counts it;
	 * slot UINT32_MAX when the session does not count it. */
	struct raw_slot {
		uint32_t slot;
		uint32_t pass;
	} *slot_of_raw;
	struct {
		size_t n;
		size_t nbackend; /* of the n, the backend's (backend_ids); the rest the API's */
		uint32_t *backend_ids;
		size_t *group_sizes; /* multiplexed pass; NULL otherwise */
		size_t ngroups;
		/* Where its counts go: row[dst[k]] = deltas[src[k]] (a raw counter
		 * can fill more than one slot). */
		uint32_t *src, *dst;
		size_t npairs;
	} pass[OG_MAX_PASSES];

	/* Reading: a recipe per counter (enable order) and, per catalogue
	 * counter, its recipe (recipe_of, NULL when the session does not count
	 * it); the set blocks. */
	uint64_t need_all;
	struct block blocks[4];
	size_t nblocks;
	/* The counters are exactly blocks[0]'s set in its order: its function
	 * writes a batch read's answer.  Or they all come from blocks[0]: runs
	 * copy its outputs to the answer (out[to ...] = set[from ...], n each). */
	bool direct;
	struct run {
		uint32_t from, to, n;
	} *runs;
	size_t nruns;
	union og_value *set_out; /* the blocks' outputs, one set's width each */
	size_t set_stride;
	bool interpreted; /* a counter is read by the interpreter */

	/* Progress. */
	bool pass_open;
	uint32_t pass_index;   /* the open pass */
	uint32_t passes_begun; /* og_pass_begin calls */
	uint32_t passes_done;  /* passes of the plan ended */
	int32_t highest_pass;  /* -1: none begun */
	bool sample_open;
	size_t cur;            /* index of the open sample (a planned pass) */
	uint32_t cur_id;
	uint64_t cur_begin_ns; /* when the open sample began */
	uint32_t pass_samples[OG_MAX_PASSES]; /* samples begun per planned pass */
	bool backend_pass;     /* begin_pass succeeded and end_pass is owed */
	/* An extra pass (beyond the plan) counts nothing but its sample IDs
	 * must still be unique: they are kept here while it is open. */
	struct id_map extra;
	uint32_t extra_samples;

	/* Samples, in the order they first appeared (their values above).
	 * Sample id -> index: most clients number samples 0, 1, 2...: while
	 * every id is first_id plus its index the lookup is arithmetic (dense);
	 * the first id out of line builds a hash index (sparse). */
	struct sample *samples;
	size_t cap;
	struct id_map index;
	uint64_t *deltas; /* one pass's values from the backend */

	/* Periodic sampling (session_periodic.c); period_ns 0 = the client's
	 * samples.  Samples [0, nsamples) are complete; the timer thread or the
	 * kernel adds the next. */
	uint64_t period_ns;
	struct og_periodic *periodic; /* while the pass is sampled */
	bool kernel_timed;
	bool ending; /* EndPass is stopping the sampling, lock released */
	/* The window (OpenGPA_SetPeriodicWindow): 0 keeps every sample; else
	 * the oldest are dropped, `window` at a time once 2 * window are kept,
	 * their counts summed into what the total still needs. */
	uint32_t window;
	size_t dropped;           /* samples 0 .. dropped - 1 are gone */
	uint64_t *dropped_sum;    /* per slot, over the dropped samples that counted */
	size_t dropped_counted;
	struct og_sample_time dropped_time; /* first begin, every flag */
	double dropped_coverage;

	/* The application's API (apictx.h): NULL for a plain context.  Its raw
	 * counters' values go to api_slot[k] (value api_value[k], an
	 * enum og_api_value) when a sample's timer result is in; they are all
	 * in api_pass.  Samples before api_scan have their results in. */
	struct og_apictx *api;
	bool uses_api;    /* a counter reads an API raw */
	int32_t api_pass; /* -1: no pass has API raws */
	uint32_t *api_slot, *api_value;
	size_t napi, api_scan;
};


void og_session_free(struct og_session *s)
{
	if (!s)
		return;
	for (size_t p = 0; p < s->npasses; p++) {
		free(s->pass[p].backend_ids);
		free(s->pass[p].group_sizes);
		free(s->pass[p].src);
		free(s->pass[p].dst);
	}
	for (size_t i = 0; s->api && i < s->nsamples; i++)
		if (s->samples[i].api_token)
			og_apictx_release(s->api, s->samples[i].api_token);
	free(s->api_slot);
	free(s->api_value);
	free(s->recipes);
	free(s->recipe_of);
	free(s->counters);
	free(s->slot_of_raw);
	free(s->samples);
	free(s->values);
	free(s->dropped_sum);
	free(s->index.keys);
	free(s->index.vals);
	free(s->extra.keys);
	free(s->extra.vals);
	free(s->deltas);
	free(s->set_out);
	free(s->runs);
	og_periodic_free(s->periodic);
	free(s);
}

/* ---- sample id maps ---------------------------------------------------- */

static size_t id_hash(uint32_t id, size_t cap)
{
	return (size_t)((id * 2654435761u) & (cap - 1));
}

static bool map_find(const struct id_map *m, uint32_t id, size_t *index)
{
	if (!m->cap)
		return false;
	for (size_t i = id_hash(id, m->cap);; i = (i + 1) & (m->cap - 1)) {
		if (!m->vals[i])
			return false;
		if (m->keys[i] == id) {
			*index = m->vals[i] - 1;
			return true;
		}
	}
}

static void hash_put(uint32_t *keys, uint32_t *vals, size_t cap, uint32_t id, size_t index)
{
	size_t j = id_hash(id, cap);
	while (vals[j])
		j = (j + 1) & (cap - 1);
	keys[j] = id;
	vals[j] = (uint32_t)index + 1;
}

/* Room for `count` ids at half load; rehashes what is there. */
static bool map_reserve(struct id_map *m, size_t count)
{
	if (count * 2 <= m->cap)
		return true;
	size_t cap = m->cap ? m->cap : 64;
	while (count * 2 > cap)
		cap *= 2;
	uint32_t *keys = calloc(cap, sizeof(*keys));
	uint32_t *vals = calloc(cap, sizeof(*vals));
	if (!keys || !vals) {
		free(keys);
		free(vals);
		return false;
	}
	for (size_t i = 0; i < m->cap; i++)
		if (m->vals[i])
			hash_put(keys, vals, cap, m->keys[i], m->vals[i] - 1);
	free(m->keys);
	free(m->vals);
	m->keys = keys;
	m->vals = vals;
	m->cap = cap;
	return true;
}

static bool map_put(struct id_map *m, uint32_t id, size_t index)
{
	if (!map_reserve(m, m->count + 1))
		return false;
	hash_put(m->keys, m->vals, m->cap, id, index);
	m->count++;
	return true;
}

static void map_clear(struct id_map *m)
{
	if (m->count)
		memset(m->vals, 0, m->cap * sizeof(*m->vals));
	m->count = 0;
}

static bool index_find(const struct og_session *s, uint32_t id, size_t *index)
{
	if (!s->sparse) {
		uint32_t offset = id - s->first_id; /* wraps like the ids */
		if (offset >= s->nsamples)
			return false;
		*index = offset;
		return true;
	}
	return map_find(&s->index, id, index);
}

/* Records that sample `index` (about to be stored) has `id`. */
static bool index_insert(struct og_session *s, uint32_t id, size_t index)
{
	if (!s->sparse) {
		if (index == 0)
			s->first_id = id;
		if (id == s->first_id + (uint32_t)index)
			return true; /* still dense */
		if (!map_reserve(&s->index, index + 1))
			return false;
		for (size_t i = 0; i < index; i++)
			map_put(&s->index, s->samples[i].id, i); /* room reserved */
		s->sparse = true;
	}
	return map_put(&s->index, id, index);
}

static bool add_sample(struct og_session *s, uint32_t id, size_t *index)
{
	if (s->nsamples == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		struct sample *samples = realloc(s->samples, cap * sizeof(*samples));
		if (!samples)
			return false;
		s->samples = samples;
		uint64_t *values = realloc(s->values, cap * (s->nslots ? s->nslots : 1) * sizeof(*values));
		if (!values)
			return false;
		s->values = values;
		s->cap = cap;
	}
	if (!index_insert(s, id, s->nsamples))
		return false;
	s->samples[s->nsamples] = (struct sample){ .id = id, .coverage = 1.0f };
	memset(&s->values[s->nsamples * s->nslots], 0, s->nslots * sizeof(uint64_t));
	*index = s->nsamples++;
	return true;
}

/* ---- begin / end ----------------------------------------------------- */

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

static struct og_session *session_create(struct og_context *ctx, const struct og_selection *sel,
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

/* A sample's counts of pass p into its row. */
static void scatter(struct og_session *s, size_t index, uint32_t p, const uint64_t *deltas)
{
	uint64_t *row = &s->values[index * s->nslots];
	for (size_t k = 0; k < s->pass[p].npairs; k++)
		row[s->pass[p].dst[k]] = deltas[s->pass[p].src[k]];
}

GPA_Status og_session_start(struct og_context *ctx, struct og_selection *sel,
                            struct og_session **out)
{
	const struct og_plan *plan;
	GPA_Status st = og_selection_plan(ctx, sel, &plan);
	if (st != GPA_STATUS_OK)
		return st;
	struct og_session *s = session_create(ctx, sel, plan);
	if (!s)
		return og_error(GPA_STATUS_ERROR_FAILED, "beginning a session: out of memory");
	ctx->open_session = s;
	*out = s;
	return GPA_STATUS_OK;
}

GPA_Status og_session_begin(struct og_context *ctx, uint32_t *id)
{
	const struct og_plan *plan;
	GPA_Status st = og_selection_plan(ctx, &ctx->sel, &plan);
	if (st == GPA_STATUS_OK && ctx->period_ns)
		st = og_periodic_check_plan(ctx, plan);
	struct og_session *s = NULL;
	if (st == GPA_STATUS_OK)
		st = og_session_start(ctx, &ctx->sel, &s);
	if (st != GPA_STATUS_OK)
		return st;
	s->period_ns = ctx->period_ns;
	s->window = ctx->period_ns ? ctx->periodic_window : 0;
	s->dropped_coverage = 1.0;
	s->id = ctx->next_session_id++;
	/* The oldest session leaves the ring: the one ring->size IDs back (and
	 * whatever older one held this slot).  Readers without the lock may
	 * still look at them until og_readers_sync. */
	struct og_ring *ring = ctx->ring;
	struct og_session *gone[2] = { NULL, NULL };
	if (s->id > ring->size) {
		struct og_session **old = &ring->slot[(s->id - ring->size - 1) & ring->mask];
		if (*old && (*old)->id == s->id - ring->size) {
			gone[0] = *old;
			__atomic_store_n(old, NULL, __ATOMIC_RELAXED);
		}
	}
	struct og_session **slot = &ring->slot[(s->id - 1) & ring->mask];
	gone[1] = *slot;
	__atomic_store_n(slot, s, __ATOMIC_RELEASE);
	if (gone[0] || gone[1]) {
		og_readers_sync();
		og_session_free(gone[0]);
		og_session_free(gone[1]);
	}
	*id = s->id;
	return GPA_STATUS_OK;
}

void og_session_end(struct og_context *ctx, struct og_session *s)
{
	s->ended = true;
	/* A sample's API timer result can come in later, into its row: such a
	 * session is read under the lock. */
	if (!s->period_ns && !s->api) {
		/* Release: a reader without the lock that sees it sees the
		 * samples (og_session_fast_result). */
		uint8_t how = UNLOCKED_COMPLETE;
		uint64_t all = s->npasses >= 64 ? UINT64_MAX : (1ull << s->npasses) - 1;
		for (size_t i = 0; i < s->nsamples && how == UNLOCKED_COMPLETE; i++)
			if (s->samples[i].failed || (s->samples[i].passes & all) != all)
				how = UNLOCKED_SAMPLES;
		__atomic_store_n(&s->unlocked, how, __ATOMIC_RELEASE);
	}
	if (ctx->open_session == s)
		ctx->open_session = NULL;
	og_session_notify();
}

GPA_Status og_pass_begin(struct og_context *ctx, struct og_session *s, uint32_t pass)
{
	s->backend_pass = false;
	if (pass >= s->npasses) {
		/* An extra pass: nothing to count, as in GPA 2.x. */
		map_clear(&s->extra);
		s->extra_samples = 0;
	} else if (s->pass[pass].nbackend) {
		const uint32_t *ids = s->pass[pass].backend_ids;
		size_t n = s->pass[pass].nbackend;
		GPA_Status st = s->pass[pass].ngroups > 1
		                ? ctx->ops->begin_multiplexed_pass(ctx->state, ids, n,
		                                                   s->pass[pass].group_sizes,
		                                                   s->pass[pass].ngroups)
		                : ctx->ops->begin_pass(ctx->state, ids, n);
		if (st != GPA_STATUS_OK)
			return st; /* the backend said why; no pass is open */
		s->backend_pass = true;
		s->pass_open = true;
		s->pass_index = pass;
		if (s->period_ns && (st = og_periodic_start(ctx, s)) != GPA_STATUS_OK) {
			ctx->ops->end_pass(ctx->state);
			s->backend_pass = false;
			s->pass_open = false;
			return st;
		}
		if ((int32_t)pass > s->highest_pass)
			s->highest_pass = (int32_t)pass;
	} else if ((int32_t)pass > s->highest_pass) {
		s->highest_pass = (int32_t)pass; /* only API raws: the backend has nothing to do */
	}
	s->pass_open = true;
	s->pass_index = pass;
	s->passes_begun++;
	return GPA_STATUS_OK;
}

GPA_Status og_pass_end(struct og_context *ctx, struct og_session *s)
{
	if (s->ending)
		return og_error(GPA_STATUS_ERROR_PASS_NOT_STARTED,
		                "ending pass %u: another thread is already ending it", s->pass_index);
	GPA_Status st = GPA_STATUS_OK;
	if (s->periodic) {
		/* Releases the lock while the timer thread finishes: s->ending
		 * keeps other callers out meanwhile. */
		s->ending = true;
		st = og_periodic_stop(ctx, s);
		s->ending = false;
	}
	if (s->backend_pass) {
		GPA_Status end = ctx->ops->end_pass(ctx->state);
		if (st == GPA_STATUS_OK)
			st = end;
	}
	if (s->pass_index < s->npasses)
		s->passes_done++;
	s->pass_open = false;
	s->backend_pass = false;
	og_session_notify();
	return st;
}

/* ---- results of the application's API timer ------------------------------ */

/* Sample `index`'s API result, into its slots, once the API has it (or
 * waiting for it).  True when nothing is pending for it any more. */
static bool collect(struct og_session *s, size_t index, bool wait)
{
	struct sample *smp = &s->samples[index];
	if (!smp->api_token)
		return true;
	uint64_t v[OG_API_NVALUES];
	enum og_api_read r = og_apictx_read(s->api, smp->api_token, wait, v);
	if (r == OG_API_PENDING)
		return false;
	if (r == OG_API_DONE)
		for (size_t k = 0; k < s->napi; k++)
			s->values[index * s->nslots + s->api_slot[k]] = v[s->api_value[k]];
	else
		smp->api_failed = true;
	og_apictx_release(s->api, smp->api_token);
	smp->api_token = 0;
	return true;
}

/* Every result the API has, oldest first, up to the first it has not: the
 * GPU finishes in order.  True when none is pending. */
static bool collect_ready(struct og_session *s)
{
	while (s->api_scan < s->nsamples && collect(s, s->api_scan, false))
		s->api_scan++;
	return s->api_scan >= s->nsamples;
}

/* A driver's GPU time longer than the whole synchronised sample (with a
 * wide margin for the two clocks and the calls around the queries) is the
 * driver's error, not a measurement: the sample's GPU time fails. */
static void check_api_span(struct og_session *s, size_t index, uint64_t span_ns)
{
	struct sample *smp = &s->samples[index];
	for (size_t k = 0; k < s->napi && !smp->api_failed; k++) {
		uint64_t v = s->values[index * s->nslots + s->api_slot[k]];
		if (s->api_value[k] != OG_API_GPU_TIME_NS || v <= 2 * span_ns + 10000000u)
			continue;
		smp->api_failed = true;
		og_log(OG_LOG_ERROR, "the API's timer says sample %u took %.3f ms on the GPU, but the "
		       "whole synchronised sample lasted %.3f ms: the driver's timer result is "
		       "wrong, so the sample has no GPUTime", smp->id, (double)v / 1e6,
		       (double)span_ns / 1e6);
	}
}

static bool uses_api(const struct og_context *ctx, const struct og_counter *c)
{
	for (size_t i = 0; i < c->ninputs; i++)
		if (ctx->cat.raws[c->inputs[i]].api)
			return true;
	return false;
}

bool og_session_results_ready(struct og_session *s)
{
	return og_session_ready(s) && (!s->api || collect_ready(s));
}

bool og_session_pass_results_ready(struct og_session *s, uint32_t pass)
{
	return (int32_t)pass != s->api_pass || collect_ready(s);
}

GPA_Status og_sample_begin(struct og_context *ctx, struct og_session *s, uint32_t id)
{
	uint32_t pass = s->pass_index;
	if (s->period_ns && pass < s->npasses)
		return og_error(GPA_STATUS_ERROR_SAMPLE_ALREADY_STARTED,
		                "GPA_BeginSample(%u): session %u samples every %.3f ms by itself "
		                "between GPA_BeginPass and GPA_EndPass; read its samples 0, 1, ... "
		                "instead of beginning your own", id, s->id, (double)s->period_ns / 1e6);
	if (pass >= s->npasses) {
		if (!map_put(&s->extra, id, 0))
			return og_error(GPA_STATUS_ERROR_FAILED, "beginning sample %u: out of memory", id);
		s->extra_samples++;
		s->sample_open = true;
		s->cur_id = id;
		return GPA_STATUS_OK;
	}
	size_t index;
	if (!index_find(s, id, &index) && !add_sample(s, id, &index))
		return og_error(GPA_STATUS_ERROR_FAILED, "beginning sample %u: out of memory", id);
	/* On an application's API: results of earlier samples the GPU has
	 * finished come in, then its queue drains (or is flushed) so the
	 * snapshot comes after the commands before the sample. */
	GPA_Status st = GPA_STATUS_OK;
	if (s->api) {
		collect_ready(s);
		st = og_apictx_boundary(s->api, "BeginSample");
	}
	if (st == GPA_STATUS_OK && s->pass[pass].nbackend)
		st = ctx->ops->begin_sample(ctx->state);
	struct sample *smp = &s->samples[index];
	smp->begun |= 1ull << pass;
	s->pass_samples[pass]++;
	if (st != GPA_STATUS_OK) {
		/* Counted as begun (the pass's sample count stays right) but failed. */
		smp->failed = true;
		return st;
	}
	/* The GPU timer starts after the snapshot.  If it cannot, only the
	 * API's counters of this sample fail. */
	if ((int32_t)pass == s->api_pass && !smp->api_token && !smp->api_failed) {
		if (og_apictx_time_begin(s->api, "BeginSample", &smp->api_token) != GPA_STATUS_OK)
			smp->api_failed = true;
		else if (index < s->api_scan)
			s->api_scan = index;
	}
	s->sample_open = true;
	s->cur = index;
	s->cur_id = id;
	s->cur_begin_ns = og_clock_monotonic_ns();
	return GPA_STATUS_OK;
}

GPA_Status og_sample_end(struct og_context *ctx, struct og_session *s)
{
	s->sample_open = false;
	if (s->pass_index >= s->npasses)
		return GPA_STATUS_OK; /* an extra pass counts nothing */
	struct sample *smp = &s->samples[s->cur];
	size_t n = s->pass[s->pass_index].nbackend;
	/* On an application's API: the GPU timer stops, then the queue drains
	 * (or is flushed) so the snapshot comes after the sample's commands. */
	GPA_Status timer = GPA_STATUS_OK, api = GPA_STATUS_OK;
	if (smp->api_token && (int32_t)s->pass_index == s->api_pass &&
	    (timer = og_apictx_time_end(s->api, "EndSample", smp->api_token)) != GPA_STATUS_OK) {
		og_apictx_release(s->api, smp->api_token);
		smp->api_token = 0;
		smp->api_failed = true;
	}
	if (s->api)
		api = og_apictx_boundary(s->api, "EndSample");
	uint64_t end_ns = og_clock_monotonic_ns();
	GPA_Status st = n ? ctx->ops->end_sample(ctx->state, s->deltas) : GPA_STATUS_OK;
	if (!smp->passes && !smp->end_ns) {
		/* The first pass that gets this far gives the sample its times. */
		struct og_sample_time t = { s->cur_begin_ns, end_ns, 0 }, kt;
		if (n && st == GPA_STATUS_OK && ctx->ops->sample_time &&
		    ctx->ops->sample_time(ctx->state, &kt))
			t = kt;
		smp->begin_ns = t.begin_ns;
		smp->end_ns = t.end_ns;
		smp->flags = t.flags;
	}
	if (st == GPA_STATUS_OK)
		st = api; /* counts taken without the API's sync do not belong to the sample */
	if (st != GPA_STATUS_OK) {
		smp->failed = true;
		return st;
	}
	scatter(s, s->cur, s->pass_index, s->deltas);
	smp->passes |= 1ull << s->pass_index;
	if (n && ctx->ops->sample_coverage) {
		double c = ctx->ops->sample_coverage(ctx->state);
		if (c < smp->coverage)
			smp->coverage = c > 0.0 ? (float)c : 0.0f;
	}
	/* Synchronised, the timer's result is there already, and it must fit
	 * in the sample: its commands ran between the two drains. */
	if (smp->api_token && og_apictx_sync(s->api) == OG_SYNC_FINISH && collect(s, s->cur, false))
		check_api_span(s, s->cur, end_ns - s->cur_begin_ns);
	return timer;
}

/* ---- periodic samples (session_periodic.c drives these) --------------- */

uint64_t *og_session_deltas(struct og_session *s)
{
	return s->deltas;
}

uint64_t og_session_period(const struct og_session *s)
{
	return s->period_ns;
}

void og_session_set_periodic(struct og_session *s, struct og_periodic *p, bool kernel_timed)
{
	s->periodic = p;
	s->kernel_timed = kernel_timed;
}

struct og_periodic *og_session_periodic(const struct og_session *s)
{
	return s->periodic;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* Drops the oldest k samples of a periodic session, keeping what the
 * session's total needs of them.  Without memory for that, keeps them. */
static void drop_front(struct og_session *s, size_t k)
{
	if (!s->dropped_sum && !(s->dropped_sum = calloc(s->nslots + 1, sizeof(uint64_t))))
		return;
	for (size_t i = 0; i < k; i++) {
		const struct sample *smp = &s->samples[i];
		if (!s->dropped && !i)
			s->dropped_time.begin_ns = smp->begin_ns;
		s->dropped_time.end_ns = smp->end_ns;
		s->dropped_time.flags |= smp->flags | (smp->failed ? OG_SAMPLE_FAILED : 0);
		if (smp->failed || !(smp->passes & 1))
			continue;
		for (size_t slot = 0; slot < s->nslots; slot++)
			s->dropped_sum[slot] = add_sat(s->dropped_sum[slot], s->values[i * s->nslots + slot]);
		if (smp->coverage < s->dropped_coverage)
			s->dropped_coverage = smp->coverage;
		s->dropped_counted++;
	}
	memmove(s->samples, s->samples + k, (s->nsamples - k) * sizeof(*s->samples));
	memmove(s->values, s->values + k * s->nslots, (s->nsamples - k) * s->nslots * sizeof(uint64_t));
	s->nsamples -= k;
	s->dropped += k;
	if (s->nsamples)
		s->first_id = s->samples[0].id; /* periodic ids are dense */
}

GPA_Status og_session_append(struct og_session *s, const uint64_t *deltas,
                             const struct og_sample_time *t, double coverage)
{
	size_t index;
	if (s->window && s->nsamples >= 2 * (size_t)s->window)
		drop_front(s, s->nsamples - s->window);
	if (s->dropped + s->nsamples >= UINT32_MAX)
		return og_error(GPA_STATUS_ERROR_FAILED,
		                "periodic sampling of session %u stopped: it has 2^32 samples, all "
		                "the IDs there are; begin a new session", s->id);
	if (!add_sample(s, (uint32_t)(s->dropped + s->nsamples), &index))
		return og_error(GPA_STATUS_ERROR_FAILED,
		                "periodic sampling of session %u stopped at sample %zu: out of memory "
		                "(the samples so far stay readable; sample less often)",
		                s->id, s->nsamples);
	struct sample *smp = &s->samples[index];
	smp->begun = 1;
	smp->begin_ns = t->begin_ns;
	smp->end_ns = t->end_ns;
	smp->flags = t->flags;
	if (t->flags & OG_SAMPLE_FAILED) {
		smp->failed = true;
	} else {
		scatter(s, index, 0, deltas);
		smp->passes = 1;
		smp->coverage = coverage > 0.0 && coverage < 1.0 ? (float)coverage : 1.0f;
	}
	s->pass_samples[0]++;
	og_session_notify();
	return GPA_STATUS_OK;
}

void og_session_flag_last(struct og_session *s, uint32_t flags)
{
	if (s->nsamples)
		s->samples[s->nsamples - 1].flags |= flags;
}

size_t og_session_complete(const struct og_session *s)
{
	return s->dropped + s->nsamples;
}

GPA_Status og_session_no_sample(const char *func, const struct og_session *s, uint32_t id)
{
	if (s->period_ns && id < s->dropped)
		return og_error(GPA_STATUS_ERROR_SAMPLE_NOT_FOUND,
		                "%s: sample %u of session %u was dropped: the session keeps its newest "
		                "%u samples (OpenGPA_SetPeriodicWindow); read samples as they come "
		                "(OpenGPA_WaitForSamples) or widen the window", func, id, s->id,
		                s->window);
	return og_error(GPA_STATUS_ERROR_SAMPLE_NOT_FOUND, "%s: sample %u is not in session %u%s",
	                func, id, s->id, s->period_ns && !og_session_ready(s) ? " (yet)" : "");
}

/* ---- queries ----------------------------------------------------------- */

struct og_session *og_session_find(struct og_context *ctx, uint32_t id)
{
	if (id == 0 || !ctx->ring)
		return NULL;
	struct og_session *s = ctx->ring->slot[(id - 1) & ctx->ring->mask];
	return s && s->id == id ? s : NULL;
}

uint32_t og_session_id(const struct og_session *s)
{
	return s->id;
}

bool og_session_ended(const struct og_session *s)
{
	return s->ended;
}

size_t og_session_npasses(const struct og_session *s)
{
	return s->npasses;
}

bool og_session_pass_open(const struct og_session *s, uint32_t *pass)
{
	if (s->pass_open && pass)
		*pass = s->pass_index;
	return s->pass_open;
}

bool og_session_sample_open(const struct og_session *s, uint32_t *id)
{
	if (s->sample_open && id)
		*id = s->cur_id;
	return s->sample_open;
}

uint32_t og_session_passes_begun(const struct og_session *s)
{
	return s->passes_begun;
}

uint32_t og_session_passes_done(const struct og_session *s)
{
	return s->passes_done;
}

int32_t og_session_highest_pass(const struct og_session *s)
{
	return s->highest_pass;
}

uint32_t og_session_pass_samples(const struct og_session *s, uint32_t pass)
{
	if (pass < s->npasses)
		return s->pass_samples[pass];
	return s->pass_open && pass == s->pass_index ? s->extra_samples : 0;
}

bool og_session_in_pass(const struct og_session *s, uint32_t id, uint32_t pass)
{
	size_t index;
	if (pass >= s->npasses)
		return s->pass_open && pass == s->pass_index && map_find(&s->extra, id, &index);
	return index_find(s, id, &index) && (s->samples[index].begun >> pass & 1);
}

uint32_t og_session_sample_token(const struct og_session *s, uint32_t id)
{
	size_t index;
	return index_find(s, id, &index) ? s->samples[index].api_token : 0;
}

bool og_session_pass0_sample(const struct og_session *s, uint32_t k, uint32_t *id)
{
	/* Usually every sample began in pass 0, in order: samples[k] (after
	 * the ones a periodic window dropped). */
	if (s->pass_samples[0] == s->dropped + s->nsamples) {
		if (k < s->dropped || k - s->dropped >= s->nsamples)
			return false;
		*id = s->samples[k - s->dropped].id;
		return true;
	}
	for (size_t i = 0; i < s->nsamples; i++)
		if ((s->samples[i].begun & 1) && k-- == 0) {
			*id = s->samples[i].id;
			return true;
		}
	return false;
}

const uint32_t *og_session_counters(const struct og_session *s, size_t *n)
{
	*n = s->ncounters;
	return s->counters;
}

/* OG_SAMPLES_TOTAL names every sample at once, unless the client has a
 * sample of its own with that ID. */
static bool is_total(const struct og_session *s, uint32_t sample_id)
{
	size_t index;
	return sample_id == OG_SAMPLES_TOTAL && !index_find(s, sample_id, &index);
}

bool og_session_has_sample(const struct og_session *s, uint32_t sample_id)
{
	size_t index;
	return index_find(s, sample_id, &index) || (is_total(s, sample_id) && s->nsamples > 0);
}

GPA_Status og_session_sample_coverage(struct og_session *s, uint32_t sample_id, double *coverage)
{
	size_t index;
	if (is_total(s, sample_id)) {
		*coverage = s->dropped_coverage;
		for (size_t i = 0; i < s->nsamples; i++)
			if (!s->samples[i].failed && s->samples[i].coverage < *coverage)
				*coverage = s->samples[i].coverage;
		return GPA_STATUS_OK;
	}
	if (!index_find(s, sample_id, &index))
		return og_error(GPA_STATUS_ERROR_SAMPLE_NOT_FOUND,
		                "session %u has no sample %u", s->id, sample_id);
	if (s->samples[index].failed)
		return og_error(GPA_STATUS_ERROR_READING_COUNTER_RESULT,
		                "sample %u of session %u failed when it was counted (the log said why)",
		                sample_id, s->id);
	*coverage = s->samples[index].coverage;
	return GPA_STATUS_OK;
}

bool og_session_has_counter(const struct og_session *s, uint32_t counter)
{
	return s->recipe_of[counter] != NULL;
}

bool og_session_ready(const struct og_session *s)
{
	return s->ended || s->passes_done >= s->npasses;
}

GPA_Status og_session_sample_ready(struct og_session *s, uint32_t sample_id, bool *ready)
{
	*ready = false;
	if (is_total(s, sample_id) && s->nsamples) {
		*ready = og_session_ready(s) || s->period_ns;
		return GPA_STATUS_OK;
	}
	size_t index;
	const struct sample *smp = index_find(s, sample_id, &index) ? &s->samples[index] : NULL;
	bool pending = false;
	for (uint32_t p = 0; p < s->npasses; p++) {
		uint64_t bit = 1ull << p;
		if (smp && ((smp->passes & bit) || (smp->failed && (smp->begun & bit))))
			continue; /* this pass has its result (or its failure) */
		if (smp && s->sample_open && s->pass_open && s->pass_index == p && s->cur == index) {
			pending = true; /* open in this very pass: its result is still to come */
			continue;
		}
		return og_error(GPA_STATUS_ERROR_SAMPLE_NOT_FOUND_IN_ALL_PASSES,
		                "sample %u of session %u is missing from pass %u (a pass that never "
		                "ran included); sample the same IDs in every pass",
		                sample_id, s->id, p);
	}
	/* Its GPU time is in when the API's query (or event) says so. */
	*ready = !pending && (!smp || collect(s, index, false));
	return GPA_STATUS_OK;
}

/* og_session_wait, and og_sample_wait when `sample` is not NULL: a
 * periodic session's complete sample needs no wait. */
static GPA_Status wait_ready(uint64_t serial, uint32_t id, const uint32_t *sample,
                             struct og_context **ctxp, struct og_session **sp)
{
	struct og_registry *r = og_registry();
	for (;;) {
		struct og_context *ctx = og_context_by_serial(serial);
		if (!ctx)
			return og_error(GPA_STATUS_ERROR_COUNTERS_NOT_OPEN,
			                "the context of session %u was closed while waiting for results", id);
		struct og_session *s = og_session_find(ctx, id);
		if (!s)
			return og_error(GPA_STATUS_ERROR_SESSION_NOT_FOUND,
			                "session %u was overwritten while waiting for its results; read "
			                "results sooner or raise the ring size (OPENGPA_SESSION_RING)", id);
		size_t index;
		if (og_session_ready(s) ||
		    (sample && s->period_ns && (index_find(s, *sample, &index) || is_total(s, *sample)))) {
			*ctxp = ctx;
			*sp = s;
			return GPA_STATUS_OK;
		}
		if (pthread_equal(s->owner, pthread_self()))
			return og_error(GPA_STATUS_ERROR_SAMPLING_NOT_ENDED,
			                "session %u is still being recorded by this thread (%u of %zu "
			                "passes done); finish its passes and call GPA_EndSession before "
			                "reading results", id, s->passes_done, s->npasses);
		pthread_cond_wait(&r->changed, &r->lock);
	}
}

GPA_Status og_session_wait(uint64_t serial, uint32_t id, struct og_context **ctxp,
                           struct og_session **sp)
{
	return wait_ready(serial, id, NULL, ctxp, sp);
}

GPA_Status og_sample_wait(uint64_t serial, uint32_t id, uint32_t sample_id,
                          struct og_context **ctxp, struct og_session **sp)
{
	return wait_ready(serial, id, &sample_id, ctxp, sp);
}

static struct timespec deadline_after(uint32_t ms)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	t.tv_sec += ms / 1000;
	t.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	return t;
}

GPA_Status og_session_wait_samples(uint64_t serial, uint32_t id, uint32_t count,
                                   uint32_t timeout_ms, uint32_t *available)
{
	struct og_registry *r = og_registry();
	struct timespec deadline = deadline_after(timeout_ms);
	for (;;) {
		struct og_context *ctx = og_context_by_serial(serial);
		if (!ctx)
			return og_error(GPA_STATUS_ERROR_COUNTERS_NOT_OPEN,
			                "the context of session %u was closed while waiting for samples",
			                id);
		struct og_session *s = og_session_find(ctx, id);
		if (!s)
			return og_error(GPA_STATUS_ERROR_SESSION_NOT_FOUND,
			                "session %u was overwritten while waiting for its samples; raise "
			                "the ring size (OPENGPA_SESSION_RING)", id);
		bool ready = og_session_ready(s);
		/* A periodic session's samples are complete as they come; the
		 * client's samples once the session is. */
		size_t have = s->period_ns || ready ? s->dropped + s->nsamples : 0;
		*available = have > UINT32_MAX ? UINT32_MAX : (uint32_t)have;
		if (have >= count || ready)
			return GPA_STATUS_OK;
		/* Nothing will come while this thread holds what would make it
		 * come: its own open session without sampling running. */
		if (!s->periodic && pthread_equal(s->owner, pthread_self()))
			return og_error(GPA_STATUS_ERROR_SAMPLING_NOT_ENDED,
			                "session %u has %zu samples ready and this thread is the one "
			                "recording it: %s", id, have,
			                s->period_ns ? "begin its pass first (samples come between "
			                               "GPA_BeginPass and GPA_EndPass)"
			                             : "end the session before waiting for its samples");
		if (pthread_cond_clockwait(&r->changed, &r->lock, CLOCK_MONOTONIC, &deadline) ==
		    ETIMEDOUT)
			return GPA_STATUS_OK; /* *available is what there is */
	}
}

GPA_Status og_session_sample_time(struct og_session *s, uint32_t sample_id,
                                  struct og_sample_time *t)
{
	size_t index;
	if (is_total(s, sample_id) && s->nsamples) {
		/* From the first sample's begin to the last's end, and every
		 * sample's flags (the dropped ones' too). */
		*t = (struct og_sample_time){ s->dropped ? s->dropped_time.begin_ns
		                                         : s->samples[0].begin_ns,
			                      s->dropped_time.end_ns, s->dropped_time.flags };
		for (size_t i = 0; i < s->nsamples; i++) {
			const struct sample *smp = &s->samples[i];
			if (smp->begin_ns < t->begin_ns)
				t->begin_ns = smp->begin_ns;
			if (smp->end_ns > t->end_ns)
				t->end_ns = smp->end_ns;
			t->flags |= smp->flags | (smp->failed ? OG_SAMPLE_FAILED : 0);
		}
		return GPA_STATUS_OK;
	}
	if (!index_find(s, sample_id, &index))
		return og_error(GPA_STATUS_ERROR_SAMPLE_NOT_FOUND,
		                "session %u has no sample %u", s->id, sample_id);
	const struct sample *smp = &s->samples[index];
	*t = (struct og_sample_time){ smp->begin_ns, smp->end_ns, smp->flags };
	if (smp->failed)
		t->flags |= OG_SAMPLE_FAILED;
	return GPA_STATUS_OK;
}

bool og_session_kernel_timed(const struct og_session *s)
{
	return s->kernel_timed;
}

/* A counter over every sample: each raw input summed over the samples that
 * counted it, then the counter's expression, as if one sample had spanned
 * them all (a periodic session's whole pass). */
static GPA_Status total_result(struct og_context *ctx, struct og_session *s, uint32_t counter,
                               double *value, uint64_t *exact, bool *is_exact)
{
	const struct og_counter *c = &ctx->cat.counters[counter];
	if (uses_api(ctx, c))
		for (size_t k = 0; k < s->nsamples; k++) {
			bool in = collect(s, k, true);
			if (!in || (s->samples[k].api_failed && !s->samples[k].failed))
				return og_error(GPA_STATUS_ERROR_READING_COUNTER_RESULT,
				                "counter %s of session %u has no total: sample %u has no GPU "
				                "time from the API (the earlier message says why)", c->name,
				                s->id, s->samples[k].id);
		}
	for (size_t i = 0; i < c->ninputs; i++) {
		struct raw_slot where = s->slot_of_raw[c->inputs[i]];
		bool kept = where.slot != UINT32_MAX && s->dropped_sum;
		uint64_t sum = kept ? s->dropped_sum[where.slot] : 0;
		size_t counted = kept ? s->dropped_counted : 0;
		for (size_t k = 0; where.slot != UINT32_MAX && k < s->nsamples; k++) {
			const struct sample *smp = &s->samples[k];
			if (smp->failed || !(smp->passes & (1ull << where.pass)))
				continue;
			sum = add_sat(sum, s->values[k * s->nslots + where.slot]);
			counted++;
		}
		if (!counted)
			return og_error(GPA_STATUS_ERROR_SAMPLE_NOT_FOUND_IN_ALL_PASSES,
			                "counter %s of session %u: no sample counted its pass %u, so it "
			                "has no total", c->name, s->id, where.pass);
		ctx->scratch[c->inputs[i]] = sum;
	}
	*is_exact = c->exact_raw;
	if (c->exact_raw)
		*exact = ctx->scratch[c->raw];
	*value = og_expr_eval(c->expr, ctx->scratch, ctx->cat.const_values);
	return GPA_STATUS_OK;
}

/* The sample's index, if it has a value for every counter in `need` (or
 * the error that says why not). */
static GPA_Status readable(struct og_context *ctx, const struct og_session *s, uint32_t sample_id,
                           uint64_t need, size_t *index)
{
	if (!index_find(s, sample_id, index))
		return og_error(GPA_STATUS_ERROR_SAMPLE_NOT_FOUND,
		                "sample %u is not in session %u", sample_id, s->id);
	const struct sample *smp = &s->samples[*index];
	if (smp->failed)
		return og_error(GPA_STATUS_ERROR_READING_COUNTER_RESULT,
		                "sample %u of session %u could not be read from the device (see the "
		                "earlier message); the session's other samples are fine",
		                sample_id, s->id);
	if ((smp->passes & need) == need)
		return GPA_STATUS_OK;
	for (size_t k = 0; k < s->ncounters; k++) {
		uint64_t missing = s->recipes[k].need & need & ~smp->passes;
		if (missing)
			return og_error(GPA_STATUS_ERROR_SAMPLE_NOT_FOUND,
			                "counter %s of sample %u (session %u) needs pass %d, which did not "
			                "sample it; sample the same IDs in every pass",
			                ctx->cat.counters[s->counters[k]].name, sample_id, s->id,
			                __builtin_ctzll(missing));
	}
	return og_error(GPA_STATUS_ERROR_SAMPLE_NOT_FOUND, "sample %u of session %u lacks a pass",
	                sample_id, s->id);
}

/* The interpreter, for counters without generated code in a block: the
 * expression reads raw counters by catalogue index. */
static double interpret(struct og_context *ctx, const struct og_session *s, const uint64_t *row,
                        const struct og_counter *c)
{
	for (size_t i = 0; i < c->ninputs; i++)
		ctx->scratch[c->inputs[i]] = row[s->slot_of_raw[c->inputs[i]].slot];
	return og_expr_eval(c->expr, ctx->scratch, ctx->cat.const_values);
}

GPA_Status og_session_result(struct og_context *ctx, struct og_session *s, uint32_t sample_id,
                             uint32_t counter, double *value, uint64_t *exact, bool *is_exact)
{
	if (is_total(s, sample_id))
		return total_result(ctx, s, counter, value, exact, is_exact);
	const struct recipe *r = s->recipe_of[counter];
	size_t index;
	GPA_Status st = readable(ctx, s, sample_id, r->need, &index);
	if (st != GPA_STATUS_OK)
		return st;
	/* Its GPU time, waited for if it is not in yet. */
	if (r->api && (!collect(s, index, true) || s->samples[index].api_failed))
		return og_error(GPA_STATUS_ERROR_READING_COUNTER_RESULT,
		                "counter %s of sample %u (session %u) has no GPU time from the API%s "
		                "(the earlier message says why); the sample's other counters are fine",
		                ctx->cat.counters[counter].name, sample_id, s->id,
		                s->samples[index].api_failed ? "" : " on this thread");
	const uint64_t *row = &s->values[index * s->nslots];
	*is_exact = r->kind == READ_RAW;
	switch (r->kind) {
	case READ_RAW:
		*exact = row[r->slot];
		*value = og_arith_result((double)*exact);
		break;
	case READ_NATIVE:
		*value = r->fn(row + r->slot, r->k);
		break;
	default:
		*value = interpret(ctx, s, row, &ctx->cat.counters[counter]);
		break;
	}
	return GPA_STATUS_OK;
}

/* Session `id` of the current context, inside a read section (readers.h),
 * and how it may be read (*how, acquired: an ended session's samples are
 * final); NULL when there is none or it must be read under the lock. */
static inline __attribute__((always_inline)) const struct og_session *
unlocked_find(uint32_t id, const struct og_context **ctxp, uint8_t *how)
{
	const struct og_context *ctx = __atomic_load_n(&og_registry()->current, __ATOMIC_ACQUIRE);
	if (!ctx)
		return NULL;
	const struct og_ring *ring = __atomic_load_n(&ctx->ring, __ATOMIC_ACQUIRE);
	const struct og_session *s =
		__atomic_load_n(&ring->slot[(id - 1) & ring->mask], __ATOMIC_ACQUIRE);
	if (!s || s->id != id)
		return NULL;
	*ctxp = ctx;
	*how = __atomic_load_n(&s->unlocked, __ATOMIC_ACQUIRE);
	return *how == UNLOCKED_NO ? NULL : s;
}

/* GPA_GetSample*'s answer stored as `type`, the counter's own (an integer
 * type is an integer counter, clamped to the type): from a raw count u when
 * `exact`, else from the computed value d. */
static inline __attribute__((always_inline)) void store_typed(GPA_Type type, void *result,
                                                              double d, uint64_t u, bool exact)
{
	switch (type) {
	case GPA_TYPE_FLOAT64:
		*(double *)result = exact ? og_arith_result((double)u) : d;
		break;
	case GPA_TYPE_FLOAT32:
		*(float *)result = (float)(exact ? og_arith_result((double)u) : d);
		break;
	case GPA_TYPE_UINT32:
		*(uint32_t *)result = (uint32_t)(exact ? og_arith_clamp_u64(u, UINT32_MAX)
		                                       : og_arith_to_u64(d, UINT32_MAX));
		break;
	default:
		*(uint64_t *)result = exact ? u : og_arith_to_u64(d, UINT64_MAX);
		break;
	}
}

/* og_session_get_sample's generated code, in a read section it ends: out
 * of line, so that the caller calls nothing but in its tail. */
static __attribute__((noinline)) GPA_Status native_result(const struct recipe *r,
                                                          const uint64_t *row, GPA_Type type,
                                                          void *result)
{
	double d = r->fn(row + r->slot, r->k);
	og_read_exit(og_this_reader);
	store_typed(type, result, d, 0, false);
	return GPA_STATUS_OK;
}

GPA_Status og_session_get_sample(uint32_t id, uint32_t sample_id, uint32_t counter,
                                 GPA_Type type, void *result, og_get_sample_fn *locked)
{
	struct og_reader *rd = og_read_enter();
	if (!rd || !result)
		goto locked;
	/* What GPA_GetSample*'s checks look at, in any order: a false answer
	 * leaves them to the locked path. */
	const struct og_context *ctx;
	uint8_t how;
	const struct og_session *s = unlocked_find(id, &ctx, &how);
	if (!s || counter >= s->ncatalog ||
	    !__atomic_load_n(&ctx->sel.is_enabled[counter], __ATOMIC_RELAXED))
		goto out;
	const struct recipe *r = s->recipe_of[counter];
	size_t index;
	if (!r || r->type != type || !index_find(s, sample_id, &index))
		goto out;
	if (how != UNLOCKED_COMPLETE) {
		const struct sample *smp = &s->samples[index];
		if (smp->failed || (smp->passes & r->need) != r->need)
			goto out;
	}
	const uint64_t *row = &s->values[index * s->nslots];
	/* The type is the counter's: an integer type is an integer counter,
	 * clamped to the type. */
	if (r->kind == READ_NATIVE)
		return native_result(r, row, type, result);
	if (r->kind == READ_RAW) {
		uint64_t u = row[r->slot];
		og_read_exit(rd);
		store_typed(type, result, 0.0, u, true);
		return GPA_STATUS_OK;
	}
	/* The interpreter uses the context's scratch: under the lock. */
out:
	og_read_exit(rd);
locked:
	return locked(id, sample_id, counter, type, result);
}

/* Every counter from a complete row: the blocks' functions (their outputs
 * in set_out), then the recipes.  ctx only for the interpreter. */
static void read_row(struct og_context *ctx, const struct og_session *s, const uint64_t *row,
                     union og_value *out, union og_value *set_out)
{
	/* The whole set, in its order: its function writes the answer. */
	if (s->direct) {
		s->blocks[0].set->fn(row + s->blocks[0].base, s->blocks[0].set->k, out);
		return;
	}
	for (size_t b = 0; b < s->nblocks; b++)
		og_native_run(s->blocks[b].set, row + s->blocks[b].base, &set_out[b * s->set_stride]);
	if (s->nruns) {
		for (size_t i = 0; i < s->nruns; i++)
			memcpy(&out[s->runs[i].to], &set_out[s->runs[i].from],
			       s->runs[i].n * sizeof(*out));
		return;
	}
	for (size_t k = 0; k < s->ncounters; k++) {
		const struct recipe *r = &s->recipes[k];
		double v;
		switch (r->kind) {
		case READ_RAW:
			if (r->integer)
				out[k].u = og_arith_clamp_u64(row[r->slot], r->max);
			else
				out[k].d = og_arith_result((double)row[r->slot]);
			continue;
		case READ_NATIVE:
			out[k] = set_out[r->block * s->set_stride + r->position];
			continue;
		default:
			v = interpret(ctx, s, row, &ctx->cat.counters[s->counters[k]]);
			if (r->integer)
				out[k].u = og_arith_to_u64(v, r->max);
			else
				out[k].d = v;
			continue;
		}
	}
}

GPA_Status og_session_read(struct og_context *ctx, struct og_session *s, uint32_t sample_id,
                           union og_value *out)
{
	if (is_total(s, sample_id)) {
		for (size_t k = 0; k < s->ncounters; k++) {
			double v;
			uint64_t exact;
			bool is_exact;
			GPA_Status st = total_result(ctx, s, s->counters[k], &v, &exact, &is_exact);
			if (st != GPA_STATUS_OK)
				return st;
			const struct recipe *r = &s->recipes[k];
			if (r->integer)
				out[k].u = is_exact ? og_arith_clamp_u64(exact, r->max)
				                    : og_arith_to_u64(v, r->max);
			else
				out[k].d = v;
		}
		return GPA_STATUS_OK;
	}
	size_t index;
	GPA_Status st = readable(ctx, s, sample_id, s->need_all, &index);
	if (st != GPA_STATUS_OK)
		return st;
	/* The GPU time of the API's counters, waited for: the first of them
	 * says why it is missing, as reading it alone would. */
	if (s->uses_api && (!collect(s, index, true) || s->samples[index].api_failed))
		for (size_t k = 0; k < s->ncounters; k++)
			if (s->recipes[k].api)
				return og_error(GPA_STATUS_ERROR_READING_COUNTER_RESULT,
				                "counter %s of sample %u (session %u) has no GPU time from the "
				                "API%s (the earlier message says why); the sample's other "
				                "counters are fine", ctx->cat.counters[s->counters[k]].name,
				                sample_id, s->id,
				                s->samples[index].api_failed ? "" : " on this thread");
	read_row(ctx, s, &s->values[index * s->nslots], out, s->set_out);
	return GPA_STATUS_OK;
}

GPA_Status og_session_get_results(uint32_t id, uint32_t sample_id, uint32_t count,
                                  union og_value *out, og_get_results_fn *locked)
{
	struct og_reader *rd = og_read_enter();
	if (!rd || !out)
		goto locked;
	const struct og_context *ctx;
	uint8_t how;
	const struct og_session *s = unlocked_find(id, &ctx, &how);
	size_t index;
	/* The interpreter uses the context's scratch, and the blocks' outputs
	 * go to the stack: both only so far. */
	if (!s || count < s->ncounters || s->interpreted ||
	    s->nblocks * s->set_stride > UNLOCKED_SET_OUT || !index_find(s, sample_id, &index))
		goto out;
	if (how != UNLOCKED_COMPLETE) {
		const struct sample *smp = &s->samples[index];
		if (smp->failed || (smp->passes & s->need_all) != s->need_all)
			goto out;
	}
	union og_value set_out[UNLOCKED_SET_OUT];
	read_row(NULL, s, &s->values[index * s->nslots], out, set_out);
	og_read_exit(rd);
	return GPA_STATUS_OK;
out:
	og_read_exit(rd);
locked:
	return locked(id, sample_id, count, out);
}

GPA_Status og_session_sample_raws(const struct og_context *ctx, const struct og_session *s,
                                  uint32_t sample_id, uint64_t *by_backend_id, size_t n)
{
	size_t index;
	if (!index_find(s, sample_id, &index))
		return GPA_STATUS_ERROR_SAMPLE_NOT_FOUND;
	for (size_t r = 0; r < ctx->cat.nraw; r++) {
		uint32_t id = ctx->cat.raws[r].backend_id;
		if (s->slot_of_raw[r].slot != UINT32_MAX && id < n)
			by_backend_id[id] = s->values[index * s->nslots + s->slot_of_raw[r].slot];
	}
	return GPA_STATUS_OK;
}

size_t og_session_raw_count(const struct og_session *s)
{
	return s->nslots;
}
