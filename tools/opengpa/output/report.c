/* SPDX-License-Identifier: MIT */
/* report.c — the results of `opengpa stat` (report.h). */
#include "report.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "format.h"
#include "timeline.h"

void report_stats_add(struct report_stats *s, double v)
{
	s->n++;
	double delta = v - s->mean;
	s->mean += delta / s->n;
	s->m2 += delta * (v - s->mean);
}

double report_stats_stddev(const struct report_stats *s)
{
	if (s->n < 2)
		return 0.0;
	double variance = s->m2 / (s->n - 1);
	return sqrt(variance / s->n);
}

double report_stats_rel(const struct report_stats *s)
{
	return s->mean != 0.0 ? 100.0 * report_stats_stddev(s) / fabs(s->mean) : 0.0;
}

static bool is_integer(GPA_Type type)
{
	return type == GPA_TYPE_UINT64 || type == GPA_TYPE_UINT32;
}

/* One sample of one counter; *count is exact for integer counters. */
static GPA_Status read_value(gpa_uint32 session, gpa_uint32 sample, const struct report_row *row,
                             double *value, uint64_t *count)
{
	GPA_Status st;
	switch (row->type) {
	case GPA_TYPE_UINT64: {
		gpa_uint64 v = 0;
		st = GPA_GetSampleUInt64(session, sample, row->index, &v);
		*count = v;
		*value = (double)v;
		return st;
	}
	case GPA_TYPE_UINT32: {
		gpa_uint32 v = 0;
		st = GPA_GetSampleUInt32(session, sample, row->index, &v);
		*count = v;
		*value = v;
		return st;
	}
	case GPA_TYPE_FLOAT32: {
		gpa_float32 v = 0;
		st = GPA_GetSampleFloat32(session, sample, row->index, &v);
		*value = v;
		return st;
	}
	default: {
		gpa_float64 v = 0;
		st = GPA_GetSampleFloat64(session, sample, row->index, &v);
		*value = v;
		return st;
	}
	}
}

int report_add_session(struct report *r, gpa_uint32 session)
{
	gpa_uint64 running = 1, t = 0;
	if (r->has_running &&
	    GPA_GetSampleUInt64(session, r->sample, r->running_index, &t) == GPA_STATUS_OK) {
		running = t;
		if (running > 0)
			report_stats_add(&r->running, (double)running);
	}
	for (size_t i = 0; i < r->nrows; i++) {
		struct report_row *row = &r->rows[i];
		if (row->reason)
			continue;
		double v = 0.0;
		GPA_Status st = read_value(session, r->sample, row, &v, &row->count);
		/* One counter that could not be read is shown as such; a session
		 * whose results are gone is an error. */
		if (st == GPA_STATUS_ERROR_SESSION_NOT_FOUND)
			return cli_fail("cannot read the results", st);
		if (st == GPA_STATUS_OK && running == 0)
			continue; /* the counters never ran: perf's <not counted> */
		if (st == GPA_STATUS_OK) {
			if (row->values.n == row->runs_cap) {
				unsigned cap = row->runs_cap ? 2 * row->runs_cap : 8;
				double *runs = realloc(row->runs, cap * sizeof(*runs));
				if (!runs)
					return cli_fail("out of memory keeping each run's values",
					                GPA_STATUS_ERROR_FAILED);
				row->runs = runs;
				row->runs_cap = cap;
			}
			row->runs[row->values.n] = v;
			report_stats_add(&row->values, v);
		} else {
			row->failed++;
		}
	}
	/* Share of the run the counters were really counting (1 when the
	 * backend time-shared nothing): the least over the repeats. */
	gpa_float64 c = 1.0;
	if (OpenGPA_GetSampleCoverage(session, r->sample, &c) == GPA_STATUS_OK && c < r->coverage)
		r->coverage = c;
	return 0;
}

static void format_value(const struct report *r, const struct report_row *row, char *buf,
                         size_t len)
{
	if (row->reason)
		snprintf(buf, len, "<not supported>");
	else if (row->values.n == 0)
		snprintf(buf, len, "<not counted>");
	else if (is_integer(row->type) && r->repeats == 1)
		snprintf(buf, len, "%" PRIu64, row->count);
	else if (is_integer(row->type))
		snprintf(buf, len, "%.0f", row->values.mean);
	else if (row->perf_unit && strcmp(row->perf_unit, "msec") == 0)
		snprintf(buf, len, "%.2f", row->values.mean); /* perf's scaled clocks */
	else if (row->usage_type == GPA_USAGE_TYPE_PERCENTAGE)
		snprintf(buf, len, "%.2f", row->values.mean);
	else
		snprintf(buf, len, "%.3f", row->values.mean);
}

const char *report_unit(const struct report_row *row)
{
	if (row->reason)
		return "";
	return row->perf_unit ? row->perf_unit : tl_unit(row->usage_type);
}

/* The spread is shown for counters that were counted in several repeats. */
static bool has_spread(const struct report *r, const struct report_row *row)
{
	return r->repeats > 1 && !row->reason && row->values.n > 0;
}

/* Digits that mean something next to a standard deviation: perf's
 * get_precision() + 2. */
static int precision_for(double sd)
{
	if (!(sd > 0.0))
		return 6;
	if (sd > 1.0)
		return 2;
	long p = lround(ceil(-log10(sd))) + 2;
	return p > 9 ? 9 : (int)p;
}

/* perf's metric of a row: "CPUs utilized" for a task clock, a rate per
 * second of the task clock counted beside it for the other software
 * events (none without one, as perf). */
static bool row_metric(const struct report *r, const struct report_row *row, double *metric,
                       const char **unit)
{
	if (row->reason || !row->values.n)
		return false;
	double ns = r->elapsed.mean * 1e9;
	if (row->cpus_utilized) {
		*metric = ns > 0.0 ? row->values.mean * 1e6 / ns : 0.0;
		*unit = "CPUs utilized";
		return ns > 0.0;
	}
	for (size_t i = 0; row->per_sec && i < r->nrows; i++)
		if (r->rows[i].cpus_utilized && !r->rows[i].reason && r->rows[i].values.n) {
			*unit = fmt_perf_rate(row->values.mean, r->rows[i].values.mean, metric);
			return true;
		}
	return false;
}

static void print_runs(FILE *f, const struct report *r)
{
	unsigned runs = r->repeats * r->passes;
	if (r->repeats > 1 && r->passes > 1)
		fprintf(f, "%u runs: %u repeats of %u passes", runs, r->repeats, r->passes);
	else if (r->passes > 1)
		fprintf(f, "%u runs, one per pass", runs);
	else
		fprintf(f, "%u run%s", runs, runs == 1 ? "" : "s");
}

static void print_table(FILE *f, const struct report *r)
{
	const char *device = "", *backend = "";
	GPA_GetDeviceDesc(&device);
	OpenGPA_GetBackend(&backend);
	fprintf(f, "\n Counter stats for '");
	for (int i = 0; r->command[i]; i++)
		fprintf(f, "%s%s", i ? " " : "", r->command[i]);
	fprintf(f, "' on %s (%s backend, ", device, backend);
	print_runs(f, r);
	fprintf(f, "):\n\n");
	for (size_t i = 0; i < r->nrows; i++) {
		const struct report_row *row = &r->rows[i];
		char plain[64], value[80];
		format_value(r, row, plain, sizeof(plain));
		if (!row->reason && row->values.n) /* perf's --big-num, in the user's locale */
			fmt_group_digits(plain, r->numeric.point, r->numeric.sep, r->numeric.grouping,
			                 value, sizeof value);
		else
			snprintf(value, sizeof value, "%s", plain);
		/* perf prints nothing after a <not counted> count */
		const char *note = row->reason && r->verbose ? row->reason
		                   : !row->reason && !row->values.n ? NULL : row->group;
		char metric[80], number[48];
		double m;
		const char *unit;
		if (row_metric(r, row, &m, &unit)) {
			snprintf(number, sizeof number, "%8.3f", m);
			fmt_group_digits(number, r->numeric.point, "", "", metric, sizeof metric - 16);
			snprintf(metric + strlen(metric), 16, " %s", unit);
			note = metric;
		}
		double pct = has_spread(r, row) ? report_stats_rel(&row->values) : 0.0;
		fprintf(f, "  %20s %-6s  %-32s", value, report_unit(row), row->name);
		if (note && *note)
			fprintf(f, " # %-*s", pct != 0.0 ? 20 : 0, note);
		if (pct != 0.0)
			fprintf(f, "  ( +-%6.2f%% )", pct);
		fputc('\n', f);
	}
	if (r->coverage < 1.0)
		fprintf(f, "\n  counters were on the PMU %.1f%% of the time (multiplexed): counts are "
		        "scaled estimates\n", 100.0 * r->coverage);
	const char *per_run = r->passes > 1 ? " per run" : "";
	if (r->repeats > 1) {
		double sd = report_stats_stddev(&r->elapsed);
		int prec = precision_for(sd);
		fprintf(f, "\n  %20.*f +- %.*f seconds time elapsed%s", prec, r->elapsed.mean, prec, sd,
		        per_run);
		fprintf(f, "  ( +-%6.2f%% )\n\n", report_stats_rel(&r->elapsed));
	} else {
		fprintf(f, "\n  %20.6f seconds time elapsed%s\n\n", r->elapsed.mean, per_run);
	}
}

const char *report_perf_unit(const struct report_row *row)
{
	if (row->reason)
		return row->perf_unit ? row->perf_unit : "";
	struct tl_series s = { .unit = report_unit(row), .perf_unit = row->perf_unit };
	return tl_perf_unit(&s);
}

/* One row as perf stat's machine formats have it. */
static void perf_line(const struct report *r, const struct report_row *row, char *value,
                      size_t vlen, char *spread, size_t slen, struct tl_perf_line *l)
{
	format_value(r, row, value, vlen);
	bool counted = !row->reason && row->values.n > 0;
	double pct = has_spread(r, row) ? report_stats_rel(&row->values) : 0.0;
	snprintf(spread, slen, "%.2f%%", pct);
	double ns = r->elapsed.mean * 1e9, metric = 0.0;
	const char *unit = "";
	bool has_metric = row_metric(r, row, &metric, &unit);
	*l = (struct tl_perf_line){
		.prefix = r->summary ? "         summary" : NULL,
		.interval = -1.0,
		.value = value,
		.number = counted ? (is_integer(row->type) && r->repeats == 1 ? (double)row->count
		                                                              : row->values.mean)
		                  : 0.0,
		.counted = counted,
		.unit = report_perf_unit(row),
		.event = row->name,
		.variance = r->repeats > 1 ? spread : NULL,
		.variance_pct = pct,
		.runtime_ns = !counted ? 0
		              : r->has_running ? (uint64_t)llround(r->running.mean)
		                               : (uint64_t)llround(ns * r->coverage),
		.pcnt_running = 100.0 * r->coverage,
		.has_metric = has_metric,
		.metric = metric,
		.metric_unit = unit,
	};
}

/* perf stat -x's seven fields: value, unit, event, run time, percentage
 * running, metric value, metric unit; under -r the relative standard
 * deviation after the event, as perf puts it. */
static void print_separated(FILE *f, const struct report *r, const char *sep)
{
	for (size_t i = 0; i < r->nrows; i++) {
		char value[64], spread[32];
		struct tl_perf_line l;
		perf_line(r, &r->rows[i], value, sizeof value, spread, sizeof spread, &l);
		tl_perf_separated(f, sep, &l);
	}
}

/* perf stat --json: one object per counter and line. */
static void print_perf_json(FILE *f, const struct report *r)
{
	for (size_t i = 0; i < r->nrows; i++) {
		char value[64], spread[32];
		struct tl_perf_line l;
		perf_line(r, &r->rows[i], value, sizeof value, spread, sizeof spread, &l);
		tl_perf_json(f, &l);
	}
}

/* A counter's other names (Arm's machine names on Mali), so a reader of the
 * report finds it by either: "aliases": ["MaliGPUActiveCy"]. */
static void print_json_aliases(FILE *f, const struct report_row *row)
{
	const char *aliases = NULL;
	if (row->reason || OpenGPA_GetCounterAlias(row->index, &aliases) != GPA_STATUS_OK ||
	    !aliases || !*aliases)
		return;
	fprintf(f, ", \"aliases\": [");
	for (const char *a = aliases, *sep = ""; *a;) {
		size_t n = strcspn(a, " ");
		if (n) {
			char name[256];
			snprintf(name, sizeof name, "%.*s", (int)n, a);
			fputs(sep, f);
			fmt_json_string(f, name);
			sep = ", ";
		}
		a += n + (a[n] == ' ');
	}
	fputc(']', f);
}

/* The shortest of %.15g, %.16g, %.17g that reads back as v (finite v;
 * a run's value never is NaN: it was read). */
static const char *shortest(double v, char *buf, size_t len)
{
	for (int digits = 15; digits <= 17; digits++) {
		snprintf(buf, len, "%.*g", digits, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	return buf;
}

static void print_json(FILE *f, const struct report *r)
{
	char buf[40];
	const char *device = "", *backend = "";
	GPA_GetDeviceDesc(&device);
	OpenGPA_GetBackend(&backend);
	fprintf(f, "{\"command\": [");
	for (int i = 0; r->command[i]; i++) {
		fprintf(f, i ? ", " : "");
		fmt_json_string(f, r->command[i]);
	}
	fprintf(f, "], \"backend\": ");
	fmt_json_string(f, backend);
	fprintf(f, ", \"device\": ");
	fmt_json_string(f, device);
	fprintf(f, ", \"runs\": %u, \"repeats\": %u, \"passes\": %u, \"seconds_per_run\": %.6f",
	        r->repeats * r->passes, r->repeats, r->passes, r->elapsed.mean);
	if (r->repeats > 1)
		fprintf(f, ", \"seconds_per_run_rel_stddev_percent\": %.2f",
		        report_stats_rel(&r->elapsed));
	fprintf(f, ", \"coverage\": %.6f, \"exit_status\": %d, \"counters\": [", r->coverage,
	        r->exit_status);
	for (size_t i = 0; i < r->nrows; i++) {
		const struct report_row *row = &r->rows[i];
		fprintf(f, "%s%s{\"name\": ", i ? "," : "", r->one_line ? " " : "\n  ");
		fmt_json_string(f, row->name);
		fprintf(f, ", \"group\": ");
		fmt_json_string(f, row->group ? row->group : "");
		fprintf(f, ", \"usage\": ");
		fmt_json_string(f, row->usage ? row->usage : "");
		print_json_aliases(f, row);
		fprintf(f, ", \"supported\": %s", row->reason ? "false" : "true");
		if (row->reason) {
			fprintf(f, ", \"reason\": ");
			fmt_json_string(f, row->reason);
		}
		if (row->reason || row->values.n == 0)
			fprintf(f, ", \"value\": null");
		else if (is_integer(row->type) && r->repeats == 1)
			fprintf(f, ", \"value\": %" PRIu64, row->count);
		else
			fprintf(f, ", \"value\": %.17g", row->values.mean);
		if (has_spread(r, row)) {
			fprintf(f, ", \"rel_stddev_percent\": %.2f", report_stats_rel(&row->values));
			/* What `opengpa compare` tests (Welch's t on the runs
			 * themselves, not on the rounded spread). */
			fprintf(f, ", \"run_values\": [");
			for (unsigned k = 0; row->runs && k < row->values.n; k++)
				fprintf(f, "%s%s", k ? ", " : "", shortest(row->runs[k], buf,
				                                           sizeof buf));
			fprintf(f, "]");
		}
		fprintf(f, "}");
	}
	fputs(r->one_line ? "]}\n" : "\n]}\n", f);
}

void report_free(struct report *r)
{
	for (size_t i = 0; r->rows && i < r->nrows; i++)
		free(r->rows[i].runs);
	free(r->rows);
	r->rows = NULL;
	r->nrows = 0;
}

/* The report is one record: written into memory, then to f in one piece,
 * so a pipe or terminal read live gets it whole (see timeline.c). */
void report_print(FILE *f, const struct report *r, enum report_format format, const char *sep)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	FILE *to = m ? m : f;
	if (format == REPORT_OPENGPA_JSON)
		print_json(to, r);
	else if (format == REPORT_JSON)
		print_perf_json(to, r);
	else if (format == REPORT_SEPARATED)
		print_separated(to, r, sep);
	else
		print_table(to, r);
	if (m && fclose(m) == 0 && buf)
		fwrite(buf, 1, len, f);
	free(buf);
	fflush(f);
}
