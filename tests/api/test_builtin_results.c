/* SPDX-License-Identifier: MIT */
/*
 * test_builtin_results.c — results of built-in counters through the GPA
 * calls.  A session that counts most of a set's raw counters keeps them in
 * the set's own order, so its generated code reads a sample's row in place
 * (lib/core/session.c); these tests check that every value equals the
 * interpreter's over the same counts, in whatever order the client reads,
 * that a sample missing a pass fails only the counters that need that pass,
 * and that the batch read (OpenGPA_GetSampleResults) gives what the
 * counter-by-counter reads give, for every way a session can hold the set.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "GPUPerfAPI.h"
#include "catalog/catalog.h"
#include "core/core.h"
#include "catalog/embedded.h"
#include "core/testing.h"
#include "fake_backend.h"
#include "opengpa.h"
#include "test_util.h"

#define SET "perf-generic"
#define SAMPLES 4

/* The interpreter's view: the same file loaded as a user's, so nothing in it
 * is generated code, and raws bound in the order the fake binds them. */
struct reference {
	struct og_catalog cat;
	unsigned next_slot;
};

static GPA_Status scale(void *ud, const char *name, double *value)
{
	(void)ud;
	(void)name;
	*value = FAKE_SCALE;
	return GPA_STATUS_OK;
}

static void reference_build(struct reference *ref)
{
	const struct og_embedded_set *set = NULL;
	for (size_t i = 0; i < og_embedded_set_count; i++)
		if (strcmp(og_embedded_sets[i].name, SET) == 0)
			set = &og_embedded_sets[i];
	assert_non_null(set);
	struct og_cf_file *file = calloc(1, sizeof(*file));
	assert_non_null(file);
	char err[256];
	assert_true(og_cf_parse(set->file, set->text, file, err, sizeof(err)));
	ref->next_slot = FAKE_BUILTIN_FIRST_SLOT;
	struct og_binder binder = { .ud = &ref->next_slot, .bind_raw = tu_bind_every_raw,
	                           .constant = scale };
	assert_int_equal(og_catalog_build(&ref->cat, file, 1, 0, &binder, NULL, 0, false, err,
	                                  sizeof(err)), GPA_STATUS_OK);
}

/* What counter c must read for the sample at `ordinal`: each raw counter as
 * the fake counted it in the pass the context planned it in (a counter's
 * inputs need not share a pass). */
static double expected(const struct reference *ref, uint32_t c, uint32_t ordinal,
                       unsigned first_pass)
{
	const int8_t *raw_pass = og_context_current()->sel.plan.raw_pass;
	uint64_t raw[FAKE_SLOTS] = { 0 };
	double k[FAKE_SLOTS];
	assert_true(ref->cat.nraw <= FAKE_SLOTS && ref->cat.nconst <= FAKE_SLOTS);
	for (size_t i = 0; i < ref->cat.nraw; i++)
		if (raw_pass[i] >= 0)
			raw[i] = fake_value(ref->cat.raws[i].backend_id, ordinal,
			                    first_pass + (unsigned)raw_pass[i]);
	for (size_t i = 0; i < FAKE_SLOTS; i++)
		k[i] = FAKE_SCALE;
	return og_expr_eval(ref->cat.counters[c].expr, raw, k);
}

static void print_log(GPA_Logging_Type type, const char *msg)
{
	(void)type;
	print_message("log: %s\n", msg);
}

static int setup(void **state)
{
	(void)state;
	og_testing_reset();
	fake_reset();
	fake_config.builtin_set = SET;
	og_testing_set_backend(&fake_backend_ops);
	assert_int_equal(GPA_Initialize(), GPA_STATUS_OK);
	assert_int_equal(OpenGPA_SetBackend("test", NULL), GPA_STATUS_OK);
	assert_int_equal(GPA_RegisterLoggingCallback(GPA_LOGGING_ERROR, print_log), GPA_STATUS_OK);
	static int key;
	assert_int_equal(GPA_OpenContext(&key), GPA_STATUS_OK);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	GPA_CloseContext();
	GPA_Destroy();
	GPA_RegisterLoggingCallback(GPA_LOGGING_NONE, NULL);
	og_testing_reset();
	fake_reset();
	return 0;
}

/* Records SAMPLES samples in every pass but the last, which misses the
 * last sample.  Returns the session; *first_pass is the fake's number for
 * pass 0. */
static gpa_uint32 record(gpa_uint32 passes, unsigned *first_pass)
{
	gpa_uint32 session;
	*first_pass = fake_stats.pass_seq;
	assert_int_equal(GPA_BeginSession(&session), GPA_STATUS_OK);
	for (gpa_uint32 p = 0; p < passes; p++) {
		assert_int_equal(GPA_BeginPass(), GPA_STATUS_OK);
		bool last = p == passes - 1;
		for (gpa_uint32 s = 0; s < SAMPLES - (last ? 1u : 0u); s++) {
			assert_int_equal(GPA_BeginSample(s), GPA_STATUS_OK);
			assert_int_equal(GPA_EndSample(), GPA_STATUS_OK);
		}
		/* The short pass is refused but closed, and what it counted kept. */
		assert_int_equal(GPA_EndPass(), last ? GPA_STATUS_ERROR_VARIABLE_NUMBER_OF_SAMPLES_IN_PASSES
		                                     : GPA_STATUS_OK);
	}
	GPA_EndSession();
	gpa_uint8 ready = 0;
	assert_int_equal(GPA_IsSessionReady(&ready, session), GPA_STATUS_OK);
	assert_true(ready);
	return session;
}

/* Reads counter c of sample s and checks it against the reference. */
static void check(const struct reference *ref, gpa_uint32 session, gpa_uint32 passes,
                  unsigned first_pass, uint32_t c, uint32_t s)
{
	gpa_uint32 pass = 99;
	assert_int_equal(OpenGPA_GetCounterPass(c, &pass), GPA_STATUS_OK);
	GPA_Type type;
	assert_int_equal(GPA_GetCounterDataType(c, &type), GPA_STATUS_OK);
	gpa_float64 f = -1;
	gpa_uint64 u = 1;
	GPA_Status st = type == GPA_TYPE_FLOAT64 ? GPA_GetSampleFloat64(session, s, c, &f)
	                                         : GPA_GetSampleUInt64(session, s, c, &u);
	const struct og_context *ctx = og_context_current();
	const struct og_counter *counter = &ctx->cat.counters[c];
	bool needs_last_pass = false;
	for (size_t i = 0; i < counter->ninputs; i++)
		needs_last_pass |= ctx->sel.plan.raw_pass[counter->inputs[i]] == (int8_t)(passes - 1);
	assert_true(pass == passes - 1 || !needs_last_pass);
	if (s == SAMPLES - 1 && needs_last_pass) {
		assert_int_equal(st, GPA_STATUS_ERROR_SAMPLE_NOT_FOUND);
		return;
	}
	assert_int_equal(st, GPA_STATUS_OK);
	double want = expected(ref, c, s, first_pass);
	if (type == GPA_TYPE_FLOAT64) {
		if (memcmp(&f, &want, sizeof(f)) != 0)
			fail_msg("%s, sample %u: %a, the interpreter says %a",
			         ref->cat.counters[c].name, s, f, want);
	} else {
		assert_int_equal(type, GPA_TYPE_UINT64);
		assert_true(ref->cat.counters[c].exact_raw);
		assert_int_equal(u, fake_value(ref->cat.raws[ref->cat.counters[c].raw].backend_id, s,
		                               first_pass + pass));
	}
}

static void test_every_counter_in_any_order(void **state)
{
	(void)state;
	struct reference ref;
	reference_build(&ref);
	gpa_uint32 n = 0;
	assert_int_equal(GPA_GetNumCounters(&n), GPA_STATUS_OK);
	assert_int_equal(n, ref.cat.ncounters);
	/* The context took every counter from the generated set. */
	const struct og_catalog *cat = &og_context_current()->cat;
	for (uint32_t c = 0; c < n; c++) {
		assert_non_null(cat->counters[c].native);
		assert_string_equal(cat->counters[c].name, ref.cat.counters[c].name);
		assert_int_equal(GPA_EnableCounter(c), GPA_STATUS_OK);
	}
	gpa_uint32 passes = 0;
	assert_int_equal(GPA_GetPassCount(&passes), GPA_STATUS_OK);
	assert_true(passes > 1);

	/* Counter by counter, each sample. */
	unsigned first;
	gpa_uint32 session = record(passes, &first);
	for (uint32_t c = 0; c < n; c++)
		for (uint32_t s = 0; s < SAMPLES; s++)
			check(&ref, session, passes, first, c, s);
	/* Sample by sample, counters backwards, the first read of each sample
	 * being one that fails for the last sample. */
	session = record(passes, &first);
	for (uint32_t s = SAMPLES; s-- > 0;)
		for (uint32_t c = n; c-- > 0;)
			check(&ref, session, passes, first, c, s);
	og_catalog_free(&ref.cat);
}

/* A session of two of the set's 19 counters keeps only their raw values
 * and reads them by copying those into a scratch block for the generated
 * code (keeping the set's block would cost more, session_layout.c): same
 * values, and the others stay NOT_ENABLED. */
static void test_some_counters(void **state)
{
	(void)state;
	struct reference ref;
	reference_build(&ref);
	uint32_t ipc, cycles, faults;
	assert_int_equal(GPA_GetCounterIndex("IPC", &ipc), GPA_STATUS_OK);
	assert_int_equal(GPA_GetCounterIndex("Cycles", &cycles), GPA_STATUS_OK);
	assert_int_equal(GPA_GetCounterIndex("PageFaults", &faults), GPA_STATUS_OK);
	assert_int_equal(GPA_EnableCounter(ipc), GPA_STATUS_OK);
	assert_int_equal(GPA_EnableCounter(faults), GPA_STATUS_OK);
	gpa_uint32 passes = 0;
	assert_int_equal(GPA_GetPassCount(&passes), GPA_STATUS_OK);
	unsigned first;
	gpa_uint32 session = record(passes, &first);
	for (uint32_t s = 0; s < SAMPLES; s++) {
		check(&ref, session, passes, first, ipc, s);
		check(&ref, session, passes, first, faults, s);
		gpa_uint64 v;
		assert_int_equal(GPA_GetSampleUInt64(session, s, cycles, &v), GPA_STATUS_ERROR_NOT_ENABLED);
	}
	og_catalog_free(&ref.cat);
}

/* One sample's batch read against the counter-by-counter reads; `missing`:
 * the sample lacks a pass some counter needs. */
static void check_batch(gpa_uint32 session, gpa_uint32 sample, const gpa_uint32 *order,
                        gpa_uint32 n)
{
	OpenGPA_Result res[64];
	assert_true(n <= 64);
	memset(res, 0xA5, sizeof(res));
	GPA_Status batch = OpenGPA_GetSampleResults(session, sample, n, res);
	GPA_Status first_error = GPA_STATUS_OK;
	for (gpa_uint32 k = 0; k < n; k++) {
		GPA_Type type;
		assert_int_equal(GPA_GetCounterDataType(order[k], &type), GPA_STATUS_OK);
		OpenGPA_Result one = { .u64 = 0 };
		GPA_Status st = type == GPA_TYPE_FLOAT64
		                      ? GPA_GetSampleFloat64(session, sample, order[k], &one.f64)
		                      : GPA_GetSampleUInt64(session, sample, order[k], &one.u64);
		if (st != GPA_STATUS_OK) {
			if (first_error == GPA_STATUS_OK)
				first_error = st;
			continue;
		}
		if (batch == GPA_STATUS_OK && memcmp(&one, &res[k], sizeof(one)) != 0)
			fail_msg("sample %u, counter %u (%u in the session): batch %#llx, alone %#llx",
			         sample, order[k], k, (unsigned long long)res[k].u64,
			         (unsigned long long)one.u64);
	}
	/* The batch fails when any counter does, with that counter's status. */
	assert_int_equal(batch, first_error);
}

/* The session's counters in enable order: the whole set in its order (its
 * function writes the answer), backwards, with holes (runs of its outputs
 * copied), and a few with a counter of another file (the interpreter). */
static void test_batch_reads(void **state)
{
	(void)state;
	gpa_uint32 n = 0;
	assert_int_equal(GPA_GetNumCounters(&n), GPA_STATUS_OK);
	assert_true(n <= 64);
	gpa_uint32 order[64];
	for (int how = 0; how < 4; how++) {
		gpa_uint32 count = 0;
		assert_int_equal(GPA_DisableAllCounters(), GPA_STATUS_OK);
		for (gpa_uint32 i = 0; i < n; i++) {
			gpa_uint32 c = how == 1 ? n - 1 - i : i;
			if ((how == 2 && (c % 5 == 3 || c == n - 1)) || (how == 3 && c % 6 != 0))
				continue;
			assert_int_equal(GPA_EnableCounter(c), GPA_STATUS_OK);
			order[count++] = c;
		}
		gpa_uint32 passes = 0;
		assert_int_equal(GPA_GetPassCount(&passes), GPA_STATUS_OK);
		unsigned first;
		gpa_uint32 session = record(passes, &first);
		/* The session's counters, in enable order. */
		gpa_uint32 listed[64], have = 0;
		assert_int_equal(OpenGPA_GetSessionCounters(session, 64, listed, &have), GPA_STATUS_OK);
		assert_int_equal(have, count);
		assert_memory_equal(listed, order, count * sizeof(*order));
		for (gpa_uint32 s = 0; s < SAMPLES; s++)
			check_batch(session, s, order, count);
		/* Room for one counter less, no room at all, no such sample. */
		OpenGPA_Result res[64];
		assert_int_equal(OpenGPA_GetSampleResults(session, 0, count - 1, res),
		                 GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE);
		assert_int_equal(OpenGPA_GetSampleResults(session, 0, count, NULL),
		                 GPA_STATUS_ERROR_NULL_POINTER);
		assert_int_equal(OpenGPA_GetSampleResults(session, SAMPLES + 7, count, res),
		                 GPA_STATUS_ERROR_SAMPLE_NOT_FOUND);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_every_counter_in_any_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_some_counters, setup, teardown),
		cmocka_unit_test_setup_teardown(test_batch_reads, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
