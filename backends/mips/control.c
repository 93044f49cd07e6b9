/* SPDX-License-Identifier: MIT */
/* control.c — building PerfCtl words. */
#include "control.h"

#include <string.h>

bool og_mips_parse_modes(const char *text, uint32_t *modes)
{
	uint32_t m = 0;
	const char *p = text;
	if (!*p)
		return false;
	if (strpbrk(p, "+:") || strcmp(p, "exl") == 0) {
		while (*p) {
			size_t len = strcspn(p, "+:");
			if (len == 1 && *p == 'u')
				m |= OG_MIPS_CTL_U;
			else if (len == 1 && *p == 's')
				m |= OG_MIPS_CTL_S;
			else if (len == 1 && *p == 'k')
				m |= OG_MIPS_CTL_K;
			else if (len == 3 && strncmp(p, "exl", 3) == 0)
				m |= OG_MIPS_CTL_EXL;
			else
				return false;
			p += len;
			if (*p && !*++p)
				return false; /* trailing separator */
		}
	} else {
		for (; *p; p++) {
			if (*p == 'u')
				m |= OG_MIPS_CTL_U;
			else if (*p == 's')
				m |= OG_MIPS_CTL_S;
			else if (*p == 'k')
				m |= OG_MIPS_CTL_K;
			else if (*p == 'x')
				m |= OG_MIPS_CTL_EXL;
			else
				return false;
		}
	}
	*modes = m;
	return true;
}

uint32_t og_mips_control(const struct og_mips_scope_opts *o, unsigned event, unsigned scope)
{
	uint32_t w = ((uint32_t)(event & 0x7f) << 5) | (o->modes & OG_MIPS_CTL_MODES);
	if (o->ie)
		w |= OG_MIPS_CTL_IE;
	if (o->mt_en == OG_MIPS_MT_TC && scope == OG_MIPS_PER_TC)
		w |= (OG_MIPS_MT_TC << 20) | ((uint32_t)(o->tc & 0xff) << 22);
	else if (o->mt_en == OG_MIPS_MT_VPE && scope != OG_MIPS_PER_CORE)
		w |= (OG_MIPS_MT_VPE << 20) | ((uint32_t)(o->vpe & 0xf) << 16);
	return w;
}
