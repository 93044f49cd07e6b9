/* SPDX-License-Identifier: MIT */
/* cycle_budget.c — the target's and constants' notation (cycle_budget.h). */
#include "catalog/cycle_budget.h"
#include "util/quote.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool og_constant_valid_name(const char *name, size_t len, size_t max)
{
	if (len == 0 || len >= max)
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = name[i];
		bool ok = c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		          (i > 0 && c >= '0' && c <= '9');
		if (!ok)
			return false;
	}
	return true;
}

bool og_constant_parse_value(const char *text, size_t len, double *out)
{
	char buf[64];
	if (len == 0 || len >= sizeof buf)
		return false;
	memcpy(buf, text, len);
	buf[len] = '\0';
	if (!((buf[0] >= '0' && buf[0] <= '9') || buf[0] == '.' || buf[0] == '-'))
		return false;
	char *end;
	errno = 0;
	double v = strtod(buf, &end);
	if (*end || errno || !isfinite(v) || strpbrk(buf, "xX"))
		return false;
	*out = v;
	return true;
}

bool og_cycle_budget_parse(const char *text, double out[3], char *why, size_t whylen)
{
	/* WIDTHxHEIGHT@FPS: whole pixels, a frame rate with an optional fraction. */
	const char *x = text ? strchr(text, 'x') : NULL;
	const char *at = x ? strchr(x, '@') : NULL;
	uint64_t wh[2] = { 0, 0 };
	const char *parts[2] = { text, x ? x + 1 : NULL };
	const char *ends[2] = { x, at };
	bool ok = x && at;
	for (int i = 0; ok && i < 2; i++) {
		if (parts[i] == ends[i])
			ok = false;
		for (const char *p = parts[i]; ok && p < ends[i]; p++) {
			if (*p < '0' || *p > '9' || wh[i] > 100000)
				ok = false;
			else
				wh[i] = wh[i] * 10 + (uint64_t)(*p - '0');
		}
	}
	double fps = 0.0;
	if (ok)
		ok = og_constant_parse_value(at + 1, strlen(at + 1), &fps) && at[1] != '-';
	/* The text comes from a command line or the environment: quoted. */
	char q[72];
	if (!ok) {
		snprintf(why, whylen, "'%s' is not WIDTHxHEIGHT@FPS (for example 1920x1080@60)",
		         og_quote(text ? text : "", q, sizeof q));
		return false;
	}
	if (wh[0] < 1 || wh[0] > OG_CYCLE_BUDGET_MAX_PIXELS || wh[1] < 1 || wh[1] > OG_CYCLE_BUDGET_MAX_PIXELS) {
		snprintf(why, whylen, "'%s': width and height are 1 to 65536 pixels",
		         og_quote(text, q, sizeof q));
		return false;
	}
	if (!(fps >= OG_CYCLE_BUDGET_MIN_FPS) || fps > OG_CYCLE_BUDGET_MAX_FPS) {
		snprintf(why, whylen, "'%s': the frame rate must be above 0: from 0.001 to 10000 "
		         "frames per second",
		         og_quote(text, q, sizeof q));
		return false;
	}
	out[0] = (double)wh[0];
	out[1] = (double)wh[1];
	out[2] = fps;
	return true;
}
