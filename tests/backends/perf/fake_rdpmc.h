/* SPDX-License-Identifier: MIT */
/*
 * fake_rdpmc.h — the kernel's perf_event_mmap_page and the CPU's counter
 * reads, simulated behind an og_sys table (mmap, munmap, read_pmc,
 * read_cycles; every other call is NULL).
 *
 * Each page is a real page-aligned buffer laid out as the uapi struct; the
 * test writes its fields as the kernel would.  The fake CPU has
 * FAKE_RDPMC_COUNTERS counters: read_pmc(index) returns pmc[index - 1].
 * Seqlock faults are driven from read_pmc, the one call a reader makes
 * between its two looks at the lock.
 */
#ifndef OPENGPA_TESTS_FAKE_RDPMC_H
#define OPENGPA_TESTS_FAKE_RDPMC_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend.h"

#define FAKE_RDPMC_PAGES 4
#define FAKE_RDPMC_FD0 300 /* page i is mapped from fd FAKE_RDPMC_FD0 + i */
#define FAKE_RDPMC_COUNTERS 8

/* What one kernel page update writes. */
struct fake_rdpmc_update {
	int page;
	int64_t offset;
	uint32_t index;
	uint64_t time_enabled, time_running;
	uint64_t pmc; /* the counter the new index names */
};

struct fake_rdpmc {
	struct og_sys sys;
	size_t page_len;
	struct perf_event_mmap_page *page[FAKE_RDPMC_PAGES];
	uint64_t pmc[FAKE_RDPMC_COUNTERS]; /* counter index - 1 */
	uint64_t cycles;                   /* what read_cycles returns */

	int mmap_errno; /* non-zero: mmap fails with it */
	int maps, unmaps;

	/* The update_at-th read_pmc call (from 1; 0 = never) publishes
	 * `update` after sampling the counter, like an interrupt landing
	 * between the reader's two looks at the lock. */
	int update_at;
	struct fake_rdpmc_update update;
	/* Every read_pmc call rewrites the page (lock += 2, offset += 1). */
	bool churn;

	int pmc_reads, cycle_reads;
	uint32_t last_index;
};

/* Pages all zero (a kernel offering nothing), mmap working. */
void fake_rdpmc_init(struct fake_rdpmc *f);
void fake_rdpmc_free(struct fake_rdpmc *f);

/* Page i as a kernel that offers user reads writes it: bit0_is_deprecated
 * and cap_user_rdpmc set, the event on counter index - 1 (0: on none),
 * pmc_width 48, offset, enabled = running = 1000 ns, no cap_user_time;
 * the counter itself set to pmc. */
void fake_rdpmc_offer(struct fake_rdpmc *f, int i, uint32_t index, int64_t offset, uint64_t pmc);

/* Turns on cap_user_time for page i with this conversion. */
void fake_rdpmc_time(struct fake_rdpmc *f, int i, uint32_t mult, uint16_t shift,
                     uint64_t time_offset);

/* Writes u the way the kernel does: lock odd, fields, lock even again. */
void fake_rdpmc_publish(struct fake_rdpmc *f, const struct fake_rdpmc_update *u);

/* A host over f whose log counts lines (the rdpmc code must log none). */
void fake_rdpmc_host(struct og_backend_host *host, struct fake_rdpmc *f, int *log_lines);

#endif
