/* SPDX-License-Identifier: MIT */
/*
 * stat.c — `opengpa stat`: run a command once per pass the enabled counters
 * need (as the MIPS note's pc_sweep re-runs its program), counting the
 * command and its children, then print each counter for the run.  With a
 * scope flag (-a, -C, -p, -t) it counts those CPUs or that process while the
 * command runs, or, without a command, until Ctrl-C or --duration.
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
	bool hardware, json, multiplex;
	char scope[80];  /* perf scope option built from -a/-C/-p/-t, or "" */
	double duration; /* seconds per pass without a command; 0 = until ^C */
	char **command;  /* NULL: count the scope for a while instead */
};

/* -a, -C LIST, -p PID, -t TID: at most one, as a perf backend option. */
static int set_scope(struct stat_options *o, int flag, const char *arg)
{
	if (o->scope[0]) {
		fprintf(stderr, "opengpa stat: -a, -C, -p and -t each say what to count; give one\n");
		return 2;
	}
	if (flag == 'a') {
		snprintf(o->scope, sizeof o->scope, "cpu=all");
		return 0;
	}
	if (strlen(arg) + 5 >= sizeof o->scope || !*arg) {
		fprintf(stderr, "opengpa stat: -%c %s: too long\n", flag, arg);
		return 2;
	}
	if (flag == 'C') {
		/* perf's "0,2-3" in the backend's option spelling "0+2-3": commas
		 * separate options. */
		snprintf(o->scope, sizeof o->scope, "cpu=%s", arg);
		for (char *c = o->scope; *c; c++)
			if (*c == ',')
				*c = '+';
		return 0;
	}
	char *end;
	long id = strtol(arg, &end, 10);
	if (*end || id <= 0) {
		fprintf(stderr, "opengpa stat: -%c %s: not a %s id\n", flag, arg,
		        flag == 'p' ? "process" : "thread");
		return 2;
	}
	snprintf(o->scope, sizeof o->scope, "%s=%ld", flag == 'p' ? "pid" : "tid", id);
	return 0;
}

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
		{ "all-cpus", no_argument, NULL, 'a' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "pid", required_argument, NULL, 'p' },
		{ "tid", required_argument, NULL, 't' },
		{ "multiplex", no_argument, NULL, 'M' },
		{ "duration", required_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 },
	};
	int c, rc;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+b:O:He:x:jo:aC:p:t:Md:", longopts, NULL)) != -1) {
		switch (c) {
		case 'b': o->backend = optarg; break;
		case 'O': o->options = optarg; break;
		case 'H': o->hardware = true; break;
		case 'e': o->events = optarg; break;
		case 'x': o->sep = optarg; break;
		case 'j': o->json = true; break;
		case 'o': o->output = optarg; break;
		case 'M': o->multiplex = true; break;
		case 'a':
		case 'C':
		case 'p':
		case 't':
			if ((rc = set_scope(o, c, optarg)) != 0)
				return rc;
			break;
		case 'd': {
			char *end;
			o->duration = strtod(optarg, &end);
			if (*end || !(o->duration > 0.0) || o->duration > 1e6) {
				fprintf(stderr, "opengpa stat: --duration %s: not a number of seconds\n",
				        optarg);
				return 2;
			}
			break;
		}
		default: return 2;
		}
	}
	if (o->sep && o->json) {
		fprintf(stderr, "opengpa stat: -x and --json exclude each other\n");
		return 2;
	}
	if (optind >= argc && !o->scope[0]) {
		fprintf(stderr, "opengpa stat: no command given (opengpa stat [options] -- COMMAND ..., "
		        "or -a/-C/-p/-t to count without one)\n");
		return 2;
	}
	if (optind < argc && o->duration > 0.0) {
		fprintf(stderr, "opengpa stat: --duration is for counting without a command\n");
		return 2;
	}
	o->command = optind < argc ? &argv[optind] : NULL;
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
	char options[512];
	if (o.scope[0] && o.backend && strcmp(o.backend, "perf") != 0) {
		fprintf(stderr, "opengpa stat: -a, -C, -p and -t choose what the perf backend "
		        "counts; the %s backend counts its whole device\n", o.backend);
		return 2;
	}
	snprintf(options, sizeof options, "%s%s%s", o.options ? o.options : "",
	         o.options && o.options[0] && o.scope[0] ? "," : "", o.scope);
	if (cli_open(o.scope[0] ? "perf" : o.backend, options[0] ? options : o.options, o.hardware))
		return 1;
	if (o.multiplex && OpenGPA_SetMultiplexing(1) != GPA_STATUS_OK) {
		cli_fail("cannot multiplex", GPA_STATUS_ERROR_FAILED);
		cli_close();
		return 1;
	}
	if (enable_counters(o.events)) {
		cli_close();
		return 1;
	}
	gpa_uint32 session = 0, passes = 0;
	int exit_status = 0;
	double elapsed = 0.0;
	rc = run_command(o.command, o.scope[0] != 0, o.duration, &session, &passes, &exit_status,
	                 &elapsed);
	/* Without a command the report names what was counted. */
	char label[128];
	char *scope_only[] = { label, NULL };
	if (strcmp(o.scope, "cpu=all") == 0)
		snprintf(label, sizeof label, "all CPUs");
	else if (strncmp(o.scope, "cpu=", 4) == 0)
		snprintf(label, sizeof label, "CPUs %.80s", o.scope + 4);
	else
		snprintf(label, sizeof label, "%s %s", o.scope[0] == 'p' ? "process" : "thread",
		         strchr(o.scope, '=') ? strchr(o.scope, '=') + 1 : "");
	if (rc == 0)
		rc = report_session(session, passes, o.command ? o.command : scope_only, elapsed,
		                    o.json ? REPORT_JSON : o.sep ? REPORT_SEPARATED : REPORT_TABLE,
		                    o.sep, o.output);
	cli_close();
	if (rc)
		return exit_status ? exit_status : rc;
	return exit_status;
}
