/* SPDX-License-Identifier: MIT */
/*
 * perf_named.c — sources that name a CPU event instead of giving its code.
 *
 * "L1D_TLB_REFILL", "INST_RETIRED:ANY_P", "inst_retired.any_p": libpfm4's
 * tables for this CPU first (its PMU detection, its encodings), then the
 * aliases the kernel's CPU PMU publishes under
 * /sys/bus/event_source/devices/<cpu pmu>/events/.  "pfm:EVENT" asks
 * libpfm4 alone.  Codes (raw:0x5) and sysfs terms (cpu/event=0x5/) need no
 * name and are perf_pmu.c's.
 */
#include "perf_internal.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PMU_ROOT "/sys/bus/event_source/devices"

/* An event name: letters, digits and the separators event specs use
 * (':' and '.' before a unit mask, '=' for a modifier value, '-'). */
static bool plausible(const char *s)
{
	if (!*s || strlen(s) >= OG_PERF_SOURCE_MAX)
		return false;
	for (; *s; s++)
		if (!(isalnum((unsigned char)*s) || strchr("_:.=-", *s)))
			return false;
	return true;
}

struct cpu_pmus {
	char names[8][65];
	size_t n;
};

static void collect_cpu_pmu(const char *name, void *arg)
{
	struct cpu_pmus *l = arg;
	if (l->n < sizeof l->names / sizeof l->names[0] && strlen(name) < sizeof l->names[0] &&
	    og_perf_is_cpu_pmu(name))
		snprintf(l->names[l->n++], sizeof l->names[0], "%s", name);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* The CPU PMU's sysfs alias of that name (perf lists them in lower case,
 * with perf's '.' before a unit mask): OK, or NOT_FOUND. */
static GPA_Status sysfs_alias(struct og_perf_state *st, const char *name, const char *event,
                              struct og_perf_bound *b, const char **why_not)
{
	char alias[OG_PERF_SOURCE_MAX];
	size_t n = strlen(event);
	if (n >= sizeof alias || strchr(event, '='))
		return GPA_STATUS_ERROR_NOT_FOUND;
	for (size_t i = 0; i <= n; i++)
		alias[i] = event[i] == ':' ? '.' : (char)tolower((unsigned char)event[i]);
	struct cpu_pmus pmus = { .n = 0 };
	if (og_perf_list_dir(&st->host, PMU_ROOT, collect_cpu_pmu, &pmus) != 0)
		return GPA_STATUS_ERROR_NOT_FOUND;
	qsort(pmus.names, pmus.n, sizeof pmus.names[0], by_name);
	for (size_t i = 0; i < pmus.n; i++) {
		char path[256], text[8];
		snprintf(path, sizeof path, PMU_ROOT "/%s/events/%s", pmus.names[i], alias);
		if (og_perf_read_text(&st->host, path, text, sizeof text) <= 0)
			continue;
		char source[OG_PERF_SOURCE_MAX + 80];
		snprintf(source, sizeof source, "%s/%s/", pmus.names[i], alias);
		struct og_perf_bound sysfs = *b;
		GPA_Status s = og_perf_pmu_source(st, name, source, &sysfs, why_not);
		if (s == GPA_STATUS_OK) {
			/* Keep the name as the source: it is what the user wrote and
			 * what binds share. */
			memcpy(sysfs.source, b->source, sizeof sysfs.source);
			*b = sysfs;
		}
		return s;
	}
	return GPA_STATUS_ERROR_NOT_FOUND;
}

GPA_Status og_perf_named_source(struct og_perf_state *st, const char *name, const char *source,
                                struct og_perf_bound *b, const char **why_not)
{
	bool pfm_only = strncmp(source, "pfm:", 4) == 0;
	const char *event = pfm_only ? source + 4 : source;
	if (!plausible(event)) {
		st->host.log(st->host.log_ctx, OG_LOG_ERROR,
		             "perf: raw counter %s: unknown source '%s'; use sw:NAME, hw:NAME, "
		             "raw:CODE, PMU/TERMS/, an event name (L1D_TLB_REFILL, "
		             "inst_retired.any_p, pfm:EVENT) or time:enabled|running|wall "
		             "(docs/backends/perf.md)",
		             name, source);
		return GPA_STATUS_ERROR_FAILED;
	}
	const char *pfm_why = NULL;
	GPA_Status s = og_perf_pfm_encode(st, event, b, &pfm_why);
	if (s != GPA_STATUS_ERROR_NOT_FOUND || pfm_only) {
		*why_not = pfm_why;
		return s;
	}
	const char *sysfs_why = NULL;
	s = sysfs_alias(st, name, event, b, &sysfs_why);
	if (s != GPA_STATUS_ERROR_NOT_FOUND)
		return s;
	/* Neither knows it: say both places were asked, and what libpfm4 said
	 * (another core's event, or a CPU it does not know). */
	*why_not = og_perf_note(st, "no event of that name in libpfm4's tables or the CPU PMU's "
	                            "sysfs aliases",
	                        "%s; the CPU PMU's sysfs aliases (" PMU_ROOT "/<cpu pmu>/events) "
	                        "have no %s either, so name its code (raw:0xNN) instead",
	                        pfm_why, event);
	return GPA_STATUS_ERROR_NOT_FOUND;
}
