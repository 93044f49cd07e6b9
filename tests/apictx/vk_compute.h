/* SPDX-License-Identifier: MIT */
/*
 * vk_compute.h — an empty compute pipeline for the Vulkan tests that
 * dispatch (each vkCmdDispatch is one frame of the virtual Mali's script):
 * the shader is written out in SPIR-V below, so no shader compiler is
 * needed.  Uses vk_check.h's VKOK (include that first).
 */
#ifndef OPENGPA_TESTS_APICTX_VK_COMPUTE_H
#define OPENGPA_TESTS_APICTX_VK_COMPUTE_H

#include <stdint.h>
#include <vulkan/vulkan.h>

/* OpCapability Shader; OpMemoryModel Logical GLSL450;
 * OpEntryPoint GLCompute %1 "main"; OpExecutionMode %1 LocalSize 1 1 1;
 * %2 = OpTypeVoid; %3 = OpTypeFunction %2;
 * %1 = OpFunction %2 None %3; %4 = OpLabel; OpReturn; OpFunctionEnd */
static const uint32_t vk_empty_compute[] = {
	0x07230203, 0x00010000, 0, 5, 0,
	(2u << 16) | 17, 1,
	(3u << 16) | 14, 0, 1,
	(5u << 16) | 15, 5, 1, 0x6e69616d, 0,
	(6u << 16) | 16, 1, 17, 1, 1, 1,
	(2u << 16) | 19, 2,
	(3u << 16) | 33, 3, 2,
	(5u << 16) | 54, 2, 1, 0, 3,
	(2u << 16) | 248, 4,
	(1u << 16) | 253,
	(1u << 16) | 56,
};

struct vk_compute {
	VkShaderModule module;
	VkPipelineLayout layout;
	VkPipeline pipeline;
};

static inline void vk_compute_create(VkDevice device, struct vk_compute *c)
{
	VkShaderModuleCreateInfo si = { .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
	                                .codeSize = sizeof(vk_empty_compute),
	                                .pCode = vk_empty_compute };
	VKOK(vkCreateShaderModule(device, &si, NULL, &c->module));
	VkPipelineLayoutCreateInfo li = { .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO };
	VKOK(vkCreatePipelineLayout(device, &li, NULL, &c->layout));
	VkComputePipelineCreateInfo ci = {
		.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
		.stage = { .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
		           .stage = VK_SHADER_STAGE_COMPUTE_BIT, .module = c->module, .pName = "main" },
		.layout = c->layout,
	};
	VKOK(vkCreateComputePipelines(device, VK_NULL_HANDLE, 1, &ci, NULL, &c->pipeline));
}

static inline void vk_compute_destroy(VkDevice device, struct vk_compute *c)
{
	vkDestroyPipeline(device, c->pipeline, NULL);
	vkDestroyPipelineLayout(device, c->layout, NULL);
	vkDestroyShaderModule(device, c->module, NULL);
}

#endif
