/* SPDX-License-Identifier: MIT */
/* predict.h — `opengpa predict`: its options as parsed, and the parser. */
#ifndef OPENGPA_TOOLS_PREDICT_H
#define OPENGPA_TOOLS_PREDICT_H

#include <stdbool.h>
#include <stddef.h>

#define PREDICT_MAX_DEVICE_FILES 16

/* The numeric options' ranges (docs/man/opengpa-predict.1.txt). */
#define PREDICT_MIN_USI 1.0      /* --usi, instructions per second */
#define PREDICT_MAX_USI 1e16
#define PREDICT_MIN_GPUU 0.001   /* --gpuu, percent (at most 100) */
#define PREDICT_MIN_FPS 0.001    /* --fps, as stat --target's frame rate */
#define PREDICT_MAX_FPS 10000.0
#define PREDICT_MAX_FRAMES 1e12  /* --frames, from 1 */
#define PREDICT_MIN_PASSES 0.001 /* --passes-per-frame */
#define PREDICT_MAX_PASSES 1e6
#define PREDICT_MIN_GF_FRAME 1e-9 /* --gf-frame, GFLOP */
#define PREDICT_MAX_GF_FRAME 1e9

/* Everything predict_parse() read; strings point into argv. */
struct predict_options {
	const char *to, *on;            /* device specifications: "ID[,KEY=VALUE...]" */
	const char *device_files[PREDICT_MAX_DEVICE_FILES];
	size_t ndevice_files;
	bool list_devices, json, help;
	const char *backend, *options, *output;
	/* Measured inputs given on the command line (0: not given). */
	double usi, gpuu, fps, frames, passes_per_frame, gf_frame;
	const char *profile;            /* PROFILE.json, or NULL */
	char **command;                 /* -- COMMAND ..., or NULL */
};

/*
 * Reads `opengpa predict` options from argv[1..argc) (argv[0] is
 * "predict") into *o, which it clears first, and checks they make sense
 * together: a target unless --list-devices, one source of measurements
 * (a profile, a command, or --usi, --gpuu and --fps), numbers above 0 and
 * a utilisation of at most 100 %.  Pure: no output, no allocation, no
 * global state.  Returns 0, or 2 (a usage error) with the reason in err.
 */
int predict_parse(int argc, char **argv, struct predict_options *o, char *err, size_t errlen);

#endif
