/* SPDX-License-Identifier: MIT */
/*
 * events.h — the MIPS 34K event table (MD00548 Table 3), the raw counter
 * numbering the backend hands to the core, and the bank assignment the
 * backend's fits() and the pc_sweep front end share.
 *
 * The 34K has four counters: 0 and 2 form the even bank, 1 and 3 the odd
 * bank.  An event number means different things on the two banks (event 9 is
 * I-cache accesses on the even bank and I-cache misses on the odd one), except
 * for a few events both banks count alike (cycles, instructions...): those
 * are "any" bank.
 */
#ifndef OPENGPA_BACKENDS_MIPS_EVENTS_H
#define OPENGPA_BACKENDS_MIPS_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define OG_MIPS_COUNTERS 4
#define OG_MIPS_MAX_EVENT 127

enum og_mips_bank {
	OG_MIPS_EVEN = 0, /* counters 0 and 2 */
	OG_MIPS_ODD = 1,  /* counters 1 and 3 */
	OG_MIPS_ANY = 2,  /* the same event on both banks */
};

/* Table 3's "Type": the finest scope the event can be filtered to. */
enum og_mips_scope {
	OG_MIPS_PER_TC = 0,
	OG_MIPS_PER_VPE = 1,
	OG_MIPS_PER_CORE = 2,
};

struct og_mips_event {
	uint8_t event;      /* 0..127, the PerfCtl EVENT field */
	uint8_t bank;       /* enum og_mips_bank */
	uint8_t scope;      /* enum og_mips_scope */
	const char *name;   /* raw counter name in counters/mips-34k.counters */
	const char *label;  /* pc_parse's wording, for the report */
	const char *table3; /* Table 3's wording */
};

/* Every event of Table 3, any-bank entries first within an event number. */
extern const struct og_mips_event og_mips_events[];
extern const size_t og_mips_event_count;

/* Raw ids: bits 0..6 the event, bits 7..8 the bank (enum og_mips_bank). */
static inline uint32_t og_mips_raw_id(unsigned bank, unsigned event)
{
	return (uint32_t)(bank << 7) | (event & 0x7f);
}
static inline unsigned og_mips_raw_event(uint32_t raw_id)
{
	return raw_id & 0x7f;
}
static inline unsigned og_mips_raw_bank(uint32_t raw_id)
{
	return (raw_id >> 7) & 3;
}

/* The table entry for an event counted on `bank` (EVEN or ODD; an ANY entry
 * answers for both), or NULL when Table 3 marks it reserved. */
const struct og_mips_event *og_mips_event_find(unsigned bank, unsigned event);

/* The entry for a raw id as bind_raw returned it, or NULL. */
const struct og_mips_event *og_mips_event_of_raw(uint32_t raw_id);

/* Parses a source: "even:N", "odd:N" or "any:N" (N decimal, 0..127).
 * Returns false on malformed text; *why says what was wrong. */
bool og_mips_parse_source(const char *source, unsigned *bank, unsigned *event, const char **why);

/*
 * Bank assignment.  counter_of[i] receives the physical counter (0..3) for
 * raw_ids[i].  Exact: finds an assignment whenever one exists (a bipartite
 * matching of events to counters).  Returns false when the set does not fit
 * in one pass.  n may be at most 64.
 */
bool og_mips_assign(const uint32_t *raw_ids, size_t n, int *counter_of);

/*
 * Splits raw_ids into the fewest passes (each one fits) and assigns each
 * event a pass and a counter.  Returns the number of passes (0 for n == 0).
 * Duplicate raw ids share one slot.  n may be at most 256.
 */
size_t og_mips_plan(const uint32_t *raw_ids, size_t n, unsigned *pass_of, int *counter_of);

#endif
