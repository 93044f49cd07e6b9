/* SPDX-License-Identifier: MIT */
/* perf_modes.c — the perf backend's modes= option: which privilege levels
 * its events count, as perf(1)'s :u, :k and :h modifiers say it. */
#include "perf_internal.h"

#include <string.h>

GPA_Status og_perf_modes_option(struct og_perf_state *st, const char *key, const char *value)
{
	if (strcmp(key, "modes") != 0)
		return GPA_STATUS_ERROR_NOT_FOUND;
	unsigned modes = 0;
	for (const char *p = value; *p;) {
		size_t n = strcspn(p, "+:");
		if (n == 1 && *p == 'u')
			modes |= OG_PERF_MODE_USER;
		else if (n == 1 && *p == 'k')
			modes |= OG_PERF_MODE_KERNEL;
		else if (n == 1 && *p == 'h')
			modes |= OG_PERF_MODE_HV;
		else {
			st->host.log(st->host.log_ctx, OG_LOG_ERROR,
			             "perf: modes=%s: give u (user), k (kernel), h (hypervisor; on MIPS "
			             "supervisor mode) joined by '+', e.g. modes=u+k", value);
			return GPA_STATUS_ERROR_FAILED;
		}
		p += n + (p[n] != '\0');
	}
	if (!modes) {
		st->host.log(st->host.log_ctx, OG_LOG_ERROR,
		             "perf: modes= names no mode; give at least one of u, k, h");
		return GPA_STATUS_ERROR_FAILED;
	}
	st->modes = modes;
	return GPA_STATUS_OK;
}
