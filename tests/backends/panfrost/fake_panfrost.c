/* SPDX-License-Identifier: MIT */
/* fake_panfrost.c — see fake_panfrost.h. */
#include "fake_panfrost.h"

#include "../../common/ioctl_generic.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/mman.h>
#include <libdrm/drm.h>

#define FOREIGN_FD 200
#define PANFROST_FD 201

static int fail(int e)
{
	errno = e;
	return -1;
}

struct fake_panfrost_cfg fake_panfrost_g71_mp4(void)
{
	return (struct fake_panfrost_cfg){
		.product_id = 0x6000, .shader_present = 0xF, .l2_slices = 1, .bus_log2 = 7,
	};
}

static uint32_t fls64(uint64_t v)
{
	return v ? 64u - (uint32_t)__builtin_clzll(v) : 0u;
}

uint32_t fake_panfrost_word(const struct fake_panfrost *fp, uint32_t dump_no, uint32_t block,
                            uint32_t index)
{
	uint32_t first_core = 2u + fp->cfg.l2_slices;
	if (index < 4)
		return index == 2 ? 0xFFFFFFFFu : 0xDEADu;
	if (block >= first_core && !(fp->cfg.shader_present >> (block - first_core) & 1u))
		return 0xBAD0BAD0u;
	return fp->cfg.zero_dumps ? 0 : dump_no * 1000u + block * 64u + index;
}

uint64_t fake_panfrost_expected(const struct fake_panfrost *fp, uint32_t dump_no, uint32_t type,
                                uint32_t index)
{
	uint64_t sum = 0;
	if (type < 2)
		return fake_panfrost_word(fp, dump_no, type, index);
	if (type == 2) {
		for (uint32_t s = 0; s < fp->cfg.l2_slices; s++)
			sum += fake_panfrost_word(fp, dump_no, 2 + s, index);
		return sum;
	}
	for (uint32_t c = 0; c < 64; c++)
		if (fp->cfg.shader_present >> c & 1u)
			sum += fake_panfrost_word(fp, dump_no, 2 + fp->cfg.l2_slices + c, index);
	return sum;
}

static int f_open(void *ctx, const char *path, int flags, mode_t mode)
{
	struct fake_panfrost *fp = ctx;
	(void)flags;
	(void)mode;
	int fd;
	if (strcmp(path, "/dev/dri/renderD128") == 0)
		fd = FOREIGN_FD;
	else if (strcmp(path, "/dev/dri/renderD129") == 0 && !fp->cfg.no_panfrost)
		fd = PANFROST_FD;
	else
		return fail(ENOENT);
	if (fp->cfg.open_errno)
		return fail(fp->cfg.open_errno);
	fp->open_fds++;
	return fd;
}

static int f_close(void *ctx, int fd)
{
	struct fake_panfrost *fp = ctx;
	if (fd != FOREIGN_FD && fd != PANFROST_FD)
		return fail(EBADF);
	if (fd == PANFROST_FD)
		fp->enabled = false; /* closing the file drops ownership */
	fp->open_fds--;
	return 0;
}

static int version(struct drm_version *v, const char *name)
{
	size_t n = strlen(name);
	if (v->name && v->name_len)
		memcpy(v->name, name, n < v->name_len ? n : v->name_len);
	v->name_len = n;
	v->version_major = 1;
	return 0;
}

static int f_ioctl(void *ctx, int fd, unsigned long req, void *arg)
{
	struct fake_panfrost *fp = ctx;
	if ((fp->cfg.eintr && fp->call_no++ % 2 == 0) || fp->cfg.signal_storm)
		return fail(EINTR);
	if (fd == FOREIGN_FD)
		return req == DRM_IOCTL_VERSION ? version(arg, "vc4") : fail(ENOTTY);
	if (fd != PANFROST_FD)
		return fail(EBADF);
	if (fp->vanished)
		return fail(ENODEV);
	switch (OG_TEST_GENERIC_IOCTL(req)) {
	case OG_TEST_GENERIC_IOCTL(DRM_IOCTL_VERSION):
		return version(arg, "panfrost");
	case 0xC0106444u: { /* GET_PARAM */
		uint32_t param;
		uint64_t value;
		memcpy(&param, arg, 4);
		switch (param) {
		case 0: value = fp->cfg.product_id; break;
		case 1: value = 0x0021; break;
		case 2: value = fp->cfg.shader_present; break;
		case 8: value = (uint64_t)fp->cfg.bus_log2 << 24 | 0x07120206u; break;
		case 11: value = (uint64_t)(fp->cfg.l2_slices - 1) << 8 | 0x1; break;
		default: return fail(EINVAL);
		}
		memcpy((uint8_t *)arg + 8, &value, 8);
		return 0;
	}
	case 0x40086446u: { /* PERFCNT_ENABLE */
		uint32_t en[2];
		memcpy(en, arg, 8);
		if (fp->cfg.unstable_off)
			return fail(ENOSYS);
		if (fp->cfg.owned_elsewhere)
			return fail(EBUSY);
		if (en[1] != 0)
			return fail(EINVAL);
		if (en[0]) {
			fp->enables++;
			fp->enabled = true;
		} else {
			fp->disables++;
			fp->enabled = false;
		}
		return 0;
	}
	case 0x40086447u: { /* PERFCNT_DUMP */
		if (fp->cfg.unstable_off)
			return fail(ENOSYS);
		if (!fp->enabled)
			return fail(EINVAL);
		if (fp->cfg.dump_timeout)
			return fail(ETIMEDOUT);
		if (fp->cfg.vanish_after_dumps > 0 && fp->dumps >= (uint32_t)fp->cfg.vanish_after_dumps) {
			fp->vanished = true;
			return fail(ENODEV);
		}
		uint64_t ptr;
		memcpy(&ptr, arg, 8);
		uint32_t *w = (uint32_t *)(uintptr_t)ptr;
		uint32_t blocks = 2u + fp->cfg.l2_slices + fls64(fp->cfg.shader_present);
		uint32_t no = ++fp->dumps;
		for (uint32_t b = 0; b < blocks; b++)
			for (uint32_t i = 0; i < 64; i++)
				w[b * 64 + i] = fake_panfrost_word(fp, no, b, i);
		return 0;
	}
	default:
		return fail(ENOTTY);
	}
}

static void *f_mmap(void *ctx, void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	(void)ctx, (void)addr, (void)len, (void)prot, (void)flags, (void)fd, (void)off;
	errno = ENODEV;
	return MAP_FAILED;
}

static int f_munmap(void *ctx, void *addr, size_t len)
{
	(void)ctx, (void)addr, (void)len;
	return fail(EINVAL);
}

static int f_poll(void *ctx, struct pollfd *fds, nfds_t n, int timeout)
{
	(void)ctx, (void)fds, (void)n, (void)timeout;
	return fail(EINVAL);
}

static ssize_t f_read(void *ctx, int fd, void *buf, size_t len)
{
	(void)ctx, (void)fd, (void)buf, (void)len;
	return fail(EINVAL);
}

static ssize_t f_write(void *ctx, int fd, const void *buf, size_t len)
{
	(void)ctx, (void)fd, (void)buf, (void)len;
	return fail(EINVAL);
}

static int f_perf(void *ctx, struct perf_event_attr *a, pid_t p, int c, int g, unsigned long f)
{
	(void)ctx, (void)a, (void)p, (void)c, (void)g, (void)f;
	return fail(ENOSYS);
}

void fake_panfrost_init(struct fake_panfrost *fp, const struct fake_panfrost_cfg *cfg)
{
	memset(fp, 0, sizeof *fp);
	fp->cfg = *cfg;
	/* By name: og_sys grows optional members a render node has no use for. */
	fp->sys = (struct og_sys){.ctx = fp, .open = f_open, .close = f_close, .ioctl = f_ioctl,
	                          .mmap = f_mmap, .munmap = f_munmap, .poll = f_poll,
	                          .read = f_read, .write = f_write, .perf_event_open = f_perf};
}
