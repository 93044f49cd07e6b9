/* SPDX-License-Identifier: MIT */
/*
 * stat.c — `opengpa stat`, in the order a perf user expects: every output
 * file opened first, then the counters (those this machine cannot count kept
 * as <not supported>), then, said out loud when there are several, the
 * command's runs: once per pass the counters need (GPA's model, as the MIPS
 * note's pc_sweep re-runs its program), all of it -r times; then the report.
 * With a scope flag (-a, -C, -p, -t) it counts those CPUs or that process
 * while the command runs, or, without a command, until Ctrl-C or --duration.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli.h"
#include "cli_options.h"
#include "events.h"
#include "format.h"
#include "names.h"
#include "output.h"
#include "per_thread.h"
#include "report.h"
#include "run.h"
#include "stat.h"
#include "timeline_run.h"

/*
 * Every file the command writes is opened here, before the counters and the
 * workload: a path that cannot be written fails in a second instead of
 * losing a long run's counts.  Each is a temporary file until the run has
 * succeeded (output.h), so a failed or killed run leaves what the names
 * held.  A new output option opens its file here too, joins the list of
 * check_outputs(), and is closed in close_outputs().
 */
static int check_outputs(const struct stat_options *o)
{
	const struct cli_output_name names[] = {
		{ "-o", o->output }, { "--trace", o->trace }, { "--csv", o->csv },
		{ "--html", o->html }, { "--perfetto", o->perfetto },
		{ "--openmetrics", o->openmetrics },
	};
	return cli_outputs_distinct("stat", names, sizeof names / sizeof names[0]);
}

static int open_outputs(const struct stat_options *o, struct cli_output *report,
                        struct timeline *tl)
{
	memset(report, 0, sizeof *report);
	report->dirfd = -1;
	report->f = stderr; /* the table, -x and --json alike, as perf stat does */
	report->in_place = true;
	if (o->output && cli_output_open(report, o->output, o->append))
		return 1;
	if (stat_period_ms(o) && timeline_open(tl, o, report->f)) {
		if (o->output)
			cli_output_close(report, false);
		return 1;
	}
	return 0;
}

/* commit: the run succeeded, its outputs replace what their names held. */
static int close_outputs(const struct stat_options *o, struct cli_output *report,
                         struct timeline *tl, bool commit)
{
	int rc = stat_period_ms(o) ? timeline_close(tl, commit) : 0;
	if (o->output)
		rc |= cli_output_close(report, commit);
	else if (fflush(report->f) != 0)
		rc = 1;
	return rc;
}

/* What was counted, for the report's header: the command, or the scope. */
static void scope_label(const char *scope, char *label, size_t len)
{
	if (strcmp(scope, "cpu=all") == 0)
		snprintf(label, len, "all CPUs");
	else if (strncmp(scope, "cpu=", 4) == 0)
		snprintf(label, len, "CPUs %.80s", scope + 4);
	else
		snprintf(label, len, "%s %s", scope[0] == 'p' ? "process" : "thread",
		         strchr(scope, '=') ? strchr(scope, '=') + 1 : "");
}

/* Whether --multiplex would count the enabled counters in one run, asked
 * between sessions without changing anything. */
static bool can_multiplex(void)
{
	bool can = OpenGPA_SetMultiplexing(1) == GPA_STATUS_OK;
	OpenGPA_SetMultiplexing(0);
	cli_clear_error();
	return can;
}

/*
 * perf's spellings and groups in the -e lists: "{task-clock,page-faults}"
 * becomes "TaskClock,PageFaults" in *joined (the braces only say "in one
 * run", which the planner does anyway where the hardware allows it; a
 * group that cannot be is refused by -I, --passes=once, or said as passes).
 * Returns 0, or 1 without memory.
 */
static int spell_events(const struct stat_options *o, struct stat_options *chosen, char **joined)
{
	size_t len = 1;
	for (size_t e = 0; e < o->nevents; e++)
		len += strlen(o->events[e]) * 2 + 32;
	char *out = calloc(1, len);
	if (!out)
		return cli_fail("out of memory", GPA_STATUS_ERROR_FAILED);
	for (size_t e = 0; e < o->nevents; e++) {
		char *copy = strdup(o->events[e]), *save = NULL;
		if (!copy) {
			free(out);
			return cli_fail("out of memory", GPA_STATUS_ERROR_FAILED);
		}
		for (char *name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save)) {
			name += strspn(name, "{");
			name[strcspn(name, "}")] = '\0';
			if (!*name)
				continue;
			const struct perf_spelling *p = names_perf(name);
			strcat(out, out[0] ? "," : "");
			strcat(out, p && !stat_has_counter(name) ? p->counter : name);
		}
		free(copy);
	}
	chosen->events[0] = out;
	chosen->nevents = out[0] ? 1 : 0;
	*joined = out;
	return 0;
}

/* The rows of counters named in perf's spelling show it, with perf's unit;
 * a task clock gets perf's "CPUs utilized". */
static void spell_rows(const struct stat_options *o, struct report *r)
{
	for (size_t i = 0; i < r->nrows; i++) {
		struct report_row *row = &r->rows[i];
		const struct perf_spelling *own = names_perf_of(row->name);
		row->cpus_utilized = own && own->cpus_utilized;
		row->per_sec = own && own->per_sec;
		for (size_t e = 0; e < o->nevents; e++) {
			char *copy = strdup(o->events[e]), *save = NULL;
			if (!copy)
				return;
			for (char *name = strtok_r(copy, ",{}", &save); name;
			     name = strtok_r(NULL, ",{}", &save)) {
				const struct perf_spelling *p = names_perf(name);
				if (p && strcasecmp(p->counter, row->name) == 0) {
					row->name = p->perf; /* static: outlives copy */
					row->perf_unit = p->unit;
					break;
				}
			}
			free(copy);
		}
	}
}

/* On the perf backend, -e names that are no counter are CPU events: they
 * are declared (events.c) and the context opened again.  *chosen gets the
 * -e list as names, in *joined.  Returns 0; 1 after printing why, with the
 * context still open (*open true) or not. */
static int resolve_events(const struct stat_options *o, const char *backend,
                          const char *options, struct stat_options *chosen, char **joined,
                          bool *open, char *kept, size_t keptlen)
{
	const char *name = "";
	OpenGPA_GetBackend(&name);
	if (!o->nevents || strcmp(name, "perf") != 0)
		return 0;
	struct events ev;
	char path[512];
	if (events_resolve(o->events, o->nevents, &ev, path, sizeof path))
		return 1;
	int rc = 0;
	if (ev.declared) {
		cli_close();
		GPA_Status st = OpenGPA_AddCounterFile(path);
		rc = st == GPA_STATUS_OK ? cli_open(backend, options, true)
		                         : cli_fail("cannot declare the -e events", st);
		*open = rc == 0;
		/* --per-thread opens the context again, with this file still
		 * among the library's: it goes when the command ends. */
		if (kept && rc == 0)
			snprintf(kept, keptlen, "%s", path);
		else
			unlink(path);
		if (!rc)
			rc = events_check(&ev);
	}
	size_t len = 1;
	for (size_t i = 0; i < ev.n; i++)
		len += strlen(ev.names[i]) + 1;
	if (!rc && !(*joined = calloc(1, len)))
		rc = cli_fail("out of memory", GPA_STATUS_ERROR_FAILED);
	for (size_t i = 0; !rc && i < ev.n; i++) {
		strcat(*joined, i ? "," : "");
		strcat(*joined, ev.names[i]);
	}
	if (!rc) {
		chosen->events[0] = *joined;
		chosen->nevents = 1;
	}
	events_free(&ev);
	return rc;
}

/* --per-thread: each thread's counters declared (per_thread.c), the
 * context opened again with them, the report's rows chosen again on it.
 * Returns 0; 1 after printing why, with the context still open (*open)
 * or not. */
static int setup_per_thread(const struct stat_options *o, const struct stat_options *asked,
                            const char *backend, const char *options, struct report *r,
                            struct per_thread *pt, bool *open)
{
	char path[512];
	if (per_thread_declare(pt, o->scope, r, path, sizeof path))
		return 1;
	cli_close();
	GPA_Status st = OpenGPA_AddCounterFile(path);
	int rc = st == GPA_STATUS_OK ? cli_open(backend, options, true)
	                             : cli_fail("cannot declare the threads' counters", st);
	*open = rc == 0;
	unlink(path);
	free(r->rows);
	r->rows = NULL;
	r->nrows = 0;
	if (!rc && o->multiplex && OpenGPA_SetMultiplexing(1) != GPA_STATUS_OK)
		rc = cli_fail("cannot multiplex", GPA_STATUS_ERROR_FAILED);
	if (!rc)
		rc = stat_choose_counters(o, r);
	if (!rc)
		spell_rows(asked, r);
	if (!rc && r->nrows != pt->nrows)
		rc = cli_fail("the counters changed when the context opened again",
		              GPA_STATUS_ERROR_FAILED);
	if (!rc)
		rc = per_thread_enable(pt);
	return rc;
}

/* The counted part: context, counters, runs, report. */
/* Whether some -e name is an instance's ("ShaderCore3:FragmentActiveCycles",
 * "L2Slice1:..."): a digit just before the separator. */
static bool names_instances(const struct stat_options *o)
{
	for (size_t i = 0; i < o->nevents; i++)
		for (const char *p = o->events[i]; (p = strstr(p, OPENGPA_INSTANCE_SEPARATOR)); p++)
			if (p > o->events[i] && isdigit((unsigned char)p[-1]))
				return true;
	return false;
}

static int count(const struct stat_options *o, FILE *out, struct run_state *rs,
                 struct timeline *tl)
{
	char options[512];
	snprintf(options, sizeof options, "%s%s%s", o->options ? o->options : "",
	         o->options && o->options[0] && o->scope[0] ? "," : "", o->scope);
	const char *backend = o->scope[0] ? "perf" : o->backend;
	if (stat_budget_apply(o))
		return 1;
	/* Per-instance counters (ShaderCore3:X) only when they are wanted:
	 * --per-core, or a -e name whose part before ':' ends in an instance
	 * number (not perf's cycles:u). */
	if (o->per_core || names_instances(o))
		OpenGPA_SetInstanceCounters(1);
	/* Named counters may be raw ones (L1D_TLB_REFILL): offer them all. */
	if (cli_open(backend, options[0] ? options : o->options,
	             o->hardware || o->nevents || o->per_thread))
		return 1;
	if (stat_budget_check(o)) {
		cli_close();
		return 1;
	}
	struct stat_options spelled = *o, chosen;
	char *joined = NULL, *perf_joined = NULL;
	bool open = true;
	if (o->nevents && spell_events(o, &spelled, &perf_joined)) {
		cli_close();
		return 1;
	}
	chosen = spelled;
	char events_file[512] = "";
	if (resolve_events(&spelled, backend, options[0] ? options : o->options, &chosen, &joined,
	                   &open, o->per_thread ? events_file : NULL, sizeof events_file)) {
		if (open)
			cli_close();
		if (events_file[0])
			unlink(events_file);
		free(perf_joined);
		return 1;
	}
	const struct stat_options *asked = o;
	o = &chosen;
	char label[128];
	char *scope_only[] = { label, NULL };
	scope_label(o->scope, label, sizeof label);
	struct report r = { .command = o->command ? o->command : scope_only, .coverage = 1.0,
	                    .verbose = o->verbose > 0 };
	fmt_numeric_from_env(!o->no_big_num, &r.numeric);
	int rc = 0;
	if (o->multiplex && OpenGPA_SetMultiplexing(1) != GPA_STATUS_OK)
		rc = cli_fail("cannot multiplex", GPA_STATUS_ERROR_FAILED);
	if (!rc)
		rc = stat_choose_counters(o, &r);
	if (!rc && o->per_core)
		rc = stat_add_instance_rows(&r);
	if (!rc)
		spell_rows(asked, &r);
	struct per_thread pt;
	memset(&pt, 0, sizeof pt);
	if (!rc && o->per_thread) {
		rc = setup_per_thread(o, asked, backend, options[0] ? options : o->options, &r, &pt,
		                      &open);
		if (!open) {
			per_thread_free(&pt);
			free(r.rows);
			free(joined);
			free(perf_joined);
			if (events_file[0])
				unlink(events_file);
			return 1;
		}
	}
	gpa_uint32 enabled = 0, passes = 1;
	GPA_GetEnabledCount(&enabled);
	/* Intervals: one run, sampled by the library (a set that needs more
	 * runs is refused by GPA_BeginSession, naming them). */
	bool periodic = stat_period_ms(o) && enabled;
	if (!rc && periodic && !o->nevents && !o->nmetrics)
		rc = timeline_fit_one_run(&r);
	if (!rc && enabled)
		stat_choose_running(&r);
	if (!rc && periodic)
		rc = timeline_prepare(tl, &r);
	if (!rc && enabled && !periodic)
		rc = run_explain_passes("opengpa stat", o->passes_once, o->repeat,
		                        can_multiplex() ? "--multiplex counts them in one run, as "
		                                          "estimates" : NULL,
		                        &passes);
	struct run_request rq = {
		.command = o->command, .scoped = o->scope[0] != 0, .count = enabled > 0,
		.duration = o->duration, .total = o->repeat * passes, .timeout_ms = o->timeout_ms,
		.delay_ms = o->delay_ms,
		.timeline = periodic ? tl : NULL,
	};
	/* Nothing countable and no command: nothing to wait for; the report
	 * says why. */
	bool idle = !rq.count && !rq.command;
	for (unsigned k = 0; k < o->repeat && !rc && !rs->stop && !idle; k++) {
		gpa_uint32 session = 0;
		double elapsed = 0.0;
		rc = run_session(&rq, rs, &session, &elapsed);
		if (!rc)
			report_stats_add(&r.elapsed, elapsed);
		if (!rc && rq.count)
			rc = report_add_session(&r, session);
		if (!rc && rq.count && o->per_thread)
			rc = per_thread_read(&pt, session);
	}
	if (!rc) {
		r.repeats = idle ? 1 : r.elapsed.n;
		r.passes = passes;
		r.exit_status = run_exit_status(rs);
		/* Under -I, perf's machine formats print the intervals alone,
		 * and the totals only with --summary ("summary" first under -x,
		 * no "interval" under --json), so a script tells them apart. */
		bool machine = o->sep || (o->json && !o->opengpa_json);
		r.summary = periodic && o->interval_ms && o->sep && o->summary;
		if (o->per_thread && pt.read)
			per_thread_print(out, &pt, &r,
			                 o->json ? REPORT_JSON : o->sep ? REPORT_SEPARATED : REPORT_TABLE,
			                 o->sep);
		else if (!(periodic && o->interval_ms && machine && !o->summary))
			report_print(out, &r,
			             o->opengpa_json ? REPORT_OPENGPA_JSON
			             : o->json ? REPORT_JSON : o->sep ? REPORT_SEPARATED : REPORT_TABLE,
			             o->sep);
		if (periodic)
			timeline_finish(tl, &r);
	}
	per_thread_free(&pt);
	report_free(&r);
	free(joined);
	free(perf_joined);
	cli_close();
	if (events_file[0])
		unlink(events_file);
	return rc;
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
	cli_set_verbose(o.verbose);
	int rc = check_outputs(&o);
	if (rc)
		return rc;
	struct cli_output out;
	struct timeline tl;
	if (open_outputs(&o, &out, &tl))
		return 1;
	struct run_state rs = { 0 };
	rc = count(&o, out.f, &rs, &tl);
	if (close_outputs(&o, &out, &tl, rc == 0) && !rc)
		rc = 1;
	/* The command's status wins over opengpa's own failure, as in perf. */
	int status = run_exit_status(&rs);
	return status ? status : rc;
}
