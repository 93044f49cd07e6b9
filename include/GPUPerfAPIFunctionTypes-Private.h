/* SPDX-License-Identifier: MIT */
/*
 * GPUPerfAPIFunctionTypes-Private.h — function-pointer types of GPA 2.x's
 * private and internal-build entry points (GPUPerfAPI-Private.h).  GPA's
 * own copy names the enum without `enum` and so compiles only as C++; this
 * one compiles as C too, with the same types.
 */
#ifndef GPUPERFAPIFUNCTIONTYPES_PRIVATE_H
#define GPUPERFAPIFUNCTIONTYPES_PRIVATE_H

#include "GPUPerfAPITypes.h"
#include "GPUPerfAPITypes-Private.h"

/* Declared by GPA, implemented by no GPA release and not by opengpa. */
typedef GPA_Status (*GPA_EnableCountersFromFilePtrType)(const char* pFile, gpa_uint32* pCountersRead);

typedef void (*GPA_LoggingDebugCallbackPtrType)(enum GPA_Log_Debug_Type messageType, const char* pMessage);
typedef GPA_Status (*GPA_RegisterLoggingDebugCallbackPtrType)(enum GPA_Log_Debug_Type loggingType, GPA_LoggingDebugCallbackPtrType pCallbackFuncPtr);
typedef GPA_Status (*GPA_InternalProfileStartPtrType)(void);
typedef GPA_Status (*GPA_InternalProfileStopPtrType)(const char* pFilename);
typedef GPA_Status (*GPA_InternalSetDrawCallCountsPtrType)(const int iCounts);

#endif /* GPUPERFAPIFUNCTIONTYPES_PRIVATE_H */
