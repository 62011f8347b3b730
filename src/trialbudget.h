/* trialbudget.h - how many trials a replay needs to catch a flaky candidate (DESIGN.md
 * section 6). A candidate that fails a fraction p of trials (a race, a top-k tie rule that is
 * wrong near the boundary) passes n independent trials with probability (1 - p)^n, so
 * catching it with confidence c takes n = ceil(ln(1 - c) / ln(1 - p)) trials: 199 for
 * p = 1.5 %, c = 95 % (3 trials catch it 4.4 % of the time).
 *
 * Boundary-sensitive definitions (top-k) get more on workloads whose top-k boundary margin is
 * thin, where a wrong choice near the cut is both most likely and hardest to see: with the
 * relative margin m = (s_k - s_{k+1}) / max |s| of the reference's sorted scores (the smallest
 * over a workload's rows and gate trials), a workload with m < thin gets min(max_factor,
 * thin / m) times the trials (the budget of a failure rate that much lower). The default thin
 * margin, 1e-5, is about 40 times the error of float32 scores relative to max |s| on the DSA
 * top-k inputs (2e-7): below it, kernels with coarser arithmetic flip the boundary. */
#ifndef KWB_TRIALBUDGET_H
#define KWB_TRIALBUDGET_H

#include <stddef.h>

typedef struct trialbudget_policy {
    double failure_rate; /* p: the per-trial failure rate to catch (0.015) */
    double confidence;   /* c: the probability of catching it (0.95) */
    double thin_margin;  /* relative boundary margin below which trials are raised (1e-5) */
    double max_factor;   /* the most they are raised by (4) */
} trialbudget_policy;

/* p = 1.5 %, c = 95 %, thin margin 1e-5, at most 4 times. */
trialbudget_policy trialbudget_default(void);

/* Trials needed to see at least one failure of a candidate failing a fraction P of trials
 * with probability C; -1 when P or C is outside (0, 1]. C = 1 needs P = 1 (one trial). */
int trialbudget_trials(double p, double c);

/* The probability that N trials catch a candidate failing a fraction P of them. */
double trialbudget_catch_probability(double p, int n);

/* Trials for a workload whose relative boundary margin is MARGIN under POL (INFINITY: it has
 * no boundary, NAN: unknown, both get the base count; 0, a tie at the cut, gets the most); -1
 * when POL's rate or confidence is invalid. */
int trialbudget_for_margin(const trialbudget_policy *pol, double margin);

/* The relative top-K boundary margin of N scores sorted in descending order:
 * (s[k-1] - s[k]) / max(|s[0]|, |s[n-1]|); INFINITY when N <= K (every score is chosen), 0
 * when all scores are 0. */
double trialbudget_margin(const double *sorted_desc, size_t n, size_t k);

#endif
