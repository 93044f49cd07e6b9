/* SPDX-License-Identifier: MIT */
/*
 * test_hostile_files.c — counter files a careless or hostile user can hand
 * the library, through GPA_OpenContext as a tool would: things that are not
 * regular files, files over the size caps, binary junk whose bytes must not
 * reach a message raw, counters that name themselves or close a cycle, and
 * the 4 KB file of counters that each double the previous one, which used
 * to take gigabytes.  Each must fail (or open) at once, with a message that
 * names the file and the cause.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/counterfile.h"
#include "test_util.h"

static int key;
static char dir[64];

static const char *path_of(const char *name)
{
	static char path[160];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

static void write_file(const char *name, const char *text, size_t len)
{
	FILE *f = fopen(path_of(name), "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(text, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/og-hostile-XXXXXX");
	assert_non_null(mkdtemp(dir));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	tu_teardown();
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	return 0;
}

/* Opens a context with `path` as an extra counter file; returns the status. */
static GPA_Status open_with(const char *path)
{
	tu_teardown();
	tu_setup();
	assert_int_equal(OpenGPA_AddCounterFile(path), GPA_STATUS_OK);
	return GPA_OpenContext(&key);
}

/* No message may carry a byte a terminal would act on. */
static void assert_log_printable(void)
{
	for (unsigned m = 0; m < tu_log.count && m < TU_MAX_LOG; m++)
		for (const unsigned char *p = (const unsigned char *)tu_log.text[m]; *p; p++)
			if (*p < 0x20 || *p == 0x7f)
				fail_msg("message %u has byte 0x%02x: %s", m, *p, tu_log.text[m]);
}

static void test_not_regular_files(void **state)
{
	(void)state;
	/* A device that never ends: refused before a byte is read. */
	assert_int_equal(open_with("/dev/zero"), GPA_STATUS_ERROR_FAILED);
	assert_true(tu_log_has("/dev/zero: is a character device, not a counter file"));

	/* A FIFO with no writer: opening it for reading would block forever. */
	assert_int_equal(mkfifo(path_of("fifo.counters"), 0600), 0);
	assert_int_equal(open_with(path_of("fifo.counters")), GPA_STATUS_ERROR_FAILED);
	assert_true(tu_log_has("fifo.counters: is a FIFO, not a counter file"));

	/* The same FIFO met in a directory of counter files. */
	tu_teardown();
	tu_setup();
	setenv("OPENGPA_COUNTER_PATH", dir, 1);
	assert_int_equal(GPA_OpenContext(&key), GPA_STATUS_ERROR_FAILED);
	assert_true(tu_log_has("fifo.counters: is a FIFO"));
	unsetenv("OPENGPA_COUNTER_PATH");
	unlink(path_of("fifo.counters"));

	/* A directory named like a counter file, inside a counter directory. */
	assert_int_equal(mkdir(path_of("sub.counters"), 0700), 0);
	tu_teardown();
	tu_setup();
	setenv("OPENGPA_COUNTER_PATH", dir, 1);
	assert_int_equal(GPA_OpenContext(&key), GPA_STATUS_ERROR_FAILED);
	assert_true(tu_log_has("sub.counters: is a directory, not a counter file"));
	unsetenv("OPENGPA_COUNTER_PATH");
	rmdir(path_of("sub.counters"));
}

static void test_size_caps(void **state)
{
	(void)state;
	/* One byte over the cap (sparse: nothing is written). */
	int fd = open(path_of("big.counters"), O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, (off_t)OG_CF_MAX_BYTES + 1), 0);
	close(fd);
	assert_int_equal(open_with(path_of("big.counters")), GPA_STATUS_ERROR_FAILED);
	assert_true(tu_log_has("big.counters: is 4194305 bytes; a counter file may have at most "
	                       "4194304"));

	/* Files under the cap each (blank lines), over the total together. */
	char *blank = malloc(OG_CF_MAX_BYTES);
	assert_non_null(blank);
	memset(blank, '\n', OG_CF_MAX_BYTES);
	write_file("big.counters", blank, OG_CF_MAX_BYTES);
	free(blank);
	tu_teardown();
	tu_setup();
	for (unsigned i = 0; i <= OG_CF_MAX_TOTAL_BYTES / OG_CF_MAX_BYTES; i++)
		assert_int_equal(OpenGPA_AddCounterFile(path_of("big.counters")), GPA_STATUS_OK);
	assert_int_equal(GPA_OpenContext(&key), GPA_STATUS_ERROR_FAILED);
	assert_true(tu_log_has("would hold more than 16777216 bytes in all"));
	unlink(path_of("big.counters"));
}

static void test_binary_bytes_escaped(void **state)
{
	(void)state;
	/* What a wrong path (an executable, an image) looks like to the reader. */
	static const char junk[] = "\x7f" "ELF\x1b[2J\x07\x9b" "1;1H\xff\xfe\n";
	write_file("junk.counters", junk, sizeof(junk) - 1);
	assert_int_equal(open_with(path_of("junk.counters")), GPA_STATUS_ERROR_FAILED);
	assert_true(tu_log_has("unknown keyword '\\x7fELF\\x1b[2J\\x07\\x9b1;1H\\xff\\xfe'"));
	assert_log_printable();

	/* Control bytes inside an expression and a type. */
	static const char fields[] = "counter A\n    group: G\n    usage: items\n"
	                             "    type: u\x1b[31mint\n    description: D\n    expression: 1\n";
	write_file("fields.counters", fields, sizeof(fields) - 1);
	assert_int_equal(open_with(path_of("fields.counters")), GPA_STATUS_ERROR_FAILED);
	assert_true(tu_log_has("unknown type 'u\\x1b[31mint'"));
	assert_log_printable();
	static const char expr[] = "counter A\n    group: G\n    usage: items\n"
	                           "    type: uint64\n    description: D\n    expression: R0 \x1b 1\n";
	write_file("expr.counters", expr, sizeof(expr) - 1);
	assert_int_equal(open_with(path_of("expr.counters")), GPA_STATUS_ERROR_FAILED);
	assert_true(tu_log_has("unexpected byte 1b after a complete expression"));
	assert_log_printable();

	/* A path with a control character in it. */
	write_file("esc\x1b.counters", junk, sizeof(junk) - 1);
	assert_int_equal(open_with(path_of("esc\x1b.counters")), GPA_STATUS_ERROR_FAILED);
	assert_true(tu_log_has("esc\\x1b.counters:1: unknown keyword"));
	assert_log_printable();
}

#define COUNTER(name, expr) \
	"counter " name "\n    group: G\n    usage: items\n    type: float64\n" \
	"    description: D\n    expression: " expr "\n"

static void test_cycles_named(void **state)
{
	(void)state;
	static const char self[] = COUNTER("Me", "R0 + Me");
	write_file("self.counters", self, sizeof(self) - 1);
	assert_int_equal(open_with(path_of("self.counters")), GPA_STATUS_ERROR_FAILED);
	assert_true(tu_log_has("self.counters:1: counter Me depends on itself: Me → Me"));
	assert_false(tu_log_has("unknown name"));

	static const char cycle[] = COUNTER("A", "B * 2") COUNTER("B", "R0 + A");
	write_file("cycle.counters", cycle, sizeof(cycle) - 1);
	assert_int_equal(open_with(path_of("cycle.counters")), GPA_STATUS_ERROR_FAILED);
	assert_true(tu_log_has("cycle.counters:1: counter A depends on itself: A → B → A"));
	assert_false(tu_log_has("unknown name"));
}

/* The file of issue 13: 40 counters, each the one before plus itself
 * (D here: the fake backend's file has a C0). */
static void test_doubling_file_opens(void **state)
{
	(void)state;
	char text[8192];
	size_t at = (size_t)snprintf(text, sizeof(text), COUNTER("D0", "R0"));
	for (int k = 1; k < 40; k++)
		at += (size_t)snprintf(text + at, sizeof(text) - at,
		                       "counter D%d\n group: G\n usage: items\n type: float64\n"
		                       " description: D\n expression: D%d + D%d\n", k, k - 1, k - 1);
	assert_true(at < 4096);
	write_file("double.counters", text, at);
	GPA_Status opened = open_with(path_of("double.counters"));
	if (opened != GPA_STATUS_OK)
		fail_msg("status %d: %s", (int)opened, tu_log_last());
	gpa_uint32 top, bottom;
	assert_int_equal(GPA_GetCounterIndex("D39", &top), GPA_STATUS_OK);
	assert_int_equal(GPA_GetCounterIndex("D0", &bottom), GPA_STATUS_OK);
	assert_int_equal(GPA_EnableCounter(top), GPA_STATUS_OK);
	assert_int_equal(GPA_EnableCounter(bottom), GPA_STATUS_OK);
	unsigned ids[1] = { 0 };
	unsigned session = tu_run_session(ids, 1);
	double v = 0, base = 0;
	assert_int_equal(GPA_GetSampleFloat64(session, 0, top, &v), GPA_STATUS_OK);
	assert_int_equal(GPA_GetSampleFloat64(session, 0, bottom, &base), GPA_STATUS_OK);
	assert_true(base > 0);
	assert_true(v == base * 549755813888.0); /* 2^39: doubling is exact */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_not_regular_files, setup, teardown),
		cmocka_unit_test_setup_teardown(test_size_caps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_binary_bytes_escaped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cycles_named, setup, teardown),
		cmocka_unit_test_setup_teardown(test_doubling_file_opens, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
