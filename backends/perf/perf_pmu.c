/* SPDX-License-Identifier: MIT */
/* perf_pmu.c — sources that name a sysfs PMU ("cpu/event=0x3c/", "msr/tsc/")
 * or a raw CPU PMU code ("raw:0x11").
 *
 * /sys/bus/event_source/devices/<pmu>/type is the attr.type to use,
 * format/<term> says which attr bits a term fills ("config:0-7,21"), and
 * events/<alias> spells an event in terms ("event=0x3c,umask=0x1"). */
#include "perf_internal.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PMU_ROOT "/sys/bus/event_source/devices"

/* PMU, term and alias names become path components: refuse anything that
 * could leave the PMU's directory. */
static bool safe_name(const char *s, size_t n)
{
	if (n == 0 || n > 64 || s[0] == '.')
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '-' || c == '.'))
			return false;
	}
	return true;
}

static bool parse_u64(const char *s, size_t n, uint64_t *v)
{
	char buf[32];
	if (n == 0 || n >= sizeof buf)
		return false;
	memcpy(buf, s, n);
	buf[n] = '\0';
	char *end;
	errno = 0;
	unsigned long long x = strtoull(buf, &end, 0);
	if (*end || errno || buf[0] == '-')
		return false;
	*v = x;
	return true;
}

/* The core CPU PMU's events share its counter budget; other PMUs' do not. */
bool og_perf_is_cpu_pmu(const char *pmu)
{
	return strcmp(pmu, "cpu") == 0 || strncmp(pmu, "cpu_", 4) == 0 ||
	       strncmp(pmu, "armv8_", 6) == 0 || strncmp(pmu, "armv7_", 6) == 0;
}

/* Puts `value` into the bits a format file lists, value bit 0 first. */
static const char *apply_format(const char *fmt, uint64_t value, struct og_perf_bound *b)
{
	size_t flen = strcspn(fmt, ":");
	uint64_t *field;
	if (fmt[flen] != ':')
		return "its format file is not 'configN:bits'";
	if (flen == 6 && strncmp(fmt, "config", 6) == 0)
		field = &b->config;
	else if (flen == 7 && strncmp(fmt, "config1", 7) == 0)
		field = &b->config1;
	else if (flen == 7 && strncmp(fmt, "config2", 7) == 0)
		field = &b->config2;
	else
		return "its format names an attr field this backend does not set";
	unsigned used = 0;
	const char *p = fmt + flen + 1;
	while (*p && *p != '\n') {
		char *end;
		unsigned long lo = strtoul(p, &end, 10), hi = lo;
		if (end == p)
			return "its format file has a malformed bit list";
		if (*end == '-') {
			p = end + 1;
			hi = strtoul(p, &end, 10);
			if (end == p || hi < lo)
				return "its format file has a malformed bit range";
		}
		if (hi > 63)
			return "its format file names a bit above 63";
		for (unsigned long bit = lo; bit <= hi; bit++, used++) {
			if (used < 64 && (value >> used & 1))
				*field |= 1ull << bit;
		}
		p = *end == ',' ? end + 1 : end;
	}
	if (used < 64 && value >> used)
		return "the value does not fit the term's bits";
	return NULL;
}

struct pmu_ctx {
	struct og_perf_state *st;
	const char *name;   /* the raw counter, for messages */
	const char *source;
	const char *pmu;
	struct og_perf_bound *b;
};

static GPA_Status malformed(const struct pmu_ctx *c, const char *term, size_t tlen,
                            const char *what)
{
	c->st->host.log(c->st->host.log_ctx, OG_LOG_ERROR,
	                "perf: raw counter %s: source '%s': term '%.*s': %s; see %s/%s/format "
	                "and events for what this PMU takes",
	                c->name, c->source, (int)tlen, term, what, PMU_ROOT, c->pmu);
	return GPA_STATUS_ERROR_FAILED;
}

static GPA_Status apply_terms(const struct pmu_ctx *c, const char *terms, size_t len, int depth,
                              const char **why_not);

static GPA_Status apply_term(const struct pmu_ctx *c, const char *t, size_t n, int depth,
                             const char **why_not)
{
	const struct og_backend_host *h = &c->st->host;
	size_t klen = strcspn(t, "=");
	if (klen > n)
		klen = n;
	if (!safe_name(t, klen))
		return malformed(c, t, n, "not a term name");
	char path[256], text[512];
	snprintf(path, sizeof path, PMU_ROOT "/%s/format/%.*s", c->pmu, (int)klen, t);
	bool is_format = og_perf_read_text(h, path, text, sizeof text) > 0;
	if (is_format) {
		uint64_t value = 1; /* a bare term means 1 */
		if (klen < n && !parse_u64(t + klen + 1, n - klen - 1, &value))
			return malformed(c, t, n, "the value is not a number");
		const char *bad = apply_format(text, value, c->b);
		return bad ? malformed(c, t, n, bad) : GPA_STATUS_OK;
	}
	if (klen < n)
		return malformed(c, t, n, "this PMU has no such format term");
	snprintf(path, sizeof path, PMU_ROOT "/%s/events/%.*s", c->pmu, (int)n, t);
	ssize_t alen = og_perf_read_text(h, path, text, sizeof text);
	if (alen <= 0) {
		*why_not = "this machine's PMU has no event of that name";
		return GPA_STATUS_ERROR_NOT_FOUND;
	}
	if (depth > 0)
		return malformed(c, t, n, "an event alias that refers to another alias");
	if (strstr(text, "=?"))
		return malformed(c, t, n, "the alias needs a parameter (term=?); spell its "
		                          "terms out with a value");
	text[strcspn(text, "\n")] = '\0';
	/* The alias text is parsed as terms of its own; a copy keeps the
	 * buffer ours while apply_terms reads more files. */
	char copy[512];
	memcpy(copy, text, sizeof copy);
	return apply_terms(c, copy, strlen(copy), depth + 1, why_not);
}

static GPA_Status apply_terms(const struct pmu_ctx *c, const char *terms, size_t len, int depth,
                              const char **why_not)
{
	size_t i = 0;
	while (i < len) {
		size_t n = 0;
		while (i + n < len && terms[i + n] != ',')
			n++;
		if (n > 0) {
			GPA_Status s = apply_term(c, terms + i, n, depth, why_not);
			if (s != GPA_STATUS_OK)
				return s;
		}
		i += n + 1;
	}
	return GPA_STATUS_OK;
}

static GPA_Status raw_source(struct og_perf_state *st, const char *name, const char *source,
                             struct og_perf_bound *b)
{
	const char *v = source + 4;
	if (!parse_u64(v, strlen(v), &b->config)) {
		st->host.log(st->host.log_ctx, OG_LOG_ERROR,
		             "perf: raw counter %s: source '%s': raw: needs a number such as "
		             "raw:0x11 (the CPU PMU's event code)",
		             name, source);
		return GPA_STATUS_ERROR_FAILED;
	}
	b->kind = OG_PERF_KIND_HW;
	b->type = PERF_TYPE_RAW;
	return GPA_STATUS_OK;
}

GPA_Status og_perf_pmu_source(struct og_perf_state *st, const char *name, const char *source,
                              struct og_perf_bound *b, const char **why_not)
{
	if (strncmp(source, "raw:", 4) == 0)
		return raw_source(st, name, source, b);
	const char *slash = strchr(source, '/');
	size_t len = strlen(source);
	size_t plen = slash ? (size_t)(slash - source) : 0;
	char pmu[65];
	if (len < plen + 2 || source[len - 1] != '/' || !safe_name(source, plen)) {
		st->host.log(st->host.log_ctx, OG_LOG_ERROR,
		             "perf: raw counter %s: unknown source '%s'; use sw:NAME, hw:NAME, "
		             "raw:CODE, PMU/TERMS/ or time:enabled|running|wall (docs/backends/perf.md)",
		             name, source);
		return GPA_STATUS_ERROR_FAILED;
	}
	memcpy(pmu, source, plen);
	pmu[plen] = '\0';
	char path[160], text[32];
	snprintf(path, sizeof path, PMU_ROOT "/%s/type", pmu);
	if (og_perf_read_text(&st->host, path, text, sizeof text) <= 0) {
		*why_not = "this machine has no PMU of that name in " PMU_ROOT;
		return GPA_STATUS_ERROR_NOT_FOUND;
	}
	uint64_t type;
	if (!parse_u64(text, strcspn(text, "\n"), &type) || type > UINT32_MAX) {
		/* The kernel's text is quoted below: nothing a terminal acts on. */
		for (char *t = text; *t; t++)
			if ((unsigned char)*t < 0x20 || (unsigned char)*t > 0x7e)
				*t = '?';
		st->host.log(st->host.log_ctx, OG_LOG_ERROR,
		             "perf: raw counter %s: %s holds '%s', not a PMU type number; the "
		             "kernel's sysfs is unusable, report its version",
		             name, path, text);
		return GPA_STATUS_ERROR_FAILED;
	}
	b->type = (uint32_t)type;
	b->kind = og_perf_is_cpu_pmu(pmu) ? OG_PERF_KIND_HW : OG_PERF_KIND_OTHER;
	const struct pmu_ctx c = { st, name, source, pmu, b };
	return apply_terms(&c, slash + 1, len - plen - 2, 0, why_not);
}
