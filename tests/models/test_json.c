/* SPDX-License-Identifier: MIT */
/* test_json.c — the bounded JSON reader profiles are read with (lib/models/json.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "json.h"

static bool parses(const char *text, struct og_json *v)
{
	char err[256];
	bool ok = og_json_parse(text, strlen(text), v, err, sizeof err);
	if (!ok)
		assert_true(strncmp(err, "offset ", 7) == 0);
	return ok;
}

static void test_values(void **state)
{
	(void)state;
	struct og_json v;
	assert_true(parses(" {\"a\": [1, -2.5e3, 0, true, false, null], \"b\": \"x\\ty\", "
	                   "\"c\": {}} ", &v));
	assert_int_equal(v.type, OG_JSON_OBJECT);
	assert_int_equal(v.n, 3);
	const struct og_json *a = og_json_get(&v, "a");
	assert_non_null(a);
	assert_int_equal(a->type, OG_JSON_ARRAY);
	assert_int_equal(a->n, 6);
	assert_true(a->items[1].number == -2500.0);
	assert_true(a->items[3].type == OG_JSON_BOOL && a->items[3].boolean);
	assert_true(a->items[4].type == OG_JSON_BOOL && !a->items[4].boolean);
	assert_int_equal(a->items[5].type, OG_JSON_NULL);
	assert_string_equal(og_json_get(&v, "b")->string, "x\ty");
	assert_int_equal(og_json_get(&v, "c")->n, 0);
	assert_null(og_json_get(&v, "d"));
	assert_null(og_json_get(a, "a")); /* not an object */
	og_json_free(&v);

	/* Escapes, surrogate pairs and UTF-8 as it is. */
	assert_true(parses("\"\\u00e9\\ud83d\\ude00\\/\\\"\xc3\xa9\"", &v));
	assert_string_equal(v.string, "\xc3\xa9\xf0\x9f\x98\x80/\"\xc3\xa9");
	og_json_free(&v);
	/* A number as stat --json prints a large count: exact up to 2^53. */
	assert_true(parses("9007199254740992", &v));
	assert_true(v.number == 9007199254740992.0);
	og_json_free(&v);
}

static void test_refused(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"", " ", "{", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{1:2}", "[1 2]", "01", "1.", ".5",
		"1e", "-", "+1", "0x10", "NaN", "Infinity", "1e999", "tru", "nul", "\"abc",
		"\"a\\x\"", "\"\\u12\"", "\"\\ud800\"", "\"\\ude00\"", "\"\\ud800\\u0041\"",
		"\"\\u0000\"", "\"a\nb\"", "\"\xff\"", "\"\xc0\xaf\"", "\"\xed\xa0\x80\"", "{} {}",
		"[1] x", "'a'",
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct og_json v;
		char err[256] = "";
		if (og_json_parse(bad[i], strlen(bad[i]), &v, err, sizeof err))
			fail_msg("accepted %s", bad[i]);
		assert_true(strncmp(err, "offset ", 7) == 0);
		og_json_free(&v);
	}
	/* A NUL byte inside the text is not a JSON character. */
	struct og_json v;
	char err[256];
	assert_false(og_json_parse("[1,\0 2]", 7, &v, err, sizeof err));
	og_json_free(&v);
	assert_false(og_json_parse(NULL, 0, &v, err, sizeof err));
	og_json_free(&v);
}

static void test_depth_bound(void **state)
{
	(void)state;
	char deep[2 * OG_JSON_MAX_DEPTH + 8];
	struct og_json v;
	char err[256];
	size_t n = OG_JSON_MAX_DEPTH;
	memset(deep, '[', n);
	memset(deep + n, ']', n);
	assert_true(og_json_parse(deep, 2 * n, &v, err, sizeof err));
	og_json_free(&v);
	n++;
	memset(deep, '[', n);
	memset(deep + n, ']', n);
	assert_false(og_json_parse(deep, 2 * n, &v, err, sizeof err));
	assert_non_null(strstr(err, "nested deeper"));
	og_json_free(&v);
}

/* Mutations of a valid report must parse or fail cleanly, never crash or
 * leak (the sanitizer build runs this too). */
static void test_mutations(void **state)
{
	(void)state;
	const char *base = "{\"device\": \"Mali-G71 MP8\", \"seconds_per_run\": 0.5, \"counters\": "
	                   "[{\"name\": \"GPUActiveCycles\", \"aliases\": [\"MaliGPUActiveCy\"], "
	                   "\"value\": 123456}, {\"name\": \"X\", \"value\": null}]}";
	size_t len = strlen(base);
	char *buf = malloc(len + 1);
	assert_non_null(buf);
	uint32_t seed = 12345;
	for (int round = 0; round < 20000; round++) {
		memcpy(buf, base, len + 1);
		int edits = 1 + round % 4;
		for (int e = 0; e < edits; e++) {
			seed = seed * 1103515245u + 12345u;
			size_t at = (seed >> 8) % len;
			seed = seed * 1103515245u + 12345u;
			buf[at] = "{}[]\",:\\0a-.eE \x80\xff"[(seed >> 8) % 18];
		}
		size_t cut = round % 7 == 0 ? (seed >> 4) % (len + 1) : len;
		struct og_json v;
		char err[128];
		(void)og_json_parse(buf, cut, &v, err, sizeof err);
		og_json_free(&v);
	}
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_depth_bound),
		cmocka_unit_test(test_mutations),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
