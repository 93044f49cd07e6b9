/* test_expr.c — the expression engine: grammar, errors and arithmetic policy. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "expr/expr.h"

/* Raw counters a, b, c, big; constant K; counter E = a + b (compiled). */
static struct og_expr *sum_ab;

static bool resolve(void *ud, const char *name, size_t len, struct og_expr_ref *out)
{
	(void)ud;
	static const char *const raws[] = { "a", "b", "c", "big" };
	for (uint32_t i = 0; i < 4; i++)
		if (strlen(raws[i]) == len && strncmp(name, raws[i], len) == 0) {
			*out = (struct og_expr_ref){ .kind = OG_REF_RAW, .index = i };
			return true;
		}
	if (len == 1 && name[0] == 'K') {
		*out = (struct og_expr_ref){ .kind = OG_REF_CONSTANT, .index = 0 };
		return true;
	}
	if (len == 1 && name[0] == 'E' && sum_ab) {
		*out = (struct og_expr_ref){ .kind = OG_REF_EXPR, .expr = sum_ab };
		return true;
	}
	return false;
}

static uint64_t raw[4] = { 12, 3, 2, (1ull << 53) + 1 };
static double constants[1] = { 0.5 };

static double eval(const char *text)
{
	char err[128];
	struct og_expr *e = og_expr_compile(text, resolve, NULL, err, sizeof(err));
	if (!e)
		fail_msg("'%s' does not compile: %s", text, err);
	double v = og_expr_eval(e, raw, constants);
	og_expr_free(e);
	return v;
}

static void expect_error(const char *text, const char *want)
{
	char err[128] = "";
	struct og_expr *e = og_expr_compile(text, resolve, NULL, err, sizeof(err));
	if (e) {
		og_expr_free(e);
		fail_msg("'%s' compiled; expected '%s'", text, want);
	}
	if (strncmp(err, want, strlen(want)) != 0)
		fail_msg("'%s': got '%s', expected it to start with '%s'", text, err, want);
}

static void test_precedence(void **state)
{
	(void)state;
	assert_true(eval("a - b - c") == 7);     /* (12-3)-2 */
	assert_true(eval("a / b / c") == 2);     /* (12/3)/2 */
	assert_true(eval("a - b * c") == 6);
	assert_true(eval("-a * b") == -36);
	assert_true(eval("- - a") == 12);
	assert_true(eval("---a") == -12);
	assert_true(eval("a - -b") == 15);
	assert_true(eval("-(a - b)") == -9);
	assert_true(eval("(a - b) * c") == 18);
	assert_true(eval("a + b * c - a / b") == 14);
	assert_true(eval("((a))") == 12);
	assert_true(eval("2 * (3 + 4) * 5") == 70);
	/* Negative results are fine in a double (integer types clamp later). */
	assert_true(eval("b - a") == -9);
}

static void test_functions_numbers_names(void **state)
{
	(void)state;
	assert_true(eval("min(a, b)") == 3);
	assert_true(eval("max(a, b)") == 12);
	assert_true(eval("max(min(a, b), c) * 2") == 6);
	assert_true(eval("min ( a , -b )") == -3);
	assert_true(eval("1e6") == 1e6);
	assert_true(eval("2.5e-1") == 0.25);
	assert_true(eval(".5") == 0.5);
	assert_true(eval("5.") == 5);
	assert_true(eval("$a + b") == 15);
	assert_true(eval("$K * a") == 6);
	assert_true(eval("  a\t+\nb  ") == 15);
	/* A counter inlines its own expression. */
	char err[64];
	sum_ab = og_expr_compile("a + b", resolve, NULL, err, sizeof(err));
	assert_non_null(sum_ab);
	assert_true(eval("E * 2") == 30);
	assert_true(eval("c - E") == -13);   /* inlined as a unit: c - (a + b) */
	assert_true(eval("E / E") == 1);
	og_expr_free(sum_ab);
	sum_ab = NULL;
	/* min and max are only functions when called. */
	expect_error("min", "column 1: unknown name 'min'");
}

static void test_errors(void **state)
{
	(void)state;
	expect_error("(a + b", "column 7: expected ')'");
	expect_error("a + b)", "column 6: unbalanced ')'");
	expect_error("a b", "column 3: unexpected 'b'");
	expect_error("a + nope", "column 5: unknown name 'nope'");
	expect_error("$nope", "column 1: unknown name 'nope'");
	expect_error("$ a", "column 1: expected a name after '$'");
	expect_error("", "column 1: expression ends");
	expect_error("   ", "column 4: expression ends");
	expect_error("1 +", "column 4: expression ends");
	expect_error("max(1)", "column 6: expected ','");
	expect_error("max(1, 2", "column 9: expected ')'");
	expect_error("min(1,)", "column 7:");
	expect_error("0x10", "column 1: malformed number");
	expect_error("1e999", "column 1: malformed number");
	expect_error("inf", "column 1: unknown name 'inf'");
	expect_error("nan", "column 1: unknown name 'nan'");
	expect_error("a * ", "column 5:");
	expect_error("a ** b", "column 4:");
	expect_error("a +* b", "column 4:");
	expect_error("()", "column 2:");
	/* NULL text, NULL err buffer. */
	char err[32];
	assert_null(og_expr_compile(NULL, resolve, NULL, err, sizeof(err)));
	assert_null(og_expr_compile("a +", resolve, NULL, NULL, 0));
	/* A short buffer is truncated, not overrun. */
	char tiny[8];
	memset(tiny, 'x', sizeof(tiny));
	assert_null(og_expr_compile("nope", resolve, NULL, tiny, sizeof(tiny)));
	assert_int_equal(strlen(tiny), sizeof(tiny) - 1);
}

static void test_policy(void **state)
{
	(void)state;
	assert_true(eval("a / 0") == 0);
	assert_true(eval("0 / 0") == 0);
	assert_true(eval("a / (b - 3)") == 0);
	assert_true(eval("-a / 0") == 0);
	/* Overflow to infinity becomes 0, as does inf - inf. */
	assert_true(eval("1e308 * 10") == 0);
	assert_true(eval("1e308 * 10 - 1e308 * 10") == 0);
	assert_true(eval("max(1e308 * 10, 1)") == 0);
	double v = eval("1e300 * 1e300 / 1e300");
	assert_true(isfinite(v));

	/* A single raw counter is exact above 2^53; anything else goes through double. */
	char err[64];
	struct og_expr *e = og_expr_compile("big", resolve, NULL, err, sizeof(err));
	assert_non_null(e);
	uint32_t index = 99;
	assert_true(og_expr_single_raw(e, &index));
	assert_int_equal(index, 3);
	og_expr_free(e);
	e = og_expr_compile("$big", resolve, NULL, err, sizeof(err));
	assert_true(og_expr_single_raw(e, &index));
	og_expr_free(e);
	e = og_expr_compile("big + 0", resolve, NULL, err, sizeof(err));
	assert_false(og_expr_single_raw(e, &index));
	og_expr_free(e);
	e = og_expr_compile("(big)", resolve, NULL, err, sizeof(err));
	assert_true(og_expr_single_raw(e, &index));
	og_expr_free(e);
}

static unsigned seen[8];

static void count_raw(void *ud, uint32_t index)
{
	(void)ud;
	seen[index]++;
}

static void test_for_each_raw_and_depth(void **state)
{
	(void)state;
	char err[128];
	struct og_expr *e = og_expr_compile("a + a * b + K", resolve, NULL, err, sizeof(err));
	assert_non_null(e);
	memset(seen, 0, sizeof(seen));
	og_expr_for_each_raw(e, count_raw, NULL);
	assert_int_equal(seen[0], 2);
	assert_int_equal(seen[1], 1);
	assert_int_equal(seen[2], 0);
	og_expr_free(e);

	/* Right-nested sums need one stack slot per level: the limit is checked
	 * at compile time, so evaluation never overflows. */
	char text[2048];
	size_t n = 0;
	for (int i = 0; i < OG_EXPR_MAX_DEPTH - 1; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "a+(");
	n += (size_t)snprintf(text + n, sizeof(text) - n, "a");
	for (int i = 0; i < OG_EXPR_MAX_DEPTH - 1; i++)
		text[n++] = ')';
	text[n] = '\0';
	e = og_expr_compile(text, resolve, NULL, err, sizeof(err));
	if (!e)
		fail_msg("depth %d should compile: %s", OG_EXPR_MAX_DEPTH, err);
	assert_true(og_expr_eval(e, raw, constants) == 12.0 * OG_EXPR_MAX_DEPTH);
	og_expr_free(e);

	n = 0;
	for (int i = 0; i < OG_EXPR_MAX_DEPTH; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "a+(");
	n += (size_t)snprintf(text + n, sizeof(text) - n, "a");
	for (int i = 0; i < OG_EXPR_MAX_DEPTH; i++)
		text[n++] = ')';
	text[n] = '\0';
	e = og_expr_compile(text, resolve, NULL, err, sizeof(err));
	assert_null(e);
	assert_non_null(strstr(err, "deeper"));

	/* Deep parentheses around one operand need no stack, but must not
	 * exhaust the C stack either. */
	static char parens[200001];
	for (int i = 0; i < 100000; i++)
		parens[i] = '(';
	parens[100000] = 'a';
	for (int i = 0; i < 100000; i++)
		parens[100001 + i] = ')';
	parens[200001 - 1] = '\0';
	e = og_expr_compile(parens, resolve, NULL, err, sizeof(err));
	assert_null(e);
	assert_non_null(strstr(err, "nested deeper"));
	static char minus[100002];
	memset(minus, '-', 100000);
	minus[100000] = 'a';
	e = og_expr_compile(minus, resolve, NULL, err, sizeof(err));
	assert_null(e);
	assert_non_null(strstr(err, "nested deeper"));
	/* Reasonable nesting still compiles. */
	assert_true(eval("((((((((((a))))))))))") == 12);
	assert_true(eval("----------a") == 12);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_precedence),
		cmocka_unit_test(test_functions_numbers_names),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_policy),
		cmocka_unit_test(test_for_each_raw_and_depth),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
