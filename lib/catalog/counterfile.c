/* SPDX-License-Identifier: MIT */
/* counterfile.c — the line-oriented counter file reader. */
#include "counterfile.h"
#include "util/quote.h"
#include "util/readfile.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const field_names[OG_F__COUNT] = {
	[OG_F_DESCRIPTION] = "description", [OG_F_VALUE] = "value",
	[OG_F_SOURCE] = "source",           [OG_F_USAGE] = "usage",
	[OG_F_GROUP] = "group",             [OG_F_HARDWARE] = "hardware",
	[OG_F_NOTE] = "note",               [OG_F_TYPE] = "type",
	[OG_F_EXPRESSION] = "expression", [OG_F_ALIAS] = "alias",
	[OG_F_HEADLINE] = "headline",
};

/* Which fields each kind allows (bit per field) and requires. */
#define BIT(f) (1u << (f))
static const struct {
	const char *keyword;
	unsigned allowed, required;
} kinds[] = {
	[OG_CF_CONSTANT] = { "constant", BIT(OG_F_DESCRIPTION) | BIT(OG_F_VALUE) | BIT(OG_F_NOTE),
	                     BIT(OG_F_DESCRIPTION) },
	[OG_CF_RAW] = { "raw",
	                BIT(OG_F_SOURCE) | BIT(OG_F_DESCRIPTION) | BIT(OG_F_USAGE) | BIT(OG_F_GROUP) |
	                        BIT(OG_F_HARDWARE) | BIT(OG_F_NOTE),
	                BIT(OG_F_SOURCE) | BIT(OG_F_DESCRIPTION) },
	[OG_CF_COUNTER] = { "counter",
	                    BIT(OG_F_GROUP) | BIT(OG_F_USAGE) | BIT(OG_F_TYPE) | BIT(OG_F_DESCRIPTION) |
	                            BIT(OG_F_EXPRESSION) | BIT(OG_F_NOTE) | BIT(OG_F_ALIAS) |
	                            BIT(OG_F_HEADLINE),
	                    BIT(OG_F_GROUP) | BIT(OG_F_USAGE) | BIT(OG_F_TYPE) | BIT(OG_F_DESCRIPTION) |
	                            BIT(OG_F_EXPRESSION) },
};

static const char *const usage_keywords[GPA_USAGE_TYPE__LAST] = {
	"ratio", "percentage", "cycles", "milliseconds", "bytes", "items", "kilobytes",
};

/* Only the four types GPA 2.x can read back (GetSample{UInt32,UInt64,Float32,Float64}). */
static const char *const type_keywords[GPA_TYPE__LAST] = {
	[GPA_TYPE_FLOAT32] = "float32", [GPA_TYPE_FLOAT64] = "float64",
	[GPA_TYPE_UINT32] = "uint32",   [GPA_TYPE_UINT64] = "uint64",
};

const char *og_cf_kind_name(enum og_cf_kind kind)
{
	return kinds[kind].keyword;
}

const char *og_cf_field_name(enum og_cf_field field)
{
	return field_names[field];
}

const char *og_usage_keyword(GPA_Usage_Type usage)
{
	return (unsigned)usage < GPA_USAGE_TYPE__LAST ? usage_keywords[usage] : "?";
}

const char *og_type_keyword(GPA_Type type)
{
	return (unsigned)type < GPA_TYPE__LAST && type_keywords[type] ? type_keywords[type] : "?";
}

/* A whole string as og_quote shows it; NULL without memory. */
static char *quoted_copy(const char *text)
{
	size_t len = 4 * strlen(text) + 1;
	char *s = malloc(len);
	return s ? (char *)og_quote(text, s, len) : NULL;
}

struct reader {
	const char *origin;
	unsigned line;
	char *err;
	size_t errlen;
};

static bool fail(struct reader *rd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static bool fail(struct reader *rd, const char *fmt, ...)
{
	if (!rd->err || !rd->errlen)
		return false;
	int n = snprintf(rd->err, rd->errlen, "%s:%u: ", rd->origin, rd->line);
	if (n >= 0 && (size_t)n < rd->errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(rd->err + n, rd->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return false;
}

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	char *end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

static bool valid_name(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

/* "word:" in lower case, as every key is; prose continuing a field rarely
 * starts that way. */
static bool looks_like_key(const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!islower((unsigned char)s[i]) && s[i] != '_')
			return false;
	return true;
}

static int lookup(const char *const *table, size_t n, const char *word)
{
	for (size_t i = 0; i < n; i++)
		if (table[i] && strcmp(table[i], word) == 0)
			return (int)i;
	return -1;
}

static bool append_text(char **dst, const char *text)
{
	size_t old = *dst ? strlen(*dst) : 0;
	char *s = realloc(*dst, old + strlen(text) + 2);
	if (!s)
		return false;
	if (old)
		s[old++] = ' ';
	strcpy(s + old, text);
	*dst = s;
	return true;
}

static void free_entry(struct og_cf_entry *e)
{
	free(e->name);
	for (int f = 0; f < OG_F__COUNT; f++)
		free(e->field[f]);
}

bool og_cf_next_word(const char **list, const char **word, size_t *len)
{
	const char *p = *list;
	if (!p)
		return false;
	p += strspn(p, " \t");
	if (!*p)
		return false;
	*word = p;
	*len = strcspn(p, " \t");
	*list = p + *len;
	return true;
}

/* `alias:` holds one or more names, blank-separated, none of them the
 * entry's own name or repeated (ignoring case, as every name). Whether an
 * alias clashes with another entry is the catalogue's check. */
static bool check_aliases(struct reader *rd, const struct og_cf_entry *e)
{
	const char *list = e->field[OG_F_ALIAS], *word;
	size_t len;
	while (og_cf_next_word(&list, &word, &len)) {
		char name[256];
		char q[96];
		if (len >= sizeof(name)) {
			snprintf(name, 48, "%s", word);
			return fail(rd, "%s: alias '%s' is too long", e->name, og_quote(name, q, sizeof q));
		}
		memcpy(name, word, len);
		name[len] = '\0';
		if (!valid_name(name))
			return fail(rd, "%s: alias '%s' is not a valid name ([A-Za-z_][A-Za-z0-9_]*)",
			            e->name, og_quote(name, q, sizeof q));
		if (strcasecmp(name, e->name) == 0)
			return fail(rd, "%s: alias '%s' is the counter's own name", e->name, name);
		const char *earlier = e->field[OG_F_ALIAS], *w;
		size_t n;
		while (og_cf_next_word(&earlier, &w, &n) && w < word)
			if (n == len && strncasecmp(w, name, len) == 0)
				return fail(rd, "%s: alias '%s' twice", e->name, name);
	}
	return true;
}

/* Checks the finished entry and decodes its enumerations and value. */
static bool finish_entry(struct reader *rd, struct og_cf_entry *e)
{
	unsigned saved = rd->line;
	rd->line = e->line;
	bool ok = true;
	char q[96];
	for (int f = 0; f < OG_F__COUNT && ok; f++)
		if ((kinds[e->kind].required & BIT(f)) && (!e->field[f] || !*e->field[f]))
			ok = fail(rd, "%s %s has no '%s:'", kinds[e->kind].keyword, e->name, field_names[f]);

	if (ok && e->field[OG_F_USAGE]) {
		int u = lookup(usage_keywords, GPA_USAGE_TYPE__LAST, e->field[OG_F_USAGE]);
		if (u < 0)
			ok = fail(rd, "%s: unknown usage '%s' (one of ratio, percentage, cycles, "
			              "milliseconds, bytes, items, kilobytes)",
			          e->name, og_quote(e->field[OG_F_USAGE], q, sizeof q));
		e->usage = (GPA_Usage_Type)u;
	} else {
		e->usage = GPA_USAGE_TYPE_ITEMS;
	}
	e->type = GPA_TYPE_UINT64;
	if (ok && e->field[OG_F_TYPE]) {
		int t = lookup(type_keywords, GPA_TYPE__LAST, e->field[OG_F_TYPE]);
		if (t < 0)
			ok = fail(rd, "%s: unknown type '%s' (one of float32, float64, uint32, uint64)",
			          e->name, og_quote(e->field[OG_F_TYPE], q, sizeof q));
		e->type = (GPA_Type)t;
	}
	if (ok && e->field[OG_F_ALIAS])
		ok = check_aliases(rd, e);
	if (ok && e->field[OG_F_HEADLINE] && strcmp(e->field[OG_F_HEADLINE], "yes") != 0 &&
	    strcmp(e->field[OG_F_HEADLINE], "no") != 0)
		ok = fail(rd, "%s: headline '%s' is neither yes nor no", e->name,
		          og_quote(e->field[OG_F_HEADLINE], q, sizeof q));
	if (ok && e->field[OG_F_VALUE]) {
		char *end;
		errno = 0;
		e->value = strtod(e->field[OG_F_VALUE], &end);
		if (end == e->field[OG_F_VALUE] || *end || errno || !isfinite(e->value))
			ok = fail(rd, "%s: value '%s' is not a number", e->name,
			          og_quote(e->field[OG_F_VALUE], q, sizeof q));
	}
	rd->line = saved;
	return ok;
}

/* Length of the UTF-8 sequence at p that encodes a character a counter file
 * may hold, or 0: malformed, overlong, a surrogate, above U+10FFFF, or a
 * control character (C0 but tab and CR, DEL, C1), which a terminal would act
 * on when a name or description is printed. */
static size_t text_char(const unsigned char *p)
{
	if (p[0] < 0x80)
		return (p[0] >= 0x20 && p[0] != 0x7f) || p[0] == '\t' || p[0] == '\r' ? 1 : 0;
	size_t n = p[0] >= 0xf0 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc0 ? 2 : 0;
	if (!n || p[0] > 0xf4)
		return 0;
	uint32_t c = p[0] & (0x7f >> n);
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (p[i] & 0x3f);
	}
	static const uint32_t least[5] = { 0, 0, 0x80, 0x800, 0x10000 };
	if (c < least[n] || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff) || c <= 0x9f)
		return 0;
	return n;
}

/* Counter files are UTF-8 text: anything else is refused before parsing,
 * so no byte of a binary file reaches a name, a description or a message. */
static bool check_text(struct reader *rd, const char *text)
{
	unsigned column = 1;
	rd->line = 1;
	for (const unsigned char *p = (const unsigned char *)text; *p;) {
		if (*p == '\n') {
			rd->line++;
			column = 1;
			p++;
			continue;
		}
		size_t n = text_char(p);
		if (!n)
			return fail(rd, "byte 0x%02x at column %u: a counter file is UTF-8 text without "
			                "control characters (is this the right file?)", *p, column);
		p += n;
		column++;
	}
	rd->line = 0;
	return true;
}

bool og_cf_parse(const char *origin, const char *text, struct og_cf_file *out, char *err,
                 size_t errlen)
{
	struct reader rd = { .origin = "counter file", .err = err, .errlen = errlen };
	memset(out, 0, sizeof(*out));
	if (err && errlen)
		err[0] = '\0';
	/* The name as messages show it: a path may hold any byte. */
	out->origin = quoted_copy(origin);
	if (out->origin)
		rd.origin = out->origin;
	char *copy = strdup(text);
	if (!out->origin || !copy) {
		free(copy);
		og_cf_free(out);
		return fail(&rd, "out of memory");
	}
	if (!check_text(&rd, text)) {
		free(copy);
		og_cf_free(out);
		return false;
	}

	size_t cap = 0;
	struct og_cf_entry *cur = NULL;
	int last_field = -1;
	bool ok = true;
	char *save = NULL;
	/* strtok_r would merge empty lines and lose the line count: split by hand. */
	for (char *line = copy; ok && line; line = save) {
		char *nl = strchr(line, '\n');
		save = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		rd.line++;

		char *hash = line;
		while (isspace((unsigned char)*hash))
			hash++;
		if (*hash == '#' || *hash == '\0')
			continue;
		/* A comment may also follow a value: " # ..." (a '#' after a blank). */
		for (char *c = hash; *c; c++)
			if (*c == '#' && c > line && isspace((unsigned char)c[-1])) {
				*c = '\0';
				break;
			}

		if (!isspace((unsigned char)line[0])) {
			if (cur && !(ok = finish_entry(&rd, cur)))
				break;
			cur = NULL;
			last_field = -1;
			char *kw = trim(line);
			char *name = kw + strcspn(kw, " \t");
			if (*name)
				*name++ = '\0';
			name = trim(name);
			if (strcmp(kw, "backend") == 0) {
				if (out->backend || out->count) {
					ok = fail(&rd, "'backend' must come once, before the first entry");
				} else if (!valid_name(name)) {
					ok = fail(&rd, "'backend' needs a backend name");
				} else if (!(out->backend = strdup(name))) {
					ok = fail(&rd, "out of memory");
				}
				continue;
			}
			int kind = -1;
			for (int k = 0; k < 3; k++)
				if (strcmp(kw, kinds[k].keyword) == 0)
					kind = k;
			if (kind < 0) {
				char q[96];
				ok = fail(&rd, "unknown keyword '%s' (expected constant, raw, counter or "
				               "backend at the start of a line)", og_quote(kw, q, sizeof q));
				break;
			}
			if (!valid_name(name)) {
				char q[96];
				ok = fail(&rd, "'%s' is not a valid name ([A-Za-z_][A-Za-z0-9_]*)",
				          og_quote(name, q, sizeof q));
				break;
			}
			if (out->count == cap) {
				size_t ncap = cap ? cap * 2 : 32;
				struct og_cf_entry *n = realloc(out->entries, ncap * sizeof(*n));
				if (!n) {
					ok = fail(&rd, "out of memory");
					break;
				}
				out->entries = n;
				cap = ncap;
			}
			cur = &out->entries[out->count++];
			memset(cur, 0, sizeof(*cur));
			cur->kind = (enum og_cf_kind)kind;
			cur->line = rd.line;
			if (!(cur->name = strdup(name)))
				ok = fail(&rd, "out of memory");
			continue;
		}

		/* An indented line: a field, or the continuation of the last one. */
		if (!cur) {
			ok = fail(&rd, "indented line outside an entry");
			break;
		}
		char *body = trim(line);
		size_t klen = strcspn(body, ":");
		int field = -1;
		if (body[klen] == ':') {
			char saved_c = body[klen];
			body[klen] = '\0';
			field = lookup(field_names, OG_F__COUNT, body);
			body[klen] = saved_c;
		}
		if (field < 0 && klen > 0 && body[klen] == ':' && looks_like_key(body, klen)) {
			/* A misspelt key would otherwise be glued onto the previous field. */
			ok = fail(&rd, "unknown key '%.*s' in %s %s (fields: description, value, source, "
			               "usage, group, hardware, note, type, expression, alias, headline)",
			          (int)klen, body, kinds[cur->kind].keyword, cur->name);
			break;
		}
		if (field < 0) {
			if (last_field < 0) {
				ok = fail(&rd, "expected 'key: value' in %s %s", kinds[cur->kind].keyword,
				          cur->name);
				break;
			}
			if (!append_text(&cur->field[last_field], body))
				ok = fail(&rd, "out of memory");
			continue;
		}
		if (!(kinds[cur->kind].allowed & BIT(field))) {
			ok = fail(&rd, "'%s' is not a field of a %s entry", field_names[field],
			          kinds[cur->kind].keyword);
			break;
		}
		if (cur->field[field]) {
			ok = fail(&rd, "%s %s has '%s' twice", kinds[cur->kind].keyword, cur->name,
			          field_names[field]);
			break;
		}
		if (!(cur->field[field] = strdup(trim(body + klen + 1))))
			ok = fail(&rd, "out of memory");
		last_field = field;
	}
	if (ok && cur)
		ok = finish_entry(&rd, cur);
	free(copy);
	if (!ok)
		og_cf_free(out);
	return ok;
}

void og_cf_free(struct og_cf_file *file)
{
	if (file->builtin) {
		memset(file, 0, sizeof(*file));
		return;
	}
	for (size_t i = 0; i < file->count; i++)
		free_entry(&file->entries[i]);
	free(file->entries);
	free(file->origin);
	free(file->backend);
	memset(file, 0, sizeof(*file));
}

static bool load_failed(char *err, size_t errlen, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static bool load_failed(char *err, size_t errlen, const char *path, const char *fmt, ...)
{
	if (!err || !errlen)
		return false;
	char q[256];
	int n = snprintf(err, errlen, "%s: ", og_quote(path, q, sizeof q));
	if (n >= 0 && (size_t)n < errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return false;
}

/* Counter files as readfile.h opens them: a regular file of at most
 * OG_CF_MAX_BYTES, never a FIFO or a device. */
static const struct og_file_kind counter_file_kind = {
	.what = "counter file",
	.max_bytes = OG_CF_MAX_BYTES,
	.fix = "counter files are regular text files (docs/counter-files.md, \"Limits\")",
};

bool og_cf_load(const char *path, struct og_cf_file *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	if (err && errlen)
		err[0] = '\0';
	size_t len;
	char *text = og_read_regular(path, &counter_file_kind, &len, err, errlen);
	if (!text)
		return false;
	if (strlen(text) != len) {
		free(text);
		return load_failed(err, errlen, path, "contains a NUL byte: not a counter file");
	}
	bool ok = og_cf_parse(path, text, out, err, errlen);
	free(text);
	return ok;
}
