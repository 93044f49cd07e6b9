/* SPDX-License-Identifier: MIT */
/* report.c — the results of `opengpa stat`. */
#include "report.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "format.h"

struct row {
	const char *name, *group, *usage;
	GPA_Usage_Type usage_type;
	GPA_Type type;
	bool exact; /* an integer counter: `count` holds it */
	uint64_t count;
	double value;
	GPA_Status status;
};

static GPA_Status read_row(gpa_uint32 session, gpa_uint32 index, struct row *r)
{
	GPA_GetCounterName(index, &r->name);
	OpenGPA_GetCounterGroup(index, &r->group);
	GPA_GetCounterUsageType(index, &r->usage_type);
	GPA_GetUsageTypeAsStr(r->usage_type, &r->usage);
	GPA_GetCounterDataType(index, &r->type);
	switch (r->type) {
	case GPA_TYPE_UINT64: {
		gpa_uint64 v = 0;
		r->status = GPA_GetSampleUInt64(session, 0, index, &v);
		r->exact = true;
		r->count = v;
		r->value = (double)v;
		break;
	}
	case GPA_TYPE_UINT32: {
		gpa_uint32 v = 0;
		r->status = GPA_GetSampleUInt32(session, 0, index, &v);
		r->exact = true;
		r->count = v;
		r->value = v;
		break;
	}
	case GPA_TYPE_FLOAT32: {
		gpa_float32 v = 0;
		r->status = GPA_GetSampleFloat32(session, 0, index, &v);
		r->value = v;
		break;
	}
	default: {
		gpa_float64 v = 0;
		r->status = GPA_GetSampleFloat64(session, 0, index, &v);
		r->value = v;
		break;
	}
	}
	return r->status;
}

static void format_value(const struct row *r, char *buf, size_t len)
{
	if (r->status != GPA_STATUS_OK)
		snprintf(buf, len, "<not counted>");
	else if (r->exact)
		snprintf(buf, len, "%" PRIu64, r->count);
	else if (r->usage_type == GPA_USAGE_TYPE_PERCENTAGE)
		snprintf(buf, len, "%.2f", r->value);
	else
		snprintf(buf, len, "%.3f", r->value);
}

static const char *unit(const struct row *r)
{
	switch (r->usage_type) {
	case GPA_USAGE_TYPE_PERCENTAGE: return "%";
	case GPA_USAGE_TYPE_MILLISECONDS: return "ms";
	case GPA_USAGE_TYPE_BYTES: return "B";
	case GPA_USAGE_TYPE_KILOBYTES: return "KB";
	case GPA_USAGE_TYPE_CYCLES: return "cycles";
	default: return "";
	}
}

/* Share of the run the counters were really counting (sample 0), 1 when
 * the backend time-shared nothing. */
static double coverage_of(gpa_uint32 session)
{
	gpa_float64 c = 1.0;
	if (OpenGPA_GetSampleCoverage(session, 0, &c) != GPA_STATUS_OK)
		return 1.0;
	return c;
}

static void print_table(FILE *f, const struct row *rows, gpa_uint32 n, char *const command[],
                        gpa_uint32 passes, double elapsed, double coverage)
{
	const char *device = "", *backend = "";
	GPA_GetDeviceDesc(&device);
	OpenGPA_GetBackend(&backend);
	fprintf(f, "\n Counter stats for '");
	for (int i = 0; command[i]; i++)
		fprintf(f, "%s%s", i ? " " : "", command[i]);
	fprintf(f, "' on %s (%s backend, %u run%s):\n\n", device, backend, passes,
	        passes == 1 ? "" : "s, one per pass");
	for (gpa_uint32 i = 0; i < n; i++) {
		char value[64];
		format_value(&rows[i], value, sizeof(value));
		fprintf(f, "  %20s %-6s  %-32s # %s\n", value, unit(&rows[i]), rows[i].name,
		        rows[i].group);
	}
	if (coverage < 1.0)
		fprintf(f, "\n  counters were on the PMU %.1f%% of the time (multiplexed): counts are "
		        "scaled estimates\n", 100.0 * coverage);
	fprintf(f, "\n  %20.6f seconds time elapsed%s\n\n", elapsed, passes > 1 ? " per run" : "");
}

/* value SEP unit SEP name SEP group, as perf stat -x orders its fields. */
static void print_separated(FILE *f, const struct row *rows, gpa_uint32 n, const char *sep)
{
	for (gpa_uint32 i = 0; i < n; i++) {
		char value[64];
		format_value(&rows[i], value, sizeof(value));
		const char *fields[] = { value, unit(&rows[i]), rows[i].name, rows[i].group };
		for (size_t k = 0; k < 4; k++) {
			if (k)
				fputs(sep, f);
			fmt_csv_field(f, fields[k], sep);
		}
		fputc('\n', f);
	}
}

static void print_json(FILE *f, const struct row *rows, gpa_uint32 n, char *const command[],
                       gpa_uint32 passes, double elapsed, double coverage)
{
	const char *device = "", *backend = "";
	GPA_GetDeviceDesc(&device);
	OpenGPA_GetBackend(&backend);
	fprintf(f, "{\"command\": [");
	for (int i = 0; command[i]; i++) {
		fprintf(f, i ? ", " : "");
		fmt_json_string(f, command[i]);
	}
	fprintf(f, "], \"backend\": ");
	fmt_json_string(f, backend);
	fprintf(f, ", \"device\": ");
	fmt_json_string(f, device);
	fprintf(f, ", \"passes\": %u, \"seconds_per_run\": %.6f, \"coverage\": %.6f, "
	        "\"counters\": [", passes, elapsed, coverage);
	for (gpa_uint32 i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		fprintf(f, "%s\n  {\"name\": ", i ? "," : "");
		fmt_json_string(f, r->name);
		fprintf(f, ", \"group\": ");
		fmt_json_string(f, r->group);
		fprintf(f, ", \"usage\": ");
		fmt_json_string(f, r->usage);
		if (r->status != GPA_STATUS_OK)
			fprintf(f, ", \"value\": null");
		else if (r->exact)
			fprintf(f, ", \"value\": %" PRIu64, r->count);
		else
			fprintf(f, ", \"value\": %.17g", r->value);
		fprintf(f, "}");
	}
	fprintf(f, "\n]}\n");
}

int report_session(FILE *f, gpa_uint32 session, gpa_uint32 passes, char *const command[],
                   double elapsed, enum report_format format, const char *sep)
{
	gpa_uint32 n = 0;
	GPA_Status st = GPA_GetEnabledCount(&n);
	if (st != GPA_STATUS_OK)
		return cli_fail("cannot read the results", st);
	struct row *rows = calloc(n ? n : 1, sizeof(*rows));
	if (!rows)
		return cli_fail("out of memory", GPA_STATUS_ERROR_FAILED);
	int rc = 0;
	for (gpa_uint32 i = 0; i < n && rc == 0; i++) {
		gpa_uint32 index = 0;
		GPA_GetEnabledIndex(i, &index);
		st = read_row(session, index, &rows[i]);
		/* One counter that could not be read is shown as such; a session
		 * whose results are gone is an error. */
		if (st == GPA_STATUS_ERROR_SESSION_NOT_FOUND)
			rc = cli_fail("cannot read the results", st);
	}
	if (!rc) {
		if (format == REPORT_JSON)
			print_json(f, rows, n, command, passes, elapsed, coverage_of(session));
		else if (format == REPORT_SEPARATED)
			print_separated(f, rows, n, sep);
		else
			print_table(f, rows, n, command, passes, elapsed, coverage_of(session));
	}
	free(rows);
	return rc;
}
