/* SPDX-License-Identifier: MIT */
/* vk_scene.c — a headless Vulkan frame with draws and fills (vk_scene.h). */
#include "vk_scene.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A vertex shader that writes nothing: OpCapability Shader; OpMemoryModel
 * Logical GLSL450; OpEntryPoint Vertex %3 "main"; %1 void; %2 fn() void;
 * %3 = OpFunction; %4 label; OpReturn; OpFunctionEnd.  Assembled by hand
 * (SPIR-V 1.0, id bound 5) so that no shader compiler is needed; with
 * rasterizer discard nothing needs its position. */
static const uint32_t vertex_spirv[] = {
	0x07230203, 0x00010000, 0, 5, 0,
	0x00020011, 1,                          /* OpCapability Shader */
	0x0003000E, 0, 1,                       /* OpMemoryModel Logical GLSL450 */
	0x0005000F, 0, 3, 0x6E69616D, 0,        /* OpEntryPoint Vertex %3 "main" */
	0x00020013, 1,                          /* %1 = OpTypeVoid */
	0x00030021, 2, 1,                       /* %2 = OpTypeFunction %1 */
	0x00050036, 1, 3, 0, 2,                 /* %3 = OpFunction %1 None %2 */
	0x000200F8, 4,                          /* %4 = OpLabel */
	0x000100FD,                             /* OpReturn */
	0x00010038,                             /* OpFunctionEnd */
};

__attribute__((format(printf, 3, 4)))
static bool fail(struct vk_scene *s, bool skip, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->error, sizeof(s->error), fmt, ap);
	va_end(ap);
	s->skip = skip;
	vk_scene_close(s);
	return false;
}

static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT sev,
                                                 VkDebugUtilsMessageTypeFlagsEXT type,
                                                 const VkDebugUtilsMessengerCallbackDataEXT *d,
                                                 void *user)
{
	(void)sev;
	(void)type;
	struct vk_scene *s = user;
	s->validation_messages++;
	fprintf(stderr, "VALIDATION: %s\n", d->pMessage);
	return VK_FALSE;
}

static bool have_layer(const char *name)
{
	uint32_t n = 0;
	if (vkEnumerateInstanceLayerProperties(&n, NULL) != VK_SUCCESS)
		return false;
	VkLayerProperties *layers = calloc(n + 1, sizeof(*layers));
	bool found = false;
	if (layers && vkEnumerateInstanceLayerProperties(&n, layers) == VK_SUCCESS)
		for (uint32_t i = 0; i < n; i++)
			found |= strcmp(layers[i].layerName, name) == 0;
	free(layers);
	return found;
}

static bool open_instance(struct vk_scene *s, bool validate)
{
	const char *layer = "VK_LAYER_KHRONOS_validation";
	if (validate && !have_layer(layer))
		return fail(s, true, "%s is not installed (Debian: vulkan-validationlayers; "
		                     "scripts/install-deps.sh)", layer);
	/* GPA's required instance extension (gpu_perf_api_vk.h's list) too. */
	const char *exts[] = { VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME,
	                       VK_EXT_DEBUG_UTILS_EXTENSION_NAME };
	VkDebugUtilsMessengerCreateInfoEXT mi = {
		.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
		.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
		                   VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
		.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
		               VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
		               VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT,
		.pfnUserCallback = on_message,
		.pUserData = s,
	};
	VkApplicationInfo app = { .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
	                          .pApplicationName = "opengpa vk_scene",
	                          .apiVersion = VK_API_VERSION_1_1 };
	VkInstanceCreateInfo ii = {
		.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
		.pNext = validate ? &mi : NULL,
		.pApplicationInfo = &app,
		.enabledLayerCount = validate ? 1 : 0,
		.ppEnabledLayerNames = &layer,
		.enabledExtensionCount = validate ? 2 : 1,
		.ppEnabledExtensionNames = exts,
	};
	VkResult r = vkCreateInstance(&ii, NULL, &s->instance);
	if (r != VK_SUCCESS) {
		s->instance = VK_NULL_HANDLE;
		return fail(s, true, "vkCreateInstance says %d: no Vulkan driver here (Debian: "
		                     "mesa-vulkan-drivers)", r);
	}
	if (validate) {
		PFN_vkCreateDebugUtilsMessengerEXT create = (PFN_vkCreateDebugUtilsMessengerEXT)
			vkGetInstanceProcAddr(s->instance, "vkCreateDebugUtilsMessengerEXT");
		if (!create || create(s->instance, &mi, NULL, &s->messenger) != VK_SUCCESS)
			return fail(s, false, "vkCreateDebugUtilsMessengerEXT failed");
	}
	return true;
}

static bool open_device(struct vk_scene *s)
{
	uint32_t n = 1;
	VkResult r = vkEnumeratePhysicalDevices(s->instance, &n, &s->physical);
	if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || n == 0)
		return fail(s, true, "no Vulkan device (no ICD; Debian: mesa-vulkan-drivers)");
	VkPhysicalDeviceProperties props;
	vkGetPhysicalDeviceProperties(s->physical, &props);
	snprintf(s->device_name, sizeof(s->device_name), "%s", props.deviceName);
	uint32_t nfam = 0;
	vkGetPhysicalDeviceQueueFamilyProperties(s->physical, &nfam, NULL);
	VkQueueFamilyProperties fam[16];
	nfam = nfam > 16 ? 16 : nfam;
	vkGetPhysicalDeviceQueueFamilyProperties(s->physical, &nfam, fam);
	uint32_t family = UINT32_MAX;
	for (uint32_t i = 0; i < nfam && family == UINT32_MAX; i++)
		if ((fam[i].queueFlags & VK_QUEUE_GRAPHICS_BIT) && fam[i].timestampValidBits)
			family = i;
	if (family == UINT32_MAX)
		return fail(s, true, "%s has no graphics queue with timestamps", s->device_name);
	float prio = 1.0f;
	VkDeviceQueueCreateInfo qi = { .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
	                               .queueFamilyIndex = family, .queueCount = 1,
	                               .pQueuePriorities = &prio };
	/* GPA's optional device extension (gpu_perf_api_vk.h's list) where the
	 * device offers it: calibrated timestamps put each sample's GPU time on
	 * opengpa stat's timeline (docs/timelines.md); without it, none. */
	const char *calibrated = NULL;
	uint32_t next = 0;
	if (vkEnumerateDeviceExtensionProperties(s->physical, NULL, &next, NULL) == VK_SUCCESS &&
	    next) {
		VkExtensionProperties *ext = calloc(next, sizeof(*ext));
		if (ext &&
		    vkEnumerateDeviceExtensionProperties(s->physical, NULL, &next, ext) == VK_SUCCESS)
			for (uint32_t i = 0; i < next; i++) {
				if (strcmp(ext[i].extensionName, "VK_KHR_calibrated_timestamps") == 0)
					calibrated = "VK_KHR_calibrated_timestamps";
				else if (!calibrated &&
				         strcmp(ext[i].extensionName, "VK_EXT_calibrated_timestamps") == 0)
					calibrated = "VK_EXT_calibrated_timestamps";
			}
		free(ext);
	}
	VkDeviceCreateInfo di = { .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
	                          .queueCreateInfoCount = 1, .pQueueCreateInfos = &qi,
	                          .enabledExtensionCount = calibrated ? 1 : 0,
	                          .ppEnabledExtensionNames = &calibrated };
	if ((r = vkCreateDevice(s->physical, &di, NULL, &s->device)) != VK_SUCCESS) {
		s->device = VK_NULL_HANDLE;
		return fail(s, false, "vkCreateDevice says %d", r);
	}
	vkGetDeviceQueue(s->device, family, 0, &s->queue);
	VkCommandPoolCreateInfo pi = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
	                               .queueFamilyIndex = family };
	if (vkCreateCommandPool(s->device, &pi, NULL, &s->pool) != VK_SUCCESS)
		return fail(s, false, "vkCreateCommandPool failed");
	return true;
}

static bool open_buffer(struct vk_scene *s, VkDeviceSize bytes)
{
	s->fill_bytes = bytes;
	VkBufferCreateInfo bi = { .sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = bytes,
	                          .usage = VK_BUFFER_USAGE_TRANSFER_DST_BIT };
	if (vkCreateBuffer(s->device, &bi, NULL, &s->buffer) != VK_SUCCESS)
		return fail(s, false, "vkCreateBuffer of %llu bytes failed",
		            (unsigned long long)bytes);
	VkMemoryRequirements req;
	vkGetBufferMemoryRequirements(s->device, s->buffer, &req);
	uint32_t type = 0;
	while (type < 32 && !(req.memoryTypeBits & (1u << type)))
		type++;
	VkMemoryAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
	                            .allocationSize = req.size, .memoryTypeIndex = type };
	if (type == 32 || vkAllocateMemory(s->device, &ai, NULL, &s->memory) != VK_SUCCESS)
		return fail(s, false, "no memory for the buffer");
	if (vkBindBufferMemory(s->device, s->buffer, s->memory, 0) != VK_SUCCESS)
		return fail(s, false, "vkBindBufferMemory failed");
	return true;
}

static bool open_pipeline(struct vk_scene *s)
{
	VkSubpassDescription sub = { .pipelineBindPoint = VK_PIPELINE_BIND_POINT_GRAPHICS };
	VkRenderPassCreateInfo rpi = { .sType = VK_STRUCTURE_TYPE_RENDER_PASS_CREATE_INFO,
	                               .subpassCount = 1, .pSubpasses = &sub };
	if (vkCreateRenderPass(s->device, &rpi, NULL, &s->pass) != VK_SUCCESS)
		return fail(s, false, "vkCreateRenderPass failed");
	VkFramebufferCreateInfo fi = { .sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO,
	                               .renderPass = s->pass, .width = 64, .height = 64,
	                               .layers = 1 };
	if (vkCreateFramebuffer(s->device, &fi, NULL, &s->framebuffer) != VK_SUCCESS)
		return fail(s, false, "vkCreateFramebuffer failed");
	VkShaderModuleCreateInfo si = { .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
	                                .codeSize = sizeof(vertex_spirv), .pCode = vertex_spirv };
	if (vkCreateShaderModule(s->device, &si, NULL, &s->shader) != VK_SUCCESS)
		return fail(s, false, "vkCreateShaderModule failed");
	VkPipelineLayoutCreateInfo li = { .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO };
	if (vkCreatePipelineLayout(s->device, &li, NULL, &s->layout) != VK_SUCCESS)
		return fail(s, false, "vkCreatePipelineLayout failed");
	VkPipelineShaderStageCreateInfo stage = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
		.stage = VK_SHADER_STAGE_VERTEX_BIT, .module = s->shader, .pName = "main" };
	VkPipelineVertexInputStateCreateInfo vi = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_VERTEX_INPUT_STATE_CREATE_INFO };
	VkPipelineInputAssemblyStateCreateInfo ia = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_INPUT_ASSEMBLY_STATE_CREATE_INFO,
		.topology = VK_PRIMITIVE_TOPOLOGY_TRIANGLE_LIST };
	VkPipelineRasterizationStateCreateInfo rs = {
		.sType = VK_STRUCTURE_TYPE_PIPELINE_RASTERIZATION_STATE_CREATE_INFO,
		.rasterizerDiscardEnable = VK_TRUE, .polygonMode = VK_POLYGON_MODE_FILL,
		.cullMode = VK_CULL_MODE_NONE, .lineWidth = 1.0f };
	VkGraphicsPipelineCreateInfo gi = {
		.sType = VK_STRUCTURE_TYPE_GRAPHICS_PIPELINE_CREATE_INFO,
		.stageCount = 1, .pStages = &stage, .pVertexInputState = &vi,
		.pInputAssemblyState = &ia, .pRasterizationState = &rs, .layout = s->layout,
		.renderPass = s->pass, .subpass = 0 };
	if (vkCreateGraphicsPipelines(s->device, VK_NULL_HANDLE, 1, &gi, NULL, &s->pipeline) !=
	    VK_SUCCESS)
		return fail(s, false, "vkCreateGraphicsPipelines failed");
	return true;
}

bool vk_scene_open(struct vk_scene *s, bool validate, VkDeviceSize fill_bytes)
{
	*s = (struct vk_scene){ 0 };
	return open_instance(s, validate) && open_device(s) && open_buffer(s, fill_bytes) &&
	       open_pipeline(s);
}

void vk_scene_close(struct vk_scene *s)
{
	if (s->device) {
		vkDeviceWaitIdle(s->device);
		vkDestroyPipeline(s->device, s->pipeline, NULL);
		vkDestroyPipelineLayout(s->device, s->layout, NULL);
		vkDestroyShaderModule(s->device, s->shader, NULL);
		vkDestroyFramebuffer(s->device, s->framebuffer, NULL);
		vkDestroyRenderPass(s->device, s->pass, NULL);
		vkDestroyBuffer(s->device, s->buffer, NULL);
		vkFreeMemory(s->device, s->memory, NULL);
		vkDestroyCommandPool(s->device, s->pool, NULL);
		vkDestroyDevice(s->device, NULL);
	}
	if (s->messenger) {
		PFN_vkDestroyDebugUtilsMessengerEXT destroy = (PFN_vkDestroyDebugUtilsMessengerEXT)
			vkGetInstanceProcAddr(s->instance, "vkDestroyDebugUtilsMessengerEXT");
		if (destroy)
			destroy(s->instance, s->messenger, NULL);
	}
	if (s->instance)
		vkDestroyInstance(s->instance, NULL);
	unsigned messages = s->validation_messages;
	char error[sizeof(s->error)];
	memcpy(error, s->error, sizeof(error));
	bool skip = s->skip;
	*s = (struct vk_scene){ .validation_messages = messages, .skip = skip };
	memcpy(s->error, error, sizeof(error));
}

VkCommandBuffer vk_scene_begin(struct vk_scene *s)
{
	VkCommandBuffer cb = VK_NULL_HANDLE;
	VkCommandBufferAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
	                                   .commandPool = s->pool,
	                                   .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
	                                   .commandBufferCount = 1 };
	if (vkAllocateCommandBuffers(s->device, &ai, &cb) != VK_SUCCESS)
		return VK_NULL_HANDLE;
	VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
	                                .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT };
	if (vkBeginCommandBuffer(cb, &bi) != VK_SUCCESS) {
		vkFreeCommandBuffers(s->device, s->pool, 1, &cb);
		return VK_NULL_HANDLE;
	}
	return cb;
}

void vk_scene_end(struct vk_scene *s, VkCommandBuffer cb)
{
	(void)s;
	vkEndCommandBuffer(cb);
}

void vk_scene_pass_begin(struct vk_scene *s, VkCommandBuffer cb)
{
	VkRenderPassBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_RENDER_PASS_BEGIN_INFO,
	                             .renderPass = s->pass, .framebuffer = s->framebuffer,
	                             .renderArea = { { 0, 0 }, { 64, 64 } } };
	vkCmdBeginRenderPass(cb, &bi, VK_SUBPASS_CONTENTS_INLINE);
	vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_GRAPHICS, s->pipeline);
}

void vk_scene_pass_end(VkCommandBuffer cb)
{
	vkCmdEndRenderPass(cb);
}

void vk_scene_fill(struct vk_scene *s, VkCommandBuffer cb, unsigned times)
{
	for (unsigned i = 0; i < times; i++)
		vkCmdFillBuffer(cb, s->buffer, 0, VK_WHOLE_SIZE, i);
}

bool vk_scene_submit(struct vk_scene *s, VkCommandBuffer *cbs, uint32_t n)
{
	VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = n,
	                    .pCommandBuffers = cbs };
	return vkQueueSubmit(s->queue, 1, &si, VK_NULL_HANDLE) == VK_SUCCESS &&
	       vkQueueWaitIdle(s->queue) == VK_SUCCESS;
}

void vk_scene_free(struct vk_scene *s, VkCommandBuffer *cbs, uint32_t n)
{
	vkFreeCommandBuffers(s->device, s->pool, n, cbs);
}
