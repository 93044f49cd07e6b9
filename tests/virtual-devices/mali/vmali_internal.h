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
#include "vmali_layouts.h"

#define VMALI_MAX_FDS 64
#define VMALI_MAX_L2 16u
#define VMALI_MAX_CSG 16u
#define VMALI_MAX_FRAMES 1024u
#define VMALI_BLOCK_TYPES 6u
#define VMALI_MAX_VALUES 128u

/* ---- the GPU table (vmali_gpus.c) ---- */
struct vmali_product {
	uint16_t id;
	const char *name;
	const char *layout; /* counter set: "mali-g710" */
	bool csf;
	uint8_t values;     /* per block, header included */
};
const struct vmali_product *vmali_product_find(uint32_t id);
const struct vmali_product *vmali_products(size_t *n);
const struct vmali_layout *vmali_layout_find(const char *key);

/* ---- workload (vmali_workload.c) ---- */
struct vmali_frame {
	double count, prims, lines, points, culled, clipped, satcull, scissor, verts_per_prim;
	double width, height, overdraw, ezs_test, ezs_kill, ezs_update, fpk_kill, occluder;
	double lzs_test, lzs_kill, partial, trans_elim, frag_instr, compute_warps, compute_instr;
	double diverged, tex, mip, compressed, tex3d, trilinear, tex_cpi, varying, vary16;
	double ls_reads, ls_writes, ls_partial, atomics, l2_miss, l2_wr_miss, latency;
	double rays, prepass, fps, clock_mhz, serial;
	double imbalance, slice_imbalance; /* per-core / per-slice spread (vmali_workload.c) */
};

struct vmali_script {
	struct vmali_frame *frames;
	unsigned n;
};

/* Where each block lives.  Blocks are kept in the order the kernel's
 * counter metadata lists them (firmware, command stream groups, front end,
 * tiler, memory system per L2 slice, one shader core per bit of the core
 * mask up to the highest, holes included), `values` 64-bit values each. */
struct vmali_geom {
	uint64_t core_mask;
	uint32_t l2_slices;
	uint32_t sc_blocks; /* fls64(core_mask) */
	uint32_t values;    /* per block: 64 or 128 */
	uint32_t first[VMALI_BLOCK_TYPES], count[VMALI_BLOCK_TYPES];
	uint32_t nblocks;
	uint32_t bus_bytes;
	uint32_t clock_domains;
};

/* For each counter of the layout, what the model puts there. */
struct vmali_plan_entry {
	uint8_t block, index, shift;
	int16_t slot;      /* the model's quantity, or -1: a share of the block's busy cycles */
	uint16_t permille; /* that share, for counters the model has no rule for */
};

struct vmali_model {
	struct vmali_layout_consts k;
	struct vmali_plan_entry *plan;
	size_t n;
	size_t unmodelled; /* layout counters filled by the fallback share */
	bool scissor_counted; /* the tiler has PRIM_SCISSOR_CULLED of its own */
};

int vmali_script_parse(const char *text, struct vmali_script *out, char *err, size_t err_len);
void vmali_script_free(struct vmali_script *s);
/* Maps every layout counter to a model quantity; -1 (err) for a counter at
 * an index the block does not have. */
int vmali_model_init(struct vmali_model *m, const struct vmali_layout *l,
                     const struct vmali_geom *g, char *err, size_t err_len);
void vmali_model_free(struct vmali_model *m);
/* Adds one frame's counts to blocks[nblocks * values]; returns its GPU clock
 * cycles and, in cycles_sc, the shader-core clock's. */
uint64_t vmali_frame_run(const struct vmali_frame *f, const struct vmali_geom *g,
                         const struct vmali_model *m, uint64_t *blocks, uint64_t *cycles_sc);

/* ---- objects behind fds ---- */
enum vmali_kind { VMALI_FD_FREE, VMALI_FD_KBASE, VMALI_FD_READER, VMALI_FD_KINSTR,
	          VMALI_FD_PANFROST };

/* What every counting client keeps: counts since its previous sample. */
struct vmali_acc {
	uint64_t *v;          /* nblocks * values */
	uint64_t cycles[2];   /* GPU, shader-core clock */
};

struct vmali_reader {
	uint32_t buffer_count, buffer_size;
	uint32_t bm[4]; /* fe, shader, tiler, mmu_l2 — as the setup struct orders them */
	uint8_t *ring;  /* device-side RW view of the memfd */
	size_t ring_len;
	uint64_t write_idx, meta_idx, read_idx;
	struct vmali_reader_metadata *meta; /* one per buffer */
	struct vmali_acc acc;
	uint32_t interval_ns;
	uint64_t next_due_ns;
};

#define VMALI_KINSTR_BUFFERS 32u

struct vmali_kinstr {
	uint8_t mode;
	uint64_t period_ns;
	uint8_t set;
	uint32_t enabled;                      /* bit per block type */
	uint64_t mask[VMALI_BLOCK_TYPES][2];   /* enable maps as requested */
	uint8_t *ring;                         /* device-side RW view of the memfd */
	size_t ring_len, sample_size, meta_bytes, dump_bytes;
	uint32_t nmeta_blocks;                 /* BLOCK items per sample */
	uint64_t write_seq, fetch_seq, read_seq;
	bool discard_on_put;
	bool started;
	uint64_t start_user_data;
	uint64_t last_ts;                      /* where the next sample starts */
	uint64_t next_due_ns;                  /* periodic */
	bool overflowed;                       /* a periodic sample was skipped */
	uint64_t async_due_ns;                 /* a SAMPLE_ASYNC in flight (early drivers) */
	uint64_t async_user_data;
	uint64_t lost_user_data[VMALI_KINSTR_BUFFERS]; /* requests held back by a fault */
	uint32_t nlost;
	struct vmali_acc acc;
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
		struct vmali_kinstr *kinstr;
	} u;
};

struct vmali {
	pthread_mutex_t lock;
	struct vmali_config cfg; /* defaults applied; workload points at script_text */
	const struct vmali_product *product;
	const struct vmali_layout *layout;
	struct vmali_model model;
	char *script_text;
	struct vmali_script script;
	struct vmali_geom geom;
	struct vmali_faults faults;
	struct vmali_stats stats;
	struct og_sys sys;
	unsigned next_frame;
	uint64_t frame_rep; /* repetitions of next_frame already run */
	uint64_t frames_run;
	uint64_t *totals; /* nblocks * values */
	uint64_t total_cycles, total_sc_cycles;
	uint64_t *frame_buf; /* scratch for one frame */
	uint64_t ioctl_calls; /* for the every-other-call EINTR fault */
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
size_t vmali_counts_len(const struct vmali *vm); /* nblocks * values */
int vmali_acc_init(const struct vmali *vm, struct vmali_acc *a);
void vmali_acc_clear(const struct vmali *vm, struct vmali_acc *a);
/* The v5 dump image of vinstr and panfrost: front end, tiler, L2 slices,
 * core slots, 64 u32 words each (the first 64 values of longer blocks,
 * saturated), masked by the per-block-type enable bitmasks (NULL = all). */
void vmali_write_dump(const struct vmali *vm, const uint64_t *counts, const uint32_t *bm,
                      uint32_t *out);
uint32_t vmali_v5_blocks(const struct vmali *vm);
/* Type (VMALI_BLOCK_*) and instance of block b in metadata order. */
uint32_t vmali_block_type(const struct vmali_geom *g, uint32_t b, uint32_t *instance);
bool vmali_block_present(const struct vmali_geom *g, uint32_t b);

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
bool vmali_uk_at_least(const struct vmali_config *c, uint16_t jm_minor, uint16_t csf_minor);

/* vmali_reader.c */
int vmali_reader_setup(struct vmali *vm, const struct vmali_kbase_hwcnt_reader_setup *s);
int vmali_reader_ioctl(struct vmali *vm, struct vmali_fd *f, unsigned long req, void *arg);
void vmali_reader_free(struct vmali_reader *r);
/* Emit the periodic samples due up to `limit`; returns the next due time or 0. */
uint64_t vmali_reader_catch_up(struct vmali *vm, struct vmali_reader *r, uint64_t limit);
bool vmali_reader_ready(const struct vmali_reader *r);
bool vmali_features_supported(const struct vmali *vm);

/* vmali_kinstr.c */
int vmali_kinstr_enum_info(struct vmali *vm, void *arg);
int vmali_kinstr_setup(struct vmali *vm, void *arg);
int vmali_kinstr_ioctl(struct vmali *vm, struct vmali_fd *f, unsigned long req, void *arg);
void vmali_kinstr_free(struct vmali_kinstr *k);
/* Periodic and asynchronous samples due up to `limit`; returns the next due
 * time or 0. */
uint64_t vmali_kinstr_catch_up(struct vmali *vm, struct vmali_kinstr *k, uint64_t limit);
bool vmali_kinstr_ready(const struct vmali_kinstr *k);

/* vmali_panfrost.c */
int vmali_panfrost_ioctl(struct vmali *vm, struct vmali_fd *f, unsigned long req, void *arg);
void vmali_panfrost_release(struct vmali *vm, struct vmali_fd *f);

#endif
