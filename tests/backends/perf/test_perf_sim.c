/* SPDX-License-Identifier: MIT */
/* test_perf_sim.c — the perf backend against a simulated kernel: every error
 * path, the group read checks, scaling and fits(). */
#include <setjmp.h>
#include <stdarg.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <dlfcn.h>
#include <errno.h>

#include "fake_perf.h"
#include "perf/perf_internal.h"

extern const struct og_backend_ops og_backend_perf;

static const struct og_backend_ops *ops = &og_backend_perf;

static struct fake_fixture F;

static int setup(void **unused)
{
	(void)unused;
	fake_fixture_setup(&F);
	return 0;
}

static int teardown(void **unused)
{
	(void)unused;
	return fake_fixture_teardown(&F, ops);
}

static GPA_Status open_with(const char *options)
{
	return ops->open(&F.host, options, &F.state, &F.info);
}

static uint32_t bind(const char *source)
{
	uint32_t id = UINT32_MAX;
	const char *why = NULL;
	assert_int_equal(ops->bind_raw(F.state, "X", source, &id, &why), GPA_STATUS_OK);
	return id;
}

static void assert_logged(const char *needle)
{
	if (!strstr(F.log.all, needle))
		fail_msg("log lacks \"%s\"; log was:\n%s", needle, F.log.all);
}

static void test_no_pmu_software_only(void **unused)
{
	(void)unused;
	assert_int_equal(open_with(""), GPA_STATUS_OK);
	assert_int_equal(F.log.errors, 0);
	assert_string_equal(F.info.description, "Fake Xeon(R) CPU @ 2.00GHz");
	assert_int_equal(F.info.device_id, 6 << 8 | 85);
	assert_int_equal(F.info.revision_id, 7);
	assert_string_equal(F.info.counter_sets[0], "perf-generic");
	assert_null(F.info.counter_sets[1]);

	uint32_t id;
	const char *why = NULL;
	assert_int_equal(ops->bind_raw(F.state, "Cycles", "hw:cycles", &id, &why),
	                 GPA_STATUS_ERROR_NOT_FOUND);
	assert_string_equal(why, "no hardware PMU: cycles not supported by this kernel/VM");
	assert_int_equal(ops->bind_raw(F.state, "Ins", "hw:instructions", &id, &why),
	                 GPA_STATUS_ERROR_NOT_FOUND);
	assert_int_equal(ops->bind_raw(F.state, "Bad", "sw:no-such", &id, &why),
	                 GPA_STATUS_ERROR_FAILED);
	assert_logged("unknown source 'sw:no-such'");

	uint32_t a = bind("sw:task-clock"), b = bind("sw:page-faults"), c = bind("sw:faults");
	assert_int_equal(b, c); /* alias of the same event: one raw id */
	assert_int_not_equal(a, b);
	double v = 0;
	assert_int_equal(ops->constant(F.state, "NumCPUs", &v), GPA_STATUS_OK);
	assert_true(v == 5.0);
	assert_int_equal(ops->constant(F.state, "PerfHardwareCounters", &v), GPA_STATUS_OK);
	assert_true(v == 0.0);
	assert_int_equal(ops->constant(F.state, "Nope", &v), GPA_STATUS_ERROR_NOT_FOUND);
}

static void test_sample_deltas(void **unused)
{
	(void)unused;
	assert_int_equal(open_with(""), GPA_STATUS_OK);
	uint32_t ids[5] = { bind("sw:task-clock"), bind("time:enabled"), bind("sw:page-faults"),
		            bind("time:running"), bind("time:wall") };
	assert_true(ops->fits(F.state, ids, 5));
	assert_int_equal(ops->begin_pass(F.state, ids, 5), GPA_STATUS_OK);
	assert_int_equal(fake_perf_open_fds(&F.k), 2); /* time:* need no fd */
	struct fake_event *tc = fake_perf_find(&F.k, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	struct fake_event *pf = fake_perf_find(&F.k, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS);
	assert_non_null(tc);
	assert_non_null(pf);
	assert_int_equal(tc->leader, tc - F.k.ev);
	assert_int_equal(pf->leader, tc - F.k.ev);
	assert_int_equal(tc->attr.read_format, PERF_FORMAT_GROUP | PERF_FORMAT_ID |
	                                               PERF_FORMAT_TOTAL_TIME_ENABLED |
	                                               PERF_FORMAT_TOTAL_TIME_RUNNING);
	assert_int_equal(tc->pid, 0);
	assert_int_equal(tc->cpu, -1);
	assert_false(tc->attr.inherit);

	assert_int_equal(ops->begin_sample(F.state), GPA_STATUS_OK);
	pf->step = 123;
	uint64_t d[5];
	assert_int_equal(ops->end_sample(F.state, d), GPA_STATUS_OK);
	assert_int_equal(d[0], F.k.time_step);
	assert_int_equal(d[1], F.k.time_step);
	assert_int_equal(d[2], 123);
	assert_int_equal(d[3], F.k.time_step);
	/* end_sample without a new begin_sample is refused */
	assert_int_equal(ops->end_sample(F.state, d), GPA_STATUS_ERROR_SAMPLE_NOT_STARTED);
	assert_int_equal(ops->end_pass(F.state), GPA_STATUS_OK);
	assert_int_equal(fake_perf_open_fds(&F.k), 0);
}

static bool aligned64(const void *p)
{
	return (uintptr_t)p % _Alignof(uint64_t) == 0;
}

/* The pass's 64-bit ids and snapshot values come from one pool carved after
 * per-raw-counter records: with an odd number of raw counters they must
 * still be 8-byte aligned (strict-alignment CPUs fault; UBSan reports it). */
static void test_odd_pass_words_aligned(void **unused)
{
	(void)unused;
	assert_int_equal(open_with(""), GPA_STATUS_OK);
	uint32_t ids[3] = { bind("sw:task-clock"), bind("sw:page-faults"), bind("time:wall") };
	for (size_t n = 1; n <= 3; n++) {
		assert_int_equal(ops->begin_pass(F.state, ids, n), GPA_STATUS_OK);
		const struct og_perf_state *st = F.state;
		for (size_t i = 0; i < st->pass->ninstances; i++) {
			const struct og_perf_instance *in = &st->pass->instances[i];
			assert_true(aligned64(in->ids));
			assert_true(aligned64(st->pass->snap[0] + in->snap));
			assert_true(aligned64(st->pass->snap[1] + in->snap));
		}
		assert_int_equal(ops->begin_sample(F.state), GPA_STATUS_OK);
		uint64_t d[3];
		assert_int_equal(ops->end_sample(F.state, d), GPA_STATUS_OK);
		assert_int_equal(ops->end_pass(F.state), GPA_STATUS_OK);
	}
}

static void test_time_only_pass(void **unused)
{
	(void)unused;
	assert_int_equal(open_with(""), GPA_STATUS_OK);
	uint32_t id = bind("time:enabled");
	assert_int_equal(ops->begin_pass(F.state, &id, 1), GPA_STATUS_OK);
	assert_int_equal(fake_perf_open_fds(&F.k), 1); /* a helper leader for the times */
	assert_int_equal(ops->begin_sample(F.state), GPA_STATUS_OK);
	uint64_t d;
	assert_int_equal(ops->end_sample(F.state, &d), GPA_STATUS_OK);
	assert_int_equal(d, F.k.time_step);
	assert_int_equal(ops->end_pass(F.state), GPA_STATUS_OK);
}

static void test_eacces_paranoid(void **unused)
{
	(void)unused;
	F.k.eacces_all = 1;
	fake_perf_set_file(&F.k, "/proc/sys/kernel/perf_event_paranoid", "3\n");
	assert_int_equal(open_with(""), GPA_STATUS_ERROR_FAILED);
	assert_null(F.state);
	assert_int_equal(F.log.errors, 1);
	assert_logged("EACCES");
	assert_logged("perf_event_paranoid is 3");
	assert_logged("`sysctl kernel.perf_event_paranoid=2`");
}

static void test_eacces_paranoid_unreadable(void **unused)
{
	(void)unused;
	F.k.eacces_all = 1;
	fake_perf_set_file(&F.k, "/proc/sys/kernel/perf_event_paranoid", NULL);
	assert_int_equal(open_with(""), GPA_STATUS_ERROR_FAILED);
	assert_logged("is unreadable");
}

static void test_user_only_fallback(void **unused)
{
	(void)unused;
	F.k.eacces_kernel = true;
	assert_int_equal(open_with(""), GPA_STATUS_OK);
	assert_int_equal(F.log.errors, 0);
	assert_logged("counting user space only");
	uint32_t id = bind("sw:task-clock");
	assert_int_equal(ops->begin_pass(F.state, &id, 1), GPA_STATUS_OK);
	struct fake_event *tc = fake_perf_find(&F.k, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	assert_true(tc->attr.exclude_kernel);
	assert_int_equal(ops->end_pass(F.state), GPA_STATUS_OK);
}

static void begin_pass_fails_with(int err, GPA_Status want, const char *needle)
{
	assert_int_equal(open_with(""), GPA_STATUS_OK);
	uint32_t ids[3] = { bind("sw:task-clock"), bind("sw:page-faults"),
		            bind("sw:context-switches") };
	F.k.open_fail_errno = err;
	F.k.open_fail_after = 2; /* the third event of the group fails */
	int errors = F.log.errors;
	assert_int_equal(ops->begin_pass(F.state, ids, 3), want);
	assert_int_equal(F.log.errors, errors + 1);
	assert_logged(needle);
	assert_int_equal(fake_perf_open_fds(&F.k), 0); /* the first two were closed */
	/* The backend is still usable after the failure. */
	F.k.open_fail_errno = 0;
	assert_int_equal(ops->begin_pass(F.state, ids, 3), GPA_STATUS_OK);
	assert_int_equal(ops->end_pass(F.state), GPA_STATUS_OK);
}

static void test_enoent(void **unused)
{
	(void)unused;
	begin_pass_fails_with(ENOENT, GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED,
	                      "ENOENT: this kernel/CPU cannot count this event");
}

static void test_eopnotsupp(void **unused)
{
	(void)unused;
	begin_pass_fails_with(EOPNOTSUPP, GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED,
	                      "EOPNOTSUPP: this kernel/CPU cannot count this event");
}

static void test_emfile(void **unused)
{
	(void)unused;
	begin_pass_fails_with(EMFILE, GPA_STATUS_ERROR_FAILED, "raise the limit with `ulimit -n`");
}

static void test_ebusy(void **unused)
{
	(void)unused;
	begin_pass_fails_with(EBUSY, GPA_STATUS_ERROR_FAILED, "exclusive use of the PMU");
}

static void test_eacces_in_pass(void **unused)
{
	(void)unused;
	begin_pass_fails_with(EACCES, GPA_STATUS_ERROR_FAILED, "perf_event_paranoid is 2");
}

/* The software events behind one kernel path are probed by the highest
 * id of the table alone (perf_probe.c: opening the others patches kernel
 * text twice each): a plain open opens the two clocks and emulation-faults,
 * never page faults, context switches or migrations. */
static void test_probe_opens_one_software_event(void **unused)
{
	(void)unused;
	assert_int_equal(open_with(""), GPA_STATUS_OK);
	assert_int_equal(F.k.sw_opened, 1u << PERF_COUNT_SW_TASK_CLOCK |
	                                        1u << PERF_COUNT_SW_CPU_CLOCK |
	                                        1u << PERF_COUNT_SW_EMULATION_FAULTS);
	/* ... and they are offered on its answer. */
	uint32_t a = bind("sw:page-faults"), b = bind("sw:context-switches"),
	         c = bind("sw:cpu-migrations"), d = bind("sw:alignment-faults");
	assert_int_not_equal(a, b);
	assert_int_not_equal(c, d);
}

/* Opens the backend on a kernel that refuses the software event `config`
 * (EOPNOTSUPP) and takes every other. */
static void open_refusing(uint64_t config)
{
	F.k.open_fail_errno = EOPNOTSUPP;
	F.k.open_fail_match = true;
	F.k.open_fail_type = PERF_TYPE_SOFTWARE;
	F.k.open_fail_config = config;
	assert_int_equal(open_with(""), GPA_STATUS_OK);
}

/* Where the highest id is refused, each software event is probed, and the
 * one refused is not offered, naming why. */
static void test_probe_refuses_one_event(void **unused)
{
	(void)unused;
	open_refusing(PERF_COUNT_SW_EMULATION_FAULTS);
	uint32_t id;
	const char *why = NULL;
	assert_int_equal(ops->bind_raw(F.state, "E", "sw:emulation-faults", &id, &why),
	                 GPA_STATUS_ERROR_NOT_FOUND);
	assert_non_null(strstr(why, "emulation-faults"));
	assert_true(F.k.sw_opened & 1u << PERF_COUNT_SW_CPU_MIGRATIONS);
	bind("sw:cpu-migrations");
}

/* A kernel that knows the highest id but refuses a lower one is no kernel
 * there is (the software path refuses by id only past its last); were there
 * one, the pass says so when it opens the event, naming the errno. */
static void test_probe_trusts_the_highest_id(void **unused)
{
	(void)unused;
	open_refusing(PERF_COUNT_SW_CPU_MIGRATIONS);
	uint32_t ids[2] = { bind("sw:task-clock"), bind("sw:cpu-migrations") };
	assert_int_not_equal(ops->begin_pass(F.state, ids, 2), GPA_STATUS_OK);
	assert_logged("EOPNOTSUPP");
}

/* A pass with two events and one sample whose second read has `fault`. */
static void sample_fails_with(enum fake_read_fault fault, const char *needle)
{
	assert_int_equal(open_with(""), GPA_STATUS_OK);
	uint32_t ids[2] = { bind("sw:task-clock"), bind("sw:page-faults") };
	assert_int_equal(ops->begin_pass(F.state, ids, 2), GPA_STATUS_OK);
	F.k.read_fault = fault;
	F.k.read_fault_after = F.k.reads + 1;
	assert_int_equal(ops->begin_sample(F.state), GPA_STATUS_OK);
	uint64_t d[2] = { 77, 77 };
	assert_int_equal(ops->end_sample(F.state, d), GPA_STATUS_ERROR_READING_COUNTER_RESULT);
	assert_int_equal(F.log.errors, 1);
	assert_logged(needle);
	/* The pass goes on: the next sample works. */
	F.k.read_fault = FAKE_READ_OK;
	assert_int_equal(ops->begin_sample(F.state), GPA_STATUS_OK);
	assert_int_equal(ops->end_sample(F.state, d), GPA_STATUS_OK);
	assert_int_equal(ops->end_pass(F.state), GPA_STATUS_OK);
}

static void test_short_read(void **unused)
{
	(void)unused;
	sample_fails_with(FAKE_READ_SHORT, "a size that does not match the group");
}

/* A read longer than the group's, whole (nr to match) or said to be
 * longer than the buffer: the backend reads into the snapshot itself, with
 * room for one pair more, and takes neither. */
static void test_long_read(void **unused)
{
	(void)unused;
	sample_fails_with(FAKE_READ_LONG, "a size that does not match the group");
}

static void test_oversize_read(void **unused)
{
	(void)unused;
	sample_fails_with(FAKE_READ_OVERSIZE, "a size that does not match the group");
}

static void test_wrong_nr(void **unused)
{
	(void)unused;
	sample_fails_with(FAKE_READ_WRONG_NR, "number of events (nr)");
}

static void test_unknown_id(void **unused)
{
	(void)unused;
	sample_fails_with(FAKE_READ_UNKNOWN_ID, "event id that is not in the group");
}

static void test_duplicate_id(void **unused)
{
	(void)unused;
	sample_fails_with(FAKE_READ_DUP_ID, "one event id twice");
}

static void test_zero_read(void **unused)
{
	(void)unused;
	sample_fails_with(FAKE_READ_ZERO, "0 bytes");
}

static void test_read_errno(void **unused)
{
	(void)unused;
	F.k.read_errno = ESRCH;
	sample_fails_with(FAKE_READ_ERRNO, "read of the event group failed (ESRCH)");
}

/* A read() interrupted by a signal (EINTR) is made again: at the begin
 * and at the end of a sample, the sample is whole and nothing is logged. */
static void test_read_eintr(void **unused)
{
	(void)unused;
	assert_int_equal(open_with(""), GPA_STATUS_OK);
	uint32_t ids[2] = { bind("sw:task-clock"), bind("sw:page-faults") };
	assert_int_equal(ops->begin_pass(F.state, ids, 2), GPA_STATUS_OK);
	struct fake_event *pf = fake_perf_find(&F.k, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS);
	assert_non_null(pf);
	pf->step = 5;
	for (int at_end = 0; at_end < 2; at_end++) {
		unsigned reads = F.k.reads;
		if (!at_end) {
			F.k.read_fault = FAKE_READ_EINTR_ONCE;
			F.k.read_fault_after = reads;
		}
		assert_int_equal(ops->begin_sample(F.state), GPA_STATUS_OK);
		uint64_t begin = pf->value;
		if (at_end) {
			F.k.read_fault = FAKE_READ_EINTR_ONCE;
			F.k.read_fault_after = F.k.reads;
		}
		uint64_t d[2] = { 0, 0 };
		assert_int_equal(ops->end_sample(F.state, d), GPA_STATUS_OK);
		assert_int_equal(F.k.reads, reads + 3); /* one of them interrupted */
		assert_int_equal(F.k.read_fault, FAKE_READ_OK);
		assert_int_equal(d[1], pf->value - begin);
		assert_true(d[1] >= 5);
	}
	assert_int_equal(F.log.errors, 0);
	assert_int_equal(ops->end_pass(F.state), GPA_STATUS_OK);
}

/* The group read's {value, id} pairs in any order land on their own
 * counters: the backend maps by id, not by position.  Each member counts a
 * different amount so that a swap shows. */
static void test_members_out_of_order(void **unused)
{
	(void)unused;
	static const enum fake_read_order orders[] = { FAKE_ORDER_KERNEL, FAKE_ORDER_REVERSED,
		                                       FAKE_ORDER_ROTATED };
	static const uint64_t steps[4] = { 0, 11, 222, 3333 };
	assert_int_equal(open_with(""), GPA_STATUS_OK);
	uint32_t ids[4] = { bind("sw:task-clock"), bind("sw:page-faults"),
		            bind("sw:context-switches"), bind("sw:cpu-migrations") };
	for (size_t o = 0; o < sizeof orders / sizeof orders[0]; o++) {
		F.k.read_order = orders[o];
		assert_int_equal(ops->begin_pass(F.state, ids, 4), GPA_STATUS_OK);
		struct fake_event *ev[4] = {
			fake_perf_find(&F.k, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK),
			fake_perf_find(&F.k, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS),
			fake_perf_find(&F.k, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES),
			fake_perf_find(&F.k, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS),
		};
		for (int m = 1; m < 4; m++) {
			assert_non_null(ev[m]);
			assert_int_equal(ev[m]->leader, ev[0] - F.k.ev); /* one group */
			ev[m]->step = steps[m];
		}
		uint64_t d[4] = { 0 };
		for (int rep = 0; rep < 2; rep++) {
			assert_int_equal(ops->begin_sample(F.state), GPA_STATUS_OK);
			assert_int_equal(ops->end_sample(F.state, d), GPA_STATUS_OK);
			if (d[0] != F.k.time_step || d[1] != steps[1] || d[2] != steps[2] ||
			    d[3] != steps[3])
				fail_msg("read order %zu: deltas %llu %llu %llu %llu, want %llu %llu "
				         "%llu %llu",
				         o, (unsigned long long)d[0], (unsigned long long)d[1],
				         (unsigned long long)d[2], (unsigned long long)d[3],
				         (unsigned long long)F.k.time_step,
				         (unsigned long long)steps[1], (unsigned long long)steps[2],
				         (unsigned long long)steps[3]);
		}
		assert_int_equal(ops->end_pass(F.state), GPA_STATUS_OK);
	}
	assert_int_equal(F.log.errors, 0);
}

static void test_backwards(void **unused)
{
	(void)unused;
	assert_int_equal(open_with(""), GPA_STATUS_OK);
	uint32_t ids[3] = { bind("sw:page-faults"), bind("time:enabled"), bind("time:running") };
	assert_int_equal(ops->begin_pass(F.state, ids, 3), GPA_STATUS_OK);
	for (int i = 0; i < 5; i++) { /* build up counts worth halving */
		assert_int_equal(ops->begin_sample(F.state), GPA_STATUS_OK);
		uint64_t d[3];
		assert_int_equal(ops->end_sample(F.state, d), GPA_STATUS_OK);
	}
	assert_int_equal(ops->begin_sample(F.state), GPA_STATUS_OK);
	F.k.backwards = true;
	uint64_t d[3] = { 9, 9, 9 };
	assert_int_equal(ops->end_sample(F.state, d), GPA_STATUS_OK);
	assert_int_equal(d[0], 0);
	assert_int_equal(d[1], 0);
	assert_int_equal(d[2], 0);
	assert_int_equal(ops->end_pass(F.state), GPA_STATUS_OK);
}

static void test_duplicate_ioc_id(void **unused)
{
	(void)unused;
	assert_int_equal(open_with(""), GPA_STATUS_OK);
	F.k.ioc_id_dup = true;
	uint32_t ids[2] = { bind("sw:task-clock"), bind("sw:page-faults") };
	assert_int_equal(ops->begin_pass(F.state, ids, 2), GPA_STATUS_ERROR_FAILED);
	assert_logged("already gave");
}

static void test_multiplexed_scaled(void **unused)
{
	(void)unused;
	F.k.pmu = true;
	F.k.hw_slots = 4;
	assert_int_equal(open_with(""), GPA_STATUS_OK);
	uint32_t ids[4] = { bind("hw:instructions"), bind("sw:page-faults"), bind("time:enabled"),
		            bind("time:running") };
	assert_int_equal(ops->begin_pass(F.state, ids, 4), GPA_STATUS_OK);
	struct fake_event *ins = fake_perf_find(&F.k, PERF_TYPE_HARDWARE,
	                                        PERF_COUNT_HW_INSTRUCTIONS);
	assert_int_equal(ins->leader, ins - F.k.ev); /* hardware leads */
	ins->step = 1000;
	F.k.running_permille = 250;
	assert_int_equal(ops->begin_sample(F.state), GPA_STATUS_OK);
	int messages = F.log.messages;
	uint64_t d[4];
	assert_int_equal(ops->end_sample(F.state, d), GPA_STATUS_OK);
	assert_int_equal(d[0], 4000); /* ran a quarter of the time: x4 */
	assert_int_equal(d[2], F.k.time_step);
	assert_int_equal(d[3], F.k.time_step / 4);
	assert_int_equal(F.log.messages, messages + 1);
	assert_logged("ran 25.0% of the sample");
	assert_int_equal(ops->end_pass(F.state), GPA_STATUS_OK);
}

/* A kernel that reports more running than enabled time (rounding between
 * the two clocks): running is clamped to enabled, the count is not scaled
 * down below what was counted, and time:running reads as enabled. */
static void test_running_past_enabled(void **unused)
{
	(void)unused;
	F.k.pmu = true;
	F.k.hw_slots = 4;
	assert_int_equal(open_with(""), GPA_STATUS_OK);
	uint32_t ids[3] = { bind("hw:instructions"), bind("time:enabled"), bind("time:running") };
	assert_int_equal(ops->begin_pass(F.state, ids, 3), GPA_STATUS_OK);
	struct fake_event *ins = fake_perf_find(&F.k, PERF_TYPE_HARDWARE,
	                                        PERF_COUNT_HW_INSTRUCTIONS);
	ins->step = 1000;
	F.k.running_permille = 1500;
	assert_int_equal(ops->begin_sample(F.state), GPA_STATUS_OK);
	uint64_t d[3];
	assert_int_equal(ops->end_sample(F.state, d), GPA_STATUS_OK);
	if (d[0] != 1000)
		fail_msg("1000 instructions with running 1.5 x enabled read as %llu; running must be "
		         "clamped to enabled", (unsigned long long)d[0]);
	assert_int_equal(d[1], F.k.time_step);
	assert_int_equal(d[2], F.k.time_step);
	assert_int_equal(ops->end_pass(F.state), GPA_STATUS_OK);
}

/* Scaling a count whose product with the enabled time passes 64 bits: exact
 * where the quotient fits (32-bit targets have no 128-bit integer to lean
 * on), saturated where it does not. */
static void test_multiplexed_scaled_past_64_bits(void **unused)
{
	(void)unused;
	F.k.pmu = true;
	F.k.hw_slots = 4;
	assert_int_equal(open_with(""), GPA_STATUS_OK);
	uint32_t id = bind("hw:instructions");
	assert_int_equal(ops->begin_pass(F.state, &id, 1), GPA_STATUS_OK);
	struct fake_event *ins = fake_perf_find(&F.k, PERF_TYPE_HARDWARE,
	                                        PERF_COUNT_HW_INSTRUCTIONS);
	F.k.running_permille = 250;
	uint64_t d;
	ins->step = 3ull << 60; /* x4 = 3 << 62: fits */
	assert_int_equal(ops->begin_sample(F.state), GPA_STATUS_OK);
	assert_int_equal(ops->end_sample(F.state, &d), GPA_STATUS_OK);
	assert_true(d == 3ull << 62);
	ins->step = (1ull << 62) + 1; /* x4 passes 2^64 */
	assert_int_equal(ops->begin_sample(F.state), GPA_STATUS_OK);
	assert_int_equal(ops->end_sample(F.state, &d), GPA_STATUS_OK);
	assert_true(d == UINT64_MAX);
	ins->step = 12345; /* the product fits: the plain division */
	assert_int_equal(ops->begin_sample(F.state), GPA_STATUS_OK);
	assert_int_equal(ops->end_sample(F.state, &d), GPA_STATUS_OK);
	assert_true(d == 4 * 12345);
	assert_int_equal(ops->end_pass(F.state), GPA_STATUS_OK);
}

static void test_never_scheduled(void **unused)
{
	(void)unused;
	F.k.pmu = true;
	F.k.hw_slots = 4;
	assert_int_equal(open_with(""), GPA_STATUS_OK);
	uint32_t ids[2] = { bind("hw:instructions"), bind("sw:page-faults") };
	assert_int_equal(ops->begin_pass(F.state, ids, 2), GPA_STATUS_OK);
	F.k.running_permille = 0;
	assert_int_equal(ops->begin_sample(F.state), GPA_STATUS_OK);
	uint64_t d[2];
	assert_int_equal(ops->end_sample(F.state, d), GPA_STATUS_ERROR_READING_COUNTER_RESULT);
	assert_logged("never got on the PMU");
	assert_int_equal(ops->end_pass(F.state), GPA_STATUS_OK);
}

static void check_slots(enum fake_slot_mode mode, unsigned slots)
{
	F.k.pmu = true;
	F.k.hw_slots = slots;
	F.k.slot_mode = mode;
	assert_int_equal(open_with(""), GPA_STATUS_OK);
	double v = -1;
	assert_int_equal(ops->constant(F.state, "PerfHardwareCounters", &v), GPA_STATUS_OK);
	assert_true(v == (double)slots);
	uint32_t hw[6] = { bind("hw:cycles"), bind("hw:instructions"), bind("hw:branches"),
		           bind("hw:branch-misses"), bind("hw:cache-references"),
		           bind("hw:cache-misses") };
	uint32_t sw[3] = { bind("sw:task-clock"), bind("sw:page-faults"), bind("time:enabled") };
	for (unsigned n = 0; n <= 6; n++)
		assert_int_equal(ops->fits(F.state, hw, n), n <= slots);
	uint32_t mix[9];
	memcpy(mix, sw, sizeof sw);
	memcpy(mix + 3, hw, sizeof hw);
	/* Software events and times never take a PMU counter. */
	assert_int_equal(ops->fits(F.state, mix, 3 + slots), true);
	assert_int_equal(ops->fits(F.state, mix, 4 + slots), false);
	uint32_t bogus = 999;
	assert_false(ops->fits(F.state, &bogus, 1));
	/* begin_pass refuses what fits() refuses, with a reason. */
	assert_int_equal(ops->begin_pass(F.state, hw, slots + 1), GPA_STATUS_ERROR_FAILED);
	assert_logged("do not fit one group");
	assert_int_equal(ops->begin_pass(F.state, mix, 3 + slots), GPA_STATUS_OK);
	assert_int_equal(ops->begin_sample(F.state), GPA_STATUS_OK);
	uint64_t d[9];
	assert_int_equal(ops->end_sample(F.state, d), GPA_STATUS_OK);
	assert_int_equal(ops->end_pass(F.state), GPA_STATUS_OK);
}

static void test_slots_einval(void **unused)
{
	(void)unused;
	check_slots(FAKE_SLOTS_EINVAL, 4);
}

static void test_slots_not_running(void **unused)
{
	(void)unused;
	check_slots(FAKE_SLOTS_NOT_RUN, 3);
}

/* What the core's planner does with fits(): grow a pass while it fits, start
 * the next one when it does not.  With 4 counters, 6 hardware events and 2
 * software events take 2 passes, and every pass schedules fully. */
static void test_planning_with_slots(void **unused)
{
	(void)unused;
	F.k.pmu = true;
	F.k.hw_slots = 4;
	assert_int_equal(open_with(""), GPA_STATUS_OK);
	uint32_t all[8] = { bind("hw:cycles"), bind("sw:task-clock"), bind("hw:instructions"),
		            bind("hw:branches"), bind("hw:branch-misses"), bind("sw:page-faults"),
		            bind("hw:cache-references"), bind("hw:cache-misses") };
	uint32_t pass[2][8];
	size_t n[2] = { 0, 0 }, p = 0;
	for (size_t i = 0; i < 8; i++) {
		pass[p][n[p]] = all[i];
		if (!ops->fits(F.state, pass[p], n[p] + 1)) {
			assert_int_equal(p, 0); /* never a third pass */
			p++;
			pass[p][n[p]] = all[i];
		}
		n[p]++;
	}
	assert_int_equal(p, 1);
	assert_int_equal(n[0], 6); /* 4 hardware + 2 software */
	assert_int_equal(n[1], 2);
	for (size_t k = 0; k < 2; k++) {
		assert_int_equal(ops->begin_pass(F.state, pass[k], n[k]), GPA_STATUS_OK);
		assert_int_equal(ops->begin_sample(F.state), GPA_STATUS_OK);
		uint64_t d[8];
		assert_int_equal(ops->end_sample(F.state, d), GPA_STATUS_OK);
		for (size_t i = 0; i < n[k]; i++)
			assert_true(d[i] > 0);
		assert_int_equal(ops->end_pass(F.state), GPA_STATUS_OK);
	}
	assert_int_equal(F.log.messages, 0); /* nothing was multiplexed */
}

static void test_pmu_without_free_counter(void **unused)
{
	(void)unused;
	F.k.pmu = true;
	F.k.hw_slots = 0;
	F.k.slot_mode = FAKE_SLOTS_NOT_RUN; /* one event opens, but never runs */
	assert_int_equal(open_with(""), GPA_STATUS_OK);
	uint32_t id;
	const char *why = NULL;
	assert_int_equal(ops->bind_raw(F.state, "C", "hw:cycles", &id, &why),
	                 GPA_STATUS_ERROR_NOT_FOUND);
	assert_non_null(strstr(why, "no free counter"));
}

static void test_pid_exec_option(void **unused)
{
	(void)unused;
	assert_int_equal(open_with("pid=4242,exec=1"), GPA_STATUS_OK);
	uint32_t ids[2] = { bind("sw:task-clock"), bind("sw:page-faults") };
	assert_int_equal(ops->begin_pass(F.state, ids, 2), GPA_STATUS_OK);
	struct fake_event *tc = fake_perf_find(&F.k, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	struct fake_event *pf = fake_perf_find(&F.k, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS);
	assert_int_equal(tc->pid, 4242);
	assert_true(tc->attr.inherit && pf->attr.inherit);
	assert_true(tc->attr.enable_on_exec && tc->attr.disabled);
	assert_false(pf->attr.enable_on_exec);
	assert_false(tc->enabled); /* waits for the exec */
	assert_int_equal(ops->begin_sample(F.state), GPA_STATUS_OK);
	fake_perf_exec(&F.k);
	uint64_t d[2];
	assert_int_equal(ops->end_sample(F.state, d), GPA_STATUS_OK);
	assert_int_equal(d[0], F.k.time_step);
	/* Options cannot change inside a pass... */
	assert_int_equal(ops->set_option(F.state, "pid", "7"), GPA_STATUS_ERROR_PASS_ALREADY_STARTED);
	assert_int_equal(ops->end_pass(F.state), GPA_STATUS_OK);
	/* ...but can between passes.  Without exec, pid= is every thread the
	 * process has, listed from /proc/PID/task. */
	fake_perf_set_file(&F.k, "/proc/7/task/7/stat", "7");
	assert_int_equal(ops->set_option(F.state, "exec", "0"), GPA_STATUS_OK);
	assert_int_equal(ops->set_option(F.state, "pid", "7"), GPA_STATUS_OK);
	assert_int_equal(ops->begin_pass(F.state, ids, 2), GPA_STATUS_OK);
	tc = fake_perf_find(&F.k, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	assert_int_equal(tc->pid, 7);
	assert_false(tc->attr.enable_on_exec);
	assert_true(tc->enabled); /* no exec to wait for: enabled at once */
	assert_int_equal(ops->end_pass(F.state), GPA_STATUS_OK);
	assert_int_equal(ops->set_option(F.state, "pid", "0"), GPA_STATUS_OK);
	assert_int_equal(ops->begin_pass(F.state, ids, 2), GPA_STATUS_OK);
	tc = fake_perf_find(&F.k, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK);
	assert_int_equal(tc->pid, 0);
	assert_false(tc->attr.inherit);
	assert_int_equal(ops->end_pass(F.state), GPA_STATUS_OK);
}

static void test_bad_options(void **unused)
{
	(void)unused;
	assert_int_equal(open_with("pid=abc"), GPA_STATUS_ERROR_FAILED);
	assert_logged("pid=abc is not a process id");
	assert_int_equal(open_with("tid=-3"), GPA_STATUS_ERROR_FAILED);
	assert_logged("tid=-3 is not a thread id");
	assert_int_equal(open_with("cpus=3"), GPA_STATUS_ERROR_FAILED);
	assert_logged("unknown option at 'cpus=3'");
	assert_int_equal(open_with("cpu=3-1"), GPA_STATUS_ERROR_FAILED);
	assert_logged("cpu=3-1 is not a CPU list");
	assert_int_equal(open_with("pid=5,cpu=all"), GPA_STATUS_ERROR_FAILED);
	assert_logged("give only one");
	assert_int_equal(open_with("exec=1"), GPA_STATUS_ERROR_FAILED);
	assert_logged("exec=1 needs pid=N");
	assert_int_equal(open_with("exec=maybe"), GPA_STATUS_ERROR_FAILED);
	assert_null(F.state);
	assert_int_equal(open_with(""), GPA_STATUS_OK);
	assert_int_equal(ops->set_option(F.state, "colour", "red"), GPA_STATUS_ERROR_NOT_FOUND);
	assert_int_equal(ops->set_option(F.state, "pid", "-4"), GPA_STATUS_ERROR_FAILED);
	/* A process that is gone is reported when the option is set. */
	F.k.open_fail_errno = ESRCH;
	assert_int_equal(ops->set_option(F.state, "pid", "99999"), GPA_STATUS_ERROR_FAILED);
	assert_logged("no process 99999");
}

static void test_arm_midr(void **unused)
{
	(void)unused;
	fake_perf_set_file(&F.k, "/proc/cpuinfo",
	                   "processor\t: 0\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\n"
	                   "CPU architecture: 8\nCPU variant\t: 0x3\nCPU part\t: 0xd0c\n"
	                   "CPU revision\t: 1\n");
	assert_int_equal(open_with(""), GPA_STATUS_OK);
	assert_int_equal(F.info.device_id, 0x413fd0c1);
	assert_string_equal(F.info.description, "Arm Neoverse-N1 r3p1");
	assert_string_equal(F.info.counter_sets[0], "neoverse-n1");
	assert_string_equal(F.info.counter_sets[1], "perf-generic");
	ops->close(F.state);
	F.state = NULL;
	fake_perf_set_file(&F.k, "/sys/devices/system/cpu/cpu0/regs/identification/midr_el1",
	                   "0x00000000410fd4f0\n");
	assert_int_equal(open_with(""), GPA_STATUS_OK);
	assert_int_equal(F.info.device_id, 0x410fd4f0);
	assert_string_equal(F.info.description, "Arm Neoverse-V2 r0p0");
	assert_string_equal(F.info.counter_sets[0], "neoverse-v2");
	static const struct {
		const char *midr, *set;
	} sets[] = {
		{ "0x410fd490\n", "neoverse-n2" },
		{ "0x410fd492\n", "neoverse-n2" },
		{ "0x410fd493\n", "neoverse-n2-r0p3" },
		{ "0x6d0fd490\n", "neoverse-n2" },
		/* Azure Cobalt 100 follows the N2's revisions: its r0p3 counts
		 * slots the way an Arm r0p3 does (Arm's mapping, 0x6d0fd493). */
		{ "0x6d0fd492\n", "neoverse-n2" },
		{ "0x6d0fd493\n", "neoverse-n2-r0p3" },
		{ "0x410fd8e0\n", "neoverse-n3" },
		{ "0x410fd840\n", "neoverse-v3" },
		{ "0x410fd830\n", "neoverse-v3" }, /* V3AE: Arm maps it to the V3 metrics */
		{ "0x411fd401\n", "neoverse-v1" },
		{ "0x410fd0c0\n", "neoverse-n1" },
		{ "0x410fd080\n", "perf-generic" }, /* Cortex-A72: no top-down set */
	};
	for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
		ops->close(F.state);
		F.state = NULL;
		fake_perf_set_file(&F.k, "/sys/devices/system/cpu/cpu0/regs/identification/midr_el1",
		                   sets[i].midr);
		assert_int_equal(open_with(""), GPA_STATUS_OK);
		assert_string_equal(F.info.counter_sets[0], sets[i].set);
	}
	assert_string_equal(F.info.description, "CPU implementer 0x41 part 0xd08");
	ops->close(F.state);
	F.state = NULL;
	fake_perf_set_file(&F.k, "/sys/devices/system/cpu/cpu0/regs/identification/midr_el1",
	                   "0x6d0fd493\n");
	assert_int_equal(open_with(""), GPA_STATUS_OK);
	assert_string_equal(F.info.description, "Microsoft Azure Cobalt 100 (Neoverse-N2) r0p3");
}

static void test_no_cpuinfo(void **unused)
{
	(void)unused;
	fake_perf_set_file(&F.k, "/proc/cpuinfo", NULL);
	fake_perf_set_file(&F.k, "/sys/devices/system/cpu/online", NULL);
	assert_int_equal(open_with(""), GPA_STATUS_OK);
	assert_string_equal(F.info.description, "Unknown CPU");
	double v;
	assert_int_equal(ops->constant(F.state, "NumCPUs", &v), GPA_STATUS_ERROR_NOT_FOUND);
}

static void test_no_perf_in_kernel(void **unused)
{
	(void)unused;
	F.k.open_fail_errno = ENOSYS;
	assert_int_equal(open_with(""), GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED);
	assert_logged("CONFIG_PERF_EVENTS");
}

#define PMU "/sys/bus/event_source/devices/"

static void add_fake_pmus(void)
{
	fake_perf_set_file(&F.k, PMU "cpu/type", "4\n");
	fake_perf_set_file(&F.k, PMU "cpu/format/event", "config:0-7\n");
	fake_perf_set_file(&F.k, PMU "cpu/format/umask", "config:8-15\n");
	fake_perf_set_file(&F.k, PMU "cpu/format/inv", "config:23\n");
	fake_perf_set_file(&F.k, PMU "cpu/format/cmask", "config:24-31\n");
	fake_perf_set_file(&F.k, PMU "cpu/format/split", "config1:1,6-10,44\n");
	fake_perf_set_file(&F.k, PMU "cpu/format/odd", "config3:0-3\n");
	fake_perf_set_file(&F.k, PMU "cpu/events/branch-misses", "event=0xc5\n");
	fake_perf_set_file(&F.k, PMU "cpu/events/mem-loads", "event=0xcd,umask=0x1,ldlat=?\n");
	fake_perf_set_file(&F.k, PMU "cpu/events/branch-misses.scale", "1\n");
	fake_perf_set_file(&F.k, PMU "msr/type", "9\n");
	fake_perf_set_file(&F.k, PMU "msr/format/event", "config:0-63\n");
	fake_perf_set_file(&F.k, PMU "msr/events/tsc", "event=0x00\n");
}

static uint64_t bound_config(uint32_t id, int field)
{
	const struct og_perf_state *st = F.state;
	const struct og_perf_bound *b = &st->bound[id];
	return field == 0 ? b->config : field == 1 ? b->config1 : b->type;
}

static void test_pmu_sources(void **unused)
{
	(void)unused;
	F.k.pmu = true;
	F.k.hw_slots = 4;
	add_fake_pmus();
	assert_int_equal(open_with(""), GPA_STATUS_OK);
	uint32_t id = bind("cpu/event=0x3c,umask=0x1,inv,cmask=0x3/");
	assert_int_equal(bound_config(id, 2), 4);
	assert_int_equal(bound_config(id, 0), 0x3c | 0x1 << 8 | 1u << 23 | 3u << 24);
	id = bind("cpu/split=0x7f/");
	assert_int_equal(bound_config(id, 1), 1u << 1 | 0x1fu << 6 | 1ull << 44);
	id = bind("cpu/branch-misses/");
	assert_int_equal(bound_config(id, 0), 0xc5);
	id = bind("cpu/branch-misses,inv/"); /* an alias plus a term */
	assert_int_equal(bound_config(id, 0), 0xc5 | 1u << 23);
	id = bind("raw:0x11");
	assert_int_equal(bound_config(id, 2), PERF_TYPE_RAW);
	assert_int_equal(bound_config(id, 0), 0x11);

	const char *why = NULL;
	struct {
		const char *source, *log;
	} bad[] = {
		{ "cpu/mem-loads/", "needs a parameter" },
		{ "cpu/event=0x1ff/", "does not fit" },
		{ "cpu/bogus=1/", "no such format term" },
		{ "cpu/event=zz/", "not a number" },
		{ "cpu/odd=1/", "does not set" },
		{ "../etc/event=1/", "unknown source" },
		{ "cpu/../../x/", "not a term name" },
		{ "cpu/event=1", "unknown source" },
		{ "raw:eleven", "raw:0x11" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		assert_int_equal(ops->bind_raw(F.state, "X", bad[i].source, &id, &why),
		                 GPA_STATUS_ERROR_FAILED);
		assert_logged(bad[i].log);
	}
	assert_int_equal(ops->bind_raw(F.state, "X", "nopmu/event=1/", &id, &why),
	                 GPA_STATUS_ERROR_NOT_FOUND);
	assert_non_null(strstr(why, "no PMU of that name"));
	assert_int_equal(ops->bind_raw(F.state, "X", "cpu/no-such-alias/", &id, &why),
	                 GPA_STATUS_ERROR_NOT_FOUND);

	/* A PMU event counts in a pass like any other. */
	uint32_t ids[2] = { bind("cpu/event=0x3c/"), bind("msr/tsc/") };
	assert_int_equal(ops->begin_pass(F.state, ids, 2), GPA_STATUS_OK);
	struct fake_event *e = fake_perf_find(&F.k, 4, 0x3c);
	assert_non_null(e);
	assert_int_equal(e->leader, e - F.k.ev);
	assert_int_equal(ops->end_pass(F.state), GPA_STATUS_OK);
	/* msr is not the CPU PMU: it takes no counter of the budget. */
	uint32_t hw[5] = { bind("hw:cycles"), bind("hw:instructions"), bind("hw:branches"),
		           bind("hw:branch-misses"), bind("msr/tsc/") };
	assert_true(ops->fits(F.state, hw, 5));
	hw[4] = bind("raw:0x11");
	assert_false(ops->fits(F.state, hw, 5));
}

static void test_pmu_without_pmu(void **unused)
{
	(void)unused;
	add_fake_pmus();
	assert_int_equal(open_with(""), GPA_STATUS_OK);
	uint32_t id;
	const char *why = NULL;
	assert_int_equal(ops->bind_raw(F.state, "X", "raw:0x11", &id, &why),
	                 GPA_STATUS_ERROR_NOT_FOUND);
	assert_non_null(strstr(why, "no hardware PMU"));
}

static void test_catalogue(void **unused)
{
	(void)unused;
	F.k.pmu = true;
	F.k.hw_slots = 4;
	add_fake_pmus();
	assert_int_equal(open_with(""), GPA_STATUS_OK);
	size_t n = 0;
	const struct og_raw_desc *d = ops->extra_raw(F.state, &n);
	/* cpu/mem-loads needs a parameter and the .scale file is not an event. */
	assert_int_equal(n, 2);
	assert_string_equal(d[0].name, "sysfs_cpu_branch_misses");
	assert_string_equal(d[1].name, "sysfs_msr_tsc");
	assert_non_null(strstr(d[0].description, "branch-misses"));
	assert_int_equal(bound_config(d[0].raw_id, 0), 0xc5);
	/* Asked again: the same list, nothing bound twice. */
	size_t n2 = 0;
	assert_ptr_equal(ops->extra_raw(F.state, &n2), d);
	assert_int_equal(n2, 2);
	uint32_t ids[2] = { d[0].raw_id, d[1].raw_id };
	assert_int_equal(ops->begin_pass(F.state, ids, 2), GPA_STATUS_OK);
	assert_int_equal(ops->begin_sample(F.state), GPA_STATUS_OK);
	uint64_t v[2];
	assert_int_equal(ops->end_sample(F.state, v), GPA_STATUS_OK);
	assert_int_equal(ops->end_pass(F.state), GPA_STATUS_OK);
}

/* A plain open — the catalogue, every source of perf-generic.counters, a
 * pass and a sample — neither asks libpfm4 nor loads it (issue 29: its
 * table walked on every open cost ~6 ms).  dlopen(RTLD_NOLOAD) sees what the
 * process has loaded, so this runs first: no test before it names an event. */
static void test_plain_open_no_libpfm(void **unused)
{
	(void)unused;
	F.k.pmu = true;
	F.k.hw_slots = 8;
	add_fake_pmus();
	assert_int_equal(open_with(""), GPA_STATUS_OK);
	size_t n = 0;
	assert_non_null(ops->extra_raw(F.state, &n));
	static const char *const generic[] = {
		"sw:task-clock", "sw:cpu-clock", "sw:page-faults", "sw:minor-faults",
		"sw:major-faults", "sw:context-switches", "sw:cpu-migrations", "hw:cycles",
		"hw:instructions", "hw:branches", "hw:branch-misses", "hw:cache-references",
		"hw:cache-misses", "time:wall", "time:enabled", "time:running",
	};
	uint32_t ids[16];
	for (size_t i = 0; i < 16; i++)
		ids[i] = bind(generic[i]);
	assert_int_equal(ops->begin_pass(F.state, ids, 16), GPA_STATUS_OK);
	assert_int_equal(ops->begin_sample(F.state), GPA_STATUS_OK);
	uint64_t v[16];
	assert_int_equal(ops->end_sample(F.state, v), GPA_STATUS_OK);
	assert_int_equal(ops->end_pass(F.state), GPA_STATUS_OK);
	const struct og_perf_state *st = F.state;
	assert_false(st->pfm_asked);
	assert_int_equal(st->pfm_lookups, 0);
	void *pfm = dlopen("libpfm.so.4", RTLD_LAZY | RTLD_NOLOAD);
	if (pfm) {
		dlclose(pfm);
		fail_msg("libpfm.so.4 was loaded by a plain open");
	}
	/* A name is what loads it (where it is installed). */
	uint32_t id;
	const char *why = NULL;
	ops->bind_raw(F.state, "X", "INST_RETIRED:ANY_P", &id, &why);
	assert_true(st->pfm_asked);
}

static void test_catalogue_unlistable(void **unused)
{
	(void)unused;
	assert_int_equal(open_with(""), GPA_STATUS_OK);
	size_t n = 99;
	/* No /sys/bus/event_source/devices in this kernel: nothing offered, no error. */
	assert_non_null(ops->extra_raw(F.state, &n));
	assert_int_equal(n, 0);
	assert_int_equal(F.log.errors, 0);
}

/* ---- scopes ------------------------------------------------------------ */

/* The open leaders, in open order. */
static int leaders(struct fake_event **out, int max)
{
	int n = 0;
	for (int i = 0; i < F.k.nev && n < max; i++)
		if (F.k.ev[i].open && F.k.ev[i].leader == i)
			out[n++] = &F.k.ev[i];
	return n;
}

static void test_cpu_lists(void **unused)
{
	(void)unused;
	uint8_t m[OG_PERF_MAX_CPUS / 8];
	assert_true(og_perf_parse_cpus("0-3+6", m));
	assert_int_equal(m[0], 0x4f);
	assert_true(og_perf_parse_cpus("0,2-3", m));
	assert_int_equal(m[0], 0x0d);
	assert_true(og_perf_parse_cpus("0-1,4095\n", m)); /* sysfs style */
	assert_int_equal(m[0], 0x03);
	assert_int_equal(m[OG_PERF_MAX_CPUS / 8 - 1], 0x80);
	const char *bad[] = { "", "3-1", "0,", "4096", "a", "1-", "-1", "0--2", "1 2", "0+\n" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		if (og_perf_parse_cpus(bad[i], m))
			fail_msg("\"%s\" parsed as a CPU list", bad[i]);
}

static void test_scope_process_threads(void **unused)
{
	(void)unused;
	fake_perf_set_file(&F.k, "/proc/4242/task/4242/stat", "x");
	fake_perf_set_file(&F.k, "/proc/4242/task/4250/stat", "x");
	assert_int_equal(open_with(""), GPA_STATUS_OK);
	assert_int_equal(ops->set_option(F.state, "pid", "4242"), GPA_STATUS_OK);
	uint32_t ids[2] = { bind("sw:task-clock"), bind("sw:page-faults") };
	assert_int_equal(ops->begin_pass(F.state, ids, 2), GPA_STATUS_OK);
	struct fake_event *l[8];
	assert_int_equal(leaders(l, 8), 2); /* one group per thread */
	assert_int_equal(l[0]->pid, 4242);
	assert_int_equal(l[1]->pid, 4250);
	assert_true(l[0]->attr.inherit && l[1]->attr.inherit);
	assert_true(l[0]->enabled && l[1]->enabled);
	assert_int_equal(fake_perf_open_fds(&F.k), 4);
	assert_int_equal(ops->begin_sample(F.state), GPA_STATUS_OK);
	uint64_t d[2];
	assert_int_equal(ops->end_sample(F.state, d), GPA_STATUS_OK);
	/* Summed over the threads: each group ticked once per read. */
	assert_int_equal(d[0], 2 * F.k.time_step);
	struct fake_event *pf0 = &F.k.ev[l[0] - F.k.ev + 1], *pf1 = &F.k.ev[l[1] - F.k.ev + 1];
	assert_int_equal(pf0->attr.config, PERF_COUNT_SW_PAGE_FAULTS);
	assert_int_equal(d[1], pf0->step + pf1->step);
	assert_int_equal(ops->end_pass(F.state), GPA_STATUS_OK);
	assert_int_equal(fake_perf_open_fds(&F.k), 0);
	/* A process without threads to list is gone. */
	assert_int_equal(ops->set_option(F.state, "pid", "31337"), GPA_STATUS_OK);
	assert_int_equal(ops->begin_pass(F.state, ids, 2), GPA_STATUS_ERROR_FAILED);
	assert_logged("cannot list the threads of process 31337");
}

static void test_scope_thread(void **unused)
{
	(void)unused;
	assert_int_equal(open_with("tid=77"), GPA_STATUS_OK);
	uint32_t id = bind("sw:task-clock");
	assert_int_equal(ops->begin_pass(F.state, &id, 1), GPA_STATUS_OK);
	struct fake_event *l[4];
	assert_int_equal(leaders(l, 4), 1);
	assert_int_equal(l[0]->pid, 77);
	assert_int_equal(l[0]->cpu, -1);
	assert_false(l[0]->attr.inherit); /* one thread: not what it starts */
	assert_int_equal(ops->end_pass(F.state), GPA_STATUS_OK);
	F.k.open_fail_errno = ESRCH;
	assert_int_equal(ops->set_option(F.state, "tid", "78"), GPA_STATUS_ERROR_FAILED);
	assert_logged("no thread 78; check the tid= option");
}

static void test_scope_cpus(void **unused)
{
	(void)unused;
	/* The fake's online list is "0-3,6". */
	assert_int_equal(open_with("cpu=all"), GPA_STATUS_OK);
	uint32_t ids[3] = { bind("sw:cpu-clock"), bind("sw:context-switches"), bind("time:wall") };
	assert_int_equal(ops->begin_pass(F.state, ids, 3), GPA_STATUS_OK);
	struct fake_event *l[8];
	assert_int_equal(leaders(l, 8), 5);
	const int want[] = { 0, 1, 2, 3, 6 };
	for (int i = 0; i < 5; i++) {
		assert_int_equal(l[i]->cpu, want[i]);
		assert_int_equal(l[i]->pid, -1);
		assert_false(l[i]->attr.inherit);
	}
	assert_int_equal(ops->begin_sample(F.state), GPA_STATUS_OK);
	uint64_t d[3];
	assert_int_equal(ops->end_sample(F.state, d), GPA_STATUS_OK);
	uint64_t cs = 0;
	for (int i = 0; i < 5; i++)
		cs += F.k.ev[l[i] - F.k.ev + 1].step;
	assert_int_equal(d[1], cs);
	assert_true(d[2] > 0); /* wall clock, not summed */
	assert_int_equal(ops->end_pass(F.state), GPA_STATUS_OK);

	/* A list: offline CPUs of it are left out... */
	assert_int_equal(ops->set_option(F.state, "cpu", "2-5"), GPA_STATUS_OK);
	assert_int_equal(ops->begin_pass(F.state, ids, 3), GPA_STATUS_OK);
	assert_int_equal(leaders(l, 8), 2);
	assert_int_equal(l[0]->cpu, 2);
	assert_int_equal(l[1]->cpu, 3);
	assert_int_equal(ops->end_pass(F.state), GPA_STATUS_OK);
	/* ...and a list of offline CPUs only is an error. */
	assert_int_equal(ops->set_option(F.state, "cpu", "4+5"), GPA_STATUS_OK);
	assert_int_equal(ops->begin_pass(F.state, ids, 3), GPA_STATUS_ERROR_FAILED);
	assert_logged("none of CPUs 4+5 is online");
	/* A CPU that goes offline between the listing and the open. */
	assert_int_equal(ops->set_option(F.state, "cpu", "all"), GPA_STATUS_OK);
	F.k.offline_cpus = 1u << 3;
	assert_int_equal(ops->begin_pass(F.state, ids, 3), GPA_STATUS_ERROR_FAILED);
	assert_logged("on CPU 3: ENODEV: the CPU is offline");
	assert_int_equal(fake_perf_open_fds(&F.k), 0);
}

/* A count summed over CPUs (or threads) saturates at 2^64 - 1 rather than
 * wrapping: five CPUs that each counted 2^62 make 5 * 2^62, past 64 bits;
 * 3 * 2^60 each still fits exactly. */
static void test_scope_cpus_sum_saturates(void **unused)
{
	(void)unused;
	assert_int_equal(open_with("cpu=all"), GPA_STATUS_OK);
	uint32_t id = bind("sw:context-switches");
	assert_int_equal(ops->begin_pass(F.state, &id, 1), GPA_STATUS_OK);
	struct fake_event *l[8];
	assert_int_equal(leaders(l, 8), 5);
	const uint64_t steps[] = { 3ull << 60, 1ull << 62 };
	const uint64_t want[] = { 15ull << 60, UINT64_MAX };
	for (int k = 0; k < 2; k++) {
		for (int i = 0; i < 5; i++)
			l[i]->step = steps[k];
		assert_int_equal(ops->begin_sample(F.state), GPA_STATUS_OK);
		uint64_t d = 0;
		assert_int_equal(ops->end_sample(F.state, &d), GPA_STATUS_OK);
		if (d != want[k])
			fail_msg("five CPUs of %llu each summed to %llu, want %llu",
			         (unsigned long long)steps[k], (unsigned long long)d,
			         (unsigned long long)want[k]);
	}
	assert_int_equal(ops->end_pass(F.state), GPA_STATUS_OK);
}

static void test_scope_cpus_unprivileged(void **unused)
{
	(void)unused;
	F.k.eacces_cpu = true;
	assert_int_equal(open_with("cpu=all"), GPA_STATUS_ERROR_FAILED);
	assert_logged("is 2, too high to count CPUs all");
	assert_logged("kernel.perf_event_paranoid=0");
	/* Set later, it is refused at once and the old scope stays. */
	assert_int_equal(open_with(""), GPA_STATUS_OK);
	assert_int_equal(ops->set_option(F.state, "cpu", "0"), GPA_STATUS_ERROR_FAILED);
	uint32_t id = bind("sw:task-clock");
	assert_int_equal(ops->begin_pass(F.state, &id, 1), GPA_STATUS_OK);
	struct fake_event *l[2];
	assert_int_equal(leaders(l, 2), 1);
	assert_int_equal(l[0]->pid, 0);
	assert_int_equal(ops->end_pass(F.state), GPA_STATUS_OK);
}

static void test_cpu_goes_offline(void **unused)
{
	(void)unused;
	assert_int_equal(open_with("cpu=0-2"), GPA_STATUS_OK);
	uint32_t id = bind("sw:cpu-clock");
	assert_int_equal(ops->begin_pass(F.state, &id, 1), GPA_STATUS_OK);
	assert_int_equal(ops->begin_sample(F.state), GPA_STATUS_OK);
	F.k.stopped_cpu = 1;
	uint64_t d;
	assert_int_equal(ops->end_sample(F.state, &d), GPA_STATUS_OK);
	assert_logged("CPU 1 stopped counting during the sample");
	struct fake_event *l[4];
	assert_int_equal(leaders(l, 4), 3);
	assert_int_equal(d, l[0]->step + l[2]->step); /* CPUs 0 and 2 */
	assert_int_equal(ops->end_pass(F.state), GPA_STATUS_OK);
}

/* ---- multiplexing ------------------------------------------------------ */

static void test_multiplexed_groups(void **unused)
{
	(void)unused;
	F.k.pmu = true;
	F.k.hw_slots = 2;
	assert_int_equal(open_with(""), GPA_STATUS_OK);
	uint32_t ids[5] = { bind("hw:cycles"), bind("hw:instructions"), bind("hw:branches"),
		            bind("hw:branch-misses"), bind("time:running") };
	size_t sizes[2] = { 2, 3 };
	assert_int_equal(ops->begin_multiplexed_pass(F.state, ids, 5, sizes, 2), GPA_STATUS_OK);
	struct fake_event *l[4];
	assert_int_equal(leaders(l, 4), 2);
	assert_int_equal(l[0]->attr.config, PERF_COUNT_HW_CPU_CYCLES);
	assert_int_equal(l[1]->attr.config, PERF_COUNT_HW_BRANCH_INSTRUCTIONS);
	F.k.running_permille = 250;
	assert_int_equal(ops->begin_sample(F.state), GPA_STATUS_OK);
	uint64_t d[5];
	assert_int_equal(ops->end_sample(F.state, d), GPA_STATUS_OK);
	/* Each group ran a quarter of the time: counts scaled by 4. */
	assert_int_equal(d[0], 4 * l[0]->step);
	assert_int_equal(d[2], 4 * l[1]->step);
	assert_int_equal(d[4], F.k.time_step / 4); /* time:running of its own group */
	assert_true(ops->sample_coverage(F.state) > 0.2499 &&
	            ops->sample_coverage(F.state) < 0.2501);
	assert_logged("ran 25.0% of the sample");
	/* A group that never got on the PMU: the sample fails and says why. */
	F.k.starve_group = l[1]->group_no;
	assert_int_equal(ops->begin_sample(F.state), GPA_STATUS_OK);
	assert_int_equal(ops->end_sample(F.state, d), GPA_STATUS_ERROR_READING_COUNTER_RESULT);
	assert_logged("event group 1 never got on the PMU");
	assert_logged("perf_event_mux_interval_ms");
	assert_int_equal(ops->end_pass(F.state), GPA_STATUS_OK);

	/* Groups that would not fit, and sizes that do not add up. */
	size_t big[2] = { 3, 2 };
	assert_int_equal(ops->begin_multiplexed_pass(F.state, ids, 5, big, 2),
	                 GPA_STATUS_ERROR_FAILED);
	assert_logged("do not fit one group");
	size_t short_sizes[2] = { 2, 2 };
	assert_int_equal(ops->begin_multiplexed_pass(F.state, ids, 5, short_sizes, 2),
	                 GPA_STATUS_ERROR_FAILED);
	assert_logged("add up to 4, not the pass's 5");
	size_t over[2] = { 2, 9 };
	assert_int_equal(ops->begin_multiplexed_pass(F.state, ids, 5, over, 2),
	                 GPA_STATUS_ERROR_FAILED);
	assert_int_equal(fake_perf_open_fds(&F.k), 0);
}

/* ---- user-space reads ---------------------------------------------------- */

static bool trapping_pmc(void *ctx, uint32_t index, uint64_t *value)
{
	(void)ctx, (void)index, (void)value;
	raise(SIGILL); /* mrs of a PMU register that EL0 may not read */
	return true;
}

/* One pass of cycles and instructions on the calling thread, whose pages
 * offer user reads; returns the log's verdict and checks the counts. */
static void user_reads_with(bool (*read_pmc)(void *, uint32_t, uint64_t *), const char *what)
{
	F.k.pmu = true;
	F.k.hw_slots = 4;
	F.k.user_pages = true;
	F.k.sys.read_pmc = read_pmc;
	assert_int_equal(open_with(""), GPA_STATUS_OK);
	uint32_t ids[2] = { bind("hw:cycles"), bind("hw:instructions") };
	assert_int_equal(ops->begin_pass(F.state, ids, 2), GPA_STATUS_OK);
	const struct og_perf_state *st = F.state;
	bool user = st->pass->instances[0].pages != NULL;
	print_message("%s: snapshots by %s%s%s\n", what, user ? "user-space reads" : "read()",
	              user ? "" : ": the register is not readable, ",
	              user ? "" : st->user_reads_why);
	if (!user) {
		/* The probe's child took the signal; the counts come from read(). */
		int reads = F.k.reads;
		assert_int_equal(ops->begin_sample(F.state), GPA_STATUS_OK);
		uint64_t d[2];
		assert_int_equal(ops->end_sample(F.state, d), GPA_STATUS_OK);
		assert_int_equal(F.k.reads, reads + 2);
		assert_true(d[0] > 0 && d[1] > 0);
		assert_non_null(strstr(F.log.all, "not readable"));
	}
	assert_int_equal(ops->end_pass(F.state), GPA_STATUS_OK);
}

static volatile sig_atomic_t own_sigill;

static void own_sigill_handler(int sig)
{
	(void)sig;
	own_sigill = 1;
}

/* The kernel offers user reads but the CPU traps them: no signal reaches
 * the program (its own handler stays and never runs), snapshots use read(). */
static void test_user_reads_that_trap(void **unused)
{
	(void)unused;
	struct sigaction mine = { .sa_handler = own_sigill_handler }, before, after;
	sigemptyset(&mine.sa_mask);
	assert_int_equal(sigaction(SIGILL, &mine, &before), 0);
	own_sigill = 0;
	user_reads_with(trapping_pmc, "a trapping register");
	const struct og_perf_state *st = F.state;
	assert_int_equal(st->user_reads, -1);
	assert_non_null(strstr(st->user_reads_why, "SIGILL"));
	assert_int_equal(own_sigill, 0);
	assert_int_equal(sigaction(SIGILL, NULL, &after), 0);
	assert_ptr_equal(after.sa_handler, own_sigill_handler);
	sigaction(SIGILL, &before, NULL);
}

/* This CPU's own instruction (aarch64: mrs PMEVCNTR<n>_EL0; x86: rdpmc)
 * behind the simulated page: under qemu-aarch64 it traps, natively it
 * faults unless the kernel enabled user reads.  Which path ran is said. */
static void test_user_reads_real_register(void **unused)
{
	(void)unused;
	if (!og_sys_real()->read_pmc) {
		print_message("this architecture has no user-space counter read\n");
		skip();
	}
	user_reads_with(og_sys_real()->read_pmc, "this CPU's register");
}


static void test_user_reads(void **unused)
{
	(void)unused;
	F.k.pmu = true;
	F.k.hw_slots = 4;
	F.k.user_pages = true;
	assert_int_equal(open_with(""), GPA_STATUS_OK);
	uint32_t ids[2] = { bind("hw:cycles"), bind("hw:instructions") };
	assert_int_equal(ops->begin_pass(F.state, ids, 2), GPA_STATUS_OK);
	assert_int_equal(F.k.pages_mapped, 2);
	struct fake_event *l[2];
	assert_int_equal(leaders(l, 2), 1);
	struct fake_event *cyc = l[0], *ins = l[0] + 1;

	/* Snapshots without a system call, across the counter's wrap. */
	int reads = F.k.reads;
	assert_int_equal(ops->begin_sample(F.state), GPA_STATUS_OK);
	for (int i = 0; i < 40; i++)
		fake_perf_tick_all(&F.k);
	uint64_t d[2];
	assert_int_equal(ops->end_sample(F.state, d), GPA_STATUS_OK);
	assert_int_equal(F.k.reads, reads);
	assert_true(F.k.pmc_reads >= 4);
	assert_int_equal(d[0], 40 * cyc->step);
	assert_int_equal(d[1], 40 * ins->step);
	assert_true(cyc->value > 100); /* the fake counter started 100 below its wrap */

	/* Both paths give the same numbers: a read() snapshot, then a user
	 * one with nothing counted in between. */
	struct og_perf_state *st = F.state;
	struct og_perf_instance *in = &st->pass->instances[0];
	struct og_perf_user_page *pages = in->pages;
	assert_non_null(pages);
	in->pages = NULL;
	assert_int_equal(og_perf_pass_read(st, false), GPA_STATUS_OK);
	in->pages = pages;
	assert_int_equal(og_perf_pass_read(st, true), GPA_STATUS_OK);
	assert_int_equal(F.k.reads, reads + 1);
	const uint64_t *b = st->pass->snap[0] + in->snap, *e = st->pass->snap[1] + in->snap;
	for (int m = 0; m < 2; m++)
		assert_int_equal(b[OG_PERF_SNAP_VALUE(m)], e[OG_PERF_SNAP_VALUE(m)]);
	assert_int_equal(b[OG_PERF_SNAP_ENABLED], e[OG_PERF_SNAP_ENABLED]);
	assert_int_equal(b[OG_PERF_SNAP_RUNNING], e[OG_PERF_SNAP_RUNNING]);

	/* A seqlock that never settles: that snapshot is a read(). */
	assert_int_equal(ops->begin_sample(F.state), GPA_STATUS_OK);
	fake_perf_tick_all(&F.k);
	((struct perf_event_mmap_page *)pages[1].page)->lock = 1;
	assert_int_equal(ops->end_sample(F.state, d), GPA_STATUS_OK);
	assert_int_equal(F.k.reads, reads + 2);
	assert_int_equal(d[0], 2 * cyc->step); /* the tick, and the read's own */
	assert_int_equal(ops->end_pass(F.state), GPA_STATUS_OK);
	assert_int_equal(F.k.pages_unmapped, 2);

	/* Software events have no counter to read: no pages at all. */
	uint32_t sw = bind("sw:task-clock");
	assert_int_equal(ops->begin_pass(F.state, &sw, 1), GPA_STATUS_OK);
	assert_int_equal(F.k.pages_mapped, 2);
	assert_int_equal(ops->end_pass(F.state), GPA_STATUS_OK);
	/* Nor in a scope other than the calling thread. */
	assert_int_equal(ops->set_option(F.state, "tid", "99"), GPA_STATUS_OK);
	assert_int_equal(ops->begin_pass(F.state, ids, 2), GPA_STATUS_OK);
	assert_int_equal(F.k.pages_mapped, 2);
	assert_int_equal(ops->end_pass(F.state), GPA_STATUS_OK);
}

#define T(f) cmocka_unit_test_setup_teardown(f, setup, teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_plain_open_no_libpfm), /* first: it checks what is loaded */
		T(test_no_pmu_software_only),
		T(test_sample_deltas),
		T(test_odd_pass_words_aligned),
		T(test_time_only_pass),
		T(test_eacces_paranoid),
		T(test_eacces_paranoid_unreadable),
		T(test_user_only_fallback),
		T(test_enoent),
		T(test_eopnotsupp),
		T(test_emfile),
		T(test_ebusy),
		T(test_eacces_in_pass),
		T(test_probe_opens_one_software_event),
		T(test_probe_refuses_one_event),
		T(test_probe_trusts_the_highest_id),
		T(test_short_read),
		T(test_wrong_nr),
		T(test_long_read),
		T(test_oversize_read),
		T(test_unknown_id),
		T(test_duplicate_id),
		T(test_zero_read),
		T(test_read_errno),
		T(test_read_eintr),
	T(test_members_out_of_order),
	T(test_backwards),
		T(test_duplicate_ioc_id),
		T(test_multiplexed_scaled),
		T(test_running_past_enabled),
		T(test_multiplexed_scaled_past_64_bits),
		T(test_never_scheduled),
		T(test_slots_einval),
		T(test_slots_not_running),
		T(test_planning_with_slots),
		T(test_pmu_without_free_counter),
		T(test_pid_exec_option),
		T(test_bad_options),
		T(test_arm_midr),
		T(test_no_cpuinfo),
		T(test_no_perf_in_kernel),
		T(test_pmu_sources),
		T(test_pmu_without_pmu),
		T(test_catalogue),
		T(test_cpu_lists),
		T(test_scope_process_threads),
		T(test_scope_thread),
		T(test_scope_cpus),
		T(test_scope_cpus_sum_saturates),
		T(test_scope_cpus_unprivileged),
		T(test_cpu_goes_offline),
		T(test_multiplexed_groups),
		T(test_user_reads),
		T(test_user_reads_that_trap),
		T(test_user_reads_real_register),
		T(test_catalogue_unlistable),
	};
	return cmocka_run_group_tests_name("perf-sim", tests, NULL, NULL);
}
