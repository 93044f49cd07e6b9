/* SPDX-License-Identifier: MIT */
/* run.h — one session of the current context over a command's runs. */
#ifndef OPENGPA_TOOLS_RUN_H
#define OPENGPA_TOOLS_RUN_H

#include <stdbool.h>

#include "opengpa.h"

/* Runs `command` once per pass of a new session on the current context;
 * `scoped`: the backend options already say what to count (perf -a/-C/-p/-t),
 * so the command is not made the target.  Without a command (NULL) each pass
 * counts until SIGINT/SIGTERM or `duration` seconds (> 0).  Returns 0, or 1
 * after printing the error; *exit_status is the command's. */
int run_command(char **command, bool scoped, double duration, gpa_uint32 *session,
                gpa_uint32 *passes, int *exit_status, double *elapsed_per_run);

#endif
