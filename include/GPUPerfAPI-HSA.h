/* SPDX-License-Identifier: MIT */
/*
 * GPUPerfAPI-HSA.h — what a GPA 2.x HSA client passes to GPA_OpenContext
 * instead of a bare hsa_queue_t*: the agent, the queue and the AQL
 * translation handle its pre-dispatch callback received.  Needs the HSA
 * runtime's hsa.h, as GPA's copy does.
 *
 * opengpa treats any GPA_OpenContext argument as a key and counts through
 * its own backends, so this layout is only kept for clients that build
 * against it (docs/api.md).
 */
#ifndef GPUPERFAPI_HSA_H
#define GPUPERFAPI_HSA_H

#include "hsa.h"

typedef struct {
	const hsa_agent_t* m_pAgent;
	const hsa_queue_t* m_pQueue;
	void* m_pAqlTranslationHandle;
} GPA_HSA_Context;

#endif /* GPUPERFAPI_HSA_H */
