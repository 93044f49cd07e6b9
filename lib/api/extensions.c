/* SPDX-License-Identifier: MIT */
/* extensions.c — the OpenGPA_* entry points of opengpa.h. */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "apictx/apictx.h"
#include "core/core.h"
#include "opengpa.h"

static GPA_Status leave(GPA_Status status)
{
	og_unlock();
	return status;
}

static GPA_Status replace(char **slot, const char *value)
{
	char *copy = NULL;
	if (value && !(copy = strdup(value)))
		return og_error(GPA_STATUS_ERROR_FAILED, "out of memory");
	free(*slot);
	*slot = copy;
	return GPA_STATUS_OK;
}

GPA_Status OpenGPA_SetBackend(const char *name, const char *options)
{
	og_lock();
	struct og_settings *set = og_settings();
	GPA_Status st = replace(&set->backend, name);
	if (st == GPA_STATUS_OK)
		st = replace(&set->backend_options, options ? options : "");
	return leave(st);
}

#define CURRENT(ctx) CURRENT_AS(ctx, __func__)

/* CURRENT, its message naming func: a shared helper names its caller's
 * entry point, not itself. */
#define CURRENT_AS(ctx, func) \
	struct og_context *ctx = og_context_current(); \
	if (!ctx) \
	return leave(og_error(GPA_STATUS_ERROR_COUNTERS_NOT_OPEN, \
	                      "%s: no context is open; call GPA_OpenContext first", func))

/* CURRENT, and `index` a counter of it (func names the entry point). */
#define CURRENT_COUNTER(ctx, index, func) \
	CURRENT_AS(ctx, func); \
	if (index >= ctx->cat.ncounters) \
	return leave(og_error(GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE, \
	                      "%s: counter index %u is out of range (%zu counters)", func, index, \
	                      ctx->cat.ncounters))

/* Settings that hold for whole sessions: refused while one is open (msg
 * names the setting, with %s for the entry point). */
#define BETWEEN_SESSIONS(ctx, msg) \
	if (ctx->open_session) \
	return leave(og_error(GPA_STATUS_ERROR_SAMPLING_ALREADY_STARTED, msg, __func__))

static GPA_Status no_session(const char *func, gpa_uint32 id)
{
	return og_error(GPA_STATUS_ERROR_SESSION_NOT_FOUND,
	                "%s: no session %u (it never began, or newer sessions pushed it out of "
	                "the ring; see OpenGPA_SetSessionRingSize)", func, id);
}

GPA_Status OpenGPA_GetBackend(const char **ppName)
{
	og_lock();
	if (!ppName)
		return leave(og_error(GPA_STATUS_ERROR_NULL_POINTER, "%s: ppName is NULL", __func__));
	CURRENT(ctx);
	*ppName = ctx->ops->name;
	return leave(GPA_STATUS_OK);
}

GPA_Status OpenGPA_SetBackendOption(const char *key, const char *value)
{
	og_lock();
	if (!key || !value)
		return leave(og_error(GPA_STATUS_ERROR_NULL_POINTER, "%s: key and value must not be NULL",
		                      __func__));
	CURRENT(ctx);
	struct og_session *s = ctx->open_session;
	if (s && og_session_pass_open(s, NULL))
		return leave(og_error(GPA_STATUS_ERROR_PASS_NOT_ENDED,
		                      "%s(%s): a pass is open; change backend options between passes",
		                      __func__, key));
	if (!ctx->ops->set_option)
		return leave(og_error(GPA_STATUS_ERROR_NOT_FOUND,
		                      "%s: the %s backend has no run-time options", __func__,
		                      ctx->ops->name));
	return leave(ctx->ops->set_option(ctx->state, key, value));
}

GPA_Status OpenGPA_SetContextApi(const char *api)
{
	og_lock();
	enum og_api parsed;
	if (api && strcasecmp(api, "auto") != 0 && !og_api_parse(api, &parsed))
		return leave(og_error(GPA_STATUS_ERROR_NOT_FOUND,
		                      "%s: '%s' is not one of auto, none, gl, gles, cl", __func__, api));
	return leave(replace(&og_settings()->api, api));
}

GPA_Status OpenGPA_SetSampleSync(gpa_uint32 mode)
{
	og_lock();
	CURRENT(ctx);
	if (mode < OPENGPA_SYNC_OFF || mode > OPENGPA_SYNC_FINISH)
		return leave(og_error(GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE,
		                      "%s(%u): not a mode; use OPENGPA_SYNC_OFF (1), OPENGPA_SYNC_FLUSH "
		                      "(2) or OPENGPA_SYNC_FINISH (3)", __func__, mode));
	if (!ctx->api)
		return leave(mode == OPENGPA_SYNC_OFF ? GPA_STATUS_OK
		             : og_error(GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED,
		                        "%s: the current context is plain (no GL, GLES or OpenCL "
		                        "context behind it), so there is no queue to synchronise; load "
		                        "the library as libGPUPerfAPIGL.so, …GLES.so or …CL.so, or call "
		                        "OpenGPA_SetContextApi before GPA_OpenContext", __func__));
	if (ctx->open_session && og_session_sample_open(ctx->open_session, NULL))
		return leave(og_error(GPA_STATUS_ERROR_SAMPLE_NOT_ENDED,
		                      "%s: a sample is open; change the sync mode between samples",
		                      __func__));
	og_apictx_set_sync(ctx->api, (enum og_sync)mode);
	return leave(GPA_STATUS_OK);
}

GPA_Status OpenGPA_GetContextApi(const char **ppApi, gpa_uint32 *pSync)
{
	og_lock();
	CURRENT(ctx);
	if (ppApi)
		*ppApi = ctx->api ? og_api_name(og_apictx_api(ctx->api)) : "none";
	if (pSync)
		*pSync = ctx->api ? (gpa_uint32)og_apictx_sync(ctx->api) : OPENGPA_SYNC_OFF;
	return leave(GPA_STATUS_OK);
}

GPA_Status OpenGPA_SetHardwareCounters(gpa_uint8 enable)
{
	og_lock();
	og_settings()->hardware_counters = enable ? 1 : 0;
	return leave(GPA_STATUS_OK);
}

GPA_Status OpenGPA_SetInstanceCounters(gpa_uint8 enable)
{
	og_lock();
	og_settings()->instance_counters = enable ? 1 : 0;
	return leave(GPA_STATUS_OK);
}

GPA_Status OpenGPA_AddCounterFile(const char *path)
{
	og_lock();
	if (!path)
		return leave(og_error(GPA_STATUS_ERROR_NULL_POINTER, "%s: path is NULL", __func__));
	struct og_settings *set = og_settings();
	char **files = realloc(set->counter_files, (set->ncounter_files + 1) * sizeof(*files));
	if (!files)
		return leave(og_error(GPA_STATUS_ERROR_FAILED, "out of memory"));
	set->counter_files = files;
	if (!(files[set->ncounter_files] = strdup(path)))
		return leave(og_error(GPA_STATUS_ERROR_FAILED, "out of memory"));
	set->ncounter_files++;
	return leave(GPA_STATUS_OK);
}

GPA_Status OpenGPA_SetConstant(const char *name, gpa_float64 value)
{
	og_lock();
	if (!name)
		return leave(og_error(GPA_STATUS_ERROR_NULL_POINTER, "%s: name is NULL", __func__));
	return leave(og_constant_set(name, value));
}

GPA_Status OpenGPA_SetCycleBudgetTarget(gpa_uint32 width, gpa_uint32 height, gpa_float64 fps)
{
	og_lock();
	return leave(og_cycle_budget_set(width, height, fps));
}

GPA_Status OpenGPA_SetSessionRingSize(gpa_uint32 count)
{
	og_lock();
	CURRENT(ctx);
	BETWEEN_SESSIONS(ctx, "%s: a session is open; change the ring size between sessions");
	return leave(og_context_set_ring_size(ctx, count));
}

/* Shared shape of the per-counter string getters. */
static GPA_Status counter_string(const char *func, gpa_uint32 index, const char **out, int which)
{
	og_lock();
	CURRENT_COUNTER(ctx, index, func);
	if (!out)
		return leave(og_error(GPA_STATUS_ERROR_NULL_POINTER, "%s: the output pointer is NULL", func));
	const struct og_counter *c = &ctx->cat.counters[index];
	*out = which == 0 ? c->group : which == 1 ? c->text : which == 2 ? c->expression
	                                                                : c->alias ? c->alias : "";
	return leave(GPA_STATUS_OK);
}

GPA_Status OpenGPA_GetCounterGroup(gpa_uint32 index, const char **ppGroup)
{
	return counter_string(__func__, index, ppGroup, 0);
}

GPA_Status OpenGPA_GetCounterText(gpa_uint32 index, const char **ppText)
{
	return counter_string(__func__, index, ppText, 1);
}

GPA_Status OpenGPA_GetCounterExpression(gpa_uint32 index, const char **ppExpr)
{
	return counter_string(__func__, index, ppExpr, 2);
}

GPA_Status OpenGPA_GetCounterAlias(gpa_uint32 index, const char **ppAlias)
{
	return counter_string(__func__, index, ppAlias, 3);
}

GPA_Status OpenGPA_GetCounterHeadline(gpa_uint32 index, gpa_uint32 *pHeadline)
{
	og_lock();
	CURRENT_COUNTER(ctx, index, __func__);
	if (!pHeadline)
		return leave(og_error(GPA_STATUS_ERROR_NULL_POINTER, "%s: pHeadline is NULL", __func__));
	*pHeadline = ctx->cat.counters[index].headline ? 1 : 0;
	return leave(GPA_STATUS_OK);
}

GPA_Status OpenGPA_GetCounterPass(gpa_uint32 index, gpa_uint32 *pPass)
{
	og_lock();
	CURRENT_COUNTER(ctx, index, __func__);
	if (!pPass)
		return leave(og_error(GPA_STATUS_ERROR_NULL_POINTER, "%s: pPass is NULL", __func__));
	if (!ctx->sel.is_enabled[index])
		return leave(og_error(GPA_STATUS_ERROR_NOT_ENABLED, "%s: counter %s is not enabled",
		                      __func__, ctx->cat.counters[index].name));
	const struct og_plan *plan;
	GPA_Status st = og_selection_plan(ctx, &ctx->sel, &plan);
	if (st != GPA_STATUS_OK)
		return leave(st);
	const struct og_counter *c = &ctx->cat.counters[index];
	*pPass = 0;
	for (size_t i = 0; i < c->ninputs; i++)
		if (plan->raw_pass[c->inputs[i]] > (int)*pPass)
			*pPass = (gpa_uint32)plan->raw_pass[c->inputs[i]];
	return leave(GPA_STATUS_OK);
}

static GPA_Status unavailable_out_of_range(const char *func, const struct og_context *ctx,
                                          gpa_uint32 index)
{
	return og_error(GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE,
	                "%s: %u is out of range (%zu unavailable counters)", func, index,
	                ctx->cat.nunavailable);
}

GPA_Status OpenGPA_GetUnavailableCount(gpa_uint32 *pCount)
{
	og_lock();
	if (!pCount)
		return leave(og_error(GPA_STATUS_ERROR_NULL_POINTER, "%s: pCount is NULL", __func__));
	CURRENT(ctx);
	*pCount = (gpa_uint32)ctx->cat.nunavailable;
	return leave(GPA_STATUS_OK);
}

GPA_Status OpenGPA_GetUnavailableCounter(gpa_uint32 index, const char **ppName,
                                         const char **ppReason)
{
	og_lock();
	CURRENT(ctx);
	if (index >= ctx->cat.nunavailable)
		return leave(unavailable_out_of_range(__func__, ctx, index));
	if (!ppName || !ppReason)
		return leave(og_error(GPA_STATUS_ERROR_NULL_POINTER, "%s: an output pointer is NULL",
		                      __func__));
	*ppName = ctx->cat.unavailable[index].name;
	*ppReason = ctx->cat.unavailable[index].reason;
	return leave(GPA_STATUS_OK);
}

GPA_Status OpenGPA_GetUnavailableCounterInfo(gpa_uint32 index, const char **ppGroup,
                                             const char **ppText, GPA_Usage_Type *pUsage,
                                             GPA_Type *pType)
{
	og_lock();
	CURRENT(ctx);
	if (index >= ctx->cat.nunavailable)
		return leave(unavailable_out_of_range(__func__, ctx, index));
	const struct og_cf_entry *e = ctx->cat.unavailable[index].decl;
	const char *group = e->field[OG_F_GROUP];
	if (ppGroup) /* a raw counter's default group, as the catalogue gives it */
		*ppGroup = group ? group : e->kind == OG_CF_RAW ? "Hardware" : "";
	if (ppText)
		*ppText = e->field[OG_F_DESCRIPTION] ? e->field[OG_F_DESCRIPTION] : "";
	if (pUsage)
		*pUsage = e->usage;
	if (pType)
		*pType = e->type;
	return leave(GPA_STATUS_OK);
}

GPA_Status OpenGPA_GetVersion(gpa_uint32 *pMajor, gpa_uint32 *pMinor, gpa_uint32 *pPatch)
{
	/* The library's own numbers: these are compiled into it. */
	if (pMajor)
		*pMajor = OPENGPA_VERSION_MAJOR;
	if (pMinor)
		*pMinor = OPENGPA_VERSION_MINOR;
	if (pPatch)
		*pPatch = OPENGPA_VERSION_PATCH;
	return GPA_STATUS_OK;
}

GPA_Status OpenGPA_MarkFrame(void)
{
	/* The time first: the mark is this instant, whatever follows. */
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	uint64_t ns = (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
	const char *v = getenv("OPENGPA_FRAME_FD");
	if (!v || !*v)
		return GPA_STATUS_OK; /* nobody reads marks: nothing to do */
	char *end;
	errno = 0;
	long fd = strtol(v, &end, 10);
	struct stat st;
	og_lock();
	if (*end || errno || fd < 0 || fd > INT_MAX)
		return leave(og_error(GPA_STATUS_ERROR_FAILED,
		                      "%s: OPENGPA_FRAME_FD='%s' is not a file descriptor: only "
		                      "opengpa stat sets it; unset it",
		                      __func__, v));
	/* Only ever a pipe: a number the program reused for a file of its
	 * own must not get 8 bytes of ours. */
	if (fstat((int)fd, &st) != 0 || !S_ISFIFO(st.st_mode))
		return leave(og_error(GPA_STATUS_ERROR_FAILED,
		                      "%s: OPENGPA_FRAME_FD=%ld is not an open pipe (the program "
		                      "closed or reused it): frame marks are not recorded; keep "
		                      "that descriptor open, or unset OPENGPA_FRAME_FD",
		                      __func__, fd));
	ssize_t n;
	while ((n = write((int)fd, &ns, sizeof ns)) < 0 && errno == EINTR)
		;
	if (n == (ssize_t)sizeof ns)
		return leave(GPA_STATUS_OK);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return leave(og_error(GPA_STATUS_ERROR_FAILED,
		                      "%s: frame mark dropped: opengpa stat has not read the last "
		                      "8192 marks (a stalled reader); marks resume once it catches up",
		                      __func__));
	return leave(og_error(GPA_STATUS_ERROR_FAILED,
	                      "%s: cannot send the frame mark to OPENGPA_FRAME_FD=%ld: %s; "
	                      "opengpa stat may have ended: unset OPENGPA_FRAME_FD",
	                      __func__, fd, n < 0 ? strerror(errno) : "short write"));
}

GPA_Status OpenGPA_GetBackendCount(gpa_uint32 *pCount)
{
	og_lock();
	if (!pCount)
		return leave(og_error(GPA_STATUS_ERROR_NULL_POINTER, "%s: pCount is NULL", __func__));
	gpa_uint32 n = 0;
	while (og_backend_at(n))
		n++;
	*pCount = n;
	return leave(GPA_STATUS_OK);
}

GPA_Status OpenGPA_GetBackendInfo(gpa_uint32 index, const char **ppName, const char **ppSummary)
{
	og_lock();
	const struct og_backend_ops *ops = og_backend_at(index);
	if (!ops)
		return leave(og_error(GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE,
		                      "%s: %u is out of range (see OpenGPA_GetBackendCount)", __func__,
		                      index));
	if (!ppName || !ppSummary)
		return leave(og_error(GPA_STATUS_ERROR_NULL_POINTER, "%s: an output pointer is NULL",
		                      __func__));
	*ppName = ops->name;
	*ppSummary = ops->summary ? ops->summary : "";
	return leave(GPA_STATUS_OK);
}

GPA_Status OpenGPA_SetMultiplexing(gpa_uint8 enable)
{
	og_lock();
	CURRENT(ctx);
	BETWEEN_SESSIONS(ctx, "%s: a session is open; change multiplexing between sessions");
	return leave(og_context_set_multiplex(ctx, enable != 0));
}

GPA_Status OpenGPA_GetSampleCoverage(gpa_uint32 sessionID, gpa_uint32 sampleID,
                                     gpa_float64 *pCoverage)
{
	og_lock();
	if (!pCoverage)
		return leave(og_error(GPA_STATUS_ERROR_NULL_POINTER, "%s: pCoverage is NULL", __func__));
	CURRENT(ctx);
	struct og_session *s = og_session_find(ctx, sessionID);
	if (!s)
		return leave(no_session(__func__, sessionID));
	if (!og_session_has_sample(s, sampleID))
		return leave(og_session_no_sample(__func__, s, sampleID));
	/* Like the results: wait until the sample is readable. */
	GPA_Status st = og_sample_wait(ctx->serial, sessionID, sampleID, &ctx, &s);
	if (st == GPA_STATUS_OK)
		st = og_session_sample_coverage(s, sampleID, pCoverage);
	return leave(st);
}

/* ---- periodic samples and sample times ---------------------------------- */

GPA_Status OpenGPA_SetSamplingPeriod(gpa_uint64 periodNs)
{
	og_lock();
	CURRENT(ctx);
	BETWEEN_SESSIONS(ctx, "%s: a session is open; change the period between sessions");
	return leave(og_context_set_period(ctx, periodNs));
}

GPA_Status OpenGPA_SetPeriodicWindow(gpa_uint32 samples)
{
	og_lock();
	CURRENT(ctx);
	BETWEEN_SESSIONS(ctx, "%s: a session is open; change the window between sessions");
	return leave(og_context_set_window(ctx, samples));
}

GPA_Status OpenGPA_GetSamplingPeriod(gpa_uint32 sessionID, gpa_uint64 *pPeriodNs,
                                     gpa_uint8 *pKernelTimed)
{
	og_lock();
	if (!pPeriodNs || !pKernelTimed)
		return leave(og_error(GPA_STATUS_ERROR_NULL_POINTER, "%s: an output pointer is NULL",
		                      __func__));
	CURRENT(ctx);
	struct og_session *s = og_session_find(ctx, sessionID);
	if (!s)
		return leave(no_session(__func__, sessionID));
	*pPeriodNs = og_session_period(s);
	*pKernelTimed = og_session_kernel_timed(s);
	return leave(GPA_STATUS_OK);
}

GPA_Status OpenGPA_WaitForSamples(gpa_uint32 sessionID, gpa_uint32 count, gpa_uint32 timeoutMs,
                                  gpa_uint32 *pAvailable)
{
	og_lock();
	if (!pAvailable)
		return leave(og_error(GPA_STATUS_ERROR_NULL_POINTER, "%s: pAvailable is NULL",
		                      __func__));
	CURRENT(ctx);
	if (!og_session_find(ctx, sessionID))
		return leave(no_session(__func__, sessionID));
	return leave(og_session_wait_samples(ctx->serial, sessionID, count, timeoutMs, pAvailable));
}

/* Times and flags of one sample, once it is readable. */
static GPA_Status sample_time(const char *func, gpa_uint32 sessionID, gpa_uint32 sampleID,
                              struct og_sample_time *t)
{
	struct og_context *ctx = og_context_current();
	if (!ctx)
		return og_error(GPA_STATUS_ERROR_COUNTERS_NOT_OPEN,
		                "%s: no context is open; call GPA_OpenContext first", func);
	struct og_session *s = og_session_find(ctx, sessionID);
	if (!s)
		return no_session(func, sessionID);
	if (!og_session_has_sample(s, sampleID))
		return og_session_no_sample(func, s, sampleID);
	GPA_Status st = og_sample_wait(ctx->serial, sessionID, sampleID, &ctx, &s);
	if (st == GPA_STATUS_OK)
		st = og_session_sample_time(s, sampleID, t);
	return st;
}

GPA_Status OpenGPA_GetSampleTime(gpa_uint32 sessionID, gpa_uint32 sampleID, gpa_uint64 *pBeginNs,
                                 gpa_uint64 *pEndNs)
{
	og_lock();
	if (!pBeginNs || !pEndNs)
		return leave(og_error(GPA_STATUS_ERROR_NULL_POINTER, "%s: an output pointer is NULL",
		                      __func__));
	struct og_sample_time t;
	GPA_Status st = sample_time(__func__, sessionID, sampleID, &t);
	if (st == GPA_STATUS_OK) {
		*pBeginNs = t.begin_ns;
		*pEndNs = t.end_ns;
	}
	return leave(st);
}

GPA_Status OpenGPA_GetSampleFlags(gpa_uint32 sessionID, gpa_uint32 sampleID, gpa_uint32 *pFlags)
{
	og_lock();
	if (!pFlags)
		return leave(og_error(GPA_STATUS_ERROR_NULL_POINTER, "%s: pFlags is NULL", __func__));
	struct og_sample_time t;
	GPA_Status st = sample_time(__func__, sessionID, sampleID, &t);
	if (st == GPA_STATUS_OK)
		*pFlags = t.flags;
	return leave(st);
}
