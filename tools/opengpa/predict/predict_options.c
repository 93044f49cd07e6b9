/* SPDX-License-Identifier: MIT */
/*
 * predict_options.c — `opengpa predict`'s options: one case per option of
 * docs/man/opengpa-predict.1.txt (see options.h for adding one).
 */
#include <string.h>

#include "cli_options.h"
#include "devices.h"
#include "predict.h"

/* A rate, count or share given on the command line: a number (with an
 * optional k, M or G) from min to max, the option's documented range
 * (docs/man/opengpa-predict.1.txt): 0, 1e-300 or 1e300 are slips that
 * would predict 0 or infinity. */
static enum cli_error number(const char *value, double min, double max, const char *what,
                             double *out, char *err, size_t errlen)
{
	double v;
	if (!og_model_parse_number(value, &v))
		return cli_refuse(err, errlen, "not a number (digits, an optional exponent, an "
		                  "optional k, M or G)");
	if (!(v >= min && v <= max))
		return cli_refuse(err, errlen, "%s must be above 0: from %g to %g", what, min, max);
	*out = v;
	return CLI_OK;
}

static enum cli_error apply(void *ctx, int key, const struct cli_option *opt, const char *value,
                            char *err, size_t errlen)
{
	struct predict_options *o = ctx;
	(void)opt;
	switch ((enum predict_opt)key) {
	case PREDICT_OPT_TO: o->to = value; return CLI_OK;
	case PREDICT_OPT_ON: o->on = value; return CLI_OK;
	case PREDICT_OPT_DEVICES:
		if (o->ndevice_files == PREDICT_MAX_DEVICE_FILES)
			return cli_refuse(err, errlen, "more than %d device files",
			                  PREDICT_MAX_DEVICE_FILES);
		if (!*value)
			return cli_refuse(err, errlen, "no file named");
		o->device_files[o->ndevice_files++] = value;
		return CLI_OK;
	case PREDICT_OPT_LIST_DEVICES: o->list_devices = true; return CLI_OK;
	case PREDICT_OPT_USI:
		return number(value, PREDICT_MIN_USI, PREDICT_MAX_USI, "a USI", &o->usi, err, errlen);
	case PREDICT_OPT_GPUU:
		return number(value, PREDICT_MIN_GPUU, 100.0, "a GPU utilisation", &o->gpuu, err,
		              errlen);
	case PREDICT_OPT_FPS:
		return number(value, PREDICT_MIN_FPS, PREDICT_MAX_FPS, "a frame rate", &o->fps, err,
		              errlen);
	case PREDICT_OPT_FRAMES:
		return number(value, 1.0, PREDICT_MAX_FRAMES, "a frame count", &o->frames, err, errlen);
	case PREDICT_OPT_PASSES_PER_FRAME:
		return number(value, PREDICT_MIN_PASSES, PREDICT_MAX_PASSES, "render passes per frame",
		              &o->passes_per_frame, err, errlen);
	case PREDICT_OPT_GF_FRAME:
		return number(value, PREDICT_MIN_GF_FRAME, PREDICT_MAX_GF_FRAME, "GF_Frame",
		              &o->gf_frame, err, errlen);
	case PREDICT_OPT_BACKEND: o->backend = value; return CLI_OK;
	case PREDICT_OPT_OPTIONS: o->options = value; return CLI_OK;
	case PREDICT_OPT_JSON: o->json = true; return CLI_OK;
	case PREDICT_OPT_OUTPUT:
		if (!*value)
			return cli_refuse(err, errlen, "no file named");
		o->output = value;
		return CLI_OK;
	case PREDICT_OPT_HELP: o->help = true; return CLI_OK;
	}
	return CLI_ERR_UNHANDLED;
}

int predict_parse(int argc, char **argv, struct predict_options *o, char *err, size_t errlen)
{
	memset(o, 0, sizeof *o);
	/* Options may follow the profile (`predict g71.json --json`): after it,
	 * parsing goes on with the profile in argv[0]'s place.  After "--"
	 * everything is the command. */
	int base = 0, operand = argc;
	for (;;) {
		int n = argc - base, at = n;
		if (cli_parse(&cli_command_predict, n, argv + base, apply, o, &at, err, errlen) !=
		    CLI_OK)
			return 2;
		operand = base + at;
		if (operand >= argc || strcmp(argv[operand - 1], "--") == 0)
			break;
		if (o->profile) {
			char word[64], first[64];
			cli_refuse(err, errlen, "one profile at a time ('%s' follows %s); a command goes "
			           "after --", cli_escape(argv[operand], word, sizeof word),
			           cli_escape(o->profile, first, sizeof first));
			return 2;
		}
		o->profile = argv[operand];
		base = operand;
	}
	if (o->help)
		return 0;
	if (operand < argc)
		o->command = &argv[operand];
	if (o->profile && o->command) {
		cli_refuse(err, errlen, "a profile or a command after --, not both");
		return 2;
	}
	if (o->list_devices) {
		if (o->to || o->on || o->profile || o->command) {
			cli_refuse(err, errlen, "--list-devices prints the table and takes no device, "
			           "profile or command");
			return 2;
		}
		return 0;
	}
	if (!o->to) {
		cli_refuse(err, errlen, "no target: --to DEVICE (opengpa predict --list-devices "
		           "lists them)");
		return 2;
	}
	bool all_given = o->usi > 0.0 && o->gpuu > 0.0 && o->fps > 0.0;
	if (!o->profile && !o->command && !all_given) {
		cli_refuse(err, errlen, "nothing measured: give a profile (opengpa stat --opengpa-json), a "
		           "command after --, or --usi, --gpuu and --fps");
		return 2;
	}
	if (o->fps > 0.0 && (o->frames > 0.0 || o->passes_per_frame > 0.0)) {
		cli_refuse(err, errlen, "--fps gives the frame rate; --frames and --passes-per-frame "
		           "count frames instead: give one or the other");
		return 2;
	}
	if (o->frames > 0.0 && o->passes_per_frame > 0.0) {
		cli_refuse(err, errlen, "--frames gives the frame count; --passes-per-frame derives "
		           "it from render passes: give one or the other");
		return 2;
	}
	if (!o->profile && !o->command && !o->on) {
		cli_refuse(err, errlen, "without a profile, --on DEVICE says which device the "
		           "figures were measured on");
		return 2;
	}
	if ((o->backend || o->options) && !o->command) {
		cli_refuse(err, errlen, "--backend and --options are for counting a command (after --)");
		return 2;
	}
	return 0;
}
