/* SPDX-License-Identifier: MIT */
/*
 * session.c — sessions, passes and samples, and the ring of finished
 * sessions whose results stay readable.
 *
 * A session copies the plan and the enabled counters when it begins, so
 * results stay readable after the client enables other counters.  Each
 * sample keeps one uint64 per raw counter of the plan ("slots"), filled by
 * the pass that counts it; results are computed from those when queried.
 *
 * A periodic session (OpenGPA_SetSamplingPeriod) has one pass whose samples
 * the core appends itself (session_periodic.c, og_session_append): each is
 * readable as soon as it is complete, while the pass goes on.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/registry.h"
#include "core/session_internal.h"

struct sample {
	uint32_t id;
	int32_t last_pass; /* pass it was last begun in; -1 before */
	uint64_t passes;   /* bit p: ended in pass p */
	bool failed;       /* the backend could not read it */
	double coverage;   /* least share of it the counters really counted */
	uint64_t computed; /* bit n: native binding n's results are in s->results */
	struct og_sample_time time; /* of the first pass that counted it */
};

struct og_session {
	uint32_t id;
	bool ended;
	pthread_t owner;

	/* What the session counts, fixed at begin. */
	uint32_t *counters; /* enabled counter indices, enable order */
	size_t ncounters;
	uint8_t *has_counter; /* per catalogue counter */
	size_t npasses;
	/* Per catalogue raw: where its value is kept and which pass counts it;
	 * slot UINT32_MAX when the session does not count it. */
	struct raw_slot {
		uint32_t slot;
		uint32_t pass;
	} *slot_of_raw;
	size_t nslots;
	struct {
		size_t first_slot; /* the pass's raws have consecutive slots */
		size_t n;
		uint32_t *backend_ids;
		size_t *group_sizes; /* multiplexed pass; NULL otherwise */
		size_t ngroups;
	} pass[OG_MAX_PASSES];

	/* Progress. */
	bool pass_open;
	uint32_t pass_index; /* the open pass, or the number of passes begun */
	uint32_t passes_done;
	bool sample_open;
	size_t cur; /* index of the open sample */
	uint64_t cur_begin_ns; /* when the open sample began */
	uint32_t in_pass, in_first_pass;
	bool backend_pass; /* begin_pass succeeded and end_pass is owed */

	/* Samples, in the order they first appeared, and their values. */
	struct sample *samples;
	uint64_t *values; /* nsamples * nslots */
	size_t nsamples, cap;
	/* Sample id -> index.  Most clients number samples 0, 1, 2...: while
	 * every id is the first one plus its index the lookup is arithmetic
	 * (dense); the first id out of line builds a hash index (sparse):
	 * id -> index + 1, open addressing, 0 = empty. */
	bool sparse;
	uint32_t *index_keys;
	uint32_t *index_vals;
	size_t index_cap;
	uint64_t *deltas; /* one pass's values from the backend */

	/* Counters a built-in set's generated code computes (catalog.h) are
	 * computed a whole set per sample, on the first read of one of them,
	 * and kept: results[sample * nbatched + result_col[counter]]. */
	uint32_t *result_col; /* per catalogue counter; UINT32_MAX: interpreted */
	size_t nbatched;
	double *results;      /* allocated on the first read, results_rows rows */
	size_t results_rows;
	double *set_out;      /* one set's outputs */

	/* Periodic sampling (session_periodic.c); period_ns 0 = the client's
	 * samples.  Samples [0, nsamples) are complete; the timer thread or the
	 * kernel adds the next. */
	uint64_t period_ns;
	struct og_periodic *periodic; /* while the pass is sampled */
	bool kernel_timed;
	bool ending; /* EndPass is stopping the sampling, lock released */
};

uint32_t og_session_id(const struct og_session *s)
{
	return s->id;
}

void og_session_free(struct og_session *s)
{
	if (!s)
		return;
	for (size_t p = 0; p < s->npasses; p++) {
		free(s->pass[p].backend_ids);
		free(s->pass[p].group_sizes);
	}
	free(s->counters);
	free(s->has_counter);
	free(s->slot_of_raw);
	free(s->samples);
	free(s->values);
	free(s->index_keys);
	free(s->index_vals);
	free(s->deltas);
	free(s->result_col);
	free(s->results);
	free(s->set_out);
	og_periodic_free(s->periodic);
	free(s);
}

/* ---- sample id index ------------------------------------------------- */

static size_t id_hash(uint32_t id, size_t cap)
{
	return (size_t)((id * 2654435761u) & (cap - 1));
}

static bool index_find(const struct og_session *s, uint32_t id, size_t *index)
{
	if (!s->sparse) {
		uint32_t offset = id - (s->nsamples ? s->samples[0].id : 0); /* wraps like the ids */
		if (offset >= s->nsamples)
			return false;
		*index = offset;
		return true;
	}
	for (size_t i = id_hash(id, s->index_cap);; i = (i + 1) & (s->index_cap - 1)) {
		if (!s->index_vals[i])
			return false;
		if (s->index_keys[i] == id) {
			*index = s->index_vals[i] - 1;
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
static bool hash_reserve(struct og_session *s, size_t count)
{
	if (count * 2 <= s->index_cap)
		return true;
	size_t cap = s->index_cap ? s->index_cap : 64;
	while (count * 2 > cap)
		cap *= 2;
	uint32_t *keys = calloc(cap, sizeof(*keys));
	uint32_t *vals = calloc(cap, sizeof(*vals));
	if (!keys || !vals) {
		free(keys);
		free(vals);
		return false;
	}
	for (size_t i = 0; i < s->index_cap; i++)
		if (s->index_vals[i])
			hash_put(keys, vals, cap, s->index_keys[i], s->index_vals[i] - 1);
	free(s->index_keys);
	free(s->index_vals);
	s->index_keys = keys;
	s->index_vals = vals;
	s->index_cap = cap;
	return true;
}

/* Records that sample `index` (about to be stored) has `id`. */
static bool index_insert(struct og_session *s, uint32_t id, size_t index)
{
	if (!s->sparse) {
		if (index == 0 || id == s->samples[0].id + (uint32_t)index)
			return true; /* still dense */
		if (!hash_reserve(s, index + 1))
			return false;
		for (size_t i = 0; i < index; i++)
			hash_put(s->index_keys, s->index_vals, s->index_cap, s->samples[i].id, i);
		s->sparse = true;
	}
	if (!hash_reserve(s, index + 1))
		return false;
	hash_put(s->index_keys, s->index_vals, s->index_cap, id, index);
	return true;
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
	s->samples[s->nsamples] = (struct sample){ .id = id, .last_pass = -1, .coverage = 1.0 };
	memset(&s->values[s->nsamples * s->nslots], 0, s->nslots * sizeof(uint64_t));
	*index = s->nsamples++;
	return true;
}

/* ---- begin / end ----------------------------------------------------- */

/* Gives each enabled counter with generated code a results column, when
 * computing its whole set pays: the generated code costs about a quarter
 * of interpreting one counter per counter of the set (bench/mali: 1.6 ns
 * against 6.9 ns), so a session that enables fewer than a quarter of a set
 * interprets them. */
static bool plan_batches(struct og_session *s, const struct og_catalog *cat)
{
	s->result_col = malloc((cat->ncounters + 1) * sizeof(*s->result_col));
	if (!s->result_col)
		return false;
	for (size_t c = 0; c < cat->ncounters; c++)
		s->result_col[c] = UINT32_MAX;
	/* sample.computed has a bit for each of the first 64 bindings. */
	uint32_t enabled_in[64] = { 0 };
	for (size_t i = 0; i < s->ncounters; i++) {
		const struct og_counter *c = &cat->counters[s->counters[i]];
		if (c->native && c->native->index < 64)
			enabled_in[c->native->index]++;
	}
	uint32_t widest = 0;
	for (size_t i = 0; i < s->ncounters; i++) {
		const struct og_counter *c = &cat->counters[s->counters[i]];
		if (!c->native || c->native->index >= 64 ||
		    4 * enabled_in[c->native->index] < c->native->ncounters)
			continue;
		s->result_col[s->counters[i]] = (uint32_t)s->nbatched++;
		if (c->native->ncounters > widest)
			widest = c->native->ncounters;
	}
	s->set_out = malloc((widest + 1) * sizeof(*s->set_out));
	return s->set_out != NULL;
}

static struct og_session *session_create(struct og_context *ctx, const struct og_plan *plan)
{
	const struct og_catalog *cat = &ctx->cat;
	struct og_session *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->counters = malloc((ctx->nenabled + 1) * sizeof(*s->counters));
	s->has_counter = calloc(cat->ncounters + 1, 1);
	s->slot_of_raw = malloc((cat->nraw + 1) * sizeof(*s->slot_of_raw));
	if (!s->counters || !s->has_counter || !s->slot_of_raw)
		goto oom;
	memcpy(s->counters, ctx->enabled, ctx->nenabled * sizeof(*s->counters));
	s->ncounters = ctx->nenabled;
	for (size_t i = 0; i < ctx->nenabled; i++)
		s->has_counter[ctx->enabled[i]] = 1;
	for (size_t r = 0; r < cat->nraw; r++)
		s->slot_of_raw[r] = (struct raw_slot){ UINT32_MAX, 0 };

	size_t maxn = 0;
	for (size_t p = 0; p < plan->npasses; p++) {
		const struct og_pass *pp = &plan->passes[p];
		s->pass[p].first_slot = s->nslots;
		s->pass[p].n = pp->n;
		s->pass[p].backend_ids = malloc((pp->n + 1) * sizeof(uint32_t));
		s->npasses = p + 1;
		if (!s->pass[p].backend_ids)
			goto oom;
		memcpy(s->pass[p].backend_ids, pp->backend_ids, pp->n * sizeof(uint32_t));
		if (pp->ngroups > 1) {
			s->pass[p].group_sizes = malloc(pp->ngroups * sizeof(size_t));
			if (!s->pass[p].group_sizes)
				goto oom;
			memcpy(s->pass[p].group_sizes, pp->group_sizes, pp->ngroups * sizeof(size_t));
			s->pass[p].ngroups = pp->ngroups;
		}
		for (size_t i = 0; i < pp->n; i++)
			s->slot_of_raw[pp->raws[i]] = (struct raw_slot){ (uint32_t)(s->nslots + i), (uint32_t)p };
		s->nslots += pp->n;
		if (pp->n > maxn)
			maxn = pp->n;
	}
	s->deltas = calloc(maxn + 1, sizeof(*s->deltas));
	if (!s->deltas || !plan_batches(s, cat))
		goto oom;
	s->owner = pthread_self();
	return s;
oom:
	og_session_free(s);
	return NULL;
}

GPA_Status og_session_begin(struct og_context *ctx, uint32_t *id)
{
	if (ctx->open_session)
		return og_error(GPA_STATUS_ERROR_SAMPLING_ALREADY_STARTED,
		                "GPA_BeginSession: session %u is still open; call GPA_EndSession first",
		                ctx->open_session->id);
	const struct og_plan *plan;
	GPA_Status st = og_context_plan(ctx, &plan);
	if (st != GPA_STATUS_OK)
		return st;
	if (plan->npasses == 0)
		return og_error(GPA_STATUS_ERROR_NO_COUNTERS_ENABLED,
		                "GPA_BeginSession: no counters are enabled; enable some with "
		                "GPA_EnableCounter or GPA_EnableAllCounters first");
	if (ctx->period_ns && (st = og_periodic_check_plan(ctx, plan)) != GPA_STATUS_OK)
		return st;
	struct og_session *s = session_create(ctx, plan);
	if (!s)
		return og_error(GPA_STATUS_ERROR_FAILED, "GPA_BeginSession: out of memory");
	s->period_ns = ctx->period_ns;
	s->id = ctx->next_session_id++;
	/* The ring slot's previous session is overwritten: the oldest one. */
	struct og_session **slot = &ctx->ring[(s->id - 1) % ctx->ring_size];
	og_session_free(*slot);
	*slot = s;
	ctx->open_session = s;
	*id = s->id;
	return GPA_STATUS_OK;
}

GPA_Status og_session_end(struct og_context *ctx)
{
	struct og_session *s = ctx->open_session;
	if (!s)
		return og_error(GPA_STATUS_ERROR_SAMPLING_NOT_STARTED,
		                "GPA_EndSession: no session is open; call GPA_BeginSession first");
	if (s->pass_open)
		return og_error(GPA_STATUS_ERROR_PASS_NOT_ENDED,
		                "GPA_EndSession: pass %u is still open; call GPA_EndPass first",
		                s->pass_index);
	s->ended = true;
	ctx->open_session = NULL;
	og_session_notify();
	if (s->passes_done < s->npasses)
		return og_error(GPA_STATUS_ERROR_NOT_ENOUGH_PASSES,
		                "GPA_EndSession: session %u ended after %u of the %zu passes its "
		                "counters need; loop GPA_BeginPass/GPA_EndPass GPA_GetPassCount times "
		                "(the counters of the missing passes have no results)",
		                s->id, s->passes_done, s->npasses);
	return GPA_STATUS_OK;
}

GPA_Status og_pass_begin(struct og_context *ctx)
{
	struct og_session *s = ctx->open_session;
	if (!s)
		return og_error(GPA_STATUS_ERROR_SAMPLING_NOT_STARTED,
		                "GPA_BeginPass: no session is open; call GPA_BeginSession first");
	if (s->pass_open)
		return og_error(GPA_STATUS_ERROR_PASS_ALREADY_STARTED,
		                "GPA_BeginPass: pass %u is already open; call GPA_EndPass first",
		                s->pass_index);
	s->pass_open = true;
	s->in_pass = 0;
	s->backend_pass = false;
	if (s->pass_index >= s->npasses)
		return GPA_STATUS_OK; /* an extra pass: nothing to count, as in GPA */
	const uint32_t *ids = s->pass[s->pass_index].backend_ids;
	size_t n = s->pass[s->pass_index].n;
	GPA_Status st = s->pass[s->pass_index].ngroups > 1
	                        ? ctx->ops->begin_multiplexed_pass(ctx->state, ids, n,
	                                                           s->pass[s->pass_index].group_sizes,
	                                                           s->pass[s->pass_index].ngroups)
	                        : ctx->ops->begin_pass(ctx->state, ids, n);
	if (st != GPA_STATUS_OK) {
		s->pass_open = false;
		return st; /* the backend said why */
	}
	s->backend_pass = true;
	if (s->period_ns && (st = og_periodic_start(ctx, s)) != GPA_STATUS_OK) {
		ctx->ops->end_pass(ctx->state);
		s->backend_pass = false;
		s->pass_open = false;
		return st;
	}
	return GPA_STATUS_OK;
}

GPA_Status og_pass_end(struct og_context *ctx)
{
	struct og_session *s = ctx->open_session;
	if (!s)
		return og_error(GPA_STATUS_ERROR_SAMPLING_NOT_STARTED,
		                "GPA_EndPass: no session is open; call GPA_BeginSession first");
	if (!s->pass_open)
		return og_error(GPA_STATUS_ERROR_PASS_NOT_STARTED,
		                "GPA_EndPass: no pass is open; call GPA_BeginPass first");
	if (s->sample_open)
		return og_error(GPA_STATUS_ERROR_SAMPLE_NOT_ENDED,
		                "GPA_EndPass: sample %u is still open; call GPA_EndSample first",
		                s->samples[s->cur].id);
	if (s->ending)
		return og_error(GPA_STATUS_ERROR_PASS_NOT_STARTED,
		                "GPA_EndPass: another thread is already ending pass %u", s->pass_index);
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
	bool counted = s->pass_index < s->npasses;
	uint32_t pass = s->pass_index;
	s->pass_open = false;
	s->backend_pass = false;
	s->pass_index++;
	if (counted)
		s->passes_done++;
	if (pass == 0)
		s->in_first_pass = s->in_pass;
	og_session_notify();
	if (st != GPA_STATUS_OK)
		return st;
	if (counted && pass > 0 && s->in_pass != s->in_first_pass)
		return og_error(GPA_STATUS_ERROR_VARIABLE_NUMBER_OF_SAMPLES_IN_PASSES,
		                "GPA_EndPass: pass %u had %u samples but pass 0 had %u; every pass "
		                "must sample the same workload with the same sample IDs",
		                pass, s->in_pass, s->in_first_pass);
	return GPA_STATUS_OK;
}

GPA_Status og_sample_begin(struct og_context *ctx, uint32_t sample_id)
{
	struct og_session *s = ctx->open_session;
	if (!s)
		return og_error(GPA_STATUS_ERROR_SAMPLING_NOT_STARTED,
		                "GPA_BeginSample: no session is open; call GPA_BeginSession first");
	if (!s->pass_open)
		return og_error(GPA_STATUS_ERROR_PASS_NOT_STARTED,
		                "GPA_BeginSample: no pass is open; call GPA_BeginPass first");
	if (s->sample_open)
		return og_error(GPA_STATUS_ERROR_SAMPLE_ALREADY_STARTED,
		                "GPA_BeginSample(%u): sample %u is still open; samples cannot nest, "
		                "call GPA_EndSample first", sample_id, s->samples[s->cur].id);
	if (s->pass_index >= s->npasses)
		return GPA_STATUS_OK;
	if (s->period_ns)
		return og_error(GPA_STATUS_ERROR_SAMPLE_ALREADY_STARTED,
		                "GPA_BeginSample(%u): session %u samples every %.3f ms by itself "
		                "between GPA_BeginPass and GPA_EndPass; read its samples 0, 1, ... "
		                "instead of beginning your own", sample_id, s->id,
		                (double)s->period_ns / 1e6);
	size_t index;
	if (index_find(s, sample_id, &index)) {
		if (s->samples[index].last_pass == (int32_t)s->pass_index)
			return og_error(GPA_STATUS_ERROR_SAMPLE_ALREADY_STARTED,
			                "GPA_BeginSample(%u): this sample ID was already used in pass %u; "
			                "IDs must be unique within a pass",
			                sample_id, s->pass_index);
	} else if (!add_sample(s, sample_id, &index)) {
		return og_error(GPA_STATUS_ERROR_FAILED, "GPA_BeginSample: out of memory");
	}
	GPA_Status st = ctx->ops->begin_sample(ctx->state);
	s->samples[index].last_pass = (int32_t)s->pass_index;
	s->in_pass++;
	if (st != GPA_STATUS_OK) {
		/* Counted as begun (the pass's sample count stays right) but failed. */
		s->samples[index].failed = true;
		return st;
	}
	s->sample_open = true;
	s->cur = index;
	s->cur_begin_ns = og_clock_monotonic_ns();
	return GPA_STATUS_OK;
}

GPA_Status og_sample_end(struct og_context *ctx)
{
	struct og_session *s = ctx->open_session;
	if (!s)
		return og_error(GPA_STATUS_ERROR_SAMPLING_NOT_STARTED,
		                "GPA_EndSample: no session is open; call GPA_BeginSession first");
	if (!s->pass_open)
		return og_error(GPA_STATUS_ERROR_PASS_NOT_STARTED,
		                "GPA_EndSample: no pass is open; call GPA_BeginPass first");
	if (s->pass_index >= s->npasses)
		return GPA_STATUS_OK;
	if (s->period_ns)
		return og_error(GPA_STATUS_ERROR_SAMPLE_NOT_STARTED,
		                "GPA_EndSample: session %u samples by itself every %.3f ms; there is "
		                "no sample of yours to end", s->id, (double)s->period_ns / 1e6);
	if (!s->sample_open)
		return og_error(GPA_STATUS_ERROR_SAMPLE_NOT_STARTED,
		                "GPA_EndSample: no sample is open; call GPA_BeginSample first");
	struct sample *smp = &s->samples[s->cur];
	s->sample_open = false;
	size_t n = s->pass[s->pass_index].n;
	uint64_t end_ns = og_clock_monotonic_ns();
	GPA_Status st = ctx->ops->end_sample(ctx->state, s->deltas);
	if (!smp->passes && !smp->time.end_ns) {
		/* The first pass that gets this far gives the sample its times. */
		smp->time = (struct og_sample_time){ s->cur_begin_ns, end_ns, 0 };
		struct og_sample_time kt;
		if (st == GPA_STATUS_OK && ctx->ops->sample_time &&
		    ctx->ops->sample_time(ctx->state, &kt))
			smp->time = kt;
	}
	if (st != GPA_STATUS_OK) {
		smp->failed = true;
		return st;
	}
	memcpy(&s->values[s->cur * s->nslots + s->pass[s->pass_index].first_slot], s->deltas,
	       n * sizeof(uint64_t));
	smp->passes |= 1ull << s->pass_index;
	if (ctx->ops->sample_coverage) {
		double c = ctx->ops->sample_coverage(ctx->state);
		if (c < smp->coverage)
			smp->coverage = c > 0.0 ? c : 0.0;
	}
	return GPA_STATUS_OK;
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

GPA_Status og_session_append(struct og_session *s, const uint64_t *deltas,
                             const struct og_sample_time *t, double coverage)
{
	size_t index;
	if (!add_sample(s, (uint32_t)s->nsamples, &index))
		return og_error(GPA_STATUS_ERROR_FAILED,
		                "periodic sampling of session %u stopped at sample %zu: out of memory "
		                "(the samples so far stay readable; sample less often)",
		                s->id, s->nsamples);
	struct sample *smp = &s->samples[index];
	smp->last_pass = 0;
	smp->time = *t;
	if (t->flags & OG_SAMPLE_FAILED) {
		smp->failed = true;
	} else {
		memcpy(&s->values[index * s->nslots + s->pass[0].first_slot], deltas,
		       s->pass[0].n * sizeof(uint64_t));
		smp->passes = 1;
		smp->coverage = coverage > 0.0 && coverage < 1.0 ? coverage : 1.0;
	}
	s->in_pass++;
	og_session_notify();
	return GPA_STATUS_OK;
}

void og_session_flag_last(struct og_session *s, uint32_t flags)
{
	if (s->nsamples)
		s->samples[s->nsamples - 1].time.flags |= flags;
}

size_t og_session_complete(const struct og_session *s)
{
	return s->nsamples;
}

/* ---- queries ----------------------------------------------------------- */

struct og_session *og_session_find(struct og_context *ctx, uint32_t id)
{
	if (id == 0 || !ctx->ring_size)
		return NULL;
	struct og_session *s = ctx->ring[(id - 1) % ctx->ring_size];
	return s && s->id == id ? s : NULL;
}

bool og_pass_is_open(const struct og_session *s)
{
	return s->pass_open;
}

bool og_session_has_sample(const struct og_session *s, uint32_t sample_id)
{
	size_t index;
	return index_find(s, sample_id, &index);
}

GPA_Status og_session_sample_coverage(struct og_session *s, uint32_t sample_id, double *coverage)
{
	size_t index;
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
	return s->has_counter[counter] != 0;
}

GPA_Status og_session_sample_count(struct og_session *s, uint32_t *count)
{
	if (s->pass_index == 0 && !s->pass_open)
		return og_error(GPA_STATUS_ERROR_NOT_FOUND,
		                "GPA_GetSampleCount: session %u has no pass yet", s->id);
	/* Pass 0 defines the samples; while it is open, count what it has so far. */
	*count = s->pass_index == 0 ? s->in_pass : s->in_first_pass;
	return GPA_STATUS_OK;
}

bool og_session_ready(const struct og_session *s)
{
	return s->ended || s->passes_done >= s->npasses;
}

static uint64_t all_passes(const struct og_session *s)
{
	uint32_t done = s->passes_done < s->npasses ? s->passes_done : (uint32_t)s->npasses;
	return done >= 64 ? ~0ull : (1ull << done) - 1;
}

GPA_Status og_session_sample_ready(struct og_session *s, uint32_t sample_id, bool *ready)
{
	size_t index;
	if (!index_find(s, sample_id, &index))
		return og_error(GPA_STATUS_ERROR_SAMPLE_NOT_FOUND,
		                "sample %u is not in session %u", sample_id, s->id);
	*ready = og_session_ready(s) || s->period_ns; /* periodic: stored = complete */
	if (*ready && (s->samples[index].passes & all_passes(s)) != all_passes(s) &&
	    !s->samples[index].failed)
		return og_error(GPA_STATUS_ERROR_SAMPLE_NOT_FOUND_IN_ALL_PASSES,
		                "sample %u of session %u is missing from some passes; sample the same "
		                "IDs in every pass", sample_id, s->id);
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
		if (og_session_ready(s) || (sample && s->period_ns && index_find(s, *sample, &index))) {
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
		size_t have = s->period_ns || ready ? s->nsamples : 0;
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
	if (!index_find(s, sample_id, &index))
		return og_error(GPA_STATUS_ERROR_SAMPLE_NOT_FOUND,
		                "session %u has no sample %u", s->id, sample_id);
	*t = s->samples[index].time;
	if (s->samples[index].failed)
		t->flags |= OG_SAMPLE_FAILED;
	return GPA_STATUS_OK;
}

bool og_session_kernel_timed(const struct og_session *s)
{
	return s->kernel_timed;
}

/* Row `index` of s->results with the outputs of counter c's set in it, or
 * NULL without memory (the caller then interprets c). */
static const double *batch_row(struct og_context *ctx, struct og_session *s, size_t index,
                               const struct og_counter *c)
{
	if (index >= s->results_rows) {
		/* A periodic session keeps growing after the first read. */
		size_t rows = s->nsamples > 2 * s->results_rows ? s->nsamples : 2 * s->results_rows;
		double *results = realloc(s->results, (rows * s->nbatched + 1) * sizeof(*results));
		if (!results)
			return NULL;
		s->results = results;
		s->results_rows = rows;
	}
	struct sample *smp = &s->samples[index];
	const struct og_native_binding *set = c->native;
	uint64_t bit = 1ull << set->index;
	double *row = &s->results[index * s->nbatched];
	if (smp->computed & bit)
		return row;
	/* Every input this sample has of the set's enabled counters.  Inputs
	 * it lacks keep stale values: the counters that read them fail in
	 * og_session_result before their column is read. */
	const uint64_t *vals = &s->values[index * s->nslots];
	const struct og_counter *all = ctx->cat.counters;
	for (size_t i = 0; i < s->ncounters; i++) {
		const struct og_counter *e = &all[s->counters[i]];
		if (e->native != set)
			continue;
		for (size_t k = 0; k < e->ninputs; k++) {
			struct raw_slot where = s->slot_of_raw[e->inputs[k]];
			if (where.slot != UINT32_MAX && (smp->passes & (1ull << where.pass)))
				ctx->scratch[e->inputs[k]] = vals[where.slot];
		}
	}
	og_native_run(set, ctx->scratch, ctx->cat.const_values, s->set_out);
	for (size_t i = 0; i < s->ncounters; i++) {
		uint32_t col = s->result_col[s->counters[i]];
		if (col != UINT32_MAX && all[s->counters[i]].native == set)
			row[col] = s->set_out[all[s->counters[i]].native_pos];
	}
	smp->computed |= bit;
	return row;
}

GPA_Status og_session_result(struct og_context *ctx, struct og_session *s, uint32_t sample_id,
                             uint32_t counter, double *value, uint64_t *exact, bool *is_exact)
{
	size_t index;
	if (!index_find(s, sample_id, &index))
		return og_error(GPA_STATUS_ERROR_SAMPLE_NOT_FOUND,
		                "sample %u is not in session %u", sample_id, s->id);
	const struct sample *smp = &s->samples[index];
	const struct og_counter *c = &ctx->cat.counters[counter];
	if (smp->failed)
		return og_error(GPA_STATUS_ERROR_READING_COUNTER_RESULT,
		                "sample %u of session %u could not be read from the device (see the "
		                "earlier message); the session's other samples are fine",
		                sample_id, s->id);
	for (size_t i = 0; i < c->ninputs; i++) {
		uint32_t pass = s->slot_of_raw[c->inputs[i]].pass;
		if (s->slot_of_raw[c->inputs[i]].slot == UINT32_MAX || !(smp->passes & (1ull << pass)))
			return og_error(GPA_STATUS_ERROR_SAMPLE_NOT_FOUND_IN_ALL_PASSES,
			                "counter %s of sample %u (session %u) needs pass %u, which did not "
			                "sample it", c->name, sample_id, s->id, pass);
	}
	const uint64_t *vals = &s->values[index * s->nslots];
	*is_exact = c->exact_raw;
	if (c->exact_raw)
		*exact = vals[s->slot_of_raw[c->raw].slot];
	const double *row = s->result_col[counter] != UINT32_MAX ? batch_row(ctx, s, index, c) : NULL;
	if (row) {
		*value = row[s->result_col[counter]];
		return GPA_STATUS_OK;
	}
	for (size_t i = 0; i < c->ninputs; i++)
		ctx->scratch[c->inputs[i]] = vals[s->slot_of_raw[c->inputs[i]].slot];
	*value = og_expr_eval(c->expr, ctx->scratch, ctx->cat.const_values);
	return GPA_STATUS_OK;
}
