/* SPDX-License-Identifier: MIT */
/*
 * test_headers_alone.c — GPUPerfAPI.h on its own gives what GPA 2.x's does:
 * <assert.h>, the types (with the Linux helper macros) and the
 * <Function>PtrType typedefs, so a client that includes nothing else can
 * declare a function table.
 */
#include "GPUPerfAPI.h"

#include <string.h>
#include <strings.h>

static GPA_OpenContextPtrType open_context = GPA_OpenContext;
static GPA_IsSampleReadyPtrType is_sample_ready = GPA_IsSampleReady;
static GPA_GetStatusAsStrPtrType status_text = GPA_GetStatusAsStr;
static GPA_LoggingCallbackPtrType no_callback = NULL;

int main(void)
{
	assert(open_context && is_sample_ready && !no_callback);
	assert(_strcmpi(status_text(GPA_STATUS_OK), "OK") == 0);
	UNREFERENCED_PARAMETER(open_context);
	/* GPALIB_DECL as GPA's Linux header has it for C. */
#define STR2(x) #x
#define STR(x) STR2(x)
	return strcmp(STR(GPALIB_DECL), "extern") != 0;
}
