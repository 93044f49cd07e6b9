/* SPDX-License-Identifier: MIT */
/*
 * vmali_device.c — the virtual GPU itself: configuration, the fd table, the
 * og_sys table clients call through, the workload clock and dump images.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "vmali_internal.h"

/* Raw system calls: inside libopengpa-vmali.so the libc names are the
 * interposer's own, and the device must not call back into itself. */
int vmali_os_close(int fd)
{
	return (int)syscall(SYS_close, fd);
}

void *vmali_os_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
#ifdef SYS_mmap
	return (void *)syscall(SYS_mmap, addr, len, prot, flags, fd, off);
#else
	return (void *)syscall(SYS_mmap2, addr, len, prot, flags, fd, off >> 12);
#endif
}

int vmali_os_munmap(void *addr, size_t len)
{
	return (int)syscall(SYS_munmap, addr, len);
}

uint64_t vmali_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- blocks ---- */

uint32_t vmali_block_type(const struct vmali_geom *g, uint32_t b, uint32_t *instance)
{
	for (uint32_t t = 0; t < VMALI_BLOCK_TYPES; t++)
		if (b >= g->first[t] && b < g->first[t] + g->count[t]) {
			if (instance)
				*instance = b - g->first[t];
			return t;
		}
	return VMALI_BLOCK_TYPES;
}

bool vmali_block_present(const struct vmali_geom *g, uint32_t b)
{
	uint32_t inst;
	if (vmali_block_type(g, b, &inst) != VMALI_BLOCK_SC)
		return true;
	return (g->core_mask >> inst) & 1;
}

size_t vmali_counts_len(const struct vmali *vm)
{
	return (size_t)vm->geom.nblocks * vm->geom.values;
}

int vmali_acc_init(const struct vmali *vm, struct vmali_acc *a)
{
	a->v = calloc(vmali_counts_len(vm), sizeof(uint64_t));
	a->cycles[0] = a->cycles[1] = 0;
	return a->v ? 0 : -1;
}

void vmali_acc_clear(const struct vmali *vm, struct vmali_acc *a)
{
	memset(a->v, 0, vmali_counts_len(vm) * sizeof(uint64_t));
	a->cycles[0] = a->cycles[1] = 0;
}

uint32_t vmali_v5_blocks(const struct vmali *vm)
{
	return 2 + vm->geom.l2_slices + vm->geom.sc_blocks;
}

/* The v5 order (front end, tiler, L2 slices, core slots) is the metadata
 * order without the CSF-only blocks in front. */
void vmali_write_dump(const struct vmali *vm, const uint64_t *counts, const uint32_t *bm,
                      uint32_t *out)
{
	/* The reader's bitmask index of each block type: fe, shader, tiler, mmu_l2. */
	static const uint32_t bm_of[4] = { 0, 2, 3, 1 };
	const struct vmali_geom *g = &vm->geom;
	uint32_t n = vmali_v5_blocks(vm), base = g->first[VMALI_BLOCK_FE];
	for (uint32_t v = 0; v < n; v++) {
		uint32_t b = base + v;
		uint32_t *o = out + (size_t)v * VMALI_COUNTERS_PER_BLOCK;
		const uint64_t *c = counts + (size_t)b * g->values;
		memset(o, 0, VMALI_BLOCK_BYTES);
		/* Holes in a sparse core mask dump as zeros, header included. */
		if (!vmali_block_present(g, b))
			continue;
		uint32_t mask = bm ? bm[bm_of[vmali_block_type(g, b, NULL)]] : 0xFFFFFFFFu;
		o[VMALI_PRFCNT_EN_WORD] = mask;
		/* Longer blocks are cut to their first 64 values, saturated at
		 * 32 bits, as the narrowing vinstr does. */
		for (uint32_t i = VMALI_HEADER_WORDS; i < VMALI_COUNTERS_PER_BLOCK; i++) {
			if (!(mask >> (i / 4) & 1))
				continue;
			o[i] = c[i] > UINT32_MAX ? UINT32_MAX : (uint32_t)c[i];
		}
	}
}

/* ---- workload clock ---- */

static void add_counts(const struct vmali *vm, struct vmali_acc *a, const uint64_t *frame,
                       const uint64_t cycles[2])
{
	size_t n = vmali_counts_len(vm);
	for (size_t j = 0; j < n; j++)
		a->v[j] += frame[j];
	a->cycles[0] += cycles[0];
	a->cycles[1] += cycles[1];
}

void vmali_advance_locked(struct vmali *vm, unsigned frames)
{
	size_t n = vmali_counts_len(vm);
	for (unsigned i = 0; i < frames; i++) {
		const struct vmali_frame *f = &vm->script.frames[vm->next_frame];
		memset(vm->frame_buf, 0, n * sizeof(uint64_t));
		uint64_t cycles[2];
		cycles[0] = vmali_frame_run(f, &vm->geom, &vm->model, vm->frame_buf, &cycles[1]);
		if (++vm->frame_rep >= (uint64_t)f->count) {
			vm->frame_rep = 0;
			vm->next_frame = (vm->next_frame + 1) % vm->script.n;
		}
		vm->frames_run++;
		vm->total_cycles += cycles[0];
		vm->total_sc_cycles += cycles[1];
		for (size_t j = 0; j < n; j++)
			vm->totals[j] += vm->frame_buf[j];
		for (int k = 0; k < VMALI_MAX_FDS; k++) {
			struct vmali_fd *fd = &vm->fds[k];
			if (fd->kind == VMALI_FD_READER && fd->u.reader)
				add_counts(vm, &fd->u.reader->acc, vm->frame_buf, cycles);
			else if (fd->kind == VMALI_FD_KINSTR && fd->u.kinstr && fd->u.kinstr->started)
				add_counts(vm, &fd->u.kinstr->acc, vm->frame_buf, cycles);
		}
		if (vm->pf_owner_fd >= 0)
			for (size_t j = 0; j < n; j++)
				vm->pf_acc[j] += vm->frame_buf[j];
	}
}

void vmali_advance_for_dump(struct vmali *vm)
{
	if (!vm->cfg.manual_frames)
		vmali_advance_locked(vm, vm->cfg.frames_per_dump);
}

/* ---- fd table ---- */

struct vmali_fd *vmali_fd_lookup(struct vmali *vm, int fd)
{
	if (fd < 0)
		return NULL;
	for (int i = 0; i < VMALI_MAX_FDS; i++)
		if (vm->fds[i].kind != VMALI_FD_FREE && vm->fds[i].fd == fd)
			return &vm->fds[i];
	return NULL;
}

int vmali_fd_new(struct vmali *vm, enum vmali_kind kind, size_t memfd_size)
{
	struct vmali_fd *slot = NULL;
	for (int i = 0; i < VMALI_MAX_FDS && !slot; i++)
		if (vm->fds[i].kind == VMALI_FD_FREE)
			slot = &vm->fds[i];
	if (!slot) {
		errno = EMFILE;
		return -1;
	}
	static const char *const names[] = { "", "vmali-kbase", "vmali-hwcnt-reader",
		                             "vmali-kinstr-prfcnt", "vmali-panfrost" };
	int fd = memfd_create(names[kind], MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	if (memfd_size && ftruncate(fd, (off_t)memfd_size) != 0) {
		int e = errno;
		vmali_os_close(fd);
		errno = e;
		return -1;
	}
	memset(slot, 0, sizeof(*slot));
	slot->fd = fd;
	slot->kind = kind;
	vm->stats.open_fds++;
	return fd;
}

void vmali_fd_release(struct vmali *vm, struct vmali_fd *f)
{
	if (f->kind == VMALI_FD_READER)
		vmali_reader_free(f->u.reader);
	else if (f->kind == VMALI_FD_KINSTR)
		vmali_kinstr_free(f->u.kinstr);
	else if (f->kind == VMALI_FD_PANFROST)
		vmali_panfrost_release(vm, f);
	vmali_os_close(f->fd);
	f->kind = VMALI_FD_FREE;
	f->fd = -1;
	vm->stats.open_fds--;
}

/* ---- the og_sys table ---- */

bool vmali_owns_path(struct vmali *vm, const char *path)
{
	if (!path)
		return false;
	if ((vm->cfg.nodes & VMALI_NODE_KBASE) && strcmp(path, VMALI_PATH_KBASE) == 0)
		return true;
	return (vm->cfg.nodes & VMALI_NODE_PANFROST) && strcmp(path, VMALI_PATH_PANFROST) == 0;
}

static int sys_open(void *ctx, const char *path, int flags, mode_t mode)
{
	struct vmali *vm = ctx;
	(void)mode;
	pthread_mutex_lock(&vm->lock);
	int fd = -1;
	if (!vmali_owns_path(vm, path) || vm->faults.vanished) {
		errno = ENOENT;
	} else if (vm->faults.open_eacces) {
		errno = EACCES;
	} else if ((flags & O_CREAT) || (flags & O_DIRECTORY)) {
		errno = (flags & O_DIRECTORY) ? ENOTDIR : EEXIST;
	} else {
		bool kbase = strcmp(path, VMALI_PATH_KBASE) == 0;
		fd = vmali_fd_new(vm, kbase ? VMALI_FD_KBASE : VMALI_FD_PANFROST, 0);
		if (fd >= 0 && !(flags & O_CLOEXEC))
			fcntl(fd, F_SETFD, 0);
	}
	pthread_mutex_unlock(&vm->lock);
	return fd;
}

static int sys_close(void *ctx, int fd)
{
	struct vmali *vm = ctx;
	pthread_mutex_lock(&vm->lock);
	struct vmali_fd *f = vmali_fd_lookup(vm, fd);
	if (f)
		vmali_fd_release(vm, f);
	pthread_mutex_unlock(&vm->lock);
	if (!f) {
		errno = EBADF;
		return -1;
	}
	return 0;
}

/* When the next timed sample (periodic, or an asynchronous request) of a
 * client is due; 0 for none. */
static uint64_t due_of(const struct vmali *vm, const struct vmali_fd *f)
{
	if (f->kind == VMALI_FD_READER && f->u.reader && f->u.reader->interval_ns)
		return f->u.reader->next_due_ns;
	if (f->kind == VMALI_FD_KINSTR && f->u.kinstr) {
		const struct vmali_kinstr *k = f->u.kinstr;
		if (k->nlost && !vm->faults.dumps_never_arrive)
			return 1; /* late samples: due now */
		uint64_t p = k->started && k->mode == VMALI_KINSTR_MODE_PERIODIC ? k->next_due_ns : 0;
		uint64_t a = k->async_due_ns;
		return !p ? a : !a ? p : p < a ? p : a;
	}
	return 0;
}

/* Timed samples are produced lazily: whenever a client looks, every sample
 * due by now is emitted, clients interleaved in time order, so the counts
 * each one holds are the counts of its own period. */
static void catch_up_all(struct vmali *vm, uint64_t now)
{
	for (;;) {
		struct vmali_fd *first = NULL;
		uint64_t first_due = 0, second = now;
		for (int i = 0; i < VMALI_MAX_FDS; i++) {
			struct vmali_fd *f = &vm->fds[i];
			uint64_t due = due_of(vm, f);
			if (!due || due > now)
				continue;
			if (!first || due < first_due) {
				if (first && first_due < second)
					second = first_due;
				first = f;
				first_due = due;
			} else if (due < second) {
				second = due;
			}
		}
		if (!first)
			return;
		/* Run this client up to the next other client's turn. */
		if (first->kind == VMALI_FD_READER)
			vmali_reader_catch_up(vm, first->u.reader, second);
		else
			vmali_kinstr_catch_up(vm, first->u.kinstr, second);
	}
}

static int sys_ioctl(void *ctx, int fd, unsigned long req, void *arg)
{
	struct vmali *vm = ctx;
	int ret;
	pthread_mutex_lock(&vm->lock);
	struct vmali_fd *f = vmali_fd_lookup(vm, fd);
	if (!f) {
		errno = EBADF;
		ret = -1;
	} else if (vm->faults.vanished) {
		errno = ENODEV;
		ret = -1;
	} else if (vm->faults.eintr && f->kind != VMALI_FD_PANFROST && vm->ioctl_calls++ % 2 == 0) {
		errno = EINTR; /* a signal arrived before the driver did anything */
		ret = -1;
	} else {
		catch_up_all(vm, vmali_now_ns());
		switch (f->kind) {
		case VMALI_FD_KBASE:
			ret = vmali_kbase_ioctl(vm, f, req, arg);
			break;
		case VMALI_FD_READER:
			ret = vmali_reader_ioctl(vm, f, req, arg);
			break;
		case VMALI_FD_KINSTR:
			ret = vmali_kinstr_ioctl(vm, f, req, arg);
			break;
		case VMALI_FD_PANFROST:
			ret = vmali_panfrost_ioctl(vm, f, req, arg);
			break;
		default:
			errno = EBADF;
			ret = -1;
		}
	}
	pthread_mutex_unlock(&vm->lock);
	return ret;
}

static void *sys_mmap(void *ctx, void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	struct vmali *vm = ctx;
	void *p = MAP_FAILED;
	pthread_mutex_lock(&vm->lock);
	struct vmali_fd *f = vmali_fd_lookup(vm, fd);
	if (!f) {
		errno = EBADF;
	} else if (vm->faults.vanished) {
		errno = ENODEV;
	} else if (f->kind != VMALI_FD_READER && f->kind != VMALI_FD_KINSTR) {
		errno = EINVAL; /* GPU memory mapping is not modelled */
	} else {
		size_t ring_len = f->kind == VMALI_FD_READER ? f->u.reader->ring_len
		                                             : f->u.kinstr->ring_len;
		if (off != 0 || len == 0 || len > ring_len) {
			errno = EINVAL;
		} else if ((prot & PROT_WRITE) && (flags & MAP_SHARED)) {
			errno = EACCES; /* the ring is the kernel's; read-only to clients */
		} else {
			/* Read-only private mappings share the device's pages (and
			 * so see later samples) as the kernel's do; a writable
			 * private one copies on write, as the kernel's would. */
			int share = (flags & MAP_PRIVATE) && (prot & PROT_WRITE) ? MAP_PRIVATE
			                                                          : MAP_SHARED;
			int rest = flags & ~(MAP_PRIVATE | MAP_SHARED);
			p = vmali_os_mmap(addr, len, prot, share | rest, fd, 0);
		}
	}
	pthread_mutex_unlock(&vm->lock);
	return p;
}

static int sys_munmap(void *ctx, void *addr, size_t len)
{
	(void)ctx;
	return vmali_os_munmap(addr, len);
}

short vmali_fd_revents(struct vmali *vm, int fd, short events, uint64_t *wake_ns)
{
	pthread_mutex_lock(&vm->lock);
	short rev = 0;
	uint64_t wake = 0;
	struct vmali_fd *f = vmali_fd_lookup(vm, fd);
	if (!f) {
		rev = POLLNVAL;
	} else if (vm->faults.vanished) {
		rev = POLLHUP | POLLERR;
	} else if (f->kind == VMALI_FD_READER || f->kind == VMALI_FD_KINSTR) {
		catch_up_all(vm, vmali_now_ns());
		bool ready = f->kind == VMALI_FD_READER ? vmali_reader_ready(f->u.reader)
		                                        : vmali_kinstr_ready(f->u.kinstr);
		if (ready)
			rev = (short)((POLLIN | POLLRDNORM) & events);
		else if (!vm->faults.dumps_never_arrive)
			wake = due_of(vm, f);
	}
	pthread_mutex_unlock(&vm->lock);
	if (wake_ns)
		*wake_ns = wake;
	return rev;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

static int sys_poll(void *ctx, struct pollfd *fds, nfds_t nfds, int timeout_ms)
{
	struct vmali *vm = ctx;
	uint64_t start = vmali_now_ns();
	uint64_t deadline = timeout_ms < 0 ? UINT64_MAX : start + (uint64_t)timeout_ms * 1000000u;
	for (;;) {
		int ready = 0;
		uint64_t wake = UINT64_MAX;
		for (nfds_t i = 0; i < nfds; i++) {
			uint64_t w = 0;
			fds[i].revents = 0;
			if (fds[i].fd < 0)
				continue;
			fds[i].revents = vmali_fd_revents(vm, fds[i].fd, fds[i].events, &w);
			if (fds[i].revents)
				ready++;
			else if (w && w < wake)
				wake = w;
		}
		uint64_t now = vmali_now_ns();
		if (ready || now >= deadline)
			return ready;
		if (wake == UINT64_MAX && deadline == UINT64_MAX) {
			/* Nothing can ever arrive and the caller would block for
			 * good: a real kernel would hang; a test must not. */
			pthread_mutex_lock(&vm->lock);
			vm->stats.poll_forever_empty++;
			pthread_mutex_unlock(&vm->lock);
			return 0;
		}
		uint64_t until = wake < deadline ? wake : deadline;
		sleep_ns(until > now ? until - now : 0);
	}
}

static ssize_t sys_read(void *ctx, int fd, void *buf, size_t len)
{
	struct vmali *vm = ctx;
	(void)buf;
	(void)len;
	pthread_mutex_lock(&vm->lock);
	bool owned = vmali_fd_lookup(vm, fd) != NULL;
	pthread_mutex_unlock(&vm->lock);
	/* No node of this device is readable: kbase job events are not modelled,
	 * neither reader fd has read(), DRM events are never queued. */
	errno = owned ? EINVAL : EBADF;
	return -1;
}

static ssize_t sys_write(void *ctx, int fd, const void *buf, size_t len)
{
	return sys_read(ctx, fd, (void *)(uintptr_t)buf, len);
}

static int sys_perf_event_open(void *ctx, struct perf_event_attr *attr, pid_t pid, int cpu,
                               int group_fd, unsigned long flags)
{
	(void)ctx, (void)attr, (void)pid, (void)cpu, (void)group_fd, (void)flags;
	errno = ENOENT;
	return -1;
}

/* ---- life cycle ---- */

static int fail(char *err, size_t len, const char *msg)
{
	if (err && len)
		snprintf(err, len, "%s", msg);
	errno = EINVAL;
	return -1;
}

static int apply_defaults(struct vmali_config *c, char *err, size_t len)
{
	if (!c->gpu_id)
		c->gpu_id = c->csf ? 0xa007 : 0x6000;
	if (!c->core_mask)
		c->core_mask = 0xFF;
	if (!c->l2_slices)
		c->l2_slices = 1;
	if (!c->bus_width_bits)
		c->bus_width_bits = 128;
	if (!c->uk_major && !c->uk_minor) {
		c->uk_major = c->csf ? 1 : 11;
		c->uk_minor = c->csf ? 10 : 31;
	}
	if (!c->clock_domains)
		c->clock_domains = c->csf ? 2 : 1;
	if (!c->csg_blocks)
		c->csg_blocks = 2;
	if (!c->frames_per_dump)
		c->frames_per_dump = 1;
	if (!c->nodes)
		c->nodes = VMALI_NODE_KBASE | VMALI_NODE_PANFROST;
	if (c->gpu_id > 0xFFFF)
		return fail(err, len, "gpu_id is the 16-bit product id (GPU_ID >> 16)");
	if (!vmali_product_find(c->gpu_id))
		return fail(err, len, "gpu_id is not a product of Arm's database (Mali-G31 to Mali G1)");
	if (c->l2_slices > VMALI_MAX_L2)
		return fail(err, len, "l2_slices must be 1..16 (MEM_FEATURES has 4 bits for it)");
	if (c->bus_width_bits < 8 || c->bus_width_bits > 1024 ||
	    (c->bus_width_bits & (c->bus_width_bits - 1)))
		return fail(err, len, "bus_width_bits must be a power of two in 8..1024");
	if (c->clock_domains > 4)
		return fail(err, len, "clock_domains must be 1..4");
	if (c->csg_blocks != VMALI_NONE && c->csg_blocks > VMALI_MAX_CSG)
		return fail(err, len, "csg_blocks must be 1..16 (or VMALI_NONE)");
	if (c->counter_set > 2)
		return fail(err, len, "counter_set must be 0, 1 or 2");
	return 0;
}

/* Blocks in the order the kernel's counter metadata lists them. */
static void lay_out(struct vmali *vm)
{
	const struct vmali_config *c = &vm->cfg;
	struct vmali_geom *g = &vm->geom;
	g->core_mask = c->core_mask;
	g->l2_slices = c->l2_slices;
	g->sc_blocks = 64u - (uint32_t)__builtin_clzll(c->core_mask);
	g->values = vm->product->values;
	g->bus_bytes = c->bus_width_bits / 8;
	g->clock_domains = c->clock_domains;
	g->count[VMALI_BLOCK_FW] = c->csf && !c->no_fw_block ? 1 : 0;
	g->count[VMALI_BLOCK_CSG] = c->csf && c->csg_blocks != VMALI_NONE ? c->csg_blocks : 0;
	g->count[VMALI_BLOCK_FE] = 1;
	g->count[VMALI_BLOCK_TILER] = 1;
	g->count[VMALI_BLOCK_L2] = c->l2_slices;
	g->count[VMALI_BLOCK_SC] = g->sc_blocks;
	static const uint32_t order[] = { VMALI_BLOCK_FW, VMALI_BLOCK_CSG, VMALI_BLOCK_FE,
		                          VMALI_BLOCK_TILER, VMALI_BLOCK_L2, VMALI_BLOCK_SC };
	uint32_t at = 0;
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		g->first[order[i]] = at;
		at += g->count[order[i]];
	}
	g->nblocks = at;
}

struct vmali *vmali_create_err(const struct vmali_config *cfg, char *err, size_t err_len)
{
	struct vmali_config c = cfg ? *cfg : (struct vmali_config){ 0 };
	char dummy[8];
	if (!err) {
		err = dummy;
		err_len = sizeof(dummy);
	}
	if (apply_defaults(&c, err, err_len))
		return NULL;
	const struct vmali_product *product = vmali_product_find(c.gpu_id);
	const struct vmali_layout *layout = vmali_layout_find(product->layout);
	if (!layout) {
		snprintf(err, err_len, "%s needs the counter layout %s, which this build does not "
		         "have (counters/%s.counters)", product->name, product->layout, product->layout);
		errno = EINVAL;
		return NULL;
	}
	struct vmali *vm = calloc(1, sizeof(*vm));
	if (!vm)
		return NULL;
	const char *text = c.workload ? c.workload : vmali_default_workload;
	vm->script_text = strdup(text);
	if (!vm->script_text || vmali_script_parse(text, &vm->script, err, err_len)) {
		free(vm->script_text);
		free(vm);
		errno = EINVAL;
		return NULL;
	}
	c.workload = vm->script_text;
	vm->cfg = c;
	vm->product = product;
	vm->layout = layout;
	lay_out(vm);
	pthread_mutex_init(&vm->lock, NULL);
	vm->pf_owner_fd = -1;
	for (int i = 0; i < VMALI_MAX_FDS; i++)
		vm->fds[i].fd = -1;
	if (vmali_model_init(&vm->model, layout, &vm->geom, err, err_len)) {
		vmali_destroy(vm);
		errno = EINVAL;
		return NULL;
	}
	size_t n = vmali_counts_len(vm);
	vm->totals = calloc(n, sizeof(uint64_t));
	vm->frame_buf = calloc(n, sizeof(uint64_t));
	vm->pf_acc = calloc(n, sizeof(uint64_t));
	if (!vm->totals || !vm->frame_buf || !vm->pf_acc) {
		vmali_destroy(vm);
		errno = ENOMEM;
		return NULL;
	}
	vm->sys = (struct og_sys){
		.ctx = vm,
		.open = sys_open,
		.close = sys_close,
		.ioctl = sys_ioctl,
		.mmap = sys_mmap,
		.munmap = sys_munmap,
		.poll = sys_poll,
		.read = sys_read,
		.write = sys_write,
		.perf_event_open = sys_perf_event_open,
	};
	return vm;
}

struct vmali *vmali_create(const struct vmali_config *cfg)
{
	return vmali_create_err(cfg, NULL, 0);
}

void vmali_destroy(struct vmali *vm)
{
	if (!vm)
		return;
	for (int i = 0; i < VMALI_MAX_FDS; i++)
		if (vm->fds[i].kind != VMALI_FD_FREE)
			vmali_fd_release(vm, &vm->fds[i]);
	pthread_mutex_destroy(&vm->lock);
	vmali_script_free(&vm->script);
	vmali_model_free(&vm->model);
	free(vm->totals);
	free(vm->frame_buf);
	free(vm->pf_acc);
	free(vm->script_text);
	free(vm);
}

const struct og_sys *vmali_sys(struct vmali *vm)
{
	return &vm->sys;
}

/* ---- queries ---- */

void vmali_run_frames(struct vmali *vm, unsigned n)
{
	pthread_mutex_lock(&vm->lock);
	catch_up_all(vm, vmali_now_ns());
	vmali_advance_locked(vm, n);
	pthread_mutex_unlock(&vm->lock);
}

uint64_t vmali_frames_run(struct vmali *vm)
{
	pthread_mutex_lock(&vm->lock);
	uint64_t n = vm->frames_run;
	pthread_mutex_unlock(&vm->lock);
	return n;
}

uint64_t vmali_total(struct vmali *vm, enum vmali_block block, int instance, unsigned index)
{
	const struct vmali_geom *g = &vm->geom;
	if ((unsigned)block >= VMALI_BLOCK_TYPES || index >= g->values)
		return 0;
	uint32_t first = g->first[block], count = g->count[block];
	if (instance != VMALI_ALL) {
		if (instance < 0 || (uint32_t)instance >= count)
			return 0;
		first += (uint32_t)instance;
		count = 1;
	}
	uint64_t sum = 0;
	pthread_mutex_lock(&vm->lock);
	for (uint32_t b = first; b < first + count; b++)
		sum += vm->totals[(size_t)b * g->values + index];
	pthread_mutex_unlock(&vm->lock);
	return sum;
}

uint64_t vmali_total_cycles(struct vmali *vm)
{
	pthread_mutex_lock(&vm->lock);
	uint64_t c = vm->total_cycles;
	pthread_mutex_unlock(&vm->lock);
	return c;
}

uint64_t vmali_total_sc_cycles(struct vmali *vm)
{
	pthread_mutex_lock(&vm->lock);
	uint64_t c = vm->total_sc_cycles;
	pthread_mutex_unlock(&vm->lock);
	return c;
}

unsigned vmali_values_per_block(struct vmali *vm)
{
	return vm->geom.values;
}

unsigned vmali_block_instances(struct vmali *vm, enum vmali_block block)
{
	return (unsigned)block < VMALI_BLOCK_TYPES ? vm->geom.count[block] : 0;
}

int vmali_counter_index(struct vmali *vm, enum vmali_block block, const char *name)
{
	const struct vmali_layout *l = vm->layout;
	for (size_t i = 0; i < l->n; i++)
		if (l->counters[i].block == (uint8_t)block && strcmp(l->counters[i].name, name) == 0)
			return l->counters[i].index;
	return -1;
}

size_t vmali_unmodelled_counters(struct vmali *vm, const char **first_name)
{
	*first_name = NULL;
	for (size_t i = 0; i < vm->model.n && !*first_name; i++)
		if (vm->model.plan[i].slot < 0)
			for (size_t j = 0; j < vm->layout->n; j++)
				if (vm->layout->counters[j].block == vm->model.plan[i].block &&
				    vm->layout->counters[j].index == vm->model.plan[i].index)
					*first_name = vm->layout->counters[j].name;
	return vm->model.unmodelled;
}

void vmali_get_config(struct vmali *vm, struct vmali_config *out)
{
	*out = vm->cfg;
}

uint32_t vmali_dump_size(struct vmali *vm)
{
	return vmali_v5_blocks(vm) * VMALI_BLOCK_BYTES;
}

void vmali_set_faults(struct vmali *vm, const struct vmali_faults *faults)
{
	pthread_mutex_lock(&vm->lock);
	vm->faults = *faults;
	pthread_mutex_unlock(&vm->lock);
}

bool vmali_owns_fd(struct vmali *vm, int fd)
{
	pthread_mutex_lock(&vm->lock);
	bool owned = vmali_fd_lookup(vm, fd) != NULL;
	pthread_mutex_unlock(&vm->lock);
	return owned;
}

unsigned vmali_fd_node(struct vmali *vm, int fd)
{
	pthread_mutex_lock(&vm->lock);
	struct vmali_fd *f = vmali_fd_lookup(vm, fd);
	unsigned node = !f                             ? 0
	                : f->kind == VMALI_FD_KBASE    ? VMALI_NODE_KBASE
	                : f->kind == VMALI_FD_PANFROST ? VMALI_NODE_PANFROST
	                                               : 0;
	pthread_mutex_unlock(&vm->lock);
	return node;
}

void vmali_get_stats(struct vmali *vm, struct vmali_stats *out)
{
	pthread_mutex_lock(&vm->lock);
	*out = vm->stats;
	pthread_mutex_unlock(&vm->lock);
}
