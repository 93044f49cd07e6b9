/* SPDX-License-Identifier: MIT */
/* native.c — finding and checking the C generated for built-in counters. */
#include "native.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct key {
	const char *origin, *name;
};

static int compare(const void *k, const void *element)
{
	const struct key *key = k;
	const struct og_native_counter *n = element;
	int c = strcmp(key->origin, og_native_origin(n));
	return c ? c : strcasecmp(key->name, og_native_name(n));
}

const struct og_native_counter *og_native_find(const char *origin, const char *name)
{
	if (og_native_counter_count == 0)
		return NULL;
	struct key key = { origin, name };
	return bsearch(&key, og_native_counters, og_native_counter_count,
	               sizeof(og_native_counters[0]), compare);
}

const struct og_native_set *og_native_set_for(const char *origin)
{
	for (size_t i = 0; i < og_native_set_count; i++)
		if (strcmp(og_native_sets[i].origin, origin) == 0)
			return &og_native_sets[i];
	return NULL;
}

bool og_native_matches(const struct og_native_counter *n, const struct og_expr *e,
                       uint32_t *at_raw, uint32_t nraw, uint32_t *at_const, uint32_t nconst)
{
	const struct og_expr_op *ops;
	if (og_expr_postfix(e, &ops) != n->nshape)
		return false;
	const struct og_expr_op *shape = og_native_shape(n);
	for (uint32_t i = 0; i < n->nshape; i++) {
		const struct og_expr_op *want = &shape[i], *got = &ops[i];
		if (want->code != got->code)
			return false;
		uint32_t *at = want->code == OG_OP_RAW ? at_raw : at_const;
		uint32_t nslots = want->code == OG_OP_RAW ? nraw : nconst;
		switch (want->code) {
		case OG_OP_NUMBER:
			/* Bit for bit: 0.0 and -0.0 differ under division. */
			if (memcmp(&want->number, &got->number, sizeof(double)) != 0)
				return false;
			break;
		case OG_OP_RAW:
		case OG_OP_CONSTANT:
			if (want->index >= nslots || got->index == UINT32_MAX)
				return false;
			if (at[want->index] == UINT32_MAX)
				at[want->index] = got->index;
			else if (at[want->index] != got->index)
				return false;
			break;
		case OG_OP_SHARE:
		case OG_OP_SHARED:
			if (want->index != got->index)
				return false;
			break;
		default:
			break;
		}
	}
	return true;
}
