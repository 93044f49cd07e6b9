/* SPDX-License-Identifier: MIT */
/*
 * testing.h — hooks for opengpa's own tests; not part of any public ABI.
 * Tests link the core statically and call these.
 */
#ifndef OPENGPA_CORE_TESTING_H
#define OPENGPA_CORE_TESTING_H

#include "sys.h"
#include "backend.h"

/* Syscall table for contexts opened afterwards (NULL = the real kernel), so
 * tests can put a virtual device under a backend. */
void og_testing_set_sys(const struct og_sys *sys);

/* Backend used for contexts opened afterwards when the backend setting is
 * "test" (NULL = none): lets tests plug in a backend of their own. */
void og_testing_set_backend(const struct og_backend_ops *ops);

/* Closes every context (of every front end, open sessions and all), forgets
 * the logging callbacks and GpaInitialize, and returns the settings to
 * their defaults (tests run one after another). */
void og_testing_reset(void);

/* The raw values session `id` of the current 2.x context stored for
 * `sample`, at their backend ids (those below n): what benchmarks feed the
 * hand-written formulas they compare with.  And how many raw values each of
 * its samples stores. */
GPA_Status og_testing_sample_raws(uint32_t id, uint32_t sample, uint64_t *by_backend_id, size_t n);
size_t og_testing_session_raw_count(uint32_t id);
/* How many of session `id`'s counters a read computes each way: a raw
 * count, a generated function over its set's block in the row, one over a
 * scratch block gathered from the row, the interpreter (out[0 .. 4) in that
 * order).  SESSION_NOT_FOUND without such a session. */
GPA_Status og_testing_session_read_kinds(uint32_t id, size_t out[4]);

/* How many of session `id`'s counters a cached GPA_GetSample* read computes
 * each way: the general path's, a raw count, a call of its generated
 * function, a scaled raw value in the read, a ratio in the read, one with
 * a number multiplying its dividend (out[0 .. 6) in that order).
 * SESSION_NOT_FOUND without such a session. */
GPA_Status og_testing_session_single_kinds(uint32_t id, size_t out[6]);

/* A function a GPA_GetSample* read that keeps its session in the thread's
 * cache (core/readers.h) calls between its look-up and its stores, inside
 * its read section (NULL: none): a change made there is the one a writer
 * on another thread can make in that window, which the read must notice. */
void og_testing_set_fill_hook(void (*hook)(void));

/* Whether this thread's GPA_GetSample* calls now read without the lock
 * (core/readers.h): false before its first read, with trace logging on, or
 * where membarrier(2) is refused. */
bool og_testing_reads_unlocked(void);

#endif
