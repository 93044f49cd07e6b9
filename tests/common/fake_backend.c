/* SPDX-License-Identifier: MIT */
/* fake_backend.c — see fake_backend.h. */
#include "fake_backend.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct fake_config fake_config;
struct fake_stats fake_stats;

struct fake_state {
	const struct og_backend_host *host;
	uint32_t ids[FAKE_SLOTS];
	size_t n;
	bool in_pass, in_sample;
	unsigned pass, ordinal;
	unsigned next_builtin_slot;
	/* The fake kernel of a kernel-timed periodic pass: samples it took
	 * and the reader has not read yet, oldest first. */
	bool periodic;
	uint64_t period, due;  /* the next period's end */
	uint64_t taken_upto;   /* end of the last sample taken (or the start) */
	bool dropped;          /* periods were dropped since that sample */
	unsigned nring;
	struct og_sample_time ring[FAKE_RING];
};

void fake_reset(void)
{
	fake_config = (struct fake_config){
		.max_per_pass = 2,
		.exclusive = (1ull << 10) | (1ull << 11),
		.missing = 1ull << 20,
		.fail_end_sample_pass = -1,
		.fail_end_sample_ordinal = -1,
	};
	memset(&fake_stats, 0, sizeof(fake_stats));
}

uint64_t fake_value(uint32_t slot, uint32_t ordinal, uint32_t pass)
{
	return (uint64_t)(slot + 1) * 1000000u + (uint64_t)(pass + 1) * 1000u + ordinal + 1;
}

static GPA_Status fake_open(const struct og_backend_host *host, const char *options, void **state,
                            struct og_device_info *info)
{
	static const char *const known[] = { "flag", NULL };
	const char *bad = og_option_unknown(options, known);
	if (bad) {
		host->log(host->log_ctx, OG_LOG_ERROR, "fake: unknown option '%s'", bad);
		return GPA_STATUS_ERROR_FAILED;
	}
	if (fake_config.fail_open) {
		host->log(host->log_ctx, OG_LOG_ERROR,
		          "fake: no fake device (clear fake_config.fail_open)");
		return GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED;
	}
	struct fake_state *st = calloc(1, sizeof(*st));
	if (!st)
		return GPA_STATUS_ERROR_FAILED;
	st->host = host;
	memset(&fake_stats, 0, sizeof(fake_stats));
	fake_stats.opens = 1;
	st->next_builtin_slot = FAKE_BUILTIN_FIRST_SLOT;
	info->counter_sets[0] = fake_config.builtin_set;
	info->device_id = FAKE_DEVICE_ID;
	info->revision_id = FAKE_REVISION;
	snprintf(info->description, sizeof(info->description), "%s", FAKE_DESCRIPTION);
	*state = st;
	return GPA_STATUS_OK;
}

static void fake_close(void *state)
{
	fake_stats.closes++;
	free(state);
}

static GPA_Status fake_bind_raw(void *state, const char *name, const char *source,
                                uint32_t *raw_id, const char **why_not)
{
	struct fake_state *st = state;
	(void)name;
	unsigned slot;
	int used = 0;
	if (fake_config.builtin_set && strncmp(source, "slot:", 5) != 0) {
		if (st->next_builtin_slot >= FAKE_SLOTS)
			return GPA_STATUS_ERROR_FAILED;
		*raw_id = st->next_builtin_slot++;
		return GPA_STATUS_OK;
	}
	if (sscanf(source, "slot:%u%n", &slot, &used) != 1 || source[used] || slot >= FAKE_SLOTS)
		return GPA_STATUS_ERROR_FAILED;
	if (fake_config.missing & (1ull << slot)) {
		*why_not = "this slot is switched off in the fake device";
		return GPA_STATUS_ERROR_NOT_FOUND;
	}
	*raw_id = slot;
	return GPA_STATUS_OK;
}

static GPA_Status fake_constant(void *state, const char *name, double *value)
{
	(void)state;
	if (strcmp(name, "Scale") != 0 && !fake_config.builtin_set)
		return GPA_STATUS_ERROR_NOT_FOUND;
	*value = FAKE_SCALE;
	return GPA_STATUS_OK;
}

static bool fake_fits(void *state, const uint32_t *raw_ids, size_t n)
{
	(void)state;
	if (n > fake_config.max_per_pass)
		return false;
	unsigned exclusive = 0;
	for (size_t i = 0; i < n; i++) {
		if (raw_ids[i] >= FAKE_SLOTS)
			return false;
		for (size_t j = 0; j < i; j++)
			if (raw_ids[j] == raw_ids[i])
				return false; /* the planner must never ask twice for one raw */
		exclusive += (fake_config.exclusive >> raw_ids[i]) & 1;
	}
	return exclusive <= 1;
}

static GPA_Status fake_begin_pass(void *state, const uint32_t *raw_ids, size_t n)
{
	struct fake_state *st = state;
	if (st->in_pass || n == 0 || n > FAKE_SLOTS || !fake_fits(state, raw_ids, n)) {
		st->host->log(st->host->log_ctx, OG_LOG_ERROR, "fake: begin_pass misused by the core");
		return GPA_STATUS_ERROR_FAILED;
	}
	if (fake_config.fail_begin_pass) {
		st->host->log(st->host->log_ctx, OG_LOG_ERROR,
		              "fake: begin_pass fails on purpose (clear fail_begin_pass)");
		return GPA_STATUS_ERROR_FAILED;
	}
	memcpy(st->ids, raw_ids, n * sizeof(*raw_ids));
	st->n = n;
	st->in_pass = true;
	st->pass = fake_stats.pass_seq++;
	st->ordinal = 0;
	fake_stats.last_pass_n = (unsigned)n;
	return GPA_STATUS_OK;
}

static GPA_Status fake_end_pass(void *state)
{
	struct fake_state *st = state;
	if (!st->in_pass || st->in_sample) {
		st->host->log(st->host->log_ctx, OG_LOG_ERROR, "fake: end_pass misused by the core");
		return GPA_STATUS_ERROR_FAILED;
	}
	st->in_pass = false;
	return GPA_STATUS_OK;
}

static GPA_Status fake_begin_sample(void *state)
{
	struct fake_state *st = state;
	fake_stats.begin_samples++;
	if (!st->in_pass || st->in_sample) {
		st->host->log(st->host->log_ctx, OG_LOG_ERROR, "fake: begin_sample misused by the core");
		return GPA_STATUS_ERROR_FAILED;
	}
	if (fake_config.fail_begin_sample) {
		st->host->log(st->host->log_ctx, OG_LOG_ERROR,
		              "fake: begin_sample fails on purpose (clear fail_begin_sample)");
		return GPA_STATUS_ERROR_FAILED;
	}
	st->in_sample = true;
	return GPA_STATUS_OK;
}

static GPA_Status fake_end_sample(void *state, uint64_t *deltas)
{
	struct fake_state *st = state;
	fake_stats.end_samples++;
	if (!st->in_sample) {
		st->host->log(st->host->log_ctx, OG_LOG_ERROR, "fake: end_sample misused by the core");
		return GPA_STATUS_ERROR_FAILED;
	}
	st->in_sample = false;
	unsigned ordinal = st->ordinal++;
	unsigned run = fake_config.fail_end_sample_run ? fake_config.fail_end_sample_run : 1;
	if ((int)st->pass == fake_config.fail_end_sample_pass &&
	    (int)ordinal >= fake_config.fail_end_sample_ordinal &&
	    ordinal - (unsigned)fake_config.fail_end_sample_ordinal < run) {
		st->host->log(st->host->log_ctx, OG_LOG_ERROR,
		              "fake: sample %u of pass %u fails on purpose", ordinal, st->pass);
		return GPA_STATUS_ERROR_FAILED;
	}
	if (fake_config.stall_ordinal && ordinal + 1 == fake_config.stall_ordinal) {
		struct timespec t = { (time_t)(fake_config.stall_ns / 1000000000u),
			              (long)(fake_config.stall_ns % 1000000000u) };
		while (nanosleep(&t, &t) != 0)
			;
	}
	for (size_t i = 0; i < st->n; i++)
		deltas[i] = fake_value(st->ids[i], ordinal, st->pass) + fake_config.value_offset;
	return GPA_STATUS_OK;
}

/* What both tables have. */
#define FAKE_OPS \
	.name = "test", .open = fake_open, .close = fake_close, .bind_raw = fake_bind_raw, \
	.constant = fake_constant, .fits = fake_fits, .begin_pass = fake_begin_pass, \
	.end_pass = fake_end_pass, .begin_sample = fake_begin_sample, \
	.end_sample = fake_end_sample

static bool fake_sample_time(void *state, struct og_sample_time *t)
{
	(void)state;
	unsigned k = fake_stats.end_samples - 1; /* end_sample counted it */
	if (k >= fake_config.ntimes)
		return false;
	*t = (struct og_sample_time){ fake_config.times[k][0], fake_config.times[k][1],
		                      OG_SAMPLE_KERNEL_TIME };
	return true;
}

const struct og_backend_ops fake_backend_ops = {
	FAKE_OPS,
	.sample_time = fake_sample_time,
	.summary = "fake device for the core's tests",
};

/* ---- periodic hooks ------------------------------------------------------ */

static uint64_t fake_period_floor(void *state, const char **why)
{
	(void)state;
	*why = "the fake device's";
	return FAKE_PERIOD_FLOOR_NS;
}

static GPA_Status fake_next_sample(void *state, uint64_t *deltas)
{
	GPA_Status st = fake_end_sample(state, deltas);
	return st != GPA_STATUS_OK ? st : fake_begin_sample(state);
}

static uint64_t fake_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static GPA_Status fake_begin_periodic(void *state, struct og_periodic_mode *mode)
{
	struct fake_state *st = state;
	if (!fake_config.kernel_timed)
		return GPA_STATUS_OK;
	mode->kernel_timed = true;
	mode->kernel_ring = FAKE_RING;
	st->periodic = true;
	st->period = mode->period_ns;
	st->taken_upto = fake_now();
	st->due = st->taken_upto + st->period;
	st->dropped = false;
	st->nring = 0;
	return GPA_STATUS_OK;
}

/* One sample up to `end` into the ring, if it has room. */
static bool fake_take(struct fake_state *st, uint64_t end)
{
	if (st->nring == FAKE_RING) {
		st->dropped = true; /* its counts stay for the next sample */
		return false;
	}
	uint32_t flags = OG_SAMPLE_KERNEL_TIME | (st->dropped ? OG_SAMPLE_OVERFLOW : 0);
	st->ring[st->nring++] = (struct og_sample_time){ st->taken_upto, end, flags };
	st->taken_upto = end;
	st->dropped = false;
	return true;
}

/* What the kernel did while nobody looked: every period that ended. */
static void fake_catch_up(struct fake_state *st)
{
	uint64_t now = fake_now();
	for (; st->periodic && st->due <= now; st->due += st->period)
		fake_take(st, st->due);
}

static GPA_Status fake_read_periodic(void *state, uint64_t *deltas, struct og_sample_time *t)
{
	struct fake_state *st = state;
	fake_catch_up(st);
	if (st->nring == 0)
		return GPA_STATUS_ERROR_NOT_FOUND;
	*t = st->ring[0];
	memmove(&st->ring[0], &st->ring[1], --st->nring * sizeof(st->ring[0]));
	unsigned ordinal = st->ordinal++;
	for (size_t i = 0; i < st->n; i++)
		deltas[i] = fake_value(st->ids[i], ordinal, st->pass) + fake_config.value_offset;
	return GPA_STATUS_OK;
}

static GPA_Status fake_end_periodic(void *state)
{
	struct fake_state *st = state;
	fake_catch_up(st);
	st->periodic = false;
	if (!fake_take(st, fake_now())) {
		st->host->log(st->host->log_ctx, OG_LOG_ERROR, "fake: the ring is full at the end");
		return GPA_STATUS_ERROR_FAILED;
	}
	return GPA_STATUS_OK;
}

const struct og_backend_ops fake_periodic_ops = {
	FAKE_OPS,
	.summary = "fake device for the core's tests, with periodic hooks",
	.period_floor = fake_period_floor,
	.begin_periodic = fake_begin_periodic,
	.read_periodic = fake_read_periodic,
	.end_periodic = fake_end_periodic,
	.next_sample = fake_next_sample,
};
