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
 */
#undef _FILE_OFFSET_BITS /* open and open64 are interposed by name */

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
	int (*open)(const char *, int, ...);
	int (*openat)(int, const char *, int, ...);
	ssize_t (*read)(int, void *, size_t);
	int (*ioctl)(int, unsigned long, ...);
	int (*close)(int);
	long (*syscall)(long, ...);
	DIR *(*opendir)(const char *);
} g = { .lock = PTHREAD_MUTEX_INITIALIZER, .once = PTHREAD_ONCE_INIT };

static unsigned long env_num(const char *name, unsigned long def)
{
	const char *v = getenv(name);
	return v && *v ? strtoul(v, NULL, 0) : def;
}

static void init(void)
{
	g.open = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
	g.openat = (int (*)(int, const char *, int, ...))dlsym(RTLD_NEXT, "openat");
	g.read = (ssize_t(*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
	g.ioctl = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
	g.close = (int (*)(int))dlsym(RTLD_NEXT, "close");
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
	int fd = g.open("/dev/null", O_RDWR | O_CLOEXEC);
	if (fd >= MAX_FD) {
		g.close(fd);
		errno = EMFILE;
		return -1;
	}
	return fd;
}

static int open_file(const char *path, int flags)
{
	setup();
	if (!g.pmu || !path)
		return -2;
	const char *text = v34k_pmu_file(g.pmu, path);
	if (!text)
		return -2;
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

static mode_t mode_arg(int flags, va_list ap)
{
	return (flags & (O_CREAT | O_TMPFILE)) ? (mode_t)va_arg(ap, int) : 0;
}

EXPORT int open(const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	mode_t mode = mode_arg(flags, ap);
	va_end(ap);
	int fd = open_file(path, flags);
	return fd != -2 ? fd : g.open(path, flags, mode);
}

/* The same calls under their large-file names. */
EXPORT int open64(const char *path, int flags, ...) __attribute__((alias("open")));

EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
	va_list ap;
	va_start(ap, flags);
	mode_t mode = mode_arg(flags, ap);
	va_end(ap);
	int fd = path[0] == '/' ? open_file(path, flags) : (setup(), -2);
	return fd != -2 ? fd : g.openat(dirfd, path, flags, mode);
}

EXPORT int openat64(int dirfd, const char *path, int flags, ...) __attribute__((alias("openat")));

int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);

EXPORT int __open_2(const char *path, int flags)
{
	return open(path, flags);
}

EXPORT int __open64_2(const char *path, int flags)
{
	return open(path, flags);
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

EXPORT int ioctl(int fd, unsigned long request, ...)
{
	va_list ap;
	va_start(ap, request);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	setup();
	if (!ours(fd) || g.kind[fd] != EVENT)
		return g.ioctl(fd, request, arg);
	pthread_mutex_lock(&g.lock);
	long r = v34k_pmu_ioctl(g.pmu, g.dev_fd[fd], request, arg);
	pthread_mutex_unlock(&g.lock);
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return (int)r;
}

EXPORT int close(int fd)
{
	setup();
	if (ours(fd)) {
		pthread_mutex_lock(&g.lock);
		if (g.kind[fd] == EVENT)
			v34k_pmu_close(g.pmu, g.dev_fd[fd]);
		g.kind[fd] = NONE;
		pthread_mutex_unlock(&g.lock);
	}
	return g.close(fd);
}
