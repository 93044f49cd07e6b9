/* SPDX-License-Identifier: MIT */
/* uuid.c — name-based UUIDs (RFC 9562 version 5) over SHA-1 (FIPS 180-4). */
#include "api/uuid.h"

#include <string.h>

struct sha1 {
	uint32_t h[5];
	uint8_t block[64];
	size_t used;
	uint64_t bytes;
};

static uint32_t rol(uint32_t x, unsigned n)
{
	return (x << n) | (x >> (32 - n));
}

static void sha1_block(struct sha1 *s, const uint8_t *p)
{
	uint32_t w[80];
	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (int i = 16; i < 80; i++)
		w[i] = rol(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
	uint32_t a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3], e = s->h[4];
	for (int i = 0; i < 80; i++) {
		uint32_t f, k;
		if (i < 20) {
			f = (b & c) | (~b & d);
			k = 0x5A827999u;
		} else if (i < 40) {
			f = b ^ c ^ d;
			k = 0x6ED9EBA1u;
		} else if (i < 60) {
			f = (b & c) | (b & d) | (c & d);
			k = 0x8F1BBCDCu;
		} else {
			f = b ^ c ^ d;
			k = 0xCA62C1D6u;
		}
		uint32_t t = rol(a, 5) + f + e + k + w[i];
		e = d;
		d = c;
		c = rol(b, 30);
		b = a;
		a = t;
	}
	s->h[0] += a;
	s->h[1] += b;
	s->h[2] += c;
	s->h[3] += d;
	s->h[4] += e;
}

static void sha1_add(struct sha1 *s, const void *data, size_t n)
{
	const uint8_t *p = data;
	s->bytes += n;
	while (n) {
		size_t take = 64 - s->used < n ? 64 - s->used : n;
		memcpy(s->block + s->used, p, take);
		s->used += take;
		p += take;
		n -= take;
		if (s->used == 64) {
			sha1_block(s, s->block);
			s->used = 0;
		}
	}
}

static void sha1_end(struct sha1 *s, uint8_t digest[20])
{
	uint64_t bits = s->bytes * 8;
	uint8_t pad = 0x80;
	sha1_add(s, &pad, 1);
	pad = 0;
	while (s->used != 56)
		sha1_add(s, &pad, 1);
	uint8_t len[8];
	for (int i = 0; i < 8; i++)
		len[i] = (uint8_t)(bits >> (56 - 8 * i));
	sha1_add(s, len, 8);
	for (int i = 0; i < 20; i++)
		digest[i] = (uint8_t)(s->h[i / 4] >> (24 - 8 * (i % 4)));
}

static const uint8_t namespace_id[16] = {
	0xa7, 0x85, 0x5c, 0x79, 0xc4, 0x12, 0x5b, 0xbb,
	0x83, 0x2b, 0x53, 0xec, 0x7c, 0x9d, 0x3f, 0x47,
};

void og_counter_uuid(const char *set, const char *name, uint8_t uuid[16])
{
	struct sha1 s = { .h = { 0x67452301u, 0xEFCDAB89u, 0x98BADCFEu, 0x10325476u, 0xC3D2E1F0u } };
	sha1_add(&s, namespace_id, sizeof(namespace_id));
	sha1_add(&s, set, strlen(set));
	sha1_add(&s, "/", 1);
	sha1_add(&s, name, strlen(name));
	uint8_t digest[20];
	sha1_end(&s, digest);
	memcpy(uuid, digest, 16);
	uuid[6] = (uint8_t)((uuid[6] & 0x0F) | 0x50); /* version 5 */
	uuid[8] = (uint8_t)((uuid[8] & 0x3F) | 0x80); /* RFC variant */
}
