/* SPDX-License-Identifier: MIT */
/* test_events.c — Table 3, bank assignment, control words and the counter file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "catalog/counterfile.h"
#include "mips/control.h"
#include "mips/events.h"
#include "mips/procperf.h"
#include "mips/wrap.h"

/* Brute force: try every counter for every event. */
static bool brute_fits(const uint32_t *ids, size_t n, size_t i, unsigned used)
{
	if (i == n)
		return true;
	unsigned bank = og_mips_raw_bank(ids[i]);
	for (unsigned c = 0; c < 4; c++) {
		if (used & (1u << c))
			continue;
		if (bank != OG_MIPS_ANY && (c & 1) != bank)
			continue;
		if (brute_fits(ids, n, i + 1, used | (1u << c)))
			return true;
	}
	return false;
}

static void test_assign_is_exact(void **unused)
{
	/* Every multiset of up to 5 events drawn from 3 even, 3 odd, 3 any. */
	const uint32_t pool[9] = {
		og_mips_raw_id(OG_MIPS_EVEN, 2), og_mips_raw_id(OG_MIPS_EVEN, 9),
		og_mips_raw_id(OG_MIPS_EVEN, 10), og_mips_raw_id(OG_MIPS_ODD, 2),
		og_mips_raw_id(OG_MIPS_ODD, 9), og_mips_raw_id(OG_MIPS_ODD, 10),
		og_mips_raw_id(OG_MIPS_ANY, 0), og_mips_raw_id(OG_MIPS_ANY, 1),
		og_mips_raw_id(OG_MIPS_ANY, 11),
	};
	unsigned checked = 0;
	for (size_t n = 0; n <= 5; n++) {
		size_t combos = 1;
		for (size_t k = 0; k < n; k++)
			combos *= 9;
		for (size_t code = 0; code < combos; code++) {
			uint32_t ids[5];
			size_t c = code;
			for (size_t k = 0; k < n; k++, c /= 9)
				ids[k] = pool[c % 9];
			int counter_of[5] = {-1, -1, -1, -1, -1};
			bool fits = og_mips_assign(ids, n, counter_of);
			assert_int_equal(fits, brute_fits(ids, n, 0, 0));
			if (!fits)
				continue;
			unsigned used = 0;
			for (size_t k = 0; k < n; k++) {
				int ctr = counter_of[k];
				assert_true(ctr >= 0 && ctr < 4);
				assert_false(used & (1u << ctr));
				used |= 1u << ctr;
				unsigned bank = og_mips_raw_bank(ids[k]);
				assert_true(bank == OG_MIPS_ANY || (unsigned)(ctr & 1) == bank);
			}
			checked++;
		}
	}
	assert_true(checked > 1000);
}

static void test_plan_is_minimal_and_valid(void **unused)
{
	/* e even-only, o odd-only, a any: passes = max(ceil(e/2), ceil(o/2), ceil((e+o+a)/4)). */
	for (unsigned e = 0; e <= 7; e++)
		for (unsigned o = 0; o <= 7; o++)
			for (unsigned a = 0; a <= 4; a++) {
				static const unsigned any_events[4] = {0, 1, 11, 12};
				uint32_t ids[32];
				size_t n = 0;
				for (unsigned k = 0; k < e; k++)
					ids[n++] = og_mips_raw_id(OG_MIPS_EVEN, 2 + k);
				for (unsigned k = 0; k < o; k++)
					ids[n++] = og_mips_raw_id(OG_MIPS_ODD, 2 + k);
				for (unsigned k = 0; k < a; k++)
					ids[n++] = og_mips_raw_id(OG_MIPS_ANY, any_events[k]);
				ids[n] = ids[0]; /* a duplicate shares a slot */
				size_t total = n + (n > 0);
				unsigned pass_of[32];
				int counter_of[32];
				size_t p = og_mips_plan(ids, total, pass_of, counter_of);
				size_t want = (e + 1) / 2;
				if ((o + 1) / 2 > want)
					want = (o + 1) / 2;
				if ((e + o + a + 3) / 4 > want)
					want = (e + o + a + 3) / 4;
				assert_int_equal(p, want);
				for (size_t pass = 0; pass < p; pass++) {
					uint32_t in_pass[32];
					size_t m = 0;
					unsigned used = 0;
					for (size_t k = 0; k < n; k++) {
						if (pass_of[k] != pass)
							continue;
						in_pass[m++] = ids[k];
						assert_false(used & (1u << counter_of[k]));
						used |= 1u << counter_of[k];
						unsigned bank = og_mips_raw_bank(ids[k]);
						assert_true(bank == OG_MIPS_ANY ||
						            (unsigned)(counter_of[k] & 1) == bank);
					}
					assert_true(og_mips_assign(in_pass, m, NULL));
				}
				if (n > 0) {
					assert_int_equal(pass_of[n], pass_of[0]);
					assert_int_equal(counter_of[n], counter_of[0]);
				}
			}
}

static void test_sources(void **unused)
{
	unsigned bank, event;
	const char *why;
	assert_true(og_mips_parse_source("even:1", &bank, &event, &why));
	assert_int_equal(bank, OG_MIPS_EVEN);
	assert_int_equal(event, 1);
	assert_true(og_mips_parse_source("odd:127", &bank, &event, &why));
	assert_int_equal(bank, OG_MIPS_ODD);
	assert_true(og_mips_parse_source("any:11", &bank, &event, &why));
	assert_int_equal(bank, OG_MIPS_ANY);
	static const char *const bad[] = {"even", "even:", "odd:128", "any:1a", "EVEN:1", ":1",
	                                  "odd: 1", "odd:+1", "odd:1000"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		why = NULL;
		assert_false(og_mips_parse_source(bad[i], &bank, &event, &why));
		assert_non_null(why);
	}
}

static void test_table3(void **unused)
{
	/* Spot checks against MD00548 Table 3. */
	assert_string_equal(og_mips_event_find(OG_MIPS_EVEN, 9)->name, "ICacheAccesses");
	assert_string_equal(og_mips_event_find(OG_MIPS_ODD, 9)->name, "ICacheMisses");
	assert_string_equal(og_mips_event_find(OG_MIPS_ODD, 11)->name, "DCacheMisses");
	assert_string_equal(og_mips_event_find(OG_MIPS_EVEN, 11)->name, "DCacheMisses");
	assert_string_equal(og_mips_event_find(OG_MIPS_EVEN, 25)->name, "IFUStalls");
	assert_string_equal(og_mips_event_find(OG_MIPS_ODD, 25)->name, "ALUStalls");
	assert_int_equal(og_mips_event_find(OG_MIPS_EVEN, 18)->scope, OG_MIPS_PER_CORE);
	assert_int_equal(og_mips_event_find(OG_MIPS_ODD, 18)->scope, OG_MIPS_PER_TC);
	assert_int_equal(og_mips_event_find(OG_MIPS_EVEN, 47)->scope, OG_MIPS_PER_VPE);
	/* Odd 46 is processor-wide in Linux's 34K table (raw 174), even 46 per TC. */
	assert_int_equal(og_mips_event_find(OG_MIPS_ODD, 46)->scope, OG_MIPS_PER_CORE);
	assert_int_equal(og_mips_event_find(OG_MIPS_EVEN, 46)->scope, OG_MIPS_PER_TC);
	/* Reserved. */
	assert_null(og_mips_event_find(OG_MIPS_EVEN, 27));
	assert_null(og_mips_event_find(OG_MIPS_ODD, 23));
	assert_null(og_mips_event_find(OG_MIPS_ODD, 44));
	assert_null(og_mips_event_find(OG_MIPS_ODD, 47));
	for (unsigned b = 0; b < 2; b++) {
		assert_null(og_mips_event_find(b, 36));
		assert_null(og_mips_event_find(b, 49));
		for (unsigned e = 56; e < 128; e++)
			assert_null(og_mips_event_find(b, e));
	}
	/* Every event 0..55 of both banks but the 8 reserved ones (3 even, 5 odd). */
	unsigned present = 0;
	for (unsigned b = 0; b < 2; b++)
		for (unsigned e = 0; e < 56; e++)
			present += og_mips_event_find(b, e) != NULL;
	assert_int_equal(present, 2 * 56 - 8);
	/* Names unique; raw id round trip. */
	for (size_t i = 0; i < og_mips_event_count; i++) {
		const struct og_mips_event *e = &og_mips_events[i];
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(e->name, og_mips_events[j].name);
		assert_ptr_equal(og_mips_event_of_raw(og_mips_raw_id(e->bank, e->event)), e);
	}
	assert_null(og_mips_event_of_raw(og_mips_raw_id(OG_MIPS_ANY, 2)));
	assert_null(og_mips_event_of_raw(0xffffffffu));
}

static void test_control_words(void **unused)
{
	/* MD00548 §4.2: "echo 0 0x0000028 0" counts user-mode instructions. */
	struct og_mips_scope_opts o = {.modes = OG_MIPS_CTL_U};
	assert_int_equal(og_mips_control(&o, 1, OG_MIPS_PER_TC), 0x28);
	/* Reference sheet §4.4: user instructions with IE = 0x38; cycles U+K+EXL with IE = 0x1b. */
	o.ie = true;
	assert_int_equal(og_mips_control(&o, 1, OG_MIPS_PER_TC), 0x38);
	o.modes = OG_MIPS_CTL_U | OG_MIPS_CTL_K | OG_MIPS_CTL_EXL;
	assert_int_equal(og_mips_control(&o, 0, OG_MIPS_PER_CORE), 0x1b);
	/* Figure 3's control words decode as events 41, 45, 45, 46 in user mode. */
	assert_int_equal((0x80000528u >> 5) & 0x7f, 41);
	/* TC and VPE scoping: only as fine as the event allows. */
	o.modes = OG_MIPS_CTL_U;
	o.ie = false;
	o.mt_en = OG_MIPS_MT_TC;
	o.tc = 3;
	assert_int_equal(og_mips_control(&o, 1, OG_MIPS_PER_TC), 0x28 | (2u << 20) | (3u << 22));
	assert_int_equal(og_mips_control(&o, 0, OG_MIPS_PER_CORE), 0x08);
	assert_int_equal(og_mips_control(&o, 47, OG_MIPS_PER_VPE), (47u << 5) | 0x8);
	o.mt_en = OG_MIPS_MT_VPE;
	o.vpe = 1;
	assert_int_equal(og_mips_control(&o, 47, OG_MIPS_PER_VPE),
	                 (47u << 5) | 0x8 | (1u << 20) | (1u << 16));
	assert_int_equal(og_mips_control(&o, 18, OG_MIPS_PER_CORE), (18u << 5) | 0x8);
}

static void test_modes(void **unused)
{
	uint32_t m;
	assert_true(og_mips_parse_modes("u", &m));
	assert_int_equal(m, OG_MIPS_CTL_U);
	assert_true(og_mips_parse_modes("u+s+k+exl", &m));
	assert_int_equal(m, 0xf);
	assert_true(og_mips_parse_modes("k:exl", &m));
	assert_int_equal(m, OG_MIPS_CTL_K | OG_MIPS_CTL_EXL);
	assert_true(og_mips_parse_modes("exl", &m));
	assert_int_equal(m, OG_MIPS_CTL_EXL);
	assert_true(og_mips_parse_modes("uk", &m));
	assert_int_equal(m, OG_MIPS_CTL_U | OG_MIPS_CTL_K);
	static const char *const bad[] = {"", "q", "u+", "+u", "u++k", "user", "ex", "u+exl+z"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		if (og_mips_parse_modes(bad[i], &m))
			fail_msg("modes \"%s\" accepted", bad[i]);
}

static void test_wrap_arithmetic(void **unused)
{
	assert_int_equal(og_mips_delta(10, 25, false), 15);
	assert_int_equal(og_mips_delta(0xfffffff0u, 0x10, false), 0x20);
	assert_int_equal(og_mips_delta(0x10, 0x10, false), 0);
	assert_int_equal(og_mips_delta(5, 3, true), 0); /* backwards: 0, never a wrap */
	assert_int_equal(og_mips_delta(5000000000ull, 9000000000ull, true), 4000000000ull);
	assert_true(og_mips_counts_look_32bit(0, UINT32_MAX));
	assert_false(og_mips_counts_look_32bit(0, 1ull << 32));
	/* 2^32 cycles at 500 MHz last 8.59 s. */
	assert_false(og_mips_may_wrap_twice(8500000000ull, 500));
	assert_true(og_mips_may_wrap_twice(8600000000ull, 500));
	assert_false(og_mips_may_wrap_twice(0, 1e12));
}

/* Every event of the table is a raw counter of counters/mips-34k.counters
 * with the same source, and the file declares no other raw counter. */
static void test_counter_file_matches_table(void **unused)
{
	FILE *f = fopen(MIPS_COUNTERS_FILE, "r");
	assert_non_null(f);
	char line[512], name[128] = "";
	bool in_raw = false;
	size_t raws = 0, matched = 0;
	while (fgets(line, sizeof line, f)) {
		if (strncmp(line, "raw ", 4) == 0) {
			in_raw = true;
			raws++;
			sscanf(line + 4, "%127s", name);
			continue;
		}
		if (line[0] != ' ' && line[0] != '\t')
			in_raw = false;
		char source[64];
		if (!in_raw || sscanf(line, " source: %63s", source) != 1)
			continue;
		const struct og_mips_event *e = NULL;
		for (size_t i = 0; i < og_mips_event_count && !e; i++)
			if (strcmp(og_mips_events[i].name, name) == 0)
				e = &og_mips_events[i];
		if (!e)
			fail_msg("raw %s is not in the event table", name);
		char want[32];
		snprintf(want, sizeof want, "%s:%u",
		         e->bank == OG_MIPS_EVEN ? "even" : e->bank == OG_MIPS_ODD ? "odd" : "any",
		         e->event);
		assert_string_equal(source, want);
		matched++;
	}
	fclose(f);
	assert_int_equal(raws, og_mips_event_count);
	assert_int_equal(matched, og_mips_event_count);
}

/* pc_parse prints each event's raw count under its label (events.c).  A
 * description that quotes one of those rows must belong to that event's raw
 * counter: a derived counter quoting it would claim a ratio is the count. */
static void test_pc_parse_rows_are_raw_counts(void **unused)
{
	(void)unused;
	struct og_cf_file file;
	char err[512];
	if (!og_cf_load(MIPS_COUNTERS_FILE, &file, err, sizeof err))
		fail_msg("%s", err);
	unsigned quoted = 0;
	for (size_t i = 0; i < file.count; i++) {
		const struct og_cf_entry *en = &file.entries[i];
		const char *d = en->field[OG_F_DESCRIPTION];
		for (size_t k = 0; d && k < og_mips_event_count; k++) {
			char row[128];
			snprintf(row, sizeof row, "pc_parse's \"%s\"", og_mips_events[k].label);
			if (!strstr(d, row))
				continue;
			quoted++;
			if (en->kind != OG_CF_RAW || strcmp(en->name, og_mips_events[k].name) != 0)
				fail_msg("%s:%u: %s quotes %s, which is the raw count %s", MIPS_COUNTERS_FILE,
				         en->line, en->name, row, og_mips_events[k].name);
		}
	}
	og_cf_free(&file);
	assert_true(quoted > 0);
}

static void test_figure3_parses(void **unused)
{
	/* MD00548 Figure 3, as printed (including its 7-digit control word). */
	static const char text[] = "PerfCnt[0].Ctl : 0x80000528\nPerfCnt[0].Cnt : 108399\n"
	                           "PerfCnt[1].Ctl : 0x800005a8\nPerfCnt[1].Cnt : 1171512\n"
	                           "PerfCnt[2].Ctl : 0x800005a8\nPerfCnt[2].Cnt : 285070\n"
	                           "PerfCnt[3].Ctl : 0x00005c8\nPerfCnt[3].Cnt : 779389\n";
	struct og_mips_snapshot s;
	char why[160];
	assert_int_equal(og_mips_parse_text(text, sizeof text - 1, &s, why, sizeof why), 0);
	assert_int_equal(s.ctl[0], 0x80000528u);
	assert_int_equal(s.ctl[3], 0x5c8u);
	assert_int_equal(s.cnt[1], 1171512);
	assert_int_equal(s.cnt[3], 779389);
	/* 64-bit counts of an extended kernel, CRLF, blank lines and any order. */
	static const char text2[] = "\nPerfCnt[3].Cnt : 18446744073709551615\r\n"
	                            "PerfCnt[3].Ctl : 0x0\nPerfCnt[2].Ctl:0x1\nPerfCnt[2].Cnt:2\n"
	                            "PerfCnt[1].Ctl : 0X1\nPerfCnt[1].Cnt : 3\n"
	                            "PerfCnt[0].Ctl : 1f\nPerfCnt[0].Cnt : 4\n";
	assert_int_equal(og_mips_parse_text(text2, sizeof text2 - 1, &s, why, sizeof why), 0);
	assert_true(s.cnt[3] == UINT64_MAX);
	assert_int_equal(s.ctl[0], 0x1f);
}

static void test_malformed_texts(void **unused)
{
	static const struct {
		const char *text;
		const char *why;
	} cases[] = {
		{"", "PerfCnt[0].Ctl is missing"},
		{"PerfCnt[0].Ctl : 0x1\n", "PerfCnt[0].Cnt is missing"},
		{"PerfCnt[0].Ctl :\n", "no value"},
		{"PerfCnt[0].Ctl : \n", "no value"},
		{"PerfCnt[0].Ctl 0x1\n", "no ':'"},
		{"PerfCnt[0.Ctl : 0x1\n", "neither"},
		{"PerfCnt[].Ctl : 0x1\n", "no counter number"},
		{"PerfCnt[4].Ctl : 0x1\n", "other than 0..3"},
		{"PerfCnt[99999999999].Ctl : 0x1\n", "other than 0..3"},
		{"PerfCnt[0].Ctl : 0xg\n", "no hexadecimal"},
		{"PerfCnt[0].Ctl : 0x1 junk\n", "text after"},
		{"PerfCnt[0].Ctl : 0x100000000\n", "wider than 32"},
		{"PerfCnt[0].Cnt : -1\n", "no decimal"},
		{"PerfCnt[0].Cnt : 18446744073709551616\n", "64 bits"},
		{"PerfCnt[0].Cnt : 1\nPerfCnt[0].Cnt : 1\n", "repeats"},
		{"hello world\n", "does not start"},
		{"PerfCnt[0].Ctl : 0x1\0\n", "NUL"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct og_mips_snapshot s;
		char why[160] = "";
		size_t len = strlen(cases[i].text);
		if (strstr(cases[i].why, "NUL"))
			len += 2;
		assert_int_equal(og_mips_parse_text(cases[i].text, len, &s, why, sizeof why), -1);
		if (!strstr(why, cases[i].why))
			fail_msg("case %zu: \"%s\" lacks \"%s\"", i, why, cases[i].why);
		assert_null(strchr(why, '\n'));
	}
}

static void test_format_write(void **unused)
{
	char buf[64];
	assert_int_equal(og_mips_format_write(buf, sizeof buf, 0, 0x28, 0), strlen("0 0x00000028 0\n"));
	assert_string_equal(buf, "0 0x00000028 0\n");
	og_mips_format_write(buf, sizeof buf, 3, 0x1b, -1);
	assert_string_equal(buf, "3 0x0000001b -1\n");
	assert_int_equal(og_mips_format_write(buf, 8, 3, 0x1b, 123456789), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_assign_is_exact),
		cmocka_unit_test(test_plan_is_minimal_and_valid),
		cmocka_unit_test(test_sources),
		cmocka_unit_test(test_table3),
		cmocka_unit_test(test_control_words),
		cmocka_unit_test(test_modes),
		cmocka_unit_test(test_wrap_arithmetic),
		cmocka_unit_test(test_counter_file_matches_table),
		cmocka_unit_test(test_pc_parse_rows_are_raw_counts),
		cmocka_unit_test(test_figure3_parses),
		cmocka_unit_test(test_malformed_texts),
		cmocka_unit_test(test_format_write),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
