/* SPDX-License-Identifier: MIT */
/*
 * test_reduced_sets.c — a library built with fewer sets (-Dcounter_sets):
 * this program links the core with only the mips family built in
 * (mips-34k, and gpa-timing, always there), as a MIPS router's build
 * carries, and no counter file text, then opens a virtual Mali-G71.  Its
 * set is not built in, so it must come from the data file:
 *
 *   test-reduced-sets good      the data file tests/meson.build packs: the
 *                               context opens with the G71's counters;
 *   test-reduced-sets damaged   one byte of the G71's text changed: the
 *                               open fails, the message says damaged;
 *   test-reduced-sets truncated the file cut short: refused, "truncated";
 *   test-reduced-sets absent    no data file: the open fails, naming
 *                               -Dcounter_sets and where it looked.
 *
 * One case per process: the process keeps the data file it found.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "catalog/builtin.h"
#include "core/testing.h"
#include "opengpa.h"
#include "vmali.h"

static const char *mode;
static char made[64]; /* the damaged copy, removed at the end */
static char last_error[2048];

static void on_log(GPA_Logging_Type type, const char *msg)
{
	if (type & GPA_LOGGING_ERROR)
		snprintf(last_error, sizeof(last_error), "%s", msg);
}

static unsigned char *read_all(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	*n = (size_t)ftell(f);
	fseek(f, 0, SEEK_SET);
	unsigned char *b = malloc(*n);
	assert_non_null(b);
	assert_int_equal(fread(b, 1, *n, f), *n);
	fclose(f);
	return b;
}

/* A copy of the data file, damaged as the mode says, named by
 * OPENGPA_COUNTER_SETS. */
static void use_damaged_copy(void)
{
	size_t n;
	unsigned char *b = read_all(OG_TEST_DATAFILE, &n);
	if (strcmp(mode, "damaged") == 0) {
		/* A byte in the middle of the G71's text: its record is the
		 * second (gpa-timing-mali-g71, mali-g71, perf-generic: pack.py sorts
		 * them), its text offset and length the record's third and
		 * fourth little-endian words. */
		const unsigned char *r = b + 32 + 1 * 32;
		assert_memory_equal(b + (r[0] | r[1] << 8 | r[2] << 16), "mali-g71", 9);
		size_t at = (size_t)(r[8] | r[9] << 8 | r[10] << 16 | (uint32_t)r[11] << 24);
		size_t len = (size_t)(r[12] | r[13] << 8 | r[14] << 16 | (uint32_t)r[15] << 24);
		assert_true(at + len < n);
		b[at + len / 2] ^= 0x01;
	} else {
		n -= 100;
	}
	snprintf(made, sizeof(made), "/tmp/og-reduced-sets-XXXXXX");
	int fd = mkstemp(made);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, b, n), (ssize_t)n);
	close(fd);
	free(b);
	assert_int_equal(setenv("OPENGPA_COUNTER_SETS", made, 1), 0);
}

static void test_open_g71(void **unused)
{
	(void)unused;
	/* What the build carries: the mips family, not the G71's set. */
	assert_null(og_builtin_find("mali-g71"));
	assert_non_null(og_builtin_find("mips-34k"));
	assert_non_null(og_builtin_find("gpa-timing"));

	if (strcmp(mode, "good") == 0)
		assert_int_equal(setenv("OPENGPA_COUNTER_SETS", OG_TEST_DATAFILE, 1), 0);
	else if (strcmp(mode, "absent") == 0)
		assert_int_equal(setenv("OPENGPA_COUNTER_SETS", "/nonexistent/counter-sets.dat", 1), 0);
	else
		use_damaged_copy();

	struct vmali_config cfg = { .core_mask = 0xFF, .l2_slices = 2 }; /* G71 MP8 */
	struct vmali *vm = vmali_create(&cfg);
	assert_non_null(vm);
	og_testing_reset();
	og_testing_set_sys(vmali_sys(vm));
	assert_int_equal(GPA_RegisterLoggingCallback(GPA_LOGGING_ERROR, on_log), GPA_STATUS_OK);
	assert_int_equal(GPA_Initialize(), GPA_STATUS_OK);
	assert_int_equal(OpenGPA_SetBackend("mali", NULL), GPA_STATUS_OK);
	static int key;
	GPA_Status st = GPA_OpenContext(&key);
	if (strcmp(mode, "good") == 0) {
		if (st != GPA_STATUS_OK)
			fail_msg("GPA_OpenContext: %s", last_error);
		gpa_uint32 n = 0, index = 0;
		assert_int_equal(GPA_GetNumCounters(&n), GPA_STATUS_OK);
		assert_true(n > 50);
		/* A G71 counter and a raw one of its set, both from the text. */
		assert_int_equal(GPA_GetCounterIndex("GPUActiveCycles", &index), GPA_STATUS_OK);
		assert_int_equal(GPA_CloseContext(), GPA_STATUS_OK);
	} else {
		assert_int_not_equal(st, GPA_STATUS_OK);
		printf("%s: GPA_OpenContext refused: %s\n", mode, last_error);
		const char *want = strcmp(mode, "absent") == 0 ? "-Dcounter_sets" : mode;
		if (!strstr(last_error, want))
			fail_msg("the message does not say '%s': %s", want, last_error);
		if (strcmp(mode, "absent") == 0)
			assert_non_null(strstr(last_error, "/nonexistent/counter-sets.dat"));
	}
	GPA_Destroy();
	GPA_RegisterLoggingCallback(GPA_LOGGING_NONE, NULL);
	og_testing_set_sys(NULL);
	og_testing_reset();
	vmali_destroy(vm);
	if (made[0])
		unlink(made);
}

int main(int argc, char **argv)
{
	if (argc != 2 || (strcmp(argv[1], "good") && strcmp(argv[1], "damaged") &&
	                  strcmp(argv[1], "truncated") && strcmp(argv[1], "absent"))) {
		fprintf(stderr, "usage: test-reduced-sets good|damaged|truncated|absent\n");
		return 2;
	}
	mode = argv[1];
	const struct CMUnitTest tests[] = { cmocka_unit_test(test_open_g71) };
	return cmocka_run_group_tests(tests, NULL, NULL);
}
