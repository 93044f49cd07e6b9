/* SPDX-License-Identifier: MIT */
/*
 * spe_bytes.h — SPE records as the hardware writes them, for the tests:
 * each function appends one packet (header and little-endian payload, as
 * the Arm ARM lays them out) to a buffer.
 */
#ifndef OPENGPA_TESTS_SPE_BYTES_H
#define OPENGPA_TESTS_SPE_BYTES_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct spe_bytes {
	uint8_t b[65536];
	size_t n;
};

static inline void spe_put(struct spe_bytes *s, uint64_t v, size_t n)
{
	for (size_t i = 0; i < n && s->n < sizeof s->b; i++)
		s->b[s->n++] = (uint8_t)(v >> (8 * i));
}

static inline void spe_pad(struct spe_bytes *s) { spe_put(s, 0x00, 1); }
static inline void spe_end(struct spe_bytes *s) { spe_put(s, 0x01, 1); }

static inline void spe_timestamp(struct spe_bytes *s, uint64_t t)
{
	spe_put(s, 0x71, 1);
	spe_put(s, t, 8);
}

/* Address packet, index 0-7 (short header) or 8-31 (extended header). */
static inline void spe_address(struct spe_bytes *s, unsigned index, uint64_t payload)
{
	if (index > 7)
		spe_put(s, 0x20 | (index >> 3), 1);
	spe_put(s, 0xb0 | (index & 7), 1);
	spe_put(s, payload, 8);
}

/* A user-space PC at EL0. */
static inline void spe_pc(struct spe_bytes *s, uint64_t pc)
{
	spe_address(s, 0, pc);
}

static inline void spe_counter(struct spe_bytes *s, unsigned index, uint16_t cycles)
{
	if (index > 7)
		spe_put(s, 0x20 | (index >> 3), 1);
	spe_put(s, 0x98 | (index & 7), 1);
	spe_put(s, cycles, 2);
}

static inline void spe_context(struct spe_bytes *s, unsigned el_index, uint32_t id)
{
	spe_put(s, 0x64 | (el_index & 3), 1);
	spe_put(s, id, 4);
}

/* Operation type: class 0 other, 1 load/store (subclass bit 0: store),
 * 2 branch. */
static inline void spe_op(struct spe_bytes *s, unsigned cls, uint8_t subclass)
{
	spe_put(s, 0x48 | (cls & 3), 1);
	spe_put(s, subclass, 1);
}

/* Events, in a payload of 1 << size_code bytes. */
static inline void spe_events(struct spe_bytes *s, uint64_t events, unsigned size_code)
{
	spe_put(s, 0x42 | (size_code & 3) << 4, 1);
	spe_put(s, events, (size_t)1 << (size_code & 3));
}

static inline void spe_source(struct spe_bytes *s, uint16_t source, unsigned size_code)
{
	spe_put(s, 0x43 | (size_code & 3) << 4, 1);
	spe_put(s, source, (size_t)1 << (size_code & 3));
}

/* A sampled load: PC, latency, events, data source, end. */
static inline void spe_load(struct spe_bytes *s, uint64_t pc, uint16_t latency, uint64_t events,
                            int source)
{
	spe_pc(s, pc);
	spe_op(s, 1, 0x00);
	spe_events(s, events, 1);
	spe_counter(s, 0, latency);
	spe_counter(s, 1, 1);
	if (source >= 0)
		spe_source(s, (uint16_t)source, 1);
	spe_address(s, 2, 0x0000aaaabbbb0000ull + pc);
	spe_end(s);
}

static inline void spe_branch(struct spe_bytes *s, uint64_t pc, int mispredicted)
{
	spe_pc(s, pc);
	spe_op(s, 2, 0x01);
	spe_events(s, mispredicted ? 1u << 7 : 1u << 1, 0);
	spe_address(s, 1, pc + 0x40);
	spe_counter(s, 0, 3);
	spe_end(s);
}

#endif
