/* SPDX-License-Identifier: MIT */
/*
 * vk_scene.h — a headless Vulkan frame for examples/vk-frame-timing,
 * bench/apictx/bench_vk.c (and anyone who needs draws without a window).
 *
 * On the first device the loader finds (Mesa's lavapipe in CI): a render
 * pass with no attachments, a framebuffer of 64×64 with none, and a graphics
 * pipeline of one vertex shader (hand-assembled SPIR-V that writes nothing)
 * with rasterizer discard, so vkCmdDraw does real vertex work and needs no
 * shader compiler, image or window system.  A buffer of `fill_bytes` gives
 * frames heavier work by vkCmdFillBuffer.  Optionally under
 * VK_LAYER_KHRONOS_validation, counting its messages.
 */
#ifndef OPENGPA_EXAMPLES_VK_SCENE_H
#define OPENGPA_EXAMPLES_VK_SCENE_H

#include <stdbool.h>
#include <stdint.h>
#include <vulkan/vulkan.h>

struct vk_scene {
	VkInstance instance;
	VkDebugUtilsMessengerEXT messenger;
	VkPhysicalDevice physical;
	VkDevice device;
	VkQueue queue;
	VkCommandPool pool;
	VkRenderPass pass;
	VkFramebuffer framebuffer;
	VkShaderModule shader;
	VkPipelineLayout layout;
	VkPipeline pipeline;
	VkBuffer buffer;
	VkDeviceMemory memory;
	VkDeviceSize fill_bytes;
	char device_name[256];
	unsigned validation_messages;
	/* Why vk_scene_open failed; `skip`: no Vulkan device or layer here. */
	char error[256];
	bool skip;
};

/* Opens the scene; false with s->error (and s->skip) when it cannot.  With
 * `validate`, VK_LAYER_KHRONOS_validation is enabled and every message
 * counted (and printed to stderr). */
bool vk_scene_open(struct vk_scene *s, bool validate, VkDeviceSize fill_bytes);
void vk_scene_close(struct vk_scene *s);

/* A primary command buffer from the scene's pool, begun for one submit. */
VkCommandBuffer vk_scene_begin(struct vk_scene *s);
/* Ends it. */
void vk_scene_end(struct vk_scene *s, VkCommandBuffer cb);
/* Begins the render pass and binds the pipeline; vkCmdDraw may follow. */
void vk_scene_pass_begin(struct vk_scene *s, VkCommandBuffer cb);
void vk_scene_pass_end(VkCommandBuffer cb);
/* vkCmdFillBuffer over the whole buffer `times` times. */
void vk_scene_fill(struct vk_scene *s, VkCommandBuffer cb, unsigned times);
/* Submits n command buffers and waits for the queue; false on an error. */
bool vk_scene_submit(struct vk_scene *s, VkCommandBuffer *cbs, uint32_t n);
/* Frees command buffers (after their submission completed). */
void vk_scene_free(struct vk_scene *s, VkCommandBuffer *cbs, uint32_t n);

#endif
