/* SPDX-License-Identifier: MIT */
/*
 * vmali.h — a virtual Mali GPU that answers the real kernel interfaces.
 *
 * One struct vmali is one GPU — any product of Arm's database, Mali-G31 to
 * Mali G1, with a job-manager or command-stream (CSF) kbase driver of any
 * UK version — with two device nodes: the kbase node /dev/mali0 (version
 * checks, flags, properties blob, CSF's global interface, the hwcnt reader
 * "vinstr" and kinstr_prfcnt, each as a driver of that version has them,
 * with their fds and mmap rings) and the render node /dev/dri/renderD128:
 * panfrost (DRM version, GET_PARAM, PERFCNT_ENABLE/DUMP) for job-manager
 * GPUs, panthor (no counter ioctls) for CSF GPUs.  The counter layout of
 * each GPU comes from its counter file (counters/mali-*.counters).  Clients reach it either
 * through vmali_sys() (a struct og_sys for the backends' unit tests; a closed
 * world: paths and fds it does not own fail with ENOENT / EBADF) or through
 * libopengpa-vmali.so, the LD_PRELOAD interposer (see vmali_preload.c).
 *
 * Counts come from a workload script (see vmali_workload.c): a list of
 * frames, each describing primitives, pixels, quads and their fate, warps,
 * instructions, texture, load/store and ray-tracing traffic and memory
 * beats.  A frame is spread over the present shader cores and L2 slices,
 * turned into the hardware counters of the GPU's layout by name, and added
 * at once to every client that is counting.  The workload advances by frames_per_dump
 * frames (default 1) at every dump any client takes (a reader DUMP, a
 * periodic sample, a panfrost PERFCNT_DUMP) unless manual_frames is set, in
 * which case only vmali_run_frames() advances it.
 *
 * Every fd the device hands out is a real file descriptor (a memfd), so fd
 * numbers never collide with the process's own and mmap of a reader fd is a
 * real shared mapping of the ring.
 */
#ifndef VMALI_H
#define VMALI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct og_sys;
struct vmali;

#define VMALI_PATH_KBASE "/dev/mali0"
#define VMALI_PATH_PANFROST "/dev/dri/renderD128"

/* Which nodes exist (0 = both). */
#define VMALI_NODE_KBASE 1u
#define VMALI_NODE_PANFROST 2u

struct vmali_config {
	uint32_t gpu_id;          /* product id (GPU_ID >> 16); 0 = 0x6000 (Mali-G71), or
	                           * 0xa007 (Mali-G610) with csf */
	uint64_t core_mask;       /* shader_present; 0 = 0xFF (MP8); may be sparse */
	uint32_t l2_slices;       /* 0 = 1; at most 16 */
	uint32_t bus_width_bits;  /* power of two; 0 = 128 */
	uint16_t uk_major, uk_minor; /* driver UK version; 0.0 = 11.31 (JM) / 1.10 (CSF) */
	bool csf;                 /* answer the CSF VERSION_CHECK (nr 52) instead of JM (nr 0) */
	uint8_t clock_domains;    /* 0 = 1 (JM) or 2 (CSF); at most 4 */
	uint8_t csg_blocks;       /* CSF kinstr_prfcnt: CSG blocks; 0 = 2, VMALI_NONE = none */
	bool no_fw_block;         /* CSF: the firmware reports no counters (no FW block) */
	uint8_t counter_set;      /* the driver's compiled-in counter set; 0 = primary */
	bool neural_engine;       /* kinstr_prfcnt also lists a neural-engine block (type 6) */
	bool panfrost_unstable_ioctls; /* panfrost PERFCNT_* return ENOSYS unless set */
	const char *workload;     /* script text or NULL for the built-in one; copied */
	/* Additions beyond the brief's API. */
	uint32_t frames_per_dump; /* 0 = 1 */
	bool manual_frames;       /* dumps do not advance the workload */
	unsigned nodes;           /* VMALI_NODE_* mask; 0 = both */
};

/* Whether product `id` is in the device's GPU table, and its front end. */
bool vmali_product_csf(uint32_t id, bool *csf);

/* NULL with errno (EINVAL for a bad config or script; the reason is written
 * to err when err is not NULL). */
struct vmali *vmali_create_err(const struct vmali_config *cfg, char *err, size_t err_len);
struct vmali *vmali_create(const struct vmali_config *cfg);
/* Closes every fd the device still has open; mappings stay valid. */
void vmali_destroy(struct vmali *vm);

/* Syscall table over this device (ctx = vm).  Valid until vmali_destroy. */
const struct og_sys *vmali_sys(struct vmali *vm);

/* ---- workload ---- */
/* Run n scripted frames now (counted by every client counting). */
void vmali_run_frames(struct vmali *vm, unsigned n);
uint64_t vmali_frames_run(struct vmali *vm);

#define VMALI_NONE 0xFF

/* Block types, numbered as kinstr_prfcnt numbers them. */
enum vmali_block {
	VMALI_BLOCK_JM, /* the front end: job manager, or CSHW on CSF */
	VMALI_BLOCK_TILER,
	VMALI_BLOCK_L2,
	VMALI_BLOCK_SC,
	VMALI_BLOCK_FW,  /* CSF only */
	VMALI_BLOCK_CSG, /* CSF only */
};
#define VMALI_BLOCK_FE VMALI_BLOCK_JM

/* Everything the device has counted since it was created, for one counter
 * (index inside the block, below vmali_values_per_block(); header values
 * 0..3 are always 0).  instance: the L2 slice, the shader core's bit
 * position in core_mask, the CSG; VMALI_ALL sums every instance (L2 over
 * slices, SC over present cores), the way Arm's expressions expect.  Tests
 * snapshot it before and after. */
#define VMALI_ALL (-1)
uint64_t vmali_total(struct vmali *vm, enum vmali_block block, int instance, unsigned index);
/* GPU clock cycles elapsed over the frames run so far (>= GPU_ACTIVE), and
 * the shader-core clock's. */
uint64_t vmali_total_cycles(struct vmali *vm);
uint64_t vmali_total_sc_cycles(struct vmali *vm);
/* Values per counter block (64 or 128) and the value index the GPU's layout
 * gives hardware counter `name` in `block`, or -1. */
unsigned vmali_values_per_block(struct vmali *vm);
/* Instances of a block type (shader cores: slots up to the highest core). */
unsigned vmali_block_instances(struct vmali *vm, enum vmali_block block);
int vmali_counter_index(struct vmali *vm, enum vmali_block block, const char *name);
/* Counters of the GPU's layout the workload model has no rule for (filled
 * with a share of their block's busy cycles); 0 for every layout it knows. */
size_t vmali_unmodelled_counters(struct vmali *vm, const char **first_name);

/* ---- configuration actually in force (defaults applied) ---- */
void vmali_get_config(struct vmali *vm, struct vmali_config *out);
/* Bytes of one vinstr/panfrost dump: (2 + L2 slices + fls64(core_mask)) * 256. */
uint32_t vmali_dump_size(struct vmali *vm);

/* ---- fault switches ---- */
struct vmali_faults {
	uint32_t enomem_above_buffers; /* READER_SETUP with more buffers fails ENOMEM; 0 = off */
	bool dumps_never_arrive;       /* DUMP / periodic succeed, no sample appears (kinstr:
	                                * they arrive late, once the switch is off) */
	bool vanished;                 /* device unplugged: opens ENOENT, calls ENODEV, POLLHUP */
	int32_t buffer_size_skew;      /* GET_BUFFER_SIZE reports size + skew */
	bool open_eacces;              /* open() of either node fails EACCES */
	bool props_truncated;          /* GET_GPUPROPS fill returns 3 bytes less than it wrote */
	bool eintr;                    /* every other ioctl on a device fd fails EINTR */
	bool setup_ebusy;              /* READER_SETUP / KINSTR_PRFCNT_SETUP: EBUSY (another client) */
	bool vinstr_absent;            /* READER_SETUP answers ENOTTY whatever the version */
	bool kinstr_absent;            /* ENUM_INFO / SETUP answer ENOTTY whatever the version */
	uint32_t enum_item_size;       /* ENUM_INFO reports items of this size; 0 = 32 */
	bool enum_unknown_item;        /* ENUM_INFO lists an item of an unknown type */
	bool meta_unknown_item;        /* samples carry a metadata item of an unknown type */
	bool meta_bad_offset;          /* a BLOCK item's values point past the mapping */
	bool meta_foreign_block;       /* samples name a block type ENUM_INFO did not list */
	uint32_t sample_flags;         /* OR-ed into every kinstr_prfcnt sample's flags */
	bool overflow_unflagged;       /* kinstr_prfcnt: the sample after a full ring carries no
	                                * OVERFLOW (it is only longer than a period) */
	uint32_t stop_sample_flags;    /* OR-ed into the flags of STOP's implicit sample only
	                                * (ERROR: the disable failed; OVERFLOW: as after a full
	                                * ring, whatever the ring held) */
	bool cores_by_bit;             /* SC block_idx = core bit, whatever the version */
	/* Block states (kinstr_prfcnt, JM >= 11.41 / CSF >= 1.23; earlier drivers
	 * report 0 = unknown whatever these say): */
	uint64_t cores_powered_off;    /* shader cores (core_mask bits) reported OFF; they
	                                * count nothing while off (their counts are lost) */
	bool protected_mode;           /* every block reports PROTECTED instead of NORMAL */
	uint32_t block_state_xor;      /* XOR-ed into every block's state word (tests of a
	                                * broken state: unknown bits, both halves of a pair) */
};
void vmali_set_faults(struct vmali *vm, const struct vmali_faults *faults);

/* ---- for the LD_PRELOAD interposer (and curious tests) ---- */
/* True when path names one of this device's nodes. */
bool vmali_owns_path(struct vmali *vm, const char *path);
bool vmali_owns_fd(struct vmali *vm, int fd);
/* VMALI_NODE_KBASE / VMALI_NODE_PANFROST for an fd opened on that node, 0 for
 * reader fds and fds the device does not own. */
unsigned vmali_fd_node(struct vmali *vm, int fd);
/* poll readiness of one owned fd: revents for `events`; *wake_ns (if not
 * NULL) receives the CLOCK_MONOTONIC_RAW time a periodic sample is next due
 * for it, or 0 if nothing will arrive without another call. */
short vmali_fd_revents(struct vmali *vm, int fd, short events, uint64_t *wake_ns);
/* Counters of how clients behaved, for tests. */
struct vmali_stats {
	uint64_t dumps;            /* samples written into reader rings or panfrost buffers */
	uint64_t kinstr_lost;      /* kinstr samples held back by dumps_never_arrive */
	uint64_t periodic_dropped; /* periodic samples lost to a full ring */
	uint64_t poll_forever_empty; /* infinite polls that could never complete */
	uint32_t open_fds;
};
void vmali_get_stats(struct vmali *vm, struct vmali_stats *out);

/* The workload script a config without one uses. */
extern const char vmali_default_workload[];

#endif
