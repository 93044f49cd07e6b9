/* SPDX-License-Identifier: MIT */
/*
 * fuzz_datafile.c — the counter-set data file (lib/catalog/datafile.h): a
 * file installed beside the library, which a damaged disk, a half-finished
 * copy or a hostile user (OPENGPA_COUNTER_SETS) hands the library.
 *
 * Input: the file, any bytes (libFuzzer's buffer is exactly its size, so
 * ASan sees a read past it).  Oracles: a refusal's sentence is printable;
 * in an accepted file every set's text the reader hands back is exactly
 * its recorded length, with no NUL inside, and goes through the counter
 * file reader as the library would take it.
 */
#include <string.h>

#include "catalog/counterfile.h"
#include "catalog/datafile.h"
#include "fuzz.h"

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > (1u << 20))
		return 0;
	char err[512];
	if (!og_datafile_check(data, size, err, sizeof(err))) {
		fuzz_check_printable(err);
		return 0;
	}
	/* The check placed every record and name inside the file. */
	uint32_t nsets = le32(data + 12);
	for (uint32_t i = 0; i < nsets; i++) {
		const char *name = (const char *)data + le32(data + 32 + 32 * (size_t)i);
		const char *text;
		size_t len;
		GPA_Status st = og_datafile_find(data, size, name, &text, &len, err, sizeof(err));
		if (st != GPA_STATUS_OK) {
			FUZZ_CHECK(st == GPA_STATUS_ERROR_FAILED);
			fuzz_check_printable(err);
			continue;
		}
		FUZZ_CHECK(text >= (const char *)data && text + len < (const char *)data + size);
		FUZZ_CHECK(strlen(text) == len);
		struct og_cf_file file;
		if (og_cf_parse("counters/fuzz.counters", text, &file, err, sizeof(err)))
			og_cf_free(&file);
	}
	const char *text;
	size_t len;
	GPA_Status st = og_datafile_find(data, size, "no-such-set", &text, &len, err, sizeof(err));
	FUZZ_CHECK(st == GPA_STATUS_ERROR_NOT_FOUND || st == GPA_STATUS_ERROR_FAILED);
	return 0;
}
