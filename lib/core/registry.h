/* SPDX-License-Identifier: MIT */
/*
 * registry.h — the one piece of global mutable state in opengpa: the list
 * of open contexts, the current one, logging and the settings for the next
 * context, all behind one mutex.  Only the core's own files include this.
 */
#ifndef OPENGPA_CORE_REGISTRY_H
#define OPENGPA_CORE_REGISTRY_H

#include "core/core.h"

#define OG_LOG_QUEUE 32
#define OG_LOG_LINE 512

struct og_registry {
	pthread_mutex_t lock;
	pthread_cond_t changed; /* a session ended or a context closed */

	struct og_context *contexts;
	struct og_context *current;
	uint64_t next_serial;

	GPA_LoggingCallbackPtrType callback;
	unsigned callback_mask;
	unsigned stderr_mask;
	bool stderr_mask_read;
	struct {
		enum og_log_level level;
		char text[OG_LOG_LINE];
	} queue[OG_LOG_QUEUE];
	unsigned queued, dropped;

	struct og_settings settings;
};

/* Lock held. */
struct og_registry *og_registry(void);

#endif
