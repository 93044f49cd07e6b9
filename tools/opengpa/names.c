/* SPDX-License-Identifier: MIT */
/* names.c — perf's spellings and help for unknown names (names.h). */
#include "names.h"

#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "names_known.h"
#include "opengpa.h"
#include "options.h"

/* perf's generic events (perf list's "Hardware event" and "Software event"
 * sections) and the perf backend's counters that count them
 * (counters/perf-generic.counters).  The units are perf stat's. */
static const struct perf_spelling spellings[] = {
	{ "task-clock", "TaskClock", "msec", true, false },
	{ "cpu-clock", "CPUClock", "msec", true, false },
	{ "page-faults", "PageFaults", "", false, true },
	{ "faults", "PageFaults", "", false, true },
	{ "minor-faults", "MinorFaults", "", false, true },
	{ "major-faults", "MajorFaults", "", false, true },
	{ "context-switches", "ContextSwitches", "", false, true },
	{ "cs", "ContextSwitches", "", false, true },
	{ "cpu-migrations", "CPUMigrations", "", false, true },
	{ "migrations", "CPUMigrations", "", false, true },
	{ "cycles", "Cycles", "", false, false },
	{ "cpu-cycles", "Cycles", "", false, false },
	{ "instructions", "Instructions", "", false, false },
	{ "branches", "Branches", "", false, false },
	{ "branch-instructions", "Branches", "", false, false },
	{ "branch-misses", "BranchMisses", "", false, false },
	{ "cache-references", "CacheReferences", "", false, false },
	{ "cache-misses", "CacheMisses", "", false, false },
};

const struct perf_spelling *names_perf_table(size_t *n)
{
	*n = sizeof spellings / sizeof spellings[0];
	return spellings;
}

const struct perf_spelling *names_perf(const char *name)
{
	for (size_t i = 0; i < sizeof spellings / sizeof spellings[0]; i++)
		if (strcasecmp(spellings[i].perf, name) == 0)
			return &spellings[i];
	return NULL;
}

const struct perf_spelling *names_perf_of(const char *counter)
{
	for (size_t i = 0; i < sizeof spellings / sizeof spellings[0]; i++)
		if (strcasecmp(spellings[i].counter, counter) == 0)
			return &spellings[i];
	return NULL;
}

size_t names_distance(const char *a, const char *b, size_t cap)
{
	/* Three rows of the optimal-string-alignment table, names up to 127
	 * characters (longer ones are never close to a counter's name). */
	enum { MAX = 128 };
	size_t la = strlen(a), lb = strlen(b);
	if (la >= MAX || lb >= MAX)
		return cap;
	if ((la > lb ? la - lb : lb - la) >= cap)
		return cap;
	size_t rows[3][MAX];
	size_t *prev2 = rows[0], *prev = rows[1], *cur = rows[2];
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		size_t best = cur[0];
		for (size_t j = 1; j <= lb; j++) {
			int ca = tolower((unsigned char)a[i - 1]), cb = tolower((unsigned char)b[j - 1]);
			size_t cost = ca != cb;
			size_t v = prev[j] + 1;
			if (cur[j - 1] + 1 < v)
				v = cur[j - 1] + 1;
			if (prev[j - 1] + cost < v)
				v = prev[j - 1] + cost;
			if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == cb && prev2[j - 2] + 1 < v)
				v = prev2[j - 2] + 1;
			cur[j] = v;
			if (v < best)
				best = v;
		}
		if (best >= cap)
			return cap;
		size_t *t = prev2;
		prev2 = prev;
		prev = cur;
		cur = t;
	}
	return prev[lb] < cap ? prev[lb] : cap;
}

#define MAX_SUGGESTIONS 3

struct suggestions {
	const char *name;
	size_t cap; /* names this far or farther are not suggested */
	const char *best[MAX_SUGGESTIONS];
	size_t dist[MAX_SUGGESTIONS];
	size_t n;
};

/* Considers `candidate` (a word of at most 127 characters). */
static void consider(struct suggestions *s, const char *candidate)
{
	if (!candidate || !*candidate)
		return;
	for (size_t i = 0; i < s->n; i++)
		if (strcasecmp(s->best[i], candidate) == 0)
			return;
	size_t d = names_distance(s->name, candidate, s->cap);
	if (d == 0)
		return; /* the name itself (declared as a CPU event that failed) */
	/* A name that starts or ends the candidate ("GPUActive" of
	 * "GPUActiveCycles") is a good guess too. */
	size_t ln = strlen(s->name), lc = strlen(candidate);
	if (d >= s->cap && ln >= 4 && lc > ln &&
	    (strncasecmp(candidate, s->name, ln) == 0 ||
	     strcasecmp(candidate + lc - ln, s->name) == 0))
		d = s->cap - 1;
	if (d >= s->cap)
		return;
	size_t at = s->n;
	while (at > 0 && s->dist[at - 1] > d)
		at--;
	if (at >= MAX_SUGGESTIONS)
		return;
	size_t last = s->n < MAX_SUGGESTIONS ? s->n : MAX_SUGGESTIONS - 1;
	for (size_t i = last; i > at; i--) {
		s->best[i] = s->best[i - 1];
		s->dist[i] = s->dist[i - 1];
	}
	s->best[at] = candidate;
	s->dist[at] = d;
	if (s->n < MAX_SUGGESTIONS)
		s->n++;
}

/* Each blank-separated word of a counter's aliases. */
static void consider_aliases(struct suggestions *s, const char *aliases, char words[][128],
                             size_t *nwords, size_t maxwords)
{
	while (aliases && *aliases) {
		size_t n = strcspn(aliases, " ");
		if (n && n < 128 && *nwords < maxwords) {
			memcpy(words[*nwords], aliases, n);
			words[*nwords][n] = '\0';
			consider(s, words[(*nwords)++]);
		}
		aliases += n + (aliases[n] == ' ');
	}
}

void names_explain_unknown(FILE *f, const char *command, const char *name)
{
	const char *backend = "";
	OpenGPA_GetBackend(&backend);
	size_t len = strlen(name);
	struct suggestions s = { .name = name, .cap = len < 6 ? 2 : len < 12 ? 3 : 4 };
	/* Aliases are copied: a word of them is a suggestion. */
	enum { MAX_WORDS = 64 };
	char words[MAX_WORDS][128];
	size_t nwords = 0;
	gpa_uint32 n = 0;
	GPA_GetNumCounters(&n);
	for (gpa_uint32 i = 0; i < n; i++) {
		const char *c = NULL, *aliases = NULL;
		if (GPA_GetCounterName(i, &c) == GPA_STATUS_OK)
			consider(&s, c);
		if (OpenGPA_GetCounterAlias(i, &aliases) == GPA_STATUS_OK)
			consider_aliases(&s, aliases, words, &nwords, MAX_WORDS);
	}
	gpa_uint32 nu = 0;
	OpenGPA_GetUnavailableCount(&nu);
	for (gpa_uint32 i = 0; i < nu; i++) {
		const char *u = NULL, *why = NULL;
		if (OpenGPA_GetUnavailableCounter(i, &u, &why) == GPA_STATUS_OK)
			consider(&s, u);
	}
	if (strcmp(backend, "perf") == 0)
		for (size_t i = 0; i < sizeof spellings / sizeof spellings[0]; i++)
			consider(&s, spellings[i].perf);
	char shown[128];
	cli_escape(name, shown, sizeof shown);
	fprintf(f, "opengpa %s: %s: no counter of this device (%s backend) has this name.", command,
	        shown, backend);
	if (s.n) {
		fputs(" Did you mean ", f);
		for (size_t i = 0; i < s.n; i++)
			fprintf(f, "%s%s", i ? (i + 1 == s.n ? " or " : ", ") : "", s.best[i]);
		fputc('?', f);
	}
	/* The same name in another backend's counter sets. */
	const char *elsewhere = NULL, *set = NULL;
	for (unsigned long i = 0; i < known_names_count; i++)
		if (strcasecmp(known_names[i].name, name) == 0 &&
		    strcmp(known_names[i].backend, backend) != 0) {
			elsewhere = known_names[i].backend;
			set = known_names[i].set;
			break;
		}
	if (elsewhere)
		fprintf(f, " %s is a counter of the %s backend%s (%s.counters, for one), and this "
		        "machine counts with the %s backend.", shown, elsewhere,
		        strcmp(elsewhere, "mali") == 0 ? " and of panfrost" : "", set, backend);
	else if (names_perf(name) && strcmp(backend, "perf") != 0)
		fprintf(f, " %s is perf's name of a CPU event: --backend perf counts it.", shown);
	fprintf(f, " See `opengpa list%s%s` for the names.\n", backend[0] ? " --backend " : "",
	        backend);
}
