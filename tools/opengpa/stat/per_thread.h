/* SPDX-License-Identifier: MIT */
/*
 * per_thread.h — `opengpa stat --per-thread` (perf backend, -p or -t): a
 * line per thread and counter, as `perf stat --per-thread` prints them.
 *
 * Each thread's share is counted by the perf backend's per-thread raw
 * counters ("SOURCE@tid=N", backends/perf/perf_thread.c) in the same pass
 * as the process's sums: per_thread_declare() writes a counter file of
 * them for the threads the process has when counting starts, the caller
 * opens the context again with it, per_thread_enable() enables them, and
 * per_thread_read() and per_thread_print() give the lines.
 */
#ifndef OPENGPA_TOOLS_PER_THREAD_H
#define OPENGPA_TOOLS_PER_THREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "report.h"

#define PER_THREAD_MAX 256 /* threads listed; more are refused, with why */

struct per_thread_thread {
	pid_t tid;
	char comm[20];        /* /proc's comm (15 characters at most) */
	char label[48];       /* "comm-tid", perf's thread field */
	gpa_uint32 running;   /* index of its time:running counter */
	double running_ns;    /* how long its counters ran; 0: <not counted> */
};

struct per_thread {
	struct per_thread_thread *threads;
	size_t nthreads;
	size_t nrows;
	double *scale;        /* per row: the raw count to the row's unit */
	gpa_uint32 *index;    /* nthreads x nrows: each thread's counter of a row */
	double *value;        /* nthreads x nrows */
	bool read;
};

/* Lists the threads of the scope ("pid=N": /proc/N/task; "tid=N": N) and
 * writes, to a new file at `path`, a raw counter per thread and row (the
 * row's event on that thread) and per thread its running time.  A row not
 * counted from one event (IPC, CPUUtilization) is refused, naming it.
 * Returns 0, or 1 after printing why. */
int per_thread_declare(struct per_thread *pt, const char *scope, const struct report *r,
                       char *path, size_t pathlen);
/* With the context opened again: enables every per-thread counter.
 * Returns 0, or 1 after printing why. */
int per_thread_enable(struct per_thread *pt);
/* Reads sample 0 of the session.  Returns 0, or 1 after printing why. */
int per_thread_read(struct per_thread *pt, gpa_uint32 session);
/* perf stat --per-thread's lines: per row, each thread from the largest
 * count down, in the table (format REPORT_TABLE), -x or --json form. */
void per_thread_print(FILE *f, const struct per_thread *pt, const struct report *r,
                      enum report_format format, const char *sep);
void per_thread_free(struct per_thread *pt);

#endif
