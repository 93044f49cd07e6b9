/* SPDX-License-Identifier: MIT */
/* session_internal.h — what context.c and session.c share. */
#ifndef OPENGPA_CORE_SESSION_INTERNAL_H
#define OPENGPA_CORE_SESSION_INTERNAL_H

#include "core/core.h"

uint32_t og_session_id(const struct og_session *s);

/* plan.c: packs the enabled counters' raw inputs into passes. */
GPA_Status og_plan_build(struct og_context *ctx, struct og_plan *plan);

#endif
