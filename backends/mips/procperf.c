/* SPDX-License-Identifier: MIT */
/* procperf.c — strict parsing of the /proc/perf text: the kernel is not trusted. */
#include "procperf.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Parses one non-blank line [p, end).  Returns a reason or NULL on success. */
static const char *parse_line(const char *p, const char *end, unsigned *counter, bool *is_ctl,
                              uint64_t *value)
{
	static const char head[] = "PerfCnt[";
	if ((size_t)(end - p) < sizeof head - 1 || memcmp(p, head, sizeof head - 1) != 0)
		return "does not start with \"PerfCnt[\"";
	p += sizeof head - 1;
	if (p >= end || *p < '0' || *p > '9')
		return "has no counter number";
	unsigned n = 0;
	while (p < end && *p >= '0' && *p <= '9' && n < 100)
		n = n * 10 + (unsigned)(*p++ - '0');
	if (n >= OG_MIPS_COUNTERS)
		return "names a counter other than 0..3";
	if (end - p < 5 || (memcmp(p, "].Ctl", 5) != 0 && memcmp(p, "].Cnt", 5) != 0))
		return "is neither a .Ctl nor a .Cnt line";
	*is_ctl = p[3] == 't';
	p += 5;
	while (p < end && is_blank(*p))
		p++;
	if (p >= end || *p != ':')
		return "has no ':' after the register name";
	p++;
	while (p < end && is_blank(*p))
		p++;
	if (p >= end)
		return "has no value (short line)";
	uint64_t v = 0;
	unsigned digits = 0;
	if (*is_ctl) {
		if (end - p >= 2 && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
			p += 2;
		for (; p < end && hexval(*p) >= 0; p++, digits++)
			v = v * 16 + (uint64_t)hexval(*p);
		if (digits == 0)
			return "has no hexadecimal control value";
		if (digits > 8)
			return "has a control value wider than 32 bits";
	} else {
		for (; p < end && *p >= '0' && *p <= '9'; p++, digits++) {
			unsigned d = (unsigned)(*p - '0');
			if (v > (UINT64_MAX - d) / 10)
				return "has a count that does not fit 64 bits";
			v = v * 10 + d;
		}
		if (digits == 0)
			return "has no decimal count";
	}
	while (p < end && is_blank(*p))
		p++;
	if (p != end)
		return "has text after the value";
	*counter = n;
	*value = v;
	return NULL;
}

int og_mips_parse_text(const char *text, size_t len, struct og_mips_snapshot *out, char *why,
                       size_t whylen)
{
	bool seen[OG_MIPS_COUNTERS][2] = {{false}};
	memset(out, 0, sizeof *out);
	unsigned line = 0;
	for (const char *p = text, *stop = text + len; p < stop;) {
		const char *nl = memchr(p, '\n', (size_t)(stop - p));
		const char *end = nl ? nl : stop;
		line++;
		const char *q = p;
		while (q < end && is_blank(*q))
			q++;
		if (q < end) {
			if (memchr(q, '\0', (size_t)(end - q))) {
				snprintf(why, whylen, "line %u contains a NUL byte", line);
				return -1;
			}
			const char *e = end;
			while (e > q && is_blank(e[-1]))
				e--;
			unsigned n = 0;
			bool is_ctl = false;
			uint64_t v = 0;
			const char *bad = parse_line(q, e, &n, &is_ctl, &v);
			if (bad) {
				/* Quote the line (printable bytes only, at most 40) so the
				 * log stays one line whatever the kernel sent. */
				char quoted[41];
				size_t k = 0;
				for (const char *r = q; r < e && k < sizeof quoted - 1; r++)
					quoted[k++] = *r >= 0x20 && *r < 0x7f ? *r : '?';
				quoted[k] = '\0';
				snprintf(why, whylen, "line %u %s: \"%s\"", line, bad, quoted);
				return -1;
			}
			if (seen[n][is_ctl]) {
				snprintf(why, whylen, "line %u repeats PerfCnt[%u].%s", line, n,
				         is_ctl ? "Ctl" : "Cnt");
				return -1;
			}
			seen[n][is_ctl] = true;
			if (is_ctl)
				out->ctl[n] = (uint32_t)v;
			else
				out->cnt[n] = v;
		}
		p = nl ? nl + 1 : stop;
	}
	for (unsigned n = 0; n < OG_MIPS_COUNTERS; n++)
		for (int c = 1; c >= 0; c--)
			if (!seen[n][c]) {
				snprintf(why, whylen, "PerfCnt[%u].%s is missing (%u lines read)", n,
				         c ? "Ctl" : "Cnt", line);
				return -1;
			}
	return 0;
}

size_t og_mips_format_write(char *buf, size_t len, unsigned counter, uint32_t ctl, int64_t value)
{
	int n = value < 0 ? snprintf(buf, len, "%u 0x%08x -1\n", counter, (unsigned)ctl)
	                  : snprintf(buf, len, "%u 0x%08x %lld\n", counter, (unsigned)ctl,
	                             (long long)value);
	return n < 0 || (size_t)n >= len ? 0 : (size_t)n;
}
