/* SPDX-License-Identifier: MIT */
/*
 * perf_scope.c — who a pass counts, and the (pid, cpu) pairs that means.
 *
 * perf_event_open(2) counts one thread (pid > 0, cpu -1), or everything on
 * one CPU (pid -1, cpu >= 0).  A process is its threads: like perf stat -p,
 * the backend opens one group per thread listed in /proc/PID/task when the
 * pass begins, with inherit so threads those threads start are counted too.
 * "All CPUs" is one group per online CPU.  The deltas of a pass are summed
 * over its targets (perf_group.c).
 */
#include "perf_internal.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ONLINE_PATH "/sys/devices/system/cpu/online"

/* "0"/"self" = the calling thread; otherwise a positive id. */
static bool parse_id(const char *text, pid_t *pid)
{
	if (strcmp(text, "self") == 0) {
		*pid = 0;
		return true;
	}
	char *end;
	errno = 0;
	long v = strtol(text, &end, 10);
	if (end == text || *end || errno || v < 0 || v > INT_MAX)
		return false;
	*pid = (pid_t)v;
	return true;
}

static bool parse_bool(const char *text, bool *v)
{
	if (strcmp(text, "1") == 0 || strcmp(text, "yes") == 0 || strcmp(text, "true") == 0)
		*v = true;
	else if (strcmp(text, "0") == 0 || strcmp(text, "no") == 0 || strcmp(text, "false") == 0)
		*v = false;
	else
		return false;
	return true;
}

static void mask_set(uint8_t *mask, unsigned cpu)
{
	mask[cpu / 8] |= (uint8_t)(1u << (cpu % 8));
}

static bool mask_has(const uint8_t *mask, unsigned cpu)
{
	return mask[cpu / 8] & (1u << (cpu % 8));
}

static bool parse_cpu_number(const char **p, unsigned *cpu)
{
	if (**p < '0' || **p > '9')
		return false;
	unsigned long v = 0;
	while (**p >= '0' && **p <= '9') {
		v = v * 10 + (unsigned long)(**p - '0');
		if (v >= OG_PERF_MAX_CPUS)
			return false;
		(*p)++;
	}
	*cpu = (unsigned)v;
	return true;
}

bool og_perf_parse_cpus(const char *text, uint8_t *mask)
{
	memset(mask, 0, OG_PERF_MAX_CPUS / 8);
	const char *p = text;
	/* sysfs ends its lists with a newline; users do not. */
	while (*p && *p != '\n') {
		unsigned lo, hi;
		if (!parse_cpu_number(&p, &lo))
			return false;
		hi = lo;
		if (*p == '-') {
			p++;
			if (!parse_cpu_number(&p, &hi) || hi < lo)
				return false;
		}
		for (unsigned c = lo; c <= hi; c++)
			mask_set(mask, c);
		if (*p == '+' || *p == ',') {
			p++;
			if (*p == '\0' || *p == '\n')
				return false; /* "0," is a typo, not CPU 0 */
		} else if (*p && *p != '\n') {
			return false;
		}
	}
	return p != text;
}

GPA_Status og_perf_scope_option(const struct og_backend_host *h, struct og_perf_scope *scope,
                                const char *key, const char *value)
{
	if (strcmp(key, "pid") == 0 || strcmp(key, "tid") == 0) {
		pid_t id;
		if (!parse_id(value, &id)) {
			h->log(h->log_ctx, OG_LOG_ERROR,
			       "perf: option %s=%s is not a %s id; use %s=N (N >= 1) or %s=0 for "
			       "the calling thread",
			       key, value, key[0] == 'p' ? "process" : "thread", key, key);
			return GPA_STATUS_ERROR_FAILED;
		}
		scope->pid = id;
		scope->kind = id == 0 ? OG_PERF_SCOPE_SELF
		              : key[0] == 'p' ? OG_PERF_SCOPE_PROCESS : OG_PERF_SCOPE_THREAD;
		return GPA_STATUS_OK;
	}
	if (strcmp(key, "cpu") == 0) {
		uint8_t mask[OG_PERF_MAX_CPUS / 8];
		if (strlen(value) >= sizeof scope->cpus ||
		    (strcmp(value, "all") != 0 && !og_perf_parse_cpus(value, mask))) {
			h->log(h->log_ctx, OG_LOG_ERROR,
			       "perf: option cpu=%s is not a CPU list; use cpu=all, cpu=N or a "
			       "list such as cpu=0-3+6 (CPUs below %d, at most %zu characters)",
			       value, OG_PERF_MAX_CPUS, sizeof scope->cpus - 1);
			return GPA_STATUS_ERROR_FAILED;
		}
		strcpy(scope->cpus, value);
		scope->kind = OG_PERF_SCOPE_CPUS;
		scope->pid = -1;
		return GPA_STATUS_OK;
	}
	if (strcmp(key, "exec") == 0) {
		if (!parse_bool(value, &scope->exec)) {
			h->log(h->log_ctx, OG_LOG_ERROR,
			       "perf: option exec=%s is not a boolean; use exec=1 or exec=0", value);
			return GPA_STATUS_ERROR_FAILED;
		}
		return GPA_STATUS_OK;
	}
	return GPA_STATUS_ERROR_NOT_FOUND;
}

GPA_Status og_perf_scope_check(const struct og_backend_host *h, const struct og_perf_scope *scope)
{
	if (scope->exec && scope->kind != OG_PERF_SCOPE_PROCESS) {
		h->log(h->log_ctx, OG_LOG_ERROR,
		       "perf: option exec=1 needs pid=N (the process that will call execve); "
		       "set pid or drop exec");
		return GPA_STATUS_ERROR_FAILED;
	}
	return GPA_STATUS_OK;
}

/* The online CPUs, or false when sysfs does not say. */
static bool online_mask(const struct og_backend_host *h, uint8_t *mask)
{
	char text[1024];
	if (og_perf_read_text(h, ONLINE_PATH, text, sizeof text) <= 0)
		return false;
	return og_perf_parse_cpus(text, mask);
}

/* The CPUs the scope names, online ones only when sysfs says which. */
static bool scope_cpus(const struct og_backend_host *h, const struct og_perf_scope *scope,
                       uint8_t *mask, bool *have_online)
{
	uint8_t online[OG_PERF_MAX_CPUS / 8];
	*have_online = online_mask(h, online);
	if (strcmp(scope->cpus, "all") == 0) {
		if (!*have_online)
			return false;
		memcpy(mask, online, sizeof online);
		return true;
	}
	if (!og_perf_parse_cpus(scope->cpus, mask))
		return false;
	if (*have_online)
		for (size_t i = 0; i < sizeof online; i++)
			mask[i] &= online[i];
	return true;
}

struct og_perf_target og_perf_scope_probe_target(const struct og_backend_host *host,
                                                 const struct og_perf_scope *scope)
{
	switch (scope->kind) {
	case OG_PERF_SCOPE_SELF:
		return (struct og_perf_target){ 0, -1 };
	case OG_PERF_SCOPE_PROCESS:
	case OG_PERF_SCOPE_THREAD:
		return (struct og_perf_target){ scope->pid, -1 };
	case OG_PERF_SCOPE_CPUS:
		break;
	}
	uint8_t mask[OG_PERF_MAX_CPUS / 8];
	bool have_online;
	if (scope_cpus(host, scope, mask, &have_online))
		for (unsigned c = 0; c < OG_PERF_MAX_CPUS; c++)
			if (mask_has(mask, c))
				return (struct og_perf_target){ -1, (int)c };
	/* No CPU of the list is online: probing CPU 0 gives the kernel's
	 * own answer (ENODEV when it is offline too). */
	return (struct og_perf_target){ -1, 0 };
}

const char *og_perf_scope_name(const struct og_perf_scope *scope, char *buf, size_t len)
{
	switch (scope->kind) {
	case OG_PERF_SCOPE_SELF:
		snprintf(buf, len, "the calling thread");
		break;
	case OG_PERF_SCOPE_PROCESS:
		snprintf(buf, len, "process %ld", (long)scope->pid);
		break;
	case OG_PERF_SCOPE_THREAD:
		snprintf(buf, len, "thread %ld", (long)scope->pid);
		break;
	case OG_PERF_SCOPE_CPUS:
		snprintf(buf, len, "CPUs %s", scope->cpus);
		break;
	}
	return buf;
}

struct thread_list {
	struct og_perf_target *targets;
	size_t n;
	bool overflow, junk;
};

static void add_thread(const char *name, void *arg)
{
	struct thread_list *l = arg;
	pid_t tid;
	if (!parse_id(name, &tid) || tid == 0) {
		l->junk = true; /* /proc/PID/task holds thread ids only */
		return;
	}
	if (l->n == OG_PERF_MAX_TARGETS) {
		l->overflow = true;
		return;
	}
	l->targets[l->n++] = (struct og_perf_target){ tid, -1 };
}

static GPA_Status process_threads(const struct og_perf_state *st, struct og_perf_target *targets,
                                  size_t *n)
{
	const struct og_backend_host *h = &st->host;
	char path[64];
	snprintf(path, sizeof path, "/proc/%ld/task", (long)st->scope.pid);
	struct thread_list l = { targets, 0, false, false };
	if (og_perf_list_dir(h, path, add_thread, &l) < 0 || l.n == 0) {
		h->log(h->log_ctx, OG_LOG_ERROR,
		       "perf: cannot list the threads of process %ld (%s unreadable); check the "
		       "pid= option, the process may have exited",
		       (long)st->scope.pid, path);
		return GPA_STATUS_ERROR_FAILED;
	}
	if (l.overflow) {
		h->log(h->log_ctx, OG_LOG_ERROR,
		       "perf: process %ld has more than %d threads; count some of them with tid= "
		       "or the whole machine with cpu=all",
		       (long)st->scope.pid, OG_PERF_MAX_TARGETS);
		return GPA_STATUS_ERROR_FAILED;
	}
	if (l.junk)
		h->log(h->log_ctx, OG_LOG_TRACE, "perf: %s lists entries that are not thread ids; "
		       "they are skipped", path);
	*n = l.n;
	return GPA_STATUS_OK;
}

static GPA_Status cpu_targets(const struct og_perf_state *st, struct og_perf_target *targets,
                              size_t *n)
{
	const struct og_backend_host *h = &st->host;
	uint8_t mask[OG_PERF_MAX_CPUS / 8];
	bool have_online;
	if (!scope_cpus(h, &st->scope, mask, &have_online)) {
		h->log(h->log_ctx, OG_LOG_ERROR,
		       "perf: cpu=all needs " ONLINE_PATH " to say which CPUs are online, and it "
		       "is unreadable; mount sysfs or list the CPUs (cpu=0-3)");
		return GPA_STATUS_ERROR_FAILED;
	}
	*n = 0;
	for (unsigned c = 0; c < OG_PERF_MAX_CPUS; c++)
		if (mask_has(mask, c))
			targets[(*n)++] = (struct og_perf_target){ -1, (int)c };
	if (*n == 0) {
		h->log(h->log_ctx, OG_LOG_ERROR,
		       "perf: none of CPUs %s is online; choose online CPUs (" ONLINE_PATH ")",
		       st->scope.cpus);
		return GPA_STATUS_ERROR_FAILED;
	}
	return GPA_STATUS_OK;
}

GPA_Status og_perf_scope_targets(const struct og_perf_state *st, struct og_perf_target **targets,
                                 size_t *n)
{
	const struct og_perf_scope *scope = &st->scope;
	bool many = scope->kind == OG_PERF_SCOPE_CPUS ||
	            (scope->kind == OG_PERF_SCOPE_PROCESS && !scope->exec);
	size_t cap = many ? OG_PERF_MAX_TARGETS : 1;
	*targets = malloc(cap * sizeof **targets);
	if (!*targets) {
		st->host.log(st->host.log_ctx, OG_LOG_ERROR, "perf: out of memory for the pass");
		return GPA_STATUS_ERROR_FAILED;
	}
	GPA_Status s = GPA_STATUS_OK;
	if (scope->kind == OG_PERF_SCOPE_CPUS) {
		s = cpu_targets(st, *targets, n);
	} else if (many) {
		s = process_threads(st, *targets, n);
	} else {
		/* The calling thread, one thread, or a child that has not exec'd
		 * yet (one thread; inherit catches what it starts later). */
		(*targets)[0] = og_perf_scope_probe_target(&st->host, scope);
		*n = 1;
	}
	if (s != GPA_STATUS_OK) {
		free(*targets);
		*targets = NULL;
	}
	return s;
}
