/* SPDX-License-Identifier: MIT */
/*
 * test_mali_instances.c — per-instance values (BLOCK#N sources) of the mali
 * backend on the virtual Mali, whose workload spreads work unevenly over
 * the cores and slices (script keys imbalance, slice_imbalance): every
 * shader core's, L2 slice's and CSG's value equal to what the device
 * counted in that block, the instances adding up to the summed counter,
 * the per-core compute warps the shares the script asks for, on vinstr and
 * kinstr_prfcnt, JM and CSF (Mali-G78 JM 11.41, Mali-G720 CSF 1.23), dense
 * and sparse core masks; and every source naming an instance that is not
 * there refused with a reason.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "backend.h"
#include "vmali.h"
#include "vmali_testlib.h"

extern const struct og_backend_ops og_backend_mali;

#define FRAMES 3u
#define WARPS 4000u
static const char script[] = "frame compute_warps=4000 imbalance=1 slice_imbalance=0.5\n";

/* Share k of n of total under weights 1 + imb * i / (n - 1), whole shares
 * adding up to total: the script's rule (vmali_workload.c), written again. */
static uint64_t expected_share(uint64_t total, uint32_t n, uint32_t k, double imb)
{
	if (n < 2)
		return total;
	double w = 0, c0 = 0;
	for (uint32_t i = 0; i < n; i++) {
		if (i == k)
			c0 = w;
		w += (double)(1000 + (uint64_t)(1000.0 * imb * i / (n - 1) + 0.5));
	}
	double c1 = c0 + (double)(1000 + (uint64_t)(1000.0 * imb * k / (n - 1) + 0.5));
	return (uint64_t)((double)total * c1 / w) - (uint64_t)((double)total * c0 / w);
}

struct probe {
	uint32_t id;
	enum vmali_block block;
	int instance; /* VMALI_ALL for the sum */
	unsigned index;
	uint64_t before;
};

/* Binds, for every value of `block`, the sum and each instance there is;
 * appends to p. */
static size_t bind_block(struct tl_rig *r, enum vmali_block block, const char *name,
                         struct probe *p, size_t n, size_t max)
{
	unsigned values = vmali_values_per_block(r->vm);
	unsigned slots = vmali_block_instances(r->vm, block);
	struct vmali_config c;
	vmali_get_config(r->vm, &c);
	for (unsigned idx = 4; idx < values; idx++) {
		char src[32];
		const char *why;
		uint32_t id;
		snprintf(src, sizeof src, "%s:%u", name, idx);
		if (og_backend_mali.bind_raw(r->state, "x", src, &id, &why) != GPA_STATUS_OK)
			continue;
		assert_true(n < max);
		p[n++] = (struct probe){id, block, VMALI_ALL, idx, 0};
		for (unsigned i = 0; i < slots; i++) {
			bool there = block != VMALI_BLOCK_SC || (c.core_mask >> i & 1);
			snprintf(src, sizeof src, "%s#%u:%u", name, i, idx);
			GPA_Status st = og_backend_mali.bind_raw(r->state, "x", src, &id, &why);
			if (!there) {
				assert_int_equal(st, GPA_STATUS_ERROR_NOT_FOUND);
				assert_non_null(strstr(why, "core mask"));
				continue;
			}
			if (st != GPA_STATUS_OK)
				fail_msg("%s: %s", src, why);
			assert_true(n < max);
			p[n++] = (struct probe){id, block, (int)i, idx, 0};
		}
	}
	return n;
}

/* One sample of FRAMES frames: every probe equal to the device's count,
 * instances adding up to the sum, compute warps per core as scripted. */
static void check_config(uint32_t gpu, bool csf, uint16_t major, uint16_t minor, uint64_t mask,
                         uint32_t slices, const char *options)
{
	struct vmali_config c = tl_g71(mask, slices);
	c.gpu_id = gpu;
	c.csf = csf;
	c.uk_major = major;
	c.uk_minor = minor;
	c.workload = script;
	struct tl_rig r;
	assert_int_equal(tl_rig_open(&r, &og_backend_mali, &c, NULL, options), GPA_STATUS_OK);
	enum { MAX = 64 * 128 + 2 * 17 * 128 };
	struct probe *p = calloc(MAX, sizeof *p);
	assert_non_null(p);
	size_t n = bind_block(&r, VMALI_BLOCK_SC, "SC", p, 0, MAX);
	n = bind_block(&r, VMALI_BLOCK_L2, "L2", p, n, MAX);
	if (csf && strstr(options, "kinstr"))
		n = bind_block(&r, VMALI_BLOCK_CSG, "CSG", p, n, MAX);
	uint32_t *ids = malloc(n * sizeof *ids);
	uint64_t *d = calloc(n, sizeof *d);
	assert_true(ids && d);
	for (size_t i = 0; i < n; i++)
		ids[i] = p[i].id;
	assert_true(og_backend_mali.fits(r.state, ids, n));
	assert_int_equal(og_backend_mali.begin_pass(r.state, ids, n), GPA_STATUS_OK);
	vmali_run_frames(r.vm, 1);
	assert_int_equal(og_backend_mali.begin_sample(r.state), GPA_STATUS_OK);
	for (size_t i = 0; i < n; i++)
		p[i].before = vmali_total(r.vm, p[i].block, p[i].instance, p[i].index);
	vmali_run_frames(r.vm, FRAMES);
	assert_int_equal(og_backend_mali.end_sample(r.state, d), GPA_STATUS_OK);
	assert_int_equal(og_backend_mali.end_pass(r.state), GPA_STATUS_OK);

	int warps = vmali_counter_index(r.vm, VMALI_BLOCK_SC, "COMPUTE_WARPS");
	uint32_t ncores = (uint32_t)__builtin_popcountll(mask), rank = 0;
	size_t checked_instances = 0, nonzero = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t want = vmali_total(r.vm, p[i].block, p[i].instance, p[i].index) - p[i].before;
		if (d[i] != want)
			fail_msg("block %d instance %d value %u: read %llu, the device counted %llu",
			         (int)p[i].block, p[i].instance, p[i].index, (unsigned long long)d[i],
			         (unsigned long long)want);
		if (p[i].instance != VMALI_ALL)
			continue;
		/* The instances that follow the sum add up to it. */
		uint64_t sum = 0;
		size_t j = i + 1;
		for (; j < n && p[j].instance != VMALI_ALL; j++)
			sum += d[j];
		assert_int_equal(sum, d[i]);
		checked_instances += j - i - 1;
		nonzero += d[i] != 0;
		if (p[i].block == VMALI_BLOCK_SC && (int)p[i].index == warps) {
			rank = 0;
			for (size_t k = i + 1; k < j; k++, rank++)
				assert_int_equal(d[k], FRAMES * expected_share(WARPS, ncores, rank, 1.0));
			assert_int_equal(rank, ncores);
			assert_true(ncores < 2 || d[j - 1] > d[i + 1]); /* the imbalance shows */
		}
	}
	assert_true(warps > 0);
	assert_true(checked_instances > 100);
	assert_true(nonzero > 20);
	free(ids);
	free(d);
	free(p);
	assert_int_equal(r.errors, 0);
	tl_rig_done(&r);
}

static void test_g78_jm_11_41(void **unused)
{
	(void)unused;
	check_config(0x9002, false, 11, 41, 0xFF, 2, "interface=kinstr_prfcnt");
}

static void test_g78_vinstr_sparse(void **unused)
{
	(void)unused;
	check_config(0x9002, false, 11, 39, 0x5B, 2, "interface=vinstr");
}

static void test_g720_csf_1_23(void **unused)
{
	(void)unused;
	check_config(0xc000, true, 1, 23, 0xFF, 2, "interface=kinstr_prfcnt");
}

/* An early kinstr_prfcnt numbering cores by bit, on a sparse mask. */
static void test_g52_early_sparse(void **unused)
{
	(void)unused;
	check_config(0x7002, false, 11, 34, 0x2D, 1, "interface=kinstr_prfcnt");
}

/* Sources that name no instance here are refused, each with its reason. */
static void test_refused(void **unused)
{
	(void)unused;
	struct vmali_config c = tl_g71(0x5B, 2);
	struct tl_rig r;
	assert_int_equal(tl_rig_open(&r, &og_backend_mali, &c, NULL, NULL), GPA_STATUS_OK);
	static const struct {
		const char *source;
		GPA_Status st;
		const char *why;
	} cases[] = {
		{"SC#2:4", GPA_STATUS_ERROR_NOT_FOUND, "bit is clear"},
		{"SC#7:4", GPA_STATUS_ERROR_NOT_FOUND, "bit is clear"},
		{"L2#2:4", GPA_STATUS_ERROR_NOT_FOUND, "fewer L2 slices"},
		{"CSG#0:4", GPA_STATUS_ERROR_NOT_FOUND, "kinstr_prfcnt only"},
		{"FE#0:4", GPA_STATUS_ERROR_FAILED, "one instance"},
		{"TILER#0:4", GPA_STATUS_ERROR_FAILED, "one instance"},
		{"SC#64:4", GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE, "0 to 63"},
		{"SC#99999999999:4", GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE, "0 to 63"},
		{"SC#:4", GPA_STATUS_ERROR_FAILED, "BLOCK#N:INDEX"},
		{"SC#1x:4", GPA_STATUS_ERROR_FAILED, "BLOCK#N:INDEX"},
		{"SC#1:2", GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE, "header"},
		{"SC#1:70", GPA_STATUS_ERROR_NOT_FOUND, "shorter"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		uint32_t id;
		const char *why = NULL;
		GPA_Status st = og_backend_mali.bind_raw(r.state, "x", cases[i].source, &id, &why);
		if (st != cases[i].st || !why || !strstr(why, cases[i].why))
			fail_msg("%s: status %d (%s), wanted %d with '%s'", cases[i].source, (int)st,
			         why ? why : "no reason", (int)cases[i].st, cases[i].why);
	}
	/* Core 6 of 0x5B is there; its id is not the sum's. */
	uint32_t one, sum;
	const char *why;
	assert_int_equal(og_backend_mali.bind_raw(r.state, "x", "SC#6:4", &one, &why), 0);
	assert_int_equal(og_backend_mali.bind_raw(r.state, "x", "SC:4", &sum, &why), 0);
	assert_int_not_equal(one, sum);
	tl_rig_done(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_g78_jm_11_41),
		cmocka_unit_test(test_g78_vinstr_sparse),
		cmocka_unit_test(test_g720_csf_1_23),
		cmocka_unit_test(test_g52_early_sparse),
		cmocka_unit_test(test_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
