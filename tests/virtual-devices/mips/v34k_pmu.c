/* SPDX-License-Identifier: MIT */
/* v34k_pmu.c — the mainline kernel's MIPS PMU driver over the virtual 34K
 * (v34k_pmu.h), written from the driver's rules, not its code. */
#include "v34k_pmu.h"

#include "sys.h"
#include "v34k.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_EVENTS 128
#define FD_BASE 7400     /* event descriptors of the og_sys table */
#define FILE_FD_BASE 7900
#define MAX_FILES 16
#define CNTR_EVEN 0x5u   /* counters 0 and 2 */
#define CNTR_ODD 0xau    /* counters 1 and 3 */
#define PMU_TYPE_CPU 4u  /* the MIPS PMU registers as PERF_TYPE_RAW ("cpu") */

enum range { RANGE_T, RANGE_V, RANGE_P };

struct event {
	bool open;
	struct perf_event_attr attr;
	int leader;           /* index; itself for a leader */
	uint64_t id;
	bool hw;              /* on the PMU (else a software event) */
	unsigned event_id;    /* the 7-bit event number */
	unsigned cntr_mask;   /* counters it may use */
	enum range range;
	uint32_t mode_bits;   /* U, S, K, EXL from exclude_* */
	int idx;              /* its counter while its group is on the PMU, else -1 */
	uint32_t prev;        /* the counter's value at the last update */
	uint64_t count;
	/* leaders only */
	bool enabled;
	bool scheduled;
	uint64_t enabled_ns, running_ns;
};

struct file {
	bool used;
	const char *text;
	size_t off;
};

struct v34k_pmu {
	struct v34k_pmu_config cfg;
	unsigned counters;    /* per CPU */
	struct v34k *dev;
	struct event ev[MAX_EVENTS];
	uint64_t next_id;
	unsigned used_mask;   /* counters taken by scheduled groups (CPU cfg.cpu) */
	uint32_t ctl[4];      /* what the driver wrote per physical counter */
	uint32_t programmed[4]; /* the last event set up there, for tests */
	uint64_t now_ns;
	struct file files[MAX_FILES];
	char cpuinfo[512], online[16], paranoid[16];
	struct og_sys sys;
};

/* ---- the driver's event maps ------------------------------------------------ */

struct map {
	unsigned event, mask;
	enum range range;
};

static const struct map generic_map[PERF_COUNT_HW_MAX] = {
	[PERF_COUNT_HW_CPU_CYCLES] = { 0x00, CNTR_EVEN | CNTR_ODD, RANGE_P },
	[PERF_COUNT_HW_INSTRUCTIONS] = { 0x01, CNTR_EVEN | CNTR_ODD, RANGE_T },
	[PERF_COUNT_HW_BRANCH_INSTRUCTIONS] = { 0x02, CNTR_EVEN, RANGE_T },
	[PERF_COUNT_HW_BRANCH_MISSES] = { 0x02, CNTR_ODD, RANGE_T },
};

/* The 24K/34K/1004K cache map: [cache][op][result]; mask 0 = not supported.
 * Reads and writes are the same events (the counters cannot tell them). */
static struct map cache_map(unsigned cache, unsigned op, unsigned result)
{
	const struct map none = { 0, 0, RANGE_T };
	bool miss = result == PERF_COUNT_HW_CACHE_RESULT_MISS;
	if (op == PERF_COUNT_HW_CACHE_OP_PREFETCH)
		return cache == PERF_COUNT_HW_CACHE_L1I && !miss ? (struct map){ 0x14, CNTR_EVEN, RANGE_T }
		                                                 : none;
	switch (cache) {
	case PERF_COUNT_HW_CACHE_L1D:
		return miss ? (struct map){ 0x0b, CNTR_EVEN | CNTR_ODD, RANGE_T }
		            : (struct map){ 0x0a, CNTR_EVEN, RANGE_T };
	case PERF_COUNT_HW_CACHE_L1I:
		return (struct map){ 0x09, miss ? CNTR_ODD : CNTR_EVEN, RANGE_T };
	case PERF_COUNT_HW_CACHE_LL:
		return miss ? (struct map){ 0x16, CNTR_EVEN, RANGE_P }
		            : (struct map){ 0x15, CNTR_ODD, RANGE_P };
	case PERF_COUNT_HW_CACHE_DTLB:
		return (struct map){ 0x06, miss ? CNTR_ODD : CNTR_EVEN, RANGE_T };
	case PERF_COUNT_HW_CACHE_ITLB:
		return (struct map){ 0x05, miss ? CNTR_ODD : CNTR_EVEN, RANGE_T };
	case PERF_COUNT_HW_CACHE_BPU:
		return (struct map){ 0x02, miss ? CNTR_ODD : CNTR_EVEN, RANGE_T };
	default:
		return none;
	}
}

/* Raw configs: the low byte, bit 7 the bank; 0, 1 and 11 on either. */
static struct map raw_map(uint64_t config)
{
	unsigned raw = (unsigned)(config & 0xff), base = raw & 0x7f;
	struct map m = { base, raw > 127 ? CNTR_ODD : CNTR_EVEN, RANGE_T };
	if (base == 0 || base == 1 || base == 11)
		m.mask = CNTR_EVEN | CNTR_ODD;
	if (base == 0 || raw == 18 || base == 21 || base == 22 || base == 25 || base == 39 ||
	    raw == 44 || raw == 174 || raw == 176 || (base >= 50 && base <= 55) ||
	    (base >= 64 && base <= 67))
		m.range = RANGE_P;
	else if (raw == 47)
		m.range = RANGE_V;
	return m;
}

/* ---- counters ---------------------------------------------------------------- */

/* First fit from the highest counter, the driver's allocator. */
static int alloc_counter(const struct v34k_pmu *p, unsigned *used, unsigned mask)
{
	for (int i = (int)p->counters - 1; i >= 0; i--) {
		if ((mask >> i & 1) && !(*used >> i & 1)) {
			*used |= 1u << i;
			return i;
		}
	}
	return -1;
}

/* Per-CPU index to the physical counter: VPE 1 of an MT_SMP kernel has 2, 3. */
static unsigned physical(const struct v34k_pmu *p, int idx)
{
	return p->counters == 2 && p->cfg.cpu == 1 ? (unsigned)(idx + 2) & 3 : (unsigned)idx;
}

static uint32_t control_word(const struct v34k_pmu *p, const struct event *e)
{
	uint32_t ctl = (uint32_t)e->event_id << 5 | e->mode_bits | 0x10u; /* IE */
	bool mt = p->cfg.mt_smp && p->cfg.cpus > 1;
	if (!(mt && e->range == RANGE_P))
		ctl |= (p->cfg.cpu & 0xfu) << 16 | 1u << 20; /* this CPU's VPE only */
	return ctl;
}

static uint32_t counter_value(const struct v34k_pmu *p, unsigned phys)
{
	return (uint32_t)v34k_count(p->dev, phys);
}

/* Folds what each counter of group g moved into its events' counts. */
static void update_group(struct v34k_pmu *p, int g)
{
	for (int i = 0; i < MAX_EVENTS; i++) {
		struct event *e = &p->ev[i];
		if (!e->open || e->leader != g || !e->hw || e->idx < 0)
			continue;
		uint32_t now = counter_value(p, physical(p, e->idx));
		e->count += (uint32_t)(now - e->prev);
		e->prev = now;
	}
}

static void unschedule(struct v34k_pmu *p, int g)
{
	struct event *l = &p->ev[g];
	if (!l->scheduled)
		return;
	update_group(p, g);
	for (int i = 0; i < MAX_EVENTS; i++) {
		struct event *e = &p->ev[i];
		if (!e->open || e->leader != g || e->idx < 0)
			continue;
		unsigned phys = physical(p, e->idx);
		p->ctl[phys] = 0;
		v34k_set_ctl(p->dev, phys, 0);
		p->used_mask &= ~(1u << e->idx);
		e->idx = -1;
	}
	l->scheduled = false;
}

/* Puts group g on the PMU, or leaves it off when the counters left do not
 * hold it (it then stays enabled and never runs). */
static void schedule(struct v34k_pmu *p, int g)
{
	unsigned used = p->used_mask;
	int idx[MAX_EVENTS];
	for (int i = 0; i < MAX_EVENTS; i++) {
		struct event *e = &p->ev[i];
		idx[i] = -1;
		if (!e->open || e->leader != g || !e->hw)
			continue;
		idx[i] = alloc_counter(p, &used, e->cntr_mask);
		if (idx[i] < 0)
			return;
	}
	p->used_mask = used;
	for (int i = 0; i < MAX_EVENTS; i++) {
		struct event *e = &p->ev[i];
		if (idx[i] < 0)
			continue;
		e->idx = idx[i];
		unsigned phys = physical(p, e->idx);
		p->ctl[phys] = control_word(p, e);
		p->programmed[phys] = p->ctl[phys];
		v34k_set_ctl(p->dev, phys, p->ctl[phys]);
		e->prev = counter_value(p, phys);
	}
	p->ev[g].scheduled = true;
}

/* The task runs: the workload, then time for every enabled group. */
static void run(struct v34k_pmu *p)
{
	uint64_t dt = (uint64_t)((double)p->cfg.cycles_per_read * 1000.0 / p->cfg.clock_mhz);
	v34k_run(p->dev, p->cfg.cycles_per_read, V34K_USER, p->cfg.cpu, 0);
	p->now_ns += dt;
	for (int g = 0; g < MAX_EVENTS; g++) {
		struct event *l = &p->ev[g];
		if (!l->open || l->leader != g || !l->enabled)
			continue;
		l->enabled_ns += dt;
		if (!l->scheduled)
			continue;
		l->running_ns += dt;
		update_group(p, g);
		for (int i = 0; i < MAX_EVENTS; i++) {
			struct event *e = &p->ev[i];
			if (e->open && e->leader == g && !e->hw &&
			    e->attr.config == PERF_COUNT_SW_TASK_CLOCK)
				e->count += dt;
		}
	}
}

/* ---- perf_event_open --------------------------------------------------------- */

static int event_index(const struct v34k_pmu *p, int fd)
{
	int i = fd - FD_BASE;
	return i >= 0 && i < MAX_EVENTS && p->ev[i].open ? i : -1;
}

/* The driver's allocation check over the group and the new event. */
static bool group_fits(const struct v34k_pmu *p, int leader, const struct event *add)
{
	unsigned used = 0;
	if (p->ev[leader].hw && alloc_counter(p, &used, p->ev[leader].cntr_mask) < 0)
		return false;
	for (int i = 0; i < MAX_EVENTS; i++) {
		const struct event *e = &p->ev[i];
		if (i != leader && e->open && e->leader == leader && e->hw &&
		    alloc_counter(p, &used, e->cntr_mask) < 0)
			return false;
	}
	return alloc_counter(p, &used, add->cntr_mask) >= 0;
}

long v34k_pmu_perf_event_open(struct v34k_pmu *p, const void *attr_arg, int pid, int cpu,
                              int group_fd, unsigned long flags)
{
	(void)flags;
	struct perf_event_attr a;
	const struct perf_event_attr *in = attr_arg;
	if (in->size < PERF_ATTR_SIZE_VER5 || in->size > sizeof a)
		return -E2BIG;
	memset(&a, 0, sizeof a);
	memcpy(&a, in, in->size);
	if (pid == -1 && cpu < 0)
		return -EINVAL;
	if (cpu >= (int)p->cfg.cpus)
		return -ENODEV;
	if (p->cfg.paranoid >= 3 || (p->cfg.paranoid >= 2 && !a.exclude_kernel) ||
	    (pid == -1 && p->cfg.paranoid >= 1))
		return -EACCES;
	struct event e = { .open = true, .attr = a, .idx = -1 };
	struct map m = { 0, 0, RANGE_T };
	switch (a.type) {
	case PERF_TYPE_SOFTWARE:
		if (a.config >= PERF_COUNT_SW_MAX)
			return -ENOENT;
		break;
	case PERF_TYPE_HARDWARE:
		if (p->cfg.no_pmu)
			return -ENOENT;
		if (a.config >= PERF_COUNT_HW_MAX)
			return -EINVAL;
		m = generic_map[a.config];
		if (!m.mask)
			return -EOPNOTSUPP;
		break;
	case PERF_TYPE_HW_CACHE: {
		if (p->cfg.no_pmu)
			return -ENOENT;
		unsigned c = a.config & 0xff, op = a.config >> 8 & 0xff, r = a.config >> 16 & 0xff;
		if (c >= PERF_COUNT_HW_CACHE_MAX || op >= PERF_COUNT_HW_CACHE_OP_MAX ||
		    r >= PERF_COUNT_HW_CACHE_RESULT_MAX)
			return -EINVAL;
		m = cache_map(c, op, r);
		if (!m.mask)
			return -EOPNOTSUPP;
		break;
	}
	case PERF_TYPE_RAW:
		if (p->cfg.no_pmu)
			return -ENOENT;
		m = raw_map(a.config);
		break;
	default:
		return -ENOENT;
	}
	if (a.type != PERF_TYPE_SOFTWARE && (a.sample_type & PERF_SAMPLE_BRANCH_STACK))
		return -EOPNOTSUPP;
	e.hw = a.type != PERF_TYPE_SOFTWARE;
	e.event_id = m.event;
	e.cntr_mask = m.mask & ((1u << p->counters) - 1);
	e.range = m.range;
	e.mode_bits = (a.exclude_user ? 0 : 0x8u) | (a.exclude_kernel ? 0 : 0x3u) |
	              (a.exclude_hv ? 0 : 0x4u);
	int leader = -1;
	if (group_fd != -1) {
		leader = event_index(p, group_fd);
		if (leader < 0 || p->ev[leader].leader != leader)
			return -EBADF;
		if (p->ev[leader].attr.inherit != a.inherit)
			return -EINVAL;
		if (e.hw && !group_fits(p, leader, &e))
			return -EINVAL;
	} else if (e.hw && !e.cntr_mask) {
		return -EINVAL; /* no counter of this CPU counts it */
	}
	int i = 0;
	while (i < MAX_EVENTS && p->ev[i].open)
		i++;
	if (i == MAX_EVENTS)
		return -EMFILE;
	e.leader = leader >= 0 ? leader : i;
	e.id = 0x3400 + ++p->next_id;
	/* The device sees no execve: a group to enable at the counted
	 * program's exec counts from its open instead. */
	e.enabled = leader < 0 && (!a.disabled || a.enable_on_exec);
	p->ev[i] = e;
	if (p->ev[i].enabled)
		schedule(p, i);
	if (leader >= 0 && p->ev[leader].enabled) {
		/* A sibling joins a group already counting: it goes on the PMU
		 * with the group at its next schedule-in, which is now. */
		unschedule(p, leader);
		schedule(p, leader);
	}
	return FD_BASE + i;
}

bool v34k_pmu_owns(const struct v34k_pmu *p, int fd)
{
	return event_index(p, fd) >= 0;
}

long v34k_pmu_ioctl(struct v34k_pmu *p, int fd, unsigned long request, void *arg)
{
	int i = event_index(p, fd);
	if (i < 0)
		return -EBADF;
	int g = p->ev[i].leader;
	switch (request) {
	case PERF_EVENT_IOC_ID:
		memcpy(arg, &p->ev[i].id, sizeof p->ev[i].id);
		return 0;
	case PERF_EVENT_IOC_ENABLE:
		if (!p->ev[g].enabled) {
			p->ev[g].enabled = true;
			schedule(p, g);
		}
		return 0;
	case PERF_EVENT_IOC_DISABLE:
		unschedule(p, g);
		p->ev[g].enabled = false;
		return 0;
	case PERF_EVENT_IOC_RESET:
		p->ev[i].count = 0;
		return 0;
	default:
		return -ENOTTY;
	}
}

long v34k_pmu_read(struct v34k_pmu *p, int fd, void *buf, unsigned long len)
{
	int i = event_index(p, fd);
	if (i < 0)
		return -EBADF;
	run(p);
	const struct event *e = &p->ev[i], *l = &p->ev[e->leader];
	uint64_t fmt = e->attr.read_format, w[3 + 2 * MAX_EVENTS];
	size_t n = 0;
	if (fmt & PERF_FORMAT_GROUP) {
		if (i != e->leader)
			return -EINVAL; /* the kernel reads a group through its leader */
		size_t members = 0;
		for (int k = 0; k < MAX_EVENTS; k++)
			members += p->ev[k].open && p->ev[k].leader == i;
		w[n++] = members;
		if (fmt & PERF_FORMAT_TOTAL_TIME_ENABLED)
			w[n++] = l->enabled_ns;
		if (fmt & PERF_FORMAT_TOTAL_TIME_RUNNING)
			w[n++] = l->running_ns;
		for (int k = 0; k < MAX_EVENTS; k++) {
			if (!p->ev[k].open || p->ev[k].leader != i)
				continue;
			w[n++] = p->ev[k].count;
			if (fmt & PERF_FORMAT_ID)
				w[n++] = p->ev[k].id;
		}
	} else {
		w[n++] = e->count;
		if (fmt & PERF_FORMAT_TOTAL_TIME_ENABLED)
			w[n++] = l->enabled_ns;
		if (fmt & PERF_FORMAT_TOTAL_TIME_RUNNING)
			w[n++] = l->running_ns;
		if (fmt & PERF_FORMAT_ID)
			w[n++] = e->id;
	}
	/* What the kernel writes is in CPU byte order: nothing to convert. */
	if (len < n * sizeof w[0])
		return -ENOSPC;
	memcpy(buf, w, n * sizeof w[0]);
	return (long)(n * sizeof w[0]);
}

long v34k_pmu_close(struct v34k_pmu *p, int fd)
{
	int i = event_index(p, fd);
	if (i < 0)
		return -EBADF;
	struct event *e = &p->ev[i];
	if (e->leader == i) {
		unschedule(p, i);
		/* Siblings of a closed leader go on as leaders of their own. */
		for (int k = 0; k < MAX_EVENTS; k++)
			if (k != i && p->ev[k].open && p->ev[k].leader == i)
				p->ev[k].leader = k;
	} else if (p->ev[e->leader].scheduled) {
		int g = e->leader;
		unschedule(p, g);
		e->open = false;
		schedule(p, g);
		return 0;
	}
	e->open = false;
	return 0;
}

/* ---- files ------------------------------------------------------------------- */

const char *v34k_pmu_file(struct v34k_pmu *p, const char *path)
{
	if (strcmp(path, "/proc/cpuinfo") == 0)
		return p->cpuinfo;
	if (strcmp(path, "/proc/sys/kernel/perf_event_paranoid") == 0)
		return p->paranoid;
	if (strcmp(path, "/sys/devices/system/cpu/online") == 0)
		return p->online;
	if (strcmp(path, "/sys/bus/event_source/devices/cpu/type") == 0 && !p->cfg.no_pmu)
		return "4\n";
	if (strcmp(path, "/sys/bus/event_source/devices/software/type") == 0)
		return "1\n";
	return NULL;
}

static int ret(long r)
{
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return (int)r;
}

static int sys_open(void *ctx, const char *path, int flags, mode_t mode)
{
	(void)mode;
	struct v34k_pmu *p = ctx;
	const char *text = v34k_pmu_file(p, path);
	if (!text)
		return ret(-ENOENT);
	if ((flags & O_ACCMODE) != O_RDONLY)
		return ret(-EACCES);
	for (int f = 0; f < MAX_FILES; f++)
		if (!p->files[f].used) {
			p->files[f] = (struct file){ true, text, 0 };
			return FILE_FD_BASE + f;
		}
	return ret(-EMFILE);
}

static struct file *file_of(struct v34k_pmu *p, int fd)
{
	int f = fd - FILE_FD_BASE;
	return f >= 0 && f < MAX_FILES && p->files[f].used ? &p->files[f] : NULL;
}

static int sys_close(void *ctx, int fd)
{
	struct file *f = file_of(ctx, fd);
	if (f) {
		f->used = false;
		return 0;
	}
	return ret(v34k_pmu_close(ctx, fd));
}

static ssize_t sys_read(void *ctx, int fd, void *buf, size_t len)
{
	struct file *f = file_of(ctx, fd);
	if (f) {
		size_t left = strlen(f->text) - f->off, n = left < len ? left : len;
		memcpy(buf, f->text + f->off, n);
		f->off += n;
		return (ssize_t)n;
	}
	long r = v34k_pmu_read(ctx, fd, buf, len);
	return r < 0 ? ret(r) : (ssize_t)r;
}

static int sys_ioctl(void *ctx, int fd, unsigned long request, void *arg)
{
	return ret(v34k_pmu_ioctl(ctx, fd, request, arg));
}

static void *sys_mmap(void *ctx, void *addr, size_t len, int prot, int flags, int fd,
                      int64_t off)
{
	(void)ctx, (void)addr, (void)len, (void)prot, (void)flags, (void)fd, (void)off;
	errno = ENODEV; /* no user-space counter reads on MIPS */
	return (void *)-1;
}

static int sys_munmap(void *ctx, void *addr, size_t len)
{
	(void)ctx, (void)addr, (void)len;
	errno = EINVAL;
	return -1;
}

static int sys_poll(void *ctx, struct pollfd *fds, nfds_t nfds, int timeout_ms)
{
	(void)ctx, (void)fds, (void)nfds, (void)timeout_ms;
	return 0;
}

static ssize_t sys_write(void *ctx, int fd, const void *buf, size_t len)
{
	(void)ctx, (void)fd, (void)buf, (void)len;
	errno = EBADF;
	return -1;
}

static int sys_perf_event_open(void *ctx, struct perf_event_attr *attr, pid_t pid, int cpu,
                               int group_fd, unsigned long flags)
{
	return ret(v34k_pmu_perf_event_open(ctx, attr, pid, cpu, group_fd, flags));
}

/* sysfs lists the PMUs; the MIPS one publishes no event aliases. */
static int sys_list_dir(void *ctx, const char *path, void (*fn)(const char *name, void *arg),
                        void *arg)
{
	struct v34k_pmu *p = ctx;
	if (strcmp(path, "/sys/bus/event_source/devices") == 0) {
		if (!p->cfg.no_pmu)
			fn("cpu", arg);
		fn("software", arg);
		return 0;
	}
	errno = ENOENT;
	return -1;
}

struct v34k_pmu *v34k_pmu_new(const struct v34k_pmu_config *config)
{
	struct v34k_pmu *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	p->cfg = config ? *config : (struct v34k_pmu_config){ .cpus = 1, .paranoid = 2 };
	if (p->cfg.cpus == 0)
		p->cfg.cpus = 1;
	if (!p->cfg.cycles_per_read)
		p->cfg.cycles_per_read = 10000000;
	if (!(p->cfg.clock_mhz > 0))
		p->cfg.clock_mhz = 500;
	p->counters = p->cfg.mt_smp && p->cfg.cpus > 1 ? 2 : 4;
	/* Counters another perf user holds count for nobody here. */
	p->used_mask = p->cfg.busy_counters & ((1u << p->counters) - 1);
	struct v34k_config vc = { .bogomips = 0 }; /* no /proc/perf: a mainline kernel */
	p->dev = v34k_new(&vc);
	if (!p->dev) {
		free(p);
		return NULL;
	}
	int n = 0;
	for (unsigned c = 0; c < p->cfg.cpus && n >= 0 && (size_t)n < sizeof p->cpuinfo; c++)
		n += snprintf(p->cpuinfo + n, sizeof p->cpuinfo - (size_t)n,
		              "%sprocessor\t\t: %u\ncpu model\t\t: MIPS 34Kc V5.8\n"
		              "BogoMIPS\t\t: %.2f\nisa\t\t\t: mips1 mips2 mips32r1 mips32r2\n"
		              "ASEs implemented\t: mips16 dsp mt\n",
		              c ? "\n" : "system type\t\t: Lantiq xRX200 (virtual)\nmachine\t\t\t: "
		                         "opengpa v34k-pmu\n",
		              c, p->cfg.clock_mhz);
	snprintf(p->online, sizeof p->online, p->cfg.cpus > 1 ? "0-%u\n" : "0\n", p->cfg.cpus - 1);
	snprintf(p->paranoid, sizeof p->paranoid, "%d\n", p->cfg.paranoid);
	p->sys = (struct og_sys){
		.ctx = p,
		.open = sys_open,
		.close = sys_close,
		.ioctl = sys_ioctl,
		.mmap = sys_mmap,
		.munmap = sys_munmap,
		.poll = sys_poll,
		.read = sys_read,
		.write = sys_write,
		.perf_event_open = sys_perf_event_open,
		.list_dir = sys_list_dir,
	};
	return p;
}

void v34k_pmu_free(struct v34k_pmu *p)
{
	if (!p)
		return;
	v34k_free(p->dev);
	free(p);
}

struct og_sys *v34k_pmu_sys(struct v34k_pmu *p)
{
	return &p->sys;
}

struct v34k *v34k_pmu_device(struct v34k_pmu *p)
{
	return p->dev;
}

unsigned v34k_pmu_open_events(const struct v34k_pmu *p)
{
	unsigned n = 0;
	for (int i = 0; i < MAX_EVENTS; i++)
		n += p->ev[i].open;
	return n;
}

uint32_t v34k_pmu_control(const struct v34k_pmu *p, unsigned c)
{
	return c < 4 ? p->programmed[c] : 0;
}
