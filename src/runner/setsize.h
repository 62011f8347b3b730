/* setsize.h - how many timed calls an input set is worth when the median's interval is bound by
 * the input sets (their medians differ more than the calls on one do). */
#ifndef KWB_RUNNER_SETSIZE_H
#define KWB_RUNNER_SETSIZE_H

/* The mean number of calls per input set (the first, checked, call on it included) that narrows
 * the median's interval most per second: a set costs SET_COST_S (fresh inputs, their reference,
 * the checked first call) and each further call CALL_COST_S; the set's mean carries the
 * between-set variance plus the within-set variance over its calls, WITHIN_BETWEEN being their
 * ratio. Minimising cost times variance gives 1 + sqrt(WITHIN_BETWEEN * SET_COST_S / CALL_COST_S)
 * calls, kept within [2, MOST]; MOST when a figure is unknown (not finite or not > 0). */
double setsize_mean_calls(double within_between, double set_cost_s, double call_cost_s, double most);

#endif
