/* SPDX-License-Identifier: MIT */
/* test_catalog.c — og_catalog_build over parsed texts and a binder of our own. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "catalog/catalog.h"
#include "catalog/counterfile.h"

/* Raws whose source is "no" are not countable; "bad" is malformed. */
static GPA_Status bind(void *ud, const char *name, const char *source, uint32_t *id,
                       const char **why_not)
{
	(void)name;
	unsigned *next = ud;
	if (strcmp(source, "bad") == 0)
		return GPA_STATUS_ERROR_FAILED;
	if (strcmp(source, "no") == 0) {
		*why_not = "switched off";
		return GPA_STATUS_ERROR_NOT_FOUND;
	}
	*id = 100 + (*next)++;
	return GPA_STATUS_OK;
}

static GPA_Status constant(void *ud, const char *name, double *value)
{
	(void)ud;
	if (strcmp(name, "Known") != 0)
		return GPA_STATUS_ERROR_NOT_FOUND;
	*value = 4;
	return GPA_STATUS_OK;
}

static char logbuf[8][256];
static unsigned nlog;

__attribute__((format(printf, 3, 4))) static void log_fn(void *ud, bool error, const char *fmt, ...)
{
	(void)ud;
	(void)error;
	va_list ap;
	va_start(ap, fmt);
	if (nlog < 8)
		vsnprintf(logbuf[nlog], sizeof(logbuf[0]), fmt, ap);
	nlog++;
	va_end(ap);
}

/* Builds from texts[0..n); the first nbuiltin are built-in sets. */
static GPA_Status build(struct og_catalog *cat, const char *const *texts, size_t n, size_t nbuiltin,
                        bool hw, char *err, size_t errlen)
{
	struct og_cf_file *files = calloc(n, sizeof(*files));
	assert_non_null(files);
	for (size_t i = 0; i < n; i++) {
		char origin[32], perr[256];
		snprintf(origin, sizeof(origin), "f%zu.counters", i);
		if (!og_cf_parse(origin, texts[i], &files[i], perr, sizeof(perr)))
			fail_msg("%s", perr);
	}
	static unsigned next;
	next = 0;
	nlog = 0;
	const struct og_binder binder = {
		.ud = &next, .backend = "test", .bind_raw = bind, .constant = constant, .log = log_fn,
	};
	return og_catalog_build(cat, files, n, nbuiltin, &binder, NULL, 0, hw, err, errlen);
}

#define COUNTER(name, type, expr) \
	"counter " name "\n    group: G\n    usage: items\n    type: " type "\n" \
	"    description: D " name "\n    expression: " expr "\n"
#define RAW(name, source) "raw " name "\n    source: " source "\n    description: raw " name "\n"

static bool unavailable(const struct og_catalog *cat, const char *name, const char *reason)
{
	for (size_t i = 0; i < cat->nunavailable; i++)
		if (strcmp(cat->unavailable[i].name, name) == 0)
			return strstr(cat->unavailable[i].reason, reason) != NULL;
	return false;
}

static void test_duplicates(void **state)
{
	(void)state;
	struct og_catalog cat;
	char err[256];
	const char *same_file[] = { RAW("Cycles", "a") COUNTER("cycles", "uint64", "Cycles") };
	assert_int_equal(build(&cat, same_file, 1, 1, false, err, sizeof(err)),
	                 GPA_STATUS_ERROR_FAILED);
	assert_non_null(strstr(err, "f0.counters:4: the name cycles is already defined"));

	const char *two_files[] = { RAW("R", "a") COUNTER("Busy", "uint64", "R"),
	                            COUNTER("BUSY", "float64", "R * 2") };
	assert_int_equal(build(&cat, two_files, 2, 1, false, err, sizeof(err)),
	                 GPA_STATUS_ERROR_FAILED);
	assert_non_null(strstr(err, "f1.counters:1: the name BUSY is already defined"));

	const char *constant_clash[] = { RAW("R", "a") "constant r\n    description: x\n    value: 1\n" };
	assert_int_equal(build(&cat, constant_clash, 1, 1, false, err, sizeof(err)),
	                 GPA_STATUS_ERROR_FAILED);
	assert_non_null(strstr(err, "already defined"));
}

/* A constant's value is a whole number: trailing junk, an empty value and
 * values out of range are refused with the file and line, never read as
 * the number they start with. */
static void test_value_trailing_junk(void **state)
{
	(void)state;
	static const char *const bad[] = { "3.5abc", "3.5 abc", "3.5.1", "1e", "0x", "-", "1,5",
		                           "nan", "inf", "1e999", "abc" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char text[160], err[256] = "";
		snprintf(text, sizeof text, "# a comment\nconstant K\n    description: k\n"
		                            "    value: %s\n", bad[i]);
		struct og_cf_file f;
		memset(&f, 0, sizeof f);
		bool ok = og_cf_parse("j.counters", text, &f, err, sizeof err);
		og_cf_free(&f);
		if (ok)
			fail_msg("value '%s' was accepted", bad[i]);
		char want[64];
		snprintf(want, sizeof want, "value '%s' is not a number", bad[i]);
		if (!strstr(err, "j.counters:") || !strstr(err, want))
			fail_msg("value '%s': message \"%s\" lacks the file:line or \"%s\"", bad[i],
			         err, want);
	}
	/* What is a number still is, blanks after it included. */
	static const char *const good[] = { "3.5", "-2", "1e3", "0x10", "7 " };
	static const double want[] = { 3.5, -2, 1000, 16, 7 };
	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
		char text[160], err[256] = "";
		snprintf(text, sizeof text, "constant K\n    description: k\n    value: %s\n", good[i]);
		struct og_cf_file f;
		memset(&f, 0, sizeof f);
		if (!og_cf_parse("g.counters", text, &f, err, sizeof err))
			fail_msg("value '%s' refused: %s", good[i], err);
		assert_int_equal(f.count, 1);
		assert_true(f.entries[0].value == want[i]);
		og_cf_free(&f);
	}
}

/* 'backend' names the file's backend once, before every entry: after one it
 * would move entries already read to another backend, so it is refused with
 * the file and line, whatever kind of entry came first (and after a blank
 * line or a comment, which end no entry of their own). */
static void test_backend_after_entry(void **state)
{
	(void)state;
	static const char *const entries[] = {
		"constant K\n    description: k\n    value: 1\n",
		"raw R\n    source: s\n    description: r\n",
		("counter C\n    group: G\n    usage: items\n    type: uint64\n"
		 "    description: c\n    expression: 1\n"),
	};
	static const char *const between[] = { "", "\n", "# a comment\n" };
	for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++)
		for (size_t j = 0; j < sizeof between / sizeof between[0]; j++) {
			char text[256], err[256] = "", want[64];
			snprintf(text, sizeof text, "%s%sbackend perf\n", entries[i], between[j]);
			unsigned line = 1;
			for (const char *c = text; *c; c++)
				line += *c == '\n' && c[1];
			struct og_cf_file f;
			memset(&f, 0, sizeof f);
			bool ok = og_cf_parse("b.counters", text, &f, err, sizeof err);
			og_cf_free(&f);
			if (ok)
				fail_msg("'backend' after an entry was accepted:\n%s", text);
			snprintf(want, sizeof want, "b.counters:%u: 'backend' must come once", line);
			if (!strstr(err, want))
				fail_msg("message \"%s\" lacks \"%s\" for:\n%s", err, want, text);
		}
	/* Before the first entry it is the file's backend. */
	char err[256] = "";
	struct og_cf_file f;
	memset(&f, 0, sizeof f);
	if (!og_cf_parse("b.counters", "# x\nbackend perf\n\nconstant K\n    description: k\n"
	                 "    value: 1\n", &f, err, sizeof err))
		fail_msg("'backend' before the first entry refused: %s", err);
	assert_non_null(f.backend);
	assert_string_equal(f.backend, "perf");
	assert_int_equal(f.count, 1);
	og_cf_free(&f);
}

static void test_inline_and_unavailable(void **state)
{
	(void)state;
	struct og_catalog cat;
	char err[256];
	const char *texts[] = {
		RAW("A", "a") RAW("B", "b") RAW("Off", "no")
		"constant Known\n    description: from the device\n"
		"constant Unknown\n    description: from nobody\n"
		"constant Two\n    description: fixed\n    value: 2\n"
		COUNTER("Sum", "float64", "A + B")
		COUNTER("Twice", "float64", "Sum * Two + Known")
		COUNTER("UsesOff", "float64", "A + Off")
		COUNTER("UsesUsesOff", "float64", "UsesOff * 2")
		COUNTER("UsesUnknown", "float64", "A * Unknown")
		COUNTER("Plain", "uint64", "B"),
	};
	assert_int_equal(build(&cat, texts, 1, 1, false, err, sizeof(err)), GPA_STATUS_OK);
	assert_int_equal(cat.ncounters, 3);
	assert_string_equal(cat.counters[0].name, "Sum");
	assert_string_equal(cat.counters[1].name, "Twice");
	assert_string_equal(cat.counters[2].name, "Plain");
	/* Twice inlines Sum: its inputs are the raws A and B. */
	const struct og_counter *twice = &cat.counters[1];
	assert_int_equal(twice->ninputs, 2);
	uint64_t raws[3] = { 10, 5, 0 };
	double v = og_expr_eval(twice->expr, raws, cat.const_values);
	assert_true(v == 34.0);
	assert_false(twice->exact_raw);
	assert_true(cat.counters[2].exact_raw);
	assert_int_equal(cat.counters[2].raw, 1);
	assert_int_equal(cat.raws[1].backend_id, 101);
	/* Unavailable, each with its reason. */
	assert_true(unavailable(&cat, "Off", "switched off"));
	assert_true(unavailable(&cat, "UsesOff", "raw counter Off is not countable here (switched off)"));
	assert_true(unavailable(&cat, "UsesUsesOff", "counter UsesOff is not available"));
	assert_true(unavailable(&cat, "UsesUnknown", "constant Unknown"));
	assert_false(og_catalog_find(&cat, "UsesOff", &(uint32_t){ 0 }));
	uint32_t index = 99;
	assert_true(og_catalog_find(&cat, "PLAIN", &index));
	assert_int_equal(index, 2);
	og_catalog_free(&cat);
}

#define ALIASED(name, alias, expr) \
	"counter " name "\n    alias: " alias "\n    group: G\n    usage: items\n    type: uint64\n" \
	"    description: D " name "\n    expression: " expr "\n"

static void test_aliases(void **state)
{
	(void)state;
	struct og_catalog cat;
	char err[256];
	/* Found by name or any alias, ignoring case; usable in expressions. */
	const char *texts[] = { RAW("R", "a") ALIASED("GPUActiveCycles", "MaliGPUActiveCy", "R")
	                        ALIASED("Twice", "T2  Double", "MaliGPUActiveCy * 2") };
	assert_int_equal(build(&cat, texts, 1, 1, false, err, sizeof(err)), GPA_STATUS_OK);
	uint32_t index = 99;
	assert_true(og_catalog_find(&cat, "maligpuactivecy", &index));
	assert_int_equal(index, 0);
	assert_string_equal(cat.counters[index].name, "GPUActiveCycles");
	assert_string_equal(cat.counters[index].alias, "MaliGPUActiveCy");
	assert_true(og_catalog_find(&cat, "DOUBLE", &index));
	assert_int_equal(index, 1);
	assert_true(og_catalog_find(&cat, "t2", &index));
	assert_int_equal(index, 1);
	assert_false(og_catalog_find(&cat, "T", &index));
	assert_false(og_catalog_find(&cat, "Double ", &index));
	assert_string_equal(cat.counters[1].alias, "T2  Double");
	uint64_t raws[1] = { 21 };
	assert_true(og_expr_eval(cat.counters[1].expr, raws, cat.const_values) == 42);
	og_catalog_free(&cat);

	/* In a user's file an alias is a name like any other. */
	const char *user[] = { texts[0], COUNTER("User", "float64", "maligpuactivecy + double") };
	assert_int_equal(build(&cat, user, 2, 1, false, err, sizeof(err)), GPA_STATUS_OK);
	assert_int_equal(cat.ncounters, 3);
	assert_true(og_expr_eval(cat.counters[2].expr, raws, cat.const_values) == 63);
	og_catalog_free(&cat);

	/* Unique ignoring case against every name and alias, in either order. */
	const char *alias_is_raw[] = { RAW("R", "a") ALIASED("C", "r", "R") };
	assert_int_equal(build(&cat, alias_is_raw, 1, 1, false, err, sizeof(err)),
	                 GPA_STATUS_ERROR_FAILED);
	assert_non_null(strstr(err, "f0.counters:4: alias r of counter C is already a name"));
	const char *alias_then_name[] = { RAW("R", "a") ALIASED("C", "Busy", "R"),
	                                  COUNTER("BUSY", "float64", "R") };
	assert_int_equal(build(&cat, alias_then_name, 2, 1, false, err, sizeof(err)),
	                 GPA_STATUS_ERROR_FAILED);
	assert_non_null(strstr(err, "f1.counters:1: the name BUSY is already an alias of counter C"));
	const char *two_aliases[] = { RAW("R", "a") ALIASED("C", "X", "R") ALIASED("D", "x", "R") };
	assert_int_equal(build(&cat, two_aliases, 1, 1, false, err, sizeof(err)),
	                 GPA_STATUS_ERROR_FAILED);
	assert_non_null(strstr(err, "alias x of counter D is already a name"));
	const char *alias_is_constant[] = { "constant K\n    description: k\n    value: 1\n"
	                                    RAW("R", "a") ALIASED("C", "k", "R") };
	assert_int_equal(build(&cat, alias_is_constant, 1, 1, false, err, sizeof(err)),
	                 GPA_STATUS_ERROR_FAILED);
	assert_non_null(strstr(err, "alias k of counter C is already a name"));
}

static void test_hardware_counters(void **state)
{
	(void)state;
	struct og_catalog cat;
	char err[256];
	const char *texts[] = { RAW("A", "a") RAW("Off", "no") RAW("B", "b")
	                        COUNTER("Ratio", "float32", "A / B") };
	assert_int_equal(build(&cat, texts, 1, 1, true, err, sizeof(err)), GPA_STATUS_OK);
	assert_int_equal(cat.ncounters, 3);
	assert_string_equal(cat.counters[0].name, "Ratio");
	assert_string_equal(cat.counters[1].name, "A");
	assert_string_equal(cat.counters[2].name, "B");
	for (size_t i = 1; i < 3; i++) {
		assert_int_equal(cat.counters[i].type, GPA_TYPE_UINT64);
		assert_true(cat.counters[i].exact_raw);
		assert_string_equal(cat.counters[i].group, "Hardware");
	}
	assert_string_equal(cat.counters[2].expression, "b");
	og_catalog_free(&cat);
}

static void test_unknown_names(void **state)
{
	(void)state;
	struct og_catalog cat;
	char err[256];
	/* Built in: an error with file, line and column. */
	const char *builtin[] = { RAW("A", "a") "\n" COUNTER("X", "float64", "A + Nope")
	                          COUNTER("Later", "float64", "A") };
	assert_int_equal(build(&cat, builtin, 1, 1, false, err, sizeof(err)), GPA_STATUS_ERROR_FAILED);
	assert_non_null(strstr(err, "f0.counters:5: counter X: expression column 5: unknown name 'Nope'"));
	/* A user's file: skipped with a message. */
	const char *user[] = { RAW("A", "a"), COUNTER("X", "float64", "A + Nope") COUNTER("Y", "uint64", "A") };
	assert_int_equal(build(&cat, user, 2, 1, false, err, sizeof(err)), GPA_STATUS_OK);
	assert_int_equal(cat.ncounters, 1);
	assert_int_equal(nlog, 1);
	assert_non_null(strstr(logbuf[0], "f1.counters:1: counter X skipped"));
	og_catalog_free(&cat);
	/* A source the backend rejects. */
	const char *bad[] = { RAW("A", "bad") };
	assert_int_equal(build(&cat, bad, 1, 1, false, err, sizeof(err)), GPA_STATUS_ERROR_FAILED);
	assert_non_null(strstr(err, "f0.counters:1: raw A"));
	/* A user file for another backend is skipped whole. */
	const char *other[] = { RAW("A", "a"), "backend mali\n" COUNTER("Z", "float64", "JM") };
	assert_int_equal(build(&cat, other, 2, 1, false, err, sizeof(err)), GPA_STATUS_OK);
	assert_int_equal(cat.ncounters, 0);
	assert_int_equal(nlog, 1);
	og_catalog_free(&cat);
}

/* A counter may name counters defined after it in its file; they are
 * compiled first, and the public order stays the file's. */
static void test_forward_references(void **state)
{
	(void)state;
	struct og_catalog cat;
	char err[256];
	const char *texts[] = { RAW("A", "a") COUNTER("X", "float64", "Later * 2 + Later")
	                        COUNTER("Later", "float64", "A + 1") COUNTER("Y", "uint64", "X") };
	assert_int_equal(build(&cat, texts, 1, 1, false, err, sizeof(err)), GPA_STATUS_OK);
	assert_int_equal(cat.ncounters, 3);
	assert_string_equal(cat.counters[0].name, "X");
	assert_string_equal(cat.counters[1].name, "Later");
	assert_string_equal(cat.counters[2].name, "Y");
	uint64_t raws[1] = { 4 };
	assert_true(og_expr_eval(cat.counters[0].expr, raws, cat.const_values) == 15);
	assert_true(og_expr_eval(cat.counters[2].expr, raws, cat.const_values) == 15);
	og_catalog_free(&cat);

	/* A user's counter that names a skipped one is skipped, and says why. */
	const char *user[] = { RAW("A", "a"), COUNTER("X", "float64", "Gone + 1")
	                                      COUNTER("Gone", "float64", "A + Nope") };
	assert_int_equal(build(&cat, user, 2, 1, false, err, sizeof(err)), GPA_STATUS_OK);
	assert_int_equal(cat.ncounters, 0);
	assert_int_equal(cat.nunavailable, 0);
	assert_int_equal(nlog, 2);
	assert_non_null(strstr(logbuf[0], "f1.counters:7: counter Gone skipped"));
	assert_non_null(strstr(logbuf[1], "f1.counters:1: counter X skipped: it names counter Gone, "
	                                  "which was skipped"));
	og_catalog_free(&cat);
}

/* A counter that names itself, or closes a cycle through others, is an
 * error that shows the cycle, in a built-in set and in a user's file. */
static void test_cycles(void **state)
{
	(void)state;
	struct og_catalog cat;
	char err[256];
	const char *self[] = { RAW("A", "a") COUNTER("Loop", "float64", "A + Loop") };
	assert_int_equal(build(&cat, self, 1, 1, false, err, sizeof(err)), GPA_STATUS_ERROR_FAILED);
	assert_non_null(strstr(err, "f0.counters:4: counter Loop depends on itself: Loop → Loop"));

	const char *three[] = { RAW("A", "a") COUNTER("P", "float64", "Q + 1")
	                        COUNTER("Q", "float64", "A * R") COUNTER("R", "float64", "max(P, A)") };
	assert_int_equal(build(&cat, three, 1, 1, false, err, sizeof(err)), GPA_STATUS_ERROR_FAILED);
	assert_non_null(strstr(err, "f0.counters:4: counter P depends on itself: P → Q → R → P"));

	/* Through an alias, in a user's file: not an unknown name, not skipped. */
	const char *user[] = { RAW("A", "a"),
	                       "counter C\n    group: G\n    usage: items\n    type: float64\n"
	                       "    description: D\n    alias: Cee\n    expression: D + 1\n"
	                       COUNTER("D", "float64", "cee * A") };
	assert_int_equal(build(&cat, user, 2, 1, false, err, sizeof(err)), GPA_STATUS_ERROR_FAILED);
	assert_non_null(strstr(err, "f1.counters:1: counter C depends on itself: C → D → C"));
	assert_int_equal(nlog, 0);
}

/* The doubling file of issue 13: 40 counters, each the previous one plus
 * itself.  Each level's code is one keep and one add more than the last. */
static void test_doubling_file(void **state)
{
	(void)state;
	struct og_catalog cat;
	char err[256], *text = calloc(1, 16384);
	assert_non_null(text);
	size_t at = (size_t)snprintf(text, 16384, RAW("C0", "a"));
	for (int k = 1; k <= 40; k++) {
		char expr[32], name[16];
		snprintf(name, sizeof name, "C%d", k);
		snprintf(expr, sizeof expr, "C%d + C%d", k - 1, k - 1);
		at += (size_t)snprintf(text + at, 16384 - at, COUNTER("%s", "float64", "%s"), name, name,
		                       expr);
	}
	assert_true(at < 4096 + 512);
	const char *texts[] = { text };
	assert_int_equal(build(&cat, texts, 1, 1, false, err, sizeof(err)), GPA_STATUS_OK);
	assert_int_equal(cat.ncounters, 40);
	const struct og_expr_op *ops;
	assert_true(og_expr_postfix(cat.counters[39].expr, &ops) <= 2 + 3 * 40);
	uint64_t raws[1] = { 3 };
	assert_true(og_expr_eval(cat.counters[39].expr, raws, cat.const_values) ==
	            3.0 * 1099511627776.0);
	og_catalog_free(&cat);
	free(text);
}

/* Every counter's code counts against one limit per context, so many
 * counters that each stay under the per-expression limit cannot add up to
 * unbounded memory; the message says which counter went over. */
static void test_total_compiled_size(void **state)
{
	(void)state;
	struct og_catalog cat;
	char err[256];
	/* Each counter: 8001 terms, about 16000 operations; 17 of them pass
	 * 2^18. */
	size_t terms = 8001, len = 4 * terms + 16;
	char *sum = malloc(len);
	assert_non_null(sum);
	size_t at = 0;
	for (size_t i = 0; i < terms; i++)
		at += (size_t)snprintf(sum + at, len - at, "%sA", i ? "+" : "");
	size_t size = 40 * (len + 128);
	char *text = malloc(size);
	assert_non_null(text);
	at = (size_t)snprintf(text, size, RAW("A", "a"));
	for (int k = 0; k < 40; k++) {
		char name[16];
		snprintf(name, sizeof name, "S%d", k);
		at += (size_t)snprintf(text + at, size - at, COUNTER("%s", "float64", "%s"), name, name,
		                       sum);
	}
	const char *texts[] = { text };
	assert_int_equal(build(&cat, texts, 1, 1, false, err, sizeof(err)), GPA_STATUS_ERROR_FAILED);
	assert_non_null(strstr(err, "counter S16: the counter files compile to more than 262144 "
	                            "operations in all"));
	free(sum);
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_duplicates),
		cmocka_unit_test(test_value_trailing_junk),
		cmocka_unit_test(test_backend_after_entry),
		cmocka_unit_test(test_inline_and_unavailable),
		cmocka_unit_test(test_aliases),
		cmocka_unit_test(test_hardware_counters),
		cmocka_unit_test(test_unknown_names),
		cmocka_unit_test(test_forward_references),
		cmocka_unit_test(test_cycles),
		cmocka_unit_test(test_doubling_file),
		cmocka_unit_test(test_total_compiled_size),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
