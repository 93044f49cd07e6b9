/* SPDX-License-Identifier: MIT */
/*
 * builtin.h — the built-in counter sets as the catalogue needs them, made at
 * build time (builtin_gen.c) so that opening a context reads no text.
 *
 * builtin_gen reads each embedded file with the library's reader
 * (counterfile.c), orders its counters as the catalogue does
 * (counterorder.c) and compiles them with the library's compiler
 * (expr_parse.c), as the first file of a context: names resolve in the file
 * alone.  It writes what came out: the entries as og_cf_parse gives them,
 * the compile order, and per counter its postfix, the counters inlined in
 * it, and the names it reads in the order the text names them (for the
 * message that says why a counter is not offered).  The catalogue assembles
 * each expression from that (og_expr_assemble) when the set is a context's
 * first file; a set opened after another, and a counter whose text names
 * something outside its file, are compiled from the text as before.
 * tests/counters/test_builtin_tables.c holds the tables to the text reader,
 * and catalogues built both ways to each other.
 */
#ifndef OPENGPA_CATALOG_BUILTIN_H
#define OPENGPA_CATALOG_BUILTIN_H

#include <stddef.h>
#include <stdint.h>

#include "catalog/counterfile.h"
#include "expr/expr.h"

/* A name a counter's expression reads: a raw counter or a constant by its
 * position among the file's raw counters or constants (the catalogue's
 * index, the file being its first), a counter by its entry index. */
struct og_builtin_ref {
	enum og_cf_kind kind;
	uint32_t index;
};

/* og_expr_region with the counter as an entry index. */
struct og_builtin_region {
	uint32_t start, end;
	uint32_t entry;
};

struct og_builtin_counter {
	/* The postfix; a RAW or CONSTANT index is the catalogue's, as above. */
	const struct og_expr_op *ops;
	uint32_t nops;
	const struct og_builtin_region *regions;
	uint32_t nregions;
	const uint32_t *slot_of; /* shared slot -> entry index */
	uint32_t nslots;
	const struct og_builtin_ref *refs; /* each name once, in the text's order */
	uint32_t nrefs;
};

struct og_builtin_set {
	const char *name; /* "mali-g71" */
	struct og_cf_file file; /* as og_cf_parse reads the embedded text; read-only */
	const uint32_t *order;  /* the counter entries in compile order */
	uint32_t norder;
	/* Per entry: NULL but for a counter compiled here (not one whose text
	 * names what its file does not declare). */
	const struct og_builtin_counter *const *counter;
	/* Per entry: a counter's "#group#description", GPA 2.x's description
	 * of it; NULL for the others. */
	const char *const *gpa_desc;
	uint32_t index; /* its place in the pool: og_builtin_at(index) */
};

/* What the generator writes (builtin_sets.c): no pointers but the pool's
 * own, so that the library carries a handful of relocations for all the
 * sets, not one per string (issue 29).  Strings are offsets into one
 * blob, tables offsets into one array each; OG_BUILTIN_NONE stands for
 * NULL.  og_builtin_at makes a set's og_builtin_set from them on first use,
 * once per process: a process pays in memory only for the sets it opens. */
#define OG_BUILTIN_NONE UINT32_MAX

struct og_builtin_entry_rec {
	uint32_t name;
	uint32_t field[OG_F__COUNT];
	uint32_t line;
	uint8_t kind, usage, type; /* og_cf_kind, GPA_Usage_Type, GPA_Type */
	double value;
};

/* A counter's tables: offsets into ops, regions, u32 (slots) and refs. */
struct og_builtin_counter_rec {
	uint32_t ops, nops, regions, nregions, slots, nslots, refs, nrefs;
};

struct og_builtin_set_rec {
	uint32_t name, origin, backend; /* strings */
	uint32_t entries, count;        /* entries[entries .. +count) */
	uint32_t order, norder;         /* u32[order .. +norder) */
	uint32_t counters; /* u32[counters + entry]: its counters record, or NONE */
	uint32_t gpa_desc; /* u32[gpa_desc + entry]: a string, or NONE */
};

struct og_builtin_pool {
	const char *strings;
	const struct og_builtin_set_rec *sets;
	size_t nsets;
	const struct og_builtin_entry_rec *entries;
	const struct og_expr_op *ops;
	const struct og_builtin_region *regions;
	const uint32_t *u32;
	const struct og_builtin_ref *refs;
	const struct og_builtin_counter_rec *counters;
};

/* Generated (builtin_sets.c), in counters/meson.build's order. */
extern const struct og_builtin_pool og_builtin_pool;
extern const size_t og_builtin_set_count;

/* Set i (< og_builtin_set_count), made on first use and kept for the
 * process (builtin_load.c); NULL when memory ran out making it. */
const struct og_builtin_set *og_builtin_at(size_t i);

/* The set called `name`, or NULL (none, or out of memory making it). */
const struct og_builtin_set *og_builtin_find(const char *name);

#endif
