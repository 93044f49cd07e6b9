/* SPDX-License-Identifier: MIT */
/*
 * control.h — PerfCtl words (MD00548 Figure 2) and the scoping options.
 *
 *   31 M | 30 0 | 29:22 TCID | 21:20 MT_EN | 19:16 VPEID | 15:12 0 |
 *   11:5 EVENT | 4 IE | 3 U | 2 S | 1 K | 0 EXL
 */
#ifndef OPENGPA_BACKENDS_MIPS_CONTROL_H
#define OPENGPA_BACKENDS_MIPS_CONTROL_H

#include <stdbool.h>
#include <stdint.h>

#include "events.h"

#define OG_MIPS_CTL_EXL 0x1u
#define OG_MIPS_CTL_K 0x2u
#define OG_MIPS_CTL_S 0x4u
#define OG_MIPS_CTL_U 0x8u
#define OG_MIPS_CTL_IE 0x10u
#define OG_MIPS_CTL_MODES 0xfu
#define OG_MIPS_MT_ALL 0u
#define OG_MIPS_MT_VPE 1u
#define OG_MIPS_MT_TC 2u
#define OG_MIPS_MAX_TC 8   /* the 34K has up to nine TCs */
#define OG_MIPS_MAX_VPE 1  /* and up to two VPEs */

struct og_mips_scope_opts {
	uint32_t modes; /* OG_MIPS_CTL_U|S|K|EXL */
	unsigned mt_en; /* OG_MIPS_MT_* */
	unsigned tc, vpe;
	bool ie;
};

/* Parses "u+s+k+exl" (any subset, '+' or ':' between items, or a run of the
 * letters u, s, k and x such as "uk").  Returns false on anything else. */
bool og_mips_parse_modes(const char *text, uint32_t *modes);

/* The control word for `event` in a counter; events Table 3 types as
 * processor-wide are never filtered by TC or VPE, and per-VPE events are
 * filtered by VPE only (they have no TC). */
uint32_t og_mips_control(const struct og_mips_scope_opts *o, unsigned event, unsigned scope);

/* Bits the program chose and the hardware keeps: EVENT and the mode bits. */
#define OG_MIPS_CTL_CHECK_MASK 0x0fefu

#endif
