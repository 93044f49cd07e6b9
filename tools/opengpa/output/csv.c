/* SPDX-License-Identifier: MIT */
/*
 * csv.c — one row per interval, one column per counter (RFC 4180: CRLF
 * line ends, fields quoted when they hold a comma, a quote or a line
 * break).  The header names each counter with its unit, "TaskClock (ms)";
 * each row has the sample's number, its begin and end in seconds since
 * counting began and in CLOCK_MONOTONIC nanoseconds (to line it up with
 * other data), its flags, then the values (empty where not counted).
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
	for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
		field(o, fixed[i], i == 0);
	for (size_t i = 0; i < run->nseries; i++) {
		char name[256];
		snprintf(name, sizeof name, "%s (%s)", run->series[i].name,
		         tl_unit_or_usage(&run->series[i]));
		field(o, name, false);
	}
	fputs("\r\n", o->f);
}

static void csv_sample(struct tl_output *o, const struct tl_run *run, const struct tl_sample *s)
{
	char words[64];
	fprintf(o->f, "%u,%.9f,%.9f,%" PRIu64 ",%" PRIu64 ",", (unsigned)s->index,
	        tl_seconds(run, s->begin_ns), tl_seconds(run, s->end_ns), s->begin_ns, s->end_ns);
	fmt_csv_field(o->f, tl_flag_words(s->flags, " ", words, sizeof words), ",");
	for (size_t i = 0; i < run->nseries; i++) {
		double v = s->values[i];
		fputc(',', o->f);
		if (isnan(v) || isinf(v))
			continue;
		fprintf(o->f, run->series[i].integer ? "%.0f" : "%.10g", v);
	}
	fputs("\r\n", o->f);
	o->count++;
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
};
