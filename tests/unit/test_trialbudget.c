/* test_trialbudget.c - the trial budget of replays: trials for a failure rate and confidence,
 * the raise on thin top-k boundary margins, and the statistics behind it: a planted candidate
 * that fails about 1.5 % of trials is caught by the replay's 199 trials about 95 % of the time
 * and by the gate's 3 trials about 4.4 % of the time. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>

#include "rng.h"
#include "trialbudget.h"

static void test_trials(void **state)
{
    (void)state;
    assert_int_equal(trialbudget_trials(0.015, 0.95), 199); /* "about 200" */
    assert_int_equal(trialbudget_trials(0.015, 0.99), 305);
    assert_int_equal(trialbudget_trials(0.5, 0.75), 2); /* exactly enough: no rounding up */
    assert_int_equal(trialbudget_trials(1.0, 0.95), 1);
    assert_int_equal(trialbudget_trials(1.0, 1.0), 1);
    assert_int_equal(trialbudget_trials(0.015, 1.0), -1); /* certainty takes forever */
    assert_int_equal(trialbudget_trials(0.0, 0.95), -1);
    assert_int_equal(trialbudget_trials(-0.1, 0.95), -1);
    assert_int_equal(trialbudget_trials(0.015, 0.0), -1);
    assert_int_equal(trialbudget_trials(NAN, 0.95), -1);
    assert_true(trialbudget_trials(0.001, 0.95) > trialbudget_trials(0.015, 0.95));
}

static void test_catch_probability(void **state)
{
    (void)state;
    assert_float_equal(trialbudget_catch_probability(0.015, 3), 0.0443, 1e-4);
    assert_float_equal(trialbudget_catch_probability(0.015, 100), 0.779, 1e-3);
    assert_true(trialbudget_catch_probability(0.015, 199) >= 0.95);
    assert_true(trialbudget_catch_probability(0.015, 198) < 0.95);
    assert_float_equal(trialbudget_catch_probability(0.015, 0), 0.0, 0.0);
}

static void test_margin(void **state)
{
    (void)state;
    const double s[] = {10.0, 9.0, 5.0, 4.99, -2.0};
    assert_float_equal(trialbudget_margin(s, 5, 3), 0.01 / 10.0, 1e-12);
    assert_float_equal(trialbudget_margin(s, 5, 1), 1.0 / 10.0, 1e-12);
    const double neg[] = {1.0, -3.0, -20.0};
    assert_float_equal(trialbudget_margin(neg, 3, 1), 4.0 / 20.0, 1e-12); /* scale: largest magnitude */
    assert_true(isinf(trialbudget_margin(s, 3, 3)));                      /* every score is chosen */
    const double zero[] = {0.0, 0.0, 0.0};
    assert_float_equal(trialbudget_margin(zero, 3, 1), 0.0, 0.0);
}

static void test_margin_raise(void **state)
{
    (void)state;
    trialbudget_policy p = trialbudget_default();
    assert_int_equal(trialbudget_for_margin(&p, INFINITY), 199);
    assert_int_equal(trialbudget_for_margin(&p, NAN), 199);
    assert_int_equal(trialbudget_for_margin(&p, 1e-3), 199);
    assert_int_equal(trialbudget_for_margin(&p, 1e-5), 199);
    assert_int_equal(trialbudget_for_margin(&p, 5e-6), 398);
    assert_int_equal(trialbudget_for_margin(&p, 2.5e-6), 796);
    assert_int_equal(trialbudget_for_margin(&p, 1e-9), 796); /* capped at 4x */
    assert_int_equal(trialbudget_for_margin(&p, 0.0), 796);
    p.failure_rate = 0.0;
    assert_int_equal(trialbudget_for_margin(&p, 1e-9), -1);
}

/* A planted candidate: in replay R it fails trial T when a uniform draw of (R, T) is below P. */
static int planted_fails(uint64_t replay, int trial, double p)
{
    uint64_t bits = rng_bits(rng_key(7, "planted", (int)replay, 0), (uint64_t)trial);
    return (double)(bits >> 11) * 0x1p-53 < p;
}

/* The share of REPLAYS replays of N trials each in which the planted candidate fails a trial. */
static double caught_share(int n, int replays, double p)
{
    int caught = 0;
    for (int r = 0; r < replays; r++) {
        int t = 0;
        while (t < n && !planted_fails((uint64_t)r, t, p))
            t++;
        caught += t < n;
    }
    return (double)caught / replays;
}

static void test_planted_candidate(void **state)
{
    (void)state;
    const double p = 0.015;
    const int replays = 4000;
    int n = trialbudget_trials(p, 0.95);
    double replay = caught_share(n, replays, p), gate = caught_share(3, replays, p);
    print_message("planted p = %.3f: %d trials catch it in %.1f%% of %d replays, 3 trials in %.1f%%\n", p, n,
                  100 * replay, replays, 100 * gate);
    assert_true(replay >= 0.93 && replay <= 0.97); /* 95 % expected; 4000 replays: sd 0.35 % */
    assert_true(gate <= 0.08);                     /* 4.4 % expected: three trials usually miss it */
    assert_true(gate >= 0.02);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trials),       cmocka_unit_test(test_catch_probability), cmocka_unit_test(test_margin),
        cmocka_unit_test(test_margin_raise), cmocka_unit_test(test_planted_candidate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
