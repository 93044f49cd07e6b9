/* SPDX-License-Identifier: MIT */
/* report.h — printing one session's sample 0 as a table, separated values or JSON. */
#ifndef OPENGPA_TOOLS_REPORT_H
#define OPENGPA_TOOLS_REPORT_H

#include <stdio.h>

#include "opengpa.h"

enum report_format { REPORT_TABLE, REPORT_SEPARATED, REPORT_JSON };

/* Reads every enabled counter of sample 0 and prints it to f.  Returns 0
 * or 1 after printing the error. */
int report_session(FILE *f, gpa_uint32 session, gpa_uint32 passes, char *const command[],
                   double elapsed_per_run, enum report_format format, const char *sep);

#endif
