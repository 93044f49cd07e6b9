/* SPDX-License-Identifier: MIT */
/*
 * bench_rdpmc.c — what a user-space snapshot of a 4-event hardware group
 * costs through og_perf_user_page_read (seqlock, checks, time extension per
 * event), against the floor: the 4 raw counter reads alone, in the same
 * run.  One group read() is printed too, as the fallback's price.
 *
 *   bench-rdpmc [SNAPSHOTS_PER_ROUND]
 *
 * Where the PMU or the kernel does not allow user reads (a VM without a
 * PMU, x86 rdpmc = 0, arm64 perf_user_access = 0) it prints
 * "skipped: <reason>" and exits 0.  Results go to docs/performance.md.
 */
#include <errno.h>
#include <stdbool.h>
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "backend.h"
#include "perf/perf_rdpmc.h"

#define ROUNDS 7
#define NEVENTS 4

static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

struct group {
	int fds[NEVENTS];
	struct og_perf_user_page pages[NEVENTS];
	uint32_t index[NEVENTS]; /* counter of each event when the run started */
};

static void group_close(const struct og_backend_host *h, struct group *g)
{
	for (int i = NEVENTS - 1; i >= 0; i--) {
		og_perf_user_page_unmap(h, &g->pages[i]);
		if (g->fds[i] >= 0)
			close(g->fds[i]);
		g->fds[i] = -1;
	}
}

/* Opens the group on this thread and maps each event's page.  true on
 * success, else false with the reason to skip in why. */
static bool group_open(const struct og_backend_host *h, struct group *g, char *why,
                       size_t len)
{
	static const uint64_t configs[NEVENTS] = { PERF_COUNT_HW_INSTRUCTIONS,
		                                   PERF_COUNT_HW_CPU_CYCLES,
		                                   PERF_COUNT_HW_BRANCH_INSTRUCTIONS,
		                                   PERF_COUNT_HW_BRANCH_MISSES };
	static const char *const names[NEVENTS] = { "instructions", "cycles", "branches",
		                                    "branch-misses" };
	for (int i = 0; i < NEVENTS; i++) {
		g->fds[i] = -1;
		g->pages[i] = (struct og_perf_user_page){ NULL, 0 };
	}
	for (int i = 0; i < NEVENTS; i++) {
		struct perf_event_attr a;
		memset(&a, 0, sizeof a);
		a.size = sizeof a;
		a.type = PERF_TYPE_HARDWARE;
		a.config = configs[i];
#if defined(__aarch64__)
		a.config1 = 2; /* the arm64 PMU's "rdpmc" term: ask for user access */
#endif
		a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED |
		                PERF_FORMAT_TOTAL_TIME_RUNNING;
		a.disabled = i == 0;
		a.exclude_kernel = 1;
		a.exclude_hv = 1;
		g->fds[i] = (int)syscall(SYS_perf_event_open, &a, 0, -1, i ? g->fds[0] : -1,
		                         PERF_FLAG_FD_CLOEXEC);
		if (g->fds[i] < 0) {
			int err = errno;
			if (err == ENOENT || err == EOPNOTSUPP)
				snprintf(why, len, "no hardware PMU here (perf_event_open of %s: %s; "
				         "a VM without a virtual PMU?)", names[i], strerror(err));
			else
				snprintf(why, len, "perf_event_open of %s: %s (perf_event_paranoid?)",
				         names[i], strerror(err));
			return false;
		}
		if (!og_perf_user_page_map(h, g->fds[i], &g->pages[i])) {
			snprintf(why, len, "the page of %s cannot be mapped (%s)", names[i],
			         strerror(errno));
			return false;
		}
	}
	if (ioctl(g->fds[0], PERF_EVENT_IOC_ENABLE, 0) != 0) {
		snprintf(why, len, "PERF_EVENT_IOC_ENABLE failed (%s)", strerror(errno));
		return false;
	}
	if (!h->sys->read_pmc) {
		snprintf(why, len, "opengpa has no user-space counter read for this architecture");
		return false;
	}
	for (int i = 0; i < NEVENTS; i++) {
		if (!og_perf_user_page_can_read(h, &g->pages[i])) {
			snprintf(why, len, "the kernel does not offer cap_user_rdpmc for %s (x86: "
			         "/sys/bus/event_source/devices/cpu/rdpmc must be 1 or 2; arm64: "
			         "sysctl kernel.perf_user_access=1)", names[i]);
			return false;
		}
	}
	/* The counters the events sit on, for the raw loop. */
	for (int tries = 0; tries < 1000; tries++) {
		int on = 0;
		for (int i = 0; i < NEVENTS; i++) {
			const volatile struct perf_event_mmap_page *pg = g->pages[i].page;
			g->index[i] = pg->index;
			on += g->index[i] != 0;
		}
		if (on == NEVENTS)
			return true;
		usleep(1000);
	}
	snprintf(why, len, "the group never got on the PMU's counters (another perf user "
	         "holds them?)");
	return false;
}

/* The floor: the 4 counters read with nothing around them. */
static inline uint64_t raw_counter(const struct og_sys *sys, uint32_t index)
{
#if defined(__x86_64__)
	uint32_t lo, hi;
	__asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(index - 1));
	return (uint64_t)hi << 32 | lo;
#else
	uint64_t v = 0;
	sys->read_pmc(sys->ctx, index, &v);
	return v;
#endif
}

static double raw_round(const struct og_sys *sys, const struct group *g, unsigned n,
                        uint64_t *sink)
{
	uint64_t acc = 0;
	double t0 = now_ns();
	for (unsigned k = 0; k < n; k++)
		for (int i = 0; i < NEVENTS; i++)
			acc += raw_counter(sys, g->index[i]);
	double t = (now_ns() - t0) / n;
	*sink += acc;
	return t;
}

/* ns per 4-event snapshot through og_perf_user_page_read; *fallbacks counts
 * reads that were not OK (they would have gone to read()). */
static double og_round(const struct og_backend_host *h, const struct group *g, unsigned n,
                       unsigned *fallbacks, uint64_t *sink)
{
	uint64_t acc = 0;
	double t0 = now_ns();
	for (unsigned k = 0; k < n; k++) {
		for (int i = 0; i < NEVENTS; i++) {
			uint64_t c, e, r;
			if (og_perf_user_page_read(h, &g->pages[i], &c, &e, &r) == OG_PERF_USER_READ_OK)
				acc += c + e + r;
			else
				++*fallbacks;
		}
	}
	double t = (now_ns() - t0) / n;
	*sink += acc;
	return t;
}

static double read_round(const struct group *g, unsigned n, uint64_t *sink)
{
	uint64_t buf[3 + NEVENTS];
	double t0 = now_ns();
	for (unsigned k = 0; k < n; k++) {
		if (read(g->fds[0], buf, sizeof buf) != (ssize_t)sizeof buf) {
			perror("bench-rdpmc: read");
			return -1;
		}
		*sink += buf[3];
	}
	return (now_ns() - t0) / n;
}

int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 100000;
	if (n == 0)
		n = 100000;
	struct og_backend_host h = { .sys = og_sys_real() };
	struct group g;
	char why[512];
	if (!group_open(&h, &g, why, sizeof why)) {
		group_close(&h, &g);
		printf("skipped: %s\n", why);
		return 0;
	}
	/* Rounds alternate so every path sees the same machine load; the best
	 * round of each is the least disturbed one. */
	double raw = 1e300, og = 1e300, rd = 1e300;
	unsigned fallbacks = 0;
	uint64_t sink = 0;
	for (int r = 0; r < ROUNDS; r++) {
		double a = raw_round(h.sys, &g, n, &sink);
		double b = og_round(&h, &g, n, &fallbacks, &sink);
		double c = read_round(&g, n / 10 ? n / 10 : 1, &sink);
		if (c < 0) {
			group_close(&h, &g);
			return 1;
		}
		raw = a < raw ? a : raw;
		og = b < og ? b : og;
		rd = c < rd ? c : rd;
	}
	group_close(&h, &g);
	printf("%u snapshots of 4 hardware events x %d alternating rounds, best round each:\n", n,
	       ROUNDS);
	printf("  4 raw counter reads:              %8.1f ns\n", raw);
	printf("  4 x og_perf_user_page_read:       %8.1f ns\n", og);
	printf("  one group read() (the fallback):  %8.1f ns\n", rd);
	printf("  ratio user read / raw: %.2fx; read() / user read: %.2fx\n", og / raw, rd / og);
	printf("  reads that would fall back to read(): %u of %u (checksum %llu)\n", fallbacks,
	       (unsigned)(n * ROUNDS * NEVENTS), (unsigned long long)(sink & 0xff));
	return 0;
}
