/* SPDX-License-Identifier: MIT */
/*
 * mali_gpus.h — every Mali GPU opengpa knows: product id -> name, the
 * counter set (one per hardware counter layout), the front end the kbase
 * driver speaks to it (job manager or command stream) and the values per
 * counter block.  Restated from the GPU table of the kinstr_prfcnt
 * reference (section 6) and Arm's product list (Mali-ProductInfo.xml);
 * tests/backends/mali/test_mali_gpus.c checks it against that file.
 */
#ifndef OPENGPA_MALI_GPUS_H
#define OPENGPA_MALI_GPUS_H

#include <stddef.h>
#include <stdint.h>

enum og_mali_frontend {
	OG_MALI_FRONTEND_JM,  /* job manager: kbase JM drivers, panfrost */
	OG_MALI_FRONTEND_CSF, /* command stream front end: kbase CSF drivers, panthor */
};

struct og_mali_product {
	uint16_t id;              /* (arch_major << 12) | product_major */
	const char *name;         /* "Mali-G610" */
	const char *architecture; /* "Bifrost", "Valhall", "5th Generation" */
	const char *counter_set;  /* counters/<counter_set>.counters: "mali-g710" */
	enum og_mali_frontend frontend;
	uint8_t values_per_block; /* 64 (4 header + 60), or 128 from arch 11 */
};

/* Product ids compare arch_major and product_major only (mask 0xF00F):
 * arch_minor and arch_rev change between revisions of one product. */
#define OG_MALI_PRODUCT_MASK 0xF00Fu

/* The product for a PRODUCT_ID (GPU_ID >> 16), or NULL. */
const struct og_mali_product *og_mali_product_find(uint32_t product_id);
/* The whole table, for tests and `opengpa list`. */
const struct og_mali_product *og_mali_products(size_t *count);
/* "Mali-T760" for the Midgard ids kbase still reports (no counter set). */
const char *og_mali_midgard_name(uint32_t product_id);

#endif
