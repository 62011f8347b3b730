/* timing.h - sampling with warm-up and a noise-based stop, one or two callees
 * interleaved (A B B A ...) so that drift hits both alike. */
#ifndef KWB_TIMING_H
#define KWB_TIMING_H

#include <stddef.h>

#include "error.h"
#include "protocol.h"
#include "runner/device.h"
#include "stats.h"

/* Makes one call of callee WHICH; returns 0, or -1 with *err set. */
typedef int (*timing_call)(void *ctx, int which, kwb_error *err);

typedef struct timing_series {
    double *ms;          /* samples in milliseconds, in the order taken */
    size_t n;
    size_t cap;
    stats_summary summary;
} timing_series;

/* Samples N callees (1 or 2) under policy P: per sample optional cache flush, device
 * sync, clock, call, device sync, clock. Fills series[0..n). Returns 0, or -1 with *err
 * set when a call failed. */
int timing_measure(device *dev, const timing_policy *p, int n, timing_call call, void *ctx,
                   timing_series *series, kwb_error *err);
/* Frees the samples of s. */
void timing_series_free(timing_series *s);

#endif
