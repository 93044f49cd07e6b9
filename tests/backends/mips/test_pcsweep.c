/* SPDX-License-Identifier: MIT */
/* test_pcsweep.c — pc_sweep's options (MD00548 Tables 4 and 5) and the pc_parse report. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <fcntl.h>

#include "pcsweep.h"

#define ARGV(...) ((char *[]){"stat", __VA_ARGS__, NULL})
#define ARGC(...) ((int)(sizeof((char *[]){"stat", __VA_ARGS__}) / sizeof(char *)))
#define PARSE(req, cmd, ...)                                                                 \
	parse_ok(ARGC(__VA_ARGS__), ARGV(__VA_ARGS__), (req), (cmd))

static void parse_ok(int argc, char **argv, struct pcsweep_request *req, int *cmd)
{
	char err[256] = "";
	int dummy;
	if (pcsweep_parse(argc, argv, req, cmd ? cmd : &dummy, err, sizeof err) != 0)
		fail_msg("%s: %s", argv[1], err);
}

static void events_text(const struct pcsweep_request *req, char *buf, size_t len)
{
	FILE *f = fmemopen(buf, len, "w");
	assert_non_null(f);
	pcsweep_print_events(f, req);
	fclose(f);
}

static void test_groups_map_to_table5(void **unused)
{
	struct pcsweep_request req;
	char text[512];
	PARSE(&req, NULL, "-u", "--misses", "--tlb");
	events_text(&req, text, sizeof text);
	/* MD00548 §4.3: --misses --tlb gives evens 5 6 7 8 9 10 11 21 22 39. */
	assert_non_null(strstr(text, "Even-counter events: 5 6 7 8 9 10 11 21 22 39\n"));
	PARSE(&req, NULL, "-cui");
	events_text(&req, text, sizeof text);
	/* Figure 5's header. */
	assert_string_equal(text, "Even-counter events: 0 9 10 37 39\nOdd-counter events: 1 9 10 11 37\n");
	PARSE(&req, NULL, "-u", "--l2");
	events_text(&req, text, sizeof text);
	assert_string_equal(text, "Even-counter events: 21 22 38\nOdd-counter events: 21 38 39\n");
	PARSE(&req, NULL, "-u", "-i", "--evens", "18 37 39", "--odds=18,37,39");
	events_text(&req, text, sizeof text);
	assert_string_equal(text, "Even-counter events: 0 18 37 39\nOdd-counter events: 1 18 37 39\n");
}

static void test_pass_counts_per_group(void **unused)
{
	static const struct {
		const char *opt;
		size_t passes;
	} cases[] = {
		{"--ipc", 1},          /* cycles and instructions, either bank */
		{"--stalls", 3},       /* 5 even-only, 5 odd-only */
		{"--all_stalls", 7},   /* 14 + 14 */
		{"--stalls_all", 7},
		{"--queues", 3},       /* 6 + 6 */
		{"--misses", 5},       /* 9 even, 9 odd, D-cache misses on either */
		{"--instructions", 7}, /* 13 even + instructions, 14 odd */
		{"--cache", 2},        /* 4 even, 3 odd + D-cache misses */
		{"--branches", 2},
		{"--tlb", 2},
		{"--l2", 2},
		{"--itc", 1},
		{"-a", 22},            /* 42 even-only, 40 odd-only, 3 either: ceil(85 / 4) */
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct pcsweep_request req;
		char *argv[] = {"stat", "-u", (char *)cases[i].opt, NULL};
		parse_ok(3, argv, &req, NULL);
		size_t p = pcsweep_passes(&req);
		if (p != cases[i].passes)
			fail_msg("%s: %zu passes, expected %zu", cases[i].opt, p, cases[i].passes);
	}
	/* The note's runs: -uicp needs 3 runs for 10 events, Table 7's custom stalls 2, Table 8's 3. */
	struct pcsweep_request req;
	PARSE(&req, NULL, "-uicp");
	assert_int_equal(pcsweep_passes(&req), 3);
	PARSE(&req, NULL, "-uip", "--evens", "18 37 39", "--odds", "18 37 39");
	assert_int_equal(pcsweep_passes(&req), 2);
	PARSE(&req, NULL, "-uip", "--evens", "18 24 25 37 39", "--odds", "18 24 25 37 39");
	assert_int_equal(pcsweep_passes(&req), 3);
}

static void test_counters_and_options(void **unused)
{
	struct pcsweep_request req;
	int cmd = 0;
	PARSE(&req, &cmd, "-uicp", "-t3", "taskset", "-c", "3", "./mpeg2dec");
	assert_int_equal(cmd, 3); /* "taskset": Figure 8's command line */
	assert_string_equal(pcsweep_backend_options(&req), "modes=u,tc=3");
	const char *names[PCSWEEP_MAX_NAMES];
	size_t n = pcsweep_counters(&req, names, PCSWEEP_MAX_NAMES);
	static const char *const want[] = {
		"Cycles", "Instructions", "ICacheAccesses", "ICacheMisses", "DCacheAccesses",
		"DCacheWritebacks", "DCacheMisses", "ICacheMissStallCycles", "DCacheMissStallCycles",
		"DCacheMissCycles", "IPC", "ICacheMissRate", "DCacheMissRate",
	};
	assert_int_equal(n, sizeof want / sizeof want[0]);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(names[i], want[i]);
	/* cap is respected, the count is not. */
	assert_int_equal(pcsweep_counters(&req, names, 2), n);

	PARSE(&req, &cmd, "--kernel", "--exl", "--user", "-v", "1", "-s", "--", "-x");
	assert_int_equal(cmd, 8); /* the word after "--" */
	assert_string_equal(pcsweep_backend_options(&req), "modes=u+k+exl,vpe=1");
	PARSE(&req, &cmd, "--supervisor", "-i");
	assert_int_equal(cmd, 3);
	assert_string_equal(pcsweep_backend_options(&req), "modes=s");
	PARSE(&req, NULL, "-uis", "--evens", "18");
	n = pcsweep_counters(&req, names, PCSWEEP_MAX_NAMES);
	bool overhead = false;
	for (size_t i = 0; i < n; i++)
		overhead |= strcmp(names[i], "CycleSharingOverhead") == 0;
	assert_true(overhead);
}

static void test_bad_options(void **unused)
{
	static const struct {
		const char *args[4];
		const char *why;
	} cases[] = {
		{{"-i"}, "mode is mandatory"},
		{{"-u"}, "no events"},
		{{"-u", "--evens", "27"}, "reserved"},
		{{"-u", "--odds", "23"}, "reserved"},
		{{"-u", "--evens", "1 200"}, "0..127"},
		{{"-u", "--evens", "x"}, "0..127"},
		{{"-u", "--evens", ""}, "needs a list"},
		{{"-u", "--evens"}, "needs a value"},
		{{"-ui", "-t", "12"}, "-t"},
		{{"-ui", "-t"}, "-t"},
		{{"-ui", "-v", "2"}, "-v"},
		{{"-ui", "-t1", "-v0"}, "both"},
		{{"-uz"}, "unknown option -z"},
		{{"-u", "--frobnicate"}, "unknown option --frobnicate"},
		{{"-u", "--balance"}, "not supported"},
		{{"-u", "--ipc=3"}, "takes no value"},
		{{"-ui", "--output", "a", "--append"}, "once"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *argv[6] = {"stat"};
		int argc = 1;
		for (int k = 0; k < 4 && cases[i].args[k]; k++)
			argv[argc++] = (char *)cases[i].args[k];
		if (i == sizeof cases / sizeof cases[0] - 1)
			argv[argc++] = "b";
		struct pcsweep_request req;
		char err[256] = "";
		int cmd;
		assert_int_equal(pcsweep_parse(argc, argv, &req, &cmd, err, sizeof err), -1);
		if (!strstr(err, cases[i].why))
			fail_msg("case %zu: \"%s\" lacks \"%s\"", i, err, cases[i].why);
	}
}

/* Figure 5's printed values through the report. */
static void test_report_figure5(void **unused)
{
	struct pcsweep_request req;
	PARSE(&req, NULL, "--parse", "-cui");
	static const char *const names[] = {
		"Cycles", "Instructions", "ICacheAccesses", "ICacheMisses", "DCacheAccesses",
		"DCacheWritebacks", "DCacheMisses", "ICacheMissStallCycles", "DCacheMissStallCycles",
		"DCacheMissCycles", "IPC", "ICacheMissRate", "DCacheMissRate",
	};
	const double values[] = {
		1235557, 699255, 497656, 8007, 242055, 3501, 18236, 87527, 108114, 140076,
		699255.0 / 1235557.0, 100.0 * 8007 / 497656, 100.0 * 18236 / 242055,
	};
	char text[4096];
	FILE *f = fmemopen(text, sizeof text, "w");
	pcsweep_report(f, &req, names, values, 13);
	fclose(f);
	static const char *const lines[] = {
		"[mode] [VPE TC]",
		"[U]    []         (0 / 0)    cycles:                      1235557\n",
		"[U]    []         (1 / 1)    all instructions:            699255\n",
		"[U]    []         (0 / 9)    I-cache accesses:            497656\n",
		"[U]    []         (1 / 9)    I-cache misses:              8007\n",
		"(1 / 11)   D-cache misses:              18236\n",
		"(0 / 39)   D-$ miss pending:            140076\n",
		"[U]    []         IPC:                                    0.566\n",
		"[U]    []         D-$ miss rate:                          7.5%\n",
	};
	for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
		if (!strstr(text, lines[i]))
			fail_msg("report lacks \"%s\":\n%s", lines[i], text);
	/* Without -p: the /proc/perf-style dump, one block per run. */
	PARSE(&req, NULL, "-ui");
	f = fmemopen(text, sizeof text, "w");
	pcsweep_report(f, &req, names, values, 13);
	fclose(f);
	assert_non_null(strstr(text, "# run 1\n"));
	assert_null(strstr(text, "# run 2\n"));
	assert_non_null(strstr(text, "PerfCnt[0].Cnt : 1235557\n"));
	assert_non_null(strstr(text, "PerfCnt[0].Ctl : 0x00000018\n")); /* cycles, U, IE */
	assert_non_null(strstr(text, "PerfCnt[1].Ctl : 0x00000038\n")); /* instructions */
	assert_non_null(strstr(text, "PerfCnt[1].Cnt : 699255\n"));
}

static void test_output_files(void **unused)
{
	char path[] = "/tmp/opengpa-pcsweep-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	FILE *pre = fdopen(fd, "w");
	fputs("old\n", pre);
	fclose(pre);
	struct pcsweep_request req;
	char err[256];
	PARSE(&req, NULL, "-ui", "--append", path);
	FILE *f = pcsweep_open_output(&req, stdout, err, sizeof err);
	assert_non_null(f);
	/* The measured command must not inherit the report (issue #13). */
	assert_true(fcntl(fileno(f), F_GETFD) & FD_CLOEXEC);
	fputs("new\n", f);
	fclose(f);
	char buf[64] = "";
	f = fopen(path, "r");
	size_t got = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[got] = '\0';
	assert_string_equal(buf, "old\nnew\n");
	PARSE(&req, NULL, "-ui", "--output", path);
	f = pcsweep_open_output(&req, stdout, err, sizeof err);
	assert_true(fcntl(fileno(f), F_GETFD) & FD_CLOEXEC);
	fclose(f);
	f = fopen(path, "r");
	got = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	assert_int_equal(got, 0);
	unlink(path);
	PARSE(&req, NULL, "-ui", "--output", "/nonexistent-dir/x");
	assert_null(pcsweep_open_output(&req, stdout, err, sizeof err));
	assert_non_null(strstr(err, "/nonexistent-dir/x"));
	PARSE(&req, NULL, "-ui");
	assert_ptr_equal(pcsweep_open_output(&req, stdout, err, sizeof err), stdout);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_groups_map_to_table5),
		cmocka_unit_test(test_pass_counts_per_group),
		cmocka_unit_test(test_counters_and_options),
		cmocka_unit_test(test_bad_options),
		cmocka_unit_test(test_report_figure5),
		cmocka_unit_test(test_output_files),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
