/* SPDX-License-Identifier: MIT */
/*
 * fuzz_stat_options.c — `opengpa stat`'s command line (stat_parse), words
 * separated by NUL bytes in the input.  Oracles: a refusal is one printable
 * line (command-line text escaped in it); an accepted command line stays
 * inside its bounds (events, constants) and points its command into argv.
 */
#include "fuzz_options.h"
#include "stat.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 4096)
		return 0;
	char *argv[FUZZ_MAX_WORDS + 2], *storage;
	int argc = fuzz_argv("stat", data, size, argv, &storage);
	struct stat_options o;
	char err[256] = "";
	int r = stat_parse(argc, argv, &o, err, sizeof(err));
	if (r != 0) {
		FUZZ_CHECK(r == 2 && err[0] && !strchr(err, '\n'));
		fuzz_check_printable(err);
	} else {
		FUZZ_CHECK(o.nevents <= STAT_MAX_EVENT_ARGS && o.nconstants <= STAT_MAX_CONSTANTS);
		if (o.command)
			FUZZ_CHECK(o.command >= argv + 1 && o.command < argv + argc);
		stat_period_ms(&o);
	}
	free(storage);
	return 0;
}
