/* SPDX-License-Identifier: MIT */
/* pcsweep.c — pc_sweep's options and pc_parse's report over the mips backend. */
#include "pcsweep.h"

#include "cli_options.h"
#include "mips/control.h"
#include "mips/events.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* MD00548 Table 5, one row per option; both lists end at -1.  --itc is in
 * Table 4 but Table 5 gives it no events: it takes the ITC loads/stores and
 * ITC stall cycles of Table 3. */
struct group {
	const char *name; /* its long option; docs/man/opengpa-pc_sweep.1.txt has the short ones */
	int even[16];
	int odd[16];
};

static const struct group groups[] = {
	{"ipc", {0, -1}, {1, -1}},
	{"stalls", {18, 25, 41, 45, 24, -1}, {18, 25, 41, 45, 46, -1}},
	{"all_stalls", {18, 24, 25, 37, 38, 40, 41, 42, 43, 44, 45, 46, 47, 48, -1},
	 {18, 24, 25, 37, 38, 40, 41, 42, 43, 45, 46, 51, 53, 55, -1}},
	{"queues", {50, 51, 52, 53, 54, 55, -1}, {50, 51, 52, 53, 54, 55, -1}},
	{"misses", {5, 6, 7, 8, 9, 10, 11, 21, 22, 39, -1}, {5, 6, 7, 8, 9, 10, 11, 21, 22, 39, -1}},
	{"instructions", {1, 2, 3, 4, 14, 15, 16, 17, 19, 20, 26, 35, 32, 34, -1},
	 {2, 3, 4, 14, 15, 16, 17, 19, 20, 26, 27, 35, 32, 34, -1}},
	{"cache", {9, 10, 37, 39, -1}, {9, 10, 11, 37, -1}},
	{"branches", {2, 3, 4, 16, -1}, {2, 3, 4, 16, -1}},
	{"tlb", {5, 6, 7, 8, -1}, {5, 6, 7, 8, -1}},
	{"l2", {21, 22, 38, -1}, {21, 38, 39, -1}},
	{"itc", {32, -1}, {32, 40, -1}},
};
#define GROUP_COUNT (sizeof groups / sizeof groups[0])

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
static enum cli_error parse_events(const char *text, unsigned bank, bool *set, char *err,
                                   size_t errlen)
{
	const char *bank_name = bank == OG_MIPS_EVEN ? "--evens" : "--odds";
	bool any = false;
	for (const char *p = text; *p;) {
		size_t len = strcspn(p, " ,\t");
		if (len == 0) {
			p++;
			continue;
		}
		char number[8];
		uint64_t v;
		if (len >= sizeof number || (memcpy(number, p, len), number[len] = '\0',
		                             !cli_parse_uint(number, 0, OG_MIPS_MAX_EVENT, &v)))
			return cli_refuse(err, errlen, "event numbers are 0..127 separated by spaces or "
			                  "commas");
		if (!og_mips_event_find(bank, (unsigned)v))
			return cli_refuse(err, errlen, "event %u is reserved on the %s counters (MD00548 "
			                  "Table 3)", (unsigned)v,
			                  bank == OG_MIPS_EVEN ? "even (0/2)" : "odd (1/3)");
		set[v] = true;
		any = true;
		p += len;
	}
	if (!any)
		return cli_refuse(err, errlen, "needs a list of event numbers, e.g. %s \"18 37 39\"",
		                  bank_name);
	return CLI_OK;
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
	/* perf_event's modes: the MIPS driver counts K and EXL together
	 * (exclude_kernel) and S for exclude_hv. */
	snprintf(req->perf_options, sizeof req->perf_options, "modes=%s%s%s",
	         req->modes & OG_MIPS_CTL_U ? "u+" : "",
	         req->modes & (OG_MIPS_CTL_K | OG_MIPS_CTL_EXL) ? "k+" : "",
	         req->modes & OG_MIPS_CTL_S ? "h+" : "");
	req->perf_options[strlen(req->perf_options) - 1] = '\0'; /* the last '+' */
	int n = snprintf(req->options, sizeof req->options, "modes=%s", modes);
	if (req->tc >= 0)
		snprintf(req->options + n, sizeof req->options - (size_t)n, ",tc=%d", req->tc);
	else if (req->vpe >= 0)
		snprintf(req->options + n, sizeof req->options - (size_t)n, ",vpe=%d", req->vpe);
}

/* One option of docs/man/opengpa-pc_sweep.1.txt. */
static enum cli_error apply(void *ctx, int key, const struct cli_option *opt, const char *value,
                            char *err, size_t errlen)
{
	struct pcsweep_request *req = ctx;
	uint64_t n;
	switch ((enum pc_sweep_opt)key) {
	case PC_SWEEP_OPT_USER: req->modes |= OG_MIPS_CTL_U; return CLI_OK;
	case PC_SWEEP_OPT_SUPERVISOR: req->modes |= OG_MIPS_CTL_S; return CLI_OK;
	case PC_SWEEP_OPT_KERNEL: req->modes |= OG_MIPS_CTL_K; return CLI_OK;
	case PC_SWEEP_OPT_EXL: req->modes |= OG_MIPS_CTL_EXL; return CLI_OK;
	case PC_SWEEP_OPT_GROUP: {
		/* Every group option's first long name is the group's. */
		const struct group *g = find_group(opt->longs[0]);
		if (!g)
			return CLI_ERR_UNHANDLED;
		add_group(req, g);
		return CLI_OK;
	}
	case PC_SWEEP_OPT_ALL:
		for (size_t g = 0; g < GROUP_COUNT; g++)
			add_group(req, &groups[g]);
		return CLI_OK;
	case PC_SWEEP_OPT_EVENS: return parse_events(value, OG_MIPS_EVEN, req->even, err, errlen);
	case PC_SWEEP_OPT_ODDS: return parse_events(value, OG_MIPS_ODD, req->odd, err, errlen);
	case PC_SWEEP_OPT_TC:
		if (!cli_parse_uint(value, 0, OG_MIPS_MAX_TC, &n))
			return cli_refuse(err, errlen, "-t (thread context) needs a number 0..%d",
			                  OG_MIPS_MAX_TC);
		req->tc = (int)n;
		return CLI_OK;
	case PC_SWEEP_OPT_VPE:
		if (!cli_parse_uint(value, 0, OG_MIPS_MAX_VPE, &n))
			return cli_refuse(err, errlen, "-v (VPE) needs a number 0..%d", OG_MIPS_MAX_VPE);
		req->vpe = (int)n;
		return CLI_OK;
	case PC_SWEEP_OPT_PARSE: req->parse = true; return CLI_OK;
	case PC_SWEEP_OPT_OUTPUT:
	case PC_SWEEP_OPT_APPEND:
		if (req->output)
			return cli_refuse(err, errlen, "give --output or --append once");
		if (!*value)
			return cli_refuse(err, errlen, "no file named");
		req->output = value;
		req->append = key == PC_SWEEP_OPT_APPEND;
		return CLI_OK;
	case PC_SWEEP_OPT_UNSUPPORTED:
		return cli_refuse(err, errlen, "sweeping TCs/VPEs or modes is not supported; run once "
		                  "per -t/-v or mode instead");
	case PC_SWEEP_OPT_HELP: req->help = true; return CLI_OK;
	}
	return CLI_ERR_UNHANDLED;
}

int pcsweep_parse(int argc, char **argv, struct pcsweep_request *req, int *cmd_index, char *err,
                  size_t errlen)
{
	memset(req, 0, sizeof *req);
	req->tc = -1;
	req->vpe = -1;
	*cmd_index = argc;
	if (cli_parse(&cli_command_pc_sweep, argc, argv, apply, req, cmd_index, err, errlen) != CLI_OK)
		return -1;
	if (req->help)
		return 0;
	if (!req->modes) {
		cli_refuse(err, errlen, "a mode is mandatory: -u/--user, --supervisor, --kernel or --exl");
		return -1;
	}
	if (req->tc >= 0 && req->vpe >= 0) {
		cli_refuse(err, errlen, "-t and -v both given: the counters filter one TC or one VPE");
		return -1;
	}
	bool any = false;
	for (int e = 0; e < 128; e++)
		any |= req->even[e] || req->odd[e];
	if (!any) {
		cli_refuse(err, errlen, "no events selected: give a group (-i, -c, -s, -a...) or "
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
	/* Close-on-exec: the measured command must not inherit the report. */
	FILE *f = fopen(req->output, req->append ? "ae" : "we");
	if (!f) {
		char name[256];
		cli_refuse(err, errlen, "cannot open %s for %s: %s",
		           cli_escape(req->output, name, sizeof name),
		           req->append ? "appending" : "writing", strerror(errno));
	}
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
