/* SPDX-License-Identifier: MIT */
/*
 * spe_run.c — one `opengpa spe` run: the command held before exec, an SPE
 * event on it that starts at its exec, its buffers drained while it runs
 * and once more after it ends, then the report (spe_report.h).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child.h"
#include "util/quote.h"
#include "perf_internal.h"
#include "spe_report.h"
#include "spe_session.h"

#define DEFAULT_INTERVAL 4096
#define DATA_PAGES 16 /* AUX, LOST and MMAP records only */
#define DRAIN_MS 100

static double seconds_since(const struct timespec *t0)
{
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* Has the child ended?  Leaves it to child_wait() to reap. */
static bool ended(pid_t pid)
{
	siginfo_t si;
	memset(&si, 0, sizeof si);
	int r;
	while ((r = waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT)) < 0 &&
	       errno == EINTR)
		;
	return r < 0 || si.si_pid == pid;
}

int spe_run(const struct og_backend_host *h, const struct spe_options *o, FILE *out,
            const struct spe_hooks *hooks)
{
	const struct og_sys *sys = h->sys;
	struct og_spe_pmu pmu;
	const char *why = NULL;
	if (og_spe_find(h, &pmu, &why) != GPA_STATUS_OK) {
		h->log(h->log_ctx, OG_LOG_ERROR, "%s", why ? why : "no SPE PMU");
		return 1;
	}
	/* The data source packet means what this core's TRM says. */
	struct og_device_info info;
	memset(&info, 0, sizeof info);
	char cpuinfo[OG_PERF_CPUINFO_MAX];
	og_perf_read_cpuinfo(h, cpuinfo, sizeof cpuinfo);
	og_perf_device_info(h, cpuinfo, &info);
	struct og_spe_stats *stats = calloc(1, sizeof *stats);
	struct og_spe_pc *pcs = calloc(OG_SPE_MAX_PCS, sizeof *pcs);
	if (!stats || !pcs) {
		free(stats);
		free(pcs);
		h->log(h->log_ctx, OG_LOG_ERROR, "out of memory");
		return 1;
	}
	stats->sources = og_perf_spe_sources_of(&info) ? OG_SPE_SOURCES_COMMON
	                                                : OG_SPE_SOURCES_EVENTS;
	og_spe_stats_track_pcs(stats, pcs);

	struct child child;
	if (child_spawn(&child, o->command) != 0) {
		int e = errno;
		char qc[256];
		h->log(h->log_ctx, OG_LOG_ERROR, "cannot start %s: %s",
		       og_quote(o->command[0], qc, sizeof qc), strerror(e));
		free(stats);
		free(pcs);
		return 1;
	}
	/* Without privilege, paranoid 2 and above allow user space only (the
	 * same choice perf record makes). */
	int paranoid = og_perf_read_paranoid(h);
	struct og_spe_config c = {
		.interval = o->count ? o->count : DEFAULT_INTERVAL,
		.aux_pages = o->pages,
		.data_pages = DATA_PAGES,
		.exclude_kernel = paranoid >= 2 && geteuid() != 0,
		.enable_on_exec = true,
		.mmap_events = true,
		.pages_option = "--pages",
	};
	struct og_spe_session s;
	struct sym_maps maps = { 0 };
	int exec_errno = 0, status;
	if (og_spe_open(h, &pmu, &c, child.pid, -1, &s) != GPA_STATUS_OK) {
		kill(child.pid, SIGKILL); /* never let it run unsampled */
		child_wait(&child, &exec_errno);
		free(stats);
		free(pcs);
		return 1;
	}
	s.on_mmap = sym_maps_add;
	s.mmap_arg = &maps;
	if (hooks && hooks->opened)
		hooks->opened(hooks->arg, child.pid);

	/* Like perf record: ^C reaches the command, and we report. */
	struct sigaction ignore = { .sa_handler = SIG_IGN }, old_int, old_quit;
	sigaction(SIGINT, &ignore, &old_int);
	sigaction(SIGQUIT, &ignore, &old_quit);
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	child_release(&child);
	while (!ended(child.pid)) {
		struct pollfd p = { .fd = s.fd, .events = POLLIN };
		sys->poll(sys->ctx, &p, 1, DRAIN_MS); /* the aux watermark, or a tick */
		og_spe_drain(h, &s, stats);
	}
	status = child_wait(&child, &exec_errno);
	double seconds = seconds_since(&t0);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	/* The task's exit flushed the profiling buffer; what is left. */
	og_spe_disable(h, &s);
	og_spe_drain(h, &s, stats);
	og_spe_close(h, &s);

	if (exec_errno) {
		char qc[256];
		h->log(h->log_ctx, OG_LOG_ERROR, "cannot run %s: %s",
		       og_quote(o->command[0], qc, sizeof qc), strerror(exec_errno));
		status = exec_errno == ENOENT ? 127 : 126;
	} else {
		struct spe_run run = {
			.command = o->command[0],
			.interval = c.interval > pmu.min_interval ? c.interval : pmu.min_interval,
			.seconds = seconds,
			.top = o->top,
			.user_only = c.exclude_kernel,
			.paranoid = paranoid,
		};
		spe_report(out, &run, stats, &maps);
	}
	sym_maps_free(&maps);
	free(stats);
	free(pcs);
	return status;
}
