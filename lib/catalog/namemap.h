/* SPDX-License-Identifier: MIT */
/*
 * namemap.h — a case-insensitive map from names to small integers, for the
 * catalogue's uniqueness checks and name resolution at context open.  Keys
 * are borrowed: they must outlive the map.
 */
#ifndef OPENGPA_CATALOG_NAMEMAP_H
#define OPENGPA_CATALOG_NAMEMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct og_namemap {
	struct og_namemap_slot {
		const char *key;
		size_t len;
		uint32_t value;
	} *slots;
	size_t cap, count;
};

/* false on allocation failure; an existing key keeps its value (use find first). */
bool og_namemap_put(struct og_namemap *m, const char *key, size_t len, uint32_t value);
bool og_namemap_find(const struct og_namemap *m, const char *key, size_t len, uint32_t *value);
void og_namemap_free(struct og_namemap *m);

#endif
