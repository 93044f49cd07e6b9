/* SPDX-License-Identifier: MIT */
/*
 * vk.h — a context on the application's Vulkan device (libGPUPerfAPIVK.so).
 *
 * On Vulkan a GPA command list is the client's VkCommandBuffer, and a
 * sample is a pair of timestamp queries recorded into it (vk.c).  The GPA
 * 3.x/4.x front ends (lib/api/table.c) call these for a context whose API
 * is OG_API_VK; og_api_vk (apictx/impl.h) is the rest: the context, and the
 * timings the core session holds per sample, which are read from the
 * queries once the command buffers that wrote them have run.
 *
 * Everything here runs with the registry lock held.
 */
#ifndef OPENGPA_APICTX_VK_H
#define OPENGPA_APICTX_VK_H

#include <stdbool.h>
#include <stdint.h>

#include "apictx/apictx.h"

struct og_vk_list;

/* GPA's open-info structs (gpu_perf_api_vk.h), as the library reads them. */
struct og_vk_open_info {
	void *instance, *physical_device, *device;
	void *(*get_instance_proc_addr)(void *instance, const char *name);
	void *(*get_device_proc_addr)(void *device, const char *name);
};
#define OG_VK_OPEN_INFO2_FLAG 0x10000000u

/* A new list on VkCommandBuffer `cb`: its query pool, and (a primary) the
 * event that says it has run.  Records the pool's reset into `cb`, so it
 * must be called outside a render pass. */
GPA_Status og_vk_list_begin(struct og_apictx *a, const char *fn, void *cb, bool secondary,
                            struct og_vk_list **out);
/* Closes the sample open on it (it stays open for ContinueSample), and
 * (a primary) records the event.  Outside a render pass. */
GPA_Status og_vk_list_end(struct og_apictx *a, const char *fn, struct og_vk_list *l);
/* The list is forgotten by its GPA command list (its queries live on while
 * a sample's timing refers to them). */
void og_vk_list_put(struct og_apictx *a, struct og_vk_list *l);

/* Sample `id` (timing `token`, 0: nothing to time) begins or goes on here. */
GPA_Status og_vk_sample_begin(struct og_apictx *a, const char *fn, struct og_vk_list *l,
                              uint32_t id, uint32_t token);
/* The sample open on this list ends. */
GPA_Status og_vk_sample_end(struct og_apictx *a, const char *fn, struct og_vk_list *l);
/* Whether a sample is open on it, and which. */
bool og_vk_list_open(const struct og_vk_list *l, uint32_t *id);
/* A sample left open when the list ended (not continued since). */
bool og_vk_list_dangling(const struct og_vk_list *l, uint32_t *id);
/* Marks sample `id` continued elsewhere: no longer dangling here. */
void og_vk_list_continued(struct og_vk_list *l, uint32_t id);
/* A secondary list's samples, recording order. */
uint32_t og_vk_list_samples(const struct og_vk_list *l, uint32_t k, bool *exists);
uint32_t og_vk_list_nsamples(const struct og_vk_list *l);
bool og_vk_list_has(const struct og_vk_list *l, uint32_t id);
/* The secondary's k-th sample becomes sample `id`'s (timing `token`), read
 * once the primary `via` has run. */
GPA_Status og_vk_copy(struct og_apictx *a, const char *fn, struct og_vk_list *secondary,
                      uint32_t k, struct og_vk_list *via, uint32_t id, uint32_t token);

/* vkDeviceWaitIdle: every command submitted so far has run (the
 * synchronised device counts, vk_dev.c).  FAILED, logged. */
GPA_Status og_vk_drain(struct og_apictx *a, const char *fn);
/* Whether a primary list has run (its event is set); never waits.  A
 * secondary: PENDING (it runs inside its primary). */
enum og_api_read og_vk_list_ran(struct og_apictx *a, struct og_vk_list *l);

/* ---- the device's timestamps on CLOCK_MONOTONIC (vk_cal.c) --------------- */

struct og_vk_cal;
/* A calibration of the device's timestamps (masked to `mask`, `period_ns`
 * each) against CLOCK_MONOTONIC through VK_KHR/EXT_calibrated_timestamps;
 * NULL, logged as a message saying why, when the client did not enable
 * either on `device`, or the device cannot calibrate against
 * CLOCK_MONOTONIC. */
struct og_vk_cal *og_vk_cal_open(void *instance, void *physical, void *device,
                                 void *(*gipa)(void *, const char *),
                                 void *(*gdpa)(void *, const char *), uint64_t mask,
                                 double period_ns);
void og_vk_cal_close(struct og_vk_cal *c);
/* A new calibration when the last is older than 50 ms (c may be NULL). */
void og_vk_cal_refresh(struct og_vk_cal *c);
/* A GPU timestamp as CLOCK_MONOTONIC ns, from the calibration nearest it. */
uint64_t og_vk_cal_ns(const struct og_vk_cal *c, uint64_t ticks);
/* The largest maxDeviation of the calibrations kept (ns): the precision. */
uint64_t og_vk_cal_deviation_ns(const struct og_vk_cal *c);

/* Batches of sample spans for it: up to OG_VK_SPANS_MAX records of
 * tools/opengpa/frame_marks.h (24 bytes each) in one write, at most
 * PIPE_BUF, so whole or not at all; never blocks (the pipe is
 * non-blocking), never fails a sample (a batch not sent is logged). */
#define OG_VK_SPANS_MAX 170u
void og_vk_span_record(uint64_t rec[3], uint32_t id, uint64_t begin_ns, uint64_t end_ns);
void og_vk_send_spans(int fd, const uint64_t *recs, uint32_t n);

/* ---- device counters per sample, synchronised (vk_dev.c) ---------------- */

struct og_xsession;
struct og_cmdlist;
/* og_cmdlist.type of a secondary list (GPA's kGpaCommandListSecondary). */
#define OG_VK_SECONDARY 2u

/* The session (begun) counts device raws in some pass. */
bool og_vk_dev_wanted(const struct og_xsession *x);
/* At GpaBeginSession: the core defers the device counts of x's samples;
 * `drain`: synchronised (each checkpoint waits for the device). */
GPA_Status og_vk_dev_start(struct og_xsession *x, const char *fn, bool drain);
/* The device is given up: counts still owed fail, the held pass ends. */
void og_vk_dev_free(struct og_xsession *x);
/* Drains the device and attributes what the backend counted since the
 * last checkpoint to the one list that ran meanwhile. */
GPA_Status og_vk_dev_checkpoint(struct og_xsession *x, const char *fn);
/* Before og_cmdlist_begin (a checkpoint for a primary; a held pass of
 * another index ends, or FAILED while its lists have not all run), and
 * after it. */
GPA_Status og_vk_dev_list_begin(struct og_xsession *x, const char *fn, uint32_t pass,
                                bool primary);
GPA_Status og_vk_dev_list_begun(struct og_cmdlist *cl, const char *fn);
/* Sample `id` ended on list cl (its counts are complete once its lists ran). */
void og_vk_dev_sample_end(struct og_cmdlist *cl, uint32_t id);
/* Sample `id` is (also) on list cl. */
GPA_Status og_vk_dev_sample(struct og_cmdlist *cl, const char *fn, uint32_t id, bool secondary);
/* Sample `id` on primary cl is the copy of secondary sec's k-th sample. */
GPA_Status og_vk_dev_copy(struct og_cmdlist *cl, const char *fn, uint32_t id,
                          struct og_cmdlist *sec, uint32_t k);
/* vk.c for vk_dev.c: every sample on primary list l gets its two
 * timestamps and a place in og_vk_list_samples even without a timing
 * (false: the device writes none), and the ticks of l's k-th sample, which
 * must be `id` (its end - begin masked to timestampValidBits), read once the
 * primary `via` ran. */
bool og_vk_list_stamp(struct og_apictx *a, struct og_vk_list *l);
enum og_api_read og_vk_list_ticks(struct og_apictx *a, struct og_vk_list *l, uint32_t k,
                                  uint32_t id, struct og_vk_list *via, uint64_t *ticks);
/* Splits `total` into n shares proportional to weights[] (largest
 * remainder: they add up to total exactly); all weights 0: equal shares,
 * the remainder to the first. */
void og_vk_apportion(uint64_t total, const uint64_t *weights, uint32_t n, uint64_t *shares);
/* x's backend pass `pass` stays open for lists still to run. */
bool og_vk_dev_holds(const struct og_xsession *x, uint32_t pass);

/* How long GpaGetSampleResult waits for a session's command buffers to
 * have run (OPENGPA_VK_RESULT_WAIT_MS, GPA's 5 s by default). */
uint32_t og_vk_result_wait_ms(const struct og_apictx *a);

#endif
