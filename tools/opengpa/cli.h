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
const char *cli_last_error(void);

/* Prints "opengpa: what: <library message or status>" and returns 1. */
int cli_fail(const char *what, GPA_Status status);

/* Opens a context on `backend` (NULL: auto) with `options` (NULL: none). */
int cli_open(const char *backend, const char *options, bool hardware);
void cli_close(void);

int cmd_list(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_stat_pcsweep(int argc, char **argv);

/* Runs `command` once per pass of a new session on the current context;
 * `scoped`: the backend options already say what to count (perf -a/-C/-p/-t),
 * so the command is not made the target.  Without a command (NULL) each pass
 * counts until SIGINT/SIGTERM or `duration` seconds (> 0).  Returns 0, or 1
 * after printing the error; *exit_status is the command's. */
int run_command(char **command, bool scoped, double duration, gpa_uint32 *session,
                gpa_uint32 *passes, int *exit_status, double *elapsed_per_run);

#endif
