/* SPDX-License-Identifier: MIT */
/* perf_catalogue.c — extra_raw: the CPU events this machine names.
 *
 * Every /sys/bus/event_source/devices/<pmu>/events/<alias> that the kernel
 * opens in the current scope becomes a raw counter named sysfs_<pmu>_<alias>
 * with the source "<pmu>/<alias>/".  With natives=all and libpfm4, every
 * event of this CPU's core PMU in libpfm4's tables becomes one too, named as
 * libpfm4 names it (INST_RETIRED_ANY_P, L1D_TLB_REFILL) with libpfm4's
 * description; without a PMU to count them they are listed as not
 * countable, with the reason.
 *
 * Without natives=all (the default) libpfm4's table is not walked, nor
 * libpfm4 loaded: walking it cost every context open ~6 ms of a ~9 ms
 * `opengpa stat -- true` (issue 29).  A counter file names the events it
 * wants (a raw counter whose source is the event's name, which is what
 * `opengpa stat -e` writes), and each is looked up by name when bound
 * (perf_named.c, og_perf_pfm_encode). */
#include "perf_internal.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PMU_ROOT "/sys/bus/event_source/devices"
#define MAX_PMUS 64
#define MAX_ALIASES 512 /* per PMU */
#define MAX_NATIVE 4096 /* libpfm4 events of one CPU: ~500 on recent x86 cores */

struct og_perf_catalogue {
	size_t count, cap;
	struct og_raw_desc *descs;
	char **texts; /* per desc: its name and description, one allocation */
	bool full;    /* the bound table filled up: said once */
};

struct names {
	char (*v)[65];
	size_t n, max;
};

static void collect(const char *name, void *arg)
{
	struct names *l = arg;
	/* events/<alias>.scale, .unit, .per-pkg, .snapshot describe an alias,
	 * they are not events. */
	if (l->n < l->max && strlen(name) < sizeof l->v[0] && !strchr(name, '.'))
		snprintf(l->v[l->n++], sizeof l->v[0], "%s", name);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

static void sanitize(char *s)
{
	for (; *s; s++) {
		bool ok = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		          (*s >= '0' && *s <= '9') || *s == '_';
		if (!ok)
			*s = '_';
	}
}

/* Adds a desc whose name and description live in one allocation; false
 * without memory. */
static bool add_desc(struct og_perf_catalogue *c, const char *name, const char *text,
                     GPA_Usage_Type usage, uint32_t raw_id, const char *why_not)
{
	if (c->count == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 64;
		struct og_raw_desc *d = realloc(c->descs, cap * sizeof *d);
		if (!d)
			return false;
		c->descs = d;
		char **t = realloc(c->texts, cap * sizeof *t);
		if (!t)
			return false;
		c->texts = t;
		c->cap = cap;
	}
	size_t nlen = strlen(name) + 1, tlen = strlen(text) + 1;
	char *block = malloc(nlen + tlen);
	if (!block)
		return false;
	memcpy(block, name, nlen);
	memcpy(block + nlen, text, tlen);
	c->texts[c->count] = block;
	c->descs[c->count] = (struct og_raw_desc){ block, block + nlen, usage, raw_id, why_not };
	c->count++;
	return true;
}

static GPA_Usage_Type usage_of(const char *name)
{
	return strstr(name, "cycles") || strstr(name, "CYCLES") ? GPA_USAGE_TYPE_CYCLES
	                                                          : GPA_USAGE_TYPE_ITEMS;
}

static void add_pmu(struct og_perf_state *st, struct og_perf_catalogue *c, const char *pmu)
{
	char path[160];
	snprintf(path, sizeof path, PMU_ROOT "/%s/events", pmu);
	struct names aliases = { malloc(MAX_ALIASES * sizeof *aliases.v), 0, MAX_ALIASES };
	if (!aliases.v)
		return;
	if (og_perf_list_dir(&st->host, path, collect, &aliases) == 0) {
		/* Directory order is the filesystem's: sort for a stable list. */
		qsort(aliases.v, aliases.n, sizeof aliases.v[0], by_name);
		for (size_t i = 0; i < aliases.n && !c->full; i++) {
			struct og_perf_bound b;
			memset(&b, 0, sizeof b);
			snprintf(b.source, sizeof b.source, "%s/%s/", pmu, aliases.v[i]);
			const char *why = NULL;
			if (og_perf_pmu_source(st, "(sysfs catalogue)", b.source, &b, &why) !=
			            GPA_STATUS_OK ||
			    og_perf_try_bound(st, &b) != 0)
				continue;
			if (b.kind == OG_PERF_KIND_HW && st->hw_slots == 0)
				continue;
			uint32_t id = og_perf_bind(st, &b);
			if (id == UINT32_MAX) {
				c->full = true;
				break;
			}
			char name[160], text[224];
			snprintf(name, sizeof name, "sysfs_%s_%s", pmu, aliases.v[i]);
			sanitize(name);
			snprintf(text, sizeof text, "Event %s of the %s PMU, as its sysfs events "
			         "directory names it.", aliases.v[i], pmu);
			if (!add_desc(c, name, text, usage_of(aliases.v[i]), id, NULL))
				break;
		}
	}
	free(aliases.v);
}

struct native_ctx {
	struct og_perf_state *st;
	struct og_perf_catalogue *c;
	const char *why_not; /* all natives' reason when none can count here */
	size_t n;
};

/* One libpfm4 event.  Without a PMU (or a free counter) none can count, as
 * the probe knows, and the event is listed with that reason without asking
 * libpfm4 to encode it: encoding looks the name up again in libpfm4's tables,
 * and doing so for every event of the CPU cost each context open about 6 ms
 * on a VM where none of them can count (issue 29).  With a PMU each is
 * encoded and opened once, as the sysfs ones are, because the kernel refuses
 * some events libpfm4 lists (ones that must lead a group of their own, for
 * instance). */
static void add_native(void *arg, const char *event, const char *name, const char *desc)
{
	struct native_ctx *n = arg;
	if (n->n++ >= MAX_NATIVE || n->c->full)
		return;
	const char *why_not = n->why_not;
	if (why_not) {
		add_desc(n->c, name, desc, usage_of(name), UINT32_MAX, why_not);
		return;
	}
	struct og_perf_bound b;
	memset(&b, 0, sizeof b);
	snprintf(b.source, sizeof b.source, "pfm:%s", event);
	const char *why = NULL;
	if (og_perf_pfm_encode(n->st, event, &b, &why) != GPA_STATUS_OK)
		return;
	if (og_perf_try_bound(n->st, &b) != 0)
		why_not = "perf_event_open refused this event here (the kernel's PMU driver or "
		          "the scope does not take it)";
	uint32_t id = UINT32_MAX;
	if (!why_not && (id = og_perf_bind(n->st, &b)) == UINT32_MAX) {
		n->c->full = true;
		return;
	}
	add_desc(n->c, name, desc, usage_of(name), id, why_not);
}

static void add_natives(struct og_perf_state *st, struct og_perf_catalogue *c)
{
	struct native_ctx n = { st, c, NULL, 0 };
	if (!st->any_hw)
		n.why_not = "no hardware PMU: this kernel/VM counts no CPU PMU events";
	else if (st->hw_slots == 0)
		n.why_not = "the PMU has no free counter (another program or the NMI watchdog holds "
		            "them all)";
	og_perf_pfm_each(st, add_native, &n);
	if (n.n > MAX_NATIVE)
		st->host.log(st->host.log_ctx, OG_LOG_MESSAGE,
		             "perf: libpfm4 lists %zu events for this CPU; the first %d are offered",
		             n.n, MAX_NATIVE);
}

const struct og_raw_desc *og_perf_catalogue(struct og_perf_state *st, size_t *count)
{
	*count = 0;
	if (st->catalogue) {
		*count = st->catalogue->count;
		return st->catalogue->descs;
	}
	struct og_perf_catalogue *c = calloc(1, sizeof *c);
	struct names pmus = { malloc(MAX_PMUS * sizeof *pmus.v), 0, MAX_PMUS };
	if (c) {
		/* Never NULL once built: NULL says out of memory. */
		c->cap = 64;
		c->descs = calloc(c->cap, sizeof *c->descs);
		c->texts = calloc(c->cap, sizeof *c->texts);
	}
	if (!c || !pmus.v || !c->descs || !c->texts) {
		st->host.log(st->host.log_ctx, OG_LOG_ERROR,
		             "perf: out of memory listing the PMU events; the raw PMU events are "
		             "not offered");
		free(pmus.v);
		if (c) {
			free(c->descs);
			free(c->texts);
			free(c);
		}
		return NULL;
	}
	st->catalogue = c;
	if (og_perf_list_dir(&st->host, PMU_ROOT, collect, &pmus) != 0) {
		st->host.log(st->host.log_ctx, OG_LOG_TRACE,
		             "perf: cannot list " PMU_ROOT " (errno %d): no sysfs PMU events offered",
		             errno);
	}
	qsort(pmus.v, pmus.n, sizeof pmus.v[0], by_name);
	for (size_t i = 0; i < pmus.n; i++)
		add_pmu(st, c, pmus.v[i]);
	free(pmus.v);
	if (st->natives_all)
		add_natives(st, c);
	if (c->full)
		st->host.log(st->host.log_ctx, OG_LOG_MESSAGE,
		             "perf: more PMU events than the backend's %d raw counters; the rest are "
		             "not offered (load fewer counter files)",
		             OG_PERF_MAX_BOUND);
	*count = c->count;
	return c->descs;
}

void og_perf_catalogue_free(struct og_perf_state *st)
{
	struct og_perf_catalogue *c = st->catalogue;
	if (!c)
		return;
	for (size_t i = 0; i < c->count; i++)
		free(c->texts[i]);
	free(c->texts);
	free(c->descs);
	free(c);
	st->catalogue = NULL;
}
