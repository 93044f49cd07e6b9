/* SPDX-License-Identifier: MIT */
/*
 * vmali_panfrost.c — the render node (reference §6): for a job-manager GPU,
 * panfrost's DRM_IOCTL_VERSION, GET_PARAM and the unstable PERFCNT_ENABLE /
 * PERFCNT_DUMP pair.  One file may own the counters; DUMP copies the whole
 * (2 + L2 + fls64(shader_present)) block image and restarts counting, as the
 * hardware resets on each sample.  For a command-stream GPU the node is
 * panthor's (kinstr sheet §7): it answers DRM_IOCTL_VERSION and has no
 * counter ioctls.
 */
#include <errno.h>
#include <string.h>

#include "vmali_internal.h"

static void copy_str(const char *s, size_t *len, char *dst)
{
	size_t n = strlen(s);
	/* DRM copies at most the caller's length and reports the full one. */
	if (dst && *len)
		memcpy(dst, s, n < *len ? n : *len);
	*len = n;
}

static int drm_version(const struct vmali *vm, void *arg)
{
	if (!arg) {
		errno = EFAULT;
		return -1;
	}
	struct vmali_drm_version v;
	memcpy(&v, arg, sizeof(v));
	v.version_major = 1;
	v.version_minor = 2;
	v.version_patchlevel = 0;
	bool panthor = vm->cfg.csf;
	copy_str(panthor ? "panthor" : "panfrost", &v.name_len, v.name);
	copy_str(panthor ? "20230801" : "20180908", &v.date_len, v.date);
	copy_str(panthor ? "Panthor DRM driver" : "panfrost DRM", &v.desc_len, v.desc);
	memcpy(arg, &v, sizeof(v));
	return 0;
}

static int get_param(struct vmali *vm, void *arg)
{
	if (!arg) {
		errno = EFAULT;
		return -1;
	}
	struct vmali_panfrost_get_param p;
	memcpy(&p, arg, sizeof(p));
	if (p.pad) {
		errno = EINVAL;
		return -1;
	}
	const struct vmali_config *c = &vm->cfg;
	switch (p.param) {
	case VMALI_PF_GPU_PROD_ID:
		p.value = c->gpu_id;
		break;
	case VMALI_PF_GPU_REVISION:
		p.value = vmali_gpu_id_raw(vm) & 0xFFFF;
		break;
	case VMALI_PF_SHADER_PRESENT:
		p.value = c->core_mask;
		break;
	case VMALI_PF_TILER_PRESENT:
		p.value = 1;
		break;
	case VMALI_PF_L2_PRESENT:
		p.value = (1ull << c->l2_slices) - 1;
		break;
	case VMALI_PF_AS_PRESENT:
		p.value = 0xFF;
		break;
	case VMALI_PF_JS_PRESENT:
		p.value = 0x7;
		break;
	case VMALI_PF_L2_FEATURES:
		p.value = vmali_l2_features(vm);
		break;
	case VMALI_PF_MEM_FEATURES:
		p.value = vmali_mem_features(vm);
		break;
	case VMALI_PF_NR_CORE_GROUPS:
		p.value = 1;
		break;
	default:
		/* Every other parameter exists upstream; a register we do not
		 * model reads as zero, anything past the list is EINVAL. */
		if (p.param > VMALI_PF_THREAD_TLS_ALLOC + 1) {
			errno = EINVAL;
			return -1;
		}
		p.value = 0;
		break;
	}
	memcpy(arg, &p, sizeof(p));
	return 0;
}

static void clear_acc(struct vmali *vm)
{
	memset(vm->pf_acc, 0, vmali_counts_len(vm) * sizeof(uint64_t));
}

static int perfcnt_enable(struct vmali *vm, struct vmali_fd *f, const void *arg)
{
	if (!arg) {
		errno = EFAULT;
		return -1;
	}
	struct vmali_panfrost_perfcnt_enable e;
	memcpy(&e, arg, sizeof(e));
	/* Bifrost has two counter sets (0, 1). */
	if (e.counterset > 1) {
		errno = EINVAL;
		return -1;
	}
	if (!e.enable) {
		if (vm->pf_owner_fd != f->fd) {
			errno = EINVAL;
			return -1;
		}
		vm->pf_owner_fd = -1;
		return 0;
	}
	if (vm->pf_owner_fd == f->fd)
		return 0; /* re-enable by the owner is a no-op */
	if (vm->pf_owner_fd >= 0) {
		errno = EBUSY;
		return -1;
	}
	vm->pf_owner_fd = f->fd;
	vm->pf_counterset = e.counterset;
	clear_acc(vm);
	return 0;
}

static int perfcnt_dump(struct vmali *vm, struct vmali_fd *f, const void *arg)
{
	if (!arg) {
		errno = EFAULT;
		return -1;
	}
	struct vmali_panfrost_perfcnt_dump d;
	memcpy(&d, arg, sizeof(d));
	if (vm->pf_owner_fd != f->fd) {
		errno = EINVAL;
		return -1;
	}
	if (!d.buf_ptr) {
		errno = EFAULT;
		return -1;
	}
	if (vm->faults.dumps_never_arrive) {
		errno = ETIMEDOUT; /* the kernel waits 1 s for sample-done */
		return -1;
	}
	vmali_advance_for_dump(vm);
	/* Set 1 selects counters this model does not produce: they read 0. */
	if (vm->pf_counterset != 0)
		clear_acc(vm);
	uint32_t *out = (uint32_t *)(uintptr_t)d.buf_ptr;
	vmali_write_dump(vm, vm->pf_acc, NULL, out);
	/* The driver copies the GPU's buffer as the GPU wrote it: little-endian
	 * words, whatever the CPU.  (The kbase reader's dumps are the kernel's
	 * own, in CPU order.) */
	for (size_t i = 0; __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ &&
	                   i < (size_t)vm->geom.nblocks * VMALI_COUNTERS_PER_BLOCK; i++)
		out[i] = __builtin_bswap32(out[i]);
	clear_acc(vm);
	vm->stats.dumps++;
	return 0;
}

int vmali_panfrost_ioctl(struct vmali *vm, struct vmali_fd *f, unsigned long req, void *arg)
{
	if (req == VMALI_DRM_IOCTL_VERSION)
		return drm_version(vm, arg);
	if (vm->cfg.csf) {
		/* panthor's own commands are not modelled; none reads counters. */
		errno = _IOC_TYPE(req) == VMALI_DRM_MAGIC ? EINVAL : ENOTTY;
		return -1;
	}
	switch (req) {
	case VMALI_PANFROST_GET_PARAM:
		return get_param(vm, arg);
	case VMALI_PANFROST_PERFCNT_ENABLE:
	case VMALI_PANFROST_PERFCNT_DUMP:
		/* The DRM core copies the argument in before the driver's
		 * unstable-ioctls check runs: a bad pointer is EFAULT either way. */
		if (!arg) {
			errno = EFAULT;
			return -1;
		}
		if (!vm->cfg.panfrost_unstable_ioctls) {
			errno = ENOSYS;
			return -1;
		}
		return req == VMALI_PANFROST_PERFCNT_ENABLE ? perfcnt_enable(vm, f, arg)
		                                            : perfcnt_dump(vm, f, arg);
	default:
		/* The DRM core: ENOTTY for another ioctl type, EINVAL for a DRM
		 * command it (or the driver's table) does not have. */
		errno = _IOC_TYPE(req) == VMALI_DRM_MAGIC ? EINVAL : ENOTTY;
		return -1;
	}
}

void vmali_panfrost_release(struct vmali *vm, struct vmali_fd *f)
{
	if (vm->pf_owner_fd == f->fd)
		vm->pf_owner_fd = -1;
}
