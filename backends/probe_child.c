/* SPDX-License-Identifier: MIT */
/* probe_child.c — see probe_child.h. */
#include "probe_child.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static pid_t fork_quietly(void)
{
#ifdef OG_HAVE__FORK
	return _Fork();
#else
	return fork();
#endif
}

bool og_probe_in_child(void (*fn)(void *arg), void *arg, const char *no_text, char *why,
                       size_t why_len)
{
	static const int faults[] = { SIGILL, SIGSEGV, SIGBUS, SIGTRAP, SIGFPE };
	pid_t pid = fork_quietly();
	if (pid < 0) {
		snprintf(why, why_len, "the probe could not fork: %s", strerror(errno));
		return false;
	}
	if (pid == 0) {
		sigset_t set;
		sigemptyset(&set);
		for (size_t i = 0; i < sizeof faults / sizeof faults[0]; i++) {
			signal(faults[i], SIG_DFL);
			sigaddset(&set, faults[i]);
		}
		sigprocmask(SIG_UNBLOCK, &set, NULL);
		fn(arg);
		_exit(0);
	}
	int status = 0;
	pid_t r;
	do
		r = waitpid(pid, &status, 0);
	while (r < 0 && errno == EINTR);
	if (r != pid) {
		snprintf(why, why_len, "the probe's child could not be waited for (%s; is SIGCHLD "
		         "ignored?)", strerror(errno));
		return false;
	}
	if (WIFSIGNALED(status)) {
		int sig = WTERMSIG(status);
		const char *name = sig == SIGILL    ? "SIGILL"
		                   : sig == SIGSEGV ? "SIGSEGV"
		                   : sig == SIGBUS  ? "SIGBUS"
		                                    : NULL;
		if (name)
			snprintf(why, why_len, "running it raised %s (%s)", name, strsignal(sig));
		else
			snprintf(why, why_len, "running it raised signal %d (%s)", sig, strsignal(sig));
		return false;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return true;
	if (WIFEXITED(status) && WEXITSTATUS(status) == OG_PROBE_EXIT_NO)
		snprintf(why, why_len, "%s", no_text ? no_text : "the probe said no");
	else
		snprintf(why, why_len, "the probe's child ended with status 0x%x", (unsigned)status);
	return false;
}
