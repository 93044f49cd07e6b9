/* SPDX-License-Identifier: MIT */
/*
 * main.c — `opengpa`: the commands, and the options before them.
 *
 * A new command is a function here, a page docs/man/opengpa-CMD.1.txt with
 * `@command CMD` (its options, its --help, its man page) and an entry under
 * COMMANDS in docs/man/opengpa.1.txt.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cli_options.h"

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
} commands[] = {
	{ "list", cmd_list },
	{ "stat", cmd_stat },
	{ "pc_sweep", cmd_pc_sweep },
	{ "spe", cmd_spe },
	{ "predict", cmd_predict },
	{ "compare", cmd_compare },
};

struct global_options {
	bool help, version;
};

static enum cli_error apply(void *ctx, int key, const struct cli_option *opt, const char *value,
                            char *err, size_t errlen)
{
	struct global_options *o = ctx;
	(void)opt;
	(void)value;
	(void)err;
	(void)errlen;
	switch ((enum opengpa_opt)key) {
	case OPENGPA_OPT_HELP: o->help = true; return CLI_OK;
	case OPENGPA_OPT_VERSION: o->version = true; return CLI_OK;
	}
	return CLI_ERR_UNHANDLED;
}

int main(int argc, char **argv)
{
	struct global_options o = { 0 };
	char err[512];
	int operand = argc;
	if (cli_parse(&cli_command_opengpa, argc, argv, apply, &o, &operand, err, sizeof err) !=
	    CLI_OK) {
		fprintf(stderr, "opengpa: %s (see opengpa --help)\n", err);
		return 2;
	}
	if (o.help) {
		fputs(cli_command_opengpa.help, stdout);
		return 0;
	}
	if (o.version) {
		/* The library may be another build than the command's headers. */
		gpa_uint32 major = 0, minor = 0, patch = 0;
		OpenGPA_GetVersion(&major, &minor, &patch);
		printf("opengpa %s (library %u.%u.%u)\n", OPENGPA_VERSION_STRING, major, minor, patch);
		return 0;
	}
	if (operand >= argc) {
		fputs(cli_command_opengpa.help, stderr);
		return 2;
	}
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (strcmp(argv[operand], commands[i].name) == 0) {
			cli_install_logger();
			return commands[i].run(argc - operand, argv + operand);
		}
	char name[64];
	fprintf(stderr, "opengpa: unknown command '%s' (see opengpa --help)\n",
	        cli_escape(argv[operand], name, sizeof name));
	return 2;
}
