/* SPDX-License-Identifier: MIT */
/*
 * bench_periodic.c — what a periodic sample costs, per backend, against a
 * hand-written loop that reads the same kernel interface every period, and
 * how short a period each backend keeps up with (results and the command in
 * docs/performance.md):
 *
 *   perf   real kernel: 4 software events of the calling thread; the raw
 *          loop read()s the same group by hand.
 *   mali   the virtual Mali-G71 (in-process): kernel-timed SET_INTERVAL;
 *          the raw loop sets the interval on a reader of its own and drains
 *          the ring (poll, GET_BUFFER, a copy of the dump, PUT_BUFFER).
 *   mips   the virtual 34K (in-process): the raw loop opens, reads and
 *          closes /proc/perf.
 *
 * Cost: process CPU time (every thread, the virtual devices' own work
 * included on both sides) per sample, the raw loop and the periodic session
 * alternating at the same period, best round of each.  Rate: periodic
 * sessions at shorter and shorter periods; a period is lost when the sample
 * that should have been its own covers it too (LATE, OVERFLOW).  First, the
 * machine itself: how late a bare clock_nanosleep loop wakes, which bounds
 * any timer thread.
 *
 *   bench-periodic [SECONDS_PER_RUN]
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "GPUPerfAPI.h"
#include "core/testing.h"
#include "opengpa.h"
#include "raw_group.h"
#include "v34k.h"
#include "vmali.h"
#include "vmali_testlib.h"

#define ROUNDS 5
#define COST_PERIOD_NS 1000000u

static uint64_t clock_ns(clockid_t id)
{
	struct timespec t;
	clock_gettime(id, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* ---- the machine ------------------------------------------------------------ */

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* A bare periodic sleep on absolute deadlines: how late it wakes. */
static void wakeups(uint64_t period, double seconds)
{
	size_t n = (size_t)(seconds * 1e9 / (double)period), late = 0;
	uint64_t *lateness = calloc(n + 1, sizeof *lateness);
	if (!lateness || !n) {
		free(lateness);
		return;
	}
	uint64_t due = clock_ns(CLOCK_MONOTONIC);
	for (size_t i = 0; i < n; i++) {
		due += period;
		struct timespec t = { (time_t)(due / 1000000000u), (long)(due % 1000000000u) };
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) == EINTR)
			;
		uint64_t woke = clock_ns(CLOCK_MONOTONIC);
		lateness[i] = woke - due;
		late += lateness[i] > period / 2;
		if (woke > due + period) /* stay on the grid, as the core does */
			due = woke - (woke - due) % period;
	}
	qsort(lateness, n, sizeof *lateness, cmp_u64);
	printf("machine: a bare clock_nanosleep loop every %.3f ms wakes late by %.0f us (median), "
	       "%.0f us (99th percentile), %.0f us (worst); over half a period %zu times in %zu\n",
	       period / 1e6, lateness[n / 2] / 1e3, lateness[n * 99 / 100] / 1e3,
	       lateness[n - 1] / 1e3, late, n);
	free(lateness);
}

/* ---- the raw loops -------------------------------------------------------- */

struct raw {
	int (*open)(struct raw *r, uint64_t period);
	int (*read)(struct raw *r); /* samples read, or -1 */
	void (*close)(struct raw *r);
	const struct og_sys *sys;
	int fd, fds[4], kfd;
	struct tl_reader reader;
	uint8_t dump[65536];
	char text[4096];
};

/* The main thread's events, read from another thread, as the periodic
 * session does. */
static int perf_raw_open(struct raw *r, uint64_t period)
{
	(void)period;
	return raw_group_open(r->fds) ? -1 : 0;
}

static int perf_raw_read(struct raw *r)
{
	uint64_t buf[RAW_GROUP_READ_WORDS];
	return read(r->fds[0], buf, sizeof buf) == (ssize_t)sizeof buf ? 1 : -1;
}

static void perf_raw_close(struct raw *r)
{
	raw_group_close(r->fds);
}

static int mali_raw_open(struct raw *r, uint64_t period)
{
	r->kfd = tl_open_kbase(r->sys);
	if (r->kfd < 0 || tl_reader_open(r->sys, r->kfd, 32, NULL, &r->reader) != 0)
		return -1;
	return tl_ioctl(r->sys, r->reader.fd, VMALI_READER_SET_INTERVAL,
	                (void *)(uintptr_t)period) < 0 ? -1 : 0;
}

/* Everything the kernel has finished: the dump copied out, handed back. */
static int mali_raw_read(struct raw *r)
{
	int n = 0;
	for (;;) {
		struct pollfd p = { r->reader.fd, POLLIN, 0 };
		if (r->sys->poll(r->sys->ctx, &p, 1, 0) <= 0)
			return n;
		struct vmali_reader_metadata md;
		if (tl_ioctl(r->sys, r->reader.fd, VMALI_READER_GET_BUFFER_WITH_CYCLES, &md) < 0)
			return n;
		if (md.buffer_idx < r->reader.count && r->reader.size <= sizeof r->dump)
			memcpy(r->dump, r->reader.ring + (size_t)md.buffer_idx * r->reader.size,
			       r->reader.size);
		if (tl_ioctl(r->sys, r->reader.fd, VMALI_READER_PUT_BUFFER_WITH_CYCLES, &md) < 0)
			return -1;
		n++;
	}
}

static void mali_raw_close(struct raw *r)
{
	tl_ioctl(r->sys, r->reader.fd, VMALI_READER_SET_INTERVAL, (void *)(uintptr_t)0);
	tl_reader_close(r->sys, &r->reader);
	r->sys->close(r->sys->ctx, r->kfd);
}

static int mips_raw_open(struct raw *r, uint64_t period)
{
	(void)period;
	(void)r;
	return 0;
}

static int mips_raw_read(struct raw *r)
{
	int fd = r->sys->open(r->sys->ctx, "/proc/perf", O_RDONLY, 0);
	if (fd < 0)
		return -1;
	ssize_t n = r->sys->read(r->sys->ctx, fd, r->text, sizeof r->text - 1);
	r->sys->close(r->sys->ctx, fd);
	return n > 0 ? 1 : -1;
}

static void mips_raw_close(struct raw *r)
{
	(void)r;
}

struct raw_run {
	struct raw *r;
	uint64_t period, until, samples;
	int failed;
};

/* A hand-written periodic reader: absolute deadlines, one read each. */
static void *raw_thread(void *arg)
{
	struct raw_run *run = arg;
	uint64_t due = clock_ns(CLOCK_MONOTONIC);
	while (due < run->until) {
		due += run->period;
		struct timespec t = { (time_t)(due / 1000000000u), (long)(due % 1000000000u) };
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) == EINTR)
			;
		int n = run->r->read(run->r);
		if (n < 0) {
			run->failed = 1;
			break;
		}
		run->samples += (uint64_t)n;
	}
	return NULL;
}

/* CPU ns per sample of the raw loop at `period` for `seconds`. */
static double raw_cost(struct raw *r, uint64_t period, double seconds)
{
	if (r->open(r, period) != 0)
		return -1;
	struct raw_run run = { r, period, 0, 0, 0 };
	uint64_t cpu = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	run.until = clock_ns(CLOCK_MONOTONIC) + (uint64_t)(seconds * 1e9);
	pthread_t t;
	pthread_create(&t, NULL, raw_thread, &run);
	pthread_join(t, NULL);
	cpu = clock_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu;
	r->close(r);
	return run.failed || !run.samples ? -1 : (double)cpu / (double)run.samples;
}

/* ---- periodic sessions ---------------------------------------------------- */

struct periodic_result {
	double cpu_per_sample;
	uint32_t samples;
	uint64_t periods, lost; /* periods the run spanned, periods without their own sample */
};

static int periodic_run(uint64_t period, double seconds, struct periodic_result *res)
{
	if (OpenGPA_SetSamplingPeriod(period) != GPA_STATUS_OK)
		return -1;
	gpa_uint32 session = 0;
	uint64_t cpu = clock_ns(CLOCK_PROCESS_CPUTIME_ID);
	if (GPA_BeginSession(&session) != GPA_STATUS_OK || GPA_BeginPass() != GPA_STATUS_OK)
		return -1;
	uint64_t until = clock_ns(CLOCK_MONOTONIC) + (uint64_t)(seconds * 1e9);
	struct timespec t = { (time_t)(until / 1000000000u), (long)(until % 1000000000u) };
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) == EINTR)
		;
	if (GPA_EndPass() != GPA_STATUS_OK || GPA_EndSession() != GPA_STATUS_OK)
		return -1;
	cpu = clock_ns(CLOCK_PROCESS_CPUTIME_ID) - cpu;
	*res = (struct periodic_result){ 0 };
	GPA_GetSampleCount(session, &res->samples);
	for (gpa_uint32 k = 0; k < res->samples; k++) {
		gpa_uint64 b = 0, e = 0;
		gpa_uint32 flags = 0;
		OpenGPA_GetSampleTime(session, k, &b, &e);
		OpenGPA_GetSampleFlags(session, k, &flags);
		uint64_t covers = (e - b + period / 2) / period;
		res->periods += covers ? covers : 1;
		if ((flags & (OPENGPA_SAMPLE_LATE | OPENGPA_SAMPLE_OVERFLOW)) && covers > 1)
			res->lost += covers - 1;
	}
	res->cpu_per_sample = res->samples ? (double)cpu / res->samples : -1;
	return 0;
}

/* ---- per backend ------------------------------------------------------------ */

struct target {
	const char *name, *backend, *options;
	const char *const *counters;
	struct raw raw;
	uint64_t floor;
};

static void quiet_log(GPA_Logging_Type type, const char *msg)
{
	if (type & GPA_LOGGING_ERROR)
		fprintf(stderr, "bench-periodic: %s\n", msg);
}

static int open_context(const struct target *t)
{
	static int key;
	if (OpenGPA_SetBackend(t->backend, t->options) != GPA_STATUS_OK ||
	    GPA_OpenContext(&key) != GPA_STATUS_OK)
		return -1;
	for (const char *const *c = t->counters; *c; c++)
		if (GPA_EnableCounterStr(*c) != GPA_STATUS_OK)
			return -1;
	return 0;
}

static void bench(struct target *t, double seconds)
{
	if (open_context(t) != 0) {
		printf("%s: skipped (the context does not open here)\n", t->name);
		GPA_CloseContext();
		return;
	}
	/* Cost at 1 ms, rounds alternating; the best round of each. */
	double raw = 1e300, lib = 1e300;
	for (int r = 0; r < ROUNDS; r++) {
		double a = raw_cost(&t->raw, COST_PERIOD_NS, seconds);
		struct periodic_result p;
		if (a < 0 || periodic_run(COST_PERIOD_NS, seconds, &p) != 0) {
			printf("%s: a run failed\n", t->name);
			GPA_CloseContext();
			return;
		}
		if (a < raw)
			raw = a;
		if (p.cpu_per_sample < lib)
			lib = p.cpu_per_sample;
	}
	printf("%-5s cost at 1 ms: raw loop %7.0f ns CPU/sample, periodic session %7.0f ns "
	       "(%.2fx)\n", t->name, raw, lib, lib / raw);
	/* Shorter and shorter periods: the shortest that, like every longer
	 * one, lost no period in three runs. */
	static const uint64_t periods[] = { 10000000, 5000000, 2000000, 1000000, 500000,
		                            200000, 100000 };
	uint64_t best = 0;
	bool clean = true;
	for (size_t i = 0; i < sizeof periods / sizeof periods[0]; i++) {
		if (periods[i] < t->floor)
			break;
		uint64_t lost = 0, spanned = 0;
		uint32_t samples = 0;
		double cpu = 0;
		for (int r = 0; r < 3; r++) {
			struct periodic_result p;
			if (periodic_run(periods[i], seconds, &p) != 0)
				break;
			lost += p.lost;
			spanned += p.periods;
			samples += p.samples;
			cpu += p.cpu_per_sample / 3;
		}
		printf("%-5s every %6.3f ms: %6u samples for %6llu periods, %4llu lost (%.2f%%), "
		       "%.0f ns CPU/sample\n", t->name, periods[i] / 1e6, samples,
		       (unsigned long long)spanned, (unsigned long long)lost,
		       spanned ? 100.0 * (double)lost / (double)spanned : 0.0, cpu);
		clean = clean && lost == 0 && spanned;
		if (clean)
			best = periods[i];
	}
	if (best)
		printf("%-5s highest rate without loss: every %.3f ms (%.0f samples/s)\n", t->name,
		       best / 1e6, 1e9 / (double)best);
	else
		printf("%-5s lost periods at every rate tried\n", t->name);
	GPA_CloseContext();
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? strtod(argv[1], NULL) : 1.0;
	if (!(seconds > 0.0))
		seconds = 1.0;
	GPA_RegisterLoggingCallback(GPA_LOGGING_ERROR, quiet_log);
	GPA_Initialize();
	wakeups(5000000, seconds);
	wakeups(1000000, seconds);

	static const char *const perf_counters[] = { "TaskClock", "PageFaults", "ContextSwitches",
		                                     "CPUMigrations", NULL };
	struct target perf = { "perf", "perf", "", perf_counters,
		               { .open = perf_raw_open, .read = perf_raw_read, .close = perf_raw_close }, 100000 };
	og_testing_set_sys(NULL);
	bench(&perf, seconds);

	/* The virtual Mali: its dumps advance the workload by one frame. */
	static const char *const mali_counters[] = { "GPUActiveCycles", "FragmentQueueUtilization",
		                                     "NonFragmentQueueUtilization",
		                                     "OutputExternalReadBytes", NULL };
	struct vmali_config cfg = { .core_mask = 0xFF, .l2_slices = 2 };
	struct vmali *vm = vmali_create(&cfg);
	struct target mali = { "mali", "mali", "", mali_counters,
		               { .open = mali_raw_open, .read = mali_raw_read, .close = mali_raw_close }, 100000 };
	mali.raw.sys = vmali_sys(vm);
	og_testing_set_sys(vmali_sys(vm));
	bench(&mali, seconds);
	og_testing_set_sys(NULL);
	vmali_destroy(vm);

	static const char *const mips_counters[] = { "CoreCycles", "InstructionCount", "IPC", NULL };
	struct v34k *dev = v34k_new(NULL);
	struct target mips = { "mips", "mips", "modes=u", mips_counters,
		               { .open = mips_raw_open, .read = mips_raw_read, .close = mips_raw_close }, 1000000 };
	mips.raw.sys = v34k_sys(dev);
	og_testing_set_sys(v34k_sys(dev));
	bench(&mips, seconds);
	og_testing_set_sys(NULL);
	v34k_free(dev);

	GPA_Destroy();
	return 0;
}
