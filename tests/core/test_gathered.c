/* SPDX-License-Identifier: MIT */
/*
 * test_gathered.c — sessions of part of a built-in set (issue 29): the row
 * keeps only the raw values the session's counters read, and a read copies
 * those into a scratch block for the set's generated code (struct block in
 * lib/core/session_state.h).  On the virtual Mali-G71 (its set: 321
 * counters over 147 raw leaves, every one with generated code), for
 * several subsets — the 88 hand-written counters of bench-api part 2, one
 * counter, every seventh, the first twenty, the last four or five — these
 * check that:
 *   - a sample stores only what the counters read (one counter: its two
 *     raw values, not the set's 147);
 *   - the counters are read by generated code, none by the interpreter: in
 *     place where the set's first leaves pay kept in the row (the 88, the
 *     first twenty or twenty-two: the parts holding them run on the row,
 *     those whose every position is the session's writing its answer
 *     straight), else gathered;
 *   - every value, read alone (twice: the second past this thread's read
 *     cache) and in a batch (the set's function over the whole scratch, or each
 *     counter's function), is the interpreter's bit for bit;
 *   - two threads reading the same session at once get the same bits
 *     (each read's scratch is its own: run under ThreadSanitizer in CI).
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/core.h"
#include "core/testing.h"
#include "expr/arith.h"
#include "mali/mali_common.h"
#include "opengpa.h"
#include "vmali.h"

#define SAMPLES 6
#define MAX_COUNTERS 400
#define BY_ID (4 * OG_MALI_MAX_VALUES)

static struct vmali *vm;

static int setup(void **state)
{
	(void)state;
	og_testing_reset();
	struct vmali_config cfg = { .core_mask = 0xFF, .l2_slices = 2 };
	vm = vmali_create(&cfg);
	assert_non_null(vm);
	og_testing_set_sys(vmali_sys(vm));
	assert_int_equal(OpenGPA_SetBackend("mali", NULL), GPA_STATUS_OK);
	/* Every counter of the set: the cycle budget's need a target and the
	 * clock, which the virtual device does not report. */
	assert_int_equal(OpenGPA_SetCycleBudgetTarget(1920, 1080, 60), GPA_STATUS_OK);
	assert_int_equal(OpenGPA_SetConstant("DeviceMaxClockHz", 850e6), GPA_STATUS_OK);
	static int key;
	assert_int_equal(GPA_OpenContext(&key), GPA_STATUS_OK);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	GPA_CloseContext();
	og_testing_reset();
	vmali_destroy(vm);
	return 0;
}

/* What one session is checked with: its counters, and each value as the
 * interpreter computes it from the sample's stored raw values. */
struct expect {
	gpa_uint32 session;
	gpa_uint32 counters[MAX_COUNTERS];
	GPA_Type type[MAX_COUNTERS];
	gpa_uint32 n;
	OpenGPA_Result want[SAMPLES][MAX_COUNTERS];
};

static void record(struct expect *e)
{
	assert_int_equal(GPA_DisableAllCounters(), GPA_STATUS_OK);
	for (gpa_uint32 k = 0; k < e->n; k++) {
		assert_int_equal(GPA_EnableCounter(e->counters[k]), GPA_STATUS_OK);
		assert_int_equal(GPA_GetCounterDataType(e->counters[k], &e->type[k]), GPA_STATUS_OK);
	}
	gpa_uint32 passes;
	assert_int_equal(GPA_GetPassCount(&passes), GPA_STATUS_OK);
	assert_int_equal(passes, 1);
	assert_int_equal(GPA_BeginSession(&e->session), GPA_STATUS_OK);
	assert_int_equal(GPA_BeginPass(), GPA_STATUS_OK);
	for (gpa_uint32 s = 0; s < SAMPLES; s++) {
		assert_int_equal(GPA_BeginSample(s), GPA_STATUS_OK);
		assert_int_equal(GPA_EndSample(), GPA_STATUS_OK);
	}
	assert_int_equal(GPA_EndPass(), GPA_STATUS_OK);
	assert_int_equal(GPA_EndSession(), GPA_STATUS_OK);

	/* The interpreter over the raw values the session stored. */
	const struct og_catalog *cat = &og_context_current()->cat;
	static uint64_t by_id[BY_ID];
	uint64_t *raw = calloc(cat->nraw + 1, sizeof(*raw));
	assert_non_null(raw);
	for (gpa_uint32 s = 0; s < SAMPLES; s++) {
		memset(by_id, 0, sizeof(by_id));
		assert_int_equal(og_testing_sample_raws(e->session, s, by_id, BY_ID), GPA_STATUS_OK);
		for (size_t r = 0; r < cat->nraw; r++)
			raw[r] = cat->raws[r].backend_id < BY_ID ? by_id[cat->raws[r].backend_id] : 0;
		for (gpa_uint32 k = 0; k < e->n; k++) {
			const struct og_counter *c = &cat->counters[e->counters[k]];
			double v = og_expr_eval(c->expr, raw, cat->const_values);
			OpenGPA_Result *w = &e->want[s][k];
			memset(w, 0, sizeof(*w));
			if (e->type[k] == GPA_TYPE_FLOAT64)
				w->f64 = c->exact_raw ? og_arith_result((double)raw[c->raw]) : v;
			else if (e->type[k] == GPA_TYPE_UINT64)
				w->u64 = c->exact_raw ? raw[c->raw] : og_arith_to_u64(v, UINT64_MAX);
			else
				fail_msg("%s: type %d, which this test does not read", c->name, e->type[k]);
		}
	}
	free(raw);
}

/* Every value of every sample against the interpreter's, alone and in a
 * batch; returns how many differ (for the threads). */
static unsigned compare(const struct expect *e, bool report)
{
	unsigned wrong = 0;
	OpenGPA_Result got[MAX_COUNTERS];
	for (gpa_uint32 s = 0; s < SAMPLES; s++) {
		memset(got, 0xA5, sizeof(got));
		if (OpenGPA_GetSampleResults(e->session, s, e->n, got) != GPA_STATUS_OK)
			return wrong + 1;
		for (gpa_uint32 k = 0; k < e->n; k++) {
			OpenGPA_Result one = { .u64 = 0 };
			GPA_Status st = e->type[k] == GPA_TYPE_FLOAT64
			                      ? GPA_GetSampleFloat64(e->session, s, e->counters[k], &one.f64)
			                      : GPA_GetSampleUInt64(e->session, s, e->counters[k], &one.u64);
			bool bad = st != GPA_STATUS_OK || memcmp(&one, &e->want[s][k], sizeof(one)) != 0 ||
			           memcmp(&got[k], &e->want[s][k], sizeof(one)) != 0;
			if (bad && report && wrong < 5)
				print_message("sample %u, counter %u: alone %#llx (status %d), batch %#llx, "
				              "the interpreter %#llx\n", s, e->counters[k],
				              (unsigned long long)one.u64, st,
				              (unsigned long long)got[k].u64,
				              (unsigned long long)e->want[s][k].u64);
			wrong += bad;
		}
	}
	return wrong;
}

/* The raw values counters[0 .. n) read, each once. */
static size_t distinct_inputs(const gpa_uint32 *counters, gpa_uint32 n)
{
	const struct og_catalog *cat = &og_context_current()->cat;
	bool *seen = calloc(cat->nraw + 1, sizeof(*seen));
	assert_non_null(seen);
	size_t count = 0;
	for (gpa_uint32 k = 0; k < n; k++) {
		const struct og_counter *c = &cat->counters[counters[k]];
		for (size_t i = 0; i < c->ninputs; i++) {
			count += !seen[c->inputs[i]];
			seen[c->inputs[i]] = true;
		}
	}
	free(seen);
	return count;
}

/* How a subset is to be read: its set's first leaves kept in place in the
 * row (the parts holding its counters run there), or gathered. */
enum how { IN_PLACE, GATHERED };

static void check_subset(struct expect *e, const char *what, enum how how)
{
	record(e);
	/* What a sample stores: the raw values read, not the set's block; in
	 * place, the leaves below the parts' reach, at most 5/4 of those. */
	size_t raws = og_testing_session_raw_count(e->session);
	size_t read = distinct_inputs(e->counters, e->n);
	if (how == GATHERED)
		assert_int_equal(raws, read);
	assert_true(raws >= read && 4 * raws <= 5 * read);
	/* Generated code reads them all: raw counts, in place, or gathered. */
	size_t kinds[4];
	assert_int_equal(og_testing_session_read_kinds(e->session, kinds), GPA_STATUS_OK);
	print_message("%s: %u counters, %zu raw values a sample; %zu raw, %zu in place, "
	              "%zu gathered, %zu interpreted\n", what, e->n, raws, kinds[0], kinds[1],
	              kinds[2], kinds[3]);
	assert_int_equal(kinds[0] + kinds[1] + kinds[2], e->n);
	assert_int_equal(kinds[3], 0);
	assert_true(kinds[how == IN_PLACE ? 1 : 2] > 0);
	assert_int_equal(kinds[how == IN_PLACE ? 2 : 1], 0);
	/* Twice: the first reads fill this thread's cache, the second use it. */
	for (int round = 0; round < 2; round++)
		if (compare(e, true))
			fail_msg("%s: values differ from the interpreter's", what);
}

static gpa_uint32 total_counters(void)
{
	gpa_uint32 total;
	assert_int_equal(GPA_GetNumCounters(&total), GPA_STATUS_OK);
	assert_true(total >= 88 && total <= MAX_COUNTERS);
	return total;
}

/* bench-api part 2's: the guide's 84 first in the set, the cycle budget's
 * 4 last in it. */
static void by_hand_set(struct expect *e)
{
	gpa_uint32 total = total_counters();
	e->n = 88;
	for (gpa_uint32 k = 0; k < 88; k++)
		e->counters[k] = k < 84 ? k : total - 88 + k;
}

static void test_subsets(void **state)
{
	(void)state;
	static struct expect e;
	gpa_uint32 total = total_counters();

	/* In place, 21 of its parts written straight into the answer, and the
	 * set's tail (317-320, answers 84-87) by its own function. */
	by_hand_set(&e);
	check_subset(&e, "the 88 hand-written", IN_PLACE);
	assert_int_equal(og_testing_session_raw_count(e.session), 59);

	e.n = 1;
	assert_int_equal(GPA_GetCounterIndex("FragmentQueueUtilization", &e.counters[0]),
	                 GPA_STATUS_OK);
	check_subset(&e, "one counter", GATHERED);

	/* The set's last counter: its last part, which takes the set's last
	 * five (og_native_part_of), run over a gathered scratch. */
	e.n = 1;
	e.counters[0] = total - 1;
	check_subset(&e, "the last counter", GATHERED);

	e.n = 0;
	for (gpa_uint32 c = 3; c < total; c += 7)
		e.counters[e.n++] = c;
	check_subset(&e, "every seventh", GATHERED);

	e.n = 20;
	for (gpa_uint32 c = 0; c < 20; c++)
		e.counters[c] = 19 - c; /* backwards: enable order is not set order */
	check_subset(&e, "the first twenty, backwards", IN_PLACE);

	/* The set's last four (its tail, native.h) over a gathered scratch:
	 * the tail function writes them straight into the answer; backwards,
	 * and with the fifth from the end, they go through the block's
	 * outputs instead. */
	e.n = 4;
	for (gpa_uint32 c = 0; c < 4; c++)
		e.counters[c] = total - 4 + c;
	check_subset(&e, "the last four", GATHERED);
	for (gpa_uint32 c = 0; c < 4; c++)
		e.counters[c] = total - 1 - c;
	check_subset(&e, "the last four, backwards", GATHERED);
	e.n = 5;
	for (gpa_uint32 c = 0; c < 5; c++)
		e.counters[c] = total - 5 + c;
	check_subset(&e, "the last five", GATHERED);

	/* The last part only partly the session's: not written in place (its
	 * other positions are not these answers). */
	e.n = 22;
	for (gpa_uint32 c = 0; c < 22; c++)
		e.counters[c] = c;
	check_subset(&e, "the first twenty-two", IN_PLACE);
}

/* A session of one counter of the set stores what that counter reads: two
 * raw values a sample (16 bytes), not the set's 147 (1176 bytes). */
static void test_one_counter_stores_little(void **state)
{
	(void)state;
	static struct expect e;
	e.n = 1;
	assert_int_equal(GPA_GetCounterIndex("FragmentQueueUtilization", &e.counters[0]),
	                 GPA_STATUS_OK);
	record(&e);
	assert_int_equal(og_testing_session_raw_count(e.session), 2);
}

static void *reader(void *arg)
{
	const struct expect *e = arg;
	unsigned wrong = 0;
	for (int i = 0; i < 20; i++)
		wrong += compare(e, false);
	return (void *)(uintptr_t)wrong;
}

static void test_two_threads(void **state)
{
	(void)state;
	static struct expect e;
	by_hand_set(&e);
	record(&e);
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		assert_int_equal(pthread_create(&t[i], NULL, reader, &e), 0);
	for (int i = 0; i < 2; i++) {
		void *wrong;
		assert_int_equal(pthread_join(t[i], &wrong), 0);
		assert_int_equal((uintptr_t)wrong, 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_subsets, setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_counter_stores_little, setup, teardown),
		cmocka_unit_test_setup_teardown(test_two_threads, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
