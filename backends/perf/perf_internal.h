/* SPDX-License-Identifier: MIT */
/*
 * perf_internal.h — what the files of the perf backend share.
 *
 * The backend counts through perf_event_open(2): one event group per pass,
 * one read() of the whole group per snapshot.  docs/backends/perf.md is the
 * user-facing description (source notation, options, errors).
 *
 * Calls between the backend's files go one way, top to bottom; no file
 * calls one above it (checked with nm on each object: a file's undefined
 * og_perf_* symbols are defined only by files below it):
 *
 *   perf.c                 the ops table: options, open, bind_raw, passes
 *   perf_catalogue.c       extra_raw: sysfs aliases that open here (and
 *                          libpfm4's events with natives=all)
 *   perf_probe.c           which known events open, hardware slots
 *   perf_named.c           bare event names -> libpfm4 or a sysfs alias
 *   perf_pfm.c / _absent   libpfm4's tables
 *   perf_group.c           a pass: groups per layout per target, reads
 *   perf_mips.c            the 34K's PMU and RDHWR cycles
 *   perf_spe.c             SPE sessions as raw counters (spe_*.c below it)
 *   perf_pmu.c             PMU/TERMS/ and raw: sources
 *   perf_bound.c           the bound table, trying a bound event
 *   perf_open.c            attr and perf_event_open of one event
 *   perf_errors.c          a failed open's message (names the scope)
 *   perf_thread.c          SOURCE@tid=N: one thread's share of a sum
 *   perf_scope.c perf_rdpmc.c perf_cpu.c perf_events.c perf_modes.c
 *                          the scope, user reads, the CPU, the event
 *                          table, modes=
 *   perf_notes.c perf_text.c   texts kept until close; sysfs/proc reads,
 *                          directory lists, errno names (no other file)
 */
#ifndef OPENGPA_BACKENDS_PERF_INTERNAL_H
#define OPENGPA_BACKENDS_PERF_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "backend.h"
#include "perf_rdpmc.h"

struct perf_event_attr;

/* Bounds that keep every buffer static: a pass is one group, and a group of
 * more than 64 events is far beyond any PMU and any sensible counter file. */
#define OG_PERF_MAX_GROUP 64
#define OG_PERF_MAX_BOUND 1024
#define OG_PERF_MAX_HW_SLOTS 32
#define OG_PERF_SOURCE_MAX 128
#define OG_PERF_MAX_EVENTS 32 /* size of the named-event table, with room */

/* The read() layout for GROUP|ID|TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING:
 * nr, enabled, running, then nr x {value, id}. */
#define OG_PERF_READ_WORDS(n) (3 + 2 * (size_t)(n))

enum og_perf_kind {
	OG_PERF_KIND_SW,           /* software event: never needs a PMU counter */
	OG_PERF_KIND_HW,           /* generic or raw hardware event: one PMU counter */
	OG_PERF_KIND_OTHER,        /* an event of another sysfs PMU (msr, uncore...):
	                            * not in the CPU PMU's counter budget */
	OG_PERF_KIND_TIME_ENABLED, /* the group's enabled time, ns: no fd of its own */
	OG_PERF_KIND_TIME_RUNNING, /* the group's running time, ns: no fd of its own */
	OG_PERF_KIND_TIME_WALL,    /* CLOCK_MONOTONIC between the two reads, ns */
	OG_PERF_KIND_CYCLE_COUNTER, /* MIPS RDHWR Count, in cycles: no fd (perf_mips.c) */
	OG_PERF_KIND_SPE,          /* a count from SPE samples (perf_spe.c): no counter */
};

/* One event this backend knows by name (sw:NAME, hw:NAME). */
struct og_perf_event_def {
	const char *source;      /* "sw:task-clock" */
	uint32_t type;           /* PERF_TYPE_SOFTWARE / PERF_TYPE_HARDWARE */
	uint64_t config;
	const char *no_pmu_why;  /* why_not when no hardware event opens at all */
	const char *refused_why; /* why_not when this one event is refused */
};

size_t og_perf_event_count(void);
const struct og_perf_event_def *og_perf_event_at(size_t i);
/* Index of the event whose source is `source` (aliases resolved), or -1. */
int og_perf_event_find(const char *source);

/* A raw counter the core bound: what to open for it. */
struct og_perf_bound {
	enum og_perf_kind kind;
	uint32_t type;
	uint64_t config, config1, config2;
	char source[OG_PERF_SOURCE_MAX];
	pid_t tid; /* 0; else only this thread of the targets counts (perf_thread.c) */
};

/* Who a pass counts (docs/backends/perf.md, "What a sample counts"). */
enum og_perf_scope_kind {
	OG_PERF_SCOPE_SELF,    /* the calling thread */
	OG_PERF_SCOPE_PROCESS, /* every thread of a process, and what they spawn */
	OG_PERF_SCOPE_THREAD,  /* one thread */
	OG_PERF_SCOPE_CPUS,    /* everything that runs on some CPUs (privileged) */
};

#define OG_PERF_CPUS_TEXT 64
#define OG_PERF_MAX_CPUS 4096
#define OG_PERF_MAX_TARGETS 4096 /* threads or CPUs one pass opens groups on */
#define OG_PERF_MAX_GROUPS 64    /* groups one multiplexed pass holds */

struct og_perf_scope {
	enum og_perf_scope_kind kind;
	pid_t pid;                    /* PROCESS, THREAD */
	bool exec;                    /* PROCESS: count from its next execve */
	char cpus[OG_PERF_CPUS_TEXT]; /* CPUS: "all" or a list such as "0-3+6" */
};

/* One (pid, cpu) pair perf_event_open is called with. */
struct og_perf_target {
	pid_t pid;
	int cpu;
};

/* One group of the pass as the core planned it: which events it opens. */
struct og_perf_layout {
	size_t nmembers;                        /* member 0 is the leader */
	uint32_t member_raw[OG_PERF_MAX_GROUP]; /* UINT32_MAX: a helper leader */
};

/* A snapshot is one group read() as the kernel wrote it, read into in
 * place and checked, its pairs then in member order: [0] nr, [1] enabled,
 * [2] running, [3 + 2m] member m's value, [4 + 2m] its id; and two words
 * of room after, so that a longer read than the group's shows as one. */
#define OG_PERF_SNAP_WORDS(n) (OG_PERF_READ_WORDS(n) + 2)
#define OG_PERF_SNAP_ENABLED 1
#define OG_PERF_SNAP_RUNNING 2
#define OG_PERF_SNAP_VALUE(m) (3 + 2 * (size_t)(m))

/* Where one raw id of the pass is counted, worked out once per pass. */
struct og_perf_slot {
	uint32_t layout;       /* its group */
	int32_t member;        /* member index in the group, -1 for time:* */
	enum og_perf_kind kind;
};

/* One open event group: one layout on one target. */
struct og_perf_instance {
	uint32_t layout, target;
	size_t nmembers;
	int *fds;      /* -1 when not open */
	uint64_t *ids; /* PERF_FORMAT_ID of each member */
	size_t snap;   /* where its snapshot is in the pass's snap[0] and snap[1] */
	uint64_t enabled, running; /* over the last sample, running <= enabled */
	/* Each member's mmap'd user page when snapshots can be taken in user
	 * space (perf_rdpmc.c); NULL: every snapshot is a read(). */
	struct og_perf_user_page *pages;
};

/* Everything the current pass owns; one allocation, freed at end_pass. */
struct og_perf_pass {
	size_t n;              /* raw ids the core asked for */
	uint32_t *raw_ids;
	struct og_perf_slot *slots; /* per raw id */
	/* Plain: one target, every raw id a member's count of its own (no
	 * time:*, SPE, cycle counter or per-thread share).  Then word[i] is
	 * where raw id i's value is in a snapshot, and a sample whose groups
	 * all ran all along is one subtraction per raw id. */
	bool plain;
	uint32_t *word;
	/* One group on one target whose snapshot is its read() alone (no user
	 * pages, wall clock, SPE or MIPS reads): og_perf_pass_read's short
	 * path, the usual read checked in line. */
	bool one_read;
	size_t nlayouts;
	struct og_perf_layout *layouts;
	size_t ntargets;
	struct og_perf_target *targets;
	size_t ninstances;     /* nlayouts * ntargets, layout-major */
	struct og_perf_instance *instances;
	/* Every instance's begin ([0]) and end ([1]) snapshot, each at its
	 * instance's snap; a roll swaps them. */
	uint64_t *snap[2];
	bool need_wall;        /* time:wall asked for, or CPUs to check */
	uint64_t begin_wall, end_wall;
	double coverage;       /* of the last sample: least running/enabled */
	bool all_full;         /* of the last sample: every group ran as long as
	                        * it was enabled (deltas need no scaling) */
	struct og_perf_spe *spe; /* SPE sessions of the pass, NULL without spe: raws */
};

/* host->sys->list_dir, or -1 with ENOSYS when the table has none (perf_text.c). */
int og_perf_list_dir(const struct og_backend_host *host, const char *path,
                     void (*fn)(const char *name, void *arg), void *arg);

struct og_perf_catalogue;
struct og_perf_note;
struct og_perf_spe;

struct og_perf_state {
	struct og_backend_host host;

	struct og_perf_scope scope;
	/* Set when the kernel refused kernel-mode counting (paranoid >= 2
	 * without privilege): count user space only. */
	bool exclude_kernel;
	/* The modes= option (perf_modes.c): OG_PERF_MODE_* to count, 0 = all
	 * that the kernel allows. */
	unsigned modes;

	/* Probe results: errno of the probe open per known event, 0 = usable. */
	int probe_errno[OG_PERF_MAX_EVENTS];
	bool any_hw;          /* at least one hardware event opened */
	unsigned hw_slots;    /* hardware events one group can hold */

	struct og_perf_bound bound[OG_PERF_MAX_BOUND];
	size_t nbound;

	struct og_perf_catalogue *catalogue; /* extra_raw's answer, built once */

	/* User-space counter reads, probed once (perf_group.c): 0 not yet, 1
	 * the counter registers read here, -1 they trap (user_reads_why). */
	int user_reads;
	char user_reads_why[160];

	/* MIPS (perf_mips.c): the 34K's PMU and the RDHWR cycle counter; NULL
	 * on other CPUs. */
	struct og_perf_mips *mips;

	/* libpfm4 (perf_pfm.c), loaded on the first name to look up, not at
	 * open (og_perf_pfm_load): pfm_asked once it was; then this CPU's core
	 * PMUs as libpfm4 names them ("icl", "arm_n2"), space-separated; "" when
	 * libpfm4 is absent or does not know this CPU, and then pfm_why says
	 * which.  pfm_lookups counts the names encoded (the tests read it). */
	bool pfm_asked;
	char pfm_pmus[96];
	const char *pfm_why;
	unsigned pfm_lookups;
	/* natives=all: the catalogue lists every libpfm4 event of this CPU
	 * (opengpa list --all); else only the names counter files give. */
	bool natives_all;

	/* Texts made at run time for why_not answers, which must live until
	 * close (perf_notes.c). */
	struct og_perf_note *notes;

	/* SPE (perf_spe.c): the backend options, how this CPU's data source
	 * packets read, and the probe of the arm_spe PMU (done once). */
	uint64_t spe_interval;
	unsigned spe_pages;
	int spe_sources;      /* enum og_spe_sources */
	bool spe_probed;
	const char *spe_why;  /* NULL: SPE opens here */
	uint32_t spe_type;

	/* The current pass, NULL between passes. */
	struct og_perf_pass *pass;
	bool have_begin;
};

/* Fills attr for one event of a group in this state's scope (perf_open.c). */
void og_perf_attr_init(const struct og_perf_state *st, struct perf_event_attr *attr,
                       uint32_t type, uint64_t config, bool leader);

/* perf_event_open through host->sys on one target; og_perf_open_event on
 * the scope's probe target (what probes and option checks open). */
int og_perf_open_on(const struct og_perf_state *st, struct perf_event_attr *attr,
                    struct og_perf_target target, int group_fd);
int og_perf_open_event(const struct og_perf_state *st, struct perf_event_attr *attr,
                       int group_fd);

/* The scope (perf_scope.c).  og_perf_scope_option: OK, FAILED (logged) for
 * a bad value, NOT_FOUND when key is not a scope key (pid, tid, cpu, exec). */
GPA_Status og_perf_scope_option(const struct og_backend_host *host, struct og_perf_scope *scope,
                                const char *key, const char *value);
/* Per-thread sources, "SOURCE@tid=N" (perf_thread.c): splits one into
 * plain (the source without it) and *tid; returns 0 for a source without
 * the suffix, 1 with it, -1 for a bad one (no thread id, or a source kind
 * a thread cannot have). */
int og_perf_thread_split(const char *source, char *plain, size_t len, pid_t *tid);
/* Sets b->tid and puts the suffix back on b->source (the bind key, so each
 * thread's counter is an id of its own); false when it does not fit. */
bool og_perf_thread_mark(struct og_perf_bound *b, pid_t tid);

/* Checks a scope that options built as a whole (pid and cpu together...). */
GPA_Status og_perf_scope_check(const struct og_backend_host *host,
                               const struct og_perf_scope *scope);
/* Where probes open: the thread, the process, or the scope's first CPU. */
struct og_perf_target og_perf_scope_probe_target(const struct og_backend_host *host,
                                                 const struct og_perf_scope *scope);
/* Every target of the scope now: threads listed from /proc/PID/task, CPUs
 * of the list that are online.  *targets is malloc'd; logged on failure. */
GPA_Status og_perf_scope_targets(const struct og_perf_state *st,
                                 struct og_perf_target **targets, size_t *n);
/* "the calling thread", "process 42", "thread 42", "CPUs 0-3+6". */
const char *og_perf_scope_name(const struct og_perf_scope *scope, char *buf, size_t len);
/* Parses a CPU list ("all" is not a list) into mask (OG_PERF_MAX_CPUS bits):
 * "0-3+6" or "0-3,6" (',' only where the text is not in an options string). */
bool og_perf_parse_cpus(const char *text, uint8_t *mask);

/* Logs one line for a failed perf_event_open of `what` (errno err) and
 * returns the status that goes with it. */
GPA_Status og_perf_open_error(const struct og_perf_state *st, int err, const char *what);

/* Name of an errno value ("EACCES"), or "errno N" in buf. */
const char *og_perf_errno_name(int err, char *buf, size_t len);

/* /proc/sys/kernel/perf_event_paranoid through host->sys, or INT32_MIN. */
int og_perf_read_paranoid(const struct og_backend_host *host);

/* Reads a small text file through host->sys into buf (NUL-terminated).
 * Returns the length, or -1 with errno. */
ssize_t og_perf_read_text(const struct og_backend_host *host, const char *path, char *buf,
                          size_t len);

/* Probes every known event and the hardware slot count (perf_probe.c). */
GPA_Status og_perf_probe(struct og_perf_state *st);

/* Sources naming a sysfs PMU, "pmu/term=value,alias/", and raw CPU PMU
 * codes, "raw:0x11" (perf_pmu.c); a bare event name is og_perf_named_source's,
 * which perf.c calls instead.  Fills b; OK, NOT_FOUND with a static
 * *why_not when this machine lacks the PMU or alias, FAILED (logged) when the
 * source is malformed. */
GPA_Status og_perf_pmu_source(struct og_perf_state *st, const char *name, const char *source,
                              struct og_perf_bound *b, const char **why_not);
/* The core CPU PMUs ("cpu", "cpu_core", "armv8_pmuv3_0"...), whose events
 * share the CPU's counter budget. */
bool og_perf_is_cpu_pmu(const char *pmu);

/* Sources that name an event rather than a code (perf_named.c): "pfm:EVENT"
 * through libpfm4 only, or a bare "EVENT" (libpfm4 or perf spelling:
 * INST_RETIRED:ANY_P, inst_retired.any_p, L1D_TLB_REFILL) through libpfm4
 * for this CPU, then the CPU PMU's sysfs aliases.  OK, NOT_FOUND with a
 * *why_not that says where the name was looked for (and which other cores
 * have it), FAILED (logged) when malformed. */
GPA_Status og_perf_named_source(struct og_perf_state *st, const char *name, const char *source,
                                struct og_perf_bound *b, const char **why_not);

/* A printf-made text that lives until the backend closes, for why_not;
 * a fixed fallback text when memory is short.  og_perf_notes_free at close. */
const char *og_perf_note(struct og_perf_state *st, const char *fallback, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void og_perf_notes_free(struct og_perf_state *st);

/* libpfm4 (perf_pfm.c), or its absence (perf_pfm_absent.c).  libpfm4 keeps
 * its own process-wide tables; the core serialises every call here.
 * og_perf_pfm_load: the first call of a state loads libpfm4 (once per
 * process), initialises it and notes this CPU's core PMUs in st; true when
 * libpfm4 knows this CPU.  encode and each call it; nothing else does, so a
 * context that names no event never loads libpfm4. */
bool og_perf_pfm_load(struct og_perf_state *st);
/* Encodes `event` for this CPU: OK with b's type, config* and kind;
 * NOT_FOUND with *why_not.  libpfm4's spellings (INST_RETIRED:ANY_P,
 * inst_retired.any_p, icl::...) and the catalogue's (INST_RETIRED_ANY_P),
 * each looked up by name. */
GPA_Status og_perf_pfm_encode(struct og_perf_state *st, const char *event,
                              struct og_perf_bound *b, const char **why_not);
/* Calls fn for each native event of this CPU's core PMUs: the string to
 * encode it ("icl::INST_RETIRED:ANY_P"), a counter name for it
 * ("INST_RETIRED_ANY_P"; a second core PMU's names start with its own
 * name) and libpfm4's description. */
void og_perf_pfm_each(struct og_perf_state *st,
                      void (*fn)(void *arg, const char *event, const char *name, const char *desc),
                      void *arg);

/* SPE sampling as raw counters (perf_spe.c): sources "spe:QUANTITY". */
GPA_Status og_perf_spe_source(struct og_perf_state *st, const char *name, const char *source,
                              struct og_perf_bound *b, const char **why_not);
/* Options spe_interval=N and spe_pages=N: OK, FAILED (logged), NOT_FOUND
 * for another key. */
GPA_Status og_perf_spe_option(struct og_perf_state *st, const char *key, const char *value);
/* The pass's SPE sessions, one per target, when it has spe: raws. */
GPA_Status og_perf_spe_pass_open(struct og_perf_state *st);
void og_perf_spe_pass_close(struct og_perf_state *st);
/* At a snapshot: the samples so far are drained; at the start of a sample
 * they are thrown away, at its end they are the sample's. */
void og_perf_spe_read(struct og_perf_state *st, bool end);
/* The sample's value of raw counter raw_id, an spe: source. */
uint64_t og_perf_spe_value(const struct og_perf_state *st, uint32_t raw_id);
/* How this CPU's SPE data source packets read (perf_cpu.c): 1 for the
 * encoding Arm's Neoverse and recent Cortex cores share, 0 otherwise. */
int og_perf_spe_sources_of(const struct og_device_info *info);

/* Does the kernel open this bound event in the current scope? errno or 0
 * (perf_bound.c). */
int og_perf_try_bound(const struct og_perf_state *st, const struct og_perf_bound *b);

/* extra_raw: every event alias of every sysfs PMU that opens here, and
 * with natives=all every libpfm4 event of this CPU (perf_catalogue.c).
 * Binds them; the descs live until close. */
const struct og_raw_desc *og_perf_catalogue(struct og_perf_state *st, size_t *count);
void og_perf_catalogue_free(struct og_perf_state *st);
/* Binds b (deduplicated by source); raw id or UINT32_MAX when full (perf_bound.c). */
uint32_t og_perf_bind(struct og_perf_state *st, const struct og_perf_bound *b);

/* /proc/cpuinfo into buf, read once per open for every part that wants it:
 * up to the end of the first CPU's block where that block names the CPU
 * (the later blocks repeat it, and the kernel formats each as it is read),
 * else as much as fits; "" when it cannot be read (perf_cpu.c). */
#define OG_PERF_CPUINFO_MAX 8192
void og_perf_read_cpuinfo(const struct og_backend_host *host, char *buf, size_t len);
/* Fills description, ids and counter sets from cpuinfo's text (perf_cpu.c). */
void og_perf_device_info(const struct og_backend_host *host, const char *cpuinfo,
                         struct og_device_info *info);

/* Number of online CPUs from sysfs, 0 when unknown (perf_cpu.c). */
unsigned og_perf_online_cpus(const struct og_backend_host *host);

/* Pass life (perf_group.c): one event group per layout per target. */
GPA_Status og_perf_pass_open(struct og_perf_state *st, const uint32_t *raw_ids, size_t n,
                             const size_t *group_sizes, size_t ngroups);
void og_perf_pass_close(struct og_perf_state *st);
/* Reads every group into its begin or end snapshot. */
GPA_Status og_perf_pass_read(struct og_perf_state *st, bool end);
/* The end snapshots become the begin ones: the next sample starts where
 * the last ended. */
void og_perf_pass_roll(struct og_perf_state *st);
/* Snapshots by read() only from now on: the reads come from another thread
 * than the counted one (periodic passes), where rdpmc would read the wrong
 * CPU's counters. */
void og_perf_pass_user_reads_off(struct og_perf_state *st);

/* A sample's end: the end snapshot, then og_perf_deltas (perf_group.c);
 * a plain pass of one group in one call. */
GPA_Status og_perf_pass_end_sample(struct og_perf_state *st, uint64_t *deltas);

/* deltas[i] for raw id i of the pass from the two snapshots (perf_group.c);
 * sets pass->coverage. */
GPA_Status og_perf_deltas(struct og_perf_state *st, uint64_t *deltas);

/* MIPS (perf_mips.c): the 34K set over the kernel's MIPS PMU and the RDHWR
 * cycle counter.  open: after og_perf_device_info, may make the device a
 * 34K.  claims/source: the even:N, odd:N, any:N and cc:cycles sources.
 * fits: the 34K's banks (true off a 34K).  rank: 1 for an either-bank event,
 * which a group lists after the one-bank ones.  cycles_fallback: binds
 * hw:cycles to the cycle counter where no PMU counts it.  read/roll/cycles:
 * the cycle counter at a snapshot, and its delta. */
struct og_perf_mips;
void og_perf_mips_open(struct og_perf_state *st, const char *cpuinfo,
                       struct og_device_info *info);
void og_perf_mips_close(struct og_perf_state *st);
GPA_Status og_perf_mips_constant(struct og_perf_state *st, const char *name, double *value);
bool og_perf_mips_claims(const char *source);
GPA_Status og_perf_mips_source(struct og_perf_state *st, const char *name, const char *source,
                               struct og_perf_bound *b, const char **why_not);
bool og_perf_mips_cycles_fallback(struct og_perf_state *st, const char *name,
                                  struct og_perf_bound *b, const char **why_not);
bool og_perf_mips_fits(const struct og_perf_state *st, const uint32_t *raw_ids, size_t n);
int og_perf_mips_rank(const struct og_perf_state *st, uint32_t raw_id);
void og_perf_mips_read(struct og_perf_state *st, bool end);
void og_perf_mips_roll(struct og_perf_state *st);
uint64_t og_perf_mips_cycles(const struct og_perf_state *st);

#define OG_PERF_MODE_USER 1u
#define OG_PERF_MODE_KERNEL 2u
#define OG_PERF_MODE_HV 4u
/* modes=u+k+h: OK, FAILED (logged), NOT_FOUND for another key. */
GPA_Status og_perf_modes_option(struct og_perf_state *st, const char *key, const char *value);

#endif
