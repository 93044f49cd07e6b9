/* SPDX-License-Identifier: MIT */
/* strings.c — the three *AsStr entry points; the strings are GPA 2.x's own. */
#include <stddef.h>

#include "GPUPerfAPI.h"
#include "core/core.h"

static const char *const data_types[GPA_TYPE__LAST] = {
	"gpa_float32", "gpa_float64", "gpa_uint32", "gpa_uint64", "gpa_int32", "gpa_int64",
};

static const char *const usage_types[GPA_USAGE_TYPE__LAST] = {
	"ratio", "percentage", "cycles", "milliseconds", "bytes", "items", "kilobytes",
};

static const char *const statuses[] = {
	"Ok",
	"Null Pointer",
	"Counters Not Open",
	"Counters Already Opened",
	"Index Out Of Range",
	"Not Found",
	"Already Enabled",
	"No Counters Enabled",
	"Not Enabled",
	"Sampling Not Started",
	"Sampling Already Started",
	"Sampling Not Ended",
	"Not Enough Passes",
	"Pass Not Ended",
	"Pass Not Started",
	"Pass Already Started",
	"Sample Not Started",
	"Sample Already Started",
	"Sample Not Ended",
	"Cannot Change Counters When Sampling",
	"Session Not Found",
	"Sample Not Found",
	"Sample Not Found In All Passes",
	"Counter Not Of Specified Type",
	"Reading Counter Result",
	"Variable Number Of Samples In Passes",
	"Failed",
	"Hardware Not Supported",
	"Driver Not Supported",
};

_Static_assert(sizeof(statuses) / sizeof(statuses[0]) == GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED + 1,
               "one string per GPA 2.x status");

/* GPA checks the range before the output pointer. */
static GPA_Status as_str(const char *func, unsigned value, unsigned last, const char *const *table,
                         const char **out)
{
	og_lock();
	GPA_Status st = GPA_STATUS_OK;
	if (value >= last)
		st = og_error(GPA_STATUS_ERROR_NOT_FOUND, "%s: %u is not a valid value (0 to %u)", func,
		              value, last - 1);
	else if (!out)
		st = og_error(GPA_STATUS_ERROR_NULL_POINTER, "%s: the output pointer is NULL", func);
	else
		*out = table[value];
	og_unlock();
	return st;
}

GPA_Status GPA_GetDataTypeAsStr(GPA_Type counterDataType, const char **ppTypeStr)
{
	return as_str(__func__, (unsigned)counterDataType, GPA_TYPE__LAST, data_types, ppTypeStr);
}

GPA_Status GPA_GetUsageTypeAsStr(GPA_Usage_Type counterUsageType, const char **ppUsageTypeStr)
{
	return as_str(__func__, (unsigned)counterUsageType, GPA_USAGE_TYPE__LAST, usage_types,
	              ppUsageTypeStr);
}

const char *GPA_GetStatusAsStr(GPA_Status status)
{
	if ((unsigned)status < sizeof(statuses) / sizeof(statuses[0]))
		return statuses[status];
	return "Unknown error";
}
