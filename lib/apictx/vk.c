/* SPDX-License-Identifier: MIT */
/*
 * vk.c — a context on the application's Vulkan device (vk.h).
 *
 * Entry points come from the loader the process already has: the open
 * info's vkGetInstanceProcAddr / vkGetDeviceProcAddr (GPA 4.x's
 * GpaVkContextOpenInfo2), else the global scope (dlsym RTLD_DEFAULT), else
 * libvulkan.so.1 if it is loaded; the library has no link-time Vulkan
 * dependency and declares the few Vulkan types it uses itself (checked
 * against <vulkan/vulkan_core.h> where the build has it).
 *
 * A GPA command list owns a timestamp query pool, reset by a command
 * recorded at GpaBeginCommandList (which Vulkan allows only outside a
 * render pass), and, for a primary, a vk_handle set by a command recorded at
 * GpaEndCommandList: until the event is set the list has not run, and its
 * queries are not read at all (reading a query that was never reset on
 * the GPU is invalid).  A sample is a list of segments, each two
 * BOTTOM_OF_PIPE timestamps in one command buffer; its GPU time is the sum
 * over segments of (end - begin) masked to timestampValidBits, times
 * timestampPeriod.  Where the client enabled VK_KHR/EXT_calibrated_timestamps
 * on its device, vk_cal.c places those timestamps on CLOCK_MONOTONIC and a
 * sample's GPU span goes to opengpa stat's timeline when it is read.
 *
 * The recording path allocates nothing per sample: a primary list whose
 * event was seen set gives its pool and event to the context for the next
 * primary list (reset there), and sample timings are kept for reuse.
 *
 * Past 600 lines: the context, its command lists and its samples' timings
 * share these private structures and are one unit; vk_gpa.c, vk_dev.c and
 * vk_cal.c hold what does not need them.
 */
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "apictx/impl.h"
#include "apictx/vk.h"
#include "apictx/vk_abi.h"
#include "core/core.h"

/* ---- the context ------------------------------------------------------------- */

/* Queries a primary list holds: two per sample segment. */
#define DEFAULT_QUERIES 4096u
/* GpaGetSampleResult's wait, as GPA's (5 s). */
#define DEFAULT_WAIT_MS 5000u
#define MAX_WAIT_MS 3600000u
/* Query pools (with their events) kept for the next primary lists: a
 * session per frame then creates none after the first frames. */
#define SPARE_POOLS 8u

struct vk_timing;

struct vk {
	void *instance, *physical, *device;
	void *lib; /* libvulkan when found through it */
	uint64_t mask;
	double period_ns;
	uint32_t queries; /* per list */
	uint32_t wait_ms; /* GpaGetSampleResult's wait for the command buffers */
	struct og_vk_cal *cal; /* NULL: no calibrated timestamps */
	bool timeline;         /* under opengpa stat: samples' spans go to its timeline */
	int timeline_fd;       /* its pipe */
	/* Spans read, not yet sent: one write per batch, not per sample. */
	uint64_t spans[3 * OG_VK_SPANS_MAX];
	uint32_t nspans;
	vk_result (*CreateQueryPool)(void *, const struct vk_query_pool_info *, const void *,
	                            vk_handle *);
	void (*DestroyQueryPool)(void *, vk_handle, const void *);
	void (*CmdResetQueryPool)(void *, vk_handle, uint32_t, uint32_t);
	void (*CmdWriteTimestamp)(void *, uint32_t, vk_handle, uint32_t);
	vk_result (*GetQueryPoolResults)(void *, vk_handle, uint32_t, uint32_t, size_t, void *,
	                                uint64_t, uint32_t);
	vk_result (*CreateEvent)(void *, const struct vk_event_info *, const void *, vk_handle *);
	void (*DestroyEvent)(void *, vk_handle, const void *);
	vk_result (*GetEventStatus)(void *, vk_handle);
	void (*CmdSetEvent)(void *, vk_handle, uint32_t);
	vk_result (*DeviceWaitIdle)(void *);
	vk_result (*ResetEvent)(void *, vk_handle);
	/* Pools of primary lists whose event was seen set (their queries
	 * written), with those events, for the next lists: destroyed at
	 * vk_close.  Sample timings given back, for the next samples. */
	struct {
		vk_handle pool, event;
	} spare[SPARE_POOLS];
	uint32_t nspare;
	struct vk_timing *free_timings;
};

struct og_vk_list {
	struct vk *vk;
	void *cb;
	bool secondary, ended;
	uint32_t refs; /* the GPA command list, and each segment in it */
	vk_handle pool;
	vk_handle event; /* primary: set when the list has run */
	bool ran;        /* primary: its event was seen set (it stays set) */
	uint32_t used;
	/* Queries 0 .. used as vkGetQueryPoolResults gives them (value,
	 * availability), fetched in one call at the first read after the list
	 * ran; NULL before. */
	uint64_t *results;
	bool open, dangling;
	bool stamp; /* every sample gets timestamps and a samples[] entry (vk_dev.c) */
	uint32_t open_id;
	/* The open sample's timing and its segment here (NULL: untimed). */
	struct vk_timing *open_vt;
	uint32_t open_seg;
	/* samples begun here (a secondary's, or any on a stamped list),
	 * recording order: id, first query */
	struct {
		uint32_t id, q;
	} *samples;
	uint32_t nsamples, cap;
};

struct seg {
	struct og_vk_list *l;   /* the queries */
	struct og_vk_list *via; /* the primary whose event says they ran */
	uint32_t q;
	bool closed;
};

struct vk_timing {
	struct seg *segs; /* &one, or malloc'd past one segment */
	uint32_t n, cap;
	bool origin; /* a secondary's own sample: never read (its copies are) */
	uint32_t id;     /* the sample's, for the timeline */
	struct seg one;  /* the usual sample: one segment, no allocation */
	struct vk_timing *next_free;
};

/* Room for segment n + 1 of vt. */
static bool seg_room(struct vk_timing *vt)
{
	if (vt->n < vt->cap)
		return true;
	uint32_t cap = 2 * vt->cap;
	struct seg *p = malloc(cap * sizeof(*p));
	if (!p)
		return false;
	memcpy(p, vt->segs, vt->n * sizeof(*p));
	if (vt->segs != &vt->one)
		free(vt->segs);
	vt->segs = p;
	vt->cap = cap;
	return true;
}

static struct vk_timing *timing_of(struct og_apictx *a, uint32_t token)
{
	if (!token || token > a->ntimings)
		return NULL;
	return (struct vk_timing *)(uintptr_t)a->timings[token - 1].obj[0];
}

/* The spans read so far, to opengpa stat: at the next command list's
 * begin, end or read, when the batch is full, and at GpaCloseContext. */
static void spans_flush(struct vk *vk)
{
	if (vk->nspans)
		og_vk_send_spans(vk->timeline_fd, vk->spans, vk->nspans);
	vk->nspans = 0;
}

/* The last reference to l is gone (list_unref). */
static __attribute__((noinline)) void list_release(struct og_vk_list *l)
{
	struct vk *vk = l->vk;
	if (l->ran && l->pool && l->event && vk->nspare < SPARE_POOLS) {
		/* Its commands have run: the next list resets both and reuses them. */
		vk->spare[vk->nspare].pool = l->pool;
		vk->spare[vk->nspare++].event = l->event;
		l->pool = l->event = 0;
	}
	if (l->pool)
		vk->DestroyQueryPool(vk->device, l->pool, NULL);
	if (l->event)
		vk->DestroyEvent(vk->device, l->event, NULL);
	free(l->samples);
	free(l->results);
	free(l);
}

static inline void list_unref(struct og_vk_list *l)
{
	if (l && !--l->refs)
		list_release(l);
}

static void *sym(struct vk *vk, pfn_gipa gipa, pfn_gdpa gdpa, const char *name, bool device)
{
	return device ? gdpa(vk->device, name) : gipa(vk->instance, name);
}

static GPA_Status vk_open(struct og_apictx *a, void *key)
{
	const struct og_vk_open_info *info = key;
	bool info2 = (a->open_flags & OG_VK_OPEN_INFO2_FLAG) != 0;
	if (!info->instance || !info->physical_device || !info->device)
		return og_error(GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED,
		                "GpaOpenContext: a necessary member of the GpaVkContextOpenInfo is NULL "
		                "(instance %p, physical device %p, device %p); pass the VkInstance, "
		                "VkPhysicalDevice and VkDevice the application created",
		                info->instance, info->physical_device, info->device);
	struct vk *vk = calloc(1, sizeof(*vk));
	if (!vk)
		return og_error(GPA_STATUS_ERROR_FAILED, "GpaOpenContext: out of memory");
	vk->instance = info->instance;
	vk->physical = info->physical_device;
	vk->device = info->device;
	pfn_gipa gipa = info2 ? info->get_instance_proc_addr : NULL;
	pfn_gdpa gdpa = info2 ? info->get_device_proc_addr : NULL;
	if (!gipa || !gdpa) {
		static const char *const names[] = { "libvulkan.so.1", "libvulkan.so", NULL };
		vk->lib = og_api_loaded(names);
		gipa = gipa ? gipa : (pfn_gipa)og_api_sym(vk->lib, "vkGetInstanceProcAddr");
		gdpa = gdpa ? gdpa : (pfn_gdpa)og_api_sym(vk->lib, "vkGetDeviceProcAddr");
	}
	if (!gipa || !gdpa) {
		if (vk->lib)
			dlclose(vk->lib);
		free(vk);
		return GPA_STATUS_ERROR_NOT_FOUND; /* no Vulkan loader in the process */
	}
	void (*props)(void *, void *) = sym(vk, gipa, gdpa, "vkGetPhysicalDeviceProperties", false);
	void (*families)(void *, uint32_t *, struct vk_queue_family *) =
		sym(vk, gipa, gdpa, "vkGetPhysicalDeviceQueueFamilyProperties", false);
	*(void **)&vk->CreateQueryPool = sym(vk, gipa, gdpa, "vkCreateQueryPool", true);
	*(void **)&vk->DestroyQueryPool = sym(vk, gipa, gdpa, "vkDestroyQueryPool", true);
	*(void **)&vk->CmdResetQueryPool = sym(vk, gipa, gdpa, "vkCmdResetQueryPool", true);
	*(void **)&vk->CmdWriteTimestamp = sym(vk, gipa, gdpa, "vkCmdWriteTimestamp", true);
	*(void **)&vk->GetQueryPoolResults = sym(vk, gipa, gdpa, "vkGetQueryPoolResults", true);
	*(void **)&vk->CreateEvent = sym(vk, gipa, gdpa, "vkCreateEvent", true);
	*(void **)&vk->DestroyEvent = sym(vk, gipa, gdpa, "vkDestroyEvent", true);
	*(void **)&vk->GetEventStatus = sym(vk, gipa, gdpa, "vkGetEventStatus", true);
	*(void **)&vk->CmdSetEvent = sym(vk, gipa, gdpa, "vkCmdSetEvent", true);
	*(void **)&vk->DeviceWaitIdle = sym(vk, gipa, gdpa, "vkDeviceWaitIdle", true);
	*(void **)&vk->ResetEvent = sym(vk, gipa, gdpa, "vkResetEvent", true);
	if (!props || !families || !vk->CreateQueryPool || !vk->DestroyQueryPool ||
	    !vk->CmdResetQueryPool || !vk->CmdWriteTimestamp || !vk->GetQueryPoolResults ||
	    !vk->CreateEvent || !vk->DestroyEvent || !vk->GetEventStatus || !vk->CmdSetEvent ||
	    !vk->DeviceWaitIdle || !vk->ResetEvent) {
		if (vk->lib)
			dlclose(vk->lib);
		free(vk);
		return og_error(GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED,
		                "GpaOpenContext: the Vulkan loader does not give the Vulkan 1.0 "
		                "commands opengpa needs (vkCmdWriteTimestamp, vkGetQueryPoolResults, "
		                "vkCmdSetEvent, ...) for device %p; pass a valid VkInstance and VkDevice",
		                info->device);
	}
	_Alignas(8) unsigned char p[PROPS_SIZE];
	props(vk->physical, p);
	float period;
	uint32_t vendor, device;
	memcpy(&period, p + PROPS_TIMESTAMP_PERIOD, sizeof(period));
	memcpy(&vendor, p + PROPS_VENDOR, sizeof(vendor));
	memcpy(&device, p + PROPS_DEVICE, sizeof(device));
	char name[257] = { 0 };
	memcpy(name, p + PROPS_NAME, 256);
	/* The narrowest timestamps of the queue families that have any: the
	 * client's queue is one of them. */
	uint32_t nfam = 0, bits = 64;
	families(vk->physical, &nfam, NULL);
	struct vk_queue_family fam[32];
	nfam = nfam > 32 ? 32 : nfam;
	families(vk->physical, &nfam, fam);
	bool any = false;
	for (uint32_t i = 0; i < nfam; i++)
		if (fam[i].timestampValidBits) {
			bits = fam[i].timestampValidBits < bits ? fam[i].timestampValidBits : bits;
			any = true;
		}
	vk->mask = bits >= 64 ? UINT64_MAX : (1ull << bits) - 1;
	vk->period_ns = period;
	vk->queries = DEFAULT_QUERIES;
	const char *env = secure_getenv("OPENGPA_VK_QUERIES");
	if (env && *env) {
		char *end;
		unsigned long n = strtoul(env, &end, 10);
		if (*end || n < 2 || n > (1ul << 20))
			og_log(OG_LOG_ERROR, "OPENGPA_VK_QUERIES=%s is not a number from 2 to 1048576; "
			       "using %u", env, DEFAULT_QUERIES);
		else
			vk->queries = (uint32_t)n & ~1u;
	}
	vk->wait_ms = DEFAULT_WAIT_MS;
	env = secure_getenv("OPENGPA_VK_RESULT_WAIT_MS");
	if (env && *env) {
		char *end;
		unsigned long n = strtoul(env, &end, 10);
		if (*end || n > MAX_WAIT_MS)
			og_log(OG_LOG_ERROR, "OPENGPA_VK_RESULT_WAIT_MS=%s is not a number of "
			       "milliseconds from 0 to %u; using %u", env, MAX_WAIT_MS, DEFAULT_WAIT_MS);
		else
			vk->wait_ms = (uint32_t)n;
	}
	a->priv = vk;
	a->sync = OG_SYNC_OFF; /* nothing to drain: samples are recorded, not run, here */
	snprintf(a->desc, sizeof(a->desc), "Vulkan device %p on %s (vendor 0x%x, device 0x%x)",
	         vk->device, name, vendor, device);
	a->timer_what = "timestamp queries in the command buffers";
	if (!any || !(period > 0.0f))
		a->timer_why = "no queue family of this Vulkan device writes timestamps "
		               "(timestampValidBits 0 or timestampPeriod 0)";
	else
		vk->cal = og_vk_cal_open(vk->instance, vk->physical, vk->device, gipa, gdpa, vk->mask,
		                         vk->period_ns);
	vk->timeline_fd = vk->cal ? og_apictx_frame_fd() /* read once, as the context opens */ : -1;
	vk->timeline = vk->timeline_fd >= 0;
	return GPA_STATUS_OK;
}

static void vk_close(struct og_apictx *a)
{
	struct vk *vk = a->priv;
	if (!vk)
		return;
	spans_flush(vk);
	og_vk_cal_close(vk->cal);
	for (uint32_t i = 0; i < vk->nspare; i++) {
		vk->DestroyQueryPool(vk->device, vk->spare[i].pool, NULL);
		vk->DestroyEvent(vk->device, vk->spare[i].event, NULL);
	}
	while (vk->free_timings) {
		struct vk_timing *vt = vk->free_timings;
		vk->free_timings = vt->next_free;
		free(vt);
	}
	if (vk->lib)
		dlclose(vk->lib);
	free(vk);
}

static GPA_Status vk_usable(struct og_apictx *a, const char *func)
{
	(void)a;
	(void)func;
	return GPA_STATUS_OK;
}

static GPA_Status vk_sync(struct og_apictx *a, enum og_sync mode, const char *func)
{
	(void)a;
	(void)mode;
	(void)func;
	return GPA_STATUS_OK; /* the GPU runs the command buffer after it is recorded */
}

/* The core's sample timer: only a place for segments; the front end
 * records them (og_vk_sample_begin). */
static GPA_Status vk_time_begin(struct og_apictx *a, struct og_api_timing *t, const char *func)
{
	struct vk *vk = a->priv;
	struct vk_timing *vt = vk->free_timings;
	if (vt)
		vk->free_timings = vt->next_free;
	else if (!(vt = malloc(sizeof(*vt))))
		return og_error(GPA_STATUS_ERROR_FAILED, "%s: out of memory", func);
	*vt = (struct vk_timing){ .segs = &vt->one, .cap = 1 };
	t->obj[0] = (uintptr_t)vt;
	return GPA_STATUS_OK;
}

static GPA_Status vk_time_end(struct og_apictx *a, struct og_api_timing *t, const char *func)
{
	(void)a;
	(void)t;
	(void)func;
	return GPA_STATUS_OK;
}

/* Whether list l (a primary) has run: its event, never its queries before. */
static enum og_api_read ran(struct vk *vk, struct og_vk_list *via)
{
	if (via && via->ran)
		return OG_API_DONE;
	if (!via || !via->event || !via->ended)
		return OG_API_PENDING; /* not ended: not submitted yet, no Vulkan call */
	vk_result r = vk->GetEventStatus(vk->device, via->event);
	if (r == OGVK_EVENT_SET) {
		via->ran = true;
		return OG_API_DONE;
	}
	if (r == OGVK_EVENT_RESET)
		return OG_API_PENDING;
	og_log(OG_LOG_ERROR, "vkGetEventStatus on command buffer %p's event says %d%s; the "
	       "sample has no GPUTime", via->cb, r,
	       r == OGVK_ERROR_DEVICE_LOST ? " (OGVK_ERROR_DEVICE_LOST: the device was lost)" : "");
	return OG_API_FAILED;
}

/* Every query list l has written, in one vkGetQueryPoolResults, once its
 * commands ran (ran() said so for the primary that executed them): a frame's
 * samples cost one call, not one each. */
static __attribute__((noinline)) enum og_api_read fetch(struct vk *vk, struct og_vk_list *l)
{
	if (vk->timeline) {
		spans_flush(vk);
		og_vk_cal_refresh(vk->cal); /* per command list, when its timestamps are read */
	}
	if (!(l->results = malloc(2 * sizeof(uint64_t) * (l->used ? l->used : 1)))) {
		og_log(OG_LOG_ERROR, "out of memory reading command buffer %p's timestamps; the "
		       "sample has no GPUTime", l->cb);
		return OG_API_FAILED;
	}
	vk_result res = vk->GetQueryPoolResults(vk->device, l->pool, 0, l->used,
	                                        2 * sizeof(uint64_t) * l->used, l->results,
	                                        2 * sizeof(uint64_t),
	                                        OGVK_QUERY_RESULT_64_BIT |
	                                        OGVK_QUERY_RESULT_WITH_AVAILABILITY_BIT);
	if (res == OGVK_SUCCESS || res == OGVK_NOT_READY)
		return OG_API_DONE; /* availability says which are in */
	free(l->results);
	l->results = NULL;
	og_log(OG_LOG_ERROR, "vkGetQueryPoolResults says %d%s; the sample has no GPUTime", res,
	       res == OGVK_ERROR_DEVICE_LOST ? " (device lost)" : "");
	return OG_API_FAILED;
}

static enum og_api_read vk_time_read(struct og_apictx *a, struct og_api_timing *t, bool wait,
                                     uint64_t *ns)
{
	(void)wait; /* GpaGetSampleResult polls (table.c): this never blocks */
	struct vk *vk = a->priv;
	struct vk_timing *vt = (struct vk_timing *)(uintptr_t)t->obj[0];
	if (!vt || vt->origin) {
		*ns = 0;
		return OG_API_DONE;
	}
	double sum = 0.0;
	uint64_t first = UINT64_MAX, last = 0; /* the GPU span, CLOCK_MONOTONIC */
	for (uint32_t i = 0; i < vt->n; i++) {
		struct seg *s = &vt->segs[i];
		enum og_api_read r = ran(vk, s->via);
		if (r != OG_API_DONE)
			return r;
		if (!s->closed) {
			og_log(OG_LOG_ERROR, "a sample's timestamps in command buffer %p were never "
			       "ended (internal error); it has no GPUTime", s->l->cb);
			return OG_API_FAILED;
		}
		r = s->l->results ? OG_API_DONE : fetch(vk, s->l);
		if (r != OG_API_DONE)
			return r;
		const uint64_t *v = s->l->results + 2 * s->q;
		if (!v[1] || !v[3]) {
			free(s->l->results); /* fetched again at the next read */
			s->l->results = NULL;
			return OG_API_PENDING;
		}
		sum += (double)((v[2] - v[0]) & vk->mask) * vk->period_ns;
		if (vk->timeline) {
			uint64_t b = og_vk_cal_ns(vk->cal, v[0]), e = og_vk_cal_ns(vk->cal, v[2]);
			first = b < first ? b : first;
			last = e > last ? e : last;
		}
	}
	*ns = (uint64_t)(sum + 0.5);
	/* Read once (the core releases the timing once it is DONE): the sample
	 * goes to opengpa stat's timeline once, in a batch, never blocking (the
	 * pipe is non-blocking). */
	if (vk->timeline && vt->n) {
		if (vk->nspans == OG_VK_SPANS_MAX)
			spans_flush(vk);
		og_vk_span_record(vk->spans + 3 * vk->nspans++, vt->id, first,
		                  last > first ? last : first);
	}
	return OG_API_DONE;
}

static void vk_time_free(struct og_apictx *a, struct og_api_timing *t)
{
	struct vk *vk = a->priv;
	struct vk_timing *vt = (struct vk_timing *)(uintptr_t)t->obj[0];
	if (!vt)
		return;
	for (uint32_t i = 0; i < vt->n; i++) {
		list_unref(vt->segs[i].l);
		list_unref(vt->segs[i].via);
	}
	if (vt->segs != &vt->one)
		free(vt->segs);
	vt->next_free = vk->free_timings; /* for the next sample (vk_time_begin) */
	vk->free_timings = vt;
	t->obj[0] = 0;
}

const struct og_api_impl og_api_vk = {
	.open = vk_open, .close = vk_close, .usable = vk_usable, .sync = vk_sync,
	.time_begin = vk_time_begin, .time_end = vk_time_end, .time_read = vk_time_read,
	.time_free = vk_time_free,
};

GPA_Status og_vk_drain(struct og_apictx *a, const char *fn)
{
	struct vk *vk = a->priv;
	vk_result r = vk->DeviceWaitIdle(vk->device);
	if (r == OGVK_SUCCESS)
		return GPA_STATUS_OK;
	return og_error(GPA_STATUS_ERROR_FAILED, "%s: vkDeviceWaitIdle on device %p says %d%s; the "
	                "device counts of the command lists since the last GPA call are lost", fn,
	                vk->device, r, r == OGVK_ERROR_DEVICE_LOST ? " (device lost)" : "");
}

enum og_api_read og_vk_list_ran(struct og_apictx *a, struct og_vk_list *l)
{
	return l->secondary ? OG_API_PENDING : ran(a->priv, l);
}

uint32_t og_vk_result_wait_ms(const struct og_apictx *a)
{
	const struct vk *vk = a->priv;
	return vk->wait_ms;
}

/* ---- command lists --------------------------------------------------------------- */

GPA_Status og_vk_list_begin(struct og_apictx *a, const char *fn, void *cb, bool secondary,
                            struct og_vk_list **out)
{
	struct vk *vk = a->priv;
	struct og_vk_list *l = calloc(1, sizeof(*l));
	if (!l)
		return og_error(GPA_STATUS_ERROR_FAILED, "%s: out of memory", fn);
	l->vk = vk;
	l->cb = cb;
	l->secondary = secondary;
	l->refs = 1;
	if (!secondary && vk->nspare) {
		/* A pool and event whose commands ran: the event reset here, the
		 * pool by the reset recorded below (the next list's pools are
		 * the same size: vk->queries).  One that cannot be reset is
		 * destroyed, and new ones are made as without spares. */
		vk->nspare--;
		l->pool = vk->spare[vk->nspare].pool;
		l->event = vk->spare[vk->nspare].event;
		if (vk->ResetEvent(vk->device, l->event) != OGVK_SUCCESS) {
			vk->DestroyQueryPool(vk->device, l->pool, NULL);
			vk->DestroyEvent(vk->device, l->event, NULL);
			l->pool = l->event = 0;
		}
	}
	struct vk_query_pool_info qi = { OGVK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO, NULL, 0,
	                                 OGVK_QUERY_TYPE_TIMESTAMP, vk->queries, 0 };
	vk_result r = OGVK_SUCCESS;
	if (!l->pool)
		r = vk->CreateQueryPool(vk->device, &qi, NULL, &l->pool);
	if (r == OGVK_SUCCESS && !secondary && !l->event) {
		struct vk_event_info ei = { OGVK_STRUCTURE_TYPE_EVENT_CREATE_INFO, NULL, 0 };
		r = vk->CreateEvent(vk->device, &ei, NULL, &l->event);
	}
	if (r != OGVK_SUCCESS) {
		list_unref(l);
		return og_error(GPA_STATUS_ERROR_FAILED, "%s: creating a query pool of %u timestamps "
		                "(or an event) on device %p failed: vk_result %d; free device memory or "
		                "lower OPENGPA_VK_QUERIES", fn, vk->queries, vk->device, r);
	}
	vk->CmdResetQueryPool(cb, l->pool, 0, vk->queries);
	if (vk->timeline)
		spans_flush(vk);
	*out = l;
	return GPA_STATUS_OK;
}

/* The segment the list's open sample has here.  A timing gains segments
 * only from a continuation or a copy, never while one of its segments is
 * open, so the index stays good. */
static struct seg *open_seg(struct og_vk_list *l)
{
	struct vk_timing *vt = l->open_vt;
	if (!vt || l->open_seg >= vt->n)
		return NULL;
	struct seg *s = &vt->segs[l->open_seg];
	return s->l == l && !s->closed ? s : NULL;
}

static void close_open(struct og_apictx *a, struct og_vk_list *l)
{
	struct vk *vk = a->priv;
	struct seg *s = open_seg(l);
	if (s) {
		vk->CmdWriteTimestamp(l->cb, OGVK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, l->pool, s->q + 1);
		s->closed = true;
	} else if (l->stamp && l->open && l->nsamples &&
	           l->samples[l->nsamples - 1].id == l->open_id) { /* vk_dev.c's alone */
		vk->CmdWriteTimestamp(l->cb, OGVK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, l->pool,
		                      l->samples[l->nsamples - 1].q + 1);
	}
	l->open = false;
	l->open_vt = NULL;
}

GPA_Status og_vk_list_end(struct og_apictx *a, const char *fn, struct og_vk_list *l)
{
	(void)fn;
	struct vk *vk = a->priv;
	if (l->open) {
		l->dangling = true; /* GPA: closed, but not ended by the client */
		close_open(a, l);
	}
	if (l->event)
		vk->CmdSetEvent(l->cb, l->event, OGVK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT);
	l->ended = true;
	if (vk->timeline) {
		spans_flush(vk);
		og_vk_cal_refresh(vk->cal); /* near when the list will run; at most every 50 ms */
	}
	return GPA_STATUS_OK;
}

void og_vk_list_put(struct og_apictx *a, struct og_vk_list *l)
{
	(void)a;
	list_unref(l);
}

GPA_Status og_vk_sample_begin(struct og_apictx *a, const char *fn, struct og_vk_list *l,
                              uint32_t id, uint32_t token)
{
	struct vk *vk = a->priv;
	if (l->secondary || l->stamp) {
		if (l->nsamples == l->cap) {
			uint32_t cap = l->cap ? 2 * l->cap : 16;
			void *p = realloc(l->samples, cap * sizeof(*l->samples));
			if (!p)
				return og_error(GPA_STATUS_ERROR_FAILED, "%s(%u): out of memory", fn, id);
			l->samples = p;
			l->cap = cap;
		}
	}
	struct vk_timing *vt = timing_of(a, token);
	uint32_t q = l->used;
	if (vt || l->secondary || l->stamp) {
		if (q + 2 > vk->queries)
			return og_error(GPA_STATUS_ERROR_FAILED,
			                "%s(%u): command buffer %p has used all its %u timestamp queries "
			                "(%u samples); set OPENGPA_VK_QUERIES higher, or split the work "
			                "over more command lists", fn, id, l->cb, vk->queries,
			                vk->queries / 2);
		if (vt && !seg_room(vt))
			return og_error(GPA_STATUS_ERROR_FAILED, "%s(%u): out of memory", fn, id);
		vk->CmdWriteTimestamp(l->cb, OGVK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, l->pool, q);
		l->used += 2;
	}
	l->open_vt = vt;
	if (vt) {
		l->open_seg = vt->n;
		/* A primary's segment is read once the primary ran; a secondary's
		 * own sample is never read, its copies are (og_vk_copy). */
		vt->segs[vt->n++] = (struct seg){ l, l->secondary ? NULL : l, q, false };
		l->refs += l->secondary ? 1 : 2;
		vt->origin = l->secondary;
		vt->id = id;
	}
	if (l->secondary || l->stamp) {
		l->samples[l->nsamples].id = id;
		l->samples[l->nsamples++].q = q;
	}
	l->open = true;
	l->open_id = id;
	return GPA_STATUS_OK;
}

GPA_Status og_vk_sample_end(struct og_apictx *a, const char *fn, struct og_vk_list *l)
{
	(void)fn;
	struct vk *vk = a->priv;
	if (l->secondary && !open_seg(l) && l->nsamples &&
	    l->samples[l->nsamples - 1].id == l->open_id) {
		/* No timing (no API counter): the queries still pair up. */
		vk->CmdWriteTimestamp(l->cb, OGVK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, l->pool,
		                      l->samples[l->nsamples - 1].q + 1);
		l->open = false;
		l->open_vt = NULL;
		return GPA_STATUS_OK;
	}
	close_open(a, l);
	return GPA_STATUS_OK;
}

bool og_vk_list_open(const struct og_vk_list *l, uint32_t *id)
{
	*id = l->open_id;
	return l->open;
}

bool og_vk_list_dangling(const struct og_vk_list *l, uint32_t *id)
{
	*id = l->open_id;
	return l->dangling;
}

void og_vk_list_continued(struct og_vk_list *l, uint32_t id)
{
	if (l->dangling && l->open_id == id)
		l->dangling = false;
}

uint32_t og_vk_list_nsamples(const struct og_vk_list *l)
{
	return l->nsamples;
}

uint32_t og_vk_list_samples(const struct og_vk_list *l, uint32_t k, bool *exists)
{
	*exists = k < l->nsamples;
	return *exists ? l->samples[k].id : 0;
}

bool og_vk_list_has(const struct og_vk_list *l, uint32_t id)
{
	for (uint32_t k = 0; k < l->nsamples; k++)
		if (l->samples[k].id == id)
			return true;
	return false;
}

GPA_Status og_vk_copy(struct og_apictx *a, const char *fn, struct og_vk_list *secondary,
                      uint32_t k, struct og_vk_list *via, uint32_t id, uint32_t token)
{
	struct vk_timing *vt = timing_of(a, token);
	if (!vt)
		return GPA_STATUS_OK; /* nothing timed */
	vt->id = id;
	if (!seg_room(vt))
		return og_error(GPA_STATUS_ERROR_FAILED, "%s: out of memory", fn);
	vt->segs[vt->n++] = (struct seg){ secondary, via, secondary->samples[k].q, true };
	secondary->refs++;
	via->refs++;
	return GPA_STATUS_OK;
}

/* ---- GPU time per sample and list, for device counts (vk_dev.c) ------------ */

bool og_vk_list_stamp(struct og_apictx *a, struct og_vk_list *l)
{
	l->stamp = a->timer_why == NULL; /* no timestamps on this device: none written */
	return l->stamp;
}

enum og_api_read og_vk_list_ticks(struct og_apictx *a, struct og_vk_list *l, uint32_t k,
                                  uint32_t id, struct og_vk_list *via, uint64_t *ticks)
{
	struct vk *vk = a->priv;
	enum og_api_read r = k < l->nsamples && l->samples[k].id == id ? ran(vk, via)
	                                                               : OG_API_FAILED;
	if (r == OG_API_DONE && !l->results)
		r = fetch(vk, l);
	if (r != OG_API_DONE)
		return r;
	const uint64_t *v = l->results + 2 * l->samples[k].q;
	if (!v[1] || !v[3]) {
		free(l->results); /* fetched again at the next read */
		l->results = NULL;
		return OG_API_PENDING;
	}
	*ticks = (v[2] - v[0]) & vk->mask;
	return OG_API_DONE;
}
