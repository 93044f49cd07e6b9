/* SPDX-License-Identifier: MIT */
/*
 * expr.h — the derived-counter expression engine.
 *
 * An expression is compiled once, when a context opens, into code for a
 * small accumulator machine whose operands are indices into two arrays: raw
 * counter values (uint64 counts of one sample) and device constants
 * (doubles).  Evaluating it allocates nothing and looks up no names.
 * Grammar and arithmetic policy: docs/counter-files.md.
 */
#ifndef OPENGPA_EXPR_H
#define OPENGPA_EXPR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Deepest evaluation stack an expression may need; deeper ones fail to
 * compile (no document's expression comes close). */
#define OG_EXPR_MAX_DEPTH 64

/* Most postfix operations one expression may compile to, counting the code
 * of the counters it names (the largest built-in counter needs about 40).
 * Keeps a hostile file from making one expression that is slow to compile
 * or evaluate; docs/counter-files.md, "Limits". */
#define OG_EXPR_MAX_OPS 16384

/* Most values one expression may compute once and use again (counters it
 * names more than once, directly or through other counters). */
#define OG_EXPR_MAX_SHARED 192

struct og_expr;

enum og_expr_ref_kind {
	OG_REF_RAW,      /* index into the raw value array */
	OG_REF_CONSTANT, /* index into the constant array */
	OG_REF_EXPR,     /* another compiled expression: its code is inlined the
	                  * first time, its value reused after that */
};

struct og_expr_ref {
	enum og_expr_ref_kind kind;
	uint32_t index;
	const struct og_expr *expr;
};

/* Maps a name (not NUL-terminated; without the '$') to what it denotes.
 * Returns false if the name is unknown. */
typedef bool (*og_expr_resolve_fn)(void *ud, const char *name, size_t len,
                                   struct og_expr_ref *out);

/* Compiles `text`.  On failure returns NULL and writes "column N: what is
 * wrong" into err (which may be NULL).  Also NULL on allocation failure. */
struct og_expr *og_expr_compile(const char *text, og_expr_resolve_fn resolve, void *ud,
                                char *err, size_t errlen);

void og_expr_free(struct og_expr *e);

/* Evaluates with the policy of docs/counter-files.md: x/0 = 0, and a result
 * that is not finite is 0. */
double og_expr_eval(const struct og_expr *e, const uint64_t *raw, const double *constants);

/* True when the whole expression is one raw counter; *index is that counter.
 * Lets integer counters return exact 64-bit counts. */
bool og_expr_single_raw(const struct og_expr *e, uint32_t *index);

/* Calls fn for every raw counter the expression reads (with repeats). */
void og_expr_for_each_raw(const struct og_expr *e, void (*fn)(void *ud, uint32_t index), void *ud);

/* The postfix form an expression compiles to: leaves push, operations pop
 * their operands and push the result.  Expressions a counter names are
 * inlined into it; numbers are already folded.  The native code generator
 * (native_gen.c) turns it into C, and og_native_bind() matches that C's
 * postfix against a compiled expression.
 *
 * A counter named more than once (directly, or through the counters it
 * names) is inlined once: SHARE keeps the value its code left on the stack
 * in shared slot `index`, and each later use is a SHARED leaf.  So the code
 * grows with the number of distinct counters an expression depends on, never
 * with the number of paths to them (C2 = C1 + C1, C1 = C0 + C0 ... stays
 * linear). */
enum og_expr_op_code {
	OG_OP_NUMBER,   /* number */
	OG_OP_RAW,      /* raw[index] */
	OG_OP_CONSTANT, /* constants[index] */
	OG_OP_ADD,
	OG_OP_SUB,
	OG_OP_MUL,
	OG_OP_DIV,
	OG_OP_NEG,
	OG_OP_MIN,
	OG_OP_MAX,
	OG_OP_SHARE,  /* shared[index] = top of the stack, which stays */
	OG_OP_SHARED, /* shared[index], a leaf */
};

struct og_expr_op {
	enum og_expr_op_code code;
	uint32_t index;
	double number;
};

/* Points *ops at e's postfix (owned by e) and returns its length. */
size_t og_expr_postfix(const struct og_expr *e, const struct og_expr_op **ops);

/* Where the code of each counter e inlined lies in its postfix: ops
 * [start, end) leave counter `of`'s value on the stack.  By start, the
 * outermost first. */
struct og_expr_region {
	const struct og_expr *of;
	uint32_t start, end;
};
size_t og_expr_regions(const struct og_expr *e, const struct og_expr_region **regions);
/* The counter whose value each shared slot holds (slot_of[i] for SHARE i). */
size_t og_expr_shared(const struct og_expr *e, const struct og_expr *const **slot_of);

/* The expression og_expr_compile made, from what the three functions above
 * read of it (the built-in sets' tables, lib/catalog/builtin.h, store that):
 * the same code without reading text.  NULL without memory, or when the
 * parts break a limit of og_expr_compile's. */
struct og_expr *og_expr_assemble(const struct og_expr_op *ops, size_t nops,
                                 const struct og_expr_region *regions, size_t nregions,
                                 const struct og_expr *const *slot_of, size_t nslots);

/* Writes the compiled code as text, like snprintf (returns the length it
 * needed): instructions separated by "; " ("LOAD RAW 0; DIV RAW 1", "SAVE 0",
 * "RSUB TEMP 0", "NEG", "KEEP 0" for a SHARE, "ADD SHARED 0" for a use of
 * it), then " | * k MIN h MAX l" when the expression ends
 * in a multiplication by a number or a clamp by numbers.  For tests and
 * debugging. */
size_t og_expr_describe(const struct og_expr *e, char *buf, size_t len);

#endif
