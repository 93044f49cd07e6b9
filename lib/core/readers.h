/* SPDX-License-Identifier: MIT */
/*
 * readers.h — reading finished results without the registry lock.
 *
 * A 2.x client reads results one value per call, from one thread or many;
 * the registry lock (two atomic read-modify-writes) would cost more than
 * the value.  So a GPA_GetSample* call whose answer is already there reads
 * it inside a read section instead (og_read_enter/og_read_exit): two plain
 * stores to the calling thread's own record.  What such a reader can reach
 * (the current context, its ring, a finished session) is only freed after
 * og_readers_sync(): the writer first unlinks it, then membarrier(2) puts a
 * full barrier on every thread of the process, then it waits for the
 * readers that were inside a section to leave it.  Readers never wait.
 *
 * A thread gets its record from its first locked read (og_reader_join);
 * without one (a new thread, or membarrier refused, as under a seccomp
 * filter; valgrind 3.19 and qemu-user 7.2 pass it through)
 * every read takes the lock.  Anything but a plain answer
 * (an error, a result still to wait for, trace logging) takes the lock too,
 * so the locked path keeps saying what is wrong.
 */
#ifndef OPENGPA_CORE_READERS_H
#define OPENGPA_CORE_READERS_H

#include <stdbool.h>
#include <stdint.h>

struct recipe;

/* The thread's last session found by an unlocked read, so that reading
 * another value of it follows two pointers instead of seven (issue 29).
 * Valid while ncatalog is not 0 and id is the session's: whatever a cached
 * look-up depends on changes under the lock through og_readers_changed
 * (the current context, trace logging, the enabled counters;
 * og_readers_sync, before it frees anything), which empties every record's
 * cache (ncatalog 0), so a hit compares the id, and the counter with
 * ncatalog as GPA's check of it does anyway.  A read section that fills
 * its cache while that happens sees read_gen change and empties it itself
 * (cache_fill in session_results.c says why that is enough).  Only the
 * record's thread writes the rest, inside its read sections, and reads
 * id: a plain field, which a compare takes from memory.  A session is
 * kept only while its context's enabled counters are the ones it began
 * with (og_selection.version), and every change of them empties the
 * caches: so a counter the session counts is an enabled one, and a hit
 * tests no enabled flag. */
struct og_read_cache {
	uint32_t id; /* the session; whatever it is while ncatalog is 0 */
	/* Atomic: og_readers_changed empties the cache from another thread.
	 * 0 sends every read on: an emptied cache to the look-up again. */
	uint32_t ncatalog;
	uint32_t first_id;
	size_t nsamples;
	size_t stride; /* a sample's row, in bytes */
	const struct recipe *const *recipe_of;
	const uint64_t *values;
};

/* What a cached read touches (seq and the cache) in its first line;
 * what only writers walk after. */
struct og_reader {
	uint32_t seq; /* odd: inside a read section; written by its thread only */
	struct og_read_cache cache;
	bool in_use;  /* a live thread has it (lock held to change) */
	struct og_reader *next;
} __attribute__((aligned(64))); /* lines of its own: readers do not share */

/* The thread's record; &og_no_reader (never NULL) until it has one, so
 * that a cached read enters its section with no test first.  Nothing
 * waits on og_no_reader, and its cache never answers (ncatalog 0): a read
 * through it goes on to the look-up, which sees it is not a record. */
extern __thread struct og_reader *og_this_reader __attribute__((tls_model("initial-exec")));
extern struct og_reader og_no_reader __attribute__((visibility("hidden")));
/* Nonzero while every read must take the lock (trace logging is on). */
extern unsigned og_read_locked;

/* NULL: take the lock.  Else *seq is the odd value stored, for
 * og_read_exit: leaving does not load the record again, so the only chain
 * from one call's section to the next is this load of the previous exit's
 * store (one store-to-load forward, not two: issue 29). */
static inline struct og_reader *og_read_enter(uint32_t *seq)
{
	struct og_reader *rd = og_this_reader;
	if (rd == &og_no_reader || __atomic_load_n(&og_read_locked, __ATOMIC_RELAXED))
		return NULL;
	/* Only this thread stores it: a relaxed load sees its own last store. */
	*seq = __atomic_load_n(&rd->seq, __ATOMIC_RELAXED) + 1;
	__atomic_store_n(&rd->seq, *seq, __ATOMIC_RELAXED);
	/* The compiler keeps the loads after the store; membarrier does the
	 * same for the processor when a writer needs it. */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return rd;
}

/* og_read_enter for a read that uses its record's cache: a change of
 * og_read_locked empties every cache (og_log_changed), so a cache that
 * answers was filled while it was clear.  Never NULL: og_no_reader's cache answers nothing
 * (its seq is written by every thread without a record, atomically, and
 * read by none). */
static inline struct og_reader *og_read_enter_cached(uint32_t *seq)
{
	struct og_reader *rd = og_this_reader;
	*seq = __atomic_load_n(&rd->seq, __ATOMIC_RELAXED) + 1;
	__atomic_store_n(&rd->seq, *seq, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return rd;
}

/* seq: what og_read_enter gave. */
static inline void og_read_exit(struct og_reader *rd, uint32_t seq)
{
	__atomic_store_n(&rd->seq, seq + 1, __ATOMIC_RELEASE);
}

/* Lock held.  Gives this thread a record if it has none (and membarrier
 * works here). */
void og_reader_join(void);
/* Lock held.  Returns once no reader can still see what the caller has
 * unlinked: free it after.  Empties every record's cache first. */
void og_readers_sync(void);
/* Lock held.  Something a cached look-up depends on changed (the current
 * context, the enabled counters, trace logging): read_gen changes and
 * every record's cache is emptied. */
void og_readers_changed(void);
/* An empty cache, as og_readers_changed leaves it: its id is left alone
 * (only its thread reads or writes it). */
static inline void og_read_cache_empty(struct og_read_cache *c)
{
	__atomic_store_n(&c->ncatalog, 0, __ATOMIC_RELAXED);
}

#endif
