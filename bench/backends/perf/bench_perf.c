/* SPDX-License-Identifier: MIT */
/*
 * bench_perf.c — what a GPA sample costs on the perf backend, against the
 * floor the kernel sets (results and the command go to docs/performance.md):
 *
 *   one GPA_BeginSample + GPA_EndSample counting 4 software events
 *   (TaskClock, PageFaults, ContextSwitches, CPUMigrations) through the GPA
 *   API, vs two read() calls of a group of the same 4 events opened by hand
 *   — target <= 1.2x (issue 29).
 *
 *   The backend's begin_sample + end_sample called directly (no core) is
 *   printed too, to tell the backend's share of the cost from the core's.
 *
 *   Each round times the three back to back; besides the best round of
 *   each (wall time), the median and range of the per-round ratios of the
 *   thread's CPU time are printed: on a loaded machine the best rounds of
 *   two sides may come from different moments, a round's ratio from one,
 *   and CPU time leaves out the waits for a CPU.
 *
 *   With FRAME, the GPA side ends its pass and session every FRAME samples
 *   and begins new ones (inside the timed loop): a client that makes a
 *   session per frame.  Its books then come from the sessions before it
 *   (malloc reuses them), where the one session of the default run grows
 *   all the time and writes each new page of its books for the first time
 *   (docs/performance.md, "One sample, fourth round").  The minor page
 *   faults per GPA sample are printed either way.
 *
 *   bench-perf [SAMPLES_PER_ROUND [ROUNDS [FRAME]]]
 */
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "GPUPerfAPI.h"
#include "backend.h"
#include "opengpa.h"
#include "raw_group.h"

extern const struct og_backend_ops og_backend_perf;

#define ROUNDS 7
#define MAX_ROUNDS 1000

static double clock_ns(clockid_t c)
{
	struct timespec t;
	clock_gettime(c, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

/* A round's wall and thread CPU time, ns per operation.  On a loaded
 * machine the CPU time leaves out the time the thread waited for a CPU. */
struct timing {
	double wall, cpu;
};

static struct timing start(void)
{
	return (struct timing){ clock_ns(CLOCK_MONOTONIC), clock_ns(CLOCK_THREAD_CPUTIME_ID) };
}

static struct timing per_op(struct timing t0, unsigned n)
{
	double cpu = clock_ns(CLOCK_THREAD_CPUTIME_ID), wall = clock_ns(CLOCK_MONOTONIC);
	return (struct timing){ (wall - t0.wall) / n, (cpu - t0.cpu) / n };
}

static const struct timing failed = { -1, -1 };

static const char *const counters[] = { "TaskClock", "PageFaults", "ContextSwitches",
	                                "CPUMigrations" };

static int check(GPA_Status s, const char *what)
{
	if (s != GPA_STATUS_OK) {
		fprintf(stderr, "bench-perf: %s: %s\n", what, GPA_GetStatusAsStr(s));
		return 1;
	}
	return 0;
}

struct raw_group {
	int fds[4];
};

static int raw_open(struct raw_group *g)
{
	return raw_group_open(g->fds);
}

static void raw_close(struct raw_group *g)
{
	raw_group_close(g->fds);
}

/* ns per two group read()s. */
static struct timing raw_round(struct raw_group *g, unsigned n)
{
	uint64_t buf[RAW_GROUP_READ_WORDS];
	struct timing t0 = start();
	for (unsigned i = 0; i < n; i++) {
		if (read(g->fds[0], buf, sizeof buf) != (ssize_t)sizeof buf ||
		    read(g->fds[0], buf, sizeof buf) != (ssize_t)sizeof buf) {
			perror("bench-perf: read");
			return failed;
		}
	}
	return per_op(t0, n);
}

/* A new session, its one pass begun. */
static int api_session(gpa_uint32 *session)
{
	return check(GPA_BeginSession(session), "GPA_BeginSession") ||
	       check(GPA_BeginPass(), "GPA_BeginPass");
}

static int api_session_end(void)
{
	return check(GPA_EndPass(), "GPA_EndPass") || check(GPA_EndSession(), "GPA_EndSession");
}

/* ns per BeginSample+EndSample; sample ids continue from *next_id.  With
 * frame > 0, every frame samples end the session and begin a new one
 * (ids from 0 again). */
static struct timing api_round(unsigned n, unsigned frame, gpa_uint32 *next_id,
                               gpa_uint32 *session)
{
	struct timing t0 = start();
	for (unsigned i = 0; i < n; i++) {
		if (frame && *next_id == frame) {
			if (api_session_end() || api_session(session))
				return failed;
			*next_id = 0;
		}
		if (GPA_BeginSample((*next_id)++) != GPA_STATUS_OK || GPA_EndSample() != GPA_STATUS_OK) {
			fprintf(stderr, "bench-perf: a sample failed\n");
			return failed;
		}
	}
	return per_op(t0, n);
}

static long minor_faults(void)
{
	struct rusage u;
	return getrusage(RUSAGE_SELF, &u) == 0 ? u.ru_minflt : 0;
}

__attribute__((format(printf, 3, 4))) static void quiet(void *ctx, enum og_log_level level,
                                                        const char *fmt, ...)
{
	(void)ctx, (void)level, (void)fmt;
}

struct direct {
	struct og_backend_host host;
	void *state;
};

static int direct_open(struct direct *d)
{
	const struct og_backend_ops *o = &og_backend_perf;
	static const char *const sources[] = { "sw:task-clock", "sw:page-faults",
		                               "sw:context-switches", "sw:cpu-migrations" };
	struct og_device_info info;
	uint32_t ids[4];
	d->host = (struct og_backend_host){ og_sys_real(), quiet, NULL, NULL };
	if (check(o->open(&d->host, "", &d->state, &info), "perf backend open"))
		return 1;
	for (int i = 0; i < 4; i++) {
		const char *why;
		if (check(o->bind_raw(d->state, sources[i], sources[i], &ids[i], &why), sources[i]))
			return 1;
	}
	return check(o->begin_pass(d->state, ids, 4), "perf backend begin_pass");
}

/* ns per backend begin_sample + end_sample, no core around them. */
static struct timing direct_round(struct direct *d, unsigned n)
{
	const struct og_backend_ops *o = &og_backend_perf;
	uint64_t deltas[4];
	struct timing t0 = start();
	for (unsigned i = 0; i < n; i++) {
		if (o->begin_sample(d->state) != GPA_STATUS_OK ||
		    o->end_sample(d->state, deltas) != GPA_STATUS_OK)
			return failed;
	}
	return per_op(t0, n);
}

static int api_open(gpa_uint32 *session)
{
	static int device;
	if (check(GPA_Initialize(), "GPA_Initialize") ||
	    check(OpenGPA_SetBackend("perf", ""), "OpenGPA_SetBackend") ||
	    check(GPA_OpenContext(&device), "GPA_OpenContext"))
		return 1;
	for (size_t i = 0; i < sizeof counters / sizeof counters[0]; i++)
		if (check(GPA_EnableCounterStr(counters[i]), counters[i]))
			return 1;
	gpa_uint32 passes = 0;
	if (check(GPA_GetPassCount(&passes), "GPA_GetPassCount") || passes != 1) {
		fprintf(stderr, "bench-perf: expected 1 pass, got %u\n", passes);
		return 1;
	}
	return api_session(session);
}

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Median and range of v[0..n), sorted in place. */
static void print_ratios(const char *what, double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, by_value);
	double median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	printf("  per-round ratio of thread CPU time, %s: median %.3fx, range %.3f-%.3fx\n", what,
	       median, v[0], v[n - 1]);
}

int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 20000;
	if (n == 0)
		n = 20000;
	int rounds = argc > 2 ? atoi(argv[2]) : ROUNDS;
	if (rounds < 1 || rounds > MAX_ROUNDS)
		rounds = ROUNDS;
	unsigned frame = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 10) : 0;
	static double api_ratio[MAX_ROUNDS], direct_ratio[MAX_ROUNDS];
	struct raw_group g;
	struct direct d;
	gpa_uint32 session = 0, next_id = 0;
	if (raw_open(&g))
		return 1;
	if (direct_open(&d)) {
		raw_close(&g);
		return 1;
	}
	if (api_open(&session)) {
		raw_close(&g);
		return 1;
	}
	/* Rounds alternate, so both sides see the same machine load; the best
	 * round of each is the least disturbed one. */
	double raw = 1e300, api = 1e300, direct = 1e300;
	long faults = 0, late_faults = 0; /* late: the second half of the rounds */
	for (int r = 0; r < rounds; r++) {
		struct timing ta = raw_round(&g, n);
		long f0 = minor_faults();
		struct timing tb = api_round(n, frame, &next_id, &session);
		long f = minor_faults() - f0;
		faults += f;
		late_faults += r >= rounds / 2 ? f : 0;
		struct timing tc = direct_round(&d, n);
		double a = ta.wall, b = tb.wall, c = tc.wall;
		if (a < 0 || b < 0 || c < 0)
			return 1;
		api_ratio[r] = tb.cpu / ta.cpu;
		direct_ratio[r] = tc.cpu / ta.cpu;
		raw = a < raw ? a : raw;
		api = b < api ? b : api;
		direct = c < direct ? c : direct;
	}
	raw_close(&g);
	og_backend_perf.end_pass(d.state);
	og_backend_perf.close(d.state);
	gpa_uint32 count = 0;
	if (api_session_end() ||
	    check(GPA_GetSampleCount(session, &count), "GPA_GetSampleCount"))
		return 1;
	GPA_CloseContext();
	GPA_Destroy();
	if (count != next_id) {
		fprintf(stderr, "bench-perf: %u samples recorded, expected %u\n", count, next_id);
		return 1;
	}
	printf("%u samples x %d alternating rounds, best round each (wall time):\n", n, rounds);
	if (frame)
		printf("  (the GPA side: a session of every %u samples)\n", frame);
	printf("  two raw group read()s:           %8.1f ns\n", raw);
	printf("  GPA_BeginSample + GPA_EndSample: %8.1f ns\n", api);
	printf("  backend begin+end_sample only:   %8.1f ns (%.2fx)\n", direct, direct / raw);
	printf("  ratio: %.2fx (target <= 1.2x)\n", api / raw);
	print_ratios("GPA sample", api_ratio, rounds);
	print_ratios("backend only", direct_ratio, rounds);
	printf("  minor page faults per GPA sample: %.4f (second half of the rounds: %.4f)\n",
	       (double)faults / ((double)n * (double)rounds),
	       (double)late_faults / ((double)n * (double)(rounds - rounds / 2)));
	return 0;
}
