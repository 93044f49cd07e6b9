/* SPDX-License-Identifier: MIT */
/*
 * timeline_run.h — `opengpa stat`'s periodic run: the files and the -I
 * lines of timeline.h, fed from a periodic session by a reader thread that
 * follows the samples as the library completes them.
 *
 * In the order stat.c and run.c call it:
 *   timeline_open        with the other outputs, before anything runs
 *   timeline_prepare     once the counters are chosen: the period, the columns
 *   timeline_session     after GPA_BeginSession
 *   timeline_pass_begun  after GPA_BeginPass: headers written, reader started
 *   timeline_workload_ended  when the command exits
 *   timeline_pass_ended  after GPA_EndPass: the reader writes the last intervals
 *   timeline_finish      with the report's totals: the files' ends
 *   timeline_close
 */
#ifndef OPENGPA_TOOLS_TIMELINE_RUN_H
#define OPENGPA_TOOLS_TIMELINE_RUN_H

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>

#include "frame_marks.h"
#include "listen.h"
#include "opengpa.h"
#include "output.h"
#include "report.h"
#include "stat.h"
#include "perframe.h"
#include "timeline.h"

#define TIMELINE_MAX_OUTPUTS 5

struct timeline {
	struct tl_output out[TIMELINE_MAX_OUTPUTS];
	struct cli_output file[TIMELINE_MAX_OUTPUTS]; /* .f NULL: the report's stream */
	size_t nout;
	unsigned period_ms;

	struct tl_run run;
	struct tl_series *series; /* the report's countable rows */
	size_t *row;              /* series -> report row */
	GPA_Type *type;
	gpa_uint32 *index;
	bool has_running;         /* the perf group's running time (report.h) */
	gpa_uint32 running_index;
	double *values;           /* one interval's */
	double *min, *max, *sum;  /* per series, over the intervals */
	uint32_t *nvalues;

	gpa_uint32 session;
	pthread_t reader;
	bool reading, begun;
	uint32_t next;            /* the next interval to write */
	unsigned missed;          /* intervals dropped before the reader came */
	/* Failed intervals whose reason the library had not yet logged when
	 * the reader met them (it logs from the thread that read the sample):
	 * said once the pass has ended.  The latest one's number and end. */
	unsigned unsaid;
	uint32_t unsaid_index;
	uint64_t unsaid_end_ns;
	uint64_t end_ns;          /* when the workload ended */
	int exit_status;
	/* The workload's OpenGPA_MarkFrame() marks: a pipe whose write end
	 * it inherits (OPENGPA_FRAME_FD); -1 when no output shows frames. */
	struct frame_marks marks; /* closed when no output shows frames */
	uint64_t mark_ns;         /* the latest mark; 0 before the first */
	uint32_t frames;          /* frames written */
	struct om_export *om;     /* --listen, --openmetrics (listen.h); NULL: neither */
	bool per_frame;           /* --per-frame: frames wait for their counts */
	struct tl_perframe *perframe;
};

/* Opens --trace, --csv and --html (output.h: each a temporary file until
 * timeline_close commits it) and, for -I, sets the lines up on `report`,
 * in -x or --json form as asked.  Returns 0, or 1 after printing which
 * path cannot be written. */
int timeline_open(struct timeline *tl, const struct stat_options *o, FILE *report);

/* Without -e: keeps the device's counters that fit in one run together,
 * in order, and drops the others from r (saying so on stderr).  Returns 0,
 * or 1 after printing the error. */
int timeline_fit_one_run(struct report *r);

/* The columns: every countable row of r, in order; the current context's
 * sampling period; the report's totals read over the whole session.
 * Returns 0, or 1 after printing the error (a period below the backend's
 * floor). */
int timeline_prepare(struct timeline *tl, struct report *r);

void timeline_session(struct timeline *tl, gpa_uint32 session);
/* start_ns: CLOCK_MONOTONIC just before GPA_BeginPass; pid: the workload's
 * process, 0 without one.  Returns 0, or 1 after printing the error. */
int timeline_pass_begun(struct timeline *tl, uint64_t start_ns, long pid);
/* status: the command's exit status, -1 without a command. */
void timeline_workload_ended(struct timeline *tl, int status);
void timeline_pass_ended(struct timeline *tl);
void timeline_finish(struct timeline *tl, const struct report *r);
/* Closes the files: with `commit` (the run succeeded) each file that got
 * its intervals replaces its name; otherwise, and for a file that got none
 * (the run never began), the name keeps what it held before.  1 after
 * printing the error when a write failed. */
int timeline_close(struct timeline *tl, bool commit);

#endif
