/* SPDX-License-Identifier: MIT */
/*
 * preload_core.h — what the virtual devices' LD_PRELOAD libraries
 * (libopengpa-vmali.so, libopengpa-vadreno.so, libopengpa-v34k.so,
 * libopengpa-v34k-pmu.so) share: the descriptor calls
 * each of them interposes, open, open64, openat, openat64 (and their
 * _FORTIFY_SOURCE forms), close and ioctl, each handed to the device when
 * it owns the path or the descriptor and to the next definition
 * (dlsym(RTLD_NEXT)) otherwise; and the reading of their numeric
 * configuration variables.
 *
 * A preload library compiles preload_core.c (meson: vdev_preload_core)
 * and defines the three hooks below; what else it interposes (vmali: mmap,
 * read, poll, stat; v34k: read, write, dup, fcntl, fstat; v34k-pmu:
 * syscall, read, opendir) stays its own.  A library may export fewer of
 * the core's calls than it defines (the v34k ones: a version script).
 */
#ifndef OPENGPA_VDEV_PRELOAD_CORE_H
#define OPENGPA_VDEV_PRELOAD_CORE_H

#include <stdbool.h>

#include "sys.h"

#define PRELOAD_EXPORT __attribute__((visibility("default")))

/* The hooks a preload library defines. */

/* Whether the device answers `path`; the first use of one of the device's
 * paths configures the device from the environment. */
bool preload_owns_path(const char *path);
/* Whether `fd` is one of the device's descriptors. */
bool preload_owns_fd(int fd);
/* The device's calls: asked only after an owns hook said yes. */
const struct og_sys *preload_sys(void);

/* The next definitions of the calls the core interposes. */
struct preload_next {
	int (*open)(const char *, int, ...);
	int (*openat)(int, const char *, int, ...);
	int (*close)(int);
	int (*ioctl)(int, unsigned long, ...);
};

/* Them, looked up once, at the first call that needs them. */
const struct preload_next *preload_next(void);

/* The number in the variable `name` (strtoull, any base), `def` when it is
 * unset or empty; anything else prints "DEVICE: NAME=VALUE is not a number;
 * fix the variable" on stderr and sets *bad. */
unsigned long long preload_env(const char *device, const char *name, unsigned long long def,
                               bool *bad);

#endif
