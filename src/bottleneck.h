/* bottleneck.h - what bounds a kernel on a workload (DESIGN.md section 10), with the numbers
 * that say so. From Nsight Compute's speed-of-light where counters exist, after its
 * SOLBottleneck rule: SM and memory throughput both under 60% of peak -> latency-bound (unless
 * memory leads by over 10 points and the roofline share against the measured copy peak is 50% or
 * more: memory-bound, since ncu's peaks are theoretical ones no kernel reaches); either
 * over 80% -> at speed of light; otherwise the higher one decides, and within 10 points of each
 * other the kernel is balanced (reported by the higher one, marked "balanced"). Without
 * counters, from the roofline share. Launch-bound when the GPU is busy for well under the
 * wall time of the call (host gaps, many short launches). Modifiers add what limits it:
 * under one wave, occupancy far under theoretical, register or shared-memory limit, spills. */
#ifndef KWB_BOTTLENECK_H
#define KWB_BOTTLENECK_H

#include "ncu.h"

/* What the classifier reads; NaN (or 0 counts) for what is unknown. */
typedef struct bottleneck_input {
    /* Nsight Compute, per kernel (percent of peak unless said) */
    double sm_pct;          /* sm__throughput.avg.pct_of_peak_sustained_elapsed */
    double mem_pct;         /* gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed */
    double dram_pct;        /* dram__throughput.avg.pct_of_peak_sustained_elapsed */
    double waves;           /* launch__waves_per_multiprocessor */
    double occupancy_pct;   /* sm__warps_active.avg.pct_of_peak_sustained_active */
    double theoretical_pct; /* sm__maximum_warps_per_active_cycle_pct */
    double limit_registers; /* launch__occupancy_limit_registers (blocks per SM) */
    double limit_smem;      /* launch__occupancy_limit_shared_mem */
    double limit_warps;     /* launch__occupancy_limit_warps */
    double limit_blocks;    /* launch__occupancy_limit_blocks */
    /* kwb's own timing */
    double roofline_share;  /* floor / median, 0..1 */
    int memory_floor;       /* 1 when the roofline floor is the bytes term, 0 the FLOPs term */
    double gpu_ms, wall_ms; /* GPU-busy time and host wall time of one call */
    int kernels;            /* kernels per call */
    /* compiler */
    int spill_bytes; /* spill stores + loads, from ptxas */
} bottleneck_input;

/* An input with everything unknown. */
bottleneck_input bottleneck_input_empty(void);
/* Fills the ncu fields of *in from row R of T. */
void bottleneck_input_from_ncu(bottleneck_input *in, const ncu_table *t, int r);

typedef struct bottleneck {
    const char *cls;     /* memory-bound, compute-bound, latency-bound, launch-bound, speed-of-light, unknown */
    char modifiers[160]; /* comma-separated: balanced, under-one-wave, low-occupancy, register-limited,
                          * shared-memory-limited, spills */
    char evidence[320];  /* the numbers that decided, e.g. "sm 12%, memory 58% (ncu)" */
    const char *source;  /* "ncu" or "roofline" */
} bottleneck;

/* Classifies IN. */
bottleneck bottleneck_classify(const bottleneck_input *in);

#endif
