/* SPDX-License-Identifier: MIT */
/*
 * frame_marks.c — a workload that marks frames: OpenGPA_MarkFrame() COUNT
 * times, MS milliseconds apart (busy, so the CPU counters see work), for
 * test_frames.py under `opengpa stat -I`.
 *
 *   frame_marks COUNT MS   marks; exits 1 if a mark fails
 *   frame_marks samples COUNT MS
 *                          COUNT GPA samples (IDs 100, 101, ...) of MS
 *                          milliseconds each, MS apart, on a plain context
 *                          of the perf backend, with a frame mark after
 *                          each: the library sends each sample to opengpa
 *                          stat's timeline (og_apictx_send_sample)
 *   frame_marks refusals   the call's answers without opengpa stat: OK
 *                          with no OPENGPA_FRAME_FD, an error for a value
 *                          that is no number or no pipe; exits 1 otherwise
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "opengpa.h"

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int expect(const char *what, GPA_Status got, GPA_Status want)
{
	if (got == want)
		return 0;
	fprintf(stderr, "frame_marks: %s: status %d, expected %d\n", what, (int)got, (int)want);
	return 1;
}

static int refusals(void)
{
	int bad = 0;
	unsetenv("OPENGPA_FRAME_FD");
	bad |= expect("no OPENGPA_FRAME_FD", OpenGPA_MarkFrame(), GPA_STATUS_OK);
	setenv("OPENGPA_FRAME_FD", "seven", 1);
	bad |= expect("OPENGPA_FRAME_FD=seven", OpenGPA_MarkFrame(), GPA_STATUS_ERROR_FAILED);
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		perror("frame_marks: /dev/null");
		return 1;
	}
	char v[16];
	snprintf(v, sizeof v, "%d", fd);
	setenv("OPENGPA_FRAME_FD", v, 1);
	bad |= expect("OPENGPA_FRAME_FD naming /dev/null", OpenGPA_MarkFrame(),
	              GPA_STATUS_ERROR_FAILED);
	close(fd);
	int p[2];
	if (pipe(p) != 0) {
		perror("frame_marks: pipe");
		return 1;
	}
	snprintf(v, sizeof v, "%d", p[1]);
	setenv("OPENGPA_FRAME_FD", v, 1);
	bad |= expect("OPENGPA_FRAME_FD naming a pipe", OpenGPA_MarkFrame(), GPA_STATUS_OK);
	unsigned long long mark = 0;
	if (read(p[0], &mark, sizeof mark) != (ssize_t)sizeof mark || !mark) {
		fprintf(stderr, "frame_marks: the pipe did not get an 8-byte mark\n");
		bad = 1;
	}
	close(p[0]);
	close(p[1]);
	return bad;
}

static void spin_ms(double ms)
{
	double until = now_ms() + ms;
	while (now_ms() < until)
		;
}

static int samples(int count, double ms)
{
	static int key; /* a plain context: the pointer is a key */
	gpa_uint32 session, index;
	GPA_Status st = GPA_Initialize();
	if (st == GPA_STATUS_OK)
		st = OpenGPA_SetBackend("perf", NULL);
	if (st == GPA_STATUS_OK)
		st = GPA_OpenContext(&key);
	if (st == GPA_STATUS_OK)
		st = GPA_GetCounterIndex("TaskClock", &index);
	if (st == GPA_STATUS_OK)
		st = GPA_EnableCounter(index);
	if (st == GPA_STATUS_OK)
		st = GPA_BeginSession(&session);
	if (st == GPA_STATUS_OK)
		st = GPA_BeginPass();
	for (int i = 0; i < count && st == GPA_STATUS_OK; i++) {
		spin_ms(ms); /* between samples */
		st = GPA_BeginSample((gpa_uint32)(100 + i));
		if (st == GPA_STATUS_OK) {
			spin_ms(ms);
			st = GPA_EndSample();
		}
		if (st == GPA_STATUS_OK)
			st = OpenGPA_MarkFrame();
	}
	if (st == GPA_STATUS_OK)
		st = GPA_EndPass();
	if (st == GPA_STATUS_OK)
		st = GPA_EndSession();
	if (st != GPA_STATUS_OK)
		fprintf(stderr, "frame_marks: samples: %s\n", GPA_GetStatusAsStr(st));
	GPA_CloseContext();
	GPA_Destroy();
	return st == GPA_STATUS_OK ? 0 : 1;
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "refusals") == 0)
		return refusals();
	if (argc == 4 && strcmp(argv[1], "samples") == 0)
		return samples(atoi(argv[2]), atof(argv[3]));
	if (argc != 3) {
		fprintf(stderr, "usage: frame_marks COUNT MS | frame_marks samples COUNT MS | "
		        "frame_marks refusals\n");
		return 2;
	}
	int count = atoi(argv[1]);
	double ms = atof(argv[2]);
	for (int i = 0; i < count; i++) {
		if (i) {
			double until = now_ms() + ms;
			while (now_ms() < until)
				;
		}
		if (OpenGPA_MarkFrame() != GPA_STATUS_OK) {
			fprintf(stderr, "frame_marks: mark %d failed\n", i);
			return 1;
		}
	}
	return 0;
}
