/* SPDX-License-Identifier: MIT */
/*
 * bench_open.c — P6 (issue 29): GPA_OpenContext + GPA_CloseContext against
 * opening the device by hand, as an unmodified GPA 2.x client sees it: this
 * program links libopengpa.so like any client (GPUPerfAPI.h, no test hooks,
 * no OpenGPA_* call: the backend is found by `auto`), and the device is the
 * virtual Mali of libopengpa-vmali.so, LD_PRELOADed, whose open/ioctl/mmap
 * stand in for the kernel's.  Results and the command in
 * docs/performance.md ("P6: opening through the shared library").
 *
 *   bench-open PRELOAD [ROUNDS [PROCESSES]]
 *       both GPUs below, each in processes of its own under
 *       LD_PRELOAD=PRELOAD: ROUNDS alternating rounds of 200 opens of each
 *       side (default 15), and PROCESSES fresh processes (default 15) for
 *       the first open of a process; prints the table.
 *   bench-open steady vinstr|kinstr ROUNDS   one GPU's steady rows (a child)
 *   bench-open first vinstr|kinstr           one first open (a child)
 *   bench-open open vinstr|kinstr N          N opens and closes alone, and
 *   bench-open hand vinstr|kinstr N          N opens by hand alone, in
 *                                            open_loop, for valgrind
 *                                            --tool=callgrind
 *                                            --toggle-collect=open_loop
 *   (the last four expect the preload and its VMALI_* variables set, as
 *   the first sets them: G71 VMALI_GPU_ID=0x6000 VMALI_UK=11.31
 *   VMALI_CORE_MASK=0xFF VMALI_L2_SLICES=2; G720 VMALI_GPU_ID=0xc000
 *   VMALI_UK=1.21 VMALI_CORE_MASK=0xFFF VMALI_L2_SLICES=4)
 *
 * The two GPUs are the two counter interfaces: a Mali-G71 MP8 on a JM
 * driver of UK 11.31 (the hwcnt reader, "vinstr") and a Mali-G720 MC12 on
 * a CSF driver of UK 1.21 (kinstr_prfcnt, the only interface from 1.21).
 *
 * The floor, and why it is the floor: the ioctls a client needs to have
 * the counters of this GPU ready to sample, on the same preloaded device,
 * each checked as a client must, and nothing else —
 *   vinstr: open, VERSION_CHECK (JM), SET_FLAGS (kbase refuses everything
 *     else before it), GET_GPUPROPS twice (its size, then the properties:
 *     which GPU, its cores and slices, hence the dump layout), HWCNT_READER_
 *     SETUP, the reader's API version, dump layout version and buffer size
 *     (without them the dumps cannot be read or the ring mapped), mmap of
 *     the ring; then munmap and close of both descriptors;
 *   kinstr: open, VERSION_CHECK (CSF: a client built for this driver asks
 *     the right one first), SET_FLAGS, GET_GPUPROPS twice, ENUM_INFO twice
 *     (the count, then the blocks: SETUP needs one request per block
 *     type), SETUP with every block enabled, mmap of the sample ring; then
 *     munmap and two closes.
 * The properties and the block list are decoded only as far as the next
 * call needs (the sizes); what the library does besides — finding the GPU
 * in its table, the counter catalogue, the session ring — is what the
 * ratio measures.  A client that knew the GPU in advance could skip
 * GET_GPUPROPS, but not on a device it has not seen; none can skip the
 * rest.
 *
 * Every figure is thread CPU time (the virtual device runs in this
 * thread, as the kernel's work runs in the calling thread's system time),
 * both sides back to back in every round, so that another process taking
 * the CPU inflates both sides of a round's ratio alike.  The first-open
 * row: each fresh process opens the device by hand once untimed (the
 * preload builds its virtual device then; a real device exists before the
 * process), then times its first GPA_OpenContext + GPA_CloseContext — the
 * library's first-use work, lazy symbol binding included — and then one
 * open by hand; the ratio is per process, with the page faults the first
 * open took (its code and tables touched for the first time).
 */
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "GPUPerfAPI.h"
#include "bench_clock.h"
#include "mali/mali_uapi.h"

extern char **environ;

#define PER_ROUND 200
#define MAX_ROUNDS 101
#define MAX_PROCESSES 101

static void die(const char *what)
{
	fprintf(stderr, "bench-open: %s%s%s\n", what, errno ? ": " : "", errno ? strerror(errno) : "");
	exit(1);
}

static void check(GPA_Status st, const char *what)
{
	if (st != GPA_STATUS_OK) {
		fprintf(stderr, "bench-open: %s: status %d (run under LD_PRELOAD of "
		        "libopengpa-vmali.so with its VMALI_* variables: see the top of "
		        "bench_open.c)\n", what, (int)st);
		exit(1);
	}
}

/* ---- the floor: the device by hand --------------------------------------- */

static void hand_device(int *fd_out, bool csf)
{
	int fd = open("/dev/mali0", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		die("open /dev/mali0 (is libopengpa-vmali.so preloaded?)");
	struct og_kbase_version_check v = { 0, 0 };
	if (ioctl(fd, csf ? OG_KBASE_VERSION_CHECK_CSF : OG_KBASE_VERSION_CHECK_JM, &v) < 0 ||
	    v.major != (csf ? OG_KBASE_CSF_MAJOR : OG_KBASE_JM_MAJOR))
		die(csf ? "VERSION_CHECK (CSF): not the CSF driver expected"
		        : "VERSION_CHECK (JM): not the JM driver expected");
	struct og_kbase_set_flags f = { OG_KBASE_CTX_SYSTEM_MONITOR };
	if (ioctl(fd, OG_KBASE_SET_FLAGS, &f) < 0)
		die("SET_FLAGS");
	struct og_kbase_get_gpuprops q = { 0, 0, 0 };
	uint8_t props[4096];
	int need = ioctl(fd, OG_KBASE_GET_GPUPROPS, &q);
	if (need <= 0 || (size_t)need > sizeof props)
		die("GET_GPUPROPS (size)");
	q.buffer = (uint64_t)(uintptr_t)props;
	q.size = (uint32_t)need;
	int got = ioctl(fd, OG_KBASE_GET_GPUPROPS, &q);
	if (got <= 0 || got > need)
		die("GET_GPUPROPS");
	*fd_out = fd;
}

static void hand_vinstr(void)
{
	int fd;
	hand_device(&fd, false);
	struct og_kbase_hwcnt_reader_setup setup = { OG_KBASE_READER_MAX_BUFFERS, ~0u, ~0u, ~0u, ~0u };
	int reader = ioctl(fd, OG_KBASE_HWCNT_READER_SETUP, &setup);
	struct og_kbase_reader_api_version api = { 0, 0 };
	uint32_t hwver = 0, size = 0;
	if (reader < 0 || ioctl(reader, OG_KBASE_READER_GET_API_VERSION_WITH_FEATURES, &api) < 0 ||
	    api.version != OG_KBASE_READER_API || ioctl(reader, OG_KBASE_READER_GET_HWVER, &hwver) < 0 ||
	    hwver != OG_KBASE_READER_HWVER_V5 ||
	    ioctl(reader, OG_KBASE_READER_GET_BUFFER_SIZE, &size) < 0 || size == 0)
		die("setting up the hwcnt reader");
	size_t len = (size_t)OG_KBASE_READER_MAX_BUFFERS * size;
	void *ring = mmap(NULL, len, PROT_READ, MAP_PRIVATE, reader, 0);
	if (ring == MAP_FAILED)
		die("mmap of the dump ring");
	munmap(ring, len);
	close(reader);
	close(fd);
}

static void hand_kinstr(void)
{
	int fd;
	hand_device(&fd, true);
	struct og_kinstr_enum_item items[64];
	struct og_kinstr_enum_info q = { 0, 0, 0 };
	if (ioctl(fd, OG_KBASE_KINSTR_ENUM_INFO, &q) < 0 || q.info_item_size != sizeof items[0] ||
	    q.info_item_count == 0 || q.info_item_count > 64)
		die("KINSTR_PRFCNT_ENUM_INFO (count)");
	q.info_list_ptr = (uint64_t)(uintptr_t)items;
	if (ioctl(fd, OG_KBASE_KINSTR_ENUM_INFO, &q) < 0)
		die("KINSTR_PRFCNT_ENUM_INFO");
	/* The mode, then one request per block type the list names (every
	 * value enabled, in the set it lists), then a zeroed item ending the
	 * list. */
	struct og_kinstr_request_item req[16];
	memset(req, 0, sizeof req);
	uint32_t n = 0;
	req[n].hdr.item_type = OG_KINSTR_REQUEST_MODE;
	req[n++].u.mode.mode = OG_KINSTR_MODE_MANUAL;
	for (uint32_t i = 0; i < q.info_item_count && n < 15; i++) {
		if (items[i].hdr.item_type != OG_KINSTR_ENUM_BLOCK || items[i].u.block.num_instances == 0)
			continue;
		req[n].hdr.item_type = OG_KINSTR_REQUEST_ENABLE;
		req[n].u.enable.block_type = items[i].u.block.block_type;
		req[n].u.enable.set = items[i].u.block.set;
		uint32_t v = items[i].u.block.num_values;
		req[n].u.enable.enable_mask[0] = v >= 64 ? ~0ull : (1ull << v) - 1;
		req[n].u.enable.enable_mask[1] = v <= 64 ? 0 : v >= 128 ? ~0ull : (1ull << (v - 64)) - 1;
		n++;
	}
	n++;
	union og_kinstr_setup s;
	memset(&s, 0, sizeof s);
	s.in.request_item_count = n;
	s.in.request_item_size = sizeof req[0];
	s.in.requests_ptr = (uint64_t)(uintptr_t)req;
	int reader = ioctl(fd, OG_KBASE_KINSTR_SETUP, &s);
	if (reader < 0 || s.out.prfcnt_mmap_size_bytes == 0)
		die("KINSTR_PRFCNT_SETUP");
	void *ring = mmap(NULL, s.out.prfcnt_mmap_size_bytes, PROT_READ, MAP_PRIVATE, reader, 0);
	if (ring == MAP_FAILED)
		die("mmap of the sample ring");
	munmap(ring, s.out.prfcnt_mmap_size_bytes);
	close(reader);
	close(fd);
}

/* ---- the library's side ---------------------------------------------------- */

static int key;

static void gpa_open_close(void)
{
	check(GPA_OpenContext(&key), "GPA_OpenContext");
	check(GPA_CloseContext(), "GPA_CloseContext");
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* The child's steady rows: "hand_best gpa_best ratio_median ratio_lo ratio_hi". */
static void steady(void (*hand)(void), int rounds)
{
	double best[2] = { 1e300, 1e300 }, ratio[MAX_ROUNDS];
	hand();
	gpa_open_close();
	for (int r = 0; r < rounds; r++) {
		double t0 = bench_thread_cpu_ns();
		for (int i = 0; i < PER_ROUND; i++)
			hand();
		double t1 = bench_thread_cpu_ns();
		for (int i = 0; i < PER_ROUND; i++)
			gpa_open_close();
		double t2 = bench_thread_cpu_ns();
		double us[2] = { (t1 - t0) / PER_ROUND / 1e3, (t2 - t1) / PER_ROUND / 1e3 };
		for (int v = 0; v < 2; v++)
			best[v] = us[v] < best[v] ? us[v] : best[v];
		ratio[r] = us[1] / us[0];
	}
	qsort(ratio, (size_t)rounds, sizeof *ratio, cmp_double);
	printf("%.3f %.3f %.3f %.3f %.3f\n", best[0], best[1], ratio[rounds / 2], ratio[0],
	       ratio[rounds - 1]);
}

static long minor_faults(void)
{
	struct rusage u;
	return getrusage(RUSAGE_THREAD, &u) == 0 ? u.ru_minflt : 0;
}

/* One fresh process's first open: "first_us hand_us faults" (the page
 * faults the first open took: the library's code and tables touched for
 * the first time). */
static void first(void (*hand)(void))
{
	hand(); /* the virtual device is made here: not the library's cost */
	long f0 = minor_faults();
	double t0 = bench_thread_cpu_ns();
	gpa_open_close();
	double t1 = bench_thread_cpu_ns();
	long f1 = minor_faults();
	hand();
	double t2 = bench_thread_cpu_ns();
	printf("%.3f %.3f %ld\n", (t1 - t0) / 1e3, (t2 - t1) / 1e3, f1 - f0);
}

static __attribute__((noinline)) void open_loop(void (*fn)(void), long n)
{
	for (; n > 0; n--)
		fn();
}

/* ---- the driver: children under the preload ----------------------------------- */

struct gpu {
	const char *name, *iface;
	const char *env[4];
};

static const struct gpu gpus[] = {
	{ "Mali-G71 MP8, JM UK 11.31, vinstr", "vinstr",
	  { "VMALI_GPU_ID=0x6000", "VMALI_UK=11.31", "VMALI_CORE_MASK=0xFF", "VMALI_L2_SLICES=2" } },
	{ "Mali-G720 MC12, CSF UK 1.21, kinstr_prfcnt", "kinstr",
	  { "VMALI_GPU_ID=0xc000", "VMALI_UK=1.21", "VMALI_CORE_MASK=0xFFF", "VMALI_L2_SLICES=4" } },
};

/* Runs this program with `args` under the preload and the GPU's variables;
 * its one line of output goes to `line`. */
static void child(const char *self, const char *preload, const struct gpu *g, char *const args[],
                  char *line, size_t len)
{
	static char pre[4096];
	snprintf(pre, sizeof pre, "LD_PRELOAD=%s", preload);
	size_t n = 0;
	while (environ[n])
		n++;
	char **env = calloc(n + 8, sizeof *env);
	if (!env)
		die("out of memory");
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "LD_PRELOAD=", 11) != 0 && strncmp(environ[i], "VMALI_", 6) != 0 &&
		    strncmp(environ[i], "OPENGPA_", 8) != 0)
			env[k++] = environ[i];
	env[k++] = pre;
	for (size_t i = 0; i < 4; i++)
		env[k++] = (char *)g->env[i];
	env[k] = NULL;
	int p[2];
	if (pipe(p) < 0)
		die("pipe");
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, p[1], 1);
	posix_spawn_file_actions_addclose(&fa, p[0]);
	pid_t pid;
	int e = posix_spawn(&pid, self, &fa, NULL, args, env);
	posix_spawn_file_actions_destroy(&fa);
	free(env);
	close(p[1]);
	if (e) {
		errno = e;
		die("posix_spawn");
	}
	FILE *f = fdopen(p[0], "r");
	if (!f || !fgets(line, (int)len, f))
		line[0] = '\0';
	if (f)
		fclose(f);
	int status;
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
	    !line[0]) {
		errno = 0;
		die("a child run failed (its message is above)");
	}
}

static void drive(const char *self, const char *preload, int rounds, int processes)
{
	printf("P6: GPA_OpenContext + GPA_CloseContext against opening the device by hand,\n"
	       "through libopengpa.so with %s preloaded; thread CPU time\n", preload);
	for (size_t gi = 0; gi < sizeof gpus / sizeof gpus[0]; gi++) {
		const struct gpu *g = &gpus[gi];
		char line[256], nrounds[16];
		snprintf(nrounds, sizeof nrounds, "%d", rounds);
		char *steady_args[] = { (char *)self, "steady", (char *)g->iface, nrounds, NULL };
		child(self, preload, g, steady_args, line, sizeof line);
		double hand_us, gpa_us, med, lo, hi;
		if (sscanf(line, "%lf %lf %lf %lf %lf", &hand_us, &gpa_us, &med, &lo, &hi) != 5)
			die("a steady child's output");
		double ratio[MAX_PROCESSES], first_us[MAX_PROCESSES], faults[MAX_PROCESSES];
		char *first_args[] = { (char *)self, "first", (char *)g->iface, NULL };
		for (int i = 0; i < processes; i++) {
			double f, h, pf;
			child(self, preload, g, first_args, line, sizeof line);
			if (sscanf(line, "%lf %lf %lf", &f, &h, &pf) != 3 || h <= 0)
				die("a first-open child's output");
			first_us[i] = f;
			ratio[i] = f / h;
			faults[i] = pf;
		}
		qsort(ratio, (size_t)processes, sizeof *ratio, cmp_double);
		qsort(first_us, (size_t)processes, sizeof *first_us, cmp_double);
		qsort(faults, (size_t)processes, sizeof *faults, cmp_double);
		printf("%s\n", g->name);
		printf("   by hand (the floor), best of %d rounds of %d   %8.2f us\n", rounds, PER_ROUND,
		       hand_us);
		printf("   GPA_OpenContext + GPA_CloseContext, best       %8.2f us\n", gpa_us);
		printf("   ratio per round: %.2fx median, %.2f-%.2fx (target <= 1.5x)\n", med, lo, hi);
		printf("   a process's first open, %d processes: %.1f us median (%.1f-%.1f),\n"
		       "   %.1fx median the same process's open by hand (%.1f-%.1fx),\n"
		       "   %.0f page faults median\n", processes,
		       first_us[processes / 2], first_us[0], first_us[processes - 1],
		       ratio[processes / 2], ratio[0], ratio[processes - 1], faults[processes / 2]);
		fflush(stdout);
	}
}

static void (*hand_of(const char *iface))(void)
{
	if (strcmp(iface, "vinstr") == 0)
		return hand_vinstr;
	if (strcmp(iface, "kinstr") == 0)
		return hand_kinstr;
	fprintf(stderr, "bench-open: '%s' is neither vinstr nor kinstr\n", iface);
	exit(2);
}

int main(int argc, char **argv)
{
	if (argc >= 2 && argc <= 4 && strchr(argv[1], '/')) {
		int rounds = argc > 2 ? atoi(argv[2]) : 15, processes = argc > 3 ? atoi(argv[3]) : 15;
		if (rounds < 1 || rounds > MAX_ROUNDS || processes < 1 || processes > MAX_PROCESSES) {
			fprintf(stderr, "bench-open: rounds and processes are 1..%d\n", MAX_ROUNDS);
			return 2;
		}
		if (access(argv[1], R_OK) != 0)
			die("the preload (give the path of libopengpa-vmali.so)");
		drive("/proc/self/exe", argv[1], rounds, processes);
		return 0;
	}
	if (argc >= 3) {
		void (*hand)(void) = hand_of(argv[2]);
		check(GPA_Initialize(), "GPA_Initialize");
		long n = argc > 3 ? strtol(argv[3], NULL, 10) : 0;
		if (strcmp(argv[1], "steady") == 0 && argc == 4 && n >= 1 && n <= MAX_ROUNDS) {
			steady(hand, (int)n);
			return 0;
		}
		if (strcmp(argv[1], "first") == 0 && argc == 3) {
			first(hand);
			return 0;
		}
		/* For a profiler: the first of each side (the library's first
		 * open, the virtual device made) outside the loop it counts in
		 * (valgrind --tool=callgrind --toggle-collect=open_loop). */
		if (strcmp(argv[1], "open") == 0 && argc == 4) {
			hand();
			gpa_open_close();
			open_loop(gpa_open_close, n);
			return 0;
		}
		if (strcmp(argv[1], "hand") == 0 && argc == 4) {
			hand();
			gpa_open_close();
			open_loop(hand, n);
			return 0;
		}
	}
	fprintf(stderr, "usage: bench-open PRELOAD [ROUNDS [PROCESSES]]\n"
	                "       bench-open steady|open|hand vinstr|kinstr N\n"
	                "       bench-open first vinstr|kinstr\n");
	return 2;
}
