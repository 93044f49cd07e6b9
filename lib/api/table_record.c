/* SPDX-License-Identifier: MIT */
/*
 * table_record.c — recording for GPA 3.x/4.x (table.h): command lists,
 * samples, and the secondary-list entries (Vulkan's go to apictx/vk_gpa.c).
 */
#include "api/table.h"
#include "apictx/apictx.h"
#include "apictx/vk.h"

int ot_begin_command_list(const char *fn, struct og_xsession *x, uint32_t pass, void *list,
                          uint32_t type, void **handle)
{
	if (!x->running)
		return ot_error(OT_SESSION_NOT_STARTED,
		                "%s: the session is not running; call GpaBeginSession first", fn);
	if (type >= OT_COMMAND_LIST_LAST)
		return ot_error(OT_INVALID_PARAMETER, "%s: %u is not a command list type", fn, type);
	/* Any API: no list with kGpaCommandListNone (GL, CL, DX11), or a list
	 * (a key only) with Primary or Secondary (Vulkan, DX12). */
	if (type == OT_COMMAND_LIST_NONE && list)
		return ot_error(OT_INVALID_PARAMETER, "%s: a command list with type "
		                                      "kGpaCommandListNone; pass GPA_NULL_COMMAND_LIST, "
		                                      "or the list's own type", fn);
	if (type != OT_COMMAND_LIST_NONE && !list)
		return ot_null(fn, "the command list (a primary or secondary list needs one)");
	if (!handle)
		return ot_null(fn, "the command list ID pointer");
	struct og_cmdlist *old = og_handle_get(OG_HANDLE_COMMAND_LIST, *handle);
	if (old && old->recording)
		return ot_error(OT_COMMAND_LIST_ALREADY_STARTED,
		                "%s: the ID passed in names a command list that is still recording; "
		                "end it first", fn);
	size_t npasses = og_session_npasses(x->s);
	if (pass >= npasses)
		return ot_error(OT_FAILED, "%s: pass %u is beyond the session's %zu passes "
		                           "(GpaGetPassCount)", fn, pass, npasses);
	if (og_xsession_other_pass_recording(x, pass))
		return ot_error(OT_FAILED,
		                "%s: a command list of another pass is still recording; on this "
		                "device passes are counted one after the other (docs/api-gpa3.md)",
		                fn);
	struct og_cmdlist *cl;
	if (ot_vk(x->ctx) && og_vk_dev_list_begin(x, fn, pass, type != OG_VK_SECONDARY) !=
	    GPA_STATUS_OK)
		return OT_FAILED;
	GPA_Status st = og_cmdlist_begin(x, pass, list, type, &cl);
	if (st != GPA_STATUS_OK)
		return OT_FAILED; /* the backend said why */
	if (ot_vk(x->ctx) && (ot_vk_list_begin(fn, cl) != OT_OK ||
	                      og_vk_dev_list_begun(cl, fn) != GPA_STATUS_OK)) {
		og_cmdlist_end(cl);
		return OT_FAILED;
	}
	*handle = cl->handle;
	return OT_OK;
}

int ot_end_command_list(const char *fn, struct og_cmdlist *cl)
{
	if (!cl->recording)
		return ot_error(OT_COMMAND_LIST_ALREADY_ENDED, "%s: the command list was ended "
		                                               "already", fn);
	int vst = cl->vk ? ot_vk_list_end(fn, cl) : OT_OK;
	return og_cmdlist_end(cl) == GPA_STATUS_OK ? vst : OT_FAILED;
}

int ot_begin_sample(const char *fn, uint32_t id, struct og_cmdlist *cl)
{
	struct og_xsession *x = cl->x;
	if (cl->vk)
		return ot_vk_begin_sample(fn, id, cl);
	if (!cl->recording)
		return ot_error(OT_FAILED, "%s(%u): the command list has ended; begin samples on a "
		                           "recording one", fn, id);
	if (x->sampling == cl)
		return ot_error(OT_FAILED, "%s(%u): a sample is open on this command list; samples "
		                           "cannot nest, end it first", fn, id);
	if (x->sampling)
		return ot_error(OT_FAILED, "%s(%u): a sample is open on another command list; on "
		                           "this device samples are intervals of time and cannot "
		                           "overlap", fn, id);
	if (og_session_in_pass(x->s, id, cl->pass))
		return ot_error(OT_FAILED, "%s(%u): this sample ID was used in pass %u already; IDs "
		                           "are unique within a pass", fn, id, cl->pass);
	return og_cmdlist_sample_begin(cl, id) == GPA_STATUS_OK ? OT_OK : OT_FAILED;
}

int ot_end_sample(const char *fn, struct og_cmdlist *cl)
{
	if (cl->vk)
		return ot_vk_end_sample(fn, cl);
	if (!cl->recording || cl->x->sampling != cl)
		return ot_error(OT_FAILED, "%s: no sample is open on this command list", fn);
	return og_cmdlist_sample_end(cl) == GPA_STATUS_OK ? OT_OK : OT_FAILED;
}

int ot_secondary_lists(const char *fn)
{
	return ot_error(OT_API_NOT_SUPPORTED,
	                "%s: samples across command lists are not supported here: command lists "
	                "are markers on the CPU timeline (docs/api-gpa3.md)", fn);
}

int ot_continue_sample(const char *fn, uint32_t id, const void *primary)
{
	bool explicit_;
	const char *why;
	if (og_api_wanted(&explicit_, &why) != OG_API_VK)
		return ot_secondary_lists(fn);
	struct og_cmdlist *cl;
	int st = ot_command_list(fn, primary, &cl);
	return st == OT_OK ? ot_vk_continue_sample(fn, id, cl) : st;
}

int ot_copy_secondary(const char *fn, const void *secondary, const void *primary, uint32_t n,
                      const uint32_t *new_ids)
{
	bool explicit_;
	const char *why;
	if (og_api_wanted(&explicit_, &why) != OG_API_VK)
		return ot_secondary_lists(fn);
	struct og_cmdlist *sec, *pri;
	int st = ot_command_list(fn, secondary, &sec);
	if (st == OT_OK)
		st = ot_command_list(fn, primary, &pri);
	return st == OT_OK ? ot_vk_copy_secondary(fn, sec, pri, n, new_ids) : st;
}
