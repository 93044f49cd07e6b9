/* SPDX-License-Identifier: MIT */
/*
 * vk_dev.c — device counters (Mali, perf, MIPS: whatever the context's
 * backend counts) per Vulkan sample (docs/api.md, "Device counters on
 * Vulkan").
 *
 * The GPU runs a command buffer after it was recorded, and the library sees
 * neither the submission nor the GPU's progress: only its GPA calls.  So
 * the backend's snapshots are taken at GPA calls, with the device drained
 * first (vkDeviceWaitIdle): a "checkpoint".  Between two checkpoints the
 * backend counted exactly the work that ran between them; the primary
 * command lists whose event (recorded at GpaEndCommandList) was set in that
 * interval are the ones that ran in it.  When exactly one did, the
 * interval's counts are that list's: exact.  When several did, they cannot
 * be told apart, and their samples fail with a message that says how to
 * submit.  A list's counts go to the samples on it: all of them to a lone
 * sample; when several samples sit on one list, each raw counter's delta is
 * split in proportion to the samples' GPU times on that list (their two
 * timestamps, which every sample of a device-counted list gets:
 * og_vk_list_stamp), largest remainder, so the shares add up to the list's
 * counts exactly.  An estimate: no snapshot can be taken between two
 * commands of one command buffer, and it assumes counts proportional to GPU
 * time within the list.  Without usable times (no timestamps on the device,
 * a query not available, all zero) the shares are equal, with a message.  A
 * sample continued across lists sums its lists' shares; a copy of a
 * secondary's sample is weighted by the secondary's queries.
 *
 * Unsynchronised (OPENGPA_SYNC=off or flush), a checkpoint does not drain:
 * a list whose event is set has completed, so its counts are all in the
 * interval, but so is whatever part of later submissions the GPU had run by
 * the snapshot; nothing stalls.
 *
 * Checkpoints: GpaBeginCommandList of a primary, GpaIsPassComplete,
 * GpaIsSessionComplete, and GpaGetSampleResult's wait.  The core session
 * defers the pass's counts (og_session_defer_device) and keeps the
 * backend's pass open after its last list ended, until every list of it
 * has been counted (or the session is deleted).
 *
 * Lock held throughout.
 */
#include <stdlib.h>
#include <string.h>

#include "apictx/vk.h"
#include "core/explicit.h"
#include "core/registry.h"

/* A sample on a list, and where its timestamps are: the list itself, or
 * (a copy) the secondary it was recorded in, under its original id. */
struct dev_entry {
	uint32_t id, from_id;
	uint32_t from_k; /* from_id's place in og_vk_list_samples(from) */
	uint32_t sample; /* its dev_sample: og_vk_dev.samples[sample] */
	struct og_cmdlist *from;
};

struct dev_list {
	struct og_cmdlist *cl;
	uint32_t pass;
	struct dev_entry *ids; /* samples on it, each once */
	uint32_t n, cap;
	bool done;     /* counted (or failed) */
	bool stamped;  /* its samples have timestamps (og_vk_list_stamp) */
};

struct dev_sample {
	uint32_t id, pass;
	uint32_t lists_left; /* lists it is on not yet counted */
	bool ended;          /* GpaEndSample: no list will be added */
	bool delivered;      /* to the core session */
	bool failed;
	uint64_t *sum; /* the pass's device deltas, summed over its lists */
};

struct og_vk_dev {
	struct og_xsession *x;
	bool drain;    /* synchronised: vkDeviceWaitIdle before each snapshot */
	bool held;     /* the backend's pass is open for the command lists */
	bool bracket;  /* begin_sample taken: the backend counts since the last checkpoint */
	uint32_t pass; /* the held pass */
	struct dev_list *lists;
	uint32_t nlists, cap_lists;
	struct dev_sample *samples;
	uint32_t nsamples, cap_samples;
	uint64_t *deltas; /* one pass's, the widest */
	size_t width;
	uint64_t *weights, *shares; /* count_list's, per sample of a list */
	uint32_t cap_weights;
	bool told; /* the equal-shares message was logged (once a session) */
};

static struct og_context *ctx_of(const struct og_vk_dev *d)
{
	return d->x->ctx;
}

bool og_vk_dev_wanted(const struct og_xsession *x)
{
	for (uint32_t p = 0; p < og_session_npasses(x->s); p++)
		if (og_session_pass_device_count(x->s, p))
			return true;
	return false;
}

static struct dev_sample *find_sample(struct og_vk_dev *d, uint32_t id, uint32_t pass)
{
	for (uint32_t i = d->nsamples; i-- > 0;)
		if (d->samples[i].id == id && d->samples[i].pass == pass)
			return &d->samples[i];
	return NULL;
}

static struct dev_list *find_list(struct og_vk_dev *d, const struct og_cmdlist *cl)
{
	for (uint32_t i = d->nlists; i-- > 0;)
		if (d->lists[i].cl == cl)
			return &d->lists[i];
	return NULL;
}

/* Sample `s` has its last list counted: to the core session. */
static void deliver(struct og_vk_dev *d, struct dev_sample *s)
{
	s->delivered = true;
	og_session_deliver(d->x->s, s->id, s->pass, s->failed ? NULL : s->sum);
	free(s->sum);
	s->sum = NULL;
}

/* Each sample's GPU time on list l (ticks) into d->weights, for its share;
 * all 0 (equal shares, logged once a session) where one is missing.  False:
 * out of memory. */
static bool list_weights(struct og_vk_dev *d, struct dev_list *l)
{
	if (l->n > d->cap_weights) {
		uint32_t cap = l->n > 2 * d->cap_weights ? l->n : 2 * d->cap_weights;
		uint64_t *w = realloc(d->weights, cap * sizeof(*w));
		if (w)
			d->weights = w;
		uint64_t *sh = w ? realloc(d->shares, cap * sizeof(*sh)) : NULL;
		if (sh)
			d->shares = sh;
		if (!w || !sh)
			return false; /* count_list fails the list: out of memory */
		d->cap_weights = cap;
	}
	const char *why = l->stamped ? NULL : "this device writes no timestamps";
	struct og_apictx *api = ctx_of(d)->api;
	uint64_t any = 0;
	for (uint32_t k = 0; k < l->n && !why; k++) {
		struct dev_entry *e = &l->ids[k];
		if (!e->from->vk || og_vk_list_ticks(api, e->from->vk, e->from_k, e->from_id,
		                                     l->cl->vk, &d->weights[k]) != OG_API_DONE)
			why = "a sample's timestamps could not be read";
		else
			any |= d->weights[k];
	}
	if (!why && !any)
		why = "every sample's GPU time on it is 0";
	if (why) {
		for (uint32_t k = 0; k < l->n; k++)
			d->weights[k] = 0; /* og_vk_apportion: equal */
		if (!d->told)
			og_log(OG_LOG_MESSAGE, "Vulkan device counters: a command list's %u samples share "
			       "its counts equally, not by GPU time: %s (docs/api.md, \"Device counters "
			       "on Vulkan\"); logged once a session", l->n, why);
		d->told = true;
	}
	return true;
}

/* List l's counts (NULL: it failed) to its samples. */
static void count_list(struct og_vk_dev *d, struct dev_list *l, const uint64_t *deltas)
{
	size_t w = og_session_pass_device_count(d->x->s, l->pass);
	l->done = true;
	if (deltas && l->n > 1 && !list_weights(d, l)) {
		og_log(OG_LOG_ERROR, "Vulkan device counters: out of memory sharing a command list's "
		       "counts among its %u samples; they have no device counters", l->n);
		deltas = NULL;
	}
	for (size_t i = 0; deltas && l->n > 1 && i < w; i++) {
		og_vk_apportion(deltas[i], d->weights, l->n, d->shares);
		for (uint32_t k = 0; k < l->n; k++) {
			struct dev_sample *s = &d->samples[l->ids[k].sample];
			uint64_t share = d->shares[k];
			if (s->lists_left && !s->failed)
				s->sum[i] = s->sum[i] > UINT64_MAX - share ? UINT64_MAX : s->sum[i] + share;
		}
	}
	for (uint32_t k = 0; k < l->n; k++) {
		struct dev_sample *s = &d->samples[l->ids[k].sample];
		if (!s->lists_left)
			continue;
		if (!deltas)
			s->failed = true;
		for (size_t i = 0; deltas && l->n == 1 && !s->failed && i < w; i++)
			s->sum[i] = s->sum[i] > UINT64_MAX - deltas[i] ? UINT64_MAX : s->sum[i] + deltas[i];
		if (--s->lists_left == 0 && s->ended)
			deliver(d, s);
	}
}

/* The backend's pass ends once nothing of it is still to come. */
static GPA_Status release_pass(struct og_vk_dev *d)
{
	struct og_context *ctx = ctx_of(d);
	GPA_Status st = GPA_STATUS_OK;
	if (d->bracket) {
		st = ctx->ops->end_sample(ctx->state, d->deltas);
		d->bracket = false;
	}
	uint32_t open;
	if (d->held && og_session_pass_open(d->x->s, &open)) {
		GPA_Status end = og_pass_end(ctx, d->x->s);
		st = st == GPA_STATUS_OK ? end : st;
	}
	d->held = false;
	return st;
}

static bool pass_settled(const struct og_vk_dev *d)
{
	for (uint32_t i = 0; i < d->nlists; i++)
		if (!d->lists[i].done && d->lists[i].pass == d->pass)
			return false;
	return true;
}

/* Whether a list not yet counted has run (or failed) by now: without one, a
 * checkpoint has nothing to attribute and neither drains nor snapshots. */
static bool any_ran(struct og_vk_dev *d)
{
	struct og_apictx *api = ctx_of(d)->api;
	for (uint32_t i = 0; i < d->nlists; i++) {
		struct dev_list *l = &d->lists[i];
		if (!l->done && !l->cl->recording && l->cl->vk &&
		    og_vk_list_ran(api, l->cl->vk) != OG_API_PENDING)
			return true;
	}
	return false;
}

GPA_Status og_vk_dev_checkpoint(struct og_xsession *x, const char *fn)
{
	struct og_vk_dev *d = x->vkdev;
	if (!d || !d->held)
		return GPA_STATUS_OK;
	if (!any_ran(d))
		return !x->recording && pass_settled(d) ? release_pass(d) : GPA_STATUS_OK;
	struct og_context *ctx = ctx_of(d);
	GPA_Status st = GPA_STATUS_OK;
	const uint64_t *counts = NULL; /* a pass without device raws has none */
	if (d->bracket) {
		if (d->drain)
			st = og_vk_drain(ctx->api, fn);
		GPA_Status snap = ctx->ops->end_sample(ctx->state, d->deltas);
		d->bracket = false;
		if (st == GPA_STATUS_OK)
			st = snap;
		counts = st == GPA_STATUS_OK ? d->deltas : NULL;
	}
	/* Which lists ran since the last checkpoint. */
	uint32_t ran = 0;
	struct dev_list *one = NULL;
	for (uint32_t i = 0; i < d->nlists; i++) {
		struct dev_list *l = &d->lists[i];
		if (l->done || l->cl->recording || !l->cl->vk)
			continue;
		enum og_api_read r = og_vk_list_ran(ctx->api, l->cl->vk);
		if (r == OG_API_DONE) {
			ran++;
			one = l;
		} else if (r == OG_API_FAILED) {
			count_list(d, l, NULL); /* logged by og_vk_list_ran */
		}
	}
	if (ran == 1) {
		count_list(d, one, counts);
	} else if (ran > 1) {
		og_log(OG_LOG_ERROR, "%s: %u command lists ran between two GPA calls, so the "
		       "device's counts cannot be told apart between them and their samples have "
		       "no device counters; submit each command list and wait for it (a fence, "
		       "vkQueueWaitIdle) before the next GPA call, as one frame per pass does "
		       "(docs/api.md, \"Device counters on Vulkan\")", fn, ran);
		for (uint32_t i = 0; i < d->nlists; i++) {
			struct dev_list *l = &d->lists[i];
			if (!l->done && !l->cl->recording && l->cl->vk &&
			    og_vk_list_ran(ctx->api, l->cl->vk) == OG_API_DONE)
				count_list(d, l, NULL);
		}
	}
	if (!x->recording && pass_settled(d)) {
		GPA_Status rel = release_pass(d);
		return st == GPA_STATUS_OK ? rel : st;
	}
	if (og_session_pass_device_count(x->s, d->pass)) {
		GPA_Status b = ctx->ops->begin_sample(ctx->state);
		d->bracket = b == GPA_STATUS_OK;
		st = st == GPA_STATUS_OK ? b : st;
	}
	return st;
}

GPA_Status og_vk_dev_start(struct og_xsession *x, const char *fn, bool drain)
{
	struct og_context *ctx = x->ctx;
	/* An ended session of this context may still hold the device for its
	 * last lists: they are counted now, or given up. */
	for (struct og_xsession *o = ctx->xsessions; o; o = o->next)
		if (o != x && o->vkdev) {
			og_vk_dev_checkpoint(o, fn);
			if (o->vkdev->held) {
				og_log(OG_LOG_ERROR, "%s: an earlier session's command lists have not run "
				       "yet; their samples have no device counters (submit them and wait "
				       "before beginning another session)", fn);
				og_vk_dev_free(o);
			}
		}
	struct og_vk_dev *d = calloc(1, sizeof(*d));
	size_t w = 0;
	for (uint32_t p = 0; p < og_session_npasses(x->s); p++) {
		size_t n = og_session_pass_device_count(x->s, p);
		w = n > w ? n : w;
	}
	if (!d || !(d->deltas = calloc(w ? w : 1, sizeof(uint64_t)))) {
		free(d);
		return og_error(GPA_STATUS_ERROR_FAILED, "%s: out of memory", fn);
	}
	d->x = x;
	d->width = w;
	d->drain = drain;
	og_session_defer_device(x->s);
	x->vkdev = d;
	return GPA_STATUS_OK;
}

void og_vk_dev_free(struct og_xsession *x)
{
	struct og_vk_dev *d = x->vkdev;
	if (!d)
		return;
	/* What is still owed fails: the session goes, or gives the device up. */
	for (uint32_t i = 0; i < d->nlists; i++)
		if (!d->lists[i].done)
			count_list(d, &d->lists[i], NULL);
	for (uint32_t i = 0; i < d->nsamples; i++) {
		if (!d->samples[i].delivered) {
			d->samples[i].failed = true;
			deliver(d, &d->samples[i]);
		}
		free(d->samples[i].sum);
	}
	release_pass(d);
	for (uint32_t i = 0; i < d->nlists; i++)
		free(d->lists[i].ids);
	free(d->lists);
	free(d->samples);
	free(d->deltas);
	free(d->weights);
	free(d->shares);
	free(d);
	x->vkdev = NULL;
}

GPA_Status og_vk_dev_list_begin(struct og_xsession *x, const char *fn, uint32_t pass,
                                bool primary)
{
	struct og_vk_dev *d = x->vkdev;
	if (!d)
		return GPA_STATUS_OK;
	if (primary)
		og_vk_dev_checkpoint(x, fn);
	if (d->held && d->pass != pass) {
		if (!pass_settled(d))
			return og_error(GPA_STATUS_ERROR_FAILED,
			                "%s: pass %u's command lists have not all run yet, and with "
			                "device counters on Vulkan one pass is on the device at a time; "
			                "submit pass %u's lists and wait for them before recording pass "
			                "%u", fn, d->pass, d->pass, pass);
		release_pass(d);
	}
	return GPA_STATUS_OK;
}

/* After og_cmdlist_begin: the pass is on the device, the bracket runs. */
GPA_Status og_vk_dev_list_begun(struct og_cmdlist *cl, const char *fn)
{
	struct og_vk_dev *d = cl->x->vkdev;
	if (!d)
		return GPA_STATUS_OK;
	struct og_context *ctx = ctx_of(d);
	if (d->nlists == d->cap_lists) {
		uint32_t cap = d->cap_lists ? 2 * d->cap_lists : 8;
		void *p = realloc(d->lists, cap * sizeof(*d->lists));
		if (!p)
			return og_error(GPA_STATUS_ERROR_FAILED, "%s: out of memory", fn);
		d->lists = p;
		d->cap_lists = cap;
	}
	if (cl->type != OG_VK_SECONDARY) { /* a secondary runs inside its primary */
		bool counted = og_session_pass_device_count(cl->x->s, cl->pass) != 0;
		d->lists[d->nlists++] = (struct dev_list){
			.cl = cl, .pass = cl->pass,
			/* Its samples' GPU times weigh their shares of its counts. */
			.stamped = counted && og_vk_list_stamp(ctx->api, cl->vk),
		};
	}
	d->held = true;
	d->pass = cl->pass;
	if (!d->bracket && og_session_pass_device_count(cl->x->s, cl->pass)) {
		GPA_Status st = ctx->ops->begin_sample(ctx->state);
		if (st != GPA_STATUS_OK)
			return st;
		d->bracket = true;
	}
	return GPA_STATUS_OK;
}

void og_vk_dev_sample_end(struct og_cmdlist *cl, uint32_t id)
{
	struct og_vk_dev *d = cl->x->vkdev;
	struct dev_sample *s = d ? find_sample(d, id, cl->pass) : NULL;
	if (!s || s->ended)
		return;
	s->ended = true;
	if (!s->lists_left)
		deliver(d, s);
}

/* Sample `id` is on primary list cl, its timestamps those of from_id on `from`. */
static GPA_Status add_sample(struct og_cmdlist *cl, const char *fn, uint32_t id,
                             struct og_cmdlist *from, uint32_t from_id, uint32_t from_k)
{
	struct og_vk_dev *d = cl->x->vkdev;
	size_t w = og_session_pass_device_count(cl->x->s, cl->pass);
	struct dev_list *l = find_list(d, cl);
	if (!l)
		return og_error(GPA_STATUS_ERROR_FAILED, "%s(%u): the command list is unknown "
		                "(internal error)", fn, id);
	/* IDs are unique in a pass and a sample goes on only in another list,
	 * so a sample is on a list once; the last entry is checked all the same
	 * (a loop over the list was quadratic in its samples). */
	if (l->n && l->ids[l->n - 1].id == id)
		return GPA_STATUS_OK;
	struct dev_sample *s = find_sample(d, id, cl->pass);
	if (!s) {
		if (d->nsamples == d->cap_samples) {
			uint32_t cap = d->cap_samples ? 2 * d->cap_samples : 64;
			void *p = realloc(d->samples, cap * sizeof(*d->samples));
			if (!p)
				return og_error(GPA_STATUS_ERROR_FAILED, "%s(%u): out of memory", fn, id);
			d->samples = p;
			d->cap_samples = cap;
		}
		uint64_t *sum = calloc(w, sizeof(uint64_t));
		if (!sum)
			return og_error(GPA_STATUS_ERROR_FAILED, "%s(%u): out of memory", fn, id);
		s = &d->samples[d->nsamples++];
		*s = (struct dev_sample){ .id = id, .pass = cl->pass, .sum = sum };
	}
	if (l->n == l->cap) {
		uint32_t cap = l->cap ? 2 * l->cap : 8;
		void *p = realloc(l->ids, cap * sizeof(*l->ids));
		if (!p)
			return og_error(GPA_STATUS_ERROR_FAILED, "%s(%u): out of memory", fn, id);
		l->ids = p;
		l->cap = cap;
	}
	l->ids[l->n++] = (struct dev_entry){ id, from_id, from_k, (uint32_t)(s - d->samples), from };
	s->lists_left++;
	return GPA_STATUS_OK;
}

GPA_Status og_vk_dev_sample(struct og_cmdlist *cl, const char *fn, uint32_t id, bool secondary)
{
	struct og_vk_dev *d = cl->x->vkdev;
	if (!d || !og_session_pass_device_count(cl->x->s, cl->pass))
		return GPA_STATUS_OK;
	if (secondary) /* its copies are counted, not the original */
		return og_session_deliver(cl->x->s, id, cl->pass, NULL);
	/* og_vk_sample_begin has just put it last in the list's samples (when
	 * the list is stamped; else no time is read). */
	return add_sample(cl, fn, id, cl, id, og_vk_list_nsamples(cl->vk) - 1);
}

GPA_Status og_vk_dev_copy(struct og_cmdlist *cl, const char *fn, uint32_t id,
                          struct og_cmdlist *sec, uint32_t k)
{
	struct og_vk_dev *d = cl->x->vkdev;
	if (!d || !og_session_pass_device_count(cl->x->s, cl->pass))
		return GPA_STATUS_OK;
	bool exists;
	uint32_t original = og_vk_list_samples(sec->vk, k, &exists);
	return add_sample(cl, fn, id, sec, original, k);
}

bool og_vk_dev_holds(const struct og_xsession *x, uint32_t pass)
{
	return x->vkdev && x->vkdev->held && x->vkdev->pass == pass;
}
