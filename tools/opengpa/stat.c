/*
 * stat.c — `opengpa stat`: run a command once per pass the enabled counters
 * need (as the MIPS note's pc_sweep re-runs its program), counting the
 * command and its children, then print each counter for the run.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "child.h"
#include "cli.h"
#include "report.h"

struct stat_options {
	const char *backend, *options, *events, *sep, *output;
	bool hardware, json;
	char **command;
};

static int parse(int argc, char **argv, struct stat_options *o)
{
	static const struct option longopts[] = {
		{ "backend", required_argument, NULL, 'b' },
		{ "options", required_argument, NULL, 'O' },
		{ "hardware", no_argument, NULL, 'H' },
		{ "event", required_argument, NULL, 'e' },
		{ "field-separator", required_argument, NULL, 'x' },
		{ "json", no_argument, NULL, 'j' },
		{ "output", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+b:O:He:x:jo:", longopts, NULL)) != -1) {
		switch (c) {
		case 'b': o->backend = optarg; break;
		case 'O': o->options = optarg; break;
		case 'H': o->hardware = true; break;
		case 'e': o->events = optarg; break;
		case 'x': o->sep = optarg; break;
		case 'j': o->json = true; break;
		case 'o': o->output = optarg; break;
		default: return 2;
		}
	}
	if (o->sep && o->json) {
		fprintf(stderr, "opengpa stat: -x and --json exclude each other\n");
		return 2;
	}
	if (optind >= argc) {
		fprintf(stderr, "opengpa stat: no command given (opengpa stat [options] -- COMMAND ...)\n");
		return 2;
	}
	o->command = &argv[optind];
	return 0;
}

static int enable_counters(const char *events)
{
	GPA_Status st;
	if (!events) {
		st = GPA_EnableAllCounters();
		return st == GPA_STATUS_OK ? 0 : cli_fail("cannot enable the counters", st);
	}
	char *copy = strdup(events), *save = NULL;
	if (!copy)
		return cli_fail("out of memory", GPA_STATUS_ERROR_FAILED);
	int rc = 0;
	for (char *name = strtok_r(copy, ",", &save); name && !rc; name = strtok_r(NULL, ",", &save)) {
		st = GPA_EnableCounterStr(name);
		if (st == GPA_STATUS_ERROR_ALREADY_ENABLED)
			continue;
		if (st != GPA_STATUS_OK)
			rc = cli_fail(name, st);
	}
	free(copy);
	return rc;
}

static double seconds_since(const struct timespec *t0)
{
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
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

	if (sample_open) {
		GPA_Status end = GPA_EndSample();
		if (st == GPA_STATUS_OK)
			st = end;
	}
	if (pass_open) {
		GPA_Status end = GPA_EndPass();
		if (st == GPA_STATUS_OK)
			st = end;
	}
	if (st != GPA_STATUS_OK)
		return cli_fail("counting the command failed", st);
	if (exec_errno) {
		fprintf(stderr, "opengpa: cannot run %s: %s\n", command[0], strerror(exec_errno));
		*exit_status = exec_errno == ENOENT ? 127 : 126;
		return 1;
	}
	return 0;
}

int run_command(char **command, gpa_uint32 *session, gpa_uint32 *passes, int *exit_status,
                double *elapsed_per_run)
{
	const char *backend = "";
	OpenGPA_GetBackend(&backend);
	/* perf counts a process; device backends count the whole GPU/core. */
	bool per_process = strcmp(backend, "perf") == 0;

	GPA_Status st = GPA_BeginSession(session);
	if (st == GPA_STATUS_OK)
		st = GPA_GetPassCount(passes);
	if (st != GPA_STATUS_OK)
		return cli_fail("cannot start counting", st);

	/* Like time(1) and perf stat: ^C reaches the command, and we report. */
	struct sigaction ignore = { .sa_handler = SIG_IGN }, old_int, old_quit;
	sigaction(SIGINT, &ignore, &old_int);
	sigaction(SIGQUIT, &ignore, &old_quit);
	int rc = 0;
	double elapsed = 0.0;
	*exit_status = 0;
	for (gpa_uint32 p = 0; p < *passes && rc == 0; p++) {
		double e = 0.0;
		rc = run_pass(command, per_process, exit_status, &e);
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

/* `--backend mips` takes pc_sweep's options instead of the generic ones. */
static bool wants_pcsweep(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if ((strcmp(argv[i], "--backend") == 0 && i + 1 < argc && strcmp(argv[i + 1], "mips") == 0) ||
		    strcmp(argv[i], "--backend=mips") == 0)
			return true;
	return false;
}

int cmd_stat(int argc, char **argv)
{
	if (wants_pcsweep(argc, argv))
		return cmd_stat_pcsweep(argc, argv);
	struct stat_options o = { 0 };
	int rc = parse(argc, argv, &o);
	if (rc)
		return rc;
	if (cli_open(o.backend, o.options, o.hardware))
		return 1;
	if (enable_counters(o.events)) {
		cli_close();
		return 1;
	}
	gpa_uint32 session = 0, passes = 0;
	int exit_status = 0;
	double elapsed = 0.0;
	rc = run_command(o.command, &session, &passes, &exit_status, &elapsed);
	if (rc == 0)
		rc = report_session(session, passes, o.command, elapsed,
		                    o.json ? REPORT_JSON : o.sep ? REPORT_SEPARATED : REPORT_TABLE,
		                    o.sep, o.output);
	cli_close();
	if (rc)
		return exit_status ? exit_status : rc;
	return exit_status;
}
