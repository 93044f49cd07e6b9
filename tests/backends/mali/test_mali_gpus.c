/* SPDX-License-Identifier: MIT */
/*
 * test_mali_gpus.c — the mali backends' GPU table (backends/mali/mali_gpus.c)
 * against Arm's product list and hardware layouts, as the project carries
 * them in tools/mali-spec/data (tools/mali-spec/import.py): every id
 * of Mali-ProductInfo.xml is in the table with its first name, its
 * architecture and the counter set of its DatabaseKey, every table entry is
 * in the file, and each layout's block size is the table's values per block.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "mali/mali_gpus.h"

#ifndef MALI_SPEC_DIR
#error "MALI_SPEC_DIR must name tools/mali-spec/data"
#endif

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (buf)
		buf[n] = '\0';
	fclose(f);
	return buf;
}

/* The text of the first <tag>...</tag> at or after p and before end. */
static bool tag_text(const char *p, const char *end, const char *tag, char *out, size_t len,
                     const char **after)
{
	char open[64], close[64];
	snprintf(open, sizeof open, "<%s>", tag);
	snprintf(close, sizeof close, "</%s>", tag);
	const char *a = strstr(p, open);
	if (!a || a >= end)
		return false;
	a += strlen(open);
	const char *b = strstr(a, close);
	if (!b || b > end || (size_t)(b - a) >= len)
		return false;
	memcpy(out, a, (size_t)(b - a));
	out[b - a] = '\0';
	if (after)
		*after = b + strlen(close);
	return true;
}

/* "Mali-G710" -> "mali-g710", "Mali G1" -> "mali-g1". */
static void set_name_of(const char *key, char *out, size_t len)
{
	snprintf(out, len, "mali-%s", key + 5);
	for (char *c = out; *c; c++)
		*c = (char)(*c >= 'A' && *c <= 'Z' ? *c - 'A' + 'a' : *c);
}

static void test_table_matches_product_info(void **unused)
{
	(void)unused;
	char *xml = slurp(MALI_SPEC_DIR "/Mali-ProductInfo.xml");
	if (!xml)
		fail_msg("cannot read %s/Mali-ProductInfo.xml (%s): restore tools/mali-spec/data "
		         "(git checkout, or tools/mali-spec/import.py)", MALI_SPEC_DIR, strerror(errno));
	size_t n;
	const struct og_mali_product *table = og_mali_products(&n);
	bool listed[64] = {false};
	assert_true(n <= 64);
	unsigned products = 0;
	for (const char *p = strstr(xml, "<ProductInfo>"); p; p = strstr(p + 1, "<ProductInfo>")) {
		const char *end = strstr(p, "</ProductInfo>");
		assert_non_null(end);
		char name[64], arch[64], key[64], id[16], set[64];
		assert_true(tag_text(p, end, "Name", name, sizeof name, NULL));
		assert_true(tag_text(p, end, "Architecture", arch, sizeof arch, NULL));
		assert_true(tag_text(p, end, "DatabaseKey", key, sizeof key, NULL));
		set_name_of(key, set, sizeof set);
		const char *q = p;
		while (tag_text(q, end, "Id", id, sizeof id, &q)) {
			unsigned long v = strtoul(id, NULL, 16);
			const struct og_mali_product *e = og_mali_product_find((uint32_t)v);
			if (!e)
				fail_msg("%s (%s) is not in the table", id, name);
			if (strcmp(e->name, name) || strcmp(e->architecture, arch) ||
			    strcmp(e->counter_set, set))
				fail_msg("%s: table says %s/%s/%s, ProductInfo %s/%s/%s", id, e->name,
				         e->architecture, e->counter_set, name, arch, set);
			listed[e - table] = true;
			/* Another revision (arch_minor, arch_rev bits) is the same GPU. */
			assert_ptr_equal(og_mali_product_find((uint32_t)v | 0x0230u), e);
			products++;
		}
	}
	for (size_t i = 0; i < n; i++)
		if (!listed[i])
			fail_msg("table entry 0x%04x (%s) is not in Mali-ProductInfo.xml",
			         (unsigned)table[i].id, table[i].name);
	assert_int_equal(products, n);
	free(xml);
}

static void test_block_sizes_match_layouts(void **unused)
{
	(void)unused;
	size_t n;
	const struct og_mali_product *table = og_mali_products(&n);
	for (size_t i = 0; i < n; i++) {
		/* counters/mali-g710 <- hardwarelayout/Mali-G710.xml */
		char path[512], upper[32];
		snprintf(upper, sizeof upper, "%s", table[i].counter_set + 5);
		for (char *c = upper; *c; c++)
			*c = (char)(*c >= 'a' && *c <= 'z' ? *c - 'a' + 'A' : *c);
		snprintf(path, sizeof path, "%s/hardwarelayout/Mali-%s.xml", MALI_SPEC_DIR, upper);
		char *xml = slurp(path);
		if (!xml)
			fail_msg("%s: %s", path, strerror(errno));
		unsigned blocks = 0;
		for (const char *p = strstr(xml, "<CounterBlock "); p;
		     p = strstr(p + 1, "<CounterBlock ")) {
			const char *size = strstr(p, "size=\"");
			assert_non_null(size);
			unsigned v = (unsigned)strtoul(size + 6, NULL, 10);
			if (v != table[i].values_per_block)
				fail_msg("%s: a block of %u values, the table says %u", path, v,
				         (unsigned)table[i].values_per_block);
			blocks++;
		}
		assert_int_equal(blocks, 4);
		free(xml);
	}
}

/* Arch 10 and later have command stream front ends (reference section 6). */
static void test_front_end_by_architecture(void **unused)
{
	(void)unused;
	size_t n;
	const struct og_mali_product *table = og_mali_products(&n);
	for (size_t i = 0; i < n; i++) {
		bool csf = (table[i].id >> 12) >= 0xa;
		assert_int_equal(table[i].frontend, csf ? OG_MALI_FRONTEND_CSF : OG_MALI_FRONTEND_JM);
		assert_int_equal(table[i].values_per_block, (table[i].id >> 12) >= 0xb ? 128 : 64);
	}
	assert_null(og_mali_product_find(0x0860));
	assert_null(og_mali_product_find(0x6956));
	assert_null(og_mali_product_find(0x5000));
	assert_string_equal(og_mali_midgard_name(0x0860), "Mali-T860");
}

int main(void)
{
	/* The database is part of the tree: its absence is a failure, not a skip. */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_front_end_by_architecture),
		cmocka_unit_test(test_table_matches_product_info),
		cmocka_unit_test(test_block_sizes_match_layouts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
