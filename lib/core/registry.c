/* SPDX-License-Identifier: MIT */
/* registry.c — the registry instance and its lock. */
#include "core/registry.h"

static struct og_registry registry = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.changed = PTHREAD_COND_INITIALIZER,
	.next_serial = 1,
	.settings = { .hardware_counters = -1 },
};

struct og_registry *og_registry(void)
{
	return &registry;
}

struct og_settings *og_settings(void)
{
	return &registry.settings;
}

void og_lock(void)
{
	og_lock_as(OG_FRONT_GPA2);
}

void og_lock_as(enum og_front front)
{
	pthread_mutex_lock(&registry.lock);
	registry.front = front;
}

void og_session_notify(void)
{
	pthread_cond_broadcast(&registry.changed);
}
