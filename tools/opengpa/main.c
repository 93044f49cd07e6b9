/* SPDX-License-Identifier: MIT */
/* main.c — `opengpa`: list the counters of a device, or count a command. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static void usage(FILE *out)
{
	fputs("usage: opengpa list [--backend NAME] [--options K=V,...] [--hardware] [--all] [-x SEP]\n"
	      "       opengpa stat [--backend NAME] [--options K=V,...] [--hardware]\n"
	      "                    [-e COUNTER,...] [-x SEP | --json] [-o FILE] -- COMMAND [ARG...]\n"
	      "       opengpa --version\n"
	      "\n"
	      "Backends: auto (default), perf, mali, panfrost, mips. See `man`-style help in\n"
	      "docs/cli.md.\n",
	      out);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		usage(stdout);
		return 0;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("opengpa %d.%d\n", OPENGPA_VERSION_MAJOR, OPENGPA_VERSION_MINOR);
		return 0;
	}
	cli_install_logger();
	if (strcmp(argv[1], "list") == 0)
		return cmd_list(argc - 1, argv + 1);
	if (strcmp(argv[1], "stat") == 0)
		return cmd_stat(argc - 1, argv + 1);
	fprintf(stderr, "opengpa: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return 2;
}
