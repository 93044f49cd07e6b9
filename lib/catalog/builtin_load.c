/* SPDX-License-Identifier: MIT */
/*
 * builtin_load.c — the built-in sets made from the generator's pools
 * (builtin.h) when a process first opens one.
 *
 * The pools are read-only data without pointers, so loading the library
 * relocates none of them and maps them only as they are read; a set's
 * og_builtin_set (pointers into the pools) is made here once and kept for
 * the process, as catalog_tables.c keeps each set's shared expressions.
 * A process that opens one Mali GPU pays for that GPU's set only.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/builtin.h"

static pthread_mutex_t made_lock = PTHREAD_MUTEX_INITIALIZER;
static struct og_builtin_set **made; /* per set; NULL: not made yet */

static const char *string_at(uint32_t off)
{
	return off == OG_BUILTIN_NONE ? NULL : og_builtin_pool.strings + off;
}

struct made_set {
	struct og_builtin_set set;
	struct og_cf_entry *entries;
	struct og_builtin_counter *counters;
	const struct og_builtin_counter **counter;
	const char **gpa_desc;
};

static void made_free(struct made_set *m)
{
	if (!m)
		return;
	free(m->entries);
	free(m->counters);
	free(m->counter);
	free(m->gpa_desc);
	free(m);
}

static struct og_builtin_set *make(uint32_t index)
{
	const struct og_builtin_pool *p = &og_builtin_pool;
	const struct og_builtin_set_rec *r = &p->sets[index];
	struct made_set *m = calloc(1, sizeof(*m));
	size_t n = r->count;
	if (m) {
		m->entries = calloc(n + 1, sizeof(*m->entries));
		m->counters = calloc(n + 1, sizeof(*m->counters));
		m->counter = calloc(n + 1, sizeof(*m->counter));
		m->gpa_desc = calloc(n + 1, sizeof(*m->gpa_desc));
	}
	if (!m || !m->entries || !m->counters || !m->counter || !m->gpa_desc) {
		made_free(m);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		const struct og_builtin_entry_rec *e = &p->entries[r->entries + i];
		struct og_cf_entry *to = &m->entries[i];
		/* Read-only like the literals the tables held before: the file
		 * is marked built-in, and nothing writes or frees one. */
		to->kind = (enum og_cf_kind)e->kind;
		to->name = (char *)string_at(e->name);
		for (int k = 0; k < OG_F__COUNT; k++)
			to->field[k] = (char *)string_at(e->field[k]);
		to->line = e->line;
		to->usage = (GPA_Usage_Type)e->usage;
		to->type = (GPA_Type)e->type;
		to->value = e->value;
		uint32_t c = p->u32[r->counters + i];
		if (c != OG_BUILTIN_NONE) {
			const struct og_builtin_counter_rec *cr = &p->counters[c];
			m->counters[i] = (struct og_builtin_counter){
				.ops = p->ops + cr->ops, .nops = cr->nops,
				.regions = cr->nregions ? p->regions + cr->regions : NULL,
				.nregions = cr->nregions,
				.slot_of = cr->nslots ? p->u32 + cr->slots : NULL, .nslots = cr->nslots,
				.refs = p->refs + cr->refs, .nrefs = cr->nrefs,
			};
			m->counter[i] = &m->counters[i];
		}
		m->gpa_desc[i] = string_at(p->u32[r->gpa_desc + i]);
	}
	m->set = (struct og_builtin_set){
		.name = string_at(r->name),
		.file = { .origin = (char *)string_at(r->origin),
		          .backend = (char *)string_at(r->backend),
		          .entries = m->entries, .count = n, .builtin = &m->set },
		.order = p->u32 + r->order, .norder = r->norder,
		.counter = m->counter, .gpa_desc = m->gpa_desc, .index = index,
	};
	/* struct made_set starts with the set: og_builtin_at hands out &m->set
	 * and keeps it for the process. */
	return &m->set;
}

const struct og_builtin_set *og_builtin_at(size_t i)
{
	if (i >= og_builtin_pool.nsets)
		return NULL;
	pthread_mutex_lock(&made_lock);
	if (!made)
		made = calloc(og_builtin_pool.nsets + 1, sizeof(*made));
	struct og_builtin_set *set = NULL;
	if (made) {
		if (!made[i])
			made[i] = make((uint32_t)i);
		set = made[i];
	}
	pthread_mutex_unlock(&made_lock);
	return set;
}

const struct og_builtin_set *og_builtin_find(const char *name)
{
	for (size_t i = 0; i < og_builtin_pool.nsets; i++)
		if (strcmp(og_builtin_pool.strings + og_builtin_pool.sets[i].name, name) == 0)
			return og_builtin_at(i);
	return NULL;
}
