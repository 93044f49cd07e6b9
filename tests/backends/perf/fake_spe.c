/* SPDX-License-Identifier: MIT */
/* fake_spe.c — the simulated arm_spe PMU of fake_spe.h. */
#include "fake_spe.h"
#include "perf/perf_ring.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#define PMU "/sys/bus/event_source/devices/arm_spe_0/"

static struct fake_spe *S(void *ctx)
{
	return ctx;
}

static const struct og_sys *inner(struct fake_spe *s)
{
	return &s->k->sys;
}

static struct fake_spe_event *by_fd(struct fake_spe *s, int fd)
{
	int i = fd - FAKE_SPE_FD0;
	if (i < 0 || i >= FAKE_SPE_MAX || !s->ev[i].open)
		return NULL;
	return &s->ev[i];
}

static struct perf_event_mmap_page *page_of(struct fake_spe_event *e)
{
	return (struct perf_event_mmap_page *)e->ring;
}

static int s_perf_event_open(void *ctx, struct perf_event_attr *attr, pid_t pid, int cpu,
                             int group_fd, unsigned long flags)
{
	struct fake_spe *s = S(ctx);
	if (attr->type != FAKE_SPE_TYPE)
		return inner(s)->perf_event_open(inner(s)->ctx, attr, pid, cpu, group_fd, flags);
	if (!s->present) {
		errno = ENOENT; /* no PMU of that type */
		return -1;
	}
	if (s->open_errno) {
		errno = s->open_errno;
		return -1;
	}
	if (attr->size != sizeof *attr || attr->freq || group_fd != -1) {
		errno = EINVAL;
		return -1;
	}
	for (int i = 0; i < FAKE_SPE_MAX; i++) {
		if (s->ev[i].open)
			continue;
		struct fake_spe_event *e = &s->ev[i];
		memset(e, 0, sizeof *e);
		e->open = true;
		e->attr = *attr;
		e->pid = pid;
		e->cpu = cpu;
		e->enabled = !attr->disabled;
		s->opens++;
		return FAKE_SPE_FD0 + i;
	}
	errno = EBUSY;
	return -1;
}

static int s_close(void *ctx, int fd)
{
	struct fake_spe *s = S(ctx);
	struct fake_spe_event *e = by_fd(s, fd);
	if (!e)
		return inner(s)->close(inner(s)->ctx, fd);
	e->open = false;
	s->closes++;
	return 0;
}

static int s_ioctl(void *ctx, int fd, unsigned long request, void *arg)
{
	struct fake_spe *s = S(ctx);
	struct fake_spe_event *e = by_fd(s, fd);
	if (!e)
		return inner(s)->ioctl(inner(s)->ctx, fd, request, arg);
	switch (request) {
	case PERF_EVENT_IOC_ENABLE:
		/* Without a buffer the driver cannot start (perf-arm-spe). */
		if (e->ring && e->aux)
			e->enabled = true;
		e->enables++;
		return 0;
	case PERF_EVENT_IOC_DISABLE:
		if (e->enabled)
			fake_spe_publish(e, 0);
		e->enabled = false;
		e->disables++;
		return 0;
	default:
		errno = ENOTTY;
		return -1;
	}
}

static bool power_of_two(size_t v)
{
	return v && !(v & (v - 1));
}

static void *s_mmap(void *ctx, void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	struct fake_spe *s = S(ctx);
	struct fake_spe_event *e = by_fd(s, fd);
	if (!e)
		return inner(s)->mmap(inner(s)->ctx, addr, len, prot, flags, fd, off);
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	if (off == 0) {
		/* The data ring: the user page and 2^n pages. */
		if (s->ring_errno || e->ring || len % page || !power_of_two(len / page - 1)) {
			errno = s->ring_errno ? s->ring_errno : EINVAL;
			return MAP_FAILED;
		}
		e->ring = aligned_alloc(page, len);
		if (!e->ring) {
			errno = ENOMEM;
			return MAP_FAILED;
		}
		memset(e->ring, 0, len);
		e->ring_len = len;
		page_of(e)->data_offset = page;
		page_of(e)->data_size = len - page;
		s->maps++;
		return e->ring;
	}
	/* The aux area: where and how large the user page says. */
	struct perf_event_mmap_page *pg = e->ring ? page_of(e) : NULL;
	if (s->aux_errno || !pg || e->aux || (uint64_t)off != pg->aux_offset ||
	    len != pg->aux_size || len % page || !power_of_two(len / page) || len / page < 2) {
		errno = s->aux_errno ? s->aux_errno : EINVAL;
		return MAP_FAILED;
	}
	e->aux = aligned_alloc(page, len);
	if (!e->aux) {
		errno = ENOMEM;
		return MAP_FAILED;
	}
	memset(e->aux, 0, len);
	e->aux_len = len;
	s->maps++;
	return e->aux;
}

static int s_munmap(void *ctx, void *addr, size_t len)
{
	struct fake_spe *s = S(ctx);
	for (int i = 0; i < FAKE_SPE_MAX; i++) {
		struct fake_spe_event *e = &s->ev[i];
		if (addr && addr == e->ring && len == e->ring_len) {
			free(e->ring);
			e->ring = NULL;
			s->unmaps++;
			return 0;
		}
		if (addr && addr == e->aux && len == e->aux_len) {
			free(e->aux);
			e->aux = NULL;
			s->unmaps++;
			return 0;
		}
	}
	return inner(s)->munmap(inner(s)->ctx, addr, len);
}

static int s_open(void *ctx, const char *path, int flags, mode_t mode)
{
	return inner(S(ctx))->open(inner(S(ctx))->ctx, path, flags, mode);
}

static ssize_t s_read(void *ctx, int fd, void *buf, size_t len)
{
	return inner(S(ctx))->read(inner(S(ctx))->ctx, fd, buf, len);
}

static ssize_t s_write(void *ctx, int fd, const void *buf, size_t len)
{
	return inner(S(ctx))->write(inner(S(ctx))->ctx, fd, buf, len);
}

static int s_poll(void *ctx, struct pollfd *fds, nfds_t nfds, int timeout_ms)
{
	return inner(S(ctx))->poll(inner(S(ctx))->ctx, fds, nfds, timeout_ms);
}

static int s_list_dir(void *ctx, const char *path, void (*fn)(const char *name, void *arg),
                      void *arg)
{
	return inner(S(ctx))->list_dir(inner(S(ctx))->ctx, path, fn, arg);
}

void fake_spe_init(struct fake_spe *s, struct fake_perf *k)
{
	memset(s, 0, sizeof *s);
	s->k = k;
	s->present = true;
	s->sys = (struct og_sys){
		.ctx = s,
		.open = s_open,
		.close = s_close,
		.ioctl = s_ioctl,
		.mmap = s_mmap,
		.munmap = s_munmap,
		.poll = s_poll,
		.read = s_read,
		.write = s_write,
		.perf_event_open = s_perf_event_open,
		.list_dir = s_list_dir,
		.read_pmc = k->sys.read_pmc,
		.read_cycles = k->sys.read_cycles,
	};
	fake_perf_set_file(k, PMU "type", "10\n");
	fake_perf_set_file(k, PMU "caps/min_interval", "1024\n");
	fake_perf_set_file(k, PMU "caps/count_size", "12\n");
	fake_perf_set_file(k, PMU "cpumask", "0-3\n");
	fake_perf_set_file(k, PMU "format/jitter", "config:16\n");
}

void fake_spe_host(struct fake_spe *s, struct fake_perf *k, struct og_backend_host *host,
                   struct fake_log *log, const char *midr)
{
	fake_perf_init(k);
	fake_spe_init(s, k);
	fake_host_init(host, k, log);
	host->sys = &s->sys;
	fake_perf_set_file(k, "/proc/cpuinfo", "processor\t: 0\nBogoMIPS\t: 50.00\n");
	fake_perf_set_file(k, "/sys/devices/system/cpu/cpu0/regs/identification/midr_el1", midr);
}

struct fake_spe_event *fake_spe_event(struct fake_spe *s, pid_t pid)
{
	for (int i = 0; i < FAKE_SPE_MAX; i++)
		if (s->ev[i].open && (pid < 0 || s->ev[i].pid == pid))
			return &s->ev[i];
	return NULL;
}

void fake_spe_write(struct fake_spe_event *e, const void *bytes, size_t len)
{
	struct perf_event_mmap_page *pg = page_of(e);
	uint64_t tail = og_ring_load_acquire(&pg->aux_tail);
	uint64_t room = e->aux_len - (e->aux_head - tail);
	if (len > room) {
		len = room; /* the buffer is full: the driver stops and flags it */
		e->pending_flags |= PERF_AUX_FLAG_TRUNCATED;
	}
	const uint8_t *b = bytes;
	for (size_t i = 0; i < len; i++)
		e->aux[(e->aux_head + i) % e->aux_len] = b[i];
	e->aux_head += len;
}

bool fake_spe_ring_record(struct fake_spe_event *e, uint32_t type, const void *body, size_t len)
{
	struct perf_event_mmap_page *pg = page_of(e);
	size_t size = len + sizeof(struct perf_event_header);
	uint64_t head = pg->data_head, tail = og_ring_load_acquire(&pg->data_tail);
	if (size > 65535 || head - tail + size > pg->data_size)
		return false;
	struct perf_event_header hdr = { .type = type, .misc = 0, .size = (uint16_t)size };
	uint8_t *data = e->ring + pg->data_offset;
	for (size_t i = 0; i < size; i++) {
		uint8_t byte = i < sizeof hdr ? ((const uint8_t *)&hdr)[i]
		                              : ((const uint8_t *)body)[i - sizeof hdr];
		data[(head + i) % pg->data_size] = byte;
	}
	og_ring_store_release(&pg->data_head, head + size);
	return true;
}

void fake_spe_publish(struct fake_spe_event *e, uint64_t flags)
{
	uint64_t rec[3] = { e->published, e->aux_head - e->published, flags | e->pending_flags };
	if (!rec[1] && !rec[2])
		return;
	if (fake_spe_ring_record(e, PERF_RECORD_AUX, rec, sizeof rec)) {
		e->published = e->aux_head;
		e->pending_flags = 0;
	}
}

void fake_spe_free(struct fake_spe *s)
{
	for (int i = 0; i < FAKE_SPE_MAX; i++) {
		free(s->ev[i].ring);
		free(s->ev[i].aux);
		s->ev[i].ring = s->ev[i].aux = NULL;
	}
}
