/* SPDX-License-Identifier: MIT */
/* refuse.h — the one way lib/models reports an error: a line in the caller's buffer. */
#ifndef OPENGPA_MODELS_REFUSE_H
#define OPENGPA_MODELS_REFUSE_H

#include <stdbool.h>
#include <stddef.h>

/* printf into err (nothing when err is NULL or errlen 0), the whole line as
 * og_quote shows it (util/quote.h: control and non-ASCII bytes as \xNN, a
 * backslash doubled), since the arguments are a table's, a profile's or a
 * command line's text; returns false.  A message that holds another
 * og_model_refuse message goes through og_model_refuse_with. */
bool og_model_refuse(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* "PREFIX: inner" into err: the prefix (printf) quoted, `inner` (already an
 * og_model_refuse message) as it is; returns false. */
bool og_model_refuse_with(char *err, size_t errlen, const char *inner, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif
