/* SPDX-License-Identifier: MIT */
/*
 * percore.c — `opengpa stat --per-core`: after each chosen counter, the
 * rows of its per-instance copies, which the library publishes as
 * counters named "<instance>:<counter>" ("ShaderCore5:FragmentActiveCycles",
 * "L2Slice1:ReadLookupRequests"; docs/api.md, "Per-instance counters"), in
 * the catalogue's order (instance by instance).  They are ordinary rows
 * from here on, so every writer prints them.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "report.h"
#include "stat.h"

/* The base counter's name when `name` is an instance copy,
 * "<letters and digits>:<base>"; NULL otherwise. */
static const char *base_of(const char *name)
{
	const char *colon = strchr(name, ':');
	if (!colon || colon == name || !colon[1])
		return NULL;
	for (const char *p = name; p < colon; p++)
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9')))
			return NULL;
	return colon + 1;
}

int stat_add_instance_rows(struct report *r)
{
	gpa_uint32 n = 0;
	GPA_GetNumCounters(&n);
	/* Each counter's copies, chained in the catalogue's order (first[base],
	 * next[copy]), and which counters have a row already: linear in the
	 * counters, with -M all too. */
	uint32_t *first = malloc((n + 1) * sizeof(*first));
	uint32_t *last = malloc((n + 1) * sizeof(*last));
	uint32_t *next = malloc((n + 1) * sizeof(*next));
	bool *shown = calloc(n + 1, sizeof(*shown));
	struct report_row *rows = calloc(r->nrows + n + 1, sizeof(*rows));
	if (!first || !last || !next || !shown || !rows) {
		free(first);
		free(last);
		free(next);
		free(shown);
		free(rows);
		return cli_fail("out of memory", GPA_STATUS_ERROR_FAILED);
	}
	for (gpa_uint32 c = 0; c < n; c++)
		first[c] = last[c] = next[c] = UINT32_MAX;
	for (gpa_uint32 c = 0; c < n; c++) {
		const char *name = "", *base;
		gpa_uint32 b;
		if (GPA_GetCounterName(c, &name) != GPA_STATUS_OK || !(base = base_of(name)) ||
		    GPA_GetCounterIndex(base, &b) != GPA_STATUS_OK || b >= n || b == c)
			continue;
		if (first[b] == UINT32_MAX)
			first[b] = c;
		else
			next[last[b]] = c;
		last[b] = c;
	}
	for (size_t i = 0; i < r->nrows; i++)
		if (!r->rows[i].reason && r->rows[i].index < n)
			shown[r->rows[i].index] = true;
	size_t k = 0, added = 0;
	int rc = 0;
	for (size_t i = 0; i < r->nrows && !rc; i++) {
		rows[k++] = r->rows[i];
		const struct report_row *row = &r->rows[i];
		if (row->reason || row->index >= n)
			continue;
		for (uint32_t c = first[row->index]; c != UINT32_MAX && !rc; c = next[c]) {
			if (shown[c])
				continue;
			const char *name = "";
			GPA_GetCounterName(c, &name);
			GPA_Status st = GPA_EnableCounter(c);
			if (st != GPA_STATUS_OK && st != GPA_STATUS_ERROR_ALREADY_ENABLED) {
				rc = cli_fail(name, st);
				break;
			}
			struct report_row *x = &rows[k++];
			memset(x, 0, sizeof(*x));
			x->index = c;
			x->name = name;
			OpenGPA_GetCounterGroup(c, &x->group);
			GPA_GetCounterUsageType(c, &x->usage_type);
			GPA_GetUsageTypeAsStr(x->usage_type, &x->usage);
			GPA_GetCounterDataType(c, &x->type);
			shown[c] = true;
			added++;
		}
	}
	free(first);
	free(last);
	free(next);
	free(shown);
	if (rc) {
		free(rows);
		return rc;
	}
	free(r->rows);
	r->rows = rows;
	r->nrows = k;
	if (!added)
		fprintf(stderr, "opengpa stat: --per-core: none of these counters is counted per core "
		        "or slice on this device (`opengpa list` names the instance counters "
		        "<instance>:<name>)\n");
	return 0;
}
