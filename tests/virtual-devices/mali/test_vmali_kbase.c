/* SPDX-License-Identifier: MIT */
/* test_vmali_kbase.c — /dev/mali0: handshake, context setup order, the
 * properties blob, the DDK version and the closed-world rules. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "vmali_testlib.h"

static struct vmali *make(const struct vmali_config *cfg)
{
	struct vmali *vm = vmali_create(cfg);
	assert_non_null(vm);
	return vm;
}

static void test_version_check_jm(void **state)
{
	(void)state;
	struct vmali *vm = make(&(struct vmali_config){ .uk_major = 11, .uk_minor = 26 });
	const struct og_sys *s = vmali_sys(vm);
	int fd = s->open(s->ctx, VMALI_PATH_KBASE, O_RDONLY, 0);
	assert_true(fd >= 0);
	struct vmali_kbase_version_check v = { 0, 0 };
	assert_int_equal(tl_ioctl(s, fd, VMALI_KBASE_VERSION_CHECK_CSF, &v), -EPERM);
	assert_int_equal(tl_ioctl(s, fd, VMALI_KBASE_VERSION_CHECK_JM, &v), 0);
	assert_int_equal(v.major, 11);
	assert_int_equal(v.minor, 26);
	/* Same major: the lower minor is agreed. */
	v = (struct vmali_kbase_version_check){ 11, 20 };
	assert_int_equal(tl_ioctl(s, fd, VMALI_KBASE_VERSION_CHECK_JM, &v), 0);
	assert_int_equal(v.minor, 20);
	assert_int_equal(s->close(s->ctx, fd), 0);
	vmali_destroy(vm);
}

static void test_version_check_csf(void **state)
{
	(void)state;
	struct vmali *vm = make(&(struct vmali_config){ .csf = true });
	const struct og_sys *s = vmali_sys(vm);
	int fd = s->open(s->ctx, VMALI_PATH_KBASE, O_RDONLY, 0);
	struct vmali_kbase_version_check v = { 0, 0 };
	assert_int_equal(tl_ioctl(s, fd, VMALI_KBASE_VERSION_CHECK_JM, &v), -EPERM);
	assert_int_equal(tl_ioctl(s, fd, VMALI_KBASE_VERSION_CHECK_CSF, &v), 0);
	assert_int_equal(v.major, 1);
	assert_int_equal(v.minor, 10);
	s->close(s->ctx, fd);
	vmali_destroy(vm);
}

static void test_setup_order(void **state)
{
	(void)state;
	struct vmali *vm = make(NULL);
	const struct og_sys *s = vmali_sys(vm);
	int fd = s->open(s->ctx, VMALI_PATH_KBASE, O_RDWR, 0);
	struct vmali_kbase_set_flags f = { VMALI_KBASE_FLAG_SYSTEM_MONITOR };
	struct vmali_kbase_hwcnt_reader_setup rs = { 4, ~0u, ~0u, ~0u, ~0u };
	struct vmali_kbase_get_gpuprops q = { 0, 0, 0 };
	/* SET_FLAGS before the handshake fails (libGPUCounters issue #57). */
	assert_int_equal(tl_ioctl(s, fd, VMALI_KBASE_SET_FLAGS, &f), -EPERM);
	struct vmali_kbase_version_check v = { 0, 0 };
	assert_int_equal(tl_ioctl(s, fd, VMALI_KBASE_VERSION_CHECK_JM, &v), 0);
	/* Before SET_FLAGS: properties yes, reader and the rest no. */
	assert_true(tl_ioctl(s, fd, VMALI_KBASE_GET_GPUPROPS, &q) > 0);
	assert_int_equal(tl_ioctl(s, fd, VMALI_KBASE_HWCNT_READER_SETUP, &rs), -EPERM);
	assert_int_equal(tl_ioctl(s, fd, VMALI_KBASE_GET_DDK_VERSION,
	                          &(struct vmali_kbase_get_ddk_version){ 0 }),
	                 -EPERM);
	struct vmali_kbase_set_flags badf = { 0x1 };
	assert_int_equal(tl_ioctl(s, fd, VMALI_KBASE_SET_FLAGS, &badf), -EINVAL);
	assert_int_equal(tl_ioctl(s, fd, VMALI_KBASE_SET_FLAGS, &f), 0);
	assert_int_equal(tl_ioctl(s, fd, VMALI_KBASE_SET_FLAGS, &f), -EPERM);
	/* The legacy UK probe word is simply unknown on this driver. */
	assert_int_equal(tl_ioctl(s, fd, 0xC0108000ul, &rs), -ENOTTY);
	int rfd = tl_ioctl(s, fd, VMALI_KBASE_HWCNT_READER_SETUP, &rs);
	assert_true(rfd >= 0);
	assert_int_equal(s->close(s->ctx, rfd), 0);
	s->close(s->ctx, fd);
	vmali_destroy(vm);
}

static void check_props(uint64_t mask, uint32_t slices, uint32_t bus)
{
	struct vmali *vm = make(&(struct vmali_config){
		.core_mask = mask, .l2_slices = slices, .bus_width_bits = bus });
	const struct og_sys *s = vmali_sys(vm);
	int fd = tl_open_kbase(s);
	assert_true(fd >= 0);
	struct tl_props p;
	assert_int_equal(tl_get_props(s, fd, &p), 0);
	assert_int_equal(p.product_id, 0x6000);
	assert_int_equal(p.raw_gpu_id >> 16, 0x6000);
	assert_int_equal((p.raw_gpu_id >> 28) & 0xF, 6); /* arch_major of Mali-G71 */
	assert_int_equal((p.raw_gpu_id >> 16) & 0xF, 0); /* product_major */
	assert_int_equal(p.l2_slices, slices);
	assert_int_equal(((p.mem_features >> 8) & 0xF) + 1, slices);
	assert_int_equal(1u << ((p.l2_features & 0xFF000000u) >> 24), bus);
	assert_int_equal(p.num_core_groups, 1);
	uint64_t m = 0;
	for (uint32_t i = 0; i < p.num_core_groups; i++)
		m |= p.group_mask[i];
	assert_true(m == mask);
	assert_true(p.shader_present == mask);
	assert_true(p.unknown_ids > 0); /* the decoder had to skip ids */
	s->close(s->ctx, fd);
	vmali_destroy(vm);
}

static void test_props(void **state)
{
	(void)state;
	check_props(0xFF, 1, 128);
	check_props(0x2D, 2, 64);                     /* sparse */
	check_props(0x8000000000000001ull, 16, 256); /* very sparse, most slices */
	check_props(0x1, 4, 1024);
}

static void test_props_size_convention(void **state)
{
	(void)state;
	struct vmali *vm = make(NULL);
	const struct og_sys *s = vmali_sys(vm);
	int fd = tl_open_kbase(s);
	struct vmali_kbase_get_gpuprops q = { 0, 0, 0 };
	int need = tl_ioctl(s, fd, VMALI_KBASE_GET_GPUPROPS, &q);
	assert_true(need > 16);
	uint8_t buf[1024];
	memset(buf, 0xAA, sizeof(buf));
	q.buffer = (uint64_t)(uintptr_t)buf;
	q.size = (uint32_t)need - 1;
	assert_int_equal(tl_ioctl(s, fd, VMALI_KBASE_GET_GPUPROPS, &q), -EINVAL);
	q.size = sizeof(buf);
	assert_int_equal(tl_ioctl(s, fd, VMALI_KBASE_GET_GPUPROPS, &q), need);
	assert_int_equal(buf[need], 0xAA); /* nothing written past the blob */
	q.flags = 1;
	assert_int_equal(tl_ioctl(s, fd, VMALI_KBASE_GET_GPUPROPS, &q), -EINVAL);
	vmali_set_faults(vm, &(struct vmali_faults){ .props_truncated = true });
	q.flags = 0;
	assert_int_equal(tl_ioctl(s, fd, VMALI_KBASE_GET_GPUPROPS, &q), need - 3);
	s->close(s->ctx, fd);
	vmali_destroy(vm);
}

static void test_ddk_version(void **state)
{
	(void)state;
	struct vmali *vm = make(NULL);
	const struct og_sys *s = vmali_sys(vm);
	int fd = tl_open_kbase(s);
	struct vmali_kbase_get_ddk_version d = { 0, 0, 0 };
	int len = tl_ioctl(s, fd, VMALI_KBASE_GET_DDK_VERSION, &d);
	assert_true(len > 1);
	char buf[128];
	d.version_buffer = (uint64_t)(uintptr_t)buf;
	d.size = (uint32_t)len - 1;
	assert_int_equal(tl_ioctl(s, fd, VMALI_KBASE_GET_DDK_VERSION, &d), -EOVERFLOW);
	d.size = sizeof(buf);
	assert_int_equal(tl_ioctl(s, fd, VMALI_KBASE_GET_DDK_VERSION, &d), len);
	assert_int_equal(strlen(buf) + 1, (size_t)len);
	s->close(s->ctx, fd);
	vmali_destroy(vm);
}

static void test_reader_removed_in_new_drivers(void **state)
{
	(void)state;
	struct vmali *vm = make(&(struct vmali_config){ .uk_major = 11, .uk_minor = 40 });
	const struct og_sys *s = vmali_sys(vm);
	int fd = tl_open_kbase(s);
	struct vmali_kbase_hwcnt_reader_setup rs = { 4, ~0u, ~0u, ~0u, ~0u };
	assert_int_equal(tl_ioctl(s, fd, VMALI_KBASE_HWCNT_READER_SETUP, &rs), -ENOTTY);
	s->close(s->ctx, fd);
	vmali_destroy(vm);
}

static void test_closed_world_and_faults(void **state)
{
	(void)state;
	struct vmali *vm = make(NULL);
	const struct og_sys *s = vmali_sys(vm);
	errno = 0;
	assert_int_equal(s->open(s->ctx, "/dev/mali1", O_RDONLY, 0), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(s->ioctl(s->ctx, 0, VMALI_KBASE_SET_FLAGS, NULL), -1);
	assert_int_equal(errno, EBADF);
	assert_int_equal(s->close(s->ctx, 12345), -1);
	assert_int_equal(errno, EBADF);
	char c;
	assert_int_equal(s->read(s->ctx, 0, &c, 1), -1);
	assert_int_equal(errno, EBADF);

	vmali_set_faults(vm, &(struct vmali_faults){ .open_eacces = true });
	assert_int_equal(s->open(s->ctx, VMALI_PATH_KBASE, O_RDONLY, 0), -1);
	assert_int_equal(errno, EACCES);
	vmali_set_faults(vm, &(struct vmali_faults){ 0 });

	int fd = tl_open_kbase(s);
	assert_true(fd >= 0);
	struct tl_reader r;
	assert_int_equal(tl_reader_open(s, fd, 4, NULL, &r), 0);
	vmali_set_faults(vm, &(struct vmali_faults){ .vanished = true });
	assert_int_equal(tl_ioctl(s, r.fd, VMALI_READER_DUMP, NULL), -ENODEV);
	assert_int_equal(tl_ioctl(s, fd, VMALI_KBASE_GET_GPUPROPS,
	                          &(struct vmali_kbase_get_gpuprops){ 0 }),
	                 -ENODEV);
	struct pollfd p = { r.fd, POLLIN, 0 };
	assert_int_equal(s->poll(s->ctx, &p, 1, 0), 1);
	assert_true(p.revents & POLLHUP);
	assert_int_equal(s->open(s->ctx, VMALI_PATH_KBASE, O_RDONLY, 0), -1);
	assert_int_equal(errno, ENOENT);
	/* Closing still works and releases everything. */
	tl_reader_close(s, &r);
	assert_int_equal(s->close(s->ctx, fd), 0);
	struct vmali_stats st;
	vmali_get_stats(vm, &st);
	assert_int_equal(st.open_fds, 0);
	vmali_destroy(vm);
}

static void test_bad_config(void **state)
{
	(void)state;
	char err[128] = "";
	assert_null(vmali_create_err(&(struct vmali_config){ .bus_width_bits = 100 }, err,
	                             sizeof(err)));
	assert_true(strstr(err, "bus_width") != NULL);
	assert_null(vmali_create(&(struct vmali_config){ .l2_slices = 17 }));
	assert_null(vmali_create_err(&(struct vmali_config){ .workload = "frame prims=x" }, err,
	                             sizeof(err)));
	assert_true(strstr(err, "prims") != NULL);
	assert_null(vmali_create(&(struct vmali_config){ .workload = "frame bogus=1" }));
	assert_null(vmali_create(&(struct vmali_config){ .workload = "# nothing" }));
	assert_null(
		vmali_create(&(struct vmali_config){ .workload = "frame culled=0.7 clipped=0.4" }));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_version_check_jm),
		cmocka_unit_test(test_version_check_csf),
		cmocka_unit_test(test_setup_order),
		cmocka_unit_test(test_props),
		cmocka_unit_test(test_props_size_convention),
		cmocka_unit_test(test_ddk_version),
		cmocka_unit_test(test_reader_removed_in_new_drivers),
		cmocka_unit_test(test_closed_world_and_faults),
		cmocka_unit_test(test_bad_config),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
