/* SPDX-License-Identifier: MIT */
/*
 * test_apictx.c — what a context's pointer is, without any GL or OpenCL in
 * the process (tests/apictx has the real GL, GLES and OpenCL): which file
 * names stand for which API, the settings that override the name, and
 * that a process with no API library gets plain contexts, or an error when
 * an API was asked for by name.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "apictx/apictx.h"
#include "test_util.h"

static void test_file_names(void **state)
{
	(void)state;
	static const struct {
		const char *path;
		enum og_api api;
	} cases[] = {
		{ "libGPUPerfAPIGL.so", OG_API_GL },
		{ "/usr/lib/x86_64-linux-gnu/libGPUPerfAPIGLES.so", OG_API_GLES },
		{ "./libGPUPerfAPICL.so", OG_API_CL },
		{ "libGPUPerfAPIGL32.so", OG_API_GL },
		{ "libGPUPerfAPICL-d.so", OG_API_CL },
		{ "libGPUPerfAPIGLES32-d-Internal.so", OG_API_GLES },
		{ "libGPUPerfAPIGL-Internal.so", OG_API_GL },
		{ "libGPUPerfAPIHSA.so", OG_API_NONE },
		{ "libGPUPerfAPIVK.so", OG_API_VK },
		{ "libGPUPerfAPIVK-d.so", OG_API_VK },
		{ "libGPUPerfAPIVKX.so", OG_API_NONE },
		{ "libGPUPerfAPIGLX.so", OG_API_NONE },
		{ "libGPUPerfAPICLEAR.so", OG_API_NONE },
		{ "libopengpa.so.1", OG_API_NONE },
		{ "/opt/libGPUPerfAPIGL.so/libopengpa.so.1", OG_API_NONE },
		{ "", OG_API_NONE },
		{ "GPUPerfAPIGL.so", OG_API_NONE },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (og_api_from_filename(cases[i].path) != cases[i].api)
			fail_msg("%s: %s", cases[i].path, og_api_name(og_api_from_filename(cases[i].path)));
	enum og_api api = OG_API_NONE;
	assert_true(og_api_parse("GLES", &api) && api == OG_API_GLES);
	assert_true(og_api_parse("none", &api) && api == OG_API_NONE);
	assert_false(og_api_parse("vulkan", &api));
}

/* Linked into this program, the library has its name: plain contexts. */
static void test_plain_by_default(void **state)
{
	(void)state;
	tu_setup();
	int key;
	assert_int_equal(GPA_OpenContext(&key), GPA_STATUS_OK);
	assert_true(tu_log_has("plain: the context pointer is a key"));
	const char *api = NULL;
	gpa_uint32 sync = 0;
	assert_int_equal(OpenGPA_GetContextApi(&api, &sync), GPA_STATUS_OK);
	assert_string_equal(api, "none");
	assert_int_equal(sync, OPENGPA_SYNC_OFF);
	assert_int_equal(OpenGPA_GetContextApi(NULL, NULL), GPA_STATUS_OK);
	assert_int_equal(OpenGPA_SetSampleSync(OPENGPA_SYNC_FINISH),
	                 GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED);
	assert_int_equal(OpenGPA_SetSampleSync(0), GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE);
	assert_int_equal(OpenGPA_SetSampleSync(OPENGPA_SYNC_OFF), GPA_STATUS_OK);
	gpa_uint32 index;
	assert_int_equal(GPA_GetCounterIndex("GPUTime", &index), GPA_STATUS_ERROR_NOT_FOUND);
	tu_teardown();
}

/* Asked for an API by name in a process that has none of its libraries:
 * an error that says so; under auto (the file name) it would be plain. */
static void test_api_asked_for_but_absent(void **state)
{
	(void)state;
	static const char *const apis[] = { "gl", "gles", "cl" };
	for (size_t i = 0; i < 3; i++) {
		tu_setup();
		assert_int_equal(OpenGPA_SetContextApi(apis[i]), GPA_STATUS_OK);
		int key;
		assert_int_equal(GPA_OpenContext(&key), GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED);
		assert_true(tu_log_has("OpenGPA_SetContextApi asks for a"));
		assert_true(tu_log_has("library loaded"));
		assert_int_equal(OpenGPA_SetContextApi("none"), GPA_STATUS_OK);
		assert_int_equal(GPA_OpenContext(&key), GPA_STATUS_OK);
		tu_teardown();
	}
	tu_setup();
	setenv("OPENGPA_API", "cl", 1);
	int key;
	assert_int_equal(GPA_OpenContext(&key), GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED);
	assert_true(tu_log_has("OPENGPA_API asks for a cl context"));
	/* The call overrides the variable. */
	assert_int_equal(OpenGPA_SetContextApi("auto"), GPA_STATUS_OK);
	assert_int_equal(GPA_OpenContext(&key), GPA_STATUS_OK);
	assert_int_equal(GPA_CloseContext(), GPA_STATUS_OK);
	assert_int_equal(OpenGPA_SetContextApi(NULL), GPA_STATUS_OK);
	setenv("OPENGPA_API", "metal", 1);
	assert_int_equal(GPA_OpenContext(&key), GPA_STATUS_OK);
	assert_true(tu_log_has("OPENGPA_API=metal is not one of"));
	unsetenv("OPENGPA_API");
	assert_int_equal(OpenGPA_SetContextApi("metal"), GPA_STATUS_ERROR_NOT_FOUND);
	tu_teardown();
}

/* An api: source in a user's counter file, on a plain context: the raw
 * counter and what needs it are unavailable, with the reason. */
static void test_api_source_on_plain_context(void **state)
{
	(void)state;
	char path[] = "/tmp/opengpa-apictx-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	static const char file[] =
		"raw MyGpuTime\n"
		"    source: api:gpu-time\n"
		"    description: GPU time.\n"
		"counter MyGpuMs\n"
		"    group: Timing\n"
		"    usage: milliseconds\n"
		"    type: float64\n"
		"    description: GPU time in ms.\n"
		"    expression: MyGpuTime / 1000000\n";
	assert_int_equal(write(fd, file, sizeof(file) - 1), (ssize_t)(sizeof(file) - 1));
	close(fd);
	tu_setup();
	assert_int_equal(OpenGPA_AddCounterFile(path), GPA_STATUS_OK);
	int key;
	assert_int_equal(GPA_OpenContext(&key), GPA_STATUS_OK);
	unlink(path);
	gpa_uint32 index, n = 0;
	assert_int_equal(GPA_GetCounterIndex("MyGpuMs", &index), GPA_STATUS_ERROR_NOT_FOUND);
	assert_int_equal(OpenGPA_GetUnavailableCount(&n), GPA_STATUS_OK);
	bool found = false;
	for (gpa_uint32 i = 0; i < n; i++) {
		const char *name, *reason;
		assert_int_equal(OpenGPA_GetUnavailableCounter(i, &name, &reason), GPA_STATUS_OK);
		if (strcmp(name, "MyGpuTime") == 0) {
			assert_non_null(strstr(reason, "this context is plain"));
			found = true;
		}
	}
	assert_true(found);
	tu_teardown();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_file_names),
		cmocka_unit_test(test_plain_by_default),
		cmocka_unit_test(test_api_asked_for_but_absent),
		cmocka_unit_test(test_api_source_on_plain_context),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
