/* SPDX-License-Identifier: MIT */
/*
 * test_options.c — the parsers and the help agree: every option the manual
 * documents (and --help prints) reaches its command's parser, nothing else
 * is accepted, and the parsers' edge cases (numbers, clusters, prefixes,
 * "--") behave as options.h says.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cli_options.h"
#include "compare.h"
#include "list.h"
#include "pcsweep.h"
#include "predict.h"
#include "spe.h"
#include "stat.h"

/* Parses argv with the command's own parser; returns its message ("" when
 * it accepted the line). */
static const char *parse(const struct cli_command *cmd, int argc, char **argv)
{
	static char err[512];
	err[0] = '\0';
	if (cmd == &cli_command_stat) {
		struct stat_options o;
		stat_parse(argc, argv, &o, err, sizeof err);
	} else if (cmd == &cli_command_list) {
		struct list_options o;
		list_parse(argc, argv, &o, err, sizeof err);
	} else if (cmd == &cli_command_pc_sweep) {
		static struct pcsweep_request req;
		int operand;
		pcsweep_parse(argc, argv, &req, &operand, err, sizeof err);
	} else if (cmd == &cli_command_spe) {
		struct spe_options o;
		spe_parse(argc, argv, &o, err, sizeof err);
	} else if (cmd == &cli_command_predict) {
		struct predict_options o;
		predict_parse(argc, argv, &o, err, sizeof err);
	} else if (cmd == &cli_command_compare) {
		static struct compare_options o;
		compare_parse(argc, argv, &o, err, sizeof err);
	} else {
		fail_msg("no parser for %s", cmd->name);
	}
	return err;
}

/* What the parser says when it does not know the option at all, or its
 * apply function lacks the case. */
static bool not_recognised(const char *err)
{
	return strstr(err, "unknown option") || strstr(err, "ambiguous") ||
	       strstr(err, "needs a value") || strstr(err, "takes no value") ||
	       strstr(err, "not handled");
}

static const struct cli_command *const commands[] = {
	&cli_command_stat, &cli_command_list, &cli_command_pc_sweep, &cli_command_spe,
	&cli_command_predict, &cli_command_compare,
};

/* Words every command's parse needs besides the option under test. */
static int prefix_args(const struct cli_command *cmd, char **argv)
{
	int n = 0;
	argv[n++] = (char *)cmd->name;
	if (cmd == &cli_command_pc_sweep) {
		argv[n++] = "-u";
		argv[n++] = "-i";
	}
	return n;
}

static void check_option(const struct cli_command *cmd, const struct cli_option *opt,
                         const char *name)
{
	char *argv[8];
	int argc = prefix_args(cmd, argv);
	argv[argc++] = (char *)name;
	if (opt->arg)
		argv[argc++] = "1";
	if (cmd != &cli_command_list) {
		argv[argc++] = "--";
		argv[argc++] = "true";
	}
	argv[argc] = NULL;
	const char *err = parse(cmd, argc, argv);
	if (not_recognised(err))
		fail_msg("opengpa %s %s (documented as \"%s\"): %s", cmd->name, name, opt->term, err);
	/* --help prints the same option, in the same words. */
	if (!strstr(cmd->help, opt->term))
		fail_msg("opengpa %s --help lacks \"%s\"", cmd->name, opt->term);
}

static void test_every_documented_option_parses(void **unused)
{
	for (size_t c = 0; c < sizeof commands / sizeof commands[0]; c++) {
		const struct cli_command *cmd = commands[c];
		assert_true(cmd->noptions > 0);
		for (size_t i = 0; i < cmd->noptions; i++) {
			const struct cli_option *opt = &cmd->options[i];
			for (const char *s = opt->shorts; *s; s++) {
				char name[3] = { '-', *s, '\0' };
				check_option(cmd, opt, name);
			}
			for (const char *const *l = opt->longs; *l; l++) {
				char name[64];
				snprintf(name, sizeof name, "--%s", *l);
				check_option(cmd, opt, name);
			}
		}
	}
}

static bool documented_short(const struct cli_command *cmd, char c)
{
	for (size_t i = 0; i < cmd->noptions; i++)
		if (strchr(cmd->options[i].shorts, c))
			return true;
	return false;
}

/* The other way round: a letter the manual does not give is refused, and
 * every option --help lists is in the table. */
static void test_nothing_undocumented_parses(void **unused)
{
	static const char letters[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	for (size_t c = 0; c < sizeof commands / sizeof commands[0]; c++) {
		const struct cli_command *cmd = commands[c];
		for (const char *l = letters; *l; l++) {
			if (documented_short(cmd, *l))
				continue;
			char *argv[8], name[3] = { '-', *l, '\0' };
			int argc = prefix_args(cmd, argv);
			argv[argc++] = name;
			argv[argc] = NULL;
			const char *err = parse(cmd, argc, argv);
			if (!strstr(err, "unknown option"))
				fail_msg("opengpa %s accepts undocumented %s: \"%s\"", cmd->name, name, err);
		}
		/* Each option line of --help ("  -x, --name=ARG   text") names
		 * options of the table. */
		for (const char *line = cmd->help; line && *line;) {
			const char *end = strchr(line, '\n');
			size_t len = end ? (size_t)(end - line) : strlen(line);
			if (len > 3 && line[0] == ' ' && line[1] == ' ' && line[2] == '-') {
				char term[128];
				size_t tl = strcspn(line + 2, "\n");
				const char *gap = strstr(line + 2, "  ");
				if (gap && gap < line + 2 + tl)
					tl = (size_t)(gap - (line + 2));
				snprintf(term, sizeof term, "%.*s", (int)tl, line + 2);
				bool found = false;
				for (size_t i = 0; i < cmd->noptions && !found; i++)
					found = strcmp(cmd->options[i].term, term) == 0;
				if (!found)
					fail_msg("opengpa %s --help shows \"%s\", which no option has", cmd->name,
					         term);
			}
			line = end ? end + 1 : NULL;
		}
	}
}

/* perf's short options and what they mean (perf-stat(1), perf-list(1)).  A
 * short letter of opengpa stat or list must be one of these, naming the same
 * option; everything else opengpa adds is a long option. */
static const struct {
	char letter;
	const char *longs; /* perf's long name(s) for it, space-separated */
} perf_letters[] = {
	{ 'a', "all-cpus" }, { 'A', "no-aggr" }, { 'b', "bpf-prog" }, { 'B', "big-num" },
	{ 'c', "scale" }, { 'C', "cpu" }, { 'd', "detailed desc" }, { 'D', "delay" },
	{ 'e', "event" }, { 'g', "group" }, { 'G', "cgroup" }, { 'h', "help" },
	{ 'i', "no-inherit" }, { 'I', "interval-print" }, { 'j', "json json-output" },
	{ 'M', "metrics" }, { 'n', "null" }, { 'o', "output" }, { 'p', "pid" }, { 'q', "quiet" },
	{ 'r', "repeat" }, { 'S', "sync" }, { 't', "tid" }, { 'T', "transaction" },
	{ 'v', "verbose long-desc" }, { 'x', "field-separator" },
};

static bool perf_means(char letter, const char *long_name)
{
	for (size_t i = 0; i < sizeof perf_letters / sizeof perf_letters[0]; i++) {
		if (perf_letters[i].letter != letter)
			continue;
		size_t n = strlen(long_name);
		for (const char *w = perf_letters[i].longs; *w; w += strcspn(w, " "), w += *w == ' ')
			if (strncmp(w, long_name, n) == 0 && (w[n] == ' ' || w[n] == '\0'))
				return true;
	}
	return false;
}

static void test_short_letters_are_perfs(void **unused)
{
	const struct cli_command *const perf_like[] = { &cli_command_stat, &cli_command_list };
	for (size_t c = 0; c < 2; c++)
		for (size_t i = 0; i < perf_like[c]->noptions; i++) {
			const struct cli_option *opt = &perf_like[c]->options[i];
			for (const char *s = opt->shorts; *s; s++) {
				bool same = false;
				for (const char *const *l = opt->longs; *l && !same; l++)
					same = perf_means(*s, *l);
				if (!same)
					fail_msg("opengpa %s: -%c (%s) is not perf's -%c; give the option a long "
					         "name only (docs/man/README.md)", perf_like[c]->name, *s,
					         opt->term, *s);
			}
		}
}

#define ARGV(...) ((char *[]){ __VA_ARGS__, NULL })
#define ARGC(...) ((int)(sizeof((char *[]){ __VA_ARGS__ }) / sizeof(char *)))
#define STAT(o, ...) stat_parse(ARGC("stat", __VA_ARGS__), ARGV("stat", __VA_ARGS__), (o), err, \
                                sizeof err)

static void test_stat_numbers_and_separators(void **unused)
{
	struct stat_options o;
	char err[512];
	/* Issue #13: numbers overflow-checked, an empty separator refused. */
	assert_int_equal(STAT(&o, "-p", "99999999999999999999"), 2);
	assert_non_null(strstr(err, "-p 99999999999999999999: not a process id"));
	assert_int_equal(STAT(&o, "-p", "18446744073709551617"), 2);
	assert_int_equal(STAT(&o, "-t", "2147483648"), 2);
	assert_int_equal(STAT(&o, "-p", "+5"), 2);
	assert_int_equal(STAT(&o, "-p", " 5"), 2);
	assert_int_equal(STAT(&o, "-p", "0x10"), 2);
	assert_int_equal(STAT(&o, "-p", "2147483647"), 0);
	assert_string_equal(o.scope, "pid=2147483647");
	assert_int_equal(STAT(&o, "-x", "", "--", "true"), 2);
	assert_non_null(strstr(err, "-x '': an empty separator"));
	assert_int_equal(STAT(&o, "--field-separator=", "--", "true"), 2);
	assert_int_equal(STAT(&o, "-x", "\"", "--", "true"), 2);
	assert_int_equal(STAT(&o, "-x;", "--", "true"), 0);
	assert_string_equal(o.sep, ";");
	assert_int_equal(STAT(&o, "--duration", "1e999", "-a"), 2);
	assert_int_equal(STAT(&o, "--duration", "nan", "-a"), 2);
	assert_int_equal(STAT(&o, "--duration", "-1", "-a"), 2);
	assert_int_equal(STAT(&o, "--duration", "0.5", "-a"), 0);
	assert_true(o.duration == 0.5);
	assert_int_equal(STAT(&o, "-C", "0,2-3"), 0);
	assert_string_equal(o.scope, "cpu=0+2-3");
	assert_int_equal(STAT(&o, "-C", "0,,x"), 2);
	/* Untrusted text is escaped in messages. */
	assert_int_equal(STAT(&o, "-p", "1\x1b[2J"), 2);
	assert_null(strchr(err, '\x1b'));
	assert_non_null(strstr(err, "\\x1b"));
}

static void test_stat_command_line_shapes(void **unused)
{
	struct stat_options o;
	char err[512];
	/* Clusters, attached values, several -e, the command after "--" or at
	 * the first word that is not an option. */
	assert_int_equal(STAT(&o, "-jePageFaults", "-e", "TaskClock", "make", "-j2"), 0);
	assert_true(o.json);
	assert_int_equal(o.nevents, 2);
	assert_string_equal(o.events[0], "PageFaults");
	assert_string_equal(o.events[1], "TaskClock");
	assert_string_equal(o.command[0], "make");
	assert_string_equal(o.command[1], "-j2");
	assert_int_equal(STAT(&o, "--event=A,B", "--", "-x"), 0);
	assert_string_equal(o.events[0], "A,B");
	assert_string_equal(o.command[0], "-x");
	/* Unique prefixes of long options; ambiguous ones name the choices. */
	assert_int_equal(STAT(&o, "--mult", "--", "true"), 0);
	assert_true(o.multiplex);
	assert_int_equal(STAT(&o, "--h", "--", "true"), 2);
	assert_non_null(strstr(err, "ambiguous"));
	assert_non_null(strstr(err, "--hardware"));
	assert_non_null(strstr(err, "--help"));
	/* Combinations. */
	assert_int_equal(STAT(&o, "-x,", "-j", "--", "true"), 2);
	assert_int_equal(STAT(&o, "-a", "-p", "1"), 2);
	assert_non_null(strstr(err, "give one"));
	assert_int_equal(STAT(&o, "-e", "A"), 2);
	assert_non_null(strstr(err, "no command"));
	assert_int_equal(STAT(&o, "--duration", "1", "--", "true"), 2);
	assert_int_equal(STAT(&o, "--backend", "mali", "-a"), 2);
	assert_int_equal(STAT(&o, "-e"), 2);
	assert_non_null(strstr(err, "-e needs a value"));
	assert_int_equal(STAT(&o, "--json=1", "--", "true"), 2);
	assert_non_null(strstr(err, "--json takes no value"));
	/* perf's big numbers: -B with -x refused in perf's words, --no-big-num
	 * with it accepted; the last of -B and --no-big-num wins. */
	assert_int_equal(STAT(&o, "-x,", "-B", "--", "true"), 2);
	assert_non_null(strstr(err, "-B option not supported with -x"));
	assert_int_equal(STAT(&o, "-x,", "--no-big-num", "--", "true"), 0);
	assert_true(o.no_big_num);
	assert_int_equal(STAT(&o, "--no-big-num", "-B", "--", "true"), 0);
	assert_false(o.no_big_num);
	assert_int_equal(STAT(&o, "-j", "-B", "--", "true"), 0);
	/* --per-thread: perf's rule and words without -p/-t; -a is perf's
	 * too, which opengpa does not count per thread, and says so. */
	assert_int_equal(STAT(&o, "--per-thread", "--", "true"), 2);
	assert_non_null(strstr(err, "only available when monitoring via -p -t -a"));
	assert_int_equal(STAT(&o, "--per-thread", "-a"), 2);
	assert_non_null(strstr(err, "does not count every thread of -a"));
	assert_int_equal(STAT(&o, "--per-thread", "-p", "1", "-I", "100"), 2);
	assert_int_equal(STAT(&o, "--per-thread", "-p", "1", "-x,", "--", "sleep", "1"), 0);
	assert_true(o.per_thread);
	assert_int_equal(STAT(&o, "--per-thread", "-t", "1"), 0);
	assert_int_equal(STAT(&o, "--help"), 0);
	assert_true(o.help);
}

/* cli_parse_seconds: a number and nothing after it, above 0, at most max
 * (the maximum itself accepted, a hair above it refused). */
static void test_seconds_bounds(void **unused)
{
	(void)unused;
	double v = 0;
	assert_true(cli_parse_seconds("1.5", 10.0, &v));
	assert_true(v == 1.5);
	assert_true(cli_parse_seconds("10", 10.0, &v));
	const char *bad[] = { "1.5abc", "2s", "1.5 ", "0", "10.5", "15", "19.9", "1e9", "nan", "" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		if (cli_parse_seconds(bad[i], 10.0, &v))
			fail_msg("\"%s\" parsed as seconds (max 10)", bad[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_documented_option_parses),
		cmocka_unit_test(test_seconds_bounds),
		cmocka_unit_test(test_nothing_undocumented_parses),
		cmocka_unit_test(test_short_letters_are_perfs),
		cmocka_unit_test(test_stat_numbers_and_separators),
		cmocka_unit_test(test_stat_command_line_shapes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
