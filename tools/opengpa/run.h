/* SPDX-License-Identifier: MIT */
/*
 * run.h — the measured command's runs: one per pass of a session (GPA's
 * model), sessions repeated for -r, exit statuses compared across runs.
 */
#ifndef OPENGPA_TOOLS_RUN_H
#define OPENGPA_TOOLS_RUN_H

#include <stdbool.h>

#include "opengpa.h"

struct timeline;

/* What to run and count. */
struct run_request {
	char **command;  /* argv; NULL: count the scope for `duration` or until ^C */
	bool scoped;     /* the backend options say what to count (perf -a/-C/-p/-t) */
	bool count;      /* false: nothing to count, the command only runs */
	double duration; /* seconds per pass without a command; 0: until ^C */
	unsigned timeout_ms; /* --timeout: the command gets SIGTERM after this; 0: none */
	unsigned delay_ms;   /* -D: counting starts this long after the command; 0: at once
	                      * (less than timeout_ms when both are set) */
	unsigned total;  /* runs planned, for messages */
	struct timeline *timeline; /* periodic: intervals follow (timeline_run.h); NULL */
};

/* Across every run of one opengpa invocation. */
struct run_state {
	unsigned runs;      /* runs done */
	int first_status;   /* run 1's exit status */
	int failing_status; /* the first non-zero exit status, 0 while none */
	bool stop;          /* ^C, or the command could not start: no more runs */
};

/* The pass count of the enabled counters, and, when it is more than one,
 * which counters each run counts, on stderr, prefixed by `who` ("opengpa
 * stat"), with `hint` (what else the user can do; NULL for nothing) after
 * it.  `repeat`: sessions planned (-r).  With `once` (--passes=once) more
 * than one pass is refused instead.  Returns 0, or 1 after printing. */
int run_explain_passes(const char *who, bool once, unsigned repeat, const char *hint,
                       gpa_uint32 *passes);

/* One session of the current context: the command once per pass (or, for a
 * scope without a command, each pass until ^C or `duration`).  *session is
 * the session to read (0 when !rq->count); *elapsed the mean seconds per
 * run.  A run whose exit status differs from run 1's is reported on
 * stderr.  Returns 0, or 1 after printing the error. */
int run_session(const struct run_request *rq, struct run_state *rs, gpa_uint32 *session,
                double *elapsed);

/* The exit status opengpa ends with: the first failing run's, else 0. */
int run_exit_status(const struct run_state *rs);

#endif
