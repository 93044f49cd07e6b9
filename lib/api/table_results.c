/* SPDX-License-Identifier: MIT */
/*
 * table_results.c — a GPA 3.x/4.x session's results (table.h): sample ids,
 * completeness of passes and sessions, GpaGetSampleResult's read.
 */
#include <stdlib.h>
#include <string.h>

#include "api/table.h"
#include "apictx/vk.h"

int ot_running(const char *fn, const struct og_xsession *x)
{
	if (x->running)
		return ot_error(OT_SESSION_NOT_ENDED, "%s: the session is still running; call "
		                                      "GpaEndSession first", fn);
	return OT_OK;
}

int ot_sample_in_pass0(const char *fn, const struct og_xsession *x, uint32_t id)
{
	if (!x->s || !og_session_in_pass(x->s, id, 0))
		return ot_error(OT_SAMPLE_NOT_FOUND, "%s: sample %u is not in the session's first "
		                                     "pass", fn, id);
	return OT_OK;
}

int ot_sample_id(const char *fn, const struct og_xsession *x, uint32_t k, uint32_t *id)
{
	if (!x->s || !og_session_pass0_sample(x->s, k, id))
		return ot_error(OT_SAMPLE_NOT_FOUND, "%s: the session has %u samples; %u is out of "
		                                     "range", fn, ot_sample_count(x), k);
	return OT_OK;
}

uint32_t ot_sample_count(const struct og_xsession *x)
{
	return x->s ? og_session_pass_samples(x->s, 0) : 0;
}

int ot_is_pass_complete(const char *fn, struct og_xsession *x, uint32_t pass)
{
	if (!x->s)
		return ot_error(OT_SESSION_NOT_STARTED, "%s: the session was never begun", fn);
	if (pass >= og_session_npasses(x->s) || (int32_t)pass > og_session_highest_pass(x->s))
		return ot_error(OT_INDEX_OUT_OF_RANGE,
		                "%s: pass %u was not recorded (the session has %zu passes)", fn, pass,
		                og_session_npasses(x->s));
	if (og_xsession_pass_recording(x, pass))
		return ot_error(OT_COMMAND_LIST_NOT_ENDED, "%s: a command list of pass %u is still "
		                                           "recording", fn, pass);
	if (x->sampling && x->sampling->pass == pass)
		return ot_error(OT_SAMPLE_NOT_ENDED, "%s: a sample of pass %u is still open", fn,
		                pass);
	if (ot_vk(x->ctx) && ot_vk_pass_check(fn, x, pass) != OT_OK)
		return OT_SAMPLE_NOT_ENDED;
	if (ot_vk(x->ctx))
		og_vk_dev_checkpoint(x, fn); /* device counts of the lists that ran */
	/* On the CPU timeline a pass's results are in when it ends; the GPU
	 * times of an API context's samples when its queries say so. */
	return og_session_pass_results_ready(x->s, pass) ? OT_OK : OT_RESULT_NOT_READY;
}

int ot_is_session_complete(const char *fn, struct og_xsession *x)
{
	if (!x->s)
		return ot_error(OT_SESSION_NOT_STARTED, "%s: the session was never begun", fn);
	int st = ot_running(fn, x);
	if (st == OT_OK && ot_vk(x->ctx))
		og_vk_dev_checkpoint(x, fn); /* device counts of the lists that ran */
	return st == OT_OK && !og_session_results_ready(x->s) ? OT_RESULT_NOT_READY : st;
}

size_t ot_result_size(const struct og_xsession *x)
{
	return x->sel.nenabled * sizeof(uint64_t);
}

int ot_sample_result(const char *fn, struct og_xsession *x, uint32_t id, size_t size, void *out)
{
	size_t need = ot_result_size(x);
	if (size < need)
		return ot_error(OT_READING_SAMPLE_RESULT,
		                "%s: the buffer has %zu bytes but the %zu enabled counters need %zu "
		                "(GpaGetSampleResultSize)", fn, size, x->sel.nenabled, need);
	if (!x->results_in && ot_vk(x->ctx)) { /* Vulkan: its lists checked once all ran */
		int vst = ot_vk_result_check(fn, x, id);
		if (vst != OT_OK)
			return vst;
	}
	/* The core's batch read gives GPA 3.x's 8-byte values in enable order;
	 * a buffer that is not 8-byte aligned gets them through a copy. */
	union og_value local[64];
	union og_value *values = out;
	bool aligned = (uintptr_t)out % _Alignof(union og_value) == 0;
	if (!aligned)
		values = x->sel.nenabled <= 64 ? local : malloc(need);
	if (!values)
		return ot_error(OT_FAILED, "%s: out of memory", fn);
	GPA_Status st = og_session_read(x->ctx, x->s, id, values);
	if (st == GPA_STATUS_OK)
		ot_view_values(x, values);
	if (!aligned) {
		if (st == GPA_STATUS_OK)
			memcpy(out, values, need);
		if (values != local)
			free(values);
	}
	if (st == GPA_STATUS_OK)
		return OT_OK;
	if (st == GPA_STATUS_ERROR_SAMPLE_NOT_FOUND)
		return OT_READING_SAMPLE_RESULT; /* a pass lacks it: only after GpaAbortSession */
	return ot_from_core(st);
}
