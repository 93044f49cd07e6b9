/* SPDX-License-Identifier: MIT */
/*
 * vmali_gpus.c — the GPUs the virtual Mali can be: product id, name, the
 * counter layout (counter set) it shares, command-stream or job-manager
 * front end and values per block.  The device's own restatement of the GPU
 * table of /work/shared/reference/mali-kinstr-prfcnt.md section 6, kept
 * apart from the backend's (backends/mali/mali_gpus.c) on purpose: the two
 * are checked against Arm's Mali-ProductInfo.xml separately.
 */
#include <stddef.h>
#include <string.h>

#include "vmali_internal.h"

static const struct vmali_product products[] = {
	{ 0x6000, "Mali-G71", "mali-g71", false, 64 },
	{ 0x6001, "Mali-G72", "mali-g72", false, 64 },
	{ 0x7000, "Mali-G51", "mali-g51", false, 64 },
	{ 0x7001, "Mali-G76", "mali-g76", false, 64 },
	{ 0x7002, "Mali-G52", "mali-g52", false, 64 },
	{ 0x7003, "Mali-G31", "mali-g31", false, 64 },
	{ 0x9000, "Mali-G77", "mali-g77", false, 64 },
	{ 0x9001, "Mali-G57", "mali-g77", false, 64 },
	{ 0x9003, "Mali-G57", "mali-g77", false, 64 },
	{ 0x9002, "Mali-G78", "mali-g78", false, 64 },
	{ 0x9004, "Mali-G68", "mali-g78", false, 64 },
	{ 0x9005, "Mali-G78AE", "mali-g78", false, 64 },
	{ 0xa002, "Mali-G710", "mali-g710", true, 64 },
	{ 0xa003, "Mali-G510", "mali-g710", true, 64 },
	{ 0xa004, "Mali-G310", "mali-g710", true, 64 },
	{ 0xa007, "Mali-G610", "mali-g710", true, 64 },
	{ 0xb002, "Mali-G715", "mali-g715", true, 128 },
	{ 0xb003, "Mali-G615", "mali-g715", true, 128 },
	{ 0xc000, "Mali-G720", "mali-g720", true, 128 },
	{ 0xc001, "Mali-G620", "mali-g720", true, 128 },
	{ 0xd000, "Mali-G725", "mali-g725", true, 128 },
	{ 0xd001, "Mali-G625", "mali-g725", true, 128 },
	{ 0xe000, "Mali G1-Ultra", "mali-g1", true, 128 },
	{ 0xe001, "Mali G1-Premium", "mali-g1", true, 128 },
	{ 0xe003, "Mali G1-Pro", "mali-g1", true, 128 },
};

const struct vmali_product *vmali_product_find(uint32_t id)
{
	for (size_t i = 0; i < sizeof(products) / sizeof(products[0]); i++)
		if (products[i].id == (id & 0xF00Fu))
			return &products[i];
	return NULL;
}

const struct vmali_product *vmali_products(size_t *n)
{
	*n = sizeof(products) / sizeof(products[0]);
	return products;
}

const struct vmali_layout *vmali_layout_find(const char *key)
{
	for (size_t i = 0; i < vmali_layout_count; i++)
		if (strcmp(vmali_layouts[i].key, key) == 0)
			return &vmali_layouts[i];
	return NULL;
}

bool vmali_product_csf(uint32_t id, bool *csf)
{
	const struct vmali_product *p = vmali_product_find(id);
	if (p)
		*csf = p->csf;
	return p != NULL;
}
