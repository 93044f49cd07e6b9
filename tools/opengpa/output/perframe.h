/* SPDX-License-Identifier: MIT */
/*
 * perframe.h — `opengpa stat --per-frame`: each frame's and each GPA
 * sample's counts, apportioned from the intervals by time overlap
 * (perframe.c says how, and how precise).
 *
 * Fed in time order from one thread: every interval as it is written
 * (tl_perframe_interval), every frame mark as it comes (tl_perframe_mark),
 * every frame or sample once it has ended (tl_perframe_span); a span is
 * handed to `emit`, with its values, once the intervals reach its end, the
 * rest by tl_perframe_flush at the end of the run.
 */
#ifndef OPENGPA_TOOLS_PERFRAME_H
#define OPENGPA_TOOLS_PERFRAME_H

#include "timeline.h"

struct tl_perframe;
typedef void (*tl_perframe_emit)(void *ctx, const struct tl_frame *f);

/* NULL when out of memory.  run (its series) must outlive it. */
struct tl_perframe *tl_perframe_new(const struct tl_run *run);
void tl_perframe_free(struct tl_perframe *pf);

void tl_perframe_interval(struct tl_perframe *pf, const struct tl_sample *s,
                          tl_perframe_emit emit, void *ctx);
/* A frame mark at ns: the frame that begins there. */
void tl_perframe_mark(struct tl_perframe *pf, uint64_t ns);
void tl_perframe_span(struct tl_perframe *pf, const struct tl_frame *f, tl_perframe_emit emit,
                      void *ctx);
/* Every span still waiting, with what the intervals hold (the run's end). */
void tl_perframe_flush(struct tl_perframe *pf, tl_perframe_emit emit, void *ctx);

#endif
