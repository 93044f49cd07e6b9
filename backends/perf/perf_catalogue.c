/* SPDX-License-Identifier: MIT */
/* perf_catalogue.c — extra_raw: the event aliases sysfs PMUs publish.
 *
 * Every /sys/bus/event_source/devices/<pmu>/events/<alias> that the kernel
 * opens in the current scope becomes a raw counter named sysfs_<pmu>_<alias>
 * with the source "<pmu>/<alias>/". */
#include "perf_internal.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PMU_ROOT "/sys/bus/event_source/devices"
#define NAME_MAX_LEN 160
#define DESC_MAX_LEN 224
#define MAX_PMUS 64
#define MAX_ALIASES 512 /* per PMU */

struct og_perf_catalogue {
	size_t count;
	struct og_raw_desc *descs;
	char (*names)[NAME_MAX_LEN];
	char (*texts)[DESC_MAX_LEN];
};

int og_perf_list_dir(const struct og_backend_host *host, const char *path,
                    void (*fn)(const char *name, void *arg), void *arg)
{
	const struct og_sys *sys = host->sys;
	if (!sys->list_dir) {
		errno = ENOSYS;
		return -1;
	}
	return sys->list_dir(sys->ctx, path, fn, arg);
}

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

static void add_pmu(struct og_perf_state *st, struct og_perf_catalogue *c, size_t cap,
                    const char *pmu)
{
	char path[160];
	snprintf(path, sizeof path, PMU_ROOT "/%s/events", pmu);
	struct names aliases = { calloc(MAX_ALIASES, sizeof *aliases.v), 0, MAX_ALIASES };
	if (!aliases.v)
		return;
	if (og_perf_list_dir(&st->host, path, collect, &aliases) == 0) {
		/* Directory order is the filesystem's: sort for a stable list. */
		qsort(aliases.v, aliases.n, sizeof aliases.v[0], by_name);
		for (size_t i = 0; i < aliases.n && c->count < cap; i++) {
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
			if (id == UINT32_MAX)
				break;
			char *name = c->names[c->count], *text = c->texts[c->count];
			snprintf(name, NAME_MAX_LEN, "sysfs_%s_%s", pmu, aliases.v[i]);
			sanitize(name);
			snprintf(text, DESC_MAX_LEN, "Event %s of the %s PMU, as its sysfs events "
			         "directory names it.", aliases.v[i], pmu);
			bool cycles = strstr(aliases.v[i], "cycles") != NULL;
			c->descs[c->count] = (struct og_raw_desc){
				name, text, cycles ? GPA_USAGE_TYPE_CYCLES : GPA_USAGE_TYPE_ITEMS, id
			};
			c->count++;
		}
	}
	free(aliases.v);
}

const struct og_raw_desc *og_perf_catalogue(struct og_perf_state *st, size_t *count)
{
	*count = 0;
	if (st->catalogue) {
		*count = st->catalogue->count;
		return st->catalogue->descs;
	}
	struct og_perf_catalogue *c = calloc(1, sizeof *c);
	size_t cap = OG_PERF_MAX_BOUND - st->nbound;
	struct names pmus = { calloc(MAX_PMUS, sizeof *pmus.v), 0, MAX_PMUS };
	if (c && pmus.v) {
		c->descs = calloc(cap ? cap : 1, sizeof *c->descs);
		c->names = calloc(cap ? cap : 1, sizeof *c->names);
		c->texts = calloc(cap ? cap : 1, sizeof *c->texts);
	}
	if (!c || !pmus.v || !c->descs || !c->names || !c->texts) {
		st->host.log(st->host.log_ctx, OG_LOG_ERROR,
		             "perf: out of memory listing the sysfs PMU events; the raw PMU "
		             "events are not offered");
		free(pmus.v);
		if (c) {
			free(c->descs);
			free(c->names);
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
		add_pmu(st, c, cap, pmus.v[i]);
	free(pmus.v);
	*count = c->count;
	return c->descs;
}

void og_perf_catalogue_free(struct og_perf_state *st)
{
	if (!st->catalogue)
		return;
	free(st->catalogue->descs);
	free(st->catalogue->names);
	free(st->catalogue->texts);
	free(st->catalogue);
	st->catalogue = NULL;
}
