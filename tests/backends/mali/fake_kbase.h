/* SPDX-License-Identifier: MIT */
/*
 * fake_kbase.h — a small scripted /dev/mali0 behind an og_sys table, for the
 * kbase backend's unit tests: just enough of the kbase and hwcnt-reader
 * protocol to drive the backend, with a switch for every fault the tests
 * inject.  Written from the reference, independently of the backend's UAPI
 * header, so the two disagreeing on a number shows up as a test failure.
 */
#ifndef FAKE_KBASE_H
#define FAKE_KBASE_H

#include <stdbool.h>
#include <stdint.h>

#include "sys.h"

struct fake_kbase_cfg {
	uint32_t product_id;    /* 0x6000 = Mali-G71 */
	uint64_t core_mask;
	uint32_t l2_slices;
	uint32_t bus_log2;      /* log2 of the bus width in bits (7 = 128) */
	uint16_t jm_major, jm_minor;
	bool csf;               /* answers only the CSF version check */
	bool legacy;            /* answers only the pre-r21 UK version check */
	bool not_kbase;         /* answers no version check at all */
	uint32_t api_features;  /* reader feature bits */
	bool old_reader;        /* no WITH_FEATURES / WITH_CYCLES forms */
	int open_errno;         /* open of /dev/mali0 fails with this */
	uint32_t max_buffers;   /* setup fails ENOMEM above this count (0 = always) */
	bool setup_ebusy;
	bool eintr;             /* every other ioctl and poll fails with EINTR */
	bool poll_eintr_always; /* every poll fails with EINTR (a signal storm) */
	bool dumps_never_arrive;
	int vanish_after_dumps; /* >0: the device disappears after that many dumps */
	int32_t buffer_size_delta;
	uint32_t hwver;         /* 0 = 5 */
	bool zero_dumps;
	bool bad_buffer_idx;
	bool truncate_props;
};

struct fake_kbase {
	struct fake_kbase_cfg cfg;
	struct og_sys sys;
	/* observations */
	int open_fds;
	int mapped;
	uint32_t setup_counts[8];
	int setup_calls;
	uint32_t buffer_count;
	uint32_t flags_set;
	int clears;
	int dumps;         /* DUMP calls accepted */
	int pending;       /* dumps asked for that have not arrived */
	uint32_t last_dump_no; /* dump number of the last buffer handed out */
	int short_gets, long_gets;
	bool vanished;
	/* state */
	uint8_t *ring;
	size_t buffer_size;
	uint32_t write_idx, read_idx;
	bool held;
	uint32_t held_idx;
	uint32_t ring_dump_no[32];
	unsigned long call_no;
};

void fake_kbase_init(struct fake_kbase *fk, const struct fake_kbase_cfg *cfg);
void fake_kbase_fini(struct fake_kbase *fk);
struct fake_kbase_cfg fake_kbase_g71_mp8(void);

/* What a dump numbered dump_no holds in word `index` of block `block_no`
 * (dump order: 0 JM, 1 tiler, L2 slices, core slots). */
uint32_t fake_kbase_word(const struct fake_kbase *fk, uint32_t dump_no, uint32_t block_no,
                         uint32_t index);

/* The sum the backend should deliver: type 0 JM, 1 tiler, 2 L2, 3 SC. */
uint64_t fake_kbase_expected(const struct fake_kbase *fk, uint32_t dump_no, uint32_t type,
                             uint32_t index);

#endif
