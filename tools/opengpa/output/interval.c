/* SPDX-License-Identifier: MIT */
/*
 * interval.c — `opengpa stat -I`'s lines, as perf stat -I prints them: each
 * interval a block of one line per counter led by the interval's end in
 * seconds since counting began.  -x and --json give perf's machine formats
 * (its seven fields, its JSON lines; the report uses the same writers),
 * --opengpa-json one object per interval, for scripts that read the output
 * while the command runs.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

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

/* s left-aligned in width columns (printf's "%-*s") at p; the end. */
static char *put_left(char *p, const char *s, size_t n, size_t width)
{
	memcpy(p, s, n);
	if (n < width) {
		memset(p + n, ' ', width - n);
		n = width;
	}
	return p + n;
}

/*
 * One line per counter: "%15.9f %18s %-6s  %-32s # %s\n" of the interval's
 * end, the value, the unit, the name and the group.  Spelled here, the
 * time once per interval, each line handed to the stream in one piece:
 * printf's float conversion and width parsing were most of what an
 * interval cost (issue 29).
 */
static void table_sample(struct tl_output *o, const struct tl_run *run, const struct tl_sample *s)
{
	char t[40];
	size_t tn = strlen(tl_seconds_text(run, s->end_ns, 15, t, sizeof t));
	for (size_t i = 0; i < run->nseries; i++) {
		const struct tl_series *c = &run->series[i];
		char value[64];
		tl_value(c, s->has_running && !s->running_ns ? NAN : s->values[i], value,
		         sizeof value);
		const char *v = value[0] ? value : "<not counted>";
		const char *unit = c->unit ? c->unit : "(null)";
		const char *group = c->group ? c->group : "";
		size_t vn = strlen(v), un = strlen(unit), nn = strlen(c->name), gn = strlen(group);
		char line[256];
		if (tn + vn + un + nn + gn + 18 + 6 + 32 + 8 > sizeof line) {
			fprintf(o->f, "%s %18s %-6s  %-32s # %s\n", t, v, unit, c->name, group);
			continue;
		}
		char *p = line;
		memcpy(p, t, tn);
		p += tn;
		*p++ = ' ';
		if (vn < 18) {
			memset(p, ' ', 18 - vn);
			p += 18 - vn;
		}
		memcpy(p, v, vn);
		p += vn;
		*p++ = ' ';
		p = put_left(p, unit, un, 6);
		*p++ = ' ';
		*p++ = ' ';
		p = put_left(p, c->name, nn, 32);
		memcpy(p, " # ", 3);
		p += 3;
		memcpy(p, group, gn);
		p += gn;
		*p++ = '\n';
		fwrite(line, 1, (size_t)(p - line), o->f);
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

void tl_perf_separated(FILE *f, const char *sep, const struct tl_perf_line *l)
{
	char runtime[32], pcnt[32], metric[64];
	snprintf(runtime, sizeof runtime, "%llu", (unsigned long long)l->runtime_ns);
	snprintf(pcnt, sizeof pcnt, "%.2f", l->pcnt_running);
	snprintf(metric, sizeof metric, "%.3f", l->metric);
	const char *fields[10];
	size_t n = 0;
	if (l->prefix)
		fields[n++] = l->prefix;
	fields[n++] = l->value;
	fields[n++] = l->unit;
	fields[n++] = l->event;
	if (l->variance)
		fields[n++] = l->variance;
	fields[n++] = runtime;
	fields[n++] = pcnt;
	fields[n++] = l->has_metric ? metric : "";
	fields[n++] = l->has_metric ? l->metric_unit : "";
	for (size_t k = 0; k < n; k++) {
		if (k)
			fputs(sep, f);
		/* perf's time field is padded with blanks: quoted only where a
		 * separator holds a blank */
		fmt_csv_field(f, fields[k], sep);
	}
	fputc('\n', f);
}

void tl_perf_json(FILE *f, const struct tl_perf_line *l)
{
	fputc('{', f);
	if (l->thread) {
		fputs("\"thread\" : ", f);
		fmt_json_string(f, l->thread);
		fputs(", ", f);
	}
	if (l->interval >= 0.0)
		fprintf(f, "\"interval\" : %.9f, ", l->interval);
	fputs("\"counter-value\" : ", f);
	if (l->counted) {
		char v[64];
		snprintf(v, sizeof v, "%f", l->number);
		tl_put_json_string(f, v);
	} else {
		tl_put_json_string(f, l->value);
	}
	fputs(", \"unit\" : ", f);
	tl_put_json_string(f, l->unit);
	fputs(", \"event\" : ", f);
	tl_put_json_string(f, l->event);
	if (l->variance)
		fprintf(f, ", \"variance\" : %.2f", l->variance_pct);
	fprintf(f, ", \"event-runtime\" : %llu, \"pcnt-running\" : %.2f, \"metric-value\" : %f, "
	        "\"metric-unit\" : ", (unsigned long long)l->runtime_ns, l->pcnt_running,
	        l->has_metric ? l->metric : 0.0);
	tl_put_json_string(f, l->has_metric ? l->metric_unit : "");
	fputs("}\n", f);
}

const char *tl_perf_unit(const struct tl_series *s)
{
	if (s->perf_unit)
		return s->perf_unit;
	return s->unit && strcmp(s->unit, "ms") == 0 ? "msec" : s->unit ? s->unit : "";
}

const char *tl_perf_time(const struct tl_run *run, uint64_t t, char *buf, size_t len)
{
	uint64_t d = t > run->start_ns ? t - run->start_ns : 0;
	snprintf(buf, len, "%6llu.%09llu", (unsigned long long)(d / 1000000000u),
	         (unsigned long long)(d % 1000000000u));
	return buf;
}

/* One series of one interval as perf stat -I prints it. */
static void perf_line(const struct tl_run *run, const struct tl_sample *s, size_t i,
                      char *value, size_t len, struct tl_perf_line *l)
{
	const struct tl_series *c = &run->series[i];
	double v = s->values[i];
	bool counted = !isnan(v) && !isinf(v) && !(s->has_running && !s->running_ns);
	tl_value(c, v, value, len);
	if (counted && c->perf_unit && strcmp(c->perf_unit, "msec") == 0)
		snprintf(value, len, "%.2f", v); /* perf's scaled clocks */
	uint64_t span = s->end_ns > s->begin_ns ? s->end_ns - s->begin_ns : 0;
	bool has_metric = counted && c->cpus_utilized && span;
	double metric = has_metric ? v * 1e6 / (double)span : 0.0;
	const char *metric_unit = "CPUs utilized";
	for (size_t k = 0; counted && c->per_sec && k < run->nseries; k++)
		if (run->series[k].cpus_utilized && !isnan(s->values[k]) && !isinf(s->values[k])) {
			metric_unit = fmt_perf_rate(v, s->values[k], &metric); /* perf's K/sec */
			has_metric = true;
			break;
		}
	*l = (struct tl_perf_line){
		.interval = tl_seconds(run, s->end_ns),
		.value = counted ? value : "<not counted>",
		.number = counted ? v : 0.0,
		.counted = counted,
		.unit = tl_perf_unit(c),
		.event = c->name,
		.runtime_ns = !counted ? 0 : s->has_running ? s->running_ns : span,
		.pcnt_running = 100.0,
		.has_metric = has_metric,
		.metric = metric,
		.metric_unit = metric_unit,
	};
}

/* perf stat -I -x: the interval's end ("%6lu.%09lu") first, then perf's
 * seven fields: value, unit, event, run time, percentage running, metric
 * value, metric unit. */
static void separated_sample(struct tl_output *o, const struct tl_run *run,
                             const struct tl_sample *s)
{
	char time[32];
	tl_perf_time(run, s->end_ns, time, sizeof time);
	for (size_t i = 0; i < run->nseries; i++) {
		char value[64];
		struct tl_perf_line l;
		perf_line(run, s, i, value, sizeof value, &l);
		l.prefix = time;
		tl_perf_separated(o->f, o->sep, &l);
	}
	o->count++;
}

const struct tl_format tl_interval_separated = {
	.name = "interval",
	.begin = nothing_first,
	.sample = separated_sample,
	.end = no_end,
};

/* perf stat -I --json: one object per counter and interval. */
static void perf_json_sample(struct tl_output *o, const struct tl_run *run,
                             const struct tl_sample *s)
{
	for (size_t i = 0; i < run->nseries; i++) {
		char value[64];
		struct tl_perf_line l;
		perf_line(run, s, i, value, sizeof value, &l);
		tl_perf_json(o->f, &l);
	}
	o->count++;
}

const struct tl_format tl_interval_json = {
	.name = "interval",
	.begin = nothing_first,
	.sample = perf_json_sample,
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
		tl_put_json_string(o->f, c->name);
		fputs(", \"unit\": ", o->f);
		tl_put_json_string(o->f, c->unit);
		double v = s->values[i];
		if (isnan(v) || isinf(v))
			fputs(", \"value\": null}", o->f);
		else {
			fputs(", \"value\": ", o->f);
			tl_put_number(o->f, v, c->integer ? TL_INTEGER : TL_G17);
			fputc('}', o->f);
		}
	}
	fputs("]}\n", o->f);
	o->count++;
}

/* --opengpa-json: one object per interval. */
const struct tl_format tl_interval_opengpa_json = {
	.name = "interval",
	.begin = nothing_first,
	.sample = json_sample,
	.end = no_end,
};
