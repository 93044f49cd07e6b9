/* SPDX-License-Identifier: MIT */
/* catalog_compile.c — the counters of a counter file compiled from their
 * text: in the order counterorder.h gives (each after the counters it
 * names), into drafts laid out in file order; a user's counter naming what
 * this device lacks skipped or left unavailable; and the raw counters a
 * compiled expression reads.  Calls catalog_names.c. */
#include "catalog/catalog_build.h"

#include <stdlib.h>
#include <string.h>

#include "catalog/counterorder.h"

/* Compiles counter e of file into draft `index` (the drafts keep file order,
 * whatever order the counters compile in). */
GPA_Status og_cat_add_counter(struct builder *b, const struct og_cf_file *file,
                              const struct og_cf_entry *e, size_t index, bool user)
{
	struct draft *d = &b->drafts[index];
	*d = (struct draft){ .decl = e, .file = file };
	char msg[256];
	b->missing = NULL;
	b->skipped_name = NULL;
	d->expr = og_expr_compile(e->field[OG_F_EXPRESSION], og_cat_resolve, b, msg, sizeof(msg));
	if (!d->expr) {
		free(b->missing);
		b->missing = NULL;
		/* An unknown name in a user's file may be a counter of another device. */
		if (user && strstr(msg, "unknown name")) {
			d->skipped = true;
			if (b->binder->log && b->skipped_name)
				b->binder->log(b->binder->ud, true,
				               "%s:%u: counter %s skipped: it names counter %s, which was "
				               "skipped", file->origin, e->line, e->name, b->skipped_name);
			else if (b->binder->log)
				b->binder->log(b->binder->ud, true,
				               "%s:%u: counter %s skipped: %s (not a counter, raw counter or "
				               "constant of this device)",
				               file->origin, e->line, e->name, msg);
			/* Its name stays free; counters that name it are skipped too. */
			if (!og_namemap_put(&b->skipped, e->name, strlen(e->name), (uint32_t)index))
				return og_cat_fail(b, "out of memory");
			return GPA_STATUS_OK;
		}
		return og_cat_fail(b, "%s:%u: counter %s: expression %s", file->origin, e->line, e->name, msg);
	}
	const struct og_expr_op *ops;
	b->compiled_ops += og_expr_postfix(d->expr, &ops);
	if (b->compiled_ops > OG_CATALOG_MAX_OPS)
		return og_cat_fail(b, "%s:%u: counter %s: the counter files compile to more than %d "
		               "operations in all, the limit of one context (docs/counter-files.md, "
		               "\"Limits\")", file->origin, e->line, e->name, OG_CATALOG_MAX_OPS);
	if (b->missing) {
		d->reason = b->missing;
		b->missing = NULL;
		og_expr_free(d->expr);
		d->expr = NULL;
		if (user && b->binder->log)
			b->binder->log(b->binder->ud, false, "%s:%u: counter %s is not offered: %s",
			               file->origin, e->line, e->name, d->reason);
	}
	return og_cat_name_counter(b, file, e, index);
}

static bool name_taken(void *ud, const char *name, size_t len)
{
	const struct builder *b = ud;
	uint32_t v;
	return og_namemap_find(&b->names, name, len, &v);
}

/* The counters of one file: each compiled after the counters of the file it
 * names (counterorder.h), into drafts laid out in file order. */
GPA_Status og_cat_add_counters(struct builder *b, const struct og_cf_file *file, bool user)
{
	size_t *order = malloc((file->count + 1) * sizeof(*order));
	size_t *draft_of = malloc((file->count + 1) * sizeof(*draft_of)); /* by entry */
	size_t n = 0;
	char msg[512];
	GPA_Status st = GPA_STATUS_OK;
	if (!order || !draft_of)
		st = og_cat_fail(b, "out of memory");
	else if (!og_cf_counter_order(file, name_taken, b, order, &n, msg, sizeof(msg)))
		st = og_cat_fail(b, "%s", msg);
	for (size_t i = 0; st == GPA_STATUS_OK && i < file->count; i++)
		if (file->entries[i].kind == OG_CF_COUNTER)
			draft_of[i] = b->ndrafts++;
	for (size_t k = 0; st == GPA_STATUS_OK && k < n; k++)
		st = og_cat_add_counter(b, file, &file->entries[order[k]], draft_of[order[k]], user);
	free(order);
	free(draft_of);
	return st;
}

/* The distinct raw counters expr reads, in the order it first reads them
 * (one allocation); false without memory. */
bool og_cat_collect_inputs(const struct og_expr *expr, uint32_t **items, size_t *count)
{
	const struct og_expr_op *ops;
	size_t nops = og_expr_postfix(expr, &ops), n = 0;
	*count = 0;
	*items = malloc((nops + 1) * sizeof(**items));
	if (!*items)
		return false;
	for (size_t i = 0; i < nops; i++) {
		if (ops[i].code != OG_OP_RAW)
			continue;
		size_t k = 0;
		while (k < n && (*items)[k] != ops[i].index)
			k++;
		if (k == n)
			(*items)[n++] = ops[i].index;
	}
	*count = n;
	return true;
}

