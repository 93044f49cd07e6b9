/* SPDX-License-Identifier: MIT */
/*
 * percore.c — `opengpa stat --per-core`: after each chosen counter, the
 * rows of its per-instance copies, which the library publishes as
 * counters named "<instance>:<counter>" ("ShaderCore5:FragmentActiveCycles",
 * "L2Slice1:ReadLookupRequests"; docs/api.md, "Per-instance counters"), in
 * the catalogue's order (instance by instance).  They are ordinary rows
 * from here on, so every writer prints them.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "report.h"
#include "stat.h"

/* Counter i's name when it is an instance copy of `base`: "<word>:<base>",
 * the word letters and digits. */
static bool copy_of(const char *name, const char *base)
{
	const char *colon = strchr(name, ':');
	if (!colon || colon == name || strcmp(colon + 1, base) != 0)
		return false;
	for (const char *p = name; p < colon; p++)
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9')))
			return false;
	return true;
}

static bool in_rows(const struct report_row *rows, size_t n, gpa_uint32 index)
{
	for (size_t i = 0; i < n; i++)
		if (!rows[i].reason && rows[i].index == index)
			return true;
	return false;
}

int stat_add_instance_rows(struct report *r)
{
	gpa_uint32 n = 0;
	GPA_GetNumCounters(&n);
	/* Each chosen row, then its copies: at most every counter once. */
	size_t cap = r->nrows + n;
	struct report_row *rows = calloc(cap ? cap : 1, sizeof(*rows));
	if (!rows)
		return cli_fail("out of memory", GPA_STATUS_ERROR_FAILED);
	size_t k = 0, added = 0;
	for (size_t i = 0; i < r->nrows; i++) {
		rows[k++] = r->rows[i];
		const struct report_row *row = &r->rows[i];
		if (row->reason)
			continue;
		for (gpa_uint32 c = 0; c < n; c++) {
			const char *name = "";
			if (GPA_GetCounterName(c, &name) != GPA_STATUS_OK || !copy_of(name, row->name) ||
			    in_rows(rows, k, c) || in_rows(r->rows, r->nrows, c))
				continue;
			GPA_Status st = GPA_EnableCounter(c);
			if (st != GPA_STATUS_OK && st != GPA_STATUS_ERROR_ALREADY_ENABLED) {
				free(rows);
				return cli_fail(name, st);
			}
			struct report_row *x = &rows[k++];
			memset(x, 0, sizeof(*x));
			x->index = c;
			x->name = name;
			OpenGPA_GetCounterGroup(c, &x->group);
			GPA_GetCounterUsageType(c, &x->usage_type);
			GPA_GetUsageTypeAsStr(x->usage_type, &x->usage);
			GPA_GetCounterDataType(c, &x->type);
			added++;
		}
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
