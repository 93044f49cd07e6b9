/* SPDX-License-Identifier: MIT */
/* test_preload.c — the mips backend over og_sys_real() with libopengpa-v34k.so
 * preloaded: what a real machine's /proc/perf would look like to it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backend.h"
#include "mips/events.h"

extern const struct og_backend_ops og_backend_mips;

static char last[512];

static void capture(void *ctx, enum og_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void capture(void *ctx, enum og_log_level level, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(last, sizeof last, fmt, ap);
	va_end(ap);
}

static void test_counts_through_the_preload(void **unused)
{
	const struct og_backend_host host = {.sys = og_sys_real(), .log = capture};
	const char *paths = getenv("V34K_PATHS");
	void *s = NULL;
	struct og_device_info info;
	if (og_backend_mips.open(&host, "", &s, &info) != GPA_STATUS_OK)
		fail_msg("open: %s", last);
	const char *want = paths && strcmp(paths, "mips") == 0 ? "/proc/mips/perf" : "/proc/perf";
	assert_non_null(strstr(info.description, want));
	uint32_t ids[2];
	const char *why;
	assert_int_equal(og_backend_mips.bind_raw(s, "C", "any:0", &ids[0], &why), GPA_STATUS_OK);
	assert_int_equal(og_backend_mips.bind_raw(s, "I", "any:1", &ids[1], &why), GPA_STATUS_OK);
	assert_int_equal(og_backend_mips.begin_pass(s, ids, 2), GPA_STATUS_OK);
	assert_int_equal(og_backend_mips.begin_sample(s), GPA_STATUS_OK);
	uint64_t d[2];
	/* Each read of the file runs 10^7 user cycles: end_sample's read adds one run. */
	assert_int_equal(og_backend_mips.end_sample(s, d), GPA_STATUS_OK);
	assert_int_equal(d[0], 10000000);
	assert_int_equal(d[1], 8000000);
	assert_int_equal(og_backend_mips.end_pass(s), GPA_STATUS_OK);
	og_backend_mips.close(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts_through_the_preload),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
