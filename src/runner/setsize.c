/* setsize.c - see setsize.h. */
#include "runner/setsize.h"

#include <math.h>

double setsize_mean_calls(double within_between, double set_cost_s, double call_cost_s, double most)
{
    if (!(within_between > 0) || !isfinite(within_between) || !(set_cost_s > 0) || !isfinite(set_cost_s) ||
        !(call_cost_s > 0) || !isfinite(call_cost_s))
        return most;
    double calls = 1 + sqrt(within_between * set_cost_s / call_cost_s);
    return calls < 2 ? 2 : calls > most ? most : calls;
}
