/* SPDX-License-Identifier: MIT */
/* testing.c — the hooks of core/testing.h. */
#include <stdlib.h>

#include "core/readers.h"
#include "core/registry.h"
#include "core/session_internal.h"
#include "core/testing.h"

void og_testing_set_sys(const struct og_sys *sys)
{
	og_lock();
	og_settings()->sys = sys;
	og_unlock();
}

void og_testing_set_backend(const struct og_backend_ops *ops)
{
	og_lock();
	og_settings()->test_backend = ops;
	og_unlock();
}

void og_testing_reset(void)
{
	og_lock();
	/* Whatever a test left open, of either front end. */
	struct og_registry *r = og_registry();
	while (r->contexts)
		og_context_close(r->contexts);
	og_catalog_cache_trim(&r->catalogs);
	for (int f = 0; f < OG_FRONT_COUNT; f++)
		r->callback[f] = (struct og_log_callback){ 0 };
	r->debug_callback = NULL;
	r->debug_mask = 0;
	og_log_changed();
	r->table_initialized = false;
	struct og_settings *set = og_settings();
	free(set->backend);
	free(set->backend_options);
	free(set->api);
	for (size_t i = 0; i < set->ncounter_files; i++)
		free(set->counter_files[i]);
	free(set->counter_files);
	*set = (struct og_settings){ .hardware_counters = -1, .instance_counters = -1 };
	og_unlock();
}

GPA_Status og_testing_sample_raws(uint32_t id, uint32_t sample, uint64_t *by_backend_id, size_t n)
{
	og_lock();
	struct og_context *ctx = og_context_current();
	struct og_session *s = ctx ? og_session_find(ctx, id) : NULL;
	GPA_Status st = s ? og_session_sample_raws(ctx, s, sample, by_backend_id, n)
	                  : GPA_STATUS_ERROR_SESSION_NOT_FOUND;
	og_unlock();
	return st;
}

size_t og_testing_session_raw_count(uint32_t id)
{
	og_lock();
	struct og_context *ctx = og_context_current();
	struct og_session *s = ctx ? og_session_find(ctx, id) : NULL;
	size_t n = s ? og_session_raw_count(s) : 0;
	og_unlock();
	return n;
}

GPA_Status og_testing_session_read_kinds(uint32_t id, size_t out[4])
{
	og_lock();
	struct og_context *ctx = og_context_current();
	struct og_session *s = ctx ? og_session_find(ctx, id) : NULL;
	if (s)
		og_session_read_kinds(s, &out[0], &out[1], &out[2], &out[3]);
	og_unlock();
	return s ? GPA_STATUS_OK : GPA_STATUS_ERROR_SESSION_NOT_FOUND;
}

GPA_Status og_testing_session_single_kinds(uint32_t id, size_t out[6])
{
	og_lock();
	struct og_context *ctx = og_context_current();
	struct og_session *s = ctx ? og_session_find(ctx, id) : NULL;
	if (s)
		og_session_single_kinds(s, out);
	og_unlock();
	return s ? GPA_STATUS_OK : GPA_STATUS_ERROR_SESSION_NOT_FOUND;
}

void og_testing_set_fill_hook(void (*hook)(void))
{
	og_lock();
	__atomic_store_n(&og_settings()->fill_hook, hook, __ATOMIC_RELAXED);
	og_unlock();
}

bool og_testing_reads_unlocked(void)
{
	return og_this_reader != &og_no_reader && !__atomic_load_n(&og_read_locked, __ATOMIC_RELAXED);
}
