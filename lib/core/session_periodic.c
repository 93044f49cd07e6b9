/* SPDX-License-Identifier: MIT */
/*
 * session_periodic.c — periodic sessions: one sample per period between
 * GPA_BeginPass and GPA_EndPass, appended to the session as they complete.
 *
 * Each periodic pass has one thread of the core's, which sleeps on a
 * condition variable of the registry lock (so it holds the lock only while
 * it reads the backend and stores a sample) and wakes every period:
 *
 *   kernel-timed  (kbase SET_INTERVAL, kinstr_prfcnt periodic): the kernel
 *                 takes and stamps the samples into its ring; the thread
 *                 drains the ring through read_periodic, every period or so.
 *                 While the process is stopped the kernel goes on, so no
 *                 period is lost until its ring is full.
 *   timer         (perf, mips, panfrost): the thread ends one sample and
 *                 begins the next at one snapshot (next_sample) at each
 *                 period, on absolute deadlines; the times are its clock
 *                 readings, a late wake-up makes one longer sample.
 *
 * EndPass stops the thread — releasing the lock until it has gone, with the
 * session marked `ending` so no other caller slips in — then takes the last,
 * short, sample itself.  Every sample the thread stored stays readable.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/registry.h"
#include "core/session_internal.h"
#include "opengpa.h"

/* The flag bits are one set, seen by backends and clients alike. */
_Static_assert(OG_SAMPLE_KERNEL_TIME == OPENGPA_SAMPLE_KERNEL_TIME, "sample flag");
_Static_assert(OG_SAMPLE_OVERFLOW == OPENGPA_SAMPLE_OVERFLOW, "sample flag");
_Static_assert(OG_SAMPLE_LATE == OPENGPA_SAMPLE_LATE, "sample flag");
_Static_assert(OG_SAMPLE_FINAL == OPENGPA_SAMPLE_FINAL, "sample flag");
_Static_assert(OG_SAMPLE_FAILED == OPENGPA_SAMPLE_FAILED, "sample flag");
_Static_assert(OG_SAMPLE_BLOCKS_OFF == OPENGPA_SAMPLE_BLOCKS_OFF, "sample flag");
_Static_assert(OG_SAMPLE_PROTECTED == OPENGPA_SAMPLE_PROTECTED, "sample flag");
_Static_assert(OG_SAMPLES_TOTAL == OPENGPA_SAMPLES_TOTAL, "total sample id");

/* An hour: longer periods are a unit mistake (seconds given as ns * 1e9). */
#define MAX_PERIOD_NS 3600000000000ull
/* Failed samples in a row after which the thread gives up: the device is
 * gone or the kernel keeps refusing, and every period would log again. */
#define MAX_FAILURES_IN_ROW 8
/* A kernel-timed thread drains at most this often when its ring allows. */
#define KERNEL_DRAIN_NS 1000000u

struct og_periodic {
	const struct og_backend_ops *ops;
	void *state;
	struct og_session *s;
	uint64_t period_ns;
	uint64_t interval_ns; /* between wake-ups */
	struct og_periodic_mode mode;

	pthread_t thread;
	bool started;
	pthread_cond_t wake; /* CLOCK_MONOTONIC; the registry lock's */
	bool stop, exited, halted;
	uint64_t due_ns;

	bool open;          /* timer: a backend sample is open */
	uint64_t begin_ns;  /* timer: when it began; kernel: the last sample's end */
	unsigned failures;  /* in a row */
	GPA_Status status;  /* why the sampling stopped early, for EndPass */
};

/* Stops the sampling thread and waits for it; the registry lock is held
 * (the wait releases it while the thread finishes its tick). */
static void stop_thread(struct og_periodic *p)
{
	if (!p->started)
		return;
	p->stop = true;
	pthread_cond_broadcast(&p->wake);
	while (!p->exited)
		pthread_cond_wait(&p->wake, &og_registry()->lock);
	pthread_join(p->thread, NULL);
	p->started = false;
}

/* Also when a context closes with the pass still open: the thread must be
 * gone before p is, or it samples through freed memory (the qemu-mips run
 * of core-periodic caught it, as a bus error, after a failed test left a
 * pass open). */
void og_periodic_free(struct og_periodic *p)
{
	if (!p)
		return;
	stop_thread(p);
	pthread_cond_destroy(&p->wake);
	free(p);
}

/* ---- settings ---------------------------------------------------------- */

static void format_period(uint64_t ns, char *buf, size_t len)
{
	if (ns >= 1000000u && ns % 1000000u == 0)
		snprintf(buf, len, "%llu ms", (unsigned long long)(ns / 1000000u));
	else if (ns >= 1000u && ns % 1000u == 0)
		snprintf(buf, len, "%llu µs", (unsigned long long)(ns / 1000u));
	else
		snprintf(buf, len, "%llu ns", (unsigned long long)ns);
}

GPA_Status og_context_set_period(struct og_context *ctx, uint64_t period_ns)
{
	if (period_ns == 0) {
		ctx->period_ns = 0;
		return GPA_STATUS_OK;
	}
	const char *why = "the core's timer thread";
	uint64_t floor = ctx->ops->period_floor ? ctx->ops->period_floor(ctx->state, &why)
	                                        : OG_DEFAULT_PERIOD_FLOOR_NS;
	char asked[32], least[32];
	format_period(period_ns, asked, sizeof asked);
	format_period(floor, least, sizeof least);
	if (period_ns < floor)
		return og_error(GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE,
		                "sampling period %s is shorter than the %s backend's floor of %s "
		                "(%s); choose %s or more", asked, ctx->ops->name, least, why, least);
	if (period_ns > MAX_PERIOD_NS)
		return og_error(GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE,
		                "sampling period %llu ns is over an hour; the period is in "
		                "nanoseconds (1 s = 1000000000)", (unsigned long long)period_ns);
	ctx->period_ns = period_ns;
	return GPA_STATUS_OK;
}

GPA_Status og_context_set_window(struct og_context *ctx, uint32_t samples)
{
	if (samples == 1)
		return og_error(GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE,
		                "a periodic window of 1 sample would drop each sample as the next "
		                "completes; keep 2 or more (0 keeps them all)");
	ctx->periodic_window = samples;
	return GPA_STATUS_OK;
}

/* Appends sep and text to buf while they fit, else "..." once. */
static void append_text(char *buf, size_t len, const char *sep, const char *text, bool *cut)
{
	size_t used = strlen(buf);
	if (*cut)
		return;
	if (used + strlen(sep) + strlen(text) + 4 >= len) {
		snprintf(buf + used, len - used, "...");
		*cut = true;
		return;
	}
	/* Fits (checked above): copied, not printed, so that GCC's
	 * -Wformat-truncation at -O3 (armhf) has no bound to doubt. */
	size_t ns = strlen(sep), nt = strlen(text);
	memcpy(buf + used, sep, ns);
	memcpy(buf + used + ns, text, nt + 1);
}

GPA_Status og_periodic_check_plan(struct og_context *ctx, const struct og_plan *plan)
{
	/* The library's own samples bracket no commands of the application's
	 * API, so nothing can time them on the GPU. */
	for (size_t p = 0; p < plan->npasses; p++)
		for (size_t i = 0; i < plan->passes[p].n; i++)
			if (ctx->cat.raws[plan->passes[p].raws[i]].api)
				return og_error(GPA_STATUS_ERROR_FAILED,
				                "GPA_BeginSession: a periodic session samples by itself, "
				                "around no commands of the application's, so the API cannot "
				                "time its samples: disable %s (and the counters that use it) "
				                "for periodic sessions",
				                ctx->cat.raws[plan->passes[p].raws[i]].name);
	if (plan->npasses <= 1)
		return GPA_STATUS_OK;
	/* Name each pass by the enabled counters it counts. */
	char passes[320] = "";
	bool cut = false;
	for (size_t p = 0; p < plan->npasses && !cut; p++) {
		char head[40];
		snprintf(head, sizeof head, "pass %zu:", p);
		append_text(passes, sizeof passes, p ? "; " : "", head, &cut);
		const char *sep = " ";
		for (size_t i = 0; i < ctx->sel.nenabled; i++) {
			const struct og_counter *c = &ctx->cat.counters[ctx->sel.enabled[i]];
			int pass = 0;
			for (size_t k = 0; k < c->ninputs; k++)
				if (plan->raw_pass[c->inputs[k]] > pass)
					pass = plan->raw_pass[c->inputs[k]];
			if ((size_t)pass == p) {
				append_text(passes, sizeof passes, sep, c->name, &cut);
				sep = ", ";
			}
		}
	}
	return og_error(GPA_STATUS_ERROR_NOT_ENOUGH_PASSES,
	                "GPA_BeginSession: a periodic session counts in one pass, but the enabled "
	                "counters take %zu (%s): an interval cannot span re-runs of the workload; "
	                "enable fewer counters%s", plan->npasses, passes,
	                ctx->ops->begin_multiplexed_pass
	                        ? " or let the kernel time-share them (OpenGPA_SetMultiplexing, "
	                          "opengpa stat --multiplex)"
	                        : "");
}

/* ---- the samples ------------------------------------------------------- */

/* One failed sample is the sample's business (its results say so); many in
 * a row stop the sampling, which EndPass then reports. */
static void failed(struct og_periodic *p, GPA_Status st)
{
	if (++p->failures < MAX_FAILURES_IN_ROW || p->halted)
		return;
	p->halted = true;
	if (p->status == GPA_STATUS_OK)
		p->status = st;
	og_log(OG_LOG_ERROR, "periodic sampling of session %u stopped after %d failed samples in "
	       "a row (the messages before say why); the %zu samples taken stay readable",
	       og_session_id(p->s), MAX_FAILURES_IN_ROW, og_session_complete(p->s));
}

static void store(struct og_periodic *p, const uint64_t *deltas, struct og_sample_time *t,
                  GPA_Status st)
{
	if (st != GPA_STATUS_OK)
		t->flags |= OG_SAMPLE_FAILED;
	double coverage = st == GPA_STATUS_OK && p->ops->sample_coverage
	                          ? p->ops->sample_coverage(p->state)
	                          : 1.0;
	GPA_Status a = og_session_append(p->s, deltas, t, coverage);
	if (a != GPA_STATUS_OK) {
		p->halted = true; /* out of memory: logged */
		if (p->status == GPA_STATUS_OK)
			p->status = a;
	}
	if (st != GPA_STATUS_OK)
		failed(p, st);
	else
		p->failures = 0;
}

/* Timer: ends the open sample at one clock reading (the middle of the read)
 * and, with next_sample, begins the next at the same one. */
static void timer_cut(struct og_periodic *p, bool last)
{
	uint64_t *deltas = og_session_deltas(p->s);
	uint64_t t0 = og_clock_monotonic_ns();
	GPA_Status st = last || !p->ops->next_sample ? p->ops->end_sample(p->state, deltas)
	                                             : p->ops->next_sample(p->state, deltas);
	uint64_t t1 = og_clock_monotonic_ns();
	uint64_t at = t0 + (t1 - t0) / 2;
	struct og_sample_time t = { p->begin_ns, at, last ? OG_SAMPLE_FINAL : 0 };
	struct og_sample_time kt;
	if (st == GPA_STATUS_OK && p->ops->sample_time && p->ops->sample_time(p->state, &kt))
		t = (struct og_sample_time){ kt.begin_ns, kt.end_ns, kt.flags | t.flags };
	else if (t.end_ns - t.begin_ns > p->period_ns + p->period_ns / 2)
		t.flags |= OG_SAMPLE_LATE;
	store(p, deltas, &t, st);
	p->begin_ns = at;
	p->open = !last && p->ops->next_sample && st == GPA_STATUS_OK;
}

static void timer_begin(struct og_periodic *p)
{
	GPA_Status st = p->ops->begin_sample(p->state);
	p->begin_ns = og_clock_monotonic_ns();
	p->open = st == GPA_STATUS_OK;
	if (!p->open)
		failed(p, st);
}

/* Kernel-timed: stores every sample the kernel has finished, oldest first.
 * Bounded: a kernel that never says "no more" cannot hold the lock. */
static void kernel_drain(struct og_periodic *p)
{
	uint64_t *deltas = og_session_deltas(p->s);
	for (uint32_t i = 0; i <= p->mode.kernel_ring + 1 && !p->halted; i++) {
		struct og_sample_time t = { 0 };
		GPA_Status st = p->ops->read_periodic(p->state, deltas, &t);
		if (st == GPA_STATUS_ERROR_NOT_FOUND)
			return;
		if (st != GPA_STATUS_OK)
			t = (struct og_sample_time){ p->begin_ns, og_clock_monotonic_ns(), 0 };
		store(p, deltas, &t, st);
		p->begin_ns = t.end_ns;
	}
}

static void tick(struct og_periodic *p)
{
	if (p->mode.kernel_timed) {
		kernel_drain(p);
		return;
	}
	if (p->open)
		timer_cut(p, false);
	if (!p->open && !p->halted)
		timer_begin(p);
}

/* ---- the thread ---------------------------------------------------------- */

static struct timespec to_timespec(uint64_t ns)
{
	return (struct timespec){ (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };
}

static void *sampling_thread(void *arg)
{
	struct og_periodic *p = arg;
	struct og_registry *r = og_registry();
	pthread_mutex_lock(&r->lock);
	while (!p->stop && !p->halted) {
		struct timespec due = to_timespec(p->due_ns);
		pthread_cond_timedwait(&p->wake, &r->lock, &due);
		if (p->stop)
			break;
		uint64_t now = og_clock_monotonic_ns();
		if (now < p->due_ns)
			continue; /* woken early */
		tick(p);
		/* The next deadline on the same grid; periods that passed while
		 * the thread could not run are not made up (the sample that was
		 * late covers them). */
		p->due_ns += p->interval_ns;
		now = og_clock_monotonic_ns();
		if (p->due_ns <= now)
			p->due_ns += ((now - p->due_ns) / p->interval_ns + 1) * p->interval_ns;
	}
	p->exited = true;
	pthread_cond_broadcast(&p->wake);
	/* Log lines stay queued for the client's next call: its callback is
	 * never run on this thread. */
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

/* Signals are the client's: the thread takes none of them. */
static int start_thread(struct og_periodic *p)
{
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int e = pthread_create(&p->thread, NULL, sampling_thread, p);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e == 0)
		pthread_setname_np(p->thread, "opengpa-sample");
	return e;
}

static uint64_t drain_interval(const struct og_periodic_mode *mode)
{
	uint64_t period = mode->period_ns;
	if (mode->kernel_ring < 8 || period >= KERNEL_DRAIN_NS)
		return period;
	/* A quarter of the ring at a time, at most every KERNEL_DRAIN_NS. */
	uint64_t batch = period * (mode->kernel_ring / 4);
	return batch < KERNEL_DRAIN_NS ? batch : KERNEL_DRAIN_NS;
}

GPA_Status og_periodic_start(struct og_context *ctx, struct og_session *s)
{
	struct og_periodic *p = calloc(1, sizeof *p);
	if (!p)
		return og_error(GPA_STATUS_ERROR_FAILED, "GPA_BeginPass: out of memory");
	pthread_condattr_t attr;
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&p->wake, &attr);
	pthread_condattr_destroy(&attr);
	p->ops = ctx->ops;
	p->state = ctx->state;
	p->s = s;
	p->period_ns = og_session_period(s);
	p->mode.period_ns = p->period_ns;

	GPA_Status st = GPA_STATUS_OK;
	if (p->ops->begin_periodic)
		st = p->ops->begin_periodic(p->state, &p->mode);
	if (st == GPA_STATUS_OK && p->mode.kernel_timed &&
	    (!p->ops->read_periodic || !p->ops->end_periodic))
		st = og_error(GPA_STATUS_ERROR_FAILED,
		              "GPA_BeginPass: the %s backend says its kernel times the samples but "
		              "cannot read them (an opengpa bug; report it)", p->ops->name);
	if (st != GPA_STATUS_OK) {
		og_periodic_free(p);
		return st; /* the backend said why */
	}
	if (p->mode.kernel_timed) {
		p->begin_ns = og_clock_monotonic_ns();
	} else {
		st = p->ops->begin_sample(p->state); /* logged when it fails */
		p->begin_ns = og_clock_monotonic_ns();
		if (st != GPA_STATUS_OK) {
			og_periodic_free(p);
			return st;
		}
		p->open = true;
	}
	p->interval_ns = p->mode.kernel_timed ? drain_interval(&p->mode) : p->period_ns;
	p->due_ns = og_clock_monotonic_ns() + p->interval_ns;
	int e = start_thread(p);
	if (e != 0) {
		if (p->mode.kernel_timed)
			p->ops->end_periodic(p->state);
		og_periodic_free(p);
		return og_error(GPA_STATUS_ERROR_FAILED,
		                "GPA_BeginPass: cannot start the sampling thread: %s; raise the "
		                "process's thread limit (ulimit -u)", strerror(e));
	}
	p->started = true;
	og_session_set_periodic(s, p, p->mode.kernel_timed);
	return GPA_STATUS_OK;
}

GPA_Status og_periodic_stop(struct og_context *ctx, struct og_session *s)
{
	(void)ctx;
	struct og_periodic *p = og_session_periodic(s);
	stop_thread(p);
	/* The rest of the pass, read on the caller's thread. */
	if (p->mode.kernel_timed) {
		bool halted = p->halted;
		p->halted = false; /* one more try at what the kernel holds */
		kernel_drain(p);
		GPA_Status st = p->ops->end_periodic(p->state);
		size_t before = og_session_complete(s);
		if (st == GPA_STATUS_OK)
			kernel_drain(p);
		if (og_session_complete(s) > before)
			og_session_flag_last(s, OG_SAMPLE_FINAL);
		else if (st == GPA_STATUS_OK)
			st = og_error(GPA_STATUS_ERROR_READING_COUNTER_RESULT,
			              "GPA_EndPass: the %s backend's kernel gave no last sample; what "
			              "was counted after sample %zu of session %u is missing",
			              p->ops->name, before ? before - 1 : 0, og_session_id(s));
		if (og_session_complete(s) == before && p->status == GPA_STATUS_OK && !halted)
			p->status = st; /* the end of the pass was not counted */
	} else if (p->open) {
		timer_cut(p, true);
	}
	GPA_Status status = p->status;
	og_session_set_periodic(s, NULL, p->mode.kernel_timed);
	og_periodic_free(p);
	og_session_notify();
	return status;
}
