/* SPDX-License-Identifier: MIT */
/* mali_common.c — GPU identity, dump layout and source notation, shared by
 * the kbase and panfrost backends. */
#include "mali_common.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void og_mali_log(const struct og_backend_host *host, enum og_log_level level, const char *fmt, ...)
{
	if (!host || !host->log)
		return;
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	host->log(host->log_ctx, level, "%s", line);
}

/* Bifrost-style ids compare arch_major and product_major only (mask 0xF00F):
 * arch_minor and arch_rev change between revisions of the same product. */
#define BIFROST_ID_MASK 0xF00Fu
#define PRODUCT_G71 0x6000u

const char *og_mali_product_name(uint32_t product_id)
{
	static const struct {
		uint32_t id;
		const char *name;
	} midgard[] = {
		{0x6956, "Mali-T60x"}, {0x0620, "Mali-T62x"}, {0x0720, "Mali-T720"},
		{0x0750, "Mali-T760"}, {0x0820, "Mali-T820"}, {0x0830, "Mali-T830"},
		{0x0860, "Mali-T860"}, {0x0880, "Mali-T880"},
	}, bifrost[] = {
		{0x6000, "Mali-G71"}, {0x6001, "Mali-G72"}, {0x7000, "Mali-G51"},
		{0x7001, "Mali-G76"}, {0x7002, "Mali-G52"}, {0x7003, "Mali-G31"},
	};
	for (size_t i = 0; i < sizeof midgard / sizeof midgard[0]; i++)
		if (midgard[i].id == product_id)
			return midgard[i].name;
	if (product_id < 0x1000)
		return NULL;
	for (size_t i = 0; i < sizeof bifrost / sizeof bifrost[0]; i++)
		if (bifrost[i].id == (product_id & BIFROST_ID_MASK))
			return bifrost[i].name;
	return NULL;
}

GPA_Status og_mali_check_gpu(const struct og_backend_host *host, const char *who,
                             const struct og_mali_gpu *gpu)
{
	if (gpu->product_id < 0x1000 || (gpu->product_id & BIFROST_ID_MASK) != PRODUCT_G71) {
		const char *name = og_mali_product_name(gpu->product_id);
		og_mali_log(host, OG_LOG_ERROR,
		            "%s: GPU product id 0x%04x (%s) is not supported; opengpa has a counter "
		            "set for Mali-G71 (product id 0x6000) only",
		            who, (unsigned)gpu->product_id, name ? name : "unknown Mali");
		return GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED;
	}
	if (gpu->core_mask == 0) {
		og_mali_log(host, OG_LOG_ERROR,
		            "%s: the driver reports no shader cores (core mask 0); the GPU may be "
		            "powered off by a broken device tree, check dmesg", who);
		return GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED;
	}
	if (gpu->l2_slices == 0 || gpu->l2_slices > OG_MALI_MAX_L2_SLICES) {
		og_mali_log(host, OG_LOG_ERROR,
		            "%s: the driver reports %u L2 slices (expected 1..%u); refusing to guess "
		            "the dump layout", who, (unsigned)gpu->l2_slices, OG_MALI_MAX_L2_SLICES);
		return GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED;
	}
	if (gpu->bus_width_bits < 8 || gpu->bus_width_bits > 1024) {
		og_mali_log(host, OG_LOG_ERROR,
		            "%s: the driver reports an external bus width of %u bits (expected "
		            "8..1024); refusing to compute bandwidth from it", who,
		            (unsigned)gpu->bus_width_bits);
		return GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED;
	}
	return GPA_STATUS_OK;
}

void og_mali_fill_info(const struct og_mali_gpu *gpu, struct og_device_info *info)
{
	const char *name = og_mali_product_name(gpu->product_id);
	memset(info, 0, sizeof *info);
	info->device_id = gpu->product_id;
	info->revision_id = gpu->revision;
	snprintf(info->description, sizeof info->description, "%s MP%d", name ? name : "Mali",
	         __builtin_popcountll(gpu->core_mask));
	info->counter_sets[0] = "mali-g71";
}

uint32_t og_mali_dump_blocks(const struct og_mali_gpu *gpu)
{
	return 2u + gpu->l2_slices + og_mali_fls64(gpu->core_mask);
}

size_t og_mali_dump_bytes(const struct og_mali_gpu *gpu)
{
	return (size_t)og_mali_dump_blocks(gpu) * OG_MALI_BLOCK_BYTES;
}

GPA_Status og_mali_parse_source(const char *source, uint32_t *raw_id, const char **why)
{
	static const char *const blocks[OG_MALI_BLOCK_TYPES] = {"JM", "TILER", "L2", "SC"};
	*why = NULL;
	if (!source) {
		*why = "no source";
		return GPA_STATUS_ERROR_NULL_POINTER;
	}
	if (strcmp(source, "CYCLES:top") == 0) {
		*raw_id = OG_MALI_RAW_CYCLES_TOP;
		return GPA_STATUS_OK;
	}
	if (strcmp(source, "CYCLES:shader") == 0) {
		*raw_id = OG_MALI_RAW_CYCLES_SHADER;
		return GPA_STATUS_OK;
	}
	const char *colon = strchr(source, ':');
	if (!colon) {
		*why = "a Mali source is BLOCK:INDEX (JM, TILER, L2 or SC) or CYCLES:top/shader";
		return GPA_STATUS_ERROR_FAILED;
	}
	size_t blen = (size_t)(colon - source);
	for (uint32_t b = 0; b < OG_MALI_BLOCK_TYPES; b++) {
		if (strlen(blocks[b]) != blen || strncmp(source, blocks[b], blen) != 0)
			continue;
		const char *digits = colon + 1;
		if (*digits < '0' || *digits > '9') {
			*why = "the index after BLOCK: must be a decimal number";
			return GPA_STATUS_ERROR_FAILED;
		}
		char *end;
		unsigned long idx = strtoul(digits, &end, 10);
		if (*end != '\0') {
			*why = "the index after BLOCK: must be a decimal number";
			return GPA_STATUS_ERROR_FAILED;
		}
		if (idx < OG_MALI_HEADER_WORDS || idx >= OG_MALI_BLOCK_WORDS) {
			*why = "counter indices run from 4 to 63 (0..3 are the block header)";
			return GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE;
		}
		*raw_id = b * OG_MALI_BLOCK_WORDS + (uint32_t)idx;
		return GPA_STATUS_OK;
	}
	*why = "unknown Mali block; use JM, TILER, L2 or SC";
	return GPA_STATUS_ERROR_FAILED;
}

GPA_Status og_mali_constant(const struct og_mali_gpu *gpu, const char *name, double *value)
{
	if (!name || !value)
		return GPA_STATUS_ERROR_NULL_POINTER;
	if (strcmp(name, "MaliConstantsShaderCoreCount") == 0)
		*value = __builtin_popcountll(gpu->core_mask);
	else if (strcmp(name, "MaliConstantsL2SliceCount") == 0)
		*value = gpu->l2_slices;
	else if (strcmp(name, "MaliConstantsBusWidthBits") == 0)
		*value = gpu->bus_width_bits;
	else
		return GPA_STATUS_ERROR_NOT_FOUND;
	return GPA_STATUS_OK;
}
