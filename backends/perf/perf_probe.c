/* SPDX-License-Identifier: MIT */
/* perf_probe.c — what this machine can count, found by trying it.
 *
 * Event tables and CPU ids cannot tell whether a VM exposes a PMU or how many
 * counters the NMI watchdog left free; the kernel's answer to an open (and,
 * for slot counts, to an enable + read) can. */
#include "perf_internal.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>

static int probe_one(const struct og_perf_state *st, const struct og_perf_event_def *def)
{
	struct perf_event_attr attr;
	og_perf_attr_init(st, &attr, def->type, def->config, true);
	int fd = og_perf_open_event(st, &attr, -1);
	if (fd < 0)
		return errno ? errno : EINVAL;
	st->host.sys->close(st->host.sys->ctx, fd);
	return 0;
}

/* Does a group of n copies of one hardware event open and run all the time?
 * Always on the calling thread: the PMU is the same whatever the scope, and
 * only our own thread is sure to run between enable and read. */
static bool group_schedules(const struct og_perf_state *st, const struct og_perf_event_def *def,
                            unsigned n)
{
	const struct og_sys *sys = st->host.sys;
	int fds[OG_PERF_MAX_HW_SLOTS];
	unsigned k = 0;
	bool ok = true;
	for (; k < n; k++) {
		struct perf_event_attr attr;
		og_perf_attr_init(st, &attr, def->type, def->config, k == 0);
		attr.inherit = 0;
		attr.enable_on_exec = 0;
		fds[k] = sys->perf_event_open(sys->ctx, &attr, 0, -1, k ? fds[0] : -1, 0);
		if (fds[k] < 0) {
			ok = false; /* EINVAL/ENOSPC: the kernel knows it cannot fit */
			break;
		}
	}
	if (ok) {
		uint64_t words[OG_PERF_READ_WORDS(OG_PERF_MAX_HW_SLOTS)];
		size_t want = OG_PERF_READ_WORDS(n) * sizeof(uint64_t);
		ok = sys->ioctl(sys->ctx, fds[0], PERF_EVENT_IOC_ENABLE, 0) == 0;
		for (volatile unsigned spin = 0; ok && spin < 20000; spin++)
			;
		ok = ok && sys->ioctl(sys->ctx, fds[0], PERF_EVENT_IOC_DISABLE, 0) == 0;
		ssize_t r = ok ? sys->read(sys->ctx, fds[0], words, want) : -1;
		/* Some PMUs accept a group they cannot hold; it then never runs
		 * (running < enabled), which is what a pass must avoid. */
		ok = ok && r == (ssize_t)want && words[0] == n && words[1] > 0 &&
		     words[2] == words[1];
	}
	while (k-- > 0)
		sys->close(sys->ctx, fds[k]);
	return ok;
}

static unsigned probe_slots(const struct og_perf_state *st)
{
	/* Prefer events without a fixed counter (x86 has fixed cycles and
	 * instructions counters): the count is then that of the general
	 * counters, which every hardware event can use. */
	static const char *const prefer[] = { "hw:branches", "hw:branch-misses",
		                              "hw:cache-references", "hw:instructions",
		                              "hw:cycles" };
	const struct og_perf_event_def *def = NULL;
	for (size_t i = 0; !def && i < sizeof prefer / sizeof prefer[0]; i++) {
		int e = og_perf_event_find(prefer[i]);
		if (e >= 0 && st->probe_errno[e] == 0)
			def = og_perf_event_at((size_t)e);
	}
	if (!def)
		return 0;
	unsigned n = 1;
	while (n <= OG_PERF_MAX_HW_SLOTS && group_schedules(st, def, n))
		n++;
	return n - 1;
}

/* A software event counted by the kernel's one software path
 * (perf_swevent_init): every software event but the two clocks, which are
 * PMUs of their own. */
static bool counted_by_swevent(const struct og_perf_event_def *def)
{
	return def->type == PERF_TYPE_SOFTWARE && def->config != PERF_COUNT_SW_TASK_CLOCK &&
	       def->config != PERF_COUNT_SW_CPU_CLOCK;
}

/*
 * The software events behind perf_swevent_init are not probed one by one.
 * That path refuses an event for its id only when the kernel does not know
 * the id (ENOENT past its PERF_COUNT_SW_MAX: ids are never withdrawn, so a
 * kernel that knows one knows every lower one); all else it refuses it
 * refuses for every id alike.  And opening one is dear: where no other
 * event of that id is open on the machine, the open enables the id's
 * static key, patching kernel text on every CPU, and the close patches it
 * back: 100-110 us of CPU per open and close on a 2-CPU VM against 2 us
 * for task-clock (x86 patches code for page, minor and major faults,
 * context switches and migrations: five such probes at every context open,
 * about 0.55 ms, the largest part of `opengpa stat -- true`; issue 29).  So
 * the highest id of the table is probed (emulation-faults: no code to patch
 * on x86, 3.6 us), and when it opens the others take its answer; when it
 * does not, each is probed.  Returns the index of the event probed, -1 when
 * the table has none.
 */
static int probe_software(const struct og_perf_state *st, int *err)
{
	int top = -1;
	for (size_t i = 0; i < og_perf_event_count(); i++) {
		const struct og_perf_event_def *def = og_perf_event_at(i);
		if (counted_by_swevent(def) &&
		    (top < 0 || def->config > og_perf_event_at((size_t)top)->config))
			top = (int)i;
	}
	*err = top >= 0 ? probe_one(st, og_perf_event_at((size_t)top)) : EINVAL;
	return top;
}

GPA_Status og_perf_probe(struct og_perf_state *st)
{
	const struct og_backend_host *h = &st->host;
	const struct og_perf_event_def *clock = og_perf_event_at(
		(size_t)og_perf_event_find("sw:task-clock"));
	int err = probe_one(st, clock);
	if (err == EACCES || err == EPERM) {
		/* perf_event_paranoid >= 2 without privilege forbids kernel-mode
		 * counts; perf(1) then counts user space only, and so do we. */
		st->exclude_kernel = true;
		err = probe_one(st, clock);
		if (err == 0)
			h->log(h->log_ctx, OG_LOG_MESSAGE,
			       "perf: kernel-mode counting is not permitted; counting user space "
			       "only (run as root or lower kernel.perf_event_paranoid to include "
			       "the kernel)");
	}
	if (err)
		return og_perf_open_error(st, err, clock->source);

	st->any_hw = false;
	int sw_err;
	int sw_top = probe_software(st, &sw_err);
	if (sw_top >= 0 && sw_err == 0)
		h->log(h->log_ctx, OG_LOG_TRACE, "perf: %s opens: the kernel knows every software "
		       "event below it, which are not opened to be probed",
		       og_perf_event_at((size_t)sw_top)->source);
	for (size_t i = 0; i < og_perf_event_count(); i++) {
		const struct og_perf_event_def *def = og_perf_event_at(i);
		if (def == clock)
			st->probe_errno[i] = 0; /* opened above */
		else if ((int)i == sw_top || (sw_err == 0 && counted_by_swevent(def)))
			st->probe_errno[i] = (int)i == sw_top ? sw_err : 0;
		else
			st->probe_errno[i] = probe_one(st, def);
		if (st->probe_errno[i] == 0 && def->type == PERF_TYPE_HARDWARE)
			st->any_hw = true;
		if (st->probe_errno[i]) {
			char nbuf[24];
			h->log(h->log_ctx, OG_LOG_TRACE, "perf: %s not offered: perf_event_open gave %s",
			       def->source, og_perf_errno_name(st->probe_errno[i], nbuf, sizeof nbuf));
		}
	}
	st->hw_slots = st->any_hw ? probe_slots(st) : 0;
	h->log(h->log_ctx, OG_LOG_TRACE, "perf: %u hardware counters per group", st->hw_slots);
	return GPA_STATUS_OK;
}
