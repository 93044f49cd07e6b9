/* SPDX-License-Identifier: MIT */
/*
 * mips.c — the MIPS 34K backend: four CP0 counters programmed and read
 * through the SMTC kernels' /proc/perf text file (docs/backends/mips.md).
 *
 * The file has no seek in our syscall table, so every snapshot is one
 * open/read/close; procfs regenerates the text on each open anyway.
 *
 * Why one file over 600 lines: what needs no state is already out
 * (control.c, events.c, procperf.c); what stays (opening and reading the
 * file safely, the options, passes and samples) all works on struct mips,
 * which no other file sees.
 */
#include "backend.h"
#include "mips/control.h"
#include "mips/events.h"
#include "mips/procperf.h"
#include "mips/wrap.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define TEXT_MAX 4096
#define DEFAULT_CLOCK_MHZ 500.0 /* MD00548 §4.4's example clock */

enum width_mode { WIDTH_AUTO, WIDTH_32, WIDTH_64 };

struct mips {
	struct og_backend_host host;
	char path[256];
	struct og_mips_scope_opts scope;
	double clock_mhz;
	enum width_mode width;
	struct og_mips_snapshot saved; /* what the counters held at open, put back at close */
	bool programmed;               /* we wrote the file at least once */

	size_t n;
	uint32_t raw[OG_MIPS_COUNTERS];
	int counter_of[OG_MIPS_COUNTERS];
	uint32_t ctl[OG_MIPS_COUNTERS]; /* what begin_pass wrote, per physical counter */
	bool in_pass, in_sample;
	struct og_mips_snapshot start;
	struct timespec t0;
};

#define LOG(m, level, ...) (m)->host.log((m)->host.log_ctx, (level), __VA_ARGS__)

/* What a file that is not a regular file is, for the refusal. */
static const char *file_kind(mode_t mode)
{
	switch (mode & S_IFMT) {
	case S_IFIFO: return "a FIFO";
	case S_IFCHR: return "a character device";
	case S_IFBLK: return "a block device";
	case S_IFDIR: return "a directory";
	case S_IFSOCK: return "a socket";
	default: return "not a regular file";
	}
}

/*
 * Opens a file the user may have named (path=) for `acc`, O_RDONLY or
 * O_WRONLY.  O_NONBLOCK makes a FIFO open at once instead of waiting forever
 * for its other end (a write-only open of one with no reader fails with
 * ENXIO); O_NOCTTY keeps a terminal from becoming the process's controlling
 * one.  Then only a regular file is kept: the /proc counter file is one
 * (procfs reports S_IFREG with st_size 0, so no size cap applies at open;
 * read_file reads at most its buffer, 4 KiB).  O_NONBLOCK stays set: it
 * changes nothing for a regular file, whose reads and writes never return
 * EAGAIN, procfs included.  Returns the descriptor, or -1 with errno; when
 * the file opened but is not regular, *not_regular says what it is (and
 * errno is EINVAL), otherwise *not_regular is NULL.
 */
static int open_regular(const struct og_sys *sys, const char *path, int acc,
                        const char **not_regular)
{
	*not_regular = NULL;
	int fd = sys->open(sys->ctx, path, acc | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0);
	if (fd < 0 || !sys->fstat)
		return fd;
	mode_t mode = 0;
	int64_t size = 0;
	if (sys->fstat(sys->ctx, fd, &mode, &size) != 0) {
		int e = errno;
		sys->close(sys->ctx, fd);
		errno = e;
		return -1;
	}
	if (!S_ISREG(mode)) {
		*not_regular = file_kind(mode);
		sys->close(sys->ctx, fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

/* The log line and status for a counter file that is not a regular file. */
static GPA_Status refuse_kind(const struct mips *m, const char *path, const char *what)
{
	LOG(m, OG_LOG_ERROR,
	    "mips: %s: is %s, not the 34K counter file (a regular /proc file): refused "
	    "unread; point path= at the counter file, e.g. path=/proc/perf or "
	    "path=/proc/mips/perf",
	    path, what);
	return GPA_STATUS_ERROR_FAILED;
}

/* Reads a whole small file through host->sys.  Returns bytes read or -1 with
 * errno; ENOSPC when it is larger than cap - 1; *not_regular as
 * open_regular. */
static ssize_t read_file(const struct og_backend_host *host, const char *path, char *buf,
                         size_t cap, const char **not_regular)
{
	const struct og_sys *sys = host->sys;
	int fd = open_regular(sys, path, O_RDONLY, not_regular);
	if (fd < 0)
		return -1;
	size_t got = 0;
	for (;;) {
		if (got == cap - 1) {
			char extra;
			ssize_t r = sys->read(sys->ctx, fd, &extra, 1);
			if (r == 0)
				break;
			sys->close(sys->ctx, fd);
			errno = ENOSPC;
			return -1;
		}
		ssize_t r = sys->read(sys->ctx, fd, buf + got, cap - 1 - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 || (size_t)r > cap - 1 - got) {
			int e = r < 0 ? errno : EIO;
			sys->close(sys->ctx, fd);
			errno = e;
			return -1;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	sys->close(sys->ctx, fd);
	buf[got] = '\0';
	return (ssize_t)got;
}

static GPA_Status snapshot(struct mips *m, struct og_mips_snapshot *out)
{
	char text[TEXT_MAX], why[160];
	const char *not_regular;
	ssize_t len = read_file(&m->host, m->path, text, sizeof text, &not_regular);
	if (len < 0 && not_regular)
		return refuse_kind(m, m->path, not_regular);
	if (len < 0) {
		LOG(m, OG_LOG_ERROR, "mips: reading %s failed: %s%s", m->path, strerror(errno),
		    errno == ENOSPC ? " (the file is over 4 KiB: not the 34K counter file; check path=)"
		                    : "; check that the perf counter module is still loaded");
		return GPA_STATUS_ERROR_FAILED;
	}
	if (og_mips_parse_text(text, (size_t)len, out, why, sizeof why) != 0) {
		LOG(m, OG_LOG_ERROR,
		    "mips: %s is not in the /proc/perf format: %s; point path= at the 34K counter file",
		    m->path, why);
		return GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED;
	}
	return GPA_STATUS_OK;
}

/* Writes one "num control value" line per counter in mask, each in its own
 * write(): the kernels parse each write on its own. */
static GPA_Status program(struct mips *m, unsigned mask, const uint32_t *ctl, const int64_t *value)
{
	const struct og_sys *sys = m->host.sys;
	const char *not_regular;
	int fd = open_regular(sys, m->path, O_WRONLY, &not_regular);
	if (fd < 0 && not_regular)
		return refuse_kind(m, m->path, not_regular);
	if (fd < 0) {
		int e = errno;
		LOG(m, OG_LOG_ERROR, "mips: cannot open %s for writing: %s%s", m->path, strerror(e),
		    e == EACCES || e == EPERM ? "; programming the 34K counters needs root" : "");
		return GPA_STATUS_ERROR_FAILED;
	}
	GPA_Status st = GPA_STATUS_OK;
	for (unsigned c = 0; c < OG_MIPS_COUNTERS && st == GPA_STATUS_OK; c++) {
		if (!(mask & (1u << c)))
			continue;
		char line[64];
		size_t len = og_mips_format_write(line, sizeof line, c, ctl[c], value[c]);
		ssize_t w;
		do
			w = sys->write(sys->ctx, fd, line, len);
		while (w < 0 && errno == EINTR);
		if (w != (ssize_t)len) {
			LOG(m, OG_LOG_ERROR, "mips: writing counter %u to %s failed: %s", c, m->path,
			    w < 0 ? strerror(errno) : "short write");
			st = GPA_STATUS_ERROR_FAILED;
		}
	}
	sys->close(sys->ctx, fd);
	m->programmed = true;
	return st;
}

static bool parse_uint(const char *s, unsigned max, unsigned *out)
{
	char *end;
	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (*end || errno || v > max)
		return false;
	*out = (unsigned)v;
	return true;
}

/* BogoMIPS from /proc/cpuinfo: on the 34K's delay loop it is close to the
 * clock in MHz, which is all a wrap warning needs. */
static double cpuinfo_mhz(const struct og_backend_host *host, char *model, size_t model_len)
{
	char text[8192];
	const char *not_regular;
	if (read_file(host, "/proc/cpuinfo", text, sizeof text, &not_regular) < 0)
		return 0;
	double mhz = 0;
	for (char *line = text; line && *line;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		char *colon = strchr(line, ':');
		if (colon && mhz == 0 && strncasecmp(line, "BogoMIPS", 8) == 0) {
			char *end;
			double v = strtod(colon + 1, &end);
			if (end != colon + 1 && v > 0 && v < 1e6)
				mhz = v;
		}
		if (colon && !model[0] && strncmp(line, "cpu model", 9) == 0) {
			const char *v = colon + 1;
			while (*v == ' ' || *v == '\t')
				v++;
			snprintf(model, model_len, "%s", v);
		}
		line = nl ? nl + 1 : NULL;
	}
	return mhz;
}

static const char *const known_options[] = {"path", "modes", "tc", "vpe", "clock_mhz", "ie",
                                            "width", NULL};

static GPA_Status parse_options(struct mips *m, const char *options)
{
	char v[256];
	const char *unknown = og_option_unknown(options, known_options);
	if (unknown) {
		LOG(m, OG_LOG_ERROR,
		    "mips: unknown option \"%.*s\"; known: path, modes, tc, vpe, clock_mhz, ie, width",
		    (int)strcspn(unknown, "=,"), unknown);
		return GPA_STATUS_ERROR_FAILED;
	}
	m->scope.modes = OG_MIPS_CTL_U;
	m->scope.ie = true;
	if (og_option_get(options, "modes", v, sizeof v) &&
	    !og_mips_parse_modes(v, &m->scope.modes)) {
		LOG(m, OG_LOG_ERROR, "mips: modes=%s: use u, s, k, exl joined by '+' (e.g. modes=u+k)",
		    v);
		return GPA_STATUS_ERROR_FAILED;
	}
	if (m->scope.modes == 0) {
		LOG(m, OG_LOG_ERROR, "mips: modes= selects no mode; name at least one of u, s, k, exl");
		return GPA_STATUS_ERROR_FAILED;
	}
	bool has_tc = og_option_get(options, "tc", v, sizeof v);
	if (has_tc && !parse_uint(v, OG_MIPS_MAX_TC, &m->scope.tc)) {
		LOG(m, OG_LOG_ERROR, "mips: tc=%s: the 34K has thread contexts 0..%d", v,
		    OG_MIPS_MAX_TC);
		return GPA_STATUS_ERROR_FAILED;
	}
	bool has_vpe = og_option_get(options, "vpe", v, sizeof v);
	if (has_vpe && !parse_uint(v, OG_MIPS_MAX_VPE, &m->scope.vpe)) {
		LOG(m, OG_LOG_ERROR, "mips: vpe=%s: the 34K has VPEs 0..%d", v, OG_MIPS_MAX_VPE);
		return GPA_STATUS_ERROR_FAILED;
	}
	if (has_tc && has_vpe) {
		LOG(m, OG_LOG_ERROR, "mips: tc= and vpe= both given; a counter filters by one TC "
		                     "(MT_EN=2) or one VPE (MT_EN=1): drop one");
		return GPA_STATUS_ERROR_FAILED;
	}
	m->scope.mt_en = has_tc ? OG_MIPS_MT_TC : has_vpe ? OG_MIPS_MT_VPE : OG_MIPS_MT_ALL;
	if (og_option_get(options, "ie", v, sizeof v)) {
		if (strcmp(v, "0") != 0 && strcmp(v, "1") != 0) {
			LOG(m, OG_LOG_ERROR, "mips: ie=%s: use ie=1 (default) or ie=0", v);
			return GPA_STATUS_ERROR_FAILED;
		}
		m->scope.ie = v[0] == '1';
	}
	m->width = WIDTH_AUTO;
	if (og_option_get(options, "width", v, sizeof v)) {
		if (strcmp(v, "32") == 0)
			m->width = WIDTH_32;
		else if (strcmp(v, "64") == 0)
			m->width = WIDTH_64;
		else if (strcmp(v, "auto") != 0) {
			LOG(m, OG_LOG_ERROR, "mips: width=%s: use auto, 32 or 64", v);
			return GPA_STATUS_ERROR_FAILED;
		}
	}
	m->clock_mhz = 0;
	if (og_option_get(options, "clock_mhz", v, sizeof v)) {
		char *end;
		double mhz = strtod(v, &end);
		if (end == v || *end || !(mhz > 0 && mhz <= 1e12)) {
			LOG(m, OG_LOG_ERROR, "mips: clock_mhz=%s: give the core clock in MHz, e.g. "
			                     "clock_mhz=500", v);
			return GPA_STATUS_ERROR_FAILED;
		}
		m->clock_mhz = mhz;
	}
	bool has_path = og_option_get(options, "path", v, sizeof v);
	if ((has_path && !v[0]) || (!has_path && strstr(options ? options : "", "path="))) {
		LOG(m, OG_LOG_ERROR, "mips: path= is empty or longer than 255 bytes; give the "
		                     "counter file, e.g. path=/proc/mips/perf");
		return GPA_STATUS_ERROR_FAILED;
	}
	if (has_path)
		snprintf(m->path, sizeof m->path, "%s", v);
	return GPA_STATUS_OK;
}

/* Picks the counter file: path= or the first of the two known names that
 * exists.  Leaves m->path set on success. */
static GPA_Status find_file(struct mips *m)
{
	static const char *const candidates[] = {"/proc/perf", "/proc/mips/perf"};
	const struct og_sys *sys = m->host.sys;
	const char *tried[2];
	int errs[2];
	size_t n = 0;
	if (m->path[0]) {
		tried[0] = m->path;
		n = 1;
	} else {
		tried[0] = candidates[0];
		tried[1] = candidates[1];
		n = 2;
	}
	for (size_t i = 0; i < n; i++) {
		const char *not_regular;
		int fd = open_regular(sys, tried[i], O_RDONLY, &not_regular);
		if (fd < 0 && not_regular)
			return refuse_kind(m, tried[i], not_regular);
		if (fd >= 0) {
			sys->close(sys->ctx, fd);
			if (tried[i] != m->path)
				snprintf(m->path, sizeof m->path, "%s", tried[i]);
			return GPA_STATUS_OK;
		}
		errs[i] = errno;
		if (errs[i] == EACCES || errs[i] == EPERM) {
			LOG(m, OG_LOG_ERROR, "mips: %s exists but cannot be read: %s; run as root",
			    tried[i], strerror(errs[i]));
			return GPA_STATUS_ERROR_FAILED;
		}
	}
	if (n == 1)
		LOG(m, OG_LOG_ERROR, "mips: path=%s: %s; give the 34K counter file's path", tried[0],
		    strerror(errs[0]));
	else
		LOG(m, OG_LOG_ERROR,
		    "mips: no 34K counter file: %s (%s), %s (%s); it needs an SMTC kernel with the "
		    "/proc perf counter support (CONFIG_PERFCTRS), or give path=",
		    tried[0], strerror(errs[0]), tried[1], strerror(errs[1]));
	return GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED;
}

static GPA_Status mips_open(const struct og_backend_host *host, const char *options, void **state,
                            struct og_device_info *info)
{
	struct mips *m = calloc(1, sizeof *m);
	if (!m) {
		host->log(host->log_ctx, OG_LOG_ERROR, "mips: out of memory opening the backend");
		return GPA_STATUS_ERROR_FAILED;
	}
	m->host = *host;
	GPA_Status st = parse_options(m, options);
	if (st == GPA_STATUS_OK)
		st = find_file(m);
	if (st == GPA_STATUS_OK)
		st = snapshot(m, &m->saved);
	if (st == GPA_STATUS_OK) {
		/* Fail now rather than at the first pass: writing needs root. */
		const struct og_sys *sys = host->sys;
		const char *not_regular;
		int fd = open_regular(sys, m->path, O_WRONLY, &not_regular);
		if (fd < 0 && not_regular) {
			st = refuse_kind(m, m->path, not_regular);
		} else if (fd < 0) {
			int e = errno;
			LOG(m, OG_LOG_ERROR, "mips: %s is not writable: %s; %s", m->path, strerror(e),
			    e == EACCES || e == EPERM
			        ? "programming the 34K counters needs root: run as root"
			        : "the kernel must allow writing control words to it");
			st = GPA_STATUS_ERROR_FAILED;
		} else {
			sys->close(sys->ctx, fd);
		}
	}
	if (st != GPA_STATUS_OK) {
		free(m);
		return st;
	}
	char model[128] = "";
	double mhz = cpuinfo_mhz(host, model, sizeof model);
	if (m->clock_mhz == 0) {
		m->clock_mhz = mhz > 0 ? mhz : DEFAULT_CLOCK_MHZ;
		if (mhz <= 0)
			LOG(m, OG_LOG_MESSAGE,
			    "mips: no BogoMIPS in /proc/cpuinfo; assuming a %.0f MHz clock for wrap "
			    "warnings (set clock_mhz= to change)",
			    DEFAULT_CLOCK_MHZ);
	}
	memset(info, 0, sizeof *info);
	info->device_id = 0x00019500; /* PRId: company 1 (MIPS), processor 0x95 (34K) */
	info->revision_id = 0;
	snprintf(info->description, sizeof info->description, "%.100s (%.140s)",
	         model[0] ? model : "MIPS 34K", m->path);
	info->counter_sets[0] = "mips-34k";
	*state = m;
	return GPA_STATUS_OK;
}

static void mips_close(void *state)
{
	struct mips *m = state;
	if (!m)
		return;
	if (m->programmed) {
		int64_t value[OG_MIPS_COUNTERS];
		for (unsigned c = 0; c < OG_MIPS_COUNTERS; c++)
			value[c] = m->saved.cnt[c] > INT64_MAX ? 0 : (int64_t)m->saved.cnt[c];
		if (program(m, 0xf, m->saved.ctl, value) != GPA_STATUS_OK)
			LOG(m, OG_LOG_ERROR, "mips: could not put back the previous control words in %s",
			    m->path);
	}
	free(m);
}

static GPA_Status mips_bind_raw(void *state, const char *name, const char *source,
                                uint32_t *raw_id, const char **why_not)
{
	struct mips *m = state;
	unsigned bank, event;
	const char *why;
	if (!og_mips_parse_source(source, &bank, &event, &why)) {
		LOG(m, OG_LOG_ERROR, "mips: raw counter %s: source \"%s\": %s", name, source, why);
		return GPA_STATUS_ERROR_FAILED;
	}
	const struct og_mips_event *e = og_mips_event_find(bank == OG_MIPS_ANY ? 0 : bank, event);
	if (bank == OG_MIPS_ANY && e && e->bank != OG_MIPS_ANY) {
		LOG(m, OG_LOG_ERROR,
		    "mips: raw counter %s: event %u differs between the banks; use even:%u or odd:%u",
		    name, event, event, event);
		return GPA_STATUS_ERROR_FAILED;
	}
	if (!e) {
		*why_not = "MD00548 Table 3 marks this event reserved on that counter bank";
		return GPA_STATUS_ERROR_NOT_FOUND;
	}
	*raw_id = og_mips_raw_id(bank, event);
	return GPA_STATUS_OK;
}

static GPA_Status mips_constant(void *state, const char *name, double *value)
{
	struct mips *m = state;
	if (strcmp(name, "ClockMHz") == 0) {
		*value = m->clock_mhz;
		return GPA_STATUS_OK;
	}
	return GPA_STATUS_ERROR_NOT_FOUND;
}

static bool mips_fits(void *state, const uint32_t *raw_ids, size_t n)
{
	(void)state;
	for (size_t i = 0; i < n; i++)
		if (!og_mips_event_of_raw(raw_ids[i]))
			return false;
	return og_mips_assign(raw_ids, n, NULL);
}

static GPA_Status mips_begin_pass(void *state, const uint32_t *raw_ids, size_t n)
{
	struct mips *m = state;
	if (m->in_pass) {
		LOG(m, OG_LOG_ERROR, "mips: begin_pass while a pass is open; end it first");
		return GPA_STATUS_ERROR_PASS_ALREADY_STARTED;
	}
	if (n > OG_MIPS_COUNTERS || !og_mips_assign(raw_ids, n, m->counter_of)) {
		LOG(m, OG_LOG_ERROR, "mips: %zu counters do not fit the 34K's two even and two odd "
		                     "counters in one pass; plan passes with fits()", n);
		return GPA_STATUS_ERROR_FAILED;
	}
	int64_t zero[OG_MIPS_COUNTERS] = {0, 0, 0, 0};
	uint32_t ctl[OG_MIPS_COUNTERS] = {0, 0, 0, 0}; /* unused counters: no mode, no count */
	for (size_t i = 0; i < n; i++) {
		const struct og_mips_event *e = og_mips_event_of_raw(raw_ids[i]);
		if (!e) {
			LOG(m, OG_LOG_ERROR, "mips: raw id %u was not bound by this backend", raw_ids[i]);
			return GPA_STATUS_ERROR_FAILED;
		}
		ctl[m->counter_of[i]] = og_mips_control(&m->scope, e->event, e->scope);
		m->raw[i] = raw_ids[i];
	}
	GPA_Status st = program(m, 0xf, ctl, zero);
	if (st != GPA_STATUS_OK)
		return st;
	memcpy(m->ctl, ctl, sizeof ctl);
	m->n = n;
	m->in_pass = true;
	return GPA_STATUS_OK;
}

static GPA_Status mips_end_pass(void *state)
{
	struct mips *m = state;
	if (!m->in_pass) {
		LOG(m, OG_LOG_ERROR, "mips: end_pass without begin_pass");
		return GPA_STATUS_ERROR_PASS_NOT_STARTED;
	}
	m->in_pass = false;
	m->in_sample = false;
	int64_t zero[OG_MIPS_COUNTERS] = {0, 0, 0, 0};
	uint32_t off[OG_MIPS_COUNTERS] = {0, 0, 0, 0};
	return program(m, 0xf, off, zero);
}

/* Someone else (pc_sweep, a script) may reprogram the counters under us. */
static GPA_Status check_ours(struct mips *m, const struct og_mips_snapshot *s)
{
	for (size_t i = 0; i < m->n; i++) {
		int c = m->counter_of[i];
		if ((s->ctl[c] ^ m->ctl[c]) & OG_MIPS_CTL_CHECK_MASK) {
			LOG(m, OG_LOG_ERROR,
			    "mips: counter %d control is 0x%08x, not the 0x%08x this pass wrote: another "
			    "program reprogrammed %s; stop it and retry",
			    c, (unsigned)s->ctl[c], (unsigned)m->ctl[c], m->path);
			return GPA_STATUS_ERROR_READING_COUNTER_RESULT;
		}
	}
	return GPA_STATUS_OK;
}

static GPA_Status mips_begin_sample(void *state)
{
	struct mips *m = state;
	if (!m->in_pass) {
		LOG(m, OG_LOG_ERROR, "mips: begin_sample outside a pass");
		return GPA_STATUS_ERROR_PASS_NOT_STARTED;
	}
	GPA_Status st = snapshot(m, &m->start);
	if (st == GPA_STATUS_OK)
		st = check_ours(m, &m->start);
	if (st != GPA_STATUS_OK)
		return st;
	clock_gettime(CLOCK_MONOTONIC, &m->t0);
	m->in_sample = true;
	return GPA_STATUS_OK;
}

/* Ends the sample; with `next`, the same snapshot begins the next one. */
static GPA_Status cut_sample(struct mips *m, uint64_t *deltas, bool next)
{
	if (!m->in_sample) {
		LOG(m, OG_LOG_ERROR, "mips: end_sample without begin_sample");
		return GPA_STATUS_ERROR_SAMPLE_NOT_STARTED;
	}
	m->in_sample = false;
	struct og_mips_snapshot end;
	GPA_Status st = snapshot(m, &end);
	if (st == GPA_STATUS_OK)
		st = check_ours(m, &end);
	if (st != GPA_STATUS_OK)
		return st;
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	struct og_mips_snapshot start = m->start;
	struct timespec t0 = m->t0;
	if (next) {
		m->start = end;
		m->t0 = t1;
		m->in_sample = true;
	}
	uint64_t ns = (uint64_t)(t1.tv_sec - t0.tv_sec) * 1000000000u +
	              (uint64_t)(t1.tv_nsec - t0.tv_nsec);
	bool narrow = false;
	for (size_t i = 0; i < m->n; i++) {
		int c = m->counter_of[i];
		bool wide = m->width == WIDTH_64 ||
		            (m->width == WIDTH_AUTO &&
		             !og_mips_counts_look_32bit(start.cnt[c], end.cnt[c]));
		deltas[i] = og_mips_delta(start.cnt[c], end.cnt[c], wide);
		narrow |= !wide;
	}
	if (narrow && og_mips_may_wrap_twice(ns, m->clock_mhz))
		LOG(m, OG_LOG_MESSAGE,
		    "mips: warning: the sample lasted %.3f s, over 2^32 cycles at %.0f MHz, and the "
		    "counters read as 32 bits: a counter may have wrapped more than once; take "
		    "shorter samples or use a kernel with the counter range extension",
		    (double)ns / 1e9, m->clock_mhz);
	return GPA_STATUS_OK;
}

static GPA_Status mips_end_sample(void *state, uint64_t *deltas)
{
	return cut_sample(state, deltas, false);
}

static GPA_Status mips_next_sample(void *state, uint64_t *deltas)
{
	return cut_sample(state, deltas, true);
}

/* Every snapshot opens, reads and closes /proc/perf, and the kernel
 * formats the text each time: on a 34K that is tens of µs. */
static uint64_t mips_period_floor(void *state, const char **why)
{
	(void)state;
	*why = "each sample reads the /proc/perf text";
	return 1000000u;
}

const struct og_backend_ops og_backend_mips = {
	.name = "mips",
	.summary = "MIPS 34K core counters through the SMTC /proc/perf file",
	.open = mips_open,
	.close = mips_close,
	.bind_raw = mips_bind_raw,
	.constant = mips_constant,
	.fits = mips_fits,
	.extra_raw = NULL,
	.set_option = NULL,
	.begin_pass = mips_begin_pass,
	.end_pass = mips_end_pass,
	.begin_sample = mips_begin_sample,
	.end_sample = mips_end_sample,
	.period_floor = mips_period_floor,
	.next_sample = mips_next_sample,
};
