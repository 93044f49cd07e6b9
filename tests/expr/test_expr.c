/* SPDX-License-Identifier: MIT */
/* test_expr.c — the expression engine: grammar, errors, arithmetic policy, the
 * code each instruction comes from, and a property test of the compiled code
 * against a direct evaluation of random expression trees. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
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
	/* Two or more arguments (Arm's Mali equations take up to nine). */
	assert_true(eval("max(b, a, c)") == 12);
	assert_true(eval("max(c, b, a)") == 12);
	assert_true(eval("min(a, c, b)") == 2);
	assert_true(eval("max(b, c, a * 2, 1)") == 24);
	assert_true(eval("min(a, b, c, a, b, c, a, b, c) + max(-a, -b, -c)") == 0);
	assert_true(eval("max(min(a, b, c), c - 1, 0)") == 2);
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
	expect_error("max(1, 2,)", "column 10:");
	expect_error("max(1, 2, 3", "column 12: expected ')'");
	expect_error("max(1, 2 3)", "column 10: expected ')'");
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

/* ---- Compiled code: every instruction, the epilogue and folding ---- */

struct code_case {
	const char *text;
	const char *code; /* og_expr_describe() */
	double value;     /* with a = 12, b = 3, c = 2, K = 0.5 */
};

static const struct code_case code_cases[] = {
	/* The first load, and loads after a save. */
	{ "a", "LOAD RAW 0", 12 },
	{ "K", "LOAD CONSTANT 0", 0.5 },
	{ "2", "LOAD NUMBER 2", 2 },
	{ "(a*b) + (c*a)", "LOAD RAW 0; MUL RAW 1; SAVE 0; LOAD RAW 2; MUL RAW 0; ADD TEMP 0", 60 },
	{ "(a*b) + (K*a)", "LOAD RAW 0; MUL RAW 1; SAVE 0; LOAD CONSTANT 0; MUL RAW 0; ADD TEMP 0", 42 },
	{ "(a*b) + (2-a)", "LOAD RAW 0; MUL RAW 1; SAVE 0; LOAD NUMBER 2; SUB RAW 0; ADD TEMP 0", 26 },
	/* Accumulator op leaf. */
	{ "a + b", "LOAD RAW 0; ADD RAW 1", 15 },
	{ "a + K", "LOAD RAW 0; ADD CONSTANT 0", 12.5 },
	{ "a + 2", "LOAD RAW 0; ADD NUMBER 2", 14 },
	{ "a - b", "LOAD RAW 0; SUB RAW 1", 9 },
	{ "a - K", "LOAD RAW 0; SUB CONSTANT 0", 11.5 },
	{ "a - 2", "LOAD RAW 0; SUB NUMBER 2", 10 },
	{ "-(a * b)", "LOAD RAW 0; MUL RAW 1; NEG", -36 },
	{ "-(a * K)", "LOAD RAW 0; MUL CONSTANT 0; NEG", -6 },
	{ "-(a * 2)", "LOAD RAW 0; MUL NUMBER 2; NEG", -24 },
	{ "a / b", "LOAD RAW 0; DIV RAW 1", 4 },
	{ "a / K", "LOAD RAW 0; DIV CONSTANT 0", 24 },
	{ "a / 8", "LOAD RAW 0; DIV NUMBER 8", 1.5 },
	{ "min(a, b)", "LOAD RAW 0; MIN RAW 1", 3 },
	{ "min(a, K)", "LOAD RAW 0; MIN CONSTANT 0", 0.5 },
	{ "min(a, 2)", "LOAD RAW 0; MIN NUMBER 2", 2 },
	{ "max(b, a)", "LOAD RAW 1; MAX RAW 0", 12 },
	{ "max(a, K)", "LOAD RAW 0; MAX CONSTANT 0", 12 },
	{ "max(a, 20)", "LOAD RAW 0; MAX NUMBER 20", 20 },
	/* More than two arguments fold from the left: max(max(b, a), c). */
	{ "max(b, a, c)", "LOAD RAW 1; MAX RAW 0; MAX RAW 2", 12 },
	{ "min(a, b, c, K)", "LOAD RAW 0; MIN RAW 1; MIN RAW 2; MIN CONSTANT 0", 0.5 },
	{ "max(a*b, c, b*c)", "LOAD RAW 0; MUL RAW 1; MAX RAW 2; SAVE 0; LOAD RAW 1; MUL RAW 2; "
	  "RMAX TEMP 0", 36 },
	{ "max(2, 3, a)", "LOAD NUMBER 3; MAX RAW 0", 12 },
	/* Leaf op accumulator: the left operand is a leaf, the right computed. */
	{ "b - a*c", "LOAD RAW 0; MUL RAW 2; RSUB RAW 1", -21 },
	{ "K - a*c", "LOAD RAW 0; MUL RAW 2; RSUB CONSTANT 0", -23.5 },
	{ "2 - a*c", "LOAD RAW 0; MUL RAW 2; RSUB NUMBER 2", -22 },
	{ "b / (a*c)", "LOAD RAW 0; MUL RAW 2; RDIV RAW 1", 3.0 / 24.0 },
	{ "K / (a*c)", "LOAD RAW 0; MUL RAW 2; RDIV CONSTANT 0", 0.5 / 24.0 },
	{ "2 / (a*c)", "LOAD RAW 0; MUL RAW 2; RDIV NUMBER 2", 2.0 / 24.0 },
	{ "min(b, a*c)", "LOAD RAW 0; MUL RAW 2; RMIN RAW 1", 3 },
	{ "min(K, a*c)", "LOAD RAW 0; MUL RAW 2; RMIN CONSTANT 0", 0.5 },
	{ "min(2, a*c)", "LOAD RAW 0; MUL RAW 2; RMIN NUMBER 2", 2 },
	{ "max(b, a*c)", "LOAD RAW 0; MUL RAW 2; RMAX RAW 1", 24 },
	{ "max(K, a*c)", "LOAD RAW 0; MUL RAW 2; RMAX CONSTANT 0", 24 },
	{ "max(30, a*c)", "LOAD RAW 0; MUL RAW 2; RMAX NUMBER 30", 30 },
	{ "c + a*b", "LOAD RAW 0; MUL RAW 1; ADD RAW 2", 38 },
	{ "c * (a+b)", "LOAD RAW 0; ADD RAW 1; MUL RAW 2", 30 },
	/* Saved operand op accumulator. */
	{ "(a*b) - (c*a)", "LOAD RAW 0; MUL RAW 1; SAVE 0; LOAD RAW 2; MUL RAW 0; RSUB TEMP 0", 12 },
	{ "(a+b) * (c+a)", "LOAD RAW 0; ADD RAW 1; SAVE 0; LOAD RAW 2; ADD RAW 0; MUL TEMP 0", 210 },
	{ "(a*b) / (c*a)", "LOAD RAW 0; MUL RAW 1; SAVE 0; LOAD RAW 2; MUL RAW 0; RDIV TEMP 0", 1.5 },
	{ "min(a*b, c*a)", "LOAD RAW 0; MUL RAW 1; SAVE 0; LOAD RAW 2; MUL RAW 0; RMIN TEMP 0", 24 },
	{ "max(a*b, c*a)", "LOAD RAW 0; MUL RAW 1; SAVE 0; LOAD RAW 2; MUL RAW 0; RMAX TEMP 0", 36 },
	{ "a + (b*c + (a*b - c*c))",
	  "LOAD RAW 1; MUL RAW 2; SAVE 1; LOAD RAW 0; MUL RAW 1; SAVE 2; LOAD RAW 2; MUL RAW 2; "
	  "RSUB TEMP 2; ADD TEMP 1; ADD RAW 0", 50 },
	{ "-a", "LOAD RAW 0; NEG", -12 },
	{ "-(a + b)", "LOAD RAW 0; ADD RAW 1; NEG", -15 },
	/* An inlined counter (E = a + b) is code like any other. */
	{ "c - E", "LOAD RAW 0; ADD RAW 1; RSUB RAW 2", -13 },
	/* Epilogue: a final "* number", then min and max with numbers. */
	{ "max(min(a / b * 100, 100), 0)", "LOAD RAW 0; DIV RAW 1 | * 100 MIN 100 MAX 0", 100 },
	{ "max(min((b / a) * 100, 100), 0)", "LOAD RAW 1; DIV RAW 0 | * 100 MIN 100 MAX 0", 25 },
	{ "max(min(c - a, 100), 0)", "LOAD RAW 2; SUB RAW 0 | * 1 MIN 100 MAX 0", 0 },
	{ "a * 1024", "LOAD RAW 0 | * 1024 MIN inf MAX -inf", 12288 },
	{ "max(min(a, 100), 0) * 2", "LOAD RAW 0; MIN NUMBER 100; MAX NUMBER 0 | * 2 MIN inf MAX -inf", 24 },
	{ "min(max(a, 0), 5)", "LOAD RAW 0; MAX NUMBER 0; MIN NUMBER 5", 5 },
	{ "max(a, 0) * K", "LOAD RAW 0; MAX NUMBER 0; MUL CONSTANT 0", 6 },
	/* Folding: operations on numbers only are done once, at compile time. */
	{ "2 * 3 + a", "LOAD NUMBER 6; ADD RAW 0", 18 },
	{ "a + 2 * 3", "LOAD RAW 0; ADD NUMBER 6", 18 },
	{ "a * (2 * 3)", "LOAD RAW 0 | * 6 MIN inf MAX -inf", 72 },
	{ "-(1 - 3) * a", "LOAD NUMBER 2; MUL RAW 0", 24 },
	{ "max(min(1 / 0, 5), -1)", "LOAD NUMBER 0", 0 },
	{ "1e308 * 10 + a", "LOAD NUMBER inf; ADD RAW 0", 0 },
};

static void test_code(void **state)
{
	(void)state;
	char err[64];
	sum_ab = og_expr_compile("a + b", resolve, NULL, err, sizeof(err));
	assert_non_null(sum_ab);
	for (size_t i = 0; i < sizeof(code_cases) / sizeof(code_cases[0]); i++) {
		const struct code_case *c = &code_cases[i];
		struct og_expr *e = og_expr_compile(c->text, resolve, NULL, err, sizeof(err));
		if (!e)
			fail_msg("'%s' does not compile: %s", c->text, err);
		char code[256];
		size_t n = og_expr_describe(e, code, sizeof(code));
		double v = og_expr_eval(e, raw, constants);
		og_expr_free(e);
		assert_int_equal(n, strlen(code));
		if (strcmp(code, c->code) != 0)
			fail_msg("'%s' compiles to '%s', expected '%s'", c->text, code, c->code);
		if (v != c->value)
			fail_msg("'%s' = %.17g, expected %.17g", c->text, v, c->value);
	}
	og_expr_free(sum_ab);
	sum_ab = NULL;

	/* A short buffer is truncated but the length needed is returned. */
	struct og_expr *e = og_expr_compile("a / b", resolve, NULL, err, sizeof(err));
	char tiny[5];
	assert_int_equal(og_expr_describe(e, tiny, sizeof(tiny)), strlen("LOAD RAW 0; DIV RAW 1"));
	assert_string_equal(tiny, "LOAD");
	assert_int_equal(og_expr_describe(e, NULL, 0), strlen("LOAD RAW 0; DIV RAW 1"));
	og_expr_free(e);
}

/* ---- Counters that name counters ---- */

/* Counters C0, C1, ... (compiled in order), over raw counters a, b. */
struct chain {
	struct og_expr *c[256];
	size_t n;
};

static bool resolve_chain(void *ud, const char *name, size_t len, struct og_expr_ref *out)
{
	struct chain *ch = ud;
	if (len == 1 && (name[0] == 'a' || name[0] == 'b')) {
		*out = (struct og_expr_ref){ .kind = OG_REF_RAW, .index = (uint32_t)(name[0] - 'a') };
		return true;
	}
	char digits[8];
	if (len < 2 || len > 6 || name[0] != 'C')
		return false;
	snprintf(digits, sizeof digits, "%.*s", (int)len - 1, name + 1);
	size_t k = strtoul(digits, NULL, 10);
	if (k >= ch->n)
		return false;
	*out = (struct og_expr_ref){ .kind = OG_REF_EXPR, .expr = ch->c[k] };
	return true;
}

static void chain_add(struct chain *ch, const char *text)
{
	char err[160];
	assert_true(ch->n < sizeof ch->c / sizeof ch->c[0]);
	ch->c[ch->n] = og_expr_compile(text, resolve_chain, ch, err, sizeof err);
	if (!ch->c[ch->n])
		fail_msg("C%zu = %s does not compile: %s", ch->n, text, err);
	ch->n++;
}

static void chain_free(struct chain *ch)
{
	for (size_t i = 0; i < ch->n; i++)
		og_expr_free(ch->c[i]);
	ch->n = 0;
}

static size_t ops_of(const struct og_expr *e)
{
	const struct og_expr_op *ops;
	return og_expr_postfix(e, &ops);
}

static void test_shared_counters(void **state)
{
	(void)state;
	static struct chain ch;
	const uint64_t r[2] = { 3, 5 };
	char text[64], code[256];

	/* A counter named twice is computed once: its value is kept. */
	chain_add(&ch, "a + b");
	chain_add(&ch, "C0 * C0");
	og_expr_describe(ch.c[1], code, sizeof code);
	assert_string_equal(code, "LOAD RAW 0; ADD RAW 1; KEEP 0; MUL SHARED 0");
	assert_true(og_expr_eval(ch.c[1], r, NULL) == 64);
	/* Named once, it is inlined as before (and keeps nothing). */
	chain_add(&ch, "C0 / 2");
	og_expr_describe(ch.c[2], code, sizeof code);
	assert_string_equal(code, "LOAD RAW 0; ADD RAW 1; DIV NUMBER 2");
	chain_free(&ch);

	/* Doubling: C(k+1) = Ck + Ck for 40 levels used to copy 2^40 times the
	 * first counter's code; now each level adds a keep and an add. */
	chain_add(&ch, "a + b");
	for (int k = 0; k < 40; k++) {
		snprintf(text, sizeof text, "C%d + C%d", k, k);
		chain_add(&ch, text);
		assert_true(ops_of(ch.c[k + 1]) <= 3 + 3 * (size_t)(k + 1));
	}
	assert_true(og_expr_eval(ch.c[40], r, NULL) == 8.0 * 1099511627776.0); /* 8 * 2^40 */
	chain_free(&ch);

	/* Fibonacci: each counter names the two before it, so a counter's code
	 * holds every earlier one once (no copy per path). */
	chain_add(&ch, "a");
	chain_add(&ch, "b");
	double fib[100] = { 3, 5 };
	for (int k = 2; k < 100; k++) {
		snprintf(text, sizeof text, "C%d + C%d", k - 1, k - 2);
		chain_add(&ch, text);
		fib[k] = fib[k - 1] + fib[k - 2];
		assert_true(ops_of(ch.c[k]) <= 4 * (size_t)k);
		assert_true(og_expr_eval(ch.c[k], r, NULL) == fib[k]);
	}
	chain_free(&ch);

	/* A diamond through other counters: A's code appears once in D. */
	chain_add(&ch, "a - b");  /* A */
	chain_add(&ch, "C0 * 2"); /* B */
	chain_add(&ch, "C0 * 3"); /* C */
	chain_add(&ch, "C1 + C2 + C0");
	const struct og_expr_op *ops;
	size_t n = og_expr_postfix(ch.c[3], &ops), raws = 0;
	for (size_t i = 0; i < n; i++)
		raws += ops[i].code == OG_OP_RAW;
	assert_int_equal(raws, 2);
	assert_true(og_expr_eval(ch.c[3], r, NULL) == -2.0 * 2 + -2.0 * 3 - 2.0);
	chain_free(&ch);
}

/* Limits that keep one expression's code bounded, with messages that say so. */
static void test_expression_limits(void **state)
{
	(void)state;
	size_t terms = OG_EXPR_MAX_OPS / 2 + 8, len = 4 * terms + 1;
	char *text = malloc(len), err[200];
	assert_non_null(text);
	size_t at = 0;
	for (size_t i = 0; i < terms; i++)
		at += (size_t)snprintf(text + at, len - at, "%sa", i ? " + " : "");
	struct og_expr *e = og_expr_compile(text, resolve, NULL, err, sizeof err);
	assert_null(e);
	assert_non_null(strstr(err, "compiles to more than 16384 operations"));
	free(text);

	/* More counters used more than once than there are slots for them. */
	static struct chain ch;
	char sum[8192];
	at = 0;
	for (size_t k = 0; k <= OG_EXPR_MAX_SHARED; k++) {
		chain_add(&ch, "a + b"); /* each a counter of its own */
		at += (size_t)snprintf(sum + at, sizeof sum - at, "%sC%zu * C%zu", k ? " + " : "", k, k);
	}
	e = og_expr_compile(sum, resolve_chain, &ch, err, sizeof err);
	assert_null(e);
	assert_non_null(strstr(err, "uses more than 192 counters more than once"));
	/* One fewer fits. */
	*strrchr(sum, '+') = '\0';
	e = og_expr_compile(sum, resolve_chain, &ch, err, sizeof err);
	if (!e)
		fail_msg("%s", err);
	const uint64_t r[2] = { 1, 2 };
	assert_true(og_expr_eval(e, r, NULL) == 9.0 * OG_EXPR_MAX_SHARED);
	og_expr_free(e);
	chain_free(&ch);
}

/* ---- Property test: compiled code against a direct evaluation of the tree ---- */

enum node_kind { N_RAW, N_CONSTANT, N_NUMBER, N_REF, N_NEG, N_ADD, N_SUB, N_MUL, N_DIV, N_MIN, N_MAX };

struct node {
	enum node_kind kind;
	unsigned index;
	double number;
	const struct node *l, *r;
};

#define NRAW 6
#define NCONST 4
#define NREF 6
#define POOL 4096

struct world {
	uint64_t rng;
	struct node pool[POOL];
	size_t used;
	const struct node *ref_tree[NREF];
	struct og_expr *ref_expr[NREF];
	bool allow_refs;
	unsigned ref_limit; /* references name e0 .. e(ref_limit - 1) */
};

static uint64_t next(struct world *w)
{
	w->rng ^= w->rng << 13;
	w->rng ^= w->rng >> 7;
	w->rng ^= w->rng << 17;
	return w->rng;
}

static unsigned pick(struct world *w, unsigned n)
{
	return (unsigned)(next(w) % n);
}

/* Numbers a file may write (no sign: '-' is an operator). */
static const double numbers[] = { 0, 1, 2, 3, 8, 100, 0.25, 0.1, 1024, 1e308, 1e-300 };

static const struct node *tree(struct world *w, int depth)
{
	struct node *n = &w->pool[w->used++];
	memset(n, 0, sizeof(*n));
	if (depth == 0 || pick(w, 4) == 0) {
		unsigned k = pick(w, w->allow_refs ? 10 : 9);
		if (k < 4) {
			n->kind = N_RAW;
			n->index = pick(w, NRAW);
		} else if (k < 6) {
			n->kind = N_CONSTANT;
			n->index = pick(w, NCONST);
		} else if (k < 9) {
			n->kind = N_NUMBER;
			n->number = numbers[pick(w, sizeof(numbers) / sizeof(numbers[0]))];
		} else {
			n->kind = N_REF;
			n->index = pick(w, w->ref_limit);
		}
		return n;
	}
	n->kind = (enum node_kind)(N_NEG + pick(w, N_MAX - N_NEG + 1));
	n->l = tree(w, depth - 1);
	if (n->kind != N_NEG)
		n->r = tree(w, depth - 1);
	return n;
}

static const struct node *number_node(struct world *w)
{
	struct node *n = &w->pool[w->used++];
	*n = (struct node){ .kind = N_NUMBER, .number = numbers[pick(w, 11)] };
	return n;
}

static const struct node *binary_node(struct world *w, enum node_kind kind, const struct node *l,
                                      const struct node *r)
{
	struct node *n = &w->pool[w->used++];
	*n = (struct node){ .kind = kind, .l = l, .r = r };
	return n;
}

/* Fully parenthesised, so the text has the tree's shape whatever the grammar's
 * precedence; names sometimes with '$'. */
static void render(struct world *w, const struct node *n, char *buf, size_t len, size_t *at)
{
	static const char *const op_text[] = { [N_ADD] = "+", [N_SUB] = "-", [N_MUL] = "*", [N_DIV] = "/" };
	const char *dollar = pick(w, 2) ? "$" : "";
	switch (n->kind) {
	case N_RAW: *at += (size_t)snprintf(buf + *at, len - *at, "%sr%u", dollar, n->index); break;
	case N_CONSTANT: *at += (size_t)snprintf(buf + *at, len - *at, "%sk%u", dollar, n->index); break;
	case N_REF: *at += (size_t)snprintf(buf + *at, len - *at, "%se%u", dollar, n->index); break;
	case N_NUMBER: *at += (size_t)snprintf(buf + *at, len - *at, "%.17g", n->number); break;
	case N_NEG:
		*at += (size_t)snprintf(buf + *at, len - *at, "-");
		render(w, n->l, buf, len, at);
		break;
	case N_MIN:
	case N_MAX:
		*at += (size_t)snprintf(buf + *at, len - *at, n->kind == N_MIN ? "min(" : "max(");
		render(w, n->l, buf, len, at);
		*at += (size_t)snprintf(buf + *at, len - *at, ", ");
		render(w, n->r, buf, len, at);
		*at += (size_t)snprintf(buf + *at, len - *at, ")");
		break;
	default:
		*at += (size_t)snprintf(buf + *at, len - *at, "(");
		render(w, n->l, buf, len, at);
		*at += (size_t)snprintf(buf + *at, len - *at, " %s ", op_text[n->kind]);
		render(w, n->r, buf, len, at);
		*at += (size_t)snprintf(buf + *at, len - *at, ")");
		break;
	}
	assert_true(*at < len);
}

/* The arithmetic policy, written the plainest way. */
static double reference(const struct world *w, const struct node *n, const uint64_t *r, const double *k)
{
	switch (n->kind) {
	case N_RAW: return (double)r[n->index];
	case N_CONSTANT: return k[n->index];
	case N_NUMBER: return n->number;
	case N_REF: return reference(w, w->ref_tree[n->index], r, k);
	case N_NEG: return -reference(w, n->l, r, k);
	default: break;
	}
	double x = reference(w, n->l, r, k), y = reference(w, n->r, r, k);
	switch (n->kind) {
	case N_ADD: return x + y;
	case N_SUB: return x - y;
	case N_MUL: return x * y;
	case N_DIV: return y == 0 ? 0 : x / y;
	case N_MIN: return fmin(x, y);
	default: return fmax(x, y);
	}
}

static bool resolve_world(void *ud, const char *name, size_t len, struct og_expr_ref *out)
{
	struct world *w = ud;
	if (len != 2 || name[1] < '0' || name[1] > '9')
		return false;
	uint32_t i = (uint32_t)(name[1] - '0');
	if (name[0] == 'r' && i < NRAW)
		*out = (struct og_expr_ref){ .kind = OG_REF_RAW, .index = i };
	else if (name[0] == 'k' && i < NCONST)
		*out = (struct og_expr_ref){ .kind = OG_REF_CONSTANT, .index = i };
	else if (name[0] == 'e' && i < NREF && w->ref_expr[i])
		*out = (struct og_expr_ref){ .kind = OG_REF_EXPR, .expr = w->ref_expr[i] };
	else
		return false;
	return true;
}

static const char *const instructions[] = {
	"LOAD RAW", "LOAD CONSTANT", "LOAD NUMBER", "ADD RAW", "ADD CONSTANT", "ADD NUMBER",
	"SUB RAW", "SUB CONSTANT", "SUB NUMBER", "RSUB RAW", "RSUB CONSTANT", "RSUB NUMBER",
	"MUL RAW", "MUL CONSTANT", "MUL NUMBER", "DIV RAW", "DIV CONSTANT", "DIV NUMBER",
	"RDIV RAW", "RDIV CONSTANT", "RDIV NUMBER", "MIN RAW", "MIN CONSTANT", "MIN NUMBER",
	"RMIN RAW", "RMIN CONSTANT", "RMIN NUMBER", "MAX RAW", "MAX CONSTANT", "MAX NUMBER",
	"RMAX RAW", "RMAX CONSTANT", "RMAX NUMBER", "ADD TEMP", "RSUB TEMP", "MUL TEMP",
	"RDIV TEMP", "RMIN TEMP", "RMAX TEMP", "NEG", "SAVE", "LOAD SHARED", "ADD SHARED",
	"SUB SHARED", "RSUB SHARED", "MUL SHARED", "DIV SHARED", "RDIV SHARED", "MIN SHARED",
	"RMIN SHARED", "MAX SHARED", "RMAX SHARED", "KEEP", "|",
};
#define NINSTRUCTIONS (sizeof(instructions) / sizeof(instructions[0]))

/* Marks the instructions a description uses: each is "NAME KIND operand",
 * "NEG", "SAVE n" or the epilogue "| ...". */
static void note_instructions(const char *code, bool *used)
{
	const char *p = code;
	while (*p) {
		size_t len = strcspn(p, ";|");
		if (*p == '|')
			len = 1;
		char item[64];
		snprintf(item, sizeof(item), "%.*s", (int)len, p);
		if (strcmp(item, "NEG") != 0 && strcmp(item, "|") != 0 && strchr(item, ' '))
			*strrchr(item, ' ') = '\0'; /* the operand */
		for (size_t i = 0; i < NINSTRUCTIONS; i++)
			if (strcmp(item, instructions[i]) == 0)
				used[i] = true;
		p += len;
		if (*p == '|')
			break;
		while (*p == ';' || *p == ' ')
			p++;
	}
	if (*p == '|')
		used[NINSTRUCTIONS - 1] = true;
}

static void test_matches_reference(void **state)
{
	(void)state;
	static struct world w;
	memset(&w, 0, sizeof(w));
	w.rng = 0x9E3779B97F4A7C15ull;
	static const uint64_t raw_values[] = { 0, 1, 3, 12, 1000, (1ull << 53) + 1, UINT64_MAX, 7 };
	static const double const_values[] = { 0.5, 0, -3, 1e300, 2.5, -0.0 };
	char text[16384], err[128], code[4096];
	bool used[NINSTRUCTIONS] = { false };

	/* Counters the expressions refer to, each naming earlier ones: inlined
	 * once per expression (shared after that), evaluated unsanitised. */
	for (int i = 0; i < NREF; i++) {
		w.allow_refs = i > 0;
		w.ref_limit = (unsigned)i;
		w.ref_tree[i] = tree(&w, 3);
		size_t at = 0;
		render(&w, w.ref_tree[i], text, sizeof(text), &at);
		w.ref_expr[i] = og_expr_compile(text, resolve_world, &w, err, sizeof(err));
		if (!w.ref_expr[i])
			fail_msg("'%s' does not compile: %s", text, err);
	}
	size_t base = w.used;
	w.allow_refs = true;
	w.ref_limit = NREF;

	for (int t = 0; t < 20000; t++) {
		w.used = base;
		const struct node *n = tree(&w, 1 + pick(&w, 6));
		/* Percentages and scaled counts, the shapes the epilogue takes. */
		unsigned shape = pick(&w, 8);
		if (shape == 0 || shape == 1)
			n = binary_node(&w, N_MUL, n, number_node(&w));
		if (shape == 1 || shape == 2)
			n = binary_node(&w, N_MAX, binary_node(&w, N_MIN, n, number_node(&w)),
			                number_node(&w));
		size_t at = 0;
		render(&w, n, text, sizeof(text), &at);
		struct og_expr *e = og_expr_compile(text, resolve_world, &w, err, sizeof(err));
		if (!e)
			fail_msg("'%s' does not compile: %s", text, err);
		og_expr_describe(e, code, sizeof(code));
		note_instructions(code, used);
		for (int v = 0; v < 3; v++) {
			uint64_t r[NRAW];
			double k[NCONST];
			for (int i = 0; i < NRAW; i++)
				r[i] = raw_values[pick(&w, 8)];
			for (int i = 0; i < NCONST; i++)
				k[i] = const_values[pick(&w, 6)];
			double want = reference(&w, n, r, k);
			if (!isfinite(want))
				want = 0;
			double got = og_expr_eval(e, r, k);
			if (got != want || isnan(got))
				fail_msg("'%s' = %.17g, the reference says %.17g\ncode: %s", text, got, want, code);
		}
		og_expr_free(e);
	}
	for (size_t i = 0; i < NINSTRUCTIONS; i++)
		if (!used[i])
			fail_msg("no random expression used instruction %s", instructions[i]);
	for (int i = 0; i < NREF; i++)
		og_expr_free(w.ref_expr[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_precedence),
		cmocka_unit_test(test_functions_numbers_names),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_policy),
		cmocka_unit_test(test_for_each_raw_and_depth),
		cmocka_unit_test(test_code),
		cmocka_unit_test(test_shared_counters),
		cmocka_unit_test(test_expression_limits),
		cmocka_unit_test(test_matches_reference),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
