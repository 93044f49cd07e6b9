/* SPDX-License-Identifier: MIT */
/*
 * sys.h — the small syscall table every backend talks to the kernel through.
 *
 * Backends never call open(2), ioctl(2), mmap(2)... directly: they call
 * host->sys->ioctl(host->sys->ctx, ...).  The library passes og_sys_real();
 * the tests pass a virtual device (tests/virtual-devices/) that answers the
 * same ioctl numbers with the same struct layouts, or a fault injector that
 * wraps another table.  Every function has the libc contract: -1 and errno
 * on failure (mmap: MAP_FAILED and errno), except the optional CPU reads
 * at the end.
 */
#ifndef OPENGPA_BACKENDS_SYS_H
#define OPENGPA_BACKENDS_SYS_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct perf_event_attr;

struct og_sys {
	void *ctx; /* first argument of every call; NULL for the real kernel */
	int (*open)(void *ctx, const char *path, int flags, mode_t mode);
	int (*close)(void *ctx, int fd);
	int (*ioctl)(void *ctx, int fd, unsigned long request, void *arg);
	/* offset is 64 bits on every target: the same type as off_t in the
	 * library (built with _FILE_OFFSET_BITS=64), and still 64 bits in an
	 * LD_PRELOAD interposer that must leave the macro unset to define mmap
	 * and mmap64 by name. */
	void *(*mmap)(void *ctx, void *addr, size_t len, int prot, int flags, int fd,
	              int64_t offset);
	int (*munmap)(void *ctx, void *addr, size_t len);
	int (*poll)(void *ctx, struct pollfd *fds, nfds_t nfds, int timeout_ms);
	ssize_t (*read)(void *ctx, int fd, void *buf, size_t len);
	ssize_t (*write)(void *ctx, int fd, const void *buf, size_t len);
	int (*perf_event_open)(void *ctx, struct perf_event_attr *attr, pid_t pid, int cpu,
	                       int group_fd, unsigned long flags);
	/* Optional (NULL: no directories, -1 with ENOSYS for the caller):
	 * calls fn for each entry of directory `path` except "." and "..";
	 * 0, or -1 with errno when the directory cannot be read.  Used for
	 * sysfs PMU lists and /proc/PID/task. */
	int (*list_dir)(void *ctx, const char *path, void (*fn)(const char *name, void *arg),
	                void *arg);

	/* Optional CPU reads for perf's user-space counter path (NULL: this
	 * architecture has none).  Not system calls: they fault unless the
	 * kernel granted user access, so only call read_pmc for an index a
	 * perf_event_mmap_page offers with cap_user_rdpmc set. */

	/* Hardware counter `index` - 1, where `index` (>= 1) is the page's
	 * index field: x86 rdpmc, aarch64 PMEVCNTR<n>_EL0 or PMCCNTR_EL0.
	 * The raw register, upper bits as the CPU leaves them.  false when the
	 * architecture has no register for that index (nothing was read). */
	bool (*read_pmc)(void *ctx, uint32_t index, uint64_t *value);
	/* The clock the page's time_mult/shift/offset convert: x86 TSC,
	 * aarch64 CNTVCT_EL0. */
	uint64_t (*read_cycles)(void *ctx);

	/* Optional (NULL: none here): the user-mode cycle counter of MIPS32r2,
	 * rdhwr $2 (the 32-bit CP0 Count register) and rdhwr $3 (the cycles
	 * per Count tick).  Raises SIGILL where the kernel did not enable it
	 * (HWREna): run it first through og_probe_in_child (probe_child.h). */
	void (*read_cycle_counter)(void *ctx, uint32_t *count, uint32_t *cycles_per_tick);

	/* Optional (NULL: the table serves only files it made itself, and
	 * callers skip the check): what kind of file descriptor fd is, as
	 * fstat(2) tells it: *mode gets st_mode (S_IFREG, S_IFIFO, ...: test
	 * with S_ISREG and friends from <sys/stat.h>), *size st_size.  0, or
	 * -1 with errno.  Not struct stat: its layout depends on
	 * _FILE_OFFSET_BITS, which the LD_PRELOAD interposers leave unset.
	 * Readers of a file named by the user open it with O_NONBLOCK and
	 * refuse anything but a regular file with this. */
	int (*fstat)(void *ctx, int fd, mode_t *mode, int64_t *size);
};

/* The table that calls the kernel.  Never NULL; static storage. */
const struct og_sys *og_sys_real(void);

#endif
