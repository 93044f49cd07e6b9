/* SPDX-License-Identifier: MIT */
/*
 * test_counters.c — every counter set embedded in this build parses, and
 * every expression compiles against the file's own declarations; and the
 * parser rejects what docs/counter-files.md forbids, naming file and line.
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

#include "catalog/catalog.h"
#include "catalog/counterfile.h"
#include "catalog/embedded.h"
#include "test_util.h"

static unsigned logged;

static void count_log(void *ud, bool error, const char *fmt, ...)
{
	(void)ud;
	(void)error;
	(void)fmt;
	logged++;
}

static void test_embedded_sets(void **state)
{
	(void)state;
	for (size_t i = 0; i < og_embedded_set_count; i++) {
		const struct og_embedded_set *set = &og_embedded_sets[i];
		char err[512];
		struct og_cf_file *file = calloc(1, sizeof(*file));
		assert_non_null(file);
		if (!og_cf_parse(set->file, set->text, file, err, sizeof(err)))
			fail_msg("%s", err);
		size_t entries = file->count;
		assert_true(entries > 0);
		for (size_t e = 0; e < file->count; e++) {
			const struct og_cf_entry *en = &file->entries[e];
			if (en->kind != OG_CF_COUNTER)
				continue;
			if (!en->field[OG_F_GROUP] || !*en->field[OG_F_GROUP] ||
			    !en->field[OG_F_DESCRIPTION] || !*en->field[OG_F_DESCRIPTION])
				fail_msg("%s:%u: counter %s lacks a group or description", set->file,
				         en->line, en->name);
		}
		unsigned next = 0;
		struct og_binder binder = {
			.ud = &next, .backend = NULL, .bind_raw = tu_bind_every_raw,
			.constant = tu_know_every_constant, .log = count_log,
		};
		struct og_catalog cat;
		logged = 0;
		/* As a built-in file: an unknown name is an error, not a skip. */
		if (og_catalog_build(&cat, file, 1, 1, &binder, NULL, 0, false, err, sizeof(err)) !=
		    GPA_STATUS_OK)
			fail_msg("%s", err);
		assert_int_equal(logged, 0);
		assert_int_equal(cat.nunavailable, 0);
		for (size_t a = 0; a < cat.ncounters; a++)
			for (size_t b = a + 1; b < cat.ncounters; b++)
				if (strcasecmp(cat.counters[a].name, cat.counters[b].name) == 0)
					fail_msg("%s: counter name %s twice", set->file, cat.counters[a].name);
		for (size_t a = 0; a < cat.ncounters; a++) {
			const struct og_counter *c = &cat.counters[a];
			assert_true(c->type == GPA_TYPE_FLOAT32 || c->type == GPA_TYPE_FLOAT64 ||
			            c->type == GPA_TYPE_UINT32 || c->type == GPA_TYPE_UINT64);
			assert_true(c->gpa_desc[0] == '#');
		}
		printf("%s: %zu entries, %zu counters, %zu raw counters, %zu constants\n", set->file,
		       entries, cat.ncounters, cat.nraw, cat.nconst);
		og_catalog_free(&cat); /* frees the file too */
	}
}

struct broken {
	const char *text;
	const char *error; /* what the message must contain, after "t.counters:" */
};

static const struct broken broken[] = {
	{ "counter A\n    group: G\n    usage: items\n    type: float64\n    expression: 1\n",
	  "1: counter A has no 'description:'" },
	{ "counter A\n    usage: items\n    type: float64\n    description: D\n    expression: 1\n",
	  "1: counter A has no 'group:'" },
	{ "raw R\n    description: D\n", "1: raw R has no 'source:'" },
	{ "constant K\n    value: 3\n", "1: constant K has no 'description:'" },
	{ "\n\nraw R\n    source: s\n    description: D\n    colour: red\n",
	  "6: unknown key 'colour' in raw R" },
	{ "raw R\n    colour: red\n", "2: unknown key 'colour' in raw R" },
	{ "raw R\n    Source code\n", "2: expected 'key: value' in raw R" },
	{ "raw R\n    source: s\n    description: D\n    expression: 1\n",
	  "4: 'expression' is not a field of a raw entry" },
	{ "raw R\n    source: s\n    description: D\n    usage: widgets\n", "1: R: unknown usage" },
	{ "counter A\n    group: G\n    usage: items\n    type: int128\n    description: D\n"
	  "    expression: 1\n",
	  "1: A: unknown type" },
	{ "raw R\n    source: s\n    source: t\n    description: D\n", "3: raw R has 'source' twice" },
	{ "raw 9R\n    source: s\n    description: D\n", "1: '9R' is not a valid name" },
	{ "raw R-2\n    source: s\n    description: D\n", "1: 'R-2' is not a valid name" },
	{ "raw\n    source: s\n    description: D\n", "1: '' is not a valid name" },
	{ "# comment\n    source: s\n", "2: indented line outside an entry" },
	{ "raw R\n    source: s\n    description: D\nbackend perf\n",
	  "4: 'backend' must come once" },
	{ "backend perf\nbackend mali\n", "2: 'backend' must come once" },
	{ "metric M\n", "1: unknown keyword 'metric'" },
	{ "constant K\n    description: D\n    value: lots\n", "1: K: value 'lots' is not a number" },
	{ "constant K\n    description: D\n    value: 1e999\n", "1: K: value '1e999' is not a number" },
	{ "counter A\n    group: G\n    usage: items\n    type: float64\n    description: D\n"
	  "    expression: 1\n    alias: B 9C\n",
	  "1: A: alias '9C' is not a valid name" },
	{ "counter A\n    group: G\n    usage: items\n    type: float64\n    description: D\n"
	  "    expression: 1\n    alias: B a\n",
	  "1: A: alias 'a' is the counter's own name" },
	{ "counter A\n    group: G\n    usage: items\n    type: float64\n    description: D\n"
	  "    expression: 1\n    alias: B C\n        b\n",
	  "1: A: alias 'b' twice" },
	{ "counter A\n    group: G\n    usage: items\n    type: float64\n    description: D\n"
	  "    expression: 1\n    alias: B-C\n",
	  "1: A: alias 'B-C' is not a valid name" },
	{ "counter A\n    group: G\n    usage: items\n    type: float64\n    description: D\n"
	  "    expression: 1\n    headline: maybe\n",
	  "1: A: headline 'maybe' is neither yes nor no" },
	{ "raw R\n    source: s\n    description: D\n    headline: yes\n",
	  "4: 'headline' is not a field of a raw entry" },
	{ "raw R\n    source: s\n    description: D\n    alias: S\n",
	  "4: 'alias' is not a field of a raw entry" },
};

static void test_broken_texts(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(broken) / sizeof(broken[0]); i++) {
		struct og_cf_file file;
		char err[512];
		if (og_cf_parse("t.counters", broken[i].text, &file, err, sizeof(err))) {
			og_cf_free(&file);
			fail_msg("case %zu parsed; expected '%s'", i, broken[i].error);
		}
		char want[300];
		snprintf(want, sizeof(want), "t.counters:%s", broken[i].error);
		if (strncmp(err, want, strlen(want)) != 0)
			fail_msg("case %zu: got '%s', expected '%s'", i, err, want);
	}
}

static void test_good_text(void **state)
{
	(void)state;
	static const char text[] =
		"# comment\n"
		"backend perf   # trailing comment\n"
		"\n"
		"constant K\n"
		"    description: A constant\n"
		"        that wraps.\n"
		"    value: 2.5\n"
		"raw R\n"
		"    source: sw:page-faults\n"
		"    description: D\n"
		"counter A\n"
		"    group: G\n"
		"    usage: percentage\n"
		"    type: float32\n"
		"    description: D#1 stays (no blank before '#')\n"
		"    expression: R * K\n"
		"    alias: A2\tAlso\n";
	struct og_cf_file file;
	char err[256];
	if (!og_cf_parse("t.counters", text, &file, err, sizeof(err)))
		fail_msg("%s", err);
	assert_string_equal(file.backend, "perf");
	assert_int_equal(file.count, 3);
	assert_string_equal(file.entries[0].field[OG_F_DESCRIPTION], "A constant that wraps.");
	assert_true(file.entries[0].value == 2.5);
	assert_int_equal(file.entries[1].usage, GPA_USAGE_TYPE_ITEMS);
	assert_int_equal(file.entries[1].type, GPA_TYPE_UINT64);
	assert_int_equal(file.entries[2].line, 11);
	assert_int_equal(file.entries[2].usage, GPA_USAGE_TYPE_PERCENTAGE);
	assert_int_equal(file.entries[2].type, GPA_TYPE_FLOAT32);
	assert_string_equal(file.entries[2].field[OG_F_DESCRIPTION], "D#1 stays (no blank before '#')");
	assert_string_equal(file.entries[2].field[OG_F_ALIAS], "A2\tAlso");
	og_cf_free(&file);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_embedded_sets),
		cmocka_unit_test(test_broken_texts),
		cmocka_unit_test(test_good_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
