/* SPDX-License-Identifier: MIT */
/*
 * fuzz_mali_source.c — the Mali backends' `source:` strings
 * (og_mali_parse_source), which come from counter files, user files
 * included.  The parser is hand-written for the open's speed
 * (docs/performance.md, "Opening"); the oracle here is the plain reading
 * of the same grammar with the C library: a block name (FE or its synonym
 * JM, TILER, L2, SC, FW, CSG), ':', a decimal index from 4 to 127, or one
 * of CYCLES:top, CYCLES:shader, TIME:ns; or one instance of a block,
 * BLOCK#N:INDEX, N a decimal number below 64 (checked first), the front end
 * and the tiler refused (checked last).  Both must agree on every input:
 * the status, and the raw id where it is OK.
 */
#include <ctype.h>
#include <string.h>

#include "fuzz.h"
#include "mali/mali_common.h"

static const char *const blocks[OG_MALI_BLOCK_TYPES] = {"FE", "TILER", "L2", "SC", "FW", "CSG"};

static GPA_Status reference(const char *s, uint32_t *raw_id)
{
	if (strcmp(s, "CYCLES:top") == 0)
		return *raw_id = OG_MALI_RAW_CYCLES_TOP, GPA_STATUS_OK;
	if (strcmp(s, "CYCLES:shader") == 0)
		return *raw_id = OG_MALI_RAW_CYCLES_SHADER, GPA_STATUS_OK;
	if (strcmp(s, "TIME:ns") == 0)
		return *raw_id = OG_MALI_RAW_TIME_NS, GPA_STATUS_OK;
	const char *colon = strchr(s, ':');
	if (!colon)
		return GPA_STATUS_ERROR_FAILED;
	size_t len = (size_t)(colon - s);
	/* BLOCK#N: the first '#' before the colon. */
	const char *hash = memchr(s, '#', len);
	unsigned long instance = 0;
	if (hash) {
		char n[256];
		size_t nlen = (size_t)(colon - hash - 1);
		memcpy(n, hash + 1, nlen);
		n[nlen] = '\0';
		if (!nlen || strspn(n, "0123456789") != nlen)
			return GPA_STATUS_ERROR_FAILED;
		const char *d = n;
		while (d[0] == '0' && d[1])
			d++;
		instance = strlen(d) > 2 ? 100 : strtoul(d, NULL, 10);
		if (instance >= 64)
			return GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE;
		len = (size_t)(hash - s);
	}
	uint32_t block = OG_MALI_BLOCK_TYPES;
	for (uint32_t b = 0; b < OG_MALI_BLOCK_TYPES; b++)
		if (strlen(blocks[b]) == len && strncmp(s, blocks[b], len) == 0)
			block = b;
	if (len == 2 && strncmp(s, "JM", 2) == 0)
		block = OG_MALI_FE;
	if (block == OG_MALI_BLOCK_TYPES)
		return GPA_STATUS_ERROR_FAILED;
	const char *digits = colon + 1;
	if (!*digits || strspn(digits, "0123456789") != strlen(digits))
		return GPA_STATUS_ERROR_FAILED;
	/* Any number of digits: leading zeros count for nothing, and more than
	 * three significant ones are out of range however many there are. */
	while (digits[0] == '0' && digits[1])
		digits++;
	unsigned long index = strlen(digits) > 3 ? 1000 : strtoul(digits, NULL, 10);
	if (index < OG_MALI_HEADER_WORDS || index >= OG_MALI_MAX_VALUES)
		return GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE;
	if (hash) {
		if (block == OG_MALI_FE || block == OG_MALI_TILER)
			return GPA_STATUS_ERROR_FAILED;
		*raw_id = 1024u + (block * 64u + (uint32_t)instance) * 128u + (uint32_t)index;
		return GPA_STATUS_OK;
	}
	*raw_id = block * OG_MALI_MAX_VALUES + (uint32_t)index;
	return GPA_STATUS_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *source = fuzz_text(data, size, 256);
	uint32_t got = UINT32_MAX, want = UINT32_MAX;
	const char *why = NULL;
	GPA_Status status = og_mali_parse_source(source, &got, &why);
	GPA_Status expected = reference(source, &want);
	FUZZ_CHECK(status == expected);
	if (status == GPA_STATUS_OK) {
		FUZZ_CHECK(got == want &&
		           (got < OG_MALI_RAW_COUNT || og_mali_raw_is_instance(got)));
		FUZZ_CHECK(why == NULL);
	} else {
		FUZZ_CHECK(why != NULL && *why != '\0');
	}
	free(source);
	return 0;
}
