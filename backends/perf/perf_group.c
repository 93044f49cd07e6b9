/* SPDX-License-Identifier: MIT */
/*
 * perf_group.c — a pass's event groups, one read() per group per snapshot.
 *
 * A pass is one or more layouts (one normally; several when the core asks
 * for kernel multiplexing) opened on every target of the scope (one thread,
 * each thread of a process, or each CPU).  A raw counter's delta is the sum
 * over targets of its group's delta, each scaled by that group's own
 * enabled/running, so ratios inside a group stay exact.
 *
 * Why one file over 600 lines: it is one job, a pass's life (layouts,
 * open, enable, read and scale, roll, close) over one struct og_perf_pass
 * allocated in one piece; opening a single event is perf_open.c's and
 * user-space reads are perf_rdpmc.c's.
 */
#include "perf_internal.h"

#include <errno.h>
#include <stdio.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

/* ---- layouts: which events each group opens -------------------------- */

static bool counts(enum og_perf_kind k)
{
	return k == OG_PERF_KIND_HW || k == OG_PERF_KIND_OTHER || k == OG_PERF_KIND_SW;
}

/* Members of layout g from raw ids [first, first+n): hardware events first,
 * so the leader puts the group in the PMU's context from the start instead
 * of relying on the kernel moving a software-led group. */
static void build_layout(struct og_perf_state *st, size_t g, size_t first, size_t n)
{
	struct og_perf_pass *p = st->pass;
	struct og_perf_layout *l = &p->layouts[g];
	static const enum og_perf_kind order[] = { OG_PERF_KIND_HW, OG_PERF_KIND_OTHER,
		                                   OG_PERF_KIND_SW };
	l->nmembers = 0;
	/* On a MIPS 34K, either-bank events after the one-bank ones: the
	 * kernel's first-fit counter allocation then succeeds (perf_mips.c). */
	for (size_t k = 0; k < sizeof order / sizeof order[0]; k++)
		for (int rank = 0; rank < 2; rank++)
			for (size_t i = first; i < first + n; i++)
				if (st->bound[p->raw_ids[i]].kind == order[k] &&
				    og_perf_mips_rank(st, p->raw_ids[i]) == rank) {
					p->slots[i].member = (int32_t)l->nmembers;
					l->member_raw[l->nmembers++] = p->raw_ids[i];
				}
	/* A group of time:* only still needs a leader whose times to read. */
	if (l->nmembers == 0)
		l->member_raw[l->nmembers++] = UINT32_MAX;
	for (size_t i = first; i < first + n; i++) {
		p->slots[i].layout = (uint32_t)g;
		p->slots[i].kind = st->bound[p->raw_ids[i]].kind;
		if (!counts(p->slots[i].kind))
			p->slots[i].member = -1;
	}
}

/* One allocation for the pass and every array it owns. */
static struct og_perf_pass *pass_alloc(size_t n, size_t nlayouts, size_t ntargets,
                                       size_t nvalues, int **fd_pool, uint64_t **id_pool)
{
	size_t ninst = nlayouts * ntargets;
	/* Each snapshot of every instance: OG_PERF_SNAP_WORDS(members) words,
	 * and nvalues is the sum of the members. */
	size_t nsnap = OG_PERF_SNAP_WORDS(0) * ninst + 2 * nvalues;
	size_t bytes = sizeof(struct og_perf_pass) + n * sizeof(struct og_perf_slot) +
	               2 * n * sizeof(uint32_t) +
	               nlayouts * sizeof(struct og_perf_layout) +
	               ninst * sizeof(struct og_perf_instance) +
	               nvalues * (sizeof(int) + sizeof(uint64_t)) + 2 * nsnap * sizeof(uint64_t);
	struct og_perf_pass *p = calloc(1, bytes);
	if (!p)
		return NULL;
	/* Carve in order of decreasing alignment: every array's size is a
	 * multiple of its element's alignment, so each array starts aligned.
	 * (The 12-byte slots before the words put them 4 bytes off whenever a
	 * pass had an odd number of raw counters; on 32-bit targets a layout
	 * is 260 bytes, so the words go before the layouts too.) */
	char *cur = (char *)(p + 1);
	p->instances = (struct og_perf_instance *)cur;
	cur += ninst * sizeof(struct og_perf_instance);
	uint64_t *ids = (uint64_t *)cur;
	cur += nvalues * sizeof(uint64_t);
	p->snap[0] = (uint64_t *)cur;
	cur += nsnap * sizeof(uint64_t);
	p->snap[1] = (uint64_t *)cur;
	cur += nsnap * sizeof(uint64_t);
	p->layouts = (struct og_perf_layout *)cur;
	cur += nlayouts * sizeof(struct og_perf_layout);
	p->slots = (struct og_perf_slot *)cur;
	cur += n * sizeof(struct og_perf_slot);
	p->raw_ids = (uint32_t *)cur;
	cur += n * sizeof(uint32_t);
	p->word = (uint32_t *)cur;
	cur += n * sizeof(uint32_t);
	int *fds = (int *)cur;
	for (size_t i = 0; i < nvalues; i++)
		fds[i] = -1;
	p->n = n;
	p->nlayouts = nlayouts;
	p->ninstances = ninst;
	/* Instances get their slices once the layouts are known. */
	*fd_pool = fds;
	*id_pool = ids;
	return p;
}

static void unmap_user_pages(struct og_perf_state *st, struct og_perf_instance *in)
{
	if (!in->pages)
		return;
	for (size_t m = 0; m < in->nmembers; m++)
		og_perf_user_page_unmap(&st->host, &in->pages[m]);
	free(in->pages);
	in->pages = NULL;
}

void og_perf_pass_user_reads_off(struct og_perf_state *st)
{
	struct og_perf_pass *p = st->pass;
	for (size_t i = 0; p && i < p->ninstances; i++)
		unmap_user_pages(st, &p->instances[i]);
}

void og_perf_pass_roll(struct og_perf_state *st)
{
	struct og_perf_pass *p = st->pass;
	uint64_t *t = p->snap[0];
	p->snap[0] = p->snap[1];
	p->snap[1] = t;
	p->begin_wall = p->end_wall;
	og_perf_mips_roll(st);
}

void og_perf_pass_close(struct og_perf_state *st)
{
	struct og_perf_pass *p = st->pass;
	if (!p)
		return;
	const struct og_sys *sys = st->host.sys;
	og_perf_spe_pass_close(st);
	for (size_t i = p->ninstances; i-- > 0;) {
		struct og_perf_instance *in = &p->instances[i];
		unmap_user_pages(st, in);
		/* Members first: closing the leader first would promote each
		 * member to a leader of its own for the rest of the loop. */
		for (size_t m = in->nmembers; m-- > 0;)
			if (in->fds && in->fds[m] >= 0)
				sys->close(sys->ctx, in->fds[m]);
	}
	free(p->targets);
	free(p);
	st->pass = NULL;
}

static const char *member_source(const struct og_perf_state *st, uint32_t raw)
{
	return raw == UINT32_MAX ? "sw:task-clock (time base)" : st->bound[raw].source;
}

/* Logs a failed open with the target it was for, when that helps. */
static GPA_Status open_failed(struct og_perf_state *st, int err, const char *what,
                              struct og_perf_target t)
{
	const struct og_backend_host *h = &st->host;
	if (st->scope.kind == OG_PERF_SCOPE_CPUS && (err == ENODEV || err == ENXIO)) {
		h->log(h->log_ctx, OG_LOG_ERROR,
		       "perf_event_open(%s) on CPU %d: ENODEV: the CPU is offline; bring it online "
		       "(echo 1 > /sys/devices/system/cpu/cpu%d/online) or leave it out of cpu=",
		       what, t.cpu, t.cpu);
		return GPA_STATUS_ERROR_FAILED;
	}
	if (st->scope.kind == OG_PERF_SCOPE_PROCESS && !st->scope.exec && err == ESRCH) {
		/* The thread exited between the listing and the open. */
		h->log(h->log_ctx, OG_LOG_ERROR,
		       "perf_event_open(%s) on thread %ld of process %ld: ESRCH: the thread exited "
		       "while the pass began; begin the pass again",
		       what, (long)t.pid, (long)st->scope.pid);
		return GPA_STATUS_ERROR_FAILED;
	}
	return og_perf_open_error(st, err, what);
}

static GPA_Status open_member(struct og_perf_state *st, struct og_perf_instance *in, size_t m)
{
	struct og_perf_pass *p = st->pass;
	const struct og_sys *sys = st->host.sys;
	uint32_t raw = p->layouts[in->layout].member_raw[m];
	const char *what = member_source(st, raw);
	struct perf_event_attr attr;
	if (raw == UINT32_MAX) {
		og_perf_attr_init(st, &attr, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, m == 0);
	} else {
		const struct og_perf_bound *b = &st->bound[raw];
		og_perf_attr_init(st, &attr, b->type, b->config, m == 0);
		attr.config1 = b->config1;
		attr.config2 = b->config2;
#if defined(__aarch64__)
		/* The arm PMU only offers user reads of events that ask for
		 * them: its "rdpmc" format term, config1 bit 1. */
		if (b->kind == OG_PERF_KIND_HW && st->scope.kind == OG_PERF_SCOPE_SELF)
			attr.config1 |= 2;
#endif
	}
	struct og_perf_target t = p->targets[in->target];
	int fd = og_perf_open_on(st, &attr, t, m == 0 ? -1 : in->fds[0]);
	if (fd < 0)
		return open_failed(st, errno, what, t);
	in->fds[m] = fd;
	uint64_t id = 0;
	if (sys->ioctl(sys->ctx, fd, PERF_EVENT_IOC_ID, &id) < 0) {
		char nbuf[24];
		st->host.log(st->host.log_ctx, OG_LOG_ERROR,
		             "perf: PERF_EVENT_IOC_ID on %s failed (%s); this kernel is older "
		             "than 3.12, use a newer one",
		             what, og_perf_errno_name(errno, nbuf, sizeof nbuf));
		return GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED;
	}
	for (size_t k = 0; k < m; k++)
		if (in->ids[k] == id) {
			st->host.log(st->host.log_ctx, OG_LOG_ERROR,
			             "perf: the kernel gave %s the id %llu it already gave "
			             "another event of the group; report this kernel bug",
			             what, (unsigned long long)id);
			return GPA_STATUS_ERROR_FAILED;
		}
	in->ids[m] = id;
	return GPA_STATUS_OK;
}

/* User-space snapshots need the calling thread's own events (the counter
 * instruction reads the CPU it runs on) and a counter for every member:
 * software events never have one.  Any page that does not offer reads
 * leaves the instance on read(). */
static void map_user_pages(struct og_perf_state *st, struct og_perf_instance *in)
{
	const struct og_perf_pass *p = st->pass;
	const struct og_perf_layout *l = &p->layouts[in->layout];
	if (st->scope.kind != OG_PERF_SCOPE_SELF || !st->host.sys->read_pmc)
		return;
	for (size_t m = 0; m < l->nmembers; m++)
		if (l->member_raw[m] == UINT32_MAX || st->bound[l->member_raw[m]].kind != OG_PERF_KIND_HW)
			return;
	in->pages = calloc(in->nmembers, sizeof *in->pages);
	if (!in->pages)
		return;
	size_t m = 0;
	while (m < in->nmembers && og_perf_user_page_map(&st->host, in->fds[m], &in->pages[m]) &&
	       og_perf_user_page_can_read(&st->host, &in->pages[m]))
		m++;
	/* The kernel offers them; whether the CPU lets this process run the
	 * read is asked once, of a child, so that a trap costs no signal. */
	uint32_t index = m == in->nmembers ? og_perf_user_page_index(&in->pages[0]) : 0;
	if (index && !st->user_reads) {
		st->user_reads = og_perf_user_read_probe(&st->host, index, st->user_reads_why,
		                                         sizeof st->user_reads_why) ? 1 : -1;
		st->host.log(st->host.log_ctx, OG_LOG_TRACE, "perf: user-space counter reads: %s%s",
		             st->user_reads > 0 ? "the register reads" : "not readable, ",
		             st->user_reads > 0 ? "" : st->user_reads_why);
	}
	if (m == in->nmembers && st->user_reads > 0)
		return;
	st->host.log(st->host.log_ctx, OG_LOG_TRACE,
	             "perf: no user-space reads for group %u (%s); snapshots use read()",
	             in->layout, m == in->nmembers ? (index ? st->user_reads_why
	                                                    : "the leader is on no counter now")
	                         : in->pages[m].page ? "the page does not offer them"
	                                             : "the event page cannot be mapped");
	for (size_t k = 0; k <= m && k < in->nmembers; k++)
		og_perf_user_page_unmap(&st->host, &in->pages[k]);
	free(in->pages);
	in->pages = NULL;
}

static GPA_Status enable(struct og_perf_state *st, const struct og_perf_instance *in)
{
	const struct og_sys *sys = st->host.sys;
	if (sys->ioctl(sys->ctx, in->fds[0], PERF_EVENT_IOC_ENABLE, 0) == 0)
		return GPA_STATUS_OK;
	char nbuf[24];
	st->host.log(st->host.log_ctx, OG_LOG_ERROR,
	             "perf: PERF_EVENT_IOC_ENABLE failed (%s); the group cannot start, check "
	             "that the counted process still exists",
	             og_perf_errno_name(errno, nbuf, sizeof nbuf));
	return GPA_STATUS_ERROR_FAILED;
}

GPA_Status og_perf_pass_open(struct og_perf_state *st, const uint32_t *raw_ids, size_t n,
                             const size_t *group_sizes, size_t ngroups)
{
	struct og_perf_target *targets;
	size_t ntargets;
	GPA_Status s = og_perf_scope_targets(st, &targets, &ntargets);
	if (s != GPA_STATUS_OK)
		return s;
	/* Upper bound of members per instance: a layout's raw ids, or 1. */
	size_t nvalues = 0;
	for (size_t g = 0; g < ngroups; g++)
		nvalues += (group_sizes[g] ? group_sizes[g] : 1) * ntargets;
	int *fds;
	uint64_t *ids;
	st->pass = pass_alloc(n, ngroups, ntargets, nvalues, &fds, &ids);
	if (!st->pass) {
		free(targets);
		st->host.log(st->host.log_ctx, OG_LOG_ERROR,
		             "perf: out of memory for a pass of %zu groups on %zu targets", ngroups,
		             ntargets);
		return GPA_STATUS_ERROR_FAILED;
	}
	struct og_perf_pass *p = st->pass;
	p->targets = targets;
	p->ntargets = ntargets;
	memcpy(p->raw_ids, raw_ids, n * sizeof *raw_ids);
	for (size_t g = 0, first = 0; g < ngroups; first += group_sizes[g], g++)
		build_layout(st, g, first, group_sizes[g]);
	for (size_t i = 0; i < n; i++)
		p->need_wall |= st->bound[raw_ids[i]].kind == OG_PERF_KIND_TIME_WALL;
	p->need_wall |= st->scope.kind == OG_PERF_SCOPE_CPUS;
	p->coverage = 1.0;

	/* Hand each instance its slices of the fd, id and snapshot pools. */
	for (size_t g = 0, i = 0, snap = 0; g < ngroups; g++)
		for (size_t t = 0; t < ntargets; t++, i++) {
			struct og_perf_instance *in = &p->instances[i];
			size_t m = p->layouts[g].nmembers;
			*in = (struct og_perf_instance){ .layout = (uint32_t)g, .target = (uint32_t)t };
			in->fds = fds;
			in->ids = ids;
			in->snap = snap;
			fds += m;
			ids += m;
			snap += OG_PERF_SNAP_WORDS(m);
		}
	/* Plain (perf_internal.h): each raw id's word in a snapshot. */
	p->plain = ntargets == 1;
	for (size_t i = 0; i < n; i++) {
		const struct og_perf_slot *slot = &p->slots[i];
		p->plain &= slot->member >= 0 && !st->bound[raw_ids[i]].tid;
		if (slot->member >= 0)
			p->word[i] = (uint32_t)(p->instances[slot->layout * ntargets].snap +
			                        OG_PERF_SNAP_VALUE(slot->member));
	}
	for (size_t i = 0; s == GPA_STATUS_OK && i < p->ninstances; i++) {
		struct og_perf_instance *in = &p->instances[i];
		size_t m = p->layouts[in->layout].nmembers;
		for (size_t k = 0; s == GPA_STATUS_OK && k < m; k++) {
			s = open_member(st, in, k);
			if (in->fds[k] >= 0)
				in->nmembers = k + 1; /* what pass_close must close */
		}
	}
	/* With exec, the kernel enables the groups at the execve. */
	bool at_exec = st->scope.kind == OG_PERF_SCOPE_PROCESS && st->scope.exec;
	for (size_t i = 0; s == GPA_STATUS_OK && !at_exec && i < p->ninstances; i++)
		s = enable(st, &p->instances[i]);
	for (size_t i = 0; s == GPA_STATUS_OK && i < p->ninstances; i++)
		map_user_pages(st, &p->instances[i]);
	if (s == GPA_STATUS_OK)
		s = og_perf_spe_pass_open(st);
	if (s != GPA_STATUS_OK) {
		og_perf_pass_close(st);
		return s;
	}
	p->one_read = p->ninstances == 1 && !p->instances[0].pages && !p->need_wall && !p->spe &&
	              !st->mips;
	return s;
}

/* ---- reading ----------------------------------------------------------- */

/* The words are host-endian by definition: the kernel stores them with CPU
 * stores into the read() buffer (perf_read_group), on big-endian MIPS as on
 * x86.  Snapshots are uint64_t arrays, so every word is aligned. */

/* A read that is not the usual one: NULL when it is right after all, its
 * pairs now in member order (matched by id); else what the kernel got
 * wrong.  Out of line: the usual read never comes here. */
static __attribute__((noinline)) const char *check_read(uint64_t *words, ssize_t nbytes,
                                                        const uint64_t *ids, size_t nmembers)
{
	if (nbytes < 0)
		return "the read failed";
	if (nbytes == 0)
		return "the read returned 0 bytes (a pinned group the PMU could not hold)";
	if ((size_t)nbytes != OG_PERF_READ_WORDS(nmembers) * sizeof(uint64_t))
		return "the read returned a size that does not match the group";
	if (words[0] != nmembers)
		return "the read reported a number of events (nr) other than the group's";
	uint64_t pairs[2 * OG_PERF_MAX_GROUP];
	bool seen[OG_PERF_MAX_GROUP] = { false };
	memcpy(pairs, words + 3, 2 * nmembers * sizeof(uint64_t));
	for (size_t k = 0; k < nmembers; k++) {
		uint64_t value = pairs[2 * k], id = pairs[2 * k + 1];
		size_t m = 0;
		while (m < nmembers && ids[m] != id)
			m++;
		if (m == nmembers)
			return "the read carried an event id that is not in the group";
		if (seen[m])
			return "the read carried one event id twice";
		seen[m] = true;
		words[OG_PERF_SNAP_VALUE(m)] = value;
		words[OG_PERF_SNAP_VALUE(m) + 1] = id;
	}
	return NULL;
}

/* The snapshot from the user pages, or false when any member's page says
 * no right now (not on a counter, seqlock never settled): then read().
 * Out of line: software events never have them. */
static __attribute__((noinline)) bool read_user(struct og_perf_state *st, const struct og_perf_instance *in,
                      uint64_t *words)
{
	for (size_t m = 0; m < in->nmembers; m++) {
		uint64_t en, run;
		if (og_perf_user_page_read(&st->host, &in->pages[m], &words[OG_PERF_SNAP_VALUE(m)],
		                           &en, &run) != OG_PERF_USER_READ_OK)
			return false;
		if (m == 0) {
			words[OG_PERF_SNAP_ENABLED] = en;
			words[OG_PERF_SNAP_RUNNING] = run;
		}
	}
	return true;
}

static __attribute__((noinline)) GPA_Status read_failed(struct og_perf_state *st,
                                                        const struct og_perf_instance *in,
                                                        ssize_t r, const char *bad)
{
	char nbuf[24];
	if (r < 0)
		st->host.log(st->host.log_ctx, OG_LOG_ERROR,
		             "perf: read of the event group failed (%s); the counted process "
		             "may be gone, start a new pass",
		             og_perf_errno_name(errno, nbuf, sizeof nbuf));
	else
		st->host.log(st->host.log_ctx, OG_LOG_ERROR,
		             "perf: the kernel's group read is inconsistent: %s (%zd bytes for "
		             "%zu events); the sample is dropped, report the kernel version",
		             bad, r, in->nmembers);
	return GPA_STATUS_ERROR_READING_COUNTER_RESULT;
}

/* The usual read of a group of n: its size, nr, and each id where it was
 * opened. */
static inline bool usual_read(const uint64_t *words, ssize_t r, const uint64_t *ids, size_t n)
{
	if (r != (ssize_t)(OG_PERF_READ_WORDS(n) * sizeof(uint64_t)))
		return false;
	if (words[0] != n)
		return false;
	const uint64_t *id = words + OG_PERF_SNAP_VALUE(0) + 1, *last = ids + n;
	while (ids < last && *id == *ids)
		id += 2, ids++;
	return ids == last;
}

/* The read() of a group's snapshot: room for more than we expect, so a
 * kernel that returns more is seen as a size mismatch rather than silently
 * truncated. */
static inline ssize_t read_group(const struct og_sys *sys, const struct og_perf_instance *in,
                                 uint64_t *words)
{
	return sys->read(sys->ctx, in->fds[0], words,
	                 OG_PERF_SNAP_WORDS(in->nmembers) * sizeof(uint64_t));
}

/* What follows a read() that was not the usual one (r its answer): read
 * again while interrupted, then the full check.  Out of line. */
static __attribute__((noinline)) GPA_Status read_rest(struct og_perf_state *st,
                                                      const struct og_perf_instance *in,
                                                      uint64_t *words, ssize_t r)
{
	const struct og_sys *sys = st->host.sys;
	size_t n = in->nmembers, want = OG_PERF_SNAP_WORDS(n) * sizeof(uint64_t);
	while (r < 0 && errno == EINTR)
		r = read_group(sys, in, words);
	if (usual_read(words, r, in->ids, n))
		return GPA_STATUS_OK;
	if (r < 0)
		return read_failed(st, in, r, NULL);
	if ((size_t)r > want)
		r = (ssize_t)want + 1; /* cannot match any group size: rejected */
	const char *bad = check_read(words, r, in->ids, n);
	return bad ? read_failed(st, in, r, bad) : GPA_STATUS_OK;
}

/* One group's snapshot, read() straight into its words.  The kernel is
 * checked all the same: the usual read here (usual_read), anything else
 * by read_rest. */
static inline GPA_Status read_instance(struct og_perf_state *st,
                                       const struct og_perf_instance *in, uint64_t *words)
{
	if (in->pages && read_user(st, in, words))
		return GPA_STATUS_OK;
	ssize_t r = read_group(st->host.sys, in, words);
	if (usual_read(words, r, in->ids, in->nmembers))
		return GPA_STATUS_OK;
	return read_rest(st, in, words, r);
}

static uint64_t monotonic_ns(void)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

/* Every group's snapshot, then what else the pass reads at a snapshot.
 * Out of line: a pass of one group (one_read) never comes here. */
static __attribute__((noinline)) GPA_Status read_all(struct og_perf_state *st, bool end)
{
	struct og_perf_pass *p = st->pass;
	uint64_t *snap = p->snap[end];
	const struct og_perf_instance *in = p->instances, *last = in + p->ninstances;
	for (; in < last; in++) {
		GPA_Status s = read_instance(st, in, snap + in->snap);
		if (s != GPA_STATUS_OK)
			return s;
	}
	/* Wall time is not the kernel's to give: for a task's events the
	 * enabled time only advances while the task is on a CPU.  The clock
	 * costs ~40 ns, so only passes that need it read it. */
	if (p->need_wall)
		*(end ? &p->end_wall : &p->begin_wall) = monotonic_ns();
	/* Out-of-line calls into the files below, made only by passes that
	 * have something there. */
	if (p->spe)
		og_perf_spe_read(st, end);
	if (st->mips)
		og_perf_mips_read(st, end);
	return GPA_STATUS_OK;
}

GPA_Status og_perf_pass_read(struct og_perf_state *st, bool end)
{
	const struct og_perf_pass *p = st->pass;
	if (!p->one_read)
		return read_all(st, end);
	/* One group, no user pages: its snapshot (at 0) is one read(). */
	const struct og_perf_instance *in = p->instances;
	uint64_t *snap = p->snap[end];
	ssize_t r = read_group(st->host.sys, in, snap);
	if (usual_read(snap, r, in->ids, in->nmembers))
		return GPA_STATUS_OK;
	return read_rest(st, in, snap, r);
}

/* ---- deltas ------------------------------------------------------------- */

static uint64_t forward(uint64_t end, uint64_t begin)
{
	return end >= begin ? end - begin : 0;
}

/* value * enabled / running without overflow, saturating (running > 0).
 * 32-bit targets have no 128-bit integer, so a product that overflows 64
 * bits is divided as two 64-bit words, one bit at a time: it only happens
 * after days of multiplexed counting. */
static uint64_t scale(uint64_t value, uint64_t enabled, uint64_t running)
{
	uint64_t product;
	if (!__builtin_mul_overflow(value, enabled, &product))
		return product / running;
	/* hi:lo = value * enabled, from 32-bit halves. */
	uint64_t a0 = value & 0xffffffffu, a1 = value >> 32;
	uint64_t b0 = enabled & 0xffffffffu, b1 = enabled >> 32;
	uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
	uint64_t mid = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
	uint64_t lo = (mid << 32) | (p00 & 0xffffffffu);
	uint64_t hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
	if (hi >= running)
		return UINT64_MAX; /* the quotient needs more than 64 bits */
	uint64_t q = 0, rem = hi;
	for (int bit = 63; bit >= 0; bit--) {
		bool carry = rem >> 63;
		rem = rem << 1 | (lo >> bit & 1);
		q <<= 1;
		if (carry || rem >= running) {
			rem -= running;
			q |= 1;
		}
	}
	return q;
}

static uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* One instance's times over the sample, running clamped to enabled. */
static void instance_times(const struct og_perf_pass *p, struct og_perf_instance *in)
{
	const uint64_t *b = p->snap[0] + in->snap, *e = p->snap[1] + in->snap;
	in->enabled = forward(e[OG_PERF_SNAP_ENABLED], b[OG_PERF_SNAP_ENABLED]);
	in->running = forward(e[OG_PERF_SNAP_RUNNING], b[OG_PERF_SNAP_RUNNING]);
	if (in->running > in->enabled)
		in->running = in->enabled; /* cannot run longer than enabled: trust enabled */
}

static bool layout_counts(const struct og_perf_layout *l)
{
	return l->member_raw[0] != UINT32_MAX;
}

static void target_name(const struct og_perf_state *st, const struct og_perf_target *t,
                        char *buf, size_t len)
{
	if (t->cpu >= 0)
		snprintf(buf, len, " on CPU %d", t->cpu);
	else if (st->scope.kind == OG_PERF_SCOPE_PROCESS && !st->scope.exec)
		snprintf(buf, len, " on thread %ld", (long)t->pid);
	else
		buf[0] = '\0';
}

/* Fails the sample when a counting group never got on the PMU: its counts
 * cannot be estimated.  A CPU whose group stopped being enabled went
 * offline: what it did not run it did not count, so that is only said. */
static GPA_Status check_schedule(struct og_perf_state *st)
{
	struct og_perf_pass *p = st->pass;
	double coverage = 1.0;
	bool wall_moved = p->end_wall > p->begin_wall;
	p->all_full = true;
	for (size_t i = 0; i < p->ninstances; i++) {
		struct og_perf_instance *in = &p->instances[i];
		instance_times(p, in);
		uint64_t enabled = in->enabled, running = in->running;
		if (running == enabled && enabled > 0)
			continue; /* the common case: counted all along */
		p->all_full &= running == enabled;
		const struct og_perf_target *t = &p->targets[in->target];
		if (t->cpu >= 0 && enabled == 0 && wall_moved) {
			if (in->layout == 0)
				st->host.log(st->host.log_ctx, OG_LOG_MESSAGE,
				             "perf: CPU %d stopped counting during the sample (it went "
				             "offline?); the sample has what it ran before that, and later "
				             "passes leave it out unless it comes back online",
				             t->cpu);
			continue;
		}
		if (!layout_counts(&p->layouts[in->layout]) || enabled == 0)
			continue;
		if (running == 0) {
			char where[48];
			target_name(st, t, where, sizeof where);
			st->host.log(st->host.log_ctx, OG_LOG_ERROR,
			             "perf: event group %u%s never got on the PMU during this sample "
			             "(%s); the sample has no counts, %s",
			             in->layout, where,
			             p->nlayouts > 1 ? "the kernel rotates multiplexed groups every "
			                               "perf_event_mux_interval_ms"
			                             : "another program holds the counters",
			             p->nlayouts > 1 ? "make samples longer than the rotation "
			                               "interval or turn multiplexing off"
			                             : "close the other perf users or enable fewer "
			                               "hardware counters");
			return GPA_STATUS_ERROR_READING_COUNTER_RESULT;
		}
		double c = (double)running / (double)enabled;
		if (c < coverage)
			coverage = c;
	}
	p->coverage = coverage;
	return GPA_STATUS_OK;
}

/* What one group counted for one member over the sample. */
static uint64_t member_delta(const struct og_perf_pass *p, const struct og_perf_instance *in,
                             int32_t m)
{
	size_t w = in->snap + OG_PERF_SNAP_VALUE(m);
	uint64_t v = forward(p->snap[1][w], p->snap[0][w]);
	if (in->running == in->enabled)
		return v;
	/* running == 0: an offline CPU, which check_schedule let through. */
	return in->running ? scale(v, in->enabled, in->running) : 0;
}

/* og_perf_deltas for every pass and sample: out of line, so that the
 * usual sample's path keeps few registers. */
static __attribute__((noinline)) GPA_Status deltas_checked(struct og_perf_state *st,
                                                           uint64_t *deltas)
{
	struct og_perf_pass *p = st->pass;
	const uint64_t *b = p->snap[0], *e = p->snap[1];
	GPA_Status s = check_schedule(st);
	if (s != GPA_STATUS_OK)
		return s;
	/* The common case: one target, every group counted all along: a
	 * member's delta is one subtraction, no scaling to consider. */
	bool full = p->ntargets == 1 && p->all_full;
	for (size_t i = 0; i < p->n; i++) {
		const struct og_perf_slot *slot = &p->slots[i];
		const struct og_perf_instance *in = &p->instances[slot->layout * p->ntargets];
		/* A per-thread counter (perf_thread.c) counts only its thread's
		 * share: with one target, all of it or (another thread) none. */
		pid_t tid = st->bound[p->raw_ids[i]].tid;
		if (slot->member >= 0 && full && !tid) {
			size_t w = in->snap + OG_PERF_SNAP_VALUE(slot->member);
			deltas[i] = forward(e[w], b[w]);
			continue;
		}
		if (slot->member >= 0 && p->ntargets == 1 && !tid) {
			deltas[i] = member_delta(p, in, slot->member);
			continue;
		}
		if (slot->kind == OG_PERF_KIND_TIME_WALL) {
			deltas[i] = forward(p->end_wall, p->begin_wall);
			continue;
		}
		if (slot->kind == OG_PERF_KIND_SPE) {
			deltas[i] = og_perf_spe_value(st, p->raw_ids[i]);
			continue;
		}
		if (slot->kind == OG_PERF_KIND_CYCLE_COUNTER) {
			deltas[i] = og_perf_mips_cycles(st);
			continue;
		}
		uint64_t sum = 0;
		for (size_t t = 0; t < p->ntargets; t++, in++) {
			if (tid && p->targets[t].pid != tid)
				continue; /* another thread's share */
			uint64_t v = slot->kind == OG_PERF_KIND_TIME_ENABLED   ? in->enabled
			             : slot->kind == OG_PERF_KIND_TIME_RUNNING ? in->running
			             : slot->member >= 0 ? member_delta(p, in, slot->member)
			                                                       : 0;
			sum = add_sat(sum, v);
		}
		deltas[i] = sum;
	}
	if (p->coverage < 1.0)
		st->host.log(st->host.log_ctx, OG_LOG_MESSAGE,
		             "perf: the event group ran %.1f%% of the sample (multiplexed); "
		             "counts are scaled by enabled/running time, ratios stay exact",
		             100.0 * p->coverage);
	return GPA_STATUS_OK;
}

/* og_perf_deltas of a plain pass (perf_internal.h): every group ran all
 * along, nothing to scale or to say; else deltas_checked sees it all
 * again. */
static inline GPA_Status plain_deltas(struct og_perf_state *st, uint64_t *deltas)
{
	struct og_perf_pass *p = st->pass;
	const uint64_t *b = p->snap[0], *e = p->snap[1];
	struct og_perf_instance *in = p->instances, *last = in + p->ninstances;
	for (; in < last; in++) {
		instance_times(p, in);
		if (in->running != in->enabled || !in->enabled)
			return deltas_checked(st, deltas);
	}
	for (size_t i = 0; i < p->n; i++)
		deltas[i] = forward(e[p->word[i]], b[p->word[i]]);
	p->all_full = true;
	p->coverage = 1.0;
	return GPA_STATUS_OK;
}

GPA_Status og_perf_deltas(struct og_perf_state *st, uint64_t *deltas)
{
	return st->pass->plain ? plain_deltas(st, deltas) : deltas_checked(st, deltas);
}

GPA_Status og_perf_pass_end_sample(struct og_perf_state *st, uint64_t *deltas)
{
	struct og_perf_pass *p = st->pass;
	if (!p->one_read || !p->plain) {
		GPA_Status s = og_perf_pass_read(st, true);
		return s == GPA_STATUS_OK ? og_perf_deltas(st, deltas) : s;
	}
	/* og_perf_pass_read of a pass of one group (its snapshot at 0), then
	 * its deltas, in one call. */
	struct og_perf_instance *in = p->instances;
	uint64_t *e = p->snap[1];
	ssize_t r = read_group(st->host.sys, in, e);
	if (!usual_read(e, r, in->ids, in->nmembers)) {
		GPA_Status s = read_rest(st, in, e, r);
		if (s != GPA_STATUS_OK)
			return s;
	}
	return plain_deltas(st, deltas);
}
