/* SPDX-License-Identifier: MIT */
/* cli.h — what the opengpa command's files share. */
#ifndef OPENGPA_TOOLS_CLI_H
#define OPENGPA_TOOLS_CLI_H

#include <stdbool.h>
#include <stdio.h>

#include "opengpa.h"

/* The first error the library logged since cli_clear_error(): the one line
 * the command prints when a call fails. */
void cli_install_logger(void);
void cli_clear_error(void);
/* -v: the library's messages (1) and trace (2) on stderr as well. */
void cli_set_verbose(unsigned level);
const char *cli_last_error(void);
/* Copies the first error logged since the last clear into buf ("" when
 * none) and clears it, under the logger's lock: for the -I reader thread,
 * which reads while the main thread may log. */
void cli_take_error(char *buf, size_t len);

/* Prints "opengpa: what: <library message or status>" and returns 1. */
int cli_fail(const char *what, GPA_Status status);

/* Opens a context on `backend` (NULL: auto) with `options` (NULL: none);
 * returns 1 after printing why it could not. */
int cli_open(const char *backend, const char *options, bool hardware);
/* The same, silent: the library's reason is cli_last_error(). */
GPA_Status cli_try_open(const char *backend, const char *options, bool hardware);
void cli_close(void);

/* Prints "opengpa CMD: <err> (see opengpa CMD --help)" and returns 2. */
int cli_usage_error(const char *command, const char *err);

/* Opens a file the command writes (truncated, or appended to), close-on-exec
 * so the measured command does not inherit it.  NULL after printing why. */
FILE *cli_open_output(const char *path, bool append);
/* Closes what cli_open_output opened (nothing for stdout/stderr) and
 * returns 1 after printing the error when the writes failed, else 0. */
int cli_close_output(FILE *f, const char *path);

int cmd_list(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_pc_sweep(int argc, char **argv);
int cmd_spe(int argc, char **argv);
int cmd_predict(int argc, char **argv);
int cmd_compare(int argc, char **argv);

#endif
