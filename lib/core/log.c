/* SPDX-License-Identifier: MIT */
/*
 * log.c — messages for the client's logging callback and, on request,
 * stderr.  Messages are queued under the registry lock and delivered by
 * og_unlock() after the lock is dropped: a callback may call the API.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/readers.h"
#include "core/registry.h"

/* OPENGPA_LOG=error|message|trace|all (comma-separated) or a GPA_Logging_Type number. */
static unsigned parse_log_env(const char *v)
{
	if (!v || !*v)
		return 0;
	char *end;
	unsigned long n = strtoul(v, &end, 0);
	if (*end == '\0')
		return (unsigned)n & GPA_LOGGING_ALL;
	unsigned mask = 0;
	const char *p = v;
	while (*p) {
		size_t len = strcspn(p, ",");
		if (len == 5 && strncasecmp(p, "error", 5) == 0)
			mask |= GPA_LOGGING_ERROR;
		else if (len == 7 && strncasecmp(p, "message", 7) == 0)
			mask |= GPA_LOGGING_ERROR | GPA_LOGGING_MESSAGE;
		else if (len == 5 && strncasecmp(p, "trace", 5) == 0)
			mask |= GPA_LOGGING_TRACE;
		else if (len == 3 && strncasecmp(p, "all", 3) == 0)
			mask |= GPA_LOGGING_ALL;
		p += len + (p[len] == ',');
	}
	return mask;
}

static unsigned stderr_mask(struct og_registry *r)
{
	if (!r->stderr_mask_read) {
		r->stderr_mask = parse_log_env(secure_getenv("OPENGPA_LOG"));
		r->stderr_mask_read = true;
		og_log_changed();
	}
	return r->stderr_mask;
}

/* The callbacks or the stderr mask changed: the cached masks follow, and
 * a 2.x call traced must take the lock, where messages are made. */
void og_log_changed(void)
{
	struct og_registry *r = og_registry();
	unsigned err = r->stderr_mask_read ? r->stderr_mask : OG_LOG_WANTS_UNREAD;
	/* A caller's mask is any unsigned: its top bit must not read as "unread". */
	for (int f = 0; f < OG_FRONT_COUNT; f++)
		r->log_wants[f] = ((r->callback[f].fn ? r->callback[f].mask : 0) &
		                   ~OG_LOG_WANTS_UNREAD) | err;
	if (r->debug_callback)
		r->log_wants[OG_FRONT_GPA2] |= r->debug_mask & ~OG_LOG_WANTS_UNREAD;
	__atomic_store_n(&og_read_locked, (r->log_wants[OG_FRONT_GPA2] & OG_LOG_TRACE) != 0,
	                 __ATOMIC_RELAXED);
	og_readers_changed(); /* cached reads check og_read_locked only when they miss */
}

/* OPENGPA_LOG not read yet: once per process.  Out of line, so the test
 * below sets up no frame. */
static __attribute__((noinline, cold)) unsigned log_wants_first(struct og_registry *r)
{
	stderr_mask(r); /* reads OPENGPA_LOG, then og_log_changed */
	return r->log_wants[r->front];
}

bool og_log_wants(enum og_log_level level)
{
	struct og_registry *r = og_registry();
	unsigned mask = r->log_wants[r->front];
	if (__builtin_expect(mask & OG_LOG_WANTS_UNREAD, 0))
		mask = log_wants_first(r);
	return mask & (unsigned)level;
}

/* A message may quote what a backend read, a file held or a caller passed:
 * no control character (C0, DEL, or C1 in UTF-8) reaches the callback or
 * stderr, whatever the code that wrote the message forgot to quote.  Each
 * becomes \xNN; UTF-8 text stays as it is. */
static void printable(char *dst, size_t len, const char *src)
{
	static const char hex[] = "0123456789abcdef";
	size_t at = 0;
	for (const unsigned char *p = (const unsigned char *)src; *p && at + 1 < len; p++) {
		bool c1 = p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f;
		if (*p >= 0x20 && *p != 0x7f && !c1) {
			dst[at++] = (char)*p;
			continue;
		}
		if (at + 5 > len)
			break;
		unsigned char c = c1 ? *++p : *p;
		dst[at++] = '\\';
		dst[at++] = 'x';
		dst[at++] = hex[c >> 4];
		dst[at++] = hex[c & 15];
	}
	dst[at] = '\0';
}

void og_logv(enum og_log_level level, const char *fmt, va_list ap)
{
	struct og_registry *r = og_registry();
	if (!og_log_wants(level))
		return;
	if (r->queued == OG_LOG_QUEUE) {
		r->dropped++;
		return;
	}
	char raw[OG_LOG_LINE];
	vsnprintf(raw, sizeof(raw), fmt, ap);
	/* The callback contract: one message, no trailing newline. */
	size_t len = strlen(raw);
	while (len && (raw[len - 1] == '\n' || raw[len - 1] == '\r'))
		raw[--len] = '\0';
	printable(r->queue[r->queued].text, OG_LOG_LINE, raw);
	struct og_log_entry *e = &r->queue[r->queued++];
	e->level = level;
	e->front = r->front;
	const struct og_log_callback *cb = &r->callback[r->front];
	e->to = cb->fn && (cb->mask & level) ? cb->fn : NULL;
	e->debug = r->front == OG_FRONT_GPA2 && (r->debug_mask & level) ? r->debug_callback : NULL;
}

void og_log(enum og_log_level level, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	og_logv(level, fmt, ap);
	va_end(ap);
}

GPA_Status og_error(GPA_Status status, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	og_logv(OG_LOG_ERROR, fmt, ap);
	va_end(ap);
	return status;
}

GPA_Status og_set_log_callback(unsigned mask, GPA_LoggingCallbackPtrType callback)
{
	struct og_registry *r = og_registry();
	if (mask != GPA_LOGGING_NONE && !callback)
		return og_error(GPA_STATUS_ERROR_NULL_POINTER,
		                "the logging callback is NULL; pass a function, or the logging type "
		                "NONE to stop logging");
	r->callback[r->front].fn = mask == GPA_LOGGING_NONE ? NULL : callback;
	r->callback[r->front].mask = mask;
	og_log_changed();
	if (r->callback[r->front].fn)
		og_log(OG_LOG_MESSAGE, "Logging callback registered successfully.");
	return GPA_STATUS_OK;
}

GPA_Status og_set_debug_callback(unsigned mask, GPA_LoggingDebugCallbackPtrType callback)
{
	struct og_registry *r = og_registry();
	if (mask != GPA_LOG_NONE && !callback)
		return og_error(GPA_STATUS_ERROR_NULL_POINTER,
		                "the debug logging callback is NULL; pass a function, or GPA_LOG_NONE "
		                "to stop debug logging");
	r->debug_callback = mask == GPA_LOG_NONE ? NULL : callback;
	r->debug_mask = mask;
	og_log_changed();
	if (r->debug_callback)
		og_log(OG_LOG_MESSAGE, "Debug logging callback registered successfully.");
	return GPA_STATUS_OK;
}

/* Delivers the queued messages with the lock released.  Its own function
 * because the copy is 16 KiB of stack: og_unlock's fast path, taken on
 * every API call, must not pay for (or probe) that frame. */
static __attribute__((noinline)) void deliver_and_unlock(struct og_registry *r)
{
	unsigned n = r->queued, dropped = r->dropped;
	struct og_log_entry out[OG_LOG_QUEUE];
	memcpy(out, r->queue, n * sizeof(out[0]));
	unsigned err_mask = stderr_mask(r);
	r->queued = r->dropped = 0;
	pthread_mutex_unlock(&r->lock);

	for (unsigned i = 0; i < n; i++) {
		/* GPA 3.x and 4.x end every message with a full stop (their own
		 * tests assert it); 2.x messages carry none. */
		size_t len = strlen(out[i].text);
		if (out[i].front == OG_FRONT_TABLE && len && out[i].text[len - 1] != '.') {
			if (len + 1 >= OG_LOG_LINE)
				len = OG_LOG_LINE - 2;
			out[i].text[len] = '.';
			out[i].text[len + 1] = '\0';
		}
		if (out[i].to)
			out[i].to((GPA_Logging_Type)out[i].level, out[i].text);
		if (out[i].debug)
			out[i].debug((enum GPA_Log_Debug_Type)out[i].level, out[i].text);
		if (err_mask & out[i].level)
			fprintf(stderr, "opengpa: %s\n", out[i].text);
	}
	if (dropped && (err_mask & GPA_LOGGING_ERROR))
		fprintf(stderr, "opengpa: %u more messages were dropped\n", dropped);
}

void og_unlock(void)
{
	struct og_registry *r = og_registry();
	if (r->queued == 0 && r->dropped == 0)
		pthread_mutex_unlock(&r->lock);
	else
		deliver_and_unlock(r);
}
