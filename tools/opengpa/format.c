/* SPDX-License-Identifier: MIT */
/* format.c — CSV fields and JSON strings (format.h). */
#include "format.h"

#include <stdbool.h>
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
