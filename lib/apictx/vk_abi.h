/* SPDX-License-Identifier: MIT */
/*
 * vk_abi.h — the few Vulkan 1.0 declarations the Vulkan context uses,
 * declared here so that the library has no build- or link-time Vulkan
 * dependency: values, the create-info layouts it passes, and the offsets it
 * reads VkPhysicalDeviceProperties at, each checked against
 * <vulkan/vulkan_core.h> wherever the build has it.  Only vk.c and vk_cal.c
 * include it.
 */
#ifndef OPENGPA_APICTX_VK_ABI_H
#define OPENGPA_APICTX_VK_ABI_H

#include <stddef.h>
#include <stdint.h>

/* ---- the Vulkan declarations used (Vulkan 1.0 core) ----------------------- */

typedef int32_t vk_result;
typedef uint64_t vk_handle; /* non-dispatchable: vk_handle, vk_handle */
#define OGVK_SUCCESS 0
#define OGVK_NOT_READY 1
#define OGVK_EVENT_SET 3
#define OGVK_EVENT_RESET 4
#define OGVK_ERROR_DEVICE_LOST (-4)
#define OGVK_STRUCTURE_TYPE_EVENT_CREATE_INFO 10
#define OGVK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO 11
#define OGVK_QUERY_TYPE_TIMESTAMP 2
#define OGVK_QUERY_RESULT_64_BIT 0x1
#define OGVK_QUERY_RESULT_WITH_AVAILABILITY_BIT 0x4
#define OGVK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT 0x2000

/* VK_EXT_calibrated_timestamps / VK_KHR_calibrated_timestamps (the same
 * values under both names). */
#define OGVK_STRUCTURE_TYPE_CALIBRATED_TIMESTAMP_INFO 1000184000
#define OGVK_TIME_DOMAIN_DEVICE 0
#define OGVK_TIME_DOMAIN_CLOCK_MONOTONIC 1
#define OGVK_INCOMPLETE 5
struct vk_calibrated_timestamp_info {
	int32_t sType;
	const void *pNext;
	int32_t timeDomain;
};

struct vk_query_pool_info {
	int32_t sType;
	const void *pNext;
	uint32_t flags;
	int32_t queryType;
	uint32_t queryCount;
	uint32_t pipelineStatistics;
};
struct vk_event_info {
	int32_t sType;
	const void *pNext;
	uint32_t flags;
};
struct vk_queue_family {
	uint32_t queueFlags, queueCount, timestampValidBits, granularity[3];
};
/* VkPhysicalDeviceProperties: read at these offsets.  Its limits hold a
 * size_t (minMemoryMapAlignment) before timestampPeriod, so a 32-bit ABI
 * places it 8 bytes earlier and the struct is 8 bytes shorter: 712 and 816
 * on the ILP32 ABIs opengpa is built for (armhf, mips, mipsel: 64-bit
 * members aligned to 8), 720 and 824 on LP64 (checked against the Vulkan
 * headers below wherever they are installed, and measured with the mips and
 * aarch64 cross compilers).  An ILP32 ABI that aligns 64-bit members to 4
 * (i386) lays VkPhysicalDeviceLimits out otherwise: refused at build time. */
struct og_vk_u64_in_struct {
	uint32_t a;
	uint64_t b;
};
_Static_assert(sizeof(void *) == 8 || offsetof(struct og_vk_u64_in_struct, b) == 8,
               "VkPhysicalDeviceProperties' offsets are known for LP64 and for ILP32 ABIs "
               "that align 64-bit members to 8; this ABI needs its own (lib/apictx/vk.c)");
#define PROPS_SIZE (sizeof(void *) == 8 ? 824 : 816)
#define PROPS_VENDOR 8
#define PROPS_DEVICE 12
#define PROPS_NAME 20
#define PROPS_TIMESTAMP_PERIOD (sizeof(void *) == 8 ? 720 : 712)

#if defined(__has_include)
#if __has_include(<vulkan/vulkan_core.h>)
#include <stddef.h>
#include <vulkan/vulkan_core.h>
_Static_assert(sizeof(VkPhysicalDeviceProperties) == PROPS_SIZE &&
               offsetof(VkPhysicalDeviceProperties, vendorID) == PROPS_VENDOR &&
               offsetof(VkPhysicalDeviceProperties, deviceID) == PROPS_DEVICE &&
               offsetof(VkPhysicalDeviceProperties, deviceName) == PROPS_NAME &&
               offsetof(VkPhysicalDeviceProperties, limits) +
               offsetof(VkPhysicalDeviceLimits, timestampPeriod) == PROPS_TIMESTAMP_PERIOD,
               "VkPhysicalDeviceProperties layout");
_Static_assert(sizeof(VkQueueFamilyProperties) == sizeof(struct vk_queue_family) &&
               offsetof(VkQueueFamilyProperties, timestampValidBits) == 8, "queue family");
_Static_assert(sizeof(VkCalibratedTimestampInfoEXT) == sizeof(struct vk_calibrated_timestamp_info) &&
               offsetof(VkCalibratedTimestampInfoEXT, timeDomain) ==
               offsetof(struct vk_calibrated_timestamp_info, timeDomain) &&
               VK_STRUCTURE_TYPE_CALIBRATED_TIMESTAMP_INFO_EXT ==
               OGVK_STRUCTURE_TYPE_CALIBRATED_TIMESTAMP_INFO &&
               VK_TIME_DOMAIN_DEVICE_EXT == OGVK_TIME_DOMAIN_DEVICE &&
               VK_TIME_DOMAIN_CLOCK_MONOTONIC_EXT == OGVK_TIME_DOMAIN_CLOCK_MONOTONIC &&
               VK_INCOMPLETE == OGVK_INCOMPLETE, "calibrated timestamps");
_Static_assert(sizeof(VkQueryPoolCreateInfo) == sizeof(struct vk_query_pool_info) &&
               sizeof(VkEventCreateInfo) == sizeof(struct vk_event_info), "create infos");
#endif
#endif

typedef void *(*pfn_gipa)(void *instance, const char *name);
typedef void *(*pfn_gdpa)(void *device, const char *name);

#endif
