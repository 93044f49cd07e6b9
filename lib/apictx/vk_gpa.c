/* SPDX-License-Identifier: MIT */
/*
 * vk_gpa.c — the GPA 3.x/4.x command-list and sample calls on a Vulkan
 * context (table.c hands them here when the context's API is Vulkan).
 *
 * On Vulkan, command lists are the client's VkCommandBuffers and samples
 * are timestamp queries recorded into them (vk.c): several lists may hold
 * open samples at once, a sample may go on in another primary list
 * (GpaContinueSampleOnCommandList) and a secondary's samples are copied
 * into the primary that executed it (GpaCopySecondarySamples).  The core
 * session keeps each sample's ID, pass and timing; the core's sample
 * begins and ends at once (nothing is counted on the CPU timeline), and
 * the timing collects the query segments.  With device counters the core
 * defers the samples' device counts, and vk_dev.c brings them once the
 * command lists ran.
 */
#include <time.h>

#include "api/table.h"
#include "apictx/vk.h"
#include "core/registry.h"

bool ot_vk(const struct og_context *ctx)
{
	return ctx->api && og_apictx_api(ctx->api) == OG_API_VK;
}

static bool secondary(const struct og_cmdlist *cl)
{
	return cl->type == OT_COMMAND_LIST_LAST - 1;
}

int ot_vk_open_key(const char *fn, void *api_context, void **key)
{
	const struct og_vk_open_info *info = api_context;
	if (!info->physical_device)
		return ot_error(OT_HARDWARE_NOT_SUPPORTED,
		                "%s: the GpaVkContextOpenInfo's physical_device is NULL; pass the "
		                "VkPhysicalDevice the application's VkDevice was created on", fn);
	*key = info->physical_device; /* GPA's identity: one context per physical device */
	return OT_OK;
}

int ot_vk_list_begin(const char *fn, struct og_cmdlist *cl)
{
	/* The samples of lists that ran give their timings (and, with the last
	 * of a list's, its query pool) back before this list takes its own. */
	og_session_collect_recorded(cl->x->s);
	GPA_Status st = og_vk_list_begin(cl->x->ctx->api, fn, cl->api_list, secondary(cl), &cl->vk);
	return st == GPA_STATUS_OK ? OT_OK : OT_FAILED;
}

int ot_vk_list_end(const char *fn, struct og_cmdlist *cl)
{
	return og_vk_list_end(cl->x->ctx->api, fn, cl->vk) == GPA_STATUS_OK ? OT_OK : OT_FAILED;
}

/* The core's bookkeeping for sample `id` in the list's pass, and its timing:
 * begun and ended at once (og_sample_record), the queries recorded here. */
static int core_sample(const char *fn, struct og_cmdlist *cl, uint32_t id, uint32_t *token)
{
	struct og_xsession *x = cl->x;
	switch (og_sample_record(x->ctx, x->s, cl->pass, id, token)) {
	case OG_RECORD_OK:
		return OT_OK;
	case OG_RECORD_DUPLICATE:
		return ot_error(OT_FAILED, "%s(%u): this sample ID was used in pass %u already; IDs "
		                           "are unique within a pass", fn, id, cl->pass);
	default:
		return ot_error(OT_FAILED, "%s(%u): the sample could not be begun (the earlier "
		                           "message says why)", fn, id);
	}
}

int ot_vk_begin_sample(const char *fn, uint32_t id, struct og_cmdlist *cl)
{
	uint32_t open, token;
	if (!cl->recording)
		return ot_error(OT_FAILED, "%s(%u): the command list has ended; begin samples on a "
		                           "recording one", fn, id);
	if (og_vk_list_open(cl->vk, &open))
		return ot_error(OT_FAILED, "%s(%u): sample %u is open on this command list; samples "
		                           "cannot nest, end it first", fn, id, open);
	int st = core_sample(fn, cl, id, &token);
	if (st == OT_OK && (og_vk_sample_begin(cl->x->ctx->api, fn, cl->vk, id, token) !=
	                    GPA_STATUS_OK ||
	                    (cl->x->vkdev && /* device counters */
	                     og_vk_dev_sample(cl, fn, id, secondary(cl)) != GPA_STATUS_OK)))
		st = OT_FAILED;
	return st;
}

int ot_vk_end_sample(const char *fn, struct og_cmdlist *cl)
{
	uint32_t open;
	if (!cl->recording || !og_vk_list_open(cl->vk, &open))
		return ot_error(OT_FAILED, "%s: no sample is open on this command list", fn);
	if (cl->x->vkdev)
		og_vk_dev_sample_end(cl, open);
	return og_vk_sample_end(cl->x->ctx->api, fn, cl->vk) == GPA_STATUS_OK ? OT_OK : OT_FAILED;
}

int ot_vk_continue_sample(const char *fn, uint32_t id, struct og_cmdlist *cl)
{
	struct og_xsession *x = cl->x;
	uint32_t open;
	if (!og_session_in_pass(x->s, id, cl->pass))
		return ot_error(OT_SAMPLE_NOT_FOUND, "%s(%u): no sample %u was begun in pass %u; "
		                "continue a sample of the list's own pass", fn, id, id, cl->pass);
	if (!cl->recording || secondary(cl))
		return ot_error(OT_FAILED, "%s(%u): continue samples on a recording primary command "
		                           "list", fn, id);
	if (og_vk_list_open(cl->vk, &open))
		return ot_error(OT_FAILED, "%s(%u): sample %u is open on this command list; end it "
		                           "first", fn, id, open);
	struct og_cmdlist *from = NULL;
	for (struct og_cmdlist *o = x->lists; o; o = o->next)
		if (o != cl && o->vk && o->pass == cl->pass && og_vk_list_dangling(o->vk, &open) &&
		    open == id)
			from = o;
	if (!from)
		return ot_error(OT_FAILED, "%s(%u): sample %u is not left open on another ended "
		                           "command list of pass %u; begin it there, end that list "
		                           "without ending the sample, then continue it here", fn, id,
		                id, cl->pass);
	og_vk_list_continued(from->vk, id);
	uint32_t token = og_session_sample_token(x->s, id);
	return og_vk_sample_begin(x->ctx->api, fn, cl->vk, id, token) == GPA_STATUS_OK &&
	       og_vk_dev_sample(cl, fn, id, false) == GPA_STATUS_OK ? OT_OK : OT_FAILED;
}

int ot_vk_copy_secondary(const char *fn, struct og_cmdlist *sec, struct og_cmdlist *pri,
                         uint32_t n, const uint32_t *new_ids)
{
	struct og_xsession *x = pri->x;
	uint32_t open;
	if (sec->x != x || sec->pass != pri->pass || !secondary(sec) || secondary(pri))
		return ot_error(OT_FAILED, "%s: copy from a secondary to a primary command list of "
		                           "the same session and pass", fn);
	if (sec->recording || og_vk_list_dangling(sec->vk, &open))
		return ot_error(OT_FAILED, "%s: end the secondary command list, with its samples "
		                           "ended, before copying its samples", fn);
	if (!pri->recording || og_vk_list_open(pri->vk, &open))
		return ot_error(OT_FAILED, "%s: the primary command list must be recording, with no "
		                           "sample open", fn);
	if (n != og_vk_list_nsamples(sec->vk))
		return ot_error(OT_FAILED, "%s: the secondary command list has %u samples, not %u",
		                fn, og_vk_list_nsamples(sec->vk), n);
	if (n && !new_ids)
		return ot_null(fn, "the new sample IDs");
	for (uint32_t k = 0; k < n; k++) {
		if (og_session_in_pass(x->s, new_ids[k], pri->pass))
			return ot_error(OT_FAILED, "%s: new sample ID %u is used in pass %u already", fn,
			                new_ids[k], pri->pass);
		for (uint32_t j = 0; j < k; j++)
			if (new_ids[j] == new_ids[k])
				return ot_error(OT_FAILED, "%s: new sample ID %u is given twice", fn,
				                new_ids[k]);
	}
	for (uint32_t k = 0; k < n; k++) {
		uint32_t token;
		int st = core_sample(fn, pri, new_ids[k], &token);
		if (st != OT_OK)
			return st;
		if (og_vk_copy(x->ctx->api, fn, sec->vk, k, pri->vk, new_ids[k], token) != GPA_STATUS_OK ||
		    og_vk_dev_copy(pri, fn, new_ids[k], sec, k) != GPA_STATUS_OK)
			return OT_FAILED;
		og_vk_dev_sample_end(pri, new_ids[k]); /* a copy is whole */
	}
	return OT_OK;
}

int ot_vk_pass_check(const char *fn, const struct og_xsession *x, uint32_t pass)
{
	uint32_t id;
	for (const struct og_cmdlist *cl = x->lists; cl; cl = cl->next)
		if (cl->vk && cl->pass == pass && og_vk_list_dangling(cl->vk, &id))
			return ot_error(OT_SAMPLE_NOT_ENDED,
			                "%s: sample %u of pass %u was left open when its command list "
			                "ended and was not continued; end it (GpaEndSample) or continue "
			                "it (GpaContinueSampleOnCommandList)", fn, id, pass);
	return OT_OK;
}

int ot_vk_result_check(const char *fn, struct og_xsession *x, uint32_t id)
{
	/* One walk over the lists: a secondary holding the sample first, then
	 * whether any list left a sample dangling (the usual frame has one
	 * primary list and neither). */
	bool dangling = false, secondaries = false;
	uint32_t open;
	for (const struct og_cmdlist *cl = x->lists; cl; cl = cl->next) {
		if (!cl->vk)
			continue;
		secondaries = secondaries || secondary(cl);
		if (cl->pass == 0 && secondary(cl) && og_vk_list_has(cl->vk, id))
			return ot_error(OT_SAMPLE_IN_SECONDARY_COMMAND_LIST,
			                "%s: sample %u was recorded in a secondary command list; read "
			                "the copies GpaCopySecondarySamples made of it", fn, id);
		dangling = dangling || og_vk_list_dangling(cl->vk, &open);
	}
	if (dangling) {
		/* The message names the first pass that has one, as GPA's pass check. */
		int st = OT_OK;
		for (uint32_t p = 0; p < og_session_npasses(x->s) && st == OT_OK; p++)
			st = ot_vk_pass_check(fn, x, p);
		if (st != OT_OK)
			return OT_TIMEOUT; /* as GPA: the results of such a pass never come */
	}
	/* Every result in already (a frame's reads after its first): no wait. */
	og_vk_dev_checkpoint(x, fn); /* device counts of the lists that ran */
	if (og_session_results_ready(x->s)) {
		/* The session has ended (ot_running) and its lists can no longer
		 * change: later reads skip this walk, unless a secondary list makes
		 * the answer depend on the sample or device counts may still come. */
		x->results_in = !dangling && !secondaries && !x->vkdev;
		return OT_OK;
	}
	/* As GPA: up to 5 s (OPENGPA_VK_RESULT_WAIT_MS) for every pass's command
	 * buffers to have run, polled every millisecond. */
	uint32_t wait_ms = og_vk_result_wait_ms(x->ctx->api);
	struct timespec nap = { 0, 1000000 };
	for (uint32_t i = 0; i < wait_ms; i++) {
		nanosleep(&nap, NULL);
		og_vk_dev_checkpoint(x, fn);
		if (og_session_results_ready(x->s))
			return OT_OK;
	}
	return ot_error(OT_TIMEOUT, "%s: the session's command buffers have not all run after "
	                            "%u ms: submit every command list of every pass (and wait for "
	                            "it) before reading results, or wait longer "
	                            "(OPENGPA_VK_RESULT_WAIT_MS)", fn, wait_ms);
}

int ot_vk_session_begun(const char *fn, struct og_xsession *x)
{
	bool drain = og_sync_from_env(OG_SYNC_FINISH) == OG_SYNC_FINISH;
	if (!og_vk_dev_wanted(x) || og_vk_dev_start(x, fn, drain) == GPA_STATUS_OK)
		return OT_OK;
	og_xsession_abort(x);
	og_xsession_reset(x);
	return OT_FAILED;
}
