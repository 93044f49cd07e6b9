/* SPDX-License-Identifier: MIT */
/*
 * fuzz_counterfile.c — a counter file as a context reads one: the reader
 * (og_cf_parse), the catalogue build (names, dependency order, cycles,
 * compilation, limits) and the evaluation of every counter it offers.
 *
 * Input: byte 0 chooses how the text is loaded (bits 0-3: as a user's file,
 * or as the built-in set of that name, so the generated C of that set is
 * matched against whatever this text compiles to; bit 4: raw counters
 * public too); the rest is the file.  Oracle: where a counter's generated C
 * is used, it gives the interpreter's bits.
 */
#include <stdbool.h>
#include <string.h>

#include "catalog/catalog.h"
#include "catalog/counterfile.h"
#include "catalog/embedded.h"
#include "expr/arith.h"
#include "fuzz.h"

static GPA_Status bind_raw(void *ud, const char *name, const char *source, uint32_t *id,
                           const char **why_not)
{
	unsigned *next = ud;
	(void)name;
	/* A source starting "off" is not countable here, as on a real device. */
	if (strncmp(source, "off", 3) == 0) {
		*why_not = "switched off by the fuzz target";
		return GPA_STATUS_ERROR_NOT_FOUND;
	}
	if (strncmp(source, "bad", 3) == 0)
		return GPA_STATUS_ERROR_FAILED;
	*id = (*next)++;
	return GPA_STATUS_OK;
}

static GPA_Status constant(void *ud, const char *name, double *value)
{
	(void)ud;
	if (name[0] == 'U')
		return GPA_STATUS_ERROR_NOT_FOUND;
	*value = 1.5;
	return GPA_STATUS_OK;
}

__attribute__((format(printf, 3, 4))) static void log_fn(void *ud, bool error, const char *fmt, ...)
{
	(void)ud;
	(void)error;
	(void)fmt;
}

static bool same_bits(double a, double b)
{
	return memcmp(&a, &b, sizeof a) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > 65536)
		return 0;
	unsigned mode = data[0];
	size_t set = mode & 15;
	bool builtin = set < og_embedded_set_count && set < 15;
	const char *origin = builtin ? og_embedded_sets[set].file : "fuzz.counters";
	char *text = fuzz_text(data + 1, size - 1, size);
	struct og_cf_file *file = calloc(1, sizeof(*file));
	char err[512];
	FUZZ_CHECK(file != NULL);
	if (!og_cf_parse(origin, text, file, err, sizeof(err))) {
		fuzz_check_printable(err);
		free(file);
		free(text);
		return 0;
	}
	free(text);
	unsigned next = 0;
	struct og_binder binder = {
		.ud = &next, .backend = "test", .bind_raw = bind_raw, .constant = constant, .log = log_fn,
	};
	struct og_catalog cat;
	if (og_catalog_build(&cat, file, 1, builtin ? 1 : 0, &binder, NULL, 0, mode & 16, err,
	                     sizeof(err)) != GPA_STATUS_OK) {
		fuzz_check_printable(err);
		return 0; /* the catalogue freed the file */
	}
	uint64_t *raw = calloc(cat.nraw + 1, sizeof(*raw));
	union og_value *out[16] = { 0 };
	uint64_t *leaf[16] = { 0 };
	FUZZ_CHECK(raw != NULL && cat.nnative <= 16);
	for (size_t n = 0; n < cat.nnative; n++) {
		out[n] = calloc(cat.native[n].ncounters + 1, sizeof(*out[n]));
		leaf[n] = calloc(cat.native[n].nraw + 1, sizeof(*leaf[n]));
		FUZZ_CHECK(out[n] != NULL && leaf[n] != NULL);
	}
	uint64_t seed = size;
	for (int round = 0; round < 3; round++) {
		for (size_t r = 0; r < cat.nraw; r++) {
			uint64_t v = fuzz_mix(&seed);
			raw[r] = round == 0 ? 0 : round == 1 ? v >> (v % 64) : v;
		}
		/* Each set's leaves, as a session's row holds them. */
		for (size_t n = 0; n < cat.nnative; n++) {
			const struct og_native_binding *b = &cat.native[n];
			for (uint32_t j = 0; j < b->nraw; j++)
				leaf[n][j] = b->at_raw[j] == UINT32_MAX ? 0 : raw[b->at_raw[j]];
			og_native_run(b, leaf[n], out[n]);
		}
		for (size_t c = 0; c < cat.ncounters; c++) {
			const struct og_counter *ctr = &cat.counters[c];
			double v = og_expr_eval(ctr->expr, raw, cat.const_values);
			if (!ctr->native)
				continue;
			/* Integer counters come out as the session stores them. */
			union og_value got = out[ctr->native->index][ctr->native_pos];
			bool integer = ctr->type != GPA_TYPE_FLOAT32 && ctr->type != GPA_TYPE_FLOAT64;
			uint64_t max = ctr->type == GPA_TYPE_UINT32 ? UINT32_MAX : UINT64_MAX;
			FUZZ_CHECK(!integer ? same_bits(v, got.d)
			                    : got.u == (ctr->exact_raw ? og_arith_clamp_u64(raw[ctr->raw], max)
			                                               : og_arith_to_u64(v, max)));
		}
	}
	for (size_t n = 0; n < cat.nnative; n++) {
		free(out[n]);
		free(leaf[n]);
	}
	free(raw);
	og_catalog_free(&cat);
	return 0;
}
