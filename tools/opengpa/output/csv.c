/* SPDX-License-Identifier: MIT */
/*
 * csv.c — one row per interval, one column per counter (RFC 4180: CRLF
 * line ends, fields quoted when they hold a comma, a quote or a line
 * break).  The header names each counter with its unit, "TaskClock (ms)";
 * each row has the sample's number, its begin and end in seconds since
 * counting began and in CLOCK_MONOTONIC nanoseconds (to line it up with
 * other data), its flags, then the values (empty where not counted).
 *
 * With --per-frame (o->per_frame) a first column "row" says what a row is:
 * "interval", "frame" (from one OpenGPA_MarkFrame() to the next; `sample`
 * is the frame's number) or "sample" (a GPA sample of the workload's;
 * `sample` is its ID), the frames' and samples' values apportioned from
 * the intervals they overlap (perframe.c), their flags those intervals'.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#include "format.h"
#include "timeline.h"

static void field(struct tl_output *o, const char *text, bool first)
{
	if (!first)
		fputc(',', o->f);
	fmt_csv_field(o->f, text, ",");
}

static void csv_begin(struct tl_output *o, const struct tl_run *run)
{
	static const char *const fixed[] = { "sample", "begin_s", "end_s", "begin_ns", "end_ns",
		                             "flags" };
	if (o->per_frame)
		field(o, "row", true);
	for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
		field(o, fixed[i], i == 0 && !o->per_frame);
	for (size_t i = 0; i < run->nseries; i++) {
		char name[256];
		snprintf(name, sizeof name, "%s (%s)", run->series[i].name,
		         tl_unit_or_usage(&run->series[i]));
		field(o, name, false);
	}
	fputs("\r\n", o->f);
}

/* One row: the span's number, times and flags, then the values. */
static void row(struct tl_output *o, const struct tl_run *run, const char *what, uint32_t index,
                uint64_t begin_ns, uint64_t end_ns, uint32_t flags, const double *values)
{
	char words[64];
	if (o->per_frame)
		fprintf(o->f, "%s,", what);
	fprintf(o->f, "%u,%.9f,%.9f,%" PRIu64 ",%" PRIu64 ",", (unsigned)index,
	        tl_seconds(run, begin_ns), tl_seconds(run, end_ns), begin_ns, end_ns);
	fmt_csv_field(o->f, tl_flag_words(flags, " ", words, sizeof words), ",");
	for (size_t i = 0; i < run->nseries; i++) {
		double v = values[i];
		fputc(',', o->f);
		if (isnan(v) || isinf(v))
			continue;
		tl_put_number(o->f, v, run->series[i].integer ? TL_INTEGER : TL_G10);
	}
	fputs("\r\n", o->f);
	o->count++;
}

static void csv_sample(struct tl_output *o, const struct tl_run *run, const struct tl_sample *s)
{
	row(o, run, "interval", s->index, s->begin_ns, s->end_ns, s->flags, s->values);
}

/* --per-frame's rows; nothing for a frame without values. */
static void csv_frame(struct tl_output *o, const struct tl_run *run, const struct tl_frame *f)
{
	if (o->per_frame && f->values)
		row(o, run, f->sample ? "sample" : "frame", f->index, f->begin_ns, f->end_ns,
		    f->flags, f->values);
}

static void csv_end(struct tl_output *o, const struct tl_run *run, const struct tl_end *e)
{
	(void)o;
	(void)run;
	(void)e; /* one row per interval: the totals are the report's */
}

const struct tl_format tl_csv = {
	.name = "csv",
	.begin = csv_begin,
	.sample = csv_sample,
	.end = csv_end,
	.frame = csv_frame,
};
