/* SPDX-License-Identifier: MIT */
/*
 * frame_marks.h — the pipe a measured command's OpenGPA_MarkFrame() writes
 * its frame marks to, and its GPA samples their spans (include/opengpa.h),
 * opened by opengpa, its write end inherited by the command through
 * OPENGPA_FRAME_FD.
 *
 * What travels, in 64-bit words of the machine's byte order, each record
 * one write(2) (under PIPE_BUF, so whole):
 *   a frame mark   1 word:  the CLOCK_MONOTONIC time, top bit clear;
 *   a GPA sample   3 words: its begin time with the top bit set
 *                  (FRAME_MARK_SAMPLE), its end time, its sample ID
 *                  (lib/apictx/apictx.c, og_apictx_send_sample).
 * A reader that reads a multiple of 8 bytes gets whole words; a sample's
 * three may come in two reads, so the reader keeps what it has of one.
 */
#ifndef OPENGPA_TOOLS_FRAME_MARKS_H
#define OPENGPA_TOOLS_FRAME_MARKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FRAME_MARK_SAMPLE (UINT64_C(1) << 63)

struct frame_marks {
	int rd, wr;       /* -1: closed */
	uint64_t part[3]; /* a sample record read in part */
	unsigned npart;
};

/* One record from the pipe. */
struct frame_mark {
	bool sample;               /* a GPA sample; else a frame mark */
	uint64_t begin_ns, end_ns; /* a frame mark: both its time */
	uint32_t id;               /* a sample's GPA sample ID */
};

/* Both ends closed: what frame_marks_close() may be called on. */
void frame_marks_init(struct frame_marks *fm);

/* Opens the pipe, non-blocking at both ends (a workload never waits on
 * opengpa), the read end close-on-exec, and names the write end in
 * OPENGPA_FRAME_FD for the commands run after.  Returns 0, or 1 after
 * printing why (prefixed by `who`), with nothing left open. */
int frame_marks_open(struct frame_marks *fm, const char *who);

/* The records sent so far, up to max of them, without waiting: how many
 * were put in marks[] (0 when none is waiting or the pipe is closed). */
size_t frame_marks_read_all(struct frame_marks *fm, struct frame_mark *marks, size_t max);

/* The frame marks sent so far (samples are read and skipped), up to max
 * of them, without waiting: how many were put in marks[]. */
size_t frame_marks_read(struct frame_marks *fm, uint64_t *marks, size_t max);

/* Closes what is open and, when the write end was, unsets
 * OPENGPA_FRAME_FD. */
void frame_marks_close(struct frame_marks *fm);

/* Closes the read end only (nothing more will be read). */
void frame_marks_close_reader(struct frame_marks *fm);

#endif
