/* SPDX-License-Identifier: MIT */
/*
 * options.h — the command line of every opengpa command, one way.
 *
 * Each command's options are documented once, in its manual page source
 * docs/man/opengpa-CMD.1.txt.  tools/mangen/mangen.py turns that file into
 * the man page, the `--help` text and the option table below
 * (cli_options.h: `enum CMD_opt` and `cli_command_CMD`), so the parser, the
 * help and the manual cannot disagree.  Adding an option to a command:
 *
 *   1. docs/man/opengpa-CMD.1.txt, under OPTIONS:
 *
 *          -I, --interval-print=MS {INTERVAL}
 *          	Print the counts every MS milliseconds. ...
 *
 *      (a short letter only where perf(1) has the same letter with the same
 *      meaning; otherwise a long option alone);
 *   2. the command's apply function (stat_options.c for stat, list.c,
 *      pcsweep.c): a `case CMD_OPT_INTERVAL:` that stores the value.  Its
 *      switch has no default, so the build fails until the case exists.
 *
 * tests/tools/test_options.c checks every documented option reaches its
 * apply function and that nothing else is accepted.
 */
#ifndef OPENGPA_TOOLS_OPTIONS_H
#define OPENGPA_TOOLS_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One documented option, with all its names. */
struct cli_option {
	const char *shorts;             /* its short letters ("o"); "" for none */
	const char *const *longs;       /* its long names, NULL-terminated */
	const char *arg;                /* metavariable ("FILE"); NULL: takes no value */
	int key;                        /* the command's enum CMD_opt value */
	const char *term;               /* as the manual writes it: "-o, --output=FILE" */
};

struct cli_command {
	const char *name; /* "stat" */
	const struct cli_option *options;
	size_t noptions;
	const char *help; /* what CMD --help prints */
};

/* How cli_parse failed. */
enum cli_error {
	CLI_OK = 0,
	CLI_ERR_UNKNOWN,   /* not an option of this command */
	CLI_ERR_AMBIGUOUS, /* a long-option prefix of several options */
	CLI_ERR_NO_VALUE,  /* an option that takes a value got none */
	CLI_ERR_VALUE_GIVEN, /* --flag=value for an option without one */
	CLI_ERR_BAD_VALUE, /* the apply function refused the value */
	CLI_ERR_UNHANDLED, /* the apply function has no case for the key: a bug */
};

/* Called once per option, in command-line order; value is NULL for an
 * option without one.  Returns CLI_OK; CLI_ERR_BAD_VALUE after writing the
 * reason into err (the parser puts the option and value in front: "-p
 * 12x: not a process id"); or CLI_ERR_UNHANDLED. */
typedef enum cli_error cli_apply_fn(void *ctx, int key, const struct cli_option *opt,
                                    const char *value, char *err, size_t errlen);

/*
 * Parses argv[1..argc) (argv[0] is the command's name) as perf and git do:
 * short options cluster (-ab, -xVALUE, -x VALUE), long options take
 * --name=VALUE or --name VALUE and may be shortened to a unique prefix.
 * Options end at "--" (skipped) or at the first word that is not an option
 * ("-" alone is a word); *operand gets that word's index (argc: none).
 * Pure: no output, no allocation, no global state.  Returns CLI_OK or the
 * error with a one-line reason in err ("unknown option -Q"); text from the
 * command line is escaped in it (control bytes as \xNN).
 */
enum cli_error cli_parse(const struct cli_command *cmd, int argc, char *const argv[],
                         cli_apply_fn *apply, void *ctx, int *operand, char *err,
                         size_t errlen);

/* A decimal integer in [min, max]: digits only (no sign, space or base
 * prefix) and no overflow.  Returns false otherwise. */
bool cli_parse_uint(const char *text, uint64_t min, uint64_t max, uint64_t *out);

/* A positive number of seconds up to max (decimal, fractions allowed). */
bool cli_parse_seconds(const char *text, double max, double *out);

/* A field separator (-x): not empty (the fields would run together) and
 * without a quote or a line break (CSV quoting could not tell them apart). */
enum cli_error cli_check_separator(const char *sep, char *err, size_t errlen);

/* `text` for a message, as og_quote (util/quote.h) shows it: control and
 * non-ASCII bytes as \xNN, a backslash doubled, cut with "..." to fit buf.
 * Every message that echoes a user's or the kernel's text goes through it.
 * Returns buf. */
const char *cli_escape(const char *text, char *buf, size_t len);

/* printf into err (a NULL err or 0 errlen writes nothing); returns
 * CLI_ERR_BAD_VALUE, for apply functions. */
enum cli_error cli_refuse(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
