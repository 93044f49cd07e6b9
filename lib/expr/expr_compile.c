/* SPDX-License-Identifier: MIT */
/* expr_compile.c — postfix to code for the accumulator machine
 * (og_expr_build, og_expr_assemble): the one step between expr_parse.c's
 * postfix and expr_eval.c's loop.
 *
 * The value being computed stays in a CPU register and each instruction
 * combines it with one operand named in the instruction, so a / b is one
 * load and one "divide by raw counter" where a stack machine had three
 * operations and stack traffic.  The first load and the percentage clamp
 * around most ratios cost no dispatch (see og_expr_eval).  Measured in
 * bench/backends/mali and bench/expr.
 */
#include "expr_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static bool is_leaf(const struct og_expr_op *op)
{
	return op->code == OG_OP_NUMBER || op->code == OG_OP_RAW || op->code == OG_OP_CONSTANT ||
	       op->code == OG_OP_SHARED;
}

/* Stack depth the program needs; checked once so evaluation never overflows. */
size_t og_expr_program_depth(const struct og_expr_op *ops, size_t count)
{
	size_t depth = 0, max = 0;
	for (size_t i = 0; i < count; i++) {
		if (is_leaf(&ops[i]))
			depth++;
		else if (ops[i].code != OG_OP_NEG && ops[i].code != OG_OP_SHARE)
			depth--;
		if (depth > max)
			max = depth;
	}
	return max;
}

/* ---- Postfix to accumulator code ----
 *
 * Walks the postfix once, keeping a compile-time stack of where each value
 * is: still a leaf nobody loaded, in the accumulator (at most one, always the
 * latest computed), or saved in the temporary named after its stack slot.
 * Loading a leaf while the accumulator holds a value lower on the stack saves
 * that value first.  Whenever an operation is reached, its right operand is a
 * leaf or the accumulator, and a saved value can only be a left operand. */

enum place { LEAF, IN_ACC, IN_TEMP };

struct slot {
	enum place place;
	struct og_expr_op leaf;
};

struct codegen {
	struct slot stack[OG_EXPR_MAX_DEPTH];
	size_t depth;
	size_t acc_slot; /* slot held in the accumulator, or SIZE_MAX */
	struct insn *code;
	size_t count;
};

static void put(struct codegen *g, enum insn_code code, uint32_t index, double number)
{
	g->code[g->count++] = (struct insn){ .code = (uint8_t)code, .index = index, .number = number };
}

static void put_with_leaf(struct codegen *g, enum acc_operation a, const struct og_expr_op *leaf)
{
	enum leaf_kind kind = leaf->code == OG_OP_RAW ? K_RAW
	                    : leaf->code == OG_OP_CONSTANT ? K_CONSTANT
	                    : leaf->code == OG_OP_SHARED ? K_SHARED : K_NUMBER;
	put(g, (enum insn_code)(a * LEAF_KIND_COUNT + kind), leaf->index, leaf->number);
}

#define TEMP_INSN_OF(op) [A_##op] = I_##op##_TEMP,
static const uint8_t temp_insn[] = { TEMP_OPERATIONS(TEMP_INSN_OF) };

/* Brings slot s (a leaf) into the accumulator. */
static void load(struct codegen *g, size_t s)
{
	if (g->acc_slot != SIZE_MAX) {
		put(g, I_SAVE, (uint32_t)g->acc_slot, 0.0);
		g->stack[g->acc_slot].place = IN_TEMP;
	}
	put_with_leaf(g, A_LOAD, &g->stack[s].leaf);
	g->stack[s].place = IN_ACC;
	g->acc_slot = s;
}

static enum acc_operation acc_operation(enum og_expr_op_code code, bool acc_is_right)
{
	switch (code) {
	case OG_OP_ADD: return A_ADD;
	case OG_OP_SUB: return acc_is_right ? A_RSUB : A_SUB;
	case OG_OP_MUL: return A_MUL;
	case OG_OP_DIV: return acc_is_right ? A_RDIV : A_DIV;
	case OG_OP_MIN: return acc_is_right ? A_RMIN : A_MIN;
	default: return acc_is_right ? A_RMAX : A_MAX;
	}
}

static void generate_binary(struct codegen *g, enum og_expr_op_code code)
{
	size_t l = g->depth - 2, r = g->depth - 1;
	struct slot *left = &g->stack[l], *right = &g->stack[r];
	if (left->place == LEAF && right->place == LEAF)
		load(g, l);
	if (left->place == IN_ACC) /* the right one is a leaf */
		put_with_leaf(g, acc_operation(code, false), &right->leaf);
	else if (left->place == LEAF)
		put_with_leaf(g, acc_operation(code, true), &left->leaf);
	else /* saved: the right one is in the accumulator */
		put(g, (enum insn_code)temp_insn[acc_operation(code, true)], (uint32_t)l, 0.0);
	left->place = IN_ACC;
	g->acc_slot = l;
	g->depth--;
}

/* code must have room for 2 * count instructions (a load and a save at most
 * per leaf).  Returns the number written. */
static size_t generate(const struct og_expr_op *ops, size_t count, struct insn *code)
{
	struct codegen g = { .acc_slot = SIZE_MAX, .code = code };
	for (size_t i = 0; i < count; i++) {
		if (is_leaf(&ops[i])) {
			g.stack[g.depth++] = (struct slot){ .place = LEAF, .leaf = ops[i] };
		} else if (ops[i].code == OG_OP_NEG) {
			if (g.stack[g.depth - 1].place == LEAF)
				load(&g, g.depth - 1);
			put(&g, I_NEG, 0, 0.0);
		} else if (ops[i].code == OG_OP_SHARE) {
			if (g.stack[g.depth - 1].place == LEAF)
				load(&g, g.depth - 1);
			put(&g, I_SAVE, OG_EXPR_MAX_DEPTH + ops[i].index, 0.0);
		} else {
			generate_binary(&g, ops[i].code);
		}
	}
	if (g.depth == 1 && g.stack[0].place == LEAF)
		load(&g, 0);
	return g.count;
}

static bool is_number_then(const struct og_expr_op *ops, size_t count, enum og_expr_op_code code)
{
	return count >= 3 && ops[count - 1].code == code && ops[count - 2].code == OG_OP_NUMBER;
}

/* Moves a final "* number", "min(., number)" and "max(., number)" (in that
 * order, as in max(min(E * k, high), low)) into e's epilogue.  Returns the
 * length of the postfix left for the code. */
static size_t split_epilogue(struct og_expr *e)
{
	size_t n = e->nops;
	e->scale = 1.0;
	e->high = INFINITY;
	e->low = -INFINITY;
	if (is_number_then(e->ops, n, OG_OP_MAX) && is_number_then(e->ops, n - 2, OG_OP_MIN)) {
		e->low = e->ops[n - 2].number;
		e->high = e->ops[n - 4].number;
		n -= 4;
	}
	if (is_number_then(e->ops, n, OG_OP_MUL)) {
		e->scale = e->ops[n - 2].number;
		n -= 2;
	}
	e->has_epilogue = n < e->nops;
	return n;
}

/* The compiled expression in one allocation: code, postfix, regions, slots. */
struct og_expr *og_expr_build(const struct og_expr_op *ops, size_t nops,
                              const struct og_expr_region *regions, size_t nregions,
                              const struct og_expr *const *slot_of, size_t nslots)
{
	size_t max_insns = 2 * nops;
	struct og_expr *e = malloc(sizeof(*e) + max_insns * sizeof(struct insn) +
	                           nops * sizeof(struct og_expr_op) +
	                           nregions * sizeof(struct og_expr_region) +
	                           nslots * sizeof(const struct og_expr *));
	if (!e)
		return NULL;
	e->ops = (struct og_expr_op *)(void *)&e->code[max_insns];
	e->nops = nops;
	memcpy(e->ops, ops, nops * sizeof(*e->ops));
	e->regions = (struct og_expr_region *)(void *)&e->ops[e->nops];
	e->nregions = nregions;
	if (nregions)
		memcpy(e->regions, regions, nregions * sizeof(*e->regions));
	e->slot_of = (const struct og_expr **)(void *)&e->regions[e->nregions];
	e->nslots = nslots;
	if (nslots)
		memcpy(e->slot_of, slot_of, nslots * sizeof(*e->slot_of));
	size_t body = split_epilogue(e);
	e->ncode = generate(e->ops, body, e->code);
	/* og_expr_eval loads code[0] without a dispatch, knowing it reads no
	 * temporary: a shared value is only ever read after code that keeps it. */
	uint8_t first = e->code[0].code;
	if (first != I_LOAD_RAW && first != I_LOAD_CONSTANT && first != I_LOAD_NUMBER) {
		free(e);
		return NULL;
	}
	return e;
}

struct og_expr *og_expr_assemble(const struct og_expr_op *ops, size_t nops,
                                 const struct og_expr_region *regions, size_t nregions,
                                 const struct og_expr *const *slot_of, size_t nslots)
{
	if (!nops || nops > OG_EXPR_MAX_OPS || nslots > OG_EXPR_MAX_SHARED ||
	    og_expr_program_depth(ops, nops) > OG_EXPR_MAX_DEPTH)
		return NULL;
	return og_expr_build(ops, nops, regions, nregions, slot_of, nslots);
}
