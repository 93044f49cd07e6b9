/* SPDX-License-Identifier: MIT */
/*
 * perframe.c — `opengpa stat --per-frame`: what each frame (from one
 * OpenGPA_MarkFrame() to the next) and each GPA sample of the workload's
 * counted, apportioned from the intervals by time overlap (perframe.h).
 *
 * The counters are read by opengpa at each interval, not at the marks (the
 * marks come from another process, through a pipe, after the fact), so a
 * span's count is the sum over the intervals it overlaps of each
 * interval's count times the share of that interval the span covers: the
 * counts are taken to accrue evenly within an interval.  That is exact
 * where the marks fall on interval boundaries, and off by at most the
 * part of the two end intervals that is misattributed otherwise; the
 * shorter -I is against a frame, the closer.  Percentages and ratios are
 * the time-weighted mean of the intervals' values over the span.
 *
 * How: a running cumulative sum per series, C(t), known at each interval's
 * end and interpolated within it; a span's value is C(end) - C(begin).  The
 * last RING intervals' sums are kept, so a span is resolved once the
 * intervals have reached its end, as long as its begin is in the ring; a
 * frame's begin (the mark before) is resolved as soon as the interval
 * holding it comes, however long the frame.  Memory: RING x series
 * doubles, whatever the run's length.
 */
#include "perframe.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "opengpa.h"

/* Intervals kept: a GPA sample longer than this many intervals gets no
 * values (its begin has left the ring). */
#define RING 256u
/* Spans waiting for the intervals to reach their end. */
#define MAX_PENDING 1024u

struct span {
	struct tl_frame f;
	double *cb;       /* C at its begin, taken when its mark came; NULL: from the ring */
	uint32_t cbflags;
};

struct tl_perframe {
	const struct tl_run *run;
	size_t n;
	/* The ring: interval k at k % RING; `added` intervals so far. */
	uint64_t begin[RING], end[RING];
	uint32_t flags[RING];
	double *cum;        /* RING x n: C at each interval's end */
	double *running;    /* n: C at the latest interval's end */
	uint64_t added;
	/* The open frame's begin (the latest mark) and C there, once known. */
	uint64_t open_ns;
	bool open, open_known;
	uint32_t open_flags;
	double *open_cum;
	struct span pending[MAX_PENDING];
	size_t npending;
	double *cb, *ce, *values; /* scratch */
};

struct tl_perframe *tl_perframe_new(const struct tl_run *run)
{
	struct tl_perframe *pf = calloc(1, sizeof *pf);
	if (!pf)
		return NULL;
	size_t n = run->nseries ? run->nseries : 1;
	pf->run = run;
	pf->n = run->nseries;
	pf->cum = calloc(RING * n, sizeof *pf->cum);
	pf->running = calloc(n, sizeof *pf->running);
	pf->open_cum = calloc(n, sizeof *pf->open_cum);
	pf->cb = calloc(n, sizeof *pf->cb);
	pf->ce = calloc(n, sizeof *pf->ce);
	pf->values = calloc(n, sizeof *pf->values);
	if (!pf->cum || !pf->running || !pf->open_cum || !pf->cb || !pf->ce || !pf->values) {
		tl_perframe_free(pf);
		return NULL;
	}
	return pf;
}

void tl_perframe_free(struct tl_perframe *pf)
{
	if (!pf)
		return;
	free(pf->cum);
	free(pf->running);
	free(pf->open_cum);
	free(pf->cb);
	free(pf->ce);
	free(pf->values);
	free(pf);
}

/* The oldest interval whose begin's C is known: its predecessor is in
 * the ring, or it is the first. */
static uint64_t oldest(const struct tl_perframe *pf)
{
	return pf->added <= RING - 1 ? 0 : pf->added - (RING - 1);
}

/* C(t) into out and the flags of the interval holding t; false when t is
 * before the ring (or nothing was added).  t past the latest interval
 * gives C at its end. */
static bool cum_at(const struct tl_perframe *pf, uint64_t t, double *out, uint32_t *flags)
{
	if (!pf->added)
		return false;
	uint64_t lo = oldest(pf), hi = pf->added; /* the first whose end > t */
	if (t < pf->begin[lo % RING] && lo > 0)
		return false;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if (pf->end[mid % RING] <= t)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == pf->added) {
		memcpy(out, pf->running, pf->n * sizeof *out);
		*flags = 0;
		return true;
	}
	size_t k = lo % RING;
	const double *at_end = pf->cum + k * pf->n;
	const double *at_begin = lo ? pf->cum + ((lo - 1) % RING) * pf->n : NULL;
	uint64_t b = pf->begin[k], e = pf->end[k];
	double share = e > b && t > b ? (double)(t - b) / (double)(e - b) : 0.0;
	for (size_t i = 0; i < pf->n; i++) {
		double c0 = at_begin ? at_begin[i] : 0.0;
		out[i] = c0 + (at_end[i] - c0) * share;
	}
	*flags = pf->flags[k];
	return true;
}

/* The flags of the intervals in the ring that overlap [b, e). */
static uint32_t flags_over(const struct tl_perframe *pf, uint64_t b, uint64_t e)
{
	uint32_t flags = 0;
	for (uint64_t k = oldest(pf); k < pf->added; k++)
		if (pf->begin[k % RING] < e && pf->end[k % RING] > b)
			flags |= pf->flags[k % RING];
	return flags;
}

static void emit_ready(struct tl_perframe *pf, bool final, tl_perframe_emit emit, void *ctx);

void tl_perframe_interval(struct tl_perframe *pf, const struct tl_sample *s,
                          tl_perframe_emit emit, void *ctx)
{
	size_t k = pf->added % RING;
	double secs = s->end_ns > s->begin_ns ? (double)(s->end_ns - s->begin_ns) / 1e9 : 0.0;
	for (size_t i = 0; i < pf->n; i++) {
		double v = s->values[i];
		if (isnan(v) || isinf(v))
			v = 0.0; /* not counted: the span's flags say "failed" */
		pf->running[i] += tl_is_count(&pf->run->series[i]) ? v : v * secs;
	}
	memcpy(pf->cum + k * pf->n, pf->running, pf->n * sizeof *pf->running);
	pf->begin[k] = s->begin_ns;
	pf->end[k] = s->end_ns;
	pf->flags[k] = s->flags;
	pf->added++;
	if (pf->open && !pf->open_known && pf->end[k] > pf->open_ns)
		pf->open_known = cum_at(pf, pf->open_ns, pf->open_cum, &pf->open_flags);
	emit_ready(pf, false, emit, ctx);
}

/* The span's values into pf->values (NAN where its begin left the ring). */
static void resolve(struct tl_perframe *pf, struct span *sp)
{
	uint32_t fb = sp->cbflags, fe = 0;
	bool have_b = sp->cb || cum_at(pf, sp->f.begin_ns, pf->cb, &fb);
	const double *cb = sp->cb ? sp->cb : pf->cb;
	bool have_e = cum_at(pf, sp->f.end_ns, pf->ce, &fe);
	/* The time the intervals cover of the span, for the means. */
	uint64_t first = pf->added ? pf->begin[0] : 0;
	uint64_t last = pf->added ? pf->end[(pf->added - 1) % RING] : 0;
	uint64_t b = sp->f.begin_ns, e = sp->f.end_ns;
	if (oldest(pf) == 0 && b < first)
		b = first;
	if (e > last)
		e = last;
	double secs = e > b ? (double)(e - b) / 1e9 : 0.0;
	for (size_t i = 0; i < pf->n; i++) {
		if (!have_b || !have_e) {
			pf->values[i] = NAN;
			continue;
		}
		double d = pf->ce[i] - cb[i];
		if (d < 0.0)
			d = 0.0; /* rounding only: C never goes down */
		pf->values[i] = tl_is_count(&pf->run->series[i]) ? d : secs > 0.0 ? d / secs : NAN;
	}
	sp->f.flags = flags_over(pf, sp->f.begin_ns, sp->f.end_ns) | fb | fe;
	if (!have_b || !have_e)
		sp->f.flags |= OPENGPA_SAMPLE_FAILED;
	sp->f.values = pf->values;
}

static void emit_ready(struct tl_perframe *pf, bool final, tl_perframe_emit emit, void *ctx)
{
	uint64_t last = pf->added ? pf->end[(pf->added - 1) % RING] : 0;
	size_t kept = 0;
	for (size_t i = 0; i < pf->npending; i++) {
		struct span *sp = &pf->pending[i];
		if (!final && sp->f.end_ns > last) {
			pf->pending[kept++] = *sp;
			continue;
		}
		resolve(pf, sp);
		emit(ctx, &sp->f);
		free(sp->cb);
	}
	pf->npending = kept;
}

void tl_perframe_flush(struct tl_perframe *pf, tl_perframe_emit emit, void *ctx)
{
	emit_ready(pf, true, emit, ctx);
}

void tl_perframe_span(struct tl_perframe *pf, const struct tl_frame *f, tl_perframe_emit emit,
                      void *ctx)
{
	if (pf->npending == MAX_PENDING) /* the intervals lag far behind: all go now */
		emit_ready(pf, true, emit, ctx);
	struct span sp = { .f = *f };
	/* A frame beginning at the open mark: C there was taken when its
	 * interval came (the ring may have moved on since). */
	if (!f->sample && pf->open && pf->open_ns == f->begin_ns && pf->open_known) {
		sp.cb = malloc(pf->n * sizeof *sp.cb + 1);
		if (sp.cb) {
			memcpy(sp.cb, pf->open_cum, pf->n * sizeof *sp.cb);
			sp.cbflags = pf->open_flags;
		}
	}
	pf->pending[pf->npending++] = sp;
	emit_ready(pf, false, emit, ctx);
}

void tl_perframe_mark(struct tl_perframe *pf, uint64_t ns)
{
	pf->open = true;
	pf->open_ns = ns;
	pf->open_flags = 0;
	pf->open_known = pf->added && pf->end[(pf->added - 1) % RING] > ns &&
	                 cum_at(pf, ns, pf->open_cum, &pf->open_flags);
}
