/* SPDX-License-Identifier: MIT */
/*
 * stat.c — `opengpa stat`: open every output first, then the counters,
 * then run the command once per pass the enabled counters need (as the
 * MIPS note's pc_sweep re-runs its program), counting the command and its
 * children, and print each counter for the run.  With a scope flag (-a, -C,
 * -p, -t) it counts those CPUs or that process while the command runs, or,
 * without a command, until Ctrl-C or --duration.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_options.h"
#include "report.h"
#include "run.h"
#include "stat.h"

static int enable_counters(const struct stat_options *o)
{
	GPA_Status st;
	if (!o->nevents) {
		st = GPA_EnableAllCounters();
		return st == GPA_STATUS_OK ? 0 : cli_fail("cannot enable the counters", st);
	}
	int rc = 0;
	for (size_t e = 0; e < o->nevents && !rc; e++) {
		char *copy = strdup(o->events[e]), *save = NULL;
		if (!copy)
			return cli_fail("out of memory", GPA_STATUS_ERROR_FAILED);
		for (char *name = strtok_r(copy, ",", &save); name && !rc;
		     name = strtok_r(NULL, ",", &save)) {
			st = GPA_EnableCounterStr(name);
			if (st == GPA_STATUS_ERROR_ALREADY_ENABLED)
				continue;
			if (st != GPA_STATUS_OK)
				rc = cli_fail(name, st);
		}
		free(copy);
	}
	return rc;
}

/*
 * Every file the command writes is opened here, before the counters and the
 * workload: a path that cannot be written fails in a second instead of
 * losing a long run's counts.  A new output option opens (or checks) its
 * file here too.
 */
static int open_outputs(const struct stat_options *o, FILE **report)
{
	*report = stderr; /* the table, -x and --json alike, as perf stat does */
	if (o->output && !(*report = cli_open_output(o->output, false)))
		return 1;
	return 0;
}

int cmd_stat(int argc, char **argv)
{
	struct stat_options o;
	char err[512];
	if (stat_parse(argc, argv, &o, err, sizeof err) != 0)
		return cli_usage_error("stat", err);
	if (o.help) {
		fputs(cli_command_stat.help, stdout);
		return 0;
	}
	FILE *report = NULL;
	if (open_outputs(&o, &report))
		return 1;
	char options[512];
	snprintf(options, sizeof options, "%s%s%s", o.options ? o.options : "",
	         o.options && o.options[0] && o.scope[0] ? "," : "", o.scope);
	int rc = cli_open(o.scope[0] ? "perf" : o.backend, options[0] ? options : o.options,
	                  o.hardware);
	bool opened = rc == 0;
	if (!rc && o.multiplex && OpenGPA_SetMultiplexing(1) != GPA_STATUS_OK)
		rc = cli_fail("cannot multiplex", GPA_STATUS_ERROR_FAILED);
	if (!rc)
		rc = enable_counters(&o);
	gpa_uint32 session = 0, passes = 0;
	int exit_status = 0;
	double elapsed = 0.0;
	if (!rc)
		rc = run_command(o.command, o.scope[0] != 0, o.duration, &session, &passes,
		                 &exit_status, &elapsed);
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
		rc = report_session(report, session, passes, o.command ? o.command : scope_only,
		                    elapsed,
		                    o.json ? REPORT_JSON : o.sep ? REPORT_SEPARATED : REPORT_TABLE,
		                    o.sep);
	if (cli_close_output(report, o.output) && !rc)
		rc = 1;
	if (opened)
		cli_close();
	if (rc)
		return exit_status ? exit_status : rc;
	return exit_status;
}
