/* SPDX-License-Identifier: MIT */
/*
 * gpa2_private.c — the GPA 2.x entry points of GPUPerfAPI-Private.h.
 *
 * GPA's Linux builds export GPA_InternalProfileStart/Stop always and the
 * other two in internal builds only, whose loaders look up every name and
 * fail on one missing.  Each answers as a GPA build without the feature
 * does: opengpa has no internal profiler and no per-draw scheduling.
 */
#include <stdbool.h>

/* Declares the internal-build entry points too: opengpa exports them all. */
#define AMDT_INTERNAL 1
#include "GPUPerfAPI-Private.h"
#include "core/core.h"

GPA_Status GPA_InternalProfileStart(void)
{
	og_lock();
	og_log(OG_LOG_MESSAGE, "GPA_InternalProfileStart: opengpa has no internal profiler; "
	                       "nothing is recorded");
	og_unlock();
	return GPA_STATUS_OK;
}

/* As in GPA, the file name is not checked: without a profiler nothing is
 * written to it. */
GPA_Status GPA_InternalProfileStop(const char *pFilename)
{
	(void)pFilename;
	og_lock();
	og_log(OG_LOG_MESSAGE, "GPA_InternalProfileStop: opengpa has no internal profiler; no "
	                       "report is written");
	og_unlock();
	return GPA_STATUS_OK;
}

GPA_Status GPA_RegisterLoggingDebugCallback(enum GPA_Log_Debug_Type loggingType,
                                            GPA_LoggingDebugCallbackPtrType pCallbackFuncPtr)
{
	og_lock();
	GPA_Status st = og_set_debug_callback((unsigned)loggingType, pCallbackFuncPtr);
	og_unlock();
	return st;
}

/* GPA schedules per-draw counters with these counts; opengpa's passes do
 * not depend on draws, so the value only has to arrive between sessions. */
GPA_Status GPA_InternalSetDrawCallCounts(const int iCounts)
{
	(void)iCounts;
	og_lock();
	GPA_Status st = GPA_STATUS_OK;
	struct og_context *ctx = og_context_current();
	if (!ctx)
		st = og_error(GPA_STATUS_ERROR_COUNTERS_NOT_OPEN,
		              "GPA_InternalSetDrawCallCounts: no context is open; call GPA_OpenContext "
		              "first");
	else if (ctx->open_session)
		st = og_error(GPA_STATUS_ERROR_SAMPLING_ALREADY_STARTED,
		              "GPA_InternalSetDrawCallCounts: a session is open; set the counts "
		              "between sessions");
	og_unlock();
	return st;
}
