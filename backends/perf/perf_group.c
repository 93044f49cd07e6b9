/* perf_group.c — one event group per pass, one read() per snapshot. */
#include "perf_internal.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

#define GROUP_FORMAT (PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED | \
                      PERF_FORMAT_TOTAL_TIME_RUNNING)

void og_perf_attr_init(const struct og_perf_state *st, struct perf_event_attr *attr,
                       uint32_t type, uint64_t config, bool leader)
{
	memset(attr, 0, sizeof *attr);
	attr->size = sizeof *attr;
	attr->type = type;
	attr->config = config;
	attr->read_format = GROUP_FORMAT;
	/* Members follow their leader: only the leader is opened disabled. */
	attr->disabled = leader;
	attr->exclude_kernel = st->exclude_kernel;
	attr->exclude_hv = st->exclude_kernel;
	if (st->pid != 0) {
		/* A process scope includes the children it forks after the open;
		 * the kernel folds their counts in when they exit. */
		attr->inherit = 1;
		attr->enable_on_exec = leader && st->exec;
	}
}

int og_perf_open_event(const struct og_perf_state *st, struct perf_event_attr *attr,
                       int group_fd)
{
	const struct og_sys *sys = st->host.sys;
	return sys->perf_event_open(sys->ctx, attr, st->pid, -1, group_fd, 0);
}

void og_perf_group_close(struct og_perf_state *st)
{
	const struct og_sys *sys = st->host.sys;
	/* Members first: closing the leader first would promote each member to
	 * a leader of its own for the rest of the loop. */
	for (size_t i = st->nmembers; i-- > 0;) {
		if (st->members[i].fd >= 0)
			sys->close(sys->ctx, st->members[i].fd);
		st->members[i].fd = -1;
	}
	st->nmembers = 0;
}

static GPA_Status add_member(struct og_perf_state *st, uint32_t raw_id, uint32_t type,
                             uint64_t config, uint64_t config1, uint64_t config2,
                             const char *what)
{
	const struct og_sys *sys = st->host.sys;
	struct perf_event_attr attr;
	bool leader = st->nmembers == 0;
	og_perf_attr_init(st, &attr, type, config, leader);
	attr.config1 = config1;
	attr.config2 = config2;
	int fd = og_perf_open_event(st, &attr, leader ? -1 : st->members[0].fd);
	if (fd < 0)
		return og_perf_open_error(st, errno, what);
	uint64_t id = 0;
	if (sys->ioctl(sys->ctx, fd, PERF_EVENT_IOC_ID, &id) < 0) {
		char nbuf[24];
		const char *name = og_perf_errno_name(errno, nbuf, sizeof nbuf);
		sys->close(sys->ctx, fd);
		st->host.log(st->host.log_ctx, OG_LOG_ERROR,
		             "perf: PERF_EVENT_IOC_ID on %s failed (%s); this kernel is older "
		             "than 3.12, use a newer one",
		             what, name);
		return GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED;
	}
	for (size_t i = 0; i < st->nmembers; i++) {
		if (st->members[i].id == id) {
			sys->close(sys->ctx, fd);
			st->host.log(st->host.log_ctx, OG_LOG_ERROR,
			             "perf: the kernel gave %s the id %llu it already gave "
			             "another event of the group; report this kernel bug",
			             what, (unsigned long long)id);
			return GPA_STATUS_ERROR_FAILED;
		}
	}
	st->members[st->nmembers++] = (struct og_perf_member){ raw_id, fd, id };
	return GPA_STATUS_OK;
}

static GPA_Status open_kind(struct og_perf_state *st, const uint32_t *raw_ids, size_t n,
                            enum og_perf_kind kind)
{
	for (size_t i = 0; i < n; i++) {
		const struct og_perf_bound *b = &st->bound[raw_ids[i]];
		if (b->kind != kind)
			continue;
		st->pass_member[i] = (int)st->nmembers;
		GPA_Status s = add_member(st, raw_ids[i], b->type, b->config, b->config1,
		                          b->config2, b->source);
		if (s != GPA_STATUS_OK)
			return s;
	}
	return GPA_STATUS_OK;
}

GPA_Status og_perf_group_open(struct og_perf_state *st, const uint32_t *raw_ids, size_t n)
{
	st->nmembers = 0;
	st->need_wall = false;
	for (size_t i = 0; i < n; i++) {
		st->pass_member[i] = -1;
		st->need_wall |= st->bound[raw_ids[i]].kind == OG_PERF_KIND_TIME_WALL;
	}
	/* Hardware events first, so the leader puts the group in the PMU's
	 * context from the start instead of relying on the kernel moving a
	 * software-led group. */
	GPA_Status s = open_kind(st, raw_ids, n, OG_PERF_KIND_HW);
	if (s == GPA_STATUS_OK)
		s = open_kind(st, raw_ids, n, OG_PERF_KIND_OTHER);
	if (s == GPA_STATUS_OK)
		s = open_kind(st, raw_ids, n, OG_PERF_KIND_SW);
	/* A pass of time:* only still needs a group whose times to read. */
	if (s == GPA_STATUS_OK && st->nmembers == 0)
		s = add_member(st, UINT32_MAX, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 0, 0,
		               "sw:task-clock (time base)");
	if (s != GPA_STATUS_OK) {
		og_perf_group_close(st);
		return s;
	}
	if (!(st->pid != 0 && st->exec)) {
		const struct og_sys *sys = st->host.sys;
		if (sys->ioctl(sys->ctx, st->members[0].fd, PERF_EVENT_IOC_ENABLE, 0) < 0) {
			char nbuf[24];
			const char *name = og_perf_errno_name(errno, nbuf, sizeof nbuf);
			og_perf_group_close(st);
			st->host.log(st->host.log_ctx, OG_LOG_ERROR,
			             "perf: PERF_EVENT_IOC_ENABLE failed (%s); the group cannot "
			             "start, check that the counted process still exists",
			             name);
			return GPA_STATUS_ERROR_FAILED;
		}
	}
	return GPA_STATUS_OK;
}

const char *og_perf_parse_group(const uint64_t *words, ssize_t nbytes,
                                const struct og_perf_member *members, size_t nmembers,
                                struct og_perf_snapshot *snap)
{
	if (nbytes < 0)
		return "the read failed";
	if (nbytes == 0)
		return "the read returned 0 bytes (a pinned group the PMU could not hold)";
	if ((size_t)nbytes != OG_PERF_READ_WORDS(nmembers) * sizeof(uint64_t))
		return "the read returned a size that does not match the group";
	if (words[0] != nmembers)
		return "the read reported a number of events (nr) other than the group's";
	snap->enabled = words[1];
	snap->running = words[2];
	bool seen[OG_PERF_MAX_GROUP] = { false };
	for (size_t k = 0; k < nmembers; k++) {
		uint64_t value = words[3 + 2 * k], id = words[4 + 2 * k];
		size_t m = 0;
		while (m < nmembers && members[m].id != id)
			m++;
		if (m == nmembers)
			return "the read carried an event id that is not in the group";
		if (seen[m])
			return "the read carried one event id twice";
		seen[m] = true;
		snap->values[m] = value;
	}
	return NULL;
}

GPA_Status og_perf_group_read(struct og_perf_state *st, struct og_perf_snapshot *snap)
{
	const struct og_sys *sys = st->host.sys;
	/* Room for more than we expect, so a kernel that returns more is seen
	 * as a size mismatch rather than silently truncated. */
	size_t want = (OG_PERF_READ_WORDS(st->nmembers) + 2) * sizeof(uint64_t);
	ssize_t r;
	do
		r = sys->read(sys->ctx, st->members[0].fd, st->readbuf, want);
	while (r < 0 && errno == EINTR);
	if (r < 0) {
		char nbuf[24];
		const char *name = og_perf_errno_name(errno, nbuf, sizeof nbuf);
		st->host.log(st->host.log_ctx, OG_LOG_ERROR,
		             "perf: read of the event group failed (%s); the counted process "
		             "may be gone, start a new pass",
		             name);
		return GPA_STATUS_ERROR_READING_COUNTER_RESULT;
	}
	/* Wall time is not the kernel's to give: for a task's events the
	 * enabled time only advances while the task is on a CPU.  The clock
	 * costs ~40 ns, so only passes that report it read it. */
	snap->wall = 0;
	if (st->need_wall) {
		struct timespec now;
		clock_gettime(CLOCK_MONOTONIC, &now);
		snap->wall = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
	}
	if ((size_t)r > want)
		r = (ssize_t)want + 1; /* cannot match any group size: rejected below */
	const char *bad = og_perf_parse_group(st->readbuf, r, st->members, st->nmembers, snap);
	if (bad) {
		st->host.log(st->host.log_ctx, OG_LOG_ERROR,
		             "perf: the kernel's group read is inconsistent: %s (%zd bytes for "
		             "%zu events); the sample is dropped, report the kernel version",
		             bad, r, st->nmembers);
		return GPA_STATUS_ERROR_READING_COUNTER_RESULT;
	}
	return GPA_STATUS_OK;
}

static uint64_t forward(uint64_t end, uint64_t begin)
{
	return end >= begin ? end - begin : 0;
}

/* value * enabled / running without overflow, saturating. */
static uint64_t scale(uint64_t value, uint64_t enabled, uint64_t running)
{
	unsigned __int128 v = (unsigned __int128)value * enabled / running;
	return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

GPA_Status og_perf_deltas(struct og_perf_state *st, uint64_t *deltas)
{
	const struct og_perf_snapshot *b = &st->begin, *e = &st->end;
	uint64_t enabled = forward(e->enabled, b->enabled);
	uint64_t running = forward(e->running, b->running);
	if (running > enabled)
		running = enabled; /* cannot run longer than enabled: trust enabled */
	bool counts = false;
	for (size_t i = 0; i < st->npass; i++)
		counts |= st->pass_member[i] >= 0;
	if (counts && enabled > 0 && running == 0) {
		st->host.log(st->host.log_ctx, OG_LOG_ERROR,
		             "perf: the event group never got on the PMU during this sample "
		             "(another program holds the counters); the sample has no counts, "
		             "close the other perf users or enable fewer hardware counters");
		return GPA_STATUS_ERROR_READING_COUNTER_RESULT;
	}
	bool scaled = counts && running < enabled;
	for (size_t i = 0; i < st->npass; i++) {
		const struct og_perf_bound *bd = &st->bound[st->pass_ids[i]];
		int m = st->pass_member[i];
		if (bd->kind == OG_PERF_KIND_TIME_ENABLED)
			deltas[i] = enabled;
		else if (bd->kind == OG_PERF_KIND_TIME_RUNNING)
			deltas[i] = running;
		else if (bd->kind == OG_PERF_KIND_TIME_WALL)
			deltas[i] = forward(e->wall, b->wall);
		else if (m >= 0 && scaled)
			deltas[i] = scale(forward(e->values[m], b->values[m]), enabled, running);
		else if (m >= 0)
			deltas[i] = forward(e->values[m], b->values[m]);
		else
			deltas[i] = 0;
	}
	if (scaled)
		st->host.log(st->host.log_ctx, OG_LOG_MESSAGE,
		             "perf: the event group ran %.1f%% of the sample (multiplexed); "
		             "counts are scaled by enabled/running time, ratios stay exact",
		             100.0 * (double)running / (double)enabled);
	return GPA_STATUS_OK;
}
