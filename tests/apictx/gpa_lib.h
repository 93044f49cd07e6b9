/* SPDX-License-Identifier: MIT */
/*
 * gpa_lib.h — the API-context tests' GPA client: opengpa loaded the way a
 * GPA 2.x tool loads it, by file name with dlopen, every entry point
 * through dlsym, and a logging callback that keeps the messages.
 */
#ifndef OPENGPA_TESTS_APICTX_GPA_LIB_H
#define OPENGPA_TESTS_APICTX_GPA_LIB_H

#include <stdbool.h>

#include "GPUPerfAPIFunctionTypes.h"
#include "opengpa.h"

struct gpa {
	void *lib;
#define GPA_FUNCTION_PREFIX(f) f##PtrType f;
#include "GPAFunctions.h"
#undef GPA_FUNCTION_PREFIX
	__typeof__(&OpenGPA_SetSampleSync) SetSampleSync;
	__typeof__(&OpenGPA_GetContextApi) GetContextApi;
	__typeof__(&OpenGPA_SetContextApi) SetContextApi;
	__typeof__(&OpenGPA_GetSampleTime) GetSampleTime;
	__typeof__(&OpenGPA_GetUnavailableCount) GetUnavailableCount;
	__typeof__(&OpenGPA_GetUnavailableCounter) GetUnavailableCounter;
};

/* Loads `name` ("libGPUPerfAPIGLES.so") from $OPENGPA_BUILD_LIB (the build's
 * lib/), registers the recording callback; fails the test otherwise. */
void gpa_load(struct gpa *g, const char *name);
void gpa_unload(struct gpa *g);

/* The counter's index; fails the test if there is none. */
gpa_uint32 gpa_counter(struct gpa *g, const char *name);
double gpa_result(struct gpa *g, gpa_uint32 session, gpa_uint32 sample, const char *name);

/* Messages the library logged since the last gpa_log_clear. */
void gpa_log_clear(void);
bool gpa_log_has(const char *needle);
const char *gpa_log_last(void);

#endif
