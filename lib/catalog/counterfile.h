/* SPDX-License-Identifier: MIT */
/*
 * counterfile.h — reading counters/<set>.counters text (format:
 * docs/counter-files.md) into entries.  Only syntax and per-entry rules are
 * checked here; names and expressions are resolved by catalog.c.
 */
#ifndef OPENGPA_CATALOG_COUNTERFILE_H
#define OPENGPA_CATALOG_COUNTERFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "GPUPerfAPITypes.h"

enum og_cf_kind {
	OG_CF_CONSTANT,
	OG_CF_RAW,
	OG_CF_COUNTER,
};

enum og_cf_field {
	OG_F_DESCRIPTION,
	OG_F_VALUE,
	OG_F_SOURCE,
	OG_F_USAGE,
	OG_F_GROUP,
	OG_F_HARDWARE,
	OG_F_NOTE,
	OG_F_TYPE,
	OG_F_EXPRESSION,
	OG_F_ALIAS, /* other names of a counter, blank-separated (checked to be names) */
	OG_F_HEADLINE, /* "yes": in `opengpa stat`'s default set (checked: yes or no) */
	OG_F__COUNT
};

struct og_cf_entry {
	enum og_cf_kind kind;
	char *name;
	char *field[OG_F__COUNT]; /* NULL when absent */
	unsigned line;
	GPA_Usage_Type usage; /* decoded from field[OG_F_USAGE] (raw default: items) */
	GPA_Type type;        /* decoded from field[OG_F_TYPE] (raw: uint64) */
	double value;         /* decoded from field[OG_F_VALUE] when present */
};

struct og_builtin_set;

struct og_cf_file {
	char *origin;  /* file name, for messages */
	char *backend; /* the `backend NAME` line, or NULL */
	struct og_cf_entry *entries;
	size_t count;
	/* A built-in set's file as the build read it (catalog/builtin.h): static,
	 * read-only, not freed; NULL for a file read at run time. */
	const struct og_builtin_set *builtin;
};

/* Parses text.  On failure returns false with "origin:line: what" in err. */
bool og_cf_parse(const char *origin, const char *text, struct og_cf_file *out, char *err,
                 size_t errlen);
void og_cf_free(struct og_cf_file *file);

/* Counter files are small text: the largest built-in set is about 80 KB.
 * og_cf_load refuses anything that is not a regular file, or is larger
 * than this, before reading it (docs/counter-files.md, "Limits"). */
#define OG_CF_MAX_BYTES (4u << 20)
/* And all the extra files one context loads, together. */
#define OG_CF_MAX_TOTAL_BYTES (16u << 20)

/* Reads and parses a file from disk; err as above (including I/O errors,
 * and a path that is not a regular file of at most OG_CF_MAX_BYTES). */
bool og_cf_load(const char *path, struct og_cf_file *out, char *err, size_t errlen);


/* Steps through a blank-separated list such as an `alias:` field: points
 * *word and *len at the next word and advances *list past it, or returns
 * false when no word is left (also for a NULL list). */
bool og_cf_next_word(const char **list, const char **word, size_t *len);

const char *og_cf_kind_name(enum og_cf_kind kind);
const char *og_cf_field_name(enum og_cf_field field);

/* Usage and type keywords of the format ("percentage", "uint64"). */
const char *og_usage_keyword(GPA_Usage_Type usage);
const char *og_type_keyword(GPA_Type type);

#endif
