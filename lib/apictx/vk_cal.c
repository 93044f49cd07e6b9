/* SPDX-License-Identifier: MIT */
/*
 * vk_cal.c — a Vulkan device's timestamps on CLOCK_MONOTONIC, through
 * VK_KHR_calibrated_timestamps or VK_EXT_calibrated_timestamps (vk.h).
 *
 * A calibration is one vkGetCalibratedTimestamps* call for the device's
 * domain and CLOCK_MONOTONIC together: a pair (device ticks, monotonic ns)
 * read as close together as the driver can, and the driver's bound on how
 * far apart they were (maxDeviation, ns).  A GPU timestamp T is placed at
 *
 *     mono + ((T - dev) masked to timestampValidBits, signed) * timestampPeriod
 *
 * from the calibration nearest to T in device time, so a counter that
 * wrapped between the two is still right (the signed difference), and the
 * drift between the two clocks only acts over the distance to that
 * calibration.  Calibrations are taken at GpaOpenContext, then at most every
 * CAL_EVERY_NS at GpaEndCommandList and when a command list's timestamps are
 * read, the last CAL_RING kept: never per sample.
 *
 * The spans go to opengpa stat's pipe from here too, in batches (vk.c
 * gathers them as it reads samples).
 *
 * The extension must be enabled on the client's VkDevice (the header's
 * AMD_GPA_OPTIONAL_DEVICE_EXTENSION_NAME_LIST names it);
 * vkGetDeviceProcAddr gives its command only then, and without it there is
 * no calibration (said once, as a message).
 *
 * Lock held throughout (the registry's).
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "apictx/vk.h"
#include "apictx/vk_abi.h"
#include "core/core.h"

/* Calibrations kept, and how often one is taken at most. */
#define CAL_RING 16u
#define CAL_EVERY_NS 50000000ull

typedef vk_result (*pfn_calibrate)(void *device, uint32_t n,
                                   const struct vk_calibrated_timestamp_info *info,
                                   uint64_t *ts, uint64_t *max_deviation);
typedef vk_result (*pfn_domains)(void *physical, uint32_t *n, int32_t *domains);

struct cal_point {
	uint64_t dev, mono_ns, deviation_ns;
};

struct og_vk_cal {
	void *device;
	pfn_calibrate calibrate;
	const char *ext;
	uint64_t mask;
	double period_ns;
	struct cal_point p[CAL_RING];
	uint32_t n, next;
	uint64_t last_ns;    /* CLOCK_MONOTONIC of the last try */
	uint64_t worst_ns;   /* the largest maxDeviation of a kept calibration */
	bool failed;         /* a call failed: said once */
};

static uint64_t mono_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static bool take(struct og_vk_cal *c)
{
	const struct vk_calibrated_timestamp_info info[2] = {
		{ OGVK_STRUCTURE_TYPE_CALIBRATED_TIMESTAMP_INFO, NULL, OGVK_TIME_DOMAIN_DEVICE },
		{ OGVK_STRUCTURE_TYPE_CALIBRATED_TIMESTAMP_INFO, NULL, OGVK_TIME_DOMAIN_CLOCK_MONOTONIC },
	};
	uint64_t ts[2] = { 0, 0 }, dev = 0;
	c->last_ns = mono_now();
	vk_result r = c->calibrate(c->device, 2, info, ts, &dev);
	if (r != OGVK_SUCCESS) {
		if (!c->failed)
			og_log(OG_LOG_ERROR, "vkGetCalibratedTimestamps (%s) on device %p says %d%s; "
			       "samples keep the calibrations taken before (or are not placed on "
			       "opengpa stat's timeline)", c->ext, c->device, r,
			       r == OGVK_ERROR_DEVICE_LOST ? " (device lost)" : "");
		c->failed = true;
		return false;
	}
	c->p[c->next] = (struct cal_point){ ts[0] & c->mask, ts[1], dev };
	c->next = (c->next + 1) % CAL_RING;
	c->n += c->n < CAL_RING;
	c->worst_ns = 0;
	for (uint32_t i = 0; i < c->n; i++)
		c->worst_ns = c->p[i].deviation_ns > c->worst_ns ? c->p[i].deviation_ns : c->worst_ns;
	return true;
}

struct og_vk_cal *og_vk_cal_open(void *instance, void *physical, void *device,
                                 void *(*gipa)(void *, const char *),
                                 void *(*gdpa)(void *, const char *), uint64_t mask,
                                 double period_ns)
{
	/* The KHR name first (promoted), then the EXT one; each command only
	 * when its extension is enabled on the device. */
	static const char *const names[2][3] = {
		{ "vkGetCalibratedTimestampsKHR", "vkGetPhysicalDeviceCalibrateableTimeDomainsKHR",
		  "VK_KHR_calibrated_timestamps" },
		{ "vkGetCalibratedTimestampsEXT", "vkGetPhysicalDeviceCalibrateableTimeDomainsEXT",
		  "VK_EXT_calibrated_timestamps" },
	};
	pfn_calibrate calibrate = NULL;
	pfn_domains domains = NULL;
	const char *ext = NULL;
	for (int i = 0; i < 2 && !calibrate; i++) {
		*(void **)&calibrate = gdpa(device, names[i][0]);
		*(void **)&domains = gipa(instance, names[i][1]);
		ext = names[i][2];
		if (!domains)
			calibrate = NULL;
	}
	if (!calibrate) {
		og_log(OG_LOG_MESSAGE, "Vulkan device %p: VK_EXT_calibrated_timestamps (or the KHR "
		       "one) is not enabled on it, so its samples' GPU times cannot be placed on "
		       "CLOCK_MONOTONIC and are not on opengpa stat's timeline; enable it in "
		       "VkDeviceCreateInfo where the device lists it "
		       "(AMD_GPA_OPTIONAL_DEVICE_EXTENSION_NAME_LIST)", device);
		return NULL;
	}
	int32_t list[16];
	uint32_t n = 16;
	vk_result r = domains(physical, &n, list);
	bool have_dev = false, have_mono = false;
	for (uint32_t i = 0; (r == OGVK_SUCCESS || r == OGVK_INCOMPLETE) && i < n && i < 16; i++) {
		have_dev |= list[i] == OGVK_TIME_DOMAIN_DEVICE;
		have_mono |= list[i] == OGVK_TIME_DOMAIN_CLOCK_MONOTONIC;
	}
	if (!have_dev || !have_mono) {
		og_log(OG_LOG_MESSAGE, "Vulkan device %p: %s does not calibrate the device's clock "
		       "against CLOCK_MONOTONIC (vkGetPhysicalDeviceCalibrateableTimeDomains says %d, "
		       "device domain %s, CLOCK_MONOTONIC %s); its samples are not on opengpa stat's "
		       "timeline", device, ext, r, have_dev ? "listed" : "absent",
		       have_mono ? "listed" : "absent");
		return NULL;
	}
	struct og_vk_cal *c = calloc(1, sizeof(*c));
	if (!c) {
		og_log(OG_LOG_ERROR, "out of memory for Vulkan device %p's clock calibration; its "
		       "samples are not on opengpa stat's timeline", device);
		return NULL;
	}
	*c = (struct og_vk_cal){ .device = device, .calibrate = calibrate, .ext = ext,
		                 .mask = mask, .period_ns = period_ns };
	if (!take(c)) {
		free(c);
		return NULL;
	}
	og_log(OG_LOG_MESSAGE, "Vulkan device %p: GPU timestamps placed on CLOCK_MONOTONIC "
	       "through %s, max deviation %llu ns", device, ext,
	       (unsigned long long)c->worst_ns);
	return c;
}

void og_vk_cal_close(struct og_vk_cal *c)
{
	free(c);
}

void og_vk_cal_refresh(struct og_vk_cal *c)
{
	if (c && mono_now() - c->last_ns >= CAL_EVERY_NS)
		take(c);
}

/* T - dev over the valid bits, as a signed number of ticks. */
static int64_t ticks_from(const struct og_vk_cal *c, uint64_t t, uint64_t dev)
{
	uint64_t d = (t - dev) & c->mask;
	if (c->mask == UINT64_MAX)
		return (int64_t)d;
	return d > (c->mask >> 1) ? -(int64_t)((c->mask - d) + 1) : (int64_t)d;
}

uint64_t og_vk_cal_ns(const struct og_vk_cal *c, uint64_t ticks)
{
	ticks &= c->mask;
	const struct cal_point *best = &c->p[0];
	uint64_t best_abs = UINT64_MAX;
	for (uint32_t i = 0; i < c->n; i++) {
		int64_t d = ticks_from(c, ticks, c->p[i].dev);
		uint64_t a = d < 0 ? (uint64_t)0 - (uint64_t)d : (uint64_t)d;
		if (a < best_abs) {
			best_abs = a;
			best = &c->p[i];
		}
	}
	double ns = (double)best->mono_ns + (double)ticks_from(c, ticks, best->dev) * c->period_ns;
	return ns <= 0.0 ? 0 : ns >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)(ns + 0.5);
}

uint64_t og_vk_cal_deviation_ns(const struct og_vk_cal *c)
{
	return c->worst_ns;
}

/* ---- the spans to opengpa stat ------------------------------------------- */

void og_vk_span_record(uint64_t rec[3], uint32_t id, uint64_t begin_ns, uint64_t end_ns)
{
	/* tools/opengpa/frame_marks.h: the begin with the top bit set, the end,
	 * the ID (what og_apictx_send_sample writes for one GL sample). */
	rec[0] = (begin_ns & ~(UINT64_C(1) << 63)) | UINT64_C(1) << 63;
	rec[1] = end_ns;
	rec[2] = id;
}

void og_vk_send_spans(int fd, const uint64_t *recs, uint32_t n)
{
	if (fd < 0 || !n || n > OG_VK_SPANS_MAX)
		return;
	uint32_t id = (uint32_t)recs[2];
	struct stat st;
	/* Only ever a pipe, checked at each batch: a number the program closed
	 * and reused for a file of its own must not get our bytes. */
	if (fstat(fd, &st) != 0 || !S_ISFIFO(st.st_mode)) {
		og_log(OG_LOG_MESSAGE, "Vulkan sample %u%s: OPENGPA_FRAME_FD=%d is not an open "
		       "pipe: not on opengpa stat's timeline; unset OPENGPA_FRAME_FD", id,
		       n > 1 ? " and later ones" : "", fd);
		return;
	}
	size_t bytes = (size_t)n * 3 * sizeof(uint64_t);
	ssize_t w;
	while ((w = write(fd, recs, bytes)) < 0 && errno == EINTR)
		;
	if (w != (ssize_t)bytes) {
		int e = errno;
		og_log(OG_LOG_MESSAGE, "Vulkan sample %u%s: not on opengpa stat's timeline: %s", id,
		       n > 1 ? " and later ones" : "",
		       w < 0 && (e == EAGAIN || e == EWOULDBLOCK)
		               ? "its reader is behind (the pipe is full)"
		               : w < 0 ? strerror(e) : "short write");
	}
}
