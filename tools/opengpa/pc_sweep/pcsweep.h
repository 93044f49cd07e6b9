/* SPDX-License-Identifier: MIT */
/*
 * pcsweep.h — `opengpa pc_sweep`: the options of MIPS's pc_sweep tool
 * (MD00548 section 4.3, Tables 4 and 5) and a report shaped
 * like pc_parse's (Figures 4, 5 and 8).
 *
 * The caller (tools/opengpa) does the measuring: it opens a context with the
 * mips backend and pcsweep_backend_options(), enables pcsweep_counters()
 * (raw counters need OpenGPA_SetHardwareCounters(1)), runs the command once
 * per pass, and hands the values to pcsweep_report().
 */
#ifndef OPENGPA_TOOLS_PCSWEEP_H
#define OPENGPA_TOOLS_PCSWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PCSWEEP_MAX_NAMES 160

struct pcsweep_request {
	uint32_t modes;         /* PerfCtl bits: 8 U, 4 S, 2 K, 1 EXL */
	int tc, vpe;            /* -1 when not given */
	bool parse;             /* -p: the pc_parse report; else the /proc/perf-style dump */
	bool help;              /* -h: print the help instead */
	const char *output;     /* --output/--append file, or NULL for the caller's stream */
	bool append;
	bool even[128], odd[128]; /* events selected on each bank */
	char options[96];       /* backend options, filled by pcsweep_parse */
	char perf_options[32];  /* the same for the perf backend (a mainline kernel) */
};

/*
 * Parses pc_sweep options (docs/man/opengpa-pc_sweep.1.txt) from
 * argv[1..argc) (argv[0] is the subcommand).  Options end at "--" or at the
 * first word that is not an option; that word's index goes to *cmd_index
 * (argc when there is no command).  Pure: no output, no allocation (a fuzz
 * target).  Returns 0 (with req->help set for -h, before any other check),
 * or -1 with a one-line reason in err.
 */
int pcsweep_parse(int argc, char **argv, struct pcsweep_request *req, int *cmd_index, char *err,
                  size_t errlen);

/* Counters to enable, in order: the raw counter of every selected event
 * (each once), then the public metrics the selection allows (IPC, miss
 * rates, cycle sharing overhead...).  Returns how many; at most cap written. */
size_t pcsweep_counters(const struct pcsweep_request *req, const char **names, size_t cap);

/* "modes=u+k,tc=3" for OpenGPA_SetBackend("mips", ...). */
const char *pcsweep_backend_options(const struct pcsweep_request *req);

/* Fewest runs of the command that count every selected event (two even and
 * two odd counters per run). */
size_t pcsweep_passes(const struct pcsweep_request *req);

/* "Even-counter events: 0 9 10 37 39" and the odd line, as pc_sweep prints
 * them before running the command. */
void pcsweep_print_events(FILE *out, const struct pcsweep_request *req);

/* The stream the report goes to: `fallback`, or --output (truncated) /
 * --append.  NULL with err filled when the file cannot be opened. */
FILE *pcsweep_open_output(const struct pcsweep_request *req, FILE *fallback, char *err,
                          size_t errlen);

/* The report: names[i] has values[i] (names as pcsweep_counters gave them;
 * a name missing from the list prints as "n/a").  With -p, pc_parse's table
 * ([mode] [VPE TC] (bank / event) description: value, then IPC and the
 * rates); without, PerfCnt[N].Ctl/.Cnt lines per run like /proc/perf. */
void pcsweep_report(FILE *out, const struct pcsweep_request *req, const char *const *names,
                    const double *values, size_t n);

#endif
