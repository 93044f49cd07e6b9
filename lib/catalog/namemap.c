/* SPDX-License-Identifier: MIT */
/* namemap.c — open addressing with linear probing, FNV-1a over lower case. */
#include "namemap.h"

#include <ctype.h>
#include <stdlib.h>
#include <strings.h>

static uint64_t hash(const char *key, size_t len)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)tolower((unsigned char)key[i]);
		h *= 1099511628211ull;
	}
	return h;
}

static struct og_namemap_slot *slot_for(const struct og_namemap *m, const char *key, size_t len)
{
	size_t i = hash(key, len) & (m->cap - 1);
	for (;; i = (i + 1) & (m->cap - 1)) {
		struct og_namemap_slot *s = &m->slots[i];
		if (!s->key || (s->len == len && strncasecmp(s->key, key, len) == 0))
			return s;
	}
}

static bool grow(struct og_namemap *m)
{
	struct og_namemap old = *m;
	m->cap = old.cap ? old.cap * 2 : 64;
	m->slots = calloc(m->cap, sizeof(*m->slots));
	if (!m->slots) {
		*m = old;
		return false;
	}
	for (size_t i = 0; i < old.cap; i++)
		if (old.slots[i].key)
			*slot_for(m, old.slots[i].key, old.slots[i].len) = old.slots[i];
	free(old.slots);
	return true;
}

bool og_namemap_put(struct og_namemap *m, const char *key, size_t len, uint32_t value)
{
	if ((m->count + 1) * 2 > m->cap && !grow(m))
		return false;
	struct og_namemap_slot *s = slot_for(m, key, len);
	if (!s->key) {
		*s = (struct og_namemap_slot){ key, len, value };
		m->count++;
	}
	return true;
}

bool og_namemap_find(const struct og_namemap *m, const char *key, size_t len, uint32_t *value)
{
	if (!m->cap)
		return false;
	const struct og_namemap_slot *s = slot_for(m, key, len);
	if (!s->key)
		return false;
	*value = s->value;
	return true;
}

void og_namemap_free(struct og_namemap *m)
{
	free(m->slots);
	m->slots = NULL;
	m->cap = m->count = 0;
}
