/* SPDX-License-Identifier: MIT */
/* pcsweep.c — pc_sweep's options and pc_parse's report over the mips backend. */
#include "pcsweep.h"

#include "mips/control.h"
#include "mips/events.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* MD00548 Table 5, one row per option; both lists end at -1.  --itc is in
 * Table 4 but Table 5 gives it no events: it takes the ITC loads/stores and
 * ITC stall cycles of Table 3. */
struct group {
	const char *name;
	char short_opt; /* 0 = long only */
	int even[16];
	int odd[16];
};

static const struct group groups[] = {
	{"ipc", 'i', {0, -1}, {1, -1}},
	{"stalls", 's', {18, 25, 41, 45, 24, -1}, {18, 25, 41, 45, 46, -1}},
	{"all_stalls", 0, {18, 24, 25, 37, 38, 40, 41, 42, 43, 44, 45, 46, 47, 48, -1},
	 {18, 24, 25, 37, 38, 40, 41, 42, 43, 45, 46, 51, 53, 55, -1}},
	{"queues", 'q', {50, 51, 52, 53, 54, 55, -1}, {50, 51, 52, 53, 54, 55, -1}},
	{"misses", 0, {5, 6, 7, 8, 9, 10, 11, 21, 22, 39, -1}, {5, 6, 7, 8, 9, 10, 11, 21, 22, 39, -1}},
	{"instructions", 0, {1, 2, 3, 4, 14, 15, 16, 17, 19, 20, 26, 35, 32, 34, -1},
	 {2, 3, 4, 14, 15, 16, 17, 19, 20, 26, 27, 35, 32, 34, -1}},
	{"cache", 'c', {9, 10, 37, 39, -1}, {9, 10, 11, 37, -1}},
	{"branches", 'b', {2, 3, 4, 16, -1}, {2, 3, 4, 16, -1}},
	{"tlb", 0, {5, 6, 7, 8, -1}, {5, 6, 7, 8, -1}},
	{"l2", 0, {21, 22, 38, -1}, {21, 38, 39, -1}},
	{"itc", 0, {32, -1}, {32, 40, -1}},
};
#define GROUP_COUNT (sizeof groups / sizeof groups[0])

static void fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (err && errlen)
		vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static void add_group(struct pcsweep_request *req, const struct group *g)
{
	for (const int *e = g->even; *e >= 0; e++)
		req->even[*e] = true;
	for (const int *e = g->odd; *e >= 0; e++)
		req->odd[*e] = true;
}

static const struct group *find_group(const char *name)
{
	if (strcmp(name, "stalls_all") == 0) /* Table 4's spelling */
		name = "all_stalls";
	if (strcmp(name, "branch") == 0) /* Table 5's spelling */
		name = "branches";
	for (size_t i = 0; i < GROUP_COUNT; i++)
		if (strcmp(groups[i].name, name) == 0)
			return &groups[i];
	return NULL;
}

/* "18 37 39" or "18,37,39": every number must be an event of that bank. */
static int parse_events(const char *text, unsigned bank, bool *set, char *err, size_t errlen)
{
	const char *bank_name = bank == OG_MIPS_EVEN ? "--evens" : "--odds";
	const char *p = text;
	bool any = false;
	while (*p) {
		if (*p == ' ' || *p == ',' || *p == '\t') {
			p++;
			continue;
		}
		char *end;
		errno = 0;
		long v = strtol(p, &end, 10);
		if (end == p || errno || v < 0 || v > OG_MIPS_MAX_EVENT ||
		    (*end && *end != ' ' && *end != ',' && *end != '\t')) {
			fail(err, errlen, "%s \"%s\": event numbers are 0..127 separated by spaces",
			     bank_name, text);
			return -1;
		}
		if (!og_mips_event_find(bank, (unsigned)v)) {
			fail(err, errlen, "%s: event %ld is reserved on the %s counters (MD00548 Table 3)",
			     bank_name, v, bank == OG_MIPS_EVEN ? "even (0/2)" : "odd (1/3)");
			return -1;
		}
		set[v] = true;
		any = true;
		p = end;
	}
	if (!any) {
		fail(err, errlen, "%s needs a list of event numbers, e.g. %s \"18 37 39\"", bank_name,
		     bank_name);
		return -1;
	}
	return 0;
}

static int parse_index(const char *text, int max, const char *what, int *out, char *err,
                       size_t errlen)
{
	char *end;
	long v = text && *text ? strtol(text, &end, 10) : -1;
	if (!text || !*text || *end || v < 0 || v > max) {
		fail(err, errlen, "%s needs a number 0..%d", what, max);
		return -1;
	}
	*out = (int)v;
	return 0;
}

static void build_options(struct pcsweep_request *req)
{
	char modes[32] = "";
	static const struct {
		uint32_t bit;
		const char *name;
	} m[] = {{OG_MIPS_CTL_U, "u"}, {OG_MIPS_CTL_S, "s"}, {OG_MIPS_CTL_K, "k"},
	         {OG_MIPS_CTL_EXL, "exl"}};
	for (size_t i = 0; i < 4; i++)
		if (req->modes & m[i].bit) {
			if (modes[0])
				strcat(modes, "+");
			strcat(modes, m[i].name);
		}
	int n = snprintf(req->options, sizeof req->options, "modes=%s", modes);
	if (req->tc >= 0)
		snprintf(req->options + n, sizeof req->options - (size_t)n, ",tc=%d", req->tc);
	else if (req->vpe >= 0)
		snprintf(req->options + n, sizeof req->options - (size_t)n, ",vpe=%d", req->vpe);
}

/* A long option: name (without "--"), its inline "=value" or NULL. */
static int long_option(const char *name, const char *inline_value, int argc, char **argv, int *i,
                       struct pcsweep_request *req, char *err, size_t errlen)
{
	static const char *const with_value[] = {"evens", "odds", "output", "append", NULL};
	bool wants = false;
	for (size_t k = 0; with_value[k]; k++)
		wants |= strcmp(name, with_value[k]) == 0;
	const char *value = inline_value;
	if (wants && !value) {
		if (*i + 1 >= argc) {
			fail(err, errlen, "--%s needs a value", name);
			return -1;
		}
		value = argv[++*i];
	}
	if (!wants && value) {
		fail(err, errlen, "--%s takes no value", name);
		return -1;
	}
	if (strcmp(name, "user") == 0)
		req->modes |= OG_MIPS_CTL_U;
	else if (strcmp(name, "supervisor") == 0)
		req->modes |= OG_MIPS_CTL_S;
	else if (strcmp(name, "kernel") == 0)
		req->modes |= OG_MIPS_CTL_K;
	else if (strcmp(name, "exl") == 0)
		req->modes |= OG_MIPS_CTL_EXL;
	else if (strcmp(name, "parse") == 0)
		req->parse = true;
	else if (strcmp(name, "evens") == 0)
		return parse_events(value, OG_MIPS_EVEN, req->even, err, errlen);
	else if (strcmp(name, "odds") == 0)
		return parse_events(value, OG_MIPS_ODD, req->odd, err, errlen);
	else if (strcmp(name, "output") == 0 || strcmp(name, "append") == 0) {
		if (req->output) {
			fail(err, errlen, "give --output or --append once");
			return -1;
		}
		req->output = value;
		req->append = name[0] == 'a';
	} else if (strcmp(name, "all") == 0) {
		for (size_t g = 0; g < GROUP_COUNT; g++)
			add_group(req, &groups[g]);
	} else if (strcmp(name, "balance") == 0 || strcmp(name, "modes") == 0) {
		fail(err, errlen, "--%s (sweeping TCs/VPEs or modes) is not supported; run once per "
		                  "-t/-v or mode instead", name);
		return -1;
	} else {
		const struct group *g = find_group(name);
		if (!g) {
			fail(err, errlen, "unknown option --%s (see MD00548 Table 4)", name);
			return -1;
		}
		add_group(req, g);
	}
	return 0;
}

static int short_options(const char *cluster, int argc, char **argv, int *i,
                         struct pcsweep_request *req, char *err, size_t errlen)
{
	for (const char *p = cluster; *p; p++) {
		switch (*p) {
		case 'u':
			req->modes |= OG_MIPS_CTL_U;
			break;
		case 'p':
			req->parse = true;
			break;
		case 'a':
			for (size_t g = 0; g < GROUP_COUNT; g++)
				add_group(req, &groups[g]);
			break;
		case 't':
		case 'v': {
			const char *value = p[1] ? p + 1 : *i + 1 < argc ? argv[++*i] : NULL;
			int *dst = *p == 't' ? &req->tc : &req->vpe;
			if (parse_index(value, *p == 't' ? OG_MIPS_MAX_TC : OG_MIPS_MAX_VPE,
			                *p == 't' ? "-t (thread context)" : "-v (VPE)", dst, err,
			                errlen) != 0)
				return -1;
			return 0; /* the value used up the rest of the cluster */
		}
		default: {
			const struct group *g = NULL;
			for (size_t k = 0; k < GROUP_COUNT && !g; k++)
				if (groups[k].short_opt == *p)
					g = &groups[k];
			if (!g) {
				fail(err, errlen, "unknown option -%c (see MD00548 Table 4)", *p);
				return -1;
			}
			add_group(req, g);
		}
		}
	}
	return 0;
}

int pcsweep_parse(int argc, char **argv, struct pcsweep_request *req, int *cmd_index, char *err,
                  size_t errlen)
{
	memset(req, 0, sizeof *req);
	req->tc = -1;
	req->vpe = -1;
	int i = 1;
	for (; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--") == 0) {
			i++;
			break;
		}
		if (a[0] != '-' || a[1] == '\0')
			break; /* the command starts here */
		int r;
		if (a[1] == '-') {
			char name[32];
			const char *eq = strchr(a + 2, '=');
			size_t len = eq ? (size_t)(eq - (a + 2)) : strlen(a + 2);
			if (len >= sizeof name) {
				fail(err, errlen, "unknown option %s", a);
				return -1;
			}
			memcpy(name, a + 2, len);
			name[len] = '\0';
			r = long_option(name, eq ? eq + 1 : NULL, argc, argv, &i, req, err, errlen);
		} else {
			r = short_options(a + 1, argc, argv, &i, req, err, errlen);
		}
		if (r != 0)
			return -1;
	}
	*cmd_index = i;
	if (!req->modes) {
		fail(err, errlen, "a mode is mandatory: -u/--user, --supervisor, --kernel or --exl");
		return -1;
	}
	if (req->tc >= 0 && req->vpe >= 0) {
		fail(err, errlen, "-t and -v both given: the counters filter one TC or one VPE");
		return -1;
	}
	bool any = false;
	for (int e = 0; e < 128; e++)
		any |= req->even[e] || req->odd[e];
	if (!any) {
		fail(err, errlen, "no events selected: give a group (-i, -c, -s, -a...) or "
		                  "--evens/--odds");
		return -1;
	}
	build_options(req);
	return 0;
}

const char *pcsweep_backend_options(const struct pcsweep_request *req)
{
	return req->options;
}

/* The selected events as table entries, ordered by event then bank (the
 * order pc_parse prints), each raw counter once. */
static size_t selected(const struct pcsweep_request *req, const struct og_mips_event **out,
                       unsigned *bank_out, size_t cap)
{
	size_t n = 0;
	for (unsigned e = 0; e < 128; e++)
		for (unsigned b = 0; b < 2; b++) {
			if (!(b ? req->odd[e] : req->even[e]))
				continue;
			const struct og_mips_event *ev = og_mips_event_find(b, e);
			if (!ev || n == cap)
				continue;
			out[n] = ev;
			bank_out[n] = b;
			n++;
		}
	return n;
}

static bool has(const struct pcsweep_request *req, unsigned bank, unsigned event)
{
	return bank == OG_MIPS_EVEN ? req->even[event] : req->odd[event];
}

static bool has_any(const struct pcsweep_request *req, unsigned event)
{
	return req->even[event] || req->odd[event];
}

struct metric {
	const char *name;  /* public counter in mips-34k.counters */
	const char *label; /* pc_parse's wording */
	bool percent;
};

static const struct metric metrics[] = {
	{"IPC", "IPC", false},
	{"CycleSharingOverhead", "Cycle sharing overhead", true},
	{"ICacheMissRate", "I-$ miss rate", true},
	{"DCacheMissRate", "D-$ miss rate", true},
	{"BranchMispredictionRate", "Branch misprediction rate", true},
	{"L2MissRate", "L2 miss rate", true},
};

static bool metric_allowed(const struct pcsweep_request *req, size_t m)
{
	switch (m) {
	case 0: return has_any(req, 0) && has_any(req, 1);
	case 1: return has_any(req, 0) && has_any(req, 1) && has(req, OG_MIPS_EVEN, 18);
	case 2: return has(req, OG_MIPS_EVEN, 9) && has(req, OG_MIPS_ODD, 9);
	case 3: return has(req, OG_MIPS_EVEN, 10) && has_any(req, 11);
	case 4: return has(req, OG_MIPS_EVEN, 2) && has(req, OG_MIPS_ODD, 2);
	case 5: return has(req, OG_MIPS_EVEN, 22) && has(req, OG_MIPS_ODD, 21);
	default: return false;
	}
}

size_t pcsweep_counters(const struct pcsweep_request *req, const char **names, size_t cap)
{
	const struct og_mips_event *ev[256];
	unsigned bank[256];
	size_t n = selected(req, ev, bank, 256), count = 0;
	for (size_t i = 0; i < n; i++) {
		bool dup = false;
		for (size_t j = 0; j < i; j++)
			dup |= ev[j] == ev[i];
		if (dup)
			continue;
		if (count < cap)
			names[count] = ev[i]->name;
		count++;
	}
	for (size_t m = 0; m < sizeof metrics / sizeof metrics[0]; m++)
		if (metric_allowed(req, m)) {
			if (count < cap)
				names[count] = metrics[m].name;
			count++;
		}
	return count;
}

/* Raw ids of the distinct selected events, for the bank planner. */
static size_t raw_ids(const struct pcsweep_request *req, uint32_t *ids,
                      const struct og_mips_event **evs)
{
	const struct og_mips_event *ev[256];
	unsigned bank[256];
	size_t n = selected(req, ev, bank, 256), count = 0;
	for (size_t i = 0; i < n; i++) {
		bool dup = false;
		for (size_t j = 0; j < count; j++)
			dup |= evs[j] == ev[i];
		if (dup)
			continue;
		evs[count] = ev[i];
		ids[count++] = og_mips_raw_id(ev[i]->bank, ev[i]->event);
	}
	return count;
}

size_t pcsweep_passes(const struct pcsweep_request *req)
{
	uint32_t ids[256];
	const struct og_mips_event *evs[256];
	unsigned pass_of[256];
	int counter_of[256];
	size_t n = raw_ids(req, ids, evs);
	return og_mips_plan(ids, n, pass_of, counter_of);
}

void pcsweep_print_events(FILE *out, const struct pcsweep_request *req)
{
	fputs("Even-counter events:", out);
	for (int e = 0; e < 128; e++)
		if (req->even[e])
			fprintf(out, " %d", e);
	fputs("\nOdd-counter events:", out);
	for (int e = 0; e < 128; e++)
		if (req->odd[e])
			fprintf(out, " %d", e);
	fputc('\n', out);
}

FILE *pcsweep_open_output(const struct pcsweep_request *req, FILE *fallback, char *err,
                          size_t errlen)
{
	if (!req->output)
		return fallback;
	FILE *f = fopen(req->output, req->append ? "a" : "w");
	if (!f)
		fail(err, errlen, "cannot open %s for %s: %s", req->output,
		     req->append ? "appending" : "writing", strerror(errno));
	return f;
}

static bool lookup(const char *const *names, const double *values, size_t n, const char *name,
                   double *v)
{
	for (size_t i = 0; i < n; i++)
		if (names[i] && strcmp(names[i], name) == 0) {
			*v = values[i];
			return true;
		}
	return false;
}

static void mode_text(uint32_t modes, char *buf)
{
	char *p = buf;
	if (modes & OG_MIPS_CTL_U)
		*p++ = 'U';
	if (modes & OG_MIPS_CTL_S)
		*p++ = 'S';
	if (modes & OG_MIPS_CTL_K)
		*p++ = 'K';
	if (modes & OG_MIPS_CTL_EXL)
		*p++ = 'E';
	*p = '\0';
}

static void dump(FILE *out, const struct pcsweep_request *req, const char *const *names,
                 const double *values, size_t n)
{
	uint32_t ids[256];
	const struct og_mips_event *evs[256];
	unsigned pass_of[256];
	int counter_of[256];
	size_t count = raw_ids(req, ids, evs);
	size_t passes = og_mips_plan(ids, count, pass_of, counter_of);
	struct og_mips_scope_opts scope = {
		.modes = req->modes,
		.mt_en = req->tc >= 0 ? OG_MIPS_MT_TC : req->vpe >= 0 ? OG_MIPS_MT_VPE : OG_MIPS_MT_ALL,
		.tc = req->tc >= 0 ? (unsigned)req->tc : 0,
		.vpe = req->vpe >= 0 ? (unsigned)req->vpe : 0,
		.ie = true,
	};
	for (size_t p = 0; p < passes; p++) {
		fprintf(out, "# run %zu\n", p + 1);
		for (int c = 0; c < OG_MIPS_COUNTERS; c++) {
			uint32_t ctl = 0;
			double v = 0;
			bool used = false;
			for (size_t i = 0; i < count; i++)
				if (pass_of[i] == p && counter_of[i] == c) {
					ctl = og_mips_control(&scope, evs[i]->event, evs[i]->scope);
					used = lookup(names, values, n, evs[i]->name, &v);
				}
			fprintf(out, "PerfCnt[%d].Ctl : 0x%08x\n", c, (unsigned)ctl);
			fprintf(out, "PerfCnt[%d].Cnt : %.0f\n", c, used ? v : 0.0);
		}
	}
}

void pcsweep_report(FILE *out, const struct pcsweep_request *req, const char *const *names,
                    const double *values, size_t n)
{
	if (!req->parse) {
		dump(out, req, names, values, n);
		return;
	}
	char letters[8], mode[12], who[16] = "";
	mode_text(req->modes, letters);
	snprintf(mode, sizeof mode, "[%s]", letters);
	if (req->tc >= 0)
		snprintf(who, sizeof who, "TC%d", req->tc);
	else if (req->vpe >= 0)
		snprintf(who, sizeof who, "VPE%d", req->vpe);
	const struct og_mips_event *ev[256];
	unsigned bank[256];
	size_t count = selected(req, ev, bank, 256);
	fprintf(out, "%-6s %-10s %-10s %-28s %s\n", "[mode]", "[VPE TC]", "(event)",
	        "event description:", "value");
	for (size_t i = 0; i < count; i++) {
		char tag[16], where[24], label[48];
		double v;
		snprintf(tag, sizeof tag, "(%u / %u)", bank[i], (unsigned)ev[i]->event);
		snprintf(where, sizeof where, "[%s]", who);
		snprintf(label, sizeof label, "%s:", ev[i]->label);
		fprintf(out, "%-6s %-10s %-10s %-28s ", mode, where, tag, label);
		if (lookup(names, values, n, ev[i]->name, &v))
			fprintf(out, "%.0f\n", v);
		else
			fputs("n/a\n", out);
	}
	fputc('\n', out);
	for (size_t m = 0; m < sizeof metrics / sizeof metrics[0]; m++) {
		double v;
		if (!metric_allowed(req, m) || !lookup(names, values, n, metrics[m].name, &v))
			continue;
		char where[24], label[48];
		snprintf(where, sizeof where, "[%s]", who);
		snprintf(label, sizeof label, "%s:", metrics[m].label);
		fprintf(out, "%-6s %-10s %-39s ", mode, where, label);
		if (metrics[m].percent)
			fprintf(out, "%.1f%%\n", v);
		else
			fprintf(out, "%.3f\n", v);
	}
}
