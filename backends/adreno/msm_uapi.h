/* SPDX-License-Identifier: MIT */
/*
 * msm_uapi.h — upstream msm DRM's GET_PARAM and its 2026 counter stream,
 * DRM_IOCTL_MSM_PERFCNTR_CONFIG, restated from the facts of
 * ../shared/reference/adreno-kgsl.md §2.1 and §2.3 (field orders, sizes,
 * request numbers, the record format; no header text is copied).
 *
 * Every struct has one layout on all ABIs (pointers travel as u64), so the
 * 32- and 64-bit clients send the same bytes and the same request numbers;
 * the asserts below pin both.
 */
#ifndef OPENGPA_ADRENO_MSM_UAPI_H
#define OPENGPA_ADRENO_MSM_UAPI_H

#include <stddef.h>
#include <stdint.h>

#include "ioctl_layout.h"

#define OG_MSM_RENDER_FMT "/dev/dri/renderD%u"
#define OG_MSM_RENDER_FIRST 128u
#define OG_MSM_RENDER_COUNT 8u /* renderD128 .. renderD135 are tried */

#define OG_DRM_IOC_TYPE 'd'
#define OG_DRM_COMMAND_BASE 0x40
#define OG_MSM_NR_GET_PARAM (OG_DRM_COMMAND_BASE + 0x00)
#define OG_MSM_NR_PERFCNTR_CONFIG (OG_DRM_COMMAND_BASE + 0x0E)

#define OG_MSM_PIPE_3D0 0x10u
#define OG_MSM_PARAM_GPU_ID 0x01u
#define OG_MSM_PARAM_GMEM_SIZE 0x02u
#define OG_MSM_PARAM_CHIP_ID 0x03u
#define OG_MSM_PARAM_MAX_FREQ 0x04u
#define OG_MSM_PARAM_TIMESTAMP 0x05u

#define OG_MSM_PERFCNTR_STREAM 0x1u
#define OG_MSM_PERFCNTR_UPDATE 0x2u
#define OG_MSM_BUFSZ_SHIFT_MAX 27u /* log2(128 MiB) */
#define OG_MSM_GROUP_NAME_LEN 16u
#define OG_MSM_TICK_HZ 19200000u   /* CP_ALWAYS_ON_COUNTER, the record's timestamp */

struct og_drm_msm_param {
	uint32_t pipe;  /* OG_MSM_PIPE_3D0 */
	uint32_t param; /* OG_MSM_PARAM_* */
	uint64_t value; /* out */
	uint32_t len;
	uint32_t pad;
};

struct og_drm_msm_perfcntr_group {
	char group_name[OG_MSM_GROUP_NAME_LEN]; /* "SP", "BV_TP": the kernel JSON's names */
	uint32_t nr_countables; /* in; with UPDATE and E2BIG, out: what is free */
	uint32_t pad;           /* must be 0 */
	uint64_t countables;    /* user pointer to nr_countables u32 selectors */
};

struct og_drm_msm_perfcntr_config {
	uint32_t flags;        /* OG_MSM_PERFCNTR_* */
	uint32_t nr_groups;
	uint64_t groups;       /* user pointer to nr_groups group structs */
	uint64_t period;       /* ns between records */
	uint32_t bufsz_shift;  /* the stream's buffer is 1 << bufsz_shift bytes */
	uint32_t group_stride; /* sizeof(struct og_drm_msm_perfcntr_group) */
};

/* Each period's record on the stream fd: this head, then one u64 per
 * requested countable, group by group in request order. */
struct og_msm_record_head {
	uint64_t timestamp; /* CP always-on ticks, 19.2 MHz */
	uint32_t seqno;     /* +1 per period, 0 after a discontinuity */
	uint32_t mbz;
};

#define OG_MSM_GET_PARAM \
	_IOC(_IOC_READ | _IOC_WRITE, OG_DRM_IOC_TYPE, OG_MSM_NR_GET_PARAM, sizeof(struct og_drm_msm_param))
/* _IOW on purpose: the stream's fd is the ioctl's return value. */
#define OG_MSM_PERFCNTR_CONFIG \
	_IOC(_IOC_WRITE, OG_DRM_IOC_TYPE, OG_MSM_NR_PERFCNTR_CONFIG, sizeof(struct og_drm_msm_perfcntr_config))

_Static_assert(sizeof(struct og_drm_msm_param) == 24, "drm_msm_param: 24 bytes");
_Static_assert(offsetof(struct og_drm_msm_param, value) == 8, "drm_msm_param.value");
_Static_assert(offsetof(struct og_drm_msm_param, len) == 16, "drm_msm_param.len");
_Static_assert(sizeof(struct og_drm_msm_perfcntr_group) == 32, "perfcntr_group: 32 bytes");
_Static_assert(offsetof(struct og_drm_msm_perfcntr_group, nr_countables) == 16, "group.nr");
_Static_assert(offsetof(struct og_drm_msm_perfcntr_group, pad) == 20, "group.pad");
_Static_assert(offsetof(struct og_drm_msm_perfcntr_group, countables) == 24, "group.countables");
_Static_assert(sizeof(struct og_drm_msm_perfcntr_config) == 32, "perfcntr_config: 32 bytes");
_Static_assert(offsetof(struct og_drm_msm_perfcntr_config, groups) == 8, "config.groups");
_Static_assert(offsetof(struct og_drm_msm_perfcntr_config, period) == 16, "config.period");
_Static_assert(offsetof(struct og_drm_msm_perfcntr_config, bufsz_shift) == 24, "config.shift");
_Static_assert(offsetof(struct og_drm_msm_perfcntr_config, group_stride) == 28, "config.stride");
_Static_assert(sizeof(struct og_msm_record_head) == 16, "record head: 16 bytes");
#if OG_IOC_GENERIC_LAYOUT
/* The numbers of the reference sheet (§2.1, §2.3), on every generic-layout ABI. */
_Static_assert(OG_MSM_GET_PARAM == 0xc0186440u, "DRM_IOCTL_MSM_GET_PARAM");
_Static_assert(OG_MSM_PERFCNTR_CONFIG == 0x4020644eu, "DRM_IOCTL_MSM_PERFCNTR_CONFIG");
#endif

#endif
