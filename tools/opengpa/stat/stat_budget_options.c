/* SPDX-License-Identifier: MIT */
/*
 * stat_budget_options.c — `opengpa stat --target WxH@FPS` and `--constant
 * NAME=VALUE`, as read from the command line (pure, in the parser library;
 * stat_budget.c hands them to the library).
 */
#include <math.h>
#include <string.h>

#include "catalog/cycle_budget.h"
#include "stat.h"

/* --constant's values are within +-1e15 (docs/man/opengpa-stat.1.txt): any
 * clock, size or count a counter needs, and no 1e300 that would make every
 * counter overflow. */
#define STAT_MAX_CONSTANT 1e15

enum cli_error stat_parse_target(struct stat_options *o, const char *value, char *err,
                                 size_t errlen)
{
	char why[160];
	if (!og_cycle_budget_parse(value, o->target_of, why, sizeof why))
		return cli_refuse(err, errlen, "%s", why);
	o->target = true;
	return CLI_OK;
}

enum cli_error stat_parse_constant(struct stat_options *o, const char *value, char *err,
                                   size_t errlen)
{
	const char *eq = strchr(value, '=');
	size_t len = eq ? (size_t)(eq - value) : 0;
	double v;
	if (!eq || !og_constant_valid_name(value, len, sizeof o->constants[0].name) ||
	    !og_constant_parse_value(eq + 1, strlen(eq + 1), &v))
		return cli_refuse(err, errlen, "not NAME=NUMBER (a constant's name as `opengpa list` "
		                  "shows it in expressions, for example DeviceMaxClockHz=850e6)");
	if (!(fabs(v) <= STAT_MAX_CONSTANT))
		return cli_refuse(err, errlen, "a constant's value must be from -%g to %g", STAT_MAX_CONSTANT,
		                  STAT_MAX_CONSTANT);
	for (size_t i = 0; i < o->nconstants; i++)
		if (strlen(o->constants[i].name) == len && strncmp(o->constants[i].name, value, len) == 0) {
			o->constants[i].value = v;
			return CLI_OK;
		}
	if (o->nconstants == STAT_MAX_CONSTANTS)
		return cli_refuse(err, errlen, "more than %d constants", STAT_MAX_CONSTANTS);
	memcpy(o->constants[o->nconstants].name, value, len);
	o->constants[o->nconstants].name[len] = '\0';
	o->constants[o->nconstants++].value = v;
	return CLI_OK;
}
