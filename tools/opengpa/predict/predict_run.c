/* SPDX-License-Identifier: MIT */
/*
 * predict_run.c — `opengpa predict -- COMMAND`: the FPS model's counters
 * counted while the command runs, as `opengpa stat` would count them,
 * into a profile (lib/models/profile.h).
 */
#include <poll.h>
#include <signal.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "frame_marks.h"
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

/* The command's frame marks, counted by a thread of ours while it runs
 * (the pipe holds only so many before the workload's marks are dropped)
 * and once more after it has ended. */
struct mark_count {
	struct frame_marks fm;
	pthread_t thread;
	bool running;
	atomic_bool stop;
	uint64_t n; /* marks read; the thread's alone until joined */
};

/* How long the counting thread sleeps at most between looks. */
#define MARK_POLL_MS 50

static void drain_marks(struct mark_count *mc)
{
	uint64_t marks[64];
	size_t n;
	while ((n = frame_marks_read(&mc->fm, marks, sizeof marks / sizeof marks[0])) > 0)
		mc->n += n;
}

static void *count_marks(void *arg)
{
	struct mark_count *mc = arg;
	while (!atomic_load(&mc->stop)) {
		struct pollfd p = { .fd = mc->fm.rd, .events = POLLIN };
		poll(&p, 1, MARK_POLL_MS);
		drain_marks(mc);
	}
	return NULL;
}

static int marks_start(struct mark_count *mc)
{
	memset(mc, 0, sizeof *mc);
	atomic_init(&mc->stop, false);
	if (frame_marks_open(&mc->fm, "opengpa predict"))
		return 1;
	/* The command's signals (^C) stay with the main thread. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int e = pthread_create(&mc->thread, NULL, count_marks, mc);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e) {
		fprintf(stderr, "opengpa predict: cannot start counting frame marks: %s\n", strerror(e));
		frame_marks_close(&mc->fm);
		return 1;
	}
	mc->running = true;
	return 0;
}

/* Stops counting, counts what came last, closes the pipe: the marks. */
static uint64_t marks_stop(struct mark_count *mc)
{
	if (mc->running) {
		atomic_store(&mc->stop, true);
		pthread_join(mc->thread, NULL);
		mc->running = false;
	}
	drain_marks(mc);
	frame_marks_close(&mc->fm);
	return mc->n;
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
static int check_before_running(const struct og_model_overrides *given, const struct enabled *e,
                                const char *device, bool marks)
{
	/* Frames the command will mark stand in for the count it lacks. */
	struct og_model_overrides o = *given;
	const struct og_model_overrides *over = &o;
	if (marks && !e->have[OG_ROLE_FRAMES])
		o.frames = 1.0;
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

int predict_run(const struct predict_options *o, struct og_model_overrides *over,
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
	/* No frame count or rate given: the command's marks count frames. */
	bool marks = !(over->fps > 0.0) && !(over->frames > 0.0);
	int rc = check_before_running(over, &e, device, marks);
	gpa_uint32 passes = 1;
	if (!rc)
		rc = run_explain_passes("opengpa predict", false, 1, NULL, &passes);
	struct run_state rs = { 0 };
	struct run_request rq = { .command = o->command, .count = true, .total = passes };
	gpa_uint32 session = 0;
	double elapsed = 0.0;
	struct mark_count mc;
	bool counting = false;
	if (!rc && marks) {
		rc = marks_start(&mc);
		counting = !rc;
	}
	if (!rc)
		rc = run_session(&rq, &rs, &session, &elapsed);
	*status = run_exit_status(&rs);
	uint64_t nmarks = counting ? marks_stop(&mc) : 0;
	if (!rc && nmarks && rs.runs) {
		over->frames = (double)nmarks / rs.runs; /* per run, as the seconds are */
		over->frames_marked = true;
	} else if (!rc && marks && !e.have[OG_ROLE_FRAMES]) {
		char qc[200];
		fprintf(stderr, "opengpa predict: %s marked no frame (OpenGPA_MarkFrame) and this "
		        "device counts none, so there is no frame rate: give --frames or --fps, or "
		        "call OpenGPA_MarkFrame() once per frame in the workload\n",
		        cli_escape(o->command[0], qc, sizeof qc));
		rc = 1;
	}
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
