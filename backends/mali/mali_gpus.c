/* SPDX-License-Identifier: MIT */
/* mali_gpus.c — the GPU table (see mali_gpus.h). */
#include "mali_gpus.h"

#define JM OG_MALI_FRONTEND_JM
#define CSF OG_MALI_FRONTEND_CSF

/* Products sharing a hardware layout share its counter set: G57 the G77's,
 * G68 and G78AE the G78's, G310/G510/G610 the G710's, G615 the G715's,
 * G620 the G720's, G625 the G725's, every G1 the G1's.  Bifrost and
 * Valhall JM GPUs (arch 6 to 9) have job managers, arch 10 and later
 * command stream front ends; arch 11 and later have 128-value blocks. */
static const struct og_mali_product products[] = {
	{0x6000, "Mali-G71", "Bifrost", "mali-g71", JM, 64},
	{0x6001, "Mali-G72", "Bifrost", "mali-g72", JM, 64},
	{0x7000, "Mali-G51", "Bifrost", "mali-g51", JM, 64},
	{0x7001, "Mali-G76", "Bifrost", "mali-g76", JM, 64},
	{0x7002, "Mali-G52", "Bifrost", "mali-g52", JM, 64},
	{0x7003, "Mali-G31", "Bifrost", "mali-g31", JM, 64},
	{0x9000, "Mali-G77", "Valhall", "mali-g77", JM, 64},
	{0x9001, "Mali-G57", "Valhall", "mali-g77", JM, 64},
	{0x9003, "Mali-G57", "Valhall", "mali-g77", JM, 64},
	{0x9002, "Mali-G78", "Valhall", "mali-g78", JM, 64},
	{0x9004, "Mali-G68", "Valhall", "mali-g78", JM, 64},
	{0x9005, "Mali-G78AE", "Valhall", "mali-g78", JM, 64},
	{0xa002, "Mali-G710", "Valhall", "mali-g710", CSF, 64},
	{0xa003, "Mali-G510", "Valhall", "mali-g710", CSF, 64},
	{0xa004, "Mali-G310", "Valhall", "mali-g710", CSF, 64},
	{0xa007, "Mali-G610", "Valhall", "mali-g710", CSF, 64},
	{0xb002, "Mali-G715", "Valhall", "mali-g715", CSF, 128},
	{0xb003, "Mali-G615", "Valhall", "mali-g715", CSF, 128},
	{0xc000, "Mali-G720", "5th Generation", "mali-g720", CSF, 128},
	{0xc001, "Mali-G620", "5th Generation", "mali-g720", CSF, 128},
	{0xd000, "Mali-G725", "5th Generation", "mali-g725", CSF, 128},
	{0xd001, "Mali-G625", "5th Generation", "mali-g725", CSF, 128},
	{0xe000, "Mali G1-Ultra", "5th Generation", "mali-g1", CSF, 128},
	{0xe001, "Mali G1-Premium", "5th Generation", "mali-g1", CSF, 128},
	{0xe003, "Mali G1-Pro", "5th Generation", "mali-g1", CSF, 128},
};

const struct og_mali_product *og_mali_products(size_t *count)
{
	*count = sizeof products / sizeof products[0];
	return products;
}

const struct og_mali_product *og_mali_product_find(uint32_t product_id)
{
	/* Midgard ids (below 0x1000, or T60x's 0x6956) are a different scheme. */
	if (product_id < 0x1000 || product_id > 0xFFFF || product_id == 0x6956)
		return NULL;
	for (size_t i = 0; i < sizeof products / sizeof products[0]; i++)
		if (products[i].id == (product_id & OG_MALI_PRODUCT_MASK))
			return &products[i];
	return NULL;
}

const char *og_mali_midgard_name(uint32_t product_id)
{
	static const struct {
		uint32_t id;
		const char *name;
	} midgard[] = {
		{0x6956, "Mali-T60x"}, {0x0620, "Mali-T62x"}, {0x0720, "Mali-T720"},
		{0x0750, "Mali-T760"}, {0x0820, "Mali-T820"}, {0x0830, "Mali-T830"},
		{0x0860, "Mali-T860"}, {0x0880, "Mali-T880"},
	};
	for (size_t i = 0; i < sizeof midgard / sizeof midgard[0]; i++)
		if (midgard[i].id == product_id)
			return midgard[i].name;
	return NULL;
}
