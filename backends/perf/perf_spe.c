/* SPDX-License-Identifier: MIT */
/*
 * perf_spe.c — SPE samples as raw counters of the GPA model.
 *
 * A raw counter whose source is "spe:QUANTITY" (counters/arm-spe.counters)
 * is a number worked out from the SPE records the kernel's arm_spe PMU
 * wrote during a sample: how many operations of each type were sampled,
 * load latency percentiles, where loads were served from, mispredicts, TLB
 * walks, and what was lost.  A pass with such counters opens one SPE
 * session per target of the scope (spe_session.c); at BeginSample what was
 * sampled so far is thrown away, at EndSample it is the sample's.  The
 * sessions are stopped around each read, because the kernel only publishes
 * the profiling buffer's new data when the event stops or fills it.
 */
#include "perf_internal.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spe_session.h"

#define DEFAULT_INTERVAL 4096
#define DEFAULT_PAGES 64

enum quantity {
	Q_SAMPLES, Q_LOADS, Q_STORES, Q_BRANCHES, Q_OTHER, Q_MEM_OPS, Q_TLB_WALKS,
	Q_MISPREDICTS, Q_SOURCED, Q_L1, Q_L2, Q_LLC, Q_DRAM, Q_REMOTE, Q_LAT_COUNT, Q_LAT_SUM,
	Q_P50, Q_P90, Q_P99, Q_LOST, Q_TRUNCATED, Q_DAMAGED, Q_COUNT
};

static const char *const quantities[Q_COUNT] = {
	[Q_SAMPLES] = "samples", [Q_LOADS] = "loads", [Q_STORES] = "stores",
	[Q_BRANCHES] = "branches", [Q_OTHER] = "other", [Q_MEM_OPS] = "memory-ops",
	[Q_TLB_WALKS] = "tlb-walks", [Q_MISPREDICTS] = "mispredicts",
	[Q_SOURCED] = "loads-sourced", [Q_L1] = "loads-l1", [Q_L2] = "loads-l2",
	[Q_LLC] = "loads-llc", [Q_DRAM] = "loads-dram", [Q_REMOTE] = "loads-remote",
	[Q_LAT_COUNT] = "latency-count", [Q_LAT_SUM] = "latency-sum",
	[Q_P50] = "latency-p50", [Q_P90] = "latency-p90", [Q_P99] = "latency-p99",
	[Q_LOST] = "lost", [Q_TRUNCATED] = "truncated", [Q_DAMAGED] = "damaged",
};

struct og_perf_spe {
	struct og_spe_pmu pmu;
	size_t n;
	struct og_spe_session *sessions;
	struct og_spe_stats stats; /* this sample's records, all targets together */
	uint64_t values[Q_COUNT];  /* worked out at EndSample */
};

GPA_Status og_perf_spe_option(struct og_perf_state *st, const char *key, const char *value)
{
	const struct og_backend_host *h = &st->host;
	bool interval = strcmp(key, "spe_interval") == 0;
	if (!interval && strcmp(key, "spe_pages") != 0)
		return GPA_STATUS_ERROR_NOT_FOUND;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(value, &end, 10);
	bool ok = *value && !*end && !errno && value[0] != '-' &&
	          (interval ? v >= 1 && v < (1ull << 32)
	                    : v >= 2 && v <= 65536 && !(v & (v - 1)));
	if (!ok) {
		h->log(h->log_ctx, OG_LOG_ERROR,
		       interval ? "perf: spe_interval=%s: not a number of operations between samples "
		                  "(1 to 4294967295; the PMU raises it to its caps/min_interval)"
		                : "perf: spe_pages=%s: not a power of two from 2 to 65536 (pages of "
		                  "the SPE aux buffer)",
		       value);
		return GPA_STATUS_ERROR_FAILED;
	}
	if (interval)
		st->spe_interval = v;
	else
		st->spe_pages = (unsigned)v;
	return GPA_STATUS_OK;
}

/* Whether SPE opens here, found once: the PMU in sysfs, then one event
 * opened and closed in the scope (without buffers), as the probe does for
 * the other events. */
static void probe(struct og_perf_state *st)
{
	if (st->spe_probed)
		return;
	st->spe_probed = true;
	struct og_spe_pmu pmu;
	if (og_spe_find(&st->host, &pmu, &st->spe_why) != GPA_STATUS_OK)
		return;
	st->spe_type = pmu.type;
	struct perf_event_attr attr;
	og_perf_attr_init(st, &attr, pmu.type, 0, true);
	attr.read_format = 0;
	attr.sample_period = pmu.min_interval > DEFAULT_INTERVAL ? pmu.min_interval
	                                                         : DEFAULT_INTERVAL;
	int fd = og_perf_open_event(st, &attr, -1);
	if (fd >= 0) {
		st->host.sys->close(st->host.sys->ctx, fd);
		return;
	}
	int err = errno;
	char nbuf[24];
	const char *name = og_perf_errno_name(err, nbuf, sizeof nbuf);
	if (err == EACCES || err == EPERM)
		st->spe_why = og_perf_note(
			st, "SPE is not permitted here: lower kernel.perf_event_paranoid or run with "
			    "CAP_PERFMON",
			"SPE is not permitted here (%s): kernel.perf_event_paranoid is %d; sampling "
			"one's own process in user space needs 2 or below (kernel samples: 1, whole "
			"CPUs: 0), or CAP_PERFMON or root",
			name, og_perf_read_paranoid(&st->host));
	else if (err == EBUSY)
		st->spe_why = "another SPE session holds the profiling buffer (one at a time)";
	else
		st->spe_why = og_perf_note(st, "the kernel refused an SPE event here",
		                           "the kernel refused an SPE event on %s here (%s; its CPUs "
		                           "are %s)",
		                           pmu.name, name, pmu.cpumask);
}

GPA_Status og_perf_spe_source(struct og_perf_state *st, const char *name, const char *source,
                              struct og_perf_bound *b, const char **why_not)
{
	const char *q = source + 4;
	size_t i = 0;
	while (i < Q_COUNT && strcmp(quantities[i], q) != 0)
		i++;
	if (i == Q_COUNT) {
		st->host.log(st->host.log_ctx, OG_LOG_ERROR,
		             "perf: raw counter %s: unknown source '%s'; spe: takes samples, loads, "
		             "stores, branches, other, memory-ops, tlb-walks, mispredicts, "
		             "loads-sourced, loads-l1, loads-l2, loads-llc, loads-dram, loads-remote, "
		             "latency-count, latency-sum, latency-p50, latency-p90, latency-p99, lost, "
		             "truncated, damaged",
		             name, source);
		return GPA_STATUS_ERROR_FAILED;
	}
	probe(st);
	if (st->spe_why) {
		*why_not = st->spe_why;
		return GPA_STATUS_ERROR_NOT_FOUND;
	}
	b->kind = OG_PERF_KIND_SPE;
	b->type = st->spe_type;
	b->config = i;
	return GPA_STATUS_OK;
}

void og_perf_spe_pass_close(struct og_perf_state *st)
{
	struct og_perf_spe *spe = st->pass ? st->pass->spe : NULL;
	if (!spe)
		return;
	for (size_t i = 0; i < spe->n; i++)
		og_spe_close(&st->host, &spe->sessions[i]);
	free(spe->sessions);
	free(spe);
	st->pass->spe = NULL;
}

GPA_Status og_perf_spe_pass_open(struct og_perf_state *st)
{
	struct og_perf_pass *p = st->pass;
	bool wanted = false;
	for (size_t i = 0; i < p->n; i++)
		wanted |= st->bound[p->raw_ids[i]].kind == OG_PERF_KIND_SPE;
	if (!wanted)
		return GPA_STATUS_OK;
	struct og_perf_spe *spe = calloc(1, sizeof *spe);
	if (spe)
		spe->sessions = calloc(p->ntargets, sizeof *spe->sessions);
	if (!spe || !spe->sessions) {
		free(spe);
		st->host.log(st->host.log_ctx, OG_LOG_ERROR,
		             "perf: out of memory for the pass's SPE sessions");
		return GPA_STATUS_ERROR_FAILED;
	}
	p->spe = spe;
	const char *why = NULL;
	if (og_spe_find(&st->host, &spe->pmu, &why) != GPA_STATUS_OK) {
		st->host.log(st->host.log_ctx, OG_LOG_ERROR, "perf: SPE: %s", why);
		return GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED;
	}
	spe->stats.sources = (enum og_spe_sources)st->spe_sources;
	bool at_exec = st->scope.kind == OG_PERF_SCOPE_PROCESS && st->scope.exec;
	struct og_spe_config c = {
		.interval = st->spe_interval ? st->spe_interval : DEFAULT_INTERVAL,
		.aux_pages = st->spe_pages ? st->spe_pages : DEFAULT_PAGES,
		.data_pages = 8,
		.exclude_kernel = st->exclude_kernel,
		.enable_on_exec = at_exec,
	};
	for (size_t t = 0; t < p->ntargets; t++) {
		GPA_Status s = og_spe_open(&st->host, &spe->pmu, &c, p->targets[t].pid,
		                           p->targets[t].cpu, &spe->sessions[t]);
		if (s != GPA_STATUS_OK)
			return s; /* og_perf_pass_close closes what opened */
		spe->n = t + 1;
	}
	return GPA_STATUS_OK;
}

void og_perf_spe_read(struct og_perf_state *st, bool end)
{
	struct og_perf_spe *spe = st->pass ? st->pass->spe : NULL;
	if (!spe)
		return;
	const struct og_sys *sys = st->host.sys;
	bool at_exec = st->scope.kind == OG_PERF_SCOPE_PROCESS && st->scope.exec;
	for (size_t i = 0; i < spe->n; i++) {
		/* Stopped, the event hands the buffer's new data to the ring. */
		og_spe_disable(&st->host, &spe->sessions[i]);
		og_spe_drain(&st->host, &spe->sessions[i], &spe->stats);
	}
	if (!end) {
		og_spe_stats_reset(&spe->stats);
	} else {
		const struct og_spe_stats *s = &spe->stats;
		uint64_t *v = spe->values;
		v[Q_SAMPLES] = s->records;
		v[Q_LOADS] = s->loads;
		v[Q_STORES] = s->stores;
		v[Q_BRANCHES] = s->branches;
		v[Q_OTHER] = s->other;
		v[Q_MEM_OPS] = s->mem_ops;
		v[Q_TLB_WALKS] = s->tlb_walks;
		v[Q_MISPREDICTS] = s->mispredicts;
		v[Q_SOURCED] = 0;
		for (int l = 0; l < OG_SPE_LEVELS; l++)
			v[Q_SOURCED] += s->source[l];
		v[Q_L1] = s->source[OG_SPE_L1];
		v[Q_L2] = s->source[OG_SPE_L2];
		v[Q_LLC] = s->source[OG_SPE_LLC];
		v[Q_DRAM] = s->source[OG_SPE_DRAM];
		v[Q_REMOTE] = s->source[OG_SPE_REMOTE];
		v[Q_LAT_COUNT] = s->lat_count;
		v[Q_LAT_SUM] = s->lat_sum;
		v[Q_P50] = og_spe_latency_percentile(s, 50);
		v[Q_P90] = og_spe_latency_percentile(s, 90);
		v[Q_P99] = og_spe_latency_percentile(s, 99);
		v[Q_LOST] = s->lost;
		v[Q_TRUNCATED] = s->truncated + s->collisions;
		v[Q_DAMAGED] = s->dropped + (s->bad_bytes ? 1 : 0);
		if (s->lost || s->truncated)
			st->host.log(st->host.log_ctx, OG_LOG_MESSAGE,
			             "perf: SPE lost samples in this sample (%llu lost, %llu truncated "
			             "buffers): make samples shorter, spe_interval larger or spe_pages "
			             "larger",
			             (unsigned long long)v[Q_LOST], (unsigned long long)s->truncated);
		og_spe_stats_reset(&spe->stats);
	}
	/* Sampling goes on for the rest of the pass; before an exec the
	 * kernel starts it itself. */
	for (size_t i = 0; i < spe->n && !(at_exec && !end); i++)
		sys->ioctl(sys->ctx, spe->sessions[i].fd, PERF_EVENT_IOC_ENABLE, 0);
}

uint64_t og_perf_spe_value(const struct og_perf_state *st, uint32_t raw_id)
{
	const struct og_perf_spe *spe = st->pass ? st->pass->spe : NULL;
	uint64_t q = st->bound[raw_id].config;
	return spe && q < Q_COUNT ? spe->values[q] : 0;
}
