/* SPDX-License-Identifier: MIT */
/*
 * spe_decode.h — Arm's Statistical Profiling Extension (SPE) records, from
 * the bytes the profiling buffer holds.
 *
 * The hardware writes one record per sampled operation: packets (address,
 * counter, operation type, events, data source, context, timestamp) ended
 * by an End or a Timestamp packet, with padding between.  The packet format
 * is the Arm Architecture Reference Manual's (chapter "Statistical
 * Profiling Extension", the packet headers) as the kernel's perf tool also
 * reads it.  Pure code: no I/O, no allocation, every length checked, so
 * any byte string decodes without reading outside it (tests/fuzz).
 */
#ifndef OPENGPA_BACKENDS_PERF_SPE_DECODE_H
#define OPENGPA_BACKENDS_PERF_SPE_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum og_spe_packet_type {
	OG_SPE_PAD,         /* 0x00, and the extended-header alignment packet */
	OG_SPE_END,         /* 0x01: ends a record */
	OG_SPE_TIMESTAMP,   /* 0x71 + 8 bytes: ends a record */
	OG_SPE_ADDRESS,     /* 0b10110iii (+ extended index) + 8 bytes */
	OG_SPE_COUNTER,     /* 0b10011iii (+ extended index) + 2 bytes */
	OG_SPE_CONTEXT,     /* 0b011001ii + 4 bytes */
	OG_SPE_OP_TYPE,     /* 0b010010cc + 1 byte */
	OG_SPE_EVENTS,      /* 0b01ss0010 + 1, 2, 4 or 8 bytes */
	OG_SPE_DATA_SOURCE, /* 0b01ss0011 + 1, 2, 4 or 8 bytes */
};

struct og_spe_packet {
	enum og_spe_packet_type type;
	unsigned index;   /* address/counter index, context EL, op class */
	uint64_t payload; /* little-endian payload */
};

/* Address packet indices. */
#define OG_SPE_ADDR_PC 0
#define OG_SPE_ADDR_BRANCH_TARGET 1
#define OG_SPE_ADDR_DATA_VA 2
#define OG_SPE_ADDR_DATA_PA 3
/* Counter packet indices (cycles). */
#define OG_SPE_LAT_TOTAL 0
#define OG_SPE_LAT_ISSUE 1
#define OG_SPE_LAT_XLAT 2
/* Operation type classes. */
#define OG_SPE_OP_OTHER 0
#define OG_SPE_OP_LDST 1
#define OG_SPE_OP_BRANCH 2
/* Event bits. */
#define OG_SPE_EV_RETIRED (1u << 1)
#define OG_SPE_EV_L1D_ACCESS (1u << 2)
#define OG_SPE_EV_L1D_REFILL (1u << 3)
#define OG_SPE_EV_TLB_ACCESS (1u << 4)
#define OG_SPE_EV_TLB_WALK (1u << 5)
#define OG_SPE_EV_NOT_TAKEN (1u << 6)
#define OG_SPE_EV_MISPRED (1u << 7)
#define OG_SPE_EV_LLC_ACCESS (1u << 8)
#define OG_SPE_EV_LLC_MISS (1u << 9)
#define OG_SPE_EV_REMOTE (1u << 10)

/* og_spe_packet_at's answers besides a length. */
#define OG_SPE_NEED_MORE 0 /* the buffer ends inside this packet */
#define OG_SPE_BAD (-1)    /* no packet starts with this header */

/* Decodes the packet at buf[0..len); `pos` is its offset in the buffer as
 * the hardware wrote it (alignment packets pad to a multiple of 2^n of it).
 * Returns the bytes it takes (> 0), OG_SPE_NEED_MORE or OG_SPE_BAD. */
int og_spe_packet_at(const uint8_t *buf, size_t len, size_t pos, struct og_spe_packet *p);

/* One sampled operation, as its packets describe it. */
struct og_spe_record {
	unsigned present;    /* OG_SPE_HAS_* of what the record carried */
	uint64_t pc;         /* virtual address, 56 bits */
	unsigned el;         /* exception level of the PC */
	uint64_t target;     /* branch target */
	uint64_t va, pa;     /* data addresses */
	unsigned op_class;   /* OG_SPE_OP_* */
	unsigned op_subclass; /* the op type payload byte */
	uint64_t events;     /* OG_SPE_EV_* bits */
	uint32_t total_lat, issue_lat, xlat_lat;
	uint64_t data_source;
	uint32_t context;
	uint64_t timestamp;
};

#define OG_SPE_HAS_PC (1u << 0)
#define OG_SPE_HAS_TARGET (1u << 1)
#define OG_SPE_HAS_VA (1u << 2)
#define OG_SPE_HAS_PA (1u << 3)
#define OG_SPE_HAS_OP (1u << 4)
#define OG_SPE_HAS_EVENTS (1u << 5)
#define OG_SPE_HAS_TOTAL_LAT (1u << 6)
#define OG_SPE_HAS_ISSUE_LAT (1u << 7)
#define OG_SPE_HAS_XLAT_LAT (1u << 8)
#define OG_SPE_HAS_DATA_SOURCE (1u << 9)
#define OG_SPE_HAS_CONTEXT (1u << 10)
#define OG_SPE_HAS_TIMESTAMP (1u << 11)

static inline bool og_spe_is_load(const struct og_spe_record *r)
{
	return (r->present & OG_SPE_HAS_OP) && r->op_class == OG_SPE_OP_LDST &&
	       !(r->op_subclass & 1);
}

static inline bool og_spe_is_store(const struct og_spe_record *r)
{
	return (r->present & OG_SPE_HAS_OP) && r->op_class == OG_SPE_OP_LDST &&
	       (r->op_subclass & 1);
}

static inline bool og_spe_is_branch(const struct og_spe_record *r)
{
	return (r->present & OG_SPE_HAS_OP) && r->op_class == OG_SPE_OP_BRANCH;
}

/* What a walk over a buffer found besides records. */
struct og_spe_walk {
	uint64_t records;   /* complete records handed to the callback */
	uint64_t padding;   /* padding bytes */
	uint64_t bad_bytes; /* bytes skipped because no packet starts there */
	uint64_t dropped;   /* partial records thrown away (a bad packet inside) */
	uint64_t truncated; /* the buffer ended inside a packet or a record: 1 or 0 */
};

/*
 * Decodes buf[0..len) record by record and calls fn for each complete one.
 * A byte no packet starts with is skipped (counted in bad_bytes) and the
 * record it was in is dropped: the next End or Timestamp resynchronises.
 * Bytes after the last complete record are the start of one the buffer
 * does not hold: counted as truncated.  Adds to *w (not reset).
 */
void og_spe_walk(const uint8_t *buf, size_t len,
                 void (*fn)(void *arg, const struct og_spe_record *r), void *arg,
                 struct og_spe_walk *w);

#endif
