/* SPDX-License-Identifier: MIT */
/*
 * perf_open.c — opening one event: its perf_event_attr in the state's scope
 * and modes, and perf_event_open(2) through the syscall table on a target
 * or on the scope's probe target.  The lowest step every file that opens an
 * event shares (groups, probes, PMU sources, SPE, MIPS); calls no other
 * file of the backend.
 */
#include "perf_internal.h"

#include <linux/perf_event.h>
#include <string.h>

#define GROUP_FORMAT (PERF_FORMAT_GROUP | PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED | \
                      PERF_FORMAT_TOTAL_TIME_RUNNING)

void og_perf_attr_init(const struct og_perf_state *st, struct perf_event_attr *attr,
                       uint32_t type, uint64_t config, bool leader)
{
	memset(attr, 0, sizeof *attr);
	attr->size = sizeof *attr;
	attr->type = type;
	attr->config = config;
	attr->read_format = GROUP_FORMAT;
	/* Members follow their leader: only the leader is opened disabled. */
	attr->disabled = leader;
	attr->exclude_kernel = st->exclude_kernel;
	attr->exclude_hv = st->exclude_kernel;
	if (st->modes) {
		attr->exclude_user = !(st->modes & OG_PERF_MODE_USER);
		attr->exclude_kernel |= !(st->modes & OG_PERF_MODE_KERNEL);
		attr->exclude_hv |= !(st->modes & OG_PERF_MODE_HV);
	}
	if (st->scope.kind == OG_PERF_SCOPE_PROCESS) {
		/* A process includes the threads and children it starts after
		 * the open; the kernel folds their counts in when they exit. */
		attr->inherit = 1;
		attr->enable_on_exec = leader && st->scope.exec;
	}
}

int og_perf_open_on(const struct og_perf_state *st, struct perf_event_attr *attr,
                    struct og_perf_target target, int group_fd)
{
	const struct og_sys *sys = st->host.sys;
	return sys->perf_event_open(sys->ctx, attr, target.pid, target.cpu, group_fd, 0);
}

int og_perf_open_event(const struct og_perf_state *st, struct perf_event_attr *attr,
                       int group_fd)
{
	return og_perf_open_on(st, attr, og_perf_scope_probe_target(&st->host, &st->scope),
	                       group_fd);
}
