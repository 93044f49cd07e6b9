/* SPDX-License-Identifier: MIT */
/* perf_events.c — the events the backend knows by name (sw:NAME, hw:NAME). */
#include "perf_internal.h"

#include <linux/perf_event.h>
#include <string.h>

/* Each hardware event carries its two refusal texts as literals, because
 * bind_raw hands out static strings only. */
#define SW(name, cfg) { "sw:" name, PERF_TYPE_SOFTWARE, (cfg), NULL, \
	"the kernel refused the software event " name " (see the log for the errno)" }
#define HW(name, cfg) { "hw:" name, PERF_TYPE_HARDWARE, (cfg), \
	"no hardware PMU: " name " not supported by this kernel/VM", \
	"this CPU's PMU does not count " name " (perf_event_open refused it)" }

static const struct og_perf_event_def events[] = {
	SW("task-clock", PERF_COUNT_SW_TASK_CLOCK),
	SW("cpu-clock", PERF_COUNT_SW_CPU_CLOCK),
	SW("page-faults", PERF_COUNT_SW_PAGE_FAULTS),
	SW("minor-faults", PERF_COUNT_SW_PAGE_FAULTS_MIN),
	SW("major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ),
	SW("context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES),
	SW("cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS),
	SW("alignment-faults", PERF_COUNT_SW_ALIGNMENT_FAULTS),
	SW("emulation-faults", PERF_COUNT_SW_EMULATION_FAULTS),
	HW("cycles", PERF_COUNT_HW_CPU_CYCLES),
	HW("instructions", PERF_COUNT_HW_INSTRUCTIONS),
	HW("branches", PERF_COUNT_HW_BRANCH_INSTRUCTIONS),
	HW("branch-misses", PERF_COUNT_HW_BRANCH_MISSES),
	HW("cache-references", PERF_COUNT_HW_CACHE_REFERENCES),
	HW("cache-misses", PERF_COUNT_HW_CACHE_MISSES),
	HW("bus-cycles", PERF_COUNT_HW_BUS_CYCLES),
	HW("stalled-cycles-frontend", PERF_COUNT_HW_STALLED_CYCLES_FRONTEND),
	HW("stalled-cycles-backend", PERF_COUNT_HW_STALLED_CYCLES_BACKEND),
	HW("ref-cycles", PERF_COUNT_HW_REF_CPU_CYCLES),
};

_Static_assert(sizeof events / sizeof events[0] <= OG_PERF_MAX_EVENTS,
               "raise OG_PERF_MAX_EVENTS");

/* The spellings perf(1) also accepts, so a source copied from `perf list`
 * works. */
static const struct {
	const char *alias, *source;
} aliases[] = {
	{ "sw:faults", "sw:page-faults" },
	{ "sw:cs", "sw:context-switches" },
	{ "sw:migrations", "sw:cpu-migrations" },
	{ "hw:cpu-cycles", "hw:cycles" },
	{ "hw:branch-instructions", "hw:branches" },
	{ "hw:idle-cycles-frontend", "hw:stalled-cycles-frontend" },
	{ "hw:idle-cycles-backend", "hw:stalled-cycles-backend" },
};

size_t og_perf_event_count(void)
{
	return sizeof events / sizeof events[0];
}

const struct og_perf_event_def *og_perf_event_at(size_t i)
{
	return i < og_perf_event_count() ? &events[i] : NULL;
}

int og_perf_event_find(const char *source)
{
	for (size_t i = 0; i < sizeof aliases / sizeof aliases[0]; i++) {
		if (strcmp(source, aliases[i].alias) == 0) {
			source = aliases[i].source;
			break;
		}
	}
	for (size_t i = 0; i < og_perf_event_count(); i++) {
		if (strcmp(source, events[i].source) == 0)
			return (int)i;
	}
	return -1;
}
