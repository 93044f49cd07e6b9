/* SPDX-License-Identifier: MIT */
/*
 * trace.c — Chrome trace-event JSON (the "JSON Array Format" of Google's
 * Trace Event Format), which Perfetto's UI and chrome://tracing open:
 *
 *   process_name / thread_name metadata ("M") naming the workload's process;
 *   the workload's run as one slice, a "B" event when counting starts and
 *   an "E" event when the workload ends;
 *   one counter track per counter: a "C" event per interval at the
 *   interval's begin, its one argument named with the unit it is shown in,
 *   so the viewers show "TaskClock ms/s": a count (cycles, items, bytes, ms)
 *   as its rate per second over the interval's own begin and end (a late or
 *   partial interval reads right), a percentage or ratio as it is;
 *   each interval as a complete ("X") slice on a thread of its own named
 *   "opengpa intervals", its arguments each counter's count in it (what
 *   the viewers show on selecting it) and its flags;
 *   an instant event ("i") where an interval is late, merged or failed;
 *   each frame the workload marked (OpenGPA_MarkFrame) as a complete
 *   slice "frame N" on a thread of its own named "frames", and each GPA
 *   sample of the workload's as a slice "sample ID" of a thread "GPA
 *   samples"; with --per-frame, their apportioned counts as arguments.
 *
 * Timestamps are the samples' CLOCK_MONOTONIC times in µs.  Events are
 * separated by a comma written before each, so a file cut short (opengpa
 * killed) is an array missing only its "]", which the format allows.
 */
#include <math.h>
#include <stdio.h>

#include "format.h"
#include "opengpa.h"
#include "timeline.h"

static double micros(uint64_t ns)
{
	return (double)ns / 1000.0;
}

/* The opening of the next event: its separator and its common fields. */
/* The thread the intervals' slices are on: no thread of the workload's. */
#define INTERVALS_TID (-1L)
/* The threads the frames' and the GPA samples' slices are on. */
#define FRAMES_TID (-2L)
#define SAMPLES_TID (-3L)

static void event(struct tl_output *o, const char *ph, const char *name, const char *cat,
                  long pid, bool tid)
{
	fputs(o->count++ ? ",\n{" : "\n{", o->f);
	fputs("\"name\":", o->f);
	tl_put_json_string(o->f, name);
	if (cat) {
		fputs(",\"cat\":", o->f);
		tl_put_json_string(o->f, cat);
	}
	fprintf(o->f, ",\"ph\":\"%s\",\"pid\":%ld", ph, pid);
	if (tid)
		fprintf(o->f, ",\"tid\":%ld", pid);
}

/* The same on the intervals' own thread. */
static void interval_event(struct tl_output *o, const char *ph, const char *name, long pid)
{
	event(o, ph, name, "opengpa", pid, false);
	fprintf(o->f, ",\"tid\":%ld", INTERVALS_TID);
}

static void trace_begin(struct tl_output *o, const struct tl_run *run)
{
	char line[512];
	tl_command_line(run, line, sizeof line);
	fputc('[', o->f);
	event(o, "M", "process_name", NULL, run->pid, true);
	fputs(",\"args\":{\"name\":", o->f);
	fmt_json_string(o->f, line);
	fputs("}}", o->f);
	event(o, "M", "thread_name", NULL, run->pid, true);
	fputs(",\"args\":{\"name\":", o->f);
	fmt_json_string(o->f, run->command && run->command[0] ? run->command[0] : "workload");
	fputs("}}", o->f);
	interval_event(o, "M", "thread_name", run->pid);
	fputs(",\"args\":{\"name\":\"opengpa intervals\"}}", o->f);
	event(o, "B", line, "workload", run->pid, true);
	fprintf(o->f, ",\"ts\":%.3f,\"args\":{\"device\":", micros(run->start_ns));
	fmt_json_string(o->f, run->device ? run->device : "");
	fputs(",\"backend\":", o->f);
	fmt_json_string(o->f, run->backend ? run->backend : "");
	fprintf(o->f, ",\"period_ms\":%.6g,\"kernel_timed\":%s}}", (double)run->period_ns / 1e6,
	        run->kernel_timed ? "true" : "false");
}

static void trace_sample(struct tl_output *o, const struct tl_run *run, const struct tl_sample *s)
{
	double ts = micros(s->begin_ns);
	char unit[64], name[160], words[64];
	for (size_t i = 0; i < run->nseries; i++) {
		const struct tl_series *c = &run->series[i];
		double v = tl_shown(c, s, s->values[i]);
		if (isnan(v) || isinf(v))
			continue;
		event(o, "C", c->name, c->group, run->pid, false);
		fprintf(o->f, ",\"ts\":%.3f,\"args\":{", ts);
		tl_put_json_string(o->f, tl_shown_unit(c, unit, sizeof unit));
		fputc(':', o->f);
		tl_put_number(o->f, v, TL_G17);
		fputs("}}", o->f);
	}
	/* The interval itself, its counts as arguments. */
	snprintf(name, sizeof name, "interval %u", (unsigned)s->index);
	interval_event(o, "X", name, run->pid);
	fprintf(o->f, ",\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"flags\":", ts,
	        micros(s->end_ns - s->begin_ns));
	fmt_json_string(o->f, tl_flag_words(s->flags, " ", words, sizeof words));
	for (size_t i = 0; i < run->nseries; i++) {
		const struct tl_series *c = &run->series[i];
		if (isnan(s->values[i]) || isinf(s->values[i]))
			continue;
		snprintf(unit, sizeof unit, "%s (%s)", c->name, tl_unit_or_usage(c));
		fputc(',', o->f);
		tl_put_json_string(o->f, unit);
		fputc(':', o->f);
		tl_put_number(o->f, s->values[i], c->integer ? TL_INTEGER : TL_G17);
	}
	fputs("}}", o->f);
	uint32_t notable = s->flags & (OPENGPA_SAMPLE_LATE | OPENGPA_SAMPLE_OVERFLOW |
	                               OPENGPA_SAMPLE_FAILED);
	if (notable) {
		tl_flag_words(notable, ", ", words, sizeof words);
		snprintf(name, sizeof name, "interval %u: %s (%.3f ms)", (unsigned)s->index, words,
		         (double)(s->end_ns - s->begin_ns) / 1e6);
		event(o, "i", name, "opengpa", run->pid, true);
		fprintf(o->f, ",\"s\":\"p\",\"ts\":%.3f}", ts);
	}
}

static void trace_end(struct tl_output *o, const struct tl_run *run, const struct tl_end *e)
{
	char line[512];
	event(o, "E", tl_command_line(run, line, sizeof line), "workload", run->pid, true);
	fprintf(o->f, ",\"ts\":%.3f,\"args\":{\"intervals\":%u", micros(e->end_ns),
	        (unsigned)e->nsamples);
	if (e->exit_status >= 0)
		fprintf(o->f, ",\"exit_status\":%d", e->exit_status);
	fputs("}}\n]\n", o->f);
}

static void trace_frame(struct tl_output *o, const struct tl_run *run, const struct tl_frame *f)
{
	char name[64];
	long tid = f->sample ? SAMPLES_TID : FRAMES_TID;
	if (!(f->sample ? o->samples : o->frames)) {
		event(o, "M", "thread_name", NULL, run->pid, false);
		fprintf(o->f, ",\"tid\":%ld,\"args\":{\"name\":\"%s\"}}", tid,
		        f->sample ? "GPA samples" : "frames");
	}
	snprintf(name, sizeof name, "%s %u", f->sample ? "sample" : "frame", (unsigned)f->index);
	event(o, "X", name, f->sample ? "sample" : "frame", run->pid, false);
	fprintf(o->f, ",\"tid\":%ld,\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"ms\":%.6f", tid,
	        micros(f->begin_ns), micros(f->end_ns > f->begin_ns ? f->end_ns - f->begin_ns : 0),
	        f->end_ns > f->begin_ns ? (double)(f->end_ns - f->begin_ns) / 1e6 : 0.0);
	for (size_t i = 0; f->values && i < run->nseries; i++) {
		double v = f->values[i];
		if (isnan(v) || isinf(v))
			continue;
		fputc(',', o->f);
		tl_put_json_string(o->f, run->series[i].name);
		fputc(':', o->f);
		tl_put_number(o->f, v, run->series[i].integer ? TL_INTEGER : TL_G10);
	}
	fputs("}}", o->f);
}

const struct tl_format tl_trace = {
	.name = "trace",
	.begin = trace_begin,
	.sample = trace_sample,
	.end = trace_end,
	.frame = trace_frame,
};
