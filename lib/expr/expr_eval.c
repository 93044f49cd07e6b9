/* SPDX-License-Identifier: MIT */
/* expr_eval.c — running a compiled expression on one sample's values
 * (og_expr_eval, the interpreter every counter without generated code goes
 * through), and reading a compiled expression back: its postfix, regions,
 * shared slots and code as text.
 */
#include "expr_impl.h"
#include "arith.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

size_t og_expr_regions(const struct og_expr *e, const struct og_expr_region **regions)
{
	*regions = e->regions;
	return e->nregions;
}

size_t og_expr_shared(const struct og_expr *e, const struct og_expr *const **slot_of)
{
	*slot_of = e->slot_of;
	return e->nslots;
}

void og_expr_free(struct og_expr *e)
{
	free(e);
}

#define LEAF_INSN_TEXT(op, kind) [I_##op##_##kind] = #op " " #kind,
#define LEAF_INSN_TEXTS(op) LEAF_KINDS(LEAF_INSN_TEXT, op)
#define TEMP_INSN_TEXT(op) [I_##op##_TEMP] = #op " TEMP",
static const char *const insn_text[INSN_CODE_COUNT] = {
	ACC_OPERATIONS(LEAF_INSN_TEXTS)
	TEMP_OPERATIONS(TEMP_INSN_TEXT)
	[I_NEG] = "NEG",
	[I_SAVE] = "SAVE",
};

static void append(char *buf, size_t len, size_t *n, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void append(char *buf, size_t len, size_t *n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int w = vsnprintf(*n < len ? buf + *n : NULL, *n < len ? len - *n : 0, fmt, ap);
	va_end(ap);
	*n += w > 0 ? (size_t)w : 0;
}

size_t og_expr_describe(const struct og_expr *e, char *buf, size_t len)
{
	size_t n = 0;
	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < e->ncode; i++) {
		const struct insn *in = &e->code[i];
		if (in->code == I_SAVE && in->index >= OG_EXPR_MAX_DEPTH) {
			append(buf, len, &n, "%sKEEP %" PRIu32, i ? "; " : "", in->index - OG_EXPR_MAX_DEPTH);
			continue;
		}
		append(buf, len, &n, "%s%s", i ? "; " : "", insn_text[in->code]);
		if (in->code < I_ADD_TEMP && in->code % LEAF_KIND_COUNT == K_NUMBER)
			append(buf, len, &n, " %.17g", in->number);
		else if (in->code != I_NEG)
			append(buf, len, &n, " %" PRIu32, in->index);
	}
	if (e->has_epilogue)
		append(buf, len, &n, " | * %.17g MIN %.17g MAX %.17g", e->scale, e->high, e->low);
	return n;
}

#define OPERAND_RAW ((double)raw[in->index])
#define OPERAND_CONSTANT (constants[in->index])
#define OPERAND_NUMBER (in->number)
#define OPERAND_TEMP (temp[in->index])
#define OPERAND_SHARED (temp[OG_EXPR_MAX_DEPTH + in->index])

#define APPLY_LOAD(acc, x) (x)
#define APPLY_ADD(acc, x) ((acc) + (x))
#define APPLY_SUB(acc, x) ((acc) - (x))
#define APPLY_RSUB(acc, x) ((x) - (acc))
#define APPLY_MUL(acc, x) ((acc) * (x))
#define APPLY_DIV(acc, x) og_arith_div(acc, x)
#define APPLY_RDIV(acc, x) og_arith_div(x, acc)
#define APPLY_MIN(acc, x) og_arith_min(acc, x)
#define APPLY_RMIN(acc, x) og_arith_min(x, acc)
#define APPLY_MAX(acc, x) og_arith_max(acc, x)
#define APPLY_RMAX(acc, x) og_arith_max(x, acc)

#define EVAL_CASE(op, kind) \
	case I_##op##_##kind: acc = APPLY_##op(acc, OPERAND_##kind); break;
#define EVAL_LEAF_CASES(op) LEAF_KINDS(EVAL_CASE, op)
#define EVAL_TEMP_CASE(op) EVAL_CASE(op, TEMP)

double og_expr_eval(const struct og_expr *e, const uint64_t *raw, const double *constants)
{
	/* Every temporary is saved before it is read: stack values, then the
	 * values a SHARE keeps (SAVE to OG_EXPR_MAX_DEPTH + slot). */
	double temp[OG_EXPR_MAX_DEPTH + OG_EXPR_MAX_SHARED];
	/* The first load is taken out of the loop: a conditional branch on its
	 * kind costs less than a dispatch, and counters that are one raw counter,
	 * or one times a number (40% of mali-g71's), then dispatch nothing. */
	const struct insn *in = e->code, *end = in + e->ncode;
	double acc = in->code == I_LOAD_RAW ? (double)raw[in->index]
	           : in->code == I_LOAD_CONSTANT ? constants[in->index] : in->number;
	for (in++; in < end; in++) {
		switch ((enum insn_code)in->code) {
		ACC_OPERATIONS(EVAL_LEAF_CASES)
		TEMP_OPERATIONS(EVAL_TEMP_CASE)
		case I_NEG:
			acc = -acc;
			break;
		case I_SAVE:
			temp[in->index] = acc;
			break;
		case INSN_CODE_COUNT:
			break;
		}
	}
	if (e->has_epilogue)
		acc = og_arith_max(og_arith_min(acc * e->scale, e->high), e->low);
	return og_arith_result(acc);
}

size_t og_expr_postfix(const struct og_expr *e, const struct og_expr_op **ops)
{
	*ops = e->ops;
	return e->nops;
}

bool og_expr_single_raw(const struct og_expr *e, uint32_t *index)
{
	if (e->nops != 1 || e->ops[0].code != OG_OP_RAW)
		return false;
	*index = e->ops[0].index;
	return true;
}

void og_expr_for_each_raw(const struct og_expr *e, void (*fn)(void *ud, uint32_t index), void *ud)
{
	for (size_t i = 0; i < e->nops; i++)
		if (e->ops[i].code == OG_OP_RAW)
			fn(ud, e->ops[i].index);
}
