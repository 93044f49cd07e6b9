/* SPDX-License-Identifier: MIT */
/* perf_errors.c — turning perf_event_open failures into one actionable line. */
#include "perf_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#define PARANOID_PATH "/proc/sys/kernel/perf_event_paranoid"

/* The failures whose line needs nothing but the event and the errno: what
 * it means and its fix, and the status it becomes.  (EACCES, EPERM and
 * ESRCH name the scope: og_perf_open_error.) */
static const char *advice_for(int err, GPA_Status *status)
{
	*status = GPA_STATUS_ERROR_FAILED;
	switch (err) {
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		*status = GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED;
		return "this kernel/CPU cannot count this event; remove it from the counter file or "
		       "use a machine whose PMU has it";
	case EMFILE:
	case ENFILE:
		return "too many open files (one per event); raise the limit with `ulimit -n` or "
		       "enable fewer counters";
	case EINVAL:
	case ENOSPC:
		return "the kernel refused the event or the group (too many hardware events for the "
		       "PMU, or a config it rejects); enable fewer hardware counters per pass";
	case EBUSY:
		return "another program has exclusive use of the PMU; stop it (or the NMI watchdog: "
		       "`sysctl kernel.nmi_watchdog=0`)";
	case ENOSYS:
		*status = GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED;
		return "this kernel has no perf_event support (or an emulator such as qemu-user is "
		       "in between, which does not pass the call on); use a kernel built with "
		       "CONFIG_PERF_EVENTS";
	case E2BIG:
		*status = GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED;
		return "the kernel does not accept this perf_event_attr size; rebuild opengpa "
		       "against this kernel's headers";
	default:
		return "unexpected failure; report it with the kernel version (uname -r)";
	}
}

/* EACCES or EPERM: the paranoid level that would let this scope count, or
 * root or CAP_PERFMON. */
static GPA_Status denied(const struct og_perf_state *st, const char *what, const char *name)
{
	const struct og_backend_host *h = &st->host;
	int p = og_perf_read_paranoid(h);
	if (p == INT32_MIN) {
		h->log(h->log_ctx, OG_LOG_ERROR,
		       "perf_event_open(%s): %s: permission denied and " PARANOID_PATH
		       " is unreadable; run as root or give the program CAP_PERFMON",
		       what, name);
		return GPA_STATUS_ERROR_FAILED;
	}
	/* Counting one's own process in user space needs 2 or lower;
	 * kernel-mode counts and other users' processes need lower still,
	 * and whole CPUs need 0 (perf_event_open(2)). */
	int want = p > 2 ? 2 : p - 1;
	if (st->scope.kind == OG_PERF_SCOPE_CPUS && want > 0)
		want = 0;
	if (want < -1)
		want = -1;
	char who[96];
	og_perf_scope_name(&st->scope, who, sizeof who);
	h->log(h->log_ctx, OG_LOG_ERROR,
	       "perf_event_open(%s): %s: " PARANOID_PATH " is %d, too high to count %s; "
	       "run as root, give the program CAP_PERFMON, or `sysctl "
	       "kernel.perf_event_paranoid=%d`%s",
	       what, name, p, who, want,
	       st->scope.kind == OG_PERF_SCOPE_PROCESS || st->scope.kind == OG_PERF_SCOPE_THREAD
	               ? " (and count only processes you own)"
	               : "");
	return GPA_STATUS_ERROR_FAILED;
}

GPA_Status og_perf_open_error(const struct og_perf_state *st, int err, const char *what)
{
	const struct og_backend_host *h = &st->host;
	char nbuf[24];
	const char *name = og_perf_errno_name(err, nbuf, sizeof nbuf);
	if (err == EACCES || err == EPERM)
		return denied(st, what, name);
	if (err == ESRCH) {
		h->log(h->log_ctx, OG_LOG_ERROR,
		       "perf_event_open(%s): %s: no %s %ld; check the %s= option",
		       what, name, st->scope.kind == OG_PERF_SCOPE_THREAD ? "thread" : "process",
		       (long)st->scope.pid, st->scope.kind == OG_PERF_SCOPE_THREAD ? "tid" : "pid");
		return GPA_STATUS_ERROR_FAILED;
	}
	GPA_Status status;
	const char *advice = advice_for(err, &status);
	h->log(h->log_ctx, OG_LOG_ERROR, "perf_event_open(%s): %s: %s", what, name, advice);
	return status;
}
