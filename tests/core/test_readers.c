/* SPDX-License-Identifier: MIT */
/*
 * test_readers.c — results read without the lock (lib/core/readers.h)
 * while another thread frees what the readers look at: sessions leaving a
 * ring of one to three, the ring itself replaced, the context closed and
 * opened again, counters enabled and disabled.  Every status must be one
 * the call may return in some interleaving and every value read the right
 * one; built with -Db_sanitize=address a reader that touched
 * freed memory fails the test.  Also: the unlocked answers are the locked
 * ones, value for value, and trace logging takes the lock.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "core/testing.h"
#include "fake_backend.h"
#include "opengpa.h"
#include "test_util.h"

#define READERS 3
#define ROUNDS 3000
#define SAMPLES 4

static int key;
static unsigned stop;         /* atomic */
static unsigned latest;       /* atomic: the newest session ended */
static unsigned long reads_ok; /* atomic */
static unsigned bad[READERS];

static void quiet(GPA_Logging_Type type, const char *msg)
{
	(void)type;
	(void)msg;
}

/* fake_value(slot 0, ordinal, pass): the slot and the sample show. */
static bool plausible(uint64_t v, unsigned sample)
{
	return v / 1000000u == 1 && v % 1000u == sample + 1;
}

static void *reader(void *arg)
{
	unsigned me = (unsigned)(uintptr_t)arg, seed = me * 7919u + 3;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		seed = seed * 1103515245u + 12345u;
		unsigned s = __atomic_load_n(&latest, __ATOMIC_RELAXED) - (seed >> 16) % 4;
		unsigned sample = (seed >> 8) % (SAMPLES + 1); /* SAMPLES: not there */
		gpa_uint64 v = 0;
		GPA_Status st = GPA_GetSampleUInt64(s, sample, FC_C0, &v);
		switch (st) {
		case GPA_STATUS_OK:
			if (sample >= SAMPLES || !plausible(v, sample)) {
				fprintf(stderr, "reader %u: session %u sample %u read %llu\n", me, s, sample,
				        (unsigned long long)v);
				bad[me]++;
			}
			__atomic_add_fetch(&reads_ok, 1, __ATOMIC_RELAXED);
			break;
		case GPA_STATUS_ERROR_COUNTERS_NOT_OPEN:    /* between close and open */
		case GPA_STATUS_ERROR_SESSION_NOT_FOUND:    /* left the ring, or not yet begun */
		case GPA_STATUS_ERROR_SAMPLE_NOT_FOUND:     /* sample SAMPLES */
		case GPA_STATUS_ERROR_NOT_ENABLED:          /* C0 off just now */
		case GPA_STATUS_ERROR_READING_COUNTER_RESULT: /* C0 off when the session began */
			break;
		default:
			fprintf(stderr, "reader %u: unexpected status %d\n", me, (int)st);
			bad[me]++;
		}
		/* The batch read, over the same session. */
		OpenGPA_Result res[FC_COUNT];
		st = OpenGPA_GetSampleResults(s, sample, FC_COUNT, res);
		if (st != GPA_STATUS_OK && st != GPA_STATUS_ERROR_COUNTERS_NOT_OPEN &&
		    st != GPA_STATUS_ERROR_SESSION_NOT_FOUND && st != GPA_STATUS_ERROR_SAMPLE_NOT_FOUND) {
			fprintf(stderr, "reader %u: OpenGPA_GetSampleResults: status %d\n", me, (int)st);
			bad[me]++;
		}
	}
	return NULL;
}

/* Opens a context and makes this thread a reader; skips the test where
 * membarrier(2) is refused (valgrind, seccomp): nothing to test there. */
static void open_and_join(void)
{
	tu_open(&key);
	gpa_uint64 v;
	GPA_GetSampleUInt64(1, 0, FC_C0, &v); /* the first read joins */
	if (!og_testing_reads_unlocked())
		skip();
}

static void run_session(void)
{
	gpa_uint32 s, passes;
	assert_int_equal(GPA_GetPassCount(&passes), GPA_STATUS_OK);
	assert_int_equal(GPA_BeginSession(&s), GPA_STATUS_OK);
	for (gpa_uint32 p = 0; p < passes; p++) {
		assert_int_equal(GPA_BeginPass(), GPA_STATUS_OK);
		for (unsigned i = 0; i < SAMPLES; i++) {
			assert_int_equal(GPA_BeginSample(i), GPA_STATUS_OK);
			assert_int_equal(GPA_EndSample(), GPA_STATUS_OK);
		}
		assert_int_equal(GPA_EndPass(), GPA_STATUS_OK);
	}
	assert_int_equal(GPA_EndSession(), GPA_STATUS_OK);
	__atomic_store_n(&latest, s, __ATOMIC_RELAXED);
}

static void test_readers_while_freeing(void **state)
{
	(void)state;
	open_and_join();
	assert_int_equal(GPA_RegisterLoggingCallback(GPA_LOGGING_ERROR, quiet), GPA_STATUS_OK);
	assert_int_equal(GPA_EnableCounter(FC_C0), GPA_STATUS_OK);
	assert_int_equal(GPA_EnableCounter(FC_C1), GPA_STATUS_OK); /* stays on */
	assert_int_equal(OpenGPA_SetSessionRingSize(2), GPA_STATUS_OK);
	run_session();
	pthread_t t[READERS];
	for (unsigned i = 0; i < READERS; i++)
		assert_int_equal(pthread_create(&t[i], NULL, reader, (void *)(uintptr_t)i), 0);
	for (unsigned round = 0; round < ROUNDS; round++) {
		run_session();
		if (round % 7 == 3)
			assert_int_equal(OpenGPA_SetSessionRingSize(1 + round % 3), GPA_STATUS_OK);
		if (round % 5 == 1)
			assert_int_equal(GPA_DisableCounter(FC_C0), GPA_STATUS_OK);
		if (round % 5 == 2)
			assert_int_equal(GPA_EnableCounter(FC_C0), GPA_STATUS_OK);
		if (round % 11 == 10) {
			GPA_Status enabled = GPA_IsCounterEnabled(FC_C0);
			assert_int_equal(GPA_CloseContext(), GPA_STATUS_OK);
			assert_int_equal(GPA_OpenContext(&key), GPA_STATUS_OK);
			assert_int_equal(GPA_EnableCounter(FC_C1), GPA_STATUS_OK);
			if (enabled == GPA_STATUS_OK)
				assert_int_equal(GPA_EnableCounter(FC_C0), GPA_STATUS_OK);
		}
	}
	/* On a loaded machine the readers may not have run yet: keep the
	 * sessions coming until they have read something (at most 20 s). */
	for (unsigned more = 0; __atomic_load_n(&reads_ok, __ATOMIC_RELAXED) < 100 && more < 20000;
	     more++) {
		run_session();
		struct timespec ms = { 0, 1000000 };
		nanosleep(&ms, NULL);
	}
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (unsigned i = 0; i < READERS; i++)
		assert_int_equal(pthread_join(t[i], NULL), 0);
	for (unsigned i = 0; i < READERS; i++)
		assert_int_equal(bad[i], 0);
	assert_true(__atomic_load_n(&reads_ok, __ATOMIC_RELAXED) > 0);
	print_message("%lu values read\n", reads_ok);
	tu_teardown();
}

/* Every counter, sample and getter: the answer without the lock (a thread
 * that has read once) is the answer under it (trace logging on). */
static GPA_Status read_any(gpa_uint32 s, gpa_uint32 sample, gpa_uint32 c, int getter,
                           uint64_t *bits)
{
	*bits = 0;
	switch (getter) {
	case 0: return GPA_GetSampleUInt64(s, sample, c, (gpa_uint64 *)bits);
	case 1: return GPA_GetSampleUInt32(s, sample, c, (gpa_uint32 *)bits);
	case 2: return GPA_GetSampleFloat64(s, sample, c, (gpa_float64 *)bits);
	default: return GPA_GetSampleFloat32(s, sample, c, (gpa_float32 *)bits);
	}
}

static unsigned traced;

static void count_trace(GPA_Logging_Type type, const char *msg)
{
	(void)msg;
	traced += type == GPA_LOGGING_TRACE;
}

static void test_unlocked_is_locked(void **state)
{
	(void)state;
	open_and_join();
	for (gpa_uint32 c = 0; c < FC_COUNT; c++)
		GPA_EnableCounter(c);
	/* Samples 0..3, then one missing from the last pass, and ids out of
	 * line (a hashed index). */
	const unsigned ids[] = { 7, 8, 9, 1000, 3 };
	gpa_uint32 s, passes = tu_passes();
	assert_true(passes > 1);
	assert_int_equal(GPA_BeginSession(&s), GPA_STATUS_OK);
	for (gpa_uint32 p = 0; p < passes; p++) {
		assert_int_equal(GPA_BeginPass(), GPA_STATUS_OK);
		for (unsigned i = 0; i < 5 - (p == passes - 1); i++) {
			assert_int_equal(GPA_BeginSample(ids[i]), GPA_STATUS_OK);
			assert_int_equal(GPA_EndSample(), GPA_STATUS_OK);
		}
		GPA_EndPass();
	}
	GPA_EndSession();
	uint64_t unlocked[6][FC_COUNT][4], bits;
	GPA_Status st_unlocked[6][FC_COUNT][4];
	const unsigned read_ids[6] = { 7, 8, 9, 1000, 3, 4 };
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1) {
			assert_int_equal(GPA_RegisterLoggingCallback(GPA_LOGGING_TRACE, count_trace),
			                 GPA_STATUS_OK);
			traced = 0;
		}
		for (unsigned i = 0; i < 6; i++)
			for (gpa_uint32 c = 0; c < FC_COUNT; c++)
				for (int g = 0; g < 4; g++) {
					GPA_Status st = read_any(s, read_ids[i], c, g, &bits);
					/* From the first read on, without the lock. */
					assert_true(og_testing_reads_unlocked() == (pass == 0));
					if (pass == 0) {
						st_unlocked[i][c][g] = st;
						unlocked[i][c][g] = bits;
						continue;
					}
					assert_int_equal(st, st_unlocked[i][c][g]);
					assert_true(bits == unlocked[i][c][g]);
				}
	}
	/* Every read of the second round went through the lock and was traced. */
	assert_int_equal(traced, 6 * FC_COUNT * 4);
	tu_teardown();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unlocked_is_locked),
		cmocka_unit_test(test_readers_while_freeing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
