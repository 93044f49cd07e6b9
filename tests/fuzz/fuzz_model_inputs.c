/* SPDX-License-Identifier: MIT */
/*
 * fuzz_model_inputs.c — what `opengpa predict` reads from users, on any
 * bytes: a profile (JSON, as `opengpa stat --json` writes it) and the
 * model's measurement from it, a device table file, a device
 * specification ("mali-g76,cores=10,mhz=720").
 *
 * The first byte chooses which.  Beyond not crashing or reading outside the
 * input (ASan), a measurement that succeeds must give the model inputs it
 * accepts: finite, USI and FPS above 0, GPUU in (0, 100].
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "devices.h"
#include "fps.h"
#include "profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void profile(const char *text, size_t len)
{
	struct og_profile p;
	char err[512];
	if (!og_profile_from_json(&p, "fuzz.json", text, len, err, sizeof err)) {
		og_profile_free(&p);
		return;
	}
	struct og_model_measurement m;
	struct og_model_overrides o = { .clock_mhz = len % 3 ? 0 : 850 };
	if (og_model_measure(&p, &o, &m, err, sizeof err)) {
		if (!(m.m.usi > 0 && isfinite(m.m.usi) && m.m.fps > 0 && isfinite(m.m.fps) &&
		      m.m.gpuu > 0 && m.m.gpuu <= 100))
			abort();
		struct og_fps_device d = { .gflops = 100, .usi_max = 50e9, .usi_per_gflops = 0.5e9 };
		struct og_fps_result r;
		if (og_fps_predict(&m.m, &d, &d, NULL, &r, err, sizeof err) && !isfinite(r.fps))
			abort();
	}
	og_profile_free(&p);
}

static void table(const char *text)
{
	struct og_model_table t = { 0 };
	char err[512];
	if (og_model_table_parse(&t, "fuzz.table", text, err, sizeof err))
		for (size_t i = 0; i < t.count; i++) {
			struct og_fps_device d;
			og_model_device_resolve(&t.devices[i], &t, &d, NULL, err, sizeof err);
		}
	og_model_table_free(&t);
}

static void spec(const char *text)
{
	static struct og_model_table builtin;
	static bool loaded;
	char err[1536];
	if (!loaded) {
		if (!og_model_table_builtin(&builtin, err, sizeof err))
			abort();
		loaded = true;
	}
	struct og_model_device d;
	struct og_fps_device f;
	if (og_model_device_parse_spec(&builtin, text, &d, err, sizeof err) &&
	    og_model_device_resolve(&d, &builtin, &f, NULL, err, sizeof err) &&
	    !(f.gflops > 0 && isfinite(f.gflops) && f.usi_max > 0 && f.usi_per_gflops > 0))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	/* The table and spec readers take C strings; the JSON reader any bytes. */
	char *text = malloc(size);
	if (!text)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = '\0';
	switch (data[0] % 3) {
	case 0: profile(text, size - 1); break;
	case 1: table(text); break;
	default: spec(text); break;
	}
	free(text);
	return 0;
}
