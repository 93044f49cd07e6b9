/* SPDX-License-Identifier: MIT */
/*
 * events.c — `-e` names that are no counter of the device.
 *
 * perf stat takes CPU events by name or code (L1D_TLB_REFILL,
 * inst_retired.any_p, r1b, cpu/event=0x3c/); so does `opengpa stat` on the
 * perf backend.  A name the device's counters do not have is declared to
 * the backend as a raw counter of a counter file of its own, read when the
 * context opens again: the backend resolves it (libpfm4, sysfs, code) or
 * says why it cannot, and the counter either counts or is reported as
 * <not supported> with that reason.  The file is removed once read.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli.h"
#include "events.h"
#include "names.h"
#include "options.h"

/* A counter name for the event: letters, digits and '_' (the spelling the
 * perf backend's catalogue uses for libpfm4's events too). */
static void counter_name(const char *event, char *out, size_t len)
{
	size_t n = 0;
	for (; *event && n + 1 < len; event++, n++) {
		char c = *event;
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
		out[n] = ok ? c : '_';
	}
	out[n] = '\0';
	if (n == 0 || (out[0] >= '0' && out[0] <= '9')) {
		memmove(out + 1, out, n + 1 < len ? n + 1 : len - 1);
		out[0] = '_';
		out[len - 1] = '\0';
	}
}

/* Why the device cannot count `name`, or NULL when it is not unavailable. */
static const char *unavailable(const char *name)
{
	gpa_uint32 n = 0;
	OpenGPA_GetUnavailableCount(&n);
	for (gpa_uint32 i = 0; i < n; i++) {
		const char *u = "", *why = "";
		if (OpenGPA_GetUnavailableCounter(i, &u, &why) == GPA_STATUS_OK && strcasecmp(u, name) == 0)
			return why;
	}
	return NULL;
}

static bool known(const char *name)
{
	gpa_uint32 index;
	return GPA_GetCounterIndex(name, &index) == GPA_STATUS_OK || unavailable(name);
}

/* The perf backend found the event (libpfm4 or sysfs named it) and this
 * machine cannot count it: its reasons for that begin so (backends/perf/
 * perf.c, bind_raw).  Since the backend looks names up only when asked, not
 * in a list made at open, the reason is how the command tells a CPU event
 * it cannot count (<not supported>, as perf stat) from a name that is none. */
static bool found_not_counted(const char *why)
{
	static const char *const begins[] = { "no hardware PMU", "perf_event_open refused",
		                              "the PMU has no free counter" };
	for (size_t i = 0; i < sizeof begins / sizeof begins[0]; i++)
		if (strncmp(why, begins[i], strlen(begins[i])) == 0)
			return true;
	return false;
}

int events_check(const struct events *ev)
{
	for (size_t i = 0; i < ev->n; i++) {
		const char *why = ev->kind[i] != EVENT_COUNTER ? unavailable(ev->names[i]) : NULL;
		for (size_t j = 0; why && j < i; j++)
			if (strcmp(ev->names[j], ev->names[i]) == 0)
				why = NULL; /* said for the first spelling */
		if (why && ev->kind[i] == EVENT_NAME && !found_not_counted(why)) {
			/* A typo first: the names it may have meant; then where the
			 * backend looked for a CPU event of that name. */
			names_explain_unknown(stderr, "stat", ev->names[i]);
			fprintf(stderr, "opengpa stat: nor is it a CPU event here: %s\n", why);
			return 1;
		}
		if (why)
			fprintf(stderr, "opengpa: %s is not counted: %s\n", ev->names[i], why);
	}
	return 0;
}

/* perf's raw spelling rNNNN (hex) as the backend's raw:0xNNNN.  Returns
 * EVENT_CODE for a code or a sysfs spec, EVENT_NAME for a name. */
static unsigned char source_of(const char *event, char *out, size_t len)
{
	size_t n = strlen(event);
	snprintf(out, len, "%s", event);
	if (n > 1 && n <= 17 && (event[0] == 'r' || event[0] == 'R') &&
	    strspn(event + 1, "0123456789abcdefABCDEF") == n - 1) {
		snprintf(out, len, "raw:0x%s", event + 1);
		return EVENT_CODE;
	}
	return strchr(event, '/') || strncmp(event, "raw:", 4) == 0 ? EVENT_CODE : EVENT_NAME;
}

void events_free(struct events *ev)
{
	for (size_t i = 0; i < ev->n; i++)
		free(ev->names[i]);
	free(ev->names);
	free(ev->kind);
	ev->names = NULL;
	ev->kind = NULL;
	ev->n = 0;
	ev->declared = 0;
}

/* Adds a name the -e list will use; false without memory. */
static bool add(struct events *ev, const char *name, unsigned char kind)
{
	char **names = realloc(ev->names, (ev->n + 1) * sizeof *names);
	if (!names)
		return false;
	ev->names = names;
	unsigned char *kinds = realloc(ev->kind, (ev->n + 1) * sizeof *kinds);
	if (!kinds)
		return false;
	ev->kind = kinds;
	if (!(names[ev->n] = strdup(name)))
		return false;
	kinds[ev->n++] = kind;
	return true;
}

int events_resolve(const char *const *args, size_t nargs, struct events *ev, char *path,
                   size_t pathlen)
{
	memset(ev, 0, sizeof *ev);
	path[0] = '\0';
	FILE *file = NULL;
	int rc = 0;
	for (size_t a = 0; a < nargs && !rc; a++) {
		char *copy = strdup(args[a]), *save = NULL;
		if (!copy)
			return cli_fail("out of memory", GPA_STATUS_ERROR_FAILED);
		for (char *event = strtok_r(copy, ",", &save); event && !rc;
		     event = strtok_r(NULL, ",", &save)) {
			char name[160], source[200];
			for (const char *c = event; *c && !rc; c++)
				if ((unsigned char)*c < 0x20 || *c == 0x7f) {
					fprintf(stderr, "opengpa: -e: '%s' is not an event or counter name\n",
					        cli_escape(event, source, sizeof source));
					rc = 2;
				}
			if (rc)
				break;
			counter_name(event, name, sizeof name);
			if (known(event) || known(name)) {
				if (!add(ev, known(event) ? event : name, EVENT_COUNTER))
					rc = cli_fail("out of memory", GPA_STATUS_ERROR_FAILED);
				continue;
			}
			/* Two spellings of one event (INST_RETIRED:ANY_P and
			 * inst_retired_any_p) come to one counter name: declared once. */
			size_t same = 0;
			while (same < ev->n && strcasecmp(ev->names[same], name) != 0)
				same++;
			if (same < ev->n) {
				if (!add(ev, ev->names[same], ev->kind[same]))
					rc = cli_fail("out of memory", GPA_STATUS_ERROR_FAILED);
				continue;
			}
			if (!file) {
				const char *tmp = getenv("TMPDIR");
				snprintf(path, pathlen, "%s/opengpa-events-XXXXXX",
				         tmp && *tmp ? tmp : "/tmp");
				int fd = mkstemp(path);
				if (fd < 0 || !(file = fdopen(fd, "w"))) {
					fprintf(stderr, "opengpa: cannot create %s for the -e events: %s\n", path,
					        strerror(errno));
					if (fd >= 0)
						close(fd);
					path[0] = '\0';
					rc = 1;
					break;
				}
				fputs("# opengpa stat -e: CPU events named on the command line\n"
				      "backend perf\n", file);
			}
			unsigned char kind = source_of(event, source, sizeof source);
			/* An event name counts under the perf catalogue's spelling
			 * (INST_RETIRED_ANY_P, as `opengpa list --all` shows it),
			 * however it was written. */
			for (char *c = name; kind == EVENT_NAME && *c; c++)
				*c = (char)toupper((unsigned char)*c);
			fprintf(file, "\nraw %s\n    source: %s\n    description: %s, as named with -e.\n",
			        name, source, event);
			ev->declared++;
			if (!add(ev, name, kind))
				rc = cli_fail("out of memory", GPA_STATUS_ERROR_FAILED);
		}
		free(copy);
	}
	if (file && fclose(file) != 0 && !rc) {
		fprintf(stderr, "opengpa: cannot write %s: %s\n", path, strerror(errno));
		rc = 1;
	}
	if (rc) {
		if (path[0])
			unlink(path);
		path[0] = '\0';
		events_free(ev);
	}
	return rc;
}
