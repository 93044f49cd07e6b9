/* SPDX-License-Identifier: MIT */
/*
 * openmetrics.h — a periodic run's counters for Prometheus (`opengpa stat
 * -I MS --listen ADDR:PORT`, `--openmetrics FILE`; docs/farm.md): the latest
 * interval and the running totals as text, in the OpenMetrics 1.0 format or
 * in the older Prometheus text format 0.0.4 (what node exporter's textfile
 * collector and `promtool check metrics` read).
 *
 * Pure, as the other timeline writers: handed the run's series and their
 * values, it writes text into memory.  Names follow the Python exporter's
 * scheme (python/opengpa/exporter.py): `GPUActiveCycles` becomes
 * `opengpa_gpu_active_cycles`; counts are counters (`..._total`, summed
 * over the intervals) with a `..._last_interval` gauge beside them,
 * percentages and ratios are gauges of the latest interval.
 */
#ifndef OPENGPA_TOOLS_OPENMETRICS_H
#define OPENGPA_TOOLS_OPENMETRICS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "timeline.h"

#define OM_CONTENT_TYPE "application/openmetrics-text; version=1.0.0; charset=utf-8"
#define OM_TEXT_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"
#define OM_NAME_MAX 128

enum om_flavour {
	OM_OPENMETRICS,  /* counters' TYPE on the family, UNIT lines, "# EOF" */
	OM_PROMETHEUS,   /* text format 0.0.4: TYPE on the sample's name */
};

/* Text growing in memory; failed once an allocation failed. */
struct om_text {
	char *data;
	size_t len, cap;
	bool failed;
};
void om_text_free(struct om_text *t);

/* A series' place in the families, worked out once per run.  A counter's
 * per-instance copies (`opengpa stat --per-core`: "ShaderCore3:X") are
 * samples of the counter's own family, told apart by the label
 * OM_BLOCK_LABEL="ShaderCore3" (docs/farm.md, "Per core and per slice"). */
#define OM_BLOCK_LABEL "block"
#define OM_BLOCK_MAX 64
struct om_family {
	char name[OM_NAME_MAX]; /* opengpa_gpu_active_cycles (one family per counter) */
	bool gauge;             /* a percentage or a ratio: the latest value alone */
	const char *unit;       /* OpenMetrics UNIT, where the name ends with it; or NULL */
	const char *counter;    /* the `counter` label: the name, less an instance's prefix */
	char block[OM_BLOCK_MAX]; /* the instance ("ShaderCore3"); "" for the whole GPU's */
	size_t first;           /* the family's first series in the run: it writes the
	                         * metadata, then the samples of every member */
	size_t next;            /* the family's next series, or SIZE_MAX */
};

/* `counter` as a metric name: "opengpa_" and its words in snake case,
 * anything outside [a-zA-Z0-9_] as "_", at most len - 1 bytes. */
void om_metric_name(const char *counter, char *out, size_t len);

/* The families of run's series (nseries entries in f): names made unique
 * with a suffix (_2, _3) where two counters' names meet; an instance's copy
 * joins its counter's family (or, without it in the run, the first copy's). */
void om_families(const struct tl_run *run, struct om_family *f);

/* What to render: one interval's values and the sums so far. */
struct om_values {
	const char *instance;       /* the host; NULL or "": no such label */
	const char *const *help;    /* each series' description, or NULL */
	const double *latest;       /* the latest interval's; NAN: none */
	const double *totals;       /* summed over the intervals that had a value */
	const uint32_t *counted;    /* how many intervals had one (0: not yet) */
	uint64_t intervals;         /* intervals so far */
};

/* Appends the document: each family's metadata and samples, then
 * opengpa_intervals_total (and "# EOF" in OpenMetrics).  Families without
 * a value yet are left out.  Returns 0, or -1 when out of memory. */
int om_render(struct om_text *t, const struct tl_run *run, const struct om_family *f,
              const struct om_values *v, enum om_flavour flavour);

#endif
