#include "check.h"

#include <math.h>
#include <string.h>

#include "dtype.h"

check_policy check_policy_default(void)
{
    check_policy p = {1e-2, 1e-2, 1.0};
    return p;
}

/* Classifies one pair; returns 1 when it fails. Updates the error maxima. */
static int check_element(double x, double y, const check_policy *p, check_stats *st)
{
    if (isnan(x) || isnan(y)) {
        st->nonfinite += isnan(x);
        return 1;
    }
    if (isinf(x) || isinf(y)) {
        int same = x == y;
        st->nonfinite += !same && isinf(x);
        return !same;
    }
    double abs_err = fabs(x - y);
    double rel_err = abs_err / (fabs(y) + 1e-8);
    if (abs_err > st->max_abs)
        st->max_abs = abs_err;
    if (rel_err > st->max_rel)
        st->max_rel = rel_err;
    return abs_err > p->atol && rel_err > p->rtol;
}

void check_tolerance(const void *out, const void *ref, kwb_dtype t, size_t n, const check_policy *p,
                     check_stats *st)
{
    memset(st, 0, sizeof *st);
    st->numel = n;
    int narrow = dtype_is_float(t);  /* FlashInfer-Bench compares floats in float32 */
    for (size_t i = 0; i < n; i++) {
        double x = dtype_load(out, t, i), y = dtype_load(ref, t, i);
        if (narrow) {
            x = (float)x;
            y = (float)y;
        }
        if (check_element(x, y, p, st)) {
            if (st->fails == 0)
                st->first_fail = i;
            st->fails++;
        }
    }
    st->matched_ratio = n ? 1.0 - (double)st->fails / (double)n : 1.0;
}

int check_passed(const check_stats *st, const check_policy *p)
{
    return st->nonfinite == 0 && st->matched_ratio >= p->required_ratio;
}

void check_stats_merge(check_stats *a, const check_stats *b)
{
    if (a->numel == 0) {
        *a = *b;
        return;
    }
    if (a->fails == 0 && b->fails > 0)
        a->first_fail = b->first_fail;
    a->numel += b->numel;
    a->fails += b->fails;
    a->nonfinite += b->nonfinite;
    a->max_abs = fmax(a->max_abs, b->max_abs);
    a->max_rel = fmax(a->max_rel, b->max_rel);
    a->matched_ratio = fmin(a->matched_ratio, b->matched_ratio);
}
