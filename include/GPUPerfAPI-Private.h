/* SPDX-License-Identifier: MIT */
/*
 * GPUPerfAPI-Private.h — GPA 2.x's private entry points.
 *
 * GPA_InternalProfileStart/Stop are exported by every GPA 2.x Linux build
 * and by opengpa; GPA_RegisterLoggingDebugCallback and
 * GPA_InternalSetDrawCallCounts only by GPA's internal builds (declared
 * here under AMDT_INTERNAL, as GPA does), and always by opengpa, so a
 * loader built with AMDT_INTERNAL finds every name it looks up.
 * docs/api.md says what each does here.
 */
#ifndef GPUPERFAPI_PRIVATE_H
#define GPUPERFAPI_PRIVATE_H

#include "GPUPerfAPIOS.h"
#include "GPUPerfAPI.h"
#include "GPUPerfAPITypes-Private.h"
#include "GPUPerfAPIFunctionTypes-Private.h"

GPALIB_DECL GPA_Status GPA_InternalProfileStart(void);
GPALIB_DECL GPA_Status GPA_InternalProfileStop(const char* pFilename);

#ifdef AMDT_INTERNAL
GPALIB_DECL GPA_Status GPA_RegisterLoggingDebugCallback(enum GPA_Log_Debug_Type loggingType, GPA_LoggingDebugCallbackPtrType pCallbackFuncPtr);
GPALIB_DECL GPA_Status GPA_InternalSetDrawCallCounts(const int iCounts);
#endif

#endif /* GPUPERFAPI_PRIVATE_H */
