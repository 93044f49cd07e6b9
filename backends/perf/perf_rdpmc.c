/* SPDX-License-Identifier: MIT */
/* perf_rdpmc.c — the seqlock read of a perf_event_mmap_page, as the
 * comments of include/uapi/linux/perf_event.h describe it. */
#include "perf_rdpmc.h"

#include "probe_child.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

/* The capability bits as the uapi header declares them.  Bit-fields rather
 * than masks, so they land where this compiler put the kernel's on this
 * ABI (big-endian ABIs number them from the top). */
union page_caps {
	uint64_t word;
	struct {
		uint64_t bit0 : 1, bit0_is_deprecated : 1, user_rdpmc : 1, user_time : 1,
			user_time_zero : 1, user_time_short : 1, reserved : 58;
	} b;
};
_Static_assert(sizeof(union page_caps) == sizeof(uint64_t), "capabilities is one u64");

/* Everything one seqlock round copies out of the page.  Judged only once
 * the lock says the copy is consistent. */
struct page_copy {
	union page_caps caps;
	uint32_t size;
	uint32_t index;
	uint64_t offset;
	uint64_t enabled, running;
	uint16_t width;
	bool pmc_read; /* read_pmc was called and could address the index */
	uint64_t pmc;
	bool have_cycles;
	uint64_t cycles;
	uint16_t time_shift;
	uint32_t time_mult;
	uint64_t time_offset, time_cycles, time_mask;
};

typedef const volatile struct perf_event_mmap_page page_t;

/* A plain volatile read, like every other field of the page: 32-bit MIPS
 * has no 64-bit atomic load (it would be a libatomic call behind a lock),
 * and none is needed.  The read may tear where the CPU loads 64 bits as two
 * words, but inside the seqlock a torn copy is retried, and outside it
 * (og_perf_user_page_can_read) the answer is only a hint. */
static uint64_t load_caps(page_t *pc)
{
	return pc->capabilities;
}

/* The body of the kernel's reader loop: same fields, same order. */
static void copy_page(const struct og_sys *sys, page_t *pc, struct page_copy *c)
{
	c->caps.word = load_caps(pc);
	c->size = pc->size;
	c->enabled = pc->time_enabled;
	c->running = pc->time_running;
	c->have_cycles = c->caps.b.user_time && sys->read_cycles;
	if (c->have_cycles) {
		c->cycles = sys->read_cycles(sys->ctx);
		c->time_offset = pc->time_offset;
		c->time_mult = pc->time_mult;
		c->time_shift = pc->time_shift;
		c->time_cycles = pc->time_cycles;
		c->time_mask = pc->time_mask;
	}
	c->index = pc->index;
	c->offset = (uint64_t)pc->offset;
	c->width = pc->pmc_width;
	/* A width the kernel cannot mean is not worth a counter read: the
	 * verdict below refuses it anyway. */
	c->pmc_read = c->caps.b.user_rdpmc && c->index != 0 && c->width >= 1 && c->width <= 64 &&
	              sys->read_pmc(sys->ctx, c->index, &c->pmc);
}

/* The low `width` bits of v as a signed number: counters narrower than 64
 * bits start near their top so the kernel sees overflow, and aarch64 leaves
 * the bits above a 32-bit counter undefined. */
static uint64_t sign_extend(uint64_t v, unsigned width)
{
	if (width >= 64)
		return v;
	uint64_t sign = 1ull << (width - 1);
	v &= (sign << 1) - 1;
	return (v ^ sign) - sign;
}

/* (rem * mult) >> shift for rem < 2^shift, exact for every shift < 64:
 * the kernel's formula overflows 64 bits once shift passes 32. */
static uint64_t mul_shift(uint64_t rem, uint32_t mult, unsigned shift)
{
	if (shift < 32)
		return (rem * mult) >> shift;
	uint64_t lo = (rem & 0xffffffffu) * mult, hi = (rem >> 32) * mult;
	return (hi + (lo >> 32)) >> (shift - 32);
}

/* ns since the kernel last wrote enabled/running, from the cycle counter. */
static bool time_since_update(const struct page_copy *c, uint64_t *delta)
{
	if (c->time_shift >= 64 || c->time_mult == 0)
		return false;
	uint64_t cyc = c->cycles;
	if (c->caps.b.user_time_short) {
		/* Older kernels' pages end before time_cycles/time_mask. */
		if (c->size < offsetof(struct perf_event_mmap_page, time_mask) + sizeof c->time_mask)
			return false;
		cyc = c->time_cycles + ((cyc - c->time_cycles) & c->time_mask);
	}
	uint64_t quot = cyc >> c->time_shift;
	uint64_t rem = cyc & ((1ull << c->time_shift) - 1);
	uint64_t d = c->time_offset + quot * c->time_mult + mul_shift(rem, c->time_mult, c->time_shift);
	/* The update is in the past: a "negative" delta means the clock and
	 * the conversion disagree, and the times would be wrong. */
	if ((int64_t)d < 0)
		return false;
	*delta = d;
	return true;
}

static enum og_perf_user_read judge(const struct page_copy *c, uint64_t *count,
                                    uint64_t *enabled, uint64_t *running)
{
	/* Kernels 3.4-3.11 set bit 0 for rdpmc and time alike; an all-zero
	 * page has this bit clear too. */
	if (!c->caps.b.bit0_is_deprecated || !c->caps.b.user_rdpmc)
		return OG_PERF_USER_READ_UNSUPPORTED;
	if (c->index == 0)
		return OG_PERF_USER_READ_NOT_ON_PMU;
	if (!c->pmc_read)
		return OG_PERF_USER_READ_UNSUPPORTED;
	uint64_t en = c->enabled, run = c->running;
	if (c->have_cycles) {
		uint64_t delta;
		if (!time_since_update(c, &delta))
			return OG_PERF_USER_READ_UNSUPPORTED;
		/* On a counter (index != 0), so running advances with enabled. */
		en += delta;
		run += delta;
		if (en < delta || run < delta)
			return OG_PERF_USER_READ_UNSUPPORTED; /* wrapped: not a time */
	}
	if (run > en)
		return OG_PERF_USER_READ_UNSUPPORTED;
	*count = c->offset + sign_extend(c->pmc, c->width);
	*enabled = en;
	*running = run;
	return OG_PERF_USER_READ_OK;
}

enum og_perf_user_read og_perf_user_page_read(const struct og_backend_host *host,
                                              const struct og_perf_user_page *p,
                                              uint64_t *count, uint64_t *enabled,
                                              uint64_t *running)
{
	const struct og_sys *sys = host->sys;
	if (!p->page || !sys->read_pmc)
		return OG_PERF_USER_READ_UNSUPPORTED;
	page_t *pc = p->page;
	for (int round = 0; round < OG_PERF_USER_READ_TRIES; round++) {
		uint32_t seq = __atomic_load_n(&pc->lock, __ATOMIC_ACQUIRE);
		/* Odd: the kernel is between its two increments, mid-update. */
		if (seq & 1)
			continue;
		struct page_copy c;
		copy_page(sys, pc, &c);
		/* Keeps the copy (and the counter read) before the second look
		 * at the lock, for the compiler and for weakly ordered CPUs. */
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&pc->lock, __ATOMIC_RELAXED) != seq)
			continue;
		return judge(&c, count, enabled, running);
	}
	return OG_PERF_USER_READ_UNSTABLE;
}

bool og_perf_user_page_can_read(const struct og_backend_host *host,
                                const struct og_perf_user_page *p)
{
	if (!p->page || !host->sys->read_pmc)
		return false;
	union page_caps caps = { .word = load_caps(p->page) };
	return caps.b.bit0_is_deprecated && caps.b.user_rdpmc;
}

bool og_perf_user_page_map(const struct og_backend_host *host, int fd,
                           struct og_perf_user_page *p)
{
	const struct og_sys *sys = host->sys;
	p->page = NULL;
	p->len = 0;
	long pagesize = sysconf(_SC_PAGESIZE);
	if (pagesize <= 0 || (size_t)pagesize < sizeof(struct perf_event_mmap_page)) {
		errno = EINVAL;
		return false;
	}
	/* One page: the header only, no ring buffer, since nothing samples. */
	void *m = sys->mmap(sys->ctx, NULL, (size_t)pagesize, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return false;
	p->page = m;
	p->len = (size_t)pagesize;
	return true;
}

void og_perf_user_page_unmap(const struct og_backend_host *host, struct og_perf_user_page *p)
{
	if (p->page) {
		const struct og_sys *sys = host->sys;
		sys->munmap(sys->ctx, p->page, p->len);
	}
	p->page = NULL;
	p->len = 0;
}

uint32_t og_perf_user_page_index(const struct og_perf_user_page *p)
{
	return p->page ? ((page_t *)p->page)->index : 0;
}

struct probe_arg {
	const struct og_sys *sys;
	uint32_t index;
};

static void probe_body(void *arg)
{
	const struct probe_arg *a = arg;
	uint64_t v;
	if (!a->sys->read_pmc(a->sys->ctx, a->index, &v))
		_exit(OG_PROBE_EXIT_NO);
}

bool og_perf_user_read_probe(const struct og_backend_host *host, uint32_t index, char *why,
                             size_t why_len)
{
	struct probe_arg a = { host->sys, index };
	if (!a.sys->read_pmc) {
		snprintf(why, why_len, "this architecture has no user-space counter read");
		return false;
	}
	return og_probe_in_child(probe_body, &a, "this CPU has no register for that counter", why,
	                         why_len);
}

const char *og_perf_user_read_name(enum og_perf_user_read r)
{
	switch (r) {
	case OG_PERF_USER_READ_OK:
		return "OK";
	case OG_PERF_USER_READ_NOT_ON_PMU:
		return "NOT_ON_PMU";
	case OG_PERF_USER_READ_UNSTABLE:
		return "UNSTABLE";
	case OG_PERF_USER_READ_UNSUPPORTED:
		return "UNSUPPORTED";
	}
	return "?";
}
