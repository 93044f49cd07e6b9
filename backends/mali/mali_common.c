/* SPDX-License-Identifier: MIT */
/* mali_common.c — GPU identity, dump layout, source notation and constants,
 * shared by the kbase and panfrost backends. */
#include "mali_common.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool og_mali_log_wanted(const struct og_backend_host *host, enum og_log_level level)
{
	return host && host->log && (!host->log_wants || host->log_wants(host->log_ctx, level));
}

void og_mali_log(const struct og_backend_host *host, enum og_log_level level, const char *fmt, ...)
{
	if (!og_mali_log_wanted(host, level))
		return;
	char line[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	host->log(host->log_ctx, level, "%s", line);
}

GPA_Status og_mali_check_gpu(const struct og_backend_host *host, const char *who,
                             struct og_mali_gpu *gpu, int frontend_required)
{
	const struct og_mali_product *p = og_mali_product_find(gpu->product_id);
	if (!p) {
		const char *midgard = og_mali_midgard_name(gpu->product_id);
		if (midgard)
			og_mali_log(host, OG_LOG_ERROR,
			            "%s: GPU product id 0x%04x (%s, Midgard) is not supported; opengpa "
			            "reads Bifrost, Valhall and 5th-generation Mali GPUs (Mali-G31 and "
			            "later), whose counter layouts Arm publishes",
			            who, (unsigned)gpu->product_id, midgard);
		else
			og_mali_log(host, OG_LOG_ERROR,
			            "%s: GPU product id 0x%04x is not in opengpa's GPU table (Mali-G31 to "
			            "Mali G1, docs/backends/mali.md); a newer GPU needs a newer opengpa",
			            who, (unsigned)gpu->product_id);
		return GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED;
	}
	if (frontend_required >= 0 && (int)p->frontend != frontend_required) {
		og_mali_log(host, OG_LOG_ERROR,
		            "%s: %s (product id 0x%04x) has a %s front end, which this driver does "
		            "not drive; refusing a GPU and driver that disagree",
		            who, p->name, (unsigned)gpu->product_id,
		            p->frontend == OG_MALI_FRONTEND_CSF ? "command-stream (CSF)"
		                                                : "job-manager (JM)");
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
	gpu->product = p;
	return GPA_STATUS_OK;
}

void og_mali_fill_info(const struct og_mali_gpu *gpu, struct og_device_info *info)
{
	const struct og_mali_product *p = gpu->product;
	memset(info, 0, sizeof *info);
	info->device_id = gpu->product_id;
	info->revision_id = gpu->revision;
	/* Arm counts cores "MP" on Bifrost and "MC" from Valhall on. */
	bool bifrost = p && strcmp(p->architecture, "Bifrost") == 0;
	snprintf(info->description, sizeof info->description, "%s %s%d", p ? p->name : "Mali",
	         bifrost ? "MP" : "MC", __builtin_popcountll(gpu->core_mask));
	info->counter_sets[0] = p ? p->counter_set : NULL;
}

uint32_t og_mali_dump_blocks(const struct og_mali_gpu *gpu)
{
	return 2u + gpu->l2_slices + og_mali_fls64(gpu->core_mask);
}

size_t og_mali_dump_bytes(const struct og_mali_gpu *gpu)
{
	return (size_t)og_mali_dump_blocks(gpu) * OG_MALI_V5_BLOCK_BYTES;
}

static const char *const block_names[OG_MALI_BLOCK_TYPES] = {"FE", "TILER", "L2", "SC", "FW",
                                                             "CSG"};

const char *og_mali_block_name(uint32_t block)
{
	return block < OG_MALI_BLOCK_TYPES ? block_names[block] : "?";
}

GPA_Status og_mali_parse_source(const char *source, uint32_t *raw_id, const char **why)
{
	static const struct {
		const char *text;
		uint32_t id;
	} named[] = {
		{"CYCLES:top", OG_MALI_RAW_CYCLES_TOP},
		{"CYCLES:shader", OG_MALI_RAW_CYCLES_SHADER},
		{"TIME:ns", OG_MALI_RAW_TIME_NS},
	};
	static const uint8_t block_len[] = {2, 5, 2, 2, 2, 3}; /* of block_names */
	_Static_assert(sizeof(block_len) == OG_MALI_BLOCK_TYPES, "a length per block name");
	*why = NULL;
	if (!source) {
		*why = "no source";
		return GPA_STATUS_ERROR_NULL_POINTER;
	}
	/* Every context binds each of its set's sources (a few hundred):
	 * parsed by hand, without strtoul, as the open's cost is counted
	 * (docs/performance.md, "Opening"). */
	const char *colon = source;
	while (*colon && *colon != ':')
		colon++;
	if (*colon != ':') {
		*why = "a Mali source is BLOCK:INDEX (FE, TILER, L2, SC, FW or CSG), CYCLES:top, "
		       "CYCLES:shader or TIME:ns";
		return GPA_STATUS_ERROR_FAILED;
	}
	size_t blen = (size_t)(colon - source);
	/* BLOCK#N: one instance of the block (mali_common.h). */
	const char *hash = memchr(source, '#', blen);
	uint32_t instance = 0;
	if (hash) {
		const char *q = hash + 1;
		if (q == colon) {
			*why = "a per-instance Mali source is BLOCK#N:INDEX, N a decimal number";
			return GPA_STATUS_ERROR_FAILED;
		}
		for (; q < colon; q++) {
			if (*q < '0' || *q > '9') {
				*why = "a per-instance Mali source is BLOCK#N:INDEX, N a decimal number";
				return GPA_STATUS_ERROR_FAILED;
			}
			if (instance < OG_MALI_INST_MAX) /* beyond: out of range, however long */
				instance = instance * 10 + (uint32_t)(*q - '0');
		}
		if (instance >= OG_MALI_INST_MAX) {
			*why = "block instances run from 0 to 63";
			return GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE;
		}
		blen = (size_t)(hash - source);
	}
	if (!hash && (blen == 6 || blen == 4)) /* CYCLES:, TIME: (no block name is that long) */
		for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
			if (strcmp(source, named[i].text) == 0) {
				*raw_id = named[i].id;
				return GPA_STATUS_OK;
			}
	/* JM: is what the reviewed Mali-G71 set calls the front end. */
	bool jm = blen == 2 && source[0] == 'J' && source[1] == 'M';
	for (uint32_t b = 0; b < OG_MALI_BLOCK_TYPES; b++) {
		bool match = b == OG_MALI_FE && jm;
		if (!match && block_len[b] == blen && source[0] == block_names[b][0])
			match = memcmp(source, block_names[b], blen) == 0;
		if (!match)
			continue;
		const char *p = colon + 1;
		uint32_t idx = 0;
		if (*p < '0' || *p > '9') {
			*why = "the index after BLOCK: must be a decimal number";
			return GPA_STATUS_ERROR_FAILED;
		}
		for (; *p >= '0' && *p <= '9'; p++)
			if (idx < OG_MALI_MAX_VALUES) /* beyond it: out of range, however long */
				idx = idx * 10 + (uint32_t)(*p - '0');
		if (*p != '\0') {
			*why = "the index after BLOCK: must be a decimal number";
			return GPA_STATUS_ERROR_FAILED;
		}
		if (idx < OG_MALI_HEADER_WORDS || idx >= OG_MALI_MAX_VALUES) {
			*why = "counter indices run from 4 to 127 (0..3 are the block header)";
			return GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE;
		}
		if (hash) {
			if (b == OG_MALI_FE || b == OG_MALI_TILER) {
				*why = "the front end and the tiler have one instance: use FE:N or "
				       "TILER:N";
				return GPA_STATUS_ERROR_FAILED;
			}
			*raw_id = og_mali_raw_instance_id(b, instance, idx);
			return GPA_STATUS_OK;
		}
		*raw_id = b * OG_MALI_MAX_VALUES + idx;
		return GPA_STATUS_OK;
	}
	*why = "unknown Mali block; use FE (or JM), TILER, L2, SC, FW or CSG";
	return GPA_STATUS_ERROR_FAILED;
}

const char *og_mali_instance_why_not(const struct og_mali_gpu *gpu, const uint16_t *instances,
                                     uint32_t block, uint32_t instance)
{
	if (block >= OG_MALI_BLOCK_TYPES || block == OG_MALI_FE || block == OG_MALI_TILER)
		return "the front end and the tiler have one instance: no per-instance values";
	if (instance >= OG_MALI_INST_MAX)
		return "block instances run from 0 to 63";
	if (block == OG_MALI_SC)
		return gpu->core_mask >> instance & 1u
		               ? NULL
		               : "no shader core has that number: cores are numbered by their bit in "
		                 "the core mask, and this bit is clear";
	if (instance >= instances[block])
		return block == OG_MALI_L2 ? "this GPU has fewer L2 slices"
		                           : "the driver lists fewer blocks of this type";
	return NULL;
}

const char *og_mali_instance_label(uint32_t block)
{
	switch (block) {
	case OG_MALI_L2:
		return "L2Slice";
	case OG_MALI_SC:
		return "ShaderCore";
	case OG_MALI_FW:
		return "Firmware";
	case OG_MALI_CSG:
		return "CSG";
	default:
		return NULL;
	}
}

/* v (< 10^7) in decimal. */
static void decimal(uint32_t v, char out[8])
{
	char tmp[8];
	size_t n = 0;
	do
		tmp[n++] = (char)('0' + v % 10u);
	while ((v /= 10u) && n < 7);
	for (size_t i = 0; i < n; i++)
		out[i] = tmp[n - 1 - i];
	out[n] = '\0';
}

/* a, b, c into out (len bytes), cut short rather than overrun. */
static void join3(char *out, size_t len, const char *a, const char *b, const char *c)
{
	const char *parts[3] = { a, b, c };
	size_t at = 0;
	for (size_t p = 0; p < 3; p++)
		for (const char *s = parts[p]; *s && at + 1 < len; s++)
			out[at++] = *s;
	out[at] = '\0';
}

size_t og_mali_raw_instances(const struct og_mali_gpu *gpu, const uint16_t *instances,
                             uint32_t raw_id, struct og_raw_instance *out, size_t max)
{
	if (raw_id >= OG_MALI_HW_RAW)
		return 0;
	uint32_t block = og_mali_raw_block(raw_id), index = og_mali_raw_index(raw_id);
	const char *label = og_mali_instance_label(block);
	/* A block type with one instance other than the cores and slices (the
	 * firmware's) gives none: its sum is its value. */
	if (!label || (block != OG_MALI_SC && block != OG_MALI_L2 && instances[block] < 2))
		return 0;
	size_t n = 0;
	for (uint32_t i = 0; i < OG_MALI_INST_MAX && n < max; i++) {
		if (og_mali_instance_why_not(gpu, instances, block, i))
			continue;
		/* Written by hand: a context's first open asks this of every
		 * shader-core and L2 counter (thousands of strings). */
		struct og_raw_instance *o = &out[n++];
		char num[8], idx[8];
		decimal(i, num);
		decimal(index, idx);
		join3(o->label, sizeof o->label, label, num, "");
		join3(o->source, sizeof o->source, og_mali_block_name(block), "#", num);
		size_t at = strlen(o->source);
		join3(o->source + at, sizeof o->source - at, ":", idx, "");
		o->raw_id = og_mali_raw_instance_id(block, i, index);
	}
	return n;
}

uint64_t og_mali_instances_key(const struct og_mali_gpu *gpu, const uint16_t *instances,
                               uint64_t reader)
{
	uint64_t h = 0xcbf29ce484222325ull;
	uint64_t words[2 + OG_MALI_BLOCK_TYPES];
	words[0] = gpu->core_mask;
	words[1] = reader;
	for (uint32_t t = 0; t < OG_MALI_BLOCK_TYPES; t++)
		words[2 + t] = instances[t];
	for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
		h = (h ^ words[i]) * 0x100000001b3ull;
	return h;
}

bool og_mali_counts_instances(const char *name)
{
	return strcmp(name, "MaliConstantsShaderCoreCount") == 0 ||
	       strcmp(name, "MaliConfigCoreCount") == 0 ||
	       strcmp(name, "MaliConstantsL2SliceCount") == 0 ||
	       strcmp(name, "MaliConfigL2CacheCount") == 0;
}

GPA_Status og_mali_constant(const struct og_mali_gpu *gpu, const char *name, double *value)
{
	if (!name || !value)
		return GPA_STATUS_ERROR_NULL_POINTER;
	if (strcmp(name, "MaliConstantsShaderCoreCount") == 0 ||
	    strcmp(name, "MaliConfigCoreCount") == 0)
		*value = __builtin_popcountll(gpu->core_mask);
	else if (strcmp(name, "MaliConstantsL2SliceCount") == 0 ||
	         strcmp(name, "MaliConfigL2CacheCount") == 0)
		*value = gpu->l2_slices;
	else if (strcmp(name, "MaliConstantsBusWidthBits") == 0)
		*value = gpu->bus_width_bits;
	else if (strcmp(name, "MaliConfigExtBusBeatSize") == 0)
		*value = gpu->bus_width_bits / 8u; /* one beat moves the whole bus width */
	else if (strcmp(name, "DeviceMaxClockHz") == 0 && gpu->max_freq_khz)
		*value = (double)gpu->max_freq_khz * 1000.0; /* the cycle budget's clock */
	else
		return GPA_STATUS_ERROR_NOT_FOUND;
	return GPA_STATUS_OK;
}
