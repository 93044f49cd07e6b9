/* SPDX-License-Identifier: MIT */
/*
 * kbase_device.c — opening /dev/mali0 the way kbase expects (reference
 * mali-hwcnt.md 1.5, mali-kinstr-prfcnt.md 1.1-1.4): the version handshake
 * first (it tells JM from CSF drivers), then the "system monitor" context
 * flag, then the GPU properties, then on CSF the firmware's global
 * interface.  Also the ioctl and poll helpers both readers use.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "kbase_internal.h"
#include "kbase_props.h"
#include "mali_uapi.h"

#define MAX_PROPS_BYTES (1u << 20)

int og_kbase_ioctl(struct og_kbase_dev *d, int fd, unsigned long req, void *arg)
{
	return og_sys_ioctl_retry(d->host.sys, fd, req, arg, false);
}

bool og_kbase_errno_gone(int e)
{
	return og_sys_errno_gone(e) || e == EPIPE;
}

GPA_Status og_kbase_gone(struct og_kbase_dev *d, const char *what, int e)
{
	d->gone = true;
	OG_KBASE_LOG(d, "mali: %s failed: %s (%s went away during the session); close the context "
	                "and open a new one once the driver is back (check dmesg for a GPU reset)",
	             what, strerror(e), d->path);
	return GPA_STATUS_ERROR_FAILED;
}

GPA_Status og_kbase_wait(struct og_kbase_dev *d, int fd, int timeout_ms, const char *when)
{
	if (timeout_ms < 0)
		timeout_ms = d->timeout_ms;
	struct pollfd p = {fd, POLLIN, 0};
	int r = og_sys_poll_retry(d->host.sys, &p, 1, timeout_ms);
	if (r < 0) {
		if (errno != EINTR)
			return og_kbase_gone(d, "poll", errno);
		OG_KBASE_LOG(d, "mali: poll kept being interrupted by signals while waiting for the "
		                "%s; the sample is dropped (block or slow down the signal, then "
		                "sample again)", when);
		return GPA_STATUS_ERROR_FAILED;
	}
	if (p.revents & (POLLHUP | POLLERR | POLLNVAL))
		return og_kbase_gone(d, "poll", ENODEV);
	if (r == 0 || !(p.revents & POLLIN)) {
		OG_KBASE_LOG(d, "mali: the %s did not arrive within %d ms; the sample is dropped (GPU "
		                "hung or the driver is stalled; raise the wait with option timeout=MS)",
		             when, timeout_ms);
		return GPA_STATUS_ERROR_FAILED;
	}
	return GPA_STATUS_OK;
}

int og_kbase_ready(struct og_kbase_dev *d, int fd)
{
	struct pollfd p = {fd, POLLIN, 0};
	int r = og_sys_poll_retry(d->host.sys, &p, 1, 0);
	if (r < 0) {
		og_kbase_gone(d, "poll", errno);
		return -1;
	}
	if (p.revents & (POLLHUP | POLLERR | POLLNVAL)) {
		og_kbase_gone(d, "poll", ENODEV);
		return -1;
	}
	return r > 0 && (p.revents & POLLIN) ? 1 : 0;
}

static GPA_Status open_node(struct og_kbase_dev *d)
{
	const struct og_sys *sys = d->host.sys;
	d->fd = og_sys_open_node(sys, d->path);
	if (d->fd >= 0)
		return GPA_STATUS_OK;
	int e = errno;
	if (og_sys_errno_denied(e)) {
		OG_KBASE_LOG(d, "mali: cannot open %s: %s; add your user to the group that owns it "
		                "(ls -l %s; often 'video' or 'gpu') or install a udev rule giving it "
		                "mode 0666", d->path, strerror(e), d->path);
		return GPA_STATUS_ERROR_FAILED;
	}
	OG_KBASE_LOG(d, "mali: no kbase device: tried %s (%s); load Arm's kbase driver "
	                "(mali_kbase), use backend 'panfrost' on the upstream driver, or pass "
	                "device=PATH", d->path, strerror(e));
	return GPA_STATUS_ERROR_HARDWARE_NOT_SUPPORTED;
}

/* JM first, then CSF (each driver answers the other's number with a dummy
 * that writes no version), then the pre-r21 UK call, so a driver opengpa
 * cannot read is named. */
static GPA_Status check_version(struct og_kbase_dev *d)
{
	struct og_kbase_version_check v = {0, 0};
	if (og_kbase_ioctl(d, d->fd, OG_KBASE_VERSION_CHECK_JM, &v) >= 0 && (v.major || v.minor)) {
		d->version = (struct og_kbase_version){OG_KBASE_JM, v.major, v.minor};
		if (v.major != OG_KBASE_JM_MAJOR) {
			OG_KBASE_LOG(d, "mali: %s speaks JM UK %u.%u; opengpa reads JM drivers of UK "
			                "11.x (DDK r21 or later)", d->path, v.major, v.minor);
			return GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED;
		}
		return GPA_STATUS_OK;
	}
	if (errno == ENODEV || errno == ENXIO || errno == EIO)
		return og_kbase_gone(d, "VERSION_CHECK", errno);
	struct og_kbase_version_check c = {0, 0};
	if (og_kbase_ioctl(d, d->fd, OG_KBASE_VERSION_CHECK_CSF, &c) >= 0 && (c.major || c.minor)) {
		d->version = (struct og_kbase_version){OG_KBASE_CSF, c.major, c.minor};
		if (c.major != OG_KBASE_CSF_MAJOR) {
			OG_KBASE_LOG(d, "mali: %s speaks CSF UK %u.%u; opengpa reads CSF drivers of UK "
			                "1.x", d->path, c.major, c.minor);
			return GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED;
		}
		return GPA_STATUS_OK;
	}
	struct og_kbase_uk_version_check u = {0, 0, 0, 0};
	if (og_kbase_ioctl(d, d->fd, OG_KBASE_UK_VERSION_CHECK, &u) >= 0 && (u.major || u.minor)) {
		OG_KBASE_LOG(d, "mali: %s is a pre-r21 kbase driver (legacy UK %u.%u ioctls); opengpa "
		                "speaks the r21+ ioctl interface only: update the DDK to r21 or later",
		             d->path, u.major, u.minor);
		return GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED;
	}
	OG_KBASE_LOG(d, "mali: %s answered no VERSION_CHECK (JM, CSF or legacy UK); it is not an "
	                "Arm kbase device, pass device=PATH to the right node", d->path);
	return GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED;
}

static GPA_Status set_flags(struct og_kbase_dev *d)
{
	struct og_kbase_set_flags f = {OG_KBASE_CTX_SYSTEM_MONITOR};
	if (og_kbase_ioctl(d, d->fd, OG_KBASE_SET_FLAGS, &f) >= 0)
		return GPA_STATUS_OK;
	int e = errno;
	/* EPERM: the context was already set up (the flags then stay as they
	 * were, which is harmless for counting); EINVAL: an old driver without
	 * the system-monitor flag. */
	if (e != EPERM && e != EINVAL) {
		if (og_kbase_errno_gone(e))
			return og_kbase_gone(d, "SET_FLAGS", e);
		OG_KBASE_LOG(d, "mali: SET_FLAGS on %s failed: %s; the driver refused a counters-only "
		                "context", d->path, strerror(e));
		return GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED;
	}
	OG_KBASE_SAY(d, "mali: SET_FLAGS on %s: %s (ignored)", d->path, strerror(e));
	return GPA_STATUS_OK;
}

static GPA_Status read_props(struct og_kbase_dev *d)
{
	struct og_kbase_get_gpuprops q = {0, 0, 0};
	int need = og_kbase_ioctl(d, d->fd, OG_KBASE_GET_GPUPROPS, &q);
	if (need <= 0 || (unsigned)need > MAX_PROPS_BYTES) {
		if (need < 0 && og_kbase_errno_gone(errno))
			return og_kbase_gone(d, "GET_GPUPROPS", errno);
		OG_KBASE_LOG(d, "mali: GET_GPUPROPS size query on %s gave %d (%s); expected 1..%u "
		                "bytes, the driver is not usable", d->path, need,
		             need < 0 ? strerror(errno) : "no error", MAX_PROPS_BYTES);
		return GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED;
	}
	uint8_t *blob = calloc(1, (size_t)need);
	if (!blob) {
		OG_KBASE_LOG(d, "mali: out of memory for %d bytes of GPU properties", need);
		return GPA_STATUS_ERROR_FAILED;
	}
	q.buffer = (uint64_t)(uintptr_t)blob;
	q.size = (uint32_t)need;
	int got = og_kbase_ioctl(d, d->fd, OG_KBASE_GET_GPUPROPS, &q);
	if (got <= 0 || got > need) {
		int e = errno;
		free(blob);
		if (got < 0 && og_kbase_errno_gone(e))
			return og_kbase_gone(d, "GET_GPUPROPS", e);
		OG_KBASE_LOG(d, "mali: GET_GPUPROPS on %s returned %d for a %d-byte buffer (%s); "
		                "refusing a property blob of the wrong size", d->path, got, need,
		             got < 0 ? strerror(e) : "no error");
		return GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED;
	}
	const char *why;
	bool ok = og_mali_decode_props(blob, (size_t)got, &d->gpu, &why);
	free(blob);
	if (!ok) {
		OG_KBASE_LOG(d, "mali: cannot decode the GPU properties of %s: %s; report the driver "
		                "version", d->path, why);
		return GPA_STATUS_ERROR_DRIVER_NOT_SUPPORTED;
	}
	int frontend = d->version.kind == OG_KBASE_CSF ? OG_MALI_FRONTEND_CSF : OG_MALI_FRONTEND_JM;
	return og_mali_check_gpu(&d->host, "mali", &d->gpu, frontend);
}

/* The firmware version and its counter size, for the open's log line
 * alone: asked only when that line is read (kbase.c), as counting needs
 * none of it.  A failure is not fatal. */
static void read_glb_iface(struct og_kbase_dev *d)
{
	union og_kbase_cs_get_glb_iface g;
	memset(&g, 0, sizeof g);
	if (og_kbase_ioctl(d, d->fd, OG_KBASE_CS_GET_GLB_IFACE, &g) < 0) {
		OG_KBASE_SAY(d, "mali: CS_GET_GLB_IFACE on %s: %s (firmware version unknown)", d->path,
		             strerror(errno));
		return;
	}
	d->fw_version = g.out.glb_version;
	d->fw_counter_bytes = g.out.prfcnt_size >> 16;
}

GPA_Status og_kbase_device_open(struct og_kbase_dev *d)
{
	d->fd = -1;
	GPA_Status st = open_node(d);
	if (st == GPA_STATUS_OK)
		st = check_version(d);
	if (st == GPA_STATUS_OK)
		st = set_flags(d);
	if (st == GPA_STATUS_OK)
		st = read_props(d);
	if (st == GPA_STATUS_OK && d->version.kind == OG_KBASE_CSF &&
	    og_mali_log_wanted(&d->host, OG_LOG_MESSAGE))
		read_glb_iface(d);
	if (st != GPA_STATUS_OK)
		og_kbase_device_close(d);
	return st;
}

void og_kbase_device_close(struct og_kbase_dev *d)
{
	og_sys_close_fd(d->host.sys, &d->fd);
}
