/* SPDX-License-Identifier: MIT */
/* testing.c — the hooks of core/testing.h. */
#include <stdlib.h>

#include "core/registry.h"
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
	for (int f = 0; f < OG_FRONT_COUNT; f++)
		r->callback[f] = (struct og_log_callback){ 0 };
	r->debug_callback = NULL;
	r->debug_mask = 0;
	r->table_initialized = false;
	struct og_settings *set = og_settings();
	free(set->backend);
	free(set->backend_options);
	free(set->api);
	for (size_t i = 0; i < set->ncounter_files; i++)
		free(set->counter_files[i]);
	free(set->counter_files);
	*set = (struct og_settings){ .hardware_counters = -1 };
	og_unlock();
}
