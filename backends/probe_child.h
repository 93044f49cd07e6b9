/* SPDX-License-Identifier: MIT */
/*
 * probe_child.h — does an instruction run in user space here?  Asked of a
 * forked child, so that the answer never costs the caller a signal.
 *
 * Some instructions work in user space only when the kernel allows them:
 * MIPS rdhwr $2/$3 (the Count register and its resolution, HWREna), arm64
 * mrs of PMEVCNTR<n>_EL0/PMCCNTR_EL0 (PMUSERENR_EL0), x86 rdpmc (CR4.PCE).
 * Where it does not, the CPU raises SIGILL (or SIGSEGV).  Catching that in
 * the calling process would mean replacing the program's own handler for
 * the signal, process-wide, while the probe runs: a race with every other
 * thread of a program we are only a library in, and a handler that may
 * not expect us.  A child process instead takes the signal alone:
 *
 *   - it is made with _Fork() where libc has it (no pthread_atfork
 *     handlers of the program run), else fork();
 *   - it puts SIGILL, SIGSEGV, SIGBUS, SIGTRAP and SIGFPE back to their
 *     default action and unblocks them, so the program's handlers never run
 *     in it, then calls fn and leaves with _exit (no atexit handlers, no
 *     stdio flush);
 *   - the parent waits for that child only (waitpid on its pid).
 *
 * One fork per question, about a millisecond: callers ask once and keep the
 * answer.  A program that ignores SIGCHLD has its children reaped for it;
 * the answer is then "unknown", which callers treat as "no".
 */
#ifndef OPENGPA_BACKENDS_PROBE_CHILD_H
#define OPENGPA_BACKENDS_PROBE_CHILD_H

#include <stdbool.h>
#include <stddef.h>

/* fn's exit codes other than 0 that the caller gives a meaning to. */
#define OG_PROBE_EXIT_NO 3 /* fn ran, and decided the answer is no */

/* Runs fn(arg) in a child.  True when fn returned (exit 0).  False, with a
 * sentence in why, when the child died of a signal ("SIGILL (illegal
 * instruction)"), exited OG_PROBE_EXIT_NO ("no_text"), or could not be run
 * or waited for. */
bool og_probe_in_child(void (*fn)(void *arg), void *arg, const char *no_text, char *why,
                       size_t why_len);

#endif
