/* SPDX-License-Identifier: MIT */
/*
 * gen_tool.h — what the build-time generators share (native_gen.c,
 * builtin_gen.c): failing with a message, and the catalogue's rule for
 * which entry a name in an expression means.  Build tools only.
 */
#ifndef OPENGPA_CATALOG_GEN_TOOL_H
#define OPENGPA_CATALOG_GEN_TOOL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "catalog/counterfile.h"
#include "expr/expr.h"

/* The tool's name, for its messages ("native-gen"). */
extern const char gen_tool_name[];

static inline void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static inline void die(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%s: ", gen_tool_name);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

static inline void *must(void *p)
{
	if (!p)
		die("out of memory");
	return p;
}

/* Whether entry e answers to `name`: its own name, or a counter's alias
 * (ignoring case, as the catalogue resolves names). */
static inline bool answers_to(const struct og_cf_entry *e, const char *name, size_t len)
{
	if (strlen(e->name) == len && strncasecmp(e->name, name, len) == 0)
		return true;
	const char *list = e->kind == OG_CF_COUNTER ? e->field[OG_F_ALIAS] : NULL, *word;
	size_t n;
	while (list && og_cf_next_word(&list, &word, &n))
		if (n == len && strncasecmp(word, name, len) == 0)
			return true;
	return false;
}

/* The first entry of f that answers to `name`, its index in *at; NULL if
 * none does. */
static inline const struct og_cf_entry *gen_find(const struct og_cf_file *f, const char *name,
                                                 size_t len, size_t *at)
{
	for (size_t i = 0; i < f->count; i++)
		if (answers_to(&f->entries[i], name, len)) {
			*at = i;
			return &f->entries[i];
		}
	return NULL;
}

/* Reads the counter file at `path` with the library's reader, naming it in
 * `origin` as embed.py does ("counters/NAME.counters"); dies on failure. */
static inline void gen_read(const char *path, struct og_cf_file *file, char *origin, size_t size)
{
	const char *base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (snprintf(origin, size, "counters/%s", base) >= (int)size)
		die("%s: name too long", path);
	char err[512];
	if (!og_cf_load(path, file, err, sizeof(err)))
		die("%s", err);
}

/* A postfix operation's name in C ("OG_OP_ADD"). */
static inline const char *op_name(enum og_expr_op_code code)
{
	static const char *const names[] = {
		[OG_OP_NUMBER] = "OG_OP_NUMBER", [OG_OP_RAW] = "OG_OP_RAW",
		[OG_OP_CONSTANT] = "OG_OP_CONSTANT", [OG_OP_ADD] = "OG_OP_ADD",
		[OG_OP_SUB] = "OG_OP_SUB", [OG_OP_MUL] = "OG_OP_MUL", [OG_OP_DIV] = "OG_OP_DIV",
		[OG_OP_NEG] = "OG_OP_NEG", [OG_OP_MIN] = "OG_OP_MIN", [OG_OP_MAX] = "OG_OP_MAX",
		[OG_OP_SHARE] = "OG_OP_SHARE", [OG_OP_SHARED] = "OG_OP_SHARED",
	};
	return names[code];
}

#endif
