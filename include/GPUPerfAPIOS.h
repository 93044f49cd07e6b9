/* SPDX-License-Identifier: MIT */
/*
 * GPUPerfAPIOS.h — GPA 2.x's operating-system header: on Linux (when the
 * build defines _LINUX, as GPA's makefiles do) the same scalar types and
 * helper macros as GPUPerfAPITypes.h, token for token, so either header may
 * come first, plus UNREFERECED_VAR (GPA's spelling).
 */
#ifndef GPUPERFAPIOS_H
#define GPUPERFAPIOS_H

#ifdef _LINUX
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

#define UNREFERENCED_PARAMETER(x)
#define UNREFERECED_VAR(x)
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

#endif /* GPUPERFAPIOS_H */
