/* SPDX-License-Identifier: MIT */
/* harness.h — a backend host for the mips tests: the virtual 34K underneath
 * and every log line captured, so tests can assert on what the user reads. */
#ifndef OPENGPA_TESTS_MIPS_HARNESS_H
#define OPENGPA_TESTS_MIPS_HARNESS_H

#include "backend.h"
#include "v34k.h"

struct harness {
	struct og_backend_host host;
	struct v34k *dev;
	char log[8192]; /* every line, '\n'-separated */
	unsigned errors, messages;
	char last[512];
};

/* NULL config: the v34k defaults. */
void harness_init(struct harness *h, const struct v34k_config *config);
void harness_fini(struct harness *h);
void harness_clear_log(struct harness *h);

/* The mips backend opened on the harness; asserts success. */
void *harness_open(struct harness *h, const char *options);

#endif
