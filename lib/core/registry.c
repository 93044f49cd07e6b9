/* SPDX-License-Identifier: MIT */
/* registry.c — the registry instance and its lock. */
#include "core/registry.h"

struct og_registry og_registry_instance = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.changed = PTHREAD_COND_INITIALIZER,
	.next_serial = 1,
	.settings = { .hardware_counters = -1, .instance_counters = -1 },
	.datafile = OG_DATAFILE_INIT,
};

struct og_settings *og_settings(void)
{
	return &og_registry_instance.settings;
}

void og_lock(void)
{
	og_lock_as(OG_FRONT_GPA2);
}

void og_lock_as(enum og_front front)
{
	pthread_mutex_lock(&og_registry_instance.lock);
	og_registry_instance.front = front;
}

void og_session_notify(void)
{
	pthread_cond_broadcast(&og_registry_instance.changed);
}
