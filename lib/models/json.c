/* SPDX-License-Identifier: MIT */
/* json.c — the strict, bounded JSON reader of json.h. */
#include "json.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct reader {
	const char *s;
	size_t len, pos;
	char *err;
	size_t errlen;
	bool failed;
};

static bool fail(struct reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static bool fail(struct reader *r, const char *fmt, ...)
{
	if (r->failed)
		return false;
	r->failed = true;
	if (!r->err || !r->errlen)
		return false;
	int n = snprintf(r->err, r->errlen, "offset %zu: ", r->pos);
	if (n >= 0 && (size_t)n < r->errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(r->err + n, r->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return false;
}

static void skip_space(struct reader *r)
{
	while (r->pos < r->len && (r->s[r->pos] == ' ' || r->s[r->pos] == '\t' ||
	                           r->s[r->pos] == '\n' || r->s[r->pos] == '\r'))
		r->pos++;
}

static bool literal(struct reader *r, const char *word)
{
	size_t n = strlen(word);
	if (r->len - r->pos < n || memcmp(r->s + r->pos, word, n) != 0)
		return fail(r, "expected %s", word);
	r->pos += n;
	return true;
}

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static bool read_hex4(struct reader *r, uint32_t *out)
{
	if (r->len - r->pos < 4)
		return fail(r, "\\u needs four hex digits");
	uint32_t v = 0;
	for (int i = 0; i < 4; i++) {
		int d = hex_digit(r->s[r->pos + (size_t)i]);
		if (d < 0)
			return fail(r, "\\u needs four hex digits");
		v = v << 4 | (uint32_t)d;
	}
	r->pos += 4;
	*out = v;
	return true;
}

static size_t put_utf8(char *out, uint32_t cp)
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | cp >> 6);
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | cp >> 12);
		out[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | cp >> 18);
	out[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	out[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

/* Length of the valid UTF-8 sequence at s (n bytes left), or 0. */
static size_t utf8_length(const unsigned char *s, size_t n)
{
	size_t k = s[0] < 0x80 ? 1 : s[0] >= 0xc2 && s[0] <= 0xdf ? 2
	                       : s[0] >= 0xe0 && s[0] <= 0xef ? 3
	                       : s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : 0;
	if (!k || k > n)
		return 0;
	for (size_t i = 1; i < k; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if (k == 3 && ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0)))
		return 0;
	if (k == 4 && ((s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90)))
		return 0;
	return k;
}

/* A string at r->pos (the opening quote); *out is malloc'd.  The decoded
 * text is never longer than the encoded one, so one allocation fits. */
static bool read_string(struct reader *r, char **out)
{
	*out = NULL;
	r->pos++; /* the quote */
	size_t start = r->pos, end = start;
	while (end < r->len && r->s[end] != '"') {
		if (r->s[end] == '\\')
			end++;
		end++;
	}
	if (end >= r->len)
		return fail(r, "unterminated string");
	char *buf = malloc(end - start + 1);
	if (!buf)
		return fail(r, "out of memory");
	size_t o = 0;
	while (r->pos < end) {
		unsigned char c = (unsigned char)r->s[r->pos];
		if (c < 0x20) {
			free(buf);
			return fail(r, "control character in a string");
		}
		if (c != '\\') {
			size_t k = utf8_length((const unsigned char *)r->s + r->pos, end - r->pos);
			if (!k) {
				free(buf);
				return fail(r, "invalid UTF-8 in a string");
			}
			memcpy(buf + o, r->s + r->pos, k);
			o += k;
			r->pos += k;
			continue;
		}
		r->pos++;
		char e = r->s[r->pos++];
		uint32_t cp;
		switch (e) {
		case '"': buf[o++] = '"'; break;
		case '\\': buf[o++] = '\\'; break;
		case '/': buf[o++] = '/'; break;
		case 'b': buf[o++] = '\b'; break;
		case 'f': buf[o++] = '\f'; break;
		case 'n': buf[o++] = '\n'; break;
		case 'r': buf[o++] = '\r'; break;
		case 't': buf[o++] = '\t'; break;
		case 'u':
			if (!read_hex4(r, &cp)) {
				free(buf);
				return false;
			}
			if (cp >= 0xd800 && cp <= 0xdbff) {
				uint32_t lo;
				if (r->len - r->pos < 2 || r->s[r->pos] != '\\' || r->s[r->pos + 1] != 'u') {
					free(buf);
					return fail(r, "a high surrogate without its low surrogate");
				}
				r->pos += 2;
				if (!read_hex4(r, &lo)) {
					free(buf);
					return false;
				}
				if (lo < 0xdc00 || lo > 0xdfff) {
					free(buf);
					return fail(r, "a high surrogate without its low surrogate");
				}
				cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
			} else if (cp >= 0xdc00 && cp <= 0xdfff) {
				free(buf);
				return fail(r, "a low surrogate without its high surrogate");
			} else if (cp == 0) {
				free(buf);
				return fail(r, "\\u0000 in a string");
			}
			o += put_utf8(buf + o, cp);
			break;
		default:
			free(buf);
			return fail(r, "unknown escape \\%c", e);
		}
	}
	r->pos = end + 1;
	buf[o] = '\0';
	*out = buf;
	return true;
}

static bool read_number(struct reader *r, double *out)
{
	size_t p = r->pos;
	if (p < r->len && r->s[p] == '-')
		p++;
	if (p < r->len && r->s[p] == '0')
		p++;
	else if (p < r->len && r->s[p] >= '1' && r->s[p] <= '9')
		while (p < r->len && r->s[p] >= '0' && r->s[p] <= '9')
			p++;
	else
		return fail(r, "not a value");
	if (p < r->len && r->s[p] == '.') {
		p++;
		if (p >= r->len || r->s[p] < '0' || r->s[p] > '9')
			return fail(r, "a digit must follow the decimal point");
		while (p < r->len && r->s[p] >= '0' && r->s[p] <= '9')
			p++;
	}
	if (p < r->len && (r->s[p] == 'e' || r->s[p] == 'E')) {
		p++;
		if (p < r->len && (r->s[p] == '+' || r->s[p] == '-'))
			p++;
		if (p >= r->len || r->s[p] < '0' || r->s[p] > '9')
			return fail(r, "a digit must follow the exponent");
		while (p < r->len && r->s[p] >= '0' && r->s[p] <= '9')
			p++;
	}
	char buf[64];
	if (p - r->pos >= sizeof buf)
		return fail(r, "number longer than %zu characters", sizeof buf - 1);
	memcpy(buf, r->s + r->pos, p - r->pos);
	buf[p - r->pos] = '\0';
	errno = 0;
	double v = strtod(buf, NULL);
	if (!isfinite(v))
		return fail(r, "number out of range");
	*out = v;
	r->pos = p;
	return true;
}

static bool read_value(struct reader *r, struct og_json *v, unsigned depth);

/* Appends one slot to an array or object; NULL when out of memory. */
static struct og_json *grow(struct reader *r, struct og_json *v, size_t *cap, bool with_key)
{
	if (v->n == *cap) {
		size_t n = *cap ? *cap * 2 : 4;
		struct og_json *items = realloc(v->items, n * sizeof(*items));
		if (!items) {
			fail(r, "out of memory");
			return NULL;
		}
		v->items = items;
		if (with_key) {
			char **keys = realloc(v->keys, n * sizeof(*keys));
			if (!keys) {
				fail(r, "out of memory");
				return NULL;
			}
			v->keys = keys;
		}
		*cap = n;
	}
	struct og_json *slot = &v->items[v->n];
	memset(slot, 0, sizeof *slot);
	if (with_key)
		v->keys[v->n] = NULL;
	v->n++;
	return slot;
}

static bool read_container(struct reader *r, struct og_json *v, unsigned depth, bool object)
{
	v->type = object ? OG_JSON_OBJECT : OG_JSON_ARRAY;
	if (depth >= OG_JSON_MAX_DEPTH)
		return fail(r, "nested deeper than %d", OG_JSON_MAX_DEPTH);
	r->pos++;
	skip_space(r);
	char close = object ? '}' : ']';
	if (r->pos < r->len && r->s[r->pos] == close) {
		r->pos++;
		return true;
	}
	size_t cap = 0;
	for (;;) {
		struct og_json *slot = grow(r, v, &cap, object);
		if (!slot)
			return false;
		if (object) {
			skip_space(r);
			if (r->pos >= r->len || r->s[r->pos] != '"')
				return fail(r, "expected a member name");
			if (!read_string(r, &v->keys[v->n - 1]))
				return false;
			skip_space(r);
			if (r->pos >= r->len || r->s[r->pos] != ':')
				return fail(r, "expected ':'");
			r->pos++;
		}
		if (!read_value(r, slot, depth + 1))
			return false;
		skip_space(r);
		if (r->pos < r->len && r->s[r->pos] == ',') {
			r->pos++;
			continue;
		}
		if (r->pos < r->len && r->s[r->pos] == close) {
			r->pos++;
			return true;
		}
		return fail(r, "expected ',' or '%c'", close);
	}
}

static bool read_value(struct reader *r, struct og_json *v, unsigned depth)
{
	skip_space(r);
	if (r->pos >= r->len)
		return fail(r, "unexpected end of the document");
	switch (r->s[r->pos]) {
	case '{': return read_container(r, v, depth, true);
	case '[': return read_container(r, v, depth, false);
	case '"':
		v->type = OG_JSON_STRING;
		return read_string(r, &v->string);
	case 't':
		v->type = OG_JSON_BOOL;
		v->boolean = true;
		return literal(r, "true");
	case 'f':
		v->type = OG_JSON_BOOL;
		return literal(r, "false");
	case 'n':
		v->type = OG_JSON_NULL;
		return literal(r, "null");
	default:
		v->type = OG_JSON_NUMBER;
		return read_number(r, &v->number);
	}
}

bool og_json_parse(const char *text, size_t len, struct og_json *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof *out);
	struct reader r = { .s = text, .len = len, .err = err, .errlen = errlen };
	if (err && errlen)
		err[0] = '\0';
	if (!text)
		return fail(&r, "no document");
	if (len > OG_JSON_MAX_BYTES)
		return fail(&r, "document larger than %u bytes", OG_JSON_MAX_BYTES);
	if (!read_value(&r, out, 0))
		return false;
	skip_space(&r);
	if (r.pos != r.len)
		return fail(&r, "text after the document");
	return true;
}

void og_json_free(struct og_json *v)
{
	if (!v)
		return;
	for (size_t i = 0; i < v->n; i++) {
		og_json_free(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->string);
	memset(v, 0, sizeof *v);
}

const struct og_json *og_json_get(const struct og_json *v, const char *key)
{
	if (!v || v->type != OG_JSON_OBJECT)
		return NULL;
	for (size_t i = 0; i < v->n; i++)
		if (v->keys[i] && strcmp(v->keys[i], key) == 0)
			return &v->items[i];
	return NULL;
}
