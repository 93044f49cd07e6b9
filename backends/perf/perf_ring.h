/* SPDX-License-Identifier: MIT */
/*
 * perf_ring.h — reading and writing the 64-bit positions of a perf ring
 * (data_head/data_tail, aux_head/aux_tail of struct perf_event_mmap_page).
 *
 * Where the CPU has lock-free 64-bit atomics these are acquire loads and
 * release stores.  32-bit MIPS has none (gcc would call libatomic, which
 * takes a lock the kernel never sees); there the positions are accessed as
 * the kernel's own tools do on 32-bit (tools/include/linux/ring_buffer.h):
 * a plain volatile access ordered by a full barrier.  A 32-bit kernel keeps
 * the positions in an unsigned long, so their upper word never changes and
 * a split access cannot tear.
 */
#ifndef OPENGPA_BACKENDS_PERF_RING_H
#define OPENGPA_BACKENDS_PERF_RING_H

#include <linux/types.h>

static inline __u64 og_ring_load_acquire(const __u64 *p)
{
#if defined(__GCC_ATOMIC_LLONG_LOCK_FREE) && __GCC_ATOMIC_LLONG_LOCK_FREE == 2
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
#else
	__u64 v = *(const volatile __u64 *)p;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	return v;
#endif
}

static inline void og_ring_store_release(__u64 *p, __u64 v)
{
#if defined(__GCC_ATOMIC_LLONG_LOCK_FREE) && __GCC_ATOMIC_LLONG_LOCK_FREE == 2
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
#else
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	*(volatile __u64 *)p = v;
#endif
}

#endif
