/* SPDX-License-Identifier: MIT */
/*
 * timeline_run.c — a periodic `opengpa stat` run (timeline_run.h): the
 * library takes the samples; a reader thread of the command's waits for
 * each one (OpenGPA_WaitForSamples), reads its values and times and hands
 * it to every output while the command still runs.  Only the reader writes
 * to the outputs during the pass; the main thread takes over after it has
 * gone, so nothing interleaves.
 */
#include "timeline_run.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "options.h"

/* How long the reader sleeps in one wait: it wakes for its samples, this
 * only bounds how late it notices a pass that ended without one. */
#define READER_WAIT_MS 250
/* The reader waits for this long's worth of samples at a time, not for
 * each (OpenGPA_WaitForSamples wakes it when they are all in, or the pass
 * ends): under -I 10 ten intervals a wake-up.  A wake-up of the reader
 * cost about what writing the intervals did (issue 29: `-I 10` against perf
 * stat, which has one thread; 100 ms against 50 took the reader from 8 to
 * 4.5 us an interval); a line is still out within this of its interval's
 * end, and -I 100 and longer write each as it comes. */
#define READER_BATCH_MS 100
/* Samples the library keeps for the reader (OpenGPA_SetPeriodicWindow): it
 * writes each as it comes, so memory stays flat however long the run; it
 * would have to fall this far behind to miss one. */
#define READER_WINDOW 4096

static void add_output(struct timeline *tl, const struct tl_format *format, FILE *f,
                       const char *sep)
{
	tl->out[tl->nout++] = (struct tl_output){ .format = format, .f = f, .sep = sep };
}

/* --trace FILE.pftrace: Perfetto's own format, as Perfetto names its files. */
static bool trace_is_perfetto(const char *path)
{
	size_t n = path ? strlen(path) : 0;
	return n >= 8 && strcmp(path + n - 8, ".pftrace") == 0;
}

/* Where an output shows frames, the pipe the workload's OpenGPA_MarkFrame()
 * writes its marks to: non-blocking at both ends (a workload never waits
 * on opengpa), the write end inherited through OPENGPA_FRAME_FD. */
static int open_frames(struct timeline *tl)
{
	bool wanted = false;
	for (size_t o = 0; o < tl->nout; o++)
		wanted = wanted || tl_shows_frames(&tl->out[o]);
	if (!wanted)
		return 0;
	if (frame_marks_open(&tl->marks, "opengpa")) {
		timeline_close(tl, false);
		return 1;
	}
	return 0;
}

/* A frame or sample to every output (perframe.c's emit). */
static void emit_frame(void *arg, const struct tl_frame *f)
{
	struct timeline *tl = arg;
	for (size_t o = 0; o < tl->nout; o++)
		tl_frame(&tl->out[o], &tl->run, f);
}

static void add_span(struct timeline *tl, const struct tl_frame *f)
{
	if (tl->perframe)
		tl_perframe_span(tl->perframe, f, emit_frame, tl);
	else
		emit_frame(tl, f);
}

/* The marks and samples the workload sent so far: each mark ends the frame
 * the one before began. */
static void read_marks(struct timeline *tl)
{
	if (!tl->begun)
		return;
	struct frame_mark marks[64];
	size_t n;
	while ((n = frame_marks_read_all(&tl->marks, marks, sizeof marks / sizeof marks[0])) > 0) {
		for (size_t i = 0; i < n; i++) {
			const struct frame_mark *m = &marks[i];
			if (m->sample) {
				struct tl_frame f = { .sample = true, .index = m->id,
					              .begin_ns = m->begin_ns, .end_ns = m->end_ns };
				add_span(tl, &f);
				continue;
			}
			if (tl->mark_ns) {
				struct tl_frame f = { .index = tl->frames++, .begin_ns = tl->mark_ns,
					              .end_ns = m->end_ns };
				add_span(tl, &f);
			}
			tl->mark_ns = m->end_ns;
			if (tl->perframe)
				tl_perframe_mark(tl->perframe, m->end_ns);
		}
	}
}

int timeline_open(struct timeline *tl, const struct stat_options *o, FILE *report)
{
	memset(tl, 0, sizeof *tl);
	frame_marks_init(&tl->marks);
	tl->period_ms = stat_period_ms(o);
	tl->exit_status = -1;
	tl->per_frame = o->per_frame;
	if (o->interval_ms)
		add_output(tl, o->opengpa_json ? &tl_interval_opengpa_json
		               : o->json ? &tl_interval_json
		               : o->sep ? &tl_interval_separated : &tl_interval_table,
		           report, o->sep);
	const struct {
		const char *path;
		const struct tl_format *format;
	} files[] = { { o->trace, trace_is_perfetto(o->trace) ? &tl_perfetto : &tl_trace },
		      { o->perfetto, &tl_perfetto }, { o->csv, &tl_csv }, { o->html, &tl_html } };
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		if (!files[i].path)
			continue;
		struct cli_output *file = &tl->file[tl->nout];
		if (cli_output_open(file, files[i].path, false)) {
			timeline_close(tl, false);
			return 1;
		}
		add_output(tl, files[i].format, file->f, NULL);
		tl->out[tl->nout - 1].per_frame = o->per_frame && files[i].format == &tl_csv;
	}
	if (om_export_open(&tl->om, o->listen, o->openmetrics)) {
		timeline_close(tl, false);
		return 1;
	}
	return open_frames(tl);
}

int timeline_fit_one_run(struct report *r)
{
	gpa_uint32 passes = 1;
	if (GPA_GetPassCount(&passes) != GPA_STATUS_OK || passes <= 1)
		return 0;
	GPA_DisableAllCounters();
	size_t kept = 0, countable = 0, fit = 0;
	for (size_t i = 0; i < r->nrows; i++) {
		struct report_row row = r->rows[i];
		if (!row.reason) {
			countable++;
			if (GPA_EnableCounter(row.index) != GPA_STATUS_OK ||
			    GPA_GetPassCount(&passes) != GPA_STATUS_OK || passes > 1) {
				GPA_DisableCounter(row.index);
				continue;
			}
			fit++;
		}
		r->rows[kept++] = row;
	}
	r->nrows = kept;
	cli_clear_error();
	fprintf(stderr, "opengpa stat: intervals need every counter in one run, and this device's "
	        "%zu counters do not fit on its hardware together: counting the %zu that do, in "
	        "order; choose others with -e (opengpa list)\n", countable, fit);
	return 0;
}

int timeline_prepare(struct timeline *tl, struct report *r)
{
	GPA_Status st = OpenGPA_SetSamplingPeriod((gpa_uint64)tl->period_ms * 1000000u);
	if (st == GPA_STATUS_OK)
		st = OpenGPA_SetPeriodicWindow(READER_WINDOW);
	if (st != GPA_STATUS_OK)
		return cli_fail("cannot sample every interval", st);
	size_t n = r->nrows + 1;
	tl->series = calloc(n, sizeof *tl->series);
	tl->row = calloc(n, sizeof *tl->row);
	tl->type = calloc(n, sizeof *tl->type);
	tl->index = calloc(n, sizeof *tl->index);
	tl->values = calloc(n, sizeof *tl->values);
	tl->min = calloc(n, sizeof *tl->min);
	tl->max = calloc(n, sizeof *tl->max);
	tl->sum = calloc(n, sizeof *tl->sum);
	tl->nvalues = calloc(n, sizeof *tl->nvalues);
	if (!tl->series || !tl->row || !tl->type || !tl->index || !tl->values || !tl->min ||
	    !tl->max || !tl->sum || !tl->nvalues)
		return cli_fail("out of memory", GPA_STATUS_ERROR_FAILED);
	size_t k = 0;
	for (size_t i = 0; i < r->nrows; i++) {
		const struct report_row *row = &r->rows[i];
		if (row->reason)
			continue; /* <not supported>: the report says so */
		tl->series[k] = (struct tl_series){
			.name = row->name, .group = row->group ? row->group : "",
			.unit = report_unit(row), .usage = row->usage ? row->usage : "",
			.integer = row->type == GPA_TYPE_UINT64 || row->type == GPA_TYPE_UINT32,
			.perf_unit = row->perf_unit, .cpus_utilized = row->cpus_utilized,
			.per_sec = row->per_sec,
		};
		tl->row[k] = i;
		tl->type[k] = row->type;
		tl->index[k] = row->index;
		k++;
	}
	GPA_GetDeviceDesc(&tl->run.device);
	OpenGPA_GetBackend(&tl->run.backend);
	tl->run.command = r->command;
	tl->run.series = tl->series;
	tl->run.nseries = k;
	tl->run.period_ns = (uint64_t)tl->period_ms * 1000000u;
	tl->has_running = r->has_running;
	tl->running_index = r->running_index;
	if (tl->per_frame && !(tl->perframe = tl_perframe_new(&tl->run)))
		return cli_fail("out of memory", GPA_STATUS_ERROR_FAILED);
	/* The report's values: each counter over the whole run. */
	r->sample = OPENGPA_SAMPLES_TOTAL;
	r->one_line = true;
	return om_export_prepare(tl->om, &tl->run, tl->index);
}

void timeline_session(struct timeline *tl, gpa_uint32 session)
{
	tl->session = session;
}

static double read_value(gpa_uint32 session, gpa_uint32 sample, gpa_uint32 index, GPA_Type type)
{
	GPA_Status st;
	double v;
	switch (type) {
	case GPA_TYPE_UINT64: {
		gpa_uint64 u = 0;
		st = GPA_GetSampleUInt64(session, sample, index, &u);
		v = (double)u;
		break;
	}
	case GPA_TYPE_UINT32: {
		gpa_uint32 u = 0;
		st = GPA_GetSampleUInt32(session, sample, index, &u);
		v = u;
		break;
	}
	case GPA_TYPE_FLOAT32: {
		gpa_float32 f = 0;
		st = GPA_GetSampleFloat32(session, sample, index, &f);
		v = f;
		break;
	}
	default: {
		gpa_float64 f = 0;
		st = GPA_GetSampleFloat64(session, sample, index, &f);
		v = f;
		break;
	}
	}
	return st == GPA_STATUS_OK ? v : NAN;
}

/* An interval that could not be read prints <not counted> in every
 * format, as perf's does; the reason, which only the table's note line
 * hints at, goes to stderr in every format, as the library logged it
 * (the backend's words: a kernel flag, a group that never ran). */
static void say_why(struct timeline *tl, uint32_t k, uint64_t end_ns, const char *why)
{
	/* After the intervals before it, which the reader may hold. */
	for (size_t o = 0; o < tl->nout; o++)
		if (tl->out[o].held) {
			tl_release(&tl->out[o]);
			tl_hold(&tl->out[o]);
		}
	char shown[600];
	fprintf(stderr, "opengpa stat: the interval ending at %.9f s (interval %u) was not "
	        "counted: %s\n", tl_seconds(&tl->run, end_ns), (unsigned)k,
	        why[0] ? cli_escape(why, shown, sizeof shown)
	               : "the backend could not read it (-v shows the library's messages)");
}

/* Now when the library has said why, else when the pass has ended. */
static void say_not_counted(struct timeline *tl, uint32_t k, uint64_t end_ns)
{
	char why[512];
	cli_take_error(why, sizeof why);
	if (why[0]) {
		say_why(tl, k, end_ns, why);
		return;
	}
	if (tl->unsaid)
		say_why(tl, tl->unsaid_index, tl->unsaid_end_ns, "");
	tl->unsaid++;
	tl->unsaid_index = k;
	tl->unsaid_end_ns = end_ns;
}

/* Interval k to every output. */
static void write_interval(struct timeline *tl, uint32_t k)
{
	struct tl_sample s = { .index = k, .values = tl->values };
	gpa_uint64 begin = 0, end = 0;
	gpa_uint32 flags = 0;
	if (OpenGPA_GetSampleTime(tl->session, k, &begin, &end) != GPA_STATUS_OK) {
		tl->missed++; /* left the window before the reader got to it */
		return;
	}
	OpenGPA_GetSampleFlags(tl->session, k, &flags);
	if (flags & OPENGPA_SAMPLE_FAILED)
		say_not_counted(tl, k, end);
	s.begin_ns = begin;
	s.end_ns = end;
	s.flags = flags;
	if (tl->has_running && !(s.flags & OPENGPA_SAMPLE_FAILED)) {
		gpa_uint64 running = 0;
		s.has_running = GPA_GetSampleUInt64(tl->session, k, tl->running_index, &running) ==
		                GPA_STATUS_OK;
		s.running_ns = running;
	}
	for (size_t i = 0; i < tl->run.nseries; i++) {
		double v = s.flags & OPENGPA_SAMPLE_FAILED
		                   ? NAN
		                   : read_value(tl->session, k, tl->index[i], tl->type[i]);
		tl->values[i] = v;
		if (isnan(v))
			continue;
		if (!tl->nvalues[i] || v < tl->min[i])
			tl->min[i] = v;
		if (!tl->nvalues[i] || v > tl->max[i])
			tl->max[i] = v;
		tl->sum[i] += v;
		tl->nvalues[i]++;
	}
	for (size_t o = 0; o < tl->nout; o++)
		tl_sample(&tl->out[o], &tl->run, &s);
	om_export_interval(tl->om, tl->values, tl->sum, tl->nvalues, (uint64_t)k + 1);
	if (tl->perframe)
		tl_perframe_interval(tl->perframe, &s, emit_frame, tl);
}

/* Follows the session until its pass has ended and every interval is out. */
static void *reader(void *arg)
{
	struct timeline *tl = arg;
	unsigned batch = tl->period_ms && tl->period_ms < READER_BATCH_MS
	                         ? READER_BATCH_MS / tl->period_ms
	                         : 1;
	for (;;) {
		gpa_uint32 avail = 0, count = 0;
		bool ready = false;
		if (OpenGPA_WaitForSamples(tl->session, tl->next + batch, READER_WAIT_MS, &avail) !=
		    GPA_STATUS_OK)
			break;
		read_marks(tl);
		/* This wake-up's intervals reach each output in one write. */
		for (size_t o = 0; o < tl->nout; o++)
			tl_hold(&tl->out[o]);
		for (; tl->next < avail; tl->next++)
			write_interval(tl, tl->next);
		for (size_t o = 0; o < tl->nout; o++)
			tl_release(&tl->out[o]);
		/* Ready: the pass ended, the count is final. */
		if (GPA_IsSessionReady(&ready, tl->session) == GPA_STATUS_OK && ready &&
		    GPA_GetSampleCount(tl->session, &count) == GPA_STATUS_OK && tl->next >= count)
			break;
	}
	return NULL;
}

int timeline_pass_begun(struct timeline *tl, uint64_t start_ns, long pid)
{
	tl->run.start_ns = start_ns;
	tl->run.pid = pid ? pid : (long)getpid();
	gpa_uint64 period = 0;
	gpa_uint8 kernel = 0; /* known once the pass samples */
	if (OpenGPA_GetSamplingPeriod(tl->session, &period, &kernel) == GPA_STATUS_OK)
		tl->run.kernel_timed = kernel != 0;
	for (size_t o = 0; o < tl->nout; o++)
		tl_begin(&tl->out[o], &tl->run);
	tl->begun = true;
	/* The command's signals (^C) stay with the main thread. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int e = pthread_create(&tl->reader, NULL, reader, tl);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e) {
		fprintf(stderr, "opengpa: cannot start the interval reader: %s\n", strerror(e));
		return 1;
	}
	tl->reading = true;
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

void timeline_workload_ended(struct timeline *tl, int status)
{
	tl->end_ns = now_ns();
	tl->exit_status = status;
}

void timeline_pass_ended(struct timeline *tl)
{
	if (!tl->end_ns)
		tl->end_ns = now_ns();
	if (tl->reading)
		pthread_join(tl->reader, NULL);
	tl->reading = false;
	read_marks(tl); /* those sent after the reader's last look */
	if (tl->unsaid) {
		char why[512];
		cli_take_error(why, sizeof why);
		say_why(tl, tl->unsaid_index, tl->unsaid_end_ns, why);
		tl->unsaid = 0;
	}
	if (tl->missed)
		fprintf(stderr, "opengpa: %u intervals were not written: opengpa's reader fell more "
		        "than %d intervals behind (a very busy machine); the totals count them\n",
		        tl->missed, READER_WINDOW);
	tl->missed = 0;
}

void timeline_finish(struct timeline *tl, const struct report *r)
{
	if (!tl->begun)
		return;
	size_t n = tl->run.nseries;
	double *totals = calloc(n + 1, sizeof *totals), *mean = calloc(n + 1, sizeof *mean);
	double *min = calloc(n + 1, sizeof *min), *max = calloc(n + 1, sizeof *max);
	if (tl->perframe) /* the frames and samples the last intervals end */
		tl_perframe_flush(tl->perframe, emit_frame, tl);
	if (totals && mean && min && max) {
		for (size_t i = 0; i < n; i++) {
			const struct report_row *row = &r->rows[tl->row[i]];
			totals[i] = row->values.n ? (tl->series[i].integer ? (double)row->count
			                                                   : row->values.mean)
			                          : NAN;
			bool any = tl->nvalues[i] > 0;
			min[i] = any ? tl->min[i] : NAN;
			max[i] = any ? tl->max[i] : NAN;
			mean[i] = any ? tl->sum[i] / tl->nvalues[i] : NAN;
		}
		struct tl_end e = { .end_ns = tl->end_ns, .exit_status = tl->exit_status,
			            .nsamples = tl->next, .totals = totals, .min = min,
			            .mean = mean, .max = max };
		for (size_t o = 0; o < tl->nout; o++)
			tl_end(&tl->out[o], &tl->run, &e);
	}
	/* Nothing comes after the files' ends. */
	frame_marks_close_reader(&tl->marks);
	free(totals);
	free(mean);
	free(min);
	free(max);
}

int timeline_close(struct timeline *tl, bool commit)
{
	timeline_pass_ended(tl);
	int rc = 0;
	for (size_t o = 0; o < tl->nout; o++) {
		tl_close(&tl->out[o]); /* a run that never reached its end record */
		struct cli_output *file = &tl->file[o];
		if (!file->f)
			continue;
		/* A run that never began (bad counters, a refused period) wrote
		 * nothing: what the name held stays. */
		if (commit && !tl->begun) {
			char name[256];
			fprintf(stderr, "opengpa: no interval was counted, so %s was not written\n",
			        cli_escape(file->path, name, sizeof name));
		}
		if (cli_output_close(file, commit && tl->begun))
			rc = 1;
	}
	tl->nout = 0;
	om_export_close(tl->om); /* the listener stops with the run */
	tl->om = NULL;
	frame_marks_close(&tl->marks);
	tl_perframe_free(tl->perframe);
	tl->perframe = NULL;
	free(tl->series);
	free(tl->row);
	free(tl->type);
	free(tl->index);
	free(tl->values);
	free(tl->min);
	free(tl->max);
	free(tl->sum);
	free(tl->nvalues);
	tl->series = NULL;
	tl->row = NULL;
	tl->type = NULL;
	tl->index = NULL;
	tl->values = tl->min = tl->max = tl->sum = NULL;
	tl->nvalues = NULL;
	return rc;
}
