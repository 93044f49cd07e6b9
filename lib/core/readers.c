/* SPDX-License-Identifier: MIT */
/* readers.c — read sections and their records (readers.h). */
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/readers.h"
#include "core/registry.h"

/* A cached read touches one line of its record. */
_Static_assert(offsetof(struct og_reader, in_use) <= 64, "seq and the cache in one line");

struct og_reader og_no_reader;
__thread struct og_reader *og_this_reader
	__attribute__((tls_model("initial-exec"))) = &og_no_reader;
unsigned og_read_locked;

/* Every record made, in use or free for the next thread; never freed, so
 * a writer can always look at them.  Lock held. */
static struct og_reader *readers;
static int available; /* 0: not asked yet, 1: membarrier works, -1: it does not */
static pthread_key_t key;

/* A thread that read without the lock ends: its record is free. */
static void thread_ends(void *p)
{
	struct og_reader *rd = p;
	og_lock();
	rd->in_use = false;
	og_this_reader = &og_no_reader;
	og_unlock();
}

/* In a child of fork only the forking thread goes on. */
static void fork_child(void)
{
	for (struct og_reader *rd = readers; rd; rd = rd->next)
		if (rd != og_this_reader) {
			rd->in_use = false;
			rd->seq = 0;
		}
}

static bool membarrier_works(void)
{
	long cmds = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
	return cmds > 0 && (cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
	       syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
}

void og_reader_join(void)
{
	if (og_this_reader != &og_no_reader)
		return;
	if (!available) {
		available = membarrier_works() && pthread_key_create(&key, thread_ends) == 0 ? 1 : -1;
		if (available > 0)
			pthread_atfork(NULL, NULL, fork_child);
		else
			og_log(OG_LOG_MESSAGE, "membarrier(2) is not available here: every result is "
			       "read under the library's lock");
	}
	if (available < 0)
		return;
	struct og_reader *rd = readers;
	while (rd && rd->in_use)
		rd = rd->next;
	if (!rd) {
		rd = aligned_alloc(_Alignof(struct og_reader), sizeof(*rd));
		if (!rd)
			return;
		*rd = (struct og_reader){ .next = readers };
		readers = rd;
	}
	if (pthread_setspecific(key, rd) != 0)
		return;
	og_read_cache_empty(&rd->cache);
	rd->in_use = true;
	og_this_reader = rd;
}

/* read_gen first, then a full fence, then the caches: a reader filling
 * its cache meanwhile (cache_fill) either sees the new read_gen after its
 * own fence, or stored its cache before this empties it. */
void og_readers_changed(void)
{
	struct og_registry *r = og_registry();
	__atomic_store_n(&r->read_gen, r->read_gen + 1, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for (struct og_reader *rd = readers; rd; rd = rd->next)
		og_read_cache_empty(&rd->cache);
}

void og_readers_sync(void)
{
	og_readers_changed();
	struct og_reader *self = og_this_reader;
	bool others = false;
	for (struct og_reader *rd = readers; rd; rd = rd->next)
		others |= rd->in_use && rd != self;
	if (!others)
		return; /* no other thread reads without the lock */
	/* Every thread of the process passes a full barrier: a reader that
	 * entered its section after this sees what was unlinked before it, and
	 * its cache emptied, and one that entered before shows an odd seq
	 * below. */
	if (syscall(SYS_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) != 0)
		__atomic_thread_fence(__ATOMIC_SEQ_CST); /* registered: does not fail */
	for (struct og_reader *rd = readers; rd; rd = rd->next) {
		if (!rd->in_use || rd == self)
			continue;
		uint32_t seq = __atomic_load_n(&rd->seq, __ATOMIC_ACQUIRE);
		while ((seq & 1) && __atomic_load_n(&rd->seq, __ATOMIC_ACQUIRE) == seq)
			sched_yield();
	}
}

/* The library goes (dlclose): threads must not call into it when they end. */
__attribute__((destructor)) static void unload(void)
{
	if (available > 0)
		pthread_key_delete(key);
}
