/* SPDX-License-Identifier: MIT */
/*
 * test_util.h — what the core's test programs share: a logging callback
 * that records every message, and opening a context on the fake backend.
 */
#ifndef OPENGPA_TESTS_TEST_UTIL_H
#define OPENGPA_TESTS_TEST_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>

#include "opengpa.h"

#define TU_MAX_LOG 256

/* og_binder callbacks for catalogues built straight from counter files:
 * every raw counter binds, numbered upwards from *(unsigned *)ud, and every
 * constant is 1. */
GPA_Status tu_bind_every_raw(void *ud, const char *name, const char *source, uint32_t *id,
                             const char **why_not);
GPA_Status tu_know_every_constant(void *ud, const char *name, double *value);

/* Counter indices of tests/common/fake.counters. */
enum {
	FC_C0, FC_C1, FC_C2, FC_C3, FC_C4, FC_C5,
	FC_SUM01, FC_XSUM, FC_SCALED, FC_HALF, FC_SMALL, FC_SUM13, FC_NESTED,
	FC_COUNT
};

struct tu_log {
	unsigned count, errors, messages;
	unsigned newline; /* messages that ended in '\n' or '\r' (must stay 0) */
	GPA_Logging_Type type[TU_MAX_LOG];
	char text[TU_MAX_LOG][600];
};
extern struct tu_log tu_log;

void tu_log_clear(void);
/* The recording callback, registered for everything by tu_setup. */
void tu_log_callback(GPA_Logging_Type type, const char *msg);
/* True when some recorded message contains `needle`. */
bool tu_log_has(const char *needle);
const char *tu_log_last(void);

/* Settings to defaults, fake backend configured (fake_reset) and selected,
 * its counter file added, the recording callback registered, log cleared. */
void tu_setup(void);
/* tu_setup, then opens a context on `key` (asserts OK) and clears the log. */
void tu_open(void *key);
/* Ends whatever is open, closes every context, resets the settings. */
void tu_teardown(void);
/* tu_setup and tu_teardown as CMocka fixtures, for the tests that need
 * nothing else around each test (cmocka_unit_test_setup_teardown). */
int tu_fixture_setup(void **state);
int tu_fixture_teardown(void **state);
/* A CMocka test run between the two. */
#define TU_TEST(test) cmocka_unit_test_setup_teardown(test, tu_fixture_setup, tu_fixture_teardown)

/* GPA_GetPassCount and OpenGPA_GetCounterPass, asserting they succeed. */
unsigned tu_passes(void);
unsigned tu_pass_of(unsigned counter);

/* One full session over the current plan: every pass samples ids[0..n) in
 * that order.  Asserts every call succeeds; returns the session ID. */
unsigned tu_run_session(const unsigned *ids, size_t n);

/* Waits with deadlines.  A test that waits for another thread or for the
 * library must fail within seconds with a message naming what it waited
 * for, not hang until meson's timeout: a readiness bug then reads as a
 * failed check.  On the deadline they print "deadline: WHAT not done after
 * N ms" and end the process with status 1 (the thread still blocked could
 * hold the library's lock, so the test cannot go on to its teardown). */
#define TU_DEADLINE_MS 10000u
/* pthread_join, bounded. */
void tu_join_within(pthread_t t, void **ret, unsigned ms, const char *what);
/* Until *flag (read atomically) is non-zero. */
void tu_wait_flag(const int *flag, unsigned ms, const char *what);
/* OpenGPA_WaitForSamples until at least `least` samples are available;
 * returns how many are. */
unsigned tu_wait_samples(unsigned session, unsigned least, unsigned ms, const char *what);
/* The deadline's message and exit, for waits of other shapes. */
_Noreturn void tu_deadline_missed(const char *what, unsigned ms);

/* Writes `text` to a new file from the template `path` ("/tmp/...-XXXXXX",
 * changed to the file's name), for OpenGPA_AddCounterFile; the caller
 * unlinks it once the context is open. */
void tu_write_temp(char *path, const char *text);

/* Asserts one error was logged since the last clear, then clears. */
#define TU_ONE_ERROR() \
	do { \
		assert_int_equal(tu_log.errors, 1); \
		assert_int_equal(tu_log.newline, 0); \
		tu_log_clear(); \
	} while (0)
#define TU_NO_ERROR() \
	do { \
		assert_int_equal(tu_log.errors, 0); \
		tu_log_clear(); \
	} while (0)

#endif
