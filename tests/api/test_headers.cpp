// SPDX-License-Identifier: MIT
// test_headers.cpp — the GPA 2.x headers from C++: every declaration has C
// linkage (the link against the shared library fails otherwise), and the
// private header's types are the C ones.
#include "GPUPerfAPI-Private.h"
#include "opengpa.h"

#include <cstring>

int main()
{
	GPA_InternalProfileStopPtrType stop = GPA_InternalProfileStop;
	if (stop(nullptr) != GPA_STATUS_OK)
		return 1;
	const char *name = nullptr;
	if (GPA_GetDataTypeAsStr(GPA_TYPE_UINT64, &name) != GPA_STATUS_OK)
		return 1;
	if (OpenGPA_SetHardwareCounters(0) != GPA_STATUS_OK)
		return 1;
	return std::strcmp(name, "gpa_uint64") != 0;
}
