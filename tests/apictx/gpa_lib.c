/* SPDX-License-Identifier: MIT */
/* gpa_lib.c — see gpa_lib.h. */
#include "gpa_lib.h"

#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#define LOG_LINES 64

static struct {
	char line[LOG_LINES][1024];
	unsigned count;
} log_;

static void record(GPA_Logging_Type type, const char *msg)
{
	(void)type;
	snprintf(log_.line[log_.count % LOG_LINES], sizeof(log_.line[0]), "%s", msg);
	log_.count++;
	if (getenv("APICTX_TEST_VERBOSE"))
		fprintf(stderr, "gpa: %s\n", msg);
}

void gpa_log_clear(void)
{
	log_.count = 0;
}

bool gpa_log_has(const char *needle)
{
	unsigned first = log_.count > LOG_LINES ? log_.count - LOG_LINES : 0;
	for (unsigned i = first; i < log_.count; i++)
		if (strstr(log_.line[i % LOG_LINES], needle))
			return true;
	return false;
}

const char *gpa_log_last(void)
{
	return log_.count ? log_.line[(log_.count - 1) % LOG_LINES] : "";
}

void gpa_load(struct gpa *g, const char *name)
{
	const char *dir = getenv("OPENGPA_BUILD_LIB");
	assert_non_null(dir);
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	memset(g, 0, sizeof(*g));
	g->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!g->lib)
		fail_msg("dlopen %s: %s", path, dlerror());
#define GPA_FUNCTION_PREFIX(f) \
	if (!(*(void **)&g->f = dlsym(g->lib, #f))) \
		fail_msg("%s lacks %s", name, #f);
#include "GPAFunctions.h"
#undef GPA_FUNCTION_PREFIX
	*(void **)&g->SetSampleSync = dlsym(g->lib, "OpenGPA_SetSampleSync");
	*(void **)&g->GetContextApi = dlsym(g->lib, "OpenGPA_GetContextApi");
	*(void **)&g->SetContextApi = dlsym(g->lib, "OpenGPA_SetContextApi");
	*(void **)&g->GetSampleTime = dlsym(g->lib, "OpenGPA_GetSampleTime");
	*(void **)&g->GetUnavailableCount = dlsym(g->lib, "OpenGPA_GetUnavailableCount");
	*(void **)&g->GetUnavailableCounter = dlsym(g->lib, "OpenGPA_GetUnavailableCounter");
	assert_non_null(g->SetSampleSync);
	assert_non_null(g->GetContextApi);
	assert_non_null(g->SetContextApi);
	assert_non_null(g->GetSampleTime);
	assert_non_null(g->GetUnavailableCount);
	assert_non_null(g->GetUnavailableCounter);
	gpa_log_clear();
	assert_int_equal(g->GPA_RegisterLoggingCallback(GPA_LOGGING_ERROR_AND_MESSAGE, record),
	                 GPA_STATUS_OK);
	assert_int_equal(g->GPA_Initialize(), GPA_STATUS_OK);
}

void gpa_unload(struct gpa *g)
{
	g->GPA_RegisterLoggingCallback(GPA_LOGGING_NONE, NULL);
	/* The library is unloaded, so the next gpa_load sees the name it is
	 * given (a library's name is the one it was first opened under). */
	assert_int_equal(dlclose(g->lib), 0);
	memset(g, 0, sizeof(*g));
}

gpa_uint32 gpa_counter(struct gpa *g, const char *name)
{
	gpa_uint32 index = 0;
	if (g->GPA_GetCounterIndex(name, &index) != GPA_STATUS_OK)
		fail_msg("no counter %s: %s", name, gpa_log_last());
	return index;
}

double gpa_result(struct gpa *g, gpa_uint32 session, gpa_uint32 sample, const char *name)
{
	gpa_uint32 index = gpa_counter(g, name);
	GPA_Type type;
	assert_int_equal(g->GPA_GetCounterDataType(index, &type), GPA_STATUS_OK);
	GPA_Status st;
	double v = -1;
	if (type == GPA_TYPE_FLOAT64) {
		st = g->GPA_GetSampleFloat64(session, sample, index, &v);
	} else {
		gpa_uint64 u = 0;
		st = g->GPA_GetSampleUInt64(session, sample, index, &u);
		v = (double)u;
	}
	if (st != GPA_STATUS_OK)
		fail_msg("%s of session %u sample %u: %s: %s", name, session, sample,
		         g->GPA_GetStatusAsStr(st), gpa_log_last());
	return v;
}
