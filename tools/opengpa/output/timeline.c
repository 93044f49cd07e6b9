/* SPDX-License-Identifier: MIT */
/* timeline.c — what every timeline writer shares (timeline.h). */
#include "timeline.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "opengpa.h"

/*
 * Each call of a writer is one record (the header, one interval, the end),
 * and reaches the file whole: it is written into memory first, then handed
 * to the stream in one piece and flushed.  A pipe, a FIFO or a terminal
 * read live (where the command's outputs are written in place, output.h)
 * then never holds half an interval, even when a record is larger than
 * stdio's buffer, which would otherwise be written out partway through it.
 *
 * The memory stream is opened at the first record and rewound for each
 * next one, not opened per record: a new open_memstream() allocates and
 * zeroes a buffer of BUFSIZ, about a quarter of what an -I 10 interval cost
 * (issue 29).  It lives on the heap, not in the tl_output, because glibc
 * writes the buffer's address and length back through the pointers given
 * at the open, and a tl_output may be copied.
 *
 * Held (tl_hold), records are kept in that memory one after the other and
 * reach the file together at tl_release, in one write: the interval
 * reader writes each wake-up's intervals so (issue 29: -I 10 against perf
 * stat).
 */
struct tl_record {
	FILE *m;
	char *buf;
	size_t len;
	bool pending; /* held records not yet written */
};

void tl_hold(struct tl_output *o)
{
	o->held = true;
}

void tl_release(struct tl_output *o)
{
	o->held = false;
	struct tl_record *rec = o->record;
	if (!rec || !rec->pending)
		return;
	rec->pending = false;
	/* fflush sets buf and len: the bytes up to the position */
	if (fflush(rec->m) == 0 && !ferror(rec->m) && rec->buf && rec->len)
		fwrite(rec->buf, 1, rec->len, o->f);
	else
		tl_close(o); /* a new stream for the next record */
	fflush(o->f);
}

void tl_close(struct tl_output *o)
{
	struct tl_record *rec = o->record;
	if (!rec)
		return;
	if (rec->pending) {
		tl_release(o);
		if (!(rec = o->record))
			return;
	}
	o->record = NULL;
	if (rec->m)
		fclose(rec->m);
	free(rec->buf);
	free(rec);
}

static struct tl_record *record_stream(struct tl_output *o)
{
	struct tl_record *rec = o->record;
	if (rec && rec->pending)
		return rec; /* held: the next record follows */
	if (rec)
		return fseeko(rec->m, 0, SEEK_SET) == 0 ? rec : NULL;
	rec = calloc(1, sizeof *rec);
	if (!rec)
		return NULL;
	rec->m = open_memstream(&rec->buf, &rec->len);
	if (!rec->m) {
		free(rec);
		return NULL;
	}
	o->record = rec;
	return rec;
}

struct record {
	FILE *dest;
};

static void record_begin(struct tl_output *o, struct record *r)
{
	r->dest = o->f;
	struct tl_record *rec = record_stream(o);
	if (rec)
		o->f = rec->m; /* else (out of memory) straight to the stream, as before */
}

static void record_end(struct tl_output *o, struct record *r)
{
	if (o->f != r->dest) {
		struct tl_record *rec = o->record;
		o->f = r->dest;
		if (o->held) {
			rec->pending = true;
			return;
		}
		/* fflush sets buf and len: the bytes up to the position */
		bool ok = fflush(rec->m) == 0 && !ferror(rec->m);
		if (ok && rec->buf && rec->len)
			fwrite(rec->buf, 1, rec->len, o->f);
		if (!ok)
			tl_close(o); /* a new stream for the next record */
	}
	fflush(o->f);
}

void tl_begin(struct tl_output *o, const struct tl_run *run)
{
	struct record r;
	record_begin(o, &r);
	o->format->begin(o, run);
	record_end(o, &r);
}

void tl_sample(struct tl_output *o, const struct tl_run *run, const struct tl_sample *s)
{
	struct record r;
	record_begin(o, &r);
	o->format->sample(o, run, s);
	record_end(o, &r);
}

void tl_frame(struct tl_output *o, const struct tl_run *run, const struct tl_frame *f)
{
	if (!tl_shows_frames(o))
		return;
	struct record r;
	record_begin(o, &r);
	o->format->frame(o, run, f);
	if (f->sample)
		o->samples++;
	else
		o->frames++;
	record_end(o, &r);
}

bool tl_shows_frames(const struct tl_output *o)
{
	/* The CSV has rows for them only with --per-frame. */
	return o->format && o->format->frame && (o->format != &tl_csv || o->per_frame);
}

void tl_end(struct tl_output *o, const struct tl_run *run, const struct tl_end *e)
{
	struct record r;
	record_begin(o, &r);
	o->format->end(o, run, e);
	record_end(o, &r);
	tl_close(o); /* nothing follows the end */
}

double tl_seconds(const struct tl_run *run, uint64_t t)
{
	return t >= run->start_ns ? (double)(t - run->start_ns) / 1e9
	                          : -(double)(run->start_ns - t) / 1e9;
}

const char *tl_command_line(const struct tl_run *run, char *buf, size_t len)
{
	size_t used = 0;
	buf[0] = '\0';
	for (int i = 0; run->command && run->command[i] && used + 1 < len; i++) {
		int n = snprintf(buf + used, len - used, "%s%s", i ? " " : "", run->command[i]);
		if (n < 0)
			break;
		used += (size_t)n;
	}
	return buf;
}

const char *tl_unit(GPA_Usage_Type usage)
{
	switch (usage) {
	case GPA_USAGE_TYPE_PERCENTAGE: return "%";
	case GPA_USAGE_TYPE_MILLISECONDS: return "ms";
	case GPA_USAGE_TYPE_BYTES: return "B";
	case GPA_USAGE_TYPE_KILOBYTES: return "KB";
	case GPA_USAGE_TYPE_CYCLES: return "cycles";
	default: return "";
	}
}

const char *tl_unit_or_usage(const struct tl_series *s)
{
	if (s->unit && s->unit[0])
		return s->unit;
	return s->usage && s->usage[0] ? s->usage : "value";
}

const char *tl_value(const struct tl_series *s, double v, char *buf, size_t len)
{
	if (isnan(v))
		snprintf(buf, len, "%s", "");
	else if (s->integer && len >= 24 && fabs(v) < 9.2e18 && v == floor(v) && !signbit(v))
		tl_number(buf, v, TL_INTEGER); /* its fast path: at most 20 digits */
	else if (s->integer)
		snprintf(buf, len, "%.0f", v);
	else if (s->unit && strcmp(s->unit, "%") == 0)
		tl_fixed(buf, len, v, 2);
	else
		tl_fixed(buf, len, v, 3);
	return buf;
}

/* The digits of u into buf, at least min of them (leading zeros); returns
 * how many. */
static size_t put_digits(char *buf, uint64_t u, size_t min)
{
	char rev[24];
	size_t n = 0, k = 0;
	do {
		rev[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u || n < min);
	while (n)
		buf[k++] = rev[--n];
	return k;
}

/* whole.frac as "%.Nf" spells it (N = decimals), sign first, right-aligned
 * in width; the length, or 0 where len is too small. */
static size_t put_fixed(char *buf, size_t len, bool negative, uint64_t whole, uint64_t frac,
                        int decimals, int width)
{
	char text[48];
	size_t n = 0;
	if (negative)
		text[n++] = '-';
	n += put_digits(text + n, whole, 1);
	text[n++] = '.';
	n += put_digits(text + n, frac, (size_t)decimals);
	size_t pad = width > 0 && (size_t)width > n ? (size_t)width - n : 0;
	if (pad + n + 1 > len)
		return 0;
	memset(buf, ' ', pad);
	memcpy(buf + pad, text, n);
	buf[pad + n] = '\0';
	return pad + n;
}

const char *tl_fixed(char *buf, size_t len, double v, int decimals)
{
	static const double scale[] = { 1.0, 10.0, 100.0, 1000.0 };
	double a = fabs(v);
	/*
	 * printf rounds the exact binary value to the nearest, a tie to even.
	 * p = a * 10^N is rounded once; fma() gives its error e exactly, so
	 * a * 10^N is p + e.  Where p is not a tie (half way between two
	 * integers) the integer nearest p is the one nearest p + e: p, the
	 * double nearest p + e, cannot be on the other side of a half, which
	 * is a double too.  At a tie, e's sign decides, and without one it is
	 * a tie indeed, to even.  The bounds keep p + e exact (no underflow)
	 * and p's integers and halves exact (p < 2^52); the rest: printf.
	 */
	if (decimals >= 0 && decimals <= 3 && (a == 0.0 || (a > 1e-200 && a < 1e12))) {
		double p = a * scale[decimals];
		double e = fma(a, scale[decimals], -p);
		double n = nearbyint(p); /* ties to even, the default rounding */
		double d = p - n;        /* exact: at most a half */
		if (d == 0.5 && e > 0)
			n += 1.0;
		else if (d == -0.5 && e < 0)
			n -= 1.0;
		uint64_t u = (uint64_t)n, div = (uint64_t)scale[decimals];
		if (decimals && put_fixed(buf, len, signbit(v) != 0, u / div, u % div, decimals, 0))
			return buf;
	}
	snprintf(buf, len, "%.*f", decimals, v);
	return buf;
}

const char *tl_seconds_text(const struct tl_run *run, uint64_t t, int width, char *buf,
                            size_t len)
{
	/*
	 * "%.9f" of tl_seconds(): the double nearest d / 1e9 lies within half
	 * its ulp of it, under 0.5e-9 below 2^23 s, so printf's nine decimals
	 * are d's own digits; the integer's are spelled here.  Past 46 days,
	 * or before the start, printf.
	 */
	if (t >= run->start_ns && t - run->start_ns < 4000000ull * 1000000000u) {
		uint64_t d = t - run->start_ns;
		if (put_fixed(buf, len, false, d / 1000000000u, d % 1000000000u, 9, width))
			return buf;
	}
	snprintf(buf, len, "%*.9f", width, tl_seconds(run, t));
	return buf;
}

bool tl_is_count(const struct tl_series *s)
{
	static const char *const counts[] = { "cycles", "items", "bytes", "kilobytes",
		                              "milliseconds" };
	for (size_t i = 0; s->usage && i < sizeof counts / sizeof counts[0]; i++)
		if (strcmp(s->usage, counts[i]) == 0)
			return true;
	return false;
}

double tl_shown(const struct tl_series *c, const struct tl_sample *s, double v)
{
	if (!tl_is_count(c) || isnan(v))
		return v;
	if (s->end_ns <= s->begin_ns)
		return NAN;
	return v / ((double)(s->end_ns - s->begin_ns) / 1e9);
}

const char *tl_shown_unit(const struct tl_series *c, char *buf, size_t len)
{
	if (tl_is_count(c))
		snprintf(buf, len, "%s/s", tl_unit_or_usage(c));
	else
		snprintf(buf, len, "%s", tl_unit_or_usage(c));
	return buf;
}

const char *tl_flag_words(uint32_t flags, const char *sep, char *buf, size_t len)
{
	static const struct {
		uint32_t bit;
		const char *word;
	} words[] = {
		{ OPENGPA_SAMPLE_LATE, "late" },
		{ OPENGPA_SAMPLE_OVERFLOW, "overflow" },
		{ OPENGPA_SAMPLE_FAILED, "failed" },
		{ OPENGPA_SAMPLE_FINAL, "final" },
	};
	size_t used = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
		if (!(flags & words[i].bit) || used + 1 >= len)
			continue;
		int n = snprintf(buf + used, len - used, "%s%s", used ? sep : "", words[i].word);
		if (n > 0)
			used += (size_t)n;
	}
	return buf;
}

const char *tl_number(char *buf, double v, enum tl_digits digits)
{
	/* Below these, an integral double prints the same under each format
	 * as its integer: "%.0f" always, "%.17g" and "%.10g" while it has no
	 * more digits than the precision (past it they switch to an
	 * exponent). */
	double below = digits == TL_INTEGER ? 9.2e18 : digits == TL_G17 ? 1e17 : 1e10;
	double a = fabs(v);
	/* -0.0 prints "-0": printf keeps it. */
	if (a < below && v == floor(v) && !(v == 0.0 && signbit(v))) {
		char rev[24];
		size_t n = 0, k = 0;
		uint64_t u = (uint64_t)a;
		do {
			rev[n++] = (char)('0' + u % 10);
			u /= 10;
		} while (u);
		if (v < 0)
			buf[k++] = '-';
		while (n)
			buf[k++] = rev[--n];
		buf[k] = '\0';
	} else if (digits == TL_INTEGER) {
		snprintf(buf, TL_NUMBER_LEN, "%.0f", v);
	} else if (digits == TL_G17) {
		snprintf(buf, TL_NUMBER_LEN, "%.17g", v);
	} else {
		snprintf(buf, TL_NUMBER_LEN, "%.10g", v);
	}
	return buf;
}

void tl_put_number(FILE *f, double v, enum tl_digits digits)
{
	char buf[TL_NUMBER_LEN];
	fputs(tl_number(buf, v, digits), f);
}

void tl_put_json_string(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p >= 0x20 && *p < 0x7f && *p != '"' && *p != '\\')
		p++;
	if (*p) { /* something to escape */
		fmt_json_string(f, s);
		return;
	}
	fputc('"', f);
	fputs(s, f);
	fputc('"', f);
}
