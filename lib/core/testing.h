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

#endif
