/* SPDX-License-Identifier: MIT */
/* explicit.c — GPA 3.x/4.x sessions and command lists (explicit.h). */
#include <stdlib.h>

#include "apictx/vk.h"
#include "core/explicit.h"

GPA_Status og_xsession_create(struct og_context *ctx, uint32_t sample_type,
                              struct og_xsession **out)
{
	struct og_xsession *x = calloc(1, sizeof(*x));
	if (!x)
		return og_error(GPA_STATUS_ERROR_FAILED, "creating a session: out of memory");
	if (og_selection_init(&x->sel, ctx) != GPA_STATUS_OK || !(x->handle = og_handle_new(OG_HANDLE_SESSION, x))) {
		og_selection_free(&x->sel);
		free(x);
		return og_error(GPA_STATUS_ERROR_FAILED, "creating a session: out of memory (or of "
		                                         "handles: delete sessions you no longer need)");
	}
	x->ctx = ctx;
	x->sample_type = sample_type;
	x->next = ctx->xsessions;
	ctx->xsessions = x;
	*out = x;
	return GPA_STATUS_OK;
}

static void drop_lists(struct og_xsession *x)
{
	while (x->lists) {
		struct og_cmdlist *cl = x->lists;
		x->lists = cl->next;
		if (cl->vk)
			og_vk_list_put(x->ctx->api, cl->vk);
		og_handle_free(cl->handle);
		free(cl);
	}
	x->recording = 0;
	x->sampling = NULL;
}

void og_xsession_abort(struct og_xsession *x)
{
	struct og_context *ctx = x->ctx;
	if (!x->running)
		return;
	og_vk_dev_free(x);
	if (x->sampling)
		og_sample_end(ctx, x->s);
	x->sampling = NULL;
	if (og_session_pass_open(x->s, NULL))
		og_pass_end(ctx, x->s);
	for (struct og_cmdlist *cl = x->lists; cl; cl = cl->next)
		cl->recording = false;
	x->recording = 0;
	og_session_end(ctx, x->s);
	x->running = false;
}

void og_xsession_reset(struct og_xsession *x)
{
	og_vk_dev_free(x);
	drop_lists(x);
	og_session_free(x->s);
	x->s = NULL;
	x->results_in = false;
}

void og_xsession_delete(struct og_xsession *x)
{
	og_xsession_abort(x);
	og_xsession_reset(x);
	for (struct og_xsession **pp = &x->ctx->xsessions; *pp; pp = &(*pp)->next)
		if (*pp == x) {
			*pp = x->next;
			break;
		}
	og_selection_free(&x->sel);
	og_handle_free(x->handle);
	free(x);
}

void og_xsession_delete_all(struct og_context *ctx)
{
	while (ctx->xsessions)
		og_xsession_delete(ctx->xsessions);
}

GPA_Status og_xsession_begin(struct og_xsession *x)
{
	GPA_Status st = og_session_start(x->ctx, &x->sel, &x->s);
	x->results_in = false;
	if (st == GPA_STATUS_OK)
		x->running = true;
	return st;
}

void og_xsession_end(struct og_xsession *x)
{
	og_session_end(x->ctx, x->s);
	x->running = false;
}

bool og_xsession_other_pass_recording(const struct og_xsession *x, uint32_t pass)
{
	uint32_t open;
	return x->recording && og_session_pass_open(x->s, &open) && open != pass;
}

bool og_xsession_pass_recording(const struct og_xsession *x, uint32_t pass)
{
	for (const struct og_cmdlist *cl = x->lists; cl; cl = cl->next)
		if (cl->recording && cl->pass == pass)
			return true;
	return false;
}

GPA_Status og_cmdlist_begin(struct og_xsession *x, uint32_t pass, void *api_list, uint32_t type,
                            struct og_cmdlist **out)
{
	struct og_cmdlist *cl = calloc(1, sizeof(*cl));
	if (!cl || !(cl->handle = og_handle_new(OG_HANDLE_COMMAND_LIST, cl))) {
		free(cl);
		return og_error(GPA_STATUS_ERROR_FAILED, "beginning a command list: out of memory (or "
		                                         "of handles: delete sessions you no longer "
		                                         "need)");
	}
	/* The first list of the pass puts the pass on the device (unless a
	 * Vulkan session still holds it there for lists yet to run). */
	if (x->recording == 0 && !og_vk_dev_holds(x, pass)) {
		GPA_Status st = og_pass_begin(x->ctx, x->s, pass);
		if (st != GPA_STATUS_OK) {
			og_handle_free(cl->handle);
			free(cl);
			return st;
		}
	}
	cl->x = x;
	cl->api_list = api_list;
	cl->type = type;
	cl->pass = pass;
	cl->recording = true;
	cl->next = x->lists;
	x->lists = cl;
	x->recording++;
	*out = cl;
	return GPA_STATUS_OK;
}

GPA_Status og_cmdlist_end(struct og_cmdlist *cl)
{
	struct og_xsession *x = cl->x;
	GPA_Status st = GPA_STATUS_OK;
	if (x->sampling == cl)
		st = og_cmdlist_sample_end(cl);
	cl->recording = false;
	/* The last list of the pass takes the pass off the device (Vulkan
	 * with device counters: once its lists have run, vk_dev.c). */
	if (--x->recording == 0 && !x->vkdev) {
		GPA_Status end = og_pass_end(x->ctx, x->s);
		if (st == GPA_STATUS_OK)
			st = end;
	}
	return st;
}

GPA_Status og_cmdlist_sample_begin(struct og_cmdlist *cl, uint32_t id)
{
	GPA_Status st = og_sample_begin(cl->x->ctx, cl->x->s, id);
	if (st == GPA_STATUS_OK)
		cl->x->sampling = cl;
	return st;
}

GPA_Status og_cmdlist_sample_end(struct og_cmdlist *cl)
{
	cl->x->sampling = NULL;
	return og_sample_end(cl->x->ctx, cl->x->s);
}
