/* SPDX-License-Identifier: MIT */
/*
 * fuzz_perf_source.c — the perf backend's source strings and the sysfs
 * text behind them: "PMU/term=value,alias/" over the PMU's type, format and
 * events files, "raw:CODE", "sw:NAME", named events.  Both halves are
 * hostile: the source comes from a counter file, the files from the kernel.
 *
 * Input: the first line is the source; each further line "PATH CONTENT"
 * is a file under /sys/bus/event_source/devices/ (PATH such as
 * "cpu/type", "cpu/format/event", "cpu/events/cycles"), at most 24 of them.
 * The backend opens on the simulated kernel of tests/backends/perf and binds
 * the source (bind_raw), and counts it when bound.  Oracles: no crash, no
 * read out of bounds, every descriptor closed, every file closed.  (The
 * backend's messages quote the source raw: the core's log makes every
 * message printable, tests/catalog/test_hostile_files.c.)
 */
#include <string.h>

#include "backend.h"
#include "fake_perf.h"
#include "fuzz.h"

extern const struct og_backend_ops og_backend_perf;

#define MAX_FILES 24

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 8192)
		return 0;
	char *text = fuzz_text(data, size, size);
	char *save = NULL;
	char *source = strtok_r(text, "\n", &save);
	if (!source) {
		free(text);
		return 0;
	}
	static struct fake_perf k;
	struct fake_log log;
	struct og_backend_host host;
	fake_perf_init(&k);
	k.pmu = true;
	k.hw_slots = 4;
	char paths[MAX_FILES][160];
	unsigned nfiles = 0;
	for (char *line = strtok_r(NULL, "\n", &save); line && nfiles < MAX_FILES;
	     line = strtok_r(NULL, "\n", &save)) {
		char *space = strchr(line, ' ');
		if (!space)
			continue;
		*space = '\0';
		snprintf(paths[nfiles], sizeof(paths[nfiles]), "/sys/bus/event_source/devices/%s", line);
		fake_perf_set_file(&k, paths[nfiles++], space + 1);
	}
	fake_host_init(&host, &k, &log);
	void *state = NULL;
	struct og_device_info info;
	memset(&info, 0, sizeof(info));
	if (og_backend_perf.open(&host, "", &state, &info) == GPA_STATUS_OK) {
		uint32_t id = UINT32_MAX;
		const char *why = NULL;
		if (og_backend_perf.bind_raw(state, "Fuzzed", source, &id, &why) == GPA_STATUS_OK &&
		    og_backend_perf.begin_pass(state, &id, 1) == GPA_STATUS_OK) {
			uint64_t delta;
			if (og_backend_perf.begin_sample(state) == GPA_STATUS_OK)
				og_backend_perf.end_sample(state, &delta);
			og_backend_perf.end_pass(state);
		}
		og_backend_perf.close(state);
	}
	FUZZ_CHECK(fake_perf_open_fds(&k) == 0);
	fake_perf_free(&k);
	FUZZ_CHECK(k.file_opens == k.file_closes);
	free(text);
	return 0;
}
