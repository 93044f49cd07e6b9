/* SPDX-License-Identifier: MIT */
/*
 * fuzz_predict_options.c — `opengpa predict`'s command line (predict_parse),
 * words separated by NUL bytes in the input.  Oracles: a refusal is one
 * printable line (command-line text escaped in it); an accepted one has
 * every number given inside its documented range (predict.h), at most
 * PREDICT_MAX_DEVICE_FILES tables, and a profile or a command, not both.
 */
#include <math.h>

#include "fuzz_options.h"
#include "predict.h"

/* 0 (not given) or inside [lo, hi]. */
static int in_range(double v, double lo, double hi)
{
	return v == 0.0 || (isfinite(v) && v >= lo && v <= hi);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 4096)
		return 0;
	char *argv[FUZZ_MAX_WORDS + 2], *storage;
	int argc = fuzz_argv("predict", data, size, argv, &storage);
	struct predict_options o;
	char err[512] = "";
	int r = predict_parse(argc, argv, &o, err, sizeof(err));
	if (r != 0) {
		FUZZ_CHECK(r == 2 && err[0] && !strchr(err, '\n'));
		fuzz_check_printable(err);
	} else {
		FUZZ_CHECK(o.ndevice_files <= PREDICT_MAX_DEVICE_FILES);
		FUZZ_CHECK(in_range(o.usi, PREDICT_MIN_USI, PREDICT_MAX_USI));
		FUZZ_CHECK(in_range(o.gpuu, PREDICT_MIN_GPUU, 100.0));
		FUZZ_CHECK(in_range(o.fps, PREDICT_MIN_FPS, PREDICT_MAX_FPS));
		FUZZ_CHECK(in_range(o.frames, 1.0, PREDICT_MAX_FRAMES));
		FUZZ_CHECK(in_range(o.passes_per_frame, PREDICT_MIN_PASSES, PREDICT_MAX_PASSES));
		FUZZ_CHECK(in_range(o.gf_frame, PREDICT_MIN_GF_FRAME, PREDICT_MAX_GF_FRAME));
		if (!o.help && !o.list_devices)
			FUZZ_CHECK(o.to && !(o.profile && o.command));
		if (o.command)
			FUZZ_CHECK(o.command >= argv + 1 && o.command < argv + argc);
	}
	free(storage);
	return 0;
}
