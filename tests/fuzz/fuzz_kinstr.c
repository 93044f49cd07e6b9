/* SPDX-License-Identifier: MIT */
/*
 * fuzz_kinstr.c — what kbase's kinstr_prfcnt interface hands the mali
 * backend (kinstr_parse.h): the ENUM_INFO list, then one sample's metadata
 * items in the mapped ring and the counter values they point at, summed.
 * The kernel is an adversary: every count, size, offset and index here
 * comes from the input.
 *
 * Input: byte 0 picks the metadata item size (48 + 8 * (bits 0-1)) and the
 * sample's offset in the ring (bits 2-7, in items); bytes 1-8 the core mask
 * the GPU properties would give; byte 9 the number of enumeration items
 * (at most 32), which follow, 32 bytes each; the rest is the ring, mapped
 * exactly (a read past it is one past an allocation).  Oracles: a refusal
 * says why in printable text; every value offset of an accepted sample lies
 * inside the ring; each total is the saturating sum of its block's
 * instances, and the values past a block's length are left alone.
 */
#include <string.h>

#include "fuzz.h"
#include "mali/kinstr_parse.h"

#define UNTOUCHED 0x5A5A5A5A5A5A5A5Aull

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 10 || size > 262144)
		return 0;
	uint32_t item_size = 48 + 8 * (data[0] & 3);
	uint64_t offset = (uint64_t)(data[0] >> 2) * item_size, mask;
	memcpy(&mask, data + 1, sizeof mask);
	size_t n = data[9] % 33, at = 10;
	struct og_kinstr_enum_item items[32];
	memset(items, 0, sizeof items);
	size_t have = (size - at) / sizeof(items[0]) < n ? (size - at) / sizeof(items[0]) : n;
	memcpy(items, data + at, have * sizeof(items[0]));
	at += have * sizeof(items[0]);

	char why[320] = "";
	struct og_kinstr_enum e;
	if (!og_kinstr_parse_enum(items, n, sizeof(items[0]), &e, why, sizeof why)) {
		fuzz_check_printable(why);
		return 0;
	}
	size_t map_size = size - at;
	uint8_t *map = malloc(map_size ? map_size : 1);
	FUZZ_CHECK(map != NULL);
	memcpy(map, data + at, map_size);
	struct og_kinstr_layout l;
	if (!og_kinstr_layout_init(&l, &e, mask, item_size, map_size, why, sizeof why)) {
		fuzz_check_printable(why);
		free(map);
		return 0;
	}
	struct og_kinstr_sample s;
	if (og_kinstr_parse_sample(&l, map, offset, &s, why, sizeof why) != OG_KINSTR_OK) {
		fuzz_check_printable(why);
		free(map);
		return 0;
	}
	static struct og_mali_totals t;
	for (size_t i = 0; i < OG_MALI_HW_RAW; i++)
		t.v[i] = UNTOUCHED;
	og_kinstr_sum(&l, map, &s, &t);
	for (uint32_t type = 0; type < OG_MALI_BLOCK_TYPES; type++) {
		uint32_t nv = s.count[type] ? e.values[type] : 0;
		FUZZ_CHECK(nv <= OG_MALI_MAX_VALUES && s.count[type] <= OG_KINSTR_MAX_INSTANCES);
		for (uint32_t i = 0; i < s.count[type]; i++)
			FUZZ_CHECK(s.at[type][i] <= map_size && map_size - s.at[type][i] >= nv * 8u);
		for (uint32_t v = 0; v < OG_MALI_MAX_VALUES; v++) {
			uint64_t want = UNTOUCHED;
			if (v < nv) {
				want = 0;
				for (uint32_t i = 0; i < s.count[type]; i++) {
					uint64_t x;
					memcpy(&x, map + s.at[type][i] + v * 8u, sizeof x);
					want = want > UINT64_MAX - x ? UINT64_MAX : want + x;
				}
			}
			FUZZ_CHECK(og_mali_total(&t, type * OG_MALI_MAX_VALUES + v) == want);
		}
	}
	free(map);
	return 0;
}
