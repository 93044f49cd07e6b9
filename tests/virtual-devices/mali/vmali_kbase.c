/* SPDX-License-Identifier: MIT */
/*
 * vmali_kbase.c — the /dev/mali0 ioctls (reference §1, kinstr sheet §1):
 * version handshake, context flags, the properties blob, CSF's global
 * interface, the hwcnt reader (until JM 11.40 / CSF 1.21), kinstr_prfcnt
 * (from JM 11.34 / CSF 1.10) and the DDK version.  Before SET_FLAGS only the
 * handshake, SET_FLAGS, GET_GPUPROPS and kinstr_prfcnt are accepted;
 * everything else is EPERM.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vmali_internal.h"

#define DDK_VERSION "K:r26p0-01rel0(GPL) vmali"

bool vmali_uk_at_least(const struct vmali_config *c, uint16_t jm_minor, uint16_t csf_minor)
{
	uint16_t major = c->csf ? 1 : 11, minor = c->csf ? csf_minor : jm_minor;
	return c->uk_major > major || (c->uk_major == major && c->uk_minor >= minor);
}

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

static bool reader_removed(const struct vmali *vm)
{
	return vmali_uk_at_least(&vm->cfg, 40, 21) || vm->faults.vinstr_absent;
}

/* CSF only; libGPUCounters asks with everything zero (no group or stream
 * arrays) and keeps glb_version.  Arrays are not modelled. */
static int cs_get_glb_iface(struct vmali *vm, void *arg)
{
	if (!arg) {
		errno = EFAULT;
		return -1;
	}
	struct vmali_cs_get_glb_iface_in in;
	memcpy(&in, arg, sizeof(in));
	if (in.max_group_num || in.max_total_stream_num) {
		errno = EINVAL;
		return -1;
	}
	const struct vmali_geom *g = &vm->geom;
	uint32_t hw_bytes = (g->count[VMALI_BLOCK_FE] + g->count[VMALI_BLOCK_TILER] +
	                     g->l2_slices + g->sc_blocks) * g->values * 4u;
	uint32_t fw_bytes = g->count[VMALI_BLOCK_FW] * g->values * 4u;
	struct vmali_cs_get_glb_iface_out out = {
		.glb_version = 0x00030000u, /* 3.0 */
		.features = 0x3,
		.group_num = 8,
		.prfcnt_size = (fw_bytes & 0xFFFFu) << 16 | (hw_bytes & 0xFFFFu),
		.total_stream_num = 32,
		.instr_features = 0x71,
	};
	memcpy(arg, &out, sizeof(out));
	return 0;
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
	case VMALI_KBASE_KINSTR_ENUM_INFO:
		return vmali_kinstr_enum_info(vm, arg);
	case VMALI_KBASE_KINSTR_SETUP:
		return vmali_kinstr_setup(vm, arg);
	default:
		break;
	}
	if (!ctx->flags_done) {
		errno = EPERM;
		return -1;
	}
	switch (req) {
	case VMALI_KBASE_CS_GET_GLB_IFACE:
		if (!vm->cfg.csf)
			break;
		return cs_get_glb_iface(vm, arg);
	case VMALI_KBASE_HWCNT_READER_SETUP: {
		if (reader_removed(vm))
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
