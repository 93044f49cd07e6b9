/* SPDX-License-Identifier: MIT */
/*
 * handles.c — opaque handles for the 3.x/4.x front ends (core.h).
 *
 * A handle packs, into a pointer-sized value, the kind of object (bits
 * 0-3), a slot of the registry's table and that slot's generation:
 *
 *   64-bit: generation (32 bits) | slot (24 bits) | 0000 | kind
 *   32-bit: generation (12 bits) | slot (16 bits) | kind (4 bits)
 *
 * Generations start at 1, so no handle has the upper bits clear: values
 * such as 0xBADF00D or a real pointer never name a live slot of the right
 * kind and generation.  Deleting an object bumps its slot's generation, so
 * its old handles fail.  On 32-bit targets a slot reused 4095 times wraps
 * its generation, and a very old handle could then name a newer object of
 * the same kind (docs/api-gpa3.md).
 */
#include <stdlib.h>

#include "core/registry.h"

/* The layout's constants, og_handle_pack and og_handle_lookup are in
 * registry.h (the entry points look handles up inline). */
#define MAX_SLOTS (1u << OG_HANDLE_SLOT_BITS)

void *og_handle_new(enum og_handle_kind kind, void *object)
{
	struct og_registry *r = og_registry();
	if (!r->free_slot) {
		if (r->nslots == MAX_SLOTS)
			return NULL;
		uint32_t cap = r->nslots ? r->nslots * 2 : 16;
		struct og_handle_slot *slots = realloc(r->slots, cap * sizeof(*slots));
		if (!slots)
			return NULL;
		for (uint32_t i = r->nslots; i < cap; i++)
			slots[i] = (struct og_handle_slot){ .next_free = i + 1 < cap ? i + 2 : 0 };
		r->slots = slots;
		r->free_slot = r->nslots + 1;
		r->nslots = cap;
	}
	uint32_t slot = r->free_slot - 1;
	struct og_handle_slot *s = &r->slots[slot];
	r->free_slot = s->next_free;
	s->generation = (s->generation + 1) & OG_HANDLE_GEN_MASK;
	if (s->generation == 0)
		s->generation = 1;
	s->object = object;
	void *handle = og_handle_pack(slot, s->generation, kind);
	s->handle = (uintptr_t)handle;
	return handle;
}

void *og_handle_get(enum og_handle_kind kind, const void *handle)
{
	return og_handle_object(kind, handle);
}

void og_handle_free(const void *handle)
{
	struct og_registry *r = og_registry();
	for (enum og_handle_kind k = OG_HANDLE_CONTEXT; k <= OG_HANDLE_COMMAND_LIST; k++) {
		struct og_handle_slot *s = og_handle_lookup(handle, k);
		if (!s)
			continue;
		s->handle = 0;
		s->object = NULL;
		s->next_free = r->free_slot;
		r->free_slot = (uint32_t)(s - r->slots) + 1;
		return;
	}
}
