/* SPDX-License-Identifier: MIT */
/*
 * quote.h — text from outside (a file, the environment, a command line, the
 * kernel) as a message may show it: printable ASCII as it is, a backslash
 * doubled, every other byte as \xNN, so no control character of a binary
 * file or a hostile path reaches a terminal or a log.  Header-only: the
 * command's parsers (tools/opengpa) build some of lib/core on their own.
 */
#ifndef OPENGPA_UTIL_QUOTE_H
#define OPENGPA_UTIL_QUOTE_H

#include <stddef.h>
#include <string.h>

/* Byte c as og_quote writes it; returns the length (1, 2 or 4). */
static inline size_t og_quote_byte(unsigned char c, char out[4])
{
	static const char hex[] = "0123456789abcdef";
	if (c == '\\') {
		out[0] = out[1] = '\\';
		return 2;
	}
	if (c >= 0x20 && c <= 0x7e) {
		out[0] = (char)c;
		return 1;
	}
	out[0] = '\\';
	out[1] = 'x';
	out[2] = hex[c >> 4];
	out[3] = hex[c & 15];
	return 4;
}

/* text quoted into buf (len bytes with the NUL), cut with "..." when it
 * does not all fit.  Returns buf. */
static inline const char *og_quote(const char *text, char *buf, size_t len)
{
	if (!len)
		return buf;
	size_t need = 0;
	char one[4];
	for (const unsigned char *p = (const unsigned char *)text; *p; p++)
		need += og_quote_byte(*p, one);
	/* When it does not all fit, what fits leaves room for "...". */
	size_t room = need < len ? need : (len > 4 ? len - 4 : 0);
	size_t at = 0;
	for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
		size_t n = og_quote_byte(*p, one);
		if (at + n > room)
			break;
		memcpy(buf + at, one, n);
		at += n;
	}
	if (need >= len && len > 4) {
		memcpy(buf + at, "...", 3);
		at += 3;
	}
	buf[at] = '\0';
	return buf;
}

#endif
