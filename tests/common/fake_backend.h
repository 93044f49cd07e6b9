/* SPDX-License-Identifier: MIT */
/*
 * fake_backend.h — a backend with no hardware behind it, for the core's
 * tests.  Raw counters are "slot:N" (N < FAKE_SLOTS).  What it counts is a
 * pure function of (slot, position of the sample in its pass, pass number)
 * so a test can predict every result; switches make it fail on purpose.
 */
#ifndef OPENGPA_TESTS_FAKE_BACKEND_H
#define OPENGPA_TESTS_FAKE_BACKEND_H

#include <stdbool.h>
#include <stdint.h>

#include "backend.h"

#define FAKE_SLOTS 64
#define FAKE_DEVICE_ID 0xFA4Eu
#define FAKE_REVISION 7u
#define FAKE_DESCRIPTION "Fake GPU MP3"
#define FAKE_SCALE 2.5 /* the constant "Scale" the backend provides */

/* Settings a test changes before GPA_OpenContext (or between sessions). */
struct fake_config {
	unsigned max_per_pass;      /* fits(): at most this many raws per pass */
	uint64_t exclusive;         /* bit N: slot N shares a pass with no other exclusive slot */
	uint64_t missing;           /* bit N: bind_raw says NOT_FOUND */
	bool fail_open;             /* open() gives HARDWARE_NOT_SUPPORTED */
	bool fail_begin_pass;       /* begin_pass() fails */
	bool fail_begin_sample;     /* begin_sample() fails */
	int fail_end_sample_pass;   /* with ..._ordinal: which end_sample fails (-1 = none) */
	int fail_end_sample_ordinal;
	/* An embedded counter set the device names, as real backends do.  Its
	 * raw counters get slots FAKE_BUILTIN_FIRST_SLOT, +1, ... in the order
	 * they are bound (the file's order), and every constant it asks for is
	 * FAKE_SCALE. */
	const char *builtin_set;
	/* fake_periodic_ops: the fake "kernel" times the samples (a ring of
	 * FAKE_RING); else the core's timer thread does, with next_sample. */
	bool kernel_timed;
	unsigned fail_end_sample_run; /* end_samples failing from the ordinal on; 0 = 1 */
	/* Added to every delta the fake reports (fake_value's stay as they
	 * are): values near 2^32 for the uint32 saturation checks. */
	uint64_t value_offset;
	/* end_sample of ordinal stall_ordinal - 1 (0: none) takes stall_ns,
	 * as a timer thread that wakes late or is preempted mid-read. */
	unsigned stall_ordinal;
	uint64_t stall_ns;
	/* sample_time(): the k-th end_sample since open (k from 0) gets the
	 * times {times[k][0], times[k][1]} with OG_SAMPLE_KERNEL_TIME, while k <
	 * ntimes; other samples keep the core's own times. */
	const uint64_t (*times)[2];
	unsigned ntimes;
};

#define FAKE_BUILTIN_FIRST_SLOT 40

/* Shared with the tests, which are single processes: set it, then open. */
extern struct fake_config fake_config;

/* What the fake saw; reset by open(). */
struct fake_stats {
	unsigned opens, closes;
	unsigned pass_seq; /* begin_pass calls since open: the pass number */
	unsigned begin_samples, end_samples;
	unsigned last_pass_n;
};
extern struct fake_stats fake_stats;

extern const struct og_backend_ops fake_backend_ops;

/* fake_backend_ops and the periodic hooks: period_floor (FAKE_PERIOD_FLOOR_NS),
 * next_sample (sample k+1 begins where k ends, values by ordinal as above),
 * and with fake_config.kernel_timed begin/read/end_periodic: sample k spans
 * [t0 + k*period, t0 + (k+1)*period) of CLOCK_MONOTONIC, a "kernel" ring
 * of FAKE_RING samples that merges the periods it had no room for into one
 * sample flagged OVERFLOW, and a last sample up to end_periodic. */
extern const struct og_backend_ops fake_periodic_ops;
#define FAKE_PERIOD_FLOOR_NS 500000u
#define FAKE_RING 4u

/* Defaults: 2 raws per pass, slots 10 and 11 exclusive, slot 20 missing. */
void fake_reset(void);

/* The delta slot `slot` reports for the `ordinal`-th sample (0-based) of
 * the `pass`-th begin_pass since open. */
uint64_t fake_value(uint32_t slot, uint32_t ordinal, uint32_t pass);

#endif
