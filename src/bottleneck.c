#include "bottleneck.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ncu's SOLBottleneck thresholds and kwb's for the rest. */
#define LATENCY_BELOW 60.0
#define SOL_ABOVE 80.0
#define BALANCE_BAND 10.0
#define MEMORY_ROOFLINE_SHARE 0.5 /* under 60% on both sides, yet half the measured copy rate: memory-bound */
#define LAUNCH_BUSY_SHARE 0.5     /* GPU busy under half the call's wall time */
#define LOW_OCCUPANCY_SHARE 0.5   /* achieved under half of theoretical */

bottleneck_input bottleneck_input_empty(void)
{
    bottleneck_input in;
    memset(&in, 0, sizeof in);
    in.sm_pct = in.mem_pct = in.dram_pct = in.waves = NAN;
    in.occupancy_pct = in.theoretical_pct = NAN;
    in.limit_registers = in.limit_smem = in.limit_warps = in.limit_blocks = NAN;
    in.roofline_share = in.gpu_ms = in.wall_ms = NAN;
    return in;
}

void bottleneck_input_from_ncu(bottleneck_input *in, const ncu_table *t, int r)
{
    in->sm_pct = ncu_number(t, r, "sm__throughput.avg.pct_of_peak_sustained_elapsed");
    in->mem_pct = ncu_number(t, r, "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed");
    in->dram_pct = ncu_number(t, r, "dram__throughput.avg.pct_of_peak_sustained_elapsed");
    in->waves = ncu_number(t, r, "launch__waves_per_multiprocessor");
    in->occupancy_pct = ncu_number(t, r, "sm__warps_active.avg.pct_of_peak_sustained_active");
    in->theoretical_pct = ncu_number(t, r, "sm__maximum_warps_per_active_cycle_pct");
    in->limit_registers = ncu_number(t, r, "launch__occupancy_limit_registers");
    in->limit_smem = ncu_number(t, r, "launch__occupancy_limit_shared_mem");
    in->limit_warps = ncu_number(t, r, "launch__occupancy_limit_warps");
    in->limit_blocks = ncu_number(t, r, "launch__occupancy_limit_blocks");
}

/* Appends NAME to the comma-separated list in B. */
static void add_modifier(bottleneck *b, const char *name)
{
    size_t n = strlen(b->modifiers);
    snprintf(b->modifiers + n, sizeof b->modifiers - n, "%s%s", n ? "," : "", name);
}

__attribute__((format(printf, 2, 3))) static void add_evidence(bottleneck *b, const char *fmt, ...)
{
    size_t n = strlen(b->evidence);
    if (n && n + 2 < sizeof b->evidence)
        strcpy(b->evidence + n, ", "), n += 2;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(b->evidence + n, sizeof b->evidence - n, fmt, ap);
    va_end(ap);
}

/* The class from ncu's speed-of-light figures. */
static void classify_sol(const bottleneck_input *in, bottleneck *b)
{
    double sm = in->sm_pct, mem = in->mem_pct;
    b->source = "ncu";
    add_evidence(b, "sm %.0f%%, memory %.0f%%", sm, mem);
    if (!isnan(in->dram_pct))
        add_evidence(b, "dram %.0f%%", in->dram_pct);
    if (sm < LATENCY_BELOW && mem < LATENCY_BELOW) {
        /* ncu's percentages are of theoretical peaks no real kernel reaches; a kernel whose
         * memory side leads and that moves half of what kwb's measured copy moves is held
         * back by memory traffic first (issue 8: GDN decode at batch 64). */
        int memory_led = mem > sm + BALANCE_BAND && in->memory_floor && !isnan(in->roofline_share) &&
                         in->roofline_share >= MEMORY_ROOFLINE_SHARE;
        b->cls = memory_led ? "memory-bound" : "latency-bound";
        if (memory_led)
            add_evidence(b, "roofline %.0f%% of the measured copy peak", 100.0 * in->roofline_share);
    } else if (sm > SOL_ABOVE || mem > SOL_ABOVE)
        b->cls = "speed-of-light";
    else
        b->cls = mem >= sm ? "memory-bound" : "compute-bound";
    if (strcmp(b->cls, "latency-bound") != 0 && fabs(sm - mem) <= BALANCE_BAND)
        add_modifier(b, "balanced");
}

/* The class from the roofline share alone, with the same thresholds. */
static void classify_roofline(const bottleneck_input *in, bottleneck *b)
{
    double share = 100.0 * in->roofline_share;
    b->source = "roofline";
    add_evidence(b, "roofline %.0f%% (%s floor)", share, in->memory_floor ? "memory" : "compute");
    if (share > SOL_ABOVE)
        b->cls = "speed-of-light";
    else if (share < LATENCY_BELOW)
        b->cls = "latency-bound";
    else
        b->cls = in->memory_floor ? "memory-bound" : "compute-bound";
}

/* What limits occupancy, and the other modifiers. */
static void add_modifiers(const bottleneck_input *in, bottleneck *b)
{
    if (!isnan(in->waves) && in->waves < 1.0) {
        add_modifier(b, "under-one-wave");
        add_evidence(b, "%.2f waves", in->waves);
    }
    if (!isnan(in->occupancy_pct) && !isnan(in->theoretical_pct) && in->theoretical_pct > 0 &&
        in->occupancy_pct < LOW_OCCUPANCY_SHARE * in->theoretical_pct) {
        add_modifier(b, "low-occupancy");
        add_evidence(b, "occupancy %.0f%% of %.0f%% theoretical", in->occupancy_pct, in->theoretical_pct);
    }
    double others = fmin(in->limit_warps, in->limit_blocks);
    if (!isnan(in->limit_registers) && in->limit_registers < others && in->limit_registers <= in->limit_smem) {
        add_modifier(b, "register-limited");
        add_evidence(b, "registers allow %.0f blocks/SM", in->limit_registers);
    } else if (!isnan(in->limit_smem) && in->limit_smem < others) {
        add_modifier(b, "shared-memory-limited");
        add_evidence(b, "shared memory allows %.0f blocks/SM", in->limit_smem);
    }
    if (in->spill_bytes > 0) {
        add_modifier(b, "spills");
        add_evidence(b, "%d bytes spilled", in->spill_bytes);
    }
}

bottleneck bottleneck_classify(const bottleneck_input *in)
{
    bottleneck b;
    memset(&b, 0, sizeof b);
    b.cls = "unknown";
    b.source = "none";
    if (!isnan(in->sm_pct) && !isnan(in->mem_pct))
        classify_sol(in, &b);
    else if (!isnan(in->roofline_share) && in->roofline_share > 0)
        classify_roofline(in, &b);
    if (!isnan(in->gpu_ms) && !isnan(in->wall_ms) && in->wall_ms > 0 && in->gpu_ms < LAUNCH_BUSY_SHARE * in->wall_ms) {
        b.cls = "launch-bound";
        add_evidence(&b, "GPU busy %.0f%% of the call (%d kernels)", 100.0 * in->gpu_ms / in->wall_ms, in->kernels);
    }
    add_modifiers(in, &b);
    return b;
}
