/* SPDX-License-Identifier: MIT */
/* predict_run.h — the FPS model's counters counted over a live run. */
#ifndef OPENGPA_TOOLS_PREDICT_RUN_H
#define OPENGPA_TOOLS_PREDICT_RUN_H

#include "predict.h"
#include "profile.h"

/*
 * Opens a context (o->backend, o->options, raw hardware counters offered),
 * enables the counter of each of the model's roles the device has, checks
 * that with the `over`rides nothing the model needs is missing, runs
 * o->command once per pass and fills *p (freed by the caller) with the
 * counts, the device and the seconds per run.  *status is the command's
 * exit status.  Without a frame count or rate in *over, the command's
 * frame marks (OpenGPA_MarkFrame) are counted: when it marked any, their
 * number per run becomes over->frames (over->frames_marked set); when it
 * marked none and the device counts no frames, the run is refused.
 * Returns 0, or 1 after printing why.
 */
int predict_run(const struct predict_options *o, struct og_model_overrides *over,
                struct og_profile *p, int *status);

#endif
