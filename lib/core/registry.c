/* SPDX-License-Identifier: MIT */
/* registry.c — the registry instance and its lock. */
#include "core/registry.h"

struct og_registry og_registry_instance = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.changed = PTHREAD_COND_INITIALIZER,
	.next_serial = 1,
	.log_wants = { OG_LOG_WANTS_UNREAD, OG_LOG_WANTS_UNREAD },
	.settings = { .hardware_counters = -1, .instance_counters = -1 },
	.datafile = OG_DATAFILE_INIT,
};

_Static_assert(OG_FRONT_COUNT == 2, "log_wants above starts unread for every front");

struct og_settings *og_settings(void)
{
	return &og_registry_instance.settings;
}

/* Every 2.x call: the lock itself, not a call that takes it. */
void og_lock(void)
{
	pthread_mutex_lock(&og_registry_instance.lock);
	og_registry_instance.front = OG_FRONT_GPA2;
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
