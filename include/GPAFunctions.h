/* SPDX-License-Identifier: MIT */
/*
 * GPAFunctions.h — X-macro list of the 40 public GPA 2.x entry points, in
 * GPA's own order.  Define GPA_FUNCTION_PREFIX(f) before including it, as
 * GPA 2.x loaders do:
 *
 *     #define GPA_FUNCTION_PREFIX(f) f##PtrType f;
 *     #include <GPAFunctions.h>
 *
 * The header has no include guard on purpose: it is expanded once per use.
 * As in GPA, the two internal-build entry points are listed only when
 * AMDT_INTERNAL is defined (opengpa exports them always:
 * GPUPerfAPIFunctionTypes-Private.h has their types).
 */
#ifndef GPA_FUNCTION_PREFIX
#error "define GPA_FUNCTION_PREFIX(f) before including GPAFunctions.h"
#endif

GPA_FUNCTION_PREFIX(GPA_RegisterLoggingCallback)
#ifdef AMDT_INTERNAL
GPA_FUNCTION_PREFIX(GPA_RegisterLoggingDebugCallback)
#endif
GPA_FUNCTION_PREFIX(GPA_Initialize)
GPA_FUNCTION_PREFIX(GPA_Destroy)
GPA_FUNCTION_PREFIX(GPA_OpenContext)
GPA_FUNCTION_PREFIX(GPA_CloseContext)
GPA_FUNCTION_PREFIX(GPA_SelectContext)
GPA_FUNCTION_PREFIX(GPA_GetNumCounters)
GPA_FUNCTION_PREFIX(GPA_GetCounterName)
GPA_FUNCTION_PREFIX(GPA_GetCounterDescription)
GPA_FUNCTION_PREFIX(GPA_GetCounterDataType)
GPA_FUNCTION_PREFIX(GPA_GetCounterUsageType)
GPA_FUNCTION_PREFIX(GPA_GetDataTypeAsStr)
GPA_FUNCTION_PREFIX(GPA_GetUsageTypeAsStr)
GPA_FUNCTION_PREFIX(GPA_GetStatusAsStr)
GPA_FUNCTION_PREFIX(GPA_EnableCounter)
GPA_FUNCTION_PREFIX(GPA_DisableCounter)
GPA_FUNCTION_PREFIX(GPA_GetEnabledCount)
GPA_FUNCTION_PREFIX(GPA_GetEnabledIndex)
GPA_FUNCTION_PREFIX(GPA_IsCounterEnabled)
GPA_FUNCTION_PREFIX(GPA_EnableCounterStr)
GPA_FUNCTION_PREFIX(GPA_DisableCounterStr)
GPA_FUNCTION_PREFIX(GPA_EnableAllCounters)
GPA_FUNCTION_PREFIX(GPA_DisableAllCounters)
GPA_FUNCTION_PREFIX(GPA_GetCounterIndex)
GPA_FUNCTION_PREFIX(GPA_GetPassCount)
GPA_FUNCTION_PREFIX(GPA_BeginSession)
GPA_FUNCTION_PREFIX(GPA_EndSession)
GPA_FUNCTION_PREFIX(GPA_BeginPass)
GPA_FUNCTION_PREFIX(GPA_EndPass)
GPA_FUNCTION_PREFIX(GPA_BeginSample)
GPA_FUNCTION_PREFIX(GPA_EndSample)
GPA_FUNCTION_PREFIX(GPA_GetSampleCount)
GPA_FUNCTION_PREFIX(GPA_IsSampleReady)
GPA_FUNCTION_PREFIX(GPA_IsSessionReady)
GPA_FUNCTION_PREFIX(GPA_GetSampleUInt64)
GPA_FUNCTION_PREFIX(GPA_GetSampleUInt32)
GPA_FUNCTION_PREFIX(GPA_GetSampleFloat64)
GPA_FUNCTION_PREFIX(GPA_GetSampleFloat32)
GPA_FUNCTION_PREFIX(GPA_GetDeviceID)
GPA_FUNCTION_PREFIX(GPA_GetDeviceDesc)
#ifdef AMDT_INTERNAL
GPA_FUNCTION_PREFIX(GPA_InternalSetDrawCallCounts)
#endif
