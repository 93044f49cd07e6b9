/* SPDX-License-Identifier: MIT */
/*
 * GPUPerfAPITypes.h — types and enumerations of the GPA 2.x C ABI, as
 * implemented by opengpa.  Every numeric value below is part of the binary
 * contract with existing GPA 2.x clients: do not reorder or renumber.
 */
#ifndef GPUPERFAPITYPES_H
#define GPUPERFAPITYPES_H

#include <limits.h>

typedef char gpa_int8;
typedef short gpa_int16;
typedef int gpa_int32;
typedef long long gpa_int64;
typedef unsigned char gpa_uint8;
typedef unsigned short gpa_uint16;
typedef unsigned int gpa_uint32;
typedef unsigned long long gpa_uint64;
typedef float gpa_float32;
typedef double gpa_float64;

#ifndef __cplusplus
/* GPA 2.x spells the ready flags as `bool*`; in C that is one byte. */
#if !defined(bool) && !defined(__bool_true_false_are_defined)
typedef gpa_uint8 bool;
#endif
#endif

#ifndef UINT
typedef unsigned int UINT;
#endif

/* What GPA 2.x's Linux build defines here for code written for Windows
 * first.  Include <string.h> and <strings.h> to use them. */
#ifdef __linux__
#define UNREFERENCED_PARAMETER(x)
#define _strcmpi(a, b) strcasecmp(a, b)
#define strcpy_s(dst, ndst, src) strcpy(dst, src)
#define strcat_s(dst, ndst, src) strcat(dst, src)
#define strtok_s(a, b, c) strtok(a, b)
#ifndef GPALIB_DECL
#ifdef __cplusplus
#define GPALIB_DECL extern "C"
#else
#define GPALIB_DECL
#endif
#endif
#endif

#define GPA_INT8_MAX SCHAR_MAX
#define GPA_INT16_MAX SHRT_MAX
#define GPA_INT32_MAX INT_MAX
#define GPA_INT64_MAX LLONG_MAX
#define GPA_UINT8_MAX UCHAR_MAX
#define GPA_UINT16_MAX USHRT_MAX
#define GPA_UINT32_MAX UINT_MAX
#define GPA_UINT64_MAX ULLONG_MAX

typedef enum {
	GPA_STATUS_OK = 0,
	GPA_STATUS_ERROR_NULL_POINTER,
	GPA_STATUS_ERROR_COUNTERS_NOT_OPEN,
	GPA_STATUS_ERROR_COUNTERS_ALREADY_OPEN,
	GPA_STATUS_ERROR_INDEX_OUT_OF_RANGE,
	GPA_STATUS_ERROR_NOT_FOUND,
	GPA_STATUS_ERROR_ALREADY_ENABLED,
	GPA_STATUS_ERROR_NO_COUNTERS_ENABLED,
	GPA_STATUS_ERROR_NOT_ENABLED,
	GPA_STATUS_ERROR_SAMPLING_NOT_STARTED,
	GPA_STATUS_ERROR_SAMPLING_ALREADY_STARTED,
	GPA_STATUS_ERROR_SAMPLING_NOT_ENDED,
	GPA_STATUS_ERROR_NOT_ENOUGH_PASSES,
	GPA_STATUS_ERROR_PASS_NOT_ENDED,
	GPA_STATUS_ERROR_PASS_NOT_STARTED,
	GPA_STATUS_ERROR_PASS_ALREADY_STARTED,
	GPA_STATUS_ERROR_SAMPLE_NOT_STARTED,
	GPA_STATUS_ERROR_SAMPLE_ALREADY_STARTED,
	GPA_STATUS_ERROR_SAMPLE_NOT_ENDED,
	GPA_STATUS_ERROR_CANNOT_CHANGE_COUNTERS_WHEN_SAMPLING,
	GPA_STATUS_ERROR_SESSION_NOT_FOUND,
	GPA_STATUS_ERROR_SAMPLE_NOT_FOUND,
	GPA_STATUS_ERROR_SAMPLE_NOT_FOUND_IN_ALL_PASSES,
	GPA_STATUS_ERROR_COUNTER_NOT_OF_SPECIFIED_TYPE,
	GPA_STATUS_ERROR_READING_COUNTER_RESULT,
	GPA_STATUS_ERROR_VARIABLE_NUMBER_OF_SAMPLES_IN_PASSES,
	GPA_STATUS_ERROR_FAILED,
	GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED,
	GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED,

	/* Used inside GPA only; never returned to a client. */
	GPA_STATUS_INTERNAL = 256,
	GPA_STATUS_OK_HANDLED = GPA_STATUS_INTERNAL,
} GPA_Status;

typedef enum {
	GPA_TYPE_FLOAT32,
	GPA_TYPE_FLOAT64,
	GPA_TYPE_UINT32,
	GPA_TYPE_UINT64,
	GPA_TYPE_INT32,
	GPA_TYPE_INT64,
	GPA_TYPE__LAST
} GPA_Type;

typedef enum {
	GPA_USAGE_TYPE_RATIO,
	GPA_USAGE_TYPE_PERCENTAGE,
	GPA_USAGE_TYPE_CYCLES,
	GPA_USAGE_TYPE_MILLISECONDS,
	GPA_USAGE_TYPE_BYTES,
	GPA_USAGE_TYPE_ITEMS,
	GPA_USAGE_TYPE_KILOBYTES,
	GPA_USAGE_TYPE__LAST
} GPA_Usage_Type;

typedef enum {
	GPA_LOGGING_NONE = 0x00,
	GPA_LOGGING_ERROR = 0x01,
	GPA_LOGGING_MESSAGE = 0x02,
	GPA_LOGGING_ERROR_AND_MESSAGE = 0x03,
	GPA_LOGGING_TRACE = 0x04,
	GPA_LOGGING_ERROR_AND_TRACE = 0x05,
	GPA_LOGGING_MESSAGE_AND_TRACE = 0x06,
	GPA_LOGGING_ERROR_MESSAGE_AND_TRACE = 0x07,
	GPA_LOGGING_ALL = 0xFF
} GPA_Logging_Type;

typedef enum {
	GPA_API_DIRECTX_11,
	GPA_API_DIRECTX_12,
	GPA_API_OPENGL,
	GPA_API_OPENGLES,
	GPA_API_OPENCL,
	GPA_API_HSA,
	GPA_API__LAST
} GPA_API_Type;

typedef void (*GPA_LoggingCallbackPtrType)(GPA_Logging_Type messageType, const char *pMessage);

#endif /* GPUPERFAPITYPES_H */
