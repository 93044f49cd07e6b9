/* SPDX-License-Identifier: MIT */
/*
 * procperf.h — the text of the SMTC /proc/perf file (MD00548 §4.2; the
 * vendor kernels' /proc/mips/perf is the same text).
 *
 * Reading gives eight lines, "PerfCnt[N].Ctl : 0x%08x" and
 * "PerfCnt[N].Cnt : %Lu" for N = 0..3 (control in hex, count in decimal).
 * Writing "num control value" programs counter num with the control word and
 * loads the count with value (-1 leaves the count alone on the kernels whose
 * source is public).
 */
#ifndef OPENGPA_BACKENDS_MIPS_PROCPERF_H
#define OPENGPA_BACKENDS_MIPS_PROCPERF_H

#include <stddef.h>
#include <stdint.h>

#include "events.h"

struct og_mips_snapshot {
	uint32_t ctl[OG_MIPS_COUNTERS];
	uint64_t cnt[OG_MIPS_COUNTERS];
};

/*
 * Parses the file's text (len bytes, need not be NUL-terminated).  Returns 0,
 * or -1 with why (a sentence naming the line) filled: every line must be one
 * of the eight forms above, each counter's Ctl and Cnt must appear exactly
 * once, values must fit their registers.  Blank lines are allowed.
 */
int og_mips_parse_text(const char *text, size_t len, struct og_mips_snapshot *out, char *why,
                       size_t whylen);

/* Formats one "num control value" line (value < 0 writes -1) into buf;
 * returns its length, or 0 when it does not fit. */
size_t og_mips_format_write(char *buf, size_t len, unsigned counter, uint32_t ctl, int64_t value);

#endif
