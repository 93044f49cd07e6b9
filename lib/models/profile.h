/* SPDX-License-Identifier: MIT */
/*
 * profile.h — what a measurement gives the FPS model: a profile (the
 * counters of one `opengpa stat --json` report, or of a live run) and the
 * model's measured inputs taken from it: USI from the shader-instruction
 * counter, GPUU from GPU active cycles over the elapsed cycles at the
 * maximum clock, FPS from the frame count.
 *
 * Which counters play which role, per backend, is the table in
 * og_model_role(); docs/models.md explains each choice.
 */
#ifndef OPENGPA_MODELS_PROFILE_H
#define OPENGPA_MODELS_PROFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "fps.h"

struct og_profile_counter {
	char *name;
	char *aliases; /* blank-separated, or NULL */
	bool counted;  /* false: the report had no value (not supported, not counted) */
	double value;
};

struct og_profile {
	char *origin;  /* the file name, or "the run" */
	char *device;  /* the measured device's description: "Mali-G71 MP8" */
	char *backend;
	double seconds; /* wall-clock seconds of one run */
	unsigned runs, passes;
	struct og_profile_counter *counters;
	size_t count, cap;
};

/* Reads an `opengpa stat --json` report.  False with err for anything that
 * is not one (the message says which member is missing or malformed). */
bool og_profile_from_json(struct og_profile *p, const char *origin, const char *text, size_t len,
                          char *err, size_t errlen);
/* The same from a file (at most 64 MiB). */
bool og_profile_load(struct og_profile *p, const char *path, char *err, size_t errlen);

/* Building one from a live run: the header, then one counter at a time. */
bool og_profile_init(struct og_profile *p, const char *origin, const char *device,
                     const char *backend, double seconds);
bool og_profile_add(struct og_profile *p, const char *name, const char *aliases, bool counted,
                    double value);
void og_profile_free(struct og_profile *p);

/* The counter named `name`, by its name or one of its aliases, ignoring
 * case; NULL if the profile has none. */
const struct og_profile_counter *og_profile_find(const struct og_profile *p, const char *name);

/* ---- the model's inputs ------------------------------------------------ */

enum og_model_role {
	OG_ROLE_INSTRUCTIONS, /* shader instructions executed: the paper's VI + FI */
	OG_ROLE_GPU_ACTIVE,   /* cycles the GPU had work */
	OG_ROLE_FRAMES,       /* render passes (fragment jobs), for the frame count */
	OG_ROLE_CORES,        /* the measured device's shader cores */
	OG_ROLE_MAX_CLOCK,    /* its maximum clock, MHz */
	OG_MODEL_ROLES
};

struct og_model_role_info {
	const char *what;          /* "shader instructions" */
	const char *const *names;  /* the counters that play the role, preferred first */
};

const struct og_model_role_info *og_model_role(enum og_model_role role);

/* Values given instead of (or in addition to) the profile's. */
struct og_model_overrides {
	double usi, gpuu, fps;   /* > 0: given; the profile is not asked */
	double frames;           /* > 0: frames the run rendered */
	bool frames_marked;      /* frames: counted from the workload's frame marks, not given */
	double passes_per_frame; /* > 0: render passes per frame (frames = fragment jobs / this) */
	double cores, clock_mhz; /* > 0: the measured device's, given by the user */
};

struct og_model_measurement {
	struct og_fps_measured m;
	/* The working, for the report: the counter used for each role (NULL
	 * when the value was given) and the numbers. */
	const char *counter[OG_MODEL_ROLES];
	double instructions, active_cycles, render_passes, frames, seconds;
	double cores, clock_mhz;
	bool usi_given, gpuu_given, fps_given, frames_given;
	bool frames_marked; /* frames_given: from the workload's OpenGPA_MarkFrame() */
};

/*
 * The model's measured inputs: USI = instructions / seconds; GPUU = 100 ×
 * GPU active cycles / (seconds × maximum clock); FPS = frames / seconds,
 * frames being --frames or render passes / passes per frame.  The
 * overrides win over the profile (p may be NULL when USI, GPUU and FPS
 * are all given).  False with err naming every missing counter, the
 * counters that would do and the option that stands in for it; a GPU
 * utilisation above 100 % (the clock given is below the one the GPU ran
 * at) and zero or negative values are refused the same way.
 */
bool og_model_measure(const struct og_profile *p, const struct og_model_overrides *o,
                      struct og_model_measurement *out, char *err, size_t errlen);

#endif
