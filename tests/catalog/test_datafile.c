/* SPDX-License-Identifier: MIT */
/*
 * test_datafile.c — the counter-set data file (catalog/datafile.h): a file
 * counters/pack.py made holds each set's text byte for byte; every
 * truncation, every bit flipped in its header and index and a sample of
 * bits flipped in its texts is refused, and random damage never makes the
 * reader read outside the file (each copy is a malloc of exactly its size,
 * so ASan sees any byte past it); the process's file is found through
 * OPENGPA_COUNTER_SETS and a set it lacks is NOT_FOUND with a message.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "catalog/counterfile.h"
#include "catalog/datafile.h"
#include "catalog/embedded.h"

/* The sets tests/meson.build packs into OG_TEST_DATAFILE. */
static const char *const packed[] = { "gpa-timing-mali-g71", "mali-g71", "perf-generic" };
#define NPACKED (sizeof(packed) / sizeof(packed[0]))

static unsigned char *good;
static size_t good_size;

static uint32_t le32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* The header and index: the part every bit of which the check covers. */
static size_t index_end(void)
{
	return 32 + le32(good + 16);
}

static int load(void **unused)
{
	(void)unused;
	FILE *f = fopen(OG_TEST_DATAFILE, "rb");
	if (!f)
		return -1;
	fseek(f, 0, SEEK_END);
	good_size = (size_t)ftell(f);
	fseek(f, 0, SEEK_SET);
	good = malloc(good_size);
	size_t got = good ? fread(good, 1, good_size, f) : 0;
	fclose(f);
	return got == good_size ? 0 : -1;
}

static int unload(void **unused)
{
	(void)unused;
	free(good);
	return 0;
}

static const char *embedded_text(const char *name)
{
	for (size_t i = 0; i < og_embedded_set_count; i++)
		if (strcmp(og_embedded_sets[i].name, name) == 0)
			return og_embedded_sets[i].text;
	return NULL;
}

/* A copy of exactly n bytes (n may be 0: one byte allocated, none used). */
static unsigned char *copy(const unsigned char *from, size_t n)
{
	unsigned char *c = malloc(n ? n : 1);
	assert_non_null(c);
	memcpy(c, from, n);
	return c;
}

static void test_holds_each_set(void **unused)
{
	(void)unused;
	char err[512];
	assert_true(og_datafile_check(good, good_size, err, sizeof(err)));
	for (size_t i = 0; i < NPACKED; i++) {
		const char *text = NULL;
		size_t len = 0;
		assert_int_equal(og_datafile_find(good, good_size, packed[i], &text, &len, err,
		                                  sizeof(err)), GPA_STATUS_OK);
		const char *want = embedded_text(packed[i]);
		assert_non_null(want);
		assert_int_equal(len, strlen(want));
		assert_memory_equal(text, want, len);
		struct og_cf_file file;
		assert_true(og_cf_parse("counters/x.counters", text, &file, err, sizeof(err)));
		og_cf_free(&file);
	}
	const char *text;
	size_t len;
	assert_int_equal(og_datafile_find(good, good_size, "mali-g99", &text, &len, err, sizeof(err)),
	                 GPA_STATUS_ERROR_NOT_FOUND);
	assert_non_null(strstr(err, "mali-g99"));
	assert_int_equal(og_datafile_find(good, good_size, "mali-g7", &text, &len, err, sizeof(err)),
	                 GPA_STATUS_ERROR_NOT_FOUND);
}

/* Every length short of the whole file is refused, with a reason. */
static void test_truncated(void **unused)
{
	(void)unused;
	size_t end = index_end();
	for (size_t n = 0; n < good_size; n += n < end + 64 ? 1 : 4099) {
		unsigned char *c = copy(good, n);
		char err[512] = "";
		if (og_datafile_check(c, n, err, sizeof(err)))
			fail_msg("a file cut to %zu of %zu bytes was accepted", n, good_size);
		assert_true(err[0] != '\0');
		free(c);
	}
	unsigned char *c = copy(good, good_size - 1);
	char err[512];
	assert_false(og_datafile_check(c, good_size - 1, err, sizeof(err)));
	assert_non_null(strstr(err, "truncated"));
	free(c);
}

/* One bit flipped anywhere in the header or index: refused. */
static void test_index_bit_flips(void **unused)
{
	(void)unused;
	size_t end = index_end();
	unsigned char *c = copy(good, good_size);
	for (size_t byte = 0; byte < end; byte++)
		for (int bit = 0; bit < 8; bit++) {
			c[byte] ^= (unsigned char)(1u << bit);
			char err[512];
			if (og_datafile_check(c, good_size, err, sizeof(err)))
				fail_msg("bit %d of byte %zu flipped: accepted", bit, byte);
			c[byte] ^= (unsigned char)(1u << bit);
		}
	free(c);
}

/* A bit flipped in a text (or the NUL after it): the index still checks,
 * the set holding it is refused, the others read as before. */
static void test_text_bit_flips(void **unused)
{
	(void)unused;
	size_t end = index_end();
	unsigned char *c = copy(good, good_size);
	unsigned tried = 0;
	for (size_t byte = end; byte < good_size; byte += 1009, tried++) {
		int bit = (int)(byte % 8);
		c[byte] ^= (unsigned char)(1u << bit);
		char err[512];
		assert_true(og_datafile_check(c, good_size, err, sizeof(err)));
		unsigned refused = 0;
		for (size_t i = 0; i < NPACKED; i++) {
			const char *text;
			size_t len;
			GPA_Status st = og_datafile_find(c, good_size, packed[i], &text, &len, err,
			                                 sizeof(err));
			if (st == GPA_STATUS_ERROR_FAILED) {
				refused++;
				assert_non_null(strstr(err, "damaged"));
			} else {
				assert_int_equal(st, GPA_STATUS_OK);
				assert_memory_equal(text, embedded_text(packed[i]), len);
			}
		}
		if (refused != 1)
			fail_msg("bit %d of byte %zu flipped: %u sets refused", bit, byte, refused);
		c[byte] ^= (unsigned char)(1u << bit);
	}
	assert_true(tried > 100);
	free(c);
}

/* Random damage (a run of random bytes, a random length): whatever the
 * reader answers, it reads inside the copy, and a text it accepts is the
 * packed one. */
static void test_random_damage(void **unused)
{
	(void)unused;
	uint64_t s = 0x9e3779b97f4a7c15ull;
	for (int round = 0; round < 1000; round++) {
		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		size_t n = round % 3 ? good_size : (size_t)(s % (good_size + 1));
		unsigned char *c = copy(good, n);
		size_t at = n ? (size_t)((s >> 20) % n) : 0, run = (size_t)(s >> 50) % 16;
		/* Mostly the header and index, where the offsets are. */
		if (round % 2 && n > 0)
			at = at % (index_end() < n ? index_end() : n);
		for (size_t k = 0; k < run && at + k < n; k++) {
			s ^= s << 13, s ^= s >> 7, s ^= s << 17;
			c[at + k] = (unsigned char)s;
		}
		char err[512];
		if (og_datafile_check(c, n, err, sizeof(err)))
			for (size_t i = 0; i < NPACKED; i++) {
				const char *text;
				size_t len;
				if (og_datafile_find(c, n, packed[i], &text, &len, err, sizeof(err)) ==
				    GPA_STATUS_OK) {
					assert_int_equal(len, strlen(embedded_text(packed[i])));
					assert_memory_equal(text, embedded_text(packed[i]), len);
				}
			}
		free(c);
	}
}

/* The process's file, named by OPENGPA_COUNTER_SETS (a data-file handle of
 * the test's own: the library's is the registry's). */
static void test_process_file(void **unused)
{
	(void)unused;
	static struct og_datafile df = OG_DATAFILE_INIT;
	assert_int_equal(setenv("OPENGPA_COUNTER_SETS", OG_TEST_DATAFILE, 1), 0);
	const char *text, *path;
	size_t len;
	char err[1400];
	assert_int_equal(og_datafile_text(&df, "perf-generic", &text, &len, &path, err, sizeof(err)),
	                 GPA_STATUS_OK);
	assert_string_equal(path, OG_TEST_DATAFILE);
	assert_memory_equal(text, embedded_text("perf-generic"), len);
	assert_int_equal(og_datafile_text(&df, "adreno-a6xx", &text, &len, &path, err, sizeof(err)),
	                 GPA_STATUS_ERROR_NOT_FOUND);
	assert_non_null(strstr(err, "adreno-a6xx"));
	assert_non_null(strstr(err, "counter-sets"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_holds_each_set),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_index_bit_flips),
		cmocka_unit_test(test_text_bit_flips),
		cmocka_unit_test(test_random_damage),
		cmocka_unit_test(test_process_file),
	};
	return cmocka_run_group_tests(tests, load, unload);
}
