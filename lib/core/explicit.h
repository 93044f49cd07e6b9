/* SPDX-License-Identifier: MIT */
/*
 * explicit.h — the GPA 3.x/4.x model over the core: sessions that are
 * objects of their own (created, given counters, begun, ended, deleted by
 * handle) and command lists that name the pass they record.
 *
 * On the backends here a command list is a marker on the CPU timeline: the
 * first list of a pass to begin programs the device for that pass, the last
 * one to end stops it, and a sample counts what the device did between the
 * BeginSample and EndSample calls (docs/api-gpa3.md).  Only one pass can be
 * on the device at a time, and samples cannot overlap.
 *
 * Bookkeeping only, as in session.c: the front ends (lib/api/gpa3.c,
 * gpa4.c) check the caller's arguments and state in their own order first
 * and read the fields below for that; only these functions change them.
 * Lock held throughout.
 */
#ifndef OPENGPA_CORE_EXPLICIT_H
#define OPENGPA_CORE_EXPLICIT_H

#include "core/core.h"

struct og_cmdlist;

struct og_xsession {
	struct og_context *ctx;
	void *handle;
	struct og_xsession *next; /* the context's sessions */
	uint32_t sample_type;     /* as the front end numbers it */
	struct og_selection sel;  /* this session's counters, enable order */
	struct og_session *s;     /* the core session once begun */
	bool running;             /* begun, not yet ended successfully */
	struct og_cmdlist *lists; /* every command list it made, newest first */
	uint32_t recording;       /* how many of them are recording */
	struct og_cmdlist *sampling; /* the list whose sample is open, or NULL */
	struct og_vk_dev *vkdev;  /* Vulkan with device counters (apictx/vk_dev.c) */
	/* Vulkan: a read found every result in, no list left a sample open and
	 * none is secondary: GpaGetSampleResult's checks of the lists hold until
	 * the session is begun again or reset (ot_vk_result_check). */
	bool results_in;
};

struct og_cmdlist {
	struct og_xsession *x;
	void *handle;
	struct og_cmdlist *next;
	void *api_list;   /* the client's command buffer: a key, never dereferenced */
	uint32_t type;    /* as the front end numbers it */
	uint32_t pass;
	bool recording;
	struct og_vk_list *vk; /* Vulkan: its queries (lib/apictx/vk.h); else NULL */
};

/* A new session of `ctx` with a handle; FAILED (logged) without memory. */
GPA_Status og_xsession_create(struct og_context *ctx, uint32_t sample_type,
                              struct og_xsession **out);
/* Ends it if it runs (what it counted is dropped), then frees it, its
 * command lists and their handles. */
void og_xsession_delete(struct og_xsession *x);
/* Counters enabled, not running, not begun before. */
GPA_Status og_xsession_begin(struct og_xsession *x);
/* Running, no list recording, no sample open: complete. */
void og_xsession_end(struct og_xsession *x);
/* Running: closes the open sample and lists, then ends it whatever is missing. */
void og_xsession_abort(struct og_xsession *x);
/* Not running: back to before BeginSession, counters kept. */
void og_xsession_reset(struct og_xsession *x);

/* Running; pass < the session's passes; no list of another pass recording. */
GPA_Status og_cmdlist_begin(struct og_xsession *x, uint32_t pass, void *api_list, uint32_t type,
                            struct og_cmdlist **out);
/* Recording: closes its open sample, and the pass when it was the last. */
GPA_Status og_cmdlist_end(struct og_cmdlist *cl);
/* Recording, no sample open anywhere in the session, `id` new in the pass. */
GPA_Status og_cmdlist_sample_begin(struct og_cmdlist *cl, uint32_t id);
/* This list has the open sample. */
GPA_Status og_cmdlist_sample_end(struct og_cmdlist *cl);

/* Another pass's list is recording, so `pass` cannot begin now. */
bool og_xsession_other_pass_recording(const struct og_xsession *x, uint32_t pass);
/* A list of `pass` is recording. */
bool og_xsession_pass_recording(const struct og_xsession *x, uint32_t pass);

/* Every session of the context (og_context_close). */
void og_xsession_delete_all(struct og_context *ctx);

#endif
