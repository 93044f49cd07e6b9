/* SPDX-License-Identifier: MIT */
/*
 * native.h — built-in counter sets compiled to C.
 *
 * At build time native_gen.c compiles every counter of each embedded counter
 * file with this engine and writes, per counter, a C function of the set's
 * leaves computing it with the operations of arith.h in its postfix order,
 * and per file one function writing every counter's value as the batch
 * read gives it.  A set's leaves are its raw counters and constants, each
 * numbered once in the set: a session keeps a sample's raw counts in that
 * order (session.c), so the code reads leaf[i] and k[j] at fixed offsets,
 * as hand-written C does (bench/api).
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

/* One counter's value as the batch read gives it: d for a float counter,
 * u for an integer one (clamped to its type; exact for a raw count). */
union og_value {
	double d;
	uint64_t u;
};

/* Writes every counter of the set, out[i] for the counter at position i,
 * from the set's raw leaves leaf[0 .. nraw_slots) and constants
 * k[0 .. nconst_slots). */
typedef void og_native_set_fn(const uint64_t *restrict leaf, const double *restrict k,
                              union og_value *restrict out);
/* The most parts a set is cut into, and the 64-bit words of a mask of them. */
#define OG_NATIVE_MAX_PARTS 256
#define OG_NATIVE_PART_WORDS (OG_NATIVE_MAX_PARTS / 64)

/* The same for the counters of the parts whose bits are set in `parts`
 * (part p: bit p % 64 of parts[p / 64]): part p is the counters at
 * positions [p * part_size, (p + 1) * part_size) (og_native_set), the last
 * part those up to the set's end (og_native_part_of); out[] of the others
 * is not written.  A part reads only the leaves its counters read, all
 * below its reach (og_native_set.part_reach). */
typedef void og_native_parts_fn(const uint64_t *restrict leaf, const double *restrict k,
                                union og_value *restrict out, const uint64_t *restrict parts);
/* How many parts a set of n counters has in parts of `size`, and which of
 * them holds position `pos`: the last part takes what is left over (fewer
 * than `size` more) rather than making a short part of its own — a set's
 * last counters are often one group that reads the same values (the G71
 * set's cycle budget, 317-320, in one part with 316). */
static inline uint32_t og_native_part_count(uint32_t n, uint32_t size)
{
	return n / size ? n / size : 1;
}

static inline uint32_t og_native_part_of(uint32_t n, uint32_t size, uint32_t pos)
{
	uint32_t p = pos / size, count = og_native_part_count(n, size);
	return p < count ? p : count - 1;
}

/* One counter's value (the arithmetic policy applied), from the same. */
typedef double og_native_counter_fn(const uint64_t *restrict leaf, const double *restrict k);

/* The function of the set's counter at `position`; NULL past the last. */
typedef og_native_counter_fn *og_native_counter_at(uint32_t position);

struct og_native_set {
	const char *origin; /* the embedded file, "counters/mali-g71.counters" */
	og_native_set_fn *fn;
	og_native_counter_at *counter_fn;
	/* Every counter's postfix, one after another; a RAW op's index is its
	 * raw slot in the set, a CONSTANT op's its constant slot. */
	const struct og_expr_op *shapes;
	uint32_t ncounters;   /* outputs */
	uint32_t nraw_slots;  /* raw leaves */
	uint32_t nconst_slots;
	/* Per entry of the file: its counter's index in og_native_counters, or
	 * UINT32_MAX (not a counter, or one left to the interpreter). */
	const uint32_t *counter_of_entry;
	uint32_t nentries;
	og_native_parts_fn *parts; /* fn for some parts of the set: a session of part of it */
	uint32_t part_size;        /* counters a part (at most OG_NATIVE_MAX_PARTS parts) */
	/* Per part: 1 + the highest leaf its counters read (0: none), so that
	 * a session can keep leaves [0, reach) in place and run those parts on
	 * its row (lib/core/session_layout.c). */
	const uint16_t *part_reach;
	/* The set's last tail_size counters alone (every one in its last part,
	 * tail_size at most part_size): out[j] for the counter at position
	 * ncounters - tail_size + j.  A session whose answer ends with them in
	 * that order has them written straight there (session_layout.c). */
	og_native_set_fn *tail;
	uint32_t tail_size;
};

/* One generated counter.  Offsets and indices rather than pointers (there
 * are thousands of these, and every pointer is a relocation the loader
 * writes in each process that loads the library).  Read it with the
 * accessors below. */
struct og_native_counter {
	uint32_t name;     /* offset into og_native_names */
	uint32_t set;      /* index into og_native_sets: its origin, its shapes */
	uint32_t position; /* index into the set's out[] */
	uint32_t shape;    /* its postfix: offset into the set's shapes */
	uint32_t nshape;
	/* Its GPA_Type, which decides how the set function writes out[position]
	 * (a double, or a clamped integer). */
	int type;
};

/* Generated (native_counters.c).  Counters are sorted by origin, then name
 * ignoring case. */
extern const struct og_native_set og_native_sets[];
extern const size_t og_native_set_count;
extern const struct og_native_counter og_native_counters[];
extern const size_t og_native_counter_count;
extern const char og_native_names[]; /* every name, each ending in NUL */

static inline const char *og_native_name(const struct og_native_counter *n)
{
	return og_native_names + n->name;
}

/* The embedded file n comes from, "counters/mali-g71.counters". */
static inline const char *og_native_origin(const struct og_native_counter *n)
{
	return og_native_sets[n->set].origin;
}

/* n's own function (the arithmetic policy applied): what a session calls
 * to read that counter alone. */
static inline og_native_counter_fn *og_native_fn(const struct og_native_counter *n)
{
	return og_native_sets[n->set].counter_fn(n->position);
}

/* n's postfix, nshape operations. */
static inline const struct og_expr_op *og_native_shape(const struct og_native_counter *n)
{
	return og_native_sets[n->set].shapes + n->shape;
}

/* The generated counter `name` of embedded file `origin`, or NULL. */
const struct og_native_counter *og_native_find(const char *origin, const char *name);
/* The generated set of embedded file `origin`, or NULL. */
const struct og_native_set *og_native_set_for(const char *origin);

/* Whether n computes exactly e, given the slot assignments already in
 * at_raw[] and at_const[] (the context's raw and constant index of each
 * slot; UINT32_MAX: not assigned yet).  Assigns the slots e gives meaning
 * to; an assigned slot must stand for the index e reads there.  Slots
 * assigned during a match that fails stay assigned, which is harmless: every
 * counter accepted was checked against the final value of each slot it
 * reads, and no slot changes once assigned. */
bool og_native_matches(const struct og_native_counter *n, const struct og_expr *e,
                       uint32_t *at_raw, uint32_t nraw, uint32_t *at_const, uint32_t nconst);

#endif
