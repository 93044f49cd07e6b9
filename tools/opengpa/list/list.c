/* SPDX-License-Identifier: MIT */
/*
 * list.c — `opengpa list`: every counter of the device with its metadata,
 * as a table, CSV or JSON; or, with --backends, every backend of the build
 * and whether it is usable here.  Per-instance copies of a counter
 * ("ShaderCore5:FragmentActiveCycles") are one note on the counter's row,
 * or rows of their own with --instances.
 */
#include <fnmatch.h>
#include <stdint.h>
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
	const char *instances; /* "ShaderCore0-7, L2Slice0-1": where it has copies */
	char aliases[512];  /* the counter's aliases and perf's spellings of it */
	char note[256];     /* instances' storage */
};

/* The catalogue's per-instance copies: which counters are copies, and
 * each counter's copies chained in the catalogue's order. */
struct copies {
	bool *is_copy;
	uint32_t *first, *last, *next;
	gpa_uint32 count;
};

/* The base counter's name when `name` is an instance copy,
 * "<letters and digits>:<base>" (include/opengpa.h); NULL otherwise. */
static const char *base_of(const char *name)
{
	const char *sep = strstr(name, OPENGPA_INSTANCE_SEPARATOR);
	if (!sep || sep == name || !sep[strlen(OPENGPA_INSTANCE_SEPARATOR)])
		return NULL;
	for (const char *p = name; p < sep; p++)
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9')))
			return NULL;
	return sep + strlen(OPENGPA_INSTANCE_SEPARATOR);
}

static void copies_free(struct copies *k)
{
	free(k->is_copy);
	free(k->first);
	free(k->last);
	free(k->next);
	memset(k, 0, sizeof *k);
}

/* Finds the copies among the n counters of the open context: a counter
 * named "<instance>:<base>" where <base> is a counter too.  0, or 1 out of
 * memory. */
static int copies_find(gpa_uint32 n, struct copies *k)
{
	memset(k, 0, sizeof *k);
	k->is_copy = calloc((size_t)n + 1, sizeof *k->is_copy);
	k->first = malloc(((size_t)n + 1) * sizeof *k->first);
	k->last = malloc(((size_t)n + 1) * sizeof *k->last);
	k->next = malloc(((size_t)n + 1) * sizeof *k->next);
	if (!k->is_copy || !k->first || !k->last || !k->next) {
		copies_free(k);
		return 1;
	}
	for (gpa_uint32 c = 0; c < n; c++)
		k->first[c] = k->last[c] = k->next[c] = UINT32_MAX;
	for (gpa_uint32 c = 0; c < n; c++) {
		const char *name = "", *base;
		gpa_uint32 b = 0;
		if (GPA_GetCounterName(c, &name) != GPA_STATUS_OK || !(base = base_of(name)) ||
		    GPA_GetCounterIndex(base, &b) != GPA_STATUS_OK || b >= n || b == c)
			continue;
		k->is_copy[c] = true;
		k->count++;
		if (k->first[b] == UINT32_MAX)
			k->first[b] = c;
		else
			k->next[k->last[b]] = c;
		k->last[b] = c;
	}
	return 0;
}

/* Appends to note[*len..size) as snprintf does, keeping *len <= size - 1. */
static void note_add(char *note, size_t size, size_t *len, const char *text, size_t tlen)
{
	if (*len + tlen >= size) {
		/* Too long for the row: end it with "..." */
		if (size > 4)
			memcpy(note + size - 4, "...", 4);
		*len = size - 1;
		return;
	}
	memcpy(note + *len, text, tlen);
	*len += tlen;
	note[*len] = '\0';
}

/* The length of a copy's kind of instance, its instance's name less the
 * number ("ShaderCore" of "ShaderCore5:X"); *number is the number, or -1
 * when the instance has none. */
static size_t instance_kind(const char *name, long *number)
{
	size_t ilen = strcspn(name, OPENGPA_INSTANCE_SEPARATOR), klen = ilen;
	while (klen && name[klen - 1] >= '0' && name[klen - 1] <= '9')
		klen--;
	*number = klen < ilen && ilen - klen < 10 ? strtol(name + klen, NULL, 10) : -1;
	return klen;
}

/* Writes the run first..last of a kind's numbers: "3", or "3-4". */
static void note_run(char *note, size_t size, size_t *len, bool comma, long first, long last)
{
	char text[48];
	int t = first == last ? snprintf(text, sizeof text, "%s%ld", comma ? "," : "", first)
	                      : snprintf(text, sizeof text, "%s%ld-%ld", comma ? "," : "", first,
	                                 last);
	note_add(note, size, len, text, t > 0 ? (size_t)t : 0);
}

/* Counter b's copies, compactly: "ShaderCore0-1,3-4,6, L2Slice0-1".  Each
 * kind of instance once, in the order of its first copy; its numbers in
 * the catalogue's order, runs of consecutive ones as ranges.  A counter's
 * copies are few (cores, slices), so a rescan per kind is cheap. */
static void copies_note(const struct copies *k, gpa_uint32 b, char *note, size_t size)
{
	size_t len = 0;
	note[0] = '\0';
	if (!k->first || k->first[b] == UINT32_MAX)
		return;
	for (uint32_t c = k->first[b]; c != UINT32_MAX && len < size - 1; c = k->next[c]) {
		const char *name = "", *other = "";
		long number = -1, n2 = -1;
		GPA_GetCounterName(c, &name);
		size_t kind = instance_kind(name, &number);
		/* A kind met at an earlier copy is written already. */
		bool seen = false;
		for (uint32_t d = k->first[b]; d != c && !seen; d = k->next[d]) {
			GPA_GetCounterName(d, &other);
			seen = instance_kind(other, &n2) == kind && strncmp(other, name, kind) == 0;
		}
		if (seen || number < 0)
			continue;
		if (len)
			note_add(note, size, &len, ", ", 2);
		note_add(note, size, &len, name, kind);
		long first = number, last = number;
		bool comma = false;
		for (uint32_t d = k->next[c]; d != UINT32_MAX; d = k->next[d]) {
			GPA_GetCounterName(d, &other);
			if (instance_kind(other, &n2) != kind || strncmp(other, name, kind) != 0 || n2 < 0)
				continue;
			if (n2 == last + 1) {
				last = n2;
				continue;
			}
			note_run(note, size, &len, comma, first, last);
			comma = true;
			first = last = n2;
		}
		note_run(note, size, &len, comma, first, last);
	}
}

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
	e->name = e->group = e->text = e->alias = e->instances = "";
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
	e->name = e->group = e->text = e->alias = e->instances = e->reason = "";
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
		                         e->reason ? e->reason : "", e->alias, e->instances };
		csv_line(fields, 10, o->sep);
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
		json_field("instances", e->instances, false);
		if (e->reason)
			json_field("reason", e->reason, false);
		printf("}");
	} else if (e->reason) {
		printf("%-32s %s\n", e->name, e->reason);
	} else {
		printf("%-32s %-20s %-12s %-8s %s%s%s%s%s%s%s\n", e->name, e->group, e->usage, e->type,
		       e->text, *e->alias ? " (also: " : "", e->alias, *e->alias ? ")" : "",
		       *e->instances ? " (per instance: " : "", e->instances,
		       *e->instances ? ")" : "");
	}
}

/* Opens the context; with --all or --hardware on the perf backend, again
 * with natives=all: the perf backend lists libpfm4's events of this CPU
 * only when asked (docs/backends/perf.md, "Catalogue"). */
static int list_open(const struct list_options *o, bool copies)
{
	bool raws = o->hardware || o->all;
	/* The copies, to note them (or list them with --instances): a CLI can
	 * afford the ~2 ms a G720 MC8's 1,300 of them cost at open. */
	OpenGPA_SetInstanceCounters(copies);
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
	if (list_open(o, false))
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
	if (list_open(o, true))
		return 1;
	gpa_uint32 n = 0, nun = 0;
	const char *device = "", *backend = "";
	GPA_GetNumCounters(&n);
	struct copies copies;
	if (copies_find(n, &copies)) {
		cli_close();
		return cli_fail("out of memory", GPA_STATUS_ERROR_FAILED);
	}
	GPA_GetDeviceDesc(&device);
	OpenGPA_GetBackend(&backend);
	if (o->all)
		OpenGPA_GetUnavailableCount(&nun);
	if (o->sep) {
		const char *header[] = { "name", "group", "usage", "type", "backend", "availability",
		                         "description", "reason", "aliases", "instances" };
		csv_line(header, 10, o->sep);
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
			printf("%u counters", o->instances ? n : n - copies.count);
		printf(" on %s (%s backend)", device, backend);
		if (copies.count)
			printf(", %s%u per-instance copies%s", o->instances ? "with " : "", copies.count,
			       o->instances ? "" : " (--instances lists them)");
		printf("\n\n%-32s %-20s %-12s %-8s %s\n", "NAME",
		       "GROUP", "USAGE", "TYPE", "DESCRIPTION");
	}
	struct entry e;
	bool first = true;
	for (gpa_uint32 i = 0; i < n; i++) {
		if (copies.is_copy[i] && !o->instances)
			continue;
		available_entry(i, &e);
		add_perf_aliases(&e, backend);
		copies_note(&copies, i, e.note, sizeof e.note);
		e.instances = e.note;
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
	copies_free(&copies);
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
