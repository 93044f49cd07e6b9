/* SPDX-License-Identifier: MIT */
/*
 * fuzz_expr.c — the expression compiler and evaluator on their own.
 *
 * Input: up to 32 lines, each an expression E0, E1, ...; a line may name raw
 * counters r0..r7, constants k0..k3 and any earlier line (e0, e1, ...),
 * so counters that name counters, repeatedly and along several paths,
 * reach the compiler's sharing.  Each compiled expression is evaluated on
 * hostile values, described, and walked (postfix, raw inputs).
 * Oracles: the described code fits its own length report, every raw input
 * is one of r0..r7, an expression that is one raw counter says which, and
 * a result is finite.
 */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "expr/expr.h"
#include "fuzz.h"

#define LINES 32

struct world {
	struct og_expr *e[LINES];
	size_t n;
};

static bool resolve(void *ud, const char *name, size_t len, struct og_expr_ref *out)
{
	struct world *w = ud;
	if (len < 2 || len > 3)
		return false;
	unsigned i = 0;
	for (size_t k = 1; k < len; k++) {
		if (name[k] < '0' || name[k] > '9')
			return false;
		i = i * 10 + (unsigned)(name[k] - '0');
	}
	if (name[0] == 'r' && i < 8)
		*out = (struct og_expr_ref){ .kind = OG_REF_RAW, .index = i };
	else if (name[0] == 'k' && i < 4)
		*out = (struct og_expr_ref){ .kind = OG_REF_CONSTANT, .index = i };
	else if (name[0] == 'e' && i < w->n && w->e[i])
		*out = (struct og_expr_ref){ .kind = OG_REF_EXPR, .expr = w->e[i] };
	else
		return false;
	return true;
}

static void check_raw(void *ud, uint32_t index)
{
	(void)ud;
	FUZZ_CHECK(index < 8);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 16384)
		return 0;
	char *text = fuzz_text(data, size, size);
	static const uint64_t raws[3][8] = {
		{ 0, 0, 0, 0, 0, 0, 0, 0 },
		{ 1, 2, 3, 1000, (1ull << 53) + 1, UINT64_MAX, 7, 12 },
		{ 5, 0, UINT64_MAX, 1, 0, 3, 1ull << 63, 9 },
	};
	static const double constants[3][4] = {
		{ 0, 0, 0, 0 }, { 0.5, -0.0, 1e308, -3 }, { 2.5, 1e-300, -1e308, 0.1 },
	};
	struct world w = { .n = 0 };
	char *save = NULL;
	for (char *line = strtok_r(text, "\n", &save); line && w.n < LINES;
	     line = strtok_r(NULL, "\n", &save)) {
		char err[256];
		struct og_expr *e = og_expr_compile(line, resolve, &w, err, sizeof(err));
		w.e[w.n++] = e;
		if (!e) {
			fuzz_check_printable(err);
			continue;
		}
		for (int v = 0; v < 3; v++)
			FUZZ_CHECK(isfinite(og_expr_eval(e, raws[v], constants[v])));
		char code[512];
		size_t need = og_expr_describe(e, code, sizeof(code));
		FUZZ_CHECK(need < sizeof(code) ? strlen(code) == need : strlen(code) == sizeof(code) - 1);
		const struct og_expr_op *ops;
		size_t nops = og_expr_postfix(e, &ops);
		FUZZ_CHECK(nops >= 1 && nops <= OG_EXPR_MAX_OPS);
		og_expr_for_each_raw(e, check_raw, NULL);
		uint32_t index;
		if (og_expr_single_raw(e, &index))
			FUZZ_CHECK(nops == 1 && ops[0].code == OG_OP_RAW && index == ops[0].index);
	}
	for (size_t i = 0; i < w.n; i++)
		og_expr_free(w.e[i]);
	free(text);
	return 0;
}
