/* SPDX-License-Identifier: MIT */
/* sys_real.c — the og_sys table that goes straight to the kernel. */
#include "sys.h"

#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static int real_open(void *ctx, const char *path, int flags, mode_t mode)
{
	(void)ctx;
	return open(path, flags | O_CLOEXEC, mode);
}

static int real_close(void *ctx, int fd)
{
	(void)ctx;
	return close(fd);
}

static int real_ioctl(void *ctx, int fd, unsigned long request, void *arg)
{
	(void)ctx;
	return ioctl(fd, request, arg);
}

_Static_assert(sizeof(off_t) == sizeof(int64_t), "og_sys passes mmap offsets as int64_t");

static void *real_mmap(void *ctx, void *addr, size_t len, int prot, int flags, int fd,
                       int64_t off)
{
	(void)ctx;
	return mmap(addr, len, prot, flags, fd, off);
}

static int real_munmap(void *ctx, void *addr, size_t len)
{
	(void)ctx;
	return munmap(addr, len);
}

static int real_poll(void *ctx, struct pollfd *fds, nfds_t nfds, int timeout_ms)
{
	(void)ctx;
	return poll(fds, nfds, timeout_ms);
}

static ssize_t real_read(void *ctx, int fd, void *buf, size_t len)
{
	(void)ctx;
	return read(fd, buf, len);
}

static ssize_t real_write(void *ctx, int fd, const void *buf, size_t len)
{
	(void)ctx;
	return write(fd, buf, len);
}

static int real_list_dir(void *ctx, const char *path, void (*fn)(const char *name, void *arg),
                         void *arg)
{
	(void)ctx;
	DIR *d = opendir(path);
	if (!d)
		return -1;
	struct dirent *e;
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			fn(e->d_name, arg);
	closedir(d);
	return 0;
}

static int real_fstat(void *ctx, int fd, mode_t *mode, int64_t *size)
{
	(void)ctx;
	struct stat st;
	if (fstat(fd, &st) != 0)
		return -1;
	*mode = st.st_mode;
	*size = (int64_t)st.st_size;
	return 0;
}

static int real_perf_event_open(void *ctx, struct perf_event_attr *attr, pid_t pid, int cpu,
                                int group_fd, unsigned long flags)
{
	(void)ctx;
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group_fd,
	                    flags | PERF_FLAG_FD_CLOEXEC);
}

#if defined(__x86_64__) || defined(__i386__)

static bool real_read_pmc(void *ctx, uint32_t index, uint64_t *value)
{
	(void)ctx;
	if (index == 0)
		return false;
	/* The kernel publishes its own rdpmc selector plus one (general
	 * counters from 0, fixed ones with bit 30 set), so ECX is index - 1
	 * whatever the counter type. */
	uint32_t lo, hi;
	__asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(index - 1));
	*value = (uint64_t)hi << 32 | lo;
	return true;
}

static uint64_t real_read_cycles(void *ctx)
{
	(void)ctx;
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

#define REAL_READ_PMC real_read_pmc
#define REAL_READ_CYCLES real_read_cycles

#elif defined(__aarch64__)

/* The register is part of the instruction, so each counter is a case. */
#define READ_PMEVCNTR(n)                                                   \
	case n:                                                            \
		__asm__ volatile("mrs %0, pmevcntr" #n "_el0" : "=r"(v)); \
		break;

static bool real_read_pmc(void *ctx, uint32_t index, uint64_t *value)
{
	(void)ctx;
	uint64_t v;
	/* index - 1 is the kernel's counter number: 0-30 the event counters,
	 * 31 the cycle counter.  index 0 wraps to a number no case has. */
	switch (index - 1) {
	READ_PMEVCNTR(0) READ_PMEVCNTR(1) READ_PMEVCNTR(2) READ_PMEVCNTR(3)
	READ_PMEVCNTR(4) READ_PMEVCNTR(5) READ_PMEVCNTR(6) READ_PMEVCNTR(7)
	READ_PMEVCNTR(8) READ_PMEVCNTR(9) READ_PMEVCNTR(10) READ_PMEVCNTR(11)
	READ_PMEVCNTR(12) READ_PMEVCNTR(13) READ_PMEVCNTR(14) READ_PMEVCNTR(15)
	READ_PMEVCNTR(16) READ_PMEVCNTR(17) READ_PMEVCNTR(18) READ_PMEVCNTR(19)
	READ_PMEVCNTR(20) READ_PMEVCNTR(21) READ_PMEVCNTR(22) READ_PMEVCNTR(23)
	READ_PMEVCNTR(24) READ_PMEVCNTR(25) READ_PMEVCNTR(26) READ_PMEVCNTR(27)
	READ_PMEVCNTR(28) READ_PMEVCNTR(29) READ_PMEVCNTR(30)
	case 31:
		__asm__ volatile("mrs %0, pmccntr_el0" : "=r"(v));
		break;
	default:
		return false;
	}
	*value = v;
	return true;
}

static uint64_t real_read_cycles(void *ctx)
{
	(void)ctx;
	uint64_t v;
	/* Without the isb the counter may be read ahead of the page loads
	 * it is meant to follow. */
	__asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(v)::"memory");
	return v;
}

#define REAL_READ_PMC real_read_pmc
#define REAL_READ_CYCLES real_read_cycles

#else

#define REAL_READ_PMC NULL
#define REAL_READ_CYCLES NULL

#endif

#if defined(__mips__)

/* MD00548 §4.1: user mode may read Count (hardware register 2) and its
 * resolution (3).  Assembled as MIPS32r2 whatever the build's baseline;
 * an older core raises SIGILL, which the caller's probe catches. */
static void real_read_cycle_counter(void *ctx, uint32_t *count, uint32_t *cycles_per_tick)
{
	(void)ctx;
	uint32_t c, r;
	__asm__ volatile(".set push\n\t.set mips32r2\n\trdhwr %0, $2\n\trdhwr %1, $3\n\t.set pop"
	                 : "=r"(c), "=r"(r));
	*count = c;
	*cycles_per_tick = r;
}

#define REAL_READ_CYCLE_COUNTER real_read_cycle_counter
#else
#define REAL_READ_CYCLE_COUNTER NULL
#endif

static const struct og_sys real_table = {
	.ctx = NULL,
	.open = real_open,
	.close = real_close,
	.ioctl = real_ioctl,
	.mmap = real_mmap,
	.munmap = real_munmap,
	.poll = real_poll,
	.read = real_read,
	.write = real_write,
	.perf_event_open = real_perf_event_open,
		.list_dir = real_list_dir,
	.read_pmc = REAL_READ_PMC,
	.read_cycles = REAL_READ_CYCLES,
	.read_cycle_counter = REAL_READ_CYCLE_COUNTER,
	.fstat = real_fstat,
};

const struct og_sys *og_sys_real(void)
{
	return &real_table;
}
