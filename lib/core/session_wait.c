/* SPDX-License-Identifier: MIT */
/*
 * session_wait.c — readiness and waiting: whether a session's or a
 * sample's results are in, waiting for them (GPA 3.x/4.x waits and
 * periodic readers) without holding the registry lock, and a sample's
 * times (session_state.h).
 */
#include <errno.h>
#include <time.h>

#include "core/readers.h"
#include "core/registry.h"
#include "core/session_state.h"

bool og_session_has_counter(const struct og_session *s, uint32_t counter)
{
	return s->recipe_of[counter] != og_recipe_none(s);
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
		if (smp && smp->owed && (smp->begun & bit)) {
			pending = true; /* its device counts come later (og_session_deliver) */
			continue;
		}
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
	*ready = !pending && (!smp || og_session_collect(s, index, false));
	return GPA_STATUS_OK;
}

/* This thread waits until s has `count` samples (s->wake_at). */
static void wake_at(struct og_session *s, uint64_t count)
{
	if (!s->wake_at || count < s->wake_at)
		s->wake_at = count;
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
		if (sample && s->period_ns)
			wake_at(s, (uint64_t)*sample + 1); /* periodic ids are dense from 0 */
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
		wake_at(s, count);
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
			uint64_t end_ns = sample_end_ns(s, smp);
			if (end_ns > t->end_ns)
				t->end_ns = end_ns;
			t->flags |= sample_flags(smp) | (smp->failed ? OG_SAMPLE_FAILED : 0);
		}
		return GPA_STATUS_OK;
	}
	if (!index_find(s, sample_id, &index))
		return og_error(GPA_STATUS_ERROR_SAMPLE_NOT_FOUND,
		                "session %u has no sample %u", s->id, sample_id);
	const struct sample *smp = &s->samples[index];
	*t = (struct og_sample_time){ smp->begin_ns, sample_end_ns(s, smp), sample_flags(smp) };
	if (smp->failed)
		t->flags |= OG_SAMPLE_FAILED;
	return GPA_STATUS_OK;
}

bool og_session_kernel_timed(const struct og_session *s)
{
	return s->kernel_timed;
}
