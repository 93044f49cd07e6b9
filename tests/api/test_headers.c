/* SPDX-License-Identifier: MIT */
/*
 * test_headers.c — GPA 2.x's header set as GPA's own Linux build lays it
 * out: GPUPerfAPIOS.h (under _LINUX) and GPUPerfAPITypes.h define the same
 * types and helper macros token for token, so both may be included; the
 * private header declares the internal-build entry points under
 * AMDT_INTERNAL; GPAFunctions.h then lists 42 names, each with its
 * <name>PtrType.  Linked with the shared library, so every name must be
 * exported.  Warnings are errors: a macro defined differently twice fails
 * the build.
 */
#define _LINUX 1
#define AMDT_INTERNAL 1
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "GPUPerfAPIOS.h"
#include "GPUPerfAPI-Private.h"

static const struct {
#define GPA_FUNCTION_PREFIX(f) f##PtrType f;
#include "GPAFunctions.h"
#undef GPA_FUNCTION_PREFIX
} table = {
#define GPA_FUNCTION_PREFIX(f) f,
#include "GPAFunctions.h"
#undef GPA_FUNCTION_PREFIX
};

int main(void)
{
	int failed = 0;
#define CHECK(cond) \
	do { \
		if (!(cond)) { \
			fprintf(stderr, "test_headers: %s:%d: %s\n", __FILE__, __LINE__, #cond); \
			failed = 1; \
		} \
	} while (0)
	CHECK(sizeof(table) == 42 * sizeof(void (*)(void)));
	CHECK(table.GPA_InternalSetDrawCallCounts(3) == GPA_STATUS_ERROR_COUNTERS_NOT_OPEN);
	CHECK(table.GPA_RegisterLoggingDebugCallback(GPA_LOG_ERROR, NULL) ==
	      GPA_STATUS_ERROR_NULL_POINTER);
	CHECK(GPA_InternalProfileStart() == GPA_STATUS_OK);
	CHECK(GPA_InternalProfileStop(NULL) == GPA_STATUS_OK);
	GPA_InternalProfileStartPtrType start = GPA_InternalProfileStart;
	GPA_InternalProfileStopPtrType stop = GPA_InternalProfileStop;
	CHECK(start && stop);
	/* GPA_CounterType and GPA_HW_GENERATION */
	CHECK(GPA_COUNTER_TYPE__LAST == 4 && GPA_HW_GENERATION_LAST == 7);
	CHECK(GPA_HW_GENERATION_VOLCANICISLAND == GPA_HW_GENERATION_GFX8);
	CHECK(GPA_LOG_DEBUG_ALL == 0xFF00);
	/* The Linux helper macros. */
	char buf[32];
	strcpy_s(buf, sizeof(buf), "Gpa");
	strcat_s(buf, sizeof(buf), " 2");
	CHECK(_strcmpi(buf, "gPA 2") == 0);
	/* The context argument is dropped, as in GPA's Linux build. */
	CHECK(strcmp(strtok_s(buf, " ", no_such_variable), "Gpa") == 0);
	UNREFERENCED_PARAMETER(no_such_variable);
	UNREFERECED_VAR(no_such_variable);
	return failed;
}
