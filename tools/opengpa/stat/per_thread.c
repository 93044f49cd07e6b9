/* SPDX-License-Identifier: MIT */
/* per_thread.c — `opengpa stat --per-thread` (per_thread.h). */
#include "per_thread.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "format.h"
#include "options.h"
#include "timeline.h"

static int by_tid(const void *a, const void *b)
{
	pid_t x = ((const struct per_thread_thread *)a)->tid;
	pid_t y = ((const struct per_thread_thread *)b)->tid;
	return (x > y) - (x < y);
}

static bool parse_id(const char *text, pid_t *id)
{
	char *end;
	errno = 0;
	long v = strtol(text, &end, 10);
	if (end == text || *end || errno || v <= 0 || v > INT_MAX)
		return false;
	*id = (pid_t)v;
	return true;
}

/* /proc's comm of a thread of pid, as perf prints it ("" when gone). */
static void read_comm(pid_t pid, pid_t tid, char *comm, size_t len)
{
	char path[64];
	snprintf(path, sizeof path, "/proc/%ld/task/%ld/comm", (long)pid, (long)tid);
	comm[0] = '\0';
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	if (fgets(comm, (int)len, f))
		comm[strcspn(comm, "\n")] = '\0';
	fclose(f);
}

static int add_thread(struct per_thread *pt, pid_t pid, pid_t tid)
{
	if (pt->nthreads == PER_THREAD_MAX) {
		fprintf(stderr, "opengpa stat: --per-thread: process %ld has more than %d threads; "
		        "count one with -t TID, or the process as a whole without --per-thread\n",
		        (long)pid, PER_THREAD_MAX);
		return 1;
	}
	struct per_thread_thread *t = &pt->threads[pt->nthreads++];
	memset(t, 0, sizeof *t);
	t->tid = tid;
	read_comm(pid, tid, t->comm, sizeof t->comm);
	char shown[40];
	snprintf(t->label, sizeof t->label, "%s-%ld", cli_escape(t->comm, shown, sizeof shown),
	         (long)tid);
	return 0;
}

static int list_threads(struct per_thread *pt, const char *scope)
{
	pid_t id;
	const char *eq = strchr(scope, '=');
	if (!eq || !parse_id(eq + 1, &id) || (strncmp(scope, "pid=", 4) != 0 &&
	                                      strncmp(scope, "tid=", 4) != 0)) {
		fprintf(stderr, "opengpa stat: --per-thread counts the threads of -p PID or the "
		        "thread of -t TID\n");
		return 1;
	}
	pt->threads = calloc(PER_THREAD_MAX, sizeof *pt->threads);
	if (!pt->threads)
		return cli_fail("out of memory", GPA_STATUS_ERROR_FAILED);
	if (scope[0] == 't')
		return add_thread(pt, id, id);
	char path[64];
	snprintf(path, sizeof path, "/proc/%ld/task", (long)id);
	DIR *d = opendir(path);
	if (!d) {
		fprintf(stderr, "opengpa stat: --per-thread: cannot list the threads of process %ld "
		        "(%s): %s\n", (long)id, path, strerror(errno));
		return 1;
	}
	int rc = 0;
	for (struct dirent *e; !rc && (e = readdir(d));) {
		pid_t tid;
		if (parse_id(e->d_name, &tid))
			rc = add_thread(pt, id, tid);
	}
	closedir(d);
	if (!rc && !pt->nthreads) {
		fprintf(stderr, "opengpa stat: --per-thread: process %ld has no thread left\n",
		        (long)id);
		rc = 1;
	}
	/* perf's thread map is in id order; its lines are then sorted by count. */
	qsort(pt->threads, pt->nthreads, sizeof *pt->threads, by_tid);
	return rc;
}

/* A backend source of one thread: sw: and hw: events. */
static bool is_event_source(const char *s)
{
	return (strncmp(s, "sw:", 3) == 0 || strncmp(s, "hw:", 3) == 0) && !strchr(s, ' ') &&
	       !strchr(s, '@');
}

/* The event a row counts and the factor from its count to the row's unit:
 * a raw counter's own source, or a counter that is one raw counter,
 * divided by a number or not ("SwTaskClock / 1000000"). */
static bool row_source(const struct report_row *row, char *src, size_t len, double *scale)
{
	const char *expr = "";
	*scale = 1.0;
	if (OpenGPA_GetCounterExpression(row->index, &expr) != GPA_STATUS_OK)
		return false;
	if (is_event_source(expr)) {
		snprintf(src, len, "%s", expr);
		return true;
	}
	char ident[128];
	size_t n = strspn(expr, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_");
	if (!n || n >= sizeof ident)
		return false;
	memcpy(ident, expr, n);
	ident[n] = '\0';
	const char *rest = expr + n;
	if (*rest) {
		char *end;
		if (strncmp(rest, " / ", 3) != 0)
			return false;
		double d = strtod(rest + 3, &end);
		if (end == rest + 3 || *end || !(d > 0.0))
			return false;
		*scale = 1.0 / d;
	}
	gpa_uint32 raw;
	const char *raw_expr = "";
	if (GPA_GetCounterIndex(ident, &raw) != GPA_STATUS_OK ||
	    OpenGPA_GetCounterExpression(raw, &raw_expr) != GPA_STATUS_OK ||
	    !is_event_source(raw_expr))
		return false;
	snprintf(src, len, "%s", raw_expr);
	return true;
}

int per_thread_declare(struct per_thread *pt, const char *scope, const struct report *r,
                       char *path, size_t pathlen)
{
	memset(pt, 0, sizeof *pt);
	path[0] = '\0';
	if (list_threads(pt, scope))
		return 1;
	pt->nrows = r->nrows;
	pt->scale = calloc(r->nrows ? r->nrows : 1, sizeof *pt->scale);
	char (*src)[128] = calloc(r->nrows ? r->nrows : 1, sizeof *src);
	if (!pt->scale || !src) {
		free(src);
		return cli_fail("out of memory", GPA_STATUS_ERROR_FAILED);
	}
	int rc = 0;
	for (size_t k = 0; k < r->nrows && !rc; k++) {
		if (r->rows[k].reason)
			continue; /* <not supported> for every thread */
		if (!row_source(&r->rows[k], src[k], sizeof src[k], &pt->scale[k])) {
			fprintf(stderr, "opengpa stat: --per-thread: %s is not one of perf's events "
			        "(it is computed from several, or is a CPU event of this PMU); per "
			        "thread, opengpa counts perf's software and generic hardware events "
			        "(opengpa list --backend perf)\n", r->rows[k].name);
			rc = 1;
		}
	}
	const char *tmp = getenv("TMPDIR");
	FILE *file = NULL;
	if (!rc) {
		snprintf(path, pathlen, "%s/opengpa-threads-XXXXXX", tmp && *tmp ? tmp : "/tmp");
		int fd = mkstemp(path);
		if (fd < 0 || !(file = fdopen(fd, "w"))) {
			fprintf(stderr, "opengpa: cannot create %s for --per-thread: %s\n", path,
			        strerror(errno));
			if (fd >= 0)
				close(fd);
			path[0] = '\0';
			rc = 1;
		}
	}
	if (file) {
		fputs("# opengpa stat --per-thread: each thread's share (backends/perf/"
		      "perf_thread.c)\nbackend perf\n", file);
		for (size_t t = 0; t < pt->nthreads; t++) {
			long tid = (long)pt->threads[t].tid;
			fprintf(file, "\nraw PerThreadRunning%ld\n    source: time:running@tid=%ld\n"
			        "    description: Running time of thread %ld's counters.\n", tid, tid,
			        tid);
			for (size_t k = 0; k < r->nrows; k++)
				if (!r->rows[k].reason)
					fprintf(file, "\nraw PerThread%ld_%zu\n    source: %s@tid=%ld\n"
					        "    description: %s of thread %ld.\n", tid, k, src[k], tid,
					        src[k], tid);
		}
		if (fclose(file) != 0) {
			fprintf(stderr, "opengpa: cannot write %s: %s\n", path, strerror(errno));
			rc = 1;
		}
	}
	free(src);
	if (rc && path[0]) {
		unlink(path);
		path[0] = '\0';
	}
	return rc;
}

static int enable(const char *name, gpa_uint32 *index)
{
	GPA_Status st = GPA_GetCounterIndex(name, index);
	if (st == GPA_STATUS_OK)
		st = GPA_EnableCounter(*index);
	if (st != GPA_STATUS_OK && st != GPA_STATUS_ERROR_ALREADY_ENABLED)
		return cli_fail(name, st);
	return 0;
}

int per_thread_enable(struct per_thread *pt)
{
	pt->index = calloc(pt->nthreads * (pt->nrows ? pt->nrows : 1), sizeof *pt->index);
	pt->value = calloc(pt->nthreads * (pt->nrows ? pt->nrows : 1), sizeof *pt->value);
	if (!pt->index || !pt->value)
		return cli_fail("out of memory", GPA_STATUS_ERROR_FAILED);
	for (size_t t = 0; t < pt->nthreads; t++) {
		char name[64];
		long tid = (long)pt->threads[t].tid;
		snprintf(name, sizeof name, "PerThreadRunning%ld", tid);
		if (enable(name, &pt->threads[t].running))
			return 1;
		for (size_t k = 0; k < pt->nrows; k++) {
			if (pt->scale[k] == 0.0)
				continue; /* <not supported> */
			snprintf(name, sizeof name, "PerThread%ld_%zu", tid, k);
			if (enable(name, &pt->index[t * pt->nrows + k]))
				return 1;
		}
	}
	return 0;
}

int per_thread_read(struct per_thread *pt, gpa_uint32 session)
{
	for (size_t t = 0; t < pt->nthreads; t++) {
		gpa_uint64 v = 0;
		GPA_Status st = GPA_GetSampleUInt64(session, 0, pt->threads[t].running, &v);
		if (st != GPA_STATUS_OK)
			return cli_fail("cannot read the per-thread counts", st);
		pt->threads[t].running_ns = (double)v;
		for (size_t k = 0; k < pt->nrows; k++) {
			if (pt->scale[k] == 0.0)
				continue;
			st = GPA_GetSampleUInt64(session, 0, pt->index[t * pt->nrows + k], &v);
			if (st != GPA_STATUS_OK)
				return cli_fail("cannot read the per-thread counts", st);
			pt->value[t * pt->nrows + k] = (double)v * pt->scale[k];
		}
	}
	pt->read = true;
	return 0;
}

/* Thread t's value of row k, or false when it did not count. */
static bool value_of(const struct per_thread *pt, const struct report *r, size_t t, size_t k,
                     double *v)
{
	if (r->rows[k].reason || pt->scale[k] == 0.0 || !(pt->threads[t].running_ns > 0.0))
		return false;
	*v = pt->value[t * pt->nrows + k];
	return true;
}

/* perf's metric of thread t's row k: CPUs utilized, or a rate per second
 * of the thread's own task clock. */
static bool metric_of(const struct per_thread *pt, const struct report *r, size_t t, size_t k,
                      double *m, const char **unit)
{
	double v, clock;
	if (!value_of(pt, r, t, k, &v))
		return false;
	if (r->rows[k].cpus_utilized) {
		double ns = r->elapsed.mean * 1e9;
		*m = ns > 0.0 ? v * 1e6 / ns : 0.0;
		*unit = "CPUs utilized";
		return ns > 0.0;
	}
	for (size_t c = 0; r->rows[k].per_sec && c < r->nrows; c++)
		if (r->rows[c].cpus_utilized && value_of(pt, r, t, c, &clock)) {
			*unit = fmt_perf_rate(v, clock, m);
			return true;
		}
	return false;
}

/* Row k's threads from the largest count down (not counted last), in
 * id order among equals: perf sorts its per-thread lines by count. */
static void order_threads(const struct per_thread *pt, const struct report *r, size_t k,
                          size_t *order)
{
	for (size_t t = 0; t < pt->nthreads; t++) {
		double v = -1.0, w;
		if (!value_of(pt, r, t, k, &v))
			v = -1.0;
		size_t at = t;
		while (at > 0) {
			if (!value_of(pt, r, order[at - 1], k, &w))
				w = -1.0;
			if (w >= v)
				break;
			order[at] = order[at - 1];
			at--;
		}
		order[at] = t;
	}
}

static void format_value(const struct report_row *row, double v, char *buf, size_t len)
{
	if (row->type == GPA_TYPE_UINT64 || row->type == GPA_TYPE_UINT32)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.2f", v); /* perf's scaled clocks, msec */
}

static void print_header(FILE *f, const struct report *r)
{
	const char *device = "", *backend = "";
	GPA_GetDeviceDesc(&device);
	OpenGPA_GetBackend(&backend);
	fprintf(f, "\n Counter stats for '");
	for (int i = 0; r->command[i]; i++)
		fprintf(f, "%s%s", i ? " " : "", r->command[i]);
	fprintf(f, "' on %s (%s backend, per thread):\n\n", device, backend);
}

void per_thread_print(FILE *f, const struct per_thread *pt, const struct report *r,
                      enum report_format format, const char *sep)
{
	size_t *order = calloc(pt->nthreads ? pt->nthreads : 1, sizeof *order);
	if (!order)
		return;
	int unit_width = 0;
	for (size_t k = 0; k < r->nrows; k++) {
		int n = (int)strlen(report_perf_unit(&r->rows[k]));
		unit_width = n > unit_width ? n : unit_width;
	}
	if (format == REPORT_TABLE)
		print_header(f, r);
	for (size_t k = 0; k < r->nrows; k++) {
		const struct report_row *row = &r->rows[k];
		order_threads(pt, r, k, order);
		for (size_t i = 0; i < pt->nthreads; i++) {
			size_t t = order[i];
			const struct per_thread_thread *th = &pt->threads[t];
			double v = 0.0, m = 0.0;
			const char *munit = "";
			bool counted = value_of(pt, r, t, k, &v);
			bool has_metric = metric_of(pt, r, t, k, &m, &munit);
			char plain[64], value[80];
			if (row->reason)
				snprintf(plain, sizeof plain, "<not supported>");
			else if (!counted)
				snprintf(plain, sizeof plain, "<not counted>");
			else
				format_value(row, v, plain, sizeof plain);
			if (format == REPORT_TABLE) {
				if (counted)
					fmt_group_digits(plain, r->numeric.point, r->numeric.sep,
					                 r->numeric.grouping, value, sizeof value);
				else
					snprintf(value, sizeof value, "%s", plain);
				/* perf: "%16s-%-8d " then its counter line */
				fprintf(f, "%16s-%-8ld %18s %-*s %-32s", th->comm, (long)th->tid, value,
				        unit_width, report_perf_unit(row), row->name);
				if (has_metric)
					fprintf(f, " # %8.3f %s", m, munit);
				fputc('\n', f);
				continue;
			}
			struct tl_perf_line l = {
				.prefix = format == REPORT_SEPARATED ? th->label : NULL,
				.thread = format == REPORT_JSON ? th->label : NULL,
				.interval = -1.0,
				.value = plain,
				.number = v,
				.counted = counted,
				.unit = report_perf_unit(row),
				.event = row->name,
				.runtime_ns = counted ? (uint64_t)th->running_ns : 0,
				.pcnt_running = 100.0,
				.has_metric = has_metric,
				.metric = m,
				.metric_unit = munit,
			};
			if (format == REPORT_SEPARATED)
				tl_perf_separated(f, sep, &l);
			else
				tl_perf_json(f, &l);
		}
	}
	if (format == REPORT_TABLE)
		fprintf(f, "\n  %20.6f seconds time elapsed\n\n", r->elapsed.mean);
	free(order);
	fflush(f);
}

void per_thread_free(struct per_thread *pt)
{
	free(pt->threads);
	free(pt->scale);
	free(pt->index);
	free(pt->value);
	memset(pt, 0, sizeof *pt);
}
