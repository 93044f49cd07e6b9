/* sys_real.c — the og_sys table that goes straight to the kernel. */
#include "sys.h"

#include <fcntl.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
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

static void *real_mmap(void *ctx, void *addr, size_t len, int prot, int flags, int fd, off_t off)
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

static int real_perf_event_open(void *ctx, struct perf_event_attr *attr, pid_t pid, int cpu,
                                int group_fd, unsigned long flags)
{
	(void)ctx;
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group_fd,
	                    flags | PERF_FLAG_FD_CLOEXEC);
}

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
};

const struct og_sys *og_sys_real(void)
{
	return &real_table;
}
