/* verdict.c - the paired gate: bootstrap CI of the median per-pair log-ratio when paired, of
 * the log-ratio of medians otherwise (see verdict.h). */
#include "verdict.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "stats.h"
#include "xalloc.h"

const char *verdict_name(verdict_kind k)
{
    switch (k) {
    case VERDICT_FASTER: return "faster";
    case VERDICT_SAME: return "same";
    case VERDICT_SLOWER: return "slower";
    case VERDICT_UNCLEAR: return "unclear";
    }
    return "?";
}

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

static int valid_samples(const double *x, size_t n)
{
    if (!x)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!(isfinite(x[i]) && x[i] > 0))
            return 0;
    return 1;
}

static verdict decide(const double *a, size_t na, const double *b, size_t nb, double threshold, double confidence,
                      int resamples, uint64_t seed, int paired)
{
    verdict v = {.kind = VERDICT_UNCLEAR,
                 .ratio = NAN,
                 .lo = NAN,
                 .hi = NAN,
                 .confidence = confidence,
                 .threshold = threshold,
                 .resamples = resamples};
    if (!valid_samples(a, na) || !valid_samples(b, nb) || na == 0 || nb == 0)
        return v;

    paired = paired && na == nb;
    double *ra = xmalloc((na + nb) * sizeof *ra);
    double *rb = ra + na;
    double s0;
    if (paired) {
        /* ra holds d_i = log(b_i / a_i) (as a difference of logs, which cannot overflow);
         * rb is scratch for the medians */
        for (size_t i = 0; i < na; i++)
            ra[i] = log(b[i]) - log(a[i]);
        memcpy(rb, ra, na * sizeof *rb);
        s0 = stats_median_inplace(rb, na);
    } else {
        memcpy(ra, a, na * sizeof *ra);
        memcpy(rb, b, nb * sizeof *rb);
        s0 = log(stats_median_inplace(rb, nb)) - log(stats_median_inplace(ra, na));
    }
    v.ratio = exp(s0);

    if (na < VERDICT_MIN_SAMPLES || nb < VERDICT_MIN_SAMPLES || !isfinite(threshold) || threshold < 0 ||
        !(confidence > 0 && confidence < 1) || resamples < 1) {
        free(ra);
        return v;
    }

    double *stat = xmalloc((size_t)resamples * sizeof *stat);
    uint64_t key = rng_bits(seed ^ 0x7665726469637421ULL, 0); /* "verdict!" */
    uint64_t c = 0;
    for (int r = 0; r < resamples; r++) {
        if (paired) {
            /* resample pair indices: median of d over the drawn pairs */
            for (size_t j = 0; j < na; j++)
                rb[j] = ra[stats_draw_index(rng_bits(key, c++), na)];
            stat[r] = stats_median_inplace(rb, na);
        } else {
            for (size_t j = 0; j < na; j++)
                ra[j] = a[stats_draw_index(rng_bits(key, c++), na)];
            for (size_t j = 0; j < nb; j++)
                rb[j] = b[stats_draw_index(rng_bits(key, c++), nb)];
            stat[r] = log(stats_median_inplace(rb, nb)) - log(stats_median_inplace(ra, na));
        }
    }
    qsort(stat, (size_t)resamples, sizeof *stat, cmp_double);
    double lo = stats_quantile_sorted(stat, (size_t)resamples, 0.5 * (1 - confidence));
    double hi = stats_quantile_sorted(stat, (size_t)resamples, 0.5 * (1 + confidence));
    free(stat);
    free(ra);

    v.lo = exp(lo);
    v.hi = exp(hi);
    double L = log1p(threshold);
    if (hi < -L)
        v.kind = VERDICT_FASTER;
    else if (lo > L)
        v.kind = VERDICT_SLOWER;
    else if (lo >= -L && hi <= L)
        v.kind = VERDICT_SAME;
    return v;
}

verdict verdict_decide(const double *a, size_t na, const double *b, size_t nb, double threshold, double confidence,
                       int resamples, uint64_t seed)
{
    return decide(a, na, b, nb, threshold, confidence, resamples, seed, 1);
}

verdict verdict_decide_unpaired(const double *a, size_t na, const double *b, size_t nb, double threshold,
                                double confidence, int resamples, uint64_t seed)
{
    return decide(a, na, b, nb, threshold, confidence, resamples, seed, 0);
}
