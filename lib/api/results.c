/* SPDX-License-Identifier: MIT */
/*
 * results.c — every counter of a sample in one call, for GPA 2.x clients
 * (opengpa.h): the core's batch read, which GPA 3.x/4.x's GpaGetSampleResult
 * gives too.
 */
#include <stdbool.h>

#include "core/core.h"
#include "core/readers.h"
#include "opengpa.h"

_Static_assert(sizeof(OpenGPA_Result) == sizeof(union og_value), "one 8-byte value");

static GPA_Status leave(GPA_Status status)
{
	og_unlock();
	return status;
}

static GPA_Status find(const char *func, gpa_uint32 id, struct og_context **ctx,
                       struct og_session **s)
{
	if (!(*ctx = og_context_current()))
		return og_error(GPA_STATUS_ERROR_COUNTERS_NOT_OPEN,
		                "%s: no context is open; call GPA_OpenContext first", func);
	if (!(*s = og_session_find(*ctx, id)))
		return og_error(GPA_STATUS_ERROR_SESSION_NOT_FOUND,
		                "%s: session %u does not exist or was overwritten (the context keeps "
		                "the newest sessions only; see OPENGPA_SESSION_RING)", func, id);
	return GPA_STATUS_OK;
}

GPA_Status OpenGPA_GetSessionCounters(gpa_uint32 sessionID, gpa_uint32 capacity,
                                      gpa_uint32 *pIndices, gpa_uint32 *pCount)
{
	og_lock();
	if (!pCount || (capacity && !pIndices))
		return leave(og_error(GPA_STATUS_ERROR_NULL_POINTER,
		                      "%s: pCount, or pIndices with a capacity, is NULL", __func__));
	struct og_context *ctx;
	struct og_session *s;
	GPA_Status st = find(__func__, sessionID, &ctx, &s);
	if (st != GPA_STATUS_OK)
		return leave(st);
	size_t n;
	const uint32_t *counters = og_session_counters(s, &n);
	for (size_t k = 0; k < n && k < capacity; k++)
		pIndices[k] = counters[k];
	*pCount = (gpa_uint32)n;
	return leave(GPA_STATUS_OK);
}

/* What is not simply there to read: under the lock, which says what is
 * wrong or waits. */
static GPA_Status get_results(uint32_t sessionID, uint32_t sampleID, uint32_t count,
                              union og_value *out)
{
	static const char func[] = "OpenGPA_GetSampleResults";
	OpenGPA_Result *pResults = (OpenGPA_Result *)out;
	og_lock();
	og_reader_join(); /* this thread's next reads need no lock */
	if (!pResults)
		return leave(og_error(GPA_STATUS_ERROR_NULL_POINTER,
		                      "%s: pResults is NULL", func));
	struct og_context *ctx;
	struct og_session *s;
	GPA_Status st = find(func, sessionID, &ctx, &s);
	if (st != GPA_STATUS_OK)
		return leave(st);
	size_t n;
	og_session_counters(s, &n);
	if (count < n)
		return leave(og_error(GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE,
		                      "%s: room for %u results but session %u counts %zu counters "
		                      "(OpenGPA_GetSessionCounters)", func, count, sessionID, n));
	/* A periodic session's sample not taken yet is not found, not waited for. */
	if (og_session_period(s) && !og_session_has_sample(s, sampleID))
		return leave(og_error(GPA_STATUS_ERROR_SAMPLE_NOT_FOUND,
		                      "%s: sample %u is not in session %u (yet)", func, sampleID,
		                      sessionID));
	if (!og_session_ready(s) && (st = og_sample_wait(ctx->serial, sessionID, sampleID, &ctx, &s)) !=
	                                GPA_STATUS_OK)
		return leave(st);
	return leave(og_session_read(ctx, s, sampleID, (union og_value *)pResults));
}

GPA_Status OpenGPA_GetSampleResults(gpa_uint32 sessionID, gpa_uint32 sampleID, gpa_uint32 count,
                                    OpenGPA_Result *pResults)
{
	return og_session_get_results(sessionID, sampleID, count, (union og_value *)pResults,
	                              get_results);
}
