/* SPDX-License-Identifier: MIT */
/* fake_kbase.c — see fake_kbase.h.  ioctl numbers are the literal values of
 * the reference's table, not the backend's macros. */
#include "fake_kbase.h"

#include "../../common/ioctl_generic.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define DEV_FD 100
#define READER_FD 101
#define BLOCK_BYTES 256u

static struct fake_kbase *self(void *ctx)
{
	return ctx;
}

struct fake_kbase_cfg fake_kbase_g71_mp8(void)
{
	return (struct fake_kbase_cfg){
		.product_id = 0x6000,
		.core_mask = 0xFF,
		.l2_slices = 2,
		.bus_log2 = 7,
		.jm_major = 11,
		.jm_minor = 25,
		.api_features = 3,
		.max_buffers = 32,
	};
}

static uint32_t fls64(uint64_t v)
{
	return v ? 64u - (uint32_t)__builtin_clzll(v) : 0u;
}

static uint32_t n_blocks(const struct fake_kbase *fk)
{
	return 2u + fk->cfg.l2_slices + fls64(fk->cfg.core_mask);
}

uint32_t fake_kbase_word(const struct fake_kbase *fk, uint32_t dump_no, uint32_t block_no,
                         uint32_t index)
{
	if (index == 2)
		return 0xFFFFFFFFu; /* PRFCNT_EN */
	if (index < 4)
		return 0xDEAD0000u | index;
	uint32_t first_core = 2u + fk->cfg.l2_slices;
	if (block_no >= first_core && !(fk->cfg.core_mask >> (block_no - first_core) & 1u))
		return 0xBAD0BAD0u; /* a hole: must never be read */
	if (fk->cfg.zero_dumps)
		return 0;
	return dump_no * 100000u + block_no * 64u + index;
}

uint64_t fake_kbase_expected(const struct fake_kbase *fk, uint32_t dump_no, uint32_t type,
                             uint32_t index)
{
	uint32_t first_core = 2u + fk->cfg.l2_slices;
	uint64_t sum = 0;
	switch (type) {
	case 0:
		return fake_kbase_word(fk, dump_no, 0, index);
	case 1:
		return fake_kbase_word(fk, dump_no, 1, index);
	case 2:
		for (uint32_t s = 0; s < fk->cfg.l2_slices; s++)
			sum += fake_kbase_word(fk, dump_no, 2 + s, index);
		return sum;
	default:
		for (uint32_t c = 0; c < 64; c++)
			if (fk->cfg.core_mask >> c & 1u)
				sum += fake_kbase_word(fk, dump_no, first_core + c, index);
		return sum;
	}
}

static bool inject_eintr(struct fake_kbase *fk)
{
	return fk->cfg.eintr && (fk->call_no++ % 2 == 0);
}

static int fail(int e)
{
	errno = e;
	return -1;
}

static int f_open(void *ctx, const char *path, int flags, mode_t mode)
{
	struct fake_kbase *fk = self(ctx);
	(void)flags;
	(void)mode;
	if (strcmp(path, "/dev/mali0") != 0)
		return fail(ENOENT);
	if (fk->cfg.open_errno)
		return fail(fk->cfg.open_errno);
	fk->open_fds++;
	return DEV_FD;
}

static int f_close(void *ctx, int fd)
{
	struct fake_kbase *fk = self(ctx);
	if (fd != DEV_FD && fd != READER_FD)
		return fail(EBADF);
	fk->open_fds--;
	return 0;
}

static void put_prop(uint8_t *b, size_t *off, uint32_t id, uint32_t code, uint64_t v)
{
	uint32_t key = id << 2 | code; /* the blob is little-endian, as is its value */
	for (size_t i = 0; i < 4; i++)
		b[*off + i] = (uint8_t)(key >> (8 * i));
	*off += 4;
	size_t n = (size_t)1 << code;
	for (size_t i = 0; i < n; i++)
		b[*off + i] = (uint8_t)(v >> (8 * i));
	*off += n;
}

static size_t build_props(const struct fake_kbase *fk, uint8_t *b)
{
	size_t off = 0;
	put_prop(b, &off, 1, 2, fk->cfg.product_id);               /* PRODUCT_ID */
	put_prop(b, &off, 3, 1, 2);                                /* MINOR_REVISION */
	put_prop(b, &off, 90, 1, 0x1234);                          /* unknown: skipped */
	put_prop(b, &off, 15, 0, fk->cfg.l2_slices);               /* L2_NUM_L2_SLICES */
	put_prop(b, &off, 25, 3, fk->cfg.core_mask);               /* RAW_SHADER_PRESENT */
	put_prop(b, &off, 29, 2, (uint64_t)fk->cfg.bus_log2 << 24 | 0x07120206u); /* L2_FEATURES */
	put_prop(b, &off, 55, 2, (uint64_t)fk->cfg.product_id << 16 | 0x0021u); /* RAW_GPU_ID */
	put_prop(b, &off, 62, 0, 1);                               /* NUM_CORE_GROUPS */
	put_prop(b, &off, 64, 3, fk->cfg.core_mask);               /* COHERENCY_GROUP_0 */
	if (fk->cfg.truncate_props)
		off -= 3;
	return off;
}

static void fill_buffer(struct fake_kbase *fk)
{
	uint32_t count = fk->buffer_count;
	uint32_t slot = fk->write_idx % count;
	uint32_t dump_no = (uint32_t)++fk->dumps;
	uint32_t *w = (uint32_t *)(void *)(fk->ring + (size_t)slot * fk->buffer_size);
	uint32_t nb = n_blocks(fk);
	for (uint32_t b = 0; b < nb; b++)
		for (uint32_t i = 0; i < 64; i++)
			w[b * 64 + i] = fake_kbase_word(fk, dump_no, b, i);
	fk->ring_dump_no[slot] = dump_no;
	fk->write_idx++;
}

/* Dumps asked for while they "never arrived" arrive once the switch is off. */
static void deliver_pending(struct fake_kbase *fk)
{
	while (!fk->cfg.dumps_never_arrive && fk->pending > 0 &&
	       fk->write_idx - fk->read_idx < fk->buffer_count) {
		fk->pending--;
		fill_buffer(fk);
	}
}

static int reader_ioctl(struct fake_kbase *fk, unsigned long req, void *arg)
{
	switch (req) {
	case 0x4008BEFFu: /* GET_API_VERSION_WITH_FEATURES */
		if (fk->cfg.old_reader)
			return fail(EINVAL);
		((uint32_t *)arg)[0] = 1;
		((uint32_t *)arg)[1] = fk->cfg.api_features;
		return 0;
	case 0x4004BEFFu: /* GET_API_VERSION */
		*(uint32_t *)arg = 1;
		return 0;
	case 0x8004BE00u: /* GET_HWVER */
		*(uint32_t *)arg = fk->cfg.hwver ? fk->cfg.hwver : 5;
		return 0;
	case 0x8004BE01u: /* GET_BUFFER_SIZE */
		*(uint32_t *)arg = (uint32_t)((int32_t)fk->buffer_size + fk->cfg.buffer_size_delta);
		return 0;
	case 0x4004BE11u: /* CLEAR */
		fk->clears++;
		return 0;
	case 0x4004BE10u: /* DUMP */
		if (fk->cfg.vanish_after_dumps > 0 && fk->dumps >= fk->cfg.vanish_after_dumps) {
			fk->vanished = true;
			return fail(ENODEV);
		}
		deliver_pending(fk);
		if (fk->write_idx - fk->read_idx + (uint32_t)fk->pending >= fk->buffer_count)
			return fail(EBUSY);
		if (fk->cfg.dumps_never_arrive)
			fk->pending++;
		else
			fill_buffer(fk);
		return 0;
	case 0x8010BE20u: /* GET_BUFFER */
	case 0x8020BE20u: /* GET_BUFFER_WITH_CYCLES */
		if (req == 0x8020BE20u && fk->cfg.old_reader)
			return fail(EINVAL);
		deliver_pending(fk);
		if (fk->held)
			return fail(EBUSY);
		if (fk->write_idx == fk->read_idx)
			return fail(EAGAIN);
		{
			uint32_t slot = fk->read_idx % fk->buffer_count;
			uint32_t dump_no = fk->ring_dump_no[slot];
			size_t n = req == 0x8020BE20u ? 32 : 16;
			uint8_t md[32] = {0};
			uint64_t ts = 1000u * dump_no, top = 7u * dump_no, sc = 5u * dump_no;
			uint32_t ev = 0, idx = fk->cfg.bad_buffer_idx ? fk->buffer_count + 3 : slot;
			memcpy(md, &ts, 8);
			memcpy(md + 8, &ev, 4);
			memcpy(md + 12, &idx, 4);
			memcpy(md + 16, &top, 8);
			memcpy(md + 24, &sc, 8);
			memcpy(arg, md, n);
			if (n == 32)
				fk->long_gets++;
			else
				fk->short_gets++;
			fk->held = true;
			fk->held_idx = idx;
			fk->last_dump_no = dump_no;
		}
		return 0;
	case 0x4010BE21u: /* PUT_BUFFER */
	case 0x4020BE21u: /* PUT_BUFFER_WITH_CYCLES */
		if (!fk->held)
			return fail(EPERM);
		{
			uint32_t idx;
			memcpy(&idx, (uint8_t *)arg + 12, 4);
			if (idx != fk->held_idx)
				return fail(EINVAL);
		}
		fk->held = false;
		fk->read_idx++;
		return 0;
	default:
		return fail(EINVAL);
	}
}

static int f_ioctl(void *ctx, int fd, unsigned long req, void *arg)
{
	struct fake_kbase *fk = self(ctx);
	if (inject_eintr(fk))
		return fail(EINTR);
	if (fk->vanished)
		return fail(ENODEV);
	req = OG_TEST_GENERIC_IOCTL(req);
	if (fd == READER_FD)
		return reader_ioctl(fk, req, arg);
	if (fd != DEV_FD)
		return fail(EBADF);
	switch (req) {
	case 0xC0048000u: /* VERSION_CHECK (JM) */
		if (fk->cfg.csf)
			return fail(EPERM);
		if (fk->cfg.legacy || fk->cfg.not_kbase)
			return fail(ENOTTY);
		((uint16_t *)arg)[0] = fk->cfg.jm_major;
		((uint16_t *)arg)[1] = fk->cfg.jm_minor;
		return 0;
	case 0xC0048034u: /* VERSION_CHECK (CSF) */
		if (!fk->cfg.csf)
			return fail(fk->cfg.legacy || fk->cfg.not_kbase ? ENOTTY : EPERM);
		((uint16_t *)arg)[0] = 1;
		((uint16_t *)arg)[1] = 10;
		return 0;
	case 0xC0108000u: /* pre-r21 UK VERSION_CHECK */
		if (!fk->cfg.legacy)
			return fail(ENOTTY);
		((uint16_t *)arg)[4] = 10;
		((uint16_t *)arg)[5] = 2;
		return 0;
	case 0x40048001u: /* SET_FLAGS */
		fk->flags_set = *(uint32_t *)arg;
		return 0;
	case 0x40108003u: /* GET_GPUPROPS */ {
		uint8_t blob[256];
		size_t len = build_props(fk, blob);
		uint64_t buf;
		uint32_t size;
		memcpy(&buf, arg, 8);
		memcpy(&size, (uint8_t *)arg + 8, 4);
		if (size == 0)
			return (int)len;
		if (size < len)
			return fail(EINVAL);
		memcpy((void *)(uintptr_t)buf, blob, len);
		return (int)len;
	}
	case 0x40148008u: /* HWCNT_READER_SETUP */ {
		uint32_t s[5];
		memcpy(s, arg, sizeof s);
		if (fk->setup_calls < 8)
			fk->setup_counts[fk->setup_calls] = s[0];
		fk->setup_calls++;
		if (s[0] == 0 || s[0] > 32 || (s[0] & (s[0] - 1)))
			return fail(EINVAL);
		if (s[1] != ~0u || s[2] != ~0u || s[3] != ~0u || s[4] != ~0u)
			return fail(EINVAL); /* the tests want every counter enabled */
		if (fk->cfg.setup_ebusy)
			return fail(EBUSY);
		if (s[0] > fk->cfg.max_buffers)
			return fail(ENOMEM);
		fk->buffer_count = s[0];
		fk->buffer_size = (size_t)n_blocks(fk) * BLOCK_BYTES;
		fk->ring = calloc(s[0], fk->buffer_size);
		fk->open_fds++;
		return READER_FD;
	}
	default:
		return fail(EINVAL);
	}
}

static void *f_mmap(void *ctx, void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	struct fake_kbase *fk = self(ctx);
	(void)addr;
	(void)flags;
	if (fd != READER_FD || off != 0 || (prot & PROT_WRITE) || !fk->ring ||
	    len > (size_t)fk->buffer_count * fk->buffer_size) {
		errno = EINVAL;
		return MAP_FAILED;
	}
	fk->mapped++;
	return fk->ring;
}

static int f_munmap(void *ctx, void *addr, size_t len)
{
	struct fake_kbase *fk = self(ctx);
	(void)len;
	if (addr != fk->ring)
		return fail(EINVAL);
	fk->mapped--;
	return 0;
}

static int f_poll(void *ctx, struct pollfd *fds, nfds_t n, int timeout)
{
	struct fake_kbase *fk = self(ctx);
	(void)timeout; /* a closed world: "waiting" never changes anything */
	if (fk->cfg.poll_eintr_always || inject_eintr(fk))
		return fail(EINTR);
	int ready = 0;
	for (nfds_t i = 0; i < n; i++) {
		fds[i].revents = 0;
		if (fds[i].fd != READER_FD) {
			fds[i].revents = POLLNVAL;
		} else if (fk->vanished) {
			fds[i].revents = POLLHUP;
		} else {
			deliver_pending(fk);
			if (fk->write_idx != fk->read_idx && !fk->held)
				fds[i].revents = POLLIN;
		}
		ready += fds[i].revents != 0;
	}
	return ready;
}

static ssize_t f_read(void *ctx, int fd, void *buf, size_t len)
{
	(void)ctx;
	(void)fd;
	(void)buf;
	(void)len;
	errno = EINVAL;
	return -1;
}

static ssize_t f_write(void *ctx, int fd, const void *buf, size_t len)
{
	(void)ctx;
	(void)fd;
	(void)buf;
	(void)len;
	errno = EINVAL;
	return -1;
}

static int f_perf_event_open(void *ctx, struct perf_event_attr *attr, pid_t pid, int cpu,
                             int group_fd, unsigned long flags)
{
	(void)ctx;
	(void)attr;
	(void)pid;
	(void)cpu;
	(void)group_fd;
	(void)flags;
	errno = ENOSYS;
	return -1;
}

void fake_kbase_init(struct fake_kbase *fk, const struct fake_kbase_cfg *cfg)
{
	memset(fk, 0, sizeof *fk);
	fk->cfg = *cfg;
	fk->sys = (struct og_sys){
		.ctx = fk,
		.open = f_open,
		.close = f_close,
		.ioctl = f_ioctl,
		.mmap = f_mmap,
		.munmap = f_munmap,
		.poll = f_poll,
		.read = f_read,
		.write = f_write,
		.perf_event_open = f_perf_event_open,
	};
}

void fake_kbase_fini(struct fake_kbase *fk)
{
	free(fk->ring);
	fk->ring = NULL;
}
