/* stats.c - summary statistics of latency samples. */
#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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
