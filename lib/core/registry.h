/* SPDX-License-Identifier: MIT */
/*
 * registry.h — the one piece of global mutable state in opengpa: the list
 * of open contexts, the current one, logging and the settings for the next
 * context, all behind one mutex.  Only the core's own files include this,
 * and the 3.x/4.x entries (api/table.h: the lock and handle lookup inline).
 */
#ifndef OPENGPA_CORE_REGISTRY_H
#define OPENGPA_CORE_REGISTRY_H

#include "catalog/catalog_cache.h"
#include "catalog/datafile.h"
#include "core/core.h"

#define OG_LOG_QUEUE 32
#define OG_LOG_LINE 512

struct og_registry {
	pthread_mutex_t lock;
	pthread_cond_t changed; /* a session ended or a context closed */

	struct og_context *contexts;
	struct og_context *current; /* 2.x */
	/* Changes whenever a read without the lock could find something else:
	 * another current context, the enabled counters, trace logging, or
	 * something unlinked (og_readers_changed; a reader filling its cache
	 * compares it before and after: readers.h). */
	unsigned long read_gen;
	uint64_t next_serial;

	enum og_front front; /* whose call holds the lock */
	struct og_log_callback {
		GPA_LoggingCallbackPtrType fn;
		unsigned mask;
	} callback[OG_FRONT_COUNT];
	/* GPA_RegisterLoggingDebugCallback: also sees the 2.x front's messages. */
	GPA_LoggingDebugCallbackPtrType debug_callback;
	unsigned debug_mask;
	unsigned stderr_mask;
	bool stderr_mask_read;
	/* Per front, every level someone listens to (og_log_changed keeps it):
	 * og_log_wants, asked on every call, is one load.  OG_LOG_WANTS_UNREAD
	 * while OPENGPA_LOG has not been read yet. */
	unsigned log_wants[OG_FRONT_COUNT];
	/* Each message goes to the callbacks registered when it was raised
	 * (GpaDestroy drops its front's callback after logging). */
	struct og_log_entry {
		enum og_log_level level;
		enum og_front front;
		GPA_LoggingCallbackPtrType to;
		GPA_LoggingDebugCallbackPtrType debug;
		char text[OG_LOG_LINE];
	} queue[OG_LOG_QUEUE];
	unsigned queued, dropped;

	/* Handles (handles.c): slots[i] is live when handle != 0, the value
	 * og_handle_new returned for it (kind and generation included). */
	struct og_handle_slot {
		void *object;
		uintptr_t handle;
		uint32_t generation;
		uint32_t next_free;
	} *slots;
	uint32_t nslots, free_slot; /* free_slot: 1 + first free, 0 = none */

	bool table_initialized; /* GpaInitialize was called (3.x/4.x) */

	/* Catalogues kept between opens (catalog_cache.h). */
	struct og_catalog_cache catalogs;
	struct og_datafile datafile; /* -Dcounter_sets: the sets a build lacks */

	struct og_settings settings;
};

#define OG_LOG_WANTS_UNREAD 0x80000000u

/* Hidden: the library reads it at a fixed offset from its code, not through
 * the GOT (one load less on every unlocked read). */
extern struct og_registry og_registry_instance __attribute__((visibility("hidden")));

/* Lock held (but for readers.h's read sections). */
static inline struct og_registry *og_registry(void)
{
	return &og_registry_instance;
}

/* og_lock_as and og_unlock inline, for the 3.x/4.x entries (three a
 * Vulkan sample): no call into the core around the mutex's own.  A message
 * queued under the lock still goes out through og_unlock. */
static inline void og_lock_front(enum og_front front)
{
	pthread_mutex_lock(&og_registry_instance.lock);
	og_registry_instance.front = front;
}

static inline void og_unlock_front(void)
{
	if ((og_registry_instance.queued | og_registry_instance.dropped) == 0)
		pthread_mutex_unlock(&og_registry_instance.lock);
	else
		og_unlock();
}

/* ---- handles (the layout is handles.c's): inline, every 3.x/4.x entry
 * looks one up ---- */

#if UINTPTR_MAX > 0xFFFFFFFFu
#define OG_HANDLE_SLOT_BITS 24
#define OG_HANDLE_SLOT_SHIFT 8
#define OG_HANDLE_GEN_SHIFT 32
#define OG_HANDLE_GEN_MASK 0xFFFFFFFFu
#else
#define OG_HANDLE_SLOT_BITS 16
#define OG_HANDLE_SLOT_SHIFT 4
#define OG_HANDLE_GEN_SHIFT 20
#define OG_HANDLE_GEN_MASK 0xFFFu
#endif

static inline void *og_handle_pack(uint32_t slot, uint32_t generation, enum og_handle_kind kind)
{
	uintptr_t v = ((uintptr_t)generation << OG_HANDLE_GEN_SHIFT) |
	              ((uintptr_t)slot << OG_HANDLE_SLOT_SHIFT) | (uintptr_t)kind;
	return (void *)v;
}

/* The live slot `handle` names with `kind`, or NULL.  The slot keeps its
 * whole handle, so one compare checks the generation, the kind and the
 * unused bits: a handle of 0 (a freed slot's) has no kind. */
static inline struct og_handle_slot *og_handle_lookup(const void *handle, enum og_handle_kind kind)
{
	struct og_registry *r = og_registry();
	uintptr_t v = (uintptr_t)handle;
	uint32_t slot = (uint32_t)((v >> OG_HANDLE_SLOT_SHIFT) &
	                           ((1u << OG_HANDLE_SLOT_BITS) - 1));
	if ((v & 0xF) != (uintptr_t)kind || slot >= r->nslots)
		return NULL;
	struct og_handle_slot *s = &r->slots[slot];
	return s->handle == v ? s : NULL;
}

/* og_handle_get, inline. */
static inline void *og_handle_object(enum og_handle_kind kind, const void *handle)
{
	const struct og_handle_slot *s = og_handle_lookup(handle, kind);
	return s ? s->object : NULL;
}

/* Whether a TRACE message of `front` (the front holding the lock) may be
 * wanted: one load, for the entry points' traces.  True also before
 * OPENGPA_LOG is read; og_log then asks og_log_wants, which reads it. */
static inline bool og_trace_maybe_wanted(enum og_front front)
{
	return og_registry_instance.log_wants[front] & (OG_LOG_TRACE | OG_LOG_WANTS_UNREAD);
}

#endif
