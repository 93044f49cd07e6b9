/* SPDX-License-Identifier: MIT */
/*
 * vmali_preload.c — libopengpa-vmali.so: LD_PRELOAD it and /dev/mali0 and
 * /dev/dri/renderD128 are the virtual Mali for every unmodified client in
 * the process.  open/openat/open64 (and their _FORTIFY_SOURCE forms), close
 * and ioctl are interposed by ../preload_core.c (shared with the virtual
 * Adreno's preload); mmap/mmap64, munmap, poll, read and stat/fstat here; calls
 * on anything the device does not own go to the next definition
 * (dlsym(RTLD_NEXT)).  So are __xstat/__fxstat: glibc before 2.33 compiled
 * stat calls into them, and ThreadSanitizer's fstat still calls __fxstat.
 *
 * Configured once, from the environment, when the process first opens or
 * stats /dev/mali0 or /dev/dri/renderD128:
 *   VMALI_GPU_ID=0x6000 (any product id of Arm's database)
 *   VMALI_CSF=0|1 (default: the product's own front end)  VMALI_UK=11.31
 *   VMALI_CORE_MASK=0xFF  VMALI_L2_SLICES=1  VMALI_BUS_WIDTH=128
 *   VMALI_CLOCK_DOMAINS=n  VMALI_CSG_BLOCKS=n  VMALI_NEURAL_ENGINE=1
 *   VMALI_PANFROST_UNSTABLE=0|1  VMALI_FRAMES_PER_DUMP=1
 *   VMALI_API_FRAMES=1 (frames run by the process's GL and OpenCL work
 *   instead of at each dump: vmali_api.c)
 *   VMALI_NODES=kbase,panfrost  VMALI_WORKLOAD="frame ...; frame ..." or @file
 *   VMALI_FAULT_OPEN_EACCES=1  VMALI_FAULT_ENOMEM_ABOVE=n  VMALI_FAULT_NO_DUMPS=1
 *   VMALI_FAULT_BUFFER_SIZE_SKEW=n  VMALI_FAULT_SETUP_EBUSY=1
 *   VMALI_FAULT_VINSTR_ABSENT=1  VMALI_FAULT_KINSTR_ABSENT=1  VMALI_FAULT_EINTR=1
 *   VMALI_FAULT_CORES_OFF=mask (kinstr >= 11.41/1.23: those cores report OFF)
 *   VMALI_FAULT_PROTECTED=1 (kinstr >= 11.41/1.23: blocks report protected mode)
 * A bad configuration prints one line to stderr and leaves the nodes absent.
 *
 * Not at the first interposed call: a runtime loaded before this library
 * (AddressSanitizer's, LD_PRELOAD=libasan.so:libopengpa-vmali.so) calls
 * mmap while it starts, before the C library has set up the environment, and
 * a device configured then would silently ignore every VMALI_* variable.
 * Calls on descriptors cannot concern the device before it exists, so only
 * the device's own paths create it (docs/testing.md: loading order).
 *
 * The one device of the process is necessarily global state; it lives for
 * the life of the process.
 */
/* The interposer defines both open and open64: the headers must not rename
 * one into the other (meson builds with _FILE_OFFSET_BITS=64). */
#undef _FILE_OFFSET_BITS
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "preload_core.h"
#include "sys.h"
#include "vmali.h"
#include "vmali_preload.h"

#define EXPORT PRELOAD_EXPORT

static struct {
	pthread_once_t next_once, dev_once;
	struct vmali *vm; /* published (atomically) once configured */
	const struct og_sys *sys;
	void *(*mmap)(void *, size_t, int, int, int, off_t);
	void *(*mmap64)(void *, size_t, int, int, int, off64_t);
	int (*munmap)(void *, size_t);
	int (*poll)(struct pollfd *, nfds_t, int);
	ssize_t (*read)(int, void *, size_t);
	int (*stat)(const char *, struct stat *);
	int (*fstat)(int, struct stat *);
	int (*stat64)(const char *, struct stat64 *);
	int (*fstat64)(int, struct stat64 *);
} g = { .next_once = PTHREAD_ONCE_INIT, .dev_once = PTHREAD_ONCE_INIT };

static unsigned long long env_ull(const char *name, unsigned long long def, bool *bad)
{
	return preload_env("vmali", name, def, bad);
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	char *buf = NULL;
	size_t len = 0, cap = 0;
	for (;;) {
		if (len + 4096 + 1 > cap) {
			cap = cap ? cap * 2 : 8192;
			char *nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
		}
		size_t n = fread(buf + len, 1, 4096, f);
		len += n;
		if (n < 4096)
			break;
	}
	fclose(f);
	buf[len] = '\0';
	return buf;
}

static void resolve(void)
{
	preload_next();
	g.mmap = (void *(*)(void *, size_t, int, int, int, off_t))dlsym(RTLD_NEXT, "mmap");
	g.mmap64 = (void *(*)(void *, size_t, int, int, int, off64_t))dlsym(RTLD_NEXT, "mmap64");
	g.munmap = (int (*)(void *, size_t))dlsym(RTLD_NEXT, "munmap");
	g.poll = (int (*)(struct pollfd *, nfds_t, int))dlsym(RTLD_NEXT, "poll");
	g.read = (ssize_t (*)(int, void *, size_t))dlsym(RTLD_NEXT, "read");
	g.stat = (int (*)(const char *, struct stat *))dlsym(RTLD_NEXT, "stat");
	g.fstat = (int (*)(int, struct stat *))dlsym(RTLD_NEXT, "fstat");
	g.stat64 = (int (*)(const char *, struct stat64 *))dlsym(RTLD_NEXT, "stat64");
	g.fstat64 = (int (*)(int, struct stat64 *))dlsym(RTLD_NEXT, "fstat64");
}

/* The next definition of every interposed call: needed from the first call. */
static void next(void)
{
	pthread_once(&g.next_once, resolve);
}

static void init(void)
{
	next();
	bool bad = false;
	struct vmali_config c = { 0 };
	c.gpu_id = (uint32_t)env_ull("VMALI_GPU_ID", 0, &bad);
	c.core_mask = env_ull("VMALI_CORE_MASK", 0, &bad);
	c.l2_slices = (uint32_t)env_ull("VMALI_L2_SLICES", 0, &bad);
	c.bus_width_bits = (uint32_t)env_ull("VMALI_BUS_WIDTH", 0, &bad);
	const char *csf = getenv("VMALI_CSF");
	bool product_csf = false;
	vmali_product_csf(c.gpu_id ? c.gpu_id : 0x6000, &product_csf);
	c.csf = csf && *csf ? env_ull("VMALI_CSF", 0, &bad) != 0 : product_csf;
	c.clock_domains = (uint8_t)env_ull("VMALI_CLOCK_DOMAINS", 0, &bad);
	c.csg_blocks = (uint8_t)env_ull("VMALI_CSG_BLOCKS", 0, &bad);
	c.neural_engine = env_ull("VMALI_NEURAL_ENGINE", 0, &bad) != 0;
	c.panfrost_unstable_ioctls = env_ull("VMALI_PANFROST_UNSTABLE", 0, &bad) != 0;
	c.frames_per_dump = (uint32_t)env_ull("VMALI_FRAMES_PER_DUMP", 0, &bad);
	c.manual_frames = env_ull("VMALI_API_FRAMES", 0, &bad) != 0;
	const char *uk = getenv("VMALI_UK");
	if (uk && *uk) {
		unsigned maj = 0, min = 0;
		char tail;
		if (sscanf(uk, "%u.%u%c", &maj, &min, &tail) != 2 || maj > 0xFFFF || min > 0xFFFF) {
			fprintf(stderr, "vmali: VMALI_UK=%s must be MAJOR.MINOR, e.g. 11.31\n", uk);
			bad = true;
		}
		c.uk_major = (uint16_t)maj;
		c.uk_minor = (uint16_t)min;
	}
	const char *nodes = getenv("VMALI_NODES");
	if (nodes && *nodes) {
		c.nodes = (strstr(nodes, "kbase") ? VMALI_NODE_KBASE : 0) |
		          (strstr(nodes, "panfrost") ? VMALI_NODE_PANFROST : 0);
		if (!c.nodes) {
			fprintf(stderr, "vmali: VMALI_NODES=%s names neither kbase nor panfrost\n",
			        nodes);
			bad = true;
		}
	}
	char *file_text = NULL;
	const char *wl = getenv("VMALI_WORKLOAD");
	if (wl && wl[0] == '@') {
		file_text = read_file(wl + 1);
		if (!file_text) {
			fprintf(stderr, "vmali: cannot read VMALI_WORKLOAD file %s: %s\n", wl + 1,
			        strerror(errno));
			bad = true;
		}
		wl = file_text;
	}
	c.workload = wl && *wl ? wl : NULL;
	struct vmali_faults faults = { 0 };
	faults.open_eacces = env_ull("VMALI_FAULT_OPEN_EACCES", 0, &bad) != 0;
	faults.enomem_above_buffers = (uint32_t)env_ull("VMALI_FAULT_ENOMEM_ABOVE", 0, &bad);
	faults.dumps_never_arrive = env_ull("VMALI_FAULT_NO_DUMPS", 0, &bad) != 0;
	faults.buffer_size_skew = (int32_t)(long long)env_ull("VMALI_FAULT_BUFFER_SIZE_SKEW", 0, &bad);
	faults.setup_ebusy = env_ull("VMALI_FAULT_SETUP_EBUSY", 0, &bad) != 0;
	faults.vinstr_absent = env_ull("VMALI_FAULT_VINSTR_ABSENT", 0, &bad) != 0;
	faults.kinstr_absent = env_ull("VMALI_FAULT_KINSTR_ABSENT", 0, &bad) != 0;
	faults.eintr = env_ull("VMALI_FAULT_EINTR", 0, &bad) != 0;
	faults.sample_flags = (uint32_t)env_ull("VMALI_FAULT_SAMPLE_FLAGS", 0, &bad);
	faults.stop_sample_flags = (uint32_t)env_ull("VMALI_FAULT_STOP_SAMPLE_FLAGS", 0, &bad);
	faults.cores_powered_off = env_ull("VMALI_FAULT_CORES_OFF", 0, &bad);
	faults.protected_mode = env_ull("VMALI_FAULT_PROTECTED", 0, &bad) != 0;
	if (bad) {
		free(file_text);
		return;
	}
	char err[256] = "";
	struct vmali *vm = vmali_create_err(&c, err, sizeof(err));
	free(file_text); /* the device keeps its own copy */
	if (!vm) {
		fprintf(stderr, "vmali: configuration rejected: %s\n", err[0] ? err : strerror(errno));
		return;
	}
	vmali_set_faults(vm, &faults);
	g.sys = vmali_sys(vm);
	__atomic_store_n(&g.vm, vm, __ATOMIC_RELEASE);
}

/* Creates the device the first time one of its paths is used; returns it,
 * or NULL when the configuration was bad. */
static struct vmali *dev_for_path(const char *path)
{
	next();
	if (!path || (strcmp(path, VMALI_PATH_KBASE) != 0 && strcmp(path, VMALI_PATH_PANFROST) != 0))
		return __atomic_load_n(&g.vm, __ATOMIC_ACQUIRE);
	pthread_once(&g.dev_once, init);
	return g.vm;
}

/* vmali_api.c's draw calls come after the C library is up: the device may
 * be configured then. */
struct vmali *vmali_preload_device(void)
{
	next();
	pthread_once(&g.dev_once, init);
	return g.vm;
}

/* The device if it exists: a descriptor can only be the device's once one of
 * its paths was opened. */
static struct vmali *dev(void)
{
	next();
	return __atomic_load_n(&g.vm, __ATOMIC_ACQUIRE);
}

static bool owned_fd(int fd)
{
	struct vmali *vm = dev();
	return vm && fd >= 0 && vmali_owns_fd(vm, fd);
}

static bool owned_path(const char *path)
{
	struct vmali *vm = dev_for_path(path);
	return vm && vmali_owns_path(vm, path);
}

/* preload_core.c's hooks: open, openat, close and ioctl. */
bool preload_owns_path(const char *path)
{
	return owned_path(path);
}

bool preload_owns_fd(int fd)
{
	return owned_fd(fd);
}

const struct og_sys *preload_sys(void)
{
	return g.sys;
}

EXPORT void *mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	if (!(flags & MAP_ANONYMOUS) && owned_fd(fd))
		return g.sys->mmap(g.sys->ctx, addr, len, prot, flags, fd, off);
	next();
	return g.mmap(addr, len, prot, flags, fd, off);
}

/* What programs built with 64-bit file offsets call on 32-bit targets. */
EXPORT void *mmap64(void *addr, size_t len, int prot, int flags, int fd, off64_t off)
{
	if (!(flags & MAP_ANONYMOUS) && owned_fd(fd))
		return g.sys->mmap(g.sys->ctx, addr, len, prot, flags, fd, off);
	dev();
	return g.mmap64(addr, len, prot, flags, fd, off);
}

EXPORT int munmap(void *addr, size_t len)
{
	next();
	return g.munmap(addr, len);
}

EXPORT ssize_t read(int fd, void *buf, size_t len)
{
	if (owned_fd(fd))
		return g.sys->read(g.sys->ctx, fd, buf, len);
	return g.read(fd, buf, len);
}

ssize_t __read_chk(int fd, void *buf, size_t len, size_t buflen);
EXPORT ssize_t __read_chk(int fd, void *buf, size_t len, size_t buflen)
{
	if (len > buflen)
		abort(); /* what glibc's checker does */
	return read(fd, buf, len);
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Device fds answer from the model, the rest from the kernel: the kernel is
 * asked with the device fds masked out, for no longer than the next periodic
 * sample of a device fd is due. */
static int mixed_poll(struct pollfd *fds, nfds_t n, int timeout_ms)
{
	struct vmali *vm = g.vm;
	struct pollfd small[16];
	struct pollfd *tmp = n <= 16 ? small : calloc(n, sizeof(*tmp));
	if (!tmp) {
		errno = ENOMEM;
		return -1;
	}
	uint64_t deadline =
		timeout_ms < 0 ? UINT64_MAX : now_ns() + (uint64_t)timeout_ms * 1000000u;
	int ret;
	for (;;) {
		int ready = 0, others = 0;
		uint64_t wake = UINT64_MAX;
		for (nfds_t i = 0; i < n; i++) {
			tmp[i] = fds[i];
			tmp[i].revents = 0;
			fds[i].revents = 0;
			if (fds[i].fd >= 0 && vmali_owns_fd(vm, fds[i].fd)) {
				uint64_t w = 0;
				fds[i].revents = vmali_fd_revents(vm, fds[i].fd, fds[i].events, &w);
				ready += fds[i].revents != 0;
				if (w && w < wake)
					wake = w;
				tmp[i].fd = -1;
			} else if (fds[i].fd >= 0) {
				others++;
			}
		}
		uint64_t now = now_ns();
		uint64_t until = wake < deadline ? wake : deadline;
		int wait_ms;
		if (ready || now >= deadline)
			wait_ms = 0;
		else if (until == UINT64_MAX)
			wait_ms = -1;
		else
			wait_ms = (int)((until - now + 999999u) / 1000000u);
		if (!others && wait_ms < 0) {
			ret = 0; /* nothing can ever arrive, as in vmali_sys()'s poll */
			break;
		}
		int r = g.poll(tmp, n, wait_ms);
		if (r < 0) {
			ret = -1;
			break;
		}
		for (nfds_t i = 0; i < n; i++)
			if (tmp[i].fd >= 0) {
				fds[i].revents = tmp[i].revents;
				ready += tmp[i].revents != 0;
			}
		if (ready || now_ns() >= deadline) {
			ret = ready;
			break;
		}
	}
	if (tmp != small) {
		int e = errno;
		free(tmp);
		errno = e;
	}
	return ret;
}

EXPORT int poll(struct pollfd *fds, nfds_t n, int timeout_ms)
{
	struct vmali *vm = dev();
	bool any = false;
	for (nfds_t i = 0; vm && i < n && !any; i++)
		any = fds[i].fd >= 0 && vmali_owns_fd(vm, fds[i].fd);
	if (!any)
		return g.poll(fds, n, timeout_ms);
	return mixed_poll(fds, n, timeout_ms);
}

int __poll_chk(struct pollfd *fds, nfds_t n, int timeout_ms, size_t fdslen);
EXPORT int __poll_chk(struct pollfd *fds, nfds_t n, int timeout_ms, size_t fdslen)
{
	if (fdslen / sizeof(*fds) < n)
		abort();
	return poll(fds, n, timeout_ms);
}

/* ---- stat: device nodes are character devices ---- */

/* Fills a struct stat, or the struct stat64 that programs built with 64-bit
 * file offsets pass on 32-bit targets: the same fields, another layout. */
#define FAKE_NODE(st, node)                                                              \
	do {                                                                             \
		memset((st), 0, sizeof(*(st)));                                          \
		(st)->st_mode = S_IFCHR | 0666;                                          \
		(st)->st_nlink = 1;                                                      \
		(st)->st_blksize = 4096;                                                 \
		/* misc major 10 for kbase, DRM major 226 minor 128 for the render node */ \
		(st)->st_rdev = (node) == VMALI_NODE_KBASE ? makedev(10, 60)             \
		                                           : makedev(226, 128);          \
	} while (0)

static unsigned path_node(const char *path)
{
	if (!owned_path(path))
		return 0;
	return strcmp(path, VMALI_PATH_KBASE) == 0 ? VMALI_NODE_KBASE : VMALI_NODE_PANFROST;
}

EXPORT int stat(const char *path, struct stat *st)
{
	unsigned node = path_node(path);
	if (node) {
		FAKE_NODE(st, node);
		return 0;
	}
	return g.stat(path, st);
}

EXPORT int fstat(int fd, struct stat *st)
{
	struct vmali *vm = dev();
	unsigned node = vm && fd >= 0 ? vmali_fd_node(vm, fd) : 0;
	if (node) {
		FAKE_NODE(st, node);
		return 0;
	}
	return g.fstat(fd, st);
}

EXPORT int stat64(const char *path, struct stat64 *st)
{
	unsigned node = path_node(path);
	if (node) {
		FAKE_NODE(st, node);
		return 0;
	}
	return g.stat64(path, st);
}

EXPORT int fstat64(int fd, struct stat64 *st)
{
	struct vmali *vm = dev();
	unsigned node = vm && fd >= 0 ? vmali_fd_node(vm, fd) : 0;
	if (node) {
		FAKE_NODE(st, node);
		return 0;
	}
	return g.fstat64(fd, st);
}

/* The __xstat family's struct stat64 has struct stat's layout on 64-bit
 * glibc only. */
#if UINTPTR_MAX == UINT64_MAX

/* Programs built against glibc before 2.33 call these instead of stat and
 * fstat, and so does ThreadSanitizer's fstat interceptor on any glibc.  The
 * version argument selects the layout of struct stat, which on 64-bit
 * glibc is the one struct stat has. */
int __xstat(int ver, const char *path, struct stat *st);
int __fxstat(int ver, int fd, struct stat *st);
int __xstat64(int ver, const char *path, struct stat64 *st);
int __fxstat64(int ver, int fd, struct stat64 *st);

EXPORT int __xstat(int ver, const char *path, struct stat *st)
{
	unsigned node = path_node(path);
	if (node) {
		FAKE_NODE(st, node);
		return 0;
	}
	static int (*next_xstat)(int, const char *, struct stat *);
	if (!next_xstat)
		next_xstat = (int (*)(int, const char *, struct stat *))dlsym(RTLD_NEXT, "__xstat");
	if (!next_xstat)
		return stat(path, st);
	return next_xstat(ver, path, st);
}

EXPORT int __fxstat(int ver, int fd, struct stat *st)
{
	struct vmali *vm = dev();
	unsigned node = vm && fd >= 0 ? vmali_fd_node(vm, fd) : 0;
	if (node) {
		FAKE_NODE(st, node);
		return 0;
	}
	static int (*next_fxstat)(int, int, struct stat *);
	if (!next_fxstat)
		next_fxstat = (int (*)(int, int, struct stat *))dlsym(RTLD_NEXT, "__fxstat");
	if (!next_fxstat)
		return g.fstat(fd, st);
	return next_fxstat(ver, fd, st);
}

EXPORT int __xstat64(int ver, const char *path, struct stat64 *st)
{
	return __xstat(ver, path, (struct stat *)(void *)st);
}

EXPORT int __fxstat64(int ver, int fd, struct stat64 *st)
{
	return __fxstat(ver, fd, (struct stat *)(void *)st);
}
#endif
