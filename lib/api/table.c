/* SPDX-License-Identifier: MIT */
/*
 * table.c — the failures and argument checks every GPA 3.x/4.x entry
 * starts with (table.h): handles, indices, initialisation (the lock is
 * inline in table.h).
 */
#include <stdarg.h>

#include "api/table.h"
#include "core/registry.h"


int ot_error(int st, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	og_logv(OG_LOG_ERROR, fmt, ap);
	va_end(ap);
	return st;
}

int ot_from_core(GPA_Status st)
{
	switch (st) {
	case GPA_STATUS_OK: return OT_OK;
	case GPA_STATUS_ERROR_NULL_POINTER: return OT_NULL_POINTER;
	case GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE: return OT_INDEX_OUT_OF_RANGE;
	case GPA_STATUS_ERROR_NOT_FOUND: return OT_COUNTER_NOT_FOUND;
	case GPA_STATUS_ERROR_ALREADY_ENABLED: return OT_ALREADY_ENABLED;
	case GPA_STATUS_ERROR_NO_COUNTERS_ENABLED: return OT_NO_COUNTERS_ENABLED;
	case GPA_STATUS_ERROR_NOT_ENABLED: return OT_NOT_ENABLED;
	case GPA_STATUS_ERROR_SAMPLE_NOT_FOUND: return OT_SAMPLE_NOT_FOUND;
	case GPA_STATUS_ERROR_SAMPLE_NOT_FOUND_IN_ALL_PASSES:
	case GPA_STATUS_ERROR_READING_COUNTER_RESULT: return OT_READING_SAMPLE_RESULT;
	case GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED: return OT_HARDWARE_NOT_SUPPORTED;
	case GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED: return OT_DRIVER_NOT_SUPPORTED;
	default: return OT_FAILED; /* a backend's or the planner's failure, logged there */
	}
}

/* ---- checks ------------------------------------------------------------ */

int ot_null(const char *fn, const char *what)
{
	return ot_error(OT_NULL_POINTER, "%s: %s is NULL; pass a valid pointer", fn, what);
}

int ot_context(const char *fn, const void *h, struct og_context **ctx)
{
	if (!h)
		return ot_null(fn, "the context");
	if (!(*ctx = og_handle_get(OG_HANDLE_CONTEXT, h)))
		return ot_error(OT_CONTEXT_NOT_FOUND,
		                "%s: %p is not an open context (closed already, or not a context "
		                "handle GpaOpenContext returned)", fn, h);
	return OT_OK;
}

int ot_session_missing(const char *fn, const void *h)
{
	if (!h)
		return ot_null(fn, "the session");
	return ot_error(OT_SESSION_NOT_FOUND,
	                "%s: %p is not a session (deleted already, its context closed, or "
	                "not a handle GpaCreateSession returned)", fn, h);
}

int ot_command_list_missing(const char *fn, const void *h)
{
	if (!h)
		return ot_null(fn, "the command list");
	return ot_error(OT_COMMAND_LIST_NOT_FOUND,
	                "%s: %p is not a command list (its session was deleted, or not a "
	                "handle GpaBeginCommandList returned)", fn, h);
}

bool ot_is_context(const void *h)
{
	return og_handle_get(OG_HANDLE_CONTEXT, h) != NULL;
}

int ot_index(const char *fn, const struct og_context *ctx, uint32_t index)
{
	if (index >= ctx->cat.ncounters)
		return ot_error(OT_INDEX_OUT_OF_RANGE,
		                "%s: counter index %u is out of range; the context has %zu counters",
		                fn, index, ctx->cat.ncounters);
	return OT_OK;
}

bool ot_is_initialized(void)
{
	return og_registry()->table_initialized;
}

void ot_set_initialized(bool on)
{
	og_registry()->table_initialized = on;
}

int ot_initialized(const char *fn)
{
	if (!ot_is_initialized())
		return ot_error(OT_GPA_NOT_INITIALIZED, "%s: call GpaInitialize first", fn);
	return OT_OK;
}
