/* regimes.h - workloads grouped into 2-4 regimes (DESIGN.md section 10): contiguous ranges of
 * a size key (an axis, or the product of the var axes), chosen so that latency is spread as
 * evenly as the ranges allow; a key value holding a third or more of the total latency is a
 * regime of its own. */
#ifndef KWB_REGIMES_H
#define KWB_REGIMES_H

#define REGIMES_MAX 4

typedef struct regime {
    double key_lo, key_hi; /* the range of the size key */
    int count;             /* workloads in it */
    double share;          /* of the total latency */
} regime;

/* Splits N workloads with size KEY[i] and latency LATENCY_MS[i] (> 0; a 0 counts as the
 * smallest positive one) into regimes, smallest keys first: writes them to OUT (room for
 * REGIMES_MAX), the regime of workload i to ASSIGN[i], and returns their count (1 when all
 * keys are equal, 0 when N is 0). */
int regimes_split(const double *key, const double *latency_ms, int n, regime *out, int *assign);

#endif
