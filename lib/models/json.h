/* SPDX-License-Identifier: MIT */
/*
 * json.h — a strict, bounded JSON reader (RFC 8259) for the documents
 * opengpa itself writes, chiefly `opengpa stat --json` profiles that
 * `opengpa predict` reads back.  The input is untrusted: nesting, length
 * and every escape are checked, and a document that is not exactly one
 * JSON value is refused with the byte offset of the fault.
 */
#ifndef OPENGPA_MODELS_JSON_H
#define OPENGPA_MODELS_JSON_H

#include <stdbool.h>
#include <stddef.h>

enum og_json_type {
	OG_JSON_NULL,
	OG_JSON_BOOL,
	OG_JSON_NUMBER,
	OG_JSON_STRING,
	OG_JSON_ARRAY,
	OG_JSON_OBJECT,
};

/* Limits on what the reader accepts. */
#define OG_JSON_MAX_DEPTH 64
#define OG_JSON_MAX_BYTES (64u << 20)

struct og_json {
	enum og_json_type type;
	bool boolean;
	double number;        /* numbers are read as doubles (strtod) */
	char *string;         /* NUL-terminated UTF-8; a string with U+0000 is refused */
	size_t n;             /* elements of an array, members of an object */
	struct og_json *items; /* the elements, or the members' values */
	char **keys;          /* an object's member names, in document order */
};

/* Parses text[0..len) into *out (freed with og_json_free, also after a
 * failure).  Returns false with "offset N: what is wrong" in err. */
bool og_json_parse(const char *text, size_t len, struct og_json *out, char *err, size_t errlen);
void og_json_free(struct og_json *v);

/* The value of an object's member `key` (the first, if repeated), or NULL
 * when v is not an object or has no such member. */
const struct og_json *og_json_get(const struct og_json *v, const char *key);

#endif
