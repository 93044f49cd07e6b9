/* SPDX-License-Identifier: MIT */
/* catalog_tables.c — a built-in first file opened from its build-time
 * tables (builtin.h) rather than its text: each counter offered when what it
 * names is, its expression assembled, not parsed; the names added to the map
 * only when something after the file needs them; and each set's expressions
 * assembled once per process and shared by every context.  Calls
 * catalog_compile.c (a counter without tables) and catalog_names.c. */
#include "catalog/catalog_build.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/builtin.h"

/* ---- built-in sets compiled once per process ---------------------------
 *
 * A built-in first file's expressions do not depend on the device: the
 * tables give every raw counter and constant its catalogue index, and an
 * expression is the same whether or not what it names is countable (a
 * context that cannot count it does not offer the counter).  So each set's
 * expressions are assembled once, on the first open that needs them, and
 * every context's catalogue points at them. */

static pthread_mutex_t shared_lock = PTHREAD_MUTEX_INITIALIZER;
static struct shared_counter **shared_sets; /* per og_builtin_sets entry; NULL: not made */
static bool shared_failed;                  /* out of memory once: assemble per context */

/* Per entry of `set` (expr NULL but for the counters it has tables for). */
static const struct shared_counter *shared_counters(const struct og_builtin_set *set)
{
	size_t which = set->index;
	pthread_mutex_lock(&shared_lock);
	struct shared_counter *made = NULL;
	if (!shared_sets && !shared_failed)
		shared_sets = calloc(og_builtin_set_count + 1, sizeof(*shared_sets));
	if (shared_sets && !shared_sets[which] && !shared_failed) {
		size_t n = set->file.count;
		/* Room for the most regions and slots of any counter. */
		uint32_t most_regions = 1, most_slots = 1;
		for (size_t i = 0; i < n; i++)
			if (set->counter[i]) {
				if (set->counter[i]->nregions > most_regions)
					most_regions = set->counter[i]->nregions;
				if (set->counter[i]->nslots > most_slots)
					most_slots = set->counter[i]->nslots;
			}
		struct og_expr_region *regions = malloc(most_regions * sizeof(*regions));
		const struct og_expr **slots = malloc(most_slots * sizeof(*slots));
		made = calloc(n + 1, sizeof(*made));
		bool ok = regions && slots && made;
		for (uint32_t k = 0; ok && k < set->norder; k++) {
			uint32_t i = set->order[k];
			const struct og_builtin_counter *t = set->counter[i];
			if (!t)
				continue;
			/* What it inlines was compiled before it, from its tables: a
			 * counter without tables is compiled from its text per context
			 * and cannot be shared, nor can what inlines it. */
			bool inlined = true;
			for (uint32_t r = 0; inlined && r < t->nregions; r++) {
				inlined = made[t->regions[r].entry].expr != NULL;
				regions[r] = (struct og_expr_region){ made[t->regions[r].entry].expr,
				                                      t->regions[r].start, t->regions[r].end };
			}
			for (uint32_t r = 0; inlined && r < t->nslots; r++)
				inlined = (slots[r] = made[t->slot_of[r]].expr) != NULL;
			if (!inlined)
				continue;
			made[i].expr = og_expr_assemble(t->ops, t->nops, regions, t->nregions, slots,
			                                t->nslots);
			ok = made[i].expr && og_cat_collect_inputs(made[i].expr, &made[i].inputs, &made[i].ninputs);
		}
		free(regions);
		free(slots);
		if (ok) {
			shared_sets[which] = made;
		} else {
			for (size_t i = 0; made && i < n; i++) {
				og_expr_free(made[i].expr);
				free(made[i].inputs);
			}
			free(made);
			shared_failed = true;
		}
	}
	const struct shared_counter *out = shared_sets ? shared_sets[which] : NULL;
	pthread_mutex_unlock(&shared_lock);
	return out;
}

/* Counter e of a built-in first file into draft `index`, from its tables:
 * offered when everything it names is (the reason otherwise the one its
 * text's compile gives), its expression assembled, not parsed. */
static GPA_Status add_counter_from_table(struct builder *b, const struct og_cf_file *file,
                                         const struct og_cf_entry *e,
                                         const struct og_builtin_counter *t,
                                         const size_t *draft_of, size_t index)
{
	struct og_catalog *cat = b->cat;
	struct draft *d = &b->drafts[index];
	*d = (struct draft){ .decl = e, .file = file };
	for (uint32_t k = 0; !d->reason && k < t->nrefs; k++) {
		const struct og_builtin_ref *r = &t->refs[k];
		if (r->kind == OG_CF_RAW && !cat->raws[r->index].available)
			d->reason = og_cat_raw_missing(&cat->raws[r->index]);
		else if (r->kind == OG_CF_CONSTANT && !cat->constants[r->index].known)
			d->reason = og_cat_constant_missing(cat->constants[r->index].decl);
		else if (r->kind == OG_CF_COUNTER && !b->drafts[draft_of[r->index]].expr)
			d->reason = og_cat_counter_missing(&b->drafts[draft_of[r->index]]);
		else
			continue;
		if (!d->reason)
			return og_cat_fail(b, "out of memory");
	}
	const struct shared_counter *sh = b->shared ? &b->shared[e - file->entries] : NULL;
	if (!d->reason && sh && sh->expr) {
		d->expr = sh->expr;
		d->shared = sh;
		b->compiled_ops += t->nops;
	} else if (!d->reason) {
		if (t->nregions > b->regions_cap) {
			free(b->regions);
			b->regions_cap = 2 * t->nregions;
			if (!(b->regions = malloc(b->regions_cap * sizeof(*b->regions))))
				return og_cat_fail(b, "out of memory");
		}
		if (t->nslots > b->slots_cap) {
			free(b->slots);
			b->slots_cap = 2 * t->nslots;
			if (!(b->slots = malloc(b->slots_cap * sizeof(*b->slots))))
				return og_cat_fail(b, "out of memory");
		}
		/* The counters it inlines are offered too: it names each, directly
		 * or through one it names. */
		for (uint32_t k = 0; k < t->nregions; k++)
			b->regions[k] = (struct og_expr_region){
				b->drafts[draft_of[t->regions[k].entry]].expr, t->regions[k].start,
				t->regions[k].end };
		for (uint32_t k = 0; k < t->nslots; k++)
			b->slots[k] = b->drafts[draft_of[t->slot_of[k]]].expr;
		d->expr = og_expr_assemble(t->ops, t->nops, b->regions, t->nregions, b->slots,
		                           t->nslots);
		if (!d->expr)
			return og_cat_fail(b, "%s:%u: counter %s: cannot assemble its expression (out of memory)",
			            file->origin, e->line, e->name);
		b->compiled_ops += t->nops;
		if (b->compiled_ops > OG_CATALOG_MAX_OPS)
			return og_cat_fail(b, "%s:%u: counter %s: the counter files compile to more than %d "
			               "operations in all, the limit of one context (docs/counter-files.md, "
			               "\"Limits\")", file->origin, e->line, e->name, OG_CATALOG_MAX_OPS);
	}
	return og_cat_name_counter(b, file, e, index);
}

/* A built-in first file's counters, in its compile order, from its tables
 * (a counter without one compiled from its text). */
GPA_Status og_cat_add_counters_from_tables(struct builder *b, const struct og_cf_file *file)
{
	const struct og_builtin_set *set = file->builtin;
	size_t *draft_of = malloc((file->count + 1) * sizeof(*draft_of));
	if (!draft_of)
		return og_cat_fail(b, "out of memory");
	for (size_t i = 0; i < file->count; i++)
		if (file->entries[i].kind == OG_CF_COUNTER)
			draft_of[i] = b->ndrafts++;
	b->shared = shared_counters(set);
	GPA_Status st = GPA_STATUS_OK;
	for (size_t n = 0; st == GPA_STATUS_OK && n < set->norder; n++) {
		size_t i = set->order[n];
		const struct og_builtin_counter *t = set->counter[i];
		if (t) {
			st = add_counter_from_table(b, file, &file->entries[i], t, draft_of, draft_of[i]);
		} else {
			st = og_cat_names_go_live(b);
			if (st == GPA_STATUS_OK)
				st = og_cat_add_counter(b, file, &file->entries[i], draft_of[i], false);
		}
		if (!b->names_live)
			b->lazy_done = n + 1;
	}
	free(draft_of);
	return st;
}
