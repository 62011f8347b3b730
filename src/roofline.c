#include "roofline.h"

#include <math.h>
#include <string.h>

roofline_peaks roofline_peaks_from_facts(json_t *facts)
{
    json_t *p = json_object_get(facts, "peaks");
    roofline_peaks pk = {json_number_value(json_object_get(p, "copy_gbps")),
                         json_number_value(json_object_get(p, "fp32_tflops")),
                         json_number_value(json_object_get(p, "bf16_tflops"))};
    return pk;
}

roofline_point roofline_of(const definition *d, const int64_t *values, double fallback_bytes, double median_ms,
                           const roofline_peaks *pk)
{
    roofline_point r = {0};
    r.bytes = d->cost.bytes && values ? definition_cost_bytes(d, values) : fallback_bytes;
    r.flops = values ? definition_cost_flops(d, values) : 0;
    if (!(median_ms > 0) || !isfinite(r.bytes) || !isfinite(r.flops) || r.bytes < 0 || r.flops < 0)
        return (roofline_point){0};
    double s = median_ms * 1e-3;
    r.gbps = r.bytes / s / 1e9;
    r.tflops = r.flops / s / 1e12;
    double compute_peak = d->cost.compute && strcmp(d->cost.compute, "bf16") == 0 ? pk->bf16_tflops : pk->fp32_tflops;
    double floor_s = 0;
    if (pk->copy_gbps > 0)
        floor_s = fmax(floor_s, r.bytes / (pk->copy_gbps * 1e9));
    if (compute_peak > 0 && r.flops > 0)
        floor_s = fmax(floor_s, r.flops / (compute_peak * 1e12));
    r.share = floor_s / s;
    return r;
}
