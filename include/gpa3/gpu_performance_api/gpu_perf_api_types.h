/* SPDX-License-Identifier: MIT */
/*
 * gpu_perf_api_types.h — types and enumerations of the GPA 3.x function-table
 * ABI as of GPA 3.17, as opengpa implements it (docs/api-gpa3.md).  Every
 * numeric value is part of the binary contract: do not renumber.  Errors are
 * negative; 0 is success, 1 "not ready yet".
 */
#ifndef GPU_PERFORMANCE_API_GPU_PERF_API_TYPES_H_
#define GPU_PERFORMANCE_API_GPU_PERF_API_TYPES_H_

#include <limits.h>
#include <stddef.h>

typedef void* LibHandle;

/* 24 bytes on LP64: data_1 is an unsigned long. */
typedef struct _GpaUuid {
	unsigned long data_1;
	unsigned short data_2;
	unsigned short data_3;
	unsigned char data_4[8];
} GpaUuid;
#ifdef __cplusplus
/* As GPA's header: UUIDs compare field by field in C++. */
inline bool operator==(const GpaUuid& a, const GpaUuid& b)
{
	if (a.data_1 != b.data_1 || a.data_2 != b.data_2 || a.data_3 != b.data_3)
		return false;
	for (int i = 0; i < 8; i++)
		if (a.data_4[i] != b.data_4[i])
			return false;
	return true;
}
#endif

typedef float GpaFloat32;
typedef double GpaFloat64;
typedef unsigned char GpaUInt8;
typedef unsigned short GpaUInt16;
typedef unsigned int GpaUInt32;
typedef unsigned long long GpaUInt64;

/* What GPA's Linux build defines here for code written for Windows first
 * (include <string.h>, <strings.h> and <wchar.h> to use them). */
#ifndef _WIN32
#ifndef GPA_LIB_DECL
#ifdef __cplusplus
#define GPA_LIB_DECL extern "C"
#else
#define GPA_LIB_DECL
#endif
#endif
#ifndef UNREFERENCED_PARAMETER
#define UNREFERENCED_PARAMETER(x) (void)(x)
#endif
#define _strcmpi(a, b) strcasecmp(a, b)
#define _stricmp(a, b) strcasecmp(a, b)
#define strcpy_s(dst, ndst, src) strcpy(dst, src)
#define strcat_s(dst, ndst, src) strcat(dst, src)
#define strtok_s(a, b, c) strtok(a, b)
#define strnlen_s(a, b) strlen(a)
#define strncpy_s(a, b, c, d) strncpy(a, c, d)
#define wcscat_s(dest, dest_size, src) wcscat(dest, src)
#define wcscpy_s(dest, dest_size, src) wcscpy(dest, src)
#define wcsncpy_s(dest, dest_size, src, count) wcsncpy(dest, src, count)
#define wcsnlen_s(str, str_length) wcsnlen(str, str_length)
#ifndef TRUE
#define TRUE 1
#endif
#ifndef FALSE
#define FALSE 0
#endif
#endif

#define GPA_UINT32_MAX UINT_MAX
#define GPA_UINT64_MAX ULLONG_MAX

/* Opaque handles: opengpa checks every one it is given (a stale or foreign
 * handle is an error, never a crash). */
typedef struct _GpaContextId* GpaContextId;
typedef struct _GpaSessionId* GpaSessionId;
typedef struct _GpaCommandListId* GpaCommandListId;

#define GPA_NULL_COMMAND_LIST NULL

typedef enum {
	kGpaStatusOk = 0,
	kGpaStatusResultNotReady = 1,
	kGpaStatusMax = kGpaStatusResultNotReady,
	kGpaStatusErrorNullPointer = -1,
	kGpaStatusErrorContextNotOpen = -2,
	kGpaStatusErrorContextAlreadyOpen = -3,
	kGpaStatusErrorIndexOutOfRange = -4,
	kGpaStatusErrorCounterNotFound = -5,
	kGpaStatusErrorAlreadyEnabled = -6,
	kGpaStatusErrorNoCountersEnabled = -7,
	kGpaStatusErrorNotEnabled = -8,
	kGpaStatusErrorCommandListAlreadyEnded = -9,
	kGpaStatusErrorCommandListAlreadyStarted = -10,
	kGpaStatusErrorCommandListNotEnded = -11,
	kGpaStatusErrorNotEnoughPasses = -12,
	kGpaStatusErrorSampleNotStarted = -13,
	kGpaStatusErrorSampleAlreadyStarted = -14,
	kGpaStatusErrorSampleNotEnded = -15,
	kGpaStatusErrorCannotChangeCountersWhenSampling = -16,
	kGpaStatusErrorSessionNotFound = -17,
	kGpaStatusErrorSampleNotFound = -18,
	kGpaStatusErrorContextNotFound = -19,
	kGpaStatusErrorCommandListNotFound = -20,
	kGpaStatusErrorReadingSampleResult = -21,
	kGpaStatusErrorVariableNumberOfSamplesInPasses = -22,
	kGpaStatusErrorFailed = -23,
	kGpaStatusErrorHardwareNotSupported = -24,
	kGpaStatusErrorDriverNotSupported = -25,
	kGpaStatusErrorApiNotSupported = -26,
	kGpaStatusErrorInvalidParameter = -27,
	kGpaStatusErrorLibLoadFailed = -28,
	kGpaStatusErrorLibLoadMajorVersionMismatch = -29,
	kGpaStatusErrorLibLoadMinorVersionMismatch = -30,
	kGpaStatusErrorGpaNotInitialized = -31,
	kGpaStatusErrorGpaAlreadyInitialized = -32,
	kGpaStatusErrorSampleInSecondaryCommandList = -33,
	kGpaStatusErrorIncompatibleSampleTypes = -34,
	kGpaStatusErrorSessionAlreadyStarted = -35,
	kGpaStatusErrorSessionNotStarted = -36,
	kGpaStatusErrorSessionNotEnded = -37,
	kGpaStatusErrorInvalidDataType = -38,
	kGpaStatusErrorInvalidCounterEquation = -39,
	kGpaStatusErrorTimeout = -40,
	kGpaStatusErrorLibAlreadyLoaded = -41,
	kGpaStatusErrorOtherSessionActive = -42,
	kGpaStatusErrorException = -43,
	kGpaStatusErrorInvalidCounterGroupData = -44,
	kGpaStatusMin = kGpaStatusErrorInvalidCounterGroupData,
	kGpaStatusInternal = 256,
} GpaStatus;

typedef GpaUInt32 GpaFlags;

typedef enum {
	kGpaInitializeDefaultBit = 0,
} GpaInitializeBits;
typedef GpaFlags GpaInitializeFlags;

typedef enum {
	kGpaOpenContextDefaultBit = 0,
	kGpaOpenContextHideDerivedCountersBit = 0x01,
	kGpaOpenContextHidePublicCountersBit = kGpaOpenContextHideDerivedCountersBit,
	kGpaOpenContextHideSoftwareCountersBit_obsolete = 0x02,
	kGpaOpenContextHideHardwareCountersBit_obsolete = 0x04,
	kGpaOpenContextClockModeNoneBit = 0x08,
	kGpaOpenContextClockModePeakBit = 0x10,
	kGpaOpenContextClockModeMinMemoryBit = 0x20,
	kGpaOpenContextClockModeMinEngineBit = 0x40,
	kGpaOpenContextEnableHardwareCountersBit = 0x80,
} GpaOpenContextBits;
typedef GpaFlags GpaOpenContextFlags;

typedef enum {
	kGpaDataTypeFloat64,
	kGpaDataTypeUint64,
	kGpaDataTypeLast
} GpaDataType;

typedef enum {
	kGpaUsageTypeRatio,
	kGpaUsageTypePercentage,
	kGpaUsageTypeCycles,
	kGpaUsageTypeMilliseconds,
	kGpaUsageTypeBytes,
	kGpaUsageTypeItems,
	kGpaUsageTypeKilobytes,
	kGpaUsageTypeNanoseconds,
	kGpaUsageTypeLast
} GpaUsageType;

typedef enum {
	kGpaLoggingNone = 0x00,
	kGpaLoggingError = 0x01,
	kGpaLoggingMessage = 0x02,
	kGpaLoggingErrorAndMessage = 0x03,
	kGpaLogErrorAndMessage = kGpaLoggingErrorAndMessage,
	kGpaLoggingTrace = 0x04,
	kGpaLoggingErrorAndTrace = 0x05,
	kGpaLoggingMessageAndTrace = 0x06,
	kGpaLoggingErrorMessageAndTrace = 0x07,
	kGpaLoggingAll = 0xFF,
	kGpaLoggingDebugError = 0x0100,
	kGpaLoggingDebugMessage = 0x0200,
	kGpaLoggingDebugTrace = 0x0400,
	kGpaLoggingDebugCounterDefinitions = 0x0800,
	kGpaLoggingInternal = 0x1000,
	kGpaLoggingDebugAll = 0xFF00
} GpaLoggingType;

typedef enum {
	kGpaApiStart,
	kGpaApiDirectx11 = kGpaApiStart,
	kGpaApiDirectx12,
	kGpaApiOpengl,
	kGpaApiOpencl,
	kGpaApiDeprecated,
	kGpaApiVulkan,
	kGpaApiNoSupport,
	kGpaApiLast
} GpaApiType;

typedef enum {
	kGpaHwGenerationNone,
	kGpaHwGenerationNvidia,
	kGpaHwGenerationIntel,
	kGpaHwGenerationGfx6,
	kGpaHwGenerationSouthernIsland = kGpaHwGenerationGfx6,
	kGpaHwGenerationGfx7,
	kGpaHwGenerationSeaIsland = kGpaHwGenerationGfx7,
	kGpaHwGenerationGfx8,
	kGpaHwGenerationVolcanicIsland = kGpaHwGenerationGfx8,
	kGpaHwGenerationGfx9,
	kGpaHwGenerationGfx10,
	kGpaHwGenerationGfx103,
	kGpaHwGenerationGfx11,
	kGpaHwGenerationCdna,
	kGpaHwGenerationCdna2,
	kGpaHwGenerationCdna3,
	kGpaHwGenerationLast
} GpaHwGeneration;

typedef enum {
	kGpaCommandListNone,
	kGpaCommandListPrimary,
	kGpaCommandListSecondary,
	kGpaCommandListLast
} GpaCommandListType;

typedef enum {
	kGpaCounterSampleTypeDiscrete = 0x1,
} GpaCounterSampleType;

/* No explicit value in GPA 3.14-3.17: the discrete bit is 0. */
typedef enum {
	kGpaContextSampleTypeDiscreteCounter,
} GpaContextSampleTypeBits;
typedef GpaFlags GpaContextSampleTypeFlags;

typedef enum {
	kGpaSessionSampleTypeDiscreteCounter,
	kGpaSessionSampleTypeLast
} GpaSessionSampleType;

#endif /* GPU_PERFORMANCE_API_GPU_PERF_API_TYPES_H_ */
