/* SPDX-License-Identifier: MIT */
/*
 * ioctl_layout.h — which ioctl number layout this target uses.
 *
 * The UAPI restatements pin their ioctl numbers to the values Arm's kernels
 * see, which is the asm-generic layout (Arm, x86, RISC-V: direction in bits
 * 31:30, size in 29:16).  MIPS, PowerPC and SPARC put direction in bits
 * 31:29 and size in 28:16, so the same _IOR/_IOW give other numbers there,
 * the ones those kernels would use: only the struct sizes are pinned.
 */
#ifndef OPENGPA_BACKENDS_IOCTL_LAYOUT_H
#define OPENGPA_BACKENDS_IOCTL_LAYOUT_H

#include <linux/ioctl.h>

#define OG_IOC_GENERIC_LAYOUT (_IOC_SIZEBITS == 14 && _IOC_WRITE == 1U && _IOC_READ == 2U)

#endif
