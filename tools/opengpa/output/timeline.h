/* SPDX-License-Identifier: MIT */
/*
 * timeline.h — counters over time, written interval by interval as they
 * come: the terminal's `-I` lines (table, separated values, JSON lines), a
 * Chrome trace-event file, CSV and a self-contained HTML report.
 *
 * The writers are pure: they are handed the run's description, then each
 * sample, then the totals, and write to a FILE.  They never call the GPA
 * API, so the command (timeline_run.c reads the samples) and the examples
 * share them, and the tests feed them whatever they like.  Each writer
 * leaves its file readable after every sample (flushed, and for the trace
 * valid to its viewers even without the closing bracket).
 */
#ifndef OPENGPA_TOOLS_TIMELINE_H
#define OPENGPA_TOOLS_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "GPUPerfAPITypes.h"

/* One counter: a column, a track, a line of a chart. */
struct tl_series {
	const char *name;
	const char *group; /* the counter's group ("CPU", "Fragment Queue") */
	const char *unit;  /* short unit ("ms", "%", "cycles"), "" when none */
	const char *usage; /* GPA usage ("items", "ratio"...), names unitless values */
	bool integer;      /* a count: printed without decimals */
	const char *perf_unit;  /* the unit perf stat's machine formats print ("msec");
	                         * NULL: unit */
	bool cpus_utilized;     /* a task clock in ms: perf's "CPUs utilized" metric */
	bool per_sec;           /* perf's rate per second of the task clock ("K/sec") */
};

/* What was counted, and how. */
struct tl_run {
	char *const *command;  /* argv of the workload, or a one-word label */
	const char *device, *backend;
	long pid;              /* the workload's process; 0 when there is none */
	uint64_t period_ns;
	bool kernel_timed;     /* the kernel took the samples */
	uint64_t start_ns;     /* CLOCK_MONOTONIC instant printed as 0 s */
	const struct tl_series *series;
	size_t nseries;
};

/* One interval. */
struct tl_sample {
	uint32_t index;
	uint64_t begin_ns, end_ns; /* CLOCK_MONOTONIC */
	uint32_t flags;            /* OPENGPA_SAMPLE_* */
	const double *values;      /* nseries; NAN where it could not be read */
	bool has_running;          /* running_ns known (perf backend) */
	uint64_t running_ns;       /* how long the counters ran in it: perf's run time;
	                            * 0: they never ran, which perf's -I lines print as
	                            * <not counted> (the files keep the zero counts) */
};

/* The end of the run. */
struct tl_end {
	uint64_t end_ns;      /* when the workload ended */
	int exit_status;      /* the workload's, -1 when there was none */
	uint32_t nsamples;
	const double *totals; /* nseries: the whole run; NAN where not counted */
	/* Per series over the intervals that have a value; NAN without any. */
	const double *min, *mean, *max;
};

/* One frame of the workload: from one OpenGPA_MarkFrame() to the next;
 * or one GPA sample of the workload's (a GL/GLES/CL or plain context's,
 * sent by the library through the same pipe: frame_marks.h). */
struct tl_frame {
	bool sample;               /* a GPA sample; else a marked frame */
	uint32_t index;            /* a frame: 0 for the span after the first
	                            * mark; a sample: its GPA sample ID */
	uint64_t begin_ns, end_ns; /* CLOCK_MONOTONIC: the two marks, or the
	                            * sample's boundaries */
	/* --per-frame (perframe.c): per series, what was counted in the span,
	 * apportioned from the intervals; NULL without.  flags: the
	 * OPENGPA_SAMPLE_* of the intervals it overlaps. */
	const double *values;
	uint32_t flags;
};

struct tl_output;

struct tl_format {
	const char *name;
	void (*begin)(struct tl_output *o, const struct tl_run *run);
	void (*sample)(struct tl_output *o, const struct tl_run *run, const struct tl_sample *s);
	void (*end)(struct tl_output *o, const struct tl_run *run, const struct tl_end *e);
	/* NULL: the format has no place for frames. */
	void (*frame)(struct tl_output *o, const struct tl_run *run, const struct tl_frame *f);
};

/* A format writing to one file. */
struct tl_output {
	const struct tl_format *format;
	FILE *f;
	const char *sep; /* the separated-values interval lines' separator */
	uint64_t count;  /* what the writer wrote so far (events, rows) */
	uint64_t last_ns; /* the Perfetto writer's latest timestamp (kept monotonic) */
	uint64_t frame_ns; /* the same on its frames' sequence */
	uint64_t sample_ns; /* the same on its samples' sequence */
	uint32_t frames;   /* the frames written so far */
	uint32_t samples;  /* the GPA samples written so far */
	bool per_frame;    /* the CSV: a leading "row" column, --per-frame's rows */
	bool held;         /* tl_hold: records wait for tl_release */
	struct tl_record *record; /* the memory each record is written into first,
	                           * kept from one record to the next (timeline.c);
	                           * NULL until the first, and after tl_close() */
};

extern const struct tl_format tl_trace;            /* trace.c */
extern const struct tl_format tl_perfetto;         /* perfetto.c: Perfetto's protobuf */
extern const struct tl_format tl_csv;              /* csv.c */
extern const struct tl_format tl_html;             /* html.c */
extern const struct tl_format tl_interval_table;   /* interval.c: perf stat -I */
extern const struct tl_format tl_interval_separated;
extern const struct tl_format tl_interval_json;         /* perf stat -I --json's lines */
extern const struct tl_format tl_interval_opengpa_json; /* --opengpa-json's */

/* perf stat's machine formats (perf's seven fields, perf's JSON lines),
 * shared by the interval lines and the report (report.c). */
struct tl_perf_line {
	const char *prefix;       /* -x's leading field ("   0.100218498", "summary"), or NULL */
	const char *thread;       /* --json's "thread" (--per-thread's "comm-tid"), or NULL */
	double interval;          /* --json's "interval"; negative: none */
	const char *value;        /* "12.71", "<not supported>", "<not counted>" */
	double number;            /* the value as a number (--json's counter-value) */
	bool counted;             /* number is meaningful */
	const char *unit, *event;
	const char *variance;     /* -r's relative standard deviation ("2.34%"), or NULL */
	double variance_pct;
	uint64_t runtime_ns;      /* how long the event was counting */
	double pcnt_running;      /* the share of it on the counters, 0 to 100 */
	bool has_metric;
	double metric;
	const char *metric_unit;
};
void tl_perf_separated(FILE *f, const char *sep, const struct tl_perf_line *l);
void tl_perf_json(FILE *f, const struct tl_perf_line *l);
/* The unit perf prints for a series: perf_unit, or unit with perf's
 * spelling of time ("msec"). */
const char *tl_perf_unit(const struct tl_series *s);
/* perf -I's time field: "%6lu.%09lu" of seconds since the start. */
const char *tl_perf_time(const struct tl_run *run, uint64_t t, char *buf, size_t len);

/* begin, sample, end on an output, each one record written whole, then
 * flushed. */
void tl_begin(struct tl_output *o, const struct tl_run *run);
void tl_sample(struct tl_output *o, const struct tl_run *run, const struct tl_sample *s);
void tl_end(struct tl_output *o, const struct tl_run *run, const struct tl_end *e);
/* Between tl_hold and tl_release the records are kept and then written
 * together, whole, in one write (each still whole: a reader never sees
 * half of one). */
void tl_hold(struct tl_output *o);
void tl_release(struct tl_output *o);
/* Frees what the output kept between records (writing what is held):
 * tl_end() does, as the end is the last record; call it where an output
 * stops before its end.  The FILE stays open (it is the caller's).  Safe to
 * call twice. */
void tl_close(struct tl_output *o);
/* A frame, between begin and end (or samples), on a format that has a
 * place for it; nothing on the others. */
void tl_frame(struct tl_output *o, const struct tl_run *run, const struct tl_frame *f);
/* Whether the format shows frames. */
bool tl_shows_frames(const struct tl_output *o);

/* How tl_number() prints: as printf's "%.0f", "%.10g" or "%.17g". */
enum tl_digits { TL_INTEGER, TL_G10, TL_G17 };
#define TL_NUMBER_LEN 352 /* "%.0f" of the largest double, and its sign */
/* v as printf would print it, into buf (TL_NUMBER_LEN bytes); an integral
 * value (most counters are counts) without printf, the same digits several
 * times faster.  Returns buf. */
const char *tl_number(char *buf, double v, enum tl_digits digits);
/* tl_number() written to f. */
void tl_put_number(FILE *f, double v, enum tl_digits digits);
/* s as a JSON string, as fmt_json_string() writes it; a plain ASCII name
 * (every counter's) in one piece instead of a character at a time. */
void tl_put_json_string(FILE *f, const char *s);

/* Seconds of t since the run's start (negative before it). */
double tl_seconds(const struct tl_run *run, uint64_t t);
/* printf's "%*.9f" of tl_seconds(), width given, into buf; the same bytes
 * from the integer nanoseconds, without printf's float conversion.
 * Returns buf. */
const char *tl_seconds_text(const struct tl_run *run, uint64_t t, int width, char *buf,
                            size_t len);
/* printf's "%.*f" of v, decimals 1 to 3 (the values' 2 and 3), into buf:
 * the same bytes, rounded as printf rounds (the exact value to the
 * nearest, a tie to even), without its float conversion where v is
 * between 1e-200 and 1e12.  Returns buf. */
const char *tl_fixed(char *buf, size_t len, double v, int decimals);
/* The command as one line ("sleep 1"), cut to fit buf. */
const char *tl_command_line(const struct tl_run *run, char *buf, size_t len);
/* The short unit of a GPA usage type: "ms", "%", "B", "KB", "cycles", or
 * "" for items and ratios. */
const char *tl_unit(GPA_Usage_Type usage);
/* The series' unit, or its usage when it has none ("items"): what to name
 * a value with. */
const char *tl_unit_or_usage(const struct tl_series *s);
/* A value as the report prints it: integers whole, percentages with two
 * decimals, others with three; "" for NAN. */
const char *tl_value(const struct tl_series *s, double v, char *buf, size_t len);
/* A count (usage cycles, items, bytes, kilobytes, milliseconds): what
 * accumulates over an interval, so the charts and the traces show it per
 * second over the interval's own begin and end (a late or partial interval
 * then reads right); percentages and ratios are shown as they are. */
bool tl_is_count(const struct tl_series *s);
/* What a chart or a trace shows of value v of series c in sample s: v per
 * second of the sample's span for a count (NAN for an empty span), v
 * itself otherwise. */
double tl_shown(const struct tl_series *c, const struct tl_sample *s, double v);
/* The unit of tl_shown(): "cycles/s", "B/s", "items/s", "ms/s" for a
 * count, tl_unit_or_usage() otherwise. */
const char *tl_shown_unit(const struct tl_series *c, char *buf, size_t len);
/* The sample flags in words, joined by sep ("late|final"); "" for none. */
const char *tl_flag_words(uint32_t flags, const char *sep, char *buf, size_t len);

#endif
