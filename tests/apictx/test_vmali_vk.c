/* SPDX-License-Identifier: MIT */
/*
 * test_vmali_vk.c — a Vulkan program's own commands drive the virtual
 * Mali's workload clock (VMALI_API_FRAMES=1, the interposer in
 * tests/virtual-devices/mali/vmali_api.c): each vkCmdDispatch is one frame
 * of the script, run when a GPU would run it: nothing at recording, a
 * submission's frames when the next submission comes, everything at
 * vkQueueWaitIdle, vkDeviceWaitIdle or vkWaitForFences.  A secondary
 * command buffer's dispatches count where vkCmdExecuteCommands runs them,
 * re-recording a command buffer starts it empty, a vkCmdDispatch
 * reached through vkGetDeviceProcAddr counts as one called by name, and
 * vkQueueSubmit2 (by name and through the loader) submits as vkQueueSubmit.
 *
 * On whatever Vulkan device the loader finds (lavapipe in CI), under
 * VK_LAYER_KHRONOS_validation: any validation message fails.  Exits 77
 * (skipped) without a device or the layer.  The compute shader is
 * vk_compute.h's empty one.
 */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vulkan.h>

#include "vk_check.h"
#include "vk_compute.h"

struct vk {
	VkInstance instance;
	VkDebugUtilsMessengerEXT messenger;
	VkDevice device;
	VkQueue queue;
	VkCommandPool pool;
	VkShaderModule module;
	VkPipelineLayout layout;
	VkPipeline pipeline;
	VkFence fence;
	bool sync2; /* Vulkan 1.3's synchronization2 is on: vkQueueSubmit2 */
};

static int setup(struct vk *vk)
{
	uint32_t n = 0;
	vkEnumerateInstanceLayerProperties(&n, NULL);
	VkLayerProperties *layers = calloc(n + 1, sizeof(*layers));
	vkEnumerateInstanceLayerProperties(&n, layers);
	int have_layer = 0;
	for (uint32_t i = 0; i < n; i++)
		have_layer |= strcmp(layers[i].layerName, "VK_LAYER_KHRONOS_validation") == 0;
	free(layers);
	if (!have_layer) {
		fprintf(stderr, "SKIP: VK_LAYER_KHRONOS_validation is not installed\n");
		return 77;
	}
	const char *layer = "VK_LAYER_KHRONOS_validation";
	const char *ext = VK_EXT_DEBUG_UTILS_EXTENSION_NAME;
	VkDebugUtilsMessengerCreateInfoEXT mi = {
		.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT,
		.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
		                   VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT,
		.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
		               VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT,
		.pfnUserCallback = on_message,
	};
	VkApplicationInfo app = { .sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
	                          .apiVersion = VK_API_VERSION_1_3 };
	VkInstanceCreateInfo ii = { .sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO, .pNext = &mi,
	                            .pApplicationInfo = &app, .enabledLayerCount = 1,
	                            .ppEnabledLayerNames = &layer, .enabledExtensionCount = 1,
	                            .ppEnabledExtensionNames = &ext };
	if (vkCreateInstance(&ii, NULL, &vk->instance) != VK_SUCCESS) {
		fprintf(stderr, "SKIP: no Vulkan instance\n");
		return 77;
	}
	PFN_vkCreateDebugUtilsMessengerEXT create = (PFN_vkCreateDebugUtilsMessengerEXT)
		vkGetInstanceProcAddr(vk->instance, "vkCreateDebugUtilsMessengerEXT");
	VKOK(create(vk->instance, &mi, NULL, &vk->messenger));
	VkPhysicalDevice physical;
	n = 1;
	VkResult r = vkEnumeratePhysicalDevices(vk->instance, &n, &physical);
	if ((r != VK_SUCCESS && r != VK_INCOMPLETE) || n == 0) {
		fprintf(stderr, "SKIP: no Vulkan device\n");
		return 77;
	}
	uint32_t nfam = 0, family = UINT32_MAX;
	vkGetPhysicalDeviceQueueFamilyProperties(physical, &nfam, NULL);
	VkQueueFamilyProperties fam[16];
	nfam = nfam > 16 ? 16 : nfam;
	vkGetPhysicalDeviceQueueFamilyProperties(physical, &nfam, fam);
	for (uint32_t i = 0; i < nfam && family == UINT32_MAX; i++)
		if (fam[i].queueFlags & VK_QUEUE_COMPUTE_BIT)
			family = i;
	if (family == UINT32_MAX) {
		fprintf(stderr, "SKIP: no compute queue\n");
		return 77;
	}
	float prio = 1.0f;
	VkDeviceQueueCreateInfo qi = { .sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
	                               .queueFamilyIndex = family, .queueCount = 1,
	                               .pQueuePriorities = &prio };
	VkPhysicalDeviceProperties props;
	vkGetPhysicalDeviceProperties(physical, &props);
	VkPhysicalDeviceSynchronization2Features sync2 = {
		.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SYNCHRONIZATION_2_FEATURES,
		.synchronization2 = VK_TRUE };
	vk->sync2 = props.apiVersion >= VK_API_VERSION_1_3;
	VkDeviceCreateInfo di = { .sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
	                          .pNext = vk->sync2 ? &sync2 : NULL,
	                          .queueCreateInfoCount = 1, .pQueueCreateInfos = &qi };
	VKOK(vkCreateDevice(physical, &di, NULL, &vk->device));
	vkGetDeviceQueue(vk->device, family, 0, &vk->queue);
	VkCommandPoolCreateInfo pi = { .sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
	                               .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
	                               .queueFamilyIndex = family };
	VKOK(vkCreateCommandPool(vk->device, &pi, NULL, &vk->pool));
	VkShaderModuleCreateInfo si = { .sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
	                                .codeSize = sizeof(vk_empty_compute),
	                                .pCode = vk_empty_compute };
	VKOK(vkCreateShaderModule(vk->device, &si, NULL, &vk->module));
	VkPipelineLayoutCreateInfo li = { .sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO };
	VKOK(vkCreatePipelineLayout(vk->device, &li, NULL, &vk->layout));
	VkComputePipelineCreateInfo ci = {
		.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
		.stage = { .sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
		           .stage = VK_SHADER_STAGE_COMPUTE_BIT, .module = vk->module, .pName = "main" },
		.layout = vk->layout,
	};
	VKOK(vkCreateComputePipelines(vk->device, VK_NULL_HANDLE, 1, &ci, NULL, &vk->pipeline));
	VkFenceCreateInfo fi = { .sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO };
	VKOK(vkCreateFence(vk->device, &fi, NULL, &vk->fence));
	return 0;
}

static void teardown(struct vk *vk)
{
	vkDestroyFence(vk->device, vk->fence, NULL);
	vkDestroyPipeline(vk->device, vk->pipeline, NULL);
	vkDestroyPipelineLayout(vk->device, vk->layout, NULL);
	vkDestroyShaderModule(vk->device, vk->module, NULL);
	vkDestroyCommandPool(vk->device, vk->pool, NULL);
	vkDestroyDevice(vk->device, NULL);
	PFN_vkDestroyDebugUtilsMessengerEXT destroy = (PFN_vkDestroyDebugUtilsMessengerEXT)
		vkGetInstanceProcAddr(vk->instance, "vkDestroyDebugUtilsMessengerEXT");
	destroy(vk->instance, vk->messenger, NULL);
	vkDestroyInstance(vk->instance, NULL);
}

static VkCommandBuffer alloc(struct vk *vk, VkCommandBufferLevel level)
{
	VkCommandBuffer cb;
	VkCommandBufferAllocateInfo ai = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
	                                   .commandPool = vk->pool, .level = level,
	                                   .commandBufferCount = 1 };
	VKOK(vkAllocateCommandBuffers(vk->device, &ai, &cb));
	return cb;
}

/* Records `n` dispatches into cb (through `dispatch`, the name's or the
 * loader's pointer). */
static void record(struct vk *vk, VkCommandBuffer cb, bool secondary, int n,
                   PFN_vkCmdDispatch dispatch)
{
	VkCommandBufferInheritanceInfo inh = {
		.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_INHERITANCE_INFO };
	VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
	                                .pInheritanceInfo = secondary ? &inh : NULL };
	VKOK(vkBeginCommandBuffer(cb, &bi));
	vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, vk->pipeline);
	for (int i = 0; i < n; i++)
		dispatch(cb, 1, 1, 1);
}

static void submit(struct vk *vk, VkCommandBuffer cb, VkFence fence)
{
	VkSubmitInfo si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1,
	                    .pCommandBuffers = &cb };
	VKOK(vkQueueSubmit(vk->queue, 1, &si, fence));
}

int main(void)
{
	uint64_t (*frames)(void) = (uint64_t (*)(void))dlsym(RTLD_DEFAULT, "vmali_api_frames");
	if (!frames) {
		fprintf(stderr, "FAIL: vmali_api_frames not found: run with LD_PRELOAD of "
		                "libopengpa-vmali.so\n");
		return 1;
	}
	struct vk vk = { 0 };
	int rc = setup(&vk);
	if (rc)
		return rc;
	uint64_t f0 = frames();
	VkCommandBuffer a = alloc(&vk, VK_COMMAND_BUFFER_LEVEL_PRIMARY);
	VkCommandBuffer b = alloc(&vk, VK_COMMAND_BUFFER_LEVEL_PRIMARY);
	VkCommandBuffer s = alloc(&vk, VK_COMMAND_BUFFER_LEVEL_SECONDARY);

	record(&vk, a, false, 3, vkCmdDispatch);
	VKOK(vkEndCommandBuffer(a));
	PFN_vkCmdDispatch by_loader =
		(PFN_vkCmdDispatch)vkGetDeviceProcAddr(vk.device, "vkCmdDispatch");
	CHECK(by_loader != NULL, "vkGetDeviceProcAddr(vkCmdDispatch)");
	record(&vk, b, false, 5, by_loader ? by_loader : vkCmdDispatch);
	VKOK(vkEndCommandBuffer(b));
	CHECK(frames() == f0, "recording runs nothing: %llu frames", (unsigned long long)(frames() - f0));
	submit(&vk, a, VK_NULL_HANDLE);
	CHECK(frames() == f0, "a submission runs one behind: %llu", (unsigned long long)(frames() - f0));
	submit(&vk, b, VK_NULL_HANDLE);
	CHECK(frames() == f0 + 3, "the next submission completes the first: %llu (not 3)",
	      (unsigned long long)(frames() - f0));
	VKOK(vkQueueWaitIdle(vk.queue));
	CHECK(frames() == f0 + 8, "vkQueueWaitIdle completes all: %llu (not 8)",
	      (unsigned long long)(frames() - f0));

	/* Re-recorded: the old dispatches are gone. */
	VKOK(vkResetCommandBuffer(a, 0));
	record(&vk, a, false, 2, vkCmdDispatch);
	VKOK(vkEndCommandBuffer(a));
	submit(&vk, a, vk.fence);
	VKOK(vkWaitForFences(vk.device, 1, &vk.fence, VK_TRUE, UINT64_MAX));
	CHECK(frames() == f0 + 10, "vkWaitForFences completes: %llu (not 10)",
	      (unsigned long long)(frames() - f0));

	/* A secondary's dispatches run where the primary executes it. */
	record(&vk, s, true, 4, vkCmdDispatch);
	VKOK(vkEndCommandBuffer(s));
	VKOK(vkResetCommandBuffer(b, 0));
	VkCommandBufferBeginInfo bi = { .sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO };
	VKOK(vkBeginCommandBuffer(b, &bi));
	vkCmdExecuteCommands(b, 1, &s);
	VKOK(vkEndCommandBuffer(b));
	submit(&vk, b, VK_NULL_HANDLE);
	VKOK(vkDeviceWaitIdle(vk.device));
	CHECK(frames() == f0 + 14, "the secondary's 4 run with its primary: %llu (not 14)",
	      (unsigned long long)(frames() - f0));

	/* vkQueueSubmit2 (by name and through the loader) submits as
	 * vkQueueSubmit does: one behind, completed by the waits. */
	if (vk.sync2) {
		PFN_vkQueueSubmit2 submit2 =
			(PFN_vkQueueSubmit2)vkGetDeviceProcAddr(vk.device, "vkQueueSubmit2");
		CHECK(submit2 != NULL, "vkGetDeviceProcAddr(vkQueueSubmit2)");
		PFN_vkQueueSubmit2 ways[2] = { vkQueueSubmit2, submit2 ? submit2 : vkQueueSubmit2 };
		uint64_t at = frames();
		VKOK(vkResetFences(vk.device, 1, &vk.fence)); /* signalled above */
		for (int w = 0; w < 2; w++) {
			VKOK(vkResetCommandBuffer(a, 0));
			record(&vk, a, false, 3 + w, vkCmdDispatch);
			VKOK(vkEndCommandBuffer(a));
			VkCommandBufferSubmitInfo ci = {
				.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_SUBMIT_INFO, .commandBuffer = a };
			VkSubmitInfo2 si = { .sType = VK_STRUCTURE_TYPE_SUBMIT_INFO_2,
			                     .commandBufferInfoCount = 1, .pCommandBufferInfos = &ci };
			VKOK(ways[w](vk.queue, 1, &si, vk.fence));
			CHECK(frames() == at, "vkQueueSubmit2 runs one behind: %llu",
			      (unsigned long long)(frames() - at));
			VKOK(vkWaitForFences(vk.device, 1, &vk.fence, VK_TRUE, UINT64_MAX));
			VKOK(vkResetFences(vk.device, 1, &vk.fence));
			at += 3 + (unsigned)w;
			CHECK(frames() == at, "vkQueueSubmit2's %d dispatches ran at the wait: %llu",
			      3 + w, (unsigned long long)(frames() - (at - 3 - (unsigned)w)));
		}
	} else {
		fprintf(stderr, "note: the device is not Vulkan 1.3: vkQueueSubmit2 not tried\n");
	}

	teardown(&vk);
	CHECK(validation_messages == 0, "%u validation messages", validation_messages);
	if (failures)
		fprintf(stderr, "%d failures\n", failures);
	return failures ? 1 : 0;
}
