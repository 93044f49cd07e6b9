/* SPDX-License-Identifier: MIT */
/* frame_marks.c — the frame marks' and samples' pipe (frame_marks.h). */
#include "frame_marks.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void frame_marks_init(struct frame_marks *fm)
{
	fm->rd = fm->wr = -1;
	fm->npart = 0;
}

int frame_marks_open(struct frame_marks *fm, const char *who)
{
	int fd[2];
	char v[16];
	frame_marks_init(fm);
	if (pipe2(fd, O_CLOEXEC | O_NONBLOCK) != 0) {
		int e = errno;
		fprintf(stderr, "%s: cannot set up the pipe for frame marks: %s; free file "
		        "descriptors (ulimit -n) and run again\n", who, strerror(e));
		return 1;
	}
	fm->rd = fd[0];
	fm->wr = fd[1];
	/* The write end goes to the command; the read end stays here. */
	if (fcntl(fm->wr, F_SETFD, 0) != 0 || snprintf(v, sizeof v, "%d", fm->wr) < 0 ||
	    setenv("OPENGPA_FRAME_FD", v, 1) != 0) {
		int e = errno;
		fprintf(stderr, "%s: cannot set up the pipe for frame marks: %s; free file "
		        "descriptors (ulimit -n) and run again\n", who, strerror(e));
		frame_marks_close(fm);
		return 1;
	}
	return 0;
}

size_t frame_marks_read_all(struct frame_marks *fm, struct frame_mark *marks, size_t max)
{
	if (fm->rd < 0 || !max)
		return 0;
	/* Words: a frame mark is one, a sample three, so max words never make
	 * more than max records. */
	uint64_t words[96];
	size_t want = max < sizeof words / sizeof words[0] ? max : sizeof words / sizeof words[0];
	ssize_t n;
	while ((n = read(fm->rd, words, want * sizeof words[0])) < 0 && errno == EINTR)
		;
	size_t got = 0, nwords = n > 0 ? (size_t)n / sizeof words[0] : 0;
	for (size_t i = 0; i < nwords; i++) {
		uint64_t w = words[i];
		if (!fm->npart && !(w & FRAME_MARK_SAMPLE)) {
			marks[got++] = (struct frame_mark){ .begin_ns = w, .end_ns = w };
			continue;
		}
		fm->part[fm->npart++] = w;
		if (fm->npart < 3)
			continue;
		fm->npart = 0;
		uint64_t b = fm->part[0] & ~FRAME_MARK_SAMPLE, e = fm->part[1];
		marks[got++] = (struct frame_mark){ .sample = true, .begin_ns = b,
			                            .end_ns = e > b ? e : b,
			                            .id = (uint32_t)fm->part[2] };
	}
	return got;
}

size_t frame_marks_read(struct frame_marks *fm, uint64_t *marks, size_t max)
{
	struct frame_mark m[32];
	size_t got = 0, n;
	while (got < max &&
	       (n = frame_marks_read_all(fm, m, max - got < 32 ? max - got : 32)) > 0) {
		for (size_t i = 0; i < n; i++)
			if (!m[i].sample)
				marks[got++] = m[i].end_ns;
	}
	return got;
}

void frame_marks_close_reader(struct frame_marks *fm)
{
	if (fm->rd >= 0)
		close(fm->rd);
	fm->rd = -1;
}

void frame_marks_close(struct frame_marks *fm)
{
	frame_marks_close_reader(fm);
	if (fm->wr >= 0) {
		close(fm->wr);
		unsetenv("OPENGPA_FRAME_FD");
	}
	fm->wr = -1;
}
