/* SPDX-License-Identifier: MIT */
/* vmali_testlib.h — for tests on the virtual Mali: a raw kbase/reader client
 * written from the reference, talking through the device's og_sys table
 * (tl_*), and the rig the kbase and panfrost backends' tests share
 * (tl_rig_*: a device, a backend opened on it, its log captured). */
#ifndef VMALI_TESTLIB_H
#define VMALI_TESTLIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend.h"
#include "sys.h"
#include "vmali.h"
#include "vmali_abi.h"

struct tl_props {
	uint32_t product_id, raw_gpu_id, l2_slices, l2_features, mem_features, num_core_groups;
	uint64_t shader_present, group_mask[16];
	unsigned unknown_ids; /* ids the decoder skipped */
	size_t bytes;
};

struct tl_reader {
	int fd;
	uint32_t count, size;
	const uint8_t *ring;
};

/* open + VERSION_CHECK + SET_FLAGS(0x2); returns the fd or -1. */
int tl_open_kbase(const struct og_sys *sys);
/* GET_GPUPROPS twice (size query, then fill) and decode; 0 or -errno. */
int tl_get_props(const struct og_sys *sys, int fd, struct tl_props *p);
/* HWCNT_READER_SETUP (bm NULL = everything), GET_BUFFER_SIZE, mmap. */
int tl_reader_open(const struct og_sys *sys, int kfd, uint32_t count, const uint32_t bm[4],
                   struct tl_reader *r);
void tl_reader_close(const struct og_sys *sys, struct tl_reader *r);
/* ioctl returning -errno on failure, the result otherwise. */
int tl_ioctl(const struct og_sys *sys, int fd, unsigned long req, void *arg);
/* DUMP then GET_BUFFER_WITH_CYCLES; returns the sample's u32 words (valid
 * until PUT) and fills meta; NULL on failure. */
const uint32_t *tl_dump_get(const struct og_sys *sys, struct tl_reader *r,
                            struct vmali_reader_metadata *meta);
int tl_put(const struct og_sys *sys, struct tl_reader *r, struct vmali_reader_metadata *meta);

/* Sum of counter `index` over the dump's blocks of one kind. */
uint64_t tl_sum(const uint32_t *dump, uint32_t l2_slices, uint64_t core_mask,
                enum vmali_block block, unsigned index);

/* ---- a backend on the device (cmocka assertions inside) ---- */

struct tl_rig {
	const struct og_backend_ops *ops;
	struct vmali *vm;
	struct og_backend_host host;
	void *state; /* NULL unless open succeeded */
	struct og_device_info info;
	int errors;  /* error lines logged */
	bool newline; /* some line held a '\n' (log lines must not) */
	char last_error[512];
	char log[8192]; /* every line, '|'-separated */
};

/* Every counter word 4..63 of every block type. */
#define TL_NRAW (4 * 60)

/* A Mali-G71 with this core mask and slice count, a 128-bit bus, frames run
 * only by vmali_run_frames() and the panfrost unstable ioctls on. */
struct vmali_config tl_g71(uint64_t mask, uint32_t slices);
/* Creates the device, sets faults (NULL = none) and opens ops on it with
 * options; returns what open returned. */
GPA_Status tl_rig_open(struct tl_rig *r, const struct og_backend_ops *ops,
                       const struct vmali_config *cfg, const struct vmali_faults *faults,
                       const char *options);
/* Closes the backend if open, checks no device fd is left open and no log
 * line had a newline, destroys the device. */
void tl_rig_done(struct tl_rig *r);
/* Binds "JM:4".."SC:63" (ids[TL_NRAW], block-major). */
void tl_rig_bind_all(struct tl_rig *r, uint32_t *ids);
/* One pass of `samples` samples of `frames` frames each, frames also run
 * before and between them; every raw counter of every sample must equal
 * what the device counted during that sample. */
void tl_rig_check_samples(struct tl_rig *r, unsigned frames, int samples);

/* Binds every source BLOCK:INDEX of the notation (FE, TILER, L2, SC, FW,
 * CSG; 4..127) and checks which the backend offers: with kinstr_prfcnt,
 * every index below the GPU's values of each block type the device has;
 * otherwise (vinstr, panfrost) indices below 64 of FE to SC.  Then one
 * pass of `samples` samples of `frames` frames: every offered counter must
 * equal what the device counted during its sample.  Returns the number of
 * counters offered. */
size_t tl_rig_check_every_counter(struct tl_rig *r, bool kinstr, unsigned frames, int samples);

/* On an opened rig: a dump that never arrives fails that sample with a log
 * line containing `needle`, and the next sample of the same pass counts
 * raw counter `source` (block/index on the device) exactly. */
void tl_rig_check_lost_dump(struct tl_rig *r, const char *source, enum vmali_block block,
                            unsigned index, const char *needle);

#endif
