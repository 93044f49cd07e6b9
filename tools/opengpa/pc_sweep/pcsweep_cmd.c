/* SPDX-License-Identifier: MIT */
/*
 * pcsweep_cmd.c — `opengpa pc_sweep`: pc_sweep's options (MIPS note MD00548,
 * Tables 4 and 5) and pc_parse's report on the mips backend, over the same
 * run-once-per-pass loop as `opengpa stat`.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_options.h"
#include "pcsweep.h"
#include "run.h"

static double read_value(gpa_uint32 session, gpa_uint32 index)
{
	GPA_Type type = GPA_TYPE_FLOAT64;
	GPA_GetCounterDataType(index, &type);
	if (type == GPA_TYPE_UINT64) {
		gpa_uint64 v = 0;
		GPA_GetSampleUInt64(session, 0, index, &v);
		return (double)v;
	}
	if (type == GPA_TYPE_UINT32) {
		gpa_uint32 v = 0;
		GPA_GetSampleUInt32(session, 0, index, &v);
		return v;
	}
	if (type == GPA_TYPE_FLOAT32) {
		gpa_float32 v = 0;
		GPA_GetSampleFloat32(session, 0, index, &v);
		return v;
	}
	gpa_float64 v = 0;
	GPA_GetSampleFloat64(session, 0, index, &v);
	return v;
}

int cmd_pc_sweep(int argc, char **argv)
{
	static struct pcsweep_request req; /* large; one per process */
	const char *names[PCSWEEP_MAX_NAMES], *counted[PCSWEEP_MAX_NAMES];
	double values[PCSWEEP_MAX_NAMES];
	char err[512];
	int cmd = 0, rc = 0;
	if (pcsweep_parse(argc, argv, &req, &cmd, err, sizeof(err)) != 0)
		return cli_usage_error("pc_sweep", err);
	if (req.help) {
		fputs(cli_command_pc_sweep.help, stdout);
		return 0;
	}
	if (cmd >= argc)
		return cli_usage_error("pc_sweep", "no command given (... -- COMMAND)");
	/* The report file first: a path that cannot be written fails before
	 * anything runs. */
	FILE *out = pcsweep_open_output(&req, stdout, err, sizeof err);
	if (!out) {
		fprintf(stderr, "opengpa pc_sweep: %s\n", err);
		return 1;
	}
	/* pc_sweep reports raw events, so the raw counters must be public.  An
	 * SMTC kernel's /proc/perf, else a mainline kernel's perf_event with the
	 * same 34K set (docs/backends/mips.md), which counts per VPE at the
	 * finest: -t and -v need /proc/perf. */
	GPA_Status opened = cli_try_open("mips", pcsweep_backend_options(&req), true);
	if (opened == GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED && req.tc < 0 && req.vpe < 0) {
		cli_clear_error();
		opened = cli_try_open("perf", req.perf_options, true);
		gpa_uint32 index;
		if (opened == GPA_STATUS_OK && GPA_GetCounterIndex("CoreCycles", &index) != GPA_STATUS_OK) {
			cli_close();
			cli_clear_error();
			fprintf(stderr, "opengpa pc_sweep: no MIPS 34K here: neither /proc/perf nor the "
			        "kernel's 34K PMU (perf_event)\n");
			cli_close_output(out, req.output);
			return 1;
		}
	}
	if (opened == GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED && (req.tc >= 0 || req.vpe >= 0)) {
		cli_clear_error();
		fprintf(stderr, "opengpa pc_sweep: -t and -v need an SMTC kernel's /proc/perf, and "
		        "there is none; perf_event counts a whole VPE at the finest (leave them out)\n");
		cli_close_output(out, req.output);
		return 1;
	}
	if (opened != GPA_STATUS_OK) {
		cli_fail("cannot open a counter context", opened);
		cli_close_output(out, req.output);
		return 1;
	}
	size_t total = pcsweep_counters(&req, names, PCSWEEP_MAX_NAMES), m = 0;
	for (size_t i = 0; i < total && i < PCSWEEP_MAX_NAMES; i++) {
		GPA_Status st = GPA_EnableCounterStr(names[i]);
		if (st == GPA_STATUS_OK || st == GPA_STATUS_ERROR_ALREADY_ENABLED)
			counted[m++] = names[i];
	}
	cli_clear_error(); /* a metric the selection cannot compute prints as n/a */

	gpa_uint32 session = 0, passes = 1;
	double elapsed = 0.0;
	struct run_state rs = { 0 };
	pcsweep_print_events(out, &req);
	fflush(out);
	rc = run_explain_passes("opengpa pc_sweep", false, 1, NULL, &passes);
	if (!rc) {
		struct run_request rq = { .command = &argv[cmd], .count = true, .total = passes };
		rc = run_session(&rq, &rs, &session, &elapsed);
	}
	if (!rc) {
		for (size_t i = 0; i < m; i++) {
			gpa_uint32 index = 0;
			GPA_GetCounterIndex(counted[i], &index);
			values[i] = read_value(session, index);
		}
		pcsweep_report(out, &req, counted, values, m);
	}
	if (cli_close_output(out, req.output) && !rc)
		rc = 1;
	cli_close();
	int status = run_exit_status(&rs);
	return status ? status : rc;
}
