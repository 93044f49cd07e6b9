/* SPDX-License-Identifier: MIT */
/*
 * fake_spe.h — the kernel's arm_spe PMU behind an og_sys table, in front of
 * the simulated perf kernel (fake_perf.h), which it forwards everything
 * else to.
 *
 * It speaks the kernel's interface byte for byte: the PMU in sysfs
 * (arm_spe_0/type, caps/min_interval, cpumask, format/), perf_event_open
 * of its type, the data ring as struct perf_event_mmap_page plus records,
 * the aux area mapped at the page's aux_offset, PERF_RECORD_AUX records
 * (with the truncated/collision flags) published when the event stops,
 * PERF_RECORD_LOST, PERF_RECORD_MMAP and the aux_tail/data_tail protocol.
 * Tests write SPE bytes as the hardware would, and faults are fields.
 */
#ifndef OPENGPA_TESTS_FAKE_SPE_H
#define OPENGPA_TESTS_FAKE_SPE_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fake_perf.h"

#define FAKE_SPE_TYPE 10
#define FAKE_SPE_FD0 800
#define FAKE_SPE_MAX 4

struct fake_spe_event {
	bool open;
	struct perf_event_attr attr;
	pid_t pid;
	int cpu;
	bool enabled;
	uint8_t *ring; /* struct perf_event_mmap_page, then the data area */
	size_t ring_len;
	uint8_t *aux;
	size_t aux_len;
	uint64_t aux_head;    /* where the hardware writes next (monotonic) */
	uint64_t published;   /* aux_head up to which AUX records were written */
	uint64_t pending_flags;
	int enables, disables;
};

struct fake_spe {
	struct og_sys sys;
	struct fake_perf *k;
	bool present;        /* the PMU is in sysfs */
	int open_errno;      /* perf_event_open of the SPE type fails with it */
	int ring_errno;      /* mmap of the data ring fails with it */
	int aux_errno;       /* mmap of the aux area fails with it (EPERM: mlock) */
	struct fake_spe_event ev[FAKE_SPE_MAX];
	int opens, closes, maps, unmaps;
};

/* Installs the arm_spe_0 PMU's sysfs files in k and a table over k's. */
void fake_spe_init(struct fake_spe *s, struct fake_perf *k);
/* The simulated kernel with the PMU, a host over it logging into log, and
 * an Arm CPU of MIDR `midr` ("0x410fd493\n") in sysfs and /proc/cpuinfo. */
void fake_spe_host(struct fake_spe *s, struct fake_perf *k, struct og_backend_host *host,
                   struct fake_log *log, const char *midr);
/* The open SPE event (the first, or on pid), NULL when none is open. */
struct fake_spe_event *fake_spe_event(struct fake_spe *s, pid_t pid);
/* The hardware writes bytes into the aux buffer (wrapping at its end).
 * What does not fit in the unread part is dropped and the next AUX record
 * is flagged truncated, as the driver does when the buffer fills. */
void fake_spe_write(struct fake_spe_event *e, const void *bytes, size_t len);
/* Publishes what was written since the last AUX record, with extra flags
 * (PERF_AUX_FLAG_COLLISION...); the driver does this when the event stops. */
void fake_spe_publish(struct fake_spe_event *e, uint64_t flags);
/* Writes a record into the data ring (wrapping); false when it is full. */
bool fake_spe_ring_record(struct fake_spe_event *e, uint32_t type, const void *body,
                          size_t len);
/* Frees what the backend left mapped. */
void fake_spe_free(struct fake_spe *s);

#endif
