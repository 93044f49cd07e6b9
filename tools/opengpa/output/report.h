/* SPDX-License-Identifier: MIT */
/*
 * report.h — what `opengpa stat` prints: each counter's value (the mean
 * over -r repeats, with its relative standard deviation as perf stat
 * prints it), counters this machine cannot count as <not supported>, as a
 * table, separated values or JSON.
 */
#ifndef OPENGPA_TOOLS_REPORT_H
#define OPENGPA_TOOLS_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "format.h"
#include "opengpa.h"

/* REPORT_SEPARATED and REPORT_JSON are perf stat's -x and --json;
 * REPORT_OPENGPA_JSON is opengpa's one document (--opengpa-json). */
enum report_format { REPORT_TABLE, REPORT_SEPARATED, REPORT_JSON, REPORT_OPENGPA_JSON };

/* Mean and spread of one quantity over runs (Welford's method). */
struct report_stats {
	unsigned n;
	double mean, m2;
};

void report_stats_add(struct report_stats *s, double v);
/* Standard deviation of the mean, as perf's stddev_stats(): 0 below 2 runs. */
double report_stats_stddev(const struct report_stats *s);
/* 100 * stddev / mean, as perf's rel_stddev_stats(): 0 when the mean is 0. */
double report_stats_rel(const struct report_stats *s);

struct report_row {
	const char *name, *group, *usage; /* the library's strings, or argv's */
	GPA_Usage_Type usage_type;
	GPA_Type type;
	gpa_uint32 index;      /* the counter's index, when supported */
	const char *reason;    /* NULL: countable; else why this machine cannot count it */
	const char *perf_unit; /* perf's unit for a counter named in perf's spelling, or NULL */
	bool cpus_utilized;    /* a task clock: perf's "CPUs utilized" metric */
	bool per_sec;          /* perf's rate per task-clock second ("K/sec") */
	uint64_t count;        /* an integer counter's exact value in the last run */
	struct report_stats values;
	double *runs;          /* each counted run's value, in order (values.n of them;
	                        * --opengpa-json's run_values); report_free() frees it */
	unsigned runs_cap;
	unsigned failed;       /* runs whose value could not be read */
};

struct report {
	char *const *command;     /* what was counted: argv, or a label */
	unsigned repeats, passes; /* runs = repeats * passes */
	struct report_stats elapsed; /* seconds per run, one entry per repeat */
	double coverage;          /* least share of a run the counters were counting */
	int exit_status;          /* the first failing run's, 0 when none */
	struct report_row *rows;
	size_t nrows;
	bool verbose;             /* -v: the reasons of <not supported> */
	gpa_uint32 sample;        /* the sample read: 0, or OPENGPA_SAMPLES_TOTAL (-I) */
	bool one_line;            /* --opengpa-json on one line (after -I's lines) */
	bool summary;             /* -I --summary: -x lines led by "summary", as perf's */
	struct fmt_numeric numeric; /* the table's decimal point and digit groups */
	/* The perf backend's group running time (TimeRunning) beside the rows:
	 * a run in which it is 0 did not count (<not counted>, as perf), and
	 * its mean is perf's run-time field. */
	bool has_running;
	gpa_uint32 running_index;
	struct report_stats running; /* ns, over the runs that counted */
};

/* The unit the report prints for a row ("ms", "%", "" for none). */
const char *report_unit(const struct report_row *row);
/* The unit perf stat's machine formats print for it ("msec"). */
const char *report_perf_unit(const struct report_row *row);

/* Adds one session's sample r->sample to every supported row.  Returns 0, or 1
 * after printing the error when the session's results are gone. */
int report_add_session(struct report *r, gpa_uint32 session);

void report_print(FILE *f, const struct report *r, enum report_format format, const char *sep);
/* Frees the rows, with each row's run values. */
void report_free(struct report *r);

#endif
