/* SPDX-License-Identifier: MIT */
/* spe_session.c — an SPE event's buffers on the kernel (spe_session.h). */
#include "spe_session.h"

#include <errno.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "perf_internal.h"
#include "perf_ring.h"

#define SPE_JITTER (1ull << 16)  /* format/jitter: config:16 (PMSIRR_EL1.RND) */
#define MLOCK_PATH "/proc/sys/kernel/perf_event_mlock_kb"

static const char no_spe[] =
	"no SPE PMU: " OG_SPE_PMU_ROOT " has no arm_spe_*.  The CPU may lack the Statistical "
	"Profiling Extension, or the kernel lacks its driver (CONFIG_ARM_SPE_PMU; modprobe "
	"arm_spe_pmu), or page-table isolation keeps it off (boot with kpti=off; dmesg says "
	"'profiling buffer inaccessible'), or the firmware does not describe its interrupt, or "
	"this is a virtual machine";

struct spe_names {
	char first[32];
};

static void first_spe(const char *name, void *arg)
{
	struct spe_names *n = arg;
	/* The lowest-numbered one: big.LITTLE systems may have one per cluster. */
	if (strncmp(name, "arm_spe_", 8) == 0 && strlen(name) < sizeof n->first &&
	    (!n->first[0] || strcmp(name, n->first) < 0))
		snprintf(n->first, sizeof n->first, "%s", name);
}

static bool read_number(const struct og_backend_host *h, const char *pmu, const char *file,
                        uint64_t *v)
{
	char path[160], text[32];
	snprintf(path, sizeof path, OG_SPE_PMU_ROOT "/%s/%s", pmu, file);
	if (og_perf_read_text(h, path, text, sizeof text) <= 0)
		return false;
	char *end;
	errno = 0;
	unsigned long long x = strtoull(text, &end, 10);
	if (end == text || errno || text[0] == '-' || (*end && *end != '\n'))
		return false;
	*v = x;
	return true;
}

GPA_Status og_spe_find(const struct og_backend_host *h, struct og_spe_pmu *pmu,
                       const char **why)
{
	memset(pmu, 0, sizeof *pmu);
	struct spe_names n = { "" };
	const struct og_sys *sys = h->sys;
	if (!sys->list_dir || sys->list_dir(sys->ctx, OG_SPE_PMU_ROOT, first_spe, &n) != 0 ||
	    !n.first[0]) {
		*why = no_spe;
		return GPA_STATUS_ERROR_NOT_FOUND;
	}
	snprintf(pmu->name, sizeof pmu->name, "%s", n.first);
	uint64_t type;
	if (!read_number(h, pmu->name, "type", &type) || type > UINT32_MAX) {
		*why = "the SPE PMU's sysfs type file is unreadable or not a number";
		return GPA_STATUS_ERROR_NOT_FOUND;
	}
	pmu->type = (uint32_t)type;
	if (!read_number(h, pmu->name, "caps/min_interval", &pmu->min_interval))
		pmu->min_interval = 0;
	char path[160];
	snprintf(path, sizeof path, OG_SPE_PMU_ROOT "/%s/cpumask", pmu->name);
	if (og_perf_read_text(h, path, pmu->cpumask, sizeof pmu->cpumask) <= 0)
		snprintf(pmu->cpumask, sizeof pmu->cpumask, "(unknown)");
	pmu->cpumask[strcspn(pmu->cpumask, "\n")] = '\0';
	return GPA_STATUS_OK;
}

static bool power_of_two(unsigned v)
{
	return v && !(v & (v - 1));
}

/* One line for a refused perf_event_open of the SPE event. */
static GPA_Status open_error(const struct og_backend_host *h, const struct og_spe_pmu *pmu,
                             int err)
{
	char nbuf[24];
	const char *name = og_perf_errno_name(err, nbuf, sizeof nbuf);
	switch (err) {
	case EACCES:
	case EPERM: {
		int p = og_perf_read_paranoid(h);
		char level[32];
		if (p == INT32_MIN)
			snprintf(level, sizeof level, "unreadable");
		else
			snprintf(level, sizeof level, "%d", p);
		h->log(h->log_ctx, OG_LOG_ERROR,
		       "perf: SPE: perf_event_open was refused (%s): kernel.perf_event_paranoid is "
		       "%s; sampling one's own process in user space needs it at 2 or below "
		       "(kernel samples too: 1, whole CPUs: 0), or CAP_PERFMON or root "
		       "(sysctl kernel.perf_event_paranoid=1); the physical-address and timestamp "
		       "knobs in " OG_SPE_PMU_ROOT "/%s/format (pa_enable, pct_enable) need "
		       "CAP_PERFMON",
		       name, level, pmu->name);
		return GPA_STATUS_ERROR_FAILED;
	}
	case ENOENT:
	case ENODEV:
		h->log(h->log_ctx, OG_LOG_ERROR,
		       "perf: SPE: %s: %s samples only on CPUs %s (its cpumask); pin the workload "
		       "to them (taskset -c %s)",
		       name, pmu->name, pmu->cpumask, pmu->cpumask);
		return GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED;
	case EBUSY:
		h->log(h->log_ctx, OG_LOG_ERROR,
		       "perf: SPE: EBUSY: another SPE session (perf record -e arm_spe//?) holds the "
		       "profiling buffer, which one event has at a time; stop it and try again");
		return GPA_STATUS_ERROR_FAILED;
	case EOPNOTSUPP:
		h->log(h->log_ctx, OG_LOG_ERROR,
		       "perf: SPE: EOPNOTSUPP: this CPU's SPE lacks a filter the event asked for "
		       "(see " OG_SPE_PMU_ROOT "/%s/caps)",
		       pmu->name);
		return GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED;
	default:
		h->log(h->log_ctx, OG_LOG_ERROR,
		       "perf: SPE: perf_event_open of %s failed (%s); the kernel refused the event's "
		       "attributes (the sampling interval, or an SPE older than it expects)",
		       pmu->name, name);
		return GPA_STATUS_ERROR_FAILED;
	}
}

static GPA_Status map_error(const struct og_backend_host *h, const struct og_spe_config *c,
                            const char *what, size_t bytes, int err)
{
	char nbuf[24], limit[32] = "unreadable";
	const char *name = og_perf_errno_name(err, nbuf, sizeof nbuf);
	if (og_perf_read_text(h, MLOCK_PATH, limit, sizeof limit) > 0)
		limit[strcspn(limit, "\n")] = '\0';
	h->log(h->log_ctx, OG_LOG_ERROR,
	       "perf: SPE: mapping the %s of %zu KiB failed (%s); the kernel counts it against the "
	       "locked-memory budget: raise kernel.perf_event_mlock_kb (now %s KiB) or ulimit -l, "
	       "or ask for fewer pages (%s)",
	       what, bytes / 1024, name, limit,
	       c->pages_option ? c->pages_option : "backend option spe_pages=");
	return GPA_STATUS_ERROR_FAILED;
}

void og_spe_close(const struct og_backend_host *h, struct og_spe_session *s)
{
	const struct og_sys *sys = h->sys;
	if (s->aux)
		sys->munmap(sys->ctx, s->aux, s->aux_len);
	if (s->ring)
		sys->munmap(sys->ctx, s->ring, s->ring_len);
	if (s->fd >= 0)
		sys->close(sys->ctx, s->fd);
	free(s->scratch);
	free(s->record);
	s->aux = s->ring = s->scratch = s->record = NULL;
	s->fd = -1;
}

GPA_Status og_spe_open(const struct og_backend_host *h, const struct og_spe_pmu *pmu,
                       const struct og_spe_config *c, pid_t pid, int cpu,
                       struct og_spe_session *s)
{
	const struct og_sys *sys = h->sys;
	memset(s, 0, sizeof *s);
	s->fd = -1;
	long page = sysconf(_SC_PAGESIZE);
	if (page <= 0 || !power_of_two(c->aux_pages) || c->aux_pages < 2 ||
	    !power_of_two(c->data_pages) || c->aux_pages > 65536 || c->data_pages > 65536) {
		h->log(h->log_ctx, OG_LOG_ERROR,
		       "perf: SPE: buffers of %u aux and %u data pages; both must be powers of two "
		       "(aux at least 2, at most 65536)",
		       c->aux_pages, c->data_pages);
		return GPA_STATUS_ERROR_FAILED;
	}
	s->page = (size_t)page;
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof attr);
	attr.size = sizeof attr;
	attr.type = pmu->type;
	attr.config = SPE_JITTER; /* a randomised interval avoids sampling in lockstep */
	attr.sample_period = c->interval > pmu->min_interval ? c->interval : pmu->min_interval;
	attr.disabled = 1;
	attr.exclude_kernel = c->exclude_kernel;
	attr.exclude_hv = c->exclude_kernel;
	attr.enable_on_exec = c->enable_on_exec;
	attr.mmap = c->mmap_events;
	attr.aux_watermark = (uint32_t)(c->aux_pages * s->page / 2);
	s->fd = sys->perf_event_open(sys->ctx, &attr, pid, cpu, -1, 0);
	if (s->fd < 0)
		return open_error(h, pmu, errno);

	/* Data ring first, then the aux area at the offset its page names. */
	s->ring_len = (1 + (size_t)c->data_pages) * s->page;
	void *ring = sys->mmap(sys->ctx, NULL, s->ring_len, PROT_READ | PROT_WRITE, MAP_SHARED,
	                       s->fd, 0);
	if (ring == MAP_FAILED) {
		GPA_Status st = map_error(h, c, "data ring", s->ring_len, errno);
		og_spe_close(h, s);
		return st;
	}
	s->ring = ring;
	struct perf_event_mmap_page *pg = (void *)s->ring;
	s->aux_len = (size_t)c->aux_pages * s->page;
	pg->aux_offset = s->ring_len;
	pg->aux_size = s->aux_len;
	void *aux = sys->mmap(sys->ctx, NULL, s->aux_len, PROT_READ | PROT_WRITE, MAP_SHARED,
	                      s->fd, (off_t)s->ring_len);
	if (aux == MAP_FAILED) {
		GPA_Status st = map_error(h, c, "aux buffer", s->aux_len, errno);
		og_spe_close(h, s);
		return st;
	}
	s->aux = aux;
	s->scratch = malloc(s->aux_len);
	s->record = malloc(65536); /* a record's size is 16 bits */
	if (!s->scratch || !s->record) {
		h->log(h->log_ctx, OG_LOG_ERROR, "perf: SPE: out of memory for a %zu KiB buffer",
		       s->aux_len / 1024);
		og_spe_close(h, s);
		return GPA_STATUS_ERROR_FAILED;
	}
	if (!c->enable_on_exec && sys->ioctl(sys->ctx, s->fd, PERF_EVENT_IOC_ENABLE, 0) < 0) {
		char nbuf[24];
		h->log(h->log_ctx, OG_LOG_ERROR,
		       "perf: SPE: PERF_EVENT_IOC_ENABLE failed (%s); the sampled task may be gone",
		       og_perf_errno_name(errno, nbuf, sizeof nbuf));
		og_spe_close(h, s);
		return GPA_STATUS_ERROR_FAILED;
	}
	return GPA_STATUS_OK;
}

void og_spe_disable(const struct og_backend_host *h, struct og_spe_session *s)
{
	if (s->fd >= 0)
		h->sys->ioctl(h->sys->ctx, s->fd, PERF_EVENT_IOC_DISABLE, 0);
}

/* Copies len bytes from a ring of size `size` at position pos (mod size). */
static void ring_copy(uint8_t *dst, const uint8_t *ring, size_t size, uint64_t pos, size_t len)
{
	size_t at = (size_t)(pos % size);
	size_t first = len < size - at ? len : size - at;
	memcpy(dst, ring + at, first);
	memcpy(dst + first, ring, len - first);
}

static void damaged(const struct og_backend_host *h, struct og_spe_session *s, const char *what)
{
	if (s->damaged_said)
		return;
	s->damaged_said = true;
	h->log(h->log_ctx, OG_LOG_ERROR,
	       "perf: SPE: the kernel's data ring is inconsistent (%s); what it held is skipped, "
	       "report the kernel version",
	       what);
}

/* One PERF_RECORD_AUX: the aux bytes it names, decoded into stats. */
static void aux_record(const struct og_backend_host *h, struct og_spe_session *s,
                       const uint64_t *w, struct og_spe_stats *stats)
{
	struct perf_event_mmap_page *pg = (void *)s->ring;
	uint64_t offset = w[0], size = w[1], flags = w[2];
	if (flags & PERF_AUX_FLAG_TRUNCATED)
		stats->truncated++;
	if (flags & PERF_AUX_FLAG_COLLISION)
		stats->collisions++;
	if (size == 0)
		return;
	uint64_t tail = og_ring_load_acquire(&pg->aux_tail);
	if (size > s->aux_len || offset + size < offset || offset < tail ||
	    offset + size - tail > s->aux_len) {
		damaged(h, s, "an aux record outside the aux buffer's unread part");
		return;
	}
	ring_copy(s->scratch, s->aux, s->aux_len, offset, (size_t)size);
	struct og_spe_walk walk = { 0 };
	og_spe_walk(s->scratch, (size_t)size, og_spe_stats_add, stats, &walk);
	og_spe_stats_walked(stats, &walk);
	/* The kernel may write there again. */
	og_ring_store_release(&pg->aux_tail, offset + size);
}

static void mmap_record(struct og_spe_session *s, const uint8_t *rec, size_t size)
{
	/* u32 pid, tid; u64 addr, len, pgoff; char filename[] */
	if (!s->on_mmap || size < 8 + 8 + 24 + 1)
		return;
	uint32_t pid;
	uint64_t v[3];
	memcpy(&pid, rec + 8, sizeof pid);
	memcpy(v, rec + 16, sizeof v);
	char name[4096];
	size_t n = size - 40 < sizeof name - 1 ? size - 40 : sizeof name - 1;
	memcpy(name, rec + 40, n);
	name[n] = '\0';
	s->on_mmap(s->mmap_arg, pid, v[0], v[1], v[2], name);
}

void og_spe_drain(const struct og_backend_host *h, struct og_spe_session *s,
                  struct og_spe_stats *stats)
{
	if (!s->ring)
		return;
	struct perf_event_mmap_page *pg = (void *)s->ring;
	const uint8_t *data = s->ring + s->page;
	size_t data_len = s->ring_len - s->page;
	uint64_t head = og_ring_load_acquire(&pg->data_head);
	uint64_t tail = pg->data_tail;
	if (head - tail > data_len) {
		damaged(h, s, "data_head is more than a ring ahead of data_tail");
		tail = head;
	}
	uint8_t *rec = s->record;
	while (tail < head) {
		struct perf_event_header hdr;
		if (head - tail < sizeof hdr) {
			damaged(h, s, "a record header cut short");
			break;
		}
		ring_copy((uint8_t *)&hdr, data, data_len, tail, sizeof hdr);
		if (hdr.size < sizeof hdr || hdr.size > head - tail) {
			damaged(h, s, "a record size outside the written part");
			break;
		}
		ring_copy(rec, data, data_len, tail, hdr.size);
		uint64_t w[3] = { 0 };
		memcpy(w, rec + sizeof hdr,
		       hdr.size - sizeof hdr < sizeof w ? hdr.size - sizeof hdr : sizeof w);
		switch (hdr.type) {
		case PERF_RECORD_AUX:
			if (hdr.size >= sizeof hdr + 24)
				aux_record(h, s, w, stats);
			break;
		case PERF_RECORD_LOST:
			stats->lost += w[1]; /* u64 id, lost */
			break;
		case PERF_RECORD_LOST_SAMPLES:
			stats->lost += w[0];
			break;
		case PERF_RECORD_MMAP:
			mmap_record(s, rec, hdr.size);
			break;
		default:
			break; /* ITRACE_START and the rest say nothing we count */
		}
		tail += hdr.size;
	}
	og_ring_store_release(&pg->data_tail, head);
}
