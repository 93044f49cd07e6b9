/* SPDX-License-Identifier: MIT */
/* test_perf_thread.c — per-thread sources ("SOURCE@tid=N",
 * backends/perf/perf_thread.c) against the simulated kernel: each thread's
 * share of a process's sum, its own running time, the sources refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

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

static uint32_t bind(const char *source)
{
	uint32_t id = UINT32_MAX;
	const char *why = NULL;
	assert_int_equal(ops->bind_raw(F.state, "X", source, &id, &why), GPA_STATUS_OK);
	return id;
}

/* The source without the suffix, its thread, and the sources refused. */
static void test_split(void **unused)
{
	(void)unused;
	char plain[OG_PERF_SOURCE_MAX];
	pid_t tid = -1;
	assert_int_equal(og_perf_thread_split("sw:task-clock", plain, sizeof plain, &tid), 0);
	assert_int_equal(tid, 0);
	assert_int_equal(og_perf_thread_split("sw:task-clock@tid=4250", plain, sizeof plain, &tid),
	                 1);
	assert_string_equal(plain, "sw:task-clock");
	assert_int_equal(tid, 4250);
	assert_int_equal(og_perf_thread_split("time:running@tid=7", plain, sizeof plain, &tid), 1);
	assert_string_equal(plain, "time:running");
	const char *bad[] = { "sw:task-clock@tid=", "sw:task-clock@tid=0", "sw:x@tid=-3",
	                      "sw:x@tid=12a", "sw:x@tid=+5", "sw:x@tid=99999999999",
	                      "time:wall@tid=5", "raw:0x1b@tid=5", "spe:x@tid=5", "@tid=5",
	                      "L1D_TLB_REFILL@tid=5" };
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		if (og_perf_thread_split(bad[i], plain, sizeof plain, &tid) != -1)
			fail_msg("\"%s\" split as a per-thread source", bad[i]);
	/* Too long for plain: refused, nothing written past it. */
	char tiny[4];
	assert_int_equal(og_perf_thread_split("sw:task-clock@tid=5", tiny, sizeof tiny, &tid), -1);
}

/* A process of two threads: the sum is both, each thread's source its own
 * group's share; a thread that is no target reads 0, running time too. */
static void test_shares(void **unused)
{
	(void)unused;
	fake_perf_set_file(&F.k, "/proc/4242/task/4242/stat", "x");
	fake_perf_set_file(&F.k, "/proc/4242/task/4250/stat", "x");
	assert_int_equal(ops->open(&F.host, "", &F.state, &F.info), GPA_STATUS_OK);
	assert_int_equal(ops->set_option(F.state, "pid", "4242"), GPA_STATUS_OK);
	uint32_t ids[6] = { bind("sw:page-faults"), bind("sw:page-faults@tid=4242"),
	                    bind("sw:faults@tid=4250"), bind("sw:page-faults@tid=4299"),
	                    bind("time:running@tid=4250"), bind("time:running@tid=4299") };
	/* Each thread's source is an id of its own; aliases still share one. */
	assert_int_not_equal(ids[0], ids[1]);
	assert_int_not_equal(ids[1], ids[2]);
	assert_int_equal(bind("sw:faults@tid=4242"), ids[1]);
	assert_int_equal(ops->begin_pass(F.state, ids, 6), GPA_STATUS_OK);
	assert_int_equal(ops->begin_sample(F.state), GPA_STATUS_OK);
	uint64_t d[6];
	assert_int_equal(ops->end_sample(F.state, d), GPA_STATUS_OK);
	/* The page-fault events of each thread's group, in member order: the
	 * sum's, then the per-thread sources' (each its own step in the fake). */
	uint64_t step[2][5] = { { 0 } };
	size_t n[2] = { 0, 0 };
	for (int i = 0; i < F.k.nev; i++) {
		const struct fake_event *e = &F.k.ev[i];
		size_t t = e->pid == 4242 ? 0 : 1;
		if ((e->pid == 4242 || e->pid == 4250) && e->attr.type == PERF_TYPE_SOFTWARE &&
		    e->attr.config == PERF_COUNT_SW_PAGE_FAULTS && n[t] < 5)
			step[t][n[t]++] = e->step;
	}
	/* Every source is a member of every thread's group: sum, @4242, @4250,
	 * @4299. */
	assert_int_equal(n[0], 4);
	assert_int_equal(n[1], 4);
	assert_int_equal(d[0], step[0][0] + step[1][0]);
	assert_int_equal(d[1], step[0][1]);  /* thread 4242's group only */
	assert_int_equal(d[2], step[1][2]);  /* thread 4250's group only */
	assert_true(d[1] > 0 && d[2] > 0);
	assert_int_equal(d[3], 0); /* no such thread among the targets */
	assert_true(d[4] > 0);
	assert_int_equal(d[5], 0);
	assert_int_equal(ops->end_pass(F.state), GPA_STATUS_OK);
}

/* One target (-t, or a process of one thread): the fast path of a single
 * target still keeps another thread's source at 0. */
static void test_single_target(void **unused)
{
	(void)unused;
	assert_int_equal(ops->open(&F.host, "tid=77", &F.state, &F.info), GPA_STATUS_OK);
	uint32_t ids[3] = { bind("sw:task-clock"), bind("sw:task-clock@tid=77"),
	                    bind("sw:task-clock@tid=78") };
	assert_int_equal(ops->begin_pass(F.state, ids, 3), GPA_STATUS_OK);
	assert_int_equal(ops->begin_sample(F.state), GPA_STATUS_OK);
	uint64_t d[3];
	assert_int_equal(ops->end_sample(F.state, d), GPA_STATUS_OK);
	assert_true(d[0] > 0);
	assert_int_equal(d[1], d[0]);
	assert_int_equal(d[2], 0);
	assert_int_equal(ops->end_pass(F.state), GPA_STATUS_OK);
}

static void test_bad_source_logged(void **unused)
{
	(void)unused;
	assert_int_equal(ops->open(&F.host, "", &F.state, &F.info), GPA_STATUS_OK);
	uint32_t id;
	const char *why = NULL;
	assert_int_equal(ops->bind_raw(F.state, "T", "time:wall@tid=5", &id, &why),
	                 GPA_STATUS_ERROR_FAILED);
	if (!strstr(F.log.all, "is no per-thread source"))
		fail_msg("log lacks the reason; log was:\n%s", F.log.all);
}

int main(void)
{
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split),
		T(test_shares),
		T(test_single_target),
		T(test_bad_source_logged),
	};
	return cmocka_run_group_tests_name("perf-thread", tests, NULL, NULL);
}
