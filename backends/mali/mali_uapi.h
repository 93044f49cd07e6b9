/* SPDX-License-Identifier: MIT */
/*
 * mali_uapi.h — the kbase ioctls opengpa speaks, restated from the public
 * UAPI description (docs/backends/mali.md lists the sources).
 *
 * The numbers are built with the kernel's _IOC macros and then checked
 * against the values the reference computed by hand, so a typo in a struct
 * (which changes the size bits) fails the build instead of getting EINVAL
 * from a real driver.
 */
#ifndef OPENGPA_MALI_UAPI_H
#define OPENGPA_MALI_UAPI_H

#include <stdint.h>
#include <linux/ioctl.h>

#include "ioctl_layout.h"

/* ---- /dev/mali0 (magic 0x80) ---- */
#define OG_KBASE_MAGIC 0x80

struct og_kbase_version_check {
	uint16_t major;
	uint16_t minor;
};

/* The pre-r21 "UK" call: an 8-byte header whose first word is the function
 * id (0 = version check) and which the kernel overwrites with a result. */
struct og_kbase_uk_version_check {
	uint64_t header;
	uint16_t major;
	uint16_t minor;
	uint32_t pad;
};

struct og_kbase_set_flags {
	uint32_t create_flags;
};

struct og_kbase_get_gpuprops {
	uint64_t buffer;
	uint32_t size;
	uint32_t flags;
};

struct og_kbase_hwcnt_reader_setup {
	uint32_t buffer_count;
	uint32_t fe_bm;
	uint32_t shader_bm;
	uint32_t tiler_bm;
	uint32_t mmu_l2_bm;
};

#define OG_KBASE_VERSION_CHECK_JM _IOWR(OG_KBASE_MAGIC, 0, struct og_kbase_version_check)
#define OG_KBASE_VERSION_CHECK_CSF _IOWR(OG_KBASE_MAGIC, 52, struct og_kbase_version_check)
/* Function id 0 with a 16-byte argument: what a pre-r21 driver answers. */
#define OG_KBASE_UK_VERSION_CHECK _IOWR(OG_KBASE_MAGIC, 0, struct og_kbase_uk_version_check)
#define OG_KBASE_SET_FLAGS _IOW(OG_KBASE_MAGIC, 1, struct og_kbase_set_flags)
#define OG_KBASE_GET_GPUPROPS _IOW(OG_KBASE_MAGIC, 3, struct og_kbase_get_gpuprops)
#define OG_KBASE_HWCNT_READER_SETUP _IOW(OG_KBASE_MAGIC, 8, struct og_kbase_hwcnt_reader_setup)

/* A "system monitor" context: counters only, job submission disabled. */
#define OG_KBASE_CTX_SYSTEM_MONITOR 0x2u

/* Interface versions (JM UK) that bound the hwcnt reader. */
#define OG_KBASE_JM_MAJOR 11
#define OG_KBASE_JM_READER_REMOVED_MINOR 40   /* 11.40: reader ioctls gone */
#define OG_KBASE_JM_KINSTR_MINOR 34           /* 11.34: kinstr_prfcnt usable */
#define OG_KBASE_UK_LEGACY_MAJOR 10           /* pre-r21 DDKs */

/* ---- the reader fd HWCNT_READER_SETUP returns (magic 0xBE) ---- */
#define OG_KBASE_READER_MAGIC 0xBE

struct og_kbase_reader_metadata {
	uint64_t timestamp;
	uint32_t event_id;
	uint32_t buffer_idx;
	uint64_t cycles_top;
	uint64_t cycles_shader;
};

/* The pre-extension form stops before the cycle counts. */
#define OG_KBASE_METADATA_SHORT 16u

struct og_kbase_reader_api_version {
	uint32_t version;
	uint32_t features;
};

#define OG_KBASE_READER_FEATURE_CYCLES_TOP (1u << 0)
#define OG_KBASE_READER_FEATURE_CYCLES_SHADER (1u << 1)

#define OG_KBASE_READER_GET_HWVER _IOR(OG_KBASE_READER_MAGIC, 0x00, uint32_t)
#define OG_KBASE_READER_GET_BUFFER_SIZE _IOR(OG_KBASE_READER_MAGIC, 0x01, uint32_t)
#define OG_KBASE_READER_DUMP _IOW(OG_KBASE_READER_MAGIC, 0x10, uint32_t)
/* The period in ns, passed by value as the ioctl argument; 0 stops it. */
#define OG_KBASE_READER_SET_INTERVAL _IOW(OG_KBASE_READER_MAGIC, 0x30, uint32_t)
#define OG_KBASE_READER_CLEAR _IOW(OG_KBASE_READER_MAGIC, 0x11, uint32_t)
#define OG_KBASE_READER_GET_BUFFER _IOC(_IOC_READ, OG_KBASE_READER_MAGIC, 0x20, OG_KBASE_METADATA_SHORT)
#define OG_KBASE_READER_GET_BUFFER_WITH_CYCLES \
	_IOR(OG_KBASE_READER_MAGIC, 0x20, struct og_kbase_reader_metadata)
#define OG_KBASE_READER_PUT_BUFFER _IOC(_IOC_WRITE, OG_KBASE_READER_MAGIC, 0x21, OG_KBASE_METADATA_SHORT)
#define OG_KBASE_READER_PUT_BUFFER_WITH_CYCLES \
	_IOW(OG_KBASE_READER_MAGIC, 0x21, struct og_kbase_reader_metadata)
/* Both API-version calls are _IOW although the kernel writes the answer. */
#define OG_KBASE_READER_GET_API_VERSION _IOW(OG_KBASE_READER_MAGIC, 0xFF, uint32_t)
#define OG_KBASE_READER_GET_API_VERSION_WITH_FEATURES \
	_IOW(OG_KBASE_READER_MAGIC, 0xFF, struct og_kbase_reader_api_version)

/* metadata.event_id */
#define OG_KBASE_READER_EVENT_MANUAL 0u
#define OG_KBASE_READER_EVENT_PERIODIC 1u
/* Shortest SET_INTERVAL periods: the virtualizer-based vinstr (the one that
 * answers GET_API_VERSION_WITH_FEATURES) clamps to 100 µs, the one before
 * to 500 µs. */
#define OG_KBASE_READER_INTERVAL_MIN_NS 100000u
#define OG_KBASE_READER_INTERVAL_MIN_OLD_NS 500000u

#define OG_KBASE_READER_API 1u
#define OG_KBASE_READER_HWVER_V5 5u
#define OG_KBASE_READER_MAX_BUFFERS 32u

_Static_assert(sizeof(struct og_kbase_get_gpuprops) == 16, "get_gpuprops layout");
_Static_assert(sizeof(struct og_kbase_hwcnt_reader_setup) == 20, "reader_setup layout");
_Static_assert(sizeof(struct og_kbase_reader_metadata) == 32, "metadata layout");
_Static_assert(sizeof(struct og_kbase_uk_version_check) == 16, "uk version_check layout");
#if OG_IOC_GENERIC_LAYOUT
_Static_assert(OG_KBASE_VERSION_CHECK_JM == 0xC0048000u, "VERSION_CHECK (JM)");
_Static_assert(OG_KBASE_VERSION_CHECK_CSF == 0xC0048034u, "VERSION_CHECK (CSF)");
_Static_assert(OG_KBASE_UK_VERSION_CHECK == 0xC0108000u, "UK VERSION_CHECK");
_Static_assert(OG_KBASE_SET_FLAGS == 0x40048001u, "SET_FLAGS");
_Static_assert(OG_KBASE_GET_GPUPROPS == 0x40108003u, "GET_GPUPROPS");
_Static_assert(OG_KBASE_HWCNT_READER_SETUP == 0x40148008u, "HWCNT_READER_SETUP");
_Static_assert(OG_KBASE_READER_GET_HWVER == 0x8004BE00u, "GET_HWVER");
_Static_assert(OG_KBASE_READER_GET_BUFFER_SIZE == 0x8004BE01u, "GET_BUFFER_SIZE");
_Static_assert(OG_KBASE_READER_DUMP == 0x4004BE10u, "DUMP");
_Static_assert(OG_KBASE_READER_CLEAR == 0x4004BE11u, "CLEAR");
_Static_assert(OG_KBASE_READER_SET_INTERVAL == 0x4004BE30u, "SET_INTERVAL");
_Static_assert(OG_KBASE_READER_GET_BUFFER == 0x8010BE20u, "GET_BUFFER");
_Static_assert(OG_KBASE_READER_GET_BUFFER_WITH_CYCLES == 0x8020BE20u, "GET_BUFFER_WITH_CYCLES");
_Static_assert(OG_KBASE_READER_PUT_BUFFER == 0x4010BE21u, "PUT_BUFFER");
_Static_assert(OG_KBASE_READER_PUT_BUFFER_WITH_CYCLES == 0x4020BE21u, "PUT_BUFFER_WITH_CYCLES");
_Static_assert(OG_KBASE_READER_GET_API_VERSION == 0x4004BEFFu, "GET_API_VERSION");
_Static_assert(OG_KBASE_READER_GET_API_VERSION_WITH_FEATURES == 0x4008BEFFu,
               "GET_API_VERSION_WITH_FEATURES");
#endif

/* ---- GET_GPUPROPS blob: (u32 key, value) pairs, key = id << 2 | size code ---- */
enum og_kbase_prop {
	OG_KBASE_PROP_PRODUCT_ID = 1,
	OG_KBASE_PROP_VERSION_STATUS = 2,
	OG_KBASE_PROP_MINOR_REVISION = 3,
	OG_KBASE_PROP_MAJOR_REVISION = 4,
	OG_KBASE_PROP_L2_NUM_L2_SLICES = 15,
	OG_KBASE_PROP_RAW_SHADER_PRESENT = 25,
	OG_KBASE_PROP_RAW_L2_FEATURES = 29,
	OG_KBASE_PROP_RAW_MEM_FEATURES = 31,
	OG_KBASE_PROP_RAW_GPU_ID = 55,
	OG_KBASE_PROP_COHERENCY_NUM_CORE_GROUPS = 62,
	OG_KBASE_PROP_COHERENCY_GROUP_0 = 64,
	OG_KBASE_PROP_COHERENCY_GROUP_15 = 79,
};

#endif
