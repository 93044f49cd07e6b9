/* SPDX-License-Identifier: MIT */
/*
 * perf_thread.c — per-thread raw counters: a source with "@tid=N" after it
 * ("sw:task-clock@tid=1234") counts the same event as the source without
 * it, but only on thread N of the pass's targets (docs/backends/perf.md,
 * "Per-thread counts").
 *
 * A process scope (-p) opens one event group per thread; its deltas are
 * summed over the threads (perf_group.c).  A per-thread raw counter is one
 * more member of those groups whose delta keeps thread N's alone, so
 * `opengpa stat --per-thread` reads each thread's counts through the
 * ordinary catalogue, results and counter files, from the same pass as
 * the sums: no second counting, no API of its own.  The price is a member
 * per thread and event on every thread's group (software events need no
 * PMU counter; the group's size bounds it, OG_PERF_MAX_GROUP).
 *
 * Allowed on sw:, hw: and time:running/time:enabled sources (the group's
 * own times, per thread: 0 running is perf's <not counted>).  Calls
 * nothing of the backend's; perf.c (binding) and perf_group.c (deltas)
 * call it.
 */
#include "perf_internal.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SUFFIX "@tid="

int og_perf_thread_split(const char *source, char *plain, size_t len, pid_t *tid)
{
	*tid = 0;
	const char *at = strstr(source, SUFFIX);
	if (!at)
		return 0;
	const char *digits = at + strlen(SUFFIX);
	char *end;
	errno = 0;
	long v = strtol(digits, &end, 10);
	if (end == digits || *end || errno || v <= 0 || v > INT_MAX || digits[0] < '1' ||
	    digits[0] > '9')
		return -1;
	size_t n = (size_t)(at - source);
	bool kind_ok = strncmp(source, "sw:", 3) == 0 || strncmp(source, "hw:", 3) == 0 ||
	               (n == 12 && strncmp(source, "time:running", 12) == 0) ||
	               (n == 12 && strncmp(source, "time:enabled", 12) == 0);
	if (!kind_ok || n == 0 || n >= len)
		return -1;
	memcpy(plain, source, n);
	plain[n] = '\0';
	*tid = (pid_t)v;
	return 1;
}

bool og_perf_thread_mark(struct og_perf_bound *b, pid_t tid)
{
	b->tid = tid;
	size_t used = strlen(b->source);
	int n = snprintf(b->source + used, sizeof b->source - used, SUFFIX "%ld", (long)tid);
	return n > 0 && (size_t)n < sizeof b->source - used;
}
