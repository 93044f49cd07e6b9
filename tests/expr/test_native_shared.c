/* SPDX-License-Identifier: MIT */
/*
 * test_native_shared.c — the code generator (lib/expr/native_gen.c) on a
 * counter file whose counters name counters more than once and before they
 * are defined (tests/expr/shared.counters, generated into this test alone):
 * each counter's generated code matches the postfix the library compiles
 * (og_native_matches) and gives the interpreter's result bit for bit.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cmocka.h>

#include "catalog/counterfile.h"
#include "catalog/counterorder.h"
#include "expr/native.h"

static struct og_cf_file file;
static struct og_expr *compiled[256];

/* As native_gen.c resolves: raw counters and constants by entry index,
 * counters once compiled. */
static bool resolve(void *ud, const char *name, size_t len, struct og_expr_ref *out)
{
	(void)ud;
	for (size_t i = 0; i < file.count; i++) {
		const struct og_cf_entry *e = &file.entries[i];
		if (strlen(e->name) != len || strncasecmp(e->name, name, len) != 0)
			continue;
		if (e->kind == OG_CF_RAW)
			*out = (struct og_expr_ref){ .kind = OG_REF_RAW, .index = (uint32_t)i };
		else if (e->kind == OG_CF_CONSTANT)
			*out = (struct og_expr_ref){ .kind = OG_REF_CONSTANT, .index = (uint32_t)i };
		else if (compiled[i])
			*out = (struct og_expr_ref){ .kind = OG_REF_EXPR, .expr = compiled[i] };
		else
			return false;
		return true;
	}
	return false;
}

static uint64_t next_random(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void test_generated_code_keeps_shared_values(void **state)
{
	(void)state;
	char err[512];
	if (!og_cf_load(OG_TEST_SHARED_COUNTERS, &file, err, sizeof(err)))
		fail_msg("%s", err);
	assert_true(file.count < 256);
	size_t order[256], n = 0;
	if (!og_cf_counter_order(&file, NULL, NULL, order, &n, err, sizeof(err)))
		fail_msg("%s", err);
	for (size_t k = 0; k < n; k++) {
		compiled[order[k]] = og_expr_compile(file.entries[order[k]].field[OG_F_EXPRESSION],
		                                     resolve, NULL, err, sizeof(err));
		if (!compiled[order[k]])
			fail_msg("%s: %s", file.entries[order[k]].name, err);
	}
	assert_int_equal(og_native_set_count, 1);
	const struct og_native_set *set = &og_native_sets[0];
	uint32_t *at_raw = malloc((set->nraw_slots + 1) * sizeof(*at_raw));
	uint32_t *at_const = malloc((set->nconst_slots + 1) * sizeof(*at_const));
	uint64_t *leaf = calloc(set->nraw_slots + 1, sizeof(*leaf));
	double *kleaf = calloc(set->nconst_slots + 1, sizeof(*kleaf));
	union og_value *out = calloc(set->ncounters + 1, sizeof(*out));
	assert_true(at_raw && at_const && leaf && kleaf && out);
	for (uint32_t s = 0; s < set->nraw_slots; s++)
		at_raw[s] = UINT32_MAX;
	for (uint32_t s = 0; s < set->nconst_slots; s++)
		at_const[s] = UINT32_MAX;

	size_t counters = 0, sharing = 0;
	for (size_t i = 0; i < file.count; i++) {
		if (file.entries[i].kind != OG_CF_COUNTER)
			continue;
		counters++;
		const struct og_native_counter *nc =
			og_native_find("counters/shared.counters", file.entries[i].name);
		if (!nc)
			fail_msg("%s has no generated code", file.entries[i].name);
		if (!og_native_matches(nc, compiled[i], at_raw, set->nraw_slots, at_const,
		                       set->nconst_slots))
			fail_msg("%s: the generated postfix is not the compiled one", og_native_name(nc));
		for (uint32_t k = 0; k < nc->nshape; k++)
			if (og_native_shape(nc)[k].code == OG_OP_SHARE) {
				sharing++;
				break;
			}
	}
	assert_int_equal(counters, set->ncounters);
	assert_true(sharing >= 5); /* Square, Diamond, the Level and Fib chains */

	uint64_t seed = 0x243F6A8885A308D3ull, raw[256] = { 0 };
	double k[256] = { 0 };
	for (int trial = 0; trial < 2000; trial++) {
		for (size_t i = 0; i < file.count; i++) {
			uint64_t r = next_random(&seed);
			raw[i] = r % 4 == 0 ? 0 : r >> (r % 61);
			k[i] = r % 5 == 0 ? 0.0 : (double)(r >> 40) / 7.0 - 1000.0;
		}
		/* The set's leaves, as a session's row keeps them. */
		for (uint32_t j = 0; j < set->nraw_slots; j++)
			leaf[j] = at_raw[j] == UINT32_MAX ? 0 : raw[at_raw[j]];
		for (uint32_t j = 0; j < set->nconst_slots; j++)
			kleaf[j] = at_const[j] == UINT32_MAX ? 0 : k[at_const[j]];
		set->fn(leaf, kleaf, out);
		for (size_t i = 0; i < file.count; i++) {
			if (file.entries[i].kind != OG_CF_COUNTER)
				continue;
			const struct og_native_counter *nc =
				og_native_find("counters/shared.counters", file.entries[i].name);
			/* Every counter of the file is a float64. */
			double want = og_expr_eval(compiled[i], raw, k), got = out[nc->position].d;
			double alone = og_native_fn(nc)(leaf, kleaf);
			if (memcmp(&want, &got, sizeof(double)) != 0 ||
			    memcmp(&want, &alone, sizeof(double)) != 0)
				fail_msg("%s: generated code gives %a (set) and %a (alone), the interpreter "
				         "%a (trial %d)", og_native_name(nc), got, alone, want, trial);
		}
	}
	free(at_raw);
	free(at_const);
	free(leaf);
	free(kleaf);
	free(out);
	for (size_t i = 0; i < file.count; i++)
		og_expr_free(compiled[i]);
	og_cf_free(&file);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_generated_code_keeps_shared_values),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
