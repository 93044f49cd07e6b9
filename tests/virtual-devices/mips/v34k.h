/* SPDX-License-Identifier: MIT */
/*
 * v34k.h — a virtual MIPS 34K behind the SMTC /proc/perf text file.
 *
 * It speaks the interface of MD00548 §4.2 and the vendor kernels'
 * arch/mips/kernel/perf_proc.c: reading gives eight lines "PerfCnt[N].Ctl :
 * 0x%08x" / "PerfCnt[N].Cnt : %Lu"; writing "num control value" triples (up
 * to four per write) programs a control register and loads the count (-1
 * leaves it).  Counters are 32-bit registers; with `extension` the kernel
 * folds a register into a 64-bit software count whenever bit 31 is set and
 * the control word has IE, as the vendor module's interrupt handler does.
 * An event counts only on the bank Table 3 defines it for, only in the
 * modes (U/S/K/EXL) its control word enables, and only for the TC/VPE its
 * MT_EN field selects (processor-wide events ignore the filter).
 *
 * The workload model: v34k_run() executes `cycles` cycles of one thread in
 * one mode; every event's count is a fixed function of the cycles
 * (v34k_model_count) that keeps the hardware's invariants: instructions <=
 * cycles, misses <= accesses, each stall cause <= all stalls, IFU + ALU
 * stalls = all stalls.
 *
 * Two ways in: v34k_sys() is an og_sys table for the backend's host struct;
 * libopengpa-v34k.so interposes open/read/write/close for any program.
 */
#ifndef OPENGPA_V34K_H
#define OPENGPA_V34K_H

#include <stdbool.h>
#include <stdint.h>

struct og_sys;

struct v34k_config {
	bool extension;      /* kernel with the 64-bit counter range extension */
	bool read_only;      /* opening for write fails with EACCES (not root) */
	bool proc_perf;      /* serve /proc/perf */
	bool proc_mips_perf; /* serve /proc/mips/perf */
	double bogomips;     /* /proc/cpuinfo's BogoMIPS; 0 = no /proc/cpuinfo */
};

/* Mode of a stretch of work: the PerfCtl bit that counts it. */
enum v34k_mode { V34K_EXL = 1, V34K_KERNEL = 2, V34K_SUPERVISOR = 4, V34K_USER = 8 };

struct v34k;

/* NULL config: both paths, writable, no extension, BogoMIPS 500. */
struct v34k *v34k_new(const struct v34k_config *config);
void v34k_free(struct v34k *v);
struct og_sys *v34k_sys(struct v34k *v);

/* Runs `cycles` cycles of thread context tc (on VPE vpe) in `mode`. */
void v34k_run(struct v34k *v, uint64_t cycles, enum v34k_mode mode, unsigned vpe, unsigned tc);

/* What event `event` on `bank` (0 even, 1 odd) counts for `cycles` cycles of
 * work (one v34k_run call), or 0 for events the model does not drive. */
uint64_t v34k_model_count(uint64_t cycles, unsigned bank, unsigned event);

/* Registers, for tests. */
uint32_t v34k_ctl(const struct v34k *v, unsigned counter);
uint64_t v34k_count(const struct v34k *v, unsigned counter); /* as the file prints it */
void v34k_set_ctl(struct v34k *v, unsigned counter, uint32_t ctl);
void v34k_set_hw(struct v34k *v, unsigned counter, uint32_t value);

/* Fault injection: reads return `text` instead of the registers (NULL =
 * back to normal); the text is copied. */
void v34k_set_text(struct v34k *v, const char *text);
void v34k_set_read_only(struct v34k *v, bool read_only);
/* fstat reports `mode` (an st_mode, e.g. S_IFIFO) for the counter file
 * instead of a regular file (0 = back to S_IFREG | 0644). */
void v34k_set_file_mode(struct v34k *v, unsigned mode);
/* Number of writes the file accepted so far. */
unsigned v34k_writes(const struct v34k *v);

/* The registers as one line of text, and back: lets the LD_PRELOAD shim keep
 * one device across processes (echo > /proc/perf; cat /proc/perf). */
int v34k_state_format(const struct v34k *v, char *buf, unsigned long len);
bool v34k_state_parse(struct v34k *v, const char *text);

/* For the LD_PRELOAD shim: which virtual file is `path` (0 = none). */
int v34k_file_kind(const struct v34k *v, const char *path);
/* Opens a virtual file: returns a handle >= 0 or -errno. */
int v34k_open_handle(struct v34k *v, const char *path, int flags);
long v34k_read_handle(struct v34k *v, int handle, void *buf, unsigned long len);
long v34k_write_handle(struct v34k *v, int handle, const void *buf, unsigned long len);
int v34k_close_handle(struct v34k *v, int handle);
/* The st_mode fstat reports for an open handle (procfs: S_IFREG, size 0),
 * or 0 when the handle is not open. */
unsigned v34k_handle_mode(const struct v34k *v, int handle);

#endif
