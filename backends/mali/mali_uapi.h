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

#include <stddef.h>
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

/* CSF only: the firmware's global interface.  Called with all-zero input
 * (no group or stream arrays) it only fills the output. */
union og_kbase_cs_get_glb_iface {
	struct {
		uint32_t max_group_num;
		uint32_t max_total_stream_num;
		uint64_t groups_ptr;
		uint64_t streams_ptr;
	} in;
	struct {
		uint32_t glb_version;
		uint32_t features;
		uint32_t group_num;
		uint32_t prfcnt_size; /* 31:16 firmware counter bytes, 15:0 hardware */
		uint32_t total_stream_num;
		uint32_t instr_features;
	} out;
};

#define OG_KBASE_VERSION_CHECK_JM _IOWR(OG_KBASE_MAGIC, 0, struct og_kbase_version_check)
#define OG_KBASE_VERSION_CHECK_CSF _IOWR(OG_KBASE_MAGIC, 52, struct og_kbase_version_check)
/* Function id 0 with a 16-byte argument: what a pre-r21 driver answers. */
#define OG_KBASE_UK_VERSION_CHECK _IOWR(OG_KBASE_MAGIC, 0, struct og_kbase_uk_version_check)
#define OG_KBASE_SET_FLAGS _IOW(OG_KBASE_MAGIC, 1, struct og_kbase_set_flags)
#define OG_KBASE_GET_GPUPROPS _IOW(OG_KBASE_MAGIC, 3, struct og_kbase_get_gpuprops)
#define OG_KBASE_HWCNT_READER_SETUP _IOW(OG_KBASE_MAGIC, 8, struct og_kbase_hwcnt_reader_setup)
#define OG_KBASE_CS_GET_GLB_IFACE _IOWR(OG_KBASE_MAGIC, 51, union og_kbase_cs_get_glb_iface)

/* A "system monitor" context: counters only, job submission disabled. */
#define OG_KBASE_CTX_SYSTEM_MONITOR 0x2u

/* Interface versions (UK major.minor) that bound the two counter readers;
 * JM and CSF drivers number their versions in separate series. */
#define OG_KBASE_JM_MAJOR 11
#define OG_KBASE_JM_KINSTR_MINOR 34           /* 11.34: first kinstr_prfcnt release */
#define OG_KBASE_JM_KINSTR_FIXED_MINOR 37     /* 11.37: its defects fixed */
#define OG_KBASE_JM_READER_REMOVED_MINOR 40   /* 11.40: vinstr ioctls gone */
#define OG_KBASE_CSF_MAJOR 1
#define OG_KBASE_CSF_KINSTR_MINOR 10
#define OG_KBASE_CSF_KINSTR_FIXED_MINOR 17
#define OG_KBASE_CSF_READER_REMOVED_MINOR 21
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
_Static_assert(sizeof(union og_kbase_cs_get_glb_iface) == 24, "cs_get_glb_iface layout");
#if OG_IOC_GENERIC_LAYOUT
_Static_assert(OG_KBASE_VERSION_CHECK_JM == 0xC0048000u, "VERSION_CHECK (JM)");
_Static_assert(OG_KBASE_VERSION_CHECK_CSF == 0xC0048034u, "VERSION_CHECK (CSF)");
_Static_assert(OG_KBASE_UK_VERSION_CHECK == 0xC0108000u, "UK VERSION_CHECK");
_Static_assert(OG_KBASE_SET_FLAGS == 0x40048001u, "SET_FLAGS");
_Static_assert(OG_KBASE_GET_GPUPROPS == 0x40108003u, "GET_GPUPROPS");
_Static_assert(OG_KBASE_HWCNT_READER_SETUP == 0x40148008u, "HWCNT_READER_SETUP");
_Static_assert(OG_KBASE_CS_GET_GLB_IFACE == 0xC0188033u, "CS_GET_GLB_IFACE");
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

/* ---- kinstr_prfcnt (reference mali-kinstr-prfcnt.md section 2) ----
 * Two more /dev/mali0 ioctls: ENUM_INFO describes what the GPU can count,
 * SETUP returns a reader fd whose mmap holds a ring of samples located by
 * lists of 48-byte metadata items.  Every list item starts with a 4-byte
 * header (type, version) and 4 bytes of padding, then a union at offset 8. */
struct og_kinstr_enum_info {
	uint32_t info_item_size;
	uint32_t info_item_count;
	uint64_t info_list_ptr;
};

union og_kinstr_setup {
	struct {
		uint32_t request_item_count;
		uint32_t request_item_size;
		uint64_t requests_ptr;
	} in;
	struct {
		uint32_t prfcnt_metadata_item_size;
		uint32_t prfcnt_mmap_size_bytes;
	} out;
};

#define OG_KBASE_KINSTR_ENUM_INFO _IOWR(OG_KBASE_MAGIC, 56, struct og_kinstr_enum_info)
#define OG_KBASE_KINSTR_SETUP _IOWR(OG_KBASE_MAGIC, 57, union og_kinstr_setup)

struct og_kinstr_item_header {
	uint16_t item_type; /* list type << 12 | subtype */
	uint16_t item_version;
};

#define OG_KINSTR_API_VERSION 0u
/* Enumeration items (32 bytes). */
#define OG_KINSTR_ENUM_BLOCK 0x0000u /* also the sentinel when all-zero */
#define OG_KINSTR_ENUM_REQUEST 0x0001u
#define OG_KINSTR_ENUM_SAMPLE_INFO 0x0002u
/* Request items (32 bytes). */
#define OG_KINSTR_REQUEST_MODE 0x1000u
#define OG_KINSTR_REQUEST_ENABLE 0x1001u
#define OG_KINSTR_REQUEST_SCOPE 0x1002u
/* Sample metadata items (48 bytes). */
#define OG_KINSTR_META_SAMPLE 0x2000u
#define OG_KINSTR_META_CLOCK 0x2001u
#define OG_KINSTR_META_BLOCK 0x2002u
#define OG_KINSTR_ITEM_NONE 0x0000u

struct og_kinstr_enum_item {
	struct og_kinstr_item_header hdr;
	uint32_t pad;
	union {
		struct {
			uint8_t block_type;
			uint8_t set;
			uint8_t pad[2];
			uint16_t num_instances;
			uint16_t num_values;
			uint64_t counter_mask[2];
		} block;
		struct {
			uint16_t request_item_type;
			uint16_t pad;
			uint32_t versions_mask;
		} request;
		struct {
			uint32_t num_clock_domains;
			uint32_t pad;
		} sample_info;
	} u;
};

struct og_kinstr_request_item {
	struct og_kinstr_item_header hdr;
	uint32_t pad;
	union {
		struct {
			uint8_t mode;
			uint8_t pad[7];
			uint64_t period_ns;
		} mode;
		struct {
			uint8_t block_type;
			uint8_t set;
			uint8_t pad[6];
			uint64_t enable_mask[2];
		} enable;
		struct {
			uint8_t scope;
			uint8_t pad[7];
		} scope;
	} u;
};

struct og_kinstr_metadata {
	struct og_kinstr_item_header hdr;
	uint32_t pad;
	union {
		struct {
			uint64_t timestamp_start;
			uint64_t timestamp_end;
			uint64_t seq;
			uint64_t user_data;
			uint32_t flags;
			uint32_t pad;
		} sample;
		struct {
			uint32_t num_domains;
			uint32_t pad;
			uint64_t cycles[4];
		} clock;
		struct {
			uint8_t block_type;
			uint8_t block_idx;
			uint8_t set;
			uint8_t pad;
			uint32_t block_state;
			uint32_t values_offset;
			uint32_t pad2;
		} block;
	} u;
};

struct og_kinstr_control_cmd {
	uint16_t cmd;
	uint16_t pad[3];
	uint64_t user_data;
};

struct og_kinstr_sample_access {
	uint64_t sequence;
	uint64_t sample_offset_bytes;
};

enum og_kinstr_block_type {
	OG_KINSTR_BLOCK_FE = 0,
	OG_KINSTR_BLOCK_TILER = 1,
	OG_KINSTR_BLOCK_MEMORY = 2,
	OG_KINSTR_BLOCK_SHADER_CORE = 3,
	OG_KINSTR_BLOCK_FW = 4,
	OG_KINSTR_BLOCK_CSG = 5,
};
#define OG_KINSTR_MODE_MANUAL 0u
#define OG_KINSTR_MODE_PERIODIC 1u
#define OG_KINSTR_CMD_START 1u
#define OG_KINSTR_CMD_STOP 2u
#define OG_KINSTR_CMD_SAMPLE_SYNC 3u
#define OG_KINSTR_CMD_SAMPLE_ASYNC 4u /* before 11.37 / 1.17 only */
#define OG_KINSTR_CMD_DISCARD 5u
#define OG_KINSTR_SAMPLE_FLAG_OVERFLOW (1u << 0)
#define OG_KINSTR_SAMPLE_FLAG_ERROR (1u << 30)
/* BLOCK.block_state bits (0 = unknown); the kernel fills them from JM 11.41 /
 * CSF 1.23 (libGPUCounters trusts them from there).  Each pair excludes
 * itself: on/off (power), available/unavailable, normal/protected mode. */
#define OG_KINSTR_STATE_ON (1u << 0)
#define OG_KINSTR_STATE_OFF (1u << 1)
#define OG_KINSTR_STATE_AVAILABLE (1u << 2)
#define OG_KINSTR_STATE_UNAVAILABLE (1u << 3)
#define OG_KINSTR_STATE_NORMAL (1u << 4)
#define OG_KINSTR_STATE_PROTECTED (1u << 5)
#define OG_KINSTR_STATE_ALL 0x3Fu
#define OG_KINSTR_STATES_JM_MINOR 41u  /* JM UK 11.41 */
#define OG_KINSTR_STATES_CSF_MINOR 23u /* CSF UK 1.23 */
#define OG_KINSTR_MAX_DOMAINS 4u
#define OG_KINSTR_PERIOD_MIN_NS 100000u

#define OG_KINSTR_READER_MAGIC 0xBF
#define OG_KINSTR_CMD _IOW(OG_KINSTR_READER_MAGIC, 0x00, struct og_kinstr_control_cmd)
#define OG_KINSTR_GET_SAMPLE _IOR(OG_KINSTR_READER_MAGIC, 0x01, struct og_kinstr_sample_access)
#define OG_KINSTR_PUT_SAMPLE _IOW(OG_KINSTR_READER_MAGIC, 0x10, struct og_kinstr_sample_access)

_Static_assert(sizeof(struct og_kinstr_enum_info) == 16, "kinstr enum_info layout");
_Static_assert(sizeof(union og_kinstr_setup) == 16, "kinstr setup layout");
_Static_assert(sizeof(struct og_kinstr_enum_item) == 32, "prfcnt_enum_item layout");
_Static_assert(sizeof(struct og_kinstr_request_item) == 32, "prfcnt_request_item layout");
_Static_assert(sizeof(struct og_kinstr_metadata) == 48, "prfcnt_metadata layout");
_Static_assert(sizeof(struct og_kinstr_control_cmd) == 16, "prfcnt_control_cmd layout");
_Static_assert(sizeof(struct og_kinstr_sample_access) == 16, "prfcnt_sample_access layout");
_Static_assert(offsetof(struct og_kinstr_enum_item, u.block.num_instances) == 12, "enum block");
_Static_assert(offsetof(struct og_kinstr_enum_item, u.block.counter_mask) == 16, "enum mask");
_Static_assert(offsetof(struct og_kinstr_request_item, u.mode.period_ns) == 16, "mode period");
_Static_assert(offsetof(struct og_kinstr_request_item, u.enable.enable_mask) == 16, "enable mask");
_Static_assert(offsetof(struct og_kinstr_metadata, u.sample.flags) == 40, "sample flags");
_Static_assert(offsetof(struct og_kinstr_metadata, u.clock.cycles) == 16, "clock cycles");
_Static_assert(offsetof(struct og_kinstr_metadata, u.block.values_offset) == 16, "block values");
#if OG_IOC_GENERIC_LAYOUT
_Static_assert(OG_KBASE_KINSTR_ENUM_INFO == 0xC0108038u, "KINSTR_PRFCNT_ENUM_INFO");
_Static_assert(OG_KBASE_KINSTR_SETUP == 0xC0108039u, "KINSTR_PRFCNT_SETUP");
_Static_assert(OG_KINSTR_CMD == 0x4010BF00u, "KINSTR_PRFCNT_CMD");
_Static_assert(OG_KINSTR_GET_SAMPLE == 0x8010BF01u, "KINSTR_PRFCNT_GET_SAMPLE");
_Static_assert(OG_KINSTR_PUT_SAMPLE == 0x4010BF10u, "KINSTR_PRFCNT_PUT_SAMPLE");
#endif

/* ---- GET_GPUPROPS blob: (u32 key, value) pairs, key = id << 2 | size code ---- */
enum og_kbase_prop {
	OG_KBASE_PROP_PRODUCT_ID = 1,
	OG_KBASE_PROP_VERSION_STATUS = 2,
	OG_KBASE_PROP_MINOR_REVISION = 3,
	OG_KBASE_PROP_MAJOR_REVISION = 4,
	OG_KBASE_PROP_GPU_FREQ_KHZ_MAX = 6,
	OG_KBASE_PROP_L2_LOG2_CACHE_SIZE = 14,
	OG_KBASE_PROP_L2_NUM_L2_SLICES = 15,
	OG_KBASE_PROP_RAW_SHADER_PRESENT = 25,
	OG_KBASE_PROP_RAW_L2_FEATURES = 29,
	OG_KBASE_PROP_RAW_CORE_FEATURES = 30,
	OG_KBASE_PROP_RAW_MEM_FEATURES = 31,
	OG_KBASE_PROP_RAW_GPU_ID = 55,
	OG_KBASE_PROP_COHERENCY_NUM_CORE_GROUPS = 62,
	OG_KBASE_PROP_COHERENCY_GROUP_0 = 64,
	OG_KBASE_PROP_COHERENCY_GROUP_15 = 79,
};

#endif
