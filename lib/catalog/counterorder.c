/* SPDX-License-Identifier: MIT */
/* counterorder.c — see counterorder.h: a depth-first walk over the counters
 * each counter's expression names, without recursion (a hostile file may
 * chain thousands of counters). */
#include "catalog/counterorder.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/namemap.h"
#include "expr/expr.h"

/* In the file's name map: a name that is not one of its counters. */
#define NOT_A_COUNTER UINT32_MAX

struct scan {
	const struct og_namemap *local; /* the file's names -> counter entry or NOT_A_COUNTER */
	uint32_t *edges;                /* entries named, every counter's in turn */
	size_t count, cap;
	bool oom;
};

/* Notes the file's counters an expression names.  Every name resolves (to a
 * stand-in raw counter) so that the whole expression is read; the real
 * compile reports what is wrong with it. */
static bool record(void *ud, const char *name, size_t len, struct og_expr_ref *out)
{
	struct scan *sc = ud;
	uint32_t entry;
	if (og_namemap_find(sc->local, name, len, &entry) && entry != NOT_A_COUNTER) {
		if (sc->count == sc->cap) {
			size_t cap = sc->cap ? 2 * sc->cap : 64;
			uint32_t *e = realloc(sc->edges, cap * sizeof(*e));
			if (!e) {
				sc->oom = true;
				return false;
			}
			sc->edges = e;
			sc->cap = cap;
		}
		sc->edges[sc->count++] = entry;
	}
	*out = (struct og_expr_ref){ .kind = OG_REF_RAW, .index = 0 };
	return true;
}

static bool report(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static bool report(char *err, size_t errlen, const char *fmt, ...)
{
	if (err && errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return false;
}

/* "A → B → A": the counters on the walk from `from` to its end, and back. */
static void describe_cycle(const struct og_cf_file *file, const uint32_t *walk, size_t from,
                           size_t depth, char *err, size_t errlen)
{
	const struct og_cf_entry *first = &file->entries[walk[from]];
	int n = snprintf(err, errlen, "%s:%u: counter %s depends on itself: ", file->origin,
	                 first->line, first->name);
	size_t at = n < 0 ? errlen : (size_t)n;
	for (size_t k = from; k < depth && at < errlen; k++) {
		n = snprintf(err + at, errlen - at, "%s → ", file->entries[walk[k]].name);
		at += n < 0 ? errlen : (size_t)n;
	}
	if (at < errlen)
		snprintf(err + at, errlen - at, "%s", first->name);
}

/* Maps a counter's name or alias to its entry, unless the name is taken:
 * then the name means whatever took it first, and adding the counter will
 * report the clash. */
static bool map_counter_name(struct og_namemap *local, og_cf_name_taken_fn *taken, void *ud,
                             const char *name, size_t len, size_t entry)
{
	uint32_t existing;
	if (og_namemap_find(local, name, len, &existing) || (taken && taken(ud, name, len)))
		return true;
	return og_namemap_put(local, name, len, (uint32_t)entry);
}

bool og_cf_counter_order(const struct og_cf_file *file, og_cf_name_taken_fn *taken, void *ud,
                         size_t *order, size_t *count, char *err, size_t errlen)
{
	*count = 0;
	if (err && errlen)
		err[0] = '\0';
	size_t n = file->count;
	struct og_namemap local = { 0 };
	struct scan sc = { .local = &local };
	size_t *first = calloc(n + 1, sizeof(*first)); /* edges of entry i: [first[i], first[i+1]) */
	uint8_t *state = calloc(n + 1, 1);              /* 0 new, 1 on the walk, 2 ordered */
	uint32_t *walk = calloc(n + 1, sizeof(*walk));
	size_t *cursor = calloc(n + 1, sizeof(*cursor));
	size_t *position = calloc(n + 1, sizeof(*position)); /* of an entry on the walk */
	bool ok = first && state && walk && cursor && position;

	/* Raw counters and constants first: they are names before any counter. */
	for (size_t i = 0; ok && i < n; i++) {
		const struct og_cf_entry *e = &file->entries[i];
		uint32_t existing;
		if (e->kind != OG_CF_COUNTER && !og_namemap_find(&local, e->name, strlen(e->name), &existing))
			ok = og_namemap_put(&local, e->name, strlen(e->name), NOT_A_COUNTER);
	}
	for (size_t i = 0; ok && i < n; i++) {
		const struct og_cf_entry *e = &file->entries[i];
		if (e->kind != OG_CF_COUNTER)
			continue;
		ok = map_counter_name(&local, taken, ud, e->name, strlen(e->name), i);
		const char *list = e->field[OG_F_ALIAS], *alias;
		size_t len;
		while (ok && og_cf_next_word(&list, &alias, &len))
			ok = map_counter_name(&local, taken, ud, alias, len, i);
	}
	for (size_t i = 0; ok && i < n; i++) {
		first[i] = sc.count;
		const struct og_cf_entry *e = &file->entries[i];
		if (e->kind == OG_CF_COUNTER)
			og_expr_free(og_expr_compile(e->field[OG_F_EXPRESSION], record, &sc, NULL, 0));
		ok = !sc.oom;
	}
	if (ok)
		first[n] = sc.count;

	for (size_t root = 0; ok && root < n; root++) {
		if (file->entries[root].kind != OG_CF_COUNTER || state[root])
			continue;
		size_t depth = 0;
		walk[depth] = (uint32_t)root;
		cursor[depth] = first[root];
		position[root] = depth++;
		state[root] = 1;
		while (ok && depth) {
			uint32_t at = walk[depth - 1];
			if (cursor[depth - 1] == first[at + 1]) {
				state[at] = 2;
				order[(*count)++] = at;
				depth--;
				continue;
			}
			uint32_t next = sc.edges[cursor[depth - 1]++];
			if (state[next] == 1) {
				describe_cycle(file, walk, position[next], depth, err, errlen);
				ok = false;
			} else if (state[next] == 0) {
				walk[depth] = next;
				cursor[depth] = first[next];
				position[next] = depth++;
				state[next] = 1;
			}
		}
	}
	if (ok == false && err && errlen && !err[0])
		report(err, errlen, "%s: out of memory ordering its counters", file->origin);
	og_namemap_free(&local);
	free(sc.edges);
	free(first);
	free(state);
	free(walk);
	free(cursor);
	free(position);
	return ok;
}
