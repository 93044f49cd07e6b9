/* SPDX-License-Identifier: MIT */
/*
 * vmali_abi.h — the kernel ABI the virtual Mali answers, derived from
 * /work/shared/reference/mali-hwcnt.md (§1 kbase, §2 reader, §3 properties,
 * §4 dump layout, §6 panfrost), mali-kinstr-prfcnt.md (§1.4 CSF's global
 * interface, §2 kinstr_prfcnt) and the DRM core header layout.
 *
 * Deliberately independent of backends/mali and backends/panfrost: the two
 * sides derive the same bytes separately, so a test that passes proves they
 * agree with the reference rather than with each other's typos.  The static
 * asserts pin every size and command word to the reference's computed values.
 */
#ifndef VMALI_ABI_H
#define VMALI_ABI_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/ioctl.h>

/* 1 where ioctl numbers use the asm-generic layout (Arm, x86, RISC-V): the
 * numbers Arm's kernels see, which the asserts below pin.  MIPS, PowerPC and
 * SPARC put direction and size in other bits; there the _IO* macros give
 * that layout's numbers and only the struct sizes are pinned. */
#define VMALI_IOC_GENERIC (_IOC_SIZEBITS == 14 && _IOC_WRITE == 1U && _IOC_READ == 2U)

/* ---- kbase device (/dev/mali0), magic 0x80 (§1.2, §1.3) ---- */
#define VMALI_KBASE_MAGIC 0x80

struct vmali_kbase_version_check {
	uint16_t major;
	uint16_t minor;
};

struct vmali_kbase_set_flags {
	uint32_t create_flags;
};

struct vmali_kbase_get_gpuprops {
	uint64_t buffer;
	uint32_t size;
	uint32_t flags;
};

struct vmali_kbase_hwcnt_reader_setup {
	uint32_t buffer_count;
	uint32_t fe_bm;
	uint32_t shader_bm;
	uint32_t tiler_bm;
	uint32_t mmu_l2_bm;
};

struct vmali_kbase_get_ddk_version {
	uint64_t version_buffer;
	uint32_t size;
	uint32_t padding;
};

#define VMALI_KBASE_VERSION_CHECK_JM _IOWR(VMALI_KBASE_MAGIC, 0, struct vmali_kbase_version_check)
#define VMALI_KBASE_VERSION_CHECK_CSF \
	_IOWR(VMALI_KBASE_MAGIC, 52, struct vmali_kbase_version_check)
#define VMALI_KBASE_SET_FLAGS _IOW(VMALI_KBASE_MAGIC, 1, struct vmali_kbase_set_flags)
#define VMALI_KBASE_GET_GPUPROPS _IOW(VMALI_KBASE_MAGIC, 3, struct vmali_kbase_get_gpuprops)
#define VMALI_KBASE_HWCNT_READER_SETUP \
	_IOW(VMALI_KBASE_MAGIC, 8, struct vmali_kbase_hwcnt_reader_setup)
#define VMALI_KBASE_GET_DDK_VERSION \
	_IOW(VMALI_KBASE_MAGIC, 13, struct vmali_kbase_get_ddk_version)

/* SET_FLAGS: the system-monitor bit plus MMU group id bits are all a
 * user may pass (BASEP_CONTEXT_CREATE_KERNEL_FLAGS). */
#define VMALI_KBASE_FLAG_SYSTEM_MONITOR 0x2u
#define VMALI_KBASE_FLAGS_ALLOWED (0x2u | (0xFu << 3))

static_assert(sizeof(struct vmali_kbase_version_check) == 4, "kbase_ioctl_version_check");
static_assert(sizeof(struct vmali_kbase_get_gpuprops) == 16, "kbase_ioctl_get_gpuprops");
static_assert(sizeof(struct vmali_kbase_hwcnt_reader_setup) == 20, "hwcnt_reader_setup");
static_assert(sizeof(struct vmali_kbase_get_ddk_version) == 16, "get_ddk_version");
#if VMALI_IOC_GENERIC
static_assert(VMALI_KBASE_VERSION_CHECK_JM == 0xC0048000u, "VERSION_CHECK JM");
static_assert(VMALI_KBASE_VERSION_CHECK_CSF == 0xC0048034u, "VERSION_CHECK CSF");
static_assert(VMALI_KBASE_SET_FLAGS == 0x40048001u, "SET_FLAGS");
static_assert(VMALI_KBASE_GET_GPUPROPS == 0x40108003u, "GET_GPUPROPS");
static_assert(VMALI_KBASE_HWCNT_READER_SETUP == 0x40148008u, "HWCNT_READER_SETUP");
static_assert(VMALI_KBASE_GET_DDK_VERSION == 0x4010800Du, "GET_DDK_VERSION");
#endif

/* ---- hwcnt reader fd, magic 0xBE (§2) ---- */
#define VMALI_READER_MAGIC 0xBE

struct vmali_reader_metadata {
	uint64_t timestamp;
	uint32_t event_id;
	uint32_t buffer_idx;
	uint64_t cycles_top;
	uint64_t cycles_shader_cores;
};

struct vmali_reader_api_version {
	uint32_t version;
	uint32_t features;
};

#define VMALI_READER_META_LEGACY_SIZE offsetof(struct vmali_reader_metadata, cycles_top)

#define VMALI_READER_GET_HWVER _IOR(VMALI_READER_MAGIC, 0x00, uint32_t)
#define VMALI_READER_GET_BUFFER_SIZE _IOR(VMALI_READER_MAGIC, 0x01, uint32_t)
#define VMALI_READER_DUMP _IOW(VMALI_READER_MAGIC, 0x10, uint32_t)
#define VMALI_READER_CLEAR _IOW(VMALI_READER_MAGIC, 0x11, uint32_t)
#define VMALI_READER_GET_BUFFER \
	_IOC(_IOC_READ, VMALI_READER_MAGIC, 0x20, VMALI_READER_META_LEGACY_SIZE)
#define VMALI_READER_GET_BUFFER_WITH_CYCLES \
	_IOR(VMALI_READER_MAGIC, 0x20, struct vmali_reader_metadata)
#define VMALI_READER_PUT_BUFFER \
	_IOC(_IOC_WRITE, VMALI_READER_MAGIC, 0x21, VMALI_READER_META_LEGACY_SIZE)
#define VMALI_READER_PUT_BUFFER_WITH_CYCLES \
	_IOW(VMALI_READER_MAGIC, 0x21, struct vmali_reader_metadata)
#define VMALI_READER_SET_INTERVAL _IOW(VMALI_READER_MAGIC, 0x30, uint32_t)
#define VMALI_READER_ENABLE_EVENT _IOW(VMALI_READER_MAGIC, 0x40, uint32_t)
#define VMALI_READER_DISABLE_EVENT _IOW(VMALI_READER_MAGIC, 0x41, uint32_t)
#define VMALI_READER_GET_API_VERSION _IOW(VMALI_READER_MAGIC, 0xFF, uint32_t)
#define VMALI_READER_GET_API_VERSION_WITH_FEATURES \
	_IOW(VMALI_READER_MAGIC, 0xFF, struct vmali_reader_api_version)

#define VMALI_READER_NR_GET_HWVER 0x00
#define VMALI_READER_NR_GET_BUFFER_SIZE 0x01
#define VMALI_READER_NR_DUMP 0x10
#define VMALI_READER_NR_CLEAR 0x11
#define VMALI_READER_NR_GET_BUFFER 0x20
#define VMALI_READER_NR_PUT_BUFFER 0x21
#define VMALI_READER_NR_SET_INTERVAL 0x30
#define VMALI_READER_NR_ENABLE_EVENT 0x40
#define VMALI_READER_NR_DISABLE_EVENT 0x41
#define VMALI_READER_NR_GET_API_VERSION 0xFF

#define VMALI_READER_API_VERSION 1u
#define VMALI_READER_FEATURE_CYCLES_TOP (1u << 0)
#define VMALI_READER_FEATURE_CYCLES_SHADER_CORES (1u << 1)
#define VMALI_READER_EVENT_MANUAL 0u
#define VMALI_READER_EVENT_PERIODIC 1u
#define VMALI_READER_MAX_BUFFERS 32u
#define VMALI_READER_INTERVAL_MIN_NS 100000u
#define VMALI_READER_HWVER 5u

static_assert(sizeof(struct vmali_reader_metadata) == 32, "kbase_hwcnt_reader_metadata");
static_assert(VMALI_READER_META_LEGACY_SIZE == 16, "legacy metadata");
static_assert(sizeof(struct vmali_reader_api_version) == 8, "api_version");
#if VMALI_IOC_GENERIC
static_assert(VMALI_READER_GET_HWVER == 0x8004BE00u, "GET_HWVER");
static_assert(VMALI_READER_GET_BUFFER_SIZE == 0x8004BE01u, "GET_BUFFER_SIZE");
static_assert(VMALI_READER_DUMP == 0x4004BE10u, "DUMP");
static_assert(VMALI_READER_CLEAR == 0x4004BE11u, "CLEAR");
static_assert(VMALI_READER_GET_BUFFER == 0x8010BE20u, "GET_BUFFER");
static_assert(VMALI_READER_GET_BUFFER_WITH_CYCLES == 0x8020BE20u, "GET_BUFFER_WITH_CYCLES");
static_assert(VMALI_READER_PUT_BUFFER == 0x4010BE21u, "PUT_BUFFER");
static_assert(VMALI_READER_PUT_BUFFER_WITH_CYCLES == 0x4020BE21u, "PUT_BUFFER_WITH_CYCLES");
static_assert(VMALI_READER_SET_INTERVAL == 0x4004BE30u, "SET_INTERVAL");
static_assert(VMALI_READER_ENABLE_EVENT == 0x4004BE40u, "ENABLE_EVENT");
static_assert(VMALI_READER_DISABLE_EVENT == 0x4004BE41u, "DISABLE_EVENT");
static_assert(VMALI_READER_GET_API_VERSION == 0x4004BEFFu, "GET_API_VERSION");
static_assert(VMALI_READER_GET_API_VERSION_WITH_FEATURES == 0x4008BEFFu, "WITH_FEATURES");
#endif

/* ---- CSF: the firmware's global interface (kinstr sheet §1.4) ---- */
struct vmali_cs_get_glb_iface_in {
	uint32_t max_group_num, max_total_stream_num;
	uint64_t groups_ptr, streams_ptr;
};
struct vmali_cs_get_glb_iface_out {
	uint32_t glb_version, features, group_num, prfcnt_size, total_stream_num, instr_features;
};
#define VMALI_KBASE_CS_GET_GLB_IFACE \
	_IOWR(VMALI_KBASE_MAGIC, 51, struct vmali_cs_get_glb_iface_out)
static_assert(sizeof(struct vmali_cs_get_glb_iface_in) == 24, "cs_get_glb_iface in");
static_assert(sizeof(struct vmali_cs_get_glb_iface_out) == 24, "cs_get_glb_iface out");
#if VMALI_IOC_GENERIC
static_assert(VMALI_KBASE_CS_GET_GLB_IFACE == 0xC0188033u, "CS_GET_GLB_IFACE");
#endif

/* ---- kinstr_prfcnt (kinstr sheet §2) ---- */
struct vmali_kinstr_enum_info {
	uint32_t info_item_size, info_item_count;
	uint64_t info_list_ptr;
};
struct vmali_kinstr_setup_in {
	uint32_t request_item_count, request_item_size;
	uint64_t requests_ptr;
};
struct vmali_kinstr_setup_out {
	uint32_t prfcnt_metadata_item_size, prfcnt_mmap_size_bytes;
	uint64_t unused;
};
#define VMALI_KBASE_KINSTR_ENUM_INFO \
	_IOWR(VMALI_KBASE_MAGIC, 56, struct vmali_kinstr_enum_info)
#define VMALI_KBASE_KINSTR_SETUP _IOWR(VMALI_KBASE_MAGIC, 57, struct vmali_kinstr_setup_in)
static_assert(sizeof(struct vmali_kinstr_enum_info) == 16, "kinstr_prfcnt_enum_info");
static_assert(sizeof(struct vmali_kinstr_setup_in) == 16, "kinstr_prfcnt_setup");
#if VMALI_IOC_GENERIC
static_assert(VMALI_KBASE_KINSTR_ENUM_INFO == 0xC0108038u, "KINSTR_PRFCNT_ENUM_INFO");
static_assert(VMALI_KBASE_KINSTR_SETUP == 0xC0108039u, "KINSTR_PRFCNT_SETUP");
#endif

/* Items: u16 type (list << 12 | subtype), u16 version, 4 pad bytes, then
 * the union at offset 8.  Enumeration and request items are 32 bytes,
 * metadata items 48. */
#define VMALI_KINSTR_ENUM_ITEM_SIZE 32u
#define VMALI_KINSTR_REQUEST_ITEM_SIZE 32u
#define VMALI_KINSTR_META_ITEM_SIZE 48u
#define VMALI_KINSTR_TYPE_ENUM_BLOCK 0x0000u
#define VMALI_KINSTR_TYPE_ENUM_REQUEST 0x0001u
#define VMALI_KINSTR_TYPE_ENUM_SAMPLE_INFO 0x0002u
#define VMALI_KINSTR_TYPE_REQ_MODE 0x1000u
#define VMALI_KINSTR_TYPE_REQ_ENABLE 0x1001u
#define VMALI_KINSTR_TYPE_REQ_SCOPE 0x1002u
#define VMALI_KINSTR_TYPE_META_SAMPLE 0x2000u
#define VMALI_KINSTR_TYPE_META_CLOCK 0x2001u
#define VMALI_KINSTR_TYPE_META_BLOCK 0x2002u
#define VMALI_KINSTR_MODE_MANUAL 0u
#define VMALI_KINSTR_MODE_PERIODIC 1u
#define VMALI_KINSTR_CMD_START 1u
#define VMALI_KINSTR_CMD_STOP 2u
#define VMALI_KINSTR_CMD_SAMPLE_SYNC 3u
#define VMALI_KINSTR_CMD_SAMPLE_ASYNC 4u
#define VMALI_KINSTR_CMD_DISCARD 5u
#define VMALI_KINSTR_FLAG_OVERFLOW (1u << 0)
#define VMALI_KINSTR_FLAG_ERROR (1u << 30)
#define VMALI_KINSTR_STATE_ON (1u << 0)
#define VMALI_KINSTR_STATE_AVAILABLE (1u << 2)
#define VMALI_KINSTR_STATE_OFF (1u << 1)
#define VMALI_KINSTR_STATE_NORMAL (1u << 4)
#define VMALI_KINSTR_STATE_PROTECTED (1u << 5)
#define VMALI_KINSTR_PERIOD_MIN_NS 100000u
#define VMALI_KINSTR_BLOCK_NE 6u /* the neural engine, 2025 headers only */

struct vmali_kinstr_control_cmd {
	uint16_t cmd;
	uint16_t pad[3];
	uint64_t user_data;
};
struct vmali_kinstr_sample_access {
	uint64_t sequence, sample_offset_bytes;
};
#define VMALI_KINSTR_MAGIC 0xBF
#define VMALI_KINSTR_NR_CMD 0x00
#define VMALI_KINSTR_NR_GET_SAMPLE 0x01
#define VMALI_KINSTR_NR_PUT_SAMPLE 0x10
#define VMALI_KINSTR_IOCTL_CMD \
	_IOW(VMALI_KINSTR_MAGIC, VMALI_KINSTR_NR_CMD, struct vmali_kinstr_control_cmd)
#define VMALI_KINSTR_IOCTL_GET_SAMPLE \
	_IOR(VMALI_KINSTR_MAGIC, VMALI_KINSTR_NR_GET_SAMPLE, struct vmali_kinstr_sample_access)
#define VMALI_KINSTR_IOCTL_PUT_SAMPLE \
	_IOW(VMALI_KINSTR_MAGIC, VMALI_KINSTR_NR_PUT_SAMPLE, struct vmali_kinstr_sample_access)
static_assert(sizeof(struct vmali_kinstr_control_cmd) == 16, "prfcnt_control_cmd");
static_assert(sizeof(struct vmali_kinstr_sample_access) == 16, "prfcnt_sample_access");
#if VMALI_IOC_GENERIC
static_assert(VMALI_KINSTR_IOCTL_CMD == 0x4010BF00u, "KINSTR_PRFCNT_CMD");
static_assert(VMALI_KINSTR_IOCTL_GET_SAMPLE == 0x8010BF01u, "KINSTR_PRFCNT_GET_SAMPLE");
static_assert(VMALI_KINSTR_IOCTL_PUT_SAMPLE == 0x4010BF10u, "KINSTR_PRFCNT_PUT_SAMPLE");
#endif

/* ---- GPU properties blob (§3) ---- */
enum vmali_prop_size { VMALI_PROP_U8 = 0, VMALI_PROP_U16 = 1, VMALI_PROP_U32 = 2, VMALI_PROP_U64 = 3 };

enum vmali_prop_id {
	VMALI_PROP_PRODUCT_ID = 1,
	VMALI_PROP_VERSION_STATUS = 2,
	VMALI_PROP_MINOR_REVISION = 3,
	VMALI_PROP_MAJOR_REVISION = 4,
	VMALI_PROP_GPU_FREQ_KHZ_MAX = 6,
	VMALI_PROP_L2_LOG2_LINE_SIZE = 13,
	VMALI_PROP_L2_LOG2_CACHE_SIZE = 14,
	VMALI_PROP_L2_NUM_L2_SLICES = 15,
	VMALI_PROP_RAW_SHADER_PRESENT = 25,
	VMALI_PROP_RAW_TILER_PRESENT = 26,
	VMALI_PROP_RAW_L2_PRESENT = 27,
	VMALI_PROP_RAW_L2_FEATURES = 29,
	VMALI_PROP_RAW_CORE_FEATURES = 30,
	VMALI_PROP_RAW_MEM_FEATURES = 31,
	VMALI_PROP_RAW_GPU_ID = 55,
	VMALI_PROP_RAW_THREAD_FEATURES = 59,
	VMALI_PROP_COHERENCY_NUM_GROUPS = 61,
	VMALI_PROP_COHERENCY_NUM_CORE_GROUPS = 62,
	VMALI_PROP_COHERENCY_GROUP_0 = 64,
	VMALI_PROP_NUM_EXEC_ENGINES = 82,
};

/* ---- dump layout (§4.1) ---- */
#define VMALI_COUNTERS_PER_BLOCK 64u
#define VMALI_BLOCK_BYTES (VMALI_COUNTERS_PER_BLOCK * 4u)
#define VMALI_HEADER_WORDS 4u
#define VMALI_PRFCNT_EN_WORD 2u

/* ---- DRM / panfrost (§6) ---- */
#define VMALI_DRM_MAGIC 'd'
#define VMALI_DRM_COMMAND_BASE 0x40

struct vmali_drm_version {
	int version_major;
	int version_minor;
	int version_patchlevel;
	size_t name_len;
	char *name;
	size_t date_len;
	char *date;
	size_t desc_len;
	char *desc;
};

struct vmali_panfrost_get_param {
	uint32_t param;
	uint32_t pad;
	uint64_t value;
};

struct vmali_panfrost_perfcnt_enable {
	uint32_t enable;
	uint32_t counterset;
};

struct vmali_panfrost_perfcnt_dump {
	uint64_t buf_ptr;
};

#define VMALI_DRM_IOCTL_VERSION _IOWR(VMALI_DRM_MAGIC, 0x00, struct vmali_drm_version)
#define VMALI_PANFROST_GET_PARAM \
	_IOWR(VMALI_DRM_MAGIC, VMALI_DRM_COMMAND_BASE + 0x04, struct vmali_panfrost_get_param)
#define VMALI_PANFROST_PERFCNT_ENABLE \
	_IOW(VMALI_DRM_MAGIC, VMALI_DRM_COMMAND_BASE + 0x06, struct vmali_panfrost_perfcnt_enable)
#define VMALI_PANFROST_PERFCNT_DUMP \
	_IOW(VMALI_DRM_MAGIC, VMALI_DRM_COMMAND_BASE + 0x07, struct vmali_panfrost_perfcnt_dump)

enum vmali_panfrost_param {
	VMALI_PF_GPU_PROD_ID = 0,
	VMALI_PF_GPU_REVISION = 1,
	VMALI_PF_SHADER_PRESENT = 2,
	VMALI_PF_TILER_PRESENT = 3,
	VMALI_PF_L2_PRESENT = 4,
	VMALI_PF_STACK_PRESENT = 5,
	VMALI_PF_AS_PRESENT = 6,
	VMALI_PF_JS_PRESENT = 7,
	VMALI_PF_L2_FEATURES = 8,
	VMALI_PF_CORE_FEATURES = 9,
	VMALI_PF_TILER_FEATURES = 10,
	VMALI_PF_MEM_FEATURES = 11,
	VMALI_PF_MMU_FEATURES = 12,
	VMALI_PF_THREAD_FEATURES = 13,
	VMALI_PF_MAX_THREADS = 14,
	VMALI_PF_NR_CORE_GROUPS = 38,
	VMALI_PF_THREAD_TLS_ALLOC = 39,
};

static_assert(sizeof(struct vmali_panfrost_get_param) == 16, "drm_panfrost_get_param");
static_assert(sizeof(struct vmali_panfrost_perfcnt_enable) == 8, "perfcnt_enable");
static_assert(sizeof(struct vmali_panfrost_perfcnt_dump) == 8, "perfcnt_dump");
#if VMALI_IOC_GENERIC
static_assert(VMALI_PANFROST_PERFCNT_ENABLE == 0x40086446u, "PERFCNT_ENABLE");
static_assert(VMALI_PANFROST_PERFCNT_DUMP == 0x40086447u, "PERFCNT_DUMP");
static_assert(VMALI_PANFROST_GET_PARAM == 0xC0106444u, "GET_PARAM");
#if UINTPTR_MAX == UINT64_MAX
static_assert(VMALI_DRM_IOCTL_VERSION == 0xC0406400u, "DRM_IOCTL_VERSION (LP64)");
#endif
#endif
#if UINTPTR_MAX == UINT64_MAX
static_assert(sizeof(struct vmali_drm_version) == 64, "drm_version (LP64)");
#endif

#endif
