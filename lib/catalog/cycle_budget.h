/* SPDX-License-Identifier: MIT */
/*
 * cycle_budget.h — the cycle-budget target as people write it,
 * "WIDTHxHEIGHT@FPS" (1920x1080@60): for OPENGPA_CYCLE_BUDGET in the core and
 * `opengpa stat --target` in the command.  Pure: no state, no allocation.
 */
#ifndef OPENGPA_CATALOG_CYCLE_BUDGET_H
#define OPENGPA_CATALOG_CYCLE_BUDGET_H

#include <stdbool.h>
#include <stddef.h>

/* The target's bounds: whole pixels, a frame rate above 0. */
#define OG_CYCLE_BUDGET_MAX_PIXELS 65536u
#define OG_CYCLE_BUDGET_MAX_FPS 10000.0
/* Below it the budget is no budget (1x1@1e-300: every counter reads 0). */
#define OG_CYCLE_BUDGET_MIN_FPS 0.001

/* "1920x1080@60" -> out = { 1920, 1080, 60 }.  False with the reason in
 * why (which quotes the text) for anything else. */
bool og_cycle_budget_parse(const char *text, double out[3], char *why, size_t whylen);

/* A value of a constant as the environment and the command line write it:
 * all of text[0..len) a decimal number with an optional exponent. */
bool og_constant_parse_value(const char *text, size_t len, double *out);

/* A constant's name as counter files write them: [A-Za-z_][A-Za-z0-9_]*,
 * shorter than `max`. */
bool og_constant_valid_name(const char *name, size_t len, size_t max);

#endif
