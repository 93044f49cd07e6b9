/* SPDX-License-Identifier: MIT */
/* events.h — `-e` names that are no counter of the device (events.c). */
#ifndef OPENGPA_TOOLS_EVENTS_H
#define OPENGPA_TOOLS_EVENTS_H

#include <stdbool.h>
#include <stddef.h>

/* The counter names the -e list comes to, in order. */
struct events {
	char **names;
	unsigned char *kind; /* per name: EVENT_COUNTER, EVENT_NAME or EVENT_CODE */
	size_t n;
	size_t declared;     /* CPU events the counter file declares */
};

enum {
	EVENT_COUNTER, /* a counter of the device (or one it cannot count here) */
	EVENT_NAME,    /* declared: an event name the device's counters lack */
	EVENT_CODE,    /* declared: a code or sysfs spec (r1b, cpu/event=0x3c/) */
};

/*
 * With a context open on the perf backend: splits the -e arguments ("A,B")
 * into names and writes, for each name that is neither a counter nor a
 * counter the device cannot count here, a raw counter with that event as
 * its source to a new file at `path` (ev->declared of them; path is "" when
 * none).  The caller adds the file, opens the context again and removes the
 * file.  Returns 0, or 1 after printing why.
 */
int events_resolve(const char *const *args, size_t nargs, struct events *ev, char *path,
                   size_t pathlen);
void events_free(struct events *ev);

/* After the context opened again, as perf stat does: a declared event name
 * the backend does not know on this CPU is an error (printed with the
 * reason: which cores have it, or where it was looked for), returns 1; a
 * code or spec it cannot count gets one line with the reason and is
 * reported as <not supported> while the rest is counted. */
int events_check(const struct events *ev);

#endif
