/* SPDX-License-Identifier: MIT */
/*
 * perf_notes.c — texts made at run time that must live until the backend
 * closes (a why_not answer names the event, the PMU, the cores that have
 * it): og_perf_note, og_perf_notes_free.  Calls no other file of the
 * backend; perf_named.c, perf_pfm.c and perf_spe.c call it.
 */
#include "perf_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

struct og_perf_note {
	struct og_perf_note *next;
	char text[];
};

const char *og_perf_note(struct og_perf_state *st, const char *fallback, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return fallback;
	struct og_perf_note *note = malloc(sizeof *note + (size_t)n + 1);
	if (!note)
		return fallback;
	va_start(ap, fmt);
	vsnprintf(note->text, (size_t)n + 1, fmt, ap);
	va_end(ap);
	note->next = st->notes;
	st->notes = note;
	return note->text;
}

void og_perf_notes_free(struct og_perf_state *st)
{
	while (st->notes) {
		struct og_perf_note *next = st->notes->next;
		free(st->notes);
		st->notes = next;
	}
}
