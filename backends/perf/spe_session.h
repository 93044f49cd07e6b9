/* SPDX-License-Identifier: MIT */
/*
 * spe_session.h — one SPE event on the kernel's arm_spe PMU: its buffers,
 * and the records read out of them.
 *
 * The kernel's arm_spe driver samples every N operations into an aux
 * buffer (Documentation of perf-arm-spe): the event is opened disabled, a
 * data ring and an aux area are mapped, and only then enabled.  The data
 * ring then carries PERF_RECORD_AUX records that say which part of the aux
 * area holds new SPE data (and whether some was truncated or collided),
 * PERF_RECORD_LOST ones, and, when asked, the task's executable mappings.
 * Every offset and size the kernel hands back is checked.  Used by the perf
 * backend (perf_spe.c) and by `opengpa spe` (tools/opengpa/spe/spe.c).
 */
#ifndef OPENGPA_BACKENDS_PERF_SPE_SESSION_H
#define OPENGPA_BACKENDS_PERF_SPE_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "backend.h"
#include "spe_stats.h"

#define OG_SPE_PMU_ROOT "/sys/bus/event_source/devices"

/* The arm_spe PMU as sysfs describes it. */
struct og_spe_pmu {
	char name[32];         /* "arm_spe_0" */
	uint32_t type;         /* attr.type */
	uint64_t min_interval; /* caps/min_interval: the smallest sampling interval */
	char cpumask[64];      /* cpumask: the CPUs that have it */
};

/* Finds the SPE PMU: OK, or NOT_FOUND with *why (static) naming what to
 * check (CPU, kernel config, kpti, firmware, virtual machine). */
GPA_Status og_spe_find(const struct og_backend_host *h, struct og_spe_pmu *pmu,
                       const char **why);

struct og_spe_config {
	uint64_t interval;     /* operations between samples (raised to min_interval) */
	unsigned aux_pages;    /* a power of two, at least 2 */
	unsigned data_pages;   /* a power of two */
	bool exclude_kernel;   /* sample user space only */
	bool enable_on_exec;   /* start at the target's next execve */
	bool mmap_events;      /* ask for the target's executable mappings */
	const char *pages_option; /* how the user asks for fewer pages (NULL: spe_pages=) */
};

/* A mapping the target made (PERF_RECORD_MMAP), for symbols. */
typedef void og_spe_mmap_fn(void *arg, uint32_t pid, uint64_t addr, uint64_t len,
                            uint64_t pgoff, const char *filename);

struct og_spe_session {
	int fd;
	uint8_t *ring;      /* first page: struct perf_event_mmap_page */
	size_t ring_len;
	uint8_t *aux;
	size_t aux_len;
	uint8_t *scratch;   /* aux_len bytes: one aux record made contiguous */
	uint8_t *record;    /* 64 KiB: one data-ring record made contiguous */
	size_t page;
	og_spe_mmap_fn *on_mmap;
	void *mmap_arg;
	bool damaged_said;  /* a bad ring was logged once */
};

/* Opens, maps and (without enable_on_exec) enables an SPE event on pid or
 * cpu.  Every failure is logged with its cause and the knob that fixes it
 * (perf_event_paranoid, perf_event_mlock_kb, the PMU's cpumask...) and
 * leaves s closed. */
GPA_Status og_spe_open(const struct og_backend_host *h, const struct og_spe_pmu *pmu,
                       const struct og_spe_config *c, pid_t pid, int cpu,
                       struct og_spe_session *s);
/* Reads everything the kernel wrote since the last call into stats and
 * frees the space for it. */
void og_spe_drain(const struct og_backend_host *h, struct og_spe_session *s,
                  struct og_spe_stats *stats);
/* Stops sampling (what was written stays to be drained). */
void og_spe_disable(const struct og_backend_host *h, struct og_spe_session *s);
void og_spe_close(const struct og_backend_host *h, struct og_spe_session *s);

#endif
