/* SPDX-License-Identifier: MIT */
/*
 * kbase_internal.h — what the files of the `mali` backend share: the open
 * kbase device (kbase_device.c), the policy that picks a counter interface
 * from the driver's version (kbase_interface.c), and the two readers behind
 * one small interface, vinstr (kbase_vinstr.c) and kinstr_prfcnt
 * (kbase_kinstr.c).  kbase.c is the backend's vtable over them.
 */
#ifndef OPENGPA_MALI_KBASE_INTERNAL_H
#define OPENGPA_MALI_KBASE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "mali_common.h"
#include "sys_calls.h"

/* ---- driver versions and the interface they offer (kbase_interface.c) ---- */

enum og_kbase_kind { OG_KBASE_JM, OG_KBASE_CSF };

struct og_kbase_version {
	enum og_kbase_kind kind;
	uint16_t major, minor;
};

enum og_kbase_iface { OG_KBASE_IFACE_AUTO, OG_KBASE_IFACE_VINSTR, OG_KBASE_IFACE_KINSTR };

/* What a driver of this version offers (reference mali-kinstr-prfcnt.md
 * section 1.2): the vinstr reader until JM 11.40 / CSF 1.21, kinstr_prfcnt
 * from JM 11.34 / CSF 1.10, with the defects of its first releases (fixed
 * at JM 11.37 / CSF 1.17) and SAMPLE_ASYNC until then. */
struct og_kbase_offer {
	bool vinstr;
	bool kinstr;
	bool kinstr_early; /* 11.34-11.36 / 1.10-1.16: the workarounds apply */
};

void og_kbase_offer(const struct og_kbase_version *v, struct og_kbase_offer *out);

/* "JM UK 11.31" / "CSF UK 1.21". */
void og_kbase_version_text(const struct og_kbase_version *v, char *buf, size_t len);

/* Picks the interface for this driver and GPU: vinstr where the driver has
 * it, kinstr_prfcnt where it does not or where the GPU's blocks have more
 * values than vinstr carries (64).  `forced` (interface=) restricts the
 * choice.  Returns the interface with *why the reason for the log line, or
 * AUTO when none fits, with *why saying what the driver would need; with
 * len 0 nothing is written (an open that logs nothing asks no reason). */
enum og_kbase_iface og_kbase_choose(const struct og_kbase_version *v, uint32_t values_per_block,
                                    enum og_kbase_iface forced, char *why, size_t len);

const char *og_kbase_iface_name(enum og_kbase_iface iface);

/* ---- the device (kbase_device.c) ---- */

struct og_kbase_dev {
	struct og_backend_host host;
	char path[256];
	int fd;
	int timeout_ms;
	bool gone; /* the device went away: every later call fails fast */
	struct og_kbase_version version;
	struct og_mali_gpu gpu;
	/* CSF: the firmware's global interface (0 when the call failed). */
	uint32_t fw_version;
	uint32_t fw_counter_bytes;
	/* Blocks of each type the reader reads (set by its open), and the
	 * per-instance values the pass asks for (kbase.c), which the readers
	 * fill from each sample after summing it. */
	uint16_t instances[OG_MALI_BLOCK_TYPES];
	struct og_mali_picks picks;
};

/* open, VERSION_CHECK (JM, CSF, pre-r21), SET_FLAGS, GET_GPUPROPS, the GPU
 * table and, on CSF when the open's log line is read, CS_GET_GLB_IFACE.
 * Logs and returns the status. */
GPA_Status og_kbase_device_open(struct og_kbase_dev *d);
void og_kbase_device_close(struct og_kbase_dev *d);

/* ioctl with EINTR retried a bounded number of times. */
int og_kbase_ioctl(struct og_kbase_dev *d, int fd, unsigned long req, void *arg);
/* errno values that mean the driver or the device is no longer there. */
bool og_kbase_errno_gone(int e);
/* Marks the device gone, logs what failed; FAILED. */
GPA_Status og_kbase_gone(struct og_kbase_dev *d, const char *what, int e);
/* Waits up to timeout_ms (the device's, when negative) for fd to be
 * readable.  OK; FAILED (logged) when nothing came, when signals kept
 * interrupting, or when the device hung up.  `when` names the wait. */
GPA_Status og_kbase_wait(struct og_kbase_dev *d, int fd, int timeout_ms, const char *when);
/* Is a sample ready right now?  1 yes, 0 no, -1 hang-up / error (logged). */
int og_kbase_ready(struct og_kbase_dev *d, int fd);

#define OG_KBASE_LOG(d, ...) og_mali_log(&(d)->host, OG_LOG_ERROR, __VA_ARGS__)
#define OG_KBASE_SAY(d, ...) og_mali_log(&(d)->host, OG_LOG_MESSAGE, __VA_ARGS__)

/* ---- a counter reader ---- */

struct og_kbase_reader_ops {
	const char *name; /* "vinstr", "kinstr_prfcnt" */
	/* Sets the reader up with every counter of every block enabled, in
	 * manual mode.  *absent (not logged as an error) when the driver does
	 * not have this interface at all (ENOTTY and the like), so the caller
	 * can try the other one. */
	GPA_Status (*open)(struct og_kbase_dev *d, void **reader, bool *absent);
	void (*close)(void *reader);
	/* NULL when raw_id (a parsed source) can be counted; else why not. */
	const char *(*why_not)(void *reader, uint32_t raw_id);
	/* Writes the reader's own state why_not reads (beyond the device's
	 * GPU and instances) as bytes into buf, at most max; returns how
	 * many (kbase.c's answers_key). */
	size_t (*answers)(void *reader, uint8_t *buf, size_t max);
	/* Around a pass. */
	GPA_Status (*start)(void *reader);
	GPA_Status (*stop)(void *reader);
	/* begin_sample: a sample that only marks where counting starts;
	 * *end_raw gets its kernel timestamp (CLOCK_MONOTONIC_RAW ns). */
	GPA_Status (*mark)(void *reader, uint64_t *end_raw);
	/* end_sample: the counts since the previous sample, summed per block
	 * type, with the kernel's times of the sample in info. */
	GPA_Status (*sample)(void *reader, struct og_mali_totals *totals,
	                     struct og_mali_sample_info *info);

	/* Periodic sampling, inside a pass: the kernel takes a sample every
	 * period_ns (at most UINT32_MAX) into a ring of *ring samples, counting
	 * from *start_raw.  periodic_read never blocks: it hands out the
	 * samples in order with the kernel's times, and OG_MALI_SAMPLE_OVERFLOW
	 * on one that spans periods the ring had no room for (*got false when
	 * none is waiting).  periodic_stop stops the timer and has the kernel
	 * take a last sample up to now, which periodic_read then returns.
	 * Manual samples (mark/sample) are not available meanwhile. */
	uint64_t (*period_floor)(void *reader, const char **why);
	GPA_Status (*periodic_start)(void *reader, uint64_t period_ns, uint32_t *ring,
	                             uint64_t *start_raw);
	GPA_Status (*periodic_read)(void *reader, bool *got, struct og_mali_totals *totals,
	                            struct og_mali_sample_info *info);
	GPA_Status (*periodic_stop)(void *reader);

	/* One phrase for the backend's log line ("32 buffers of 2048 bytes"). */
	void (*describe)(void *reader, char *buf, size_t len);
};

extern const struct og_kbase_reader_ops og_kbase_vinstr;
extern const struct og_kbase_reader_ops og_kbase_kinstr;

#endif
