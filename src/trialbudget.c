/* trialbudget.c - trials a replay needs (trialbudget.h). */
#include "trialbudget.h"

#include <math.h>

trialbudget_policy trialbudget_default(void)
{
    return (trialbudget_policy){0.015, 0.95, 1e-5, 4.0};
}

int trialbudget_trials(double p, double c)
{
    if (!(p > 0.0 && p <= 1.0 && c > 0.0 && c <= 1.0))
        return -1;
    if (p == 1.0)
        return 1;
    if (c == 1.0)
        return -1; /* no finite number of trials is certain */
    /* The smallest n with 1 - (1 - p)^n >= c; the nudge keeps an exact n from rounding up. */
    double n = log1p(-c) / log1p(-p);
    return (int)ceil(n - 1e-9);
}

double trialbudget_catch_probability(double p, int n)
{
    return n <= 0 ? 0.0 : -expm1((double)n * log1p(-p));
}

int trialbudget_for_margin(const trialbudget_policy *pol, double margin)
{
    int base = trialbudget_trials(pol->failure_rate, pol->confidence);
    if (base < 0 || isnan(margin) || margin >= pol->thin_margin)
        return base;
    double factor = margin > 0.0 ? pol->thin_margin / margin : pol->max_factor;
    if (factor > pol->max_factor)
        factor = pol->max_factor;
    return (int)ceil((double)base * factor);
}

double trialbudget_margin(const double *sorted_desc, size_t n, size_t k)
{
    if (k == 0 || n <= k)
        return INFINITY;
    double scale = fmax(fabs(sorted_desc[0]), fabs(sorted_desc[n - 1]));
    if (scale == 0.0)
        return 0.0;
    return (sorted_desc[k - 1] - sorted_desc[k]) / scale;
}
