/* SPDX-License-Identifier: MIT */
/*
 * fuzz_procperf.c — the parser of the SMTC /proc/perf text (what the kernel
 * hands the mips backend on every sample; the kernel is an adversary).
 *
 * Input: the file's text, any bytes.  Oracles: a refusal's sentence is
 * printable; an accepted snapshot, printed back in the kernel's own format,
 * parses to the same snapshot; a "num control value" line formats within
 * its buffer.
 */
#include <inttypes.h>
#include <string.h>

#include "fuzz.h"
#include "mips/procperf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 65536)
		return 0;
	struct og_mips_snapshot snap;
	char why[256];
	memset(&snap, 0, sizeof(snap));
	if (og_mips_parse_text((const char *)data, size, &snap, why, sizeof(why)) != 0) {
		fuzz_check_printable(why);
		return 0;
	}
	char text[512];
	size_t at = 0;
	for (unsigned n = 0; n < OG_MIPS_COUNTERS; n++)
		at += (size_t)snprintf(text + at, sizeof(text) - at,
		                       "PerfCnt[%u].Ctl : 0x%08" PRIx32 "\nPerfCnt[%u].Cnt : %" PRIu64 "\n",
		                       n, snap.ctl[n], n, snap.cnt[n]);
	FUZZ_CHECK(at < sizeof(text));
	struct og_mips_snapshot again;
	memset(&again, 0, sizeof(again));
	FUZZ_CHECK(og_mips_parse_text(text, at, &again, why, sizeof(why)) == 0);
	FUZZ_CHECK(memcmp(&snap, &again, sizeof(snap)) == 0);
	for (unsigned n = 0; n < OG_MIPS_COUNTERS; n++) {
		char line[64];
		size_t len = og_mips_format_write(line, sizeof(line), n, snap.ctl[n],
		                                  (int64_t)(snap.cnt[n] & 0x7fffffff));
		FUZZ_CHECK(len > 0 && len < sizeof(line) && strlen(line) == len);
	}
	return 0;
}
