/* SPDX-License-Identifier: MIT */
/* fake_rdpmc.c — see fake_rdpmc.h. */
#include "fake_rdpmc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void *f_mmap(void *ctx, void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	struct fake_rdpmc *f = ctx;
	if (f->mmap_errno) {
		errno = f->mmap_errno;
		return MAP_FAILED;
	}
	/* What the reader may ask for: the header page, read-only, shared. */
	int i = fd - FAKE_RDPMC_FD0;
	if (addr || len != f->page_len || prot != PROT_READ || flags != MAP_SHARED || off != 0 ||
	    i < 0 || i >= FAKE_RDPMC_PAGES) {
		errno = EINVAL;
		return MAP_FAILED;
	}
	f->maps++;
	return f->page[i];
}

static int f_munmap(void *ctx, void *addr, size_t len)
{
	struct fake_rdpmc *f = ctx;
	for (int i = 0; i < FAKE_RDPMC_PAGES; i++) {
		if (addr == f->page[i] && len == f->page_len) {
			f->unmaps++;
			return 0;
		}
	}
	errno = EINVAL;
	return -1;
}

static bool f_read_pmc(void *ctx, uint32_t index, uint64_t *value)
{
	struct fake_rdpmc *f = ctx;
	f->pmc_reads++;
	f->last_index = index;
	uint32_t n = index - 1;
	uint64_t v = n < FAKE_RDPMC_COUNTERS ? f->pmc[n] : 0;
	if (f->update_at == f->pmc_reads)
		fake_rdpmc_publish(f, &f->update);
	if (f->churn) {
		for (int i = 0; i < FAKE_RDPMC_PAGES; i++) {
			f->page[i]->lock += 2;
			f->page[i]->offset += 1;
		}
	}
	if (n >= FAKE_RDPMC_COUNTERS)
		return false;
	*value = v;
	return true;
}

static uint64_t f_read_cycles(void *ctx)
{
	struct fake_rdpmc *f = ctx;
	f->cycle_reads++;
	return f->cycles;
}

void fake_rdpmc_init(struct fake_rdpmc *f)
{
	memset(f, 0, sizeof *f);
	f->sys = (struct og_sys){
		.ctx = f,
		.mmap = f_mmap,
		.munmap = f_munmap,
		.read_pmc = f_read_pmc,
		.read_cycles = f_read_cycles,
	};
	f->page_len = (size_t)sysconf(_SC_PAGESIZE);
	for (int i = 0; i < FAKE_RDPMC_PAGES; i++) {
		f->page[i] = aligned_alloc(f->page_len, f->page_len);
		if (!f->page[i])
			abort();
		memset(f->page[i], 0, f->page_len);
	}
}

void fake_rdpmc_free(struct fake_rdpmc *f)
{
	for (int i = 0; i < FAKE_RDPMC_PAGES; i++)
		free(f->page[i]);
	memset(f->page, 0, sizeof f->page);
}

void fake_rdpmc_offer(struct fake_rdpmc *f, int i, uint32_t index, int64_t offset, uint64_t pmc)
{
	struct perf_event_mmap_page *pg = f->page[i];
	pg->version = 0;
	pg->compat_version = 0;
	pg->cap_bit0_is_deprecated = 1;
	pg->cap_user_rdpmc = 1;
	pg->pmc_width = 48;
	pg->index = index;
	pg->offset = offset;
	pg->time_enabled = 1000;
	pg->time_running = 1000;
	pg->size = (uint32_t)offsetof(struct perf_event_mmap_page, __reserved);
	if (index >= 1 && index <= FAKE_RDPMC_COUNTERS)
		f->pmc[index - 1] = pmc;
}

void fake_rdpmc_time(struct fake_rdpmc *f, int i, uint32_t mult, uint16_t shift,
                     uint64_t time_offset)
{
	struct perf_event_mmap_page *pg = f->page[i];
	pg->cap_user_time = 1;
	pg->time_mult = mult;
	pg->time_shift = shift;
	pg->time_offset = time_offset;
}

void fake_rdpmc_publish(struct fake_rdpmc *f, const struct fake_rdpmc_update *u)
{
	struct perf_event_mmap_page *pg = f->page[u->page];
	pg->lock++;
	pg->index = u->index;
	pg->offset = u->offset;
	pg->time_enabled = u->time_enabled;
	pg->time_running = u->time_running;
	if (u->index >= 1 && u->index <= FAKE_RDPMC_COUNTERS)
		f->pmc[u->index - 1] = u->pmc;
	pg->lock++;
}

__attribute__((format(printf, 3, 4))) static void count_log(void *ctx, enum og_log_level level,
                                                            const char *fmt, ...)
{
	(void)level, (void)fmt;
	++*(int *)ctx;
}

void fake_rdpmc_host(struct og_backend_host *host, struct fake_rdpmc *f, int *log_lines)
{
	*log_lines = 0;
	host->sys = &f->sys;
	host->log = count_log;
	host->log_ctx = log_lines;
}
