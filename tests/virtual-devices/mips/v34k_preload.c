/* SPDX-License-Identifier: MIT */
/*
 * v34k_preload.c — libopengpa-v34k.so: the virtual 34K for any program.
 *
 *   LD_PRELOAD=libopengpa-v34k.so cat /proc/perf
 *   LD_PRELOAD=libopengpa-v34k.so sh -c 'echo "0 0x38 0" > /proc/mips/perf'
 *
 * Both /proc/perf and /proc/mips/perf are served.  Each open of the counter
 * file for reading first runs V34K_CYCLES (default 10000000) cycles of user
 * work on TC 0 of VPE 0, so successive reads show counts moving.  Other
 * settings: V34K_STATE=FILE (keep the registers in FILE so that one process's
 * writes are seen by the next), V34K_EXTENSION=1 (64-bit range extension), V34K_READ_ONLY=1 (not
 * root), V34K_PATHS=perf|mips|both, V34K_BOGOMIPS=N.  A virtual file's
 * descriptor is a real descriptor of /dev/null, so descriptor numbers never
 * clash with the program's own files.  fopen() goes through the same open.
 * fstat() of such a descriptor answers what procfs does, a regular file of
 * size 0, not /dev/null's character device: the mips backend refuses
 * anything but a regular file.  glibc 2.33 and later export fstat and
 * fstat64 (a program built with _FILE_OFFSET_BITS=64 calls fstat64);
 * programs built against older glibc call __fxstat and __fxstat64, which
 * are interposed too.  fstatat(fd, "", AT_EMPTY_PATH) and statx are not.
 *
 * The device is process-wide by nature: an interposer has nowhere else to
 * keep it.  One mutex serialises it.
 *
 * The V34K_* settings are read when a program first opens one of the
 * device's files, not at the first interposed call: a runtime loaded before
 * this library (AddressSanitizer's) makes such calls while it starts, before
 * the C library has set up the environment (docs/testing.md).
 *
 * open, openat, their large-file and _FORTIFY_SOURCE forms and close are
 * the shared interposer core's (preload_core.c), asking the hooks below;
 * v34k_preload.map lists what the library exports (the core's ioctl and
 * __openat64_2 stay hidden: this library never interposed them).  read,
 * write, the dups, fcntl and the fstats are this file's.
 */

/* fstat64 and friends are interposed by name below: glibc must not rename
 * fstat to fstat64 (meson builds with -D_FILE_OFFSET_BITS=64). */
#undef _FILE_OFFSET_BITS

#include "v34k.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "preload_core.h"

#define MAX_FD 4096

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct v34k *device;
static int handle_of[MAX_FD]; /* handle + 1 per real fd; 0 = not ours */
static int refs[64];          /* descriptors per handle: shells dup2 and close */
static uint64_t cycles_per_read = 10000000;

static ssize_t (*real_read)(int, void *, size_t);
static ssize_t (*real_write)(int, const void *, size_t);
static int (*real_dup)(int);
static int (*real_dup2)(int, int);
static int (*real_dup3)(int, int, int);
static int (*real_fcntl)(int, int, ...);
static int (*real_fstat)(int, struct stat *);
static int (*real_fstat64)(int, struct stat64 *);
static int (*real_fxstat)(int, int, struct stat *);
static int (*real_fxstat64)(int, int, struct stat64 *);

static void load_state(void)
{
	const char *path = getenv("V34K_STATE");
	if (!path)
		return;
	const struct preload_next *next = preload_next();
	int fd = next->open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	char buf[512];
	ssize_t n = real_read(fd, buf, sizeof buf - 1);
	next->close(fd);
	if (n > 0) {
		buf[n] = '\0';
		v34k_state_parse(device, buf);
	}
}

/* Under the lock. */
static void save_state(void)
{
	const char *path = getenv("V34K_STATE");
	if (!path || !device)
		return;
	char buf[512];
	int n = v34k_state_format(device, buf, sizeof buf);
	const struct preload_next *next = preload_next();
	int fd = next->open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	if (n > 0 && real_write(fd, buf, (size_t)n) != n)
		n = -1; /* best effort: the next process starts from zero */
	next->close(fd);
}

static bool env_flag(const char *name)
{
	const char *v = getenv(name);
	return v && *v && strcmp(v, "0") != 0;
}

/* Under the lock: the next definition of every call this file interposes
 * (the core's are preload_next()'s). */
static void resolve_real(void)
{
	if (real_read)
		return;
	real_read = (ssize_t(*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
	real_write = (ssize_t(*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	real_dup = (int (*)(int))dlsym(RTLD_NEXT, "dup");
	real_dup2 = (int (*)(int, int))dlsym(RTLD_NEXT, "dup2");
	real_dup3 = (int (*)(int, int, int))dlsym(RTLD_NEXT, "dup3");
	real_fcntl = (int (*)(int, int, ...))dlsym(RTLD_NEXT, "fcntl");
	/* Any of these may be missing (the __fxstat pair on ports newer than
	 * glibc 2.33, fstat before it): the wrappers then fail with ENOSYS. */
	real_fstat = (int (*)(int, struct stat *))dlsym(RTLD_NEXT, "fstat");
	real_fstat64 = (int (*)(int, struct stat64 *))dlsym(RTLD_NEXT, "fstat64");
	real_fxstat = (int (*)(int, int, struct stat *))dlsym(RTLD_NEXT, "__fxstat");
	real_fxstat64 = (int (*)(int, int, struct stat64 *))dlsym(RTLD_NEXT, "__fxstat64");
}

static bool is_device_path(const char *path)
{
	return path && (strcmp(path, "/proc/perf") == 0 || strcmp(path, "/proc/mips/perf") == 0 ||
	                strcmp(path, "/proc/cpuinfo") == 0);
}

/* Under the lock: the device, from the environment, on the first open of one
 * of its files. */
static void setup(void)
{
	static bool configured;
	resolve_real();
	if (configured)
		return;
	configured = true;
	struct v34k_config cfg = {
		.extension = env_flag("V34K_EXTENSION"),
		.read_only = env_flag("V34K_READ_ONLY"),
		.proc_perf = true,
		.proc_mips_perf = true,
		.bogomips = 500,
	};
	const char *paths = getenv("V34K_PATHS");
	if (paths && strcmp(paths, "perf") == 0)
		cfg.proc_mips_perf = false;
	if (paths && strcmp(paths, "mips") == 0)
		cfg.proc_perf = false;
	const char *b = getenv("V34K_BOGOMIPS");
	if (b)
		cfg.bogomips = strtod(b, NULL);
	const char *c = getenv("V34K_CYCLES");
	if (c)
		cycles_per_read = strtoull(c, NULL, 10);
	device = v34k_new(&cfg);
	if (device)
		load_state();
}

static void ensure_real(void)
{
	pthread_mutex_lock(&lock);
	resolve_real();
	pthread_mutex_unlock(&lock);
}

static int handle_for(int fd)
{
	return fd >= 0 && fd < MAX_FD ? handle_of[fd] - 1 : -1;
}

/* Under the lock: fd no longer refers to its virtual file. */
static void forget(int fd)
{
	int h = handle_for(fd);
	if (h < 0)
		return;
	handle_of[fd] = 0;
	if (--refs[h] == 0)
		v34k_close_handle(device, h);
}

/* ---- the interposer core's hooks (preload_core.h) ----------------------- */

bool preload_owns_path(const char *path)
{
	if (!is_device_path(path))
		return false;
	pthread_mutex_lock(&lock);
	setup();
	bool ours = device && v34k_file_kind(device, path) != 0;
	pthread_mutex_unlock(&lock);
	return ours;
}

bool preload_owns_fd(int fd)
{
	return handle_for(fd) >= 0;
}

/* A real descriptor of /dev/null standing for the virtual file, or -1 with
 * errno.  Reading the counter file first runs the workload. */
static int sys_open(void *ctx, const char *path, int flags, mode_t mode)
{
	(void)ctx;
	(void)mode;
	pthread_mutex_lock(&lock);
	if ((flags & O_ACCMODE) == O_RDONLY && strcmp(path, "/proc/cpuinfo") != 0) {
		v34k_run(device, cycles_per_read, V34K_USER, 0, 0);
		save_state();
	}
	int h = v34k_open_handle(device, path, flags);
	int fd = -1, err = 0;
	if (h < 0) {
		err = -h;
	} else {
		const struct preload_next *next = preload_next();
		fd = next->open("/dev/null", O_RDWR | (flags & O_CLOEXEC));
		if (fd < 0 || fd >= MAX_FD) {
			err = fd < 0 ? errno : EMFILE;
			if (fd >= 0)
				next->close(fd);
			v34k_close_handle(device, h);
			fd = -1;
		} else {
			handle_of[fd] = h + 1;
			refs[h] = 1;
		}
	}
	pthread_mutex_unlock(&lock);
	if (fd < 0)
		errno = err;
	return fd;
}

static int sys_close(void *ctx, int fd)
{
	(void)ctx;
	pthread_mutex_lock(&lock);
	forget(fd);
	pthread_mutex_unlock(&lock);
	return preload_next()->close(fd);
}

/* /proc/perf answers no ioctl: what /dev/null answers. */
static int sys_ioctl(void *ctx, int fd, unsigned long req, void *arg)
{
	(void)ctx;
	return preload_next()->ioctl(fd, req, arg);
}

const struct og_sys *preload_sys(void)
{
	static const struct og_sys sys = {
		.open = sys_open,
		.close = sys_close,
		.ioctl = sys_ioctl,
	};
	return &sys;
}

__attribute__((visibility("default"))) ssize_t read(int fd, void *buf, size_t len)
{
	int h = handle_for(fd);
	if (h < 0) {
		ensure_real();
		return real_read(fd, buf, len);
	}
	pthread_mutex_lock(&lock);
	long r = v34k_read_handle(device, h, buf, len);
	pthread_mutex_unlock(&lock);
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return (ssize_t)r;
}

__attribute__((visibility("default"))) ssize_t write(int fd, const void *buf, size_t len)
{
	int h = handle_for(fd);
	if (h < 0) {
		ensure_real();
		return real_write(fd, buf, len);
	}
	pthread_mutex_lock(&lock);
	long r = v34k_write_handle(device, h, buf, len);
	save_state();
	pthread_mutex_unlock(&lock);
	if (r < 0) {
		errno = (int)-r;
		return -1;
	}
	return (ssize_t)r;
}

/* The descriptor `to` now refers to what `from` does. */
static int track_dup(int from, int to)
{
	if (to < 0)
		return to;
	pthread_mutex_lock(&lock);
	if (to < MAX_FD && handle_of[to])
		forget(to);
	int h = handle_for(from);
	if (h >= 0 && to < MAX_FD) {
		handle_of[to] = h + 1;
		refs[h]++;
	}
	pthread_mutex_unlock(&lock);
	return to;
}

__attribute__((visibility("default"))) int dup(int fd)
{
	ensure_real();
	return track_dup(fd, real_dup(fd));
}

__attribute__((visibility("default"))) int dup2(int fd, int to)
{
	ensure_real();
	if (fd == to)
		return real_dup2(fd, to);
	return track_dup(fd, real_dup2(fd, to));
}

__attribute__((visibility("default"))) int dup3(int fd, int to, int flags)
{
	ensure_real();
	return track_dup(fd, real_dup3(fd, to, flags));
}

/* The st_mode a virtual file's descriptor reports, or 0 for other
 * descriptors. */
static unsigned virtual_mode(int fd)
{
	int h = handle_for(fd);
	if (h < 0)
		return 0;
	pthread_mutex_lock(&lock);
	unsigned mode = device ? v34k_handle_mode(device, h) : 0;
	pthread_mutex_unlock(&lock);
	return mode;
}

/* The four fstat entries alike: `real` (ENOSYS when this C library lacks
 * it) called with the arguments after it, then what it said about /dev/null
 * rewritten into what procfs says about a virtual file: a regular file of
 * size 0.  A macro: the entries' struct types differ (stat, stat64). */
#define FSTAT_AS_PROCFS(real, fd, st, ...)                 \
	do {                                               \
		ensure_real();                             \
		if (!(real)) {                             \
			errno = ENOSYS;                    \
			return -1;                         \
		}                                          \
		int r_ = (real)(__VA_ARGS__);              \
		unsigned mode_ = r_ == 0 ? virtual_mode(fd) : 0; \
		if (mode_) {                               \
			(st)->st_mode = mode_;             \
			(st)->st_size = 0;                 \
			(st)->st_blocks = 0;               \
			(st)->st_rdev = 0;                 \
		}                                          \
		return r_;                                 \
	} while (0)

__attribute__((visibility("default"))) int fstat(int fd, struct stat *st)
{
	FSTAT_AS_PROCFS(real_fstat, fd, st, fd, st);
}

__attribute__((visibility("default"))) int fstat64(int fd, struct stat64 *st)
{
	FSTAT_AS_PROCFS(real_fstat64, fd, st, fd, st);
}

/* glibc before 2.33 declared these in <sys/stat.h>; 2.33 and later keep
 * them only for programs built against the older headers. */
int __fxstat(int ver, int fd, struct stat *st);
int __fxstat64(int ver, int fd, struct stat64 *st);

__attribute__((visibility("default"))) int __fxstat(int ver, int fd, struct stat *st)
{
	FSTAT_AS_PROCFS(real_fxstat, fd, st, ver, fd, st);
}

__attribute__((visibility("default"))) int __fxstat64(int ver, int fd, struct stat64 *st)
{
	FSTAT_AS_PROCFS(real_fxstat64, fd, st, ver, fd, st);
}

__attribute__((visibility("default"))) int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	va_start(ap, cmd);
	long arg = va_arg(ap, long); /* every fcntl argument fits a long or a pointer */
	va_end(ap);
	ensure_real();
	int r = real_fcntl(fd, cmd, arg);
	if (cmd == F_DUPFD || cmd == F_DUPFD_CLOEXEC)
		return track_dup(fd, r);
	return r;
}
