/* SPDX-License-Identifier: MIT */
/*
 * v34k_pmu.h — a MIPS 34K under a mainline kernel: perf_event_open(2) over
 * the virtual 34K's registers (v34k.h), with the rules of the kernel's MIPS
 * PMU driver (arch/mips/kernel/perf_event_mipsxx.c) and no /proc/perf.
 *
 * What the driver does, and so what this device does:
 *   - types: PERF_TYPE_RAW, HARDWARE and HW_CACHE count on the PMU; other
 *     types are not its (ENOENT); software events count as the kernel's
 *     software PMU would (task-clock from the simulated clock, others 0);
 *   - a raw config's low byte is the event: 0-127 on the even counters,
 *     128-255 on the odd ones; events 0, 1 and 11 on either; nothing else
 *     of the config is looked at, reserved events are not refused;
 *   - the generic map: cycles and instructions on either bank, branches
 *     even 2, branch misses odd 2, every other generic event EOPNOTSUPP;
 *     the cache map of the 24K/34K/1004K cores likewise;
 *   - counters per CPU: the core's four, or two with CONFIG_MIPS_MT_SMP
 *     on a two-VPE core (each VPE's CPU gets one even and one odd, VPE 1's
 *     at physical counters 2 and 3);
 *   - a group is checked at open by allocating counters the driver's way,
 *     first fit from the highest counter in group order, without moving an
 *     either-bank event that took the only counter a later event could
 *     use: a group that fails is EINVAL;
 *   - the control word: the event, IE, U unless exclude_user, K and EXL
 *     unless exclude_kernel, S unless exclude_hv; on MT_SMP, processor-wide
 *     events (the driver's range P) count all TCs (MT_EN 0), the others
 *     the VPE of the CPU they run on (MT_EN 1, VPEID);
 *   - counters are 32 bits: each read folds what a counter moved since the
 *     last into the event's 64-bit count, as the overflow interrupt would.
 *
 * The workload: every read() of an event group first runs
 * cycles_per_read user-mode cycles on TC 0 of the CPU the task is on
 * (v34k_run), so the counts obey the model's invariants.  Groups are
 * scheduled when enabled; a group that does not fit the counters left
 * (see busy_counters) is enabled but never runs, as on a real PMU.  The
 * device sees no execve: enable_on_exec counts from the open.
 */
#ifndef OPENGPA_V34K_PMU_H
#define OPENGPA_V34K_PMU_H

#include <stdbool.h>
#include <stdint.h>

struct og_sys;
struct v34k;

struct v34k_pmu_config {
	unsigned cpus;             /* CPUs (VPEs), 1 or 2 */
	bool mt_smp;               /* CONFIG_MIPS_MT_SMP: with 2 CPUs, 2 counters each */
	unsigned busy_counters;    /* bit c: counter c (per CPU) held by someone else */
	int paranoid;              /* kernel.perf_event_paranoid: >= 2 refuses kernel counting
	                            * (EACCES unless exclude_kernel), >= 3 everything */
	bool no_pmu;               /* a kernel without the MIPS PMU: hardware types ENOENT */
	unsigned cpu;              /* the CPU the counted task runs on */
	uint64_t cycles_per_read;  /* default 10^7 */
	double clock_mhz;          /* for the simulated clock and BogoMIPS; default 500 */
};

struct v34k_pmu;

/* NULL config: one CPU with four counters, paranoid 2, 10^7 cycles a read. */
struct v34k_pmu *v34k_pmu_new(const struct v34k_pmu_config *config);
void v34k_pmu_free(struct v34k_pmu *p);
/* The og_sys table: perf_event_open, the event fds, and the files a perf
 * client reads (/proc/cpuinfo, the paranoid sysctl, sysfs CPU and PMU). */
struct og_sys *v34k_pmu_sys(struct v34k_pmu *p);
/* The registers underneath, for tests. */
struct v34k *v34k_pmu_device(struct v34k_pmu *p);

/* Calls a client makes through the og_sys table, by their libc names, for
 * the LD_PRELOAD shim: each returns what the syscall would, -errno on error. */
long v34k_pmu_perf_event_open(struct v34k_pmu *p, const void *attr, int pid, int cpu,
                              int group_fd, unsigned long flags);
bool v34k_pmu_owns(const struct v34k_pmu *p, int fd);
long v34k_pmu_read(struct v34k_pmu *p, int fd, void *buf, unsigned long len);
long v34k_pmu_ioctl(struct v34k_pmu *p, int fd, unsigned long request, void *arg);
long v34k_pmu_close(struct v34k_pmu *p, int fd);
/* The text of a file the device serves (path), or NULL when not its. */
const char *v34k_pmu_file(struct v34k_pmu *p, const char *path);

/* Events opened and not closed (tests check that every open has its close). */
unsigned v34k_pmu_open_events(const struct v34k_pmu *p);
/* The control word physical counter c was last set up to count with. */
uint32_t v34k_pmu_control(const struct v34k_pmu *p, unsigned c);

#endif
