/* SPDX-License-Identifier: MIT */
/*
 * The separated-values writers with hostile separators and fields: every
 * line written is read back with an RFC 4180 reader that knows only the
 * separator, and must give back the very fields written.  A writer that
 * quotes by commas instead of by SEP, or does not double a quote inside a
 * field, fails here.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "format.h"
#include "opengpa.h"
#include "timeline.h"

#define MAX_FIELDS 32

/* Reads one record of `text` (up to its unquoted end of line) separated by
 * `sep`: fields allocated into out[], their count, or -1 when the text is
 * not RFC 4180 (a quote in an unquoted field, text after a closing quote).
 * *end is set after the line end. */
static int read_record(const char *text, const char *sep, char **out, const char **end)
{
	size_t seplen = strlen(sep);
	int n = 0;
	const char *p = text;
	for (;;) {
		char *field = calloc(strlen(text) + 1, 1);
		size_t len = 0;
		if (*p == '"') {
			for (p++;; p++) {
				if (!*p) {
					free(field);
					return -1; /* unterminated */
				}
				if (*p == '"' && p[1] == '"')
					field[len++] = *p++;
				else if (*p == '"')
					break;
				else
					field[len++] = *p;
			}
			p++;
		} else {
			while (*p && *p != '\r' && *p != '\n' && strncmp(p, sep, seplen) != 0) {
				if (*p == '"') {
					free(field);
					return -1;
				}
				field[len++] = *p++;
			}
		}
		if (n == MAX_FIELDS) {
			free(field);
			return -1;
		}
		out[n++] = field;
		if (strncmp(p, sep, seplen) == 0) {
			p += seplen;
			continue;
		}
		if (*p == '\r')
			p++;
		if (*p == '\n')
			p++;
		else if (*p)
			return -1; /* after a closing quote: neither a separator nor the end */
		*end = p;
		return n;
	}
}

static void free_fields(char **f, int n)
{
	for (int i = 0; i < n; i++)
		free(f[i]);
}

static const char *const hostile[] = {
	"", "plain", "a,b", "say \"hi\"", "\"", "\"\"", "line\nbreak", "cr\rx", "crlf\r\n",
	":", "a:", ":a", "x::y", "ab", "a", "b", "ba", "12.5", " spaced ", ";", "\t",
	"|pipe|", "TaskClock", "caf\xc3\xa9",
};
static const char *const separators[] = { ",", ";", "\t", "::", "ab", "|", " ", ".", "Cl",
	                                  ", " };

static char *row_of(const char *sep, const char *const *fields, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	assert_non_null(m);
	for (size_t k = 0; k < n; k++) {
		if (k)
			fputs(sep, m);
		fmt_csv_field(m, fields[k], sep);
	}
	fputc('\n', m);
	fclose(m);
	return buf;
}

/* Every field, with every separator, reads back as written. */
static void test_round_trip(void **state)
{
	(void)state;
	size_t n = sizeof hostile / sizeof hostile[0];
	for (size_t s = 0; s < sizeof separators / sizeof separators[0]; s++) {
		const char *sep = separators[s];
		char *line = row_of(sep, hostile, n);
		char *got[MAX_FIELDS];
		const char *end = NULL;
		int k = read_record(line, sep, got, &end);
		if (k != (int)n)
			fail_msg("SEP '%s': %d fields read back from %zu written: %s", sep, k, n, line);
		for (size_t i = 0; i < n; i++)
			if (strcmp(got[i], hostile[i]) != 0)
				fail_msg("SEP '%s': field %zu written '%s' read back '%s'", sep, i,
				         hostile[i], got[i]);
		assert_string_equal(end, "");
		free_fields(got, k);
		free(line);
	}
}

static char *field_of(const char *field, const char *sep)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	assert_non_null(m);
	fmt_csv_field(m, field, sep);
	fclose(m);
	return buf;
}

/* Exactly RFC 4180: plain fields as they are, quotes doubled, the quoting
 * decided by SEP and not by a comma. */
static void test_exact(void **state)
{
	(void)state;
	static const struct {
		const char *field, *sep, *written;
	} cases[] = {
		{ "plain", ",", "plain" },
		{ "a,b", ",", "\"a,b\"" },
		{ "a,b", ";", "a,b" },          /* a comma is only text under -x ';' */
		{ "a;b", ";", "\"a;b\"" },
		{ "a;b", ",", "a;b" },
		{ "say \"hi\"", ";", "\"say \"\"hi\"\"\"" },
		{ "\"", ",", "\"\"\"\"" },
		{ "x\ny", "\t", "\"x\ny\"" },
		{ "x\ry", "\t", "\"x\ry\"" },
		{ "a:", "::", "\"a:\"" },        /* the separator's first character */
		{ "TaskClock", "Cl", "\"TaskClock\"" },
		{ "12.5", ".", "\"12.5\"" },
		{ "", ",", "" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *w = field_of(cases[i].field, cases[i].sep);
		if (strcmp(w, cases[i].written) != 0)
			fail_msg("field '%s' with SEP '%s' written as '%s', not '%s'", cases[i].field,
			         cases[i].sep, w, cases[i].written);
		free(w);
	}
}

/* The timeline CSV file and the -I -x lines with counter names, groups
 * and units that hold the separator, quotes and line breaks: every line
 * has as many fields as the header (or as -I -x's five), and the names
 * read back. */
static void test_timeline_writers(void **state)
{
	(void)state;
	struct tl_series series[] = {
		{ .name = "Na\"me,1", .group = "G;1", .unit = "m\"s", .usage = "", .integer = true },
		{ .name = "two::x", .group = "line\nbreak", .unit = "", .usage = "it,ems" },
	};
	char *argv[] = { "sleep", "1", NULL };
	struct tl_run run = { .command = argv, .device = "dev", .backend = "perf", .pid = 1,
		              .period_ns = 1000000, .start_ns = 1000,
		              .series = series, .nseries = 2 };
	double values[] = { 3, 2.5 };
	struct tl_sample s = { .index = 0, .begin_ns = 1000, .end_ns = 2001000,
		               .flags = OPENGPA_SAMPLE_LATE | OPENGPA_SAMPLE_FINAL, .values = values };

	/* --csv: always ",". */
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	struct tl_output o = { .format = &tl_csv, .f = m };
	tl_begin(&o, &run);
	tl_sample(&o, &run, &s);
	tl_close(&o);
	fclose(m);
	char *f[MAX_FIELDS];
	const char *p = buf, *end;
	int header = read_record(p, ",", f, &end);
	assert_int_equal(header, 8);
	assert_string_equal(f[6], "Na\"me,1 (m\"s)");
	assert_string_equal(f[7], "two::x (it,ems)");
	free_fields(f, header);
	int row = read_record(end, ",", f, &end);
	assert_int_equal(row, header);
	assert_string_equal(f[5], "late final");
	free_fields(f, row);
	assert_string_equal(end, "");
	free(buf);

	/* -I -x SEP: perf's time field and seven fields a line (value, unit,
	 * event, run time, percentage running, metric value, metric unit),
	 * one line per counter. */
	for (size_t k = 0; k < sizeof separators / sizeof separators[0]; k++) {
		const char *sep = separators[k];
		buf = NULL;
		len = 0;
		m = open_memstream(&buf, &len);
		o = (struct tl_output){ .format = &tl_interval_separated, .f = m, .sep = sep };
		tl_begin(&o, &run);
		tl_sample(&o, &run, &s);
		tl_close(&o);
		fclose(m);
		p = buf;
		for (size_t i = 0; i < 2; i++) {
			int n = read_record(p, sep, f, &end);
			if (n != 8)
				fail_msg("-I -x '%s': line %zu has %d fields, not 8: %s", sep, i, n, p);
			assert_string_equal(f[3], series[i].name);
			if (strcmp(f[5], "100.00") != 0)
				fail_msg("-I -x '%s': line %zu: percentage running '%s', not 100.00: %s",
				         sep, i, f[5], p);
			free_fields(f, n);
			p = end;
		}
		assert_string_equal(p, "");
		free(buf);
	}
}

/* Held records (the interval reader's, a wake-up's at a time) reach the
 * file only at tl_release, together, and as the same bytes as unheld ones;
 * tl_close writes what is still held. */
static void test_held_records(void **state)
{
	(void)state;
	struct tl_series series[] = { { .name = "A", .group = "G", .unit = "ms", .usage = "" } };
	char *argv[] = { "true", NULL };
	struct tl_run run = { .command = argv, .device = "dev", .backend = "perf", .pid = 1,
		              .period_ns = 1000000, .start_ns = 1000, .series = series,
		              .nseries = 1 };
	double values[] = { 1.5 };
	struct tl_sample s = { .index = 0, .begin_ns = 1000, .end_ns = 1001000, .values = values };
	char *want = NULL, *got = NULL;
	size_t wlen = 0, glen = 0;
	FILE *w = open_memstream(&want, &wlen), *g = open_memstream(&got, &glen);
	struct tl_output plain = { .format = &tl_interval_table, .f = w };
	struct tl_output held = { .format = &tl_interval_table, .f = g };
	tl_begin(&plain, &run);
	tl_begin(&held, &run);
	fflush(g);
	size_t begun = glen;
	tl_hold(&held);
	for (int k = 0; k < 3; k++) {
		s.index = (uint32_t)k;
		s.end_ns += 1000000;
		tl_sample(&plain, &run, &s);
		tl_sample(&held, &run, &s);
		fflush(g);
		assert_int_equal(glen, begun); /* nothing yet */
	}
	tl_release(&held);
	fflush(w);
	fflush(g);
	assert_int_equal(glen, wlen);
	assert_memory_equal(got, want, wlen);
	/* Held again, then closed: written, not lost. */
	tl_hold(&held);
	tl_sample(&held, &run, &s);
	tl_sample(&plain, &run, &s);
	tl_close(&held);
	tl_close(&plain);
	fflush(w);
	fflush(g);
	assert_int_equal(glen, wlen);
	assert_memory_equal(got, want, wlen);
	fclose(w);
	fclose(g);
	free(want);
	free(got);
}

/* perf's rate per task-clock second, scaled as its convert_unit_double():
 * 75 faults in 0.78 ms is 96.154 K/sec; 0 in any time 0 /sec; a clock of
 * 0 gives 0 /sec, never a division by it. */
static void test_perf_rate(void **state)
{
	(void)state;
	double r = -1.0;
	assert_string_equal(fmt_perf_rate(75, 0.78, &r), "K/sec");
	assert_true(r > 96.15 && r < 96.16);
	assert_string_equal(fmt_perf_rate(0, 12.5, &r), "/sec");
	assert_true(r == 0.0);
	assert_string_equal(fmt_perf_rate(999, 1000.0, &r), "/sec");
	assert_true(r == 999.0);
	assert_string_equal(fmt_perf_rate(1000, 1000.0, &r), "K/sec");
	assert_true(r == 1.0);
	assert_string_equal(fmt_perf_rate(5e6, 1000.0, &r), "M/sec");
	assert_true(r == 5.0);
	assert_string_equal(fmt_perf_rate(3e9, 1000.0, &r), "G/sec");
	assert_true(r == 3.0);
	assert_string_equal(fmt_perf_rate(7, 0.0, &r), "/sec");
	assert_true(r == 0.0);
}

/* perf's --big-num in a locale's notation: groups of three (en_US), the
 * Indian 3;2 grouping, a separator of several bytes (U+202F), a decimal
 * comma; no separator (C) leaves the digits as they are. */
static void test_group_digits(void **state)
{
	(void)state;
	char buf[64];
	assert_string_equal(fmt_group_digits("1234567", ".", ",", "\3", buf, sizeof buf),
	                    "1,234,567");
	assert_string_equal(fmt_group_digits("123", ".", ",", "\3", buf, sizeof buf), "123");
	assert_string_equal(fmt_group_digits("123456", ".", ",", "\3", buf, sizeof buf),
	                    "123,456");
	assert_string_equal(fmt_group_digits("-1234.56", ",", ".", "\3", buf, sizeof buf),
	                    "-1.234,56");
	assert_string_equal(fmt_group_digits("123456789", ".", ",", "\3\2", buf, sizeof buf),
	                    "12,34,56,789");
	assert_string_equal(fmt_group_digits("1234567", ".", "\xe2\x80\xaf", "\3", buf,
	                                     sizeof buf), "1\xe2\x80\xaf" "234\xe2\x80\xaf" "567");
	assert_string_equal(fmt_group_digits("1234567.5", ".", "", "", buf, sizeof buf),
	                    "1234567.5");
	/* CHAR_MAX: no more grouping past the first group. */
	assert_string_equal(fmt_group_digits("1234567", ".", ",", "\3\177", buf, sizeof buf),
	                    "1234,567");
	/* Cut to fit, still a string. */
	assert_string_equal(fmt_group_digits("1234567", ".", ",", "\3", buf, 4), "1,2");
	/* The environment's C locale (the tests' own) has no separator. */
	struct fmt_numeric n;
	fmt_numeric_from_env(true, &n);
	assert_true(n.point[0] != '\0');
}

/* tl_number's fast path for integral values prints what printf prints,
 * at the edges where %.10g and %.17g turn to exponents too. */
static void test_numbers(void **state)
{
	(void)state;
	static const double values[] = {
		0.0, -0.0, 1.0, -1.0, 7.0, 10.0, 99.0, 12345.0, 4294967296.0, 9999999999.0,
		10000000000.0, 12345678901.0, 99999999999999984.0, 1e17, 123456789012345678.0,
		9007199254740993.0, 9.2e18, 1.8e19, -123456789.0, 0.5, 2.25, 1.0 / 3.0, 1e-7,
		-2.5, 1e300, 3.0e10,
	};
	static const char *const fmts[] = { "%.0f", "%.10g", "%.17g" };
	static const enum tl_digits digits[] = { TL_INTEGER, TL_G10, TL_G17 };
	for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
		for (size_t k = 0; k < 3; k++) {
			char want[TL_NUMBER_LEN], got[TL_NUMBER_LEN];
			if (k == 0)
				snprintf(want, sizeof want, "%.0f", values[i]);
			else if (k == 1)
				snprintf(want, sizeof want, "%.10g", values[i]);
			else
				snprintf(want, sizeof want, "%.17g", values[i]);
			tl_number(got, values[i], digits[k]);
			if (strcmp(want, got) != 0)
				fail_msg("tl_number(%.17g, %s) gave %s, printf %s", values[i], fmts[k], got,
				         want);
		}
	}
}

/* xorshift64: the same values every run. */
static uint64_t next_random(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* tl_fixed() spells what printf's "%.Nf" spells: at ties (exact halves,
 * to even), beside them (the decimal halves a double only comes near),
 * at carries, signs and zeros, on either side of its bounds, and at many
 * values of every size. */
static void test_fixed(void **state)
{
	(void)state;
	static const double edges[] = {
		0.0, -0.0, 0.125, 0.375, 1.0625, 2.675, 1.005, 0.0005, 0.0015, 0.0025, -0.0004,
		-0.0005, 999.9995, 9.9995, 0.9999999, 99.995, 1e-7, 1e-200, 1e-201, 1e-300,
		999999999999.9, 1e12, 4503599627370.4961, 1e15, 1e300, -2.5, 0.745, 0.0049999999,
		123456.7895, 5e-324, -1e-320,
	};
	static const char *const fmts[] = { "", "%.1f", "%.2f", "%.3f" };
	char want[400], got[400];
	for (size_t i = 0; i < sizeof edges / sizeof edges[0]; i++)
		for (int d = 1; d <= 3; d++) {
			snprintf(want, sizeof want, "%.*f", d, edges[i]);
			tl_fixed(got, sizeof got, edges[i], d);
			if (strcmp(want, got) != 0)
				fail_msg("tl_fixed(%.17g, %s) gave %s, printf %s", edges[i], fmts[d], got,
				         want);
		}
	uint64_t x = 0x9e3779b97f4a7c15ull;
	for (int k = 0; k < 20000; k++) {
		uint64_t r = next_random(&x);
		double v;
		switch (k % 4) {
		case 0: /* near a decimal half of three places */
			v = ((double)(r % 100000000u) + 0.5) / 1000.0;
			break;
		case 1: /* near one of two places, and its neighbours */
			v = nextafter(((double)(r % 1000000u) + 0.5) / 100.0, (r & 1) ? 1e300 : -1e300);
			break;
		case 2: /* any size the fast path takes, and past it */
			v = ldexp((double)(r >> 11) / 9007199254740992.0, (int)(r % 100) - 60);
			break;
		default: /* a task clock in ms */
			v = (double)(r % 100000000000u) / 1e6;
			break;
		}
		if (r & 2)
			v = -v;
		int d = 1 + (int)((r >> 3) % 3);
		snprintf(want, sizeof want, "%.*f", d, v);
		tl_fixed(got, sizeof got, v, d);
		if (strcmp(want, got) != 0)
			fail_msg("tl_fixed(%.17g, %s) gave %s, printf %s", v, fmts[d], got, want);
	}
	/* Cut short, still what snprintf leaves. */
	tl_fixed(got, 4, 12.345, 3);
	assert_string_equal(got, "12.");
}

/* tl_seconds_text() spells "%*.9f" of tl_seconds(): near the start, at
 * whole seconds, far into a run and past its bound, before the start. */
static void test_seconds_text(void **state)
{
	(void)state;
	struct tl_run run = { .start_ns = 5000000000ull };
	static const uint64_t after[] = {
		0, 1, 999999999, 1000000000, 1000000001, 100218498, 86400000000000ull,
		3999999999999999999ull / 1000, 4000000000000000ull - 1, 4000000000000000ull,
		9000000000000000ull, 123456789012345678ull,
	};
	char want[64], got[64];
	uint64_t x = 88172645463325252ull;
	for (size_t i = 0; i < sizeof after / sizeof after[0] + 5000; i++) {
		uint64_t d = i < sizeof after / sizeof after[0] ? after[i]
		                                                 : next_random(&x) % 5000000000000000ull;
		uint64_t t = run.start_ns + d;
		for (int w = 0; w <= 15; w += 15) {
			snprintf(want, sizeof want, "%*.9f", w, tl_seconds(&run, t));
			tl_seconds_text(&run, t, w, got, sizeof got);
			if (strcmp(want, got) != 0)
				fail_msg("tl_seconds_text(%llu ns, width %d) gave '%s', printf '%s'",
				         (unsigned long long)d, w, got, want);
		}
	}
	snprintf(want, sizeof want, "%15.9f", tl_seconds(&run, 1000));
	assert_string_equal(tl_seconds_text(&run, 1000, 15, got, sizeof got), want);
}

/* -I's table: what perf's "%15.9f %18s %-6s  %-32s # %s" lines spell,
 * byte for byte, for short and long names, units and groups, a value
 * wider than its column, <not counted>, a line longer than the
 * writer's own buffer, and a record shorter than the one before (the
 * record memory is reused: only its own bytes go out). */
static void test_interval_table(void **state)
{
	(void)state;
	char longname[300];
	memset(longname, 'n', sizeof longname - 1);
	longname[sizeof longname - 1] = '\0';
	struct tl_series series[] = {
		{ .name = "TaskClock", .group = "CPU", .unit = "ms", .usage = "milliseconds" },
		{ .name = "PageFaults", .group = "Memory", .unit = "", .usage = "items", .integer = true },
		{ .name = "Busy", .group = NULL, .unit = "%", .usage = "percentage" },
		{ .name = "AVeryLongCounterNameThatIsWiderThanItsColumn", .group = "A long group name",
		  .unit = "cycles/s", .usage = "cycles", .integer = true },
		{ .name = longname, .group = "G", .unit = "ms", .usage = "milliseconds" },
	};
	double values[] = { 0.7445, 75, 12.125, 1.8e19, NAN };
	struct tl_run run = { .start_ns = 1000, .series = series, .nseries = 5 };
	struct tl_sample s = { .index = 3, .begin_ns = 1000, .end_ns = 14852214, .values = values };
	for (int pass = 0; pass < 3; pass++) {
		char *buf = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&buf, &len);
		assert_non_null(m);
		struct tl_output o = { .format = &tl_interval_table, .f = m };
		s.has_running = pass == 2;
		s.running_ns = 0; /* pass 2: the counters never ran */
		s.end_ns += (uint64_t)pass * 1000000007u;
		tl_sample(&o, &run, &s);
		tl_sample(&o, &run, &s); /* the record's memory, reused */
		run.nseries = 1;
		tl_sample(&o, &run, &s); /* a shorter record after longer ones */
		run.nseries = 5;
		tl_close(&o);
		fclose(m);
		char *want = NULL;
		size_t wlen = 0;
		FILE *w = open_memstream(&want, &wlen);
		assert_non_null(w);
		for (int rec = 0; rec < 3; rec++)
			for (size_t i = 0; i < (rec < 2 ? 5u : 1u); i++) {
				char value[64] = "";
				double v = pass == 2 ? NAN : values[i];
				if (!isnan(v))
					snprintf(value, sizeof value,
					         series[i].integer ? "%.0f"
					         : strcmp(series[i].unit, "%") == 0 ? "%.2f" : "%.3f", v);
				fprintf(w, "%15.9f %18s %-6s  %-32s # %s\n", tl_seconds(&run, s.end_ns),
				        value[0] ? value : "<not counted>", series[i].unit, series[i].name,
				        series[i].group ? series[i].group : "");
			}
		fclose(w);
		assert_string_equal(buf, want);
		free(buf);
		free(want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_exact),
		cmocka_unit_test(test_timeline_writers),
		cmocka_unit_test(test_held_records),
		cmocka_unit_test(test_perf_rate),
		cmocka_unit_test(test_group_digits),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_fixed),
		cmocka_unit_test(test_seconds_text),
		cmocka_unit_test(test_interval_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
