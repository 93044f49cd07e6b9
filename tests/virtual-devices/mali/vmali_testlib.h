/* vmali_testlib.h — a raw kbase/reader client for the virtual Mali's tests,
 * written from the reference, talking through the device's og_sys table. */
#ifndef VMALI_TESTLIB_H
#define VMALI_TESTLIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

#endif
