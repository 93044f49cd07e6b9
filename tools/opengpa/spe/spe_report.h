/* SPDX-License-Identifier: MIT */
/*
 * spe_report.h — `opengpa spe`'s report: a run's SPE counts (spe_stats.h)
 * and, per cause, its hottest PCs named through the task's mappings.
 * And the run itself over a host's system calls (spe_run.c), so the
 * tests drive it with a simulated arm_spe PMU.
 */
#ifndef OPENGPA_TOOLS_SPE_REPORT_H
#define OPENGPA_TOOLS_SPE_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <stdio.h>

#include "backend.h"
#include "spe.h"
#include "spe_stats.h"
#include "symbols.h"

struct spe_run {
	const char *command; /* argv[0] */
	uint64_t interval;   /* operations per sample, as the PMU took it */
	double seconds;      /* the command's run time */
	unsigned top;        /* PCs per cause */
	bool user_only;      /* kernel space was not sampled, */
	int paranoid;        /* because of this perf_event_paranoid */
};

void spe_report(FILE *out, const struct spe_run *run, const struct og_spe_stats *s,
                struct sym_maps *maps);

/* Called once the SPE event is open on the held child (tests write
 * samples there). */
struct spe_hooks {
	void (*opened)(void *arg, pid_t pid);
	void *arg;
};

/* Finds the SPE PMU, runs o->command sampled from its exec, drains the
 * buffers while it runs and writes the report to out.  Returns the
 * command's exit status, or 1 after logging why SPE or the command could
 * not be used (127/126 when it could not be executed). */
int spe_run(const struct og_backend_host *h, const struct spe_options *o, FILE *out,
            const struct spe_hooks *hooks);

#endif
