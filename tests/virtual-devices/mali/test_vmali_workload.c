/* SPDX-License-Identifier: MIT */
/* test_vmali_workload.c — the workload model keeps the hardware's invariants
 * in every block and in the sums the guide's expressions use. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "vmali.h"

#define T(vm, blk, inst, idx) vmali_total(vm, VMALI_BLOCK_##blk, inst, idx)

static void check_invariants(struct vmali *vm)
{
	struct vmali_config c;
	vmali_get_config(vm, &c);
	uint64_t gpu = T(vm, JM, 0, 6);
	assert_true(gpu > 0);
	assert_true(gpu >= T(vm, JM, 0, 10));
	assert_true(gpu >= T(vm, JM, 0, 18));
	assert_true(gpu >= T(vm, TILER, 0, 4));
	assert_true(vmali_total_cycles(vm) >= gpu);
	uint64_t input = T(vm, TILER, 0, 6) + T(vm, TILER, 0, 7) + T(vm, TILER, 0, 8);
	assert_int_equal(T(vm, TILER, 0, 11) + T(vm, TILER, 0, 12) + T(vm, TILER, 0, 13) +
	                         T(vm, TILER, 0, 14),
	                 input);
	uint32_t slots = 64u - (uint32_t)__builtin_clzll(c.core_mask);
	for (int core = 0; core < (int)slots; core++) {
		if (!((c.core_mask >> core) & 1)) {
			for (unsigned i = 0; i < 64; i++)
				assert_int_equal(T(vm, SC, core, i), 0);
			continue;
		}
		uint64_t frag = T(vm, SC, core, 4), comp = T(vm, SC, core, 22);
		uint64_t exec = T(vm, SC, core, 26), qr = T(vm, SC, core, 11);
		uint64_t ezs_k = T(vm, SC, core, 14), warps = T(vm, SC, core, 9);
		assert_true(frag + comp <= gpu);
		assert_true(frag <= T(vm, JM, 0, 10));
		assert_true(exec <= frag + comp);
		assert_true(T(vm, SC, core, 12) <= qr);
		assert_true(ezs_k <= T(vm, SC, core, 12));
		assert_true(warps <= qr - ezs_k);
		assert_true(T(vm, SC, core, 20) <= qr - ezs_k);
		assert_true(T(vm, SC, core, 10) <= warps);
		assert_true(T(vm, SC, core, 19) <= T(vm, SC, core, 18));
		assert_true(T(vm, SC, core, 29) <= T(vm, SC, core, 28));
		assert_true(T(vm, SC, core, 28) <= exec);
		for (unsigned i = 36; i <= 39; i++)
			assert_true(T(vm, SC, core, i) <= T(vm, SC, core, 35));
	}
	for (int l = 0; l < (int)c.l2_slices; l++) {
		uint64_t bins = 0;
		for (unsigned i = 37; i <= 41; i++)
			bins += T(vm, L2, l, i);
		assert_true(bins <= T(vm, L2, l, 32));
		assert_true(T(vm, L2, l, 29) <= T(vm, L2, l, 26));
		assert_true(T(vm, L2, l, 34) + T(vm, L2, l, 35) + T(vm, L2, l, 36) <= T(vm, L2, l, 29));
		assert_true(T(vm, L2, l, 33) <= gpu);
	}
}

static void test_shapes(void **state)
{
	(void)state;
	static const struct {
		uint64_t mask;
		uint32_t slices, bus;
	} shapes[] = { { 0xFF, 1, 128 }, { 0x2D, 2, 64 }, { 0x8000000000000001ull, 16, 32 } };
	static const char *const scripts[] = {
		NULL,
		"frame prims=0 compute_warps=100",
		"frame compute_warps=0 width=64 height=64; frame culled=1 clipped=0 satcull=0",
		"frame culled=0.2 clipped=0.3 satcull=0.5 ezs_test=1 ezs_kill=1 latency=4000",
	};
	for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		for (size_t j = 0; j < sizeof(scripts) / sizeof(scripts[0]); j++) {
			struct vmali *vm = vmali_create(&(struct vmali_config){
				.core_mask = shapes[i].mask, .l2_slices = shapes[i].slices,
				.bus_width_bits = shapes[i].bus, .workload = scripts[j] });
			assert_non_null(vm);
			vmali_run_frames(vm, 3);
			check_invariants(vm);
			vmali_destroy(vm);
		}
}

static void test_script_counts_and_loop(void **state)
{
	(void)state;
	struct vmali *vm = vmali_create(&(struct vmali_config){
		.workload = "# comment\nframe count=2 prims=100 compute_warps=0\n"
		            "frame prims=1000 compute_warps=0 # trailing comment\n" });
	assert_non_null(vm);
	static const uint64_t want[] = { 100, 100, 1000, 100, 100, 1000 };
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		uint64_t before = T(vm, TILER, 0, 6);
		vmali_run_frames(vm, 1);
		assert_int_equal(T(vm, TILER, 0, 6) - before, want[i]);
	}
	vmali_destroy(vm);
}

static void test_bad_scripts(void **state)
{
	(void)state;
	static const char *const bad[] = { "frame prims=-1", "frame count=0", "frame culled=2",
		                           "frame prims", "draw prims=1", "frame prims=nan" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char err[160] = "";
		assert_null(vmali_create_err(&(struct vmali_config){ .workload = bad[i] }, err,
		                             sizeof(err)));
		assert_int_equal(errno, EINVAL);
		assert_true(strstr(err, "workload") != NULL);
	}
}

/* Every GPU of the table: the model has a rule for every counter of its
 * layout and the GPU counts. */
static void test_every_layout_modelled(void **state)
{
	(void)state;
	static const uint32_t ids[] = { 0x6000, 0x6001, 0x7000, 0x7001, 0x7002, 0x7003, 0x9000,
		                        0x9001, 0x9002, 0x9003, 0x9004, 0x9005, 0xa002, 0xa003,
		                        0xa004, 0xa007, 0xb002, 0xb003, 0xc000, 0xc001, 0xd000,
		                        0xd001, 0xe000, 0xe001, 0xe003 };
	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		bool csf = false;
		assert_true(vmali_product_csf(ids[i], &csf));
		char err[200] = "";
		struct vmali *vm = vmali_create_err(
			&(struct vmali_config){ .gpu_id = ids[i], .csf = csf }, err, sizeof(err));
		if (!vm)
			fail_msg("0x%04x: %s", (unsigned)ids[i], err);
		const char *name = NULL;
		size_t n = vmali_unmodelled_counters(vm, &name);
		if (n)
			fail_msg("0x%04x: %zu counters without a rule, %s the first", (unsigned)ids[i], n,
			         name);
		vmali_run_frames(vm, 2);
		int active = vmali_counter_index(vm, VMALI_BLOCK_FE, "GPU_ACTIVE");
		assert_true(active >= 4);
		assert_true(vmali_total(vm, VMALI_BLOCK_FE, VMALI_ALL, (unsigned)active) > 0);
		assert_true(vmali_total_cycles(vm) >=
		            vmali_total(vm, VMALI_BLOCK_FE, VMALI_ALL, (unsigned)active));
		vmali_destroy(vm);
	}
	assert_false(vmali_product_csf(0x5000, &(bool){ false }));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_layout_modelled),
		cmocka_unit_test(test_shapes),
		cmocka_unit_test(test_script_counts_and_loop),
		cmocka_unit_test(test_bad_scripts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
