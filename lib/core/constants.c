/* SPDX-License-Identifier: MIT */
/*
 * constants.c — the user's say over device constants: overrides of any
 * `constant` of the counter files (OpenGPA_SetConstant, OPENGPA_CONSTANTS)
 * and the cycle-budget target (OpenGPA_SetCycleBudgetTarget,
 * OPENGPA_CYCLE_BUDGET), which is three such constants.  Settings apply to
 * contexts opened after them, like every other setting; the environment
 * is read when a context opens, and a malformed variable fails the open
 * rather than letting counters use the device's values unannounced.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/core.h"
#include "catalog/cycle_budget.h"

/* The constants of counters/cycle-budget.counters the target sets. */
static const char *const budget_names[3] = { "CycleBudgetWidth", "CycleBudgetHeight",
	                                         "CycleBudgetFPS" };

GPA_Status og_constant_set(const char *name, double value)
{
	struct og_settings *set = og_settings();
	if (!name || !og_constant_valid_name(name, strlen(name), OG_CONSTANT_NAME_MAX))
		return og_error(GPA_STATUS_ERROR_FAILED, "constant name '%.64s': letters, digits and '_', "
		                "as counter files name constants", name ? name : "(null)");
	if (!isfinite(value))
		return og_error(GPA_STATUS_ERROR_FAILED, "constant %s: the value must be a finite number",
		                name);
	for (size_t i = 0; i < set->nconstants; i++)
		if (strcasecmp(set->constants[i].name, name) == 0) {
			set->constants[i].value = value;
			return GPA_STATUS_OK;
		}
	if (set->nconstants == OG_CONSTANT_OVERRIDES_MAX)
		return og_error(GPA_STATUS_ERROR_FAILED, "more than %d constants set",
		                OG_CONSTANT_OVERRIDES_MAX);
	struct og_constant_override *c = &set->constants[set->nconstants];
	memcpy(c->name, name, strlen(name) + 1);
	c->value = value;
	set->nconstants++;
	return GPA_STATUS_OK;
}

GPA_Status og_cycle_budget_set(double width, double height, double fps)
{
	if (width == 0.0 && height == 0.0 && fps == 0.0) {
		/* No target: the three constants are no longer set. */
		struct og_settings *set = og_settings();
		size_t j = 0;
		for (size_t i = 0; i < set->nconstants; i++) {
			bool budget = false;
			for (int k = 0; k < 3; k++)
				budget |= strcasecmp(set->constants[i].name, budget_names[k]) == 0;
			if (!budget)
				set->constants[j++] = set->constants[i];
		}
		set->nconstants = j;
		return GPA_STATUS_OK;
	}
	if (!(width >= 1.0 && width <= OG_CYCLE_BUDGET_MAX_PIXELS && height >= 1.0 && height <= OG_CYCLE_BUDGET_MAX_PIXELS))
		return og_error(GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE, "cycle budget target %gx%g: width and "
		                "height are 1 to 65536 pixels (0, 0, 0 clears the target)", width, height);
	if (!(fps > 0.0 && fps <= OG_CYCLE_BUDGET_MAX_FPS))
		return og_error(GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE, "cycle budget target at %g FPS: the "
		                "frame rate must be above 0 and at most 10000", fps);
	const double v[3] = { width, height, fps };
	GPA_Status st = GPA_STATUS_OK;
	for (int k = 0; k < 3 && st == GPA_STATUS_OK; k++)
		st = og_constant_set(budget_names[k], v[k]);
	return st;
}

/* Walks OPENGPA_CONSTANTS ("NAME=NUMBER,..."): with `name`, finds its value;
 * without, only checks the whole variable.  False at the first malformed
 * item, with it in *bad and *badlen. */
static bool env_constants(const char *env, const char *name, double *value, bool *found,
                          const char **bad, int *badlen)
{
	for (const char *p = env ? env : ""; *p;) {
		size_t len = strcspn(p, ",");
		const char *eq = memchr(p, '=', len);
		double v;
		if (!eq || !og_constant_valid_name(p, (size_t)(eq - p), OG_CONSTANT_NAME_MAX) ||
		    !og_constant_parse_value(eq + 1, len - (size_t)(eq - p) - 1, &v)) {
			*bad = p;
			*badlen = len > 64 ? 64 : (int)len;
			return false;
		}
		if (name && strlen(name) == (size_t)(eq - p) &&
		    strncasecmp(p, name, (size_t)(eq - p)) == 0) {
			*value = v;
			*found = true;
		}
		p += len + (p[len] == ',');
	}
	return true;
}

GPA_Status og_constants_read_env(struct og_env_constants *env)
{
	*env = (struct og_env_constants){ 0 };
	const char *budget = secure_getenv("OPENGPA_CYCLE_BUDGET");
	char why[160];
	if (budget && *budget) {
		if (!og_cycle_budget_parse(budget, env->budget_values, why, sizeof why))
			return og_error(GPA_STATUS_ERROR_FAILED,
			                "OPENGPA_CYCLE_BUDGET: %s; fix or unset it", why);
		env->budget = true;
	}
	env->constants = secure_getenv("OPENGPA_CONSTANTS");
	const char *bad = NULL;
	int badlen = 0;
	bool found = false;
	double v;
	if (!env_constants(env->constants, NULL, &v, &found, &bad, &badlen))
		return og_error(GPA_STATUS_ERROR_FAILED, "OPENGPA_CONSTANTS: '%.*s' is not NAME=NUMBER "
		                "(for example DeviceMaxClockHz=850e6); fix or unset it", badlen, bad);
	return GPA_STATUS_OK;
}

bool og_constant_lookup(const struct og_env_constants *env, const char *name, double *value)
{
	const struct og_settings *set = og_settings();
	for (size_t i = 0; i < set->nconstants; i++)
		if (strcasecmp(set->constants[i].name, name) == 0) {
			*value = set->constants[i].value;
			return true;
		}
	/* The environment, as the open read it: OPENGPA_CYCLE_BUDGET for the
	 * target, then OPENGPA_CONSTANTS, which wins where both name one. */
	bool found = false;
	for (int k = 0; env->budget && k < 3; k++)
		if (strcasecmp(name, budget_names[k]) == 0) {
			*value = env->budget_values[k];
			found = true;
		}
	const char *bad;
	int badlen;
	env_constants(env->constants, name, value, &found, &bad, &badlen);
	return found;
}
