/* SPDX-License-Identifier: MIT */
/*
 * opengpa.h — what the GPA 2.x ABI cannot say.
 *
 * Every function here returns a GPA_Status and logs through the callback
 * registered with GPA_RegisterLoggingCallback, like the 2.x entry points.
 * Each setting also has an OPENGPA_* environment variable for tools that only
 * know the 2.x ABI; a call here overrides the variable.  docs/api.md has the
 * full story.
 *
 *   setting                       call                          variable
 *   backend for the next context  OpenGPA_SetBackend            OPENGPA_BACKEND, OPENGPA_BACKEND_OPTIONS
 *   raw hardware counters         OpenGPA_SetHardwareCounters   OPENGPA_HARDWARE_COUNTERS=1
 *   per-instance counters         OpenGPA_SetInstanceCounters   OPENGPA_INSTANCE_COUNTERS=1
 *   extra counter files           OpenGPA_AddCounterFile        OPENGPA_COUNTER_PATH=a:b:dir
 *   a device constant's value     OpenGPA_SetConstant           OPENGPA_CONSTANTS=NAME=VALUE,...
 *   cycle budget target           OpenGPA_SetCycleBudgetTarget  OPENGPA_CYCLE_BUDGET=WxH@FPS
 *   session ring size             OpenGPA_SetSessionRingSize    OPENGPA_SESSION_RING=N
 *   kernel multiplexing           OpenGPA_SetMultiplexing       OPENGPA_MULTIPLEX=1
 *   periodic samples              OpenGPA_SetSamplingPeriod     (none: the 2.x calls cannot use them)
 *   what a context pointer is     OpenGPA_SetContextApi         OPENGPA_API=auto|none|gl|gles|cl
 *   sample synchronisation        OpenGPA_SetSampleSync         OPENGPA_SYNC=finish|flush|off
 *   frame marks for opengpa stat  OpenGPA_MarkFrame             OPENGPA_FRAME_FD (set by opengpa stat)
 *   log to stderr                 (none)                        OPENGPA_LOG=error|message|trace|all
 */
#ifndef OPENGPA_H
#define OPENGPA_H

#include "GPUPerfAPI.h"

/* The version of these headers (meson.build's project version; the build
 * checks they agree).  OpenGPA_GetVersion gives the library's at run time. */
#define OPENGPA_VERSION_MAJOR 0
#define OPENGPA_VERSION_MINOR 1
#define OPENGPA_VERSION_PATCH 0
#define OPENGPA_VERSION_STRING "0.1.0"
/* 0xMMmmpp, for comparisons: OPENGPA_VERSION >= OPENGPA_VERSION_OF(0, 2, 0). */
#define OPENGPA_VERSION_OF(major, minor, patch) (((major) << 16) | ((minor) << 8) | (patch))
#define OPENGPA_VERSION                                                                  \
	OPENGPA_VERSION_OF(OPENGPA_VERSION_MAJOR, OPENGPA_VERSION_MINOR, OPENGPA_VERSION_PATCH)

/* The version of the library in use, which may be newer than the headers a
 * program was built with (OPENGPA_VERSION_*).  Any pointer may be NULL.
 * Needs no context and no GPA_Initialize. */
GPALIB_DECL GPA_Status OpenGPA_GetVersion(gpa_uint32 *pMajor, gpa_uint32 *pMinor,
                                          gpa_uint32 *pPatch);

/* Backend and options for contexts opened after this call.  name is one of
 * "auto" (or NULL), "perf", "mali", "panfrost", "mips"; options are
 * "key=value,..." as documented in docs/backends/<name>.md (NULL = none). */
GPALIB_DECL GPA_Status OpenGPA_SetBackend(const char *name, const char *options);

/* The backends compiled into this library, in the order "auto" tries
 * them: their count, then each one's name and a one-line summary of what
 * it counts through which kernel interface.  Need no context.  Whether one
 * is usable here is whether a context opens on it (`opengpa list
 * --backends` tries each).  Backends this build left out come last, their
 * summary saying why ("left out of this build: libdrm not found..."); a
 * context never opens on them. */
GPALIB_DECL GPA_Status OpenGPA_GetBackendCount(gpa_uint32 *pCount);
GPALIB_DECL GPA_Status OpenGPA_GetBackendInfo(gpa_uint32 index, const char **ppName,
                                              const char **ppSummary);

/* Name of the backend behind the current context ("perf", ...). */
GPALIB_DECL GPA_Status OpenGPA_GetBackend(const char **ppName);

/* Change one backend option of the current context between sessions (for
 * example the perf scope: "pid" = a process to count). */
GPALIB_DECL GPA_Status OpenGPA_SetBackendOption(const char *key, const char *value);

/* Also offer every raw hardware counter as a public counter (uint64, after
 * the derived counters) in contexts opened after this call. */
GPALIB_DECL GPA_Status OpenGPA_SetHardwareCounters(gpa_uint8 enable);

/* Load this counter file (or every *.counters file of this directory) into
 * contexts opened after this call, after the built-in sets. */
GPALIB_DECL GPA_Status OpenGPA_AddCounterFile(const char *path);

/* Give a constant of the counter files this value in contexts opened after
 * this call, in place of what the backend reports or the file says: for
 * example DeviceMaxClockHz, the GPU clock the cycle budget assumes, on a
 * driver that does not report it.  `name` is as the files write it
 * (letters, digits, '_'; any case); at most 64 constants are set at once.
 * docs/models.md lists the constants the models use. */
GPALIB_DECL GPA_Status OpenGPA_SetConstant(const char *name, gpa_float64 value);

/* The target of the cycle budget (Arm's Mali guide, section 4.4) for
 * contexts opened after this call: on Mali GPUs they offer CycleBudgetMax
 * and CycleBudgetReal, the shader-core cycles each pixel may cost at this
 * resolution and frame rate (at 100 % and at the guide's 85 % utilisation),
 * and CycleBudgetUsed, the share of the real budget each sample's cycles per
 * pixel used, in percent.  A game engine reads them from each frame's
 * sample.  Width and height 1 to 65536, fps above 0 and at most 10000;
 * 0, 0, 0 removes the target.  docs/models.md has the method. */
GPALIB_DECL GPA_Status OpenGPA_SetCycleBudgetTarget(gpa_uint32 width, gpa_uint32 height,
                                                    gpa_float64 fps);

/* Number of sessions whose results the current context keeps (>= 1; the
 * default is 4).  Only between sessions; keeps the newest sessions. */
GPALIB_DECL GPA_Status OpenGPA_SetSessionRingSize(gpa_uint32 count);

/* Count every enabled counter in ONE pass by letting the kernel time-share
 * the groups the planner would have put in separate passes (perf backend).
 * Counts are scaled by enabled/running time; ratios inside one group stay
 * exact, but values are estimates: check OpenGPA_GetSampleCoverage.  For the
 * current context, between sessions; HARDWARE_NOT_SUPPORTED for a backend
 * that cannot multiplex. */
GPALIB_DECL GPA_Status OpenGPA_SetMultiplexing(gpa_uint8 enable);

/* Share of the sample, in (0, 1], that the least-counted group of its
 * passes was really on the counters (running/enabled); 1 when nothing was
 * time-shared.  Waits for the session like the GPA_GetSample functions. */
GPALIB_DECL GPA_Status OpenGPA_GetSampleCoverage(gpa_uint32 sessionID, gpa_uint32 sampleID,
                                                 gpa_float64 *pCoverage);

/* Marks the end of one frame and the start of the next, for an engine
 * whose frames opengpa cannot see: CLOCK_MONOTONIC is read now and, when
 * the program runs under `opengpa stat -I` (which sets OPENGPA_FRAME_FD to
 * a pipe it reads), sent there, so the command's --trace and --perfetto
 * files show each frame, from one mark to the next, as a slice.  Needs no
 * context and no GPA_Initialize; elsewhere it does nothing and returns OK.
 * Thread-safe; one write(2) of 8 bytes, never blocking: a mark the reader
 * has no room for is dropped with GPA_STATUS_ERROR_FAILED. */
GPALIB_DECL GPA_Status OpenGPA_MarkFrame(void);

/* The counter's group ("CPU", "Fragment Queue", ...), without the "#Group#"
 * prefix GPA_GetCounterDescription carries for 2.x compatibility. */
GPALIB_DECL GPA_Status OpenGPA_GetCounterGroup(gpa_uint32 index, const char **ppGroup);

/* The counter's description alone, without the "#Group#" prefix. */
GPALIB_DECL GPA_Status OpenGPA_GetCounterText(gpa_uint32 index, const char **ppText);

/* The expression the counter is computed from, as its counter file wrote it;
 * a raw hardware counter gives its backend source (e.g. "sw:page-faults"). */
GPALIB_DECL GPA_Status OpenGPA_GetCounterExpression(gpa_uint32 index, const char **ppExpr);

/* The counter's other names, blank-separated ("MaliGPUActiveCy"), or "" when
 * it has none: its counter file's `alias:`.  GPA_GetCounterIndex and
 * GPA_EnableCounterStr find a counter by any of them. */
GPALIB_DECL GPA_Status OpenGPA_GetCounterAlias(gpa_uint32 index, const char **ppAlias);

/* 1 when the counter is in its device's headline set (its counter file's
 * `headline: yes`): the short first look `opengpa stat` counts without -e;
 * 0 otherwise. */
GPALIB_DECL GPA_Status OpenGPA_GetCounterHeadline(gpa_uint32 index, gpa_uint32 *pHeadline);

/* ---- per-instance counters (a naming convention, no function) -----------
 *
 * Where a GPU counts in several instances of a block (Mali shader cores, L2
 * slices, command-stream groups), each instance's value of a counter is a
 * counter of its own, listed after the counters it copies and found,
 * enabled and read with GPA's calls like any other:
 *
 *     <instance><N>OPENGPA_INSTANCE_SEPARATOR<counter>
 *     "ShaderCore5:FragmentActiveCycles"   core at bit 5 of the core mask
 *     "L2Slice1:ReadLookupRequests"        L2 slice 1
 *
 * A counter has such copies when every raw counter it reads is summed over
 * the same instances and it reads no count of them; the copies of a count
 * add up to it.  Its aliases are copied the same way
 * ("ShaderCore5:MaliFragActiveCy").  docs/api.md, "Per-instance counters".
 *
 * The copies are offered only in contexts opened after
 * OpenGPA_SetInstanceCounters(1) (or with OPENGPA_INSTANCE_COUNTERS=1): a
 * Mali-G720 MC8 has some 1,300 of them, which a client that never asks
 * for one should not have to list, build or hold. */
#define OPENGPA_INSTANCE_SEPARATOR ":"

/* Also offer the per-instance copies above in contexts opened after this
 * call (0 takes them away again). */
GPALIB_DECL GPA_Status OpenGPA_SetInstanceCounters(gpa_uint8 enable);

/* ---- every counter of a sample in one call ------------------------------ */

/* One value of OpenGPA_GetSampleResults: f64 for a GPA_TYPE_FLOAT32 or
 * FLOAT64 counter (a float32 counter's GPA_GetSampleFloat32 is this
 * rounded to float), u64 for the integer types (a uint32 counter's is
 * clamped to 2^32-1, as GPA_GetSampleUInt32 does).  The same 8-byte values
 * GPA 3.x's GpaGetSampleResult writes. */
typedef union OpenGPA_Result {
	gpa_uint64 u64;
	gpa_float64 f64;
} OpenGPA_Result;

/* The counters session `sessionID` counts, in the order they were enabled
 * when it began: up to `capacity` counter indices into pIndices (NULL when
 * capacity is 0), and their number into *pCount. */
GPALIB_DECL GPA_Status OpenGPA_GetSessionCounters(gpa_uint32 sessionID, gpa_uint32 capacity,
                                                  gpa_uint32 *pIndices, gpa_uint32 *pCount);

/* Every counter of the session for one sample at once: pResults[k] is the
 * k-th counter OpenGPA_GetSessionCounters names; `count` must be at least
 * their number (INDEX_OUT_OF_RANGE otherwise).  One call costs about what
 * the arithmetic does (docs/performance.md).  Waits like GPA_GetSample*;
 * SAMPLE_NOT_FOUND when the sample is not in the session or missing from a
 * pass one of the counters needs, READING_COUNTER_RESULT when the device
 * could not read it. */
GPALIB_DECL GPA_Status OpenGPA_GetSampleResults(gpa_uint32 sessionID, gpa_uint32 sampleID,
                                                gpa_uint32 count, OpenGPA_Result *pResults);

/* Which pass (0-based) of the current plan counts this enabled counter's
 * inputs; GPA_STATUS_ERROR_NOT_ENABLED if it is not enabled. */
GPALIB_DECL GPA_Status OpenGPA_GetCounterPass(gpa_uint32 index, gpa_uint32 *pPass);

/* What the device's counter sets declare but the current context does not
 * offer (a raw counter this machine cannot count, a counter that needs one),
 * with the reason: `opengpa list --all` prints these. */
GPALIB_DECL GPA_Status OpenGPA_GetUnavailableCount(gpa_uint32 *pCount);
GPALIB_DECL GPA_Status OpenGPA_GetUnavailableCounter(gpa_uint32 index, const char **ppName,
                                                     const char **ppReason);

/* What the counter sets declare about unavailable counter `index`: its
 * group, description, usage and data type, as GPA_GetCounter* would give
 * them if it were countable.  Any output pointer may be NULL. */
GPALIB_DECL GPA_Status OpenGPA_GetUnavailableCounterInfo(gpa_uint32 index, const char **ppGroup,
                                                         const char **ppText,
                                                         GPA_Usage_Type *pUsage,
                                                         GPA_Type *pType);

/* ---- Contexts on an application's GL, GLES or OpenCL context ----------
 *
 * Loaded as libGPUPerfAPIGL.so or …GLES.so, the pointer given to
 * GPA_OpenContext is the GL or GLES context current on the calling thread;
 * loaded as …CL.so, a cl_command_queue (as in AMD's GPA).  Samples on such
 * a context are synchronised with it and timed by it: GPUTime is the GPU
 * time of the sample's commands.  Under any other name, or in a process
 * with no GL or OpenCL library loaded, the pointer is only a key.
 * docs/api.md, "Contexts and samples", has the details and the costs. */
/* What contexts opened after this call bind to: "auto" (or NULL: the name
 * the library was loaded under, unless OPENGPA_API says otherwise), "none"
 * (the pointer is a key), "gl", "gles", "cl".  For a program that links
 * libopengpa and wants GPA's GL or CL meaning. */
GPALIB_DECL GPA_Status OpenGPA_SetContextApi(const char *api);
/* What a sample boundary (GPA_BeginSample, GPA_EndSample) does to the
 * API's queue before the counters are read. */
#define OPENGPA_SYNC_OFF 1u    /* nothing: counts are those of whatever the GPU did meanwhile */
#define OPENGPA_SYNC_FLUSH 2u  /* glFlush / clFlush: submitted, not waited for */
#define OPENGPA_SYNC_FINISH 3u /* glFinish / clFinish: the default; counts are the sample's */
/* The current context's sync mode (between samples).  A plain context has
 * only OPENGPA_SYNC_OFF (HARDWARE_NOT_SUPPORTED for the others). */
GPALIB_DECL GPA_Status OpenGPA_SetSampleSync(gpa_uint32 mode);
/* The current context's API ("none", "gl", "gles", "cl") and sync mode.
 * Either pointer may be NULL. */
GPALIB_DECL GPA_Status OpenGPA_GetContextApi(const char **ppApi, gpa_uint32 *pSync);
/* ---- Periodic samples and sample times --------------------------------
 *
 * A periodic session samples by itself: between GPA_BeginPass and
 * GPA_EndPass the library takes one sample per period, numbered 0, 1, ...,
 * each readable with GPA_GetSample* as soon as it is complete (while the
 * pass goes on); GPA_GetSampleCount says how many there are so far.  Where
 * the kernel can time the samples (Mali kbase SET_INTERVAL, kinstr_prfcnt)
 * it does, and keeps them while the process is descheduled; elsewhere one
 * thread of the library's reads the counters at each period.  docs/api.md
 * has the details. */

/* Sessions begun after this call on the current context sample every
 * periodNs nanoseconds (0 = the client's own samples again).  Refused below
 * the backend's floor (the message names it) and while a session is open.
 * GPA_BeginSession then refuses counter sets that need more than one pass. */
GPALIB_DECL GPA_Status OpenGPA_SetSamplingPeriod(gpa_uint64 periodNs);

/* How many samples periodic sessions begun after this call keep: 0 (the
 * default) keeps every one, as GPA keeps a session's samples; N >= 2 keeps
 * the newest N to 2N, so a long run at a short period does not grow
 * without bound.  A dropped sample gives SAMPLE_NOT_FOUND; the session's
 * total (OPENGPA_SAMPLES_TOTAL) still counts it.  Current context, between
 * sessions. */
GPALIB_DECL GPA_Status OpenGPA_SetPeriodicWindow(gpa_uint32 samples);

/* The session's period (0 for a session of the client's samples) and
 * whether the kernel times its samples (1) or the library's thread (0). */
GPALIB_DECL GPA_Status OpenGPA_GetSamplingPeriod(gpa_uint32 sessionID, gpa_uint64 *pPeriodNs,
                                                 gpa_uint8 *pKernelTimed);

/* Waits until the session has at least `count` samples readable, or no more
 * will come (its pass ended), or timeoutMs passed, and says how many are
 * readable: samples 0 .. *pAvailable - 1.  A periodic session's samples are
 * readable as they complete; others when the session is ready. */
GPALIB_DECL GPA_Status OpenGPA_WaitForSamples(gpa_uint32 sessionID, gpa_uint32 count,
                                              gpa_uint32 timeoutMs, gpa_uint32 *pAvailable);

/* A sample ID for every sample of a session at once: GPA_GetSample* with
 * it give each counter over the whole session (each raw count summed over
 * the samples, then the counter's expression: a ratio is the ratio of the
 * sums), OpenGPA_GetSampleTime the span from the first sample's begin to
 * the last's end.  A periodic session's total so far is readable while its
 * pass goes on.  A client sample with this ID takes precedence. */
#define OPENGPA_SAMPLES_TOTAL 0xFFFFFFFFu

/* When the sample began and ended, CLOCK_MONOTONIC nanoseconds (the
 * kernel's timestamps where it has them; a multi-pass sample's first pass).
 * Waits like the GPA_GetSample functions. */
GPALIB_DECL GPA_Status OpenGPA_GetSampleTime(gpa_uint32 sessionID, gpa_uint32 sampleID,
                                             gpa_uint64 *pBeginNs, gpa_uint64 *pEndNs);

/* What else is known about the sample: OPENGPA_SAMPLE_* bits. */
#define OPENGPA_SAMPLE_KERNEL_TIME 0x1u /* its times are the kernel's */
#define OPENGPA_SAMPLE_OVERFLOW 0x2u    /* the kernel's ring was full and dropped the
                                         * dumps of some periods: their counts are in
                                         * this sample, which spans them */
#define OPENGPA_SAMPLE_LATE 0x4u        /* read late by the library's thread (process
                                         * stopped or starved): spans over 1.5 periods */
#define OPENGPA_SAMPLE_FINAL 0x8u       /* the last of a periodic pass, cut short by
                                         * GPA_EndPass */
#define OPENGPA_SAMPLE_FAILED 0x10u     /* could not be read: no results */
#define OPENGPA_SAMPLE_BLOCKS_OFF 0x20u /* the driver reports counter blocks (shader
                                         * cores, L2 slices...) powered off during the
                                         * sample: their work went uncounted (Mali
                                         * kinstr_prfcnt, JM 11.41 / CSF 1.23 on) */
#define OPENGPA_SAMPLE_PROTECTED 0x40u  /* the driver reports blocks in protected mode
                                         * (protected content is not counted); same
                                         * drivers */
GPALIB_DECL GPA_Status OpenGPA_GetSampleFlags(gpa_uint32 sessionID, gpa_uint32 sampleID,
                                              gpa_uint32 *pFlags);

#endif
