/* SPDX-License-Identifier: MIT */
/*
 * spe.c — `opengpa spe`: a command sampled with Arm's Statistical Profiling
 * Extension through the kernel's arm_spe PMU (spe_run.c), without a GPA
 * context: the report is per PC, which GPA counters cannot carry.  The
 * same counts are the perf backend's `spe:` counters (counters/arm-spe).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cli_options.h"
#include "spe.h"
#include "spe_report.h"
#include "sys.h"

__attribute__((format(printf, 3, 4))) static void log_line(void *ctx, enum og_log_level level,
                                                      const char *fmt, ...)
{
	(void)ctx;
	if (level != OG_LOG_ERROR)
		return;
	char line[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	/* The session's messages name the backend; here the command does. */
	const char *text = line;
	if (strncmp(text, "perf: ", 6) == 0)
		text += 6;
	if (strncmp(text, "SPE: ", 5) == 0)
		text += 5;
	fprintf(stderr, "opengpa spe: %s\n", text);
}

int cmd_spe(int argc, char **argv)
{
	struct spe_options o;
	char err[512];
	if (spe_parse(argc, argv, &o, err, sizeof err) != 0)
		return cli_usage_error("spe", err);
	if (o.help) {
		fputs(cli_command_spe.help, stdout);
		return 0;
	}
	FILE *out = o.output ? cli_open_output(o.output, false) : stderr;
	if (!out)
		return 1;
	struct og_backend_host host = { og_sys_real(), log_line, NULL, NULL };
	int rc = spe_run(&host, &o, out, NULL);
	if (cli_close_output(out, o.output) && rc == 0)
		rc = 1;
	return rc;
}
