/* SPDX-License-Identifier: MIT */
/*
 * kgsl_uapi.h — the KGSL (/dev/kgsl-3d0) perf-counter ioctls, restated from
 * the facts of ../shared/reference/adreno-kgsl.md §1.2–§1.3 (field orders,
 * sizes and request numbers; no text of the GPL'd header is copied).
 *
 * Every struct is given twice, as a 32-bit (ILP32: armv7, i686) and a
 * 64-bit (LP64: aarch64, x86_64) client lays it out, with fixed-width types
 * only: user pointers and size_t become uint32_t or uint64_t.  The backend
 * uses the layout of the process it runs in (OG_KGSL_NATIVE_*); the
 * virtual Adreno accepts both, telling them apart by the size the request
 * number carries, as a 64-bit kernel's compat path does.
 */
#ifndef OPENGPA_ADRENO_KGSL_UAPI_H
#define OPENGPA_ADRENO_KGSL_UAPI_H

#include <stddef.h>
#include <stdint.h>

#include "ioctl_layout.h"

#define OG_KGSL_PATH "/dev/kgsl-3d0"
#define OG_KGSL_SYSFS "/sys/class/kgsl/kgsl-3d0"
#define OG_KGSL_IOC_TYPE 0x09

#define OG_KGSL_NR_GETPROPERTY 0x02
#define OG_KGSL_NR_PERFCOUNTER_GET 0x38
#define OG_KGSL_NR_PERFCOUNTER_PUT 0x39
#define OG_KGSL_NR_PERFCOUNTER_QUERY 0x3A
#define OG_KGSL_NR_PERFCOUNTER_READ 0x3B

#define OG_KGSL_PROP_DEVICE_INFO 0x1
#define OG_KGSL_PROP_VERSION 0x8
#define OG_KGSL_PROP_GPU_MODEL 0x29

#define OG_KGSL_GROUP_MAX 0x37u     /* size of the kernel's group array */
#define OG_KGSL_READ_MAX 100u       /* entries one READ accepts */
#define OG_KGSL_NOT_USED 0xFFFFFFFFu /* QUERY: counter free */
#define OG_KGSL_BROKEN 0xFFFFFFFEu   /* QUERY: counter reserved by the kernel */

/* The same on both ABIs. */
struct og_kgsl_perfcounter_get {
	uint32_t groupid;
	uint32_t countable;
	uint32_t offset;    /* out: dword offset of the LO register */
	uint32_t offset_hi; /* out: dword offset of the HI register */
	uint32_t pad;
};

struct og_kgsl_perfcounter_put {
	uint32_t groupid;
	uint32_t countable;
	uint32_t pad[2];
};

/* 16 bytes everywhere; aligned to 4 only on i686, same offsets. */
struct og_kgsl_read_group {
	uint32_t groupid;
	uint32_t countable;
	uint64_t value;
} __attribute__((aligned(4)));

struct og_kgsl_perfcounter_query32 {
	uint32_t groupid;
	uint32_t countables; /* user pointer to uint32_t[count] */
	uint32_t count;
	uint32_t max_counters; /* out */
	uint32_t pad[2];
};

struct og_kgsl_perfcounter_query64 {
	uint32_t groupid;
	uint32_t pad0;
	uint64_t countables;
	uint32_t count;
	uint32_t max_counters;
	uint32_t pad[2];
};

struct og_kgsl_perfcounter_read32 {
	uint32_t reads; /* user pointer to og_kgsl_read_group[count] */
	uint32_t count;
	uint32_t pad[2];
};

struct og_kgsl_perfcounter_read64 {
	uint64_t reads;
	uint32_t count;
	uint32_t pad[3];
};

struct og_kgsl_getproperty32 {
	uint32_t type;
	uint32_t value; /* user pointer */
	uint32_t sizebytes;
};

struct og_kgsl_getproperty64 {
	uint32_t type;
	uint32_t pad0;
	uint64_t value;
	uint64_t sizebytes;
};

struct og_kgsl_devinfo32 {
	uint32_t device_id;
	uint32_t chip_id; /* core[31:24] major[23:16] minor[15:8] patch[7:0] */
	uint32_t mmu_enabled;
	uint32_t gmem_gpubaseaddr;
	uint32_t gpu_id;
	uint32_t gmem_sizebytes;
};

struct og_kgsl_devinfo64 {
	uint32_t device_id;
	uint32_t chip_id;
	uint32_t mmu_enabled;
	uint32_t pad0;
	uint64_t gmem_gpubaseaddr;
	uint32_t gpu_id;
	uint32_t pad1;
	uint64_t gmem_sizebytes;
};

struct og_kgsl_version {
	uint32_t drv_major, drv_minor, dev_major, dev_minor;
};

#define OG_KGSL_MODEL_LEN 32

/* Request numbers, computed from the structs (asm-generic _IOC layout). */
#define OG_KGSL_IOC(dir, nr, type) _IOC(dir, OG_KGSL_IOC_TYPE, nr, sizeof(type))
#define OG_KGSL_GETPROPERTY32 OG_KGSL_IOC(_IOC_READ | _IOC_WRITE, OG_KGSL_NR_GETPROPERTY, struct og_kgsl_getproperty32)
#define OG_KGSL_GETPROPERTY64 OG_KGSL_IOC(_IOC_READ | _IOC_WRITE, OG_KGSL_NR_GETPROPERTY, struct og_kgsl_getproperty64)
#define OG_KGSL_PERFCOUNTER_GET OG_KGSL_IOC(_IOC_READ | _IOC_WRITE, OG_KGSL_NR_PERFCOUNTER_GET, struct og_kgsl_perfcounter_get)
#define OG_KGSL_PERFCOUNTER_PUT OG_KGSL_IOC(_IOC_WRITE, OG_KGSL_NR_PERFCOUNTER_PUT, struct og_kgsl_perfcounter_put)
#define OG_KGSL_PERFCOUNTER_QUERY32 OG_KGSL_IOC(_IOC_READ | _IOC_WRITE, OG_KGSL_NR_PERFCOUNTER_QUERY, struct og_kgsl_perfcounter_query32)
#define OG_KGSL_PERFCOUNTER_QUERY64 OG_KGSL_IOC(_IOC_READ | _IOC_WRITE, OG_KGSL_NR_PERFCOUNTER_QUERY, struct og_kgsl_perfcounter_query64)
#define OG_KGSL_PERFCOUNTER_READ32 OG_KGSL_IOC(_IOC_READ | _IOC_WRITE, OG_KGSL_NR_PERFCOUNTER_READ, struct og_kgsl_perfcounter_read32)
#define OG_KGSL_PERFCOUNTER_READ64 OG_KGSL_IOC(_IOC_READ | _IOC_WRITE, OG_KGSL_NR_PERFCOUNTER_READ, struct og_kgsl_perfcounter_read64)

/* The layout of the process this is compiled for. */
#if UINTPTR_MAX == UINT64_MAX
#define OG_KGSL_NATIVE_64 1
typedef struct og_kgsl_perfcounter_query64 og_kgsl_query_native;
typedef struct og_kgsl_perfcounter_read64 og_kgsl_read_native;
typedef struct og_kgsl_getproperty64 og_kgsl_getprop_native;
typedef struct og_kgsl_devinfo64 og_kgsl_devinfo_native;
#define OG_KGSL_GETPROPERTY OG_KGSL_GETPROPERTY64
#define OG_KGSL_PERFCOUNTER_QUERY OG_KGSL_PERFCOUNTER_QUERY64
#define OG_KGSL_PERFCOUNTER_READ OG_KGSL_PERFCOUNTER_READ64
#else
#define OG_KGSL_NATIVE_64 0
typedef struct og_kgsl_perfcounter_query32 og_kgsl_query_native;
typedef struct og_kgsl_perfcounter_read32 og_kgsl_read_native;
typedef struct og_kgsl_getproperty32 og_kgsl_getprop_native;
typedef struct og_kgsl_devinfo32 og_kgsl_devinfo_native;
#define OG_KGSL_GETPROPERTY OG_KGSL_GETPROPERTY32
#define OG_KGSL_PERFCOUNTER_QUERY OG_KGSL_PERFCOUNTER_QUERY32
#define OG_KGSL_PERFCOUNTER_READ OG_KGSL_PERFCOUNTER_READ32
#endif

/* Sizes and offsets of §1.3. */
_Static_assert(sizeof(struct og_kgsl_perfcounter_get) == 20, "get: 20 bytes");
_Static_assert(offsetof(struct og_kgsl_perfcounter_get, offset_hi) == 12, "get.offset_hi");
_Static_assert(sizeof(struct og_kgsl_perfcounter_put) == 16, "put: 16 bytes");
_Static_assert(sizeof(struct og_kgsl_read_group) == 16, "read_group: 16 bytes");
_Static_assert(offsetof(struct og_kgsl_read_group, value) == 8, "read_group.value");
_Static_assert(sizeof(struct og_kgsl_perfcounter_query32) == 24, "query32: 24 bytes");
_Static_assert(offsetof(struct og_kgsl_perfcounter_query32, count) == 8, "query32.count");
_Static_assert(offsetof(struct og_kgsl_perfcounter_query32, max_counters) == 12, "query32.max");
_Static_assert(sizeof(struct og_kgsl_perfcounter_query64) == 32, "query64: 32 bytes");
_Static_assert(offsetof(struct og_kgsl_perfcounter_query64, countables) == 8, "query64.ptr");
_Static_assert(offsetof(struct og_kgsl_perfcounter_query64, count) == 16, "query64.count");
_Static_assert(offsetof(struct og_kgsl_perfcounter_query64, max_counters) == 20, "query64.max");
_Static_assert(sizeof(struct og_kgsl_perfcounter_read32) == 16, "read32: 16 bytes");
_Static_assert(offsetof(struct og_kgsl_perfcounter_read32, count) == 4, "read32.count");
_Static_assert(sizeof(struct og_kgsl_perfcounter_read64) == 24, "read64: 24 bytes");
_Static_assert(offsetof(struct og_kgsl_perfcounter_read64, count) == 8, "read64.count");
_Static_assert(sizeof(struct og_kgsl_getproperty32) == 12, "getproperty32: 12 bytes");
_Static_assert(sizeof(struct og_kgsl_getproperty64) == 24, "getproperty64: 24 bytes");
_Static_assert(offsetof(struct og_kgsl_getproperty64, sizebytes) == 16, "getprop64.sizebytes");
_Static_assert(sizeof(struct og_kgsl_devinfo32) == 24, "devinfo32: 24 bytes");
_Static_assert(offsetof(struct og_kgsl_devinfo32, gpu_id) == 16, "devinfo32.gpu_id");
_Static_assert(sizeof(struct og_kgsl_devinfo64) == 40, "devinfo64: 40 bytes");
_Static_assert(offsetof(struct og_kgsl_devinfo64, gmem_gpubaseaddr) == 16, "devinfo64.gmem base");
_Static_assert(offsetof(struct og_kgsl_devinfo64, gpu_id) == 24, "devinfo64.gpu_id");
_Static_assert(offsetof(struct og_kgsl_devinfo64, gmem_sizebytes) == 32, "devinfo64.gmem size");
_Static_assert(sizeof(struct og_kgsl_version) == 16, "version: 16 bytes");
#if OG_IOC_GENERIC_LAYOUT
_Static_assert(OG_KGSL_GETPROPERTY32 == 0xc00c0902u, "GETPROPERTY ILP32");
_Static_assert(OG_KGSL_GETPROPERTY64 == 0xc0180902u, "GETPROPERTY LP64");
_Static_assert(OG_KGSL_PERFCOUNTER_GET == 0xc0140938u, "PERFCOUNTER_GET");
_Static_assert(OG_KGSL_PERFCOUNTER_PUT == 0x40100939u, "PERFCOUNTER_PUT");
_Static_assert(OG_KGSL_PERFCOUNTER_QUERY32 == 0xc018093au, "PERFCOUNTER_QUERY ILP32");
_Static_assert(OG_KGSL_PERFCOUNTER_QUERY64 == 0xc020093au, "PERFCOUNTER_QUERY LP64");
_Static_assert(OG_KGSL_PERFCOUNTER_READ32 == 0xc010093bu, "PERFCOUNTER_READ ILP32");
_Static_assert(OG_KGSL_PERFCOUNTER_READ64 == 0xc018093bu, "PERFCOUNTER_READ LP64");
#endif

#endif
