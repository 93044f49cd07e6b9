/* SPDX-License-Identifier: MIT */
/*
 * interval.c — `opengpa stat -I`'s lines, as perf stat -I prints them: each
 * interval a block of one line per counter led by the interval's end in
 * seconds since counting began.  -x gives the same as separated fields,
 * --json one JSON object per interval and line, for scripts that read the
 * output while the command runs.
 */
#include <math.h>
#include <stdio.h>

#include "format.h"
#include "opengpa.h"
#include "timeline.h"

static void table_begin(struct tl_output *o, const struct tl_run *run)
{
	(void)run;
	fprintf(o->f, "#%14s %18s %-6s  %s\n", "time", "counts", "unit", "counter");
}

/* What made an interval longer than a period, for the line after it. */
static void table_note(struct tl_output *o, const struct tl_run *run, const struct tl_sample *s)
{
	double periods = run->period_ns ? (double)(s->end_ns - s->begin_ns) / (double)run->period_ns
	                                : 0.0;
	if (s->flags & OPENGPA_SAMPLE_OVERFLOW)
		fprintf(o->f, "# %14.9f  this interval holds %.0f periods: the kernel's buffer was "
		        "full while opengpa could not read it, and kept their counts in one sample\n",
		        tl_seconds(run, s->end_ns), periods);
	else if (s->flags & OPENGPA_SAMPLE_LATE)
		fprintf(o->f, "# %14.9f  this interval lasted %.1f periods: opengpa's sampling thread "
		        "ran late (the process was stopped or the machine busy)\n",
		        tl_seconds(run, s->end_ns), periods);
	if (s->flags & OPENGPA_SAMPLE_FAILED)
		fprintf(o->f, "# %14.9f  this interval could not be read\n",
		        tl_seconds(run, s->end_ns));
}

static void table_sample(struct tl_output *o, const struct tl_run *run, const struct tl_sample *s)
{
	double t = tl_seconds(run, s->end_ns);
	for (size_t i = 0; i < run->nseries; i++) {
		const struct tl_series *c = &run->series[i];
		char value[64];
		tl_value(c, s->values[i], value, sizeof value);
		fprintf(o->f, "%15.9f %18s %-6s  %-32s # %s\n", t,
		        value[0] ? value : "<not counted>", c->unit, c->name, c->group ? c->group : "");
	}
	table_note(o, run, s);
	o->count++;
}

static void no_end(struct tl_output *o, const struct tl_run *run, const struct tl_end *e)
{
	(void)o;
	(void)run;
	(void)e; /* the report's totals follow */
}

const struct tl_format tl_interval_table = {
	.name = "interval",
	.begin = table_begin,
	.sample = table_sample,
	.end = no_end,
};

static void nothing_first(struct tl_output *o, const struct tl_run *run)
{
	(void)o;
	(void)run;
}

/* time SEP value SEP unit SEP name SEP group: perf stat -I -x's order. */
static void separated_sample(struct tl_output *o, const struct tl_run *run,
                             const struct tl_sample *s)
{
	char time[32];
	snprintf(time, sizeof time, "%.9f", tl_seconds(run, s->end_ns));
	for (size_t i = 0; i < run->nseries; i++) {
		const struct tl_series *c = &run->series[i];
		char value[64];
		tl_value(c, s->values[i], value, sizeof value);
		const char *fields[] = { time, value[0] ? value : "<not counted>", c->unit, c->name,
			                 c->group ? c->group : "" };
		for (size_t k = 0; k < sizeof fields / sizeof fields[0]; k++) {
			if (k)
				fputs(o->sep, o->f);
			fmt_csv_field(o->f, fields[k], o->sep);
		}
		fputc('\n', o->f);
	}
	o->count++;
}

const struct tl_format tl_interval_separated = {
	.name = "interval",
	.begin = nothing_first,
	.sample = separated_sample,
	.end = no_end,
};

static void json_sample(struct tl_output *o, const struct tl_run *run, const struct tl_sample *s)
{
	char words[64];
	fprintf(o->f, "{\"interval\": %u, \"time\": %.9f, \"begin\": %.9f, \"end\": %.9f, "
	        "\"flags\": [", (unsigned)s->index, tl_seconds(run, s->end_ns),
	        tl_seconds(run, s->begin_ns), tl_seconds(run, s->end_ns));
	tl_flag_words(s->flags, "\", \"", words, sizeof words);
	if (words[0])
		fprintf(o->f, "\"%s\"", words);
	fputs("], \"counters\": [", o->f);
	for (size_t i = 0; i < run->nseries; i++) {
		const struct tl_series *c = &run->series[i];
		fputs(i ? ", {\"name\": " : "{\"name\": ", o->f);
		fmt_json_string(o->f, c->name);
		fputs(", \"unit\": ", o->f);
		fmt_json_string(o->f, c->unit);
		double v = s->values[i];
		if (isnan(v) || isinf(v))
			fputs(", \"value\": null}", o->f);
		else if (c->integer)
			fprintf(o->f, ", \"value\": %.0f}", v);
		else
			fprintf(o->f, ", \"value\": %.17g}", v);
	}
	fputs("]}\n", o->f);
	o->count++;
}

const struct tl_format tl_interval_json = {
	.name = "interval",
	.begin = nothing_first,
	.sample = json_sample,
	.end = no_end,
};
