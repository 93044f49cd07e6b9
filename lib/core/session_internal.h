/* SPDX-License-Identifier: MIT */
/* session_internal.h — what context.c and session.c share. */
#ifndef OPENGPA_CORE_SESSION_INTERNAL_H
#define OPENGPA_CORE_SESSION_INTERNAL_H

#include "core/core.h"

/* plan.c: packs the selection's raw inputs into passes. */
GPA_Status og_plan_build(struct og_context *ctx, const struct og_selection *sel,
                         struct og_plan *plan);

#endif
