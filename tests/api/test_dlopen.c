/* SPDX-License-Identifier: MIT */
/*
 * test_dlopen.c — the library as a GPA 2.x loader sees it: dlopen each
 * lib<GPUPerfAPI API>.so alias, dlsym the 40 entry points through the
 * X-macro list, and call a few through the pointers.
 */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "GPUPerfAPIFunctionTypes.h"

struct gpa_table {
#define GPA_FUNCTION_PREFIX(f) f##PtrType f;
#include "GPAFunctions.h"
#undef GPA_FUNCTION_PREFIX
};

static const char *const aliases[] = {
	"libGPUPerfAPIGL.so", "libGPUPerfAPIGLES.so", "libGPUPerfAPICL.so", "libGPUPerfAPIHSA.so",
};

static unsigned messages;

static void count_messages(GPA_Logging_Type type, const char *msg)
{
	(void)type;
	assert_non_null(msg);
	messages++;
}

static void load(const char *alias)
{
	const char *dir = getenv("OPENGPA_BUILD_LIB");
	assert_non_null(dir);
	char path[4096];
	snprintf(path, sizeof(path), "%s/%s", dir, alias);
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		fail_msg("dlopen %s: %s", path, dlerror());

	struct gpa_table t;
	unsigned n = 0;
#define GPA_FUNCTION_PREFIX(f) \
	do { \
		*(void **)(&t.f) = dlsym(h, #f); \
		if (!t.f) \
			fail_msg("%s does not export %s", alias, #f); \
		n++; \
	} while (0);
#include "GPAFunctions.h"
#undef GPA_FUNCTION_PREFIX
	assert_int_equal(n, 40);

	/* No og_* internals are visible. */
	assert_null(dlsym(h, "og_lock"));
	assert_null(dlsym(h, "og_context_open"));
	assert_non_null(dlsym(h, "OpenGPA_SetBackend"));

	messages = 0;
	assert_int_equal(t.GPA_RegisterLoggingCallback(GPA_LOGGING_ERROR_AND_MESSAGE, count_messages),
	                 GPA_STATUS_OK);
	assert_int_equal(messages, 1);
	assert_int_equal(t.GPA_Initialize(), GPA_STATUS_OK);
	assert_string_equal(t.GPA_GetStatusAsStr(GPA_STATUS_ERROR_FAILED), "Failed");
	const char *s = NULL;
	assert_int_equal(t.GPA_GetDataTypeAsStr(GPA_TYPE_UINT64, &s), GPA_STATUS_OK);
	assert_string_equal(s, "gpa_uint64");
	gpa_uint32 count;
	assert_int_equal(t.GPA_GetNumCounters(&count), GPA_STATUS_ERROR_COUNTERS_NOT_OPEN);
	assert_int_equal(messages, 2);
	assert_int_equal(t.GPA_OpenContext(NULL), GPA_STATUS_ERROR_NULL_POINTER);
	assert_int_equal(t.GPA_Destroy(), GPA_STATUS_OK);
	assert_int_equal(t.GPA_RegisterLoggingCallback(GPA_LOGGING_NONE, NULL), GPA_STATUS_OK);
	dlclose(h);
}

static void test_aliases(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++)
		load(aliases[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_aliases),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
