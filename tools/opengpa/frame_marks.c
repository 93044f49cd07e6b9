/* SPDX-License-Identifier: MIT */
/* frame_marks.c — the frame marks' pipe (frame_marks.h). */
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

size_t frame_marks_read(struct frame_marks *fm, uint64_t *marks, size_t max)
{
	if (fm->rd < 0 || !max)
		return 0;
	/* Each mark is one write of 8 bytes (under PIPE_BUF: whole), so a read
	 * of a multiple of 8 bytes gets whole marks. */
	for (;;) {
		ssize_t n = read(fm->rd, marks, max * sizeof marks[0]);
		if (n < 0 && errno == EINTR)
			continue;
		return n > 0 ? (size_t)n / sizeof marks[0] : 0;
	}
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
