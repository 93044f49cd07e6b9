/* SPDX-License-Identifier: MIT */
/* vmali_internal.h — state shared by the virtual Mali's source files. */
#ifndef VMALI_INTERNAL_H
#define VMALI_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sys.h"
#include "vmali.h"
#include "vmali_abi.h"

#define VMALI_MAX_FDS 64
#define VMALI_MAX_L2 16u
#define VMALI_MAX_FRAMES 1024u

/* ---- workload (vmali_workload.c) ---- */
struct vmali_frame {
	double count, prims, lines, points, culled, clipped, satcull, verts_per_prim;
	double width, height, overdraw, ezs_test, ezs_kill, ezs_update, fpk_kill, occluder;
	double lzs_test, lzs_kill, partial, trans_elim, frag_instr, compute_warps, compute_instr;
	double diverged, tex, mip, compressed, tex3d, trilinear, tex_cpi, varying, vary16;
	double ls_reads, ls_writes, ls_partial, atomics, l2_miss, l2_wr_miss, latency;
	double fps, clock_mhz, serial;
};

struct vmali_script {
	struct vmali_frame *frames;
	unsigned n;
};

/* Where each block lives in a dump, as §4.1 orders them. */
struct vmali_geom {
	uint64_t core_mask;
	uint32_t l2_slices;
	uint32_t sc_blocks; /* fls64(core_mask) */
	uint32_t nblocks;   /* 2 + l2_slices + sc_blocks */
	uint32_t bus_bytes;
};

int vmali_script_parse(const char *text, struct vmali_script *out, char *err, size_t err_len);
void vmali_script_free(struct vmali_script *s);
/* Adds one frame's counts to blocks[nblocks * 64]; returns its clock cycles. */
uint64_t vmali_frame_run(const struct vmali_frame *f, const struct vmali_geom *g,
                         uint64_t *blocks);

/* ---- objects behind fds ---- */
enum vmali_kind { VMALI_FD_FREE, VMALI_FD_KBASE, VMALI_FD_READER, VMALI_FD_PANFROST };

struct vmali_reader {
	uint32_t buffer_count, buffer_size;
	uint32_t bm[4]; /* fe, shader, tiler, mmu_l2 — as the setup struct orders them */
	uint8_t *ring;  /* device-side RW view of the memfd */
	size_t ring_len;
	uint64_t write_idx, meta_idx, read_idx;
	struct vmali_reader_metadata *meta; /* one per buffer */
	uint64_t *acc;  /* nblocks * 64 counts since this client's previous sample */
	uint64_t acc_cycles;
	uint32_t interval_ns;
	uint64_t next_due_ns;
};

struct vmali_kbase_ctx {
	bool version_done, flags_done;
};

struct vmali_fd {
	int fd;
	enum vmali_kind kind;
	union {
		struct vmali_kbase_ctx kbase;
		struct vmali_reader *reader;
	} u;
};

struct vmali {
	pthread_mutex_t lock;
	struct vmali_config cfg; /* defaults applied; workload points at script_text */
	char *script_text;
	struct vmali_script script;
	struct vmali_geom geom;
	struct vmali_faults faults;
	struct vmali_stats stats;
	struct og_sys sys;
	unsigned next_frame;
	uint64_t frame_rep; /* repetitions of next_frame already run */
	uint64_t frames_run;
	uint64_t *totals; /* nblocks * 64 */
	uint64_t total_cycles;
	uint64_t *frame_buf; /* scratch for one frame */
	/* panfrost counters: owned by at most one file */
	int pf_owner_fd;
	uint32_t pf_counterset;
	uint64_t *pf_acc;
	struct vmali_fd fds[VMALI_MAX_FDS];
};

/* vmali_device.c */
struct vmali_fd *vmali_fd_lookup(struct vmali *vm, int fd);
int vmali_fd_new(struct vmali *vm, enum vmali_kind kind, size_t memfd_size);
void vmali_fd_release(struct vmali *vm, struct vmali_fd *f);
/* Run frames and distribute their counts to every counting client. */
void vmali_advance_locked(struct vmali *vm, unsigned frames);
/* The dump path's frame advance (honours manual_frames / frames_per_dump). */
void vmali_advance_for_dump(struct vmali *vm);
uint64_t vmali_now_ns(void);
/* Copy counts into one dump image (u32, saturating), masking by the
 * per-block-type enable bitmasks (NULL = all) and writing headers. */
void vmali_write_dump(const struct vmali *vm, const uint64_t *counts, const uint32_t *bm,
                      uint32_t *out);
/* Index into the reader's bitmasks: 0 fe, 1 shader, 2 tiler, 3 mmu/l2. */
uint32_t vmali_block_type_of(const struct vmali_geom *g, uint32_t block);
bool vmali_block_present(const struct vmali_geom *g, uint32_t block);

/* raw syscalls that bypass the LD_PRELOAD interposer */
int vmali_os_close(int fd);
void *vmali_os_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
int vmali_os_munmap(void *addr, size_t len);

/* vmali_kbase.c / vmali_props.c */
int vmali_kbase_ioctl(struct vmali *vm, struct vmali_fd *f, unsigned long req, void *arg);
size_t vmali_props_build(const struct vmali *vm, uint8_t *buf, size_t len);
uint32_t vmali_gpu_id_raw(const struct vmali *vm);
uint32_t vmali_l2_features(const struct vmali *vm);
uint32_t vmali_mem_features(const struct vmali *vm);

/* vmali_reader.c */
int vmali_reader_setup(struct vmali *vm, const struct vmali_kbase_hwcnt_reader_setup *s);
int vmali_reader_ioctl(struct vmali *vm, struct vmali_fd *f, unsigned long req, void *arg);
void vmali_reader_free(struct vmali_reader *r);
/* Emit the periodic samples due up to `limit`; returns the next due time or 0. */
uint64_t vmali_reader_catch_up(struct vmali *vm, struct vmali_reader *r, uint64_t limit);
bool vmali_reader_ready(const struct vmali_reader *r);
bool vmali_features_supported(const struct vmali *vm);

/* vmali_panfrost.c */
int vmali_panfrost_ioctl(struct vmali *vm, struct vmali_fd *f, unsigned long req, void *arg);
void vmali_panfrost_release(struct vmali *vm, struct vmali_fd *f);

#endif
