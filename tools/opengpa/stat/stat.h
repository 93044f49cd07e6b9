/* SPDX-License-Identifier: MIT */
/* stat.h — `opengpa stat`: its options as parsed, and the parser. */
#ifndef OPENGPA_TOOLS_STAT_H
#define OPENGPA_TOOLS_STAT_H

#include <stdbool.h>
#include <stddef.h>

#include "options.h"

#define STAT_MAX_EVENT_ARGS 64
#define STAT_MAX_CONSTANTS 16

/* Everything stat_parse() read; strings point into argv. */
struct stat_options {
	const char *backend, *options, *sep, *output;
	const char *events[STAT_MAX_EVENT_ARGS]; /* each -e as given: "A,B" */
	size_t nevents;
	bool hardware, json, multiplex, help, append;
	bool opengpa_json; /* --opengpa-json: opengpa's one document, not perf's lines */
	bool summary;      /* --summary: -I's totals in -x and --json too */
	bool per_thread;   /* --per-thread: a line per thread (-p/-t, perf backend) */
	bool no_big_num;   /* --no-big-num: the table's counts without digit groups */
	bool big_num;      /* -B given (perf refuses it with -x) */
	bool per_core;     /* --per-core: each counter's per-instance rows after it */
	const char *metrics[STAT_MAX_EVENT_ARGS]; /* each -M as given: "CPU,Memory" */
	size_t nmetrics;
	unsigned timeout_ms; /* --timeout: each run ended after this long; 0: not */
	unsigned delay_ms;   /* -D: counting starts this long after the command; 0: at once */
	bool passes_once; /* --passes=once: refuse to run the command more than once */
	unsigned repeat;  /* -r: runs of the whole pass set (1 by default) */
	unsigned verbose; /* -v given this many times */
	char scope[80];  /* perf scope option built from -a/-C/-p/-t, or "" */
	double duration; /* seconds per pass without a command; 0 = until ^C */
	unsigned interval_ms;            /* -I: print every interval; 0 = not asked */
	const char *trace, *csv, *html;  /* timeline files (--trace, --csv, --html) */
	const char *perfetto;            /* --perfetto */
	const char *listen;              /* --listen ADDR:PORT (checked: a literal) */
	const char *openmetrics;         /* --openmetrics FILE */
	bool per_frame;                  /* --per-frame: frames' and samples' rows in --csv */
	bool target;                     /* --target: the cycle budget of target_of */
	double target_of[3];             /* width, height, frames per second */
	struct {
		char name[64];
		double value;
	} constants[STAT_MAX_CONSTANTS]; /* --constant NAME=VALUE */
	size_t nconstants;
	char **command;  /* argv of the command; NULL: count the scope instead */
};

/*
 * Reads `opengpa stat` options from argv[1..argc) (argv[0] is "stat") into
 * *o, which it clears first, and checks they make sense together.  Pure:
 * no output, no allocation, no global state (a fuzz target).  Returns 0,
 * or 2 (a usage error) with a one-line reason in err.  With --help it
 * returns 0 at once with o->help set.
 */
int stat_parse(int argc, char **argv, struct stat_options *o, char *err, size_t errlen);

/* --target and --constant (stat_budget_options.c). */
enum cli_error stat_parse_target(struct stat_options *o, const char *value, char *err,
                                 size_t errlen);
enum cli_error stat_parse_constant(struct stat_options *o, const char *value, char *err,
                                   size_t errlen);
/* Hands them to the library before the context opens (stat_budget.c), and
 * checks after that the device has the budget's counters.  0, or 1 after
 * printing why. */
int stat_budget_apply(const struct stat_options *o);
int stat_budget_check(const struct stat_options *o);

/* --per-core (percore.c): after each row, the rows of its per-instance
 * counters ("<instance>:<name>"), enabled.  Returns 0, or 1 after printing
 * why. */
struct report;
int stat_add_instance_rows(struct report *r);

/* --listen's ADDR:PORT: an IPv4 literal, or an IPv6 literal in brackets,
 * and a port 0 to 65535.  host gets the address without brackets; *v6
 * whether it is IPv6.  Returns false with nothing promised otherwise. */
bool stat_parse_listen(const char *text, char *host, size_t hostlen, unsigned *port, bool *v6);

/* choose.c: the report's rows for o's -e, -M or the headline set (0, or 1
 * after printing why); perf's TimeRunning counted beside them where it
 * costs no pass (r->has_running); whether a name is a counter here, or
 * one this machine cannot count. */
struct report;
int stat_choose_counters(const struct stat_options *o, struct report *r);
void stat_choose_running(struct report *r);
bool stat_has_counter(const char *name);

/* The sampling period of a periodic run in ms: -I's, or 100 when only a
 * timeline file asks for intervals; 0 when nothing does. */
unsigned stat_period_ms(const struct stat_options *o);

#endif
