/* SPDX-License-Identifier: MIT */
/*
 * kgsl.c — the Adreno backend's KGSL interface (/dev/kgsl-3d0), the
 * downstream Qualcomm driver of Android and vendor Linux kernels.
 *
 * Call sequence (reference adreno-kgsl.md §1.5): DEVICE_GETPROPERTY
 * (DEVICE_INFO) to identify the GPU, PERFCOUNTER_QUERY of every group for
 * its counter count, PERFCOUNTER_GET of each (group, countable) of a pass,
 * PERFCOUNTER_READ of all of them in one call (100 entries at most) per
 * snapshot, PERFCOUNTER_PUT of each at the end of the pass.  The values
 * are 64-bit and free-running, so a sample is the difference of two READs.
 * Counters are global and shared by countable with every other client of
 * the GPU; READ needs the `perfcounter` sysfs switch on (KGSL since 2022).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adreno_internal.h"

#define SWITCH_CMD "echo 1 > " OG_KGSL_SYSFS "/perfcounter (as root)"

static int k_ioctl(struct og_adreno *a, unsigned long req, void *arg)
{
	return og_sys_ioctl_retry(a->host.sys, a->fd, req, arg, true);
}

static GPA_Status gone(struct og_adreno *a, const char *what, int e)
{
	a->gone = true;
	OG_ADRENO_LOG(a, "adreno: %s on %s failed: %s (the device went away: GPU reset or driver "
	                 "unloaded); close the context and open a new one once it is back",
	              what, a->path, strerror(e));
	return GPA_STATUS_ERROR_FAILED;
}

GPA_Status og_kgsl_open(struct og_adreno *a, const char *forced, bool quiet_absent)
{
	const struct og_sys *sys = a->host.sys;
	snprintf(a->path, sizeof a->path, "%s", forced ? forced : OG_KGSL_PATH);
	snprintf(a->sysfs, sizeof a->sysfs, "%s", OG_KGSL_SYSFS);
	a->iface = OG_ADRENO_KGSL;
	a->fd = og_sys_open_node(sys, a->path);
	if (a->fd >= 0)
		return GPA_STATUS_OK;
	int e = errno;
	if (quiet_absent && e == ENOENT)
		return GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED; /* the caller tries msm */
	if (og_sys_errno_denied(e)) {
		OG_ADRENO_LOG(a, "adreno: permission denied opening %s; give your user access to "
		                 "the node (Android: it is normally world-readable; check SELinux "
		                 "with `getenforce` and the node's mode)", a->path);
		return GPA_STATUS_ERROR_FAILED;
	}
	OG_ADRENO_LOG(a, "adreno: cannot open %s: %s; this is not a kernel with Qualcomm's KGSL "
	                 "driver (Android or a vendor Linux for Snapdragon).  On an upstream "
	                 "msm kernel give interface=msm (docs/backends/adreno.md)",
	              a->path, strerror(e));
	return GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED;
}

GPA_Status og_kgsl_identify(struct og_adreno *a)
{
	og_kgsl_devinfo_native info;
	memset(&info, 0, sizeof info);
	og_kgsl_getprop_native gp;
	memset(&gp, 0, sizeof gp);
	gp.type = OG_KGSL_PROP_DEVICE_INFO;
	gp.value = (uintptr_t)&info;
	gp.sizebytes = sizeof info;
	if (k_ioctl(a, OG_KGSL_GETPROPERTY, &gp) < 0) {
		int e = errno;
		if (og_sys_errno_gone(e) && e != ENODEV)
			return gone(a, "DEVICE_GETPROPERTY", e);
		OG_ADRENO_LOG(a, "adreno: DEVICE_GETPROPERTY(DEVICE_INFO) on %s failed: %s; %s is "
		                 "not a KGSL device or its driver is too old",
		              a->path, strerror(e), a->path);
		return GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED;
	}
	if (info.chip_id == 0) {
		OG_ADRENO_LOG(a, "adreno: %s reports chip id 0 (no GPU identified by the kernel); "
		                 "check the device tree's qcom,chipid", a->path);
		return GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED;
	}
	a->chip_id = info.chip_id;
	a->gmem_bytes = info.gmem_sizebytes;
	a->gpu = og_adreno_gpu_find(info.chip_id);
	return GPA_STATUS_OK;
}

/* One QUERY; -1 with errno. */
static int query(struct og_adreno *a, uint32_t group, uint32_t *buf, uint32_t count,
                 uint32_t *max)
{
	og_kgsl_query_native q;
	memset(&q, 0, sizeof q);
	q.groupid = group;
	q.countables = (uintptr_t)buf;
	q.count = count;
	q.max_counters = OG_KGSL_NOT_USED; /* left alone on failure (§1.1) */
	if (k_ioctl(a, OG_KGSL_PERFCOUNTER_QUERY, &q) < 0)
		return -1;
	*max = q.max_counters;
	return 0;
}

GPA_Status og_kgsl_query_groups(struct og_adreno *a)
{
	uint32_t held[OG_ADRENO_MAX_GROUP_COUNTERS];
	for (uint32_t g = 0; g < OG_KGSL_GROUP_MAX; g++) {
		uint32_t max = 0;
		a->max_counters[g] = a->reserved[g] = a->free_at_open[g] = 0;
		memset(a->held_at_open[g], 0, sizeof a->held_at_open[g]);
		if (query(a, g, NULL, 0, &max) < 0) {
			int e = errno;
			if (e == EINVAL)
				continue; /* an older KGSL with fewer groups */
			if (og_sys_errno_gone(e))
				return gone(a, "PERFCOUNTER_QUERY", e);
			OG_ADRENO_LOG(a, "adreno: PERFCOUNTER_QUERY of group %u on %s failed: %s; "
			                 "this KGSL has no perf-counter ioctls (a kernel before 3.10)",
			              g, a->path, strerror(e));
			return GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED;
		}
		if (max > OG_ADRENO_MAX_GROUP_COUNTERS) {
			OG_ADRENO_LOG(a, "adreno: PERFCOUNTER_QUERY says group %u has %u counters, more "
			                 "than the %u any KGSL table has; refusing to trust the kernel's "
			                 "answer (report this with your kernel version)",
			              g, max, OG_ADRENO_MAX_GROUP_COUNTERS);
			return GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED;
		}
		a->max_counters[g] = max;
		if (!max)
			continue;
		uint32_t again = 0;
		for (uint32_t i = 0; i < max; i++)
			held[i] = OG_KGSL_NOT_USED;
		if (query(a, g, held, max, &again) < 0 || again != max) {
			OG_ADRENO_LOG(a, "adreno: PERFCOUNTER_QUERY of group %u changed its answer "
			                 "(%u then %u counters) or failed; retry", g, max, again);
			return GPA_STATUS_ERROR_FAILED;
		}
		for (uint32_t i = 0; i < max; i++) {
			if (held[i] == OG_KGSL_BROKEN)
				a->reserved[g]++;
			else if (held[i] == OG_KGSL_NOT_USED)
				a->free_at_open[g]++;
			else if (held[i] < OG_ADRENO_MAX_COUNTABLE)
				a->held_at_open[g][held[i] / 8] |= (uint8_t)(1u << (held[i] % 8));
		}
	}
	return GPA_STATUS_OK;
}

GPA_Status og_kgsl_get(struct og_adreno *a, const struct og_adreno_pair *p)
{
	struct og_kgsl_perfcounter_get g;
	memset(&g, 0, sizeof g);
	g.groupid = p->group;
	g.countable = p->countable;
	if (k_ioctl(a, OG_KGSL_PERFCOUNTER_GET, &g) == 0)
		return GPA_STATUS_OK;
	int e = errno;
	const char *gn = og_adreno_group_name(p->group);
	if (e == EBUSY) {
		OG_ADRENO_LOG(a, "adreno: PERFCOUNTER_GET %s:%u: EBUSY, every counter of group %s "
		                 "is taken by other countables; another process (a profiler such as "
		                 "Snapdragon Profiler or AGI, another opengpa context, or the kernel's "
		                 "own bus/power management) holds them.  Stop it, or count fewer "
		                 "countables of this group per pass",
		              gn ? gn : "?", p->countable, gn ? gn : "?");
		return GPA_STATUS_ERROR_FAILED;
	}
	if (e == EINVAL || e == EACCES) {
		OG_ADRENO_LOG(a, "adreno: PERFCOUNTER_GET %s:%u: %s, the kernel refuses this "
		                 "countable on %s (unknown group or countable, or one this GPU's "
		                 "KGSL lists as not working); remove it from the selection",
		              gn ? gn : "?", p->countable, strerror(e), a->path);
		return GPA_STATUS_ERROR_FAILED;
	}
	if (og_sys_errno_gone(e))
		return gone(a, "PERFCOUNTER_GET", e);
	OG_ADRENO_LOG(a, "adreno: PERFCOUNTER_GET %s:%u on %s failed: %s", gn ? gn : "?",
	              p->countable, a->path, strerror(e));
	return GPA_STATUS_ERROR_FAILED;
}

void og_kgsl_put(struct og_adreno *a, const struct og_adreno_pair *p)
{
	if (a->gone)
		return;
	struct og_kgsl_perfcounter_put put;
	memset(&put, 0, sizeof put);
	put.groupid = p->group;
	put.countable = p->countable;
	if (k_ioctl(a, OG_KGSL_PERFCOUNTER_PUT, &put) < 0)
		a->host.log(a->host.log_ctx, OG_LOG_MESSAGE,
		            "adreno: PERFCOUNTER_PUT %u:%u failed: %s (closing the device releases "
		            "it anyway)", p->group, p->countable, strerror(errno));
}

GPA_Status og_kgsl_read(struct og_adreno *a, uint64_t *vals)
{
	if (a->gone) {
		OG_ADRENO_LOG(a, "adreno: %s is gone; open a new context", a->path);
		return GPA_STATUS_ERROR_FAILED;
	}
	for (size_t first = 0; first < a->npairs; first += OG_KGSL_READ_MAX) {
		size_t n = a->npairs - first;
		if (n > OG_KGSL_READ_MAX)
			n = OG_KGSL_READ_MAX;
		struct og_kgsl_read_group *r = a->reads + first;
		for (size_t i = 0; i < n; i++) {
			r[i].groupid = a->pairs[first + i].group;
			r[i].countable = a->pairs[first + i].countable;
			r[i].value = 0;
		}
		og_kgsl_read_native rd;
		memset(&rd, 0, sizeof rd);
		rd.reads = (uintptr_t)r;
		rd.count = (uint32_t)n;
		if (k_ioctl(a, OG_KGSL_PERFCOUNTER_READ, &rd) < 0) {
			int e = errno;
			if (e == EPERM) {
				OG_ADRENO_LOG(a, "adreno: PERFCOUNTER_READ on %s: EPERM, the kernel's "
				                 "perf-counter switch is off (and it zeroes the counters "
				                 "at every context switch while off); turn it on with: "
				                 SWITCH_CMD, a->path);
				return GPA_STATUS_ERROR_FAILED;
			}
			if (og_sys_errno_gone(e))
				return gone(a, "PERFCOUNTER_READ", e);
			OG_ADRENO_LOG(a, "adreno: PERFCOUNTER_READ of %zu counters on %s failed: %s; "
			                 "the sample is dropped", n, a->path, strerror(e));
			return GPA_STATUS_ERROR_FAILED;
		}
		for (size_t i = 0; i < n; i++) {
			if (r[i].groupid != a->pairs[first + i].group ||
			    r[i].countable != a->pairs[first + i].countable) {
				OG_ADRENO_LOG(a, "adreno: PERFCOUNTER_READ answered for %u:%u where "
				                 "%u:%u was asked; the kernel's reply is not trusted and "
				                 "the sample is dropped", r[i].groupid, r[i].countable,
				              a->pairs[first + i].group, a->pairs[first + i].countable);
				return GPA_STATUS_ERROR_FAILED;
			}
			vals[first + i] = r[i].value;
		}
	}
	return GPA_STATUS_OK;
}

bool og_kgsl_sysfs(struct og_adreno *a, const char *attr, char *buf, size_t len)
{
	const struct og_sys *sys = a->host.sys;
	char path[320];
	snprintf(path, sizeof path, "%s/%s", a->sysfs, attr);
	int fd = sys->open(sys->ctx, path, O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0)
		return false;
	ssize_t n = sys->read(sys->ctx, fd, buf, len - 1);
	sys->close(sys->ctx, fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return true;
}

void og_kgsl_check_switch(struct og_adreno *a)
{
	char v[16];
	if (og_kgsl_sysfs(a, "perfcounter", v, sizeof v) && v[0] == '0')
		a->host.log(a->host.log_ctx, OG_LOG_MESSAGE,
		            "adreno: %s/perfcounter is 0: the kernel refuses counter reads (EPERM) "
		            "and zeroes the counters at every context switch; sampling will fail "
		            "until you run: " SWITCH_CMD, a->sysfs);
}
