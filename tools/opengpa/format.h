/* SPDX-License-Identifier: MIT */
/* format.h — fields for scripts: CSV (RFC 4180 quoting) and JSON strings;
 * perf stat's rates and its numbers in the user's locale. */
#ifndef OPENGPA_TOOLS_FORMAT_H
#define OPENGPA_TOOLS_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Writes one field for a line separated by `sep`, quoted as RFC 4180 asks
 * when it contains sep (or any character of a sep of several, so a field's
 * end and the separator cannot be read another way), a quote, CR or LF;
 * quotes are doubled inside.  sep itself must hold no quote, CR or LF
 * (cli_check_separator refuses them): nothing could then be unambiguous. */
void fmt_csv_field(FILE *f, const char *field, const char *sep);

/* Writes s as a JSON string literal: quotes, backslashes and control
 * characters escaped; bytes that are not valid UTF-8 as U+FFFD. */
void fmt_json_string(FILE *f, const char *s);

/* perf stat's metric of an event counted beside a task clock (its
 * "shadow" rate, for page-faults, context-switches, cpu-migrations...):
 * count per second of the clock's clock_ms milliseconds, scaled as perf's
 * convert_unit_double() does; *rate gets the number and the unit is
 * returned: "G/sec", "M/sec", "K/sec" or "/sec".  A clock of 0 gives
 * 0 "/sec", as perf prints it. */
const char *fmt_perf_rate(double count, double clock_ms, double *rate);

/* Writes `number` (already formatted by printf with '.' as its decimal
 * point, an optional leading '-') into buf with the decimal point `point`
 * and, when `sep` is not empty, the integer part's digits grouped as
 * `grouping` says (localeconv()'s notation: each byte a group's size from
 * the right, the last repeated, CHAR_MAX or 0 ends grouping), as perf
 * stat's default --big-num output does in the user's locale.  Returns buf;
 * a result that does not fit is cut. */
char *fmt_group_digits(const char *number, const char *point, const char *sep,
                       const char *grouping, char *buf, size_t len);

/* The user's LC_NUMERIC (from the environment, never changing the
 * program's own locale): its decimal point and, with big_num, its
 * thousands separator and grouping ("" where it has none, as C and
 * C.UTF-8), copied: "." and "" when the environment names a locale
 * that is not installed. */
struct fmt_numeric {
	char point[8], sep[8], grouping[8];
};
void fmt_numeric_from_env(bool big_num, struct fmt_numeric *n);

#endif
