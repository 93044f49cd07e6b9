/* SPDX-License-Identifier: MIT */
/* list_options.c — `opengpa list`'s options (see options.h for adding one). */
#include <string.h>

#include "cli_options.h"
#include "list.h"

/* One option of docs/man/opengpa-list.1.txt. */
static enum cli_error apply(void *ctx, int key, const struct cli_option *opt, const char *value,
                            char *err, size_t errlen)
{
	struct list_options *o = ctx;
	(void)opt;
	switch ((enum list_opt)key) {
	case LIST_OPT_BACKEND: o->backend = value; return CLI_OK;
	case LIST_OPT_OPTIONS: o->options = value; return CLI_OK;
	case LIST_OPT_HARDWARE: o->hardware = true; return CLI_OK;
	case LIST_OPT_ALL: o->all = true; return CLI_OK;
	case LIST_OPT_SEP:
		o->sep = value;
		return cli_check_separator(value, err, errlen);
	case LIST_OPT_JSON: o->json = true; return CLI_OK;
	case LIST_OPT_BACKENDS: o->backends = true; return CLI_OK;
	case LIST_OPT_GROUPS: o->groups = true; return CLI_OK;
	case LIST_OPT_HEADLINE: o->headline = true; return CLI_OK;
	case LIST_OPT_INSTANCES: o->instances = true; return CLI_OK;
	case LIST_OPT_HELP: o->help = true; return CLI_OK;
	}
	return CLI_ERR_UNHANDLED;
}

int list_parse(int argc, char **argv, struct list_options *o, char *err, size_t errlen)
{
	memset(o, 0, sizeof *o);
	int operand = argc;
	if (cli_parse(&cli_command_list, argc, argv, apply, o, &operand, err, errlen) != CLI_OK)
		return 2;
	if (o->help)
		return 0;
	if (o->sep && o->json) {
		cli_refuse(err, errlen, "-x and --json exclude each other");
		return 2;
	}
	if (o->backends && (o->backend || o->options || o->hardware || o->all)) {
		cli_refuse(err, errlen, "--backends tries every backend: it takes no --backend, "
		           "--options, --hardware or --all");
		return 2;
	}
	if (operand < argc)
		o->pattern = argv[operand++];
	if (operand != argc) {
		char word[64];
		cli_refuse(err, errlen, "unexpected argument '%s' (one PATTERN at most)",
		           cli_escape(argv[operand], word, sizeof word));
		return 2;
	}
	if (o->instances && (o->backends || o->groups)) {
		cli_refuse(err, errlen, "--instances lists counters; --backends and --groups list "
		           "something else");
		return 2;
	}
	if (o->pattern && (o->backends || o->groups)) {
		cli_refuse(err, errlen, "a PATTERN chooses counters; --backends and --groups list "
		           "something else");
		return 2;
	}
	return 0;
}
