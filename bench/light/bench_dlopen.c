/* SPDX-License-Identifier: MIT */
/*
 * bench_dlopen.c — what loading one shared library costs a process: the CPU
 * time dlopen(RTLD_NOW) takes and the resident memory it adds, printed as
 * "ns kib".  One load per process (a second dlopen of the same library
 * costs nothing), so bench/light/light.py runs it many times, alternating
 * libraries, and keeps the cheapest run of each.
 *
 * usage: bench-dlopen LIBRARY [open]
 *
 * With "open" (LIBRARY being libopengpa, a device there: the virtual Mali
 * preloaded, OPENGPA_API=none), then the CPU time of the process's first
 * GPA_OpenContext on the mali backend, as a third number: what a load
 * saves by leaving work for later shows up here (docs/performance.md,
 * "Footprint").
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long rss_kib(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	long size = 0, resident = 0;
	if (!f)
		return -1;
	if (fscanf(f, "%ld %ld", &size, &resident) != 2)
		resident = -1;
	fclose(f);
	return resident < 0 ? -1 : resident * (sysconf(_SC_PAGESIZE) / 1024);
}

static double cpu_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

int main(int argc, char **argv)
{
	if (argc != 2 && !(argc == 3 && strcmp(argv[2], "open") == 0)) {
		fprintf(stderr, "usage: bench-dlopen LIBRARY [open]\n");
		return 2;
	}
	long before = rss_kib();
	double t0 = cpu_ns();
	void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
	double t1 = cpu_ns();
	long after = rss_kib();
	if (!h) {
		fprintf(stderr, "bench-dlopen: %s (give the library's path)\n", dlerror());
		return 1;
	}
	if (argc == 3) {
		int (*init)(void) = (int (*)(void))dlsym(h, "GPA_Initialize");
		int (*backend)(const char *, const char *) =
			(int (*)(const char *, const char *))dlsym(h, "OpenGPA_SetBackend");
		int (*open_context)(void *) = (int (*)(void *))dlsym(h, "GPA_OpenContext");
		static int key;
		if (!init || !backend || !open_context || init() != 0 || backend("mali", NULL) != 0) {
			fprintf(stderr, "bench-dlopen: not libopengpa, or GPA_Initialize failed\n");
			return 1;
		}
		double t2 = cpu_ns();
		int st = open_context(&key);
		double t3 = cpu_ns();
		if (st != 0) {
			fprintf(stderr, "bench-dlopen: GPA_OpenContext: status %d (preload the "
			        "virtual Mali and set OPENGPA_API=none)\n", st);
			return 1;
		}
		printf("%.0f %ld %.0f\n", t1 - t0, after - before, t3 - t2);
		return 0;
	}
	printf("%.0f %ld\n", t1 - t0, after - before);
	dlclose(h);
	return 0;
}
