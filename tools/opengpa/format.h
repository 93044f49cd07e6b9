/* SPDX-License-Identifier: MIT */
/* format.h — fields for scripts: CSV (RFC 4180 quoting) and JSON strings. */
#ifndef OPENGPA_TOOLS_FORMAT_H
#define OPENGPA_TOOLS_FORMAT_H

#include <stdio.h>

/* Writes one field for a line separated by `sep`, quoted as RFC 4180 asks
 * when it contains sep (or any character of a sep of several, so a field's
 * end and the separator cannot be read another way), a quote, CR or LF;
 * quotes are doubled inside.  sep itself must hold no quote, CR or LF
 * (cli_check_separator refuses them): nothing could then be unambiguous. */
void fmt_csv_field(FILE *f, const char *field, const char *sep);

/* Writes s as a JSON string literal: quotes, backslashes and control
 * characters escaped; bytes that are not valid UTF-8 as U+FFFD. */
void fmt_json_string(FILE *f, const char *s);

#endif
