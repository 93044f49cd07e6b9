/* SPDX-License-Identifier: MIT */
/* kbase_props.c — the GET_GPUPROPS blob: packed (u32 key, value) pairs, key =
 * property id << 2 | size code (0..3 = 1, 2, 4, 8 bytes), no padding. */
#include "kbase_props.h"

#include <string.h>

#include "mali_uapi.h"

static uint64_t read_le(const uint8_t *p, size_t n)
{
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

bool og_mali_decode_props(const uint8_t *blob, size_t len, struct og_mali_gpu *gpu,
                          const char **why)
{
	uint64_t groups[16] = {0};
	uint64_t shader_present = 0, num_groups = 0, l2_features = 0, gpu_id = 0;
	bool have_product = false, have_slices = false, have_groups = false;
	bool have_shader_present = false, have_l2_features = false, have_gpu_id = false;
	size_t gpu_id_size = 0;

	memset(gpu, 0, sizeof *gpu);
	size_t off = 0;
	while (off < len) {
		if (len - off < 4) {
			*why = "the property blob ends inside a key";
			return false;
		}
		uint32_t key = (uint32_t)read_le(blob + off, 4);
		off += 4;
		size_t size = (size_t)1 << (key & 3u);
		uint32_t id = key >> 2;
		if (len - off < size) {
			*why = "the property blob ends inside a value";
			return false;
		}
		uint64_t v = read_le(blob + off, size);
		off += size;
		switch (id) {
		case OG_KBASE_PROP_PRODUCT_ID:
			gpu->product_id = (uint32_t)v;
			have_product = true;
			break;
		case OG_KBASE_PROP_GPU_FREQ_KHZ_MAX:
			/* The cycle budget's clock (docs/models.md); one above 100 GHz
			 * is not a clock, and the constant is then not provided. */
			gpu->max_freq_khz = v <= 100000000u ? v : 0;
			break;
		case OG_KBASE_PROP_L2_NUM_L2_SLICES:
			gpu->l2_slices = (uint32_t)v;
			have_slices = true;
			break;
		case OG_KBASE_PROP_RAW_SHADER_PRESENT:
			shader_present = v;
			have_shader_present = true;
			break;
		case OG_KBASE_PROP_RAW_L2_FEATURES:
			l2_features = v;
			have_l2_features = true;
			break;
		case OG_KBASE_PROP_RAW_GPU_ID:
			gpu_id = v;
			gpu_id_size = size;
			have_gpu_id = true;
			break;
		case OG_KBASE_PROP_COHERENCY_NUM_CORE_GROUPS:
			num_groups = v;
			have_groups = true;
			break;
		default:
			if (id >= OG_KBASE_PROP_COHERENCY_GROUP_0 && id <= OG_KBASE_PROP_COHERENCY_GROUP_15)
				groups[id - OG_KBASE_PROP_COHERENCY_GROUP_0] = v;
			break;
		}
	}
	/* Newer GPUs report a 64-bit GPU_ID, marked by 0xF in bits 31:28, with
	 * arch_major in bits 63:56 and product_major in bits 39:32; the product
	 * id is then built from those, as (arch_major << 12) | product_major. */
	if (have_gpu_id && gpu_id_size == 8 && ((gpu_id >> 28) & 0xFu) == 0xFu) {
		gpu->product_id = (uint32_t)((gpu_id >> 56) << 12 | ((gpu_id >> 32) & 0xFFu));
		have_product = true;
	} else if (!have_product && have_gpu_id) {
		gpu->product_id = (uint32_t)((gpu_id >> 16) & 0xFFFFu);
		have_product = true;
	}
	if (!have_product) {
		*why = "the property blob has no PRODUCT_ID or RAW_GPU_ID";
		return false;
	}
	if (!have_slices) {
		*why = "the property blob has no L2_NUM_L2_SLICES";
		return false;
	}
	/* The core mask is the union of the coherent core groups (what the
	 * driver schedules on); RAW_SHADER_PRESENT is the fallback. */
	if (have_groups && num_groups > 0) {
		if (num_groups > 16) {
			*why = "the property blob claims more than 16 core groups";
			return false;
		}
		for (uint64_t g = 0; g < num_groups; g++)
			gpu->core_mask |= groups[g];
	}
	if (!gpu->core_mask && have_shader_present)
		gpu->core_mask = shader_present;
	if (!gpu->core_mask) {
		*why = "the property blob has no shader core mask";
		return false;
	}
	if (!have_l2_features) {
		*why = "the property blob has no RAW_L2_FEATURES (external bus width)";
		return false;
	}
	/* Bits 31:24 of L2_FEATURES are log2 of the external bus width in bits. */
	uint32_t log2_bus = (uint32_t)((l2_features >> 24) & 0xFFu);
	gpu->bus_width_bits = log2_bus < 31 ? 1u << log2_bus : 0u;
	gpu->revision = have_gpu_id ? (uint32_t)(gpu_id & 0xFFFFu) : 0u;
	*why = NULL;
	return true;
}
