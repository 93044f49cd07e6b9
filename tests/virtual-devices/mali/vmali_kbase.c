/* SPDX-License-Identifier: MIT */
/*
 * vmali_kbase.c — the /dev/mali0 ioctls (reference §1): version handshake,
 * context flags, the properties blob, the hwcnt reader and the DDK version.
 * Before SET_FLAGS only the handshake, SET_FLAGS, GET_GPUPROPS and the
 * kinstr_prfcnt enumeration are accepted; everything else is EPERM.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vmali_internal.h"

#define KINSTR_PRFCNT_ENUM_INFO 0xC0108038ul
#define KINSTR_PRFCNT_SETUP 0xC0108039ul
#define DDK_VERSION "K:r26p0-01rel0(GPL) vmali"

static int version_check(struct vmali *vm, struct vmali_kbase_ctx *ctx, void *arg)
{
	if (!arg) {
		errno = EFAULT;
		return -1;
	}
	struct vmali_kbase_version_check v;
	memcpy(&v, arg, sizeof(v));
	/* Same major: the lower minor wins; otherwise the kernel's version. */
	if (v.major == vm->cfg.uk_major) {
		if (v.minor > vm->cfg.uk_minor)
			v.minor = vm->cfg.uk_minor;
	} else {
		v.major = vm->cfg.uk_major;
		v.minor = vm->cfg.uk_minor;
	}
	memcpy(arg, &v, sizeof(v));
	ctx->version_done = true;
	return 0;
}

static int set_flags(struct vmali_kbase_ctx *ctx, const void *arg)
{
	if (!arg) {
		errno = EFAULT;
		return -1;
	}
	struct vmali_kbase_set_flags f;
	memcpy(&f, arg, sizeof(f));
	if (!ctx->version_done || ctx->flags_done) {
		errno = EPERM; /* handshake first; a context is set up once */
		return -1;
	}
	if (f.create_flags & ~VMALI_KBASE_FLAGS_ALLOWED) {
		errno = EINVAL;
		return -1;
	}
	ctx->flags_done = true;
	return 0;
}

static int get_gpuprops(struct vmali *vm, const void *arg)
{
	if (!arg) {
		errno = EFAULT;
		return -1;
	}
	struct vmali_kbase_get_gpuprops p;
	memcpy(&p, arg, sizeof(p));
	if (p.flags) {
		errno = EINVAL;
		return -1;
	}
	size_t need = vmali_props_build(vm, NULL, 0);
	if (p.size == 0)
		return (int)need;
	if (p.size < need) {
		errno = EINVAL;
		return -1;
	}
	if (!p.buffer) {
		errno = EFAULT;
		return -1;
	}
	vmali_props_build(vm, (uint8_t *)(uintptr_t)p.buffer, p.size);
	return (int)need - (vm->faults.props_truncated ? 3 : 0);
}

static int get_ddk_version(const void *arg)
{
	if (!arg) {
		errno = EFAULT;
		return -1;
	}
	struct vmali_kbase_get_ddk_version d;
	memcpy(&d, arg, sizeof(d));
	size_t len = sizeof(DDK_VERSION); /* NUL included */
	if (!d.version_buffer)
		return (int)len;
	if (d.size < len) {
		errno = EOVERFLOW;
		return -1;
	}
	memcpy((void *)(uintptr_t)d.version_buffer, DDK_VERSION, len);
	return (int)len;
}

static bool reader_removed(const struct vmali_config *c)
{
	if (c->csf)
		return c->uk_major > 1 || (c->uk_major == 1 && c->uk_minor >= 21);
	return c->uk_major > 11 || (c->uk_major == 11 && c->uk_minor >= 40);
}

int vmali_kbase_ioctl(struct vmali *vm, struct vmali_fd *f, unsigned long req, void *arg)
{
	struct vmali_kbase_ctx *ctx = &f->u.kbase;
	switch (req) {
	case VMALI_KBASE_VERSION_CHECK_JM:
	case VMALI_KBASE_VERSION_CHECK_CSF:
		/* The other interface's number is VERSION_CHECK_RESERVED. */
		if ((req == VMALI_KBASE_VERSION_CHECK_CSF) != vm->cfg.csf) {
			errno = EPERM;
			return -1;
		}
		return version_check(vm, ctx, arg);
	case VMALI_KBASE_SET_FLAGS:
		return set_flags(ctx, arg);
	case VMALI_KBASE_GET_GPUPROPS:
		return get_gpuprops(vm, arg);
	case KINSTR_PRFCNT_ENUM_INFO:
	case KINSTR_PRFCNT_SETUP:
		errno = ENOTTY; /* kinstr_prfcnt is not modelled */
		return -1;
	default:
		break;
	}
	if (!ctx->flags_done) {
		errno = EPERM;
		return -1;
	}
	switch (req) {
	case VMALI_KBASE_HWCNT_READER_SETUP: {
		if (reader_removed(&vm->cfg))
			break;
		if (!arg) {
			errno = EFAULT;
			return -1;
		}
		struct vmali_kbase_hwcnt_reader_setup s;
		memcpy(&s, arg, sizeof(s));
		return vmali_reader_setup(vm, &s);
	}
	case VMALI_KBASE_GET_DDK_VERSION:
		return get_ddk_version(arg);
	default:
		break;
	}
	errno = ENOTTY;
	return -1;
}
