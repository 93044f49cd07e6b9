/* SPDX-License-Identifier: MIT */
/*
 * test_perf_mips34k.c — the MIPS 34K set through the perf backend, over the
 * virtual 34K under a mainline kernel (tests/virtual-devices/mips/v34k_pmu.h):
 * the device refuses what the kernel's MIPS PMU driver refuses, the backend
 * plans within the counters and banks the driver gives a CPU, orders groups
 * so the driver's allocator succeeds, and counts what the workload model
 * says; the RDHWR cycle counter stands in for cycles where no PMU can, and
 * its probe costs the program no signal.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <errno.h>
#include <linux/perf_event.h>

#include "mips/events.h"
#include "perf/perf_internal.h"
#include "v34k.h"
#include "v34k_pmu.h"

extern const struct og_backend_ops og_backend_perf;
static const struct og_backend_ops *ops = &og_backend_perf;

#define CYCLES 10000000u /* the device's work per read */

static struct {
	struct v34k_pmu *pmu;
	struct og_sys sys; /* the device's table, with the cycle counter a test gives it */
	struct og_backend_host host;
	struct og_device_info info;
	void *state;
	char log[8192];
} F;

__attribute__((format(printf, 3, 4))) static void log_fn(void *ctx, enum og_log_level level,
                                                        const char *fmt, ...)
{
	(void)ctx, (void)level;
	size_t used = strlen(F.log);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(F.log + used, sizeof F.log - used, fmt, ap);
	va_end(ap);
	used = strlen(F.log);
	snprintf(F.log + used, sizeof F.log - used, "\n");
}

static void make(const struct v34k_pmu_config *cfg)
{
	F.pmu = v34k_pmu_new(cfg);
	assert_non_null(F.pmu);
	F.sys = *v34k_pmu_sys(F.pmu);
	F.host = (struct og_backend_host){ &F.sys, log_fn, NULL, NULL };
	F.log[0] = '\0';
}

static GPA_Status open_backend(void)
{
	return ops->open(&F.host, "", &F.state, &F.info);
}

static int teardown(void **unused)
{
	(void)unused;
	if (F.state)
		ops->close(F.state);
	F.state = NULL;
	if (F.pmu)
		assert_int_equal(v34k_pmu_open_events(F.pmu), 0); /* every open closed */
	v34k_pmu_free(F.pmu);
	F.pmu = NULL;
	return 0;
}

static uint32_t bind(const char *source)
{
	uint32_t id = UINT32_MAX;
	const char *why = NULL;
	GPA_Status s = ops->bind_raw(F.state, source, source, &id, &why);
	if (s != GPA_STATUS_OK)
		fail_msg("bind %s: status %d, %s\n%s", source, s, why ? why : "", F.log);
	return id;
}

static const struct og_perf_bound *bound(uint32_t id)
{
	return &((const struct og_perf_state *)F.state)->bound[id];
}

/* ---- the virtual PMU refuses what the driver refuses ----------------------- */

static int open_raw(struct og_sys *s, uint32_t type, uint64_t config, int group)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof a);
	a.size = sizeof a;
	a.type = type;
	a.config = config;
	a.exclude_kernel = 1;
	a.disabled = group < 0;
	a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED |
	                PERF_FORMAT_TOTAL_TIME_RUNNING;
	return s->perf_event_open(s->ctx, &a, 0, -1, group, 0);
}

static void test_device_refuses_as_the_driver(void **unused)
{
	(void)unused;
	/* MT_SMP on two VPEs: one even and one odd counter per CPU. */
	make(&(struct v34k_pmu_config){ .cpus = 2, .mt_smp = true, .paranoid = 2 });
	struct og_sys *s = &F.sys;
	/* Cycles first take counter 1 (the highest): an odd-only event
	 * after them finds no counter, though swapping would fit both. */
	int c = open_raw(s, PERF_TYPE_RAW, 0, -1);
	assert_true(c >= 0);
	errno = 0;
	assert_int_equal(open_raw(s, PERF_TYPE_RAW, 0x80 | 9, c), -1);
	assert_int_equal(errno, EINVAL);
	/* The other order fits. */
	int o = open_raw(s, PERF_TYPE_RAW, 0x80 | 9, -1);
	assert_true(o >= 0);
	int c2 = open_raw(s, PERF_TYPE_RAW, 0, o);
	assert_true(c2 >= 0);
	/* Two even-only events: one even counter per CPU. */
	int e = open_raw(s, PERF_TYPE_RAW, 2, -1);
	errno = 0;
	assert_int_equal(open_raw(s, PERF_TYPE_RAW, 9, e), -1);
	assert_int_equal(errno, EINVAL);
	/* The generic map: branches even, misses odd, no cache-references;
	 * types not the PMU's are not found; kernel counting under paranoid 2. */
	errno = 0;
	assert_int_equal(open_raw(s, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, -1), -1);
	assert_int_equal(errno, EOPNOTSUPP);
	errno = 0;
	assert_int_equal(open_raw(s, PERF_TYPE_BREAKPOINT, 0, -1), -1);
	assert_int_equal(errno, ENOENT);
	struct perf_event_attr k;
	memset(&k, 0, sizeof k);
	k.size = sizeof k;
	k.type = PERF_TYPE_RAW;
	errno = 0;
	assert_int_equal(s->perf_event_open(s->ctx, &k, 0, -1, -1, 0), -1);
	assert_int_equal(errno, EACCES);
	/* Reserved events are not refused: the driver does not know them. */
	int r = open_raw(s, PERF_TYPE_RAW, 0x80 | 23, -1);
	assert_true(r >= 0);
	s->close(s->ctx, r);
	s->close(s->ctx, e);
	s->close(s->ctx, c2);
	s->close(s->ctx, o);
	s->close(s->ctx, c);
}

/* ---- the device as the perf backend sees it ------------------------------- */

static void test_detects_the_34k(void **unused)
{
	(void)unused;
	make(NULL);
	assert_int_equal(open_backend(), GPA_STATUS_OK);
	assert_string_equal(F.info.counter_sets[0], "mips-34k");
	assert_null(F.info.counter_sets[1]); /* perf-generic's names are the 34K set's */
	assert_non_null(strstr(F.info.description, "MIPS 34Kc"));
	assert_non_null(strstr(F.info.description, "4 counters per CPU"));
	assert_int_equal(F.info.device_id, 0x00019500);
	double mhz = 0;
	assert_int_equal(ops->constant(F.state, "ClockMHz", &mhz), GPA_STATUS_OK);
	assert_true(mhz == 500.0);
}

static void test_sources_encode_as_the_driver_expects(void **unused)
{
	(void)unused;
	make(NULL);
	assert_int_equal(open_backend(), GPA_STATUS_OK);
	const struct { const char *source; uint64_t config; } cases[] = {
		{ "any:0", 0x00 },  /* cycles, either bank */
		{ "any:1", 0x01 },
		{ "even:9", 0x09 }, /* I-cache accesses */
		{ "odd:9", 0x89 },  /* I-cache misses: bit 7 selects the odd bank */
		{ "any:11", 0x0b },
		{ "odd:46", 0xae },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const struct og_perf_bound *b = bound(bind(cases[i].source));
		assert_int_equal(b->type, PERF_TYPE_RAW);
		assert_int_equal(b->kind, OG_PERF_KIND_HW);
		assert_int_equal(b->config, cases[i].config);
	}
	uint32_t id;
	const char *why = NULL;
	assert_int_equal(ops->bind_raw(F.state, "R", "even:27", &id, &why),
	                 GPA_STATUS_ERROR_NOT_FOUND); /* Table 3: reserved on the even bank */
	assert_non_null(strstr(why, "reserved"));
	assert_int_equal(ops->bind_raw(F.state, "R", "any:9", &id, &why), GPA_STATUS_ERROR_FAILED);
	assert_int_equal(ops->bind_raw(F.state, "R", "odd:300", &id, &why), GPA_STATUS_ERROR_FAILED);
}

static bool fits(const char *const *sources, size_t n)
{
	uint32_t ids[8];
	for (size_t i = 0; i < n; i++)
		ids[i] = bind(sources[i]);
	return ops->fits(F.state, ids, n);
}

#define FITS(...)                                                                          \
	fits((const char *const[]){ __VA_ARGS__ },                                          \
	     sizeof((const char *const[]){ __VA_ARGS__ }) / sizeof(const char *))

static void test_fits_four_counters(void **unused)
{
	(void)unused;
	make(NULL);
	assert_int_equal(open_backend(), GPA_STATUS_OK);
	assert_true(FITS("even:9", "odd:9", "even:10", "odd:10"));
	assert_true(FITS("any:0", "any:1", "even:10", "any:11"));
	assert_false(FITS("even:9", "even:10", "even:37")); /* two even counters */
	assert_false(FITS("any:0", "any:1", "even:10", "odd:9", "odd:10"));
	/* Software events cost no counter. */
	assert_true(FITS("sw:task-clock", "even:9", "odd:9", "even:10", "odd:10"));
}

static void test_fits_mt_smp(void **unused)
{
	(void)unused;
	make(&(struct v34k_pmu_config){ .cpus = 2, .mt_smp = true, .paranoid = 2 });
	assert_int_equal(open_backend(), GPA_STATUS_OK);
	assert_non_null(strstr(F.info.description, "2 counters per CPU"));
	assert_true(FITS("any:0", "any:1"));
	assert_true(FITS("odd:9", "any:0"));
	assert_false(FITS("even:9", "even:10"));
	assert_false(FITS("any:0", "any:1", "even:10"));
}

/* ---- counting ------------------------------------------------------------- */

/* One pass of `sources`, one sample: what each counted. */
static void count(const char *const *sources, size_t n, uint64_t *deltas)
{
	uint32_t ids[8];
	for (size_t i = 0; i < n; i++)
		ids[i] = bind(sources[i]);
	assert_true(ops->fits(F.state, ids, n));
	if (ops->begin_pass(F.state, ids, n) != GPA_STATUS_OK)
		fail_msg("begin_pass: %s", F.log);
	assert_int_equal(ops->begin_sample(F.state), GPA_STATUS_OK);
	if (ops->end_sample(F.state, deltas) != GPA_STATUS_OK)
		fail_msg("end_sample: %s", F.log);
	assert_int_equal(ops->end_pass(F.state), GPA_STATUS_OK);
}

static void test_counts_the_model(void **unused)
{
	(void)unused;
	make(NULL);
	assert_int_equal(open_backend(), GPA_STATUS_OK);
	const char *const src[] = { "any:0", "any:1", "even:10", "any:11" };
	uint64_t d[4];
	count(src, 4, d);
	/* The end read ran the workload once since the begin read. */
	assert_int_equal(d[0], v34k_model_count(CYCLES, 0, 0));
	assert_int_equal(d[1], v34k_model_count(CYCLES, 0, 1));
	assert_int_equal(d[2], v34k_model_count(CYCLES, 0, 10));
	assert_int_equal(d[3], v34k_model_count(CYCLES, 1, 11));
	/* User mode only (paranoid 2), IE, per-VPE filter of a non-MT kernel. */
	uint32_t ctl = v34k_pmu_control(F.pmu, 3);
	assert_int_equal(ctl & 0xf, 0x8);
	assert_int_equal(ctl & 0x10, 0x10);
}

/* The pass lists the odd-only event before the either-bank one, whatever
 * the caller's order: on two counters the driver's allocator then places
 * both (it refused cycles first, test_device_refuses_as_the_driver). */
static void test_group_order_meets_the_allocator(void **unused)
{
	(void)unused;
	make(&(struct v34k_pmu_config){ .cpus = 2, .mt_smp = true, .paranoid = 2, .cpu = 1 });
	assert_int_equal(open_backend(), GPA_STATUS_OK);
	const char *const src[] = { "any:0", "odd:9" };
	uint64_t d[2];
	count(src, 2, d);
	assert_int_equal(d[0], v34k_model_count(CYCLES, 0, 0));
	assert_int_equal(d[1], v34k_model_count(CYCLES, 1, 9));
	/* VPE 1's counters are physical 2 and 3: odd:9 took 3, cycles 2, and
	 * cycles (processor-wide) count every TC while odd:9 counts VPE 1. */
	assert_int_equal(v34k_pmu_control(F.pmu, 3) >> 5 & 0x7f, 9);
	assert_int_equal(v34k_pmu_control(F.pmu, 3) >> 16 & 0x3f, 0x11); /* MT_EN 1, VPE 1 */
	assert_int_equal(v34k_pmu_control(F.pmu, 2) >> 16 & 0x3f, 0);    /* all TCs */
}

/* ---- the RDHWR cycle counter ------------------------------------------------ */

static uint32_t fake_count;

static void fake_cc(void *ctx, uint32_t *count_out, uint32_t *per_tick)
{
	(void)ctx;
	fake_count += 1000; /* each read is 1000 ticks later */
	*count_out = fake_count;
	*per_tick = 2;
}

static void trapping_cc(void *ctx, uint32_t *count_out, uint32_t *per_tick)
{
	(void)ctx, (void)count_out, (void)per_tick;
	raise(SIGILL); /* what a kernel without HWREna.CC answers to rdhwr $2 */
}

static volatile sig_atomic_t own_handler_ran;

static void own_handler(int sig)
{
	(void)sig;
	own_handler_ran = 1;
}

static void test_cycle_counter_without_a_pmu(void **unused)
{
	(void)unused;
	make(&(struct v34k_pmu_config){ .cpus = 1, .no_pmu = true, .paranoid = 2 });
	F.sys.read_cycle_counter = fake_cc;
	assert_int_equal(open_backend(), GPA_STATUS_OK);
	assert_non_null(strstr(F.info.description, "the MIPS PMU refused"));
	uint32_t cycles = bind("any:0");
	assert_int_equal(bound(cycles)->kind, OG_PERF_KIND_CYCLE_COUNTER);
	assert_non_null(strstr(F.log, "RDHWR cycle counter"));
	/* Nothing else has a stand-in. */
	uint32_t id;
	const char *why = NULL;
	assert_int_equal(ops->bind_raw(F.state, "I", "any:1", &id, &why),
	                 GPA_STATUS_ERROR_NOT_FOUND);
	assert_non_null(strstr(why, "not reachable"));
	/* And hw:cycles of the generic set takes it too. */
	assert_int_equal(bind("hw:cycles"), cycles);
	uint64_t d;
	assert_int_equal(ops->begin_pass(F.state, &cycles, 1), GPA_STATUS_OK);
	assert_int_equal(ops->begin_sample(F.state), GPA_STATUS_OK);
	assert_int_equal(ops->end_sample(F.state, &d), GPA_STATUS_OK);
	assert_int_equal(ops->end_pass(F.state), GPA_STATUS_OK);
	assert_int_equal(d, 1000 * 2); /* one read apart, two cycles a tick */
}

static void test_cycle_counter_that_traps(void **unused)
{
	(void)unused;
	struct sigaction mine = { .sa_handler = own_handler }, before, after;
	sigemptyset(&mine.sa_mask);
	assert_int_equal(sigaction(SIGILL, &mine, &before), 0);
	own_handler_ran = 0;
	make(&(struct v34k_pmu_config){ .cpus = 1, .no_pmu = true, .paranoid = 2 });
	F.sys.read_cycle_counter = trapping_cc;
	assert_int_equal(open_backend(), GPA_STATUS_OK);
	uint32_t id;
	const char *why = NULL;
	assert_int_equal(ops->bind_raw(F.state, "C", "cc:cycles", &id, &why),
	                 GPA_STATUS_ERROR_NOT_FOUND);
	assert_non_null(strstr(why, "not available"));
	assert_non_null(strstr(why, "SIGILL"));
	/* The program's own handler neither ran nor was replaced. */
	assert_int_equal(own_handler_ran, 0);
	assert_int_equal(sigaction(SIGILL, NULL, &after), 0);
	assert_ptr_equal(after.sa_handler, own_handler);
	sigaction(SIGILL, &before, NULL);
}

#if defined(__mips__)
/* The real instruction, under qemu-mips in the cross runs: it must not
 * crash the test whatever the answer, and the answer says why. */
static void test_real_rdhwr(void **unused)
{
	(void)unused;
	make(&(struct v34k_pmu_config){ .cpus = 1, .no_pmu = true, .paranoid = 2 });
	F.sys.read_cycle_counter = og_sys_real()->read_cycle_counter;
	assert_int_equal(open_backend(), GPA_STATUS_OK);
	uint32_t id;
	const char *why = NULL;
	GPA_Status s = ops->bind_raw(F.state, "C", "cc:cycles", &id, &why);
	if (s == GPA_STATUS_OK) {
		print_message("RDHWR cycle counter: available\n");
	} else {
		assert_int_equal(s, GPA_STATUS_ERROR_NOT_FOUND);
		print_message("RDHWR cycle counter: %s\n", why);
		assert_non_null(strstr(why, "not available"));
	}
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_device_refuses_as_the_driver, teardown),
		cmocka_unit_test_teardown(test_detects_the_34k, teardown),
		cmocka_unit_test_teardown(test_sources_encode_as_the_driver_expects, teardown),
		cmocka_unit_test_teardown(test_fits_four_counters, teardown),
		cmocka_unit_test_teardown(test_fits_mt_smp, teardown),
		cmocka_unit_test_teardown(test_counts_the_model, teardown),
		cmocka_unit_test_teardown(test_group_order_meets_the_allocator, teardown),
		cmocka_unit_test_teardown(test_cycle_counter_without_a_pmu, teardown),
		cmocka_unit_test_teardown(test_cycle_counter_that_traps, teardown),
#if defined(__mips__)
		cmocka_unit_test_teardown(test_real_rdhwr, teardown),
#endif
	};
	return cmocka_run_group_tests_name("perf-mips34k", tests, NULL, NULL);
}
