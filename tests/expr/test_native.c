/* SPDX-License-Identifier: MIT */
/*
 * test_native.c — the C generated for built-in counter sets
 * (lib/expr/native.h): every counter of every embedded set gets it, its
 * counter functions give the interpreter's result bit for bit on hostile
 * inputs, its set functions the typed values the batch read promises, and
 * og_native_matches() refuses any postfix but its own, so a counter that
 * differs keeps the interpreter.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "catalog/catalog.h"
#include "expr/arith.h"
#include "catalog/counterfile.h"
#include "catalog/embedded.h"
#include "test_util.h"
#include "expr/native.h"

/* Builds the catalogue of embedded set `set`; as a built-in file when
 * builtin, else as if a user had loaded the same text. */
static void build(struct og_catalog *cat, const struct og_embedded_set *set, bool builtin)
{
	char err[512];
	struct og_cf_file *file = calloc(1, sizeof(*file));
	assert_non_null(file);
	if (!og_cf_parse(set->file, set->text, file, err, sizeof(err)))
		fail_msg("%s", err);
	unsigned next = 0;
	struct og_binder binder = {
		.ud = &next, .bind_raw = tu_bind_every_raw, .constant = tu_know_every_constant,
	};
	if (og_catalog_build(cat, file, 1, builtin ? 1 : 0, &binder, NULL, 0, false, err,
	                     sizeof(err)) != GPA_STATUS_OK)
		fail_msg("%s: %s", set->file, err);
}

static uint64_t next_random(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Counts as a device gives them, and the ones arithmetic trips on: zero
 * (most ratios become 0/0), values past 2^53 that round, the maximum, and
 * 2^40 to 2^53 and one below each (where the generated code's integer
 * arithmetic hands over to doubles: native_gen.c, integer_text). */
static uint64_t random_count(uint64_t *s)
{
	uint64_t r = next_random(s);
	switch (r % 9) {
	case 0: case 1: return 0;
	case 2: return 1;
	case 3: return (1ull << 53) + (r >> 60);
	case 4: return UINT64_MAX - (r >> 62);
	case 5: return (1ull << (40 + (r >> 8) % 14)) - ((r >> 16) & 1);
	default: return next_random(s) >> (r % 61);
	}
}

/* Constants come from the device, but nothing stops a broken one. */
static double random_constant(uint64_t *s)
{
	static const double odd[] = { 0.0, -0.0, 1.0, -1.0, 1e308, -1e308, 5e-324, 0.1 };
	uint64_t r = next_random(s);
	if (r % 3 == 0)
		return odd[(r >> 8) % (sizeof(odd) / sizeof(odd[0]))];
	return (double)(r >> 40) / 7.0;
}

static bool same_bits(double a, double b)
{
	return memcmp(&a, &b, sizeof(double)) == 0;
}

static void test_every_builtin_counter_is_native_and_exact(void **state)
{
	(void)state;
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	size_t total = 0;
	for (size_t i = 0; i < og_embedded_set_count; i++) {
		struct og_catalog cat;
		build(&cat, &og_embedded_sets[i], true);
		uint64_t *raw = calloc(cat.nraw + 1, sizeof(*raw));
		double *k = calloc(cat.nconst + 1, sizeof(*k));
		assert_non_null(raw);
		assert_non_null(k);
		for (size_t c = 0; c < cat.ncounters; c++)
			if (!cat.counters[c].native)
				fail_msg("%s: counter %s has no generated code", og_embedded_sets[i].file,
				         cat.counters[c].name);
		union og_value *out[64] = { 0 };
		uint64_t *leaf[64] = { 0 };
		double *kleaf[64] = { 0 };
		assert_true(cat.nnative > 0 && cat.nnative <= 64);
		for (size_t n = 0; n < cat.nnative; n++) {
			const struct og_native_binding *b = &cat.native[n];
			out[n] = calloc(b->ncounters + 1, sizeof(*out[n]));
			leaf[n] = calloc(b->nraw + 1, sizeof(*leaf[n]));
			kleaf[n] = calloc(b->nconst + 1, sizeof(*kleaf[n]));
			assert_true(out[n] && leaf[n] && kleaf[n]);
			for (uint32_t j = 0; j < b->nraw; j++)
				assert_true(b->at_raw[j] == UINT32_MAX || b->at_raw[j] < cat.nraw);
			for (uint32_t j = 0; j < b->nconst; j++) {
				assert_true(b->at_const[j] < cat.nconst);
				assert_true(same_bits(b->k[j], cat.const_values[b->at_const[j]]));
			}
		}
		for (int trial = 0; trial < 2000; trial++) {
			for (size_t r = 0; r < cat.nraw; r++)
				raw[r] = random_count(&seed);
			for (size_t c = 0; c < cat.nconst; c++)
				k[c] = trial < 1000 ? cat.const_values[c] : random_constant(&seed);
			/* The set's leaves, as a session's row holds them. */
			for (size_t n = 0; n < cat.nnative; n++) {
				const struct og_native_binding *b = &cat.native[n];
				for (uint32_t j = 0; j < b->nraw; j++)
					leaf[n][j] = b->at_raw[j] == UINT32_MAX ? 0 : raw[b->at_raw[j]];
				for (uint32_t j = 0; j < b->nconst; j++)
					kleaf[n][j] = k[b->at_const[j]];
				b->fn(leaf[n], kleaf[n], out[n]);
			}
			for (size_t c = 0; c < cat.ncounters; c++) {
				const struct og_counter *ctr = &cat.counters[c];
				size_t n = ctr->native->index;
				double want = og_expr_eval(ctr->expr, raw, k);
				double got = ctr->native_fn(leaf[n], kleaf[n]);
				if (!same_bits(want, got))
					fail_msg("%s: %s: generated code gives %a, the interpreter %a (trial %d)",
					         og_embedded_sets[i].file, ctr->name, got, want, trial);
				union og_value v = out[n][ctr->native_pos];
				bool integer = ctr->type != GPA_TYPE_FLOAT32 && ctr->type != GPA_TYPE_FLOAT64;
				uint64_t max = ctr->type == GPA_TYPE_UINT32 ? UINT32_MAX : UINT64_MAX;
				if (!integer ? !same_bits(v.d, want)
				             : v.u != (ctr->exact_raw ? og_arith_clamp_u64(raw[ctr->raw], max)
				                                      : og_arith_to_u64(want, max)))
					fail_msg("%s: %s: the set function's value differs (trial %d)",
					         og_embedded_sets[i].file, ctr->name, trial);
			}
		}
		for (size_t n = 0; n < cat.nnative; n++) {
			free(out[n]);
			free(leaf[n]);
			free(kleaf[n]);
		}
		total += cat.ncounters;
		printf("%s: %zu counters, generated code and interpreter agree on 2000 samples\n",
		       og_embedded_sets[i].file, cat.ncounters);
		free(raw);
		free(k);
		og_catalog_free(&cat);
	}
	/* Nothing generated that no embedded file asks for. */
	assert_int_equal(total, og_native_counter_count);
}

static void test_user_files_keep_the_interpreter(void **state)
{
	(void)state;
	/* The same text under the same name, loaded as a user's file: the
	 * generated code was made from the embedded file, not from this one. */
	struct og_catalog cat;
	build(&cat, &og_embedded_sets[0], false);
	assert_true(cat.ncounters > 0);
	for (size_t c = 0; c < cat.ncounters; c++)
		assert_null(cat.counters[c].native);
	assert_int_equal(cat.nnative, 0);
	og_catalog_free(&cat);
}

/* Two raw counters, A at index 7 and B at 9, and constant K at 3. */
static bool resolve(void *ud, const char *name, size_t len, struct og_expr_ref *out)
{
	(void)ud;
	if (len != 1)
		return false;
	if (name[0] == 'K') {
		*out = (struct og_expr_ref){ .kind = OG_REF_CONSTANT, .index = 3 };
		return true;
	}
	if (name[0] != 'A' && name[0] != 'B')
		return false;
	*out = (struct og_expr_ref){ .kind = OG_REF_RAW, .index = name[0] == 'A' ? 7 : 9 };
	return true;
}

/* Matches text against n from fresh slots; *a and *b get the indices of
 * the slots n's first two leaves use. */
static bool matches(const struct og_native_counter *n, const char *text, uint32_t *a, uint32_t *b)
{
	char err[128];
	struct og_expr *e = og_expr_compile(text, resolve, NULL, err, sizeof(err));
	if (!e)
		fail_msg("%s: %s", text, err);
	uint32_t nraw = og_native_sets[n->set].nraw_slots, nconst = og_native_sets[n->set].nconst_slots;
	uint32_t *at = malloc((nraw + nconst + 1) * sizeof(*at));
	assert_non_null(at);
	for (uint32_t s = 0; s < nraw + nconst; s++)
		at[s] = UINT32_MAX;
	bool ok = og_native_matches(n, e, at, nraw, at + nraw, nconst);
	*a = at[og_native_shape(n)[0].index];
	*b = at[og_native_shape(n)[1].index];
	free(at);
	og_expr_free(e);
	return ok;
}

static void test_matches_only_its_own_postfix(void **state)
{
	(void)state;
	const struct og_native_counter *n =
		og_native_find("counters/mali-g71.counters", "fragmentqueueutilization");
	if (!n)
		skip(); /* built without the Mali counter set */
	/* The guide's percentage: max(min(JS0_ACTIVE / GPU_ACTIVE * 100, 100), 0). */
	assert_int_equal(og_native_shape(n)[0].code, OG_OP_RAW);
	assert_int_equal(og_native_shape(n)[1].code, OG_OP_RAW);
	uint32_t a, b;
	assert_true(matches(n, "max(min(A / B * 100, 100), 0)", &a, &b));
	assert_int_equal(a, 7);
	assert_int_equal(b, 9);
	assert_true(matches(n, "max(min(B / A * 100, 100), 0)", &a, &b));
	assert_int_equal(a, 9);
	assert_int_equal(b, 7);
	/* One counter in both slots computes the same as the code with both
	 * slots at 7: accepted. */
	assert_true(matches(n, "max(min(A / A * 100, 100), 0)", &a, &b));
	assert_int_equal(b, 7);

	assert_false(matches(n, "max(min(A / B * 100, 100), 1)", &a, &b));
	assert_false(matches(n, "max(min(A / B * 1000, 100), 0)", &a, &b));
	assert_false(matches(n, "max(min(A / B * 100, 100), -0)", &a, &b)); /* -0.0 is not 0.0 */
	assert_false(matches(n, "min(max(A / B * 100, 100), 0)", &a, &b));
	assert_false(matches(n, "max(min(A * B * 100, 100), 0)", &a, &b));
	assert_false(matches(n, "max(min(K / B * 100, 100), 0)", &a, &b));
	assert_false(matches(n, "A / B", &a, &b));
	assert_false(matches(n, "max(min(A / B * 100, 100), 0) + 0", &a, &b));
}

/* A slot another counter of the set already gave a meaning must keep it. */
static void test_slots_are_shared_by_the_set(void **state)
{
	(void)state;
	const struct og_native_counter *n =
		og_native_find("counters/mali-g71.counters", "FragmentQueueUtilization");
	if (!n)
		skip();
	struct og_expr *e = og_expr_compile("max(min(A / B * 100, 100), 0)", resolve, NULL, NULL, 0);
	assert_non_null(e);
	uint32_t nraw = og_native_sets[n->set].nraw_slots, nconst = og_native_sets[n->set].nconst_slots;
	uint32_t *at = malloc((nraw + nconst + 1) * sizeof(*at));
	assert_non_null(at);
	for (uint32_t s = 0; s < nraw + nconst; s++)
		at[s] = UINT32_MAX;
	at[og_native_shape(n)[1].index] = 9;
	assert_true(og_native_matches(n, e, at, nraw, at + nraw, nconst));
	at[og_native_shape(n)[1].index] = 8;
	assert_false(og_native_matches(n, e, at, nraw, at + nraw, nconst));
	/* A slot table too short for the code is refused, not overrun. */
	for (uint32_t s = 0; s < nraw + nconst; s++)
		at[s] = UINT32_MAX;
	assert_false(og_native_matches(n, e, at, og_native_shape(n)[0].index, at + nraw, nconst));
	free(at);
	og_expr_free(e);
}

static void test_find(void **state)
{
	(void)state;
	assert_null(og_native_find("counters/none.counters", "GPUActiveCycles"));
	assert_null(og_native_find("", ""));
	for (size_t i = 0; i < og_native_counter_count; i++) {
		const struct og_native_counter *n = &og_native_counters[i];
		assert_ptr_equal(og_native_find(og_native_origin(n), og_native_name(n)), n);
		assert_true(n->nshape > 0);
		assert_true(n->set < og_native_set_count);
		const struct og_native_set *set = &og_native_sets[n->set];
		assert_true(og_native_name(n)[0] != '\0');
		/* The set's entries name this counter once. */
		size_t named = 0;
		for (uint32_t k = 0; k < set->nentries; k++)
			named += set->counter_of_entry[k] == i;
		assert_int_equal(named, 1);
		assert_true(n->position < set->ncounters);
		for (uint32_t s = 0; s < n->nshape; s++) {
			if (og_native_shape(n)[s].code == OG_OP_RAW)
				assert_true(og_native_shape(n)[s].index < set->nraw_slots);
			if (og_native_shape(n)[s].code == OG_OP_CONSTANT)
				assert_true(og_native_shape(n)[s].index < set->nconst_slots);
		}
		assert_non_null(og_native_fn(n));
		assert_null(set->counter_fn(set->ncounters));
	}
}

/* og_arith_to_u64 as docs/counter-files.md states it, written plainly:
 * NaN and anything not above 0 give 0, max and anything past it max, the
 * rest rounded half up. */
static uint64_t to_u64_plainly(double v, uint64_t max)
{
	if (!(v > 0.0))
		return 0;
	if (v >= (double)max)
		return max;
	double r = floor(v + 0.5);
	return r >= (double)max ? max : (uint64_t)r;
}

/* The library's og_arith_to_u64 (its fast path tests the double's bits)
 * gives what the plain statement gives, at the edges of that path and
 * around them. */
static void test_to_u64(void **state)
{
	(void)state;
	const double edge[] = {
		0.0, -0.0, 0.49999999999999994, 0.5, 1.5, 2.5, -0.5, -1.0, 1e-310, -1e-310,
		0x1p62, nextafter(0x1p62, 0), nextafter(0x1p62, INFINITY), 0x1p63, 0x1p64,
		nextafter(0x1p64, 0), 4294967295.0, 4294967295.5, 4294967296.0, 1e300, -1e300,
		INFINITY, -INFINITY, NAN, -NAN, 0x1p52 + 0.5, 0x1p53, 123456789.49,
	};
	const uint64_t max[] = { UINT64_MAX, UINT32_MAX };
	uint64_t seed = 0x2545f4914f6cdd1du;
	for (size_t m = 0; m < 2; m++) {
		for (size_t i = 0; i < sizeof(edge) / sizeof(edge[0]); i++)
			if (og_arith_to_u64(edge[i], max[m]) != to_u64_plainly(edge[i], max[m]))
				fail_msg("og_arith_to_u64(%a, %#llx) = %#llx, not %#llx", edge[i],
				         (unsigned long long)max[m],
				         (unsigned long long)og_arith_to_u64(edge[i], max[m]),
				         (unsigned long long)to_u64_plainly(edge[i], max[m]));
		for (int i = 0; i < 200000; i++) {
			/* Any bits, then counts of every size with a fraction. */
			uint64_t bits = next_random(&seed);
			double v;
			memcpy(&v, &bits, sizeof(v));
			if (i % 2)
				v = (double)(bits >> (i % 64)) * (i % 3 ? 0.75 : -1.25);
			if (og_arith_to_u64(v, max[m]) != to_u64_plainly(v, max[m]))
				fail_msg("og_arith_to_u64(%a, %#llx) = %#llx, not %#llx", v,
				         (unsigned long long)max[m],
				         (unsigned long long)og_arith_to_u64(v, max[m]),
				         (unsigned long long)to_u64_plainly(v, max[m]));
		}
	}
}

/* A set's parts read no leaf past their reach (native.h): run on a copy of
 * leaves [0, reach) that ends where an inaccessible page begins, they write
 * what they write over every leaf (the whole set's all[]); a read of any
 * leaf from the reach on, even one whose value goes nowhere, faults. */
struct guarded {
	uint8_t *map;
	size_t len;
	uint64_t *leaf; /* `reach` leaves, then an inaccessible page */
};

static struct guarded guarded_leaves(uint32_t reach)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t span = (reach * sizeof(uint64_t) + page - 1) / page * page;
	uint8_t *map = mmap(NULL, span + page, PROT_READ | PROT_WRITE,
	                    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(map != MAP_FAILED);
	assert_int_equal(mprotect(map + span, page, PROT_NONE), 0);
	return (struct guarded){ map, span + page, (uint64_t *)(map + span) - reach };
}

static void check_part_reach(const struct og_native_set *set, const uint64_t *parts,
                             const uint64_t *leaf, const double *k, const union og_value *all)
{
	uint32_t reach = 0, nparts = og_native_part_count(set->ncounters, set->part_size);
	for (uint32_t p = 0; p < nparts; p++)
		if (parts[p / 64] >> (p % 64) & 1 && set->part_reach[p] > reach)
			reach = set->part_reach[p];
	assert_true(reach <= set->nraw_slots);
	struct guarded g = guarded_leaves(reach);
	uint64_t *cut = g.leaf;
	memcpy(cut, leaf, reach * sizeof(*cut));
	union og_value *got = malloc((set->ncounters + 1) * sizeof(*got));
	assert_non_null(got);
	set->parts(cut, k, got, parts);
	for (uint32_t c = 0; c < set->ncounters; c++) {
		uint32_t p = og_native_part_of(set->ncounters, set->part_size, c);
		if (parts[p / 64] >> (p % 64) & 1 && memcmp(&got[c], &all[c], sizeof(got[c])) != 0)
			fail_msg("%s, counter %u: part %u gives another value from its reach %u",
			         set->origin, c, p, set->part_reach[p]);
	}
	free(got);
	munmap(g.map, g.len);
}

/* Each set's parts function writes, for the parts whose bits are set, what
 * the set's function writes at those positions, and nothing anywhere else
 * (a session of part of a set runs only its parts: lib/core/session_state.h,
 * struct block). */
static void test_parts_write_their_counters_only(void **state)
{
	(void)state;
	uint64_t seed = 0x9e3779b97f4a7c15u;
	for (size_t i = 0; i < og_native_set_count; i++) {
		const struct og_native_set *set = &og_native_sets[i];
		assert_non_null(set->parts);
		assert_true(set->part_size >= 1);
		uint64_t nparts = og_native_part_count(set->ncounters, set->part_size);
		assert_true(nparts <= OG_NATIVE_MAX_PARTS);
		assert_non_null(set->part_reach);
		uint64_t *leaf = calloc(set->nraw_slots + 1, sizeof(*leaf));
		double *k = calloc(set->nconst_slots + 1, sizeof(*k));
		union og_value *all = calloc(set->ncounters + 1, sizeof(*all));
		union og_value *some = calloc(set->ncounters + 1, sizeof(*some));
		assert_true(leaf && k && all && some);
		for (uint32_t j = 0; j < set->nraw_slots; j++)
			leaf[j] = random_count(&seed);
		for (uint32_t j = 0; j < set->nconst_slots; j++)
			k[j] = random_constant(&seed);
		set->fn(leaf, k, all);
		for (int round = 0; round < 4; round++) {
			uint64_t parts[OG_NATIVE_PART_WORDS];
			for (int w = 0; w < OG_NATIVE_PART_WORDS; w++)
				parts[w] = round == 0 ? w == 0 : round == 1 ? ~UINT64_C(0)
				                                            : next_random(&seed);
			memset(some, 0xA5, (set->ncounters + 1) * sizeof(*some));
			set->parts(leaf, k, some, parts);
			for (uint32_t c = 0; c < set->ncounters; c++) {
				union og_value untouched;
				memset(&untouched, 0xA5, sizeof(untouched));
				uint32_t p = og_native_part_of(set->ncounters, set->part_size, c);
				bool in = parts[p / 64] >> (p % 64) & 1;
				if (memcmp(&some[c], in ? &all[c] : &untouched, sizeof(some[c])) != 0)
					fail_msg("%s, counter %u, part %u: %#llx", set->origin, c, p,
					         (unsigned long long)some[c].u);
			}
			check_part_reach(set, parts, leaf, k, all);
			assert_memory_equal(&some[set->ncounters], &(union og_value){ .u = 0xA5A5A5A5A5A5A5A5u },
			                    sizeof(*some));
		}
		free(leaf);
		free(k);
		free(all);
		free(some);
	}
}

/* Each set's tail function writes its last tail_size counters as the
 * set's function does, at out[0 ..), nothing after them, reading no leaf
 * past its last part's reach (a session runs it on the row in place). */
static void test_tail_writes_the_last_counters(void **state)
{
	(void)state;
	uint64_t seed = 0x2545f4914f6cdd1du;
	for (size_t i = 0; i < og_native_set_count; i++) {
		const struct og_native_set *set = &og_native_sets[i];
		uint32_t n = set->ncounters, t = set->tail_size;
		assert_non_null(set->tail);
		assert_true(t >= 1 && t <= set->part_size && t <= n);
		uint32_t last = og_native_part_count(n, set->part_size) - 1;
		uint32_t reach = set->part_reach[last];
		assert_true(reach <= set->nraw_slots);
		struct guarded g = guarded_leaves(reach);
		uint64_t *cut = g.leaf;
		uint64_t *leaf = calloc(set->nraw_slots + 1, sizeof(*leaf));
		double *k = calloc(set->nconst_slots + 1, sizeof(*k));
		union og_value *all = calloc(n + 1, sizeof(*all)), got[OG_NATIVE_MAX_PARTS + 1];
		assert_true(leaf && k && all && t < OG_NATIVE_MAX_PARTS);
		for (int trial = 0; trial < 200; trial++) {
			for (uint32_t j = 0; j < set->nraw_slots; j++)
				leaf[j] = random_count(&seed);
			for (uint32_t j = 0; j < set->nconst_slots; j++)
				k[j] = random_constant(&seed);
			set->fn(leaf, k, all);
			memcpy(cut, leaf, reach * sizeof(*cut));
			memset(got, 0xA5, sizeof(got));
			set->tail(cut, k, got);
			for (uint32_t j = 0; j < t; j++)
				if (memcmp(&got[j], &all[n - t + j], sizeof(got[j])) != 0)
					fail_msg("%s: tail %u (counter %u): %#llx, the set's %#llx", set->origin,
					         j, n - t + j, (unsigned long long)got[j].u,
					         (unsigned long long)all[n - t + j].u);
			assert_memory_equal(&got[t], &(union og_value){ .u = 0xA5A5A5A5A5A5A5A5u },
			                    sizeof(got[t]));
		}
		free(leaf);
		free(k);
		free(all);
		munmap(g.map, g.len);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_builtin_counter_is_native_and_exact),
		cmocka_unit_test(test_user_files_keep_the_interpreter),
		cmocka_unit_test(test_matches_only_its_own_postfix),
		cmocka_unit_test(test_slots_are_shared_by_the_set),
		cmocka_unit_test(test_find),
		cmocka_unit_test(test_parts_write_their_counters_only),
		cmocka_unit_test(test_tail_writes_the_last_counters),
		cmocka_unit_test(test_to_u64),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
