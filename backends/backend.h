/* SPDX-License-Identifier: MIT */
/*
 * backend.h — the one interface between opengpa's core and a backend.
 *
 * A backend is a directory under backends/ with one public symbol, a
 * `const struct og_backend_ops`.  The core never knows which kernel interface
 * is behind it; a backend never calls the GPA API.  Everything a backend says
 * to the kernel goes through host->sys (backends/sys.h) so tests can put a
 * virtual device or a fault injector underneath.
 *
 * Life of a context, as the core drives it:
 *
 *   open(host, options)              find the device, fill og_device_info
 *   bind_raw(name, source) * N       once per raw counter the counter files
 *                                    declare; NOT_FOUND = not countable here
 *   constant(name) * M               device constants used by expressions
 *   fits(raw ids) ...                the pass planner asks which raw counters
 *                                    can be counted together
 *   [ begin_pass(raw ids)            per pass, the raw counters of that pass
 *       [ begin_sample, end_sample(deltas) ] *   per sample
 *     end_pass ] *
 *   close
 *
 * A periodic pass (OpenGPA_SetSamplingPeriod; see "Periodic passes" below)
 * replaces the client's samples with one per period, which either the
 * kernel times (begin_periodic, read_periodic *, end_periodic) or the
 * core's timer thread does (begin_sample, next_sample *, end_sample).
 *
 * Calls are serialised by the core (one lock around the registry), so a
 * backend needs no locking of its own, even when the call comes from the
 * core's timer thread rather than the client's.  Every failure returns a GPA
 * status and logs one line through host->log that names the cause and the
 * fix.
 *
 * docs/backends.md is the user-facing version of this contract.
 */
#ifndef OPENGPA_BACKENDS_BACKEND_H
#define OPENGPA_BACKENDS_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "GPUPerfAPITypes.h"
#include "sys.h"

/* The most bytes an answers_key (below) writes. */
#define OG_ANSWERS_KEY_MAX 256

enum og_log_level {
	OG_LOG_ERROR = GPA_LOGGING_ERROR,
	OG_LOG_MESSAGE = GPA_LOGGING_MESSAGE,
	OG_LOG_TRACE = GPA_LOGGING_TRACE,
};

struct og_backend_host {
	const struct og_sys *sys;
	/* printf-style; one message per call, no trailing newline. */
	void (*log)(void *log_ctx, enum og_log_level level, const char *fmt, ...)
		__attribute__((format(printf, 3, 4)));
	void *log_ctx;
	/* Optional: whether a message of `level` would reach anyone now, so a
	 * backend can skip formatting what nobody reads.  NULL: assume it would. */
	bool (*log_wants)(void *log_ctx, enum og_log_level level);
};

#define OG_MAX_COUNTER_SETS 4

struct og_device_info {
	uint32_t device_id;   /* GPA_GetDeviceID: GPU product id, CPU MIDR / family-model */
	uint32_t revision_id;
	char description[256]; /* GPA_GetDeviceDesc: e.g. "Mali-G71 MP8" or the CPU model */
	/* Embedded counter sets (counters/<name>.counters) for this device, most
	 * specific first; unused entries NULL. */
	const char *counter_sets[OG_MAX_COUNTER_SETS];
};

/* A raw counter a backend discovers at run time rather than one a counter
 * file declares (for example a PMU event alias read from sysfs). */
struct og_raw_desc {
	const char *name;
	const char *description;
	GPA_Usage_Type usage;
	uint32_t raw_id;
	/* NULL: countable.  Otherwise why this machine cannot count it (the
	 * core lists it as unavailable; raw_id is unused). */
	const char *why_not;
};

/* Where a sample sits in time: CLOCK_MONOTONIC nanoseconds.  The core
 * reads the clock around begin_sample and end_sample; a backend whose
 * kernel stamps its dumps (kbase, kinstr_prfcnt) gives the kernel's times
 * instead, converted to CLOCK_MONOTONIC (og_clock_from_raw). */
struct og_sample_time {
	uint64_t begin_ns, end_ns;
	uint32_t flags; /* OG_SAMPLE_* */
};

/* Sample flags; the same bits as OPENGPA_SAMPLE_* in opengpa.h.  A backend
 * sets KERNEL_TIME, OVERFLOW, BLOCKS_OFF and PROTECTED; the core the others. */
#define OG_SAMPLE_KERNEL_TIME (1u << 0) /* begin/end are the kernel's timestamps */
#define OG_SAMPLE_OVERFLOW (1u << 1)    /* the kernel's ring was full and it dropped
                                         * the dumps of earlier periods: their counts
                                         * are in this sample, which spans them */
#define OG_SAMPLE_LATE (1u << 2)        /* the timer thread read late (the process was
                                         * stopped or starved): over 1.5 periods */
#define OG_SAMPLE_FINAL (1u << 3)       /* the last of a periodic pass, cut short by
                                         * EndPass */
#define OG_SAMPLE_FAILED (1u << 4)      /* could not be read; it has no results */
#define OG_SAMPLE_BLOCKS_OFF (1u << 5)  /* the kernel reports counter blocks powered off */
#define OG_SAMPLE_PROTECTED (1u << 6)   /* the kernel reports blocks in protected mode */

/* How a periodic pass is sampled, as begin_periodic sets it up. */
struct og_periodic_mode {
	uint64_t period_ns;   /* in: the period asked for, >= period_floor */
	bool kernel_timed;    /* out: the kernel takes the samples (read_periodic) */
	uint32_t kernel_ring; /* out, kernel_timed: samples the kernel holds before it
	                       * has to drop periods; the core drains well before */
};

/* Shortest period the core's timer thread is allowed for a backend that
 * says nothing (period_floor NULL): one read per 100 µs is already more
 * than any counter here needs. */
#define OG_DEFAULT_PERIOD_FLOOR_NS 100000u

/* One instance of a block a raw counter sums over (a shader core, an L2
 * slice): what raw_instances answers.  docs/api.md, "Per-instance
 * counters". */
#define OG_INSTANCE_LABEL_MAX 24
#define OG_INSTANCE_SOURCE_MAX 32
struct og_raw_instance {
	char label[OG_INSTANCE_LABEL_MAX];   /* the name prefix: "ShaderCore3", "L2Slice1" */
	char source[OG_INSTANCE_SOURCE_MAX]; /* its source, in the backend's notation: "SC#3:4" */
	uint32_t raw_id;                     /* as bind_raw would bind that source */
};
/* Most instances one raw counter may have. */
#define OG_MAX_INSTANCES 64

struct og_backend_ops {
	const char *name;    /* "perf", "mali", "panfrost", "mips" */
	const char *summary; /* one line for `opengpa list --backends` */

	/* Find and open the device.  `options` is "key=value,key=value" or ""
	 * (see og_option_get); a key the backend does not know is an error.
	 * On success *state is the backend's own and info is filled.
	 * HARDWARE_NOT_SUPPORTED when the device is absent, after logging the
	 * paths tried; DRIVER_NOT_SUPPORTED for a driver it cannot speak to. */
	GPA_Status (*open)(const struct og_backend_host *host, const char *options, void **state,
	                   struct og_device_info *info);
	void (*close)(void *state);

	/* Resolve a raw counter a counter file declares: `source` is the file's
	 * `source:` text, in the backend's own notation (docs/backends/<name>.md).
	 * OK with *raw_id (the backend's own number, echoed back in begin_pass),
	 * or NOT_FOUND with *why_not, a static string saying why this machine
	 * cannot count it.  Other statuses mean the declaration is malformed. */
	GPA_Status (*bind_raw)(void *state, const char *name, const char *source,
	                       uint32_t *raw_id, const char **why_not);

	/* Optional: why this device cannot count raw counter raw_id, as bind_raw
	 * bound it (here or in another context of this backend), or NULL when it
	 * can.  A backend offers it when its bind_raw is a reading of `source`
	 * alone (the same source gives the same raw_id, or the same error, on
	 * every device), then this check, with *raw_id set before it answers
	 * NOT_FOUND.  The core then checks that a kept catalogue still applies
	 * with this rather than binding every source again (catalog/catalog_cache.h). */
	const char *(*raw_why_not)(void *state, uint32_t raw_id);

	/* Optional: writes to buf (at most max bytes, OG_ANSWERS_KEY_MAX) and
	 * returns how many, bytes that decide every answer bind_raw,
	 * raw_why_not and constant give: two states (of this backend, in this
	 * process) with the same bytes give the same answer to every question.
	 * 0: no such bytes.  A kept catalogue built with the same bytes is then
	 * taken without asking its questions again (catalog/catalog_cache.h):
	 * one comparison for the hundreds of raw_why_not calls. */
	size_t (*answers_key)(void *state, void *buf, size_t max);

	/* Value of a device constant (`constant` entries in counter files that
	 * carry no `value:`).  NOT_FOUND if the backend does not know it. */
	GPA_Status (*constant)(void *state, const char *name, double *value);

	/* May these raw counters be counted in one pass?  The planner calls it
	 * with growing candidate sets; it must not touch the hardware state. */
	bool (*fits)(void *state, const uint32_t *raw_ids, size_t n);

	/* Optional (NULL = none): raw counters discovered at run time.  The
	 * counter sets the backend named come first: a discovered raw counter
	 * whose name one of them declares is left out. */
	const struct og_raw_desc *(*extra_raw)(void *state, size_t *count);

	/* Optional (NULL = no per-instance values): the instances raw counter
	 * raw_id (as bind_raw bound it) sums over, each countable on its own,
	 * into out[0 .. max); returns how many (0: it is no sum of instances).
	 * A function of the device alone: the same raw_id gives the same
	 * answer for as long as the backend is open. */
	size_t (*raw_instances)(void *state, uint32_t raw_id, struct og_raw_instance *out,
	                        size_t max);
	/* With raw_instances: a value that differs whenever raw_instances could
	 * answer some raw id differently (the instances there are), so a kept
	 * catalogue is checked with one call rather than one per raw counter. */
	uint64_t (*instances_key)(void *state);
	/* Optional: whether device constant `name` counts instances (a core
	 * count): a counter that reads it is not published per instance, as
	 * its value would be wrong there.  A function of the name alone. */
	bool (*constant_counts_instances)(void *state, const char *name);

	/* Optional (NULL = no run-time options): change an option between
	 * sessions, e.g. the perf scope.  NOT_FOUND for an unknown key. */
	GPA_Status (*set_option)(void *state, const char *key, const char *value);

	/* Program the hardware for one pass counting raw_ids[0..n). */
	GPA_Status (*begin_pass)(void *state, const uint32_t *raw_ids, size_t n);
	GPA_Status (*end_pass)(void *state);

	/* Optional (NULL = the backend cannot multiplex): one pass counting
	 * several groups at once, which the kernel time-shares.  raw_ids holds
	 * the groups one after another, group_sizes[g] ids each; every group
	 * is one the backend's fits() accepted.  Counts are scaled to the whole
	 * sample; sample_coverage says how much of it was really counted. */
	GPA_Status (*begin_multiplexed_pass)(void *state, const uint32_t *raw_ids, size_t n,
	                                     const size_t *group_sizes, size_t ngroups);

	/* Take the snapshot a sample starts from. */
	GPA_Status (*begin_sample)(void *state);
	/* Write what each raw counter of the current pass counted since
	 * begin_sample into deltas[0..n), in begin_pass order.  A counter that
	 * went backwards (or cannot be trusted) reports 0, never a wrapped
	 * value.  On failure the sample fails; the pass and the session go on. */
	GPA_Status (*end_sample)(void *state, uint64_t *deltas);

	/* Optional (NULL = always 1): after a successful end_sample, the share
	 * of the sample the counters were really counting, in (0, 1]: the least
	 * running/enabled time over the pass's groups.  Below 1 the counts were
	 * scaled up from what was seen. */
	double (*sample_coverage)(void *state);

	/* Optional (NULL = the core's clock readings stand): after a
	 * successful end_sample or next_sample, the kernel's own begin and end
	 * times of that sample, with OG_SAMPLE_KERNEL_TIME in t->flags.  False
	 * when it has none for this sample. */
	bool (*sample_time)(void *state, struct og_sample_time *t);

	/* ---- Periodic passes --------------------------------------------------
	 *
	 * Between begin_pass and end_pass of a periodic pass the core produces
	 * one sample per period, numbered from 0, with no gap between them.
	 * Two ways, chosen by begin_periodic:
	 *
	 *   kernel-timed:  begin_periodic (mode->kernel_timed = true), then the
	 *                  core's thread drains read_periodic every period or
	 *                  so; at EndPass: read_periodic until NOT_FOUND,
	 *                  end_periodic, read_periodic until NOT_FOUND.  The
	 *                  kernel keeps sampling while the process sleeps or
	 *                  is stopped, as long as its ring has room.
	 *   timer:         begin_periodic absent or mode->kernel_timed = false:
	 *                  begin_sample once, next_sample at each period from
	 *                  the core's timer thread, end_sample at EndPass.
	 *
	 * Every call still comes with the core's lock held, but in the timer
	 * way most of them come from a thread of the core's, not the client's
	 * (perf must not read the client's counters with rdpmc from there). */

	/* Optional (NULL = OG_DEFAULT_PERIOD_FLOOR_NS): the shortest period
	 * this backend samples at, in ns, and *why (static text) for the
	 * message that refuses a shorter one. */
	uint64_t (*period_floor)(void *state, const char **why);

	/* Optional (NULL = the timer way, nothing to prepare).  Called right
	 * after begin_pass of a periodic pass with mode->period_ns set; fills
	 * the rest of *mode.  With kernel_timed false the backend prepares
	 * for reads from another thread. */
	GPA_Status (*begin_periodic)(void *state, struct og_periodic_mode *mode);

	/* Kernel-timed: the oldest sample the kernel finished, its deltas in
	 * begin_pass order and its times (begin = the previous sample's end,
	 * or the pass's start).  NOT_FOUND, logging nothing, when none is
	 * waiting.  Never blocks.  Any other failure logs and fails one
	 * sample; the core stops after several in a row. */
	GPA_Status (*read_periodic)(void *state, uint64_t *deltas, struct og_sample_time *t);

	/* Kernel-timed: stop the kernel's timer and have it take one last
	 * sample up to now, which the next read_periodic returns, so the
	 * samples add up to the whole pass. */
	GPA_Status (*end_periodic)(void *state);

	/* Optional (NULL = end_sample then begin_sample, which may miss what
	 * happens between the two): end the open sample and begin the next at
	 * the same snapshot, so no count falls between them.  On failure the
	 * sample fails and the core calls begin_sample before the next one. */
	GPA_Status (*next_sample)(void *state, uint64_t *deltas);
};

/* Options strings: "key=value,key=value".  Copies the value of `key` into
 * buf (NUL-terminated) and returns true when present; a bare "key" has the
 * value "1".  Returns false when absent or when the value does not fit. */
bool og_option_get(const char *options, const char *key, char *buf, size_t len);

/* Is `key` in `options` at all (whatever the length of its value)? */
bool og_option_has(const char *options, const char *key);

/* Checks that every key in `options` is one of `known` (NULL-terminated).
 * Returns the first unknown key's start (for the log line) or NULL. */
const char *og_option_unknown(const char *options, const char *const *known);

/* CLOCK_MONOTONIC now, in ns (clock.c). */
uint64_t og_clock_monotonic_ns(void);

/* A CLOCK_MONOTONIC_RAW time (what kbase stamps its dumps with) on the
 * CLOCK_MONOTONIC scale, through the two clocks' offset now.  Off by the
 * clocks' drift since raw_ns: NTP's frequency correction of MONOTONIC,
 * tens of µs per second of age typically, 500 at most.  Samples are
 * converted as they are read, so their age is a period or two. */
uint64_t og_clock_from_raw(uint64_t raw_ns);

#endif
