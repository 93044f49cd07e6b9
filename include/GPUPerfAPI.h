/* SPDX-License-Identifier: MIT */
/*
 * GPUPerfAPI.h — the 40 entry points of the GPA 2.x C ABI, as implemented by
 * opengpa.  Signatures match GPA 2.20-2.23 exactly so existing clients link
 * or dlopen opengpa unchanged.  Like GPA's own, it brings in the types and
 * the <Function>PtrType typedefs.  See docs/api.md for opengpa's behaviour
 * and opengpa.h for the extensions.
 */
#ifndef GPUPERFAPI_H
#define GPUPERFAPI_H

#ifndef GPALIB_DECL
#ifdef __cplusplus
#define GPALIB_DECL extern "C"
#else
#define GPALIB_DECL extern
#endif
#endif

#include <assert.h>

#include "GPUPerfAPITypes.h"
#include "GPUPerfAPIFunctionTypes.h"

GPALIB_DECL GPA_Status GPA_RegisterLoggingCallback(GPA_Logging_Type loggingType, GPA_LoggingCallbackPtrType pCallbackFuncPtr);
GPALIB_DECL GPA_Status GPA_Initialize(void);
GPALIB_DECL GPA_Status GPA_Destroy(void);
GPALIB_DECL GPA_Status GPA_OpenContext(void* pContext);
GPALIB_DECL GPA_Status GPA_CloseContext(void);
GPALIB_DECL GPA_Status GPA_SelectContext(void* pContext);
GPALIB_DECL GPA_Status GPA_GetNumCounters(gpa_uint32* pCount);
GPALIB_DECL GPA_Status GPA_GetCounterName(gpa_uint32 index, const char** ppName);
GPALIB_DECL GPA_Status GPA_GetCounterDescription(gpa_uint32 index, const char** ppDescription);
GPALIB_DECL GPA_Status GPA_GetCounterDataType(gpa_uint32 index, GPA_Type* pCounterDataType);
GPALIB_DECL GPA_Status GPA_GetCounterUsageType(gpa_uint32 index, GPA_Usage_Type* pCounterUsageType);
GPALIB_DECL GPA_Status GPA_GetDataTypeAsStr(GPA_Type counterDataType, const char** ppTypeStr);
GPALIB_DECL GPA_Status GPA_GetUsageTypeAsStr(GPA_Usage_Type counterUsageType, const char** ppUsageTypeStr);
GPALIB_DECL const char* GPA_GetStatusAsStr(GPA_Status status);
GPALIB_DECL GPA_Status GPA_EnableCounter(gpa_uint32 index);
GPALIB_DECL GPA_Status GPA_DisableCounter(gpa_uint32 index);
GPALIB_DECL GPA_Status GPA_GetEnabledCount(gpa_uint32* pCount);
GPALIB_DECL GPA_Status GPA_GetEnabledIndex(gpa_uint32 enabledNumber, gpa_uint32* pEnabledCounterIndex);
GPALIB_DECL GPA_Status GPA_IsCounterEnabled(gpa_uint32 counterIndex);
GPALIB_DECL GPA_Status GPA_EnableCounterStr(const char* pCounter);
GPALIB_DECL GPA_Status GPA_DisableCounterStr(const char* pCounter);
GPALIB_DECL GPA_Status GPA_EnableAllCounters(void);
GPALIB_DECL GPA_Status GPA_DisableAllCounters(void);
GPALIB_DECL GPA_Status GPA_GetCounterIndex(const char* pCounter, gpa_uint32* pIndex);
GPALIB_DECL GPA_Status GPA_GetPassCount(gpa_uint32* pNumPasses);
GPALIB_DECL GPA_Status GPA_BeginSession(gpa_uint32* pSessionID);
GPALIB_DECL GPA_Status GPA_EndSession(void);
GPALIB_DECL GPA_Status GPA_BeginPass(void);
GPALIB_DECL GPA_Status GPA_EndPass(void);
GPALIB_DECL GPA_Status GPA_BeginSample(gpa_uint32 sampleID);
GPALIB_DECL GPA_Status GPA_EndSample(void);
GPALIB_DECL GPA_Status GPA_GetSampleCount(gpa_uint32 sessionID, gpa_uint32* pSampleCount);
GPALIB_DECL GPA_Status GPA_IsSampleReady(bool* pReadyResult, gpa_uint32 sessionID, gpa_uint32 sampleID);
GPALIB_DECL GPA_Status GPA_IsSessionReady(bool* pReadyResult, gpa_uint32 sessionID);
GPALIB_DECL GPA_Status GPA_GetSampleUInt64(gpa_uint32 sessionID, gpa_uint32 sampleID, gpa_uint32 counterID, gpa_uint64* pResult);
GPALIB_DECL GPA_Status GPA_GetSampleUInt32(gpa_uint32 sessionID, gpa_uint32 sampleID, gpa_uint32 counterIndex, gpa_uint32* pResult);
GPALIB_DECL GPA_Status GPA_GetSampleFloat64(gpa_uint32 sessionID, gpa_uint32 sampleID, gpa_uint32 counterIndex, gpa_float64* pResult);
GPALIB_DECL GPA_Status GPA_GetSampleFloat32(gpa_uint32 sessionID, gpa_uint32 sampleID, gpa_uint32 counterIndex, gpa_float32* pResult);
GPALIB_DECL GPA_Status GPA_GetDeviceID(gpa_uint32* pDeviceID);
GPALIB_DECL GPA_Status GPA_GetDeviceDesc(const char** ppDesc);

#endif /* GPUPERFAPI_H */
