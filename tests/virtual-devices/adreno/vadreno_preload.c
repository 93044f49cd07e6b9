/* SPDX-License-Identifier: MIT */
/*
 * vadreno_preload.c — libopengpa-vadreno.so: LD_PRELOAD it and
 * /dev/kgsl-3d0 (and its sysfs attributes under /sys/class/kgsl/kgsl-3d0)
 * are the virtual Adreno for every unmodified client of the process.
 * open/open64/openat/openat64 (and their _FORTIFY_SOURCE forms), close and
 * ioctl are interposed (by ../preload_core.c, which the virtual Mali's
 * preload shares); everything else goes to the next definition.
 *
 * Configured from the environment when the process first opens one of the
 * device's paths:
 *   VADRENO_CHIP_ID=0x06050002 (a530 0x05030002, a540 0x05040001, a618 0x06010800,
 *     a630 0x06030002, a640 0x06040001, a650, a660 0x06060001, a730 0x07030001,
 *     a740 0x43050a01, a750 0x43051401)
 *   VADRENO_PERFCOUNTER=1 (0: the sysfs switch is off, READ fails EPERM)
 *   VADRENO_FRAMES_PER_READ=1 (msm: frames per stream record)
 *   VADRENO_INTERFACE=kgsl (msm: /dev/dri/renderD128 speaks upstream msm's GET_PARAM
 *     and PERFCNTR_CONFIG stream instead, and /dev/kgsl-3d0 is absent)
 *   VADRENO_PERFMON=1 (0: the stream needs CAP_PERFMON the process lacks: EPERM)
 *   VADRENO_MSM_NO_STREAM=1 (an msm kernel before the stream: PERFCNTR_CONFIG EINVAL)
 *   VADRENO_MSM_BUSY_COUNTERS=n (counters of each group the GPU's own streams hold)
 *   VADRENO_FAULT_GET_EBUSY=1  VADRENO_FAULT_EMPTY_GROUP=n  VADRENO_FAULT_VANISHED=1
 *   VADRENO_FAULT_OPEN_EACCES=1  VADRENO_FAULT_QUERY_HUGE=1  VADRENO_FAULT_READ_WRONG=1
 *   VADRENO_FAULT_READ_EINVAL=1  VADRENO_FAULT_EINTR=1  VADRENO_FAULT_NO_SYSFS=1
 * A bad configuration prints one line to stderr and leaves the device absent.
 * The one device of the process is global state; it lives as long as the process.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "preload_core.h"
#include "sys.h"
#include "vadreno.h"

static struct {
	pthread_once_t dev_once;
	struct vadreno *vd;
	const struct og_sys *sys;
} g = { .dev_once = PTHREAD_ONCE_INIT };

static unsigned long long env(const char *name, unsigned long long def, bool *bad)
{
	return preload_env("vadreno", name, def, bad);
}

static void init(void)
{
	preload_next();
	bool bad = false;
	struct vadreno_config c = {0};
	c.chip_id = (uint32_t)env("VADRENO_CHIP_ID", 0, &bad);
	c.perfcounter_off = env("VADRENO_PERFCOUNTER", 1, &bad) == 0;
	c.frames_per_read = (uint32_t)env("VADRENO_FRAMES_PER_READ", 0, &bad);
	const char *iface = getenv("VADRENO_INTERFACE");
	if (iface && *iface && strcmp(iface, "kgsl") != 0 && strcmp(iface, "msm") != 0) {
		fprintf(stderr, "vadreno: VADRENO_INTERFACE=%s: give kgsl or msm\n", iface);
		bad = true;
	}
	c.msm = iface && strcmp(iface, "msm") == 0;
	c.msm_no_perfmon = env("VADRENO_PERFMON", 1, &bad) == 0;
	c.msm_no_stream = env("VADRENO_MSM_NO_STREAM", 0, &bad) != 0;
	c.msm_busy_counters = (uint32_t)env("VADRENO_MSM_BUSY_COUNTERS", 0, &bad);
	struct vadreno_faults f = {0};
	f.get_ebusy = env("VADRENO_FAULT_GET_EBUSY", 0, &bad) != 0;
	const char *eg = getenv("VADRENO_FAULT_EMPTY_GROUP");
	if (eg && *eg) {
		f.empty_group = (int)env("VADRENO_FAULT_EMPTY_GROUP", 0, &bad);
		f.empty_group_set = true;
	}
	f.vanished = env("VADRENO_FAULT_VANISHED", 0, &bad) != 0;
	f.open_eacces = env("VADRENO_FAULT_OPEN_EACCES", 0, &bad) != 0;
	f.query_huge = env("VADRENO_FAULT_QUERY_HUGE", 0, &bad) != 0;
	f.read_wrong_entry = env("VADRENO_FAULT_READ_WRONG", 0, &bad) != 0;
	f.read_einval = env("VADRENO_FAULT_READ_EINVAL", 0, &bad) != 0;
	f.eintr = env("VADRENO_FAULT_EINTR", 0, &bad) != 0;
	f.no_sysfs = env("VADRENO_FAULT_NO_SYSFS", 0, &bad) != 0;
	if (bad)
		return;
	struct vadreno *vd = vadreno_create(&c);
	if (!vd) {
		fprintf(stderr, "vadreno: configuration rejected: chip id 0x%08x is not one the "
		                "virtual Adreno models (see vadreno_preload.c)\n", (unsigned)c.chip_id);
		return;
	}
	vadreno_set_faults(vd, &f);
	g.sys = vadreno_sys(vd);
	__atomic_store_n(&g.vd, vd, __ATOMIC_RELEASE);
}

static struct vadreno *dev(void)
{
	preload_next();
	return __atomic_load_n(&g.vd, __ATOMIC_ACQUIRE);
}

bool preload_owns_path(const char *path)
{
	preload_next();
	if (!vadreno_owns_path(path))
		return false;
	pthread_once(&g.dev_once, init);
	return g.vd != NULL;
}

bool preload_owns_fd(int fd)
{
	struct vadreno *vd = dev();
	return vd && fd >= 0 && vadreno_owns_fd(vd, fd);
}

const struct og_sys *preload_sys(void)
{
	return g.sys;
}
