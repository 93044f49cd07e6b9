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
 * without one (a new thread, or membarrier refused, as under valgrind or a
 * seccomp filter) every read takes the lock.  Anything but a plain answer
 * (an error, a result still to wait for, trace logging) takes the lock too,
 * so the locked path keeps saying what is wrong.
 */
#ifndef OPENGPA_CORE_READERS_H
#define OPENGPA_CORE_READERS_H

#include <stdbool.h>
#include <stdint.h>

struct og_reader {
	uint32_t seq; /* odd: inside a read section; written by its thread only */
	bool in_use;  /* a live thread has it (lock held to change) */
	struct og_reader *next;
} __attribute__((aligned(64))); /* a line of its own: readers do not share */

extern __thread struct og_reader *og_this_reader __attribute__((tls_model("initial-exec")));
/* Nonzero while every read must take the lock (trace logging is on). */
extern unsigned og_read_locked;

/* NULL: take the lock. */
static inline struct og_reader *og_read_enter(void)
{
	struct og_reader *rd = og_this_reader;
	if (!rd || __atomic_load_n(&og_read_locked, __ATOMIC_RELAXED))
		return NULL;
	__atomic_store_n(&rd->seq, rd->seq + 1, __ATOMIC_RELAXED);
	/* The compiler keeps the loads after the store; membarrier does the
	 * same for the processor when a writer needs it. */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	return rd;
}

static inline void og_read_exit(struct og_reader *rd)
{
	__atomic_store_n(&rd->seq, rd->seq + 1, __ATOMIC_RELEASE);
}

/* Lock held.  Gives this thread a record if it has none (and membarrier
 * works here). */
void og_reader_join(void);
/* Lock held.  Returns once no reader can still see what the caller has
 * unlinked: free it after. */
void og_readers_sync(void);

#endif
