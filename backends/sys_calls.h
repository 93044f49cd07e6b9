/* SPDX-License-Identifier: MIT */
/*
 * sys_calls.h — what the device-node backends (adreno, mali's kbase,
 * panfrost) do alike with the og_sys table (sys.h): an ioctl or a poll
 * tried again when a signal or a busy driver interrupted it, the errno
 * values by which a device node says it went away, and a descriptor closed
 * once.  The og_sys layer, below the backends (docs/architecture.md): it
 * knows nothing of a backend and logs nothing; each backend keeps its own
 * messages.  Static inline, so a backend's tests, which build its sources
 * into their own binaries, need no other file.
 */
#ifndef OPENGPA_BACKENDS_SYS_CALLS_H
#define OPENGPA_BACKENDS_SYS_CALLS_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>

#include "sys.h"

/* How many times a call interrupted by signals is tried before giving up
 * (the messages that say so print it). */
#define OG_SYS_RETRIES 64

/* Opens a device node for ioctls: read-write, closed on exec (a child the
 * program starts must not keep the GPU's counters).  -1 and errno. */
static inline int og_sys_open_node(const struct og_sys *sys, const char *path)
{
	return sys->open(sys->ctx, path, O_RDWR | O_CLOEXEC, 0);
}

/* Whether an open's errno says the user may not use the node (its mode,
 * its group, SELinux), the one failure whose fix is the user's. */
static inline bool og_sys_errno_denied(int e)
{
	return e == EACCES || e == EPERM;
}

/* sys->ioctl, tried again while it fails with EINTR, and with EAGAIN too
 * when `busy_too` (drivers that answer "busy, try again"), at most
 * OG_SYS_RETRIES times.  The libc contract: -1 and errno on failure. */
static inline int og_sys_ioctl_retry(const struct og_sys *sys, int fd, unsigned long req,
                                     void *arg, bool busy_too)
{
	int r, tries = 0;
	do
		r = sys->ioctl(sys->ctx, fd, req, arg);
	while (r < 0 && (errno == EINTR || (busy_too && errno == EAGAIN)) &&
	       ++tries < OG_SYS_RETRIES);
	return r;
}

/* sys->poll, tried again while it fails with EINTR, at most OG_SYS_RETRIES
 * times; -1 with errno EINTR when signals kept interrupting it. */
static inline int og_sys_poll_retry(const struct og_sys *sys, struct pollfd *fds, nfds_t n,
                                    int timeout_ms)
{
	int r, tries = 0;
	do
		r = sys->poll(sys->ctx, fds, n, timeout_ms);
	while (r < 0 && errno == EINTR && ++tries < OG_SYS_RETRIES);
	return r;
}

/* Whether a device node's errno says the device went away (GPU reset,
 * driver unloaded, node removed), not that this call was wrong. */
static inline bool og_sys_errno_gone(int e)
{
	return e == ENODEV || e == ENXIO || e == EIO || e == ESHUTDOWN || e == EBADF;
}

/* Closes *fd when it is open and marks it closed (-1): every path that may
 * run twice, or before the open, can call it. */
static inline void og_sys_close_fd(const struct og_sys *sys, int *fd)
{
	if (*fd >= 0)
		sys->close(sys->ctx, *fd);
	*fd = -1;
}

#endif
