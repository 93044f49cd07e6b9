/* SPDX-License-Identifier: MIT */
/*
 * kbase.c — the `mali` backend: Arm's kbase driver (/dev/mali0), JM and CSF,
 * through whichever counter interface the driver has: the hwcnt reader
 * ("vinstr", kbase_vinstr.c) or kinstr_prfcnt (kbase_kinstr.c).
 *
 * Opening (kbase_device.c) tells JM from CSF drivers by their version
 * handshakes, reads the GPU properties and finds the GPU in the table
 * (mali_gpus.c), which names its counter set.  The interface is chosen by
 * the driver's UK version (kbase_interface.c; option interface= forces
 * one); if the driver turns out not to have it after all, the other one is
 * tried.  Either reader is set up once, with every counter of every block
 * enabled, so any set of raw counters fits in one pass; a sample is the
 * reader's counts between a mark at begin_sample and a sample at
 * end_sample, summed over the instances of each block type.
 *
 * A periodic pass lets the kernel time the samples (vinstr's SET_INTERVAL,
 * kinstr_prfcnt's periodic mode): they queue in the reader's ring, stamped,
 * while the process sleeps or is stopped, and read_periodic takes them in
 * order.  A full ring makes the kernel skip a period's sample; its counts
 * stay for the next one, which is then longer than a period: reported as an
 * overflow.  Sample times are the kernel's (CLOCK_MONOTONIC_RAW), converted
 * to CLOCK_MONOTONIC as they are read.
 *
 * Just past 600 lines: it is the backend's vtable and what each entry needs
 * of the device and reader state (struct kbase) that only this file sees;
 * the device, the interfaces, the readers and the layouts are in files of
 * their own already, and splitting the vtable would expose struct kbase.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "kbase_internal.h"
#include "mali_common.h"
#include "mali_instances.h"
#include "mali_uapi.h"

#define DEFAULT_DEVICE "/dev/mali0"
#define DEFAULT_TIMEOUT_MS 1000

struct kbase {
	struct og_kbase_dev dev;
	const struct og_kbase_reader_ops *rops;
	void *reader;
	uint32_t *pass_ids;
	size_t pass_n;
	/* The pass's per-instance ids and their values (owned here; dev.picks
	 * is a copy of the pointers for the readers). */
	struct og_mali_picks picks;
	struct og_mali_totals totals;
	struct og_mali_sample_info info;
	/* Times: the last sample's, and the kernel (raw) and CLOCK_MONOTONIC
	 * times of its end, where the next sample begins. */
	struct og_sample_time last;
	uint64_t end_raw, end_ns;
	/* Periodic pass: whether the kernel's timer runs, the pass's period
	 * (kept after the stop: the samples drained then are read against it),
	 * the kernel's ring, periods the kernel merged because the ring was
	 * full. */
	bool periodic_on;
	uint64_t period_ns;
	uint32_t ring;
	unsigned merged;
	/* This pass has logged a sample with blocks off / in protected mode. */
	bool said_off, said_protected;
};

#define LOG(k, ...) OG_KBASE_LOG(&(k)->dev, __VA_ARGS__)

static void release(struct kbase *k)
{
	if (k->reader)
		k->rops->close(k->reader);
	k->reader = NULL;
	og_kbase_device_close(&k->dev);
	free(k->pass_ids);
	k->pass_ids = NULL;
	og_mali_picks_free(&k->picks);
	k->dev.picks = k->picks;
}

static const struct og_kbase_reader_ops *ops_of(enum og_kbase_iface iface)
{
	return iface == OG_KBASE_IFACE_KINSTR ? &og_kbase_kinstr : &og_kbase_vinstr;
}

/* The chosen reader, or the other one when the driver turns out to lack
 * the chosen one (and its version says it has the other). */
static GPA_Status open_reader(struct kbase *k, enum og_kbase_iface iface, bool forced,
                              const char *why, char *said, size_t said_len)
{
	struct og_kbase_dev *d = &k->dev;
	bool absent = false;
	k->rops = ops_of(iface);
	GPA_Status st = k->rops->open(d, &k->reader, &absent);
	if (said_len) /* 0: nobody reads it */
		snprintf(said, said_len, "%s (%s)", k->rops->name, why);
	if (st == GPA_STATUS_OK || !absent)
		return st;
	char ver[32];
	og_kbase_version_text(&d->version, ver, sizeof ver);
	struct og_kbase_offer o;
	og_kbase_offer(&d->version, &o);
	enum og_kbase_iface other =
		iface == OG_KBASE_IFACE_KINSTR ? OG_KBASE_IFACE_VINSTR : OG_KBASE_IFACE_KINSTR;
	bool other_offered = other == OG_KBASE_IFACE_KINSTR ? o.kinstr : o.vinstr;
	if (!forced && other_offered) {
		k->rops = ops_of(other);
		absent = false;
		st = k->rops->open(d, &k->reader, &absent);
		if (said_len)
			snprintf(said, said_len,
			         "%s (the driver refused %s although %s should have it)",
			         k->rops->name, ops_of(iface)->name, ver);
		if (st == GPA_STATUS_OK || !absent)
			return st;
	}
	LOG(k, "mali: %s (%s) answers none of the counter interfaces opengpa speaks%s: it needs "
	       "the vinstr reader (JM UK below 11.40, CSF UK below 1.21) or kinstr_prfcnt (JM UK "
	       "11.34, CSF UK 1.10 or later), and the driver must be built with them",
	    d->path, ver, forced ? " (and interface= allowed one)" : "");
	return GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED;
}

static bool parse_options(const struct og_backend_host *host, const char *options,
                          struct og_kbase_dev *d, enum og_kbase_iface *iface)
{
	static const char *const known[] = {"device", "timeout", "interface", NULL};
	const char *bad = og_option_unknown(options, known);
	if (bad) {
		og_mali_log(host, OG_LOG_ERROR,
		            "mali: unknown option '%.*s'; the mali backend takes device=PATH, "
		            "timeout=MS and interface=vinstr|kinstr_prfcnt", (int)strcspn(bad, ","),
		            bad);
		return false;
	}
	if (!og_option_get(options, "device", d->path, sizeof d->path))
		strcpy(d->path, DEFAULT_DEVICE);
	d->timeout_ms = DEFAULT_TIMEOUT_MS;
	char buf[32];
	if (og_option_get(options, "timeout", buf, sizeof buf)) {
		char *end;
		long t = strtol(buf, &end, 10);
		if (*end || t < 1 || t > 600000) {
			og_mali_log(host, OG_LOG_ERROR,
			            "mali: timeout=%s is not a number of milliseconds in 1..600000", buf);
			return false;
		}
		d->timeout_ms = (int)t;
	}
	*iface = OG_KBASE_IFACE_AUTO;
	if (og_option_has(options, "interface")) {
		if (!og_option_get(options, "interface", buf, sizeof buf))
			buf[0] = '\0';
		if (strcmp(buf, "vinstr") == 0)
			*iface = OG_KBASE_IFACE_VINSTR;
		else if (strcmp(buf, "kinstr_prfcnt") == 0)
			*iface = OG_KBASE_IFACE_KINSTR;
		else if (strcmp(buf, "auto") != 0) {
			og_mali_log(host, OG_LOG_ERROR,
			            "mali: interface=%s is not one of vinstr, kinstr_prfcnt or auto", buf);
			return false;
		}
	}
	return true;
}

static GPA_Status kbase_open(const struct og_backend_host *host, const char *options, void **state,
                             struct og_device_info *info)
{
	if (!host || !host->sys || !state || !info)
		return GPA_STATUS_ERROR_NULL_POINTER;
	/* Its totals are 64-byte aligned (mali_common.h). */
	struct kbase *k = aligned_alloc(_Alignof(struct kbase), sizeof *k);
	if (k)
		memset(k, 0, sizeof *k);
	if (!k) {
		og_mali_log(host, OG_LOG_ERROR, "mali: out of memory for the backend state");
		return GPA_STATUS_ERROR_FAILED;
	}
	struct og_kbase_dev *d = &k->dev;
	d->host = *host;
	d->fd = -1;
	enum og_kbase_iface forced;
	if (!parse_options(host, options, d, &forced)) {
		free(k);
		return GPA_STATUS_ERROR_FAILED;
	}
	GPA_Status st = og_kbase_device_open(d);
	char why[320] = "", said[400] = "";
	/* The reasons are written for the log line below: only when it is read
	 * (formatting them was a tenth of an open's own work). */
	bool tell = og_mali_log_wanted(host, OG_LOG_MESSAGE);
	if (st == GPA_STATUS_OK) {
		uint32_t values = d->gpu.product->values_per_block;
		enum og_kbase_iface iface =
			og_kbase_choose(&d->version, values, forced, why, tell ? sizeof why : 0);
		if (iface == OG_KBASE_IFACE_AUTO) {
			og_kbase_choose(&d->version, values, forced, why, sizeof why);
			LOG(k, "mali: %s: %s", d->path, why);
			st = GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED;
		} else {
			st = open_reader(k, iface, forced != OG_KBASE_IFACE_AUTO, why, said,
			                 tell ? sizeof said : 0);
		}
	}
	if (st != GPA_STATUS_OK) {
		release(k);
		free(k);
		return st;
	}
	og_mali_fill_info(&d->gpu, info);
	/* Described only for someone who reads it: every open passes here. */
	if (tell) {
		char ver[32], fw[48] = "", how[320];
		og_kbase_version_text(&d->version, ver, sizeof ver);
		if (d->version.kind == OG_KBASE_CSF && d->fw_version)
			snprintf(fw, sizeof fw, " (firmware interface 0x%08x)",
			         (unsigned)d->fw_version);
		k->rops->describe(k->reader, how, sizeof how);
		og_mali_log(host, OG_LOG_MESSAGE,
		            "mali: %s (product id 0x%04x) on %s, %s%s, %u L2 slices, %u-bit bus; "
		            "counters through %s; %s", info->description,
		            (unsigned)d->gpu.product_id, d->path, ver, fw,
		            (unsigned)d->gpu.l2_slices, (unsigned)d->gpu.bus_width_bits, said, how);
	}
	*state = k;
	return GPA_STATUS_OK;
}

static void kbase_close(void *state)
{
	struct kbase *k = state;
	if (!k)
		return;
	release(k);
	free(k);
}

/* The reader's answer for the summed counter, then whether the instance
 * is there (a shader core's bit in the mask, an L2 slice or CSG the reader
 * lists). */
static const char *why_not_here(struct kbase *k, uint32_t raw_id)
{
	if (!og_mali_raw_is_instance(raw_id))
		return k->rops->why_not(k->reader, raw_id);
	const char *why = k->rops->why_not(k->reader, og_mali_raw_instance_total(raw_id));
	if (why)
		return why;
	uint32_t block, instance, index;
	og_mali_raw_instance_of(raw_id, &block, &instance, &index);
	return og_mali_instance_why_not(&k->dev.gpu, k->dev.instances, block, instance);
}

static GPA_Status kbase_bind_raw(void *state, const char *name, const char *source,
                                 uint32_t *raw_id, const char **why_not)
{
	struct kbase *k = state;
	(void)name;
	GPA_Status st = og_mali_parse_source(source, raw_id, why_not);
	if (st != GPA_STATUS_OK)
		return st;
	*why_not = why_not_here(k, *raw_id);
	return *why_not ? GPA_STATUS_ERROR_NOT_FOUND : GPA_STATUS_OK;
}

/* kbase_bind_raw is og_mali_parse_source, then this. */
static const char *kbase_raw_why_not(void *state, uint32_t raw_id)
{
	return why_not_here(state, raw_id);
}

/* A summed hardware counter of an instanced block type: one entry per
 * instance the reader reads (mali_common.c). */
static size_t kbase_raw_instances(void *state, uint32_t raw_id, struct og_raw_instance *out,
                                  size_t max)
{
	struct kbase *k = state;
	if (raw_id >= OG_MALI_HW_RAW || why_not_here(k, raw_id))
		return 0;
	return og_mali_raw_instances(&k->dev.gpu, k->dev.instances, raw_id, out, max);
}

static uint64_t kbase_instances_key(void *state)
{
	struct kbase *k = state;
	return og_mali_instances_key(&k->dev.gpu, k->dev.instances, k->rops == &og_kbase_kinstr);
}

static bool kbase_counts_instances(void *state, const char *name)
{
	(void)state;
	return og_mali_counts_instances(name);
}

/* Everything bind_raw, raw_why_not and constant read beyond the source and
 * the raw id: the reader and its own state, the GPU (og_mali_constant,
 * og_mali_instance_why_not, the product's values per block) and the
 * instances of each block.  Laid out in a zeroed struct, so padding is 0. */
static size_t kbase_answers_key(void *state, void *buf, size_t max)
{
	const struct kbase *k = state;
	const struct og_mali_gpu *g = &k->dev.gpu;
	struct {
		const void *rops, *product;
		uint64_t core_mask, max_freq_khz;
		uint32_t product_id, revision, l2_slices, bus_width_bits;
		uint16_t instances[OG_MALI_BLOCK_TYPES];
	} key;
	_Static_assert(sizeof key < OG_ANSWERS_KEY_MAX / 2, "room for the reader's bytes");
	memset(&key, 0, sizeof key);
	key.rops = k->rops;
	key.product = g->product;
	key.core_mask = g->core_mask;
	key.max_freq_khz = g->max_freq_khz;
	key.product_id = g->product_id;
	key.revision = g->revision;
	key.l2_slices = g->l2_slices;
	key.bus_width_bits = g->bus_width_bits;
	memcpy(key.instances, k->dev.instances, sizeof key.instances);
	if (max < sizeof key || !k->rops->answers)
		return 0;
	memcpy(buf, &key, sizeof key);
	size_t more = k->rops->answers(k->reader, (uint8_t *)buf + sizeof key, max - sizeof key);
	return more ? sizeof key + more : 0;
}

static GPA_Status kbase_constant(void *state, const char *name, double *value)
{
	struct kbase *k = state;
	return og_mali_constant(&k->dev.gpu, name, value);
}

static bool kbase_fits(void *state, const uint32_t *raw_ids, size_t n)
{
	(void)state;
	for (size_t i = 0; i < n; i++)
		if (raw_ids[i] >= OG_MALI_RAW_COUNT && !og_mali_raw_is_instance(raw_ids[i]))
			return false;
	return true;
}

static GPA_Status check_alive(struct kbase *k)
{
	if (!k->dev.gone)
		return GPA_STATUS_OK;
	LOG(k, "mali: %s is gone; open a new context", k->dev.path);
	return GPA_STATUS_ERROR_FAILED;
}

static GPA_Status kbase_begin_pass(void *state, const uint32_t *raw_ids, size_t n)
{
	struct kbase *k = state;
	GPA_Status st = check_alive(k);
	if (st != GPA_STATUS_OK)
		return st;
	if (!kbase_fits(k, raw_ids, n)) {
		LOG(k, "mali: begin_pass got a raw id this backend never bound");
		return GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE;
	}
	uint32_t *ids;
	struct og_mali_picks picks;
	if (!og_mali_pass_new(&k->dev.host, "mali", raw_ids, n, &ids, &picks))
		return GPA_STATUS_ERROR_FAILED;
	st = k->rops->start(k->reader);
	if (st != GPA_STATUS_OK) {
		free(ids);
		og_mali_picks_free(&picks);
		return st;
	}
	free(k->pass_ids);
	k->pass_ids = ids;
	k->pass_n = n;
	og_mali_picks_free(&k->picks);
	k->picks = picks;
	k->dev.picks = picks;
	k->said_off = k->said_protected = false;
	return GPA_STATUS_OK;
}

static GPA_Status kbase_end_periodic(void *state);

static GPA_Status kbase_end_pass(void *state)
{
	struct kbase *k = state;
	free(k->pass_ids);
	k->pass_ids = NULL;
	k->pass_n = 0;
	og_mali_picks_free(&k->picks);
	k->dev.picks = k->picks;
	if (k->dev.gone)
		return GPA_STATUS_OK;
	if (k->periodic_on) /* the core never got to end_periodic */
		kbase_end_periodic(k);
	return k->rops->stop(k->reader);
}

static GPA_Status kbase_begin_sample(void *state)
{
	struct kbase *k = state;
	GPA_Status st = check_alive(k);
	if (st == GPA_STATUS_OK)
		st = k->rops->mark(k->reader, &k->end_raw);
	if (st == GPA_STATUS_OK)
		k->end_ns = og_clock_from_raw(k->end_raw);
	return st;
}

/* The deltas of the sample in k->totals / k->info, and its times: it begins
 * where the one before ended (the same instant on both scales, so samples
 * follow each other without a gap), and ends at the kernel's stamp. */
static void take_sample(struct kbase *k, uint64_t *deltas, struct og_sample_time *t)
{
	const struct og_mali_sample_info *in = &k->info;
	uint64_t begin_raw = in->ts_start_ns, end_raw = in->ts_end_ns;
	/* The kernel is an adversary: time that goes backwards makes an empty
	 * sample rather than a negative one. */
	if (end_raw < begin_raw)
		end_raw = begin_raw;
	for (size_t i = 0, j = 0; i < k->pass_n; i++) {
		uint32_t id = k->pass_ids[i];
		/* The picks are the pass's instance ids in pass order. */
		if (og_mali_raw_is_instance(id))
			deltas[i] = j < k->dev.picks.n ? k->dev.picks.value[j++] : 0;
		else if (id == OG_MALI_RAW_CYCLES_TOP)
			deltas[i] = in->cycles_top;
		else if (id == OG_MALI_RAW_CYCLES_SHADER)
			deltas[i] = in->cycles_shader;
		else if (id == OG_MALI_RAW_TIME_NS)
			deltas[i] = end_raw - begin_raw;
		else
			deltas[i] = og_mali_total(&k->totals, id);
	}
	uint64_t begin = begin_raw == k->end_raw ? k->end_ns : og_clock_from_raw(begin_raw);
	uint64_t end = og_clock_from_raw(end_raw);
	*t = (struct og_sample_time){begin, end > begin ? end : begin, OG_SAMPLE_KERNEL_TIME};
	k->end_raw = end_raw;
	k->end_ns = t->end_ns;
	if (in->flags & OG_MALI_SAMPLE_BLOCKS_OFF) {
		t->flags |= OG_SAMPLE_BLOCKS_OFF;
		if (!k->said_off)
			og_mali_log(&k->dev.host, OG_LOG_MESSAGE,
			            "mali: the kernel reports %u counter blocks (%u of them shader "
			            "cores) powered off during a sample: their work went uncounted, "
			            "so it reads low (flagged OPENGPA_SAMPLE_BLOCKS_OFF; said once "
			            "per pass)", (unsigned)in->blocks_off, (unsigned)in->cores_off);
		k->said_off = true;
	}
	if (in->flags & OG_MALI_SAMPLE_PROTECTED) {
		t->flags |= OG_SAMPLE_PROTECTED;
		if (!k->said_protected)
			og_mali_log(&k->dev.host, OG_LOG_MESSAGE,
			            "mali: the kernel reports %u counter blocks in protected mode "
			            "during a sample: protected work is not counted, so it reads low "
			            "(flagged OPENGPA_SAMPLE_PROTECTED; said once per pass)",
			            (unsigned)in->blocks_protected);
		k->said_protected = true;
	}
}

static GPA_Status kbase_end_sample(void *state, uint64_t *deltas)
{
	struct kbase *k = state;
	GPA_Status st = check_alive(k);
	if (st == GPA_STATUS_OK)
		st = k->rops->sample(k->reader, &k->totals, &k->info);
	if (st != GPA_STATUS_OK)
		return st;
	/* This sample also begins the next (next_sample): the kernel resets
	 * the client's counts at every sample. */
	take_sample(k, deltas, &k->last);
	return GPA_STATUS_OK;
}

static bool kbase_sample_time(void *state, struct og_sample_time *t)
{
	struct kbase *k = state;
	*t = k->last;
	return true;
}

/* ---- periodic passes: the kernel times the samples ---------------------- */

static uint64_t kbase_period_floor(void *state, const char **why)
{
	struct kbase *k = state;
	return k->rops->period_floor(k->reader, why);
}

static GPA_Status kbase_begin_periodic(void *state, struct og_periodic_mode *mode)
{
	struct kbase *k = state;
	/* The kernel keeps the period in a u32 of ns (kinstr_prfcnt's request
	 * carries a u64, which the kernel stores in a u32): longer periods are
	 * samples from the core's timer thread (next_sample), timed by the
	 * kernel still. */
	if (mode->period_ns > UINT32_MAX)
		return GPA_STATUS_OK;
	uint64_t start_raw = 0;
	GPA_Status st = k->rops->periodic_start(k->reader, mode->period_ns, &k->ring, &start_raw);
	if (st != GPA_STATUS_OK)
		return st;
	k->end_raw = start_raw;
	k->end_ns = og_clock_from_raw(start_raw);
	k->merged = 0;
	k->period_ns = mode->period_ns;
	k->periodic_on = true;
	mode->kernel_timed = true;
	mode->kernel_ring = k->ring;
	return GPA_STATUS_OK;
}

/* How many periods a sample the kernel flagged OVERFLOW spans, rounded to
 * the nearest and at least 2 (it stands for one it had no room for).  The
 * samples drained after the stop are read here too, so the period is the
 * pass's, kept after the stop; 0 (never a periodic pass) and spans the
 * kernel makes huge are answered without dividing by it or wrapping. */
static unsigned merged_periods(uint64_t span, uint64_t period)
{
	if (!period)
		return 2;
	uint64_t n = span / period + (span % period >= period - period / 2 ? 1 : 0);
	return n < 2 ? 2 : n > UINT_MAX ? UINT_MAX : (unsigned)n;
}

static GPA_Status kbase_read_periodic(void *state, uint64_t *deltas, struct og_sample_time *t)
{
	struct kbase *k = state;
	GPA_Status st = check_alive(k);
	if (st != GPA_STATUS_OK)
		return st;
	bool got = false;
	st = k->rops->periodic_read(k->reader, &got, &k->totals, &k->info);
	if (st != GPA_STATUS_OK)
		return st;
	if (!got)
		return GPA_STATUS_ERROR_NOT_FOUND;
	take_sample(k, deltas, t);
	if (k->info.flags & OG_MALI_SAMPLE_ERROR) {
		LOG(k, "mali: the kernel flagged a periodic sample as failed (ERROR: the GPU's "
		       "counter dump did not complete, e.g. during a reset or power change); that "
		       "sample is dropped");
		return GPA_STATUS_ERROR_FAILED;
	}
	if (k->info.flags & OG_MALI_SAMPLE_OVERFLOW) {
		t->flags |= OG_SAMPLE_OVERFLOW;
		uint64_t span = k->info.ts_end_ns > k->info.ts_start_ns
		                    ? k->info.ts_end_ns - k->info.ts_start_ns : 0;
		unsigned periods = merged_periods(span, k->period_ns);
		if (!k->merged)
			og_mali_log(&k->dev.host, OG_LOG_MESSAGE,
			            "mali: the reader's ring of %u dumps was full for %u periods (the "
			            "process was not reading: stopped, or starved); the kernel kept their "
			            "counts in one sample of %.3f ms", (unsigned)k->ring, periods - 1,
			            (double)span / 1e6);
		k->merged = periods - 1 > UINT_MAX - k->merged ? UINT_MAX : k->merged + periods - 1;
	}
	return GPA_STATUS_OK;
}

static GPA_Status kbase_end_periodic(void *state)
{
	struct kbase *k = state;
	if (!k->periodic_on)
		return GPA_STATUS_OK;
	/* period_ns stays: the samples drained after the stop still need it. */
	k->periodic_on = false;
	/* Stops the timer; the rest of the pass comes as one last sample. */
	GPA_Status st = k->rops->periodic_stop(k->reader);
	if (k->merged)
		og_mali_log(&k->dev.host, OG_LOG_MESSAGE,
		            "mali: %u periods of this pass were merged into longer samples because "
		            "the reader's ring was full; read more often or stop the process for "
		            "less than %u periods", k->merged, (unsigned)k->ring);
	return st;
}

const struct og_backend_ops og_backend_mali = {
	.name = "mali",
	.summary = "Arm Mali GPUs on Arm's kbase driver (/dev/mali0; vinstr or kinstr_prfcnt, JM "
	           "and CSF); Mali-G31 to Mali G1",
	.open = kbase_open,
	.close = kbase_close,
	.bind_raw = kbase_bind_raw,
	.raw_why_not = kbase_raw_why_not,
	.answers_key = kbase_answers_key,
	.constant = kbase_constant,
	.fits = kbase_fits,
	.extra_raw = NULL,
	.raw_instances = kbase_raw_instances,
	.instances_key = kbase_instances_key,
	.constant_counts_instances = kbase_counts_instances,
	.set_option = NULL,
	.begin_pass = kbase_begin_pass,
	.end_pass = kbase_end_pass,
	.begin_sample = kbase_begin_sample,
	.end_sample = kbase_end_sample,
	.sample_time = kbase_sample_time,
	.period_floor = kbase_period_floor,
	.begin_periodic = kbase_begin_periodic,
	.read_periodic = kbase_read_periodic,
	.end_periodic = kbase_end_periodic,
	/* One sample ends a sample and begins the next: the kernel resets the
	 * client's counts at every sample. */
	.next_sample = kbase_end_sample,
};
