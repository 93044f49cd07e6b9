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
 * Calls are serialised by the core (one lock around the registry), so a
 * backend needs no locking of its own.  Every failure returns a GPA status
 * and logs one line through host->log that names the cause and the fix.
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

#endif
