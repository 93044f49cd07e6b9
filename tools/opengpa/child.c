/* SPDX-License-Identifier: MIT */
/* child.c — fork, hold, exec, wait. */
#include "child.h"

#include <errno.h>
#include <stdbool.h>
#include <time.h>
#include <sys/syscall.h>
#include <poll.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int child_spawn(struct child *c, char *const argv[])
{
	int go[2], err[2];
	if (pipe2(go, O_CLOEXEC) != 0)
		return -1;
	if (pipe2(err, O_CLOEXEC) != 0) {
		int saved = errno;
		close(go[0]);
		close(go[1]);
		errno = saved;
		return -1;
	}
	pid_t pid = fork();
	if (pid < 0) {
		int saved = errno;
		close(go[0]);
		close(go[1]);
		close(err[0]);
		close(err[1]);
		errno = saved;
		return -1;
	}
	if (pid == 0) {
		close(go[1]);
		close(err[0]);
		char b;
		while (read(go[0], &b, 1) < 0 && errno == EINTR)
			;
		signal(SIGINT, SIG_DFL);
		signal(SIGQUIT, SIG_DFL);
		execvp(argv[0], argv);
		int e = errno;
		ssize_t unused = write(err[1], &e, sizeof(e));
		(void)unused;
		_exit(127);
	}
	close(go[0]);
	close(err[1]);
	c->pid = pid;
	c->go_fd = go[1];
	c->err_fd = err[0];
	return 0;
}

void child_release(struct child *c)
{
	if (c->go_fd >= 0) {
		close(c->go_fd);
		c->go_fd = -1;
	}
}

int child_wait(struct child *c, int *exec_errno)
{
	return child_wait_for(c, exec_errno, 0);
}

/* Waits up to timeout_ms for the child to exit, without reaping it: a
 * pidfd becomes readable when it exits (Linux 5.3); without one, its
 * status is looked at every millisecond.  Returns whether it exited. */
static bool exited_within(pid_t pid, unsigned timeout_ms)
{
	int fd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (fd >= 0) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int n;
		while ((n = poll(&p, 1, (int)timeout_ms)) < 0 && errno == EINTR)
			;
		close(fd);
		return n > 0;
	}
	for (unsigned ms = 0; ms < timeout_ms; ms++) {
		siginfo_t info = { 0 };
		if (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid)
			return true;
		struct timespec t = { 0, 1000000 };
		nanosleep(&t, NULL);
	}
	return false;
}

bool child_start_and_wait(struct child *c, unsigned delay_ms)
{
	child_release(c);
	return exited_within(c->pid, delay_ms);
}

int child_wait_for(struct child *c, int *exec_errno, unsigned timeout_ms)
{
	child_release(c);
	if (timeout_ms && !exited_within(c->pid, timeout_ms))
		kill(c->pid, SIGTERM);
	int status = 0;
	while (waitpid(c->pid, &status, 0) < 0 && errno == EINTR)
		;
	*exec_errno = 0;
	ssize_t n;
	while ((n = read(c->err_fd, exec_errno, sizeof(*exec_errno))) < 0 && errno == EINTR)
		;
	if (n != (ssize_t)sizeof(*exec_errno))
		*exec_errno = 0;
	close(c->err_fd);
	c->err_fd = -1;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}
