/* check.h - the tolerance checker: FlashInfer-Bench's element rule and matched ratio. */
#ifndef KWB_CHECK_H
#define KWB_CHECK_H

#include <stddef.h>

#include "kwb/kernel.h"
#include "kwb/reference.h"

/* The tolerances (atol, rtol, required_ratio): the public type a reference's kwb_check gets. */
typedef kwb_check_policy check_policy;

/* Outcome of comparing one output of one trial (numel, fails, nonfinite, max_abs, max_rel,
 * matched_ratio, first_fail): the public type a reference's kwb_check fills. */
typedef kwb_check_stats check_stats;

/* FlashInfer-Bench's defaults: atol 1e-2, rtol 1e-2, ratio 1.0. */
check_policy check_policy_default(void);

/* Bit-for-bit equality as a policy: atol 0, rtol 0, ratio 1.0 (an output that is the reference's). */
check_policy check_policy_exact(void);

/* Compares N elements of OUT against REF (both of type T). An element fails when
 * |out - ref| > atol AND |out - ref| / (|ref| + 1e-8) > rtol, computed in float32 for
 * floating-point types (FlashInfer-Bench's arithmetic) and exactly for integers; NaN
 * never passes; an infinity passes only where the reference has the same one. */
void check_tolerance(const void *out, const void *ref, kwb_dtype t, size_t n, const check_policy *p, check_stats *st);

/* True when st passes p: no NaN or stray infinity in the output, matched ratio >= required ratio. */
int check_passed(const check_stats *st, const check_policy *p);

/* Folds b into a (sums counts, maxima of errors, minimum of ratios). */
void check_stats_merge(check_stats *a, const check_stats *b);
/* check_tolerance with each row of ROW elements (the last dimension) compared as a multiset:
 * both rows sorted, then element by element ("kwb": {"check": {"order": "any"}}: top-k
 * indices, sets of choices in any order). first_fail is an index into the sorted row's span. */
void check_tolerance_rows_any_order(const void *out, const void *ref, kwb_dtype t, size_t n, size_t row,
                                    const check_policy *p, check_stats *st);

#endif
