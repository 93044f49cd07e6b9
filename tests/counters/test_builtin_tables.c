/* SPDX-License-Identifier: MIT */
/*
 * test_builtin_tables.c — the built-in sets' build-time tables
 * (lib/catalog/builtin.h) against the text reader: every entry as og_cf_parse
 * reads the embedded text, the compile order, the descriptions; and, for
 * every set, the catalogue a context builds from the tables equals the one
 * it builds from the text, counter for counter — with every raw counter
 * countable, and with some not and some constants unknown (the counters
 * not offered, and why, must agree too), alone and followed by a second
 * set and a user's file (the name map made late).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "catalog/builtin.h"
#include "catalog/catalog.h"
#include "catalog/counterfile.h"
#include "catalog/counterorder.h"
#include "catalog/embedded.h"

static const struct og_embedded_set *embedded(const char *name)
{
	for (size_t i = 0; i < og_embedded_set_count; i++)
		if (strcmp(og_embedded_sets[i].name, name) == 0)
			return &og_embedded_sets[i];
	fail_msg("set %s has tables but no embedded text", name);
	return NULL;
}

static void same_string(const char *what, const char *a, const char *b)
{
	if ((a == NULL) != (b == NULL) || (a && strcmp(a, b) != 0))
		fail_msg("%s: \"%s\" against \"%s\"", what, a ? a : "(null)", b ? b : "(null)");
}

static void test_tables_are_the_text(void **state)
{
	(void)state;
	assert_int_equal(og_builtin_set_count, og_embedded_set_count);
	for (size_t s = 0; s < og_builtin_set_count; s++) {
		const struct og_builtin_set *set = og_builtin_at(s);
		const struct og_embedded_set *text = embedded(set->name);
		struct og_cf_file parsed;
		char err[512];
		if (!og_cf_parse(text->file, text->text, &parsed, err, sizeof(err)))
			fail_msg("%s", err);
		const struct og_cf_file *t = &set->file;
		assert_ptr_equal(t->builtin, set);
		same_string("origin", t->origin, parsed.origin);
		same_string("backend", t->backend, parsed.backend);
		assert_int_equal(t->count, parsed.count);
		for (size_t i = 0; i < t->count; i++) {
			const struct og_cf_entry *a = &t->entries[i], *b = &parsed.entries[i];
			assert_int_equal(a->kind, b->kind);
			same_string("name", a->name, b->name);
			for (int f = 0; f < OG_F__COUNT; f++)
				same_string(og_cf_field_name((enum og_cf_field)f), a->field[f], b->field[f]);
			assert_int_equal(a->line, b->line);
			assert_int_equal(a->usage, b->usage);
			assert_int_equal(a->type, b->type);
			assert_memory_equal(&a->value, &b->value, sizeof(double));
			if (a->kind == OG_CF_COUNTER) {
				char desc[4096];
				snprintf(desc, sizeof(desc), "#%s#%s", b->field[OG_F_GROUP],
				         b->field[OG_F_DESCRIPTION]);
				same_string("gpa_desc", set->gpa_desc[i], desc);
			} else {
				assert_null(set->counter[i]);
			}
		}
		size_t *order = calloc(parsed.count + 1, sizeof(*order)), n = 0;
		assert_non_null(order);
		assert_true(og_cf_counter_order(&parsed, NULL, NULL, order, &n, err, sizeof(err)));
		assert_int_equal(set->norder, n);
		for (size_t k = 0; k < n; k++)
			assert_int_equal(set->order[k], order[k]);
		free(order);
		og_cf_free(&parsed);
	}
}

/* ---- catalogues built both ways -------------------------------------- */

/* Deterministic per name: both builds see the same device. */
static unsigned name_hash(const char *name)
{
	unsigned h = 2166136261u;
	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 16777619u;
	return h;
}

struct device {
	bool holes; /* some raw counters not countable, some constants unknown */
	uint32_t next_id;
};

static GPA_Status bind_raw(void *ud, const char *name, const char *source, uint32_t *id,
                           const char **why_not)
{
	(void)source;
	struct device *d = ud;
	if (d->holes && name_hash(name) % 7 == 3) {
		*why_not = "not on this test device";
		return GPA_STATUS_ERROR_NOT_FOUND;
	}
	*id = d->next_id++;
	return GPA_STATUS_OK;
}

static GPA_Status constant(void *ud, const char *name, double *value)
{
	struct device *d = ud;
	if (d->holes && name_hash(name) % 3 == 1)
		return GPA_STATUS_ERROR_NOT_FOUND;
	*value = 1.0 + name_hash(name) % 97;
	return GPA_STATUS_OK;
}

static void quiet(void *ud, bool error, const char *fmt, ...)
{
	(void)ud;
	(void)error;
	(void)fmt;
}

static const char user_text[] =
	"# a user's file after the built-in sets\n"
	"counter UserTwice\n"
	"    group: User\n"
	"    usage: items\n"
	"    type: float64\n"
	"    description: The first counter of the first set, twice.\n"
	"    expression: 2 * $%s\n";

/* A catalogue of sets[0 .. nsets) (and a user's file when `user`), from
 * the tables or from the text. */
static GPA_Status build(struct og_catalog *cat, const struct og_builtin_set *const *sets,
                        size_t nsets, bool user, bool tables, bool holes, char *err, size_t len)
{
	struct og_cf_file *files = calloc(nsets + 2, sizeof(*files));
	assert_non_null(files);
	for (size_t i = 0; i < nsets; i++) {
		if (tables) {
			files[i] = sets[i]->file;
			continue;
		}
		const struct og_embedded_set *text = embedded(sets[i]->name);
		assert_true(og_cf_parse(text->file, text->text, &files[i], err, len));
	}
	size_t nfiles = nsets;
	if (user) {
		/* Names the first counter of the first set. */
		const char *first = NULL;
		for (size_t i = 0; !first && i < sets[0]->file.count; i++)
			if (sets[0]->file.entries[i].kind == OG_CF_COUNTER)
				first = sets[0]->file.entries[i].name;
		assert_non_null(first);
		char text[1024];
		snprintf(text, sizeof(text), user_text, first);
		assert_true(og_cf_parse("user.counters", text, &files[nfiles++], err, len));
	}
	struct device d = { holes, 0 };
	struct og_binder binder = { .ud = &d, .backend = "test", .bind_raw = bind_raw,
	                            .constant = constant, .log = quiet };
	og_catalog_text_only = !tables;
	GPA_Status st = og_catalog_build(cat, files, nfiles, nsets, &binder, NULL, 0, false, err, len);
	og_catalog_text_only = false;
	return st;
}

static void same_postfix(const char *name, const struct og_expr *a, const struct og_expr *b)
{
	const struct og_expr_op *x, *y;
	size_t n = og_expr_postfix(a, &x);
	if (n != og_expr_postfix(b, &y))
		fail_msg("%s: postfix lengths differ", name);
	for (size_t i = 0; i < n; i++)
		if (x[i].code != y[i].code || x[i].index != y[i].index ||
		    memcmp(&x[i].number, &y[i].number, sizeof(double)) != 0)
			fail_msg("%s: postfix differs at %zu", name, i);
	char da[2048], db[2048];
	og_expr_describe(a, da, sizeof(da));
	og_expr_describe(b, db, sizeof(db));
	same_string(name, da, db);
}

static void same_catalogue(const struct og_catalog *a, const struct og_catalog *b)
{
	assert_int_equal(a->nraw, b->nraw);
	for (size_t i = 0; i < a->nraw; i++) {
		same_string("raw", a->raws[i].name, b->raws[i].name);
		same_string("source", a->raws[i].source, b->raws[i].source);
		same_string("raw set", a->raws[i].set, b->raws[i].set);
		same_string("raw group", a->raws[i].group, b->raws[i].group);
		assert_int_equal(a->raws[i].available, b->raws[i].available);
		assert_int_equal(a->raws[i].backend_id, b->raws[i].backend_id);
	}
	assert_int_equal(a->nconst, b->nconst);
	for (size_t i = 0; i < a->nconst; i++) {
		assert_int_equal(a->constants[i].known, b->constants[i].known);
		assert_memory_equal(&a->const_values[i], &b->const_values[i], sizeof(double));
	}
	assert_int_equal(a->ncounters, b->ncounters);
	assert_int_equal(a->nderived, b->nderived);
	for (size_t i = 0; i < a->ncounters; i++) {
		const struct og_counter *x = &a->counters[i], *y = &b->counters[i];
		same_string("counter", x->name, y->name);
		same_string(x->name, x->set, y->set);
		same_string(x->name, x->alias, y->alias);
		same_string(x->name, x->group, y->group);
		same_string(x->name, x->text, y->text);
		same_string(x->name, x->gpa_desc, y->gpa_desc);
		same_string(x->name, x->expression, y->expression);
		assert_int_equal(x->usage, y->usage);
		assert_int_equal(x->type, y->type);
		same_postfix(x->name, x->expr, y->expr);
		assert_int_equal(x->ninputs, y->ninputs);
		assert_memory_equal(x->inputs, y->inputs, x->ninputs * sizeof(*x->inputs));
		assert_int_equal(x->exact_raw, y->exact_raw);
		if (x->exact_raw)
			assert_int_equal(x->raw, y->raw);
		assert_int_equal(x->native != NULL, y->native != NULL);
		if (x->native) {
			assert_int_equal(x->native_pos, y->native_pos);
			assert_ptr_equal(x->native_fn, y->native_fn);
		}
	}
	assert_int_equal(a->nnative, b->nnative);
	for (size_t i = 0; i < a->nnative; i++) {
		const struct og_native_binding *x = &a->native[i], *y = &b->native[i];
		assert_int_equal(x->nraw, y->nraw);
		assert_int_equal(x->nconst, y->nconst);
		assert_memory_equal(x->at_raw, y->at_raw, x->nraw * sizeof(*x->at_raw));
		assert_memory_equal(x->at_const, y->at_const, x->nconst * sizeof(*x->at_const));
	}
	assert_int_equal(a->nunavailable, b->nunavailable);
	for (size_t i = 0; i < a->nunavailable; i++) {
		same_string("unavailable", a->unavailable[i].name, b->unavailable[i].name);
		same_string(a->unavailable[i].name, a->unavailable[i].reason, b->unavailable[i].reason);
	}
}

static void compare(const struct og_builtin_set *const *sets, size_t nsets, bool user, bool holes)
{
	struct og_catalog from_tables, from_text;
	char e1[512], e2[512];
	GPA_Status s1 = build(&from_tables, sets, nsets, user, true, holes, e1, sizeof(e1));
	GPA_Status s2 = build(&from_text, sets, nsets, user, false, holes, e2, sizeof(e2));
	assert_int_equal(s1, s2);
	if (s1 != GPA_STATUS_OK) {
		same_string("error", e1, e2); /* e.g. two sets defining one name */
		return;
	}
	same_catalogue(&from_tables, &from_text);
	og_catalog_free(&from_tables);
	og_catalog_free(&from_text);
}

static void test_catalogues_agree(void **state)
{
	(void)state;
	for (size_t s = 0; s < og_builtin_set_count; s++) {
		const struct og_builtin_set *one[1] = { og_builtin_at(s) };
		compare(one, 1, false, false);
		compare(one, 1, false, true);
		compare(one, 1, true, true);
	}
}

/* A set after another (compiled from text, the first set's names made
 * late), as the perf backend opens perf-generic and a Neoverse set. */
static void test_two_sets(void **state)
{
	(void)state;
	const struct og_builtin_set *generic = og_builtin_find("perf-generic"), *other = NULL;
	assert_non_null(generic);
	for (size_t s = 0; !other && s < og_builtin_set_count; s++)
		if (strncmp(og_builtin_at(s)->name, "neoverse-", 9) == 0)
			other = og_builtin_at(s);
	if (!other)
		skip();
	const struct og_builtin_set *two[2] = { generic, other };
	compare(two, 2, false, false);
	compare(two, 2, true, true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tables_are_the_text),
		cmocka_unit_test(test_catalogues_agree),
		cmocka_unit_test(test_two_sets),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
