/* stats.h - summary statistics of latency samples. */
#ifndef KWB_STATS_H
#define KWB_STATS_H

#include <stddef.h>
#include <stdint.h>

/* Summary of n samples; all zero when n == 0. Quartiles use linear interpolation
 * between order statistics (the "type 7" rule of R and numpy). */
typedef struct stats_summary {
    size_t n;
    double mean;
    double median;
    double min;
    double max;
    double q1;
    double q3;
    double iqr;    /* q3 - q1 */
    double stddev; /* sample standard deviation (n - 1); 0 when n < 2 */
    double rsd;    /* stddev / mean; 0 when mean == 0 */
} stats_summary;

/* Summarizes x[0..n); x is not modified. */
stats_summary stats_summarize(const double *x, size_t n);
/* Relative standard deviation of x[0..n) (0 when n < 2 or the mean is 0). */
double stats_rsd(const double *x, size_t n);
/* The q-quantile (0 <= q <= 1) of sorted[0..n) by linear interpolation; 0 when n == 0. */
double stats_quantile_sorted(const double *sorted, size_t n, double q);
/* The ranks (1-based, *lo < *hi) of the order statistics that bound a distribution-free
 * CONFIDENCE interval of the median of N samples: the largest lo with P(Bin(N, 1/2) < lo) <=
 * (1 - CONFIDENCE) / 2, exact up to 1000 samples and by the normal approximation above, and
 * hi = N + 1 - lo. Returns 0, or -1 when N is too small for any such interval. */
int stats_median_ci_ranks(size_t n, double confidence, size_t *lo, size_t *hi);
/* The half-width of that interval over sorted[0..n) relative to the median
 * ((x[hi] - x[lo]) / 2 / median); INFINITY when n is too small or the median is not > 0. */
double stats_median_ci_rel(const double *sorted, size_t n, double confidence);
/* The half-width relative to the median of x[0..n) of a CONFIDENCE interval of that median when
 * the samples come in groups that may differ from one another (calls on one input set, at one
 * placement): GROUP[i] names sample i's group, a group being a maximal run of equal names in
 * order. The interval is a cluster bootstrap's (RESAMPLES draws of as many groups as there are,
 * with replacement, keyed by SEED; percentiles of the pooled medians). INFINITY when there are
 * fewer than 2 groups or the median is not > 0; *GROUPS (may be NULL) gets the group count. */
double stats_median_ci_rel_grouped(const double *x, const int *group, size_t n, double confidence, int resamples,
                                   uint64_t seed, size_t *groups);
/* The variance components of x[0..n) in groups (GROUP as stats_median_ci_rel_grouped's): *WITHIN
 * the pooled variance of samples around their group's mean (groups of 2 or more), *BETWEEN that of
 * the groups' own means (the variance of the group means less the share of *WITHIN each carries, at
 * least 0). Returns the group count; both are 0 with fewer than 2 groups or no group of 2. */
size_t stats_variance_parts(const double *x, const int *group, size_t n, double *within, double *between);
/* Median of x[0..n), n >= 1 (mean of the two middle values when n is even); reorders x. */
double stats_median_inplace(double *x, size_t n);
/* Uniform index in [0, n) from 64 random bits (multiply-shift; bias < n / 2^64). */
size_t stats_draw_index(uint64_t bits, size_t n);
/* Sorts x[0..n) in place, ascending (NaNs last). */
void stats_sort(double *x, size_t n);
/* Geometric mean of the positive values in x[0..n); 0 when there are none. */
double stats_geomean(const double *x, size_t n);

#endif
