/* SPDX-License-Identifier: MIT */
/* harness.c — log capture and the virtual device for the mips tests. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"

extern const struct og_backend_ops og_backend_mips;

static void capture(void *ctx, enum og_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void capture(void *ctx, enum og_log_level level, const char *fmt, ...)
{
	struct harness *h = ctx;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(h->last, sizeof h->last, fmt, ap);
	va_end(ap);
	/* One line per call and no trailing newline: the backend contract. */
	assert_null(strchr(h->last, '\n'));
	size_t used = strlen(h->log);
	snprintf(h->log + used, sizeof h->log - used, "%s\n", h->last);
	if (level == OG_LOG_ERROR)
		h->errors++;
	else
		h->messages++;
}

void harness_init(struct harness *h, const struct v34k_config *config)
{
	memset(h, 0, sizeof *h);
	h->dev = v34k_new(config);
	assert_non_null(h->dev);
	h->host.sys = v34k_sys(h->dev);
	h->host.log = capture;
	h->host.log_ctx = h;
}

void harness_fini(struct harness *h)
{
	v34k_free(h->dev);
}

void harness_clear_log(struct harness *h)
{
	h->log[0] = '\0';
	h->last[0] = '\0';
	h->errors = h->messages = 0;
}

void *harness_open(struct harness *h, const char *options)
{
	void *state = NULL;
	struct og_device_info info;
	GPA_Status st = og_backend_mips.open(&h->host, options, &state, &info);
	if (st != GPA_STATUS_OK)
		fail_msg("open(\"%s\") = %d: %s", options, st, h->last);
	assert_string_equal(info.counter_sets[0], "mips-34k");
	return state;
}
