/* SPDX-License-Identifier: MIT */
/*
 * panfrost_uapi.h — the panfrost DRM ioctls this backend uses, restated from
 * the upstream UAPI (include/uapi/drm/panfrost_drm.h); the generic DRM part
 * (DRM_IOCTL_VERSION, DRM_COMMAND_BASE) comes from libdrm's drm.h.
 */
#ifndef OPENGPA_PANFROST_UAPI_H
#define OPENGPA_PANFROST_UAPI_H

#include <stdint.h>
#include <libdrm/drm.h>

#include "ioctl_layout.h"

struct og_panfrost_get_param {
	uint32_t param;
	uint32_t pad;
	uint64_t value;
};

struct og_panfrost_perfcnt_enable {
	uint32_t enable;
	uint32_t counterset;
};

struct og_panfrost_perfcnt_dump {
	uint64_t buf_ptr;
};

enum og_panfrost_param {
	OG_PANFROST_PARAM_GPU_PROD_ID = 0,
	OG_PANFROST_PARAM_GPU_REVISION = 1,
	OG_PANFROST_PARAM_SHADER_PRESENT = 2,
	OG_PANFROST_PARAM_L2_PRESENT = 4,
	OG_PANFROST_PARAM_L2_FEATURES = 8,
	OG_PANFROST_PARAM_MEM_FEATURES = 11,
};

#define OG_PANFROST_GET_PARAM DRM_IOWR(DRM_COMMAND_BASE + 0x04, struct og_panfrost_get_param)
#define OG_PANFROST_PERFCNT_ENABLE \
	DRM_IOW(DRM_COMMAND_BASE + 0x06, struct og_panfrost_perfcnt_enable)
#define OG_PANFROST_PERFCNT_DUMP DRM_IOW(DRM_COMMAND_BASE + 0x07, struct og_panfrost_perfcnt_dump)

_Static_assert(sizeof(struct og_panfrost_get_param) == 16, "get_param layout");
#if OG_IOC_GENERIC_LAYOUT
_Static_assert(OG_PANFROST_GET_PARAM == 0xC0106444u, "GET_PARAM");
_Static_assert(OG_PANFROST_PERFCNT_ENABLE == 0x40086446u, "PERFCNT_ENABLE");
_Static_assert(OG_PANFROST_PERFCNT_DUMP == 0x40086447u, "PERFCNT_DUMP");
#endif

#endif
