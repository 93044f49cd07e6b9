/* SPDX-License-Identifier: MIT */
/*
 * v34k_pmu_preload.c — libopengpa-v34k-pmu.so: a MIPS 34K under a mainline
 * kernel, for any program (v34k_pmu.h): perf_event_open through syscall(2),
 * the event descriptors' read, ioctl and close, and the files a perf client
 * reads (/proc/cpuinfo, kernel.perf_event_paranoid, the online CPUs, the
 * PMUs' sysfs types).  There is no /proc/perf, as on a mainline kernel.
 *
 *   LD_PRELOAD=libopengpa-v34k-pmu.so opengpa stat -- true
 *
 * Settings: V34K_PMU_CPUS=1|2, V34K_PMU_MT_SMP=1 (two counters per CPU),
 * V34K_PMU_CPU=N (the CPU the task runs on), V34K_PMU_BUSY=MASK (counters
 * other programs hold), V34K_PMU_PARANOID=N (default 2), V34K_PMU_NO_PMU=1,
 * V34K_CYCLES=N (work per read of a group, default 10^7).  Every descriptor
 * it hands out is a real descriptor of /dev/null, so numbers never clash.
 * The sysfs PMU directory lists nothing: the host's PMUs must not show
 * through (the MIPS PMU publishes no event aliases anyway).
 *
 * The device is process-wide by nature; one mutex serialises it.
 *
 * open, openat, their large-file and _FORTIFY_SOURCE forms, close and ioctl
 * are the shared interposer core's (preload_core.c), asking the hooks
 * below; v34k_pmu_preload.map lists what the library exports (the core's
 * __openat_2 and __openat64_2 stay hidden: this library never interposed
 * them).  syscall, read and opendir are this file's.
 */
#undef _FILE_OFFSET_BITS /* the core interposes open and open64 by name */

#include "v34k_pmu.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include "preload_core.h"

#define EXPORT __attribute__((visibility("default")))
#define MAX_FD 4096

enum kind { NONE, EVENT, FILE_TEXT };

static struct {
	pthread_mutex_t lock;
	pthread_once_t once;
	struct v34k_pmu *pmu;
	unsigned char kind[MAX_FD];
	int dev_fd[MAX_FD];       /* EVENT: the device's descriptor */
	const char *text[MAX_FD]; /* FILE_TEXT */
	size_t off[MAX_FD];
	ssize_t (*read)(int, void *, size_t);
	long (*syscall)(long, ...);
	DIR *(*opendir)(const char *);
	struct og_sys sys; /* the device's calls the interposer core makes */
} g = { .lock = PTHREAD_MUTEX_INITIALIZER, .once = PTHREAD_ONCE_INIT };

static int sys_open(void *ctx, const char *path, int flags, mode_t mode);
static int sys_close(void *ctx, int fd);
static int sys_ioctl(void *ctx, int fd, unsigned long request, void *arg);

static unsigned long env_num(const char *name, unsigned long def)
{
	const char *v = getenv(name);
	return v && *v ? strtoul(v, NULL, 0) : def;
}

static void init(void)
{
	g.read = (ssize_t(*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
	g.syscall = (long (*)(long, ...))dlsym(RTLD_NEXT, "syscall");
	g.opendir = (DIR * (*)(const char *)) dlsym(RTLD_NEXT, "opendir");
	struct v34k_pmu_config c = {
		.cpus = (unsigned)env_num("V34K_PMU_CPUS", 1),
		.mt_smp = env_num("V34K_PMU_MT_SMP", 0) != 0,
		.cpu = (unsigned)env_num("V34K_PMU_CPU", 0),
		.busy_counters = (unsigned)env_num("V34K_PMU_BUSY", 0),
		.paranoid = (int)env_num("V34K_PMU_PARANOID", 2),
		.no_pmu = env_num("V34K_PMU_NO_PMU", 0) != 0,
		.cycles_per_read = env_num("V34K_CYCLES", 10000000),
	};
	g.pmu = v34k_pmu_new(&c);
	g.sys = (struct og_sys){ .open = sys_open, .close = sys_close, .ioctl = sys_ioctl };
}

static void setup(void)
{
	pthread_once(&g.once, init);
}

static bool ours(int fd)
{
	return fd >= 0 && fd < MAX_FD && g.kind[fd] != NONE;
}

/* A real descriptor standing for a virtual object, or -1 with errno. */
static int placeholder(void)
{
	const struct preload_next *next = preload_next();
	int fd = next->open("/dev/null", O_RDWR | O_CLOEXEC);
	if (fd >= MAX_FD) {
		next->close(fd);
		errno = EMFILE;
		return -1;
	}
	return fd;
}

bool preload_owns_path(const char *path)
{
	setup();
	return g.pmu && path && v34k_pmu_file(g.pmu, path);
}

bool preload_owns_fd(int fd)
{
	return ours(fd);
}

/* One of the files a perf client reads, read-only. */
static int sys_open(void *ctx, const char *path, int flags, mode_t mode)
{
	(void)ctx;
	(void)mode;
	const char *text = v34k_pmu_file(g.pmu, path);
	if ((flags & O_ACCMODE) != O_RDONLY) {
		errno = EACCES;
		return -1;
	}
	pthread_mutex_lock(&g.lock);
	int fd = placeholder();
	if (fd >= 0) {
		g.kind[fd] = FILE_TEXT;
		g.text[fd] = text;
		g.off[fd] = 0;
	}
	pthread_mutex_unlock(&g.lock);
	return fd;
}

EXPORT DIR *opendir(const char *path)
{
	setup();
	if (strncmp(path, "/sys/bus/event_source/devices", 29) == 0) {
		errno = ENOENT;
		return NULL;
	}
	return g.opendir(path);
}

static long perf_event_open(const void *attr, int pid, int cpu, int group_fd,
                            unsigned long flags)
{
	pthread_mutex_lock(&g.lock);
	long r;
	int group = -1;
	if (group_fd != -1 && !(ours(group_fd) && g.kind[group_fd] == EVENT))
		r = -EBADF;
	else {
		if (group_fd != -1)
			group = g.dev_fd[group_fd];
		r = v34k_pmu_perf_event_open(g.pmu, attr, pid, cpu, group, flags);
	}
	int fd = -1;
	if (r >= 0) {
		fd = placeholder();
		if (fd < 0) {
			v34k_pmu_close(g.pmu, (int)r);
			r = -errno;
		} else {
			g.kind[fd] = EVENT;
			g.dev_fd[fd] = (int)r;
		}
	}
	pthread_mutex_unlock(&g.lock);
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return fd;
}

EXPORT long syscall(long number, ...)
{
	va_list ap;
	va_start(ap, number);
	long a[6];
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);
	setup();
	if (number == SYS_perf_event_open && g.pmu)
		return perf_event_open((const void *)a[0], (int)a[1], (int)a[2], (int)a[3],
		                       (unsigned long)a[4]);
	return g.syscall(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}

EXPORT ssize_t read(int fd, void *buf, size_t len)
{
	setup();
	if (!ours(fd))
		return g.read(fd, buf, len);
	pthread_mutex_lock(&g.lock);
	long r;
	if (g.kind[fd] == EVENT) {
		r = v34k_pmu_read(g.pmu, g.dev_fd[fd], buf, len);
	} else {
		size_t left = strlen(g.text[fd]) - g.off[fd], n = left < len ? left : len;
		memcpy(buf, g.text[fd] + g.off[fd], n);
		g.off[fd] += n;
		r = (long)n;
	}
	pthread_mutex_unlock(&g.lock);
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return (ssize_t)r;
}

/* An event descriptor's ioctls go to the device; a file's, to /dev/null. */
static int sys_ioctl(void *ctx, int fd, unsigned long request, void *arg)
{
	(void)ctx;
	if (g.kind[fd] != EVENT)
		return preload_next()->ioctl(fd, request, arg);
	pthread_mutex_lock(&g.lock);
	long r = v34k_pmu_ioctl(g.pmu, g.dev_fd[fd], request, arg);
	pthread_mutex_unlock(&g.lock);
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return (int)r;
}

static int sys_close(void *ctx, int fd)
{
	(void)ctx;
	pthread_mutex_lock(&g.lock);
	if (g.kind[fd] == EVENT)
		v34k_pmu_close(g.pmu, g.dev_fd[fd]);
	g.kind[fd] = NONE;
	pthread_mutex_unlock(&g.lock);
	return preload_next()->close(fd);
}

/* Asked only after preload_owns_path or preload_owns_fd, which set the
 * device up. */
const struct og_sys *preload_sys(void)
{
	return &g.sys;
}
