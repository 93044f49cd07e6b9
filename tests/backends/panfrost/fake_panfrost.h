/* SPDX-License-Identifier: MIT */
/*
 * fake_panfrost.h — scripted DRM render nodes behind an og_sys table for the
 * panfrost backend's unit tests: a foreign driver on renderD128, panfrost on
 * renderD129, and a switch per fault.  ioctl numbers are the reference's
 * literal values, not the backend's macros.
 */
#ifndef FAKE_PANFROST_H
#define FAKE_PANFROST_H

#include <stdbool.h>
#include <stdint.h>

#include "sys.h"

struct fake_panfrost_cfg {
	uint32_t product_id;
	uint64_t shader_present;
	uint32_t l2_slices;
	uint32_t bus_log2;
	bool no_panfrost;      /* only the foreign node exists */
	int open_errno;        /* every node fails to open with this */
	bool unstable_off;     /* PERFCNT_* answer ENOSYS */
	bool owned_elsewhere;  /* PERFCNT_ENABLE answers EBUSY */
	bool dump_timeout;     /* PERFCNT_DUMP answers ETIMEDOUT */
	int vanish_after_dumps;
	bool zero_dumps;
	bool eintr;            /* every other ioctl is interrupted once */
	bool signal_storm;     /* every ioctl is interrupted, however often it is retried */
};

struct fake_panfrost {
	struct fake_panfrost_cfg cfg;
	struct og_sys sys;
	int open_fds;
	bool enabled;
	int enables, disables;
	uint32_t dumps;
	bool vanished;
	unsigned long call_no;
};

void fake_panfrost_init(struct fake_panfrost *fp, const struct fake_panfrost_cfg *cfg);
struct fake_panfrost_cfg fake_panfrost_g71_mp4(void);
uint32_t fake_panfrost_word(const struct fake_panfrost *fp, uint32_t dump_no, uint32_t block,
                            uint32_t index);
uint64_t fake_panfrost_expected(const struct fake_panfrost *fp, uint32_t dump_no, uint32_t type,
                                uint32_t index);

#endif
