/* SPDX-License-Identifier: MIT */
/*
 * frame_marks.h — the pipe a measured command's OpenGPA_MarkFrame() writes
 * its frame marks to (8-byte timestamps, include/opengpa.h): opened by
 * opengpa, its write end inherited by the command through OPENGPA_FRAME_FD.
 */
#ifndef OPENGPA_TOOLS_FRAME_MARKS_H
#define OPENGPA_TOOLS_FRAME_MARKS_H

#include <stddef.h>
#include <stdint.h>

struct frame_marks {
	int rd, wr; /* -1: closed */
};

/* Both ends closed: what frame_marks_close() may be called on. */
void frame_marks_init(struct frame_marks *fm);

/* Opens the pipe, non-blocking at both ends (a workload never waits on
 * opengpa), the read end close-on-exec, and names the write end in
 * OPENGPA_FRAME_FD for the commands run after.  Returns 0, or 1 after
 * printing why (prefixed by `who`), with nothing left open. */
int frame_marks_open(struct frame_marks *fm, const char *who);

/* The marks sent so far, up to max of them, without waiting: how many
 * were put in marks[] (0 when none is waiting or the pipe is closed). */
size_t frame_marks_read(struct frame_marks *fm, uint64_t *marks, size_t max);

/* Closes what is open and, when the write end was, unsets
 * OPENGPA_FRAME_FD. */
void frame_marks_close(struct frame_marks *fm);

/* Closes the read end only (nothing more will be read). */
void frame_marks_close_reader(struct frame_marks *fm);

#endif
