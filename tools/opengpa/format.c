/* SPDX-License-Identifier: MIT */
/* format.c — CSV fields, JSON strings, perf's rates and big numbers
 * (format.h). */
#include "format.h"

#include <limits.h>
#include <locale.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

void fmt_csv_field(FILE *f, const char *field, const char *sep)
{
	/* Any character of a separator of several, not only the whole of it:
	 * with SEP "::" an unquoted field "a:" before it would read as "a"
	 * and a field starting ":". */
	bool quote = field[strcspn(field, sep)] || strpbrk(field, "\"\r\n");
	if (!quote) {
		fputs(field, f);
		return;
	}
	fputc('"', f);
	for (const char *p = field; *p; p++) {
		if (*p == '"')
			fputc('"', f);
		fputc(*p, f);
	}
	fputc('"', f);
}

/* Length of the valid UTF-8 sequence at s, or 0. */
static size_t utf8_length(const unsigned char *s)
{
	size_t n = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
	if (s[0] >= 0xf5)
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	/* Overlong three- and four-byte forms, surrogates, beyond U+10FFFF. */
	if (n == 3 && ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0)))
		return 0;
	if (n == 4 && ((s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90)))
		return 0;
	return n;
}

void fmt_json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		unsigned char c = *p;
		if (c == '"' || c == '\\') {
			fprintf(f, "\\%c", c);
			p++;
		} else if (c < 0x20 || c == 0x7f) {
			fprintf(f, "\\u%04x", c);
			p++;
		} else if (c < 0x80) {
			fputc(c, f);
			p++;
		} else {
			size_t n = utf8_length(p);
			if (n) {
				fwrite(p, 1, n, f);
				p += n;
			} else {
				fputs("\\ufffd", f);
				p++;
			}
		}
	}
	fputc('"', f);
}

const char *fmt_perf_rate(double count, double clock_ms, double *rate)
{
	/* perf: 1e9 * count / task-clock ns, then convert_unit_double(). */
	double r = clock_ms > 0.0 ? count * 1e3 / clock_ms : 0.0;
	const char *unit = "/sec";
	if (r >= 1e9) {
		r /= 1e9;
		unit = "G/sec";
	} else if (r >= 1e6) {
		r /= 1e6;
		unit = "M/sec";
	} else if (r >= 1e3) {
		r /= 1e3;
		unit = "K/sec";
	}
	*rate = r;
	return unit;
}

char *fmt_group_digits(const char *number, const char *point, const char *sep,
                       const char *grouping, char *buf, size_t len)
{
	if (!len)
		return buf;
	const char *p = number;
	size_t o = 0;
#define PUT(c) do { if (o + 1 < len) buf[o++] = (c); } while (0)
	if (*p == '-' || *p == '+')
		PUT(*p++);
	size_t digits = strspn(p, "0123456789");
	/* Where each separator goes: after digit k (from the left) when the
	 * number of digits to its right ends a group. */
	bool mark[64] = { false };
	if (*sep && digits < sizeof mark) {
		size_t right = 0;
		const char *g = grouping;
		size_t size = (unsigned char)*g;
		while (size > 0 && size != CHAR_MAX && right + size < digits) {
			right += size;
			mark[digits - right] = true;
			if (g[1])
				size = (unsigned char)*++g; /* else the last size repeats */
		}
	}
	for (size_t k = 0; k < digits; k++) {
		if (mark[k])
			for (const char *s = sep; *s; s++)
				PUT(*s);
		PUT(p[k]);
	}
	p += digits;
	for (; *p; p++) {
		if (*p == '.')
			for (const char *s = point; *s; s++)
				PUT(*s);
		else
			PUT(*p);
	}
#undef PUT
	buf[o] = '\0';
	return buf;
}

static void copy_text(char *to, size_t len, const char *from)
{
	snprintf(to, len, "%s", from ? from : "");
}

void fmt_numeric_from_env(bool big_num, struct fmt_numeric *n)
{
	copy_text(n->point, sizeof n->point, ".");
	n->sep[0] = n->grouping[0] = '\0';
	/* The C locale's numbers are the defaults above, and C.UTF-8's are the
	 * C locale's: those, the usual case, need no locale loaded (newlocale
	 * reads the alias file and the locale's own, about 60,000 instructions
	 * and nine system calls of `opengpa stat`'s start; issue 29). */
	const char *name = getenv("LC_ALL");
	if (!name || !*name)
		name = getenv("LC_NUMERIC");
	if (!name || !*name)
		name = getenv("LANG");
	if (!name || !*name || strcmp(name, "C") == 0 || strcmp(name, "POSIX") == 0 ||
	    strncmp(name, "C.", 2) == 0)
		return;
	/* The environment's LC_NUMERIC for this thread only, so the program's
	 * own numbers (-x, JSON, files) keep their '.'. */
	locale_t loc = newlocale(LC_NUMERIC_MASK, "", (locale_t)0);
	if (loc == (locale_t)0)
		return;
	locale_t old = uselocale(loc);
	if (old != (locale_t)0) {
		const struct lconv *lc = localeconv();
		if (lc->decimal_point && *lc->decimal_point)
			copy_text(n->point, sizeof n->point, lc->decimal_point);
		if (big_num) {
			copy_text(n->sep, sizeof n->sep, lc->thousands_sep);
			copy_text(n->grouping, sizeof n->grouping, lc->grouping);
		}
		uselocale(old);
	}
	freelocale(loc);
}
