/* SPDX-License-Identifier: MIT */
/*
 * fuzz_pcsweep_options.c — pc_sweep's command line (pcsweep_parse), words
 * separated by NUL bytes in the input, and what it selects: the counters,
 * the backend options, the passes.  Oracles: a refusal is one printable
 * line; the command's index is inside argv; every selection stays within
 * its tables.
 */
#include "fuzz_options.h"
#include "pcsweep.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 4096)
		return 0;
	char *argv[FUZZ_MAX_WORDS + 2], *storage;
	int argc = fuzz_argv("pc_sweep", data, size, argv, &storage);
	struct pcsweep_request req;
	int cmd = -1;
	char err[256] = "";
	if (pcsweep_parse(argc, argv, &req, &cmd, err, sizeof(err)) != 0) {
		FUZZ_CHECK(err[0] && !strchr(err, '\n'));
		fuzz_check_printable(err);
	} else if (!req.help) {
		FUZZ_CHECK(cmd >= 1 && cmd <= argc);
		const char *names[PCSWEEP_MAX_NAMES];
		size_t n = pcsweep_counters(&req, names, PCSWEEP_MAX_NAMES);
		FUZZ_CHECK(n <= PCSWEEP_MAX_NAMES);
		for (size_t i = 0; i < n; i++)
			FUZZ_CHECK(names[i] && names[i][0]);
		const char *opts = pcsweep_backend_options(&req);
		FUZZ_CHECK(opts && strlen(opts) < sizeof(req.options));
		FUZZ_CHECK(pcsweep_passes(&req) <= 128);
	}
	free(storage);
	return 0;
}
