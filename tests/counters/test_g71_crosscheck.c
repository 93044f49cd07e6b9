/* SPDX-License-Identifier: MIT */
/*
 * test_g71_crosscheck.c — the reviewed Mali-G71 set (counters/mali-g71.counters,
 * from Arm's G71 guide) against what tools/mali-spec/generate.py makes of Arm's
 * counter database for the same GPU (tests/counters/mali-g71.generated.counters).
 *
 * - Every hardware counter the database's G71 layout names is a raw counter of
 *   the reviewed set, at the same source, under the same hardware name.
 * - Every counter of the reviewed set has a counterpart in the generated set,
 *   matched by name or alias ignoring case (the reviewed set carries Arm's
 *   machine name and the database's title as aliases).
 * - Both are evaluated on the same random samples (raw counters paired by
 *   source, JM:n being FE:n; device constants from the same random device):
 *   they must agree, and every way a pair differs (name, clamp, type, usage,
 *   formula) must be exactly what the differences table of
 *   docs/backends/mali.md says for that counter.
 */
#include <ctype.h>
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
#include "test_util.h"

#define REVIEWED OG_TEST_SOURCE_ROOT "/counters/mali-g71.counters"
#define GENERATED OG_TEST_SOURCE_ROOT "/tests/counters/mali-g71.generated.counters"
#define DOCS OG_TEST_SOURCE_ROOT "/docs/backends/mali.md"
#define DOCS_SECTION "## The G71 set and Arm's counter database"

/* One random device and sample, shared by both catalogues. */
static struct {
	unsigned trial;
	double cores, slices, beat_bytes;
} device;

/* The two sets name the same device facts differently. */
static GPA_Status device_constant(void *ud, const char *name, double *value)
{
	(void)ud;
	if (!strcmp(name, "MaliConstantsShaderCoreCount") || !strcmp(name, "MaliConfigCoreCount"))
		*value = device.cores;
	else if (!strcmp(name, "MaliConstantsL2SliceCount") || !strcmp(name, "MaliConfigL2CacheCount"))
		*value = device.slices;
	else if (!strcmp(name, "MaliConstantsBusWidthBits"))
		*value = device.beat_bytes * 8;
	else if (!strcmp(name, "MaliConfigExtBusBeatSize"))
		*value = device.beat_bytes;
	else if (!strcmp(name, "DeviceMaxClockHz")) /* the cycle budget's, in both */
		*value = 500e6 + 50e6 * device.cores;
	else if (!strcmp(name, "CycleBudgetWidth") || !strcmp(name, "CycleBudgetHeight") ||
	         !strcmp(name, "CycleBudgetFPS"))
		*value = 60 + device.slices;
	else
		return GPA_STATUS_ERROR_NOT_FOUND;
	return GPA_STATUS_OK;
}

static void load(struct og_catalog *cat, const char *path)
{
	struct og_cf_file *file = calloc(1, sizeof(*file));
	char err[512];
	assert_non_null(file);
	if (!og_cf_load(path, file, err, sizeof(err)))
		fail_msg("%s", err);
	static unsigned next;
	next = 0;
	const struct og_binder binder = {
		.ud = &next, .backend = "mali", .bind_raw = tu_bind_every_raw, .constant = device_constant,
	};
	if (og_catalog_build(cat, file, 1, 1, &binder, NULL, 0, false, err, sizeof(err)) !=
	    GPA_STATUS_OK)
		fail_msg("%s", err);
	assert_int_equal(cat->nunavailable, 0);
}

/* "JM:6" and "FE:6" are the same front-end value. */
static void source_key(const char *source, char *key, size_t len)
{
	snprintf(key, len, "%s", strncmp(source, "JM:", 3) == 0 ? "FE:" : "");
	size_t n = strlen(key);
	snprintf(key + n, len - n, "%s", n ? source + 3 : source);
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	return x ^ (x >> 33);
}

/* A count for `source` in the current trial: the same in both sets. Zero
 * now and then (idle units, 0/0), small numbers mostly, large ones too. */
static uint64_t sample_value(const char *source)
{
	char key[64];
	source_key(source, key, sizeof(key));
	uint64_t h = device.trial * 0x9e3779b97f4a7c15ull;
	for (const char *p = key; *p; p++)
		h = mix(h ^ (unsigned char)*p);
	switch (h % 8) {
	case 0: return 0;
	case 1: return (h >> 8) % 0x100000000ull;
	default: return (h >> 8) % 5000;
	}
}

static void fill(const struct og_catalog *cat, uint64_t *raw)
{
	for (size_t i = 0; i < cat->nraw; i++)
		raw[i] = sample_value(cat->raws[i].source);
}

static bool has_word(const char *list, const char *name, size_t len)
{
	const char *word;
	size_t n;
	while (og_cf_next_word(&list, &word, &n))
		if (n == len && strncasecmp(word, name, n) == 0)
			return true;
	return false;
}

/* By name, or by an alias one of them gives the other's name or shares. */
static bool names_match(const struct og_counter *a, const struct og_counter *b)
{
	if (strcasecmp(a->name, b->name) == 0 || has_word(a->alias, b->name, strlen(b->name)) ||
	    has_word(b->alias, a->name, strlen(a->name)))
		return true;
	const char *list = a->alias, *word;
	size_t n;
	while (og_cf_next_word(&list, &word, &n))
		if (has_word(b->alias, word, n))
			return true;
	return false;
}

static bool same(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fmax(1.0, fmax(fabs(a), fabs(b)));
}

static void test_layout_raws_in_reviewed_set(void **state)
{
	(void)state;
	struct og_catalog hand, gen;
	load(&hand, REVIEWED);
	load(&gen, GENERATED);
	size_t checked = 0;
	for (size_t g = 0; g < gen.nraw; g++) {
		const struct og_raw *r = &gen.raws[g];
		if (strncmp(r->source, "TIME:", 5) == 0)
			continue;
		const char *hw = r->decl->field[OG_F_HARDWARE];
		assert_non_null(hw);
		char want[64], have[64];
		source_key(r->source, want, sizeof(want));
		bool found = false;
		for (size_t h = 0; h < hand.nraw && !found; h++) {
			source_key(hand.raws[h].source, have, sizeof(have));
			if (strcmp(want, have) != 0)
				continue;
			const char *hand_hw = hand.raws[h].decl->field[OG_F_HARDWARE];
			if (!hand_hw || strcmp(hand_hw, hw) != 0)
				fail_msg("%s: raw %s (%s) is %s in the layout but says hardware: %s",
				         REVIEWED, hand.raws[h].name, hand.raws[h].source, hw,
				         hand_hw ? hand_hw : "(nothing)");
			found = true;
		}
		if (!found)
			fail_msg("%s: the G71 layout's %s (%s) is not a raw counter of the reviewed set",
			         REVIEWED, hw, r->source);
		checked++;
	}
	printf("%zu hardware counters of the G71 layout are raw counters of the reviewed set\n",
	       checked);
	assert_true(checked >= 100);
	og_catalog_free(&hand);
	og_catalog_free(&gen);
}

enum diff {
	D_NAME = 1, D_CLAMP = 2, D_TYPE = 4, D_USAGE = 8, D_FORMULA = 16,
};
static const char *const diff_words[] = { "name", "clamp", "type", "usage", "formula" };

/* The documented differences: `| `Name` | ... | name, clamp | why |` rows of
 * the section; returns the flags of `name`'s row, or -1 when it has none. */
static int documented(const char *name)
{
	FILE *f = fopen(DOCS, "r");
	assert_non_null(f);
	char line[2048];
	bool in = false;
	int flags = -1;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "## ", 3) == 0)
			in = strncmp(line, DOCS_SECTION, strlen(DOCS_SECTION)) == 0;
		if (!in || line[0] != '|')
			continue;
		char first[128];
		if (sscanf(line, "| `%127[A-Za-z0-9_]` |", first) != 1 || strcmp(first, name) != 0)
			continue;
		/* The third cell lists the differences. */
		char *cell = line;
		for (int i = 0; i < 2 && cell; i++)
			cell = strchr(cell + 1, '|');
		char *end = cell ? strchr(cell + 1, '|') : NULL;
		if (!cell || !end)
			fail_msg("%s: the row of %s has no 'differs in' cell", DOCS, name);
		*end = '\0';
		flags = 0;
		for (size_t w = 0; w < sizeof(diff_words) / sizeof(diff_words[0]); w++)
			if (strstr(cell, diff_words[w]))
				flags |= 1 << w;
	}
	fclose(f);
	return flags;
}

/* Every row of the table names a counter of the reviewed set. */
static unsigned stale_rows(const struct og_catalog *hand)
{
	FILE *f = fopen(DOCS, "r");
	assert_non_null(f);
	char line[2048], name[128];
	bool in = false;
	unsigned stale = 0, rows = 0;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "## ", 3) == 0)
			in = strncmp(line, DOCS_SECTION, strlen(DOCS_SECTION)) == 0;
		if (!in || sscanf(line, "| `%127[A-Za-z0-9_]` |", name) != 1)
			continue;
		rows++;
		uint32_t index;
		if (!og_catalog_find(hand, name, &index) || strcmp(hand->counters[index].name, name)) {
			printf("%s: the differences table names %s, not a counter of %s\n", DOCS, name,
			       REVIEWED);
			stale++;
		}
	}
	fclose(f);
	assert_true(rows > 0);
	return stale;
}

static void describe(char *buf, size_t len, int flags)
{
	buf[0] = '\0';
	for (size_t w = 0; w < sizeof(diff_words) / sizeof(diff_words[0]); w++)
		if (flags & (1 << w))
			snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? ", " : "",
			         diff_words[w]);
	if (!buf[0])
		snprintf(buf, len, "nothing");
}

#define TRIALS 3000

/* A random device: the constants both sets leave to the backend. */
static void set_device(struct og_catalog *hand, struct og_catalog *gen, unsigned trial)
{
	static const double beats[] = { 8, 16, 32 };
	device.trial = trial;
	device.cores = 1 + trial % 16;
	device.slices = 1 + trial % 4;
	device.beat_bytes = beats[trial % 3];
	for (size_t c = 0; c < hand->nconst; c++)
		device_constant(NULL, hand->constants[c].decl->name, &hand->const_values[c]);
	for (size_t c = 0; c < gen->nconst; c++)
		if (!gen->constants[c].decl->field[OG_F_VALUE])
			device_constant(NULL, gen->constants[c].decl->name, &gen->const_values[c]);
}

static void test_counters_agree(void **state)
{
	(void)state;
	struct og_catalog hand, gen;
	load(&hand, REVIEWED);
	load(&gen, GENERATED);
	uint64_t *hand_raw = calloc(hand.nraw + 1, sizeof(uint64_t));
	uint64_t *gen_raw = calloc(gen.nraw + 1, sizeof(uint64_t));
	const struct og_counter **pair = calloc(hand.ncounters + 1, sizeof(*pair));
	int *flags = calloc(hand.ncounters + 1, sizeof(*flags));
	size_t *pair_raw = calloc(hand.ncounters + 1, sizeof(*pair_raw));
	assert_non_null(pair_raw);
	for (size_t h = 0; h < hand.ncounters; h++)
		pair_raw[h] = SIZE_MAX;
	assert_non_null(hand_raw);
	assert_non_null(gen_raw);
	assert_non_null(pair);
	assert_non_null(flags);

	for (size_t h = 0; h < hand.ncounters; h++) {
		const struct og_counter *a = &hand.counters[h];
		for (size_t g = 0; g < gen.ncounters && !pair[h]; g++)
			if (names_match(a, &gen.counters[g]))
				pair[h] = &gen.counters[g];
		if (!pair[h]) {
			/* The machine-names section's MaliHw* counters stand for the
			 * generated set's raw counters of the same name. */
			for (size_t g = 0; g < gen.nraw && pair_raw[h] == SIZE_MAX; g++)
				if (strcasecmp(a->name, gen.raws[g].name) == 0)
					pair_raw[h] = g;
			if (pair_raw[h] != SIZE_MAX)
				continue;
			fail_msg("%s: %s matches no counter of %s by name or alias", REVIEWED, a->name,
			         GENERATED);
		}
		flags[h] |= strcmp(a->name, pair[h]->name) != 0 ? D_NAME : 0;
		flags[h] |= a->type != pair[h]->type ? D_TYPE : 0;
		flags[h] |= a->usage != pair[h]->usage ? D_USAGE : 0;
	}
	for (unsigned trial = 0; trial < TRIALS; trial++) {
		set_device(&hand, &gen, trial);
		fill(&hand, hand_raw);
		fill(&gen, gen_raw);
		for (size_t h = 0; h < hand.ncounters; h++) {
			const struct og_counter *a = &hand.counters[h];
			double x = og_expr_eval(a->expr, hand_raw, hand.const_values);
			if (!pair[h]) {
				if (!same(x, (double)gen_raw[pair_raw[h]]))
					fail_msg("%s reads %g, the generated raw counter %g", a->name, x,
					         (double)gen_raw[pair_raw[h]]);
				continue;
			}
			double y = og_expr_eval(pair[h]->expr, gen_raw, gen.const_values);
			if (same(x, y))
				continue;
			/* The G71 guide clamps percentages to 0..100; the database does not. */
			if (a->usage == GPA_USAGE_TYPE_PERCENTAGE && same(x, fmax(fmin(y, 100), 0)))
				flags[h] |= D_CLAMP;
			else
				flags[h] |= D_FORMULA;
		}
	}

	unsigned as_documented = 0, failures = 0;
	for (size_t h = 0; h < hand.ncounters; h++) {
		const struct og_counter *a = &hand.counters[h], *b = pair[h];
		if (!b)
			continue; /* a MaliHw* name, compared above */
		int doc = documented(a->name);
		doc = doc < 0 ? 0 : doc;
		if (flags[h] == doc) {
			as_documented += doc != 0;
			continue;
		}
		char found[64], said[64];
		describe(found, sizeof(found), flags[h]);
		describe(said, sizeof(said), doc);
		printf("%s -> %s (%s): differs in %s, %s says %s\n", a->name, b->name,
		       b->alias ? b->alias : "", found, DOCS, said);
		failures++;
	}
	printf("%zu counters compared over %d samples, %u differ as documented\n", hand.ncounters,
	       TRIALS, as_documented);
	failures += stale_rows(&hand);
	free(flags);
	free(pair_raw);
	free(pair);
	free(hand_raw);
	free(gen_raw);
	og_catalog_free(&hand);
	og_catalog_free(&gen);
	if (failures)
		fail_msg("%u counters differ otherwise than %s says (section \"%s\")", failures, DOCS,
		         &DOCS_SECTION[3]); /* without "## " */
}

/* Every name Arm's database gives a G71 counter, hardware counter or constant
 * (the generated set's names and aliases) resolves in the reviewed set, so
 * `opengpa stat -e MaliGPUIRQUtil` works on a G71 as on a G72. */
static void test_every_database_name_resolves(void **state)
{
	(void)state;
	struct og_catalog hand, gen;
	load(&hand, REVIEWED);
	load(&gen, GENERATED);
	unsigned checked = 0, missing = 0;
	uint32_t index;
	for (size_t g = 0; g < gen.ncounters; g++) {
		const struct og_counter *c = &gen.counters[g];
		const char *list = c->alias, *word;
		size_t n;
		if (!og_catalog_find(&hand, c->name, &index)) {
			printf("counter %s does not resolve on the G71\n", c->name);
			missing++;
		}
		checked++;
		while (list && og_cf_next_word(&list, &word, &n)) {
			char name[128];
			snprintf(name, sizeof(name), "%.*s", (int)n, word);
			if (!og_catalog_find(&hand, name, &index)) {
				printf("machine name %s (%s) does not resolve on the G71\n", name, c->name);
				missing++;
			}
			checked++;
		}
	}
	for (size_t g = 0; g < gen.nraw; g++) {
		bool found = og_catalog_find(&hand, gen.raws[g].name, &index);
		for (size_t h = 0; h < hand.nraw && !found; h++)
			found = strcasecmp(hand.raws[h].name, gen.raws[g].name) == 0;
		if (!found) {
			printf("hardware counter %s does not resolve on the G71\n", gen.raws[g].name);
			missing++;
		}
		checked++;
	}
	for (size_t g = 0; g < gen.nconst; g++) {
		const char *name = gen.constants[g].decl->name;
		bool found = false;
		for (size_t h = 0; h < hand.nconst && !found; h++)
			found = strcasecmp(hand.constants[h].decl->name, name) == 0;
		if (!found) {
			printf("constant %s does not resolve on the G71\n", name);
			missing++;
		}
		checked++;
	}
	printf("%u names of Arm's database for the G71 checked, %u missing\n", checked, missing);
	assert_true(checked > 300);
	assert_int_equal(missing, 0);
	/* The one the issue names. */
	assert_true(og_catalog_find(&hand, "MaliGPUIRQUtil", &index));
	og_catalog_free(&hand);
	og_catalog_free(&gen);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layout_raws_in_reviewed_set),
		cmocka_unit_test(test_counters_agree),
		cmocka_unit_test(test_every_database_name_resolves),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
