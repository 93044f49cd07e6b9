/* SPDX-License-Identifier: MIT */
/* perf_errors.c — turning perf_event_open failures into one actionable line. */
#include "perf_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#define PARANOID_PATH "/proc/sys/kernel/perf_event_paranoid"

GPA_Status og_perf_open_error(const struct og_perf_state *st, int err, const char *what)
{
	const struct og_backend_host *h = &st->host;
	char nbuf[24];
	const char *name = og_perf_errno_name(err, nbuf, sizeof nbuf);

	switch (err) {
	case EACCES:
	case EPERM: {
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
	case ENOENT:
	case EOPNOTSUPP:
	case ENODEV:
		h->log(h->log_ctx, OG_LOG_ERROR,
		       "perf_event_open(%s): %s: this kernel/CPU cannot count this event; "
		       "remove it from the counter file or use a machine whose PMU has it",
		       what, name);
		return GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED;
	case EMFILE:
	case ENFILE:
		h->log(h->log_ctx, OG_LOG_ERROR,
		       "perf_event_open(%s): %s: too many open files (one per event); "
		       "raise the limit with `ulimit -n` or enable fewer counters",
		       what, name);
		return GPA_STATUS_ERROR_FAILED;
	case ESRCH:
		h->log(h->log_ctx, OG_LOG_ERROR,
		       "perf_event_open(%s): %s: no %s %ld; check the %s= option",
		       what, name, st->scope.kind == OG_PERF_SCOPE_THREAD ? "thread" : "process",
		       (long)st->scope.pid, st->scope.kind == OG_PERF_SCOPE_THREAD ? "tid" : "pid");
		return GPA_STATUS_ERROR_FAILED;
	case EINVAL:
	case ENOSPC:
		h->log(h->log_ctx, OG_LOG_ERROR,
		       "perf_event_open(%s): %s: the kernel refused the event or the group "
		       "(too many hardware events for the PMU, or a config it rejects); "
		       "enable fewer hardware counters per pass",
		       what, name);
		return GPA_STATUS_ERROR_FAILED;
	case EBUSY:
		h->log(h->log_ctx, OG_LOG_ERROR,
		       "perf_event_open(%s): %s: another program has exclusive use of the "
		       "PMU; stop it (or the NMI watchdog: `sysctl kernel.nmi_watchdog=0`)",
		       what, name);
		return GPA_STATUS_ERROR_FAILED;
	case ENOSYS:
		h->log(h->log_ctx, OG_LOG_ERROR,
		       "perf_event_open(%s): %s: this kernel has no perf_event support (or "
		       "an emulator such as qemu-user is in between, which does not pass the "
		       "call on); use a kernel built with CONFIG_PERF_EVENTS",
		       what, name);
		return GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED;
	case E2BIG:
		h->log(h->log_ctx, OG_LOG_ERROR,
		       "perf_event_open(%s): %s: the kernel does not accept this "
		       "perf_event_attr size; rebuild opengpa against this kernel's headers",
		       what, name);
		return GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED;
	default:
		h->log(h->log_ctx, OG_LOG_ERROR,
		       "perf_event_open(%s): %s: unexpected failure; report it with the "
		       "kernel version (uname -r)",
		       what, name);
		return GPA_STATUS_ERROR_FAILED;
	}
}
