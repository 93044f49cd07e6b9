/* SPDX-License-Identifier: MIT */
/*
 * session_record.c — a sample recorded into a command buffer (core.h,
 * og_sample_record): what og_sample_begin and og_sample_end do together
 * for a sample that has no CPU interval of its own, in one call.
 *
 * On Vulkan (lib/apictx/vk_gpa.c) the GPU runs a sample's commands long
 * after GpaBeginSample and GpaEndSample were called: the core keeps only
 * the sample's books (its ID in the pass, its row, its API timing token)
 * and, with device counters, the counts it owes until the command buffer
 * ran.  Nothing is synchronised (the Vulkan context's sync and usable
 * hooks do nothing), earlier samples' results are collected once per
 * command list (og_session_collect_recorded at GpaBeginCommandList), not
 * per sample, and nothing goes to opengpa stat's timeline here (vk.c sends
 * the GPU spans).  Anything else — a periodic session, an extra
 * pass, a pass not open, device counters counted at the sample's edges, an
 * API whose samples are synchronised — takes og_sample_begin and
 * og_sample_end as before.
 */
#include "core/registry.h"
#include "core/session_state.h"

/* The common case needs none of og_sample_begin/end's checks and calls. */
static bool recordable(const struct og_session *s, uint32_t pass)
{
	return s->api && pass < s->npasses && s->pass_open && pass == s->pass_index &&
	       !s->period_ns && !s->sample_open && og_apictx_sync(s->api) == OG_SYNC_OFF &&
	       (!s->pass[pass].nbackend || s->defer_device);
}

/* The API's timer of the sample, begun and ended at once (the front end
 * records the queries): a failure fails only the sample's API counters. */
static void record_timer(struct og_session *s, struct sample *smp, size_t index)
{
	uint32_t *token = &s->api_tokens[index]; /* on an API: allocated */
	if (og_apictx_time_begin(s->api, "BeginSample", token) != GPA_STATUS_OK) {
		smp->api_failed = true;
		return;
	}
	if (og_apictx_time_end(s->api, "EndSample", *token) != GPA_STATUS_OK) {
		og_apictx_release(s->api, *token);
		*token = 0;
		smp->api_failed = true;
		return;
	}
	if (index < s->api_scan)
		s->api_scan = index;
}

enum og_record og_sample_record(struct og_context *ctx, struct og_session *s, uint32_t pass,
                                uint32_t id, uint32_t *token)
{
	*token = 0;
	if (!recordable(s, pass)) {
		if (og_session_in_pass(s, id, pass))
			return OG_RECORD_DUPLICATE;
		GPA_Status st = og_sample_begin(ctx, s, id);
		GPA_Status end = og_sample_end(ctx, s);
		if (st != GPA_STATUS_OK || end != GPA_STATUS_OK)
			return OG_RECORD_FAILED;
		*token = og_session_sample_token(s, id);
		return OG_RECORD_OK;
	}
	size_t index = 0;
	bool found = index_find(s, id, &index);
	if (found && (s->samples[index].begun >> pass & 1))
		return OG_RECORD_DUPLICATE;
	if (!found && !og_session_store_sample(s, id, &index)) {
		og_log(OG_LOG_ERROR, "beginning sample %u: out of memory", id);
		return OG_RECORD_FAILED;
	}
	struct sample *smp = &s->samples[index];
	smp->begun |= 1ull << pass;
	s->pass_samples[pass]++;
	if ((int32_t)pass == s->api_pass && !s->api_tokens[index] && !smp->api_failed)
		record_timer(s, smp, index);
	if (!smp->passes && !sample_timed(smp)) {
		/* When it was recorded: the first pass that records it (a span of
		 * 0 needs no memory: no failure). */
		uint64_t now = og_clock_monotonic_ns();
		sample_set_time(s, smp, &(struct og_sample_time){ now, now, 0 });
	}
	s->cur = index;
	s->cur_id = id;
	if (s->pass[pass].nbackend) {
		smp->owed++; /* og_session_deliver brings the pass's device counts */
		s->owed++;
	} else {
		scatter(s, index, pass, s->deltas);
		smp->passes |= 1ull << pass;
	}
	*token = s->api_tokens[index];
	return OG_RECORD_OK;
}

void og_session_collect_recorded(struct og_session *s)
{
	while (s->api && s->api_scan < s->nsamples && og_session_collect(s, s->api_scan, false))
		s->api_scan++;
}
