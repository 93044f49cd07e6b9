/* SPDX-License-Identifier: MIT */
/*
 * test_cycle_budget.c — the cycle budget of Arm's Mali guide (section 4.4)
 * in every Mali counter set: the same entries in each
 * (tools/mali-spec/cycle-budget.counters), the guide's own example (3 cores
 * at 500 MHz, 1080p60: "a cycle budget of just 10 cycles per pixel"), and
 * the used share from the counts of a frame.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cmocka.h>

#include "catalog/catalog.h"
#include "catalog/counterfile.h"
#include "catalog/embedded.h"
#include "expr/expr.h"
#include "test_util.h"

#define TEMPLATE OG_TEST_SOURCE_ROOT "/tools/mali-spec/cycle-budget.counters"
#define BLOCK_START "# ---- The cycle budget"

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	static char buf[1 << 16];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

/* Every Mali set ends with the template's block, word for word: the
 * generator appends it, the reviewed G71 set carries a copy. */
static void test_every_mali_set_has_the_block(void **state)
{
	(void)state;
	const char *block = strstr(read_file(TEMPLATE), BLOCK_START);
	assert_non_null(block);
	unsigned sets = 0;
	for (size_t i = 0; i < og_embedded_set_count; i++) {
		const struct og_embedded_set *s = &og_embedded_sets[i];
		if (strncmp(s->name, "mali-", 5) != 0)
			continue;
		const char *at = strstr(s->text, BLOCK_START);
		if (!at || strcmp(at, block) != 0)
			fail_msg("%s does not end with tools/mali-spec/cycle-budget.counters's block "
			         "(re-run tools/mali-spec/generate.py; copy it into mali-g71.counters)",
			         s->file);
		sets++;
	}
	assert_true(sets >= 13);
}

/* The device: cores, clock and target as a test gives them; every other
 * constant of the set is 1. */
static struct device {
	double cores, clock_hz, width, height, fps;
	bool target;
} dev;

static GPA_Status constant(void *ud, const char *name, double *value)
{
	(void)ud;
	if (!strcmp(name, "MaliConstantsShaderCoreCount") || !strcmp(name, "MaliConfigCoreCount"))
		*value = dev.cores;
	else if (!strcmp(name, "DeviceMaxClockHz"))
		*value = dev.clock_hz;
	else if (!strncmp(name, "CycleBudget", 11) && strcmp(name, "CycleBudgetUtilization") != 0)
		return GPA_STATUS_ERROR_NOT_FOUND; /* the user's, below */
	else
		*value = 1;
	return GPA_STATUS_OK;
}

static bool target(void *ud, const char *name, double *value)
{
	(void)ud;
	if (!dev.target)
		return false;
	if (!strcmp(name, "CycleBudgetWidth"))
		*value = dev.width;
	else if (!strcmp(name, "CycleBudgetHeight"))
		*value = dev.height;
	else if (!strcmp(name, "CycleBudgetFPS"))
		*value = dev.fps;
	else
		return false;
	return true;
}

static void build(struct og_catalog *cat, const char *set)
{
	for (size_t i = 0; i < og_embedded_set_count; i++) {
		if (strcmp(og_embedded_sets[i].name, set) != 0)
			continue;
		struct og_cf_file *file = calloc(1, sizeof(*file));
		char err[512];
		assert_non_null(file);
		if (!og_cf_parse(og_embedded_sets[i].file, og_embedded_sets[i].text, file, err, sizeof err))
			fail_msg("%s", err);
		static unsigned next;
		next = 0;
		const struct og_binder binder = {
			.ud = &next, .backend = "mali", .bind_raw = tu_bind_every_raw,
			.constant = constant, .override = target,
		};
		if (og_catalog_build(cat, file, 1, 1, &binder, NULL, 0, false, err, sizeof err) !=
		    GPA_STATUS_OK)
			fail_msg("%s", err);
		return;
	}
	fail_msg("no embedded set %s", set);
}

static const struct og_counter *counter(const struct og_catalog *cat, const char *name)
{
	uint32_t index;
	if (!og_catalog_find(cat, name, &index))
		return NULL;
	return &cat->counters[index];
}

static double value(const struct og_catalog *cat, const char *name, const uint64_t *raw)
{
	const struct og_counter *c = counter(cat, name);
	if (!c)
		fail_msg("no counter %s", name);
	return og_expr_eval(c->expr, raw, cat->const_values);
}

static uint32_t raw_index(const struct og_catalog *cat, const char *name)
{
	for (uint32_t i = 0; i < cat->nraw; i++)
		if (strcasecmp(cat->raws[i].name, name) == 0)
			return i;
	fail_msg("no raw counter %s", name);
	return 0;
}

/* The guide's example: a mass-market GPU, 3 cores at 500 MHz, 1080p60. */
static void test_the_guides_example(void **state)
{
	(void)state;
	dev = (struct device){ .cores = 3, .clock_hz = 500e6, .width = 1920, .height = 1080,
	                     .fps = 60, .target = true };
	struct og_catalog cat;
	build(&cat, "mali-g71");
	uint64_t *raw = calloc(cat.nraw + 1, sizeof *raw);
	assert_non_null(raw);
	double max = value(&cat, "CycleBudgetMax", raw), real = value(&cat, "CycleBudgetReal", raw);
	print_message("    3 cores x 500 MHz at 1920x1080@60: max %.4f, real %.4f cycles per pixel\n",
	              max, real);
	assert_true(fabs(max - 1.5e9 / (1920.0 * 1080 * 60)) < 1e-12);
	assert_true(fabs(real - 0.85 * max) < 1e-12);
	assert_true(lround(real) == 10); /* "a cycle budget of just 10 cycles per pixel" */
	assert_true(value(&cat, "MaxClockMHz", raw) == 500.0);

	/* One frame at the target rate that kept the GPU busy the whole frame
	 * (500e6 / 60 cycles) over 1080p's 60 x 34 fragment tasks of 32 x 32:
	 * 3 cores' cycles per pixel over the real budget. */
	raw[raw_index(&cat, "MaliGPUCyclesGPUActive")] = 500000000 / 60;
	raw[raw_index(&cat, "MaliGPUTasksFragmentTasks")] = 60 * 34;
	double per_pixel = (500000000 / 60) / (60.0 * 34 * 1024);
	double used = value(&cat, "CycleBudgetUsed", raw);
	print_message("    a frame busy all 1/60 s: %.4f cycles per pixel, %.2f %% of the budget\n",
	              per_pixel, used);
	assert_true(fabs(used - 100 * 3 * per_pixel / real) < 1e-9);
	/* Busy all the time: above the 85 % headroom (the shaded area is a little
	 * over 1080p, 32 x 32 tasks cover 1088 lines). */
	assert_true(used > 100.0 && used < 100.0 / 0.85);
	/* Half the cycles, half the share. */
	raw[raw_index(&cat, "MaliGPUCyclesGPUActive")] = 500000000 / 120;
	assert_true(fabs(value(&cat, "CycleBudgetUsed", raw) - used / 2) < 1e-6 * used);
	free(raw);
	og_catalog_free(&cat);
}

/* A generated set computes the same from its own names. */
static void test_a_generated_set(void **state)
{
	(void)state;
	dev = (struct device){ .cores = 10, .clock_hz = 850e6, .width = 2400, .height = 1080,
	                     .fps = 90, .target = true };
	struct og_catalog cat;
	build(&cat, "mali-g710");
	uint64_t *raw = calloc(cat.nraw + 1, sizeof *raw);
	assert_non_null(raw);
	double max = value(&cat, "CycleBudgetMax", raw);
	assert_true(fabs(max - 10 * 850e6 / (2400.0 * 1080 * 90)) < 1e-12);
	assert_non_null(counter(&cat, "CycleBudgetUsed"));
	free(raw);
	og_catalog_free(&cat);
}

/* Without a target the budget is not offered, and the reason names what is
 * missing and how to give it. */
static void test_what_is_missing(void **state)
{
	(void)state;
	dev = (struct device){ .cores = 3, .clock_hz = 500e6 };
	struct og_catalog cat;
	build(&cat, "mali-g71");
	assert_null(counter(&cat, "CycleBudgetUsed"));
	assert_non_null(counter(&cat, "MaxClockMHz"));
	bool said = false;
	for (size_t i = 0; i < cat.nunavailable; i++)
		if (!strcmp(cat.unavailable[i].name, "CycleBudgetMax"))
			said = strstr(cat.unavailable[i].reason, "constant CycleBudgetWidth (Width of the "
			                                         "target resolution") &&
			       strstr(cat.unavailable[i].reason, "OPENGPA_CONSTANTS=CycleBudgetWidth=VALUE");
	assert_true(said);
	og_catalog_free(&cat);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_mali_set_has_the_block),
		cmocka_unit_test(test_the_guides_example),
		cmocka_unit_test(test_a_generated_set),
		cmocka_unit_test(test_what_is_missing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
