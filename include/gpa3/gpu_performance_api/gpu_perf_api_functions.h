/* SPDX-License-Identifier: MIT */
/*
 * gpu_perf_api_functions.h — the GPA 3.17 function table as an X-macro list,
 * in table order (49 entries).  Define GPA_FUNCTION_PREFIX(f) first:
 *
 *     #define GPA_FUNCTION_PREFIX(f) f##PtrType f;
 *     #include "gpu_perf_api_functions.h"
 *
 * No include guard on purpose: it is expanded once per use.
 */
#ifndef GPA_FUNCTION_PREFIX
#error "define GPA_FUNCTION_PREFIX(f) before including gpu_perf_api_functions.h"
#endif

GPA_FUNCTION_PREFIX(GpaGetFuncTable)
GPA_FUNCTION_PREFIX(GpaRegisterLoggingCallback)
GPA_FUNCTION_PREFIX(GpaInitialize)
GPA_FUNCTION_PREFIX(GpaDestroy)
GPA_FUNCTION_PREFIX(GpaOpenContext)
GPA_FUNCTION_PREFIX(GpaCloseContext)
GPA_FUNCTION_PREFIX(GpaGetSupportedSampleTypes)
GPA_FUNCTION_PREFIX(GpaGetDeviceAndRevisionId)
GPA_FUNCTION_PREFIX(GpaGetDeviceName)
GPA_FUNCTION_PREFIX(GpaGetNumCounters)
GPA_FUNCTION_PREFIX(GpaGetCounterName)
GPA_FUNCTION_PREFIX(GpaGetCounterIndex)
GPA_FUNCTION_PREFIX(GpaGetCounterGroup)
GPA_FUNCTION_PREFIX(GpaGetCounterDescription)
GPA_FUNCTION_PREFIX(GpaGetCounterDataType)
GPA_FUNCTION_PREFIX(GpaGetCounterUsageType)
GPA_FUNCTION_PREFIX(GpaGetCounterUuid)
GPA_FUNCTION_PREFIX(GpaGetCounterSampleType)
GPA_FUNCTION_PREFIX(GpaGetDataTypeAsStr)
GPA_FUNCTION_PREFIX(GpaGetUsageTypeAsStr)
GPA_FUNCTION_PREFIX(GpaCreateSession)
GPA_FUNCTION_PREFIX(GpaDeleteSession)
GPA_FUNCTION_PREFIX(GpaBeginSession)
GPA_FUNCTION_PREFIX(GpaEndSession)
GPA_FUNCTION_PREFIX(GpaEnableCounter)
GPA_FUNCTION_PREFIX(GpaDisableCounter)
GPA_FUNCTION_PREFIX(GpaEnableCounterByName)
GPA_FUNCTION_PREFIX(GpaDisableCounterByName)
GPA_FUNCTION_PREFIX(GpaEnableAllCounters)
GPA_FUNCTION_PREFIX(GpaDisableAllCounters)
GPA_FUNCTION_PREFIX(GpaGetPassCount)
GPA_FUNCTION_PREFIX(GpaGetNumEnabledCounters)
GPA_FUNCTION_PREFIX(GpaGetEnabledIndex)
GPA_FUNCTION_PREFIX(GpaIsCounterEnabled)
GPA_FUNCTION_PREFIX(GpaBeginCommandList)
GPA_FUNCTION_PREFIX(GpaEndCommandList)
GPA_FUNCTION_PREFIX(GpaBeginSample)
GPA_FUNCTION_PREFIX(GpaEndSample)
GPA_FUNCTION_PREFIX(GpaContinueSampleOnCommandList)
GPA_FUNCTION_PREFIX(GpaCopySecondarySamples)
GPA_FUNCTION_PREFIX(GpaGetSampleCount)
GPA_FUNCTION_PREFIX(GpaIsPassComplete)
GPA_FUNCTION_PREFIX(GpaIsSessionComplete)
GPA_FUNCTION_PREFIX(GpaGetSampleResultSize)
GPA_FUNCTION_PREFIX(GpaGetSampleResult)
GPA_FUNCTION_PREFIX(GpaGetStatusAsStr)
GPA_FUNCTION_PREFIX(GpaGetSampleId)
GPA_FUNCTION_PREFIX(GpaGetVersion)
GPA_FUNCTION_PREFIX(GpaGetDeviceGeneration)
