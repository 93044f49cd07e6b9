/* SPDX-License-Identifier: MIT */
/*
 * fuzz_list_options.c — `opengpa list`'s command line (list_parse), words
 * separated by NUL bytes in the input.  Oracles: a refusal is one printable
 * line (command-line text escaped in it); an accepted one keeps pointers
 * into argv only.
 */
#include "fuzz_options.h"
#include "list.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 4096)
		return 0;
	char *argv[FUZZ_MAX_WORDS + 2], *storage;
	int argc = fuzz_argv("list", data, size, argv, &storage);
	struct list_options o;
	char err[256] = "";
	int r = list_parse(argc, argv, &o, err, sizeof(err));
	if (r != 0) {
		FUZZ_CHECK(r == 2 && err[0] && !strchr(err, '\n'));
		fuzz_check_printable(err);
	} else if (!o.help) {
		FUZZ_CHECK(!o.sep || (o.sep[0] && !strpbrk(o.sep, "\"\r\n")));
	}
	free(storage);
	return 0;
}
