/* SPDX-License-Identifier: MIT */
/*
 * run.c — running the measured command once per pass of a session (GPA's
 * model: each pass is one run of the workload), or, without a command,
 * counting until Ctrl-C or a duration; and keeping the runs honest: the
 * user hears before the first run how many there will be and why, and a
 * run that ends differently from the first is reported.
 */
#include "run.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "child.h"
#include "cli.h"
#include "timeline_run.h"

int run_explain_passes(const char *who, bool once, unsigned repeat, const char *hint,
                       gpa_uint32 *passes)
{
	GPA_Status st = GPA_GetPassCount(passes);
	if (st != GPA_STATUS_OK)
		return cli_fail("cannot plan the passes", st);
	if (*passes <= 1)
		return 0;
	if (once)
		fprintf(stderr, "%s: the counters need %u runs of the command (they do not fit on the "
		        "hardware's counters together), and --passes=once allows one:\n", who, *passes);
	else if (repeat > 1)
		fprintf(stderr, "%s: the counters do not fit on the hardware's counters together, so "
		        "each repeat runs the command %u times (%u runs in all), counting:\n", who,
		        *passes, *passes * repeat);
	else
		fprintf(stderr, "%s: the counters do not fit on the hardware's counters together, so "
		        "the command runs %u times, counting:\n", who, *passes);
	gpa_uint32 n = 0;
	GPA_GetEnabledCount(&n);
	for (gpa_uint32 p = 0; p < *passes; p++) {
		fprintf(stderr, "  run %u:", p + 1);
		const char *comma = " ";
		for (gpa_uint32 i = 0; i < n; i++) {
			gpa_uint32 index = 0, pass = 0;
			const char *name = "";
			if (GPA_GetEnabledIndex(i, &index) != GPA_STATUS_OK ||
			    OpenGPA_GetCounterPass(index, &pass) != GPA_STATUS_OK || pass != p)
				continue;
			GPA_GetCounterName(index, &name);
			fprintf(stderr, "%s%s", comma, name);
			comma = ", ";
		}
		fputc('\n', stderr);
	}
	if (once) {
		fprintf(stderr, "%s: choose fewer counters%s%s\n", who, hint ? "; " : "",
		        hint ? hint : "");
		return 1;
	}
	if (hint)
		fprintf(stderr, "%s: %s\n", who, hint);
	return 0;
}

static double seconds_since(const struct timespec *t0)
{
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* After each run: remember run 1's status and the first failure, and say
 * so when a run ended differently from run 1 (its counts then describe
 * other work).  ^C ends the runs, as it ends perf stat -r. */
static void note_status(const struct run_request *rq, struct run_state *rs, int status)
{
	rs->runs++;
	if (rs->runs == 1)
		rs->first_status = status;
	else if (status != rs->first_status)
		fprintf(stderr, "opengpa: run %u of %u exited with status %d, run 1 with %d: the runs "
		        "did not do the same work, so their counts do not describe one workload\n",
		        rs->runs, rq->total, status, rs->first_status);
	if (status != 0 && rs->failing_status == 0)
		rs->failing_status = status;
	if (status == 128 + SIGINT)
		rs->stop = true;
}

int run_exit_status(const struct run_state *rs)
{
	return rs->failing_status;
}

/* Ends what BeginPass/BeginSample opened; the first failure wins.  A
 * periodic pass's last intervals are written once it has ended. */
static GPA_Status close_pass(const struct run_request *rq, bool sample_open, bool pass_open,
                             GPA_Status st)
{
	GPA_Status end;
	if (sample_open && (end = GPA_EndSample()) != GPA_STATUS_OK && st == GPA_STATUS_OK)
		st = end;
	if (pass_open && (end = GPA_EndPass()) != GPA_STATUS_OK && st == GPA_STATUS_OK)
		st = end;
	if (rq->timeline)
		timeline_pass_ended(rq->timeline);
	return st;
}

static uint64_t monotonic_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* Opens the pass after `st` (the setup before it) succeeded, and sample 0;
 * a periodic pass samples by itself, its intervals followed from `pid`'s
 * start. */
static GPA_Status open_pass(const struct run_request *rq, GPA_Status st, long pid,
                            bool *pass_open, bool *sample_open)
{
	uint64_t start = monotonic_ns();
	if (st == GPA_STATUS_OK)
		st = GPA_BeginPass();
	*pass_open = st == GPA_STATUS_OK;
	if (st == GPA_STATUS_OK && rq->timeline)
		st = timeline_pass_begun(rq->timeline, start, pid) ? GPA_STATUS_ERROR_FAILED
		                                                   : GPA_STATUS_OK;
	else if (st == GPA_STATUS_OK)
		st = GPA_BeginSample(0);
	*sample_open = st == GPA_STATUS_OK && !rq->timeline;
	return st;
}

/* One run of the command, counted from exec to exit when `count`. */
static int run_pass(const struct run_request *rq, struct run_state *rs, bool per_process,
                    double *elapsed)
{
	struct child child;
	char **command = rq->command;
	if (child_spawn(&child, command) != 0) {
		fprintf(stderr, "opengpa: cannot start %s: %s\n", command[0], strerror(errno));
		rs->stop = true;
		return 1;
	}
	GPA_Status st = GPA_STATUS_OK;
	/* -D: the command runs uncounted for delay_ms first (perf stat -D). */
	bool ended_early = rq->delay_ms && child_start_and_wait(&child, rq->delay_ms);
	if (rq->count && per_process && !ended_early) {
		/* Count from exec: the child's wait before it is not the command.
		 * After a delay it has exec'd: count its threads from now on. */
		char pid[32];
		snprintf(pid, sizeof(pid), "%d", (int)child.pid);
		st = OpenGPA_SetBackendOption("exec", rq->delay_ms ? "0" : "1");
		if (st == GPA_STATUS_OK)
			st = OpenGPA_SetBackendOption("pid", pid);
	}
	bool pass_open = false, sample_open = false;
	if (rq->count && !ended_early)
		st = open_pass(rq, st, (long)child.pid, &pass_open, &sample_open);

	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int exec_errno = 0;
	if (st != GPA_STATUS_OK)
		kill(child.pid, SIGKILL); /* never let it run uncounted */
	unsigned timeout = rq->timeout_ms ? rq->timeout_ms - rq->delay_ms : 0;
	int status = child_wait_for(&child, &exec_errno,
	                            st == GPA_STATUS_OK && !ended_early ? timeout : 0);
	*elapsed = seconds_since(&t0);
	if (rq->timeline)
		timeline_workload_ended(rq->timeline, exec_errno ? -1 : status);

	st = close_pass(rq, sample_open, pass_open, st);
	if (st != GPA_STATUS_OK) {
		rs->stop = true;
		return cli_fail("counting the command failed", st);
	}
	if (exec_errno) {
		fprintf(stderr, "opengpa: cannot run %s: %s\n", command[0], strerror(exec_errno));
		note_status(rq, rs, exec_errno == ENOENT ? 127 : 126);
		rs->stop = true;
		return 1;
	}
	note_status(rq, rs, status);
	if (ended_early && rq->count) {
		fprintf(stderr, "opengpa: %s ended within the -D delay of %u ms: nothing was "
		        "counted; make the delay shorter\n", command[0], rq->delay_ms);
		rs->stop = true;
		return 1;
	}
	return 0;
}

/* One pass without a command: counts until SIGINT/SIGTERM or `duration`
 * seconds.  The signals are blocked and taken with sigtimedwait, so no
 * handler and no flag are needed. */
static int wait_pass(const struct run_request *rq, struct run_state *rs, double *elapsed)
{
	sigset_t stop, old;
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigprocmask(SIG_BLOCK, &stop, &old);
	bool pass_open, sample_open;
	GPA_Status st = open_pass(rq, GPA_STATUS_OK, 0, &pass_open, &sample_open);
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	bool counting = st == GPA_STATUS_OK && pass_open; /* a sample, or a periodic pass */
	while (counting) {
		double left = rq->duration - seconds_since(&t0);
		if (rq->duration > 0.0 && left <= 0.0)
			break;
		struct timespec wait = { 3600, 0 };
		if (rq->duration > 0.0) {
			wait.tv_sec = (time_t)left;
			wait.tv_nsec = (long)((left - (double)wait.tv_sec) * 1e9);
		}
		if (sigtimedwait(&stop, NULL, &wait) >= 0) {
			rs->stop = true; /* ^C: report what was counted, like perf stat */
			break;
		}
	}
	*elapsed = seconds_since(&t0);
	rs->runs++;
	if (rq->timeline)
		timeline_workload_ended(rq->timeline, -1);
	st = close_pass(rq, sample_open, pass_open, st);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return st == GPA_STATUS_OK ? 0 : cli_fail("counting failed", st);
}

int run_session(const struct run_request *rq, struct run_state *rs, gpa_uint32 *session,
                double *elapsed_per_run)
{
	gpa_uint32 passes = 1;
	bool per_process = false;
	*session = 0;
	if (rq->count) {
		const char *backend = "";
		OpenGPA_GetBackend(&backend);
		/* perf counts the command unless told what else to count; device
		 * backends count the whole GPU/core. */
		per_process = strcmp(backend, "perf") == 0 && !rq->scoped;
		GPA_Status st = GPA_BeginSession(session);
		if (st == GPA_STATUS_OK)
			st = GPA_GetPassCount(&passes);
		if (st != GPA_STATUS_OK)
			return cli_fail("cannot start counting", st);
		if (rq->timeline)
			timeline_session(rq->timeline, *session);
	}
	if (!rq->command && passes > 1 && rq->duration <= 0.0) {
		GPA_EndSession();
		fprintf(stderr, "opengpa: these counters take %u passes, and without a command each "
		        "pass needs an end; give --duration SECONDS, --multiplex, or fewer -e "
		        "counters\n", passes);
		return 1;
	}

	/* Like time(1) and perf stat: ^C reaches the command, and we report. */
	struct sigaction ignore = { .sa_handler = SIG_IGN }, old_int, old_quit;
	sigaction(SIGINT, &ignore, &old_int);
	sigaction(SIGQUIT, &ignore, &old_quit);
	int rc = 0;
	double elapsed = 0.0;
	gpa_uint32 done = 0;
	for (gpa_uint32 p = 0; p < passes && rc == 0 && !rs->stop; p++, done++) {
		double e = 0.0;
		rc = rq->command ? run_pass(rq, rs, per_process, &e) : wait_pass(rq, rs, &e);
		elapsed += e;
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);

	if (rq->count) {
		GPA_Status st = GPA_EndSession();
		/* Stopped early: the missing passes' counters read as not counted. */
		if (st == GPA_STATUS_ERROR_NOT_ENOUGH_PASSES && rs->stop)
			cli_clear_error();
		else if (rc == 0 && st != GPA_STATUS_OK)
			rc = cli_fail("counting the command failed", st);
	}
	*elapsed_per_run = elapsed / (done ? done : 1);
	return rc;
}
