/* verdict.h - the paired gate: is candidate B faster than baseline A? (DESIGN §7,
 * TIMING-AND-INTEGRITY §6).
 *
 * The rule:
 *   statistic   (< 0: the candidate is faster)
 *               paired (na == nb, verdict_decide): the samples are paired by index (run
 *                 interleaved A B B A ...), d_i = log(b_i / a_i), and s = median(d);
 *               unpaired (na != nb, or verdict_decide_unpaired):
 *                 s = log(median(b)) - log(median(a)).
 *   interval    percentile bootstrap CI of s at the given confidence, from `resamples`
 *               resamples of indices drawn with rng_bits (rng.h) under a key made from
 *               `seed`, so that a fixed seed gives the same verdict bit for bit. Paired: the
 *               pair indices are resampled (each resample is the median of d over the drawn
 *               pairs), so that drift shared by a pair cancels within each d_i and the
 *               interval stays tight; unpaired: a and b are resampled independently.
 *   threshold   L = log(1 + threshold):
 *               hi < -L               -> VERDICT_FASTER
 *               lo > +L               -> VERDICT_SLOWER
 *               -L <= lo, hi <= +L    -> VERDICT_SAME
 *               anything else         -> VERDICT_UNCLEAR (take more samples)
 *   Fewer than VERDICT_MIN_SAMPLES on either side, or invalid arguments (a NULL array, a
 *   sample that is not finite and > 0, threshold < 0 or not finite, confidence outside
 *   (0, 1), resamples < 1) -> VERDICT_UNCLEAR.
 */
#ifndef KWB_VERDICT_H
#define KWB_VERDICT_H

#include <stddef.h>
#include <stdint.h>

/* The fewest samples on each side that the gate decides on. */
#define VERDICT_MIN_SAMPLES 5

/* The outcome of one gate. */
typedef enum verdict_kind { VERDICT_FASTER, VERDICT_SAME, VERDICT_SLOWER, VERDICT_UNCLEAR } verdict_kind;

/* One decision and its evidence; ratio, lo and hi are NAN where they could not be computed. */
typedef struct verdict {
    verdict_kind kind;
    double ratio;      /* exp(s), the point estimate (< 1: candidate faster): paired,
                          exp(median_i log(b_i / a_i)), the median per-pair ratio; unpaired,
                          median(candidate)/median(baseline) */
    double lo, hi;     /* bootstrap confidence interval of that ratio (exp of the log-space CI) */
    double confidence; /* as given, e.g. 0.95 */
    double threshold;  /* practical threshold as given, e.g. 0.01 */
    int resamples;     /* as given */
} verdict;

/* Decides from baseline a[0..na) and candidate b[0..nb) (times, e.g. ms; paired by index
 * when na == nb) by the rule above; inputs are not modified; never fails (UNCLEAR instead). */
verdict verdict_decide(const double *a, size_t na, const double *b, size_t nb, double threshold, double confidence,
                       int resamples, uint64_t seed);

/* Same as verdict_decide but always resamples a and b independently (runs not interleaved). */
verdict verdict_decide_unpaired(const double *a, size_t na, const double *b, size_t nb, double threshold,
                                double confidence, int resamples, uint64_t seed);

/* "faster", "same", "slower" or "unclear"; "?" for a value outside the enum. */
const char *verdict_name(verdict_kind k);

#endif
