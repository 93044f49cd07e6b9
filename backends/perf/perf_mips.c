/* SPDX-License-Identifier: MIT */
/*
 * perf_mips.c — MIPS CPUs on perf_event: the 34K counter set over the
 * mainline kernel's MIPS PMU, and the RDHWR cycle counter
 * (docs/backends/mips.md, "Mainline kernels").
 *
 * The 34K set (counters/mips-34k.counters) names events as the mips backend
 * does, even:N, odd:N, any:N (MD00548 Table 3).  The kernel's driver
 * (arch/mips/kernel/perf_event_mipsxx.c) takes them as PERF_TYPE_RAW
 * configs: N for the even counters, N + 128 for the odd ones, and for
 * events 0, 1 and 11 either config counts on either bank.  Its counters per
 * CPU are the core's four, or two (one even, one odd) on an MT_SMP kernel,
 * where each VPE is a CPU; it checks a group at open by giving each event,
 * in group order, the highest free counter its bank allows, never moving
 * one already placed.  So:
 *   - fits() is an exact bank assignment over the counters this kernel
 *     gives a CPU (probed: the largest group of cycles events it opens);
 *   - a pass's group lists the one-bank events first and the either-bank
 *     ones last, which makes the driver's first fit succeed whenever an
 *     assignment exists (og_perf_mips_rank).
 * The driver counts per VPE at the finest (it sets MT_EN to the CPU's VPE;
 * processor-wide events count every TC): the mips backend's tc= has no
 * equivalent here, vpe=N is the perf scope cpu=N.
 *
 * The cycle counter: MIPS32r2 user mode may read the CP0 Count register
 * (rdhwr $2), which ticks once every rdhwr $3 cycles.  It stands in for
 * cycles (any:0, hw:cycles) where no PMU counter is reachable: no MIPS PMU
 * in the kernel, perf_event_paranoid refusing it, or every counter held by
 * someone else.  It counts elapsed cycles on the CPU, every task's, as
 * time:wall counts elapsed time.  It is probed once, in a child process
 * (probe_child.h): a kernel that has not enabled it answers SIGILL, and an
 * emulator may leave Count standing still; either way the source is "not
 * available" with that reason.
 */
#include "perf_internal.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mips/events.h"
#include "probe_child.h"

#define DEFAULT_CLOCK_MHZ 500.0

struct og_perf_mips {
	bool is_34k;
	unsigned counters;  /* per CPU, from the probe; 0 = no PMU reachable */
	int pmu_errno;      /* why not, when counters == 0 */
	char model[64];
	double clock_mhz;
	/* The cycle counter: probed once. */
	bool cc_probed, cc_ok;
	char cc_why[224];
	uint32_t cc_begin, cc_end, cc_per_tick;
	bool cc_used;       /* a raw counter of this context reads it */
};

/* ---- /proc/cpuinfo ---------------------------------------------------------- */

static bool field(const char *text, const char *key, char *out, size_t len)
{
	size_t klen = strlen(key);
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, key, klen) != 0)
			continue;
		const char *q = p + klen + strspn(p + klen, " \t");
		if (*q != ':')
			continue;
		q += 1 + strspn(q + 1, " \t");
		size_t n = strcspn(q, "\n");
		n = n < len ? n : len - 1;
		memcpy(out, q, n);
		out[n] = '\0';
		return true;
	}
	return false;
}

/* ---- the PMU probe ------------------------------------------------------------ */

/* A group of n raw cycles events (either bank) on the calling thread: the
 * driver refuses one larger than its counters per CPU at open (EINVAL), and
 * one that the counters other programs hold leave no room for opens but
 * never runs (EBUSY here). */
static int cycles_group(const struct og_perf_state *st, unsigned n)
{
	const struct og_sys *sys = st->host.sys;
	int fds[4], err = 0;
	unsigned k = 0;
	for (; k < n; k++) {
		struct perf_event_attr attr;
		og_perf_attr_init(st, &attr, PERF_TYPE_RAW, 0, k == 0);
		attr.inherit = 0;
		attr.enable_on_exec = 0;
		fds[k] = sys->perf_event_open(sys->ctx, &attr, 0, -1, k ? fds[0] : -1, 0);
		if (fds[k] < 0) {
			err = errno ? errno : EINVAL;
			break;
		}
	}
	if (!err) {
		uint64_t w[OG_PERF_READ_WORDS(4)];
		size_t want = OG_PERF_READ_WORDS(n) * sizeof w[0];
		bool ran = sys->ioctl(sys->ctx, fds[0], PERF_EVENT_IOC_ENABLE, 0) == 0 &&
		           sys->read(sys->ctx, fds[0], w, want) == (ssize_t)want &&
		           sys->ioctl(sys->ctx, fds[0], PERF_EVENT_IOC_DISABLE, 0) == 0 &&
		           w[0] == n && w[1] > 0 && w[2] == w[1];
		err = ran ? 0 : EBUSY;
	}
	while (k-- > 0)
		sys->close(sys->ctx, fds[k]);
	return err;
}

static void probe_pmu(struct og_perf_state *st, struct og_perf_mips *m)
{
	m->pmu_errno = cycles_group(st, 1);
	if (m->pmu_errno)
		return;
	m->counters = 1;
	while (m->counters < 4 && cycles_group(st, m->counters + 1) == 0)
		m->counters++;
}

void og_perf_mips_open(struct og_perf_state *st, const char *cpuinfo,
                       struct og_device_info *info)
{
	char model[64] = "", bogo[32] = "";
	field(cpuinfo, "cpu model", model, sizeof model);
	bool mips = model[0] && strncmp(model, "MIPS", 4) == 0;
	if (!mips && !st->host.sys->read_cycle_counter)
		return;
	struct og_perf_mips *m = calloc(1, sizeof *m);
	if (!m)
		return; /* the cycle counter and the 34K set are then not offered */
	st->mips = m;
	snprintf(m->model, sizeof m->model, "%s", model[0] ? model : "MIPS");
	m->clock_mhz = DEFAULT_CLOCK_MHZ;
	if (field(cpuinfo, "BogoMIPS", bogo, sizeof bogo)) {
		double v = strtod(bogo, NULL);
		if (v > 0 && v < 1e6)
			m->clock_mhz = v;
	}
	m->is_34k = mips && strstr(model, "34K") != NULL;
	if (!m->is_34k)
		return;
	probe_pmu(st, m);
	info->device_id = 0x00019500; /* PRId: company 1 (MIPS), processor 0x95 (34K) */
	info->revision_id = 0;
	/* The mips backend's set alone: perf-generic's Cycles, Instructions and
	 * IPC are names the 34K set gives its own raw and public counters. */
	info->counter_sets[0] = "mips-34k";
	info->counter_sets[1] = NULL;
	if (m->counters) {
		/* The generic probe counts copies of a one-bank event (branches):
		 * the counters themselves are what a group may hold. */
		st->hw_slots = m->counters;
		snprintf(info->description, sizeof info->description,
		         "%s (perf_event, %u counters per CPU)", m->model, m->counters);
	} else {
		char nbuf[24];
		snprintf(info->description, sizeof info->description,
		         "%s (perf_event: the MIPS PMU refused, %s)", m->model,
		         og_perf_errno_name(m->pmu_errno, nbuf, sizeof nbuf));
	}
	st->host.log(st->host.log_ctx, OG_LOG_TRACE,
	             "perf: MIPS 34K, %u PMU counters per CPU: the 34K set binds through "
	             "perf_event", m->counters);
}

void og_perf_mips_close(struct og_perf_state *st)
{
	free(st->mips);
	st->mips = NULL;
}

GPA_Status og_perf_mips_constant(struct og_perf_state *st, const char *name, double *value)
{
	if (!st->mips || strcmp(name, "ClockMHz") != 0)
		return GPA_STATUS_ERROR_NOT_FOUND;
	*value = st->mips->clock_mhz;
	return GPA_STATUS_OK;
}

/* ---- the cycle counter ---------------------------------------------------------- */

/* In the probe's child: the instruction runs, and Count moves. */
static void cc_probe_body(void *arg)
{
	const struct og_sys *sys = arg;
	uint32_t c0, c1, res;
	sys->read_cycle_counter(sys->ctx, &c0, &res);
	struct timespec ms = { 0, 1000000 };
	nanosleep(&ms, NULL);
	sys->read_cycle_counter(sys->ctx, &c1, &res);
	if (c1 == c0 || res == 0)
		_exit(OG_PROBE_EXIT_NO);
}

static bool cc_available(struct og_perf_state *st, const char **why)
{
	struct og_perf_mips *m = st->mips;
	const struct og_sys *sys = st->host.sys;
	if (!m || !sys->read_cycle_counter) {
		*why = "no user-mode cycle counter on this architecture (RDHWR is MIPS32r2's)";
		return false;
	}
	if (!m->cc_probed) {
		m->cc_probed = true;
		char reason[160];
		m->cc_ok = og_probe_in_child(cc_probe_body, (void *)sys,
		                             "the Count register did not move in 1 ms (an emulator "
		                             "such as qemu-user leaves it at 0)",
		                             reason, sizeof reason);
		if (m->cc_ok) {
			uint32_t c;
			sys->read_cycle_counter(sys->ctx, &c, &m->cc_per_tick);
		} else {
			snprintf(m->cc_why, sizeof m->cc_why,
			         "the RDHWR cycle counter is not available: %s", reason);
		}
		st->host.log(st->host.log_ctx, OG_LOG_TRACE, "perf: %s",
		             m->cc_ok ? "the RDHWR cycle counter works" : m->cc_why);
	}
	*why = m->cc_why;
	return m->cc_ok;
}

/* Binds the cycle counter: cc:cycles, or cycles when no PMU counts them. */
static GPA_Status bind_cc(struct og_perf_state *st, struct og_perf_bound *b, const char **why)
{
	if (!cc_available(st, why))
		return GPA_STATUS_ERROR_NOT_FOUND;
	b->kind = OG_PERF_KIND_CYCLE_COUNTER;
	snprintf(b->source, sizeof b->source, "cc:cycles");
	st->mips->cc_used = true;
	return GPA_STATUS_OK;
}

bool og_perf_mips_claims(const char *source)
{
	return strncmp(source, "even:", 5) == 0 || strncmp(source, "odd:", 4) == 0 ||
	       strncmp(source, "any:", 4) == 0 || strcmp(source, "cc:cycles") == 0;
}

GPA_Status og_perf_mips_source(struct og_perf_state *st, const char *name, const char *source,
                               struct og_perf_bound *b, const char **why_not)
{
	struct og_perf_mips *m = st->mips;
	if (strcmp(source, "cc:cycles") == 0)
		return bind_cc(st, b, why_not);
	unsigned bank, event;
	const char *bad;
	if (!og_mips_parse_source(source, &bank, &event, &bad)) {
		st->host.log(st->host.log_ctx, OG_LOG_ERROR, "perf: raw counter %s: source '%s': %s",
		             name, source, bad);
		return GPA_STATUS_ERROR_FAILED;
	}
	if (!m || !m->is_34k) {
		*why_not = "a MIPS 34K event, and this CPU is not a 34K";
		return GPA_STATUS_ERROR_NOT_FOUND;
	}
	const struct og_mips_event *e = og_mips_event_find(bank == OG_MIPS_ANY ? 0 : bank, event);
	if (!e) {
		*why_not = "MD00548 Table 3 marks this event reserved on that counter bank";
		return GPA_STATUS_ERROR_NOT_FOUND;
	}
	if (bank == OG_MIPS_ANY && e->bank != OG_MIPS_ANY) {
		st->host.log(st->host.log_ctx, OG_LOG_ERROR,
		             "perf: raw counter %s: event %u differs between the banks; use even:%u or "
		             "odd:%u", name, event, event, event);
		return GPA_STATUS_ERROR_FAILED;
	}
	if (!m->counters || st->hw_slots == 0) {
		/* Cycles have a stand-in; nothing else has. */
		if (event == 0 && bind_cc(st, b, why_not) == GPA_STATUS_OK) {
			st->host.log(st->host.log_ctx, OG_LOG_MESSAGE,
			             "perf: %s counts the RDHWR cycle counter (elapsed cycles, every "
			             "task's): %s", name,
			             m->counters || m->pmu_errno == EBUSY
			                     ? "every PMU counter is taken"
			                     : "the kernel's MIPS PMU is not reachable");
			return GPA_STATUS_OK;
		}
		*why_not = m->counters || m->pmu_errno == EBUSY
		                   ? "the PMU has no free counter (other programs hold them all)"
		                   : "the kernel's MIPS PMU is not reachable (no PMU driver, or "
		                     "kernel.perf_event_paranoid forbids it; the trace log has the "
		                     "errno)";
		return GPA_STATUS_ERROR_NOT_FOUND;
	}
	/* The driver's encoding: bit 7 selects the odd bank; an either-bank
	 * event is its plain number. */
	b->kind = OG_PERF_KIND_HW;
	b->type = PERF_TYPE_RAW;
	b->config = event | (bank == OG_MIPS_ODD ? 0x80u : 0);
	int err = og_perf_try_bound(st, b);
	if (err) {
		char nbuf[24];
		st->host.log(st->host.log_ctx, OG_LOG_TRACE,
		             "perf: %s (%s, raw 0x%02llx) not offered: perf_event_open gave %s", name,
		             source, (unsigned long long)b->config,
		             og_perf_errno_name(err, nbuf, sizeof nbuf));
		*why_not = "the kernel's MIPS PMU refused this event (the trace log has the errno)";
		return GPA_STATUS_ERROR_NOT_FOUND;
	}
	return GPA_STATUS_OK;
}

/* hw:cycles with no PMU to count it: the cycle counter, on MIPS. */
bool og_perf_mips_cycles_fallback(struct og_perf_state *st, const char *name,
                                  struct og_perf_bound *b, const char **why_not)
{
	const char *why;
	if (!st->mips || bind_cc(st, b, &why) != GPA_STATUS_OK)
		return false;
	st->host.log(st->host.log_ctx, OG_LOG_MESSAGE,
	             "perf: %s counts the RDHWR cycle counter (elapsed cycles, every task's): %s",
	             name, *why_not ? *why_not : "no PMU counter is free");
	*why_not = NULL;
	return true;
}

/* ---- banks ---------------------------------------------------------------------- */

/* The banks a bound event may use: bit 0 even, bit 1 odd; 0 when this is
 * not an event whose bank the driver's maps fix. */
static unsigned banks_of(const struct og_perf_bound *b)
{
	if (b->type == PERF_TYPE_RAW) {
		unsigned base = b->config & 0x7f;
		if (base == 0 || base == 1 || base == 11)
			return 3;
		return b->config & 0x80 ? 2 : 1;
	}
	if (b->type == PERF_TYPE_HARDWARE) {
		switch (b->config) {
		case PERF_COUNT_HW_CPU_CYCLES:
		case PERF_COUNT_HW_INSTRUCTIONS:
			return 3;
		case PERF_COUNT_HW_BRANCH_INSTRUCTIONS:
			return 1;
		case PERF_COUNT_HW_BRANCH_MISSES:
			return 2;
		default:
			return 0;
		}
	}
	return 0;
}

static bool place(const unsigned banks[4], size_t i, size_t n, unsigned counters, unsigned used)
{
	if (i >= n)
		return true;
	if (i >= 4)
		return false; /* never: n <= 4 counters */
	for (unsigned c = 0; c < counters; c++)
		if ((banks[i] >> (c & 1) & 1) && !(used >> c & 1) &&
		    place(banks, i + 1, n, counters, used | 1u << c))
			return true;
	return false;
}

bool og_perf_mips_fits(const struct og_perf_state *st, const uint32_t *raw_ids, size_t n)
{
	if (!st->mips || !st->mips->is_34k || !st->mips->counters)
		return true;
	unsigned banks[4];
	size_t hw = 0;
	bool unknown = false;
	for (size_t i = 0; i < n; i++) {
		const struct og_perf_bound *b = &st->bound[raw_ids[i]];
		if (b->kind != OG_PERF_KIND_HW)
			continue;
		if (hw == st->mips->counters)
			return false;
		unsigned bk = banks_of(b);
		unknown |= bk == 0;
		banks[hw++] = bk ? bk : 3;
	}
	/* An event whose bank the planner cannot know goes alone. */
	return !(unknown && hw > 1) && place(banks, 0, hw, st->mips->counters, 0);
}

int og_perf_mips_rank(const struct og_perf_state *st, uint32_t raw_id)
{
	if (!st->mips || !st->mips->is_34k || raw_id >= st->nbound)
		return 0;
	return banks_of(&st->bound[raw_id]) == 3;
}

/* ---- reading the cycle counter -------------------------------------------------- */

void og_perf_mips_read(struct og_perf_state *st, bool end)
{
	struct og_perf_mips *m = st->mips;
	if (!m || !m->cc_used || !m->cc_ok)
		return;
	const struct og_sys *sys = st->host.sys;
	uint32_t c, res;
	sys->read_cycle_counter(sys->ctx, &c, &res);
	*(end ? &m->cc_end : &m->cc_begin) = c;
}

void og_perf_mips_roll(struct og_perf_state *st)
{
	if (st->mips)
		st->mips->cc_begin = st->mips->cc_end;
}

/* Count is 32 bits: the delta is taken modulo 2^32, exact for samples
 * shorter than one wrap (2^32 ticks: 17 s at 500 MHz with one tick every
 * two cycles). */
uint64_t og_perf_mips_cycles(const struct og_perf_state *st)
{
	const struct og_perf_mips *m = st->mips;
	if (!m || !m->cc_ok)
		return 0;
	return (uint64_t)(uint32_t)(m->cc_end - m->cc_begin) * m->cc_per_tick;
}
