/* SPDX-License-Identifier: MIT */
/* test_perf_rdpmc.c — user-space counter reads from perf_event_mmap_page:
 * the counter and time arithmetic, the seqlock, every way the page says
 * "no", over a simulated page (fake_rdpmc.c); then the real kernel's page,
 * which must agree with read() where this machine offers user reads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fake_rdpmc.h"
#include "perf/perf_rdpmc.h"

struct fixture {
	struct fake_rdpmc f;
	struct og_backend_host host;
	int log_lines;
	struct og_perf_user_page p;
};

static struct fixture F;

static int setup(void **unused)
{
	(void)unused;
	fake_rdpmc_init(&F.f);
	fake_rdpmc_host(&F.host, &F.f, &F.log_lines);
	assert_true(og_perf_user_page_map(&F.host, FAKE_RDPMC_FD0, &F.p));
	return 0;
}

static int teardown(void **unused)
{
	(void)unused;
	og_perf_user_page_unmap(&F.host, &F.p);
	assert_int_equal(F.f.maps, F.f.unmaps);
	assert_int_equal(F.log_lines, 0);
	fake_rdpmc_free(&F.f);
	return 0;
}

struct result {
	enum og_perf_user_read r;
	uint64_t count, enabled, running;
};

static struct result user_read(void)
{
	/* Poisoned, so a result that is not OK is seen to leave them alone. */
	struct result x = { .count = 0xbad, .enabled = 0xbad, .running = 0xbad };
	x.r = og_perf_user_page_read(&F.host, &F.p, &x.count, &x.enabled, &x.running);
	return x;
}

static void assert_read(enum og_perf_user_read want, struct result x)
{
	if (x.r != want)
		fail_msg("read gave %s, expected %s", og_perf_user_read_name(x.r),
		         og_perf_user_read_name(want));
	if (want != OG_PERF_USER_READ_OK) {
		assert_int_equal(x.count, 0xbad);
		assert_int_equal(x.enabled, 0xbad);
		assert_int_equal(x.running, 0xbad);
	}
}

/* ---- mapping ---- */

static void test_map_and_unmap(void **unused)
{
	(void)unused;
	assert_ptr_equal(F.p.page, F.f.page[0]);
	assert_int_equal(F.p.len, (size_t)sysconf(_SC_PAGESIZE));
	assert_int_equal(F.f.maps, 1);
	og_perf_user_page_unmap(&F.host, &F.p);
	assert_null(F.p.page);
	assert_int_equal(F.f.unmaps, 1);
	og_perf_user_page_unmap(&F.host, &F.p); /* twice: nothing more */
	assert_int_equal(F.f.unmaps, 1);
	assert_read(OG_PERF_USER_READ_UNSUPPORTED, user_read());
	assert_false(og_perf_user_page_can_read(&F.host, &F.p));
}

static void test_map_failure(void **unused)
{
	(void)unused;
	struct og_perf_user_page q = { (void *)0x1, 99 };
	F.f.mmap_errno = ENODEV;
	errno = 0;
	assert_false(og_perf_user_page_map(&F.host, FAKE_RDPMC_FD0 + 1, &q));
	assert_int_equal(errno, ENODEV);
	assert_null(q.page);
	assert_int_equal(q.len, 0);
	og_perf_user_page_unmap(&F.host, &q);
	assert_int_equal(F.f.unmaps, 0);
	assert_false(og_perf_user_page_can_read(&F.host, &q));
}

/* ---- what the page says ---- */

static void test_all_zero_page(void **unused)
{
	(void)unused;
	assert_false(og_perf_user_page_can_read(&F.host, &F.p));
	assert_read(OG_PERF_USER_READ_UNSUPPORTED, user_read());
	assert_int_equal(F.f.pmc_reads, 0);
	assert_int_equal(F.f.cycle_reads, 0);
}

static void test_rdpmc_cap_off(void **unused)
{
	(void)unused;
	fake_rdpmc_offer(&F.f, 0, 3, 100, 5);
	F.f.page[0]->cap_user_rdpmc = 0;
	assert_false(og_perf_user_page_can_read(&F.host, &F.p));
	assert_read(OG_PERF_USER_READ_UNSUPPORTED, user_read());
	assert_int_equal(F.f.pmc_reads, 0);
}

static void test_old_kernel_bit0(void **unused)
{
	(void)unused;
	/* 3.4-3.11: one bit for rdpmc and time, bit0_is_deprecated clear. */
	fake_rdpmc_offer(&F.f, 0, 3, 100, 5);
	F.f.page[0]->cap_bit0_is_deprecated = 0;
	F.f.page[0]->cap_bit0 = 1;
	assert_false(og_perf_user_page_can_read(&F.host, &F.p));
	assert_read(OG_PERF_USER_READ_UNSUPPORTED, user_read());
}

static void test_no_cpu_hook(void **unused)
{
	(void)unused;
	fake_rdpmc_offer(&F.f, 0, 3, 100, 5);
	assert_true(og_perf_user_page_can_read(&F.host, &F.p));
	F.f.sys.read_pmc = NULL;
	assert_false(og_perf_user_page_can_read(&F.host, &F.p));
	assert_read(OG_PERF_USER_READ_UNSUPPORTED, user_read());
}

static void test_index_zero(void **unused)
{
	(void)unused;
	fake_rdpmc_offer(&F.f, 0, 0, 100, 5);
	assert_true(og_perf_user_page_can_read(&F.host, &F.p));
	assert_read(OG_PERF_USER_READ_NOT_ON_PMU, user_read());
	assert_int_equal(F.f.pmc_reads, 0);
}

static void test_index_cpu_cannot_address(void **unused)
{
	(void)unused;
	fake_rdpmc_offer(&F.f, 0, FAKE_RDPMC_COUNTERS + 5, 100, 5);
	assert_read(OG_PERF_USER_READ_UNSUPPORTED, user_read());
	assert_int_equal(F.f.pmc_reads, 1);
}

static void test_width_out_of_range(void **unused)
{
	(void)unused;
	static const uint16_t bad[] = { 0, 65, 200, UINT16_MAX };
	fake_rdpmc_offer(&F.f, 0, 2, 100, 5);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		F.f.page[0]->pmc_width = bad[i];
		assert_read(OG_PERF_USER_READ_UNSUPPORTED, user_read());
	}
	assert_int_equal(F.f.pmc_reads, 0);
}

/* ---- counter arithmetic ---- */

static uint64_t count_of(uint16_t width, int64_t offset, uint64_t pmc)
{
	fake_rdpmc_offer(&F.f, 0, 4, offset, pmc);
	F.f.page[0]->pmc_width = width;
	struct result x = user_read();
	assert_read(OG_PERF_USER_READ_OK, x);
	assert_int_equal(F.f.last_index, 4);
	return x.count;
}

static void test_counter_math(void **unused)
{
	(void)unused;
	/* Positive counter: offset + counter. */
	assert_int_equal(count_of(48, 1000, 0x1234), 1000 + 0x1234);
	/* Top bit of a 48-bit counter set: it is negative. */
	assert_int_equal(count_of(48, 1000, 0xfffffffffff0ull), 1000 - 16);
	/* Bits above the width are noise (aarch64 32-bit counters). */
	assert_int_equal(count_of(32, 1000, 0xdeadbeef00000010ull), 1000 + 16);
	assert_int_equal(count_of(32, 1000, 0x00000000ffffffffull), 999);
	/* Width 1: only the sign bit. */
	assert_int_equal(count_of(1, 10, 1), 9);
	assert_int_equal(count_of(1, 10, 2), 10);
	/* Width 64: the register as it is, modulo 2^64. */
	assert_int_equal(count_of(64, 5, UINT64_MAX), 4);
	assert_int_equal(count_of(64, -5, 1ull << 63), (1ull << 63) - 5);
}

static void test_counter_wraps(void **unused)
{
	(void)unused;
	/* x86 counting: the kernel starts a 48-bit counter at -(2^47 - 1), so
	 * offset = count + 2^47 - 1; 100 events later the sum is count + 100. */
	const uint64_t count = 5000000;
	const int64_t offset = (int64_t)count + (1ll << 47) - 1;
	assert_int_equal(count_of(48, offset, 0x800000000001ull + 100), count + 100);
	/* The counter passes its top (2^48 - 1 -> 5) between two reads. */
	const int64_t off2 = (int64_t)count + 1; /* taken when the counter read -1 */
	assert_int_equal(count_of(48, off2, 0xffffffffffffull), count);
	assert_int_equal(count_of(48, off2, 5), count + 6);
	/* offset + counter passing 2^64 wraps like the kernel's u64 count. */
	assert_int_equal(count_of(64, -1, 3), 2);
}

/* ---- the seqlock ---- */

static void test_seqlock_changes_once(void **unused)
{
	(void)unused;
	fake_rdpmc_offer(&F.f, 0, 2, 1000, 50);
	/* During the first counter read the kernel moves the event to counter
	 * 5 with a new offset: the first round's mix of old offset and old
	 * counter must not be returned. */
	F.f.update_at = 1;
	F.f.update = (struct fake_rdpmc_update){ .page = 0, .offset = 7000, .index = 5,
		                                 .time_enabled = 3000, .time_running = 2500,
		                                 .pmc = 300 };
	struct result x = user_read();
	assert_read(OG_PERF_USER_READ_OK, x);
	assert_int_equal(x.count, 7300);
	assert_int_equal(x.enabled, 3000);
	assert_int_equal(x.running, 2500);
	assert_int_equal(F.f.pmc_reads, 2);
	assert_int_equal(F.f.last_index, 5);
	assert_int_equal(F.f.page[0]->lock, 2);
}

static void test_seqlock_moves_to_no_counter(void **unused)
{
	(void)unused;
	fake_rdpmc_offer(&F.f, 0, 2, 1000, 50);
	F.f.update_at = 1;
	F.f.update = (struct fake_rdpmc_update){ .page = 0, .offset = 1200, .index = 0 };
	assert_read(OG_PERF_USER_READ_NOT_ON_PMU, user_read());
	assert_int_equal(F.f.pmc_reads, 1);
}

static void test_seqlock_never_settles(void **unused)
{
	(void)unused;
	fake_rdpmc_offer(&F.f, 0, 2, 1000, 50);
	F.f.churn = true;
	assert_read(OG_PERF_USER_READ_UNSTABLE, user_read());
	assert_int_equal(F.f.pmc_reads, OG_PERF_USER_READ_TRIES);
	/* Once it settles, the next read works. */
	F.f.churn = false;
	struct result x = user_read();
	assert_read(OG_PERF_USER_READ_OK, x);
	assert_int_equal(x.count, 1000 + OG_PERF_USER_READ_TRIES + 50);
}

static void test_seqlock_stays_odd(void **unused)
{
	(void)unused;
	fake_rdpmc_offer(&F.f, 0, 2, 1000, 50);
	F.f.page[0]->lock = 7; /* a writer that never finishes */
	assert_read(OG_PERF_USER_READ_UNSTABLE, user_read());
	assert_int_equal(F.f.pmc_reads, 0);
	F.f.page[0]->lock = 8;
	assert_read(OG_PERF_USER_READ_OK, user_read());
}

/* ---- enabled/running brought to "now" ---- */

/* The kernel's conversion, computed independently: time_offset +
 * cyc * mult / 2^shift, exact (what quot/rem splitting computes).  The
 * product is formed as a 128-bit hi:lo pair by hand: 32-bit targets have
 * no 128-bit integer. */
static uint64_t ref_delta(uint64_t cyc, uint32_t mult, unsigned shift, uint64_t time_offset)
{
	uint64_t low_part = (cyc & 0xffffffffu) * mult; /* weight 1 */
	uint64_t high_part = (cyc >> 32) * mult;        /* weight 2^32 */
	uint64_t lo = (high_part << 32) + low_part;
	uint64_t hi = (high_part >> 32) + (lo < low_part);
	uint64_t shifted = shift == 0 ? lo : lo >> shift | hi << (64 - shift);
	return time_offset + shifted;
}

static void test_time_extension(void **unused)
{
	(void)unused;
	fake_rdpmc_offer(&F.f, 0, 1, 40, 2);
	F.f.page[0]->time_enabled = 5000;
	F.f.page[0]->time_running = 3000;
	/* 1.5 ns per cycle; the update was 1000 ns after the clock's zero. */
	const uint64_t time_offset = (uint64_t)-1000;
	fake_rdpmc_time(&F.f, 0, 1536, 10, time_offset);
	F.f.cycles = 10000000 + 123;
	struct result x = user_read();
	assert_read(OG_PERF_USER_READ_OK, x);
	uint64_t delta = ref_delta(F.f.cycles, 1536, 10, time_offset);
	assert_int_equal(delta, (10000123ull * 3) / 2 - 1000);
	assert_int_equal(x.enabled, 5000 + delta);
	assert_int_equal(x.running, 3000 + delta);
	assert_int_equal(x.count, 42);
	assert_int_equal(F.f.cycle_reads, 1);
}

static void test_time_large_shift(void **unused)
{
	(void)unused;
	/* shift > 32: rem * mult no longer fits 64 bits. */
	static const struct {
		uint32_t mult;
		uint16_t shift;
		uint64_t cyc;
	} cases[] = {
		{ 0xffffffffu, 40, 0xfffffffffffull },
		{ 0x80000001u, 63, 0x7fffffffffffffffull },
		{ 3u << 30, 33, 0x1ffffffffull },
		{ 1, 0, 123456789 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		fake_rdpmc_offer(&F.f, 0, 1, 0, 0);
		F.f.page[0]->time_enabled = 0;
		F.f.page[0]->time_running = 0;
		fake_rdpmc_time(&F.f, 0, cases[i].mult, cases[i].shift, 0);
		F.f.cycles = cases[i].cyc;
		struct result x = user_read();
		assert_read(OG_PERF_USER_READ_OK, x);
		assert_int_equal(x.enabled, ref_delta(cases[i].cyc, cases[i].mult, cases[i].shift, 0));
		assert_int_equal(x.running, x.enabled);
	}
}

static void test_time_short_counter(void **unused)
{
	(void)unused;
	/* A 56-bit clock that wrapped since the update: cyc is rebuilt above
	 * time_cycles. */
	fake_rdpmc_offer(&F.f, 0, 1, 0, 0);
	F.f.page[0]->time_enabled = 100;
	F.f.page[0]->time_running = 100;
	fake_rdpmc_time(&F.f, 0, 1, 0, (uint64_t)-((1ll << 56) - 100));
	F.f.page[0]->cap_user_time_short = 1;
	F.f.page[0]->time_cycles = (1ull << 56) - 100;
	F.f.page[0]->time_mask = (1ull << 56) - 1;
	F.f.cycles = 50;
	struct result x = user_read();
	assert_read(OG_PERF_USER_READ_OK, x);
	assert_int_equal(x.enabled, 100 + 150);
	/* A page too short to hold time_cycles/time_mask cannot use them. */
	F.f.page[0]->size = (uint32_t)offsetof(struct perf_event_mmap_page, time_cycles);
	assert_read(OG_PERF_USER_READ_UNSUPPORTED, user_read());
}

static void test_time_nonsense(void **unused)
{
	(void)unused;
	fake_rdpmc_offer(&F.f, 0, 1, 0, 0);
	fake_rdpmc_time(&F.f, 0, 1, 64, 0); /* shift of 64: undefined */
	assert_read(OG_PERF_USER_READ_UNSUPPORTED, user_read());
	fake_rdpmc_time(&F.f, 0, 0, 10, 0); /* mult 0: time stands still */
	assert_read(OG_PERF_USER_READ_UNSUPPORTED, user_read());
	fake_rdpmc_time(&F.f, 0, 1, 0, (uint64_t)-500); /* update 400 ns in the future */
	F.f.cycles = 100;
	assert_read(OG_PERF_USER_READ_UNSUPPORTED, user_read());
	fake_rdpmc_time(&F.f, 0, 1, 0, 0); /* enabled + delta passes 2^64 */
	F.f.page[0]->time_enabled = UINT64_MAX - 10;
	F.f.cycles = 100;
	assert_read(OG_PERF_USER_READ_UNSUPPORTED, user_read());
}

static void test_running_beyond_enabled(void **unused)
{
	(void)unused;
	fake_rdpmc_offer(&F.f, 0, 1, 0, 0);
	F.f.page[0]->time_enabled = 100;
	F.f.page[0]->time_running = 101;
	assert_read(OG_PERF_USER_READ_UNSUPPORTED, user_read());
}

static void test_time_without_cycle_hook(void **unused)
{
	(void)unused;
	/* No clock to extend with: the kernel's last values, as they are. */
	fake_rdpmc_offer(&F.f, 0, 1, 10, 1);
	F.f.page[0]->time_enabled = 700;
	F.f.page[0]->time_running = 600;
	fake_rdpmc_time(&F.f, 0, 1, 0, 0);
	F.f.sys.read_cycles = NULL;
	struct result x = user_read();
	assert_read(OG_PERF_USER_READ_OK, x);
	assert_int_equal(x.enabled, 700);
	assert_int_equal(x.running, 600);
	assert_int_equal(x.count, 11);
}

static void test_no_time_cap_no_clock_read(void **unused)
{
	(void)unused;
	fake_rdpmc_offer(&F.f, 0, 1, 10, 1);
	F.f.page[0]->time_mult = 1;
	struct result x = user_read();
	assert_read(OG_PERF_USER_READ_OK, x);
	assert_int_equal(x.enabled, 1000);
	assert_int_equal(F.f.cycle_reads, 0);
}

/* ---- the real kernel ---- */

static int open_self(uint32_t type, uint64_t config, uint64_t config1)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = type;
	a.config = config;
	a.config1 = config1;
	a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
	a.exclude_kernel = 1;
	a.exclude_hv = 1;
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

/* The probe of the instruction itself, in a child: the fake CPU has
 * FAKE_RDPMC_COUNTERS counters and no register past them. */
static void test_probe_register(void **unused)
{
	(void)unused;
	char why[160] = "";
	assert_true(og_perf_user_read_probe(&F.host, 1, why, sizeof why));
	assert_false(og_perf_user_read_probe(&F.host, FAKE_RDPMC_COUNTERS + 1, why, sizeof why));
	assert_non_null(strstr(why, "no register"));
	assert_int_equal(F.f.pmc_reads, 0); /* the reads were the child's */
}

static void test_real_software_page(void **unused)
{
	(void)unused;
	struct og_backend_host host = { og_sys_real(), NULL, NULL, NULL };
	int fd = open_self(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 0);
	if (fd < 0) {
		fprintf(stderr, "skipping: perf_event_open: %s\n", strerror(errno));
		skip();
	}
	struct og_perf_user_page p = { 0 };
	assert_true(og_perf_user_page_map(&host, fd, &p));
	const struct perf_event_mmap_page *pg = p.page;
	assert_int_equal(pg->cap_bit0_is_deprecated, 1);
	/* No PMU counter behind a software event: never a user read. */
	assert_false(og_perf_user_page_can_read(&host, &p));
	uint64_t c, e, r;
	enum og_perf_user_read res = og_perf_user_page_read(&host, &p, &c, &e, &r);
	assert_true(res == OG_PERF_USER_READ_UNSUPPORTED || res == OG_PERF_USER_READ_NOT_ON_PMU);
	og_perf_user_page_unmap(&host, &p);
	close(fd);
}

static void test_real_hardware_matches_read(void **unused)
{
	(void)unused;
	struct og_backend_host host = { og_sys_real(), NULL, NULL, NULL };
#if defined(__aarch64__)
	const uint64_t config1 = 2; /* the arm64 PMU's "rdpmc" format term */
#else
	const uint64_t config1 = 0;
#endif
	int fd = open_self(PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, config1);
	if (fd < 0) {
		fprintf(stderr, "skipping: no hardware event here (%s)\n", strerror(errno));
		skip();
	}
	struct og_perf_user_page p = { 0 };
	if (!og_perf_user_page_map(&host, fd, &p)) {
		fprintf(stderr, "skipping: mmap of the event: %s\n", strerror(errno));
		close(fd);
		skip();
	}
	if (!og_perf_user_page_can_read(&host, &p)) {
		fprintf(stderr, "skipping: the kernel offers no user-space reads here\n");
		og_perf_user_page_unmap(&host, &p);
		close(fd);
		skip();
	}
	/* read(), user read, read(): the user read lies between the two.  The
	 * times come from two conversions of one clock (the kernel's and the
	 * page's), so they get a microsecond of rounding; counts get none. */
	const uint64_t slack_ns = 1000;
	int ok = 0;
	for (int i = 0; i < 1000 && ok < 100; i++) {
		uint64_t before[3], after[3], c, e, r;
		assert_int_equal(read(fd, before, sizeof before), sizeof before);
		enum og_perf_user_read res = og_perf_user_page_read(&host, &p, &c, &e, &r);
		assert_int_equal(read(fd, after, sizeof after), sizeof after);
		if (res != OG_PERF_USER_READ_OK)
			continue; /* descheduled in between: the next round */
		assert_true(before[0] <= c && c <= after[0]);
		assert_true(before[1] <= e + slack_ns && e <= after[1] + slack_ns);
		assert_true(before[2] <= r + slack_ns && r <= after[2] + slack_ns);
		ok++;
	}
	og_perf_user_page_unmap(&host, &p);
	close(fd);
	assert_true(ok > 0);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_map_and_unmap),
		T(test_map_failure),
		T(test_all_zero_page),
		T(test_rdpmc_cap_off),
		T(test_old_kernel_bit0),
		T(test_no_cpu_hook),
		T(test_index_zero),
		T(test_index_cpu_cannot_address),
		T(test_width_out_of_range),
		T(test_counter_math),
		T(test_counter_wraps),
		T(test_seqlock_changes_once),
		T(test_seqlock_moves_to_no_counter),
		T(test_seqlock_never_settles),
		T(test_seqlock_stays_odd),
		T(test_time_extension),
		T(test_time_large_shift),
		T(test_time_short_counter),
		T(test_time_nonsense),
		T(test_running_beyond_enabled),
		T(test_time_without_cycle_hook),
		T(test_no_time_cap_no_clock_read),
		T(test_probe_register),
		cmocka_unit_test(test_real_software_page),
		cmocka_unit_test(test_real_hardware_matches_read),
	};
#undef T
	return cmocka_run_group_tests_name("perf-rdpmc", tests, NULL, NULL);
}
