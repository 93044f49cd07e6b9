/* SPDX-License-Identifier: MIT */
/*
 * fps.h — the FPS prediction model of Yun et al., "A Practically Applicable
 * Performance Prediction Model Based on Capabilities of Texture Mapping
 * Units for Mobile GPUs", IEEE Access 7 (2019): equations (1) to (5), each
 * intermediate under the paper's own name.
 *
 *   (1) USI_Corrected = USI × 100 / GPUU       (and FPS_Corrected = FPS × 100 / GPUU)
 *   (2) USI_Frame     = USI_Corrected ÷ FPS_Corrected
 *   (3) GF_Frame      = USI_Frame ÷ USI_GFLOPS
 *   (4) EGPU          = USI_Corrected ÷ USI_Max
 *   (5) FPS           = GF_Device × (EGPU + ETMU) ÷ GF_Frame
 *
 * Units: instruction throughputs (USI, USI_Corrected, USI_Max) in
 * instructions per second, the paper's "G" being 1e9 of them; USI_Frame
 * in instructions per frame; USI_GFLOPS in instructions per second per
 * GFLOPS; GF_Device in GFLOPS; GF_Frame in GFLOP per frame; GPUU, EGPU and
 * ETMU in percent, as the paper prints them.
 *
 * Where the inputs come from on each backend, what opengpa does where the
 * paper is silent, and the model's limits: docs/models.md.
 */
#ifndef OPENGPA_MODELS_FPS_H
#define OPENGPA_MODELS_FPS_H

#include <stdbool.h>
#include <stddef.h>

/* The paper's USI throughput per GFLOPS, "approximately 0.5137G", measured
 * on Adreno GPUs in the authors' earlier work; models/devices.table
 * carries it (`constant usi-per-gflops`) so it can be changed as data. */
#define OG_FPS_PAPER_USI_PER_GFLOPS 0.5137e9

/* The equations, one by one.  Each takes and returns finite positive
 * numbers; og_fps_predict checks its inputs before it calls them. */
double og_fps_usi_corrected(double usi, double gpuu);                     /* (1) */
double og_fps_fps_corrected(double fps, double gpuu);                     /* (1) on FPS */
double og_fps_usi_frame(double usi_corrected, double fps_corrected);      /* (2) */
double og_fps_gf_frame(double usi_frame, double usi_per_gflops);          /* (3) */
double og_fps_egpu(double usi_corrected, double usi_max);                 /* (4), % */
double og_fps_predicted(double gf_device, double egpu, double etmu, double gf_frame); /* (5) */

/* What a profiler measured on the source device while the scene ran. */
struct og_fps_measured {
	double usi;  /* USI: shader instructions executed per second */
	double gpuu; /* GPUU: GPU utilisation, percent, in (0, 100] */
	double fps;  /* frames per second */
};

/* A device as the model needs it (devices.h makes one from a table entry). */
struct og_fps_device {
	double gflops;         /* GF_Device */
	double usi_max;        /* USI_Max: instructions per second at GPUU, SB, SALU 100 % */
	double usi_per_gflops; /* USI_GFLOPS */
};

/* Choices the paper leaves to whoever runs the model. */
struct og_fps_options {
	/* GF_Frame to use instead of the profile's own (> 0; 0: the profile's).
	 * The paper's Table 8 uses one GF_Frame per scene, the mean over its
	 * four devices. */
	double gf_frame;
	/* The target's EGPU, when it is known (it was measured there);
	 * otherwise the source's efficiency is carried over. */
	bool has_target_egpu;
	double target_egpu;
	/* ETMU: efficiency gained from the target's extra texture units, in
	 * percentage points (>= 0; the paper measured it, it gives no formula). */
	double etmu;
};

struct og_fps_result {
	double usi_corrected; /* (1) */
	double fps_corrected; /* (1) applied to FPS */
	double usi_frame;     /* (2) */
	double gf_frame;      /* (3), or the option's */
	bool gf_frame_given;
	double egpu_source;   /* (4) on the source device */
	double egpu;          /* the EGPU equation (5) uses: the target's if given, else egpu_source */
	bool egpu_given;
	double etmu;
	double fps;           /* (5): the predicted FPS at GPUU 100 % */
};

/*
 * The whole model: checks every input (finite; USI, FPS, device numbers
 * > 0; GPUU in (0, 100]; EGPU, ETMU >= 0) and fills *r.  Returns false
 * with one line in err naming the input at fault, and leaves *r zeroed:
 * nothing is computed from garbage.
 */
bool og_fps_predict(const struct og_fps_measured *m, const struct og_fps_device *source,
                    const struct og_fps_device *target, const struct og_fps_options *opt,
                    struct og_fps_result *r, char *err, size_t errlen);

#endif
