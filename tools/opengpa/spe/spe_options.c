/* SPDX-License-Identifier: MIT */
/* spe_options.c — `opengpa spe`'s options (see options.h for adding one). */
#include <string.h>

#include "cli_options.h"
#include "spe.h"

static enum cli_error apply(void *ctx, int key, const struct cli_option *opt, const char *value,
                            char *err, size_t errlen)
{
	struct spe_options *o = ctx;
	(void)opt;
	uint64_t v;
	switch ((enum spe_opt)key) {
	case SPE_OPT_PERIOD:
		if (!cli_parse_uint(value, 1, UINT32_MAX, &v))
			return cli_refuse(err, errlen, "not a number of operations (1 to %u)",
			                  (unsigned)UINT32_MAX);
		o->count = v;
		return CLI_OK;
	case SPE_OPT_TOP:
		if (!cli_parse_uint(value, 0, 1000, &v))
			return cli_refuse(err, errlen, "not a number of PCs (0 to 1000)");
		o->top = (unsigned)v;
		return CLI_OK;
	case SPE_OPT_PAGES:
		if (!cli_parse_uint(value, 2, 65536, &v) || (v & (v - 1)))
			return cli_refuse(err, errlen, "not a power of two from 2 to 65536");
		o->pages = (unsigned)v;
		return CLI_OK;
	case SPE_OPT_OUTPUT:
		if (!*value)
			return cli_refuse(err, errlen, "no file named");
		o->output = value;
		return CLI_OK;
	case SPE_OPT_HELP: o->help = true; return CLI_OK;
	}
	return CLI_ERR_UNHANDLED;
}

int spe_parse(int argc, char **argv, struct spe_options *o, char *err, size_t errlen)
{
	memset(o, 0, sizeof *o);
	o->top = 10;
	o->pages = 64;
	int operand = argc;
	if (cli_parse(&cli_command_spe, argc, argv, apply, o, &operand, err, errlen) != CLI_OK)
		return 2;
	if (o->help)
		return 0;
	if (operand >= argc) {
		cli_refuse(err, errlen, "no command given (opengpa spe [options] -- COMMAND ...)");
		return 2;
	}
	o->command = &argv[operand];
	return 0;
}
