/* SPDX-License-Identifier: MIT */
/*
 * gpu_perf_api_vk.h — GPA 4.x's Vulkan header, for opengpa's
 * libGPUPerfAPIVK.so: what GpaOpenContext takes on Vulkan, and the
 * extensions a client enables for it.
 *
 * The extension lists hold only standard Vulkan extensions, what opengpa
 * uses: none required on the device (timestamp queries, events and query
 * pools are Vulkan 1.0 core), VK_KHR_get_physical_device_properties2 on the
 * instance (core since Vulkan 1.1).  AMD's lists name VK_AMD_gpa_interface,
 * which no other driver has.  The required device list is empty: paste it
 * after another name ({ VK_KHR_SWAPCHAIN_EXTENSION_NAME,
 * AMD_GPA_REQUIRED_DEVICE_EXTENSION_NAME_LIST }), not alone.  The optional
 * one names VK_EXT_calibrated_timestamps: enable it where
 * vkEnumerateDeviceExtensionProperties lists it, and samples are placed on
 * CLOCK_MONOTONIC (opengpa stat's timeline); without it nothing else
 * changes (docs/api-gpa3.md).
 */
#ifndef GPU_PERFORMANCE_API_GPU_PERF_API_VK_H_
#define GPU_PERFORMANCE_API_GPU_PERF_API_VK_H_

#ifndef VULKAN_H_
#include <vulkan/vulkan.h>
#endif

#include "gpu_performance_api/gpu_perf_api_types.h"

/* Names of AMD's own extensions, for code that mentions them. */
#define VK_AMD_GPA_INTERFACE_EXTENSION_NAME "VK_AMD_gpa_interface"
#define VK_AMD_SHADER_CORE_PROPERTIES_EXTENSION_NAME "VK_AMD_shader_core_properties"
#define VK_AMD_SHADER_CORE_PROPERTIES_EXTENSION_NAME2 "VK_AMD_shader_core_properties2"

#define AMD_GPA_REQUIRED_INSTANCE_EXTENSION_NAME_LIST VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME
#define AMD_GPA_REQUIRED_DEVICE_EXTENSION_NAME_LIST
#define AMD_GPA_OPTIONAL_DEVICE_EXTENSION_NAME_LIST VK_EXT_CALIBRATED_TIMESTAMPS_EXTENSION_NAME

/* GpaOpenContext's api_context on Vulkan: the application's handles.  The
 * context is keyed by the physical device (one per VkPhysicalDevice). */
typedef struct GpaVkContextOpenInfoType {
	VkInstance instance;
	VkPhysicalDevice physical_device;
	VkDevice device;
} GpaVkContextOpenInfo;

/* GPA 4.1: the same, with the entry points to use (a layer's own), read
 * when GpaOpenContext's flags hold kGpaOpenContextVkUseInfoType2. */
typedef struct GpaVkContextOpenInfoType2 {
	VkInstance instance;
	VkPhysicalDevice physical_device;
	VkDevice device;
	PFN_vkGetInstanceProcAddr get_instance_proc_addr;
	PFN_vkGetDeviceProcAddr get_device_proc_addr;
} GpaVkContextOpenInfo2;

typedef enum {
	kGpaOpenContextVkUseInfoType2 = kGpaOpenContextApiSpecificOptionsStart,
} GpaOpenContextBitsVk;

#endif
