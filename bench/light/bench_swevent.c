/* SPDX-License-Identifier: MIT */
/*
 * bench_swevent.c — what opening and closing one perf software event costs,
 * per event: the CPU time of N perf_event_open + close pairs on the calling
 * thread, as the perf backend's probe opens them (docs/performance.md,
 * "stat -- true and -I 10, round 7").
 *
 * usage: bench-swevent [N]
 *
 * Page faults, context switches, migrations and the like are counted
 * through a static key per event that the first open enables and the last
 * close disables, patching kernel text on every CPU each time; where
 * another process holds one of that event open, neither happens, so run it
 * with nothing else counting.  Prints one line per event: its name and the
 * microseconds of one open + close.
 */
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int open_event(unsigned long config)
{
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof attr);
	attr.size = sizeof attr;
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = config;
	attr.disabled = 1;
	attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED |
	                   PERF_FORMAT_TOTAL_TIME_RUNNING;
	return (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static double cpu_seconds(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		unsigned long config;
	} events[] = {
		{ "cpu-clock", PERF_COUNT_SW_CPU_CLOCK },
		{ "task-clock", PERF_COUNT_SW_TASK_CLOCK },
		{ "page-faults", PERF_COUNT_SW_PAGE_FAULTS },
		{ "context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES },
		{ "cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS },
		{ "minor-faults", PERF_COUNT_SW_PAGE_FAULTS_MIN },
		{ "major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ },
		{ "alignment-faults", PERF_COUNT_SW_ALIGNMENT_FAULTS },
		{ "emulation-faults", PERF_COUNT_SW_EMULATION_FAULTS },
	};
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 300;
	if (n <= 0) {
		fprintf(stderr, "usage: bench-swevent [N]\n");
		return 2;
	}
	for (size_t e = 0; e < sizeof events / sizeof events[0]; e++) {
		double t0 = cpu_seconds();
		for (long i = 0; i < n; i++) {
			int fd = open_event(events[e].config);
			if (fd < 0) {
				perror(events[e].name);
				return 1;
			}
			close(fd);
		}
		printf("%-18s %8.1f us per open + close\n", events[e].name,
		       (cpu_seconds() - t0) / (double)n * 1e6);
	}
	return 0;
}
