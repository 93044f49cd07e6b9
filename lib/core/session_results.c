/* SPDX-License-Identifier: MIT */
/*
 * session_results.c — reading results: a counter's value for a sample or
 * over every sample (totals), one at a time or a batch, under the registry
 * lock or, for an ended session, without it (readers.h); generated code
 * reads a built-in set's block in place, or a scratch block gathered from
 * the row (session_state.h, struct block), the interpreter the rest.
 *
 * Long (about 730 lines) because the locked and unlocked paths share their
 * inlined helpers, which must stay in one unit to stay inlined (the
 * unlocked single read is built once per type, and a cached copy of it;
 * GPA_GetSample* themselves are those copies).
 */
#include "GPUPerfAPI.h"
#include "core/session_state.h"
#include "core/readers.h"
#include "core/registry.h"
#include "expr/arith.h"

static bool uses_api(const struct og_context *ctx, const struct og_counter *c)
{
	for (size_t i = 0; i < c->ninputs; i++)
		if (ctx->cat.raws[c->inputs[i]].api)
			return true;
	return false;
}

/* A counter over every sample: each raw input summed over the samples that
 * counted it, then the counter's expression, as if one sample had spanned
 * them all (a periodic session's whole pass). */
static GPA_Status total_result(struct og_context *ctx, struct og_session *s, uint32_t counter,
                               double *value, uint64_t *exact, bool *is_exact)
{
	const struct og_counter *c = &ctx->cat.counters[counter];
	if (uses_api(ctx, c))
		for (size_t k = 0; k < s->nsamples; k++) {
			bool in = og_session_collect(s, k, true);
			if (!in || (s->samples[k].api_failed && !s->samples[k].failed))
				return og_error(GPA_STATUS_ERROR_READING_COUNTER_RESULT,
				                "counter %s of session %u has no total: sample %u has no GPU "
				                "time from the API (the earlier message says why)", c->name,
				                s->id, s->samples[k].id);
		}
	for (size_t i = 0; i < c->ninputs; i++) {
		struct raw_slot where = s->slot_of_raw[c->inputs[i]];
		bool kept = where.slot != UINT32_MAX && s->dropped_sum;
		uint64_t sum = kept ? s->dropped_sum[where.slot] : 0;
		size_t counted = kept ? s->dropped_counted : 0;
		for (size_t k = 0; where.slot != UINT32_MAX && k < s->nsamples; k++) {
			const struct sample *smp = &s->samples[k];
			if (smp->failed || !(smp->passes & (1ull << where.pass)))
				continue;
			sum = add_sat(sum, s->values[k * s->nslots + where.slot]);
			counted++;
		}
		if (!counted)
			return og_error(GPA_STATUS_ERROR_SAMPLE_NOT_FOUND_IN_ALL_PASSES,
			                "counter %s of session %u: no sample counted its pass %u, so it "
			                "has no total", c->name, s->id, where.pass);
		ctx->scratch[c->inputs[i]] = sum;
	}
	*is_exact = c->exact_raw;
	if (c->exact_raw)
		*exact = ctx->scratch[c->raw];
	*value = og_expr_eval(c->expr, ctx->scratch, ctx->cat.const_values);
	return GPA_STATUS_OK;
}

/* The sample's index, if it has a value for every counter in `need` (or
 * the error that says why not). */
static GPA_Status readable(struct og_context *ctx, const struct og_session *s, uint32_t sample_id,
                           uint64_t need, size_t *index)
{
	if (!index_find(s, sample_id, index))
		return og_error(GPA_STATUS_ERROR_SAMPLE_NOT_FOUND,
		                "sample %u is not in session %u", sample_id, s->id);
	const struct sample *smp = &s->samples[*index];
	if (smp->failed)
		return og_error(GPA_STATUS_ERROR_READING_COUNTER_RESULT,
		                "sample %u of session %u could not be read from the device (see the "
		                "earlier message); the session's other samples are fine",
		                sample_id, s->id);
	if ((smp->passes & need) == need)
		return GPA_STATUS_OK;
	for (size_t k = 0; k < s->ncounters; k++) {
		uint64_t missing = s->recipes[k].need & need & ~smp->passes;
		if (missing)
			return og_error(GPA_STATUS_ERROR_SAMPLE_NOT_FOUND,
			                "counter %s of sample %u (session %u) needs pass %d, which did not "
			                "sample it; sample the same IDs in every pass",
			                ctx->cat.counters[s->counters[k]].name, sample_id, s->id,
			                __builtin_ctzll(missing));
	}
	return og_error(GPA_STATUS_ERROR_SAMPLE_NOT_FOUND, "sample %u of session %u lacks a pass",
	                sample_id, s->id);
}

/* The interpreter, for counters without generated code in a block: the
 * expression reads raw counters by catalogue index. */
static double interpret(struct og_context *ctx, const struct og_session *s, const uint64_t *row,
                        const struct og_counter *c)
{
	for (size_t i = 0; i < c->ninputs; i++)
		ctx->scratch[c->inputs[i]] = row[s->slot_of_raw[c->inputs[i]].slot];
	return og_expr_eval(c->expr, ctx->scratch, ctx->cat.const_values);
}

/* A gathered counter's value (struct block): the leaves its function reads
 * copied from the row into a scratch block on this thread's stack, then its
 * function.  The rest of the scratch is never written, and never read: the
 * function reads only the leaves its raw inputs stand for, which are these
 * (og_native_matches checked its every operation).  Out of line, so that
 * the callers' frames do not grow by the scratch. */
static __attribute__((noinline)) double gather_one(const struct recipe *r, const uint64_t *row)
{
	uint64_t leaf[GATHER_MAX_LEAVES];
	for (uint32_t i = 0; i < r->nleaves; i++)
		leaf[r->leaves[i].leaf] = row[r->leaves[i].slot];
	return r->fn(leaf, r->k);
}

GPA_Status og_session_result(struct og_context *ctx, struct og_session *s, uint32_t sample_id,
                             uint32_t counter, double *value, uint64_t *exact, bool *is_exact)
{
	if (is_total(s, sample_id))
		return total_result(ctx, s, counter, value, exact, is_exact);
	const struct recipe *r = s->recipe_of[counter];
	size_t index;
	GPA_Status st = readable(ctx, s, sample_id, r->need, &index);
	if (st != GPA_STATUS_OK)
		return st;
	/* Its GPU time, waited for if it is not in yet. */
	if (r->api && (!og_session_collect(s, index, true) || s->samples[index].api_failed))
		return og_error(GPA_STATUS_ERROR_READING_COUNTER_RESULT,
		                "counter %s of sample %u (session %u) has no GPU time from the API%s "
		                "(the earlier message says why); the sample's other counters are fine",
		                ctx->cat.counters[counter].name, sample_id, s->id,
		                s->samples[index].api_failed ? "" : " on this thread");
	const uint64_t *row = &s->values[index * s->nslots];
	*is_exact = r->kind == READ_RAW;
	switch (r->kind) {
	case READ_RAW:
		*exact = row[r->slot];
		*value = og_arith_result((double)*exact);
		break;
	case READ_NATIVE:
		*value = r->fn(row + r->slot, r->k);
		break;
	case READ_GATHER:
		*value = gather_one(r, row);
		break;
	default:
		*value = interpret(ctx, s, row, &ctx->cat.counters[counter]);
		break;
	}
	return GPA_STATUS_OK;
}

/* Session `id` of the current context, inside a read section (readers.h),
 * and how it may be read (*how, acquired: an ended session's samples are
 * final); NULL when there is none or it must be read under the lock. */
static inline __attribute__((always_inline)) const struct og_session *
unlocked_find(uint32_t id, const struct og_context **ctxp, uint8_t *how)
{
	const struct og_context *ctx = __atomic_load_n(&og_registry()->current, __ATOMIC_ACQUIRE);
	if (!ctx)
		return NULL;
	const struct og_ring *ring = __atomic_load_n(&ctx->ring, __ATOMIC_ACQUIRE);
	const struct og_session *s =
		__atomic_load_n(&ring->slot[(id - 1) & ring->mask], __ATOMIC_ACQUIRE);
	if (!s || s->id != id)
		return NULL;
	*ctxp = ctx;
	*how = __atomic_load_n(&s->unlocked, __ATOMIC_ACQUIRE);
	return *how == UNLOCKED_NO ? NULL : s;
}

/* GPA_GetSample*'s answer stored as `type`, the counter's own (an integer
 * type is an integer counter, clamped to the type): from a raw count u when
 * `exact`, else from the computed value d. */
static inline __attribute__((always_inline)) void store_typed(GPA_Type type, void *result,
                                                              double d, uint64_t u, bool exact)
{
	switch (type) {
	case GPA_TYPE_FLOAT64:
		*(double *)result = exact ? og_arith_result((double)u) : d;
		break;
	case GPA_TYPE_FLOAT32:
		*(float *)result = (float)(exact ? og_arith_result((double)u) : d);
		break;
	case GPA_TYPE_UINT32:
		*(uint32_t *)result = (uint32_t)(exact ? og_arith_clamp_u64(u, UINT32_MAX)
		                                       : og_arith_to_u64(d, UINT32_MAX));
		break;
	default:
		*(uint64_t *)result = exact ? u : og_arith_to_u64(d, UINT64_MAX);
		break;
	}
}

/* GPA_GetSample*'s unlocked read, one copy per type (the type a constant in
 * each, so no copy tests it): the look-up, the checks GPA makes, then a
 * raw count is one load and a built-in formula one call of its generated
 * function.  Anything else is `locked`'s. */
static inline __attribute__((always_inline)) GPA_Status
get_sample_as(uint32_t id, uint32_t sample_id, uint32_t counter, const GPA_Type type,
              void *result, og_get_sample_fn *locked)
{
	uint32_t seq = 0;
	struct og_reader *rd = result ? og_read_enter(&seq) : NULL;
	if (!rd)
		goto locked;
	/* What GPA_GetSample*'s checks look at, in any order: a false answer
	 * leaves them to the locked path. */
	const struct og_context *ctx;
	uint8_t how;
	const struct og_session *s = unlocked_find(id, &ctx, &how);
	if (!s || counter >= s->ncatalog ||
	    !__atomic_load_n(&ctx->sel.is_enabled[counter], __ATOMIC_RELAXED))
		goto out;
	const struct recipe *r = s->recipe_of[counter];
	size_t index;
	if (r == og_recipe_none(s) || r->type != type || !index_find(s, sample_id, &index))
		goto out;
	if (how != UNLOCKED_COMPLETE) {
		const struct sample *smp = &s->samples[index];
		if (smp->failed || (smp->passes & r->need) != r->need)
			goto out;
	}
	const uint64_t *row = &s->values[index * s->nslots];
	/* The type is the counter's: an integer type is an integer counter,
	 * clamped to the type. */
	if (r->kind == READ_NATIVE) {
		double d = r->fn(row + r->slot, r->k);
		og_read_exit(rd, seq);
		store_typed(type, result, d, 0, false);
		return GPA_STATUS_OK;
	}
	if (r->kind == READ_RAW) {
		uint64_t u = row[r->slot];
		og_read_exit(rd, seq);
		store_typed(type, result, 0.0, u, true);
		return GPA_STATUS_OK;
	}
	if (r->kind == READ_GATHER) {
		double d = gather_one(r, row);
		og_read_exit(rd, seq);
		store_typed(type, result, d, 0, false);
		return GPA_STATUS_OK;
	}
	/* The interpreter uses the context's scratch: under the lock. */
out:
	og_read_exit(rd, seq);
locked:
	return locked(id, sample_id, counter, type, result);
}

/* A generated formula's value, stored, its read section left.  Only the
 * result pointer is kept across the call: the record is found again and
 * its seq loaded again (from the line this thread just wrote) rather than
 * both saved on the stack around the call. */
static inline __attribute__((always_inline)) GPA_Status
native_as(const struct recipe *r, const uint64_t *row, const GPA_Type type, void *result)
{
	double d = r->fn(row, r->k);
	struct og_reader *rd = og_this_reader;
	og_read_exit(rd, __atomic_load_n(&rd->seq, __ATOMIC_RELAXED));
	store_typed(type, result, d, 0, false);
	return GPA_STATUS_OK;
}

/* The calling thread's cache (readers.h) from a look-up in this read
 * section, when the session can be read from it: ended with every sample
 * complete, its ids dense.  gen: read_gen, loaded before the look-up.
 * og_readers_changed may empty the cache while this fills it: it changes
 * read_gen, fences, then empties.  After the stores here, a fence and
 * read_gen again: if that is still gen, this fence came before the
 * writer's in their single order, so the writer's emptying comes after
 * these stores and wins; else this empties the cache itself.  Either way
 * no cache outlives a change made while it was filled. */
static inline __attribute__((always_inline)) bool cache_fill(struct og_reader *rd,
                                                             uint32_t id, unsigned long gen)
{
	const struct og_context *ctx;
	uint8_t how;
	const struct og_session *s = unlocked_find(id, &ctx, &how);
	if (!s || how != UNLOCKED_COMPLETE || s->sparse ||
	    __atomic_load_n(&ctx->sel.version, __ATOMIC_RELAXED) != s->sel_version)
		return false;
	/* The tests' stand-in for a writer between the look-up and the stores
	 * (og_testing_set_fill_hook): the look at read_gen below catches it. */
	void (*hook)(void) = __atomic_load_n(&og_registry()->settings.fill_hook, __ATOMIC_RELAXED);
	if (__builtin_expect(hook != NULL, 0))
		hook();
	struct og_read_cache *c = &rd->cache;
	c->first_id = s->first_id;
	c->nsamples = s->nsamples;
	c->stride = s->nslots * sizeof(*s->values);
	c->recipe_of = s->recipe_of;
	c->values = s->values;
	c->id = id;
	__atomic_store_n(&c->ncatalog, s->ncatalog, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&og_registry()->read_gen, __ATOMIC_RELAXED) != gen) {
		og_read_cache_empty(c);
		return false;
	}
	return true;
}

/* og_arith_div(x, (double)y): (double)y is 0 when y is, and only then, so
 * the test is the integer's, made before converting it (one test where
 * the double's costs a zeroed register, a compare and two jumps), and the
 * same test says the signed conversion gives the same double. */
static inline double div_raw(double x, uint64_t y)
{
	if (__builtin_expect((int64_t)y > 0, 1)) /* the same double, signed: one test */
		return x / (double)(int64_t)y;
	return y ? x / (double)y : 0.0;
}

/* A ratio's value (ONE_RATIO, ONE_RATIO_NA: na is 1 in the first, so the
 * product is exact) with the postfix's own min and max, stored, its read
 * section left: the read's way for a zero divisor or a count past 2^63,
 * out of line so that the usual way joins no other (native_as says why
 * the record is found again). */
static inline __attribute__((always_inline)) GPA_Status
ratio_as(const struct recipe *r, const uint64_t *row, const GPA_Type type, void *result)
{
	double d = div_raw((double)row[r->a] * r->na, row[r->b]) * r->n;
	d = og_arith_max_num(og_arith_min_num(d, r->high), r->low);
	struct og_reader *rd = og_this_reader;
	og_read_exit(rd, __atomic_load_n(&rd->seq, __ATOMIC_RELAXED));
	store_typed(type, result, d, 0, false);
	return GPA_STATUS_OK;
}

/* The usual case alone, the rest left to get_sample_as (`general`): the
 * session the thread read last (its cache), and a counter whose recipe
 * says how to read it here (recipe.one: a raw count, a ratio or a scaled
 * raw value computed in place, or its generated function).  The same
 * checks as get_sample_as, fewer of them, and a chain of two loads (the
 * recipe, then the row) where the look-up has seven: a call does not wait
 * for the one before it to find its session again.  No test of the
 * record: a thread without one has og_no_reader, whose cache never
 * answers. */
static inline __attribute__((always_inline)) void fetch_ahead(const struct recipe *r,
                                                              const uint64_t *row)
{
	__builtin_prefetch((const void *)((uintptr_t)row + r->ahead));
}

typedef GPA_Status get_general_fn(uint32_t id, uint32_t sample_id, uint32_t counter,
                                  void *result);
/* native_as and ratio_as out of line: the function's call is the only one
 * on the path, so the others need no frame (no registers saved) when this
 * is a jump. */
typedef GPA_Status get_call_fn(const struct recipe *r, const uint64_t *row, void *result);
static inline __attribute__((always_inline)) GPA_Status
get_cached_as(uint32_t id, uint32_t sample_id, uint32_t counter, const GPA_Type type,
              void *result, get_general_fn *general, get_general_fn *miss,
              get_call_fn *call, get_call_fn *ratio)
{
	uint32_t seq = 0;
	struct og_reader *rd = og_read_enter_cached(&seq);
	if (!result)
		goto out;
	const struct og_read_cache *c = &rd->cache;
	/* The usual answer falls through: a taken branch costs the front end
	 * more than the instruction (issue 29). */
	if (__builtin_expect(c->id != id, 0))
		goto look_up;
	/* Its counters are the enabled ones (readers.h): no flag to test.
	 * An empty cache (ncatalog 0) answers nothing. */
	uint32_t ncatalog = __atomic_load_n(&c->ncatalog, __ATOMIC_RELAXED);
	if (__builtin_expect(counter >= ncatalog, 0)) {
		if (!ncatalog) /* emptied since: look the session up again */
			goto look_up;
		goto out;
	}
	const struct recipe *r = c->recipe_of[counter];
	size_t index = (uint32_t)(sample_id - c->first_id); /* wraps like the ids */
	if (index >= c->nsamples) /* a counter not counted: ONE_NONE, below */
		goto out;
	const uint64_t *row =
		(const uint64_t *)(const void *)((const char *)c->values + index * c->stride);

	/* r->one tests the type too: a counter of another type goes on to the
	 * locked path, which says so.  The formulas are the counter's
	 * postfix's operations in its order (og_session_plan_single).  A
	 * ratio of counts below 2^63 with a divisor not 0 (the usual one)
	 * converts them signed, one instruction each, and takes min and max
	 * with the bound as the instruction's second operand: the postfix's
	 * own but for a tie of +0 and -0, which og_session_plan_single rules
	 * out (the value is never NaN: tame numbers, counts below 2^64). */
	unsigned one = r->one;
	if (one == ONE_OF(ONE_RATIO, type)) {
		fetch_ahead(r, row);
		uint64_t x = row[r->a], y = row[r->b];
		if (__builtin_expect((int64_t)x < 0 || (int64_t)y <= 0, 0))
			return ratio(r, row, result);
		double d = (double)(int64_t)x / (double)(int64_t)y * r->n;
		d = d < r->high ? d : r->high;
		d = d > r->low ? d : r->low;
		og_read_exit(rd, seq);
		store_typed(type, result, d, 0, false);
		return GPA_STATUS_OK;
	}
	if (one == ONE_OF(ONE_RAW, type)) {
		uint64_t u = row[r->slot];
		og_read_exit(rd, seq);
		store_typed(type, result, 0.0, u, true);
		return GPA_STATUS_OK;
	}
	if (one == ONE_OF(ONE_SCALED, type)) {
		fetch_ahead(r, row);
		double d = (double)row[r->a] * r->n;
		og_read_exit(rd, seq);
		store_typed(type, result, d, 0, false);
		return GPA_STATUS_OK;
	}
	if (one == ONE_OF(ONE_RATIO_NA, type)) {
		fetch_ahead(r, row);
		uint64_t x = row[r->a], y = row[r->b];
		if (__builtin_expect((int64_t)x < 0 || (int64_t)y <= 0, 0))
			return ratio(r, row, result);
		double d = (double)(int64_t)x * r->na / (double)(int64_t)y * r->n;
		d = d < r->high ? d : r->high;
		d = d > r->low ? d : r->low;
		og_read_exit(rd, seq);
		store_typed(type, result, d, 0, false);
		return GPA_STATUS_OK;
	}
	if (one == ONE_OF(ONE_CALL, type))
		return call(r, row + r->slot, result);
out:
	og_read_exit(rd, seq);
	return general(id, sample_id, counter, result);
look_up:
	og_read_exit(rd, seq);
	return miss(id, sample_id, counter, result);
}

/* The GPA 2.x getter itself (its name `api`, GPUPerfAPI.h), so that a call
 * is no jump through lib/api/gpa2.c first. */
#define GET_SAMPLE_AS(suffix, TYPE, CTYPE, api)                                               \
	static __attribute__((noinline)) GPA_Status general_##suffix(                        \
		uint32_t id, uint32_t sample_id, uint32_t counter, void *result)             \
	{                                                                                    \
		return get_sample_as(id, sample_id, counter, TYPE, result,                   \
		                     og_gpa2_get_sample);                                    \
	}                                                                                    \
	static GPA_Status miss_##suffix(uint32_t id, uint32_t sample_id, uint32_t counter,   \
	                                void *result);                                       \
	static __attribute__((noinline)) GPA_Status call_##suffix(                           \
		const struct recipe *r, const uint64_t *row, void *result)                   \
	{                                                                                    \
		return native_as(r, row, TYPE, result);                                      \
	}                                                                                    \
	static __attribute__((noinline, cold)) GPA_Status ratio_##suffix(                    \
		const struct recipe *r, const uint64_t *row, void *result)                   \
	{                                                                                    \
		return ratio_as(r, row, TYPE, result);                                       \
	}                                                                                    \
	GPA_Status api(gpa_uint32 sessionID, gpa_uint32 sampleID, gpa_uint32 counterIndex,  \
	               CTYPE *pResult)                                                       \
	{                                                                                    \
		return get_cached_as(sessionID, sampleID, counterIndex, TYPE, pResult,       \
		                     general_##suffix, miss_##suffix, call_##suffix,         \
		                     ratio_##suffix);                                        \
	}                                                                                    \
	/* Not the cached session: look it up, keep it if it can be, read. */               \
	static __attribute__((noinline)) GPA_Status miss_##suffix(                           \
		uint32_t id, uint32_t sample_id, uint32_t counter, void *result)             \
	{                                                                                    \
		uint32_t seq = 0;                                                            \
		struct og_reader *rd = og_read_enter(&seq);                                  \
		bool kept = rd && cache_fill(rd, id,                                         \
		                             __atomic_load_n(&og_registry()->read_gen,       \
		                                             __ATOMIC_ACQUIRE));             \
		if (rd)                                                                      \
			og_read_exit(rd, seq);                                               \
		if (kept)                                                                    \
			return get_cached_as(id, sample_id, counter, TYPE, result,           \
			                     general_##suffix, general_##suffix,             \
			                     call_##suffix, ratio_##suffix);                 \
		return general_##suffix(id, sample_id, counter, result);                     \
	}

GET_SAMPLE_AS(f64, GPA_TYPE_FLOAT64, gpa_float64, GPA_GetSampleFloat64)
GET_SAMPLE_AS(f32, GPA_TYPE_FLOAT32, gpa_float32, GPA_GetSampleFloat32)
GET_SAMPLE_AS(u64, GPA_TYPE_UINT64, gpa_uint64, GPA_GetSampleUInt64)
GET_SAMPLE_AS(u32, GPA_TYPE_UINT32, gpa_uint32, GPA_GetSampleUInt32)

/* The gathered counters of a complete row (struct block): per gathered
 * block, its leaves the session has copied once into a scratch block on
 * this stack, then each of its counters' functions over it (each reads
 * only leaves copied: gather_one says why). */
static __attribute__((noinline)) void read_gathered(const struct og_session *s,
                                                    const uint64_t *row, union og_value *out)
{
	uint64_t leaf[GATHER_MAX_LEAVES];
	for (size_t b = 0; b < s->nblocks; b++) {
		const struct block *bl = &s->blocks[b];
		if (!bl->gathered || bl->whole)
			continue;
		for (uint32_t i = 0; i < bl->nleaves; i++)
			leaf[bl->leaves[i].leaf] = row[bl->leaves[i].slot];
		for (size_t k = 0; k < s->ncounters; k++) {
			const struct recipe *r = &s->recipes[k];
			if (r->kind != READ_GATHER || r->block != b)
				continue;
			double v = r->fn(leaf, r->k);
			if (r->integer)
				out[k].u = og_arith_to_u64(v, r->max);
			else
				out[k].d = v;
		}
	}
}

/* The parts of a partial or gathered block (struct block) over its leaves:
 * those in place into the answer, the set's tail there too, the rest into
 * the block's outputs. */
static inline void run_parts(const struct block *bl, const uint64_t *leaf,
                             union og_value *set_out, union og_value *out)
{
	if (bl->in_place)
		bl->set->parts(leaf, bl->set->k, out, bl->out_parts);
	if (bl->tail)
		bl->set->tail(leaf, bl->set->k, out + bl->tail_at);
	if (bl->rest || (!bl->in_place && !bl->tail))
		bl->set->parts(leaf, bl->set->k, set_out, bl->parts);
}

/* A gathered block run whole (struct block): every leaf of its set in a
 * scratch block on this stack, the ones the session has copied from the
 * row and the rest zero (so that no counter of the parts run computes from
 * garbage: the outputs of those the session lacks are not used), then the
 * set's function for the parts holding the session's counters. */
static __attribute__((noinline)) void run_gathered(const struct block *bl, const uint64_t *row,
                                                   union og_value *set_out, union og_value *out)
{
	uint64_t leaf[GATHER_MAX_LEAVES];
	memset(leaf, 0, bl->reach * sizeof(*leaf)); /* the parts read no leaf past it */
	for (uint32_t i = 0; i < bl->nleaves; i++)
		leaf[bl->leaves[i].leaf] = row[bl->leaves[i].slot];
	run_parts(bl, leaf, set_out, out);
}

/* Part of one set, in place (s->one_partial, bench-api part 2's): its
 * parts on the row, the answer's own first, the set's tail, then the rest
 * and their runs.
 * Inline in the unlocked read, which then needs no call of read_row. */
static inline __attribute__((always_inline)) void
read_partial(const struct og_session *s, const uint64_t *row, union og_value *out,
             union og_value *set_out)
{
	const struct block *bl = &s->blocks[0];
	const uint64_t *leaf = row + bl->base;
	if (bl->in_place)
		bl->set->parts(leaf, bl->set->k, out, bl->out_parts);
	if (bl->tail)
		bl->set->tail(leaf, bl->set->k, out + bl->tail_at);
	if (!bl->rest)
		return;
	bl->set->parts(leaf, bl->set->k, set_out, bl->parts);
	for (const struct run *run = s->runs, *end = run + s->nruns; run < end; run++)
		for (uint32_t j = 0; j < run->n; j++)
			out[run->to + j] = set_out[run->from + j];
}

/* Every counter from a complete row: the blocks' functions (their outputs
 * in set_out), then the recipes.  ctx only for the interpreter. */
static void read_row(struct og_context *ctx, const struct og_session *s, const uint64_t *row,
                     union og_value *out, union og_value *set_out)
{
	/* The whole set, in its order: its function writes the answer. */
	if (s->direct) {
		s->blocks[0].set->fn(row + s->blocks[0].base, s->blocks[0].set->k, out);
		return;
	}
	if (s->one_partial) {
		read_partial(s, row, out, set_out);
		return;
	}
	bool called = false; /* a gathered block's counters are called one by one */
	for (size_t b = 0; b < s->nblocks; b++) {
		const struct block *bl = &s->blocks[b];
		if (bl->partial) /* its first leaves in place: the parts read no others */
			run_parts(bl, row + bl->base, &set_out[b * s->set_stride], out);
		else if (!bl->gathered)
			og_native_run(bl->set, row + bl->base, &set_out[b * s->set_stride]);
		else if (bl->whole)
			run_gathered(bl, row, &set_out[b * s->set_stride], out);
		else
			called = true;
	}
	if (s->runs) { /* a few short runs: copied here, not by a call each */
		for (size_t i = 0; i < s->nruns; i++) {
			const struct run *run = &s->runs[i];
			for (uint32_t j = 0; j < run->n; j++)
				out[run->to + j] = set_out[run->from + j];
		}
		return;
	}
	if (called)
		read_gathered(s, row, out);
	for (size_t k = 0; k < s->ncounters; k++) {
		const struct recipe *r = &s->recipes[k];
		double v;
		switch (r->kind) {
		case READ_RAW:
			if (r->integer)
				out[k].u = og_arith_clamp_u64(row[r->slot], r->max);
			else
				out[k].d = og_arith_result((double)row[r->slot]);
			continue;
		case READ_NATIVE:
			out[k] = set_out[r->block * s->set_stride + r->position];
			continue;
		case READ_GATHER: /* run whole, or read_gathered's */
			if (s->blocks[r->block].whole)
				out[k] = set_out[r->block * s->set_stride + r->position];
			continue;
		default:
			v = interpret(ctx, s, row, &ctx->cat.counters[s->counters[k]]);
			if (r->integer)
				out[k].u = og_arith_to_u64(v, r->max);
			else
				out[k].d = v;
			continue;
		}
	}
}

GPA_Status og_session_read(struct og_context *ctx, struct og_session *s, uint32_t sample_id,
                           union og_value *out)
{
	if (is_total(s, sample_id)) {
		for (size_t k = 0; k < s->ncounters; k++) {
			double v;
			uint64_t exact;
			bool is_exact;
			GPA_Status st = total_result(ctx, s, s->counters[k], &v, &exact, &is_exact);
			if (st != GPA_STATUS_OK)
				return st;
			const struct recipe *r = &s->recipes[k];
			if (r->integer)
				out[k].u = is_exact ? og_arith_clamp_u64(exact, r->max)
				                    : og_arith_to_u64(v, r->max);
			else
				out[k].d = v;
		}
		return GPA_STATUS_OK;
	}
	size_t index;
	GPA_Status st = readable(ctx, s, sample_id, s->need_all, &index);
	if (st != GPA_STATUS_OK)
		return st;
	/* The GPU time of the API's counters, waited for: the first of them
	 * says why it is missing, as reading it alone would. */
	if (s->uses_api && (!og_session_collect(s, index, true) || s->samples[index].api_failed))
		for (size_t k = 0; k < s->ncounters; k++)
			if (s->recipes[k].api)
				return og_error(GPA_STATUS_ERROR_READING_COUNTER_RESULT,
				                "counter %s of sample %u (session %u) has no GPU time from the "
				                "API%s (the earlier message says why); the sample's other "
				                "counters are fine", ctx->cat.counters[s->counters[k]].name,
				                sample_id, s->id,
				                s->samples[index].api_failed ? "" : " on this thread");
	read_row(ctx, s, &s->values[index * s->nslots], out, s->set_out);
	return GPA_STATUS_OK;
}

GPA_Status og_session_get_results(uint32_t id, uint32_t sample_id, uint32_t count,
                                  union og_value *out, og_get_results_fn *locked)
{
	uint32_t seq = 0;
	struct og_reader *rd = og_read_enter(&seq);
	if (!rd)
		goto locked;
	if (!out)
		goto out;
	const struct og_context *ctx;
	uint8_t how;
	const struct og_session *s = unlocked_find(id, &ctx, &how);
	size_t index;
	/* The interpreter uses the context's scratch, and the blocks' outputs
	 * go to the stack: both only so far. */
	if (!s || count < s->ncounters || s->interpreted ||
	    s->nblocks * s->set_stride > UNLOCKED_SET_OUT || !index_find(s, sample_id, &index))
		goto out;
	if (how != UNLOCKED_COMPLETE) {
		const struct sample *smp = &s->samples[index];
		if (smp->failed || (smp->passes & s->need_all) != s->need_all)
			goto out;
	}
	union og_value set_out[UNLOCKED_SET_OUT];
	if (s->one_partial)
		read_partial(s, &s->values[index * s->nslots], out, set_out);
	else
		read_row(NULL, s, &s->values[index * s->nslots], out, set_out);
	og_read_exit(rd, seq);
	return GPA_STATUS_OK;
out:
	og_read_exit(rd, seq);
locked:
	return locked(id, sample_id, count, out);
}

GPA_Status og_session_sample_raws(const struct og_context *ctx, const struct og_session *s,
                                  uint32_t sample_id, uint64_t *by_backend_id, size_t n)
{
	size_t index;
	if (!index_find(s, sample_id, &index))
		return GPA_STATUS_ERROR_SAMPLE_NOT_FOUND;
	for (size_t r = 0; r < ctx->cat.nraw; r++) {
		uint32_t id = ctx->cat.raws[r].backend_id;
		if (s->slot_of_raw[r].slot != UINT32_MAX && id < n)
			by_backend_id[id] = s->values[index * s->nslots + s->slot_of_raw[r].slot];
	}
	return GPA_STATUS_OK;
}

size_t og_session_raw_count(const struct og_session *s)
{
	return s->nslots;
}

void og_session_read_kinds(const struct og_session *s, size_t *raw, size_t *in_place,
                           size_t *gathered, size_t *interpreted)
{
	*raw = *in_place = *gathered = *interpreted = 0;
	for (size_t k = 0; k < s->ncounters; k++) {
		uint8_t kind = s->recipes[k].kind;
		*(kind == READ_RAW ? raw : kind == READ_NATIVE ? in_place
		  : kind == READ_GATHER ? gathered : interpreted) += 1;
	}
}

