/* SPDX-License-Identifier: MIT */
/* test_headers_hsa.c — GPUPerfAPI-HSA.h against the HSA runtime's own hsa.h. */
#include "GPUPerfAPI.h"
#include "GPUPerfAPI-HSA.h"

#include <stddef.h>

_Static_assert(sizeof(GPA_HSA_Context) == 3 * sizeof(void *), "three pointers");
_Static_assert(offsetof(GPA_HSA_Context, m_pQueue) == sizeof(void *), "agent, queue, handle");

int main(void)
{
	hsa_agent_t agent = { 0 };
	GPA_HSA_Context c = { &agent, NULL, NULL };
	return c.m_pAgent != &agent;
}
