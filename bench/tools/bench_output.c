/* SPDX-License-Identifier: MIT */
/*
 * bench_output.c — what writing one interval of 400 counters costs in each
 * of opengpa stat's formats (the -I text, -x, --json, CSV, the JSON trace,
 * Perfetto, the HTML report's data), against a write(2) of the same bytes
 * prepared in advance, to the same file (results and the command in
 * docs/performance.md, "Timelines"; the target is 2x).
 *
 * Each format's record is made once to learn its bytes; then, in
 * alternating rounds, the writer (tl_sample: formatting into memory, one
 * fwrite, a flush) and a bare write(2) of those bytes each write the
 * interval ITER times to a file in the page cache (rewound every 64
 * records, both sides alike).  The best round of each is kept, so a
 * descheduled round on a loaded machine does not count; the ratio is
 * writer / write(2).
 *
 *   bench-output [DIR [ROUNDS]]   DIR: where the scratch file goes (.)
 *   bench-output --html FILE INTERVALS [COUNTERS]
 *                                 a report of INTERVALS x COUNTERS (400)
 *                                 synthetic intervals of a G725-like set,
 *                                 for measuring the page in a browser
 */
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "opengpa.h"
#include "timeline.h"

#define NSERIES 400
#define ITER 400
#define REWIND 64

static uint64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static char names[NSERIES][48], groups[16][32];

/* A G725 --hardware-like set: 16 groups, mostly cycle and item counts,
 * some percentages and ratios, integers where the library gives them. */
static void make_run(struct tl_run *run, struct tl_series *series, size_t n)
{
	static const char *const kinds[][3] = {
		{ "cycles", "cycles", "1" }, { "items", "", "1" }, { "bytes", "B", "1" },
		{ "percentage", "%", "0" }, { "ratio", "", "0" },
	};
	for (size_t g = 0; g < 16; g++)
		snprintf(groups[g], sizeof groups[g], "Group %zu", g);
	for (size_t i = 0; i < n; i++) {
		size_t k = i % 10 < 5 ? 0 : i % 10 < 7 ? 1 : i % 10 < 8 ? 2 : i % 10 < 9 ? 3 : 4;
		snprintf(names[i], sizeof names[i], "MaliCounter%zuName%s", i, kinds[k][0]);
		series[i] = (struct tl_series){ .name = names[i], .group = groups[i % 16],
			                        .unit = kinds[k][1], .usage = kinds[k][0],
			                        .integer = kinds[k][2][0] == '1' };
	}
	static char *const command[] = { "sleep", "1", NULL };
	*run = (struct tl_run){ .command = command, .device = "Mali-G725 MP10 (virtual)",
		                .backend = "mali", .pid = 1234, .period_ns = 10000000u,
		                .kernel_timed = true, .start_ns = 1000000000u, .series = series,
		                .nseries = n };
}

static void make_values(double *v, size_t n, uint32_t k)
{
	for (size_t i = 0; i < n; i++) {
		size_t kind = i % 10;
		double x = (double)((i * 2654435761u + k * 40503u) % 1000003u);
		v[i] = kind < 8 ? floor(x * 37.0) : kind < 9 ? fmod(x, 10000.0) / 100.0 : x / 977.0;
	}
}

struct format {
	const char *name;
	const struct tl_format *f;
	const char *sep;
};

static double best_ns(double a, double b)
{
	return a < b ? a : b;
}

static int bench(const char *dir, int rounds)
{
	static const struct format formats[] = {
		{ "-I text", &tl_interval_table, NULL },
		{ "-I -x,", &tl_interval_separated, "," },
		{ "-I --json", &tl_interval_json, NULL },
		{ "--csv", &tl_csv, NULL },
		{ "--trace (JSON)", &tl_trace, NULL },
		{ "--perfetto", &tl_perfetto, NULL },
		{ "--html (data)", &tl_html, NULL },
	};
	static struct tl_series series[NSERIES];
	static double values[NSERIES];
	struct tl_run run;
	make_run(&run, series, NSERIES);
	make_values(values, NSERIES, 1);
	char path[4096];
	snprintf(path, sizeof path, "%s/bench-output.scratch", dir);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	unlink(path);
	FILE *f = fdopen(fd, "w");
	if (!f) {
		perror("fdopen");
		close(fd);
		return 1;
	}
	printf("%-16s %9s %12s %12s %7s\n", "format", "bytes", "writer us", "write(2) us",
	       "ratio");
	for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
		struct tl_output o = { .format = formats[i].f, .f = f, .sep = formats[i].sep };
		tl_begin(&o, &run);
		struct tl_sample s = { .index = 5, .begin_ns = 1050000000u, .end_ns = 1060000000u,
			               .values = values };
		/* The record's bytes, once. */
		char *buf = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&buf, &len);
		if (!m)
			return 1;
		struct tl_output om = o;
		om.f = m;
		tl_sample(&om, &run, &s);
		fclose(m);
		double w = 1e30, raw = 1e30;
		for (int r = 0; r < rounds; r++) {
			fflush(f);
			lseek(fd, 0, SEEK_SET);
			uint64_t t0 = now_ns();
			for (int k = 0; k < ITER; k++) {
				if (k % REWIND == 0) {
					fflush(f);
					lseek(fd, 0, SEEK_SET);
				}
				s.index = (uint32_t)k;
				tl_sample(&o, &run, &s);
			}
			uint64_t t1 = now_ns();
			for (int k = 0; k < ITER; k++) {
				if (k % REWIND == 0)
					lseek(fd, 0, SEEK_SET);
				if (write(fd, buf, len) != (ssize_t)len) {
					perror("write");
					return 1;
				}
			}
			uint64_t t2 = now_ns();
			w = best_ns(w, (double)(t1 - t0) / ITER);
			raw = best_ns(raw, (double)(t2 - t1) / ITER);
		}
		printf("%-16s %9zu %12.2f %12.2f %6.2fx\n", formats[i].name, len, w / 1e3, raw / 1e3,
		       w / raw);
		free(buf);
		tl_close(&o); /* no end record here: the record memory kept since tl_begin */
		fflush(f);
		lseek(fd, 0, SEEK_SET);
	}
	fclose(f);
	return 0;
}

/* A report of n intervals (10 ms each) of nseries counters. */
static int html(const char *path, unsigned n, size_t nseries)
{
	static struct tl_series series[NSERIES];
	static double values[NSERIES], totals[NSERIES];
	if (nseries > NSERIES)
		nseries = NSERIES;
	struct tl_run run;
	make_run(&run, series, nseries);
	FILE *f = fopen(path, "we");
	if (!f) {
		perror(path);
		return 1;
	}
	struct tl_output o = { .format = &tl_html, .f = f };
	tl_begin(&o, &run);
	for (unsigned k = 0; k < n; k++) {
		make_values(values, nseries, k);
		struct tl_sample s = { .index = k, .begin_ns = run.start_ns + k * 10000000ull,
			               .end_ns = run.start_ns + (k + 1) * 10000000ull,
			               .flags = k + 1 == n ? OPENGPA_SAMPLE_FINAL : 0,
			               .values = values };
		tl_sample(&o, &run, &s);
		if (k % 6 == 5) { /* a frame every 60 ms */
			struct tl_frame fr = { .index = k / 6, .begin_ns = s.end_ns - 60000000ull,
				               .end_ns = s.end_ns };
			tl_frame(&o, &run, &fr);
		}
	}
	for (size_t i = 0; i < nseries; i++)
		totals[i] = values[i] * n;
	struct tl_end e = { .end_ns = run.start_ns + n * 10000000ull, .exit_status = 0,
		            .nsamples = n, .totals = totals, .min = values, .mean = values,
		            .max = values };
	tl_end(&o, &run, &e);
	return fclose(f) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && strcmp(argv[1], "--html") == 0)
		return html(argv[2], (unsigned)strtoul(argv[3], NULL, 10),
		            argc > 4 ? strtoul(argv[4], NULL, 10) : NSERIES);
	return bench(argc > 1 ? argv[1] : ".", argc > 2 ? atoi(argv[2]) : 7);
}
