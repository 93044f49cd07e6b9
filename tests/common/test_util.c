/* SPDX-License-Identifier: MIT */
/* test_util.c — see test_util.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "core/testing.h"
#include "fake_backend.h"
#include "test_util.h"

struct tu_log tu_log;
/* The library delivers log messages after it unlocks, so two threads'
 * messages can arrive at once: the callback and the readers below take this
 * lock.  Tests read tu_log's fields directly only once their threads are
 * joined. */
static pthread_mutex_t tu_log_lock = PTHREAD_MUTEX_INITIALIZER;

GPA_Status tu_bind_every_raw(void *ud, const char *name, const char *source, uint32_t *id,
                             const char **why_not)
{
	(void)name;
	(void)source;
	(void)why_not;
	unsigned *next = ud;
	*id = (*next)++;
	return GPA_STATUS_OK;
}

GPA_Status tu_know_every_constant(void *ud, const char *name, double *value)
{
	(void)ud;
	(void)name;
	*value = 1.0;
	return GPA_STATUS_OK;
}

void tu_log_clear(void)
{
	pthread_mutex_lock(&tu_log_lock);
	memset(&tu_log, 0, sizeof(tu_log));
	pthread_mutex_unlock(&tu_log_lock);
}

void tu_log_callback(GPA_Logging_Type type, const char *msg)
{
	size_t len = strlen(msg);
	pthread_mutex_lock(&tu_log_lock);
	if (len && (msg[len - 1] == '\n' || msg[len - 1] == '\r'))
		tu_log.newline++;
	if (type & GPA_LOGGING_ERROR)
		tu_log.errors++;
	if (type & GPA_LOGGING_MESSAGE)
		tu_log.messages++;
	if (tu_log.count < TU_MAX_LOG) {
		tu_log.type[tu_log.count] = type;
		snprintf(tu_log.text[tu_log.count], sizeof(tu_log.text[0]), "%s", msg);
	}
	tu_log.count++;
	pthread_mutex_unlock(&tu_log_lock);
}

bool tu_log_has(const char *needle)
{
	bool found = false;
	pthread_mutex_lock(&tu_log_lock);
	for (unsigned i = 0; i < tu_log.count && i < TU_MAX_LOG && !found; i++)
		found = strstr(tu_log.text[i], needle) != NULL;
	pthread_mutex_unlock(&tu_log_lock);
	return found;
}

const char *tu_log_last(void)
{
	if (tu_log.count == 0)
		return "";
	return tu_log.text[(tu_log.count > TU_MAX_LOG ? TU_MAX_LOG : tu_log.count) - 1];
}

void tu_setup(void)
{
	og_testing_reset();
	fake_reset();
	og_testing_set_backend(&fake_backend_ops);
	assert_int_equal(OpenGPA_SetBackend("test", NULL), GPA_STATUS_OK);
	assert_int_equal(OpenGPA_AddCounterFile(OG_TEST_FAKE_COUNTERS), GPA_STATUS_OK);
	assert_int_equal(GPA_RegisterLoggingCallback(GPA_LOGGING_ERROR_AND_MESSAGE, tu_log_callback),
	                 GPA_STATUS_OK);
	tu_log_clear();
}

void tu_open(void *key)
{
	tu_setup();
	assert_int_equal(GPA_OpenContext(key), GPA_STATUS_OK);
	tu_log_clear();
}

void tu_teardown(void)
{
	/* Closes whatever a failed test left open. */
	og_testing_reset();
	tu_log_clear();
}

int tu_fixture_setup(void **state)
{
	(void)state;
	tu_setup();
	return 0;
}

int tu_fixture_teardown(void **state)
{
	(void)state;
	tu_teardown();
	return 0;
}

unsigned tu_passes(void)
{
	gpa_uint32 n = 0;
	assert_int_equal(GPA_GetPassCount(&n), GPA_STATUS_OK);
	return n;
}

unsigned tu_pass_of(unsigned counter)
{
	gpa_uint32 p = 99;
	assert_int_equal(OpenGPA_GetCounterPass(counter, &p), GPA_STATUS_OK);
	return p;
}

unsigned tu_run_session(const unsigned *ids, size_t n)
{
	gpa_uint32 session = 0, passes = 0;
	assert_int_equal(GPA_GetPassCount(&passes), GPA_STATUS_OK);
	assert_int_equal(GPA_BeginSession(&session), GPA_STATUS_OK);
	for (gpa_uint32 p = 0; p < passes; p++) {
		assert_int_equal(GPA_BeginPass(), GPA_STATUS_OK);
		for (size_t i = 0; i < n; i++) {
			assert_int_equal(GPA_BeginSample(ids[i]), GPA_STATUS_OK);
			assert_int_equal(GPA_EndSample(), GPA_STATUS_OK);
		}
		assert_int_equal(GPA_EndPass(), GPA_STATUS_OK);
	}
	assert_int_equal(GPA_EndSession(), GPA_STATUS_OK);
	return session;
}

_Noreturn void tu_deadline_missed(const char *what, unsigned ms)
{
	fprintf(stderr, "deadline: %s not done after %u ms\n", what, ms);
	fflush(NULL);
	_exit(1);
}

static uint64_t now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000u + (uint64_t)t.tv_nsec / 1000000u;
}

void tu_join_within(pthread_t t, void **ret, unsigned ms, const char *what)
{
	struct timespec due;
	clock_gettime(CLOCK_REALTIME, &due); /* pthread_timedjoin_np's clock */
	due.tv_sec += ms / 1000u;
	due.tv_nsec += (long)(ms % 1000u) * 1000000L;
	if (due.tv_nsec >= 1000000000L) {
		due.tv_sec++;
		due.tv_nsec -= 1000000000L;
	}
	int e = pthread_timedjoin_np(t, ret, &due);
	if (e == ETIMEDOUT)
		tu_deadline_missed(what, ms);
	assert_int_equal(e, 0);
}

void tu_wait_flag(const int *flag, unsigned ms, const char *what)
{
	uint64_t end = now_ms() + ms;
	while (!__atomic_load_n(flag, __ATOMIC_SEQ_CST)) {
		if (now_ms() > end)
			tu_deadline_missed(what, ms);
		sched_yield();
	}
}

unsigned tu_wait_samples(unsigned session, unsigned least, unsigned ms, const char *what)
{
	uint64_t end = now_ms() + ms;
	gpa_uint32 avail = 0;
	while (avail < least) {
		if (now_ms() > end)
			tu_deadline_missed(what, ms);
		assert_int_equal(OpenGPA_WaitForSamples(session, least, 100, &avail), GPA_STATUS_OK);
	}
	return avail;
}

void tu_write_temp(char *path, const char *text)
{
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	size_t len = strlen(text);
	assert_int_equal(write(fd, text, len), (ssize_t)len);
	close(fd);
}
