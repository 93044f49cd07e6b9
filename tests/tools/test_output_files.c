/* SPDX-License-Identifier: MIT */
/*
 * test_output_files.c — tools/opengpa/output/output.c on its own: an output
 * closed without commit (a failed run) leaves the file that was there byte
 * for byte, and no temporary file; with commit it replaces it.  Both kinds
 * of temporary file are checked: the unnamed one (O_TMPFILE, where this
 * filesystem has it) and the named `.NAME.opengpa-XXXXXX` one that
 * filesystems without O_TMPFILE get.  The named one is forced by linking
 * with -Wl,--wrap=openat,--wrap=openat64 (tests/tools/meson.build): while
 * no_tmpfile is set, an O_TMPFILE open fails with EOPNOTSUPP, as there.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "cli.h"
#include "output.h"

/* cli_outputs_distinct's usage error lives in tools/opengpa/session.c, which
 * needs the whole library; this test never refuses two outputs. */
int cli_usage_error(const char *command, const char *err)
{
	fprintf(stderr, "opengpa %s: %s\n", command, err);
	return 2;
}

static bool no_tmpfile;

int __real_openat(int dirfd, const char *path, int flags, ...);
int __wrap_openat(int dirfd, const char *path, int flags, ...);
int __real_openat64(int dirfd, const char *path, int flags, ...);
int __wrap_openat64(int dirfd, const char *path, int flags, ...);

static bool wants_mode(int flags)
{
	return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE;
}

int __wrap_openat(int dirfd, const char *path, int flags, ...)
{
	int mode = 0;
	if (wants_mode(flags)) {
		va_list ap;
		va_start(ap, flags);
		mode = va_arg(ap, int);
		va_end(ap);
	}
	if (no_tmpfile && (flags & O_TMPFILE) == O_TMPFILE) {
		errno = EOPNOTSUPP;
		return -1;
	}
	return __real_openat(dirfd, path, flags, mode);
}

int __wrap_openat64(int dirfd, const char *path, int flags, ...)
{
	int mode = 0;
	if (wants_mode(flags)) {
		va_list ap;
		va_start(ap, flags);
		mode = va_arg(ap, int);
		va_end(ap);
	}
	if (no_tmpfile && (flags & O_TMPFILE) == O_TMPFILE) {
		errno = EOPNOTSUPP;
		return -1;
	}
	return __real_openat64(dirfd, path, flags, mode);
}

static char dir[256];

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* The file's whole text ("" with *exists false when there is none). */
static const char *get(const char *path, bool *exists)
{
	static char buf[256];
	buf[0] = '\0';
	FILE *f = fopen(path, "r");
	*exists = f != NULL;
	if (f) {
		size_t n = fread(buf, 1, sizeof buf - 1, f);
		buf[n] = '\0';
		fclose(f);
	}
	return buf;
}

/* How many entries the directory holds besides . and .. */
static unsigned entries(void)
{
	DIR *d = opendir(dir);
	assert_non_null(d);
	unsigned n = 0;
	for (struct dirent *e; (e = readdir(d));)
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static void check_failed_run_keeps(bool named)
{
	no_tmpfile = named;
	char path[300], fresh[300];
	snprintf(path, sizeof path, "%s/report.txt", dir);
	snprintf(fresh, sizeof fresh, "%s/new.txt", dir);
	const char *kind = named ? "named" : "unnamed";

	for (int append = 0; append < 2; append++) {
		put(path, "what was there before\n");
		struct cli_output out;
		assert_int_equal(cli_output_open(&out, path, append), 0);
		if (named && !out.named)
			fail_msg("%s: O_TMPFILE refused, yet the temporary file has no name", kind);
		fputs("half a report of a failed run\n", out.f);
		assert_int_equal(cli_output_close(&out, false), 0);
		bool exists;
		const char *text = get(path, &exists);
		if (!exists || strcmp(text, "what was there before\n") != 0)
			fail_msg("%s temporary file%s: a failed run left \"%s\" where the file held "
			         "\"what was there before\\n\"", kind, append ? ", --append" : "",
			         exists ? text : "(no file)");
		if (entries() != 1)
			fail_msg("%s: a failed run left %u files in %s, not 1", kind, entries(), dir);
	}

	/* A file that was not there is not there after a failed run. */
	struct cli_output out;
	assert_int_equal(cli_output_open(&out, fresh, false), 0);
	fputs("half\n", out.f);
	assert_int_equal(cli_output_close(&out, false), 0);
	bool exists;
	get(fresh, &exists);
	if (exists)
		fail_msg("%s: a failed run created %s", kind, fresh);
	assert_int_equal(entries(), 1);

	/* A run that succeeded replaces it, and leaves nothing else. */
	assert_int_equal(cli_output_open(&out, path, false), 0);
	fputs("the new report\n", out.f);
	assert_int_equal(cli_output_close(&out, true), 0);
	assert_string_equal(get(path, &exists), "the new report\n");
	assert_int_equal(entries(), 1);
	assert_int_equal(unlink(path), 0);
	no_tmpfile = false;
}

static void test_failed_run_unnamed(void **state)
{
	(void)state;
	check_failed_run_keeps(false);
}

static void test_failed_run_named(void **state)
{
	(void)state;
	check_failed_run_keeps(true);
}

static int setup(void **state)
{
	(void)state;
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof dir, "%s/opengpa-output-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_failed_run_unnamed),
		cmocka_unit_test(test_failed_run_named),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
