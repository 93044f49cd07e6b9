/* SPDX-License-Identifier: MIT */
/* list.c — `opengpa list`: every counter of the device, with its metadata. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

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
			printf("%s%sunavailable%s%s\n", name, sep, sep, reason);
		else
			printf("%-32s %s\n", name, reason);
	}
}

int cmd_list(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "backend", required_argument, NULL, 'b' },
		{ "options", required_argument, NULL, 'O' },
		{ "hardware", no_argument, NULL, 'H' },
		{ "all", no_argument, NULL, 'a' },
		{ "field-separator", required_argument, NULL, 'x' },
		{ NULL, 0, NULL, 0 },
	};
	const char *backend = NULL, *options = NULL, *sep = NULL;
	bool hardware = false, all = false;
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+b:O:Hax:", longopts, NULL)) != -1) {
		switch (c) {
		case 'b': backend = optarg; break;
		case 'O': options = optarg; break;
		case 'H': hardware = true; break;
		case 'a': all = true; break;
		case 'x': sep = optarg; break;
		default: return 2;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "opengpa list: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	if (cli_open(backend, options, hardware))
		return 1;

	gpa_uint32 n = 0;
	const char *device = "", *backend_name = "";
	GPA_GetNumCounters(&n);
	GPA_GetDeviceDesc(&device);
	OpenGPA_GetBackend(&backend_name);
	if (!sep)
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
		if (sep)
			printf("%s%s%s%s%s%s%s%s%s\n", name, sep, group, sep, usage_s, sep, type_s, sep, text);
		else
			printf("%-32s %-20s %-12s %-8s %s%s%s%s\n", name, group, usage_s, type_s, text,
			       *alias ? " (also: " : "", alias, *alias ? ")" : "");
	}
	if (all)
		list_unavailable(sep);
	cli_close();
	return 0;
}
