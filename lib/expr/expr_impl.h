/* SPDX-License-Identifier: MIT */
/* expr_impl.h — what the expression engine's three files share (lib/expr
 * only): the accumulator machine's instructions, the compiled expression's
 * layout, and the compiler's two entry points the parser calls.
 *
 *   expr_parse.c    text -> postfix (lexer, recursive-descent parser,
 *                   numbers folded, named counters inlined once each)
 *   expr_compile.c  postfix -> accumulator code (og_expr_assemble too)
 *   expr_eval.c     running the code; reading a compiled expression back
 */
#ifndef OPENGPA_EXPR_IMPL_H
#define OPENGPA_EXPR_IMPL_H

#include "expr.h"

/* ---- Accumulator machine ----
 *
 * An instruction is an operation on the accumulator and one operand: a leaf
 * (raw counter, constant or number) or a temporary the accumulator was saved
 * to.  The R operations take the accumulator as their right operand, for
 * when the left one was computed first; ADD and MUL need none, IEEE addition
 * and multiplication being commutative bit for bit.  A temporary is only
 * ever a left operand (the accumulator, computed later, is the right one),
 * so only the operations below take one. */
#define ACC_OPERATIONS(X) \
	X(LOAD) X(ADD) X(SUB) X(RSUB) X(MUL) X(DIV) X(RDIV) X(MIN) X(RMIN) X(MAX) X(RMAX)
#define LEAF_KINDS(X, op) X(op, RAW) X(op, CONSTANT) X(op, NUMBER) X(op, SHARED)
#define TEMP_OPERATIONS(X) X(ADD) X(RSUB) X(MUL) X(RDIV) X(RMIN) X(RMAX)

#define ACC_OPERATION_NAME(op) A_##op,
enum acc_operation { ACC_OPERATIONS(ACC_OPERATION_NAME) };
#define LEAF_KIND_NAME(op, kind) K_##kind,
enum leaf_kind { LEAF_KINDS(LEAF_KIND_NAME, unused) LEAF_KIND_COUNT };

#define LEAF_INSN_NAME(op, kind) I_##op##_##kind,
#define LEAF_INSN_NAMES(op) LEAF_KINDS(LEAF_INSN_NAME, op)
#define TEMP_INSN_NAME(op) I_##op##_TEMP,
enum insn_code {
	ACC_OPERATIONS(LEAF_INSN_NAMES) /* = operation * LEAF_KIND_COUNT + kind */
	TEMP_OPERATIONS(TEMP_INSN_NAME)
	I_NEG,
	I_SAVE, /* temp[index] = accumulator; a SHARE saves to OG_EXPR_MAX_DEPTH + its slot */
	INSN_CODE_COUNT
};

struct insn {
	uint8_t code;
	uint32_t index;  /* raw counter, constant or temporary */
	double number;
};

/* Percentages are max(min(E * 100, 100), 0): a final multiplication by a
 * number and clamp by numbers form the epilogue, applied after the code
 * without a dispatch (with 1, +inf and -inf for the parts absent, which
 * change no result). */
struct og_expr {
	struct og_expr_op *ops; /* postfix, in the same allocation */
	size_t nops;
	/* Every counter inlined, by start then outermost first. */
	struct og_expr_region *regions;
	size_t nregions;
	const struct og_expr **slot_of; /* shared slot -> whose value it holds */
	size_t nslots;
	size_t ncode;   /* >= 1, and code[0] is a LOAD of a raw counter, constant or number */
	bool has_epilogue;
	double scale, high, low;
	struct insn code[];
};

/* Stack depth the postfix needs; checked once so evaluation never overflows. */
size_t og_expr_program_depth(const struct og_expr_op *ops, size_t count);

/* The compiled expression in one allocation: code, postfix, regions, slots
 * (each copied); NULL without memory.  The caller has checked the limits. */
struct og_expr *og_expr_build(const struct og_expr_op *ops, size_t nops,
                              const struct og_expr_region *regions, size_t nregions,
                              const struct og_expr *const *slot_of, size_t nslots);

#endif
