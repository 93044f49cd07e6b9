/* SPDX-License-Identifier: MIT */
/*
 * counterorder.h — the order a file's counters are compiled in.
 *
 * A counter may name any counter of its own file, before or after it (and
 * counters of files loaded earlier, which are compiled already).  Each is
 * compiled after the counters of its file it names, in file order where
 * nothing forces another; a counter that depends on itself, directly or
 * through others, is an error that names the cycle ("A → B → A").  Shared by
 * the catalogue and the build-time generator (native_gen.c), so both compile
 * the same counters in the same order.
 */
#ifndef OPENGPA_CATALOG_COUNTERORDER_H
#define OPENGPA_CATALOG_COUNTERORDER_H

#include <stdbool.h>
#include <stddef.h>

#include "catalog/counterfile.h"

/* Whether a name is already defined outside the file (NULL: nothing is).
 * A counter or alias whose name is taken, here or there, is not one the
 * file's expressions can mean: its clash is reported when it is added. */
typedef bool og_cf_name_taken_fn(void *ud, const char *name, size_t len);

/* Writes the indices (into file->entries) of the file's counter entries to
 * order[], dependencies first, and their number to *count; order must have
 * room for every entry.  On a cycle, or without memory, returns false with
 * "origin:line: counter A depends on itself: A → B → A" in err. */
bool og_cf_counter_order(const struct og_cf_file *file, og_cf_name_taken_fn *taken, void *ud,
                         size_t *order, size_t *count, char *err, size_t errlen);

#endif
