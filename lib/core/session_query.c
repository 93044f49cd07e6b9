/* SPDX-License-Identifier: MIT */
/*
 * session_query.c — what the front ends ask about a session between calls
 * to session.c: finding it in the ring, where its passes and samples stand
 * (which is open, how many begun, done, in each pass), its counters, and a
 * sample's presence and coverage.  Nothing here changes the books
 * (session_state.h).
 */
#include "core/session_state.h"

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
	return index_find(s, id, &index) ? sample_token(s, index) : 0;
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

