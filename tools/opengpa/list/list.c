/* SPDX-License-Identifier: MIT */
/*
 * list.c — `opengpa list`: every counter of the device with its metadata,
 * as a table, CSV or JSON; or, with --backends, every backend of the build
 * and whether it is usable here.
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "cli_options.h"
#include "format.h"
#include "list.h"
#include "names.h"
#include "options.h"

/* One counter, available or not, as every format prints it. */
struct entry {
	const char *name, *group, *usage, *type, *text, *alias;
	const char *reason; /* NULL when available */
	char aliases[512];  /* the counter's aliases and perf's spellings of it */
};

/* perf's spellings of a counter join its aliases (perf backend). */
static void add_perf_aliases(struct entry *e, const char *backend)
{
	if (strcmp(backend, "perf") != 0)
		return;
	snprintf(e->aliases, sizeof e->aliases, "%s", e->alias);
	size_t n = 0;
	const struct perf_spelling *t = names_perf_table(&n);
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(e->aliases);
		if (strcasecmp(t[i].counter, e->name) == 0 &&
		    len + strlen(t[i].perf) + 2 < sizeof e->aliases)
			snprintf(e->aliases + len, sizeof e->aliases - len, "%s%s", len ? " " : "",
			         t[i].perf);
	}
	e->alias = e->aliases;
}

/* PATTERN: a glob (any of *?[) over the name, each alias and the group, or
 * else a substring of those or of the description; case is ignored. */
static bool matches(const struct entry *e, const char *pattern)
{
	if (!pattern)
		return true;
	bool glob = strpbrk(pattern, "*?[") != NULL;
	const char *words[] = { e->name, e->group, glob ? "" : e->text };
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		if (glob ? fnmatch(pattern, words[i], FNM_CASEFOLD) == 0
		         : strcasestr(words[i], pattern) != NULL)
			return true;
	for (const char *a = e->alias; *a;) {
		size_t n = strcspn(a, " ");
		char word[128];
		if (n && n < sizeof word) {
			memcpy(word, a, n);
			word[n] = '\0';
			if (glob ? fnmatch(pattern, word, FNM_CASEFOLD) == 0
			         : strcasestr(word, pattern) != NULL)
				return true;
		}
		a += n + (a[n] == ' ');
	}
	return false;
}

/* The words GPA gives a usage and a type, without GPA's "gpa_" prefix. */
static void usage_and_type(GPA_Usage_Type usage, GPA_Type type, struct entry *e)
{
	e->usage = e->type = "";
	GPA_GetUsageTypeAsStr(usage, &e->usage);
	GPA_GetDataTypeAsStr(type, &e->type);
	if (strncmp(e->type, "gpa_", 4) == 0)
		e->type += 4;
}

static void available_entry(gpa_uint32 i, struct entry *e)
{
	GPA_Usage_Type usage = GPA_USAGE_TYPE_ITEMS;
	GPA_Type type = GPA_TYPE_UINT64;
	memset(e, 0, sizeof *e);
	e->name = e->group = e->text = e->alias = "";
	GPA_GetCounterName(i, &e->name);
	OpenGPA_GetCounterGroup(i, &e->group);
	OpenGPA_GetCounterText(i, &e->text);
	OpenGPA_GetCounterAlias(i, &e->alias);
	GPA_GetCounterUsageType(i, &usage);
	GPA_GetCounterDataType(i, &type);
	usage_and_type(usage, type, e);
}

static void unavailable_entry(gpa_uint32 i, struct entry *e)
{
	GPA_Usage_Type usage = GPA_USAGE_TYPE_ITEMS;
	GPA_Type type = GPA_TYPE_UINT64;
	memset(e, 0, sizeof *e);
	e->name = e->group = e->text = e->alias = e->reason = "";
	OpenGPA_GetUnavailableCounter(i, &e->name, &e->reason);
	OpenGPA_GetUnavailableCounterInfo(i, &e->group, &e->text, &usage, &type);
	usage_and_type(usage, type, e);
}

static void csv_line(const char *const *fields, size_t n, const char *sep)
{
	for (size_t k = 0; k < n; k++) {
		if (k)
			fputs(sep, stdout);
		fmt_csv_field(stdout, fields[k], sep);
	}
	fputc('\n', stdout);
}

static void json_field(const char *key, const char *value, bool first)
{
	printf("%s\"%s\": ", first ? "" : ", ", key);
	fmt_json_string(stdout, value);
}

static void print_entry(const struct list_options *o, const char *backend, const struct entry *e,
                        bool first)
{
	if (o->sep) {
		const char *fields[] = { e->name, e->group, e->usage, e->type, backend,
		                         e->reason ? "unavailable" : "available", e->text,
		                         e->reason ? e->reason : "", e->alias };
		csv_line(fields, 9, o->sep);
	} else if (o->json) {
		printf("%s\n  {", first ? "" : ",");
		json_field("name", e->name, true);
		json_field("group", e->group, false);
		json_field("usage", e->usage, false);
		json_field("type", e->type, false);
		json_field("backend", backend, false);
		printf(", \"available\": %s", e->reason ? "false" : "true");
		json_field("description", e->text, false);
		json_field("aliases", e->alias, false);
		if (e->reason)
			json_field("reason", e->reason, false);
		printf("}");
	} else if (e->reason) {
		printf("%-32s %s\n", e->name, e->reason);
	} else {
		printf("%-32s %-20s %-12s %-8s %s%s%s%s\n", e->name, e->group, e->usage, e->type, e->text,
		       *e->alias ? " (also: " : "", e->alias, *e->alias ? ")" : "");
	}
}

/* Opens the context; with --all or --hardware on the perf backend, again
 * with natives=all: the perf backend lists libpfm4's events of this CPU
 * only when asked (docs/backends/perf.md, "Catalogue"). */
static int list_open(const struct list_options *o)
{
	bool raws = o->hardware || o->all;
	if (cli_open(o->backend, o->options, raws))
		return 1;
	const char *name = "";
	OpenGPA_GetBackend(&name);
	if (!raws || strcmp(name, "perf") != 0)
		return 0;
	char options[512];
	int n = snprintf(options, sizeof options, "%s%snatives=all", o->options ? o->options : "",
	                 o->options && o->options[0] ? "," : "");
	if (n < 0 || (size_t)n >= sizeof options)
		return 0; /* options this long: list what the first open has */
	cli_close();
	return cli_open("perf", options, raws);
}

/* --groups: each group once, in the catalogue's order, with its count:
 * the names `opengpa stat -M` takes. */
static int list_groups(const struct list_options *o)
{
	if (list_open(o))
		return 1;
	gpa_uint32 n = 0;
	GPA_GetNumCounters(&n);
	const char **groups = calloc(n + 1, sizeof *groups);
	unsigned *counts = calloc(n + 1, sizeof *counts);
	size_t ng = 0;
	if (!groups || !counts) {
		free(groups);
		free(counts);
		cli_close();
		return cli_fail("out of memory", GPA_STATUS_ERROR_FAILED);
	}
	for (gpa_uint32 i = 0; i < n; i++) {
		const char *g = "";
		OpenGPA_GetCounterGroup(i, &g);
		size_t k = 0;
		while (k < ng && strcasecmp(groups[k], g) != 0)
			k++;
		if (k == ng)
			groups[ng++] = g;
		counts[k]++;
	}
	if (o->sep) {
		const char *header[] = { "group", "counters" };
		csv_line(header, 2, o->sep);
	} else if (o->json) {
		printf("{\"groups\": [");
	}
	for (size_t k = 0; k < ng; k++) {
		char count[16];
		snprintf(count, sizeof count, "%u", counts[k]);
		if (o->sep) {
			const char *fields[] = { groups[k], count };
			csv_line(fields, 2, o->sep);
		} else if (o->json) {
			printf("%s{\"group\": ", k ? ", " : "");
			fmt_json_string(stdout, groups[k]);
			printf(", \"counters\": %u}", counts[k]);
		} else {
			printf("%-32s %u\n", groups[k], counts[k]);
		}
	}
	if (o->json)
		printf("]}\n");
	free(groups);
	free(counts);
	cli_close();
	return 0;
}

static int list_counters(const struct list_options *o)
{
	/* --all: everything, the raw counters (the CPU's own events) too. */
	if (list_open(o))
		return 1;
	gpa_uint32 n = 0, nun = 0;
	const char *device = "", *backend = "";
	GPA_GetNumCounters(&n);
	GPA_GetDeviceDesc(&device);
	OpenGPA_GetBackend(&backend);
	if (o->all)
		OpenGPA_GetUnavailableCount(&nun);
	if (o->sep) {
		const char *header[] = { "name", "group", "usage", "type", "backend", "availability",
		                         "description", "reason", "aliases" };
		csv_line(header, 9, o->sep);
	} else if (o->json) {
		printf("{");
		json_field("backend", backend, true);
		json_field("device", device, false);
		printf(", \"counters\": [");
	} else {
		char shown[128];
		if (o->pattern)
			printf("Counters matching '%s'", cli_escape(o->pattern, shown, sizeof shown));
		else if (o->headline)
			printf("Headline counters (opengpa stat's default)");
		else
			printf("%u counters", n);
		printf(" on %s (%s backend)\n\n%-32s %-20s %-12s %-8s %s\n", device, backend, "NAME",
		       "GROUP", "USAGE", "TYPE", "DESCRIPTION");
	}
	struct entry e;
	bool first = true;
	for (gpa_uint32 i = 0; i < n; i++) {
		available_entry(i, &e);
		add_perf_aliases(&e, backend);
		gpa_uint32 headline = 0;
		if (o->headline && (OpenGPA_GetCounterHeadline(i, &headline) != GPA_STATUS_OK ||
		                    !headline))
			continue;
		if (!matches(&e, o->pattern))
			continue;
		print_entry(o, backend, &e, first);
		first = false;
	}
	if (nun && !o->sep && !o->json && !o->pattern && !o->headline)
		printf("\n%u counters not countable here:\n", nun);
	for (gpa_uint32 i = 0; i < nun && !o->headline; i++) {
		unavailable_entry(i, &e);
		if (!matches(&e, o->pattern))
			continue;
		print_entry(o, backend, &e, first);
		first = false;
	}
	if (o->json)
		printf("\n]}\n");
	cli_close();
	return 0;
}

/* --backends: each backend of the build, opened in turn. */
static int list_backends(const struct list_options *o)
{
	gpa_uint32 n = 0;
	OpenGPA_GetBackendCount(&n);
	/* The one `auto` picks, if any, marked as such. */
	char chosen[64] = "";
	if (cli_try_open("auto", NULL, false) == GPA_STATUS_OK) {
		const char *name = "";
		OpenGPA_GetBackend(&name);
		snprintf(chosen, sizeof chosen, "%s", name);
		cli_close();
	}
	cli_clear_error();
	if (o->sep) {
		const char *header[] = { "name", "usable", "summary", "detail" };
		csv_line(header, 4, o->sep);
	} else if (o->json) {
		printf("{\"backends\": [");
	} else {
		printf("%u backends in this build, in the order `auto` tries them:\n", n);
	}
	for (gpa_uint32 i = 0; i < n; i++) {
		const char *name = "", *summary = "";
		OpenGPA_GetBackendInfo(i, &name, &summary);
		GPA_Status st = cli_try_open(name, NULL, false);
		gpa_uint32 counters = 0;
		const char *device = "";
		char detail[768];
		if (st == GPA_STATUS_OK) {
			GPA_GetNumCounters(&counters);
			GPA_GetDeviceDesc(&device);
			snprintf(detail, sizeof detail, "%s, %u counters%s", device, counters,
			         strcmp(chosen, name) == 0 ? " (auto's choice)" : "");
		} else {
			snprintf(detail, sizeof detail, "%s",
			         cli_last_error()[0] ? cli_last_error() : GPA_GetStatusAsStr(st));
		}
		bool usable = st == GPA_STATUS_OK;
		bool is_auto = strcmp(chosen, name) == 0;
		if (o->sep) {
			const char *fields[] = { name, usable ? "yes" : "no", summary, detail };
			csv_line(fields, 4, o->sep);
		} else if (o->json) {
			printf("%s\n  {", i ? "," : "");
			json_field("name", name, true);
			json_field("summary", summary, false);
			printf(", \"usable\": %s, \"auto\": %s", usable ? "true" : "false",
			       is_auto ? "true" : "false");
			if (usable) {
				json_field("device", device, false);
				printf(", \"counters\": %u", counters);
			} else {
				json_field("reason", detail, false);
			}
			printf("}");
		} else {
			printf("\n%-10s %s\n%-10s %s: %s\n", name, summary, "",
			       usable ? "usable here" : "not usable here", detail);
		}
		if (usable)
			cli_close();
		cli_clear_error();
	}
	if (o->json)
		printf("\n]}\n");
	return 0;
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
	return o.backends ? list_backends(&o) : o.groups ? list_groups(&o) : list_counters(&o);
}
