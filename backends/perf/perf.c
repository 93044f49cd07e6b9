/* SPDX-License-Identifier: MIT */
/* perf.c — the perf backend's vtable: Linux perf_event_open(2). */
#include "perf_internal.h"

#include <errno.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>

static const char *const known_options[] = { "pid", "tid", "cpu", "exec", "spe_interval",
	                                      "spe_pages", "modes", "natives", NULL };

/* natives=all|named, at open only: the catalogue (extra_raw) the core reads
 * once per open lists libpfm4's events of this CPU with all; with named
 * (the default) libpfm4 is asked only for the names counter files give. */
static GPA_Status natives_option(struct og_perf_state *st, const char *value)
{
	const struct og_backend_host *h = &st->host;
	if (strcmp(value, "all") == 0 || strcmp(value, "named") == 0) {
		st->natives_all = value[0] == 'a';
		return GPA_STATUS_OK;
	}
	h->log(h->log_ctx, OG_LOG_ERROR,
	       "perf: natives=%s: give natives=all (list every libpfm4 event of this CPU) or "
	       "natives=named (only the names counter files give, the default)", value);
	return GPA_STATUS_ERROR_FAILED;
}

static GPA_Status apply_option(struct og_perf_state *st, const char *key, const char *value)
{
	const struct og_backend_host *h = &st->host;
	if (strcmp(key, "natives") == 0) {
		h->log(h->log_ctx, OG_LOG_ERROR,
		       "perf: natives= chooses what the counter list holds, which is made when the "
		       "context opens: give it to OpenGPA_SetBackend before GPA_OpenContext");
		return GPA_STATUS_ERROR_FAILED;
	}
	GPA_Status s = og_perf_spe_option(st, key, value);
	if (s == GPA_STATUS_ERROR_NOT_FOUND)
		s = og_perf_modes_option(st, key, value);
	if (s != GPA_STATUS_ERROR_NOT_FOUND)
		return s;
	s = og_perf_scope_option(h, &st->scope, key, value);
	if (s == GPA_STATUS_ERROR_NOT_FOUND)
		h->log(h->log_ctx, OG_LOG_ERROR,
		       "perf: unknown option '%s'; the perf backend knows pid, tid, cpu, exec, "
		       "spe_interval, spe_pages, modes, natives", key);
	return s;
}

/* Options at open: at most one of pid, tid and cpu says who is counted. */
static GPA_Status apply_open_options(struct og_perf_state *st, const char *options)
{
	const struct og_backend_host *h = &st->host;
	int scopes = 0;
	for (const char *const *k = known_options; *k; k++) {
		char value[OG_PERF_CPUS_TEXT + 2];
		GPA_Status s = GPA_STATUS_OK;
		if (strcmp(*k, "natives") == 0 && og_option_get(options, *k, value, sizeof value))
			s = natives_option(st, value);
		else if (og_option_get(options, *k, value, sizeof value))
			s = apply_option(st, *k, value);
		else if (og_option_has(options, *k))
			s = apply_option(st, *k, "(too long)");
		else
			continue;
		if (s != GPA_STATUS_OK)
			return s;
		scopes += strcmp(*k, "pid") == 0 || strcmp(*k, "tid") == 0 || strcmp(*k, "cpu") == 0;
	}
	if (scopes > 1) {
		h->log(h->log_ctx, OG_LOG_ERROR,
		       "perf: options pid, tid and cpu each say who is counted; give only one");
		return GPA_STATUS_ERROR_FAILED;
	}
	return og_perf_scope_check(h, &st->scope);
}

static GPA_Status perf_open(const struct og_backend_host *host, const char *options,
                            void **state, struct og_device_info *info)
{
	const char *unknown = og_option_unknown(options, known_options);
	if (unknown) {
		host->log(host->log_ctx, OG_LOG_ERROR,
		          "perf: unknown option at '%s'; the perf backend knows pid=N, tid=N, "
		          "cpu=all|LIST, exec=0|1, spe_interval=N, spe_pages=N, modes=u+k+h, "
		          "natives=all|named",
		          unknown);
		return GPA_STATUS_ERROR_FAILED;
	}
	struct og_perf_state *st = calloc(1, sizeof *st);
	if (!st) {
		host->log(host->log_ctx, OG_LOG_ERROR, "perf: out of memory for the backend state");
		return GPA_STATUS_ERROR_FAILED;
	}
	st->host = *host;

	GPA_Status s = apply_open_options(st, options);
	if (s == GPA_STATUS_OK)
		s = og_perf_probe(st);
	if (s != GPA_STATUS_OK) {
		free(st);
		return s;
	}
	memset(info, 0, sizeof *info);
	char cpuinfo[OG_PERF_CPUINFO_MAX];
	og_perf_read_cpuinfo(host, cpuinfo, sizeof cpuinfo);
	og_perf_device_info(host, cpuinfo, info);
	og_perf_mips_open(st, cpuinfo, info);
	st->spe_sources = og_perf_spe_sources_of(info);
	/* libpfm4 is not loaded here: og_perf_pfm_load does it on the first
	 * name to look up (perf_pfm.c). */
	*state = st;
	return GPA_STATUS_OK;
}

static void perf_close(void *state)
{
	struct og_perf_state *st = state;
	if (!st)
		return;
	og_perf_pass_close(st);
	og_perf_catalogue_free(st);
	og_perf_notes_free(st);
	og_perf_mips_close(st);
	free(st);
}

/* Parses a named-event or time: source into *b.  Returns 1 when done, 0 when
 * the source is in another notation, -1 (logged) when malformed. */
static int parse_named(struct og_perf_state *st, const char *name, const char *source,
                       struct og_perf_bound *b, int *event)
{
	*event = -1;
	if (strcmp(source, "time:enabled") == 0) {
		b->kind = OG_PERF_KIND_TIME_ENABLED;
		return 1;
	}
	if (strcmp(source, "time:running") == 0) {
		b->kind = OG_PERF_KIND_TIME_RUNNING;
		return 1;
	}
	if (strcmp(source, "time:wall") == 0) {
		b->kind = OG_PERF_KIND_TIME_WALL;
		return 1;
	}
	if (strncmp(source, "sw:", 3) != 0 && strncmp(source, "hw:", 3) != 0)
		return 0;
	*event = og_perf_event_find(source);
	if (*event < 0) {
		st->host.log(st->host.log_ctx, OG_LOG_ERROR,
		             "perf: raw counter %s: unknown source '%s'; the sw:/hw: names are "
		             "listed in docs/backends/perf.md",
		             name, source);
		return -1;
	}
	const struct og_perf_event_def *def = og_perf_event_at((size_t)*event);
	b->kind = def->type == PERF_TYPE_HARDWARE ? OG_PERF_KIND_HW : OG_PERF_KIND_SW;
	b->type = def->type;
	b->config = def->config;
	strcpy(b->source, def->source); /* the canonical spelling: aliases share an id */
	return 1;
}

static GPA_Status perf_bind_raw(void *state, const char *name, const char *source,
                                uint32_t *raw_id, const char **why_not)
{
	struct og_perf_state *st = state;
	struct og_perf_bound b;
	int event = -1;
	*why_not = NULL;
	memset(&b, 0, sizeof b);
	char plain[OG_PERF_SOURCE_MAX];
	pid_t tid = 0;
	int per_thread = og_perf_thread_split(source, plain, sizeof plain, &tid);
	if (per_thread < 0) {
		st->host.log(st->host.log_ctx, OG_LOG_ERROR,
		             "perf: raw counter %s: '%s' is no per-thread source (SOURCE@tid=N: a "
		             "sw:, hw: or time:running|enabled source and a thread id above 0)",
		             name, source);
		return GPA_STATUS_ERROR_FAILED;
	}
	if (per_thread)
		source = plain; /* per_thread.c: marked again before binding */
	if (strlen(source) >= sizeof b.source) {
		st->host.log(st->host.log_ctx, OG_LOG_ERROR,
		             "perf: raw counter %s: source is longer than %d characters; shorten it",
		             name, OG_PERF_SOURCE_MAX - 1);
		return GPA_STATUS_ERROR_FAILED;
	}
	strcpy(b.source, source);
	bool spe = strncmp(source, "spe:", 4) == 0;
	bool mips = og_perf_mips_claims(source);
	int named = spe || mips ? 1 : parse_named(st, name, source, &b, &event);
	if (named < 0)
		return GPA_STATUS_ERROR_FAILED;
	if (spe) {
		GPA_Status s = og_perf_spe_source(st, name, source, &b, why_not);
		if (s != GPA_STATUS_OK)
			return s;
	}
	if (mips) {
		GPA_Status s = og_perf_mips_source(st, name, source, &b, why_not);
		if (s != GPA_STATUS_OK)
			return s;
	}
	if (named == 0) {
		/* A bare event name is perf_named.c's; it calls perf_pmu.c in turn. */
		GPA_Status s = strncmp(source, "raw:", 4) != 0 && !strchr(source, '/')
		                       ? og_perf_named_source(st, name, source, &b, why_not)
		                       : og_perf_pmu_source(st, name, source, &b, why_not);
		if (s != GPA_STATUS_OK)
			return s;
		int err = og_perf_try_bound(st, &b);
		if (err) {
			/* opengpa stat -e reads the beginnings of these reasons (and
			 * of the hw_slots one below) as "found, not countable"
			 * (tools/opengpa/stat/events.c): keep them. */
			char nbuf[24];
			st->host.log(st->host.log_ctx, OG_LOG_TRACE,
			             "perf: %s (%s) not offered: perf_event_open gave %s", name, source,
			             og_perf_errno_name(err, nbuf, sizeof nbuf));
			*why_not = b.kind == OG_PERF_KIND_HW && !st->any_hw
			                   ? "no hardware PMU: this kernel/VM counts no CPU PMU events"
			                   : "perf_event_open refused this PMU event here (the trace "
			                     "log has the errno)";
			return GPA_STATUS_ERROR_NOT_FOUND;
		}
	}
	if (event >= 0 && st->probe_errno[event]) {
		const struct og_perf_event_def *def = og_perf_event_at((size_t)event);
		*why_not = def->type == PERF_TYPE_HARDWARE && !st->any_hw ? def->no_pmu_why
		                                                          : def->refused_why;
		if (!(b.config == PERF_COUNT_HW_CPU_CYCLES && b.type == PERF_TYPE_HARDWARE &&
		      og_perf_mips_cycles_fallback(st, name, &b, why_not)))
			return GPA_STATUS_ERROR_NOT_FOUND;
	}
	if (b.kind == OG_PERF_KIND_HW && st->hw_slots == 0) {
		*why_not = "the PMU has no free counter (another program or the NMI watchdog "
		           "holds them all)";
		if (!(b.config == PERF_COUNT_HW_CPU_CYCLES && b.type == PERF_TYPE_HARDWARE &&
		      og_perf_mips_cycles_fallback(st, name, &b, why_not)))
			return GPA_STATUS_ERROR_NOT_FOUND;
	}
	if (tid && !og_perf_thread_mark(&b, tid)) {
		st->host.log(st->host.log_ctx, OG_LOG_ERROR, "perf: raw counter %s: source is "
		             "longer than %d characters; shorten it", name, OG_PERF_SOURCE_MAX - 1);
		return GPA_STATUS_ERROR_FAILED;
	}
	*raw_id = og_perf_bind(st, &b);
	if (*raw_id == UINT32_MAX) {
		st->host.log(st->host.log_ctx, OG_LOG_ERROR,
		             "perf: raw counter %s: more than %d distinct sources; load fewer "
		             "counter files",
		             name, OG_PERF_MAX_BOUND);
		return GPA_STATUS_ERROR_FAILED;
	}
	return GPA_STATUS_OK;
}

static GPA_Status perf_constant(void *state, const char *name, double *value)
{
	struct og_perf_state *st = state;
	if (strcmp(name, "NumCPUs") == 0) {
		unsigned n = og_perf_online_cpus(&st->host);
		if (n == 0) {
			st->host.log(st->host.log_ctx, OG_LOG_ERROR,
			             "perf: constant NumCPUs: /sys/devices/system/cpu/online is "
			             "unreadable; mount sysfs or give NumCPUs a value: in the file");
			return GPA_STATUS_ERROR_NOT_FOUND;
		}
		*value = n;
		return GPA_STATUS_OK;
	}
	if (og_perf_mips_constant(st, name, value) == GPA_STATUS_OK)
		return GPA_STATUS_OK;
	if (strcmp(name, "PerfHardwareCounters") == 0) {
		*value = st->hw_slots;
		return GPA_STATUS_OK;
	}
	st->host.log(st->host.log_ctx, OG_LOG_ERROR,
	             "perf: unknown constant %s; the perf backend provides NumCPUs and "
	             "PerfHardwareCounters, give others a value: in the counter file",
	             name);
	return GPA_STATUS_ERROR_NOT_FOUND;
}

static bool perf_fits(void *state, const uint32_t *raw_ids, size_t n)
{
	struct og_perf_state *st = state;
	size_t hw = 0, fds = 0;
	bool spe = false;
	for (size_t i = 0; i < n; i++) {
		if (raw_ids[i] >= st->nbound)
			return false;
		enum og_perf_kind k = st->bound[raw_ids[i]].kind;
		hw += k == OG_PERF_KIND_HW;
		fds += k == OG_PERF_KIND_HW || k == OG_PERF_KIND_SW || k == OG_PERF_KIND_OTHER;
		spe |= k == OG_PERF_KIND_SPE;
	}
	fds += spe; /* one SPE event of its own, whatever it counts */
	/* Software events cost an fd but never a PMU counter. */
	return n <= OG_PERF_MAX_GROUP && fds < OG_PERF_MAX_GROUP && hw <= st->hw_slots &&
	       og_perf_mips_fits(st, raw_ids, n);
}

static GPA_Status perf_set_option(void *state, const char *key, const char *value)
{
	struct og_perf_state *st = state;
	if (st->pass) {
		st->host.log(st->host.log_ctx, OG_LOG_ERROR,
		             "perf: option %s cannot change during a pass; set it before "
		             "BeginPass or after EndPass",
		             key);
		return GPA_STATUS_ERROR_PASS_ALREADY_STARTED;
	}
	struct og_perf_scope old = st->scope;
	GPA_Status s = apply_option(st, key, value ? value : "");
	if (s == GPA_STATUS_OK && st->scope.kind != OG_PERF_SCOPE_SELF &&
	    memcmp(&old, &st->scope, sizeof old) != 0) {
		/* Say now, not at the next BeginPass, when the process is not
		 * there, not ours, or the CPUs need privilege we lack. */
		const struct og_perf_event_def *clock = og_perf_event_at(
			(size_t)og_perf_event_find("sw:task-clock"));
		struct perf_event_attr attr;
		og_perf_attr_init(st, &attr, clock->type, clock->config, true);
		int fd = og_perf_open_event(st, &attr, -1);
		if (fd < 0)
			s = og_perf_open_error(st, errno, "sw:task-clock");
		else
			st->host.sys->close(st->host.sys->ctx, fd);
	}
	if (s != GPA_STATUS_OK)
		st->scope = old;
	return s;
}

static const struct og_raw_desc *perf_extra_raw(void *state, size_t *count)
{
	return og_perf_catalogue(state, count);
}

static GPA_Status perf_begin_multiplexed_pass(void *state, const uint32_t *raw_ids, size_t n,
                                              const size_t *group_sizes, size_t ngroups)
{
	struct og_perf_state *st = state;
	if (st->pass) {
		st->host.log(st->host.log_ctx, OG_LOG_ERROR,
		             "perf: BeginPass while a pass is open; end the pass first");
		return GPA_STATUS_ERROR_PASS_ALREADY_STARTED;
	}
	if (ngroups == 0 || ngroups > OG_PERF_MAX_GROUPS) {
		st->host.log(st->host.log_ctx, OG_LOG_ERROR,
		             "perf: a pass of %zu groups; the backend takes 1 to %d", ngroups,
		             OG_PERF_MAX_GROUPS);
		return GPA_STATUS_ERROR_FAILED;
	}
	size_t total = 0;
	for (size_t g = 0; g < ngroups; g++) {
		if (group_sizes[g] > n - total ||
		    !perf_fits(st, raw_ids + total, group_sizes[g])) {
			st->host.log(st->host.log_ctx, OG_LOG_ERROR,
			             "perf: these %zu raw counters (group %zu of the pass) do not fit "
			             "one group (%u hardware counters per group); the pass planner must "
			             "split them",
			             group_sizes[g], g, st->hw_slots);
			return GPA_STATUS_ERROR_FAILED;
		}
		total += group_sizes[g];
	}
	if (total != n) {
		st->host.log(st->host.log_ctx, OG_LOG_ERROR,
		             "perf: the group sizes add up to %zu, not the pass's %zu raw counters",
		             total, n);
		return GPA_STATUS_ERROR_FAILED;
	}
	st->have_begin = false;
	return og_perf_pass_open(st, raw_ids, n, group_sizes, ngroups);
}

static GPA_Status perf_begin_pass(void *state, const uint32_t *raw_ids, size_t n)
{
	return perf_begin_multiplexed_pass(state, raw_ids, n, &n, 1);
}

static GPA_Status perf_end_pass(void *state)
{
	struct og_perf_state *st = state;
	if (!st->pass) {
		st->host.log(st->host.log_ctx, OG_LOG_ERROR,
		             "perf: EndPass without a pass; call BeginPass first");
		return GPA_STATUS_ERROR_PASS_NOT_STARTED;
	}
	og_perf_pass_close(st);
	st->have_begin = false;
	return GPA_STATUS_OK;
}

static GPA_Status perf_begin_sample(void *state)
{
	struct og_perf_state *st = state;
	if (!st->pass) {
		st->host.log(st->host.log_ctx, OG_LOG_ERROR,
		             "perf: BeginSample outside a pass; call BeginPass first");
		return GPA_STATUS_ERROR_PASS_NOT_STARTED;
	}
	GPA_Status s = og_perf_pass_read(st, false);
	st->have_begin = s == GPA_STATUS_OK;
	return s;
}

static GPA_Status perf_end_sample(void *state, uint64_t *deltas)
{
	struct og_perf_state *st = state;
	if (!st->pass || !st->have_begin) {
		st->host.log(st->host.log_ctx, OG_LOG_ERROR,
		             "perf: EndSample without a successful BeginSample; begin the sample "
		             "again");
		return GPA_STATUS_ERROR_SAMPLE_NOT_STARTED;
	}
	st->have_begin = false;
	return og_perf_pass_end_sample(st, deltas);
}

/* Periodic passes are read by the core's timer thread. */
static GPA_Status perf_begin_periodic(void *state, struct og_periodic_mode *mode)
{
	(void)mode;
	og_perf_pass_user_reads_off(state);
	return GPA_STATUS_OK;
}

/* One read ends a sample and begins the next. */
static GPA_Status perf_next_sample(void *state, uint64_t *deltas)
{
	struct og_perf_state *st = state;
	if (!st->pass || !st->have_begin) {
		st->host.log(st->host.log_ctx, OG_LOG_ERROR,
		             "perf: next sample without a successful begin; begin the sample again");
		return GPA_STATUS_ERROR_SAMPLE_NOT_STARTED;
	}
	GPA_Status s = og_perf_pass_read(st, true);
	if (s != GPA_STATUS_OK) {
		st->have_begin = false;
		return s;
	}
	s = og_perf_deltas(st, deltas);
	og_perf_pass_roll(st);
	return s;
}

static double perf_sample_coverage(void *state)
{
	const struct og_perf_state *st = state;
	return st->pass ? st->pass->coverage : 1.0;
}

const struct og_backend_ops og_backend_perf = {
	.name = "perf",
	.summary = "Linux perf_event_open: software events everywhere, CPU PMU events where "
	           "present",
	.open = perf_open,
	.close = perf_close,
	.bind_raw = perf_bind_raw,
	.constant = perf_constant,
	.fits = perf_fits,
	.extra_raw = perf_extra_raw,
	.set_option = perf_set_option,
	.begin_pass = perf_begin_pass,
	.end_pass = perf_end_pass,
	.begin_multiplexed_pass = perf_begin_multiplexed_pass,
	.begin_sample = perf_begin_sample,
	.end_sample = perf_end_sample,
	.sample_coverage = perf_sample_coverage,
	.begin_periodic = perf_begin_periodic,
	.next_sample = perf_next_sample,
};
