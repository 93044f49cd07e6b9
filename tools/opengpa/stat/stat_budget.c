/* SPDX-License-Identifier: MIT */
/*
 * stat_budget.c — `opengpa stat --target` and `--constant` handed to the
 * library: settings for the context stat opens (OpenGPA_SetConstant,
 * OpenGPA_SetCycleBudgetTarget), and the check that the device has the
 * budget's counters at all.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "stat.h"

int stat_budget_apply(const struct stat_options *o)
{
	for (size_t i = 0; i < o->nconstants; i++)
		if (OpenGPA_SetConstant(o->constants[i].name, o->constants[i].value) != GPA_STATUS_OK)
			return cli_fail("--constant", GPA_STATUS_ERROR_FAILED);
	if (o->target && OpenGPA_SetCycleBudgetTarget((gpa_uint32)o->target_of[0],
	                                              (gpa_uint32)o->target_of[1],
	                                              o->target_of[2]) != GPA_STATUS_OK)
		return cli_fail("--target", GPA_STATUS_ERROR_FAILED);
	return 0;
}

int stat_budget_check(const struct stat_options *o)
{
	if (!o->target)
		return 0;
	gpa_uint32 index, n = 0;
	if (GPA_GetCounterIndex("CycleBudgetUsed", &index) == GPA_STATUS_OK)
		return 0;
	cli_clear_error();
	/* Declared but not countable here: the report says why, per counter. */
	OpenGPA_GetUnavailableCount(&n);
	for (gpa_uint32 i = 0; i < n; i++) {
		const char *name = "", *reason = "";
		if (OpenGPA_GetUnavailableCounter(i, &name, &reason) == GPA_STATUS_OK &&
		    strcmp(name, "CycleBudgetUsed") == 0)
			return 0;
	}
	const char *backend = "";
	OpenGPA_GetBackend(&backend);
	fprintf(stderr, "opengpa stat: --target: the %s backend has no cycle budget; it is a Mali "
	        "GPU's (--backend mali or panfrost)\n", backend);
	return 1;
}
