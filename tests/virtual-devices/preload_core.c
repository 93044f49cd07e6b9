/* SPDX-License-Identifier: MIT */
/*
 * preload_core.c — the descriptor calls the virtual devices' preload
 * libraries interpose alike (preload_core.h).  Each library links its own
 * copy: the next definitions below are that library's, as its device is.
 */
/* The interposer defines both open and open64: the headers must not rename
 * one into the other (meson builds with _FILE_OFFSET_BITS=64). */
#undef _FILE_OFFSET_BITS
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "preload_core.h"

static pthread_once_t next_once = PTHREAD_ONCE_INIT;
static struct preload_next next;

static void resolve(void)
{
	next.open = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
	next.openat = (int (*)(int, const char *, int, ...))dlsym(RTLD_NEXT, "openat");
	next.close = (int (*)(int))dlsym(RTLD_NEXT, "close");
	next.ioctl = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
}

const struct preload_next *preload_next(void)
{
	pthread_once(&next_once, resolve);
	return &next;
}

unsigned long long preload_env(const char *device, const char *name, unsigned long long def,
                               bool *bad)
{
	const char *s = getenv(name);
	if (!s || !*s)
		return def;
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || *end) {
		fprintf(stderr, "%s: %s=%s is not a number; fix the variable\n", device, name, s);
		*bad = true;
	}
	return v;
}

/* open's third argument: there only with O_CREAT or O_TMPFILE. */
#define MODE_ARG(flags, mode)                                                   \
	do {                                                                    \
		if (((flags) & O_CREAT) || ((flags) & O_TMPFILE) == O_TMPFILE) { \
			va_list ap;                                             \
			va_start(ap, flags);                                    \
			(mode) = va_arg(ap, mode_t);                            \
			va_end(ap);                                             \
		}                                                               \
	} while (0)

PRELOAD_EXPORT int open(const char *path, int flags, ...)
{
	mode_t mode = 0;
	MODE_ARG(flags, mode);
	if (preload_owns_path(path)) {
		const struct og_sys *sys = preload_sys();
		return sys->open(sys->ctx, path, flags, mode);
	}
	return preload_next()->open(path, flags, mode);
}

PRELOAD_EXPORT int open64(const char *path, int flags, ...)
{
	mode_t mode = 0;
	MODE_ARG(flags, mode);
	return open(path, flags | O_LARGEFILE, mode);
}

PRELOAD_EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;
	MODE_ARG(flags, mode);
	if (path[0] == '/' && preload_owns_path(path)) {
		const struct og_sys *sys = preload_sys();
		return sys->open(sys->ctx, path, flags, mode);
	}
	return preload_next()->openat(dirfd, path, flags, mode);
}

PRELOAD_EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
	mode_t mode = 0;
	MODE_ARG(flags, mode);
	return openat(dirfd, path, flags | O_LARGEFILE, mode);
}

/* _FORTIFY_SOURCE entry points glibc's headers route open() through. */
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);
PRELOAD_EXPORT int __open_2(const char *path, int flags)
{
	return open(path, flags);
}
PRELOAD_EXPORT int __open64_2(const char *path, int flags)
{
	return open(path, flags | O_LARGEFILE);
}
PRELOAD_EXPORT int __openat_2(int dirfd, const char *path, int flags)
{
	return openat(dirfd, path, flags);
}
PRELOAD_EXPORT int __openat64_2(int dirfd, const char *path, int flags)
{
	return openat(dirfd, path, flags | O_LARGEFILE);
}

PRELOAD_EXPORT int close(int fd)
{
	if (preload_owns_fd(fd)) {
		const struct og_sys *sys = preload_sys();
		return sys->close(sys->ctx, fd);
	}
	return preload_next()->close(fd);
}

PRELOAD_EXPORT int ioctl(int fd, unsigned long req, ...)
{
	va_list ap;
	va_start(ap, req);
	void *arg = va_arg(ap, void *);
	va_end(ap);
	if (preload_owns_fd(fd)) {
		const struct og_sys *sys = preload_sys();
		return sys->ioctl(sys->ctx, fd, req, arg);
	}
	return preload_next()->ioctl(fd, req, arg);
}
