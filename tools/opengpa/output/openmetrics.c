/* SPDX-License-Identifier: MIT */
/*
 * openmetrics.c — the text Prometheus reads (openmetrics.h): OpenMetrics 1.0
 * for scrapes that ask for it, the text format 0.0.4 otherwise and for
 * node exporter's textfile collector.
 *
 * The two differ in where a counter's TYPE goes: OpenMetrics types the
 * family `opengpa_x` whose sample is `opengpa_x_total`; 0.0.4 types the
 * sample's own name `opengpa_x_total`.  OpenMetrics adds UNIT lines (only
 * where the family's name ends with the unit, as the format requires) and
 * ends with "# EOF".
 */
#include "openmetrics.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void om_text_free(struct om_text *t)
{
	free(t->data);
	memset(t, 0, sizeof *t);
}

static bool reserve(struct om_text *t, size_t more)
{
	if (t->failed)
		return false;
	if (t->len + more + 1 <= t->cap)
		return true;
	size_t cap = t->cap ? t->cap : 4096;
	while (cap < t->len + more + 1)
		cap *= 2;
	char *data = realloc(t->data, cap);
	if (!data) {
		t->failed = true;
		return false;
	}
	t->data = data;
	t->cap = cap;
	return true;
}

static void put(struct om_text *t, const char *s, size_t n)
{
	if (!reserve(t, n))
		return;
	memcpy(t->data + t->len, s, n);
	t->len += n;
	t->data[t->len] = '\0';
}

static void puts_(struct om_text *t, const char *s)
{
	put(t, s, strlen(s));
}

__attribute__((format(printf, 2, 3))) static void printf_(struct om_text *t, const char *fmt,
                                                          ...)
{
	char small[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof small, fmt, ap);
	va_end(ap);
	if (n < 0) {
		t->failed = true;
		return;
	}
	if ((size_t)n < sizeof small) {
		put(t, small, (size_t)n);
		return;
	}
	if (!reserve(t, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(t->data + t->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	t->len += (size_t)n;
}

/* A label value, or HELP text: backslash and line feed escaped, and the
 * double quote where the format asks for it. */
static void escaped(struct om_text *t, const char *s, bool quote)
{
	for (; s && *s; s++) {
		if (*s == '\\')
			puts_(t, "\\\\");
		else if (*s == '\n')
			puts_(t, "\\n");
		else if (*s == '"' && quote)
			puts_(t, "\\\"");
		else
			put(t, s, 1);
	}
}

static bool is_upper(char c)
{
	return c >= 'A' && c <= 'Z';
}

static bool is_lower_or_digit(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static bool is_word(char c)
{
	return is_upper(c) || is_lower_or_digit(c) || c == '_';
}

/*
 * The Python exporter's metric_name(), step for step: "_" between a lower
 * case letter or digit and a capital ("GPUActive" -> "GPUActive_"...),
 * then between a run of capitals and a capitalised word ("GPUActive" ->
 * "GPU_Active"), then each run of other bytes as one "_", underscores at
 * the ends dropped, all in lower case, after "opengpa_".
 */
void om_metric_name(const char *counter, char *out, size_t len)
{
	size_t n = strlen(counter);
	char *a = malloc(2 * n + 1), *b = malloc(4 * n + 1);
	size_t k = 0, m = 0;
	if (a && b) {
		for (size_t i = 0; i < n; i++) {
			if (i > 0 && is_lower_or_digit(counter[i - 1]) && is_upper(counter[i]))
				a[k++] = '_';
			a[k++] = counter[i];
		}
		for (size_t i = 0; i < k; i++) {
			if (i > 0 && is_upper(a[i - 1]) && is_upper(a[i]) && i + 1 < k &&
			    a[i + 1] >= 'a' && a[i + 1] <= 'z')
				b[m++] = '_';
			b[m++] = a[i];
		}
	}
	/* Runs of other bytes as one "_" (written over b, never ahead of i);
	 * then the ends stripped. */
	size_t w = 0;
	bool other = false;
	for (size_t i = 0; i < m; i++) {
		char c = b[i];
		if (is_word(c)) {
			b[w++] = (char)(is_upper(c) ? c - 'A' + 'a' : c);
			other = false;
		} else if (!other) {
			b[w++] = '_';
			other = true;
		}
	}
	size_t start = 0;
	while (start < w && b[start] == '_')
		start++;
	while (w > start && b[w - 1] == '_')
		w--;
	if (w > start)
		snprintf(out, len, "opengpa_%.*s", (int)(w - start), b + start);
	else
		snprintf(out, len, "opengpa_counter");
	free(a);
	free(b);
}

static bool is_gauge(const struct tl_series *s)
{
	if (s->usage && s->usage[0])
		return strcasecmp(s->usage, "percentage") == 0 || strcasecmp(s->usage, "ratio") == 0;
	return s->unit && strcmp(s->unit, "%") == 0;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n > k && s[n - k - 1] == '_' && strcmp(s + n - k, suffix) == 0;
}

/* Whether `name` is taken: by an earlier family, by a sample name one of
 * them writes, or by the run's own opengpa_intervals. */
static bool taken(const struct om_family *f, size_t n, const char *name)
{
	static const char *const own[] = { "opengpa_intervals", "opengpa_intervals_total" };
	for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
		if (strcmp(name, own[i]) == 0)
			return true;
	char other[OM_NAME_MAX + 32];
	for (size_t i = 0; i < n; i++) {
		if (strcmp(f[i].name, name) == 0)
			return true;
		snprintf(other, sizeof other, "%s_total", f[i].name);
		if (strcmp(other, name) == 0)
			return true;
		snprintf(other, sizeof other, "%s_last_interval", f[i].name);
		if (strcmp(other, name) == 0)
			return true;
	}
	return false;
}

/* The counter an instance's copy is of, "<letters and digits ending in a
 * digit>:<counter>" ("ShaderCore3:FragmentActiveCycles"; not perf's
 * "cycles:u"), with the instance's length; NULL for any other name. */
static const char *instance_base(const char *name, size_t *len)
{
	const char *colon = strchr(name, ':');
	if (!colon || colon == name || !colon[1] || colon[-1] < '0' || colon[-1] > '9')
		return NULL;
	for (const char *p = name; p < colon; p++)
		if (!is_upper(*p) && !is_lower_or_digit(*p))
			return NULL;
	*len = (size_t)(colon - name);
	return colon + 1;
}

/* A new family for series i, named after `counter`. */
static void new_family(const struct tl_run *run, struct om_family *f, size_t i,
                       const char *counter)
{
	/* Room after it for "_100000" or "_last_interval". */
	char base[OM_NAME_MAX - 24];
	om_metric_name(counter, base, sizeof base);
	char name[OM_NAME_MAX];
	snprintf(name, sizeof name, "%s", base);
	for (unsigned k = 2; taken(f, run->nseries, name) && k < 100000; k++)
		snprintf(name, sizeof name, "%s_%u", base, k);
	memcpy(f[i].name, name, sizeof name);
	f[i].gauge = is_gauge(&run->series[i]);
	f[i].unit = NULL;
	if (!f[i].gauge) {
		static const char *const units[] = { "cycles", "bytes", "seconds" };
		for (size_t u = 0; u < sizeof units / sizeof units[0]; u++)
			if (ends_with(f[i].name, units[u]))
				f[i].unit = units[u];
	}
	f[i].first = i;
}

void om_families(const struct tl_run *run, struct om_family *f)
{
	size_t n = run->nseries;
	/* Unnamed ("") until placed: taken() never matches them. */
	for (size_t i = 0; i < n; i++) {
		memset(&f[i], 0, sizeof f[i]);
		f[i].counter = run->series[i].name ? run->series[i].name : "";
		f[i].first = i;
		f[i].next = SIZE_MAX;
	}
	/* The counters themselves first, in the run's order, so that their
	 * names are the plain ones; then each copy joins its counter's family,
	 * or an earlier copy's of the same counter, or starts one. */
	for (size_t i = 0; i < n; i++) {
		size_t len;
		if (!instance_base(f[i].counter, &len))
			new_family(run, f, i, f[i].counter);
	}
	for (size_t i = 0; i < n; i++) {
		size_t len;
		const char *base = instance_base(f[i].counter, &len);
		if (!base)
			continue;
		snprintf(f[i].block, sizeof f[i].block, "%.*s", (int)len, f[i].counter);
		f[i].counter = base;
		size_t owner = SIZE_MAX;
		for (size_t j = 0; j < n && owner == SIZE_MAX; j++)
			if (j != i && f[j].name[0] && strcmp(f[j].counter, base) == 0 &&
			    f[j].gauge == is_gauge(&run->series[i]))
				owner = j;
		if (owner == SIZE_MAX) {
			new_family(run, f, i, base);
			continue;
		}
		memcpy(f[i].name, f[owner].name, sizeof f[i].name);
		f[i].gauge = f[owner].gauge;
		f[i].unit = f[owner].unit;
	}
	/* Each family's first series, and the chain of its members in the
	 * run's order (families are few beside the series: one pass each). */
	for (size_t i = 0; i < n; i++) {
		if (f[i].first != i)
			continue;
		size_t last = i;
		for (size_t j = i + 1; j < n; j++)
			if (f[j].first == j && strcmp(f[j].name, f[i].name) == 0) {
				f[j].first = i;
				f[last].next = j;
				last = j;
			}
	}
}

/* A sample value: the shortest decimal that reads back the same. */
static void number(struct om_text *t, double v)
{
	if (isnan(v)) {
		puts_(t, "NaN");
		return;
	}
	if (isinf(v)) {
		puts_(t, v > 0 ? "+Inf" : "-Inf");
		return;
	}
	char buf[40];
	snprintf(buf, sizeof buf, "%.15g", v);
	if (strtod(buf, NULL) != v)
		snprintf(buf, sizeof buf, "%.17g", v);
	puts_(t, buf);
}

static void label(struct om_text *t, bool *first, const char *key, const char *value)
{
	if (!value || !*value)
		return;
	printf_(t, "%s%s=\"", *first ? "{" : ",", key);
	escaped(t, value, true);
	puts_(t, "\"");
	*first = false;
}

/* {backend="mali",block="ShaderCore3",counter="GPUActiveCycles",device="...",
 *  group="...",instance="..."}: in the order of their names, as the Python
 * exporter writes them. */
static void labels(struct om_text *t, const struct tl_run *run, const struct tl_series *s,
                   const struct om_family *f, const struct om_values *v)
{
	bool first = true;
	label(t, &first, "backend", run->backend);
	label(t, &first, OM_BLOCK_LABEL, f ? f->block : NULL);
	label(t, &first, "counter", f ? f->counter : NULL);
	label(t, &first, "device", run->device);
	label(t, &first, "group", s ? s->group : NULL);
	label(t, &first, "instance", v->instance);
	if (!first)
		puts_(t, "}");
}

/* "# HELP name text", the text as the Python exporter words it: the
 * description (or the counter's name) and the unit. */
static void help(struct om_text *t, const char *name, const struct tl_series *s,
                 const char *described, const char *after, bool om)
{
	printf_(t, "# HELP %s ", name);
	escaped(t, described, om);
	if (s->unit && s->unit[0]) {
		puts_(t, " (");
		escaped(t, s->unit, om);
		puts_(t, ")");
	}
	puts_(t, after);
	puts_(t, "\n");
}

int om_render(struct om_text *t, const struct tl_run *run, const struct om_family *f,
              const struct om_values *v, enum om_flavour flavour)
{
	bool om = flavour == OM_OPENMETRICS;
	/* Family by family, from its first series: its metadata once, then the
	 * sample of each member that has a value (OpenMetrics wants a family's
	 * samples together, and 0.0.4 one TYPE line a name). */
	for (size_t i = 0; i < run->nseries; i++) {
		if (f[i].first != i)
			continue;
		/* The metadata from the counter itself where it is in the run,
		 * not from a core's copy of it. */
		size_t lead = i;
		for (size_t k = i; k != SIZE_MAX; k = f[k].next)
			if (!f[k].block[0]) {
				lead = k;
				break;
			}
		const struct tl_series *s = &run->series[lead];
		const char *described = v->help ? v->help[lead] : NULL;
		if (!described || !*described)
			described = f[lead].counter;
		const char *name = f[i].name;
		bool any_latest = false, any_counted = false;
		for (size_t k = i; k != SIZE_MAX; k = f[k].next) {
			any_latest |= v->latest && !isnan(v->latest[k]);
			any_counted |= v->counted && v->counted[k];
		}
		if (f[i].gauge) {
			if (!any_latest)
				continue;
			printf_(t, "# TYPE %s gauge\n", name);
			help(t, name, s, described, "", om);
			for (size_t k = i; k != SIZE_MAX; k = f[k].next) {
				if (isnan(v->latest[k]))
					continue;
				puts_(t, name);
				labels(t, run, &run->series[k], &f[k], v);
				puts_(t, " ");
				number(t, v->latest[k]);
				puts_(t, "\n");
			}
			continue;
		}
		if (!any_counted)
			continue;
		if (om) {
			printf_(t, "# TYPE %s counter\n", name);
			if (f[i].unit)
				printf_(t, "# UNIT %s %s\n", name, f[i].unit);
			help(t, name, s, described, "", om);
		} else {
			printf_(t, "# TYPE %s_total counter\n", name);
			char total[OM_NAME_MAX + 8];
			snprintf(total, sizeof total, "%s_total", name);
			help(t, total, s, described, "", om);
		}
		for (size_t k = i; k != SIZE_MAX; k = f[k].next) {
			if (!v->counted[k])
				continue;
			printf_(t, "%s_total", name);
			labels(t, run, &run->series[k], &f[k], v);
			puts_(t, " ");
			number(t, v->totals[k]);
			puts_(t, "\n");
		}
		if (!any_latest)
			continue;
		char last[OM_NAME_MAX + 16];
		snprintf(last, sizeof last, "%s_last_interval", name);
		printf_(t, "# TYPE %s gauge\n", last);
		help(t, last, s, described, " over the latest interval", om);
		for (size_t k = i; k != SIZE_MAX; k = f[k].next) {
			if (isnan(v->latest[k]))
				continue;
			puts_(t, last);
			labels(t, run, &run->series[k], &f[k], v);
			puts_(t, " ");
			number(t, v->latest[k]);
			puts_(t, "\n");
		}
	}
	printf_(t, "# TYPE opengpa_intervals%s counter\n", om ? "" : "_total");
	printf_(t, "# HELP opengpa_intervals%s intervals counted since the start\n",
	        om ? "" : "_total");
	puts_(t, "opengpa_intervals_total");
	labels(t, run, NULL, NULL, v);
	printf_(t, " %llu\n", (unsigned long long)v->intervals);
	if (om)
		puts_(t, "# EOF\n");
	return t->failed ? -1 : 0;
}
