/* SPDX-License-Identifier: MIT */
/* fps.c — Yun et al.'s equations (1) to (5) and the checks around them (fps.h). */
#include "fps.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/quote.h"
#include "refuse.h"

double og_fps_usi_corrected(double usi, double gpuu)
{
	return usi * 100.0 / gpuu;
}

double og_fps_fps_corrected(double fps, double gpuu)
{
	return fps * 100.0 / gpuu;
}

double og_fps_usi_frame(double usi_corrected, double fps_corrected)
{
	return usi_corrected / fps_corrected;
}

double og_fps_gf_frame(double usi_frame, double usi_per_gflops)
{
	return usi_frame / usi_per_gflops;
}

double og_fps_egpu(double usi_corrected, double usi_max)
{
	return 100.0 * usi_corrected / usi_max;
}

double og_fps_predicted(double gf_device, double egpu, double etmu, double gf_frame)
{
	/* EGPU and ETMU are percentages; equation (5) uses them as fractions. */
	return gf_device * (egpu + etmu) / 100.0 / gf_frame;
}

/* fmt's message as og_quote writes it into err (the arguments are a
 * table's, a profile's or a command line's text: util/quote.h), formatted
 * into at most `room` bytes first. */
static void refuse_v(char *err, size_t errlen, size_t room, const char *fmt, va_list ap)
	__attribute__((format(printf, 4, 0)));

static void refuse_v(char *err, size_t errlen, size_t room, const char *fmt, va_list ap)
{
	char raw[2048];
	vsnprintf(raw, room < sizeof raw ? room : sizeof raw, fmt, ap);
	og_quote(raw, err, errlen);
}

bool og_model_refuse(char *err, size_t errlen, const char *fmt, ...)
{
	if (err && errlen) {
		va_list ap;
		va_start(ap, fmt);
		refuse_v(err, errlen, 2048, fmt, ap);
		va_end(ap);
	}
	return false;
}

bool og_model_refuse_with(char *err, size_t errlen, const char *inner, const char *fmt, ...)
{
	if (err && errlen) {
		va_list ap;
		va_start(ap, fmt);
		refuse_v(err, errlen, 1024, fmt, ap);
		va_end(ap);
		size_t at = strlen(err);
		snprintf(err + at, errlen - at, ": %s", inner);
	}
	return false;
}

static bool positive(double v)
{
	return isfinite(v) && v > 0.0;
}

static bool check_device(const struct og_fps_device *d, const char *which, char *err, size_t errlen)
{
	if (!positive(d->gflops))
		return og_model_refuse(err, errlen, "the %s device's GFLOPS (%g) must be a number "
		                       "above 0", which, d->gflops);
	if (!positive(d->usi_max))
		return og_model_refuse(err, errlen, "the %s device's maximum USI throughput (%g) must be a "
		                       "number above 0", which, d->usi_max);
	if (!positive(d->usi_per_gflops))
		return og_model_refuse(err, errlen, "the %s device's USI per GFLOPS (%g) must be a "
		                       "number above 0", which, d->usi_per_gflops);
	return true;
}

bool og_fps_predict(const struct og_fps_measured *m, const struct og_fps_device *source,
                    const struct og_fps_device *target, const struct og_fps_options *opt,
                    struct og_fps_result *r, char *err, size_t errlen)
{
	static const struct og_fps_options none;
	memset(r, 0, sizeof *r);
	if (!opt)
		opt = &none;
	if (!positive(m->usi))
		return og_model_refuse(err, errlen, "the measured USI (%g instructions per second) must be a "
		                       "number above 0", m->usi);
	if (!isfinite(m->gpuu) || m->gpuu <= 0.0 || m->gpuu > 100.0)
		return og_model_refuse(err, errlen, "the measured GPU utilisation (%g %%) must be above 0 and at "
		                       "most 100", m->gpuu);
	if (!positive(m->fps))
		return og_model_refuse(err, errlen, "the measured frame rate (%g FPS) must be a number above 0",
		                       m->fps);
	if (!check_device(source, "source", err, errlen) || !check_device(target, "target", err, errlen))
		return false;
	if (!isfinite(opt->gf_frame) || opt->gf_frame < 0.0)
		return og_model_refuse(err, errlen, "the GF_Frame given (%g) must be a number above 0",
		                       opt->gf_frame);
	if (opt->has_target_egpu &&
	    (!isfinite(opt->target_egpu) || opt->target_egpu < 0.0 || opt->target_egpu > 100.0))
		return og_model_refuse(err, errlen, "the target's EGPU (%g %%) must be from 0 to 100",
		                       opt->target_egpu);
	if (!isfinite(opt->etmu) || opt->etmu < 0.0 || opt->etmu > 100.0)
		return og_model_refuse(err, errlen, "ETMU (%g percentage points) must be from 0 to 100",
		                       opt->etmu);

	struct og_fps_result out = { 0 };
	out.usi_corrected = og_fps_usi_corrected(m->usi, m->gpuu);
	out.fps_corrected = og_fps_fps_corrected(m->fps, m->gpuu);
	out.usi_frame = og_fps_usi_frame(out.usi_corrected, out.fps_corrected);
	out.gf_frame_given = opt->gf_frame > 0.0;
	out.gf_frame = out.gf_frame_given ? opt->gf_frame
	                                  : og_fps_gf_frame(out.usi_frame, source->usi_per_gflops);
	out.egpu_source = og_fps_egpu(out.usi_corrected, source->usi_max);
	out.egpu_given = opt->has_target_egpu;
	out.egpu = out.egpu_given ? opt->target_egpu : out.egpu_source;
	out.etmu = opt->etmu;
	out.fps = og_fps_predicted(target->gflops, out.egpu, out.etmu, out.gf_frame);
	if (!positive(out.gf_frame) || !isfinite(out.fps) || out.fps < 0.0)
		return og_model_refuse(err, errlen, "the inputs give no finite prediction (GF_Frame %g, FPS %g)",
		                       out.gf_frame, out.fps);
	*r = out;
	return true;
}
