/* roofline.h - where a timed call stands against the machine: achieved bandwidth and FLOP
 * rate from the definition's cost model, and the roofline share = floor / measured time,
 * the floor being max(bytes / copy peak, FLOPs / compute peak) with peaks measured on the
 * device (DESIGN.md section 10). */
#ifndef KWB_ROOFLINE_H
#define KWB_ROOFLINE_H

#include <jansson.h>
#include <stdint.h>

#include "definition.h"

/* Measured peaks of a device; 0 where unknown (the cpu device measures none). */
typedef struct roofline_peaks {
    double copy_gbps; /* bytes read + written per second, 1e9 */
    double fp32_tflops;
    double bf16_tflops;
} roofline_peaks;

/* One call's position. */
typedef struct roofline_point {
    double bytes, flops; /* what the call must move and compute */
    double gbps, tflops; /* achieved rates; 0 when the part is unknown */
    double share;        /* floor / measured time; 0 when no peak applies */
} roofline_point;

/* The peaks in a device's hello facts ({"peaks": {"copy_gbps", "fp32_tflops", "bf16_tflops"}}). */
roofline_peaks roofline_peaks_from_facts(json_t *facts);
/* The position of a call of definition D that took MEDIAN_MS, VALUES being what the cost model
 * reads (the axis values, then the cost.from_inputs values; see definition_cost_bytes), or NULL
 * when they are unknown: bytes from the cost model, else FALLBACK_BYTES (every tensor once);
 * FLOPs from the cost model only. */
roofline_point roofline_of(const definition *d, const int64_t *values, double fallback_bytes, double median_ms,
                           const roofline_peaks *pk);

#endif
