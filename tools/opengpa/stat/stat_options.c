/* SPDX-License-Identifier: MIT */
/*
 * stat_options.c — `opengpa stat`'s options: one case per option of
 * docs/man/opengpa-stat.1.txt (see options.h for adding one).
 */
#include <arpa/inet.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "cli_options.h"
#include "stat.h"

#define STAT_MAX_REPEAT 1000000
#define STAT_MAX_INTERVAL_MS 3600000u /* an hour */
#define STAT_FILE_INTERVAL_MS 100u    /* timeline files without -I */

/* -a, -C LIST, -p PID, -t TID: at most one, as a perf backend option. */
static enum cli_error set_scope(struct stat_options *o, char flag, const char *arg, char *err,
                                size_t errlen)
{
	if (o->scope[0])
		return cli_refuse(err, errlen, "-a, -C, -p and -t each say what to count; give one");
	if (flag == 'a') {
		snprintf(o->scope, sizeof o->scope, "cpu=all");
		return CLI_OK;
	}
	if (flag == 'C') {
		/* "0,2-3": numbers and ranges; the backend checks the CPUs. */
		size_t len = strlen(arg);
		bool ok = len > 0 && len + 4 < sizeof o->scope && strspn(arg, "0123456789,-") == len &&
		          arg[0] >= '0' && arg[0] <= '9' && arg[len - 1] >= '0' && arg[len - 1] <= '9';
		if (!ok)
			return cli_refuse(err, errlen, "not a CPU list (numbers and ranges such as "
			                  "0,2-3; at most %zu characters)", sizeof o->scope - 5);
		/* perf's "0,2-3" in the backend's option spelling "0+2-3": commas
		 * separate options. */
		snprintf(o->scope, sizeof o->scope, "cpu=%s", arg);
		for (char *c = o->scope; *c; c++)
			if (*c == ',')
				*c = '+';
		return CLI_OK;
	}
	uint64_t id;
	if (!cli_parse_uint(arg, 1, INT_MAX, &id))
		return cli_refuse(err, errlen, "not a %s id (a number from 1 to %d)",
		                  flag == 'p' ? "process" : "thread", INT_MAX);
	snprintf(o->scope, sizeof o->scope, "%s=%llu", flag == 'p' ? "pid" : "tid",
	         (unsigned long long)id);
	return CLI_OK;
}

static enum cli_error apply(void *ctx, int key, const struct cli_option *opt, const char *value,
                            char *err, size_t errlen)
{
	struct stat_options *o = ctx;
	switch ((enum stat_opt)key) {
	case STAT_OPT_EVENT:
		if (o->nevents == STAT_MAX_EVENT_ARGS)
			return cli_refuse(err, errlen, "more than %d -e options; list several counters "
			                  "in one, separated by commas", STAT_MAX_EVENT_ARGS);
		if (!*value)
			return cli_refuse(err, errlen, "no counter named");
		o->events[o->nevents++] = value;
		return CLI_OK;
	case STAT_OPT_HARDWARE: o->hardware = true; return CLI_OK;
	case STAT_OPT_BACKEND: o->backend = value; return CLI_OK;
	case STAT_OPT_OPTIONS: o->options = value; return CLI_OK;
	case STAT_OPT_SCOPE: return set_scope(o, opt->shorts[0], value, err, errlen);
	case STAT_OPT_DURATION:
		if (!cli_parse_seconds(value, 1e6, &o->duration))
			return cli_refuse(err, errlen, "not a number of seconds (more than 0, at most "
			                  "1000000)");
		return CLI_OK;
	case STAT_OPT_MULTIPLEX: o->multiplex = true; return CLI_OK;
	case STAT_OPT_SEP:
		o->sep = value;
		return cli_check_separator(value, err, errlen);
	case STAT_OPT_JSON: o->json = true; return CLI_OK;
	case STAT_OPT_OPENGPA_JSON: o->json = o->opengpa_json = true; return CLI_OK;
	case STAT_OPT_SUMMARY: o->summary = true; return CLI_OK;
	case STAT_OPT_PER_THREAD: o->per_thread = true; return CLI_OK;
	case STAT_OPT_BIG_NUM: o->big_num = true; o->no_big_num = false; return CLI_OK;
	case STAT_OPT_NO_BIG_NUM: o->no_big_num = true; o->big_num = false; return CLI_OK;
	case STAT_OPT_PER_CORE: o->per_core = true; return CLI_OK;
	case STAT_OPT_METRICS:
		if (o->nmetrics == STAT_MAX_EVENT_ARGS)
			return cli_refuse(err, errlen, "more than %d -M options; list several groups in "
			                  "one, separated by commas", STAT_MAX_EVENT_ARGS);
		if (!*value)
			return cli_refuse(err, errlen, "no group named");
		o->metrics[o->nmetrics++] = value;
		return CLI_OK;
	case STAT_OPT_TIMEOUT: {
		uint64_t ms;
		if (!cli_parse_uint(value, 1, STAT_MAX_INTERVAL_MS, &ms))
			return cli_refuse(err, errlen, "not a number of milliseconds (1 to %u)",
			                  STAT_MAX_INTERVAL_MS);
		o->timeout_ms = (unsigned)ms;
		return CLI_OK;
	}
	case STAT_OPT_DELAY: {
		uint64_t ms;
		if (!cli_parse_uint(value, 1, STAT_MAX_INTERVAL_MS, &ms))
			return cli_refuse(err, errlen, "not a number of milliseconds (1 to %u)",
			                  STAT_MAX_INTERVAL_MS);
		o->delay_ms = (unsigned)ms;
		return CLI_OK;
	}
	case STAT_OPT_OUTPUT:
		if (!*value)
			return cli_refuse(err, errlen, "no file named");
		o->output = value;
		return CLI_OK;
	case STAT_OPT_APPEND: o->append = true; return CLI_OK;
	case STAT_OPT_REPEAT: {
		uint64_t n;
		if (!cli_parse_uint(value, 1, STAT_MAX_REPEAT, &n))
			return cli_refuse(err, errlen, "not a number of runs (1 to %d)", STAT_MAX_REPEAT);
		o->repeat = (unsigned)n;
		return CLI_OK;
	}
	case STAT_OPT_PASSES:
		if (strcmp(value, "once") != 0 && strcmp(value, "rerun") != 0)
			return cli_refuse(err, errlen, "--passes is once or rerun");
		o->passes_once = value[0] == 'o';
		return CLI_OK;
	case STAT_OPT_VERBOSE:
		if (o->verbose < 8)
			o->verbose++;
		return CLI_OK;
	case STAT_OPT_INTERVAL: {
		uint64_t ms;
		if (!cli_parse_uint(value, 1, STAT_MAX_INTERVAL_MS, &ms))
			return cli_refuse(err, errlen, "not a number of milliseconds (1 to %u)",
			                  STAT_MAX_INTERVAL_MS);
		o->interval_ms = (unsigned)ms;
		return CLI_OK;
	}
	case STAT_OPT_TRACE:
	case STAT_OPT_PERFETTO:
	case STAT_OPT_CSV:
	case STAT_OPT_HTML: {
		const char **slot = key == STAT_OPT_TRACE ? &o->trace
		                    : key == STAT_OPT_PERFETTO ? &o->perfetto
		                    : key == STAT_OPT_CSV ? &o->csv : &o->html;
		if (!*value)
			return cli_refuse(err, errlen, "no file named");
		*slot = value;
		return CLI_OK;
	}
	case STAT_OPT_LISTEN: {
		char host[64];
		unsigned port;
		bool v6;
		if (!stat_parse_listen(value, host, sizeof host, &port, &v6))
			return cli_refuse(err, errlen, "not ADDR:PORT with an address literal and a port "
			                  "0 to 65535 (127.0.0.1:9464, [::1]:9464; 0.0.0.0 or [::] for "
			                  "every address; port 0 for any free one)");
		o->listen = value;
		return CLI_OK;
	}
	case STAT_OPT_OPENMETRICS:
		if (!*value)
			return cli_refuse(err, errlen, "no file named");
		o->openmetrics = value;
		return CLI_OK;
	case STAT_OPT_PER_FRAME: o->per_frame = true; return CLI_OK;
	case STAT_OPT_TARGET: return stat_parse_target(o, value, err, errlen);
	case STAT_OPT_CONSTANT: return stat_parse_constant(o, value, err, errlen);
	case STAT_OPT_HELP: o->help = true; return CLI_OK;
	}
	return CLI_ERR_UNHANDLED;
}

int stat_parse(int argc, char **argv, struct stat_options *o, char *err, size_t errlen)
{
	memset(o, 0, sizeof *o);
	o->repeat = 1;
	int operand = argc;
	if (cli_parse(&cli_command_stat, argc, argv, apply, o, &operand, err, errlen) != CLI_OK)
		return 2;
	if (o->help)
		return 0;
	if (o->sep && o->json) {
		cli_refuse(err, errlen, "-x and --json exclude each other");
		return 2;
	}
	if (o->sep && o->big_num) {
		cli_refuse(err, errlen, "-B option not supported with -x (perf's rule: -x prints "
		           "counts without digit groups)");
		return 2;
	}
	if (o->per_thread && strncmp(o->scope, "pid=", 4) != 0 &&
	    strncmp(o->scope, "tid=", 4) != 0) {
		/* perf's words; perf also takes -a, which opengpa does not count
		 * per thread. */
		cli_refuse(err, errlen, o->scope[0]
		           ? "--per-thread counts the threads of -p PID or the thread of -t TID; "
		             "opengpa does not count every thread of -a or -C"
		           : "The --per-thread option is only available when monitoring via -p -t "
		             "-a options or only --per-thread.");
		return 2;
	}
	if (o->per_thread && (o->repeat > 1 || stat_period_ms(o) || o->opengpa_json)) {
		cli_refuse(err, errlen, "--per-thread prints one run's lines: not with -r, -I, the "
		           "timeline files or --opengpa-json");
		return 2;
	}
	if (operand >= argc && !o->scope[0]) {
		cli_refuse(err, errlen, "no command given (opengpa stat [options] -- COMMAND ..., or "
		           "-a/-C/-p/-t to count without one)");
		return 2;
	}
	if (o->summary && !o->interval_ms) {
		cli_refuse(err, errlen, "--summary is for -I: the totals after the intervals");
		return 2;
	}
	if ((o->listen || o->openmetrics) && !o->interval_ms) {
		cli_refuse(err, errlen, "%s exports -I's intervals: give -I MS too (-I 1000 for a "
		           "scrape every few seconds)", o->listen ? "--listen" : "--openmetrics");
		return 2;
	}
	if (o->per_frame && !o->csv) {
		cli_refuse(err, errlen, "--per-frame adds rows to --csv FILE: name one");
		return 2;
	}
	if (o->append && !o->output) {
		cli_refuse(err, errlen, "--append is for the file of -o FILE");
		return 2;
	}
	/* --target alone: the headline set and the budget's counters. */
	if (o->target && !o->nevents && !o->nmetrics)
		o->metrics[o->nmetrics++] = "headline";
	/* --target with -e or -M: the budget's counters are counted too. */
	if (o->target) {
		if (o->nevents == STAT_MAX_EVENT_ARGS) {
			cli_refuse(err, errlen, "--target adds an -e of its own: at most %d others",
			           STAT_MAX_EVENT_ARGS - 1);
			return 2;
		}
		o->events[o->nevents++] = "CycleBudgetMax,CycleBudgetReal,CycleBudgetUsed";
	}
	if (o->delay_ms && operand >= argc) {
		cli_refuse(err, errlen, "-D delays the counting after the command starts: give a "
		           "command (without one, start opengpa stat later)");
		return 2;
	}
	if (o->delay_ms && o->timeout_ms && o->delay_ms >= o->timeout_ms) {
		cli_refuse(err, errlen, "-D %u would start counting after --timeout %u ended the "
		           "command: make the delay shorter", o->delay_ms, o->timeout_ms);
		return 2;
	}
	if (o->timeout_ms && operand >= argc) {
		if (o->duration > 0.0) {
			cli_refuse(err, errlen, "--timeout and --duration both end the counting: give one");
			return 2;
		}
		o->duration = o->timeout_ms / 1000.0; /* perf's --timeout without a command */
	}
	if (o->repeat > 1 && operand >= argc && !(o->duration > 0.0)) {
		cli_refuse(err, errlen, "-r without a command needs --duration SECONDS: each repeat "
		           "needs an end");
		return 2;
	}
	if (operand < argc && o->duration > 0.0) {
		cli_refuse(err, errlen, "--duration is for counting without a command");
		return 2;
	}
	if (o->scope[0] && o->backend && strcmp(o->backend, "perf") != 0) {
		char name[64];
		cli_refuse(err, errlen, "-a, -C, -p and -t choose what the perf backend counts; the "
		           "%s backend counts its whole device",
		           cli_escape(o->backend, name, sizeof name));
		return 2;
	}
	if (stat_period_ms(o) && o->repeat > 1) {
		cli_refuse(err, errlen, "-I and the timeline files follow one run over time; -r "
		           "repeats runs: give one or the other");
		return 2;
	}
	o->command = operand < argc ? &argv[operand] : NULL;
	return 0;
}

bool stat_parse_listen(const char *text, char *host, size_t hostlen, unsigned *port, bool *v6)
{
	const char *colon = strrchr(text, ':');
	if (!colon || colon == text || hostlen == 0)
		return false;
	const char *h = text;
	size_t n = (size_t)(colon - text);
	*v6 = h[0] == '[';
	if (*v6) {
		if (n < 3 || h[n - 1] != ']')
			return false;
		h++;
		n -= 2;
	}
	if (n >= hostlen)
		return false;
	memcpy(host, h, n);
	host[n] = '\0';
	unsigned char addr[16];
	if (inet_pton(*v6 ? AF_INET6 : AF_INET, host, addr) != 1)
		return false;
	uint64_t p;
	if (!cli_parse_uint(colon + 1, 0, 65535, &p))
		return false;
	*port = (unsigned)p;
	return true;
}

unsigned stat_period_ms(const struct stat_options *o)
{
	if (o->interval_ms)
		return o->interval_ms;
	return o->trace || o->perfetto || o->csv || o->html ? STAT_FILE_INTERVAL_MS : 0;
}
