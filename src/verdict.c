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

static void insertion_sort(double *x, ptrdiff_t lo, ptrdiff_t hi)
{
    for (ptrdiff_t i = lo + 1; i <= hi; i++) {
        double v = x[i];
        ptrdiff_t j = i - 1;
        while (j >= lo && x[j] > v) {
            x[j + 1] = x[j];
            j--;
        }
        x[j + 1] = v;
    }
}

static void swap2(double *x, ptrdiff_t i, ptrdiff_t j)
{
    double t = x[i];
    x[i] = x[j];
    x[j] = t;
}

/* Rearranges x[0..n) (no NaNs) so that x[k] is its k-th smallest, with x[0..k) <= x[k] <=
 * x[k+1..n); returns x[k]. Hoare partition around a median of three: expected O(n). */
static double select_kth(double *x, size_t n, size_t k)
{
    ptrdiff_t lo = 0, hi = (ptrdiff_t)n - 1, kk = (ptrdiff_t)k;
    while (hi - lo >= 16) {
        ptrdiff_t mid = lo + (hi - lo) / 2;
        if (x[mid] < x[lo])
            swap2(x, mid, lo);
        if (x[hi] < x[lo])
            swap2(x, hi, lo);
        if (x[hi] < x[mid])
            swap2(x, hi, mid);
        double p = x[mid];
        ptrdiff_t i = lo, j = hi;
        while (i <= j) {
            while (x[i] < p)
                i++;
            while (x[j] > p)
                j--;
            if (i <= j) {
                swap2(x, i, j);
                i++;
                j--;
            }
        }
        /* now x[lo..j] <= p <= x[i..hi], and x(j..i) == p */
        if (kk <= j)
            hi = j;
        else if (kk >= i)
            lo = i;
        else
            return x[kk];
    }
    insertion_sort(x, lo, hi);
    return x[kk];
}

/* Median of x[0..n), n >= 1 (mean of the two middle values when n is even); reorders x. */
static double median_inplace(double *x, size_t n)
{
    size_t k = n / 2;
    double m = select_kth(x, n, k);
    if (n % 2)
        return m;
    double below = x[0]; /* the largest of x[0..k), all <= x[k] after select_kth */
    for (size_t i = 1; i < k; i++)
        if (x[i] > below)
            below = x[i];
    return 0.5 * (below + m);
}

/* Uniform index in [0, n) from 64 random bits (multiply-shift; bias < n / 2^64). */
static size_t draw(uint64_t bits, size_t n)
{
    return (size_t)(((unsigned __int128)bits * n) >> 64);
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
        s0 = median_inplace(rb, na);
    } else {
        memcpy(ra, a, na * sizeof *ra);
        memcpy(rb, b, nb * sizeof *rb);
        s0 = log(median_inplace(rb, nb)) - log(median_inplace(ra, na));
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
                rb[j] = ra[draw(rng_bits(key, c++), na)];
            stat[r] = median_inplace(rb, na);
        } else {
            for (size_t j = 0; j < na; j++)
                ra[j] = a[draw(rng_bits(key, c++), na)];
            for (size_t j = 0; j < nb; j++)
                rb[j] = b[draw(rng_bits(key, c++), nb)];
            stat[r] = log(median_inplace(rb, nb)) - log(median_inplace(ra, na));
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
