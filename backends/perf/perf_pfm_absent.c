/* SPDX-License-Identifier: MIT */
/*
 * perf_pfm_absent.c — the perf backend built without libpfm4.
 *
 * CPU events are then known by the CPU PMU's sysfs aliases and by raw code
 * only; every event-name question is answered with how to get libpfm4.
 */
#include "perf_internal.h"

static const char no_libpfm[] =
	"this opengpa was built without libpfm4 (install libpfm4-dev and rebuild: meson "
	"configures -Dlibpfm=auto)";

bool og_perf_pfm_load(struct og_perf_state *st)
{
	st->pfm_asked = true;
	st->pfm_pmus[0] = '\0';
	st->pfm_why = no_libpfm;
	return false;
}

GPA_Status og_perf_pfm_encode(struct og_perf_state *st, const char *event,
                              struct og_perf_bound *b, const char **why_not)
{
	(void)event;
	(void)b;
	og_perf_pfm_load(st);
	*why_not = no_libpfm;
	return GPA_STATUS_ERROR_NOT_FOUND;
}

void og_perf_pfm_each(struct og_perf_state *st,
                      void (*fn)(void *arg, const char *event, const char *name, const char *desc),
                      void *arg)
{
	(void)st;
	(void)fn;
	(void)arg;
}
