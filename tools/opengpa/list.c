/* SPDX-License-Identifier: MIT */
/* list.c — `opengpa list`: every counter of the device, with its metadata. */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_options.h"
#include "format.h"
#include "list.h"

static void print_fields(const char *const *fields, size_t n, const char *sep)
{
	for (size_t k = 0; k < n; k++) {
		if (k)
			fputs(sep, stdout);
		fmt_csv_field(stdout, fields[k], sep);
	}
	fputc('\n', stdout);
}

/* --all: what the device's counter sets declare but this machine cannot count. */
static void list_unavailable(const char *sep)
{
	gpa_uint32 n = 0;
	OpenGPA_GetUnavailableCount(&n);
	if (!sep && n)
		printf("\n%u counters not countable here:\n", n);
	for (gpa_uint32 i = 0; i < n; i++) {
		const char *name = "", *reason = "";
		OpenGPA_GetUnavailableCounter(i, &name, &reason);
		if (sep)
			print_fields((const char *[]){ name, "unavailable", reason }, 3, sep);
		else
			printf("%-32s %s\n", name, reason);
	}
}

int cmd_list(int argc, char **argv)
{
	struct list_options o;
	char err[512];
	if (list_parse(argc, argv, &o, err, sizeof err) != 0)
		return cli_usage_error("list", err);
	if (o.help) {
		fputs(cli_command_list.help, stdout);
		return 0;
	}
	if (cli_open(o.backend, o.options, o.hardware))
		return 1;

	gpa_uint32 n = 0;
	const char *device = "", *backend_name = "";
	GPA_GetNumCounters(&n);
	GPA_GetDeviceDesc(&device);
	OpenGPA_GetBackend(&backend_name);
	if (!o.sep)
		printf("%u counters on %s (%s backend)\n\n%-32s %-20s %-12s %-8s %s\n", n, device,
		       backend_name, "NAME", "GROUP", "USAGE", "TYPE", "DESCRIPTION");
	for (gpa_uint32 i = 0; i < n; i++) {
		const char *name = "", *group = "", *text = "", *usage_s = "", *type_s = "", *alias = "";
		GPA_Usage_Type usage;
		GPA_Type type;
		GPA_GetCounterName(i, &name);
		OpenGPA_GetCounterGroup(i, &group);
		OpenGPA_GetCounterText(i, &text);
		OpenGPA_GetCounterAlias(i, &alias);
		if (GPA_GetCounterUsageType(i, &usage) == GPA_STATUS_OK)
			GPA_GetUsageTypeAsStr(usage, &usage_s);
		if (GPA_GetCounterDataType(i, &type) == GPA_STATUS_OK)
			GPA_GetDataTypeAsStr(type, &type_s);
		if (strncmp(type_s, "gpa_", 4) == 0)
			type_s += 4;
		if (o.sep)
			print_fields((const char *[]){ name, group, usage_s, type_s, text }, 5, o.sep);
		else
			printf("%-32s %-20s %-12s %-8s %s%s%s%s\n", name, group, usage_s, type_s, text,
			       *alias ? " (also: " : "", alias, *alias ? ")" : "");
	}
	if (o.all)
		list_unavailable(o.sep);
	cli_close();
	return 0;
}
