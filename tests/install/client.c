/* SPDX-License-Identifier: MIT */
/*
 * client.c — a program built against an installed opengpa, once through
 * pkg-config and once through CMake's find_package (tests/install): the
 * headers it compiled with, the library it runs with, and one counter read
 * through the GPA 2.x calls.
 */
#include <stdio.h>
#include <string.h>

#include <GPUPerfAPI.h>
#include <opengpa.h>

int main(void)
{
	gpa_uint32 major = 0, minor = 0, patch = 0, backends = 0;
	OpenGPA_GetVersion(&major, &minor, &patch);
	if (major != OPENGPA_VERSION_MAJOR || minor != OPENGPA_VERSION_MINOR ||
	    patch != OPENGPA_VERSION_PATCH) {
		fprintf(stderr, "client: headers %s, library %u.%u.%u\n", OPENGPA_VERSION_STRING, major,
		        minor, patch);
		return 1;
	}
	if (OpenGPA_GetBackendCount(&backends) != GPA_STATUS_OK || backends == 0) {
		fprintf(stderr, "client: no backend compiled in\n");
		return 1;
	}
	/* The perf backend counts in any Linux machine, VMs included. */
	static int context;
	gpa_uint32 session = 0, passes = 0, index = 0;
	gpa_uint64 faults = 0;
	if (OpenGPA_SetBackend("perf", NULL) != GPA_STATUS_OK || GPA_Initialize() != GPA_STATUS_OK)
		return 1;
	GPA_Status opened = GPA_OpenContext(&context);
	if (opened == GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED) {
		/* Loaded and linked, but no perf_event_open to count with (as
		 * under qemu-user): 77, "skipped", for the harness to judge. */
		fprintf(stderr, "client: opengpa %u.%u.%u loads, but perf_event_open is missing\n",
		        major, minor, patch);
		return 77;
	}
	if (opened != GPA_STATUS_OK || GPA_EnableCounterStr("PageFaults") != GPA_STATUS_OK ||
	    GPA_GetCounterIndex("PageFaults", &index) != GPA_STATUS_OK ||
	    GPA_BeginSession(&session) != GPA_STATUS_OK || GPA_GetPassCount(&passes) != GPA_STATUS_OK) {
		fprintf(stderr, "client: cannot open a perf context\n");
		return 1;
	}
	for (gpa_uint32 p = 0; p < passes; p++) {
		GPA_BeginPass();
		GPA_BeginSample(0);
		static char pages[64 * 4096];
		memset(pages, 1, sizeof pages); /* fresh pages fault */
		GPA_EndSample();
		GPA_EndPass();
	}
	GPA_EndSession();
	GPA_Status st = GPA_GetSampleUInt64(session, 0, index, &faults);
	GPA_CloseContext();
	GPA_Destroy();
	if (st != GPA_STATUS_OK) {
		fprintf(stderr, "client: cannot read PageFaults: %s\n", GPA_GetStatusAsStr(st));
		return 1;
	}
	printf("opengpa %u.%u.%u, %u backends, %llu page faults\n", major, minor, patch, backends,
	       (unsigned long long)faults);
	return 0;
}
