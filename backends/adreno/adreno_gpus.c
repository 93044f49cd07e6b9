/* SPDX-License-Identifier: MIT */
/* adreno_gpus.c — chip ids (reference §6.2) and KGSL group ids (§1.4). */
#include <string.h>

#include "adreno_gpus.h"
#include "kgsl_uapi.h"

/* chip id: core[31:24] major[23:16] minor[15:8] patch[7:0].  a4xx and the
 * a6xx parts without a counter set are left out: no countable table. */
static const struct og_adreno_gpu gpus[] = {
	{ 0x05030000u, 0xFFFFFF00u, "Adreno 530", 5, 4, "adreno-a5xx" },
	{ 0x05040000u, 0xFFFFFF00u, "Adreno 540", 5, 4, "adreno-a5xx" },
	{ 0x06010800u, 0xFFFFFF00u, "Adreno 618", 6, 1, "adreno-a6xx" },
	{ 0x06030000u, 0xFFFFFF00u, "Adreno 630", 6, 2, "adreno-a6xx" },
	{ 0x06040000u, 0xFFFFFF00u, "Adreno 640", 6, 2, "adreno-a6xx" },
	{ 0x06050000u, 0xFFFFFF00u, "Adreno 650", 6, 3, "adreno-a6xx" },
	{ 0x06060000u, 0xFFFFFF00u, "Adreno 660", 6, 3, "adreno-a6xx" },
	{ 0x06090000u, 0xFFFFFF00u, "Adreno 690", 6, 8, "adreno-a6xx" },
	{ 0x07030000u, 0xFFFFFF00u, "Adreno 730", 7, 4, "adreno-a7xx" },
	/* a740/a750 carry a 0x43 "core" byte in KGSL's DEVICE_INFO (Mesa's
	 * "KGSL, no speedbin data" entries); 0x43050B00 is the Quest 3's a740. */
	{ 0x43050a00u, 0xFFFFFF00u, "Adreno 740", 7, 6, "adreno-a7xx" },
	{ 0x43050b00u, 0xFFFFFF00u, "Adreno 740", 7, 6, "adreno-a7xx" },
	{ 0x43051400u, 0xFFFFFF00u, "Adreno 750", 7, 6, "adreno-a7xx" },
};

const struct og_adreno_gpu *og_adreno_gpu_find(uint32_t chip_id)
{
	for (size_t i = 0; i < sizeof gpus / sizeof gpus[0]; i++)
		if ((chip_id & gpus[i].mask) == gpus[i].chip_id)
			return &gpus[i];
	return NULL;
}

static const char *const group_names[OG_KGSL_GROUP_MAX] = {
	[0x00] = "CP", [0x01] = "RBBM", [0x02] = "PC", [0x03] = "VFD", [0x04] = "HLSQ",
	[0x05] = "VPC", [0x06] = "TSE", [0x07] = "RAS", [0x08] = "UCHE", [0x09] = "TP",
	[0x0A] = "SP", [0x0B] = "RB", [0x0C] = "PWR", [0x0D] = "VBIF", [0x0E] = "VBIF_PWR",
	[0x17] = "VSC", [0x18] = "CCU", [0x19] = "LRZ", [0x1A] = "CMP", [0x1B] = "ALWAYSON",
	[0x1C] = "SP_PWR", [0x1D] = "TP_PWR", [0x1E] = "RB_PWR", [0x1F] = "CCU_PWR",
	[0x20] = "UCHE_PWR", [0x21] = "CP_PWR", [0x22] = "GPMU_PWR", [0x23] = "ALWAYSON_PWR",
	[0x27] = "GMU_XOCLK", [0x28] = "GMU_GMUCLK", [0x29] = "GMU_PERF", [0x2B] = "UFC",
	[0x2C] = "BV_CP", [0x2D] = "BV_PC", [0x2E] = "BV_VFD", [0x2F] = "BV_VPC",
	[0x30] = "BV_TP", [0x31] = "BV_SP", [0x32] = "BV_UFC", [0x33] = "BV_TSE",
	[0x34] = "BV_RAS", [0x35] = "BV_LRZ", [0x36] = "BV_HLSQ",
};

const char *og_adreno_group_name(uint32_t id)
{
	return id < OG_KGSL_GROUP_MAX ? group_names[id] : NULL;
}

int og_adreno_group_id(const char *name, unsigned len)
{
	for (unsigned i = 0; i < OG_KGSL_GROUP_MAX; i++)
		if (group_names[i] && strlen(group_names[i]) == len &&
		    memcmp(group_names[i], name, len) == 0)
			return (int)i;
	return -1;
}

bool og_adreno_group_fixed(uint32_t id)
{
	return id == 0x1B || id == 0x0E || id == 0x0C;
}
