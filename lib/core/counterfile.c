/* SPDX-License-Identifier: MIT */
/* counterfile.c — the line-oriented counter file reader. */
#include "counterfile.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
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
	                            BIT(OG_F_EXPRESSION) | BIT(OG_F_NOTE) | BIT(OG_F_ALIAS),
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

/* Byte c as og_cf_quote writes it; returns the length (1, 2 or 4). */
static size_t quote_byte(unsigned char c, char out[4])
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

const char *og_cf_quote(const char *text, char *buf, size_t len)
{
	if (!len)
		return buf;
	size_t need = 0;
	char one[4];
	for (const unsigned char *p = (const unsigned char *)text; *p; p++)
		need += quote_byte(*p, one);
	/* When it does not all fit, what fits leaves room for "...". */
	size_t room = need < len ? need : (len > 4 ? len - 4 : 0);
	size_t at = 0;
	for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
		size_t n = quote_byte(*p, one);
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

/* A whole string as og_cf_quote shows it; NULL without memory. */
static char *quoted_copy(const char *text)
{
	size_t len = 4 * strlen(text) + 1;
	char *s = malloc(len);
	return s ? (char *)og_cf_quote(text, s, len) : NULL;
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
			return fail(rd, "%s: alias '%s' is too long", e->name, og_cf_quote(name, q, sizeof q));
		}
		memcpy(name, word, len);
		name[len] = '\0';
		if (!valid_name(name))
			return fail(rd, "%s: alias '%s' is not a valid name ([A-Za-z_][A-Za-z0-9_]*)",
			            e->name, og_cf_quote(name, q, sizeof q));
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
			          e->name, og_cf_quote(e->field[OG_F_USAGE], q, sizeof q));
		e->usage = (GPA_Usage_Type)u;
	} else {
		e->usage = GPA_USAGE_TYPE_ITEMS;
	}
	e->type = GPA_TYPE_UINT64;
	if (ok && e->field[OG_F_TYPE]) {
		int t = lookup(type_keywords, GPA_TYPE__LAST, e->field[OG_F_TYPE]);
		if (t < 0)
			ok = fail(rd, "%s: unknown type '%s' (one of float32, float64, uint32, uint64)",
			          e->name, og_cf_quote(e->field[OG_F_TYPE], q, sizeof q));
		e->type = (GPA_Type)t;
	}
	if (ok && e->field[OG_F_ALIAS])
		ok = check_aliases(rd, e);
	if (ok && e->field[OG_F_VALUE]) {
		char *end;
		errno = 0;
		e->value = strtod(e->field[OG_F_VALUE], &end);
		if (end == e->field[OG_F_VALUE] || *end || errno || !isfinite(e->value))
			ok = fail(rd, "%s: value '%s' is not a number", e->name,
			          og_cf_quote(e->field[OG_F_VALUE], q, sizeof q));
	}
	rd->line = saved;
	return ok;
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
				               "backend at the start of a line)", og_cf_quote(kw, q, sizeof q));
				break;
			}
			if (!valid_name(name)) {
				char q[96];
				ok = fail(&rd, "'%s' is not a valid name ([A-Za-z_][A-Za-z0-9_]*)",
				          og_cf_quote(name, q, sizeof q));
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
			               "usage, group, hardware, note, type, expression, alias)",
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
	int n = snprintf(err, errlen, "%s: ", og_cf_quote(path, q, sizeof q));
	if (n >= 0 && (size_t)n < errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return false;
}

static const char *file_kind(mode_t mode)
{
	return S_ISDIR(mode) ? "a directory" : S_ISFIFO(mode) ? "a FIFO"
	     : S_ISCHR(mode) ? "a character device" : S_ISBLK(mode) ? "a block device"
	     : S_ISSOCK(mode) ? "a socket" : "not a regular file";
}

/* What a counter file must be, from its metadata: a regular file of at most
 * OG_CF_MAX_BYTES. */
static bool acceptable(const struct stat *st, const char *path, char *err, size_t errlen)
{
	if (!S_ISREG(st->st_mode))
		return load_failed(err, errlen, path, "is %s, not a counter file (counter files are "
		                                      "regular text files)", file_kind(st->st_mode));
	if (st->st_size > (off_t)OG_CF_MAX_BYTES)
		return load_failed(err, errlen, path, "is %lld bytes; a counter file may have at most "
		                                      "%u (docs/counter-files.md, \"Limits\")",
		                   (long long)st->st_size, OG_CF_MAX_BYTES);
	return true;
}

bool og_cf_load(const char *path, struct og_cf_file *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	if (err && errlen)
		err[0] = '\0';
	/* Looked at before it is opened, so that opening cannot block (a FIFO
	 * with no writer) or act (some devices do on open); then opened without
	 * blocking and looked at again, in case the path changed in between. */
	struct stat st;
	if (stat(path, &st) != 0)
		return load_failed(err, errlen, path, "cannot open: %s", strerror(errno));
	if (!acceptable(&st, path, err, errlen))
		return false;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0)
		return load_failed(err, errlen, path, "cannot open: %s", strerror(errno));
	if (fstat(fd, &st) != 0 || !acceptable(&st, path, err, errlen)) {
		if (err && errlen && !err[0])
			load_failed(err, errlen, path, "cannot read: %s", strerror(errno));
		close(fd);
		return false;
	}
	/* Never more than the cap, whatever the size said: a file may grow, and
	 * /proc files say 0. */
	size_t cap = (size_t)st.st_size + 1, len = 0;
	if (cap > OG_CF_MAX_BYTES + 1)
		cap = OG_CF_MAX_BYTES + 1;
	char *text = malloc(cap + 1);
	int saved_errno = 0;
	bool ok = text != NULL;
	while (ok) {
		if (len == cap) {
			if (cap == OG_CF_MAX_BYTES + 1)
				break;
			size_t grown = 2 * cap > OG_CF_MAX_BYTES + 1 ? OG_CF_MAX_BYTES + 1 : 2 * cap;
			char *t = realloc(text, grown + 1);
			if (!t) {
				ok = false;
				break;
			}
			text = t;
			cap = grown;
		}
		ssize_t n = read(fd, text + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			saved_errno = errno;
			ok = false;
		} else if (n == 0) {
			break;
		} else {
			len += (size_t)n;
		}
	}
	close(fd);
	if (!ok) {
		free(text);
		return load_failed(err, errlen, path, "cannot read: %s",
		                   saved_errno ? strerror(saved_errno) : "out of memory");
	}
	if (len > OG_CF_MAX_BYTES) {
		free(text);
		return load_failed(err, errlen, path, "has more than %u bytes; a counter file may have at "
		                                      "most that (docs/counter-files.md, \"Limits\")",
		                   OG_CF_MAX_BYTES);
	}
	text[len] = '\0';
	if (strlen(text) != len) {
		free(text);
		return load_failed(err, errlen, path, "contains a NUL byte: not a counter file");
	}
	ok = og_cf_parse(path, text, out, err, errlen);
	free(text);
	return ok;
}
