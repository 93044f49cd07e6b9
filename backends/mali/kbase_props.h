/* SPDX-License-Identifier: MIT */
/* kbase_props.h — decoding the KBASE_IOCTL_GET_GPUPROPS blob. */
#ifndef OPENGPA_MALI_KBASE_PROPS_H
#define OPENGPA_MALI_KBASE_PROPS_H

#include <stddef.h>
#include <stdint.h>

#include "mali_common.h"

/* Fills gpu from a blob of `len` bytes.  Returns false with *why (static
 * text) when the blob is truncated or lacks the product id, the core mask or
 * the L2 slice count; unknown properties are skipped by their size code. */
bool og_mali_decode_props(const uint8_t *blob, size_t len, struct og_mali_gpu *gpu,
                          const char **why);

#endif
