/* SPDX-License-Identifier: MIT */
/*
 * ioctl_generic.h — an ioctl request as Arm's kernels number it.
 *
 * The fake kernels compare requests with the literal numbers of the
 * reference tables, which use the asm-generic layout (direction in bits
 * 31:30, size in 29:16).  MIPS, PowerPC and SPARC put direction in bits
 * 31:29 and size in 28:16, so a request built there by _IOR/_IOW is decoded
 * and encoded again in the generic layout; on generic targets this is the
 * request itself.
 */
#ifndef OPENGPA_TESTS_IOCTL_GENERIC_H
#define OPENGPA_TESTS_IOCTL_GENERIC_H

#include <linux/ioctl.h>

/* A constant expression, so that it also works in case labels. */
#define OG_TEST_GENERIC_IOCTL(req)                                                     \
	((unsigned long)(((_IOC_DIR(req) & _IOC_READ) ? 2u : 0u) |                         \
	                 ((_IOC_DIR(req) & _IOC_WRITE) ? 1u : 0u))                          \
	         << 30 |                                                                  \
	 (unsigned long)_IOC_SIZE(req) << 16 | (unsigned long)_IOC_TYPE(req) << 8 |          \
	 (unsigned long)_IOC_NR(req))

#endif
