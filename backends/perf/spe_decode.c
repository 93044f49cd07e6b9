/* SPDX-License-Identifier: MIT */
/* spe_decode.c — SPE packets and records (spe_decode.h). */
#include "spe_decode.h"

#include <string.h>

#define ADDR_BYTES_0_6 ((1ull << 56) - 1)

/* Payload size coded in header bits 5:4: 1, 2, 4 or 8 bytes. */
static size_t payload_size(uint8_t hdr)
{
	return (size_t)1 << ((hdr >> 4) & 3);
}

static uint64_t little_endian(const uint8_t *p, size_t n)
{
	uint64_t v = 0;
	for (size_t i = n; i-- > 0;)
		v = v << 8 | p[i];
	return v;
}

/* A packet of header length `hlen` (1 or 2) whose last header byte codes the
 * payload size. */
static int with_payload(const uint8_t *buf, size_t len, size_t hlen, enum og_spe_packet_type type,
                        unsigned index, struct og_spe_packet *p)
{
	size_t n = payload_size(buf[hlen - 1]);
	if (len < hlen + n)
		return OG_SPE_NEED_MORE;
	p->type = type;
	p->index = index;
	p->payload = little_endian(buf + hlen, n);
	return (int)(hlen + n);
}

int og_spe_packet_at(const uint8_t *buf, size_t len, size_t pos, struct og_spe_packet *p)
{
	memset(p, 0, sizeof *p);
	if (len == 0)
		return OG_SPE_NEED_MORE;
	uint8_t hdr = buf[0];
	if (hdr == 0x00) {
		p->type = OG_SPE_PAD;
		return 1;
	}
	if (hdr == 0x01) {
		p->type = OG_SPE_END;
		return 1;
	}
	if (hdr == 0x71)
		return with_payload(buf, len, 1, OG_SPE_TIMESTAMP, 0, p);
	if ((hdr & 0xcf) == 0x42)
		return with_payload(buf, len, 1, OG_SPE_EVENTS, 0, p);
	if ((hdr & 0xcf) == 0x43)
		return with_payload(buf, len, 1, OG_SPE_DATA_SOURCE, 0, p);
	if ((hdr & 0xfc) == 0x64)
		return with_payload(buf, len, 1, OG_SPE_CONTEXT, hdr & 3, p);
	if ((hdr & 0xfc) == 0x48)
		return with_payload(buf, len, 1, OG_SPE_OP_TYPE, hdr & 3, p);
	size_t hlen = 1;
	unsigned index_hi = 0;
	if ((hdr & 0xfc) == 0x20) {
		/* Extended header: a second byte carries the packet's own header,
		 * and the first two bits of the index. */
		if (len < 2)
			return OG_SPE_NEED_MORE;
		if (buf[1] == 0x00) {
			/* Alignment: padding up to the next multiple of 2^(n+1). */
			size_t align = (size_t)1 << ((hdr & 0xf) + 1);
			size_t skip = align - (pos & (align - 1));
			if (len < skip)
				return OG_SPE_NEED_MORE;
			p->type = OG_SPE_PAD;
			return (int)skip;
		}
		index_hi = (unsigned)(hdr & 3) << 3;
		hdr = buf[1];
		hlen = 2;
	}
	if ((hdr & 0xf8) == 0xb0)
		return with_payload(buf, len, hlen, OG_SPE_ADDRESS, index_hi | (hdr & 7), p);
	if ((hdr & 0xf8) == 0x98)
		return with_payload(buf, len, hlen, OG_SPE_COUNTER, index_hi | (hdr & 7), p);
	return OG_SPE_BAD;
}

/* An address packet's payload as the address: instruction addresses carry
 * the exception level in bits 62:61 and kernel addresses get their top byte
 * back; a data VA whose byte 6 is 0xff is a kernel one too. */
static void address(struct og_spe_record *r, const struct og_spe_packet *p)
{
	uint64_t v = p->payload & ADDR_BYTES_0_6;
	unsigned el = (unsigned)(p->payload >> 61) & 3;
	bool ns = p->payload >> 63;
	switch (p->index) {
	case OG_SPE_ADDR_PC:
	case OG_SPE_ADDR_BRANCH_TARGET:
		if (ns && (el == 1 || el == 2))
			v |= 0xffull << 56;
		if (p->index == OG_SPE_ADDR_PC) {
			r->pc = v;
			r->el = el;
			r->present |= OG_SPE_HAS_PC;
		} else {
			r->target = v;
			r->present |= OG_SPE_HAS_TARGET;
		}
		break;
	case OG_SPE_ADDR_DATA_VA:
		r->va = ((v >> 48) & 0xff) == 0xff ? v | 0xffull << 56 : v;
		r->present |= OG_SPE_HAS_VA;
		break;
	case OG_SPE_ADDR_DATA_PA:
		r->pa = v;
		r->present |= OG_SPE_HAS_PA;
		break;
	default:
		break; /* previous-branch target and later indices: not used */
	}
}

static void counter(struct og_spe_record *r, const struct og_spe_packet *p)
{
	uint32_t v = (uint32_t)p->payload;
	switch (p->index) {
	case OG_SPE_LAT_TOTAL:
		r->total_lat = v;
		r->present |= OG_SPE_HAS_TOTAL_LAT;
		break;
	case OG_SPE_LAT_ISSUE:
		r->issue_lat = v;
		r->present |= OG_SPE_HAS_ISSUE_LAT;
		break;
	case OG_SPE_LAT_XLAT:
		r->xlat_lat = v;
		r->present |= OG_SPE_HAS_XLAT_LAT;
		break;
	default:
		break;
	}
}

/* Puts packet p into the record being built. */
static void absorb(struct og_spe_record *r, const struct og_spe_packet *p)
{
	switch (p->type) {
	case OG_SPE_ADDRESS:
		address(r, p);
		break;
	case OG_SPE_COUNTER:
		counter(r, p);
		break;
	case OG_SPE_CONTEXT:
		r->context = (uint32_t)p->payload;
		r->present |= OG_SPE_HAS_CONTEXT;
		break;
	case OG_SPE_OP_TYPE:
		r->op_class = p->index;
		r->op_subclass = (unsigned)p->payload;
		r->present |= OG_SPE_HAS_OP;
		break;
	case OG_SPE_EVENTS:
		r->events = p->payload;
		r->present |= OG_SPE_HAS_EVENTS;
		break;
	case OG_SPE_DATA_SOURCE:
		r->data_source = p->payload;
		r->present |= OG_SPE_HAS_DATA_SOURCE;
		break;
	case OG_SPE_TIMESTAMP:
		r->timestamp = p->payload;
		r->present |= OG_SPE_HAS_TIMESTAMP;
		break;
	case OG_SPE_PAD:
	case OG_SPE_END:
		break;
	}
}

void og_spe_walk(const uint8_t *buf, size_t len,
                 void (*fn)(void *arg, const struct og_spe_record *r), void *arg,
                 struct og_spe_walk *w)
{
	struct og_spe_record rec;
	memset(&rec, 0, sizeof rec);
	bool open = false, damaged = false;
	size_t pos = 0;
	while (pos < len) {
		struct og_spe_packet p;
		int n = og_spe_packet_at(buf + pos, len - pos, pos, &p);
		if (n == OG_SPE_NEED_MORE) {
			w->truncated = 1;
			return;
		}
		if (n == OG_SPE_BAD) {
			/* No packet starts here: skip a byte and let the next end of
			 * record resynchronise; the record it was in is lost. */
			w->bad_bytes++;
			damaged |= open;
			pos++;
			continue;
		}
		pos += (size_t)n;
		if (p.type == OG_SPE_PAD) {
			w->padding += (uint64_t)n;
			continue;
		}
		absorb(&rec, &p);
		if (p.type != OG_SPE_END && p.type != OG_SPE_TIMESTAMP) {
			open = true;
			continue;
		}
		if (open && damaged)
			w->dropped++;
		else if (open) {
			w->records++;
			fn(arg, &rec);
		}
		memset(&rec, 0, sizeof rec);
		open = damaged = false;
	}
	if (open)
		w->truncated = 1;
}
