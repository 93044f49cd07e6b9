/* SPDX-License-Identifier: MIT */
/* percore.h — the HTML report's per-instance heat strips (percore.c). */
#ifndef OPENGPA_TOOLS_PERCORE_H
#define OPENGPA_TOOLS_PERCORE_H

#include <stdio.h>

#include "timeline.h"

/* Writes the strips' section and script when some series of run is an
 * instance's ("ShaderCore5:X"); nothing otherwise. */
void tl_html_percore(FILE *f, const struct tl_run *run);

#endif
