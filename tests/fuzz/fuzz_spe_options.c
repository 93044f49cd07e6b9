/* SPDX-License-Identifier: MIT */
/*
 * fuzz_spe_options.c — `opengpa spe`'s command line (spe_parse), words
 * separated by NUL bytes in the input.  Oracles: a refusal is one printable
 * line; an accepted one has every number inside its documented range
 * (docs/man/opengpa-spe.1.txt) and its command inside argv.
 */
#include "fuzz_options.h"
#include "spe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 4096)
		return 0;
	char *argv[FUZZ_MAX_WORDS + 2], *storage;
	int argc = fuzz_argv("spe", data, size, argv, &storage);
	struct spe_options o;
	char err[256] = "";
	int r = spe_parse(argc, argv, &o, err, sizeof(err));
	if (r != 0) {
		FUZZ_CHECK(r == 2 && err[0] && !strchr(err, '\n'));
		fuzz_check_printable(err);
	} else if (!o.help) {
		FUZZ_CHECK(o.count <= UINT32_MAX && o.top <= 1000);
		FUZZ_CHECK(o.pages >= 2 && o.pages <= 65536 && !(o.pages & (o.pages - 1)));
		FUZZ_CHECK(o.command && o.command >= argv + 1 && o.command < argv + argc);
	}
	free(storage);
	return 0;
}
