/* SPDX-License-Identifier: MIT */
/*
 * predict.c — `opengpa predict`: Yun et al.'s FPS model (lib/models) on a
 * profile, a live run or figures given on the command line, every
 * intermediate printed under the paper's name.  docs/models.md is the
 * user's guide.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_options.h"
#include "devices.h"
#include "format.h"
#include "fps.h"
#include "predict.h"
#include "predict_run.h"
#include "profile.h"

/* Everything one prediction worked out, for the report. */
struct prediction {
	const struct og_profile *profile; /* NULL: the figures were given */
	struct og_model_measurement m;
	struct og_model_device source, target;
	struct og_fps_device src, dst;
	struct og_model_working src_how, dst_how;
	struct og_fps_result r;
};

/* Prints "opengpa predict: <what>" and returns 1. */
static int fail_line(const char *what)
{
	fprintf(stderr, "opengpa predict: %s\n", what);
	return 1;
}

static int load_table(const struct predict_options *o, struct og_model_table *t)
{
	char err[1024];
	if (!og_model_table_builtin(t, err, sizeof err))
		return fprintf(stderr, "opengpa predict: built-in device table: %s\n", err), 1;
	for (size_t i = 0; i < o->ndevice_files; i++)
		if (!og_model_table_load(t, o->device_files[i], err, sizeof err))
			return fail_line(err);
	return 0;
}

/* ---- --list-devices ------------------------------------------------------ */

static void list_devices(FILE *f, const struct og_model_table *t)
{
	fprintf(f, "%-16s %-18s %-28s %-30s %-20s %s\n", "ID", "NAME", "GPU", "GF_DEVICE (GFLOPS)",
	        "USI_MAX", "TMUS");
	for (size_t i = 0; i < t->count; i++) {
		const struct og_model_device *d = &t->devices[i];
		const double *v = d->value;
		char gf[64], usi[32], tmus[16];
		if (d->origin[OG_MODEL_GFLOPS])
			snprintf(gf, sizeof gf, "%g", v[OG_MODEL_GFLOPS]);
		else if (d->origin[OG_MODEL_FMA_PER_CORE])
			snprintf(gf, sizeof gf, "cores x %g FMA x 2 x clock", v[OG_MODEL_FMA_PER_CORE]);
		else
			snprintf(gf, sizeof gf, "unknown: give gflops=");
		if (d->origin[OG_MODEL_USI_MAX])
			snprintf(usi, sizeof usi, "%gG", v[OG_MODEL_USI_MAX] / 1e9);
		else if (d->origin[OG_MODEL_USI_PER_CLOCK])
			snprintf(usi, sizeof usi, "cores x %g x clock", v[OG_MODEL_USI_PER_CLOCK]);
		else
			snprintf(usi, sizeof usi, "from GFLOPS");
		snprintf(tmus, sizeof tmus, "%g", v[OG_MODEL_TMUS]);
		fprintf(f, "%-16s %-18s %-28s %-30s %-20s %s\n", d->id, d->name, d->gpu, gf, usi,
		        d->origin[OG_MODEL_TMUS] ? tmus : "-");
	}
	fprintf(f, "\nUSI_GFLOPS of devices without their own: %gG (the paper's). Any field can be "
	        "given after the id: --to mali-g76,cores=10,mhz=720\n", t->usi_per_gflops / 1e9);
}

/* ---- working it out -------------------------------------------------------- */

static int parse_spec(const struct og_model_table *t, const char *option, const char *spec,
                      struct og_model_device *d)
{
	char err[1536];
	if (!og_model_device_parse_spec(t, spec, d, err, sizeof err)) {
		fprintf(stderr, "opengpa predict: %s: %s\n", option, err);
		return 1;
	}
	return 0;
}

/* The device the profile was measured on: --on, or the table's entry for
 * the profile's GPU. */
static int find_source(const struct predict_options *o, const struct og_model_table *t,
                       const struct og_profile *p, struct og_model_device *d)
{
	if (o->on)
		return parse_spec(t, "--on", o->on, d);
	const struct og_model_device *match = og_model_table_match(t, p->device);
	if (!match) {
		char known[1024];
		og_model_table_ids(t, known, sizeof known);
		char qo[256], qd[256];
		fprintf(stderr, "opengpa predict: %s was measured on '%s', which is not in the device "
		        "table: say which device it is with --on ID[,KEY=VALUE...] (known: %s)\n",
		        cli_escape(p->origin, qo, sizeof qo),
		        p->device ? cli_escape(p->device, qd, sizeof qd) : "an unnamed device", known);
		return 1;
	}
	*d = *match;
	return 0;
}

/* The measured device's cores and clock, where the table has none and the
 * user gave none, are what the measurement found. */
static void take_measured(struct og_model_device *d, enum og_model_field f, double v)
{
	if (v > 0.0 && d->origin[f] != OG_MODEL_FROM_USER) {
		d->value[f] = v;
		d->origin[f] = OG_MODEL_FROM_PROFILE;
	}
}

static int resolve(const struct og_model_table *t, const struct og_model_device *d,
                   const char *which, struct og_fps_device *out, struct og_model_working *how)
{
	char err[1536];
	if (!og_model_device_resolve(d, t, out, how, err, sizeof err)) {
		fprintf(stderr, "opengpa predict: the %s device: %s\n", which, err);
		return 1;
	}
	return 0;
}

static int work_out(const struct predict_options *o, const struct og_model_table *t,
                    const struct og_profile *p, const struct og_model_overrides *given,
                    struct prediction *pr)
{
	char err[1536];
	struct og_model_overrides over = *given;
	pr->profile = p;
	if (p ? find_source(o, t, p, &pr->source) : parse_spec(t, "--on", o->on, &pr->source))
		return 1;
	/* The maximum clock GPUU is computed against: the user's (already in
	 * `given`), else the profile's, else the table's. */
	const struct og_model_device *src = &pr->source;
	if (!over.clock_mhz && src->origin[OG_MODEL_MHZ] == OG_MODEL_FROM_TABLE && p &&
	    !og_profile_find(p, "MaxClockMHz"))
		over.clock_mhz = src->value[OG_MODEL_MHZ];
	if (!og_model_measure(p, &over, &pr->m, err, sizeof err))
		return fail_line(err);
	take_measured(&pr->source, OG_MODEL_CORES, pr->m.cores);
	take_measured(&pr->source, OG_MODEL_MHZ, pr->m.clock_mhz);
	if (resolve(t, &pr->source, "source", &pr->src, &pr->src_how) ||
	    resolve(t, &pr->target, "target", &pr->dst, &pr->dst_how))
		return 1;
	const struct og_model_device *dst = &pr->target;
	struct og_fps_options opt = {
		.gf_frame = o->gf_frame,
		.has_target_egpu = dst->origin[OG_MODEL_EGPU] != OG_MODEL_UNSET,
		.target_egpu = dst->value[OG_MODEL_EGPU],
		.etmu = dst->value[OG_MODEL_ETMU],
	};
	if (!og_fps_predict(&pr->m.m, &pr->src, &pr->dst, &opt, &pr->r, err, sizeof err))
		return fail_line(err);
	return 0;
}

/* ---- the report ------------------------------------------------------------ */

static void device_line(FILE *f, const char *role, const struct og_model_device *d,
                        const struct og_fps_device *n, const struct og_model_working *how)
{
	char qn[128];
	fprintf(f, "  %-6s  %s (%s)\n", role, cli_escape(d->name, qn, sizeof qn), d->id);
	fprintf(f, "          GF_Device  %10.4g GFLOPS   %s\n", n->gflops, how->gflops);
	fprintf(f, "          USI_Max    %10.4g G/s      %s\n", n->usi_max / 1e9, how->usi_max);
	fprintf(f, "          USI_GFLOPS %10.4g G        %s\n", n->usi_per_gflops / 1e9,
	        how->usi_per_gflops);
}

static void print_text(FILE *f, const struct prediction *pr, const struct predict_options *o)
{
	const struct og_model_measurement *m = &pr->m;
	const struct og_fps_result *r = &pr->r;
	/* Names from a table, a profile or a path: quoted (cli_escape). */
	char qs[128], qt[128], qd[256], qo[256];
	cli_escape(pr->source.name, qs, sizeof qs);
	cli_escape(pr->target.name, qt, sizeof qt);
	fprintf(f, "\n Yun et al. (2019) FPS model: %s -> %s\n\n", qs, qt);
	if (pr->profile)
		fprintf(f, " measured on %s (%s, %.6f s)\n", pr->profile->device
		        ? cli_escape(pr->profile->device, qd, sizeof qd) : qs,
		        cli_escape(pr->profile->origin, qo, sizeof qo), m->seconds);
	else
		fprintf(f, " measured on %s (figures given)\n", qs);
	if (m->usi_given)
		fprintf(f, "  USI   %12.4f G/s   given\n", m->m.usi / 1e9);
	else
		fprintf(f, "  USI   %12.4f G/s   %.0f instructions (%s) / %.6f s\n", m->m.usi / 1e9,
		        m->instructions, m->counter[OG_ROLE_INSTRUCTIONS], m->seconds);
	if (m->gpuu_given)
		fprintf(f, "  GPUU  %12.2f %%     given\n", m->m.gpuu);
	else
		fprintf(f, "  GPUU  %12.2f %%     %.0f active cycles (%s) / (%.6f s x %g MHz%s)\n",
		        m->m.gpuu, m->active_cycles, m->counter[OG_ROLE_GPU_ACTIVE], m->seconds,
		        m->clock_mhz, m->counter[OG_ROLE_MAX_CLOCK] ? ", the maximum clock" : "");
	if (m->fps_given)
		fprintf(f, "  FPS   %12.2f         given\n", m->m.fps);
	else if (m->frames_given)
		fprintf(f, "  FPS   %12.2f         %g frames (%s) / %.6f s\n", m->m.fps, m->frames,
		        m->frames_marked ? "marked by the workload" : "given", m->seconds);
	else
		fprintf(f, "  FPS   %12.2f         %.0f render pass%s (%s) / %g per frame / %.6f s\n",
		        m->m.fps, m->render_passes, m->render_passes == 1 ? "" : "es",
		        m->counter[OG_ROLE_FRAMES],
		        o->passes_per_frame > 0.0 ? o->passes_per_frame : 1.0, m->seconds);
	fprintf(f, "\n devices\n");
	device_line(f, "source", &pr->source, &pr->src, &pr->src_how);
	device_line(f, "target", &pr->target, &pr->dst, &pr->dst_how);
	fprintf(f, "\n model\n");
	fprintf(f, "  (1) USI_Corrected = USI x 100 / GPUU             %12.4f G/s\n",
	        r->usi_corrected / 1e9);
	fprintf(f, "      FPS_Corrected = FPS x 100 / GPUU             %12.2f\n", r->fps_corrected);
	fprintf(f, "  (2) USI_Frame     = USI_Corrected / FPS_Corrected %11.4f G\n",
	        r->usi_frame / 1e9);
	fprintf(f, "  (3) GF_Frame      = USI_Frame / USI_GFLOPS       %12.4f GFLOP%s\n", r->gf_frame,
	        r->gf_frame_given ? " (given)" : "");
	if (r->gf_frame_given)
		fprintf(f, "                                                    (equation (3) gives %.4f)\n",
		        og_fps_gf_frame(r->usi_frame, pr->src.usi_per_gflops));
	fprintf(f, "  (4) EGPU          = USI_Corrected / USI_Max      %12.2f %%   %s\n", r->egpu,
	        r->egpu_given ? "the target's, given" : "the source's, carried to the target");
	if (r->egpu_given)
		fprintf(f, "                                                    (the source's by (4): %.2f %%)\n",
		        r->egpu_source);
	fprintf(f, "      ETMU                                         %12.2f     %s\n", r->etmu,
	        pr->target.origin[OG_MODEL_ETMU] ? "given" : "none given (--to ID,etmu=POINTS)");
	fprintf(f, "  (5) FPS           = GF_Device x (EGPU + ETMU) / GF_Frame\n");
	fprintf(f, "                                                   %12.2f     predicted on %s "
	        "at GPUU 100 %%\n\n", r->fps, pr->target.name);
}

static void json_number(FILE *f, const char *key, double v)
{
	fprintf(f, ", ");
	fmt_json_string(f, key);
	fprintf(f, ": %.17g", v);
}

static void json_device(FILE *f, const char *key, const struct og_model_device *d,
                        const struct og_fps_device *n, const struct og_model_working *how)
{
	fprintf(f, ",\n ");
	fmt_json_string(f, key);
	fprintf(f, ": {\"id\": ");
	fmt_json_string(f, d->id);
	fprintf(f, ", \"name\": ");
	fmt_json_string(f, d->name);
	json_number(f, "GF_Device", n->gflops);
	json_number(f, "USI_Max", n->usi_max);
	json_number(f, "USI_GFLOPS", n->usi_per_gflops);
	for (int i = 0; i < OG_MODEL_FIELDS; i++)
		if (d->origin[i] && i != OG_MODEL_GFLOPS && i != OG_MODEL_USI_MAX &&
		    i != OG_MODEL_USI_PER_GFLOPS)
			json_number(f, og_model_field_name(i), d->value[i]);
	fprintf(f, ", \"working\": {\"GF_Device\": ");
	fmt_json_string(f, how->gflops);
	fprintf(f, ", \"USI_Max\": ");
	fmt_json_string(f, how->usi_max);
	fprintf(f, ", \"USI_GFLOPS\": ");
	fmt_json_string(f, how->usi_per_gflops);
	fprintf(f, "}}");
}

static void json_counter(FILE *f, const char *key, const char *name)
{
	fprintf(f, ", ");
	fmt_json_string(f, key);
	fprintf(f, ": ");
	if (name)
		fmt_json_string(f, name);
	else
		fprintf(f, "null");
}

static void print_json(FILE *f, const struct prediction *pr)
{
	const struct og_model_measurement *m = &pr->m;
	const struct og_fps_result *r = &pr->r;
	fprintf(f, "{\"model\": \"Yun et al. 2019\", \"profile\": ");
	if (pr->profile)
		fmt_json_string(f, pr->profile->origin);
	else
		fprintf(f, "null");
	json_device(f, "source", &pr->source, &pr->src, &pr->src_how);
	json_device(f, "target", &pr->target, &pr->dst, &pr->dst_how);
	fprintf(f, ",\n \"measured\": {\"given\": {\"USI\": %s, \"GPUU\": %s, \"FPS\": %s}",
	        m->usi_given ? "true" : "false", m->gpuu_given ? "true" : "false",
	        m->fps_given ? "true" : "false");
	json_number(f, "USI", m->m.usi);
	json_number(f, "GPUU", m->m.gpuu);
	json_number(f, "FPS", m->m.fps);
	json_number(f, "seconds", m->seconds);
	json_number(f, "instructions", m->instructions);
	json_number(f, "active_cycles", m->active_cycles);
	json_number(f, "max_clock_mhz", m->clock_mhz);
	json_number(f, "render_passes", m->render_passes);
	json_number(f, "frames", m->frames);
	json_counter(f, "instructions_counter", m->counter[OG_ROLE_INSTRUCTIONS]);
	json_counter(f, "active_cycles_counter", m->counter[OG_ROLE_GPU_ACTIVE]);
	json_counter(f, "render_passes_counter", m->counter[OG_ROLE_FRAMES]);
	fprintf(f, "},\n \"USI_Corrected\": %.17g", r->usi_corrected);
	json_number(f, "FPS_Corrected", r->fps_corrected);
	json_number(f, "USI_Frame", r->usi_frame);
	json_number(f, "GF_Frame", r->gf_frame);
	fprintf(f, ", \"GF_Frame_given\": %s", r->gf_frame_given ? "true" : "false");
	json_number(f, "EGPU", r->egpu);
	json_number(f, "EGPU_source", r->egpu_source);
	fprintf(f, ", \"EGPU_given\": %s", r->egpu_given ? "true" : "false");
	json_number(f, "ETMU", r->etmu);
	json_number(f, "FPS", r->fps);
	fprintf(f, "}\n");
}

/* ---- the command ------------------------------------------------------------ */

int cmd_predict(int argc, char **argv)
{
	struct predict_options o;
	char err[512];
	if (predict_parse(argc, argv, &o, err, sizeof err) != 0)
		return cli_usage_error("predict", err);
	if (o.help) {
		fputs(cli_command_predict.help, stdout);
		return 0;
	}
	struct og_model_table table = { 0 };
	int rc = load_table(&o, &table);
	/* Files first (perf's order): a bad -o path fails before a long run. */
	FILE *out = o.command ? stderr : stdout;
	if (!rc && o.output && !(out = cli_open_output(o.output, false)))
		rc = 1;
	if (!rc && o.list_devices) {
		list_devices(out, &table);
		rc = cli_close_output(out, o.output);
		og_model_table_free(&table);
		return rc;
	}
	struct prediction pr;
	memset(&pr, 0, sizeof pr);
	if (!rc)
		rc = parse_spec(&table, "--to", o.to, &pr.target);
	struct og_model_overrides over = {
		.usi = o.usi, .gpuu = o.gpuu, .fps = o.fps, .frames = o.frames,
		.passes_per_frame = o.passes_per_frame,
	};
	struct og_profile profile;
	memset(&profile, 0, sizeof profile);
	bool have_profile = false;
	int status = 0;
	if (!rc && o.on) {
		/* The user's clock and cores count for a live run too. */
		struct og_model_device on;
		rc = parse_spec(&table, "--on", o.on, &on);
		if (!rc && on.origin[OG_MODEL_MHZ] == OG_MODEL_FROM_USER)
			over.clock_mhz = on.value[OG_MODEL_MHZ];
		if (!rc && on.origin[OG_MODEL_CORES] == OG_MODEL_FROM_USER)
			over.cores = on.value[OG_MODEL_CORES];
	}
	if (!rc && o.profile) {
		char perr[1024];
		rc = og_profile_load(&profile, o.profile, perr, sizeof perr) ? 0
		                                                           : fail_line(perr);
		have_profile = !rc;
	} else if (!rc && o.command) {
		rc = predict_run(&o, &over, &profile, &status);
		have_profile = !rc;
		char qc[256];
		if (!rc && status)
			fprintf(stderr, "opengpa predict: %s exited with status %d; the prediction is from "
			        "that run\n", cli_escape(o.command[0], qc, sizeof qc), status);
	}
	if (!rc)
		rc = work_out(&o, &table, have_profile ? &profile : NULL, &over, &pr);
	if (!rc) {
		if (o.json)
			print_json(out, &pr);
		else
			print_text(out, &pr, &o);
	}
	if (out && cli_close_output(out, o.output) && !rc)
		rc = 1;
	og_profile_free(&profile);
	og_model_table_free(&table);
	return status ? status : rc;
}
