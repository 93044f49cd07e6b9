/* SPDX-License-Identifier: MIT */
/*
 * run.c — running the measured command once per pass of a session (GPA's
 * model: each pass is one run of the workload), or, without a command,
 * counting until Ctrl-C or a duration.
 */
#include "run.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "child.h"
#include "cli.h"

static double seconds_since(const struct timespec *t0)
{
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Ends what BeginPass/BeginSample opened; the first failure wins. */
static GPA_Status close_pass(bool sample_open, bool pass_open, GPA_Status st)
{
	GPA_Status end;
	if (sample_open && (end = GPA_EndSample()) != GPA_STATUS_OK && st == GPA_STATUS_OK)
		st = end;
	if (pass_open && (end = GPA_EndPass()) != GPA_STATUS_OK && st == GPA_STATUS_OK)
		st = end;
	return st;
}

/* One pass: one run of the command, counted from exec to exit. */
static int run_pass(char **command, bool per_process, int *exit_status, double *elapsed)
{
	struct child child;
	if (child_spawn(&child, command) != 0) {
		fprintf(stderr, "opengpa: cannot start %s: %s\n", command[0], strerror(errno));
		return 1;
	}
	GPA_Status st = GPA_STATUS_OK;
	if (per_process) {
		/* Count from exec: the child's wait before it is not the command. */
		char pid[32];
		snprintf(pid, sizeof(pid), "%d", (int)child.pid);
		st = OpenGPA_SetBackendOption("exec", "1");
		if (st == GPA_STATUS_OK)
			st = OpenGPA_SetBackendOption("pid", pid);
	}
	if (st == GPA_STATUS_OK)
		st = GPA_BeginPass();
	bool pass_open = st == GPA_STATUS_OK;
	if (st == GPA_STATUS_OK)
		st = GPA_BeginSample(0);
	bool sample_open = st == GPA_STATUS_OK;

	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	int exec_errno = 0;
	if (st != GPA_STATUS_OK)
		kill(child.pid, SIGKILL); /* never let it run uncounted */
	*exit_status = child_wait(&child, &exec_errno);
	*elapsed = seconds_since(&t0);

	st = close_pass(sample_open, pass_open, st);
	if (st != GPA_STATUS_OK)
		return cli_fail("counting the command failed", st);
	if (exec_errno) {
		fprintf(stderr, "opengpa: cannot run %s: %s\n", command[0], strerror(exec_errno));
		*exit_status = exec_errno == ENOENT ? 127 : 126;
		return 1;
	}
	return 0;
}

/* One pass without a command: counts until SIGINT/SIGTERM or `duration`
 * seconds.  The signals are blocked and taken with sigtimedwait, so no
 * handler and no flag are needed. */
static int wait_pass(double duration, double *elapsed)
{
	sigset_t stop, old;
	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigprocmask(SIG_BLOCK, &stop, &old);
	GPA_Status st = GPA_BeginPass();
	bool pass_open = st == GPA_STATUS_OK;
	if (st == GPA_STATUS_OK)
		st = GPA_BeginSample(0);
	bool sample_open = st == GPA_STATUS_OK;
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (sample_open) {
		double left = duration - seconds_since(&t0);
		if (duration > 0.0 && left <= 0.0)
			break;
		struct timespec wait = { 3600, 0 };
		if (duration > 0.0) {
			wait.tv_sec = (time_t)left;
			wait.tv_nsec = (long)((left - (double)wait.tv_sec) * 1e9);
		}
		if (sigtimedwait(&stop, NULL, &wait) >= 0)
			break; /* ^C: report what was counted, like perf stat */
	}
	*elapsed = seconds_since(&t0);
	st = close_pass(sample_open, pass_open, st);
	sigprocmask(SIG_SETMASK, &old, NULL);
	return st == GPA_STATUS_OK ? 0 : cli_fail("counting failed", st);
}

int run_command(char **command, bool scoped, double duration, gpa_uint32 *session,
                gpa_uint32 *passes, int *exit_status, double *elapsed_per_run)
{
	const char *backend = "";
	OpenGPA_GetBackend(&backend);
	/* perf counts the command unless told what else to count; device
	 * backends count the whole GPU/core. */
	bool per_process = strcmp(backend, "perf") == 0 && !scoped;

	GPA_Status st = GPA_BeginSession(session);
	if (st == GPA_STATUS_OK)
		st = GPA_GetPassCount(passes);
	if (st != GPA_STATUS_OK)
		return cli_fail("cannot start counting", st);
	if (!command && *passes > 1 && duration <= 0.0) {
		GPA_EndSession();
		fprintf(stderr, "opengpa: these counters take %u passes, and without a command each "
		        "pass needs an end; give --duration SECONDS, --multiplex, or fewer -e "
		        "counters\n", *passes);
		return 1;
	}

	/* Like time(1) and perf stat: ^C reaches the command, and we report. */
	struct sigaction ignore = { .sa_handler = SIG_IGN }, old_int, old_quit;
	sigaction(SIGINT, &ignore, &old_int);
	sigaction(SIGQUIT, &ignore, &old_quit);
	int rc = 0;
	double elapsed = 0.0;
	*exit_status = 0;
	for (gpa_uint32 p = 0; p < *passes && rc == 0; p++) {
		double e = 0.0;
		rc = command ? run_pass(command, per_process, exit_status, &e) : wait_pass(duration, &e);
		elapsed += e;
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);

	st = GPA_EndSession();
	if (rc == 0 && st != GPA_STATUS_OK)
		rc = cli_fail("counting the command failed", st);
	*elapsed_per_run = elapsed / (*passes ? *passes : 1);
	return rc;
}

