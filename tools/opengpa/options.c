/* SPDX-License-Identifier: MIT */
/* options.c — one parser for every command's table (options.h). */
#include "options.h"
#include "util/quote.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum cli_error cli_refuse(char *err, size_t errlen, const char *fmt, ...)
{
	if (err && errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return CLI_ERR_BAD_VALUE;
}

/* Appends `text` (at most `len` bytes) to err as og_quote shows it (control
 * and non-ASCII bytes as \xNN, a backslash doubled): what a user typed may
 * be anything. */
static void append_escaped(char *err, size_t errlen, const char *text, size_t len)
{
	if (!err || !errlen)
		return;
	size_t at = strlen(err);
	char one[4];
	for (size_t i = 0; i < len && text[i]; i++) {
		size_t n = og_quote_byte((unsigned char)text[i], one);
		if (at + n + 1 > errlen)
			break;
		memcpy(err + at, one, n);
		at += n;
	}
	err[at] = '\0';
}

/* The one escaping of the project: util/quote.h's. */
const char *cli_escape(const char *text, char *buf, size_t len)
{
	return og_quote(text, buf, len);
}

enum cli_error cli_check_separator(const char *sep, char *err, size_t errlen)
{
	if (!*sep)
		return cli_refuse(err, errlen, "an empty separator would run the fields together; "
		                  "give one, such as -x, or -x ';'");
	if (strpbrk(sep, "\"\r\n"))
		return cli_refuse(err, errlen, "the separator cannot contain a quote or a line break");
	return CLI_OK;
}

static enum cli_error say(char *err, size_t errlen, enum cli_error e, const char *before,
                          const char *text, size_t len, const char *after)
{
	if (!err || !errlen)
		return e;
	snprintf(err, errlen, "%s", before);
	append_escaped(err, errlen, text, len);
	size_t at = strlen(err);
	snprintf(err + at, errlen - at, "%s", after);
	return e;
}

/* "--name" or "-n" as the user wrote it, then the value and the reason. */
static enum cli_error apply_one(const struct cli_option *opt, const char *written, size_t wlen,
                                const char *value, cli_apply_fn *apply, void *ctx, char *err,
                                size_t errlen)
{
	char why[256] = "";
	enum cli_error e = apply(ctx, opt->key, opt, value, why, sizeof why);
	if (e == CLI_OK)
		return CLI_OK;
	if (e == CLI_ERR_UNHANDLED)
		return say(err, errlen, e, "", written, wlen,
		           ": the option is documented but not handled (a bug in opengpa)");
	if (!err || !errlen)
		return e;
	err[0] = '\0';
	append_escaped(err, errlen, written, wlen);
	if (value) {
		size_t at = strlen(err);
		snprintf(err + at, errlen - at, " %s", *value ? "" : "''");
		append_escaped(err, errlen, value, strlen(value));
	}
	size_t at = strlen(err);
	snprintf(err + at, errlen - at, ": %s", why[0] ? why : "refused");
	return CLI_ERR_BAD_VALUE;
}

static const struct cli_option *find_short(const struct cli_command *cmd, char c)
{
	for (size_t i = 0; i < cmd->noptions; i++)
		if (c && strchr(cmd->options[i].shorts, c))
			return &cmd->options[i];
	return NULL;
}

/* Exact name first, else the only option the text is a prefix of (two
 * names of one option are one option). */
static enum cli_error find_long(const struct cli_command *cmd, const char *name, size_t len,
                                const struct cli_option **out, const char **long_name,
                                char *err, size_t errlen)
{
	const struct cli_option *prefix = NULL;
	const char *prefix_name = NULL;
	size_t nprefix = 0;
	if (len == 0)
		return say(err, errlen, CLI_ERR_UNKNOWN, "unknown option --", name, strlen(name), "");
	for (size_t i = 0; i < cmd->noptions; i++) {
		const struct cli_option *o = &cmd->options[i];
		bool counted = false;
		for (const char *const *l = o->longs; *l; l++) {
			if (strncmp(*l, name, len) != 0)
				continue;
			if ((*l)[len] == '\0') {
				*out = o;
				*long_name = *l;
				return CLI_OK;
			}
			if (!counted) {
				nprefix++;
				counted = true;
			}
			if (!prefix) {
				prefix = o;
				prefix_name = *l;
			}
		}
	}
	if (nprefix == 1) {
		*out = prefix;
		*long_name = prefix_name;
		return CLI_OK;
	}
	if (nprefix > 1) {
		say(err, errlen, CLI_ERR_AMBIGUOUS, "option --", name, len, " is ambiguous:");
		for (size_t i = 0; i < cmd->noptions && err; i++)
			for (const char *const *l = cmd->options[i].longs; *l; l++) {
				size_t at = strlen(err);
				if (strncmp(*l, name, len) == 0 && at < errlen)
					snprintf(err + at, errlen - at, " --%s", *l);
			}
		return CLI_ERR_AMBIGUOUS;
	}
	return say(err, errlen, CLI_ERR_UNKNOWN, "unknown option --", name, len, "");
}

enum cli_error cli_parse(const struct cli_command *cmd, int argc, char *const argv[],
                         cli_apply_fn *apply, void *ctx, int *operand, char *err,
                         size_t errlen)
{
	if (err && errlen)
		err[0] = '\0';
	int i = 1;
	enum cli_error e = CLI_OK;
	for (; i < argc && e == CLI_OK; i++) {
		const char *a = argv[i];
		if (!a || a[0] != '-' || a[1] == '\0')
			break; /* the first operand */
		if (strcmp(a, "--") == 0) {
			i++;
			break;
		}
		if (a[1] == '-') {
			const char *name = a + 2, *eq = strchr(name, '=');
			size_t len = eq ? (size_t)(eq - name) : strlen(name);
			const struct cli_option *opt = NULL;
			const char *lname = NULL;
			if ((e = find_long(cmd, name, len, &opt, &lname, err, errlen)) != CLI_OK)
				break;
			const char *value = eq ? eq + 1 : NULL;
			if (opt->arg && !value) {
				if (i + 1 >= argc) {
					e = say(err, errlen, CLI_ERR_NO_VALUE, "--", lname, strlen(lname),
					        " needs a value");
					break;
				}
				value = argv[++i];
			} else if (!opt->arg && value) {
				e = say(err, errlen, CLI_ERR_VALUE_GIVEN, "--", lname, strlen(lname),
				        " takes no value");
				break;
			}
			e = apply_one(opt, a, len + 2, value, apply, ctx, err, errlen);
			continue;
		}
		/* A cluster of short options; one that takes a value ends it. */
		for (const char *p = a + 1; *p && e == CLI_OK; p++) {
			const struct cli_option *opt = find_short(cmd, *p);
			char written[3] = { '-', *p, '\0' };
			if (!opt) {
				e = say(err, errlen, CLI_ERR_UNKNOWN, "unknown option -", p, 1, "");
				break;
			}
			if (!opt->arg) {
				e = apply_one(opt, written, 2, NULL, apply, ctx, err, errlen);
				continue;
			}
			const char *value = p[1] ? p + 1 : NULL;
			if (!value) {
				if (i + 1 >= argc) {
					e = say(err, errlen, CLI_ERR_NO_VALUE, "-", p, 1, " needs a value");
					break;
				}
				value = argv[++i];
			}
			e = apply_one(opt, written, 2, value, apply, ctx, err, errlen);
			break;
		}
	}
	if (operand)
		*operand = i > argc ? argc : i;
	return e;
}

bool cli_parse_uint(const char *text, uint64_t min, uint64_t max, uint64_t *out)
{
	if (!text || !*text)
		return false;
	uint64_t v = 0;
	for (const char *p = text; *p; p++) {
		if (*p < '0' || *p > '9')
			return false;
		unsigned d = (unsigned)(*p - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false; /* would overflow */
		v = v * 10 + d;
	}
	if (v < min || v > max)
		return false;
	*out = v;
	return true;
}

bool cli_parse_seconds(const char *text, double max, double *out)
{
	if (!text || !*text || !((*text >= '0' && *text <= '9') || *text == '.'))
		return false;
	char *end;
	errno = 0;
	double v = strtod(text, &end);
	if (*end || errno || !isfinite(v) || !(v > 0.0) || v > max)
		return false;
	*out = v;
	return true;
}
