/* SPDX-License-Identifier: MIT */
/*
 * predict_run.c — `opengpa predict -- COMMAND`: the FPS model's counters
 * counted while the command runs, as `opengpa stat` would count them,
 * into a profile (lib/models/profile.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "options.h"
#include "predict.h"
#include "predict_run.h"
#include "run.h"

struct enabled {
	gpa_uint32 index[OG_MODEL_ROLES];
	bool have[OG_MODEL_ROLES];
};

/* Enables, for each role, the first counter of its list the device offers
 * (by name or alias, raw hardware counters included). */
static void enable_roles(struct enabled *e)
{
	memset(e, 0, sizeof *e);
	for (int r = 0; r < OG_MODEL_ROLES; r++)
		for (const char *const *n = og_model_role(r)->names; *n && !e->have[r]; n++) {
			GPA_Status st = GPA_EnableCounterStr(*n);
			if (st == GPA_STATUS_OK || st == GPA_STATUS_ERROR_ALREADY_ENABLED) {
				e->have[r] = GPA_GetCounterIndex(*n, &e->index[r]) == GPA_STATUS_OK;
			}
		}
	cli_clear_error(); /* the names this device does not have are not errors */
}

static bool counter_value(gpa_uint32 session, gpa_uint32 index, double *out)
{
	GPA_Type type = GPA_TYPE_FLOAT64;
	if (GPA_GetCounterDataType(index, &type) != GPA_STATUS_OK)
		return false;
	switch (type) {
	case GPA_TYPE_UINT64: {
		gpa_uint64 v = 0;
		if (GPA_GetSampleUInt64(session, 0, index, &v) != GPA_STATUS_OK)
			return false;
		*out = (double)v;
		return true;
	}
	case GPA_TYPE_UINT32: {
		gpa_uint32 v = 0;
		if (GPA_GetSampleUInt32(session, 0, index, &v) != GPA_STATUS_OK)
			return false;
		*out = v;
		return true;
	}
	case GPA_TYPE_FLOAT32: {
		gpa_float32 v = 0;
		if (GPA_GetSampleFloat32(session, 0, index, &v) != GPA_STATUS_OK)
			return false;
		*out = v;
		return true;
	}
	default: {
		gpa_float64 v = 0;
		if (GPA_GetSampleFloat64(session, 0, index, &v) != GPA_STATUS_OK)
			return false;
		*out = v;
		return true;
	}
	}
}

/* Adds the enabled counters to p, with `value` for each (or, with
 * session 0, a stand-in of 1: see check_before_running). */
static bool add_counters(struct og_profile *p, const struct enabled *e, gpa_uint32 session)
{
	for (int r = 0; r < OG_MODEL_ROLES; r++) {
		if (!e->have[r])
			continue;
		const char *name = "", *aliases = "";
		GPA_GetCounterName(e->index[r], &name);
		OpenGPA_GetCounterAlias(e->index[r], &aliases);
		double v = 1.0;
		bool counted = session == 0 || counter_value(session, e->index[r], &v);
		if (!og_profile_add(p, name, aliases, counted, v))
			return false;
	}
	return true;
}

/* Whether the device offers what the model needs, before the command runs:
 * the measurement over the counters it offers, each counted as 1 in one
 * second, fails only for what is missing, and says what would do. */
static int check_before_running(const struct og_model_overrides *over, const struct enabled *e,
                                const char *device)
{
	struct og_profile dry;
	char err[1024];
	int rc = 0;
	if (!og_profile_init(&dry, device, device, NULL, 1.0) || !add_counters(&dry, e, 0)) {
		fprintf(stderr, "opengpa predict: out of memory\n");
		rc = 1;
	} else {
		struct og_model_measurement m;
		if (!og_model_measure(&dry, over, &m, err, sizeof err)) {
			fprintf(stderr, "opengpa predict: %s\n", err);
			rc = 1;
		}
	}
	og_profile_free(&dry);
	return rc;
}

int predict_run(const struct predict_options *o, const struct og_model_overrides *over,
                struct og_profile *p, int *status)
{
	*status = 0;
	if (cli_open(o->backend, o->options, true))
		return 1;
	const char *device = "", *backend = "";
	GPA_GetDeviceDesc(&device);
	OpenGPA_GetBackend(&backend);
	struct enabled e;
	enable_roles(&e);
	int rc = check_before_running(over, &e, device);
	gpa_uint32 passes = 1;
	if (!rc)
		rc = run_explain_passes("opengpa predict", false, 1, NULL, &passes);
	struct run_state rs = { 0 };
	struct run_request rq = { .command = o->command, .count = true, .total = passes };
	gpa_uint32 session = 0;
	double elapsed = 0.0;
	if (!rc)
		rc = run_session(&rq, &rs, &session, &elapsed);
	*status = run_exit_status(&rs);
	if (!rc) {
		char origin[256];
		char qc[200];
		snprintf(origin, sizeof origin, "the run of %s", cli_escape(o->command[0], qc, sizeof qc));
		if (!og_profile_init(p, origin, device, backend, elapsed) || !add_counters(p, &e, session))
			rc = cli_fail("out of memory", GPA_STATUS_ERROR_FAILED);
	}
	cli_close();
	return rc;
}
