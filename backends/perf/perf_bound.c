/* SPDX-License-Identifier: MIT */
/*
 * perf_bound.c — the table of bound raw counters: a source bound once, its
 * raw id its index (og_perf_bind), and whether the kernel opens a bound
 * event in the current scope (og_perf_try_bound).  perf.c, perf_catalogue.c
 * and perf_mips.c call it; it calls perf_open.c only.
 */
#include "perf_internal.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>

uint32_t og_perf_bind(struct og_perf_state *st, const struct og_perf_bound *b)
{
	for (size_t i = 0; i < st->nbound; i++) {
		if (strcmp(st->bound[i].source, b->source) == 0)
			return (uint32_t)i;
	}
	if (st->nbound == OG_PERF_MAX_BOUND)
		return UINT32_MAX;
	st->bound[st->nbound] = *b;
	return (uint32_t)st->nbound++;
}

int og_perf_try_bound(const struct og_perf_state *st, const struct og_perf_bound *b)
{
	struct perf_event_attr attr;
	og_perf_attr_init(st, &attr, b->type, b->config, true);
	attr.config1 = b->config1;
	attr.config2 = b->config2;
	int fd = og_perf_open_event(st, &attr, -1);
	if (fd < 0)
		return errno ? errno : EINVAL;
	st->host.sys->close(st->host.sys->ctx, fd);
	return 0;
}
