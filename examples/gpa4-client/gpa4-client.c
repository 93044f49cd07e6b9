/* SPDX-License-Identifier: MIT */
/*
 * gpa4-client — a GPA 4.x client that knows only GPA 4.3's headers and uses
 * the function table the way AMD's sample apps do: load the library,
 * GpaGetFuncTable with major version 4, initialise, open a context, create
 * a session, enable counters, one command list per pass with one sample per
 * "draw call", IsSessionComplete, then GetSampleResult per sample.  Each
 * draw call is CPU work here; the counters come from whichever backend
 * opengpa picks (OPENGPA_BACKEND), a virtual device included.
 *
 *   gpa4-client [--library PATH] [--counters A,B] [--frames N] [--hardware]
 *               [--verify] [--expect NAME=VALUE] [--expect-min NAME=VALUE] [--csv FILE]
 *
 * Prints one line per sample and counter; the exit status is non-zero when
 * a call fails or a check does not hold.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gpu_performance_api/gpu_perf_api.h"

#include "client.h"

static GpaFunctionTable *gpa;

static void on_log(GpaLoggingType type, const char *message)
{
	fprintf(stderr, "gpa4-client: %s: %s\n", type == kGpaLoggingError ? "error" : "gpa", message);
}

#define CALL(expr) \
	do { \
		GpaStatus st_ = (expr); \
		if (st_ != kGpaStatusOk) { \
			fprintf(stderr, "gpa4-client: %s failed: %s\n", #expr, gpa->GpaGetStatusAsStr(st_)); \
			exit(1); \
		} \
	} while (0)

/* The loader's part: GPA's interface loader does exactly this. */
static void load(const char *path)
{
	void *lib = dlopen(path, RTLD_LAZY);
	if (!lib) {
		fprintf(stderr, "gpa4-client: cannot load %s: %s\n", path, dlerror());
		exit(1);
	}
	GpaGetFuncTablePtrType get = (GpaGetFuncTablePtrType)(uintptr_t)dlsym(lib, "GpaGetFuncTable");
	if (!get) {
		fprintf(stderr, "gpa4-client: %s has no GpaGetFuncTable\n", path);
		exit(1);
	}
	gpa = calloc(1, sizeof(*gpa));
	if (!gpa)
		exit(1);
	gpa->major_version = GPA_FUNCTION_TABLE_MAJOR_VERSION_NUMBER;
	gpa->minor_version = GPA_FUNCTION_TABLE_MINOR_VERSION_NUMBER;
	GpaStatus st = get(gpa);
	if (st != kGpaStatusOk) {
		fprintf(stderr, "gpa4-client: GpaGetFuncTable: status %d (library version %u, %u "
		                "bytes)\n", st, gpa->major_version, gpa->minor_version);
		exit(1);
	}
}

static void enable(GpaSessionId session, const char *list)
{
	if (!list) {
		CALL(gpa->GpaEnableAllCounters(session));
		return;
	}
	char *copy = strdup(list), *save = NULL;
	for (char *name = strtok_r(copy, ",", &save); name; name = strtok_r(NULL, ",", &save))
		CALL(gpa->GpaEnableCounterByName(session, name));
	free(copy);
}

int main(int argc, char **argv)
{
	struct client_options o;
	if (!client_options(argc, argv, "gpa4-client", &o))
		return 2;
	load(o.library);
	CALL(gpa->GpaRegisterLoggingCallback(kGpaLoggingError, on_log));
	CALL(gpa->GpaInitialize(kGpaInitializeDefaultBit));

	/* A GL client passes its GL context; any pointer identifies one. */
	static int api_context;
	GpaContextId context;
	GpaOpenContextFlags flags = kGpaOpenContextClockModePeakBit;
	if (o.hardware)
		flags |= kGpaOpenContextEnableHardwareCountersBit;
	GpaStatus opened = gpa->GpaOpenContext(&api_context, flags, &context);
	if (opened == kGpaStatusErrorHardwareNotSupported) {
		/* Nothing here to count on (no device, or no perf_event_open, as
		 * under qemu-user): 77 is "skipped" to test harnesses. */
		fprintf(stderr, "gpa4-client: no device here: %s\n", gpa->GpaGetStatusAsStr(opened));
		return 77;
	}
	CALL(opened);
	const char *device = "?";
	CALL(gpa->GpaGetDeviceName(context, &device));
	GpaSessionId session;
	CALL(gpa->GpaCreateSession(context, kGpaSessionSampleTypeDiscreteCounter, &session));
	GpaUInt32 ncounters = 0;
	CALL(gpa->GpaGetNumCounters(session, &ncounters));
	printf("device: %s, %u counters\n", device, ncounters);
	enable(session, o.counters);
	GpaUInt32 passes = 0;
	CALL(gpa->GpaGetPassCount(session, &passes));
	CALL(gpa->GpaBeginSession(session));
	for (GpaUInt32 pass = 0; pass < passes; pass++) {
		GpaCommandListId list;
		CALL(gpa->GpaBeginCommandList(session, pass, GPA_NULL_COMMAND_LIST, kGpaCommandListNone,
		                              &list));
		for (GpaUInt32 draw = 0; draw < o.frames; draw++) {
			CALL(gpa->GpaBeginSample(draw, list));
			client_draw(draw);
			CALL(gpa->GpaEndSample(list));
		}
		CALL(gpa->GpaEndCommandList(list));
	}
	CALL(gpa->GpaEndSession(session));
	for (int tries = 0;; tries++) {
		GpaStatus st = gpa->GpaIsSessionComplete(session);
		if (st == kGpaStatusOk)
			break;
		if (st != kGpaStatusResultNotReady || tries == 1000) {
			fprintf(stderr, "gpa4-client: the session never completed: %s\n",
			        gpa->GpaGetStatusAsStr(st));
			return 1;
		}
		nanosleep(&(struct timespec){ .tv_nsec = 10 * 1000 * 1000 }, NULL);
	}

	FILE *csv = o.csv ? fopen(o.csv, "w") : NULL;
	GpaUInt32 samples = 0, enabled = 0;
	CALL(gpa->GpaGetSampleCount(session, &samples));
	CALL(gpa->GpaGetNumEnabledCounters(session, &enabled));
	printf("%u passes, %u samples, %u counters\n", passes, samples, enabled);
	/* What each result slot holds: the enabled counters in enable order. */
	struct slot {
		const char *name;
		GpaUsageType usage;
		GpaDataType type;
	} *slots = calloc(enabled + 1, sizeof(*slots));
	if (!slots)
		return 1;
	for (GpaUInt32 i = 0; i < enabled; i++) {
		GpaUInt32 index;
		CALL(gpa->GpaGetEnabledIndex(session, i, &index));
		CALL(gpa->GpaGetCounterName(session, index, &slots[i].name));
		CALL(gpa->GpaGetCounterUsageType(session, index, &slots[i].usage));
		CALL(gpa->GpaGetCounterDataType(session, index, &slots[i].type));
	}
	for (GpaUInt32 k = 0; k < samples; k++) {
		GpaUInt32 id;
		size_t size = 0;
		CALL(gpa->GpaGetSampleId(session, k, &id));
		CALL(gpa->GpaGetSampleResultSize(session, id, &size));
		uint64_t *results = malloc(size ? size : 1);
		if (!results)
			return 1;
		CALL(gpa->GpaGetSampleResult(session, id, size, results));
		for (GpaUInt32 i = 0; i < enabled; i++) {
			double value;
			if (slots[i].type == kGpaDataTypeFloat64)
				memcpy(&value, &results[i], sizeof(value));
			else
				value = (double)results[i];
			printf("sample %u: %s = %.6g\n", id, slots[i].name, value);
			if (csv)
				fprintf(csv, "%u,%s,%.17g\n", id, slots[i].name, value);
			client_check(&o, slots[i].name, slots[i].usage == kGpaUsageTypePercentage, value);
		}
		free(results);
	}
	if (csv)
		fclose(csv);
	free(slots);
	CALL(gpa->GpaDeleteSession(session));
	CALL(gpa->GpaCloseContext(context));
	CALL(gpa->GpaDestroy());
	unsigned problems = client_problems(&o);
	free(gpa);
	return problems ? 1 : 0;
}
