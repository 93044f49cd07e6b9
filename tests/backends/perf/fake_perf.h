/* SPDX-License-Identifier: MIT */
/*
 * fake_perf.h — a simulated perf_event kernel behind an og_sys table.
 *
 * Enough of perf_event_open(2) for the backend's unit tests: fds, groups,
 * PERF_EVENT_IOC_ID/ENABLE/DISABLE, the GROUP|ID|ENABLED|RUNNING read layout,
 * a PMU with N counters, and the /proc and /sys text files the backend reads
 * (and lists: a directory is every path under it that has a file).
 * Every fault the tests need is a field to set.
 */
#ifndef OPENGPA_TESTS_FAKE_PERF_H
#define OPENGPA_TESTS_FAKE_PERF_H

#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "backend.h"

#define FAKE_MAX_EVENTS 256
#define FAKE_MAX_FILES 40
#define FAKE_EVENT_FD0 100
#define FAKE_FILE_FD0 900

enum fake_read_fault {
	FAKE_READ_OK,
	FAKE_READ_SHORT,      /* 8 bytes fewer than the layout */
	FAKE_READ_WRONG_NR,   /* nr one more than the group */
	FAKE_READ_UNKNOWN_ID, /* last id replaced by one nobody has */
	FAKE_READ_DUP_ID,     /* last id replaced by the first */
	FAKE_READ_ZERO,       /* 0 bytes, like a pinned group in error state */
	FAKE_READ_ERRNO,      /* -1 with read_errno */
	FAKE_READ_LONG,       /* one {value, id} pair more, nr to match */
	FAKE_READ_OVERSIZE,   /* says it wrote 8 bytes more than it was asked for */
	FAKE_READ_EINTR_ONCE, /* -1 with EINTR, once; the reads after it are whole */
};

/* The order of a group read's {value, id} pairs.  The kernel lists the
 * leader then the siblings in the order they joined, but the layout carries
 * ids so that a reader never relies on it: the backend must map by id. */
enum fake_read_order {
	FAKE_ORDER_KERNEL,   /* leader, then siblings as opened */
	FAKE_ORDER_REVERSED, /* last sibling first, leader last */
	FAKE_ORDER_ROTATED,  /* second member first, the leader last */
};

enum fake_slot_mode {
	FAKE_SLOTS_EINVAL,   /* a group with too many hw events fails to open */
	FAKE_SLOTS_NOT_RUN,  /* it opens, but never runs (running stays 0) */
};

struct fake_event {
	bool open;
	struct perf_event_attr attr;
	pid_t pid;
	int cpu;
	int leader;       /* index of the leader (itself for a leader) */
	uint64_t id;
	uint64_t value;
	uint64_t step;    /* added per read of its group while enabled */
	bool enabled;     /* leaders only */
	uint64_t enabled_ns, running_ns;
	int group_no;     /* leaders: 1 for the first leader opened, ... */
	struct perf_event_mmap_page *page; /* mmap'd user page, or NULL */
};

struct fake_file {
	const char *path;
	const char *content; /* NULL: open fails with ENOENT */
};

struct fake_perf {
	struct og_sys sys;

	bool pmu;                 /* hardware events open at all */
	unsigned hw_slots;        /* hardware events a group can hold */
	enum fake_slot_mode slot_mode;
	bool eacces_kernel;       /* EACCES unless exclude_kernel (paranoid 2) */
	int eacces_all;           /* EACCES for everything (paranoid 3) */

	/* Inject errno into perf_event_open calls after `open_fail_after`
	 * successful ones (when open_fail_errno != 0); match_type/config
	 * restrict it to one event when match is set. */
	int open_fail_errno;
	int open_fail_after;
	bool open_fail_match;
	uint32_t open_fail_type;
	uint64_t open_fail_config;

	enum fake_read_fault read_fault;
	int read_fault_after; /* group reads that succeed before the fault */
	int read_errno;
	int reads;
	enum fake_read_order read_order;
	bool backwards;       /* next read: values and times go back */
	unsigned running_permille; /* share of enabled time a group runs; 1000 default */
	uint64_t time_step;

	bool ioc_id_dup;      /* PERF_EVENT_IOC_ID returns the same id every time */

	/* Whole-CPU counting (pid -1, cpu >= 0). */
	bool eacces_cpu;      /* EACCES for CPU events, as with paranoid > 0 */
	uint64_t offline_cpus; /* bit c: opening on CPU c gives ENODEV */
	int stopped_cpu;      /* groups on this CPU stop advancing (-1: none) */
	/* Multiplexing: the group whose leader has this group_no (0 = none) is
	 * enabled but never gets on the PMU. */
	int starve_group;
	int leaders_opened;

	/* User-space reads: mmap of a hardware event gives its user page with
	 * cap_user_rdpmc, and read_pmc reads the fake CPU's counter (48 bits,
	 * started near the top so the reader must sign-extend). */
	bool user_pages;
	int pmc_reads, pages_mapped, pages_unmapped;

	struct fake_event ev[FAKE_MAX_EVENTS];
	int nev;
	uint64_t next_id;
	int opens, closes; /* perf event fds */
	uint32_t sw_opened; /* bit c: a software event of config c was opened */
	int file_opens, file_closes;

	struct fake_file files[FAKE_MAX_FILES];
	int file_pos[FAKE_MAX_FILES];
	bool file_open[FAKE_MAX_FILES];
};

/* A kernel with software events, no PMU, paranoid 2, an x86 cpuinfo. */
void fake_perf_init(struct fake_perf *k);
void fake_perf_set_file(struct fake_perf *k, const char *path, const char *content);
/* The open event of this type/config (first match), or NULL. */
struct fake_event *fake_perf_find(struct fake_perf *k, uint32_t type, uint64_t config);
/* Simulates the counted process calling execve: enable_on_exec fires. */
void fake_perf_exec(struct fake_perf *k);
/* The workload runs for one tick: every enabled group advances as if it
 * had been read (user pages updated), without a read() call. */
void fake_perf_tick_all(struct fake_perf *k);
/* Unmaps what the backend left mapped; tests call it in teardown. */
void fake_perf_free(struct fake_perf *k);
/* Number of event fds still open. */
int fake_perf_open_fds(const struct fake_perf *k);


/* A host for the backend: log lines go to a buffer the tests inspect. */
struct fake_log {
	char last[1024];
	char all[8192];
	int errors, messages, lines;
};
void fake_host_init(struct og_backend_host *host, struct fake_perf *k, struct fake_log *log);

/* A perf backend state over the simulated kernel: what a test of the
 * backend opens (ops->open(&f->host, options, &f->state, &f->info)). */
struct fake_fixture {
	struct fake_perf k;
	struct fake_log log;
	struct og_backend_host host;
	struct og_device_info info;
	void *state;
};
/* A fresh kernel and host, nothing open. */
void fake_fixture_setup(struct fake_fixture *f);
/* Closes the state a test left open (ops->close), then checks that every
 * event descriptor, mapping and file was given back: 0, or -1 with what
 * was not on stderr (a failed CMocka teardown). */
int fake_fixture_teardown(struct fake_fixture *f, const struct og_backend_ops *ops);

#endif
