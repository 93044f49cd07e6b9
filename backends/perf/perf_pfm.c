/* SPDX-License-Identifier: MIT */
/*
 * perf_pfm.c — CPU PMU events by name, from libpfm4's tables.
 *
 * libpfm4 (the library PAPI uses) knows the events of most Intel, AMD and
 * Arm cores: it finds which one this CPU is (CPUID, /proc/cpuinfo) and
 * encodes an event name into the perf_event_attr the kernel wants.  The
 * backend takes only the event's type and config words from it; scope,
 * exclusions and grouping stay the backend's.  LIBPFM_FORCE_PMU=<name> makes
 * libpfm4 take another core model (how the tests ask for one by name).
 *
 * libpfm4 reads the CPU's identity itself, not through the syscall table:
 * what it detects is the real machine's (or the forced model).
 *
 * The library is loaded with dlopen, not linked: its tables carry 41,000
 * relocations and 2.3 MB of memory, which loading libopengpa made every
 * process pay (issue 29), a game using only a GPU backend included.  Nor is
 * it loaded when a perf context opens: only when a name must be looked up
 * (a counter file's or `-e`'s event name, or natives=all), so a context that
 * counts the built-in sets never loads it (og_perf_pfm_load).  Built with
 * libpfm4's headers, the backend finds libpfm.so.4 at run time, and says so
 * where it is missing.
 */
#include "perf_internal.h"

#include <ctype.h>
#include <dlfcn.h>
#include <perfmon/pfmlib_perf_event.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* libpfm4's entry points, looked up once per process and never changed
 * after (pthread_once): like libpfm4's own tables, process-wide. */
static struct pfm_api {
	pfm_err_t (*initialize)(void);
	const char *(*strerror)(int code);
	pfm_err_t (*get_pmu_info)(pfm_pmu_t pmu, pfm_pmu_info_t *output);
	int (*get_event_next)(int idx);
	pfm_err_t (*get_event_info)(int idx, pfm_os_t os, pfm_event_info_t *output);
	pfm_err_t (*get_os_event_encoding)(const char *str, int dfl_plm, pfm_os_t os, void *args);
	pfm_err_t (*get_event_attr_info)(int eidx, int aidx, pfm_os_t os,
	                                 pfm_event_attr_info_t *output);
	char why[200]; /* "" once loaded */
} api;
static pthread_once_t api_once = PTHREAD_ONCE_INIT;

static void api_load(void)
{
	void *h = dlopen("libpfm.so.4", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(api.why, sizeof api.why, "libpfm4 is not installed (%s): install libpfm4 "
		         "(Debian: libpfm4) for CPU events by name", dlerror());
		return;
	}
	/* dlsym's object pointer copied into the function pointer, as POSIX
	 * allows. */
#define SYM(field, name)                                                                  \
	do {                                                                              \
		void *sym = dlsym(h, name);                                               \
		memcpy(&api.field, &sym, sizeof sym);                                     \
	} while (0)
	SYM(initialize, "pfm_initialize");
	SYM(strerror, "pfm_strerror");
	SYM(get_pmu_info, "pfm_get_pmu_info");
	SYM(get_event_next, "pfm_get_event_next");
	SYM(get_event_info, "pfm_get_event_info");
	SYM(get_os_event_encoding, "pfm_get_os_event_encoding");
	SYM(get_event_attr_info, "pfm_get_event_attr_info");
#undef SYM
	if (!api.initialize || !api.strerror || !api.get_pmu_info || !api.get_event_next ||
	    !api.get_event_info || !api.get_os_event_encoding || !api.get_event_attr_info)
		snprintf(api.why, sizeof api.why, "the installed libpfm.so.4 lacks functions of "
		         "libpfm4 4.x (an old or a stripped build): update libpfm4");
}

static bool pmu_info(pfm_pmu_t p, pfm_pmu_info_t *info)
{
	memset(info, 0, sizeof *info);
	info->size = sizeof *info;
	return api.get_pmu_info(p, info) == PFM_SUCCESS;
}

static bool event_info(int idx, pfm_event_info_t *info)
{
	memset(info, 0, sizeof *info);
	info->size = sizeof *info;
	return api.get_event_info(idx, PFM_OS_PERF_EVENT, info) == PFM_SUCCESS;
}

bool og_perf_pfm_load(struct og_perf_state *st)
{
	if (st->pfm_asked)
		return st->pfm_pmus[0] != '\0';
	st->pfm_asked = true;
	const struct og_backend_host *h = &st->host;
	st->pfm_pmus[0] = '\0';
	pthread_once(&api_once, api_load);
	if (api.why[0]) {
		st->pfm_why = api.why;
		h->log(h->log_ctx, OG_LOG_TRACE, "perf: %s; CPU events are known by sysfs alias and "
		       "raw code only", st->pfm_why);
		return false;
	}
	int r = api.initialize();
	if (r != PFM_SUCCESS) {
		st->pfm_why = og_perf_note(st, "libpfm4 did not initialise",
		                           "libpfm4 did not initialise (%s)", api.strerror(r));
		h->log(h->log_ctx, OG_LOG_TRACE, "perf: %s; CPU events are known by sysfs alias and "
		       "raw code only", st->pfm_why);
		return false;
	}
	pfm_pmu_t p;
	pfm_for_all_pmus(p) {
		pfm_pmu_info_t info;
		if (!pmu_info(p, &info) || !info.is_present || info.type != PFM_PMU_TYPE_CORE)
			continue;
		size_t used = strlen(st->pfm_pmus);
		snprintf(st->pfm_pmus + used, sizeof st->pfm_pmus - used, "%s%s", used ? " " : "",
		         info.name);
	}
	if (!st->pfm_pmus[0]) {
		st->pfm_why = "libpfm4 does not know this CPU's PMU (a core newer than the installed "
		              "libpfm4, or a virtual CPU)";
		h->log(h->log_ctx, OG_LOG_TRACE, "perf: %s; CPU events are known by sysfs alias and "
		       "raw code only", st->pfm_why);
		return false;
	}
	h->log(h->log_ctx, OG_LOG_TRACE, "perf: libpfm4 names this CPU's events (PMU %s)",
	       st->pfm_pmus);
	return true;
}

/* Is PMU `name` one of this CPU's core PMUs (st->pfm_pmus)? */
static bool ours(const struct og_perf_state *st, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = st->pfm_pmus; *p;) {
		size_t len = strcspn(p, " ");
		if (len == n && strncmp(p, name, n) == 0)
			return true;
		p += len + (p[len] == ' ');
	}
	return false;
}

/* The core PMUs libpfm4 has an event of this name on ("arm_n2, arm_v2"),
 * this CPU's excepted.  event may carry a "pmu::" prefix and a unit mask. */
static void other_cores(const struct og_perf_state *st, const char *event, char *out,
                        size_t len)
{
	const char *sep = strstr(event, "::");
	const char *base = sep ? sep + 2 : event;
	size_t blen = strcspn(base, ":.");
	size_t used = 0, more = 0;
	out[0] = '\0';
	pfm_pmu_t p;
	pfm_for_all_pmus(p) {
		pfm_pmu_info_t info;
		if (!pmu_info(p, &info) || info.type != PFM_PMU_TYPE_CORE || ours(st, info.name))
			continue;
		for (int idx = info.first_event; idx != -1; idx = api.get_event_next(idx)) {
			pfm_event_info_t ev;
			if (!event_info(idx, &ev) || strlen(ev.name) != blen ||
			    strncasecmp(ev.name, base, blen) != 0)
				continue;
			if (used + strlen(info.name) + 3 < len && more == 0)
				used += (size_t)snprintf(out + used, len - used, "%s%s", used ? ", " : "",
				                         info.name);
			else
				more++;
			break;
		}
	}
	if (more)
		snprintf(out + used, len - used, " and %zu more", more);
}

/* libpfm4's encoding of `event`: PFM_SUCCESS with *attr and *pmu filled,
 * or libpfm4's error. */
static int encode(const char *event, struct perf_event_attr *attr, pfm_pmu_info_t *pmu)
{
	pfm_perf_encode_arg_t arg;
	memset(attr, 0, sizeof *attr);
	memset(&arg, 0, sizeof arg);
	arg.size = sizeof arg;
	arg.attr = attr;
	int r = api.get_os_event_encoding(event, PFM_PLM0 | PFM_PLM3, PFM_OS_PERF_EVENT, &arg);
	pfm_event_info_t ev;
	if (r == PFM_SUCCESS && !(event_info(arg.idx, &ev) && pmu_info(ev.pmu, pmu)))
		r = PFM_ERR_NOTFOUND;
	return r;
}

static bool usable(const struct og_perf_state *st, const pfm_pmu_info_t *pmu)
{
	return ours(st, pmu->name) || pmu->type == PFM_PMU_TYPE_OS_GENERIC;
}

/* The name the catalogue gives an event with natives=all (counter_name
 * below: INST_RETIRED_ANY_P, or a second core PMU's adl_grt_INST_RETIRED_ANY)
 * back to libpfm4's spelling: each '_' in turn is tried as the ':' before
 * the unit mask, after the PMU's "name::" where the name starts with one of
 * this CPU's core PMUs.  A handful of look-ups by name, never a walk of the
 * table; PFM_SUCCESS with *attr and *pmu, or PFM_ERR_NOTFOUND. */
/* `head` then `rest` with each of rest's '_' in turn as ':', then (with a
 * head) rest as it is: PFM_SUCCESS at the first of ours. */
static int encode_splits(const struct og_perf_state *st, const char *head, const char *rest,
                         struct perf_event_attr *attr, pfm_pmu_info_t *pmu)
{
	char spec[2 * OG_PERF_SOURCE_MAX];
	for (const char *u = strchr(rest, '_'); u; u = strchr(u + 1, '_')) {
		snprintf(spec, sizeof spec, "%s%.*s:%s", head, (int)(u - rest), rest, u + 1);
		if (encode(spec, attr, pmu) == PFM_SUCCESS && usable(st, pmu))
			return PFM_SUCCESS;
	}
	snprintf(spec, sizeof spec, "%s%s", head, rest);
	if (head[0] && encode(spec, attr, pmu) == PFM_SUCCESS && usable(st, pmu))
		return PFM_SUCCESS;
	return PFM_ERR_NOTFOUND;
}

static int encode_counter_name(const struct og_perf_state *st, const char *name,
                               struct perf_event_attr *attr, pfm_pmu_info_t *pmu)
{
	if (strchr(name, ':') || strlen(name) >= OG_PERF_SOURCE_MAX)
		return PFM_ERR_NOTFOUND;
	if (encode_splits(st, "", name, attr, pmu) == PFM_SUCCESS)
		return PFM_SUCCESS;
	for (const char *p = st->pfm_pmus; *p;) {
		size_t len = strcspn(p, " ");
		if (len < 64 && strncasecmp(name, p, len) == 0 && name[len] == '_') {
			char head[72];
			snprintf(head, sizeof head, "%.*s::", (int)len, p);
			if (encode_splits(st, head, name + len + 1, attr, pmu) == PFM_SUCCESS)
				return PFM_SUCCESS;
		}
		p += len + (p[len] == ' ');
	}
	return PFM_ERR_NOTFOUND;
}

GPA_Status og_perf_pfm_encode(struct og_perf_state *st, const char *event,
                              struct og_perf_bound *b, const char **why_not)
{
	if (!og_perf_pfm_load(st)) {
		*why_not = st->pfm_why;
		return GPA_STATUS_ERROR_NOT_FOUND;
	}
	st->pfm_lookups++;
	struct perf_event_attr attr;
	pfm_pmu_info_t pmu;
	int r = encode(event, &attr, &pmu);
	if (r == PFM_ERR_NOTFOUND && encode_counter_name(st, event, &attr, &pmu) == PFM_SUCCESS)
		r = PFM_SUCCESS;
	if (r == PFM_SUCCESS && usable(st, &pmu)) {
		/* Only the event itself; privilege levels and the rest are the
		 * backend's. */
		b->type = attr.type;
		b->config = attr.config;
		b->config1 = attr.config1;
		b->config2 = attr.config2;
		b->kind = attr.type == PERF_TYPE_SOFTWARE ? OG_PERF_KIND_SW : OG_PERF_KIND_HW;
		return GPA_STATUS_OK;
	}
	if (r == PFM_SUCCESS) {
		*why_not = og_perf_note(st, "libpfm4 knows that event only on a PMU other than this "
		                            "CPU's core PMU",
		                        "libpfm4 finds %s on its %s PMU, not on this CPU's core PMU "
		                        "(%s)", event, pmu.name, st->pfm_pmus);
		return GPA_STATUS_ERROR_NOT_FOUND;
	}
	if (r != PFM_ERR_NOTFOUND) {
		/* The event exists but the spelling of its unit mask or modifier
		 * does not. */
		*why_not = og_perf_note(st, "libpfm4 refused that event's unit mask or modifiers",
		                        "libpfm4 refused %s on this CPU (%s): %s", event, st->pfm_pmus,
		                        api.strerror(r));
		return GPA_STATUS_ERROR_NOT_FOUND;
	}
	char others[160];
	other_cores(st, event, others, sizeof others);
	if (others[0])
		*why_not = og_perf_note(st, "an event of other cores in libpfm4's tables, not of "
		                            "this one",
		                        "%s is an event of %s in libpfm4's tables, not of this CPU "
		                        "(%s)", event, others, st->pfm_pmus);
	else
		*why_not = og_perf_note(st, "libpfm4 knows no event of that name",
		                        "libpfm4 knows no event %s on this CPU (%s) or any other",
		                        event, st->pfm_pmus);
	return GPA_STATUS_ERROR_NOT_FOUND;
}

/* "INST_RETIRED:ANY_P" as a counter name: INST_RETIRED_ANY_P. */
static void counter_name(char *out, size_t len, const char *prefix, const char *event,
                         const char *umask)
{
	snprintf(out, len, "%s%s%s%s", prefix, event, umask ? "_" : "", umask ? umask : "");
	for (char *c = out; *c; c++)
		if (!isalnum((unsigned char)*c))
			*c = '_';
}

void og_perf_pfm_each(struct og_perf_state *st,
                      void (*fn)(void *arg, const char *event, const char *name, const char *desc),
                      void *arg)
{
	if (!og_perf_pfm_load(st))
		return; /* libpfm4 absent or not knowing this CPU: none of ours */
	bool first = true;
	pfm_pmu_t p;
	pfm_for_all_pmus(p) {
		pfm_pmu_info_t pmu;
		if (!pmu_info(p, &pmu) || !ours(st, pmu.name))
			continue;
		/* A hybrid CPU's second core PMU has events of the same names. */
		char prefix[72];
		snprintf(prefix, sizeof prefix, "%s%s", first ? "" : pmu.name, first ? "" : "_");
		first = false;
		for (int idx = pmu.first_event; idx != -1; idx = api.get_event_next(idx)) {
			pfm_event_info_t ev;
			if (!event_info(idx, &ev))
				continue;
			char spec[256], name[160], desc[512];
			int umasks = 0;
			for (int a = 0; a < ev.nattrs; a++) {
				pfm_event_attr_info_t at;
				memset(&at, 0, sizeof at);
				at.size = sizeof at;
				if (api.get_event_attr_info(idx, a, PFM_OS_PERF_EVENT, &at) != PFM_SUCCESS ||
				    at.type != PFM_ATTR_UMASK)
					continue;
				umasks++;
				snprintf(spec, sizeof spec, "%s::%s:%s", pmu.name, ev.name, at.name);
				counter_name(name, sizeof name, prefix, ev.name, at.name);
				/* "L2 lines evicted." and "Non-modified lines dropped":
				 * one sentence, the event then its unit mask. */
				const char *e = ev.desc ? ev.desc : ev.name;
				int elen = (int)strlen(e);
				if (elen > 0 && e[elen - 1] == '.')
					elen--;
				snprintf(desc, sizeof desc, "%.*s: %s", elen, e, at.desc ? at.desc : at.name);
				fn(arg, spec, name, desc);
			}
			if (umasks)
				continue;
			snprintf(spec, sizeof spec, "%s::%s", pmu.name, ev.name);
			counter_name(name, sizeof name, prefix, ev.name, NULL);
			fn(arg, spec, name, ev.desc ? ev.desc : "");
		}
	}
}
