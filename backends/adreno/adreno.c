/* SPDX-License-Identifier: MIT */
/*
 * adreno.c — the `adreno` backend: Qualcomm Adreno GPU counters through
 * KGSL (kgsl.c) or upstream msm's counter stream (msm.c), whichever the
 * kernel has (KGSL first), or the one `interface=` names.  Raw counters are KGSL (group, countable) pairs, written
 * `source: GROUP:COUNTABLE` in the counter files (`SP:43`, `BV_TP:0`), and
 * `TIME:ns`, the sample's duration measured around it.  A pass holds as
 * many distinct countables per group as the group has counters (QUERY's
 * answer, less those the kernel keeps); the planner splits the rest into
 * further passes.  docs/backends/adreno.md is the user's version.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adreno_internal.h"

static void release_pass(struct og_adreno *a)
{
	if (a->iface == OG_ADRENO_MSM)
		og_msm_stop(a);
	for (size_t i = a->held; i-- > 0;)
		og_kgsl_put(a, &a->pairs[i]);
	a->held = 0;
	free(a->pass_ids);
	free(a->pairs);
	free(a->pair_of);
	free(a->reads);
	free(a->begin_vals);
	a->pass_ids = a->pair_of = NULL;
	a->pairs = NULL;
	a->reads = NULL;
	a->begin_vals = NULL;
	a->pass_n = a->npairs = 0;
}

static void release(struct og_adreno *a)
{
	release_pass(a);
	og_sys_close_fd(a->host.sys, &a->fd);
}

static GPA_Status ad_open(const struct og_backend_host *host, const char *options, void **state,
                          struct og_device_info *info)
{
	static const char *const known[] = {"device", "interface", NULL};
	if (!host || !host->sys || !state || !info)
		return GPA_STATUS_ERROR_NULL_POINTER;
	const char *bad = og_option_unknown(options, known);
	if (bad) {
		host->log(host->log_ctx, OG_LOG_ERROR,
		          "adreno: unknown option '%.*s'; the adreno backend takes device=PATH and "
		          "interface=kgsl|msm", (int)strcspn(bad, ","), bad);
		return GPA_STATUS_ERROR_FAILED;
	}
	char iface[16] = "";
	if (og_option_get(options, "interface", iface, sizeof iface) &&
	    strcmp(iface, "kgsl") != 0 && strcmp(iface, "msm") != 0) {
		host->log(host->log_ctx, OG_LOG_ERROR,
		          "adreno: interface=%s is not one this backend has; give interface=kgsl "
		          "(/dev/kgsl-3d0) or interface=msm (/dev/dri/renderD*, the counter "
		          "stream), or leave it out to take whichever the kernel has", iface);
		return GPA_STATUS_ERROR_FAILED;
	}
	struct og_adreno *a = calloc(1, sizeof *a);
	if (!a) {
		host->log(host->log_ctx, OG_LOG_ERROR, "adreno: out of memory for the backend state");
		return GPA_STATUS_ERROR_FAILED;
	}
	a->host = *host;
	a->fd = -1;
	a->stream_fd = -1;
	char forced[256];
	bool have_forced = og_option_get(options, "device", forced, sizeof forced);
	bool want_msm = strcmp(iface, "msm") == 0, auto_iface = iface[0] == '\0';
	GPA_Status st;
	if (!want_msm) {
		/* KGSL first; with no KGSL node and no interface named, msm. */
		st = og_kgsl_open(a, have_forced ? forced : NULL, auto_iface);
		if (st == GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED && auto_iface && !have_forced) {
			st = og_msm_open(a, NULL, true);
			if (st != GPA_STATUS_OK)
				OG_ADRENO_LOG(a, "adreno: no Adreno GPU found: neither %s (Qualcomm's KGSL "
				                 "driver, Android and vendor kernels) nor an msm render node "
				                 "(/dev/dri/renderD128..135, upstream Linux) is here",
				              OG_KGSL_PATH);
		}
	} else {
		st = og_msm_open(a, have_forced ? forced : NULL, false);
	}
	if (st == GPA_STATUS_OK)
		st = a->iface == OG_ADRENO_MSM ? og_msm_identify(a) : og_kgsl_identify(a);
	if (st == GPA_STATUS_OK) {
		if (a->iface == OG_ADRENO_MSM)
			og_msm_groups(a);
		else
			st = og_kgsl_query_groups(a);
	}
	if (st != GPA_STATUS_OK) {
		release(a);
		free(a);
		return st;
	}
	if (a->iface == OG_ADRENO_KGSL)
		og_kgsl_check_switch(a);
	memset(info, 0, sizeof *info);
	info->device_id = a->chip_id;
	info->revision_id = a->chip_id & 0xFFu;
	if (a->gpu) {
		snprintf(info->description, sizeof info->description, "%s", a->gpu->name);
		info->counter_sets[0] = a->gpu->counter_set;
	} else {
		snprintf(info->description, sizeof info->description, "Adreno (chip id 0x%08x)",
		         (unsigned)a->chip_id);
		host->log(host->log_ctx, OG_LOG_MESSAGE,
		          "adreno: chip id 0x%08x is not in opengpa's table: no counter set is "
		          "built in for it; give one with OPENGPA_COUNTER_PATH (counters/adreno-*)",
		          (unsigned)a->chip_id);
	}
	host->log(host->log_ctx, OG_LOG_MESSAGE,
	          "adreno: %s (chip id 0x%08x) on %s (%s), %llu-byte GMEM", info->description,
	          (unsigned)a->chip_id, a->path,
	          a->iface == OG_ADRENO_MSM ? "msm counter stream" : "KGSL",
	          (unsigned long long)a->gmem_bytes);
	*state = a;
	return GPA_STATUS_OK;
}

static void ad_close(void *state)
{
	struct og_adreno *a = state;
	if (!a)
		return;
	release(a);
	free(a);
}

static GPA_Status ad_bind_raw(void *state, const char *name, const char *source,
                              uint32_t *raw_id, const char **why_not)
{
	struct og_adreno *a = state;
	(void)name;
	*why_not = NULL;
	if (!source)
		return GPA_STATUS_ERROR_NULL_POINTER;
	if (strcmp(source, "TIME:ns") == 0) {
		*raw_id = OG_ADRENO_RAW_TIME_NS;
		return GPA_STATUS_OK;
	}
	const char *colon = strchr(source, ':');
	if (!colon)
		return GPA_STATUS_ERROR_FAILED;
	int g = og_adreno_group_id(source, (unsigned)(colon - source));
	char *end;
	errno = 0;
	unsigned long c = strtoul(colon + 1, &end, 10);
	if (g < 0 || end == colon + 1 || *end || errno || c >= OG_ADRENO_MAX_COUNTABLE)
		return GPA_STATUS_ERROR_FAILED;
	*raw_id = (uint32_t)g << 16 | (uint32_t)c;
	uint32_t usable = a->max_counters[g] - a->reserved[g];
	if (usable == 0)
		*why_not = a->iface == OG_ADRENO_MSM
		               ? "upstream msm's counter stream has no usable counter in that group"
		               : "this GPU's KGSL exposes no usable counter in that group";
	else if (og_adreno_group_fixed((uint32_t)g) && c >= a->max_counters[g])
		*why_not = "this fixed group has fewer counters than that countable";
	else if (!og_adreno_group_fixed((uint32_t)g) && a->free_at_open[g] == 0 &&
	         !(a->held_at_open[g][c / 8] & (1u << (c % 8))))
		*why_not = "every counter of that group was held by other countables when the "
		           "context opened (the kernel's own bus/power management, or another "
		           "process)";
	return *why_not ? GPA_STATUS_ERROR_NOT_FOUND : GPA_STATUS_OK;
}

static GPA_Status ad_constant(void *state, const char *name, double *value)
{
	struct og_adreno *a = state;
	char buf[1024];
	if (strcmp(name, "AdrenoSPCores") == 0 && a->gpu) {
		*value = a->gpu->sp_cores;
		return GPA_STATUS_OK;
	}
	if (strcmp(name, "AdrenoGmemBytes") == 0) {
		*value = (double)a->gmem_bytes;
		return GPA_STATUS_OK;
	}
	if (strcmp(name, "AdrenoMaxFreqHz") == 0 && a->max_freq_hz) {
		*value = (double)a->max_freq_hz; /* msm's MAX_FREQ */
		return GPA_STATUS_OK;
	}
	if (strcmp(name, "AdrenoMaxFreqHz") == 0 && a->iface == OG_ADRENO_KGSL) {
		/* max_clock_mhz, else the largest of gpu_available_frequencies (Hz). */
		if (og_kgsl_sysfs(a, "max_clock_mhz", buf, sizeof buf)) {
			double mhz = strtod(buf, NULL);
			if (mhz > 0) {
				*value = mhz * 1e6;
				return GPA_STATUS_OK;
			}
		}
		if (og_kgsl_sysfs(a, "gpu_available_frequencies", buf, sizeof buf)) {
			double best = 0;
			for (char *p = buf, *e; *p; p = e) {
				double f = strtod(p, &e);
				if (e == p)
					break;
				if (f > best)
					best = f;
			}
			if (best > 0) {
				*value = best;
				return GPA_STATUS_OK;
			}
		}
	}
	return GPA_STATUS_ERROR_NOT_FOUND;
}

/* Distinct countables per group within each group's usable counters. */
static bool ad_fits(void *state, const uint32_t *raw_ids, size_t n)
{
	struct og_adreno *a = state;
	uint8_t seen[OG_KGSL_GROUP_MAX][OG_ADRENO_MAX_COUNTABLE / 8];
	uint32_t used[OG_KGSL_GROUP_MAX];
	memset(seen, 0, sizeof seen);
	memset(used, 0, sizeof used);
	for (size_t i = 0; i < n; i++) {
		if (raw_ids[i] == OG_ADRENO_RAW_TIME_NS)
			continue;
		uint32_t g = raw_ids[i] >> 16, c = raw_ids[i] & 0xFFFFu;
		if (g >= OG_KGSL_GROUP_MAX || c >= OG_ADRENO_MAX_COUNTABLE)
			return false;
		if (seen[g][c / 8] & (1u << (c % 8)))
			continue;
		seen[g][c / 8] |= (uint8_t)(1u << (c % 8));
		if (og_adreno_group_fixed(g) || (a->held_at_open[g][c / 8] & (1u << (c % 8))))
			continue; /* shares a counter someone already programmed */
		if (++used[g] > a->free_at_open[g])
			return false;
	}
	return true;
}

static GPA_Status ad_begin_pass(void *state, const uint32_t *raw_ids, size_t n)
{
	struct og_adreno *a = state;
	release_pass(a);
	if (!ad_fits(a, raw_ids, n)) {
		OG_ADRENO_LOG(a, "adreno: begin_pass got raw counters that do not fit one pass (or "
		                 "that this backend never bound); report this as an opengpa bug");
		return GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE;
	}
	size_t cap = n ? n : 1;
	a->pass_ids = malloc(cap * sizeof *a->pass_ids);
	a->pair_of = malloc(cap * sizeof *a->pair_of);
	a->pairs = malloc(cap * sizeof *a->pairs);
	a->reads = malloc(cap * sizeof *a->reads);
	a->begin_vals = calloc(cap, sizeof *a->begin_vals);
	if (!a->pass_ids || !a->pair_of || !a->pairs || !a->reads || !a->begin_vals) {
		release_pass(a);
		OG_ADRENO_LOG(a, "adreno: out of memory for a pass of %zu counters", n);
		return GPA_STATUS_ERROR_FAILED;
	}
	if (n)
		memcpy(a->pass_ids, raw_ids, n * sizeof *raw_ids);
	a->pass_n = n;
	for (size_t i = 0; i < n; i++) {
		a->pair_of[i] = UINT32_MAX;
		if (raw_ids[i] == OG_ADRENO_RAW_TIME_NS)
			continue;
		struct og_adreno_pair p = {raw_ids[i] >> 16, raw_ids[i] & 0xFFFFu};
		size_t j = 0;
		while (j < a->npairs && (a->pairs[j].group != p.group ||
		                         a->pairs[j].countable != p.countable))
			j++;
		if (j == a->npairs)
			a->pairs[a->npairs++] = p;
		a->pair_of[i] = (uint32_t)j;
	}
	if (a->iface == OG_ADRENO_MSM) {
		GPA_Status st = og_msm_start(a);
		if (st != GPA_STATUS_OK)
			release_pass(a);
		return st;
	}
	for (size_t j = 0; j < a->npairs; j++) {
		/* ALWAYSON needs no GET (turnip reads it without one), but a GET is
		 * harmless and keeps PUT symmetric. */
		GPA_Status st = og_kgsl_get(a, &a->pairs[j]);
		if (st != GPA_STATUS_OK) {
			release_pass(a);
			return st;
		}
		a->held = j + 1;
	}
	return GPA_STATUS_OK;
}

static GPA_Status ad_end_pass(void *state)
{
	release_pass(state);
	return GPA_STATUS_OK;
}

/* A snapshot: every pair's value, and the time it stands for. */
static GPA_Status snapshot(struct og_adreno *a, bool end, uint64_t *vals, uint64_t *ns)
{
	if (a->iface == OG_ADRENO_MSM && a->npairs) {
		bool broken = false;
		GPA_Status st = og_msm_read(a, end, vals, ns, &broken);
		if (st == GPA_STATUS_OK && broken && end) {
			OG_ADRENO_LOG(a, "adreno: the counter stream of %s lost records during this "
			                 "sample (its buffer overflowed, or the GPU was reset or "
			                 "suspended); the sample is dropped, the next one starts from "
			                 "here", a->path);
			memcpy(a->begin_vals, vals, a->npairs * sizeof *vals);
			a->begin_ns = *ns;
			return GPA_STATUS_ERROR_FAILED;
		}
		return st;
	}
	*ns = og_clock_monotonic_ns();
	return a->npairs ? og_kgsl_read(a, vals) : GPA_STATUS_OK;
}

static GPA_Status ad_begin_sample(void *state)
{
	struct og_adreno *a = state;
	return snapshot(a, false, a->begin_vals, &a->begin_ns);
}

static GPA_Status ad_next_sample(void *state, uint64_t *deltas)
{
	struct og_adreno *a = state;
	uint64_t end_ns = 0;
	uint64_t stack[64];
	uint64_t *vals = a->npairs <= 64 ? stack : malloc(a->npairs * sizeof *vals);
	if (!vals) {
		OG_ADRENO_LOG(a, "adreno: out of memory for %zu counter values", a->npairs);
		return GPA_STATUS_ERROR_FAILED;
	}
	GPA_Status st = snapshot(a, true, vals, &end_ns);
	if (st == GPA_STATUS_OK) {
		for (size_t i = 0; i < a->pass_n; i++) {
			if (a->pass_ids[i] == OG_ADRENO_RAW_TIME_NS) {
				deltas[i] = end_ns > a->begin_ns ? end_ns - a->begin_ns : 0;
				continue;
			}
			uint32_t j = a->pair_of[i];
			/* Free-running: a value below the last one was reset (another
			 * client's enable, or zapped with the sysfs switch off). */
			deltas[i] = vals[j] >= a->begin_vals[j] ? vals[j] - a->begin_vals[j] : 0;
		}
		memcpy(a->begin_vals, vals, a->npairs * sizeof *vals);
		a->begin_ns = end_ns;
	}
	if (vals != stack)
		free(vals);
	return st;
}

const struct og_backend_ops og_backend_adreno = {
	.name = "adreno",
	.summary = "Qualcomm Adreno GPUs (a5xx, a6xx, a7xx) on the KGSL driver (/dev/kgsl-3d0) of "
	           "Android and vendor kernels, or on upstream msm's counter stream (a6xx, a7xx)",
	.open = ad_open,
	.close = ad_close,
	.bind_raw = ad_bind_raw,
	.constant = ad_constant,
	.fits = ad_fits,
	.begin_pass = ad_begin_pass,
	.end_pass = ad_end_pass,
	.begin_sample = ad_begin_sample,
	/* Values are free-running: the READ that ends a sample begins the next. */
	.end_sample = ad_next_sample,
	.next_sample = ad_next_sample,
};
