/* SPDX-License-Identifier: MIT */
/*
 * choose.c — which rows `opengpa stat` reports: the counters -e names (those
 * this machine cannot count kept as <not supported>), the -M groups, or the
 * backend's headline set; and perf's running time beside them, for
 * <not counted> (stat.h).  Split from stat.c, which runs the command.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "format.h"
#include "names.h"
#include "report.h"
#include "stat.h"

/* Appends one row; NULL when out of memory. */
static struct report_row *add_row(struct report *r, size_t *cap)
{
	if (r->nrows == *cap) {
		size_t n = *cap ? *cap * 2 : 16;
		struct report_row *rows = realloc(r->rows, n * sizeof(*rows));
		if (!rows)
			return NULL;
		r->rows = rows;
		*cap = n;
	}
	struct report_row *row = &r->rows[r->nrows++];
	memset(row, 0, sizeof *row);
	return row;
}

static void describe_row(struct report_row *row, gpa_uint32 index)
{
	row->index = index;
	GPA_GetCounterName(index, &row->name);
	OpenGPA_GetCounterGroup(index, &row->group);
	GPA_GetCounterUsageType(index, &row->usage_type);
	GPA_GetUsageTypeAsStr(row->usage_type, &row->usage);
	GPA_GetCounterDataType(index, &row->type);
}

/* Whether the device's counter sets declare `name` though this machine
 * cannot count it: its index among the unavailable, its name and why. */
static bool find_unavailable(const char *name, gpa_uint32 *index, const char **canonical,
                             const char **reason)
{
	gpa_uint32 n = 0;
	OpenGPA_GetUnavailableCount(&n);
	for (*index = 0; *index < n; ++*index)
		if (OpenGPA_GetUnavailableCounter(*index, canonical, reason) == GPA_STATUS_OK &&
		    strcasecmp(*canonical, name) == 0)
			return true;
	return false;
}

/* An unavailable counter's declared group and usage, for the report. */
static void describe_unavailable(struct report_row *row, gpa_uint32 index)
{
	const char *text;
	GPA_Type type;
	if (OpenGPA_GetUnavailableCounterInfo(index, &row->group, &text, &row->usage_type,
	                                      &type) == GPA_STATUS_OK)
		GPA_GetUsageTypeAsStr(row->usage_type, &row->usage);
}

/* Whether the open context has a counter (or an unavailable one) so named:
 * a counter's own name wins over perf's spelling. */
bool stat_has_counter(const char *name)
{
	gpa_uint32 index, u;
	const char *canonical, *reason;
	return GPA_GetCounterIndex(name, &index) == GPA_STATUS_OK ||
	       find_unavailable(name, &u, &canonical, &reason);
}

static bool has_row(const struct report *r, const char *name)
{
	for (size_t i = 0; i < r->nrows; i++)
		if (strcasecmp(r->rows[i].name, name) == 0)
			return true;
	return false;
}

/* Enables counter i and adds its row (once).  Returns 0, or 1 after
 * printing why. */
static int choose_index(gpa_uint32 i, struct report *r, size_t *cap)
{
	const char *name = "";
	GPA_GetCounterName(i, &name);
	GPA_Status st = GPA_EnableCounter(i);
	if (st != GPA_STATUS_OK && st != GPA_STATUS_ERROR_ALREADY_ENABLED)
		return cli_fail(name, st);
	if (has_row(r, name))
		return 0;
	struct report_row *row = add_row(r, cap);
	if (!row)
		return cli_fail("out of memory", GPA_STATUS_ERROR_FAILED);
	describe_row(row, i);
	return 0;
}

/* The headline set (`headline: yes` in the counter files), in the
 * catalogue's order.  *any: whether the device has one.  Returns 0, or 1
 * after printing why. */
static int choose_headline(struct report *r, size_t *cap, bool *any)
{
	gpa_uint32 n = 0;
	GPA_GetNumCounters(&n);
	*any = false;
	for (gpa_uint32 i = 0; i < n; i++) {
		gpa_uint32 headline = 0;
		if (OpenGPA_GetCounterHeadline(i, &headline) != GPA_STATUS_OK || !headline)
			continue;
		*any = true;
		if (choose_index(i, r, cap))
			return 1;
	}
	return 0;
}

/* -M GROUP[,GROUP]: every counter of each group, in the catalogue's
 * order, as rows ("headline": the headline set).  Returns 0, or 1 after
 * naming a group no counter has. */
static int choose_groups(const char *list, struct report *r, size_t *cap)
{
	char *copy = strdup(list), *save = NULL;
	if (!copy)
		return cli_fail("out of memory", GPA_STATUS_ERROR_FAILED);
	gpa_uint32 n = 0;
	GPA_GetNumCounters(&n);
	int rc = 0;
	for (char *group = strtok_r(copy, ",", &save); group && !rc;
	     group = strtok_r(NULL, ",", &save)) {
		bool any = false;
		if (strcasecmp(group, "headline") == 0)
			rc = choose_headline(r, cap, &any);
		for (gpa_uint32 i = 0; i < n && !rc; i++) {
			const char *g = "";
			OpenGPA_GetCounterGroup(i, &g);
			if (strcasecmp(g, group) != 0)
				continue;
			any = true;
			rc = choose_index(i, r, cap);
		}
		if (!any && !rc && strcasecmp(group, "all") != 0) {
			char shown[128];
			fprintf(stderr, "opengpa stat: -M %s: no counter of this device is in that group; "
			        "`opengpa list --groups` lists the groups (and -M all counts every counter)\n",
			        cli_escape(group, shown, sizeof shown));
			rc = 1;
		}
	}
	free(copy);
	return rc;
}

/* Enables the counters of -e and -M (the headline set without them, every
 * counter where the device marks none) and makes the report's rows, in the
 * order asked, each counter once. */
int stat_choose_counters(const struct stat_options *o, struct report *r)
{
	size_t cap = 0;
	GPA_Status st;
	bool all = false;
	for (size_t m = 0; m < o->nmetrics; m++)
		if (strcasecmp(o->metrics[m], "all") == 0)
			all = true;
	if (!o->nevents && !o->nmetrics) {
		bool any = false;
		if (choose_headline(r, &cap, &any))
			return 1;
		all = !any;
	}
	if (all) {
		gpa_uint32 n = 0;
		st = GPA_EnableAllCounters();
		if (st == GPA_STATUS_OK)
			st = GPA_GetEnabledCount(&n);
		if (st != GPA_STATUS_OK)
			return cli_fail("cannot enable the counters", st);
		for (gpa_uint32 i = 0; i < n; i++) {
			gpa_uint32 index = 0;
			struct report_row *row = add_row(r, &cap);
			if (!row)
				return cli_fail("out of memory", GPA_STATUS_ERROR_FAILED);
			GPA_GetEnabledIndex(i, &index);
			describe_row(row, index);
		}
		return 0;
	}
	int rc = 0;
	for (size_t m = 0; m < o->nmetrics && !rc; m++)
		rc = choose_groups(o->metrics[m], r, &cap);
	for (size_t e = 0; e < o->nevents && !rc; e++) {
		char *copy = strdup(o->events[e]), *save = NULL;
		if (!copy)
			return cli_fail("out of memory", GPA_STATUS_ERROR_FAILED);
		for (char *name = strtok_r(copy, ",", &save); name && !rc;
		     name = strtok_r(NULL, ",", &save)) {
			const char *canonical, *reason;
			gpa_uint32 index = 0;
			st = GPA_EnableCounterStr(name);
			if (st == GPA_STATUS_ERROR_NOT_FOUND &&
			    find_unavailable(name, &index, &canonical, &reason)) {
				cli_clear_error(); /* perf stat's <not supported>: count the rest */
				struct report_row *row = has_row(r, canonical) ? NULL : add_row(r, &cap);
				if (row) {
					row->name = canonical;
					row->reason = reason;
					describe_unavailable(row, index);
				}
				continue;
			}
			if (st == GPA_STATUS_ERROR_NOT_FOUND) {
				names_explain_unknown(stderr, "stat", name);
				rc = 1;
				break;
			}
			if (st != GPA_STATUS_OK && st != GPA_STATUS_ERROR_ALREADY_ENABLED) {
				rc = cli_fail(name, st);
				break;
			}
			GPA_GetCounterIndex(name, &index);
			const char *exact = "";
			GPA_GetCounterName(index, &exact);
			if (has_row(r, exact))
				continue;
			struct report_row *row = add_row(r, &cap);
			if (!row)
				rc = cli_fail("out of memory", GPA_STATUS_ERROR_FAILED);
			else
				describe_row(row, index);
		}
		free(copy);
	}
	return rc;
}

/*
 * perf stat prints <not counted> for a counter that never ran (a process
 * asleep all along, with -p; an interval in which it slept) and the time it
 * ran as its run-time field.  The perf backend's raw TimeRunning (its event
 * group's running time, offered with -e and --hardware) says both: it is
 * counted beside the rows, not shown, where it costs no further pass.
 */
void stat_choose_running(struct report *r)
{
	const char *backend = "";
	gpa_uint32 index = 0, before = 1, after = 1;
	OpenGPA_GetBackend(&backend);
	if (strcmp(backend, "perf") != 0 ||
	    GPA_GetCounterIndex("TimeRunning", &index) != GPA_STATUS_OK) {
		cli_clear_error();
		return;
	}
	bool was = GPA_IsCounterEnabled(index) == GPA_STATUS_OK;
	GPA_GetPassCount(&before);
	GPA_Status st = GPA_EnableCounter(index);
	if (st == GPA_STATUS_OK || st == GPA_STATUS_ERROR_ALREADY_ENABLED) {
		GPA_GetPassCount(&after);
		if (after > before && !was) {
			GPA_DisableCounter(index);
		} else {
			r->has_running = true;
			r->running_index = index;
		}
	}
	cli_clear_error();
}
