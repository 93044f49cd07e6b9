/* SPDX-License-Identifier: MIT */
/*
 * vk_check.h — what every Vulkan test of tests/apictx shares: CHECK (count a
 * failure, go on), VKOK (a Vulkan call that must succeed, else exit), and the
 * debug-utils callback that counts every validation message (each test fails
 * on any).  Included once per test program: the counters are that program's.
 */
#ifndef OPENGPA_TESTS_APICTX_VK_CHECK_H
#define OPENGPA_TESTS_APICTX_VK_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <vulkan/vulkan.h>

static int failures;
static unsigned validation_messages;
#define CHECK(cond, ...) \
	do { \
		if (!(cond)) { \
			failures++; \
			fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
			fprintf(stderr, __VA_ARGS__); \
			fputc('\n', stderr); \
		} \
	} while (0)
#define VKOK(call) \
	do { \
		VkResult r_ = (call); \
		if (r_ != VK_SUCCESS) { \
			fprintf(stderr, "FAIL %s:%d: %s = %d\n", __FILE__, __LINE__, #call, r_); \
			exit(1); \
		} \
	} while (0)

static VKAPI_ATTR VkBool32 VKAPI_CALL on_message(VkDebugUtilsMessageSeverityFlagBitsEXT sev,
                                                 VkDebugUtilsMessageTypeFlagsEXT type,
                                                 const VkDebugUtilsMessengerCallbackDataEXT *d,
                                                 void *ud)
{
	(void)ud;
	if (sev < VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT &&
	    !(type & VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT))
		return VK_FALSE;
	validation_messages++;
	fprintf(stderr, "VALIDATION: %s\n", d->pMessage);
	return VK_FALSE;
}

#endif
