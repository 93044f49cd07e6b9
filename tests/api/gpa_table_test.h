/* SPDX-License-Identifier: MIT */
/*
 * gpa_table_test.h — what test_gpa3.c and test_gpa4.c share, the same
 * names in GPA 3.x's and 4.x's headers: include it after <cmocka.h>,
 * test_util.h and the version's gpu_perf_api.h.
 */
#ifndef OPENGPA_TESTS_GPA_TABLE_TEST_H
#define OPENGPA_TESTS_GPA_TABLE_TEST_H

#include <string.h>

/* Handles no call ever returned. */
#define BOGUS_CONTEXT ((GpaContextId)0xBADF00D)
#define BOGUS_SESSION ((GpaSessionId)0xBADF00D)
#define BOGUS_LIST ((GpaCommandListId)0xBADF00D)

#define OK(call) assert_int_equal((call), kGpaStatusOk)
/* A call that fails with `want` and logs exactly one error. */
#define STATUS1(call, want) \
	do { \
		assert_int_equal((call), (want)); \
		TU_ONE_ERROR(); \
	} while (0)

/* *t, the table of this header's version, with `log` registered for errors
 * and messages. */
static inline void gt_table(GpaFunctionTable *t, GpaLoggingCallbackPtrType log)
{
	memset(t, 0, sizeof(*t));
	t->major_version = GPA_FUNCTION_TABLE_MAJOR_VERSION_NUMBER;
	t->minor_version = GPA_FUNCTION_TABLE_MINOR_VERSION_NUMBER;
	OK(GpaGetFuncTable(t));
	OK(t->GpaRegisterLoggingCallback(kGpaLoggingErrorAndMessage, log));
}

#endif
