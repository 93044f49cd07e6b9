/* SPDX-License-Identifier: MIT */
/*
 * bench_dlopen.c — what loading one shared library costs a process: the CPU
 * time dlopen(RTLD_NOW) takes and the resident memory it adds, printed as
 * "ns kib".  One load per process (a second dlopen of the same library
 * costs nothing), so bench/light/light.py runs it many times, alternating
 * libraries, and keeps the cheapest run of each.
 *
 * usage: bench-dlopen LIBRARY
 */
#include <dlfcn.h>
#include <stdio.h>
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
	if (argc != 2) {
		fprintf(stderr, "usage: bench-dlopen LIBRARY\n");
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
	printf("%.0f %ld\n", t1 - t0, after - before);
	dlclose(h);
	return 0;
}
