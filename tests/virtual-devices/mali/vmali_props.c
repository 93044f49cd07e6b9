/* SPDX-License-Identifier: MIT */
/*
 * vmali_props.c — the GET_GPUPROPS blob (reference §3.1): little-endian
 * (u32 key = id << 2 | size code, value) pairs, no padding, describing the
 * configured core mask, L2 slices and bus width the way kbase reports them.
 */
#include <string.h>

#include "vmali_internal.h"

uint32_t vmali_gpu_id_raw(const struct vmali *vm)
{
	/* r0p1 status 0: version_minor (bits 11:4) = 1 */
	return vm->cfg.gpu_id << 16 | 0x0010u;
}

static uint32_t log2u(uint32_t v)
{
	return 31u - (uint32_t)__builtin_clz(v);
}

uint32_t vmali_l2_features(const struct vmali *vm)
{
	/* 31:24 log2 bus width, 23:16 log2 cache size, 15:8 associativity,
	 * 7:0 log2 line size */
	return log2u(vm->cfg.bus_width_bits) << 24 | 18u << 16 | 4u << 8 | 6u;
}

uint32_t vmali_mem_features(const struct vmali *vm)
{
	return (vm->cfg.l2_slices - 1) << 8 | 1u; /* bit 0: coherent core group */
}

struct writer {
	uint8_t *buf;
	size_t len, pos;
};

static void put(struct writer *w, uint32_t id, enum vmali_prop_size code, uint64_t value)
{
	static const size_t bytes[] = { 1, 2, 4, 8 };
	uint8_t tmp[12];
	uint32_t key = id << 2 | (uint32_t)code;
	for (int i = 0; i < 4; i++)
		tmp[i] = (uint8_t)(key >> (8 * i));
	for (size_t i = 0; i < bytes[code]; i++)
		tmp[4 + i] = (uint8_t)(value >> (8 * i));
	size_t n = 4 + bytes[code];
	if (w->buf && w->pos + n <= w->len)
		memcpy(w->buf + w->pos, tmp, n);
	w->pos += n;
}

size_t vmali_props_build(const struct vmali *vm, uint8_t *buf, size_t len)
{
	const struct vmali_config *c = &vm->cfg;
	struct writer w = { buf, len, 0 };
	uint64_t l2_present = (1ull << c->l2_slices) - 1;

	put(&w, VMALI_PROP_PRODUCT_ID, VMALI_PROP_U32, c->gpu_id);
	put(&w, VMALI_PROP_VERSION_STATUS, VMALI_PROP_U32, 0);
	put(&w, VMALI_PROP_MINOR_REVISION, VMALI_PROP_U32, 1);
	put(&w, VMALI_PROP_MAJOR_REVISION, VMALI_PROP_U32, 0);
	put(&w, VMALI_PROP_GPU_FREQ_KHZ_MAX, VMALI_PROP_U64, 850000);
	put(&w, VMALI_PROP_L2_LOG2_LINE_SIZE, VMALI_PROP_U8, 6);
	put(&w, VMALI_PROP_L2_LOG2_CACHE_SIZE, VMALI_PROP_U8, 18);
	put(&w, VMALI_PROP_L2_NUM_L2_SLICES, VMALI_PROP_U8, c->l2_slices);
	put(&w, VMALI_PROP_RAW_SHADER_PRESENT, VMALI_PROP_U64, c->core_mask);
	put(&w, VMALI_PROP_RAW_TILER_PRESENT, VMALI_PROP_U64, 1);
	put(&w, VMALI_PROP_RAW_L2_PRESENT, VMALI_PROP_U64, l2_present);
	put(&w, VMALI_PROP_RAW_L2_FEATURES, VMALI_PROP_U32, vmali_l2_features(vm));
	/* The core variant: 4 (two execution engines) is valid on every
	 * command-stream GPU libGPUCounters checks; job-manager cores report 0. */
	put(&w, VMALI_PROP_RAW_CORE_FEATURES, VMALI_PROP_U32, c->csf ? 4 : 0);
	put(&w, VMALI_PROP_RAW_MEM_FEATURES, VMALI_PROP_U32, vmali_mem_features(vm));
	put(&w, VMALI_PROP_RAW_GPU_ID, VMALI_PROP_U32, vmali_gpu_id_raw(vm));
	put(&w, VMALI_PROP_RAW_THREAD_FEATURES, VMALI_PROP_U32, 0x0A040400u);
	put(&w, VMALI_PROP_COHERENCY_NUM_GROUPS, VMALI_PROP_U32, 1);
	put(&w, VMALI_PROP_COHERENCY_NUM_CORE_GROUPS, VMALI_PROP_U32, 1);
	put(&w, VMALI_PROP_COHERENCY_GROUP_0, VMALI_PROP_U64, c->core_mask);
	/* Entries past NUM_CORE_GROUPS and newer ids: decoders must ignore
	 * the first and skip what they do not know by its size code. */
	put(&w, VMALI_PROP_COHERENCY_GROUP_0 + 1, VMALI_PROP_U64, 0);
	put(&w, VMALI_PROP_NUM_EXEC_ENGINES, VMALI_PROP_U8, c->csf ? 2 : 3);
	put(&w, 57 /* RAW_THREAD_MAX_WORKGROUP_SIZE */, VMALI_PROP_U16, 384);
	return w.pos;
}
