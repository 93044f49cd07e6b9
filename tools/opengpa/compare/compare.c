/* SPDX-License-Identifier: MIT */
/*
 * compare.c — `opengpa compare A.json B.json`: two `opengpa stat
 * --opengpa-json` documents, counter by counter, with Welch's t-test
 * (stats.h), sorted by significance; --fail-on gates for CI.
 */
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "cli_options.h"
#include "compare.h"
#include "format.h"
#include "json.h"
#include "stats.h"
#include "util/readfile.h"

/* One counter of one document. */
struct side_counter {
	const char *name, *group, *usage, *aliases; /* into the parsed document */
	bool counted;
	double mean, rel; /* rel: the standard error of the mean, % of it (<0: not given) */
	/* From run_values, where the document has them: the runs' count and
	 * the standard error of their mean (mean then is theirs); nruns 0: the
	 * summary (mean, rel) is all there is. */
	unsigned nruns;
	double se;
};

struct doc {
	const char *path;
	struct og_json json;
	const char *device, *backend;
	unsigned repeats;
	struct side_counter *counters;
	size_t count;
};

struct row {
	const struct side_counter *a, *b; /* either may be NULL: only in one document */
	struct stats_welch w;
	double pct, lo_pct, hi_pct;       /* of A's mean; NaN when A's mean is 0 */
	const char *verdict;
	bool crossed;                     /* a --fail-on rule's limit */
};

static const struct og_file_kind doc_kind = {
	"profile", 64u << 20,
	"give a file that `opengpa stat -r N --opengpa-json -o FILE` wrote",
};

static const char *str_member(const struct og_json *o, const char *key)
{
	const struct og_json *v = og_json_get(o, key);
	return v && v->type == OG_JSON_STRING ? v->string : NULL;
}

/* A counter's run_values (`opengpa stat -r N --opengpa-json`), where it has
 * them: their mean and its standard error (the sample standard deviation
 * over sqrt(n), two passes for accuracy) replace the document's summary,
 * whose spread is rounded to two decimals.  False when present but not an
 * array of finite numbers. */
static bool run_values(const struct og_json *c, struct side_counter *s)
{
	const struct og_json *runs = og_json_get(c, "run_values");
	if (!runs)
		return true;
	if (runs->type != OG_JSON_ARRAY || runs->n > (size_t)1000000000)
		return false;
	double sum = 0.0;
	for (size_t k = 0; k < runs->n; k++) {
		const struct og_json *x = &runs->items[k];
		if (x->type != OG_JSON_NUMBER || !isfinite(x->number))
			return false;
		sum += x->number;
	}
	if (runs->n == 0 || !s->counted)
		return true; /* nothing to test on: the summary stands */
	double n = (double)runs->n, mean = sum / n, m2 = 0.0;
	for (size_t k = 0; k < runs->n; k++)
		m2 += (runs->items[k].number - mean) * (runs->items[k].number - mean);
	s->nruns = (unsigned)runs->n;
	s->mean = mean;
	s->se = runs->n >= 2 ? sqrt(m2 / (n - 1.0) / n) : 0.0;
	return true;
}

/* Reads and checks one document; on failure a line on standard error and
 * false (unload() it either way). */
static bool load(struct doc *d, const char *path)
{
	memset(d, 0, sizeof *d);
	d->path = path;
	char err[512], shown[256];
	size_t len = 0;
	char *text = og_read_regular(path, &doc_kind, &len, err, sizeof err);
	if (!text) {
		fprintf(stderr, "opengpa compare: %s\n", err);
		return false;
	}
	char jerr[256];
	bool ok = og_json_parse(text, len, &d->json, jerr, sizeof jerr);
	free(text);
	cli_escape(path, shown, sizeof shown);
	if (!ok) {
		fprintf(stderr, "opengpa compare: %s: not JSON (%s); give a file that `opengpa stat "
		        "--opengpa-json -o FILE` wrote\n", shown, jerr);
		return false;
	}
	const struct og_json *list = og_json_get(&d->json, "counters");
	const struct og_json *reps = og_json_get(&d->json, "repeats");
	if (!list || list->type != OG_JSON_ARRAY || !reps || reps->type != OG_JSON_NUMBER ||
	    !(reps->number >= 1.0 && reps->number <= 1e9) || reps->number != floor(reps->number)) {
		fprintf(stderr, "opengpa compare: %s: no \"counters\" array or \"repeats\" count: not "
		        "a document of `opengpa stat --opengpa-json` (perf's --json lines are not "
		        "one); write it with --opengpa-json\n", shown);
		return false;
	}
	d->repeats = (unsigned)reps->number;
	d->device = str_member(&d->json, "device");
	d->backend = str_member(&d->json, "backend");
	d->counters = calloc(list->n ? list->n : 1, sizeof *d->counters);
	if (!d->counters) {
		fprintf(stderr, "opengpa compare: out of memory reading %s\n", shown);
		return false;
	}
	for (size_t i = 0; i < list->n; i++) {
		const struct og_json *c = &list->items[i];
		struct side_counter *s = &d->counters[d->count];
		s->name = str_member(c, "name");
		const struct og_json *v = og_json_get(c, "value");
		const struct og_json *rel = og_json_get(c, "rel_stddev_percent");
		if (c->type != OG_JSON_OBJECT || !s->name || !*s->name || !v ||
		    (v->type != OG_JSON_NUMBER && v->type != OG_JSON_NULL) ||
		    (rel && rel->type != OG_JSON_NUMBER)) {
			fprintf(stderr, "opengpa compare: %s: counter %zu has no \"name\", or a \"value\" "
			        "or \"rel_stddev_percent\" that is not a number; write the file with "
			        "`opengpa stat --opengpa-json`\n", shown, i + 1);
			return false;
		}
		s->group = str_member(c, "group");
		s->usage = str_member(c, "usage");
		s->counted = v->type == OG_JSON_NUMBER && isfinite(v->number);
		s->mean = s->counted ? v->number : 0.0;
		s->rel = rel && rel->number >= 0.0 ? rel->number : -1.0;
		if (!run_values(c, s)) {
			fprintf(stderr, "opengpa compare: %s: counter %zu's \"run_values\" is not an "
			        "array of finite numbers; write the file with `opengpa stat -r N "
			        "--opengpa-json`\n", shown, i + 1);
			return false;
		}
		d->count++;
	}
	return true;
}

static void unload(struct doc *d)
{
	free(d->counters);
	og_json_free(&d->json);
}

static const struct side_counter *find(const struct doc *d, const char *name)
{
	for (size_t i = 0; i < d->count; i++)
		if (strcasecmp(d->counters[i].name, name) == 0)
			return &d->counters[i];
	return NULL;
}

/* The standard error of a side's mean from its document: rel % of the
 * mean; a spread printed as 0.00 may be up to 0.005 % (report.c prints two
 * decimals), so that bound is taken: the test errs toward "not significant". */
static struct stats_side side(const struct side_counter *c, unsigned repeats)
{
	struct stats_side s = { c->mean, 0.0, repeats };
	if (c->nruns) {
		/* The runs themselves: no rounding, and the runs that counted. */
		s.se = c->se;
		s.n = c->nruns;
		return s;
	}
	if (repeats < 2)
		return s;
	double rel = c->rel;
	if (rel < 0.0)
		s.n = 1; /* a run count without a spread: nothing to test */
	else
		s.se = fabs(c->mean) * (rel < 0.005 ? 0.005 : rel) / 100.0;
	return s;
}

static void compute(struct row *r, const struct doc *a, const struct doc *b, double alpha)
{
	struct stats_side sa = side(r->a, a->repeats), sb = side(r->b, b->repeats);
	stats_welch(&sa, &sb, alpha, &r->w);
	double base = fabs(sa.mean);
	r->pct = base > 0.0 ? 100.0 * r->w.diff / base : (r->w.diff == 0.0 ? 0.0 : NAN);
	r->lo_pct = base > 0.0 ? 100.0 * r->w.lo / base : NAN;
	r->hi_pct = base > 0.0 ? 100.0 * r->w.hi / base : NAN;
	if (!r->w.tested)
		r->verdict = "untested";
	else if (r->w.p < alpha)
		r->verdict = r->w.diff > 0.0 ? "higher" : "lower";
	else
		r->verdict = "n.s.";
}

/* Smallest p first (untested last), then the largest change. */
static int by_significance(const void *x, const void *y)
{
	const struct row *a = x, *b = y;
	bool ta = a->w.tested && !isnan(a->w.p), tb = b->w.tested && !isnan(b->w.p);
	if (ta != tb)
		return ta ? -1 : 1;
	if (ta && a->w.p != b->w.p)
		return a->w.p < b->w.p ? -1 : 1;
	double ca = isnan(a->pct) ? INFINITY : fabs(a->pct);
	double cb = isnan(b->pct) ? INFINITY : fabs(b->pct);
	if (ca != cb)
		return ca > cb ? -1 : 1;
	return strcmp(a->a->name, b->a->name);
}

static bool counter_matches(const struct compare_rule *rule, const struct og_json *doc,
                            const char *name)
{
	if (fnmatch(rule->pattern, name, FNM_CASEFOLD) == 0)
		return true;
	/* and its aliases, as the document lists them */
	const struct og_json *list = og_json_get(doc, "counters");
	for (size_t i = 0; list && i < list->n; i++) {
		const char *n = str_member(&list->items[i], "name");
		if (!n || strcasecmp(n, name) != 0)
			continue;
		const struct og_json *al = og_json_get(&list->items[i], "aliases");
		for (size_t j = 0; al && al->type == OG_JSON_ARRAY && j < al->n; j++)
			if (al->items[j].type == OG_JSON_STRING &&
			    fnmatch(rule->pattern, al->items[j].string, FNM_CASEFOLD) == 0)
				return true;
	}
	return false;
}

static bool rule_matches(const struct compare_rule *rule, const struct doc *a,
                         const struct doc *b, const struct row *r)
{
	return counter_matches(rule, &a->json, r->a->name) ||
	       counter_matches(rule, &b->json, r->a->name);
}

/* Whether the row crossed the rule's limit: significantly (or, untested,
 * by the change alone) past it in the rule's direction. */
static bool crosses(const struct compare_rule *rule, const struct row *r)
{
	double change = rule->percent ? r->pct : r->w.diff;
	if (isnan(change)) /* A's mean was 0: any increase is past a percentage */
		change = r->w.diff > 0.0 ? INFINITY : r->w.diff < 0.0 ? -INFINITY : 0.0;
	bool past = rule->direction > 0 ? change > rule->limit
	          : rule->direction < 0 ? change < -rule->limit
	                                : fabs(change) > rule->limit;
	bool significant = !r->w.tested || strcmp(r->verdict, "n.s.") != 0;
	return past && significant;
}

static void json_num(FILE *f, const char *key, double v)
{
	fprintf(f, ", \"%s\": ", key);
	if (isfinite(v))
		fprintf(f, "%.17g", v);
	else if (isinf(v))
		fputs(v > 0 ? "1e999" : "-1e999", f);
	else
		fputs("null", f);
}

static void print_json(FILE *f, const struct compare_options *o, const struct doc *d[2],
                       const struct row *rows, size_t nrows, bool rule_crossed[],
                       const struct side_counter *const *only, size_t nonly, bool failed)
{
	fputs("{", f);
	for (int s = 0; s < 2; s++) {
		fprintf(f, "%s\"%c\": {\"file\": ", s ? ", " : "", s ? 'b' : 'a');
		fmt_json_string(f, d[s]->path);
		fputs(", \"device\": ", f);
		fmt_json_string(f, d[s]->device ? d[s]->device : "");
		fputs(", \"backend\": ", f);
		fmt_json_string(f, d[s]->backend ? d[s]->backend : "");
		fprintf(f, ", \"repeats\": %u}", d[s]->repeats);
	}
	fprintf(f, ", \"test\": \"welch\", \"confidence_percent\": %g, \"counters\": [",
	        o->confidence);
	for (size_t i = 0; i < nrows; i++) {
		const struct row *r = &rows[i];
		fprintf(f, "%s\n  {\"name\": ", i ? "," : "");
		fmt_json_string(f, r->a->name);
		fputs(", \"group\": ", f);
		fmt_json_string(f, r->a->group ? r->a->group : "");
		json_num(f, "a", r->a->mean);
		json_num(f, "b", r->b->mean);
		struct stats_side sa = side(r->a, d[0]->repeats), sb = side(r->b, d[1]->repeats);
		json_num(f, "a_stderr", sa.n >= 2 ? sa.se : NAN);
		json_num(f, "b_stderr", sb.n >= 2 ? sb.se : NAN);
		json_num(f, "change", r->w.diff);
		json_num(f, "change_percent", r->pct);
		json_num(f, "ci_low", r->w.tested ? r->w.lo : NAN);
		json_num(f, "ci_high", r->w.tested ? r->w.hi : NAN);
		json_num(f, "ci_low_percent", r->w.tested ? r->lo_pct : NAN);
		json_num(f, "ci_high_percent", r->w.tested ? r->hi_pct : NAN);
		json_num(f, "t", r->w.t);
		json_num(f, "df", r->w.df);
		json_num(f, "p", r->w.p);
		fputs(", \"verdict\": ", f);
		fmt_json_string(f, r->verdict);
		fprintf(f, ", \"crossed\": %s}", r->crossed ? "true" : "false");
	}
	fputs("\n], \"unmatched\": [", f);
	for (size_t i = 0; i < nonly; i++) {
		fputs(i ? ", " : "", f);
		fmt_json_string(f, only[i]->name);
	}
	fputs("], \"fail_on\": [", f);
	for (size_t k = 0; k < o->nrules; k++) {
		fputs(k ? ", " : "", f);
		fputs("{\"rule\": ", f);
		fmt_json_string(f, o->rules[k].text);
		fprintf(f, ", \"crossed\": %s}", rule_crossed[k] ? "true" : "false");
	}
	fprintf(f, "], \"failed\": %s}\n", failed ? "true" : "false");
}

static void print_text(FILE *f, const struct compare_options *o, const struct doc *d[2],
                       const struct row *rows, size_t nrows,
                       const struct side_counter *const *only, size_t nonly)
{
	char pa[128], pb[128];
	fprintf(f, " A: %s (%u run%s)  B: %s (%u run%s)\n Welch's t-test, %g%% confidence "
	        "intervals of the change\n\n",
	        cli_escape(d[0]->path, pa, sizeof pa), d[0]->repeats, d[0]->repeats == 1 ? "" : "s",
	        cli_escape(d[1]->path, pb, sizeof pb), d[1]->repeats, d[1]->repeats == 1 ? "" : "s",
	        o->confidence);
	fprintf(f, "  %-32s %16s %16s %9s  %-21s %9s  %s\n", "counter", "A", "B", "change",
	        "interval", "p", "verdict");
	for (size_t i = 0; i < nrows; i++) {
		const struct row *r = &rows[i];
		char ci[64] = "", p[32] = "-", ch[32] = "-";
		if (r->w.tested && !isnan(r->lo_pct))
			snprintf(ci, sizeof ci, "[%+.2f%%, %+.2f%%]", r->lo_pct, r->hi_pct);
		if (!isnan(r->w.p))
			snprintf(p, sizeof p, r->w.p < 1e-4 ? "%.1e" : "%.4f", r->w.p);
		if (!isnan(r->pct))
			snprintf(ch, sizeof ch, "%+.2f%%", r->pct);
		fprintf(f, "  %-32s %16.6g %16.6g %9s  %-21s %9s  %s%s\n", r->a->name, r->a->mean,
		        r->b->mean, ch, ci, p, r->verdict, r->crossed ? "  FAIL" : "");
	}
	if (nonly) {
		fputs("\n not compared (in one document only, or not counted):", f);
		for (size_t i = 0; i < nonly; i++)
			fprintf(f, " %s", only[i]->name);
		fputc('\n', f);
	}
}

static void print_sep(FILE *f, const struct compare_options *o, const struct row *rows,
                      size_t nrows)
{
	for (size_t i = 0; i < nrows; i++) {
		const struct row *r = &rows[i];
		char buf[64];
		fmt_csv_field(f, r->a->name, o->sep);
		double fields[] = { r->a->mean, r->b->mean, r->w.diff, r->pct,
		                    r->w.tested ? r->lo_pct : NAN, r->w.tested ? r->hi_pct : NAN,
		                    r->w.p };
		for (size_t k = 0; k < sizeof fields / sizeof fields[0]; k++) {
			fputs(o->sep, f);
			if (isnan(fields[k]))
				buf[0] = '\0';
			else
				snprintf(buf, sizeof buf, "%.10g", fields[k]);
			fputs(buf, f);
		}
		fputs(o->sep, f);
		fmt_csv_field(f, r->verdict, o->sep);
		fputc('\n', f);
	}
}

static int run(const struct compare_options *o, struct doc *da, struct doc *db)
{
	const struct doc *d[2] = { da, db };
	double alpha = 1.0 - o->confidence / 100.0;
	struct row *rows = calloc(da->count + 1, sizeof *rows);
	const struct side_counter **only = calloc(da->count + db->count + 1, sizeof *only);
	bool rule_crossed[COMPARE_MAX_RULES] = { 0 }, rule_matched[COMPARE_MAX_RULES] = { 0 };
	int status = 0;
	if (!rows || !only) {
		fputs("opengpa compare: out of memory\n", stderr);
		status = 1;
		goto out;
	}
	size_t nrows = 0, nonly = 0;
	for (size_t i = 0; i < da->count; i++) {
		const struct side_counter *a = &da->counters[i], *b = find(db, a->name);
		if (find(da, a->name) != a)
			continue; /* a name repeated in A: its first entry is compared */
		if (!b || !a->counted || !b->counted) {
			only[nonly++] = a;
			continue;
		}
		rows[nrows].a = a;
		rows[nrows].b = b;
		compute(&rows[nrows], da, db, alpha);
		nrows++;
	}
	for (size_t i = 0; i < db->count; i++)
		if (!find(da, db->counters[i].name) && find(db, db->counters[i].name) == &db->counters[i])
			only[nonly++] = &db->counters[i];
	qsort(rows, nrows, sizeof *rows, by_significance);

	bool failed = false;
	for (size_t k = 0; k < o->nrules; k++) {
		for (size_t i = 0; i < nrows; i++) {
			if (!rule_matches(&o->rules[k], da, db, &rows[i]))
				continue;
			rule_matched[k] = true;
			if (crosses(&o->rules[k], &rows[i])) {
				rows[i].crossed = rule_crossed[k] = failed = true;
			}
		}
		if (!rule_matched[k]) {
			char shown[160];
			fprintf(stderr, "opengpa compare: --fail-on=%s: no counter compared in both "
			        "documents matches '%s'; name one the report lists (a misspelt gate "
			        "would never fail)\n", cli_escape(o->rules[k].text, shown, sizeof shown),
			        o->rules[k].pattern);
			status = 1;
			goto out;
		}
	}
	if (o->json)
		print_json(stdout, o, d, rows, nrows, rule_crossed, only, nonly, failed);
	else if (o->sep)
		print_sep(stdout, o, rows, nrows);
	else
		print_text(stdout, o, d, rows, nrows, only, nonly);
	if (fflush(stdout) != 0) {
		perror("opengpa compare: writing the report");
		status = 1;
		goto out;
	}
	for (size_t k = 0; k < o->nrules; k++)
		if (rule_crossed[k]) {
			char shown[160];
			fprintf(stderr, "opengpa compare: --fail-on=%s crossed:",
			        cli_escape(o->rules[k].text, shown, sizeof shown));
			for (size_t i = 0; i < nrows; i++)
				if (rule_matches(&o->rules[k], da, db, &rows[i]) &&
				    crosses(&o->rules[k], &rows[i]))
					fprintf(stderr, " %s %+.2f%%", rows[i].a->name, rows[i].pct);
			fputc('\n', stderr);
		}
	status = failed ? 3 : 0;
out:
	free(rows);
	free(only);
	return status;
}

int cmd_compare(int argc, char **argv)
{
	struct compare_options o;
	char err[512];
	if (compare_parse(argc, argv, &o, err, sizeof err) != 0) {
		fprintf(stderr, "opengpa compare: %s (see opengpa compare --help)\n", err);
		return 2;
	}
	if (o.help) {
		fputs(cli_command_compare.help, stdout);
		return 0;
	}
	struct doc a, b;
	int status = 1;
	bool la = load(&a, o.a);
	bool lb = la && load(&b, o.b);
	if (la && lb)
		status = run(&o, &a, &b);
	if (la)
		unload(&b);
	unload(&a);
	return status;
}
