/* SPDX-License-Identifier: MIT */
/* fake_perf.c — the simulated perf_event kernel of fake_perf.h. */
#include "fake_perf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#define FAKE_PAGE ((size_t)sysconf(_SC_PAGESIZE))

void fake_fixture_setup(struct fake_fixture *f)
{
	fake_perf_init(&f->k);
	fake_host_init(&f->host, &f->k, &f->log);
	f->state = NULL;
}

int fake_fixture_teardown(struct fake_fixture *f, const struct og_backend_ops *ops)
{
	if (f->state)
		ops->close(f->state);
	f->state = NULL;
	/* Every open has its close, whatever the test did. */
	int fds = fake_perf_open_fds(&f->k);
	int mapped = f->k.pages_mapped, unmapped = f->k.pages_unmapped;
	fake_perf_free(&f->k);
	int rc = 0;
	if (fds) {
		fprintf(stderr, "fake_perf: %d event descriptors left open\n", fds);
		rc = -1;
	}
	if (mapped != unmapped) {
		fprintf(stderr, "fake_perf: %d pages mapped, %d unmapped\n", mapped, unmapped);
		rc = -1;
	}
	if (f->k.file_opens != f->k.file_closes) {
		fprintf(stderr, "fake_perf: %d files opened, %d closed\n", f->k.file_opens,
		        f->k.file_closes);
		rc = -1;
	}
	return rc;
}

static int f_list_dir(void *ctx, const char *path, void (*fn)(const char *name, void *arg),
                      void *arg);

static struct fake_perf *K(void *ctx)
{
	return ctx;
}

static int event_index(struct fake_perf *k, int fd)
{
	int i = fd - FAKE_EVENT_FD0;
	if (i < 0 || i >= k->nev || !k->ev[i].open)
		return -1;
	return i;
}

static bool is_hw(const struct perf_event_attr *a)
{
	return a->type != PERF_TYPE_SOFTWARE;
}

static unsigned group_hw(struct fake_perf *k, int leader)
{
	unsigned n = 0;
	for (int i = 0; i < k->nev; i++)
		n += k->ev[i].open && k->ev[i].leader == leader && is_hw(&k->ev[i].attr);
	return n;
}

static int f_perf_event_open(void *ctx, struct perf_event_attr *attr, pid_t pid, int cpu,
                             int group_fd, unsigned long flags)
{
	struct fake_perf *k = K(ctx);
	(void)flags;
	if (attr->size != sizeof *attr) {
		errno = E2BIG;
		return -1;
	}
	if (k->eacces_all || (k->eacces_kernel && !attr->exclude_kernel)) {
		errno = EACCES;
		return -1;
	}
	if (k->open_fail_errno &&
	    (!k->open_fail_match ||
	     (attr->type == k->open_fail_type && attr->config == k->open_fail_config))) {
		if (k->open_fail_after > 0) {
			k->open_fail_after--;
		} else {
			errno = k->open_fail_errno;
			return -1;
		}
	}
	if (pid == -1 && cpu < 0) {
		errno = EINVAL; /* "any process on any CPU" is not a thing */
		return -1;
	}
	if (cpu >= 0 && pid == -1 && k->eacces_cpu) {
		errno = EACCES;
		return -1;
	}
	if (cpu >= 64 || (cpu >= 0 && (k->offline_cpus >> cpu) & 1)) {
		errno = ENODEV;
		return -1;
	}
	if (attr->type == PERF_TYPE_SOFTWARE && attr->config >= PERF_COUNT_SW_MAX) {
		errno = ENOENT;
		return -1;
	}
	if (is_hw(attr) && !k->pmu) {
		errno = ENOENT;
		return -1;
	}
	int leader = -1;
	if (group_fd != -1) {
		leader = event_index(k, group_fd);
		if (leader < 0 || k->ev[leader].leader != leader) {
			errno = EBADF;
			return -1;
		}
		if (k->ev[leader].attr.inherit != attr->inherit || k->ev[leader].pid != pid ||
		    k->ev[leader].cpu != cpu) {
			errno = EINVAL;
			return -1;
		}
	}
	/* Reuse closed slots, as the kernel reuses fd numbers. */
	int i = 0;
	while (i < k->nev && k->ev[i].open)
		i++;
	if (i == FAKE_MAX_EVENTS) {
		errno = EMFILE;
		return -1;
	}
	unsigned hw = (leader >= 0 ? group_hw(k, leader) : 0) + is_hw(attr);
	if (is_hw(attr) && hw > k->hw_slots && k->slot_mode == FAKE_SLOTS_EINVAL) {
		errno = EINVAL;
		return -1;
	}
	if (i == k->nev)
		k->nev++;
	struct fake_event *e = &k->ev[i];
	memset(e, 0, sizeof *e);
	e->open = true;
	e->attr = *attr;
	e->pid = pid;
	e->cpu = cpu;
	e->leader = leader >= 0 ? leader : i;
	e->id = 0x1000 + 7 * ++k->next_id;
	e->step = attr->type == PERF_TYPE_SOFTWARE && attr->config == PERF_COUNT_SW_TASK_CLOCK
	                  ? k->time_step
	                  : 5 + (uint64_t)i;
	e->enabled = leader < 0 && !attr->disabled;
	if (leader < 0)
		e->group_no = ++k->leaders_opened;
	k->opens++;
	if (attr->type == PERF_TYPE_SOFTWARE)
		k->sw_opened |= 1u << attr->config; /* config < PERF_COUNT_SW_MAX: checked above */
	return FAKE_EVENT_FD0 + i;
}

#define FAKE_PMC_BITS 48
#define FAKE_PMC_START ((1ull << FAKE_PMC_BITS) - 100) /* wraps after 100 counts */

static uint64_t fake_pmc(const struct fake_event *e)
{
	return (e->value + FAKE_PMC_START) & ((1ull << FAKE_PMC_BITS) - 1);
}

static bool group_runs(struct fake_perf *k, int leader)
{
	const struct fake_event *l = &k->ev[leader];
	return l->enabled && !(l->cpu >= 0 && l->cpu == k->stopped_cpu) &&
	       !(k->slot_mode == FAKE_SLOTS_NOT_RUN && group_hw(k, leader) > k->hw_slots) &&
	       l->group_no != k->starve_group && k->running_permille > 0;
}

/* Rewrites the user page of event i the way the kernel does (seqlock). */
static void update_page(struct fake_perf *k, int i)
{
	struct fake_event *e = &k->ev[i];
	volatile struct perf_event_mmap_page *pg = e->page;
	if (!pg)
		return;
	const struct fake_event *l = &k->ev[e->leader];
	pg->lock++;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	pg->cap_bit0_is_deprecated = 1;
	pg->cap_user_rdpmc = 1;
	pg->pmc_width = FAKE_PMC_BITS;
	/* Only an event on a counter right now has an index. */
	pg->index = group_runs(k, e->leader) && is_hw(&e->attr) ? (uint32_t)i + 1 : 0;
	/* The count is offset + the sign-extended counter. */
	int64_t pmc = (int64_t)(fake_pmc(e) << (64 - FAKE_PMC_BITS)) >> (64 - FAKE_PMC_BITS);
	pg->offset = (int64_t)e->value - pmc;
	pg->time_enabled = l->enabled_ns;
	pg->time_running = l->running_ns;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	pg->lock++;
}

static void update_group_pages(struct fake_perf *k, int leader)
{
	for (int i = 0; i < k->nev; i++)
		if (k->ev[i].open && k->ev[i].leader == leader)
			update_page(k, i);
}

/* Advances a group by one tick of time_step if it is enabled. */
static void tick(struct fake_perf *k, int leader)
{
	struct fake_event *l = &k->ev[leader];
	if (!l->enabled || (l->cpu >= 0 && l->cpu == k->stopped_cpu))
		return;
	bool runs = group_runs(k, leader);
	uint64_t run = runs ? k->time_step * k->running_permille / 1000 : 0;
	l->enabled_ns += k->time_step;
	l->running_ns += run;
	if (!run)
		return;
	for (int i = 0; i < k->nev; i++)
		if (k->ev[i].open && k->ev[i].leader == leader)
			k->ev[i].value += k->ev[i].step;
	update_group_pages(k, leader);
}

void fake_perf_tick_all(struct fake_perf *k)
{
	for (int i = 0; i < k->nev; i++)
		if (k->ev[i].open && k->ev[i].leader == i)
			tick(k, i);
}

static int f_ioctl(void *ctx, int fd, unsigned long request, void *arg)
{
	struct fake_perf *k = K(ctx);
	int i = event_index(k, fd);
	if (i < 0) {
		errno = EBADF;
		return -1;
	}
	switch (request) {
	case PERF_EVENT_IOC_ID:
		*(uint64_t *)arg = k->ioc_id_dup ? 42 : k->ev[i].id;
		return 0;
	case PERF_EVENT_IOC_ENABLE:
		k->ev[k->ev[i].leader].enabled = true;
		update_group_pages(k, k->ev[i].leader);
		return 0;
	case PERF_EVENT_IOC_DISABLE:
		tick(k, k->ev[i].leader);
		k->ev[k->ev[i].leader].enabled = false;
		return 0;
	case PERF_EVENT_IOC_RESET:
		return 0;
	default:
		errno = ENOTTY;
		return -1;
	}
}

static ssize_t read_group(struct fake_perf *k, int i, void *buf, size_t len)
{
	int leader = k->ev[i].leader;
	tick(k, leader);
	struct fake_event *l = &k->ev[leader];
	if (k->backwards) {
		k->backwards = false;
		for (int j = 0; j < k->nev; j++)
			if (k->ev[j].leader == leader)
				k->ev[j].value /= 2;
		l->enabled_ns /= 2;
		l->running_ns /= 2;
	}
	uint64_t w[3 + 2 * FAKE_MAX_EVENTS];
	size_t n = 0;
	for (int j = 0; j < k->nev; j++) {
		if (k->ev[j].open && k->ev[j].leader == leader) {
			w[3 + 2 * n] = k->ev[j].value;
			w[4 + 2 * n] = k->ev[j].id;
			n++;
		}
	}
	if (k->read_order != FAKE_ORDER_KERNEL && n > 1) {
		uint64_t pairs[2 * FAKE_MAX_EVENTS];
		memcpy(pairs, w + 3, 2 * n * sizeof *pairs);
		for (size_t j = 0; j < n; j++) {
			size_t from = k->read_order == FAKE_ORDER_REVERSED ? n - 1 - j : (j + 1) % n;
			w[3 + 2 * j] = pairs[2 * from];
			w[4 + 2 * j] = pairs[2 * from + 1];
		}
	}
	w[0] = n;
	w[1] = l->enabled_ns;
	w[2] = l->running_ns;
	size_t bytes = (3 + 2 * n) * sizeof(uint64_t);
	enum fake_read_fault f = k->reads++ >= k->read_fault_after ? k->read_fault : FAKE_READ_OK;
	switch (f) {
	case FAKE_READ_OK:
		break;
	case FAKE_READ_SHORT:
		bytes -= sizeof(uint64_t);
		break;
	case FAKE_READ_WRONG_NR:
		w[0] = n + 1;
		break;
	case FAKE_READ_UNKNOWN_ID:
		w[4 + 2 * (n - 1)] = 0xdead;
		break;
	case FAKE_READ_DUP_ID:
		w[4 + 2 * (n - 1)] = w[4];
		break;
	case FAKE_READ_ZERO:
		return 0;
	case FAKE_READ_ERRNO:
		errno = k->read_errno;
		return -1;
	case FAKE_READ_LONG:
		if (n < FAKE_MAX_EVENTS) {
			w[0] = n + 1;
			w[3 + 2 * n] = 1;
			w[4 + 2 * n] = 0xbeef;
			bytes += 2 * sizeof(uint64_t);
		}
		break;
	case FAKE_READ_EINTR_ONCE:
		k->read_fault = FAKE_READ_OK;
		errno = EINTR;
		return -1;
	case FAKE_READ_OVERSIZE:
		memcpy(buf, w, len < bytes ? len : bytes);
		return (ssize_t)len + 8;
	}
	if (len < bytes) {
		errno = ENOSPC;
		return -1;
	}
	memcpy(buf, w, bytes);
	return (ssize_t)bytes;
}

static ssize_t f_read(void *ctx, int fd, void *buf, size_t len)
{
	struct fake_perf *k = K(ctx);
	int f = fd - FAKE_FILE_FD0;
	if (f >= 0 && f < FAKE_MAX_FILES && k->file_open[f]) {
		const char *c = k->files[f].content;
		size_t left = strlen(c) - (size_t)k->file_pos[f];
		size_t n = left < len ? left : len;
		memcpy(buf, c + k->file_pos[f], n);
		k->file_pos[f] += (int)n;
		return (ssize_t)n;
	}
	int i = event_index(k, fd);
	if (i < 0) {
		errno = EBADF;
		return -1;
	}
	return read_group(k, i, buf, len);
}

static int f_open(void *ctx, const char *path, int flags, mode_t mode)
{
	struct fake_perf *k = K(ctx);
	(void)flags;
	(void)mode;
	for (int f = 0; f < FAKE_MAX_FILES; f++) {
		if (k->files[f].path && strcmp(k->files[f].path, path) == 0 && k->files[f].content) {
			k->file_open[f] = true;
			k->file_pos[f] = 0;
			k->file_opens++;
			return FAKE_FILE_FD0 + f;
		}
	}
	errno = ENOENT;
	return -1;
}

static int f_close(void *ctx, int fd)
{
	struct fake_perf *k = K(ctx);
	int f = fd - FAKE_FILE_FD0;
	if (f >= 0 && f < FAKE_MAX_FILES && k->file_open[f]) {
		k->file_open[f] = false;
		k->file_closes++;
		return 0;
	}
	int i = event_index(k, fd);
	if (i < 0) {
		errno = EBADF;
		return -1;
	}
	k->ev[i].open = false;
	k->closes++;
	return 0;
}

static void *f_mmap(void *ctx, void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	struct fake_perf *k = K(ctx);
	(void)addr, (void)flags;
	int i = event_index(k, fd);
	if (!k->user_pages || i < 0 || off != 0 || len != FAKE_PAGE || (prot & PROT_WRITE)) {
		errno = i < 0 ? EBADF : k->user_pages ? EINVAL : ENODEV;
		return MAP_FAILED;
	}
	if (k->ev[i].page) {
		errno = EBUSY; /* one mapping per event is all the backend needs */
		return MAP_FAILED;
	}
	k->ev[i].page = aligned_alloc(FAKE_PAGE, FAKE_PAGE);
	if (!k->ev[i].page) {
		errno = ENOMEM;
		return MAP_FAILED;
	}
	memset(k->ev[i].page, 0, FAKE_PAGE);
	update_page(k, i);
	k->pages_mapped++;
	return k->ev[i].page;
}

static int f_munmap(void *ctx, void *addr, size_t len)
{
	struct fake_perf *k = K(ctx);
	for (int i = 0; i < k->nev; i++)
		if (addr && k->ev[i].page == addr && len == FAKE_PAGE) {
			free(k->ev[i].page);
			k->ev[i].page = NULL;
			k->pages_unmapped++;
			return 0;
		}
	errno = EINVAL;
	return -1;
}

/* The fake CPU's counter `index` (the page's index: event slot + 1). */
static bool f_read_pmc(void *ctx, uint32_t index, uint64_t *value)
{
	struct fake_perf *k = K(ctx);
	k->pmc_reads++;
	if (index == 0 || index > (uint32_t)k->nev)
		return false;
	*value = fake_pmc(&k->ev[index - 1]);
	return true;
}

static int f_poll(void *ctx, struct pollfd *fds, nfds_t nfds, int timeout_ms)
{
	(void)ctx, (void)fds, (void)nfds, (void)timeout_ms;
	return 0;
}

static ssize_t f_write(void *ctx, int fd, const void *buf, size_t len)
{
	(void)ctx, (void)fd, (void)buf, (void)len;
	errno = EBADF;
	return -1;
}

void fake_perf_set_file(struct fake_perf *k, const char *path, const char *content)
{
	for (int f = 0; f < FAKE_MAX_FILES; f++) {
		if (!k->files[f].path || strcmp(k->files[f].path, path) == 0) {
			k->files[f].path = path;
			k->files[f].content = content;
			return;
		}
	}
}

void fake_perf_init(struct fake_perf *k)
{
	memset(k, 0, sizeof *k);
	k->sys = (struct og_sys){
		.ctx = k,
		.open = f_open,
		.close = f_close,
		.ioctl = f_ioctl,
		.mmap = f_mmap,
		.munmap = f_munmap,
		.poll = f_poll,
		.read = f_read,
		.write = f_write,
		.perf_event_open = f_perf_event_open,
		.read_pmc = f_read_pmc,
		.list_dir = f_list_dir,
	};
	k->running_permille = 1000;
	k->stopped_cpu = -1;
	k->time_step = 1000000;
	fake_perf_set_file(k, "/proc/sys/kernel/perf_event_paranoid", "2\n");
	fake_perf_set_file(k, "/proc/cpuinfo",
	                   "processor\t: 0\nvendor_id\t: GenuineIntel\ncpu family\t: 6\n"
	                   "model\t\t: 85\nmodel name\t: Fake Xeon(R) CPU @ 2.00GHz\n"
	                   "stepping\t: 7\n\nprocessor\t: 1\n");
	fake_perf_set_file(k, "/sys/devices/system/cpu/online", "0-3,6\n");
}

struct fake_event *fake_perf_find(struct fake_perf *k, uint32_t type, uint64_t config)
{
	for (int i = 0; i < k->nev; i++)
		if (k->ev[i].open && k->ev[i].attr.type == type && k->ev[i].attr.config == config)
			return &k->ev[i];
	return NULL;
}

void fake_perf_exec(struct fake_perf *k)
{
	for (int i = 0; i < k->nev; i++)
		if (k->ev[i].open && k->ev[i].leader == i && k->ev[i].attr.enable_on_exec)
			k->ev[i].enabled = true;
}

void fake_perf_free(struct fake_perf *k)
{
	for (int i = 0; i < k->nev; i++) {
		free(k->ev[i].page);
		k->ev[i].page = NULL;
	}
}

int fake_perf_open_fds(const struct fake_perf *k)
{
	return k->opens - k->closes;
}

__attribute__((format(printf, 3, 4))) static void fake_log_fn(void *ctx, enum og_log_level level,
                                                              const char *fmt, ...)
{
	struct fake_log *l = ctx;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(l->last, sizeof l->last, fmt, ap);
	va_end(ap);
	size_t used = strlen(l->all);
	snprintf(l->all + used, sizeof l->all - used, "%s\n", l->last);
	l->lines++;
	l->errors += level == OG_LOG_ERROR;
	l->messages += level == OG_LOG_MESSAGE;
}

void fake_host_init(struct og_backend_host *host, struct fake_perf *k, struct fake_log *log)
{
	memset(log, 0, sizeof *log);
	host->sys = &k->sys;
	host->log = fake_log_fn;
	host->log_ctx = log;
}

static int f_list_dir(void *ctx, const char *path, void (*fn)(const char *name, void *arg),
                      void *arg)
{
	struct fake_perf *k = K(ctx);
	size_t plen = strlen(path);
	char seen[FAKE_MAX_FILES][64];
	int nseen = 0;
	for (int f = 0; f < FAKE_MAX_FILES; f++) {
		const char *p = k->files[f].path;
		if (!p || !k->files[f].content || strncmp(p, path, plen) != 0 || p[plen] != '/')
			continue;
		char name[64];
		snprintf(name, sizeof name, "%.*s", (int)strcspn(p + plen + 1, "/"), p + plen + 1);
		bool dup = false;
		for (int i = 0; i < nseen; i++)
			dup |= strcmp(seen[i], name) == 0;
		if (!dup) {
			snprintf(seen[nseen++], sizeof seen[0], "%s", name);
			fn(name, arg);
		}
	}
	if (nseen == 0) {
		errno = ENOENT;
		return -1;
	}
	return 0;
}
