/* stats.h - summary statistics of latency samples. */
#ifndef KWB_STATS_H
#define KWB_STATS_H

#include <stddef.h>

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
    double iqr;     /* q3 - q1 */
    double stddev;  /* sample standard deviation (n - 1); 0 when n < 2 */
    double rsd;     /* stddev / mean; 0 when mean == 0 */
} stats_summary;

/* Summarizes x[0..n); x is not modified. */
stats_summary stats_summarize(const double *x, size_t n);
/* Relative standard deviation of x[0..n) (0 when n < 2 or the mean is 0). */
double stats_rsd(const double *x, size_t n);
/* The q-quantile (0 <= q <= 1) of sorted[0..n) by linear interpolation; 0 when n == 0. */
double stats_quantile_sorted(const double *sorted, size_t n, double q);
/* Geometric mean of the positive values in x[0..n); 0 when there are none. */
double stats_geomean(const double *x, size_t n);

#endif
