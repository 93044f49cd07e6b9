#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write counters/adreno-a5xx.counters, adreno-a6xx and adreno-a7xx from the
countable tables in data/ (import.py) and the derived counters below, which
restate Mesa pps's formulas (src/freedreno/ds/fd_pps_driver.cc, MIT, (c) 2021
Google) as opengpa expressions.  Descriptions are opengpa's own.

Formula notation below: {GROUP.NAME} is the raw counter of that countable,
cb{GROUP.NAME} (a7xx) its BR plus its BV-pipe count (pps's cbSum), T the
sample's duration in seconds.  A name that is not in the generation's table
is an error, so an index typo cannot slip through.

usage: generate.py [--check]   (--check: write nothing, print the differences
                                and exit 1 if a file would change)
"""
import difflib
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

BLOCKS = {
    "CP": "command processor", "RBBM": "register backbone (GPU-wide busy/status)",
    "PC": "primitive controller", "VFD": "vertex fetch and decode", "HLSQ":
    "high-level sequencer", "VPC": "varying/position cache", "TSE": "triangle setup engine",
    "RAS": "rasterizer", "UCHE": "unified L2 cache", "TP": "texture pipe", "SP":
    "shader processor", "RB": "render backend", "VSC": "visibility stream compressor",
    "CCU": "color/depth cache unit", "LRZ": "low-resolution Z", "CMP":
    "compression/decompression", "UFC": "UBWC flag cache", "VBIF": "bus interface (GBIF on a7xx)",
}
BV = ["CP", "PC", "VFD", "VPC", "TP", "SP", "UFC", "TSE", "RAS", "LRZ", "HLSQ"]
T = "($AdrenoTimeNs / 1000000000)"

# name, group, usage, type, description, formula, note
A6 = [
    ("GPUFrequency", "GPU", "items", "float64", "GPU clock frequency in Hz: CP always-count "
     "cycles per second.", "{CP.PERF_CP_ALWAYS_COUNT} / T", None),
    ("GPUUtilization", "GPU", "percentage", "float64", "Share of the GPU's maximum clock the "
     "command processor was busy.", "100 * {CP.PERF_CP_BUSY_CYCLES} / T / AdrenoMaxFreqHz",
     "pps: percent(CP_BUSY_CYCLES / time, max_freq); pps gives 0 above 100 %, opengpa the "
     "ratio as is."),
    ("GPUBusyAtCurrentClock", "GPU", "percentage", "float64", "Share of the cycles counted at "
     "the current clock in which the GPU was busy (needs no maximum frequency).",
     "100 * {RBBM.PERF_RBBM_STATUS_MASKED} / {CP.PERF_CP_ALWAYS_COUNT}",
     "Not a pps counter: the reference sheet's inferred form (5.2)."),
    ("TPL1CacheMissesPerSecond", "Texture", "items", "float64", "Texture L1 cache-line "
     "misses per second.", "{TP.PERF_TP_L1_CACHELINE_MISSES} / T", None),
    ("ShaderCoreUtilization", "Shader", "percentage", "float64", "Share of the shader "
     "processors' capacity at maximum clock in which they were busy.",
     "100 * {SP.PERF_SP_BUSY_CYCLES} / T / (AdrenoMaxFreqHz * AdrenoSPCores)", None),
    ("TextureFetchStall", "Texture", "percentage", "float64", "Share of shader cycles stalled "
     "waiting for the texture pipe.",
     "100 * {SP.PERF_SP_STALL_CYCLES_TP} / T / (AdrenoMaxFreqHz * AdrenoSPCores)",
     "pps marks this a6xx formula '(?) TODO: verify'."),
    ("VertexFetchStall", "Geometry", "percentage", "float64", "Share of cycles the primitive "
     "controller stalled on vertex fetch.",
     "100 * {PC.PERF_PC_STALL_CYCLES_VFD} / T / (AdrenoMaxFreqHz * AdrenoSPCores)",
     "pps marks this a6xx formula '(?) TODO: verify'."),
    ("L1TextureCacheMissPerPixel", "Texture", "ratio", "float64", "Texture L1 misses per "
     "shaded fragment.", "{TP.PERF_TP_L1_CACHELINE_MISSES} / ({HLSQ.PERF_HLSQ_QUADS} * 4)",
     None),
    ("TextureL1Miss", "Texture", "percentage", "float64", "Share of texture L1 requests that "
     "missed.", "100 * {TP.PERF_TP_L1_CACHELINE_MISSES} / {TP.PERF_TP_L1_CACHELINE_REQUESTS}",
     None),
    ("TextureL2Miss", "Texture", "percentage", "float64", "Share of texture reads of the L2 "
     "that went to memory (two beats per request).",
     "100 * ({UCHE.PERF_UCHE_VBIF_READ_BEATS_TP} / 2) / {UCHE.PERF_UCHE_READ_REQUESTS_TP}",
     None),
    ("StalledOnSystemMemory", "Memory", "percentage", "float64", "Share of cycles the L2 "
     "arbiter stalled waiting for system memory.",
     "100 * {UCHE.PERF_UCHE_STALL_CYCLES_ARBITER} / T / (AdrenoMaxFreqHz * AdrenoSPCores)",
     "pps marks this a6xx formula '(?) TODO: verify'."),
    ("PreClippedPolygonsPerSecond", "Geometry", "items", "float64", "Primitives entering "
     "triangle setup per second.", "{TSE.PERF_TSE_INPUT_PRIM} / T", None),
    ("PrimsTriviallyRejected", "Geometry", "percentage", "float64", "Share of primitives "
     "rejected outright by triangle setup.",
     "100 * {TSE.PERF_TSE_TRIVAL_REJ_PRIM} / {TSE.PERF_TSE_INPUT_PRIM}", None),
    ("PrimsClipped", "Geometry", "percentage", "float64", "Share of primitives that needed "
     "clipping.", "100 * {TSE.PERF_TSE_CLIPPED_PRIM} / {TSE.PERF_TSE_INPUT_PRIM}", None),
    ("AverageVerticesPerPolygon", "Geometry", "ratio", "float64", "Vertex shader invocations "
     "per primitive.", "{PC.PERF_PC_VS_INVOCATIONS} / {TSE.PERF_TSE_INPUT_PRIM}", None),
    ("ReusedVerticesPerSecond", "Geometry", "items", "float64", "Vertices found in the post-"
     "transform cache per second.", "{PC.PERF_PC_VERTEX_HITS} / T", None),
    ("AveragePolygonArea", "Geometry", "ratio", "float64", "Shaded fragments per visible "
     "primitive.", "({HLSQ.PERF_HLSQ_QUADS} * 4) / {TSE.PERF_TSE_OUTPUT_VISIBLE_PRIM}", None),
    ("VerticesShadedPerSecond", "Shader", "items", "float64", "Vertex shader invocations per "
     "second.", "{PC.PERF_PC_VS_INVOCATIONS} / T", None),
    ("FragmentsShadedPerSecond", "Shader", "items", "float64", "Fragments shaded per second "
     "(four per quad).", "{HLSQ.PERF_HLSQ_QUADS} * 4 / T", None),
    ("VertexInstructionsPerSecond", "Shader", "items", "float64", "Vertex-stage ALU and EFU "
     "instructions per second.", "({SP.PERF_SP_VS_STAGE_FULL_ALU_INSTRUCTIONS} + "
     "{SP.PERF_SP_VS_STAGE_EFU_INSTRUCTIONS}) / T", None),
    ("FragmentInstructionsPerSecond", "Shader", "items", "float64", "Fragment-stage ALU "
     "(half precision counted as half) and EFU instructions per second.",
     "({SP.PERF_SP_FS_STAGE_FULL_ALU_INSTRUCTIONS} + "
     "{SP.PERF_SP_FS_STAGE_HALF_ALU_INSTRUCTIONS} / 2 + "
     "{SP.PERF_SP_FS_STAGE_EFU_INSTRUCTIONS}) / T", None),
    ("FragmentALUInstructionsFullPerSecond", "Shader", "items", "float64", "Full-precision "
     "fragment ALU instructions per second.",
     "{SP.PERF_SP_FS_STAGE_FULL_ALU_INSTRUCTIONS} / T", None),
    ("FragmentALUInstructionsHalfPerSecond", "Shader", "items", "float64", "Half-precision "
     "fragment ALU instructions per second.",
     "{SP.PERF_SP_FS_STAGE_HALF_ALU_INSTRUCTIONS} / T", None),
    ("FragmentEFUInstructionsPerSecond", "Shader", "items", "float64", "Fragment elementary-"
     "function (EFU) instructions per second.", "{SP.PERF_SP_FS_STAGE_EFU_INSTRUCTIONS} / T",
     None),
    ("TexturesPerVertex", "Texture", "ratio", "float64", "Vertex-stage texture instructions per "
     "vertex shaded.", "{SP.PERF_SP_VS_STAGE_TEX_INSTRUCTIONS} / {PC.PERF_PC_VS_INVOCATIONS}",
     None),
    ("TexturesPerFragment", "Texture", "ratio", "float64", "Texels out of the texture pipe per "
     "fragment shaded.", "{TP.PERF_TP_OUTPUT_PIXELS} / ({HLSQ.PERF_HLSQ_QUADS} * 4)", None),
    ("ALUPerVertex", "Shader", "ratio", "float64", "Vertex ALU instructions per vertex.",
     "{SP.PERF_SP_VS_STAGE_FULL_ALU_INSTRUCTIONS} / {PC.PERF_PC_VS_INVOCATIONS}", None),
    ("EFUPerVertex", "Shader", "ratio", "float64", "Vertex EFU instructions per vertex.",
     "{SP.PERF_SP_VS_STAGE_EFU_INSTRUCTIONS} / {PC.PERF_PC_VS_INVOCATIONS}", None),
    ("ALUPerFragment", "Shader", "ratio", "float64", "Fragment ALU instructions (half "
     "precision as half) per quad.", "({SP.PERF_SP_FS_STAGE_FULL_ALU_INSTRUCTIONS} + "
     "{SP.PERF_SP_FS_STAGE_HALF_ALU_INSTRUCTIONS} / 2) / {HLSQ.PERF_HLSQ_QUADS}",
     "pps divides by HLSQ_QUADS here, not by fragments (quads x 4)."),
    ("EFUPerFragment", "Shader", "ratio", "float64", "Fragment EFU instructions per quad.",
     "{SP.PERF_SP_FS_STAGE_EFU_INSTRUCTIONS} / {HLSQ.PERF_HLSQ_QUADS}", None),
    ("ShaderALUCapacityUtilized", "Shader", "percentage", "float64", "ALU instructions issued "
     "against the ALU capacity of the busy shader cycles (64 lanes assumed).",
     "100 * (({SP.PERF_SP_VS_STAGE_FULL_ALU_INSTRUCTIONS} + "
     "{SP.PERF_SP_FS_STAGE_FULL_ALU_INSTRUCTIONS} + "
     "{SP.PERF_SP_FS_STAGE_HALF_ALU_INSTRUCTIONS} / 2) / 64) / {SP.PERF_SP_BUSY_CYCLES}", None),
    ("TimeALUsWorking", "Shader", "percentage", "float64", "Share of busy shader cycles the "
     "ALUs worked.", "100 * ({SP.PERF_SP_ALU_WORKING_CYCLES} / 2) / {SP.PERF_SP_BUSY_CYCLES}",
     None),
    ("TimeEFUsWorking", "Shader", "percentage", "float64", "Share of busy shader cycles the "
     "EFUs worked.", "100 * ({SP.PERF_SP_EFU_WORKING_CYCLES} / 2) / {SP.PERF_SP_BUSY_CYCLES}",
     None),
    ("AnisotropicFiltered", "Texture", "percentage", "float64", "Share of texels filtered "
     "anisotropically.", "100 * {TP.PERF_TP_OUTPUT_PIXELS_ANISO} / {TP.PERF_TP_OUTPUT_PIXELS}",
     None),
    ("LinearFiltered", "Texture", "percentage", "float64", "Share of texels filtered "
     "bilinearly.", "100 * {TP.PERF_TP_OUTPUT_PIXELS_BILINEAR} / {TP.PERF_TP_OUTPUT_PIXELS}",
     None),
    ("NearestFiltered", "Texture", "percentage", "float64", "Share of texels point-sampled.",
     "100 * {TP.PERF_TP_OUTPUT_PIXELS_POINT} / {TP.PERF_TP_OUTPUT_PIXELS}", None),
    ("NonBaseLevelTextures", "Texture", "percentage", "float64", "Share of texels counted as "
     "zero-LOD by the texture pipe.",
     "100 * {TP.PERF_TP_OUTPUT_PIXELS_ZERO_LOD} / {TP.PERF_TP_OUTPUT_PIXELS}",
     "pps names this '% Non-Base Level Textures' over the ZERO_LOD countable; kept as is."),
    ("VertexMemoryReadBytesPerSecond", "Memory", "bytes", "float64", "Bytes of vertex data "
     "read from memory per second (32 bytes per beat).",
     "{UCHE.PERF_UCHE_VBIF_READ_BEATS_VFD} * 32 / T", "pps marks this '(?)'."),
    ("SPMemoryReadBytesPerSecond", "Memory", "bytes", "float64", "Bytes the shader processors "
     "read from memory per second.", "{UCHE.PERF_UCHE_VBIF_READ_BEATS_SP} * 32 / T", None),
    ("AvgBytesPerFragment", "Memory", "ratio", "float64", "Texture bytes read from memory per "
     "fragment.", "{UCHE.PERF_UCHE_VBIF_READ_BEATS_TP} * 32 / ({HLSQ.PERF_HLSQ_QUADS} * 4)",
     None),
    ("AvgBytesPerVertex", "Memory", "ratio", "float64", "Vertex bytes read from memory per "
     "vertex.", "{UCHE.PERF_UCHE_VBIF_READ_BEATS_VFD} * 32 / {PC.PERF_PC_VS_INVOCATIONS}", None),
    ("PreemptionsPerSecond", "GPU", "items", "float64", "Preemptions per second.",
     "{CP.PERF_CP_NUM_PREEMPTIONS} / T", None),
    ("LRZPixelKilled", "Depth", "percentage", "float64", "Share of pixels the low-resolution "
     "depth test discarded.", "100 * ({LRZ.PERF_LRZ_TOTAL_PIXEL} - "
     "{LRZ.PERF_LRZ_VISIBLE_PIXEL_AFTER_LRZ}) / {LRZ.PERF_LRZ_TOTAL_PIXEL}", None),
    ("LRZPrimitivesKilled", "Depth", "items", "uint64", "Primitives the low-resolution depth "
     "test discarded.", "{LRZ.PERF_LRZ_PRIM_KILLED_BY_LRZ}", None),
    ("LRZTilesKilled", "Depth", "items", "uint64", "Tiles the low-resolution depth test "
     "discarded.", "{LRZ.PERF_LRZ_TILE_KILLED}", None),
]

USPTP = "(2 * AdrenoSPCores)"
BUSY = "{RBBM.PERF_RBBM_STATUS_MASKED}"
A7 = [
    ("GPUFrequency", "GPU", "items", "float64", "GPU clock frequency in Hz: CP always-count "
     "cycles per second.", "{CP.PERF_CP_ALWAYS_COUNT} / T", None),
    ("GPUUtilization", "GPU", "percentage", "float64", "Share of the GPU's maximum clock in "
     "which it was busy (masked RBBM status).", "100 * " + BUSY + " / T / AdrenoMaxFreqHz",
     "pps leaves out the division by the period (right for 1-second periods only); opengpa "
     "divides by the sample's duration."),
    ("GPUBusyAtCurrentClock", "GPU", "percentage", "float64", "Share of the cycles counted at "
     "the current clock in which the GPU was busy.", "100 * " + BUSY +
     " / {CP.PERF_CP_ALWAYS_COUNT}", "Not a pps counter: the reference sheet's inferred form."),
    ("ShadersBusy", "Shader", "percentage", "float64", "Share of GPU-busy cycles the shader "
     "processors (all uSPTPs) were busy.", "100 * {SP.PERF_SP_BUSY_CYCLES} / (" + USPTP +
     " * " + BUSY + ")", "pps falls back to TP_BUSY_CYCLES when SP_BUSY_CYCLES is 0; not "
     "done here."),
    ("ShadersStalled", "Shader", "percentage", "float64", "Share of GPU-busy cycles the shader "
     "processors did not execute.", "100 * {SP.PERF_SP_NON_EXECUTION_CYCLES} / (" + USPTP +
     " * " + BUSY + ")", None),
    ("TexturePipesBusy", "Texture", "percentage", "float64", "Share of GPU-busy cycles the "
     "texture pipes were busy.", "100 * {TP.PERF_TP_BUSY_CYCLES} / (" + USPTP + " * " + BUSY +
     ")", None),
    ("TextureFetchStall", "Texture", "percentage", "float64", "Share of GPU-busy cycles shaders "
     "could not issue more texture requests.", "100 * cb{SP.PERF_SP_STALL_CYCLES_TP} / (" +
     USPTP + " * " + BUSY + ")", None),
    ("VertexFetchStall", "Geometry", "percentage", "float64", "Share of GPU-busy cycles the "
     "primitive controller stalled on vertex fetch.", "100 * cb{PC.PERF_PC_STALL_CYCLES_VFD} / "
     + BUSY, None),
    ("StalledOnSystemMemory", "Memory", "ratio", "float64", "L2 arbiter stall cycles per "
     "four GPU-busy cycles (a fraction, as pps computes it).",
     "{UCHE.PERF_UCHE_STALL_CYCLES_ARBITER} / (4 * " + BUSY + ")",
     "pps: 'denominator has to be multiplied by four, for unknown reasons'; a fraction "
     "despite its % name."),
    ("InstructionCacheMiss", "Shader", "percentage", "float64", "Share of shader instruction "
     "cache requests that missed.", "100 * cb{SP.PERF_SP_ICL1_MISSES} / "
     "cb{SP.PERF_SP_ICL1_REQUESTS}", None),
    ("L1TextureCacheMissPerPixel", "Texture", "ratio", "float64", "Texture L1 misses per "
     "pixel shaded.", "cb{TP.PERF_TP_L1_CACHELINE_MISSES} / {SP.PERF_SP_PIXELS}", None),
    ("TextureL1Miss", "Texture", "percentage", "float64", "Share of texture L1 requests that "
     "missed.", "100 * cb{TP.PERF_TP_L1_CACHELINE_MISSES} / "
     "cb{TP.PERF_TP_L1_CACHELINE_REQUESTS}", None),
    ("TextureL2Miss", "Texture", "percentage", "float64", "Texture reads of the L2 that went "
     "to memory, as pps scales them.", "100 * 2 * {UCHE.PERF_UCHE_VBIF_READ_BEATS_TP} / "
     "{UCHE.PERF_UCHE_READ_REQUESTS_TP}", "pps: 'ratio has to be multiplied by two'."),
    ("GlobalBufferReadL2Hit", "Memory", "percentage", "float64", "Share of shader buffer reads "
     "the L2 served.", "100 * ({UCHE.PERF_UCHE_READ_REQUESTS_SP} - "
     "{UCHE.PERF_UCHE_VBIF_READ_BEATS_SP} / 2) / {UCHE.PERF_UCHE_READ_REQUESTS_SP}", None),
    ("GlobalBufferWriteL2Hit", "Memory", "percentage", "float64", "Share of shader buffer "
     "writes that did not evict.", "100 * ({UCHE.PERF_UCHE_WRITE_REQUESTS_SP} - "
     "{UCHE.PERF_UCHE_EVICTS}) / {UCHE.PERF_UCHE_WRITE_REQUESTS_SP}", None),
    ("GlobalBufferDataReadBytesPerSecond", "Memory", "bytes", "float64", "Bytes of shader "
     "buffer data read from memory per second.", "{UCHE.PERF_UCHE_VBIF_READ_BEATS_SP} * 32 / T",
     None),
    ("TextureMemoryReadBytesPerSecond", "Memory", "bytes", "float64", "Bytes of texture data "
     "(compressed and not) read from memory per second.",
     "({UCHE.PERF_UCHE_VBIF_READ_BEATS_TP} + {CMP.PERF_CMPDECMP_VBIF_READ_DATA}) * 32 / T", None),
    ("VertexMemoryReadBytesPerSecond", "Memory", "bytes", "float64", "Bytes of vertex data "
     "read from memory per second.", "{UCHE.PERF_UCHE_VBIF_READ_BEATS_VFD} * 32 / T", None),
    ("AvgBytesPerFragment", "Memory", "ratio", "float64", "Texture bytes read from memory per "
     "pixel.", "{UCHE.PERF_UCHE_VBIF_READ_BEATS_TP} * 32 / {SP.PERF_SP_PIXELS}", None),
    ("AvgBytesPerVertex", "Memory", "ratio", "float64", "Vertex bytes read from memory per "
     "vertex.", "{UCHE.PERF_UCHE_VBIF_READ_BEATS_VFD} * 32 / cb{PC.PERF_PC_VS_INVOCATIONS}",
     None),
    ("PreemptionsPerSecond", "GPU", "items", "float64", "Preemptions per second.",
     "{CP.PERF_CP_NUM_PREEMPTIONS} / (2 * T)", "pps: 'has to be divided by 2'."),
    ("AveragePolygonArea", "Geometry", "ratio", "float64", "Pixels shaded per visible "
     "primitive.", "{SP.PERF_SP_PIXELS} / {TSE.PERF_TSE_OUTPUT_VISIBLE_PRIM}", None),
    ("AverageVerticesPerPolygon", "Geometry", "ratio", "float64", "Vertex shader invocations "
     "per primitive.", "cb{PC.PERF_PC_VS_INVOCATIONS} / {TSE.PERF_TSE_INPUT_PRIM}", None),
    ("PreClippedPolygonsPerSecond", "Geometry", "items", "float64", "Primitives entering "
     "triangle setup per second.", "{TSE.PERF_TSE_INPUT_PRIM} / T", None),
    ("PrimsClipped", "Geometry", "percentage", "float64", "Share of primitives that needed "
     "clipping.", "100 * {TSE.PERF_TSE_CLIPPED_PRIM} / {TSE.PERF_TSE_INPUT_PRIM}", None),
    ("PrimsTriviallyRejected", "Geometry", "percentage", "float64", "Share of primitives "
     "rejected outright.", "100 * {TSE.PERF_TSE_TRIVAL_REJ_PRIM} / {TSE.PERF_TSE_INPUT_PRIM}",
     None),
    ("ReusedVerticesPerSecond", "Geometry", "items", "float64", "Post-transform cache hits per "
     "second.", "cb{PC.PERF_PC_VERTEX_HITS} / T", None),
    ("VerticesShadedPerSecond", "Shader", "items", "float64", "Vertex shader invocations per "
     "second.", "cb{PC.PERF_PC_VS_INVOCATIONS} / T", None),
    ("FragmentsShadedPerSecond", "Shader", "items", "float64", "Pixels shaded per second.",
     "{SP.PERF_SP_PIXELS} / T", None),
    ("ALUPerFragment", "Shader", "ratio", "float64", "Fragment ALU instructions (half "
     "precision as half) per pixel.", "({SP.PERF_SP_FS_STAGE_FULL_ALU_INSTRUCTIONS} + "
     "{SP.PERF_SP_FS_STAGE_HALF_ALU_INSTRUCTIONS} / 2) / {SP.PERF_SP_PIXELS}",
     "The blob divides by SP_QUADS; pps by SP_PIXELS to save an SP counter."),
    ("EFUPerFragment", "Shader", "ratio", "float64", "Fragment EFU instructions per pixel.",
     "{SP.PERF_SP_FS_STAGE_EFU_INSTRUCTIONS} / {SP.PERF_SP_PIXELS}", None),
    ("ALUPerVertex", "Shader", "ratio", "float64", "Vertex ALU instructions per vertex (four "
     "per counted instruction, as pps scales them).",
     "4 * cb{SP.PERF_SP_VS_STAGE_FULL_ALU_INSTRUCTIONS} / cb{PC.PERF_PC_VS_INVOCATIONS}",
     "No source explains the factor 4 (reference 5.3 'Unit caveat')."),
    ("TexturesPerVertex", "Texture", "ratio", "float64", "Vertex texture instructions per "
     "vertex (x4 as pps).", "4 * cb{SP.PERF_SP_VS_STAGE_TEX_INSTRUCTIONS} / "
     "cb{PC.PERF_PC_VS_INVOCATIONS}", None),
    ("TexturesPerFragment", "Texture", "ratio", "float64", "Texels out of the texture pipe per "
     "pixel.", "{TP.PERF_TP_OUTPUT_PIXELS} / {SP.PERF_SP_PIXELS}", None),
    ("FragmentInstructionsPerSecond", "Shader", "items", "float64", "Fragment ALU and EFU "
     "instructions per second (x4 as pps).", "4 * ({SP.PERF_SP_FS_STAGE_EFU_INSTRUCTIONS} + "
     "{SP.PERF_SP_FS_STAGE_FULL_ALU_INSTRUCTIONS} + "
     "{SP.PERF_SP_FS_STAGE_HALF_ALU_INSTRUCTIONS} / 2) / T", None),
    ("VertexInstructionsPerSecond", "Shader", "items", "float64", "Vertex ALU and EFU "
     "instructions per second (x4 as pps).", "4 * (cb{SP.PERF_SP_VS_STAGE_EFU_INSTRUCTIONS} + "
     "cb{SP.PERF_SP_VS_STAGE_FULL_ALU_INSTRUCTIONS}) / T", None),
    ("ShaderALUCapacityUtilized", "Shader", "percentage", "float64", "ALU instructions issued "
     "against 128 ALUs per busy uSPTP cycle.",
     "100 * (cb{SP.PERF_SP_VS_STAGE_FULL_ALU_INSTRUCTIONS} + "
     "{SP.PERF_SP_FS_STAGE_FULL_ALU_INSTRUCTIONS} + "
     "{SP.PERF_SP_FS_STAGE_HALF_ALU_INSTRUCTIONS} / 2) / ({SP.PERF_SP_BUSY_CYCLES} * 128)", None),
    ("TimeALUsWorking", "Shader", "percentage", "float64", "Share of busy shader cycles the "
     "ALUs worked.", "100 * ({SP.PERF_SP_ALU_WORKING_CYCLES} / 2) / {SP.PERF_SP_BUSY_CYCLES}",
     None),
    ("TimeEFUsWorking", "Shader", "percentage", "float64", "Share of busy shader cycles the "
     "EFUs worked.", "100 * {SP.PERF_SP_EFU_WORKING_CYCLES} / {SP.PERF_SP_BUSY_CYCLES}",
     "No division by 2 on a7xx, unlike a6xx (pps)."),
    ("AnisotropicFiltered", "Texture", "ratio", "float64", "Fraction of texels filtered "
     "anisotropically.", "cb{TP.PERF_TP_OUTPUT_PIXELS_ANISO} / cb{TP.PERF_TP_OUTPUT_PIXELS}",
     "pps computes a fraction, not a percentage, despite the % in its name."),
    ("LinearFiltered", "Texture", "ratio", "float64", "Fraction of texels filtered "
     "bilinearly.", "cb{TP.PERF_TP_OUTPUT_PIXELS_BILINEAR} / cb{TP.PERF_TP_OUTPUT_PIXELS}",
     "A fraction, as pps computes it."),
    ("NearestFiltered", "Texture", "ratio", "float64", "Fraction of texels point-sampled.",
     "cb{TP.PERF_TP_OUTPUT_PIXELS_POINT} / cb{TP.PERF_TP_OUTPUT_PIXELS}",
     "A fraction, as pps computes it."),
    ("LRZPixelKilled", "Depth", "percentage", "float64", "Share of pixels the low-resolution "
     "depth test discarded.", "100 * ({LRZ.PERF_LRZ_TOTAL_PIXEL} - "
     "{LRZ.PERF_LRZ_VISIBLE_PIXEL_AFTER_LRZ}) / {LRZ.PERF_LRZ_TOTAL_PIXEL}", None),
]

# a5xx: pps has no a5xx set.  The a6xx formulas whose countables exist with
# the same names in Mesa's a5xx tables are carried over.
A5_NOTE = ("pps has no a5xx counters; this is its a6xx formula over the a5xx countables of "
           "the same names (reference 5.3).")

# The paper's model inputs (docs/models.md): unified shader instructions,
# texture-unit utilisation, GPU utilisation.  `opengpa predict` reads
# UnifiedShaderInstructions, GPUActiveCycles, MaxClockMHz and ShaderCoreCount by
# these names (lib/models/profile.c), the last three as the Mali sets name them.
def model_counters(gen):
    busy = BUSY
    usi = "{SP.PERF_SP_VS_INSTRUCTIONS} + {SP.PERF_SP_FS_INSTRUCTIONS}"
    units = USPTP if gen == "a7xx" else "AdrenoSPCores"
    return [
        ("UnifiedShaderInstructions", "Model", "items", "uint64", "Vertex plus fragment shader "
         "instructions (the USI input of Yun et al.'s model).", usi,
         "Direct sum of SP_VS/FS_INSTRUCTIONS (reference 5.2, inferred); unit per wave, fiber "
         "or quad is undocumented."),
        ("TextureUnitUtilization", "Model", "percentage", "float64", "Share of GPU-busy cycles "
         "the texture pipes were busy, over all of them.", "100 * {TP.PERF_TP_BUSY_CYCLES} / (" +
         units + " * " + busy + ")", None if gen == "a7xx" else
         "pps has this formula for a7xx only; dividing by the SP core count here is the "
         "reference's inference (5.2)."),
        ("GPUActiveCycles", "Model", "cycles", "uint64", "Cycles the GPU was busy (RBBM "
         "status masked), at the clock it ran; over the run's cycles at the maximum clock, "
         "the model's GPU utilisation.", busy,
         "The GPU-busy countable of reference 5.2/5.3, the one pps's a7xx utilisation reads."),
        ("MaxClockMHz", "Model", "items", "float64", "The GPU's highest clock in MHz, as the "
         "backend found it (AdrenoMaxFreqHz); the model's GPU utilisation assumes it.",
         "AdrenoMaxFreqHz / 1000000", None),
        ("ShaderCoreCount", "Model", "items", "uint64", "Shader processor cores of the GPU "
         "(AdrenoSPCores), recorded so a report says what it was measured on.",
         "AdrenoSPCores", None),
    ]


def load(gen):
    table = {}
    with open(os.path.join(HERE, "data", "adreno-%s.tsv" % gen), encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            gid, group, idx, name = line.rstrip("\n").split("\t")
            table[(group, name)] = int(idx)
    if gen == "a7xx":
        for (group, name), idx in list(table.items()):
            if group in BV:
                table[("BV_" + group, name)] = idx
    return table


def raw_name(group, name):
    return "AdrenoHw%s_%s" % (group, name[5:] if name.startswith("PERF_") else name)


def expression(gen, table, formula):
    def one(group, name):
        if (group, name) not in table:
            raise SystemExit("%s: no countable %s in group %s" % (gen, name, group))
        return "$" + raw_name(group, name)

    def cb(m):
        group, name = m.group(1), m.group(2)
        if gen != "a7xx":
            return one(group, name)
        return "(%s + %s)" % (one(group, name), one("BV_" + group, name))

    out = re.sub(r"cb\{(\w+)\.(\w+)\}", cb, formula)
    out = re.sub(r"\{(\w+)\.(\w+)\}", lambda m: one(m.group(1), m.group(2)), out)
    return re.sub(r"\bT\b", T, out)


def wrap(key, text):
    words, lines, cur = text.split(), [], "    " + key + ":"
    for w in words:
        if len(cur) + 1 + len(w) > 92:
            lines.append(cur)
            cur = "        " + w
        else:
            cur += " " + w
    lines.append(cur)
    return "\n".join(lines) + "\n"


HEADER = """\
# SPDX-License-Identifier: MIT
# Adreno {gen} counters for the adreno backend (KGSL).
#
# Generated by tools/adreno-counters/generate.py: do not edit; re-run the generator
# (docs/backends/adreno.md).
#
# Facts: countable indices and names from Mesa's freedreno register tables
# ({xml}), MIT licence, whose notice and authors are in Mesa's
# src/freedreno/registers/freedreno_copyright.xml{igalia}; derived counters restate
# the formulas of Mesa's pps freedreno driver (src/freedreno/ds/fd_pps_driver.cc,
# SPDX MIT, Copyright 2021 Google).  KGSL group ids from the KGSL UAPI (facts only).
# Transcribed in ../shared/reference/adreno-kgsl.md (sections 3 and 4).  Descriptions
# are opengpa's own words.
#
# GPUs: {gpus}.
# Raw counters: `source: GROUP:COUNTABLE` (KGSL group name, countable = Mesa enum
# value); names are AdrenoHw<GROUP>_<Mesa name without PERF_>.{bv}
"""


def generate(gen):
    table = load(gen)
    info = {
        "a5xx": ("a5xx.xml", "", "Adreno 530, Adreno 540", ""),
        "a6xx": ("a6xx.xml", "", "Adreno 618, 630, 640, 650, 660, 690", ""),
        "a7xx": ("a7xx_perfcntrs.xml, current numbering", "; a7xx tables (C) 2024 Igalia, MIT",
                 "Adreno 730, 740, 750",
                 "\n# BV_* groups are the binning pipe's copies of the same countables."),
    }[gen]
    out = [HEADER.format(gen=gen, xml=info[0], igalia=info[1], gpus=info[2], bv=info[3])]
    out.append("\nconstant AdrenoSPCores\n" + wrap("description", "Number of shader processor "
               "cores (Mesa's num_sp_cores); supplied by the backend from the chip id."))
    out.append("\nconstant AdrenoMaxFreqHz\n" + wrap("description", "Highest GPU clock in Hz, "
               "from KGSL's sysfs (max_clock_mhz or gpu_available_frequencies); supplied by the "
               "backend."))
    out.append("\nconstant AdrenoGmemBytes\n" + wrap("description", "Size of the GPU's tile "
               "memory (GMEM) in bytes, from DEVICE_INFO; supplied by the backend."))
    out.append("\nraw AdrenoTimeNs\n    source: TIME:ns\n    group: Sample\n" +
               wrap("description", "Duration of the sample in nanoseconds, measured by the "
                    "backend around its two reads."))
    for (group, name), idx in sorted(table.items(), key=lambda kv: (kv[0][0], kv[1])):
        base = group[3:] if group.startswith("BV_") else group
        desc = "Countable %d of the %s block (%s)%s, %s in Mesa's %s tables." % (
            idx, base, BLOCKS[base], ", binning pipe" if group.startswith("BV_") else "",
            name, gen)
        usage = "cycles" if "CYCLES" in name or name.endswith("_COUNT") and "ALWAYS" in name \
            else "items"
        out.append("\nraw %s\n    source: %s:%d\n    hardware: %s\n    group: %s\n    usage: %s\n"
                   % (raw_name(group, name), group, idx, name, group, usage) +
                   wrap("description", desc))
    derived = {"a5xx": A6, "a6xx": A6, "a7xx": A7}[gen]
    for (name, grp, usage, typ, desc, formula, note) in derived + model_counters(gen):
        try:
            expr = expression(gen, table, formula)
        except SystemExit:
            if gen == "a5xx":
                continue  # a countable a5xx does not have
            raise
        if gen == "a5xx" and grp != "Model":
            note = A5_NOTE + (" " + note if note else "")
        text = "\ncounter %s\n    group: %s\n    usage: %s\n    type: %s\n" % (
            name, grp, usage, typ)
        text += wrap("description", desc) + wrap("expression", expr)
        if note:
            text += wrap("note", note)
        out.append(text)
    return "".join(out)


def main():
    check = "--check" in sys.argv[1:]
    stale = []
    for gen in ("a5xx", "a6xx", "a7xx"):
        path = os.path.join(ROOT, "counters", "adreno-%s.counters" % gen)
        text = generate(gen)
        old = open(path, encoding="utf-8").read() if os.path.exists(path) else None
        if old == text:
            continue
        if check:
            stale.append(path)
            sys.stdout.writelines(difflib.unified_diff(
                (old or "").splitlines(True), text.splitlines(True), path,
                path + " (regenerated)", n=1))
        else:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
            print("wrote", path)
    if stale:
        print("out of date (run tools/adreno-counters/generate.py):", *stale)
        return 1
    return 0


sys.exit(main())
