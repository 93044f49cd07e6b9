/* SPDX-License-Identifier: MIT */
/*
 * session.c — a session's life: begun from the plan, its passes and
 * samples begun and ended by the front ends, the API timer's results
 * collected, periodic samples appended.  What the front ends ask about its
 * progress is session_query.c's.
 *
 * A session copies the plan and the enabled counters when it begins, so
 * results stay readable after the client enables other counters.  Each
 * sample keeps one uint64 per raw counter of the plan ("slots"), filled by
 * the pass that counts it; results are computed from those when queried,
 * and nothing else is kept per sample.  The rest of the books are in files
 * of their own, over one struct (session_state.h):
 *   session_ids.c      sample id -> index maps, a new sample's row
 *   session_layout.c   the slots, the pairs each pass scatters by, recipes
 *   session_wait.c     readiness and waiting, sample times
 *   session_results.c  reading results: single, batch, totals, unlocked
 *   session_query.c    where a session stands: ring lookup, passes, samples
 *
 * Why one file over 600 lines: a sample's begin and end, the plain path
 * (begin_quick, end_quick) beside the general one, are static inline
 * helpers that the API's one core call per BeginSample and EndSample
 * inlines; split across files they would be calls again on the hot path.
 *
 * The functions here keep the books; the front ends check the caller's
 * order of calls first, each in its own API's order and statuses (2.x
 * numbers its passes itself, 3.x/4.x name them in BeginCommandList).
 *
 * A periodic session (OpenGPA_SetSamplingPeriod) has one pass whose samples
 * the core appends itself (session_periodic.c, og_session_append): each is
 * readable as soon as it is complete, while the pass goes on.
 *
 * Why one file over 600 lines: what is left here is a session's life and
 * the sample begin/end path, which the benchmark of issue 29 keeps in one
 * unit on purpose: the begin and end of a planned sample are static and
 * inlined into the entry points that call them (no call per sample), which
 * a split across files would undo; every other book is in its own file.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "apictx/apictx.h"
#include "core/readers.h"
#include "core/registry.h"
#include "core/session_internal.h"
#include "core/session_state.h"


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
	for (size_t i = 0; s->api_tokens && i < s->nsamples; i++)
		if (s->api_tokens[i])
			og_apictx_release(s->api, s->api_tokens[i]);
	free(s->api_tokens);
	free(s->long_ends);
	free(s->long_end_at.keys);
	free(s->long_end_at.vals);
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
	free(s->pairs);
	og_periodic_free(s->periodic);
	free(s);
}

GPA_Status og_session_start(struct og_context *ctx, struct og_selection *sel,
                            struct og_session **out)
{
	const struct og_plan *plan;
	GPA_Status st = og_selection_plan(ctx, sel, &plan);
	if (st != GPA_STATUS_OK)
		return st;
	struct og_session *s = og_session_create(ctx, sel, plan);
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
	s->sel_version = ctx->sel.version;
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

/* Where pass p's backend deltas can be written in a row as they come: the
 * first slot of a run that its pairs fill in order, one slot per delta
 * (the usual single pass); UINT32_MAX when they must be scattered. */
static uint32_t direct_slot(const struct og_session *s, uint32_t p)
{
	size_t n = s->pass[p].nbackend;
	if (!n || n > s->nslots || s->pass[p].npairs != n || s->pass[p].dst[0] > s->nslots - n)
		return UINT32_MAX;
	for (size_t k = 0; k < n; k++)
		if (s->pass[p].src[k] != k || s->pass[p].dst[k] != s->pass[p].dst[0] + k)
			return UINT32_MAX;
	return s->pass[p].dst[0];
}

GPA_Status og_pass_begin(struct og_context *ctx, struct og_session *s, uint32_t pass)
{
	s->backend_pass = false;
	s->pass_direct = pass < s->npasses ? direct_slot(s, pass) : UINT32_MAX;
	/* pass_direct set: a planned pass with backend deltas. */
	s->quick = s->pass_direct != UINT32_MAX && !s->api && s->frame_fd < 0 && !s->period_ns &&
	           !s->defer_device;
	if (pass >= s->npasses) {
		/* An extra pass: nothing to count, as in GPA 2.x. */
		og_session_map_clear(&s->extra);
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
bool og_session_collect(struct og_session *s, size_t index, bool wait)
{
	uint32_t token = sample_token(s, index);
	if (!token)
		return true;
	struct sample *smp = &s->samples[index];
	uint64_t v[OG_API_NVALUES];
	enum og_api_read r = og_apictx_read(s->api, token, wait, v);
	if (r == OG_API_PENDING)
		return false;
	if (r == OG_API_DONE)
		for (size_t k = 0; k < s->napi; k++)
			s->values[index * s->nslots + s->api_slot[k]] = v[s->api_value[k]];
	else
		smp->api_failed = true;
	og_apictx_release(s->api, token);
	s->api_tokens[index] = 0;
	return true;
}

/* Every result the API has, oldest first, up to the first it has not: the
 * GPU finishes in order.  True when none is pending. */
static bool collect_ready(struct og_session *s)
{
	while (s->api_scan < s->nsamples && og_session_collect(s, s->api_scan, false))
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

bool og_session_results_ready(struct og_session *s)
{
	return og_session_ready(s) && !s->owed && (!s->api || collect_ready(s));
}

bool og_session_pass_results_ready(struct og_session *s, uint32_t pass)
{
	return !s->owed && ((int32_t)pass != s->api_pass || collect_ready(s));
}

/* ---- device counts after recording (core.h) ------------------------------ */

void og_session_defer_device(struct og_session *s)
{
	s->defer_device = true;
	s->quick = false;
}

size_t og_session_pass_device_count(const struct og_session *s, uint32_t pass)
{
	return pass < s->npasses ? s->pass[pass].nbackend : 0;
}

size_t og_session_owed(const struct og_session *s)
{
	return s->owed;
}

GPA_Status og_session_deliver(struct og_session *s, uint32_t id, uint32_t pass,
                              const uint64_t *deltas)
{
	size_t index;
	if (!s->defer_device || pass >= s->npasses || !index_find(s, id, &index) ||
	    !s->samples[index].owed || !(s->samples[index].begun & (1ull << pass)) ||
	    (s->samples[index].passes & (1ull << pass)))
		return og_error(GPA_STATUS_ERROR_FAILED, "sample %u of session %u owes no device "
		                "counts in pass %u (internal error)", id, s->id, pass);
	struct sample *smp = &s->samples[index];
	smp->owed--;
	s->owed--;
	if (!deltas)
		smp->failed = true;
	else {
		scatter(s, index, pass, deltas);
		smp->passes |= 1ull << pass;
	}
	og_session_notify();
	return GPA_STATUS_OK;
}

static GPA_Status refuse_periodic(struct og_session *s, uint32_t id)
{
	return og_error(GPA_STATUS_ERROR_SAMPLE_ALREADY_STARTED,
	                "GPA_BeginSample(%u): session %u samples every %.3f ms by itself "
	                "between GPA_BeginPass and GPA_EndPass; read its samples 0, 1, ... "
	                "instead of beginning your own", id, s->id, (double)s->period_ns / 1e6);
}

static GPA_Status begin_extra(struct og_session *s, uint32_t id)
{
	if (!og_session_map_put(&s->extra, id, 0))
		return og_error(GPA_STATUS_ERROR_FAILED, "beginning sample %u: out of memory", id);
	s->extra_samples++;
	s->sample_open = true;
	s->cur_id = id;
	return GPA_STATUS_OK;
}

/* A new sample `id` at the end of the books (session_state.h). */
static inline bool store_sample(struct og_session *s, uint32_t id, size_t *index)
{
	return og_session_store_sample(s, id, index);
}

/* Sample `id` of a planned pass, not begun in it; `found`: its index is
 * already known (an id seen in an earlier pass).  Inlined into both
 * callers: every sample begins here. */
static inline __attribute__((always_inline)) GPA_Status
begin_planned(struct og_context *ctx, struct og_session *s, uint32_t id, bool found, size_t index)
{
	uint32_t pass = s->pass_index;
	if (!found && !store_sample(s, id, &index))
		return og_error(GPA_STATUS_ERROR_FAILED, "beginning sample %u: out of memory", id);
	/* On an application's API: results of earlier samples the GPU has
	 * finished come in, then its queue drains (or is flushed) so the
	 * snapshot comes after the commands before the sample. */
	GPA_Status st = GPA_STATUS_OK;
	if (s->api) {
		collect_ready(s);
		st = og_apictx_boundary(s->api, "BeginSample");
	}
	if (st == GPA_STATUS_OK && s->pass[pass].nbackend && !s->defer_device)
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
	if ((int32_t)pass == s->api_pass && !s->api_tokens[index] && !smp->api_failed) {
		if (og_apictx_time_begin(s->api, "BeginSample", &s->api_tokens[index]) != GPA_STATUS_OK)
			smp->api_failed = true;
		else if (index < s->api_scan)
			s->api_scan = index;
	}
	s->sample_open = true;
	s->cur = index;
	s->cur_id = id;
	s->cur_begin_ns = og_sample_clock_ns(&ctx->sample_clock);
	return GPA_STATUS_OK;
}

/* begin_planned's plain case (s->quick): a new sample `id`, the next of
 * ids in a row, with room left in the books.  Stored as
 * og_session_store_sample does, begun as begin_planned does. */
static inline __attribute__((always_inline)) GPA_Status
begin_quick(struct og_context *ctx, struct og_session *s, uint32_t id)
{
	size_t n = s->nsamples;
	uint32_t pass = s->pass_index;
	struct sample *smp = &s->samples[n];
	*smp = (struct sample){ .begun = 1ull << pass, .id = id, .coverage = 1.0f };
	uint64_t *row = &s->values[n * s->nslots];
	for (size_t k = 0; k < s->nslots; k++)
		row[k] = 0;
	s->nsamples = n + 1;
	s->pass_samples[pass]++;
	GPA_Status st = ctx->ops->begin_sample(ctx->state);
	if (st != GPA_STATUS_OK) {
		smp->failed = true; /* counted as begun, but failed */
		return st;
	}
	s->sample_open = true;
	s->cur = n;
	s->cur_id = id;
	s->cur_begin_ns = og_sample_clock_ns(&ctx->sample_clock);
	return GPA_STATUS_OK;
}

GPA_Status og_sample_begin(struct og_context *ctx, struct og_session *s, uint32_t id)
{
	if (s->period_ns && s->pass_index < s->npasses)
		return refuse_periodic(s, id);
	if (s->pass_index >= s->npasses)
		return begin_extra(s, id);
	size_t index = 0;
	bool found = index_find(s, id, &index);
	return begin_planned(ctx, s, id, found, index);
}

enum og_begin_refusal og_sample_begin_checked(struct og_context *ctx, struct og_session *s,
                                              uint32_t id, uint32_t *pass, uint32_t *open,
                                              GPA_Status *status)
{
	if (!s->pass_open)
		return OG_BEGIN_NO_PASS;
	*pass = s->pass_index;
	if (s->sample_open) {
		*open = s->cur_id;
		return OG_BEGIN_NESTED;
	}
	if (s->quick && s->nsamples && s->nsamples < s->cap && !s->sparse &&
	    id == s->first_id + (uint32_t)s->nsamples) {
		*status = begin_quick(ctx, s, id);
		return OG_BEGIN_TAKEN;
	}
	if (s->pass_index >= s->npasses) {
		size_t unused;
		if (map_find(&s->extra, id, &unused))
			return OG_BEGIN_DUPLICATE;
		*status = begin_extra(s, id);
		return OG_BEGIN_TAKEN;
	}
	/* A session sampling by itself refuses before the id is looked at:
	 * its own samples 0, 1... may already have taken it. */
	if (s->period_ns) {
		*status = refuse_periodic(s, id);
		return OG_BEGIN_TAKEN;
	}
	/* One lookup answers both "used in this pass?" and "where is it?";
	 * ids in a row (the usual case) are one subtraction and a compare. */
	size_t index = 0;
	bool found = index_find(s, id, &index);
	if (found && (s->samples[index].begun >> s->pass_index & 1))
		return OG_BEGIN_DUPLICATE;
	*status = begin_planned(ctx, s, id, found, index);
	return OG_BEGIN_TAKEN;
}

/* A sample's times, from the backend if it has them (the first pass that
 * ends it gives them); false when out of memory for a long end. */
static inline bool give_times(struct og_context *ctx, struct og_session *s, struct sample *smp,
                              uint64_t end_ns, bool counted)
{
	struct og_sample_time t = { s->cur_begin_ns, end_ns, 0 }, kt;
	if (counted && ctx->ops->sample_time && ctx->ops->sample_time(ctx->state, &kt))
		t = kt;
	return sample_set_time(s, smp, &t);
}

static GPA_Status no_memory_for_end(const struct og_session *s)
{
	return og_error(GPA_STATUS_ERROR_FAILED,
	                "ending sample %u: out of memory for the end time of a sample over 4 s "
	                "long; free memory or end sessions", s->cur_id);
}

/* A sample keeps the least share of its time any pass's counters ran
 * (multiplexing), when the backend reports one. */
static inline void take_coverage(struct og_context *ctx, struct sample *smp)
{
	if (ctx->ops->sample_coverage) {
		double c = ctx->ops->sample_coverage(ctx->state);
		if (c < smp->coverage)
			smp->coverage = c > 0.0 ? (float)c : 0.0f;
	}
}

/* sample_end's plain case (s->quick): what it does for such a sample, with
 * none of the tests for the rest. */
static inline __attribute__((always_inline)) GPA_Status end_quick(struct og_context *ctx,
                                                                 struct og_session *s)
{
	struct sample *smp = &s->samples[s->cur];
	uint64_t end_ns = og_sample_clock_ns(&ctx->sample_clock);
	uint64_t *deltas = &s->values[s->cur * s->nslots + s->pass_direct];
	GPA_Status st = ctx->ops->end_sample(ctx->state, deltas);
	if (!smp->passes && !sample_timed(smp) &&
	    !give_times(ctx, s, smp, end_ns, st == GPA_STATUS_OK) && st == GPA_STATUS_OK)
		st = no_memory_for_end(s);
	if (st != GPA_STATUS_OK) {
		/* what the backend wrote before failing */
		memset(deltas, 0, s->pass[s->pass_index].nbackend * sizeof *deltas);
		smp->failed = true;
		return st;
	}
	smp->passes |= 1ull << s->pass_index;
	take_coverage(ctx, smp);
	return GPA_STATUS_OK;
}

/* og_sample_end's body, inlined into og_sample_end_open too: the API's
 * EndSample makes one call. */
static inline __attribute__((always_inline)) GPA_Status sample_end(struct og_context *ctx,
                                                                 struct og_session *s)
{
	s->sample_open = false;
	if (s->quick)
		return end_quick(ctx, s);
	if (s->pass_index >= s->npasses)
		return GPA_STATUS_OK; /* an extra pass counts nothing */
	struct sample *smp = &s->samples[s->cur];
	size_t n = s->pass[s->pass_index].nbackend;
	bool owe = n && s->defer_device; /* og_session_deliver brings them */
	if (owe)
		n = 0;
	/* On an application's API: the GPU timer stops, then the queue drains
	 * (or is flushed) so the snapshot comes after the sample's commands. */
	GPA_Status timer = GPA_STATUS_OK, api = GPA_STATUS_OK;
	uint32_t token = sample_token(s, s->cur);
	if (token && (int32_t)s->pass_index == s->api_pass &&
	    (timer = og_apictx_time_end(s->api, "EndSample", token)) != GPA_STATUS_OK) {
		og_apictx_release(s->api, token);
		s->api_tokens[s->cur] = token = 0;
		smp->api_failed = true;
	}
	if (s->api)
		api = og_apictx_boundary(s->api, "EndSample");
	uint64_t end_ns = og_sample_clock_ns(&ctx->sample_clock);
	uint32_t direct = s->pass_direct;
	uint64_t *deltas = direct != UINT32_MAX ? &s->values[s->cur * s->nslots + direct] : s->deltas;
	GPA_Status st = n ? ctx->ops->end_sample(ctx->state, deltas) : GPA_STATUS_OK;
	/* The first pass that gets this far gives the sample its times. */
	if (!smp->passes && !sample_timed(smp) &&
	    !give_times(ctx, s, smp, end_ns, n && st == GPA_STATUS_OK) && st == GPA_STATUS_OK)
		st = no_memory_for_end(s);
	if (st == GPA_STATUS_OK)
		st = api; /* counts taken without the API's sync do not belong to the sample */
	if (st != GPA_STATUS_OK) {
		if (n && direct != UINT32_MAX)
			memset(deltas, 0, n * sizeof *deltas); /* what a backend wrote before failing */
		smp->failed = true;
		return st;
	}
	if (owe) {
		smp->owed++;
		s->owed++;
		return timer;
	}
	if (direct == UINT32_MAX)
		scatter(s, s->cur, s->pass_index, s->deltas);
	smp->passes |= 1ull << s->pass_index;
	if (s->frame_fd >= 0) /* opengpa stat's timeline */
		og_apictx_send_sample(s->api, s->frame_fd, s->cur_id, s->cur_begin_ns, end_ns);
	if (n)
		take_coverage(ctx, smp);
	/* Synchronised, the timer's result is there already, and it must fit
	 * in the sample: its commands ran between the two drains. */
	if (token && og_apictx_sync(s->api) == OG_SYNC_FINISH && og_session_collect(s, s->cur, false))
		check_api_span(s, s->cur, end_ns - s->cur_begin_ns);
	return timer;
}

GPA_Status og_sample_end(struct og_context *ctx, struct og_session *s)
{
	return sample_end(ctx, s);
}

bool og_sample_end_open(struct og_context *ctx, struct og_session *s, GPA_Status *status)
{
	if (!s->sample_open)
		return false;
	*status = sample_end(ctx, s);
	return true;
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
		s->dropped_time.end_ns = sample_end_ns(s, smp);
		s->dropped_time.flags |= sample_flags(smp) | (smp->failed ? OG_SAMPLE_FAILED : 0);
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
	if (s->api_tokens) { /* the tokens left move down; the slots freed are new samples' */
		memmove(s->api_tokens, s->api_tokens + k, (s->nsamples - k) * sizeof(*s->api_tokens));
		memset(s->api_tokens + (s->nsamples - k), 0, k * sizeof(*s->api_tokens));
	}
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
	if (!og_session_add_sample(s, (uint32_t)(s->dropped + s->nsamples), &index))
		return og_error(GPA_STATUS_ERROR_FAILED,
		                "periodic sampling of session %u stopped at sample %zu: out of memory "
		                "(the samples so far stay readable; sample less often)",
		                s->id, s->nsamples);
	struct sample *smp = &s->samples[index];
	smp->begun = 1;
	if (!sample_set_time(s, smp, t)) {
		smp->failed = true;
		s->pass_samples[0]++;
		og_session_notify();
		return og_error(GPA_STATUS_ERROR_FAILED,
		                "periodic sampling of session %u stopped at sample %zu: out of memory "
		                "for the end time of a sample over 4 s long (the samples so far stay "
		                "readable)", s->id, index);
	}
	if (t->flags & OG_SAMPLE_FAILED) {
		smp->failed = true;
	} else {
		scatter(s, index, 0, deltas);
		smp->passes = 1;
		smp->coverage = coverage > 0.0 && coverage < 1.0 ? (float)coverage : 1.0f;
	}
	s->pass_samples[0]++;
	if (s->wake_at && s->dropped + s->nsamples >= s->wake_at) {
		s->wake_at = 0; /* those still short of theirs say so again */
		og_session_notify();
	}
	return GPA_STATUS_OK;
}

void og_session_flag_last(struct og_session *s, uint32_t flags)
{
	if (s->nsamples)
		s->samples[s->nsamples - 1].flags_timed |= (uint8_t)(flags & ~SAMPLE_TIMED);
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
