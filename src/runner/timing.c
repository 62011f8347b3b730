#include "runner/timing.h"

#include <stdlib.h>
#include <string.h>

#include "proc.h"
#include "xalloc.h"

static void series_add(timing_series *s, double ms)
{
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 64;
        s->ms = xrealloc(s->ms, s->cap * sizeof *s->ms);
    }
    s->ms[s->n++] = ms;
}

static int one_sample(device *dev, const timing_policy *p, timing_call call, void *ctx, int which,
                      timing_series *s, kwb_error *err)
{
    if (p->cold)
        dev->ops->flush(dev);
    if (dev->ops->sync(dev, err) != 0)
        return -1;
    double t0 = proc_now();
    if (call(ctx, which, err) != 0 || dev->ops->sync(dev, err) != 0)
        return -1;
    series_add(s, (proc_now() - t0) * 1e3);
    return 0;
}

static int warm_up(device *dev, const timing_policy *p, int n, timing_call call, void *ctx, kwb_error *err)
{
    double start = proc_now();
    do {
        for (int w = 0; w < n; w++)
            if (call(ctx, w, err) != 0 || dev->ops->sync(dev, err) != 0)
                return -1;
    } while (proc_now() - start < p->warmup_s);
    return 0;
}

/* True when every series has enough samples and is quiet enough. */
static int settled(const timing_policy *p, int n, timing_series *series, double elapsed)
{
    if (elapsed < p->min_time_s)
        return 0;
    for (int w = 0; w < n; w++)
        if ((int)series[w].n < p->min_samples || stats_rsd(series[w].ms, series[w].n) > p->rsd_target)
            return 0;
    return 1;
}

int timing_measure(device *dev, const timing_policy *p, int n, timing_call call, void *ctx,
                   timing_series *series, kwb_error *err)
{
    memset(series, 0, sizeof *series * (size_t)n);
    if (warm_up(dev, p, n, call, ctx, err) != 0)
        return -1;
    double start = proc_now();
    for (int round = 0;; round++) {
        for (int k = 0; k < n; k++) {
            int which = (round & 1) ? n - 1 - k : k;  /* A B, B A, A B, ... */
            if (one_sample(dev, p, call, ctx, which, &series[which], err) != 0)
                return -1;
        }
        double elapsed = proc_now() - start;
        if (settled(p, n, series, elapsed) || elapsed >= p->max_time_s)
            break;
    }
    for (int w = 0; w < n; w++)
        series[w].summary = stats_summarize(series[w].ms, series[w].n);
    return 0;
}

void timing_series_free(timing_series *s)
{
    free(s->ms);
    memset(s, 0, sizeof *s);
}
