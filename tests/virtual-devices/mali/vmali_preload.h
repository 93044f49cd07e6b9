/* SPDX-License-Identifier: MIT */
/* vmali_preload.h — what vmali_api.c uses of vmali_preload.c. */
#ifndef VMALI_PRELOAD_H
#define VMALI_PRELOAD_H

struct vmali;

/* The process's device, configured from the environment on first use;
 * NULL when the configuration is bad (already said on stderr). */
struct vmali *vmali_preload_device(void);

#endif
