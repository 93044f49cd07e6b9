/* SPDX-License-Identifier: MIT */
/*
 * child.h — running the measured command: forked, held before exec until
 * the counters are set up on it, then released.
 */
#ifndef OPENGPA_TOOLS_CHILD_H
#define OPENGPA_TOOLS_CHILD_H

#include <stdbool.h>
#include <sys/types.h>

struct child {
	pid_t pid;
	int go_fd;  /* closing it lets the child exec */
	int err_fd; /* the child writes its exec errno here; EOF means exec worked */
};

/* Forks; the child waits, then execs argv.  Returns 0 or -1 with errno. */
int child_spawn(struct child *c, char *const argv[]);
void child_release(struct child *c);
/* Waits for the child.  *exec_errno is 0 when the command ran.  Returns its
 * exit status as a shell reports it (128 + signal when killed). */
int child_wait(struct child *c, int *exec_errno);
/* The same, but after timeout_ms (0: never) the command gets SIGTERM, as
 * perf stat --timeout sends it, and is then waited for. */
int child_wait_for(struct child *c, int *exec_errno, unsigned timeout_ms);
/* Lets the child exec and waits up to delay_ms for it to exit, without
 * reaping it (child_wait_for does that).  Returns whether it exited. */
bool child_start_and_wait(struct child *c, unsigned delay_ms);

#endif
