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
 */
struct record {
	FILE *dest;
	char *buf;
	size_t len;
};

static void record_begin(struct tl_output *o, struct record *r)
{
	r->dest = o->f;
	r->buf = NULL;
	r->len = 0;
	FILE *m = open_memstream(&r->buf, &r->len);
	if (m)
		o->f = m; /* else (out of memory) straight to the stream, as before */
}

static void record_end(struct tl_output *o, struct record *r)
{
	if (o->f != r->dest) {
		bool ok = fclose(o->f) == 0;
		o->f = r->dest;
		if (ok && r->buf && r->len)
			fwrite(r->buf, 1, r->len, o->f);
		free(r->buf);
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
		snprintf(buf, len, "%.2f", v);
	else
		snprintf(buf, len, "%.3f", v);
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
