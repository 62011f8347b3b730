/* stats.c - summary statistics of latency samples. */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"
#include "xalloc.h"

/* Ascending, with NaNs last so that qsort sees a consistent order. */
static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    if (isnan(a) || isnan(b))
        return isnan(a) - isnan(b);
    return (a > b) - (a < b);
}

static double mean_of(const double *x, size_t n)
{
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += x[i];
    return sum / (double)n;
}

/* Sample standard deviation (n - 1), two-pass around the given mean. */
static double stddev_of(const double *x, size_t n, double mean)
{
    if (n < 2)
        return 0;
    double ss = 0;
    for (size_t i = 0; i < n; i++)
        ss += (x[i] - mean) * (x[i] - mean);
    return sqrt(ss / (double)(n - 1));
}

double stats_quantile_sorted(const double *sorted, size_t n, double q)
{
    if (n == 0)
        return 0;
    if (!(q > 0)) /* also NaN */
        return sorted[0];
    if (q >= 1)
        return sorted[n - 1];
    double h = (double)(n - 1) * q; /* type 7 */
    size_t lo = (size_t)h;
    double frac = h - (double)lo;
    if (frac == 0 || lo + 1 >= n || sorted[lo] == sorted[lo + 1])
        return sorted[lo]; /* the last test avoids inf - inf */
    return sorted[lo] + frac * (sorted[lo + 1] - sorted[lo]);
}

void stats_sort(double *x, size_t n)
{
    qsort(x, n, sizeof *x, cmp_double);
}

/* Above this many samples the binomial's normal approximation sets the ranks. */
#define CI_EXACT_MAX 1000

/* The standard normal's upper quantile z(p) for 0.5 < p < 1 (Abramowitz and Stegun 26.2.23,
 * refined by one Halley step: far more precise than ranks need). */
static double normal_quantile(double p)
{
    double q = p < 0.5 ? p : 1 - p, t = sqrt(-2 * log(q));
    double z =
        t - (2.515517 + 0.802853 * t + 0.010328 * t * t) / (1 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t * t * t);
    double e = 0.5 * erfc(z / sqrt(2)) - q; /* Halley's step on the upper tail */
    double u = e * 2.5066282746310002 * exp(z * z / 2);
    z = z + u / (1 + z * u / 2);
    return p < 0.5 ? -z : z;
}

int stats_median_ci_ranks(size_t n, double confidence, size_t *lo, size_t *hi)
{
    if (n < 2 || !(confidence > 0 && confidence < 1))
        return -1;
    double tail = (1 - confidence) / 2;
    size_t l = 0;
    if (n <= CI_EXACT_MAX) {
        /* the largest l with P(X <= l - 1) <= tail, X ~ Bin(n, 1/2), summed in log space */
        double cum = 0, logn = lgamma((double)n + 1) - (double)n * log(2.0);
        for (size_t i = 0; i < n; i++) {
            cum += exp(logn - lgamma((double)i + 1) - lgamma((double)(n - i) + 1));
            if (cum > tail)
                break;
            l = i + 1;
        }
    } else {
        double z = normal_quantile(1 - tail), half = z * sqrt((double)n) / 2;
        l = (size_t)floor(((double)n + 1) / 2 - half); /* with the continuity correction */
    }
    if (l < 1 || 2 * l > n)
        return -1;
    *lo = l;
    *hi = n + 1 - l;
    return 0;
}

double stats_median_ci_rel(const double *sorted, size_t n, double confidence)
{
    size_t lo, hi;
    double median = stats_quantile_sorted(sorted, n, 0.5);
    if (stats_median_ci_ranks(n, confidence, &lo, &hi) != 0 || !(median > 0))
        return INFINITY;
    return (sorted[hi - 1] - sorted[lo - 1]) / 2 / median;
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

double stats_median_inplace(double *x, size_t n)
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

size_t stats_draw_index(uint64_t bits, size_t n)
{
    return (size_t)(((unsigned __int128)bits * n) >> 64);
}

stats_summary stats_summarize(const double *x, size_t n)
{
    stats_summary s;
    memset(&s, 0, sizeof s);
    if (n == 0)
        return s;
    double *v = xcalloc(n, sizeof *v);
    memcpy(v, x, n * sizeof *v);
    qsort(v, n, sizeof *v, cmp_double);
    s.n = n;
    s.mean = mean_of(x, n); /* input order, so that rsd matches stats_rsd exactly */
    s.median = stats_quantile_sorted(v, n, 0.5);
    s.min = v[0];
    s.max = v[n - 1];
    s.q1 = stats_quantile_sorted(v, n, 0.25);
    s.q3 = stats_quantile_sorted(v, n, 0.75);
    s.iqr = s.q3 - s.q1;
    s.stddev = stddev_of(x, n, s.mean);
    s.rsd = s.mean != 0 ? s.stddev / s.mean : 0;
    free(v);
    return s;
}

double stats_rsd(const double *x, size_t n)
{
    if (n < 2)
        return 0;
    double mean = mean_of(x, n);
    return mean != 0 ? stddev_of(x, n, mean) / mean : 0;
}

double stats_geomean(const double *x, size_t n)
{
    double logsum = 0;
    size_t count = 0;
    for (size_t i = 0; i < n; i++) {
        if (x[i] > 0) { /* skips zeros, negatives and NaN */
            logsum += log(x[i]);
            count++;
        }
    }
    return count ? exp(logsum / (double)count) : 0;
}

double stats_median_ci_rel_grouped(const double *x, const int *group, size_t n, double confidence, int resamples,
                                   uint64_t seed, size_t *groups)
{
    size_t g = 0, widest = 0;
    size_t *start = xmalloc((n + 1) * sizeof *start);
    for (size_t i = 0; i < n; i++)
        if (i == 0 || group[i] != group[i - 1])
            start[g++] = i;
    start[g] = n;
    if (groups)
        *groups = g;
    for (size_t k = 0; k < g; k++)
        if (start[k + 1] - start[k] > widest)
            widest = start[k + 1] - start[k];
    /* one buffer: the pooled median first, then each draw's groups (at most g * widest samples) */
    double *pool = xmalloc((g * widest > n ? g * widest : n) * sizeof *pool + sizeof *pool);
    memcpy(pool, x, n * sizeof *pool);
    double median = n ? stats_median_inplace(pool, n) : 0;
    if (g < 2 || !(median > 0) || resamples < 2) {
        free(start);
        free(pool);
        return INFINITY;
    }
    double *stat = xmalloc((size_t)resamples * sizeof *stat);
    uint64_t c = 0;
    for (int r = 0; r < resamples; r++) {
        size_t m = 0;
        for (size_t k = 0; k < g; k++) {
            size_t pick = stats_draw_index(rng_bits(seed, c++), g), len = start[pick + 1] - start[pick];
            memcpy(pool + m, x + start[pick], len * sizeof *pool);
            m += len;
        }
        stat[r] = stats_median_inplace(pool, m);
    }
    qsort(stat, (size_t)resamples, sizeof *stat, cmp_double);
    double tail = (1 - confidence) / 2;
    double lo = stats_quantile_sorted(stat, (size_t)resamples, tail);
    double hi = stats_quantile_sorted(stat, (size_t)resamples, 1 - tail);
    free(stat);
    free(pool);
    free(start);
    double below = median - lo, above = hi - median;
    return (below > above ? below : above) / median;
}

size_t stats_variance_parts(const double *x, const int *group, size_t n, double *within, double *between)
{
    size_t g = 0, pooled_df = 0;
    double pooled_ss = 0, inv_size = 0, sum_means = 0, sum_means2 = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        double sum = 0, ss = 0;
        while (j < n && group[j] == group[i])
            sum += x[j++];
        double mean = sum / (double)(j - i);
        for (size_t k = i; k < j; k++)
            ss += (x[k] - mean) * (x[k] - mean);
        pooled_ss += ss;
        pooled_df += j - i - 1;
        inv_size += 1.0 / (double)(j - i);
        sum_means += mean;
        sum_means2 += mean * mean;
        g++;
        i = j;
    }
    *within = *between = 0;
    if (g < 2 || pooled_df == 0)
        return g;
    *within = pooled_ss / (double)pooled_df;
    double mean_of_means = sum_means / (double)g;
    double var_means = (sum_means2 - (double)g * mean_of_means * mean_of_means) / (double)(g - 1);
    double b = var_means - *within * inv_size / (double)g;
    *between = b > 0 ? b : 0;
    return g;
}
