/* SPDX-License-Identifier: MIT */
/*
 * session_state.h — a session's books as the session_*.c files share them:
 * the sample records, the read recipes, the slot layout, struct og_session
 * itself, and the few lookups every one of them makes (inline: the result
 * reads make them per value).  Private to lib/core/session*.c.
 */
#ifndef OPENGPA_CORE_SESSION_STATE_H
#define OPENGPA_CORE_SESSION_STATE_H

#include <stdlib.h>
#include <string.h>

#include "apictx/apictx.h"
#include "core/session_internal.h"


/* uint32 id -> index, open addressing; vals hold index + 1, 0 = empty. */
struct id_map {
	uint32_t *keys;
	uint32_t *vals;
	size_t cap, count;
};

/* 40 bytes, beside the sample's row of raw counts: the books every sample
 * adds, so kept small (a new page of them is a first touch of memory).
 * Its end time is begin_ns + span_ns; a span (end - begin modulo 2^64) that
 * does not fit 32 bits (4.29 s and longer, or an end before its begin) is
 * SPAN_LONG and the end is kept exactly in the session's long_ends, by id
 * (sample_end_ns).  Its
 * API timer token, which only sessions on an application's API have, is in
 * the session's api_tokens (sample_token). */
struct sample {
	uint64_t begun;   /* bit p: begun in pass p */
	uint64_t passes;  /* bit p: ended in pass p */
	uint64_t begin_ns; /* of the first pass that counted it */
	uint32_t span_ns;  /* its end - begin_ns; SPAN_LONG: see above */
	uint32_t id;
	float coverage;   /* least share of it the counters really counted */
	/* OG_SAMPLE_* of that pass (backend.h: all below SAMPLE_TIMED), and
	 * SAMPLE_TIMED once begin_ns, span_ns and these flags are set: one
	 * byte store (sample_flags reads the flags alone). */
	uint8_t flags_timed;
	bool failed;      /* the backend could not read it */
	bool api_failed;  /* the API timer gave no result */
	uint8_t owed;     /* deferred passes whose device counts are still to come */
};
_Static_assert(sizeof(struct sample) == 40, "a sample's record is 40 bytes");
#define SAMPLE_TIMED 0x80u
_Static_assert((OG_SAMPLE_PROTECTED | OG_SAMPLE_FAILED | OG_SAMPLE_KERNEL_TIME |
                OG_SAMPLE_OVERFLOW | OG_SAMPLE_LATE | OG_SAMPLE_FINAL | OG_SAMPLE_BLOCKS_OFF) <
               SAMPLE_TIMED, "sample flags fit struct sample.flags_timed below SAMPLE_TIMED");

#define SPAN_LONG UINT32_MAX

static inline uint32_t sample_flags(const struct sample *smp)
{
	return smp->flags_timed & ~SAMPLE_TIMED;
}

static inline bool sample_timed(const struct sample *smp)
{
	return smp->flags_timed & SAMPLE_TIMED;
}

/* How the session reads one of its counters. */
enum recipe_kind {
	READ_RAW,    /* a raw count: slot */
	READ_NATIVE, /* generated code: block, position in its set */
	READ_EXPR,   /* the interpreter */
	READ_GATHER, /* generated code over a scratch block: its leaves copied from the row */
};

/* A leaf of a set's block a gathered counter reads: scratch[leaf] =
 * row[slot] (session_layout.c, struct block). */
struct leaf_pair {
	uint32_t slot, leaf;
};

struct recipe {
	uint64_t need; /* bit p: a raw input of pass p */
	uint8_t kind;
	bool integer;  /* an integer counter: og_value.u, at most max */
	bool api;      /* reads a raw counter the application's API measures */
	uint8_t type;  /* GPA_Type */
	uint32_t slot; /* READ_RAW: the raw's slot; READ_NATIVE: the block's base;
	                  READ_GATHER: 0 (the row's start) */
	uint32_t block, position; /* READ_NATIVE, READ_GATHER: in blocks[], in its set */
	uint64_t max;
	og_native_counter_fn *fn; /* READ_NATIVE, READ_GATHER: the counter's own function */
	const double *k;         /* and the set's constants */
	/* READ_GATHER: the leaves its function reads, where the row has them
	 * (a read of it alone copies just these). */
	const struct leaf_pair *leaves;
	uint32_t nleaves;
	/* How the unlocked single read computes it (og_session_plan_single,
	 * session_single.c): ONE_* | its GPA_Type << 8, so that one compare
	 * tests both; ONE_SCALED and ONE_RATIO* (a counter of one raw value
	 * times a number, or a ratio of two, as most are) in the read itself,
	 * with no call.  Their value: max(min(div(row[a] * na, row[b]) * n,
	 * high), low), with no divisor for ONE_SCALED. */
	uint32_t one; /* 32 bits: a compare takes it from memory (a 16-bit
	                 compare with an immediate stalls Intel's decoders) */
	uint32_t a, b; /* row slots */
	/* ONE_SCALED, ONE_RATIO*: bytes from a row to slot a of the row
	 * OG_READ_AHEAD samples on, which the read asks the processor to
	 * fetch (session_results.c, fetch_ahead); else 0. */
	uint32_t ahead;
	double na, n, high, low;
};

/* How many samples on a formula read fetches the row it will read if its
 * client goes on sample by sample (issue 29: rows of 147 values, 1176
 * bytes apart, that a loaded machine has evicted; 8 to 32 measured alike). */
#define OG_READ_AHEAD 16

/* recipe.one's low byte. */
enum {
	ONE_NONE,   /* the general path's (get_sample_as) */
	ONE_RAW,    /* READ_RAW */
	ONE_CALL,   /* READ_NATIVE: its function over the block */
	ONE_SCALED, /* row[a] * n */
	ONE_RATIO,  /* the formula above, na 1 (so not multiplied by) */
	ONE_RATIO_NA, /* the whole formula above */
	ONE_KINDS
};
#define ONE_OF(how, type) ((unsigned)(how) | (unsigned)(type) << 8)

/* A built-in set's raw leaves in its own order at row[base ...]: all of
 * them, or (partial) the first `reach`, the leaves the parts holding the
 * session's counters read (native.h), when the session needs nearly all of
 * those (window_pays): a batch read runs those parts on the row in place.
 * Or, when the session needs too few of them for either to pay (gathered,
 * see block_pays), only the leaves it needs, each in its compact slot: a
 * read copies them (leaves[0 .. nleaves)) into a scratch block on its own
 * stack and runs each counter's function over that. */
struct block {
	const struct og_native_binding *set;
	uint32_t base;
	bool gathered;
	bool partial;
	/* Gathered, and a batch read runs the set's function for the parts
	 * holding the session's counters (`parts`, native.h) over the scratch,
	 * the leaves the session lacks zero, rather than each counter's
	 * function: the session reads enough of those parts (block_runs_parts). */
	bool whole;
	uint32_t reach; /* partial or gathered: the parts read leaves [0, reach) */
	uint64_t parts[OG_NATIVE_PART_WORDS];
	/* Of those parts, the ones a batch read runs straight into its answer
	 * (their every position p is the session's counter p: plan_in_place),
	 * taken out of `parts`; `rest`: parts still holds one. */
	uint64_t out_parts[OG_NATIVE_PART_WORDS];
	bool in_place, rest;
	/* The set's last part holds only the session's answers tail_at ..
	 * tail_at + tail_size - 1, its tail in order (plan_tail): the set's
	 * tail function writes them there, and the part is out of `parts`. */
	bool tail;
	uint32_t tail_at;
	const struct leaf_pair *leaves;
	uint32_t nleaves;
};

/* The largest set a gathered block may be of: its scratch block (8 bytes a
 * leaf, 4 KiB) is on the reading thread's stack.  A larger set is
 * interpreted; the largest built-in set has 215 leaves (Mali-G1). */
#define GATHER_MAX_LEAVES 512

/* The most block outputs an unlocked batch read keeps on its stack. */
#define UNLOCKED_SET_OUT 512

/* og_session.unlocked: how og_session_get_sample may read it. */
enum {
	UNLOCKED_NO,       /* open, or periodic: under the lock */
	UNLOCKED_SAMPLES,  /* ended: each sample's passes are checked */
	UNLOCKED_COMPLETE, /* ended, and every sample has every pass */
};

struct og_session {
	/* What og_session_fast_result reads, together. */
	uint32_t id;
	uint8_t unlocked; /* UNLOCKED_*: stored with release when it ends */
	bool sparse;      /* see index below */
	uint32_t ncatalog; /* the catalogue's counters: recipe_of[]'s length */
	uint32_t first_id; /* samples[0].id (dense ids) */
	uint32_t sel_version; /* 2.x: its context's og_selection.version at its begin */
	const struct recipe **recipe_of;
	struct recipe *recipes;
	uint64_t *values; /* nsamples * nslots */
	size_t nsamples, nslots;

	/* What beginning and ending a sample read and write, together after
	 * the block above (a sample's calls come between two system calls,
	 * which evict some of the caller's cache lines): the progress, the
	 * records, and what tells the plain sample from the rest. */
	bool pass_open;
	bool sample_open;
	bool defer_device; /* device counts come later (og_session_defer_device) */
	/* The open pass's samples are plain (session.c, og_pass_begin): a
	 * planned pass the backend counts, its deltas straight into the row
	 * (pass_direct), no API, timeline pipe, periodic or deferred counts. */
	bool quick;
	uint32_t pass_index;   /* the open pass */
	size_t cur;            /* index of the open sample (a planned pass) */
	uint32_t cur_id;
	/* The open pass's backend deltas go straight into the row from this
	 * slot on (their pairs are deltas[k] -> row[direct + k]); UINT32_MAX:
	 * through deltas and scatter. */
	uint32_t pass_direct;
	uint64_t cur_begin_ns; /* when the open sample began */
	size_t npasses;
	struct sample *samples; /* samples: see below */
	size_t cap;
	uint64_t *deltas; /* one pass's values from the backend */
	/* Per sample (index, cap entries), only on an application's API: its
	 * API timer until the result is in (apictx.h); 0: none. */
	uint32_t *api_tokens;
	struct og_apictx *api; /* the application's API: see below */
	int frame_fd; /* the context's (opengpa stat's timeline); -1: none */
	int32_t api_pass; /* -1: no pass has API raws */
	uint64_t period_ns; /* periodic sampling: see below; 0 = the client's samples */
	uint32_t pass_samples[OG_MAX_PASSES]; /* samples begun per planned pass */

	/* Progress, the rest. */
	uint32_t passes_begun; /* og_pass_begin calls */
	uint32_t passes_done;  /* passes of the plan ended */
	int32_t highest_pass;  /* -1: none begun */
	bool backend_pass;     /* begin_pass succeeded and end_pass is owed */

	bool ended;
	pthread_t owner;

	/* What the session counts, fixed at begin. */
	uint32_t *counters; /* enabled counter indices, enable order */
	size_t ncounters;
	/* Per catalogue raw: where its value is kept and which pass counts it;
	 * slot UINT32_MAX when the session does not count it. */
	struct raw_slot {
		uint32_t slot;
		uint32_t pass;
	} *slot_of_raw;
	struct {
		size_t n;
		size_t nbackend; /* of the n, the backend's (backend_ids); the rest the API's */
		uint32_t *backend_ids;
		size_t *group_sizes; /* multiplexed pass; NULL otherwise */
		size_t ngroups;
		/* Where its counts go: row[dst[k]] = deltas[src[k]] (a raw counter
		 * can fill more than one slot). */
		uint32_t *src, *dst;
		size_t npairs;
	} pass[OG_MAX_PASSES];

	/* Reading: a recipe per counter (enable order) and, per catalogue
	 * counter, its recipe (recipe_of; og_recipe_none's, the zeroed one
	 * past the last, when the session does not count it: recipe.one
	 * ONE_NONE, so the cached read needs no test for it); the set blocks. */
	uint64_t need_all;
	struct block blocks[4];
	size_t nblocks;
	/* The counters are exactly blocks[0]'s set in its order: its function
	 * writes a batch read's answer.  Or they all come from blocks[0]: runs
	 * copy its outputs to the answer (out[to ...] = set[from ...], n each). */
	bool direct;
	/* Or they all come from blocks[0] kept partial (struct block), read by
	 * its parts in place and the runs. */
	bool one_partial;
	struct run {
		uint32_t from, to, n;
	} *runs;
	size_t nruns;
	union og_value *set_out; /* the blocks' outputs, one set's width each */
	size_t set_stride;
	bool interpreted; /* a counter is read by the interpreter */
	bool gathers;     /* a counter is READ_GATHER */
	/* Every gathered block's pairs, then every READ_GATHER recipe's. */
	struct leaf_pair *pairs;
	size_t npairs;

	/* An extra pass (beyond the plan) counts nothing but its sample IDs
	 * must still be unique: they are kept here while it is open. */
	struct id_map extra;
	uint32_t extra_samples;

	/* Samples (samples above), in the order they first appeared (their
	 * values above).
	 * Sample id -> index: most clients number samples 0, 1, 2...: while
	 * every id is first_id plus its index the lookup is arithmetic (dense);
	 * the first id out of line builds a hash index (sparse). */
	struct id_map index;
	/* The ends of samples whose span is SPAN_LONG: long_ends[k], k from
	 * long_end_at by sample id (ids are unique in a session and stay with
	 * a sample when a window drops the ones before it). */
	struct id_map long_end_at;
	uint64_t *long_ends;
	size_t nlong, cap_long;

	/* Periodic sampling (session_periodic.c; period_ns above, 0 = the
	 * client's samples).  Samples [0, nsamples) are complete; the timer thread or the
	 * kernel adds the next. */
	struct og_periodic *periodic; /* while the pass is sampled */
	bool kernel_timed;
	bool ending; /* EndPass is stopping the sampling, lock released */
	/* The fewest samples (dropped ones included) a waiter waits for, 0:
	 * nobody waits for samples.  og_session_append wakes the waiters when
	 * there are that many, not at every sample: a reader that waits for
	 * several at a time is then woken once for them (session_wait.c). */
	uint64_t wake_at;
	/* The window (OpenGPA_SetPeriodicWindow): 0 keeps every sample; else
	 * the oldest are dropped, `window` at a time once 2 * window are kept,
	 * their counts summed into what the total still needs. */
	uint32_t window;
	size_t dropped;           /* samples 0 .. dropped - 1 are gone */
	uint64_t *dropped_sum;    /* per slot, over the dropped samples that counted */
	size_t dropped_counted;
	struct og_sample_time dropped_time; /* first begin, every flag */
	double dropped_coverage;

	/* The application's API (apictx.h): NULL for a plain context.  Its raw
	 * counters' values go to api_slot[k] (value api_value[k], an
	 * enum og_api_value) when a sample's timer result is in; they are all
	 * in api_pass.  Samples before api_scan have their results in. */
	bool uses_api;    /* a counter reads an API raw */
	uint32_t *api_slot, *api_value;
	size_t napi, api_scan;

	/* Device counts delivered after recording (og_session_defer_device):
	 * how many (sample, pass) pairs still owe theirs. */
	size_t owed;
};

/* recipe_of[c] for a counter c the session does not count. */
static inline const struct recipe *og_recipe_none(const struct og_session *s)
{
	return &s->recipes[s->ncounters];
}

/* ---- lookups and the scatter, shared by the session_*.c files ---------- */

static inline size_t id_hash(uint32_t id, size_t cap)
{
	return (size_t)((id * 2654435761u) & (cap - 1));
}

static inline bool map_find(const struct id_map *m, uint32_t id, size_t *index)
{
	if (!m->cap)
		return false;
	for (size_t i = id_hash(id, m->cap);; i = (i + 1) & (m->cap - 1)) {
		if (!m->vals[i])
			return false;
		if (m->keys[i] == id) {
			*index = m->vals[i] - 1;
			return true;
		}
	}
}

static inline bool index_find(const struct og_session *s, uint32_t id, size_t *index)
{
	if (!s->sparse) {
		uint32_t offset = id - s->first_id; /* wraps like the ids */
		if (offset >= s->nsamples)
			return false;
		*index = offset;
		return true;
	}
	return map_find(&s->index, id, index);
}

/* A sample's counts of pass p into its row. */
static inline void scatter(struct og_session *s, size_t index, uint32_t p, const uint64_t *deltas)
{
	uint64_t *row = &s->values[index * s->nslots];
	for (size_t k = 0; k < s->pass[p].npairs; k++)
		row[s->pass[p].dst[k]] = deltas[s->pass[p].src[k]];
}

static inline uint64_t add_sat(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* OG_SAMPLES_TOTAL names every sample at once, unless the client has a
 * sample of its own with that ID. */
static inline bool is_total(const struct og_session *s, uint32_t sample_id)
{
	size_t index;
	return sample_id == OG_SAMPLES_TOTAL && !index_find(s, sample_id, &index);
}

/* session_ids.c: sample id maps. */
bool og_session_map_reserve(struct id_map *m, size_t count);
bool og_session_map_put(struct id_map *m, uint32_t id, size_t index);
void og_session_map_clear(struct id_map *m);
/* Room for a new sample `id` at the end: its index. */
bool og_session_add_sample(struct og_session *s, uint32_t id, size_t *index);

/* Sample `smp`'s end, kept in long_ends because its span does not fit
 * (SPAN_LONG); false when out of memory (the span is then 0). */
bool og_session_set_long_end(struct og_session *s, struct sample *smp, uint64_t end_ns);
/* The end kept for sample `id` (0 if none). */
uint64_t og_session_long_end(const struct og_session *s, uint32_t id);

/* A sample's times and flags; false when out of memory for a long end. */
static inline bool sample_set_time(struct og_session *s, struct sample *smp,
                                   const struct og_sample_time *t)
{
	smp->begin_ns = t->begin_ns;
	smp->flags_timed = (uint8_t)(t->flags | SAMPLE_TIMED);
	uint64_t span = t->end_ns - t->begin_ns;
	if (span < SPAN_LONG) { /* begin + span is end again, modulo 2^64 as well */
		smp->span_ns = (uint32_t)span;
		return true;
	}
	return og_session_set_long_end(s, smp, t->end_ns);
}

static inline uint64_t sample_end_ns(const struct og_session *s, const struct sample *smp)
{
	if (smp->span_ns != SPAN_LONG)
		return smp->begin_ns + smp->span_ns;
	return og_session_long_end(s, smp->id);
}

/* Sample `index`'s API timer token (0: none, or not on an API). */
static inline uint32_t sample_token(const struct og_session *s, size_t index)
{
	return s->api_tokens ? s->api_tokens[index] : 0;
}

/* session_single.c: each recipe's `one` (the counters' kinds final). */
void og_session_plan_single(struct og_session *s, const struct og_catalog *cat);

/* A new sample `id` at the end of the books: its index, or false when out
 * of memory.  The usual case, the next of ids in a row with room left, is
 * stored here (what og_session_add_sample does for it, without the call,
 * the dense check twice and a memset call for a few slots); the rest,
 * the first sample, a full array or an id out of line, goes there.  Every
 * sample begins here (session.c, session_record.c). */
static inline bool og_session_store_sample(struct og_session *s, uint32_t id, size_t *index)
{
	size_t n = s->nsamples;
	if (s->sparse || n == 0 || n == s->cap || id != s->first_id + (uint32_t)n)
		return og_session_add_sample(s, id, index);
	s->samples[n] = (struct sample){ .id = id, .coverage = 1.0f };
	uint64_t *row = &s->values[n * s->nslots];
	for (size_t k = 0; k < s->nslots; k++)
		row[k] = 0;
	s->nsamples = n + 1;
	*index = n;
	return true;
}

/* session.c: sample `index`'s API timer result into its slots once the API
 * has it (or waiting for it); true when nothing is pending for it. */
bool og_session_collect(struct og_session *s, size_t index, bool wait);

/* session_layout.c: a session laid out for its plan (NULL: out of memory). */
struct og_session *og_session_create(struct og_context *ctx, const struct og_selection *sel,
                                     const struct og_plan *plan);

#endif
