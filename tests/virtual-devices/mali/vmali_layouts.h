/* SPDX-License-Identifier: MIT */
/* vmali_layouts.h — the counter layouts the virtual Mali fills, generated at
 * build time from counters/mali-*.counters by gen_vmali_layouts.py. */
#ifndef VMALI_LAYOUTS_H
#define VMALI_LAYOUTS_H

#include <stddef.h>
#include <stdint.h>

struct vmali_layout_counter {
	uint8_t block; /* 0 front end, 1 tiler, 2 memory system, 3 shader core, 4 FW, 5 CSG */
	uint8_t index; /* value index inside the block */
	uint8_t shift; /* the hardware counts in units of 1 << shift */
	const char *name; /* Arm's hardware name: GPU_ACTIVE, FRAG_WARPS... */
};

/* Constants of the layout's counter set the workload model needs. */
struct vmali_layout_consts {
	double warp_size;  /* threads per warp */
	double task_size;  /* pixels per side of a fragment task */
	double tile_size;  /* pixels per side of a tile */
	double geom_task;  /* vertices per position/varying shading request */
	double var_slots;  /* varying slots issued per cycle */
};

struct vmali_layout {
	const char *key; /* "mali-g710": the counter set */
	const struct vmali_layout_counter *counters;
	size_t n;
	struct vmali_layout_consts k;
};

extern const struct vmali_layout vmali_layouts[];
extern const size_t vmali_layout_count;

#endif
