/* SPDX-License-Identifier: MIT */
/*
 * table_strings.c — GPA 3.x/4.x's texts (table.h): the *AsStr entries and
 * GpaGetStatusAsStr, GpaGetVersion, and GpaGetFuncTable's version handshake.
 */
#include <string.h>

#include "api/table.h"

int ot_data_type_str(int type, const char **out)
{
	static const char *const names[] = { "gpa_float64", "gpa_uint64" };
	*out = names[type];
	return OT_OK;
}

int ot_usage_type_str(int usage, const char **out)
{
	static const char *const names[] = {
		"ratio", "percentage", "cycles", "milliseconds", "bytes", "items", "kilobytes",
		"nanoseconds",
	};
	*out = names[usage];
	return OT_OK;
}

/* GPA 3.x/4.x's own texts, typo included; error -k is errors[k - 1]. */
static const char *const errors[] = {
	"GPA Error: Null Pointer.",
	"GPA Error: Context Not Open.",
	"GPA Error: Coontext Already Opened.",
	"GPA Error: Index Out Of Range.",
	"GPA Error: Counter Not Found.",
	"GPA Error: Already Enabled.",
	"GPA Error: No Counters Enabled.",
	"GPA Error: Not Enabled.",
	"GPA Error: Command List Already Ended.",
	"GPA Error: Command List Already Started.",
	"GPA Error: Command List Is Not Ended.",
	"GPA Error: Not Enough Passes.",
	"GPA Error: Sample Not Started.",
	"GPA Error: Sample Already Started.",
	"GPA Error: Sample Not Ended.",
	"GPA Error: Cannot Change Counters When Sampling.",
	"GPA Error: Session Not Found.",
	"GPA Error: Sample Not Found.",
	"GPA Error: Context Not Found.",
	"GPA Error: Command List Not Found.",
	"GPA Error: Reading Sample Result.",
	"GPA Error: Variable Number Of Samples In Passes.",
	"GPA Error: Failed.",
	"GPA Error: Hardware Not Supported.",
	"GPA Error: Driver Not Supported.",
	"GPA Error: API Not Supported.",
	"GPA Error: Incorrect Parameter.",
	"GPA Error: Loading The Library Failed.",
	"GPA Error: Major Version Mismatch Between The Loader And The GPUPerfAPI Library.",
	"GPA Error: Minor Version Mismatch Between The Loader And The GPUPerfAPI Library.",
	"GPA Error: GPA Has Not Been Initialized.",
	"GPA Error: GPA Has Already Been Initialized.",
	"GPA Error: Sample In Secondary Command List.",
	"GPA Error: Incompatible Sample Types.",
	"GPA Error: Session Already Started.",
	"GPA Error: Session Not Started.",
	"GPA Error: Session Not Ended.",
	"GPA Error: Invalid Counter Datatype.",
	"GPA Error: Invalid Counter Equation.",
	"GPA Error: Attempt to Retrieve Data Failed due to Timeout.",
	"GPA Error: Library Is Already Loaded.",
	"GPA Error: Other Session Is Active.",
	"GPA Error: Exception Occurred.",
	"GPA Error: Counter Group Data Is Invalid.",
};
_Static_assert(sizeof(errors) / sizeof(errors[0]) == -OT_STATUS_MIN, "one text per error");

const char *ot_status_str(int status)
{
	if (status == OT_OK)
		return "GPA Status: Ok.";
	if (status == OT_RESULT_NOT_READY)
		return "GPA Status: Counter Results Not Ready.";
	if (status > 0)
		return "GPA Status: Unknown Status.";
	if (status < OT_STATUS_MIN)
		return "GPA Error: Unknown Error.";
	return errors[-status - 1];
}

/* ---- the function tables ------------------------------------------------------- */

int ot_fill_table(const char *fn, void *table, const void *full, uint32_t major, uint32_t size)
{
	uint32_t header[2];
	memcpy(header, table, sizeof(header));
	uint32_t want[2] = { major, size };
	memcpy(table, want, sizeof(want)); /* always: the caller learns what is here */
	if (header[0] != major)
		return ot_error(OT_LIB_LOAD_MAJOR_VERSION_MISMATCH,
		                "%s: the caller asks for a version %u function table; this library "
		                "fills versions 3 (GPA 3.17) and 4 (GPA 4.3)", fn, header[0]);
	if (header[1] > size)
		return ot_error(OT_LIB_LOAD_MINOR_VERSION_MISMATCH,
		                "%s: the caller's version %u table is %u bytes, larger than this "
		                "library's (%u): it is for a newer GPA", fn, major, header[1], size);
	memcpy(table, full, header[1]);
	return OT_OK;
}

int ot_version(const char *fn, uint32_t version_major, uint32_t version_minor, uint32_t *major,
               uint32_t *minor, uint32_t *build, uint32_t *update)
{
	if (!major)
		return ot_null(fn, "major");
	if (!minor)
		return ot_null(fn, "minor");
	if (!build)
		return ot_null(fn, "build");
	if (!update)
		return ot_null(fn, "update");
	*major = version_major;
	*minor = version_minor;
	*build = 0;
	*update = 0;
	return OT_OK;
}
