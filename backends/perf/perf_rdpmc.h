/* SPDX-License-Identifier: MIT */
/*
 * perf_rdpmc.h — counts read in user space from an event's mmap'd
 * perf_event_mmap_page (rdpmc on x86, mrs on aarch64), no system call.
 *
 * The kernel keeps, per event, a page with a seqlock, the hardware counter
 * the event sits on (index, 0 = none right now), the count the counter
 * started from (offset) and the clock conversion for enabled/running time.
 * A snapshot is then offset + the counter itself, taken under the seqlock.
 *
 * Only for events of the calling thread (pid 0, no inherit): the counter
 * read is the one on this CPU.  Every result other than OK means "take
 * this snapshot with read()"; the page may say yes again at the next one.
 * Nothing here logs: the caller knows what a fallback means for the pass.
 */
#ifndef OPENGPA_BACKENDS_PERF_RDPMC_H
#define OPENGPA_BACKENDS_PERF_RDPMC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend.h"

/* Seqlock rounds before giving up: the kernel rewrites the page only when
 * the event is scheduled in or out, so two rewrites during one read are
 * already rare; more than this means something keeps it busy. */
#define OG_PERF_USER_READ_TRIES 16

/* One mapped page; page NULL when not mapped.  Zero-initialised is unmapped. */
struct og_perf_user_page {
	void *page;
	size_t len;
};

enum og_perf_user_read {
	OG_PERF_USER_READ_OK,
	/* The event is not on a counter now (index 0: stopped, or multiplexed
	 * out): read() gives its count. */
	OG_PERF_USER_READ_NOT_ON_PMU,
	/* The seqlock stayed odd or changed on every one of
	 * OG_PERF_USER_READ_TRIES rounds. */
	OG_PERF_USER_READ_UNSTABLE,
	/* No user reads here: page not mapped, cap_user_rdpmc off, no CPU
	 * hook, or the page said something impossible (pmc_width outside
	 * 1..64, a time conversion that cannot be right, an index this CPU
	 * cannot address). */
	OG_PERF_USER_READ_UNSUPPORTED,
};

/* Maps the first page of event fd read-only through host->sys.  false,
 * with errno set and p unmapped, when the kernel refuses (e.g. an inherit
 * event); no log line. */
bool og_perf_user_page_map(const struct og_backend_host *host, int fd,
                           struct og_perf_user_page *p);

/* Unmaps p if mapped and marks it unmapped; safe to call twice. */
void og_perf_user_page_unmap(const struct og_backend_host *host, struct og_perf_user_page *p);

/* Can this page be read in user space now (cap_user_rdpmc, a CPU that
 * has the read hook)?  A hint for choosing the path; the read checks it
 * again under the seqlock. */
bool og_perf_user_page_can_read(const struct og_backend_host *host,
                                const struct og_perf_user_page *p);

/* One snapshot of the event: *count as read() would give it, and
 * *enabled / *running in ns.  With cap_user_time they are brought to "now"
 * by the cycle counter (running only while the event is on a counter);
 * without it they are the kernel's values at its last page update.  The
 * outputs are written only on OK. */
enum og_perf_user_read og_perf_user_page_read(const struct og_backend_host *host,
                                              const struct og_perf_user_page *p,
                                              uint64_t *count, uint64_t *enabled,
                                              uint64_t *running);

/* The counter the page says the event is on (its index; 0 = none now). */
uint32_t og_perf_user_page_index(const struct og_perf_user_page *p);

/* Does the CPU let this process read counter `index` (a page's index) at
 * all?  The kernel's cap_user_rdpmc says it granted user access, but an
 * emulator (qemu-user: mrs of the arm64 PMU registers is SIGILL) or a
 * hypervisor may still trap the instruction.  Asked of a child process
 * (probe_child.h), so no signal reaches the caller; why says what
 * happened.  One fork: ask once per context. */
bool og_perf_user_read_probe(const struct og_backend_host *host, uint32_t index, char *why,
                             size_t why_len);

/* Name of a result, for log lines ("OK", "NOT_ON_PMU"...). */
const char *og_perf_user_read_name(enum og_perf_user_read r);

#endif
