/* SPDX-License-Identifier: MIT */
/* session_internal.h — what the core's files share about plans and
 * sessions beyond core.h: the planner (selection.c calls it), periodic
 * sampling (session_periodic.c over session.c), and testing.c's look in. */
#ifndef OPENGPA_CORE_SESSION_INTERNAL_H
#define OPENGPA_CORE_SESSION_INTERNAL_H

#include "core/core.h"

/* plan.c: packs the selection's raw inputs into passes. */
GPA_Status og_plan_build(struct og_context *ctx, const struct og_selection *sel,
                         struct og_plan *plan);

/* ---- periodic sampling: session_periodic.c, over session.c's samples ---- */

struct og_periodic; /* the sampling of one periodic pass: its thread, its clock */

/* BeginSession: a periodic session needs one pass (logs the passes if not). */
GPA_Status og_periodic_check_plan(struct og_context *ctx, const struct og_plan *plan);
/* BeginPass, after the backend's begin_pass: start sampling. */
GPA_Status og_periodic_start(struct og_context *ctx, struct og_session *s);
/* EndPass, before the backend's end_pass: stop the thread (the registry
 * lock is released while it finishes), take the last sample.  Returns the
 * first failure of the sampling, if any, or OK. */
GPA_Status og_periodic_stop(struct og_context *ctx, struct og_session *s);
void og_periodic_free(struct og_periodic *p);

/* session.c, for session_periodic.c.  Lock held. */
uint64_t *og_session_deltas(struct og_session *s); /* room for pass 0's deltas */
void og_session_set_periodic(struct og_session *s, struct og_periodic *p, bool kernel_timed);
struct og_periodic *og_session_periodic(const struct og_session *s);
/* Appends sample nsamples (pass 0's deltas, or failed when t->flags has
 * OG_SAMPLE_FAILED) and wakes waiters. */
GPA_Status og_session_append(struct og_session *s, const uint64_t *deltas,
                             const struct og_sample_time *t, double coverage);
/* ORs flags into the newest sample's. */
void og_session_flag_last(struct og_session *s, uint32_t flags);
size_t og_session_complete(const struct og_session *s);

/* For core/testing.h: the raw values the session stored for a sample, put
 * at their backend ids (those below n), and how many it stores per sample. */
GPA_Status og_session_sample_raws(const struct og_context *ctx, const struct og_session *s,
                                  uint32_t sample_id, uint64_t *by_backend_id, size_t n);
size_t og_session_raw_count(const struct og_session *s);
/* How many of its counters a read computes each way (testing.h). */
void og_session_read_kinds(const struct og_session *s, size_t *raw, size_t *in_place,
                           size_t *gathered, size_t *interpreted);
/* How many of its counters an unlocked single read computes each way:
 * out[ONE_NONE .. ONE_RATIO_NA] (session_state.h). */
void og_session_single_kinds(const struct og_session *s, size_t out[6]);

#endif
