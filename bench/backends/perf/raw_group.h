/* SPDX-License-Identifier: MIT */
/* raw_group.h — the benchmarks' baseline: a group of the same 4 software
 * events the perf backend opens for TaskClock, PageFaults, ContextSwitches
 * and CPUMigrations, opened by hand on the calling thread. */
#ifndef OPENGPA_BENCH_RAW_GROUP_H
#define OPENGPA_BENCH_RAW_GROUP_H

#include <linux/perf_event.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define RAW_GROUP_READ_WORDS (3 + 2 * 4) /* GROUP|ID|TIME_ENABLED|TIME_RUNNING */

/* Opens and enables the group; 0, or 1 after perror (nothing left open). */
static inline int raw_group_open(int fds[4])
{
	static const uint64_t configs[] = { PERF_COUNT_SW_TASK_CLOCK, PERF_COUNT_SW_PAGE_FAULTS,
		                            PERF_COUNT_SW_CONTEXT_SWITCHES,
		                            PERF_COUNT_SW_CPU_MIGRATIONS };
	for (int i = 0; i < 4; i++) {
		struct perf_event_attr a;
		memset(&a, 0, sizeof a);
		a.size = sizeof a;
		a.type = PERF_TYPE_SOFTWARE;
		a.config = configs[i];
		a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED |
		                PERF_FORMAT_TOTAL_TIME_RUNNING;
		a.disabled = i == 0;
		fds[i] = (int)syscall(SYS_perf_event_open, &a, 0, -1, i ? fds[0] : -1, 0);
		if (fds[i] < 0) {
			perror("perf_event_open");
			while (i-- > 0)
				close(fds[i]);
			return 1;
		}
	}
	return ioctl(fds[0], PERF_EVENT_IOC_ENABLE, 0) != 0;
}

static inline void raw_group_close(int fds[4])
{
	for (int i = 3; i >= 0; i--)
		close(fds[i]);
}

#endif
