/* SPDX-License-Identifier: MIT */
/*
 * perf_text.c — small reads and names every perf file shares: a sysfs or
 * /proc text file through the syscall table, perf_event_paranoid, errno
 * names.  Needs nothing else of the backend, so the command's SPE reader
 * (tools/opengpa/spe/spe.c) builds it too.
 */
#include "perf_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#define PARANOID_PATH "/proc/sys/kernel/perf_event_paranoid"

const char *og_perf_errno_name(int err, char *buf, size_t len)
{
	/* Our own table: strerror is not thread-safe and the errno names are
	 * what the perf_event_open(2) man page documents. */
	switch (err) {
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case ENODEV: return "ENODEV";
	case EINVAL: return "EINVAL";
	case EMFILE: return "EMFILE";
	case ENFILE: return "ENFILE";
	case ESRCH: return "ESRCH";
	case EBUSY: return "EBUSY";
	case ENOSPC: return "ENOSPC";
	case E2BIG: return "E2BIG";
	case ENOSYS: return "ENOSYS";
	case EBADF: return "EBADF";
	case EINTR: return "EINTR";
	case ENOMEM: return "ENOMEM";
	case EFAULT: return "EFAULT";
	default:
		snprintf(buf, len, "errno %d", err);
		return buf;
	}
}

ssize_t og_perf_read_text(const struct og_backend_host *host, const char *path, char *buf,
                          size_t len)
{
	const struct og_sys *sys = host->sys;
	if (len == 0) {
		errno = EINVAL;
		return -1;
	}
	int fd = sys->open(sys->ctx, path, O_RDONLY, 0);
	if (fd < 0)
		return -1;
	size_t have = 0;
	while (have + 1 < len) {
		ssize_t r = sys->read(sys->ctx, fd, buf + have, len - 1 - have);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			int saved = errno;
			sys->close(sys->ctx, fd);
			errno = saved;
			return -1;
		}
		/* A read that claims more than was asked is a lying kernel (or
		 * table): stop rather than run past buf. */
		if (r == 0 || (size_t)r > len - 1 - have)
			break;
		have += (size_t)r;
	}
	sys->close(sys->ctx, fd);
	buf[have] = '\0';
	return (ssize_t)have;
}

int og_perf_read_paranoid(const struct og_backend_host *host)
{
	char text[32];
	if (og_perf_read_text(host, PARANOID_PATH, text, sizeof text) <= 0)
		return INT32_MIN;
	char *end;
	errno = 0;
	long v = strtol(text, &end, 10);
	if (end == text || errno || v < INT32_MIN + 1 || v > INT32_MAX ||
	    (*end && *end != '\n' && *end != ' '))
		return INT32_MIN;
	return (int)v;
}

int og_perf_list_dir(const struct og_backend_host *host, const char *path,
                    void (*fn)(const char *name, void *arg), void *arg)
{
	const struct og_sys *sys = host->sys;
	if (!sys->list_dir) {
		errno = ENOSYS;
		return -1;
	}
	return sys->list_dir(sys->ctx, path, fn, arg);
}
