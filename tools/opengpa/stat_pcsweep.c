/* SPDX-License-Identifier: MIT */
/*
 * stat_pcsweep.c — `opengpa stat --backend mips`: pc_sweep's options (MIPS
 * note MD00548, Tables 4 and 5) and pc_parse's report, over the same
 * run-once-per-pass loop as every backend.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "pcsweep.h"

/* Removes "--backend mips" / "--backend=mips" before "--": pc_sweep's
 * parser knows only its own options. */
static int strip_backend(int argc, char **argv, char **out)
{
	int n = 0;
	bool after_dashes = false;
	for (int i = 0; i < argc; i++) {
		if (!after_dashes && strcmp(argv[i], "--") == 0)
			after_dashes = true;
		if (!after_dashes && strcmp(argv[i], "--backend") == 0 && i + 1 < argc) {
			i++;
			continue;
		}
		if (!after_dashes && strcmp(argv[i], "--backend=mips") == 0)
			continue;
		out[n++] = argv[i];
	}
	out[n] = NULL;
	return n;
}

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

int cmd_stat_pcsweep(int argc, char **argv)
{
	char **args = calloc((size_t)argc + 1, sizeof(*args));
	static struct pcsweep_request req; /* large; one per process */
	const char *names[PCSWEEP_MAX_NAMES], *counted[PCSWEEP_MAX_NAMES];
	double values[PCSWEEP_MAX_NAMES];
	char err[256];
	int cmd = 0, rc = 0;
	if (!args)
		return cli_fail("out of memory", GPA_STATUS_ERROR_FAILED);
	int n = strip_backend(argc, argv, args);
	if (pcsweep_parse(n, args, &req, &cmd, err, sizeof(err)) != 0) {
		fprintf(stderr, "opengpa stat --backend mips: %s\n", err);
		free(args);
		return 2;
	}
	if (cmd >= n) {
		fprintf(stderr, "opengpa stat --backend mips: no command given (... -- COMMAND)\n");
		free(args);
		return 2;
	}
	/* pc_sweep reports raw events, so the raw counters must be public. */
	if (cli_open("mips", pcsweep_backend_options(&req), true)) {
		free(args);
		return 1;
	}
	size_t total = pcsweep_counters(&req, names, PCSWEEP_MAX_NAMES), m = 0;
	for (size_t i = 0; i < total; i++) {
		GPA_Status st = GPA_EnableCounterStr(names[i]);
		if (st == GPA_STATUS_OK || st == GPA_STATUS_ERROR_ALREADY_ENABLED)
			counted[m++] = names[i];
	}
	cli_clear_error(); /* a metric the selection cannot compute prints as n/a */

	FILE *out = pcsweep_open_output(&req, stdout, err, sizeof(err));
	if (!out) {
		fprintf(stderr, "opengpa: %s\n", err);
		rc = 1;
	}
	gpa_uint32 session = 0, passes = 0;
	int exit_status = 0;
	double elapsed = 0.0;
	if (!rc) {
		pcsweep_print_events(out, &req);
		rc = run_command(&args[cmd], false, 0.0, &session, &passes, &exit_status, &elapsed);
	}
	if (!rc) {
		for (size_t i = 0; i < m; i++) {
			gpa_uint32 index = 0;
			GPA_GetCounterIndex(counted[i], &index);
			values[i] = read_value(session, index);
		}
		pcsweep_report(out, &req, counted, values, m);
	}
	if (out && out != stdout)
		fclose(out);
	cli_close();
	free(args);
	if (rc)
		return exit_status ? exit_status : rc;
	return exit_status;
}
