/* SPDX-License-Identifier: MIT */
/*
 * session_ids.c — a session's sample ids: the id -> index maps (dense ids
 * are arithmetic, the first id out of line builds a hash index) and the
 * room for a new sample's row (session_state.h).
 */
#include "core/session_state.h"

/* ---- sample id maps ---------------------------------------------------- */



static void hash_put(uint32_t *keys, uint32_t *vals, size_t cap, uint32_t id, size_t index)
{
	size_t j = id_hash(id, cap);
	while (vals[j])
		j = (j + 1) & (cap - 1);
	keys[j] = id;
	vals[j] = (uint32_t)index + 1;
}

/* Room for `count` ids at half load; rehashes what is there. */
bool og_session_map_reserve(struct id_map *m, size_t count)
{
	if (count * 2 <= m->cap)
		return true;
	size_t cap = m->cap ? m->cap : 64;
	while (count * 2 > cap)
		cap *= 2;
	uint32_t *keys = calloc(cap, sizeof(*keys));
	uint32_t *vals = calloc(cap, sizeof(*vals));
	if (!keys || !vals) {
		free(keys);
		free(vals);
		return false;
	}
	for (size_t i = 0; i < m->cap; i++)
		if (m->vals[i])
			hash_put(keys, vals, cap, m->keys[i], m->vals[i] - 1);
	free(m->keys);
	free(m->vals);
	m->keys = keys;
	m->vals = vals;
	m->cap = cap;
	return true;
}

bool og_session_map_put(struct id_map *m, uint32_t id, size_t index)
{
	if (!og_session_map_reserve(m, m->count + 1))
		return false;
	hash_put(m->keys, m->vals, m->cap, id, index);
	m->count++;
	return true;
}

void og_session_map_clear(struct id_map *m)
{
	if (m->count)
		memset(m->vals, 0, m->cap * sizeof(*m->vals));
	m->count = 0;
}


/* Records that sample `index` (about to be stored) has `id`. */
static bool index_insert(struct og_session *s, uint32_t id, size_t index)
{
	if (!s->sparse) {
		if (index == 0)
			s->first_id = id;
		if (id == s->first_id + (uint32_t)index)
			return true; /* still dense */
		if (!og_session_map_reserve(&s->index, index + 1))
			return false;
		for (size_t i = 0; i < index; i++)
			og_session_map_put(&s->index, s->samples[i].id, i); /* room reserved */
		s->sparse = true;
	}
	return og_session_map_put(&s->index, id, index);
}

bool og_session_add_sample(struct og_session *s, uint32_t id, size_t *index)
{
	if (s->nsamples == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		struct sample *samples = realloc(s->samples, cap * sizeof(*samples));
		if (!samples)
			return false;
		s->samples = samples;
		uint64_t *values = realloc(s->values, cap * (s->nslots ? s->nslots : 1) * sizeof(*values));
		if (!values)
			return false;
		s->values = values;
		if (s->api) {
			uint32_t *tokens = realloc(s->api_tokens, cap * sizeof(*tokens));
			if (!tokens)
				return false;
			memset(tokens + s->cap, 0, (cap - s->cap) * sizeof(*tokens));
			s->api_tokens = tokens;
		}
		s->cap = cap;
	}
	if (!index_insert(s, id, s->nsamples))
		return false;
	s->samples[s->nsamples] = (struct sample){ .id = id, .coverage = 1.0f };
	memset(&s->values[s->nsamples * s->nslots], 0, s->nslots * sizeof(uint64_t));
	*index = s->nsamples++;
	return true;
}

bool og_session_set_long_end(struct og_session *s, struct sample *smp, uint64_t end_ns)
{
	size_t at;
	smp->span_ns = 0;
	if (!map_find(&s->long_end_at, smp->id, &at)) {
		if (s->nlong == s->cap_long) {
			size_t cap = s->cap_long ? s->cap_long * 2 : 4;
			uint64_t *ends = realloc(s->long_ends, cap * sizeof(*ends));
			if (!ends)
				return false;
			s->long_ends = ends;
			s->cap_long = cap;
		}
		if (s->nlong >= UINT32_MAX - 1 || !og_session_map_put(&s->long_end_at, smp->id, s->nlong))
			return false;
		at = s->nlong++;
	}
	s->long_ends[at] = end_ns;
	smp->span_ns = SPAN_LONG;
	return true;
}

uint64_t og_session_long_end(const struct og_session *s, uint32_t id)
{
	size_t at;
	return map_find(&s->long_end_at, id, &at) ? s->long_ends[at] : 0;
}
