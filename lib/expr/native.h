/* SPDX-License-Identifier: MIT */
/*
 * native.h — built-in counter sets compiled to C.
 *
 * At build time native_gen.c compiles every counter of each embedded counter
 * file with this engine and writes the file out as one C function that
 * computes all of its counters from one sample, each with the operations of
 * arith.h in its postfix order.  One call per sample instead of one
 * interpreted expression per counter: a compiler schedules the whole set as
 * it would hand-written C (bench/mali).
 *
 * A context uses a counter's output only once og_native_matches() has
 * checked that its postfix is, operation for operation, the one the context
 * compiled for that counter; any other counter (a user's file, a name that
 * resolved differently) keeps the interpreter.  Both give the same bits
 * (tests/expr/test_native.c).
 */
#ifndef OPENGPA_EXPR_NATIVE_H
#define OPENGPA_EXPR_NATIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "expr.h"

/* Writes every counter of the set to out[0 .. ncounters).  at[i] is the
 * context's index of the set's i-th leaf: a raw counter index or a constant
 * index (which of the two is fixed per slot). */
typedef void og_native_set_fn(const uint64_t *raw, const double *constants, const uint32_t *at,
                              double *restrict out);

struct og_native_set {
	const char *origin; /* the embedded file, "counters/mali-g71.counters" */
	og_native_set_fn *fn;
	uint32_t ncounters; /* outputs */
	uint32_t nslots;    /* length of at[] */
};

struct og_native_counter {
	const char *origin;
	const char *name;
	uint32_t set;      /* index into og_native_sets */
	uint32_t position; /* index into the set's out[] */
	/* The counter's postfix; a RAW or CONSTANT op's index is its slot in
	 * the set's at[]. */
	const struct og_expr_op *shape;
	uint32_t nshape;
};

/* Generated (native_counters.c).  Counters are sorted by origin, then name
 * ignoring case. */
extern const struct og_native_set og_native_sets[];
extern const size_t og_native_set_count;
extern const struct og_native_counter og_native_counters[];
extern const size_t og_native_counter_count;

/* The generated counter `name` of embedded file `origin`, or NULL. */
const struct og_native_counter *og_native_find(const char *origin, const char *name);

/* Whether n computes exactly e, given the slot assignments already in
 * at[] (UINT32_MAX: not assigned yet).  Assigns the slots e gives meaning
 * to; an assigned slot must stand for the index e reads there.  Slots
 * assigned during a match that fails stay assigned, which is harmless: every
 * counter accepted was checked against the final value of each slot it
 * reads, and no slot changes once assigned. */
bool og_native_matches(const struct og_native_counter *n, const struct og_expr *e, uint32_t *at,
                       uint32_t nslots);

#endif
