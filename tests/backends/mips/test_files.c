/* SPDX-License-Identifier: MIT */
/*
 * test_files.c — what the mips backend does with a path= that is not the
 * counter file: a FIFO (which a blocking open would wait on forever), a
 * directory, a device.  Each is refused by name, unread, within a deadline.
 * The real kernel answers these (og_sys_real() on files made here); the
 * virtual 34K answers the rest: every open non-blocking, the file checked at
 * each open, not only the first.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "sys.h"

extern const struct og_backend_ops og_backend_mips;
#define OPS og_backend_mips

/* An open that does not answer within this is taken as blocked. */
#define DEADLINE_MS 5000

static char dir[64];

static const char *path_of(const char *name)
{
	static char buf[128];
	snprintf(buf, sizeof buf, "%s/%s", dir, name);
	return buf;
}

static int make_dir(void **unused)
{
	snprintf(dir, sizeof dir, "/tmp/og-mips-files-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **unused)
{
	unlink(path_of("fifo"));
	unlink(path_of("perf"));
	return rmdir(dir);
}

/* ---- the real kernel, in a child with a deadline ------------------------- */

struct result {
	GPA_Status status;
	char last[512];
};

static void child_log(void *ctx, enum og_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void child_log(void *ctx, enum og_log_level level, const char *fmt, ...)
{
	struct result *r = ctx;
	if (level != OG_LOG_ERROR)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->last, sizeof r->last, fmt, ap);
	va_end(ap);
}

/*
 * Opens the backend with `options` on og_sys_real() in a child process and
 * returns what it said.  A child that has not answered after DEADLINE_MS is
 * killed and the test fails: the open blocked.  *ms gets the time taken.
 */
static struct result open_real(const char *options, long *ms)
{
	int p[2];
	assert_int_equal(pipe(p), 0);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(p[0]);
		struct result r = {.status = GPA_STATUS_ERROR_FAILED};
		const struct og_backend_host host = {
			.sys = og_sys_real(), .log = child_log, .log_ctx = &r};
		void *state = NULL;
		struct og_device_info info;
		r.status = OPS.open(&host, options, &state, &info);
		if (r.status == GPA_STATUS_OK)
			OPS.close(state);
		_exit(write(p[1], &r, sizeof r) == (ssize_t)sizeof r ? 0 : 1);
	}
	close(p[1]);
	struct pollfd pfd = {.fd = p[0], .events = POLLIN};
	int ready;
	do
		ready = poll(&pfd, 1, DEADLINE_MS);
	while (ready < 0 && errno == EINTR);
	struct result r;
	memset(&r, 0, sizeof r);
	ssize_t got = ready > 0 ? read(p[0], &r, sizeof r) : -1;
	close(p[0]);
	if (ready <= 0)
		kill(pid, SIGKILL);
	int wstatus;
	assert_int_equal(waitpid(pid, &wstatus, 0), pid);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	*ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
	if (ready <= 0)
		fail_msg("open(\"%s\") had not returned after %d ms: it blocked", options,
		         DEADLINE_MS);
	assert_int_equal(got, (ssize_t)sizeof r);
	assert_true(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0);
	return r;
}

static void expect_refused(const char *path, const char *kind)
{
	char options[256], want[256];
	snprintf(options, sizeof options, "path=%s", path);
	long ms = 0;
	struct result r = open_real(options, &ms);
	print_message("path=%s: refused in %ld ms: %s\n", path, ms, r.last);
	assert_int_equal(r.status, GPA_STATUS_ERROR_FAILED);
	snprintf(want, sizeof want, "mips: %s: is %s, not the 34K counter file", path, kind);
	if (!strstr(r.last, want))
		fail_msg("expected \"%s\" in \"%s\"", want, r.last);
	assert_non_null(strstr(r.last, "point path= at the counter file"));
}

static void test_fifo_refused_promptly(void **unused)
{
	/* No writer: a blocking open for reading would wait for one forever. */
	assert_int_equal(mkfifo(path_of("fifo"), 0600), 0);
	expect_refused(path_of("fifo"), "a FIFO");
	unlink(path_of("fifo"));
}

static void test_directory_refused(void **unused)
{
	expect_refused(dir, "a directory");
}

static void test_dev_null_refused(void **unused)
{
	expect_refused("/dev/null", "a character device");
}

/* A regular file with the counter text goes through, fstat and all: the
 * check refuses what is not a file, nothing else. */
static void test_regular_file_still_opens(void **unused)
{
	FILE *f = fopen(path_of("perf"), "we");
	assert_non_null(f);
	for (unsigned c = 0; c < 4; c++)
		fprintf(f, "PerfCnt[%u].Ctl : 0x%08x\nPerfCnt[%u].Cnt : %u\n", c,
		        c < 3 ? 0x80000000u : 0, c, 1000 * c);
	assert_int_equal(fclose(f), 0);
	char options[256];
	snprintf(options, sizeof options, "path=%s", path_of("perf"));
	long ms = 0;
	struct result r = open_real(options, &ms);
	if (r.status != GPA_STATUS_OK)
		fail_msg("open(\"%s\") = %d: %s", options, r.status, r.last);
	unlink(path_of("perf"));
}

/* ---- the virtual 34K --------------------------------------------------- */

static void test_counter_file_checked_at_open(void **unused)
{
	struct harness h;
	harness_init(&h, NULL);
	v34k_set_file_mode(h.dev, S_IFIFO | 0600);
	void *s = NULL;
	struct og_device_info info;
	assert_int_equal(OPS.open(&h.host, "", &s, &info), GPA_STATUS_ERROR_FAILED);
	assert_non_null(strstr(h.last, "mips: /proc/perf: is a FIFO, not the 34K counter file"));
	assert_int_equal(h.errors, 1);
	assert_int_equal(v34k_writes(h.dev), 0);
	harness_fini(&h);
}

/* The name is opened again for every snapshot and every write: a file that
 * stops being regular after the context opened is refused there too. */
static void test_counter_file_checked_at_every_open(void **unused)
{
	struct harness h;
	harness_init(&h, NULL);
	void *s = harness_open(&h, "path=/proc/mips/perf");
	uint32_t id = 0;
	const char *why = NULL;
	assert_int_equal(OPS.bind_raw(s, "C", "any:0", &id, &why), GPA_STATUS_OK);
	assert_int_equal(OPS.begin_pass(s, &id, 1), GPA_STATUS_OK);

	v34k_set_file_mode(h.dev, S_IFCHR | 0666);
	harness_clear_log(&h);
	assert_int_equal(OPS.begin_sample(s), GPA_STATUS_ERROR_FAILED);
	assert_non_null(strstr(h.last, "mips: /proc/mips/perf: is a character device"));
	unsigned writes = v34k_writes(h.dev);
	assert_int_equal(OPS.end_pass(s), GPA_STATUS_ERROR_FAILED);
	assert_int_equal(v34k_writes(h.dev), writes); /* nothing written to it */

	v34k_set_file_mode(h.dev, 0);
	assert_int_equal(OPS.begin_pass(s, &id, 1), GPA_STATUS_OK);
	assert_int_equal(OPS.begin_sample(s), GPA_STATUS_OK);
	v34k_run(h.dev, 1000, V34K_USER, 0, 0);
	uint64_t d = 0;
	assert_int_equal(OPS.end_sample(s, &d), GPA_STATUS_OK);
	assert_int_equal(d, 1000);
	assert_int_equal(OPS.end_pass(s), GPA_STATUS_OK);
	OPS.close(s);
	harness_fini(&h);
}

/* An og_sys that records the flags of every open and passes each call to
 * the virtual 34K's table. */
struct spy {
	struct og_sys sys;
	const struct og_sys *inner;
	unsigned opens, fstats;
	unsigned no_nonblock, no_noctty, no_cloexec; /* opens lacking each flag */
};

static int spy_open(void *ctx, const char *path, int flags, mode_t mode)
{
	struct spy *s = ctx;
	s->opens++;
	s->no_nonblock += !(flags & O_NONBLOCK);
	s->no_noctty += !(flags & O_NOCTTY);
	s->no_cloexec += !(flags & O_CLOEXEC);
	return s->inner->open(s->inner->ctx, path, flags, mode);
}

static int spy_close(void *ctx, int fd)
{
	struct spy *s = ctx;
	return s->inner->close(s->inner->ctx, fd);
}

static ssize_t spy_read(void *ctx, int fd, void *buf, size_t len)
{
	struct spy *s = ctx;
	return s->inner->read(s->inner->ctx, fd, buf, len);
}

static ssize_t spy_write(void *ctx, int fd, const void *buf, size_t len)
{
	struct spy *s = ctx;
	return s->inner->write(s->inner->ctx, fd, buf, len);
}

static int spy_fstat(void *ctx, int fd, mode_t *mode, int64_t *size)
{
	struct spy *s = ctx;
	s->fstats++;
	return s->inner->fstat(s->inner->ctx, fd, mode, size);
}

static void spy_init(struct spy *s, const struct og_sys *inner, bool with_fstat)
{
	memset(s, 0, sizeof *s);
	s->inner = inner;
	s->sys = *inner;
	s->sys.ctx = s;
	s->sys.open = spy_open;
	s->sys.close = spy_close;
	s->sys.read = spy_read;
	s->sys.write = spy_write;
	s->sys.fstat = with_fstat ? spy_fstat : NULL;
}

/* One whole session: open, a pass with a sample, close. */
static void run_session(struct harness *h)
{
	void *s = harness_open(h, "");
	uint32_t id = 0;
	const char *why = NULL;
	assert_int_equal(OPS.bind_raw(s, "C", "any:0", &id, &why), GPA_STATUS_OK);
	assert_int_equal(OPS.begin_pass(s, &id, 1), GPA_STATUS_OK);
	assert_int_equal(OPS.begin_sample(s), GPA_STATUS_OK);
	v34k_run(h->dev, 500, V34K_USER, 0, 0);
	uint64_t d = 0;
	assert_int_equal(OPS.end_sample(s, &d), GPA_STATUS_OK);
	assert_int_equal(d, 500);
	assert_int_equal(OPS.end_pass(s), GPA_STATUS_OK);
	OPS.close(s);
}

static void test_every_open_is_non_blocking_and_checked(void **unused)
{
	struct harness h;
	harness_init(&h, NULL);
	struct spy spy;
	spy_init(&spy, h.host.sys, true);
	h.host.sys = &spy.sys;
	run_session(&h);
	assert_true(spy.opens >= 6); /* find, snapshot, writable, cpuinfo, 2 programs, ... */
	assert_int_equal(spy.no_nonblock, 0);
	assert_int_equal(spy.no_noctty, 0);
	assert_int_equal(spy.no_cloexec, 0);
	assert_int_equal(spy.fstats, spy.opens); /* each file checked as it opens */
	harness_fini(&h);
}

/* fstat is optional in og_sys: a table without it (one that serves only
 * files it made) still works, unchecked. */
static void test_table_without_fstat_still_works(void **unused)
{
	struct harness h;
	harness_init(&h, NULL);
	struct spy spy;
	spy_init(&spy, h.host.sys, false);
	h.host.sys = &spy.sys;
	v34k_set_file_mode(h.dev, S_IFIFO | 0600); /* nobody asks */
	run_session(&h);
	assert_int_equal(h.errors, 0);
	harness_fini(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fifo_refused_promptly),
		cmocka_unit_test(test_directory_refused),
		cmocka_unit_test(test_dev_null_refused),
		cmocka_unit_test(test_regular_file_still_opens),
		cmocka_unit_test(test_counter_file_checked_at_open),
		cmocka_unit_test(test_counter_file_checked_at_every_open),
		cmocka_unit_test(test_every_open_is_non_blocking_and_checked),
		cmocka_unit_test(test_table_without_fstat_still_works),
	};
	return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
