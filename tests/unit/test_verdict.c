/* test_verdict.c - the paired gate on synthetic samples drawn here from a seeded generator:
 * lognormal noise around a base time, a relative difference, shared drift, outliers. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rng.h"
#include "stats.h"
#include "verdict.h"

#define N 200
#define R 2000
#define CONF 0.95
#define T 0.01

/* x[i] = base * exp(sigma * z_i) * drift(i), z_i ~ N(0,1) from key; drift(i) = exp(d * pos / (2n))
 * where pos is the sample's place in the interleaved run A B B A (pair i at 2i and 2i+1). */
static void gen(double *x, size_t n, double base, double sigma, double d, int is_b, uint64_t key)
{
    for (size_t i = 0; i < n; i++) {
        int b_first = (int)(i % 2); /* A B, then B A */
        double pos = (double)(2 * i + (size_t)(is_b != b_first));
        x[i] = base * exp(sigma * rng_normal(key, i)) * exp(d * pos / (2.0 * (double)n));
    }
}

/* Baseline 1 ms and candidate 1 ms * (1 + rel), both with noise sigma and drift d. */
static void pair(double *a, double *b, size_t n, double rel, double sigma, double d, uint64_t dseed)
{
    gen(a, n, 1.0, sigma, d, 0, rng_bits(dseed, 1));
    gen(b, n, 1.0 + rel, sigma, d, 1, rng_bits(dseed, 2));
}

#define expect(v, want) expect_at((v), (want), #v, __LINE__)

static void expect_at(verdict v, verdict_kind want, const char *what, int line)
{
    if (v.kind != want)
        fail_msg("line %d: %s is %s (ratio %.5f, CI [%.5f, %.5f]), want %s", line, what, verdict_name(v.kind), v.ratio,
                 v.lo, v.hi, verdict_name(want));
}

static void test_names(void **state)
{
    (void)state;
    assert_string_equal(verdict_name(VERDICT_FASTER), "faster");
    assert_string_equal(verdict_name(VERDICT_SAME), "same");
    assert_string_equal(verdict_name(VERDICT_SLOWER), "slower");
    assert_string_equal(verdict_name(VERDICT_UNCLEAR), "unclear");
    assert_string_equal(verdict_name((verdict_kind)42), "?");
}

/* The point estimate, odd and even sizes, ties: paired (na == nb) it is exactly
 * exp(median_i log(b_i / a_i)); with na != nb, or verdict_decide_unpaired, it is
 * median(b)/median(a) (stats.c's medians). The inputs are left alone; the CI contains the
 * point estimate; the fields echo the arguments. */
static void check_point(verdict v, double want, size_t n, size_t extra, const char *what)
{
    if (fabs(v.ratio - want) > 1e-12 * want)
        fail_msg("%s n=%zu+%zu: ratio %.17g, want %.17g", what, n, extra, v.ratio, want);
    assert_true(v.lo <= v.ratio * (1 + 1e-12) && v.ratio <= v.hi * (1 + 1e-12));
    assert_true(v.confidence == 0.9 && v.threshold == 0.02 && v.resamples == 300);
}

static void test_ratio_point_estimate(void **state)
{
    (void)state;
    static const size_t sizes[] = {5, 6, 7, 16, 17, 33, 64, 199, 200, 1001};
    for (size_t s = 0; s < sizeof sizes / sizeof *sizes; s++) {
        size_t n = sizes[s];
        double *a = malloc(n * sizeof *a), *b = malloc((n + 3) * sizeof *b);
        double *a0 = malloc(n * sizeof *a), *b0 = malloc((n + 3) * sizeof *b);
        double *d = malloc(n * sizeof *d);
        for (size_t i = 0; i < n; i++)
            a[i] = 1 + (double)rng_uniform(7, i, 0, 9); /* many ties */
        for (size_t i = 0; i < n + 3; i++)
            b[i] = 1 + (double)rng_uniform(8, i, 0, 1000) / 7.0;
        memcpy(a0, a, n * sizeof *a);
        memcpy(b0, b, (n + 3) * sizeof *b);
        for (size_t i = 0; i < n; i++)
            d[i] = log(b[i] / a[i]);
        double of_medians = stats_summarize(b, n).median / stats_summarize(a, n).median;
        double per_pair = exp(stats_summarize(d, n).median);
        /* on these samples the two estimates differ, so each check can tell them apart */
        assert_true(fabs(per_pair - of_medians) > 1e-6 * of_medians);

        check_point(verdict_decide(a, n, b, n, 0.02, 0.9, 300, 11), per_pair, n, 0, "paired");
        check_point(verdict_decide_unpaired(a, n, b, n, 0.02, 0.9, 300, 11), of_medians, n, 0, "unpaired");
        double want3 = stats_summarize(b, n + 3).median / stats_summarize(a, n).median;
        check_point(verdict_decide(a, n, b, n + 3, 0.02, 0.9, 300, 11), want3, n, 3, "na != nb");

        assert_memory_equal(a, a0, n * sizeof *a);
        assert_memory_equal(b, b0, (n + 3) * sizeof *b);
        free(a), free(b), free(a0), free(b0), free(d);
    }
}

/* Over several data sets (so no single lucky draw passes): rel, sigma, threshold -> want. */
static void expect_over_seeds(double rel, double sigma, double t, verdict_kind want)
{
    double a[N], b[N];
    for (uint64_t ds = 1; ds <= 8; ds++) {
        pair(a, b, N, rel, sigma, 0, ds);
        verdict v = verdict_decide(a, N, b, N, t, CONF, R, 100 + ds);
        if (v.kind != want)
            fail_msg("rel %g sigma %g t %g data seed %llu: %s (ratio %.5f CI [%.5f, %.5f]), want %s", rel, sigma, t,
                     (unsigned long long)ds, verdict_name(v.kind), v.ratio, v.lo, v.hi, verdict_name(want));
    }
}

static void test_identical_same(void **state)
{
    (void)state;
    expect_over_seeds(0, 0.01, T, VERDICT_SAME);
}

static void test_five_percent_slower(void **state)
{
    (void)state;
    expect_over_seeds(0.05, 0.01, T, VERDICT_SLOWER);
}

static void test_five_percent_faster(void **state)
{
    (void)state;
    expect_over_seeds(-0.05, 0.01, T, VERDICT_FASTER);
}

/* 0.5% is below the 1% threshold: same; with no threshold the same data is slower/faster. */
static void test_half_percent_below_threshold(void **state)
{
    (void)state;
    expect_over_seeds(0.005, 0.01, T, VERDICT_SAME);
    expect_over_seeds(0.005, 0.01, 0, VERDICT_SLOWER);
    expect_over_seeds(-0.005, 0.01, T, VERDICT_SAME);
    expect_over_seeds(-0.005, 0.01, 0, VERDICT_FASTER);
}

/* 20% noise hides a 3% difference at 200 samples (the CI is about +-5% wide): over 20 data
 * sets the gate mostly answers unclear and never same or the wrong direction. (Over 1000 data
 * sets it answers unclear 85-98% of the time, so the floor of 14/20 fails by chance < 2%.) */
static void huge_noise(double rel, double t)
{
    double a[N], b[N];
    int unclear = 0;
    for (uint64_t ds = 1; ds <= 20; ds++) {
        pair(a, b, N, rel, 0.20, 0, ds);
        verdict v = verdict_decide(a, N, b, N, t, CONF, R, ds);
        verdict_kind wrong = rel > 0 ? VERDICT_FASTER : VERDICT_SLOWER;
        if (v.kind == VERDICT_SAME || v.kind == wrong)
            fail_msg("rel %g t %g data seed %llu: %s (CI [%.5f, %.5f])", rel, t, (unsigned long long)ds,
                     verdict_name(v.kind), v.lo, v.hi);
        unclear += v.kind == VERDICT_UNCLEAR;
    }
    if (unclear < 14)
        fail_msg("rel %g t %g: unclear only %d/20", rel, t, unclear);
}

static void test_huge_noise_unclear(void **state)
{
    (void)state;
    huge_noise(0.03, 0.03);
    huge_noise(0.03, T);
    huge_noise(-0.03, T);
}

/* The 95% interval covers the true ratio in about 95% of 200 data sets (n = 100). */
static void test_coverage(void **state)
{
    (void)state;
    double a[100], b[100];
    int covered = 0;
    for (uint64_t ds = 1; ds <= 200; ds++) {
        pair(a, b, 100, 0.02, 0.02, 0, 1000 + ds);
        verdict v = verdict_decide(a, 100, b, 100, T, CONF, 500, ds);
        covered += v.lo <= 1.02 && 1.02 <= v.hi;
    }
    print_message("coverage of the 95%% CI: %d/200\n", covered);
    assert_true(covered >= 180 && covered <= 199);
}

/* The clock drifts the whole run up by 2x (shared by both, A B B A): the paired bootstrap
 * still sees the 5% gain; resampling a and b independently cannot (the drift spread swamps
 * it), and its interval is several times wider. */
static void test_drift_paired_vs_unpaired(void **state)
{
    (void)state;
    double a[N], b[N];
    for (uint64_t ds = 1; ds <= 8; ds++) {
        pair(a, b, N, -0.05, 0.01, log(2.0), ds);
        verdict p = verdict_decide(a, N, b, N, T, CONF, R, ds);
        verdict u = verdict_decide_unpaired(a, N, b, N, T, CONF, R, ds);
        expect(p, VERDICT_FASTER);
        expect(u, VERDICT_UNCLEAR);
        double wp = log(p.hi) - log(p.lo), wu = log(u.hi) - log(u.lo);
        if (!(wu > 3 * wp))
            fail_msg("data seed %llu: unpaired width %.5f not > 3x paired %.5f", (unsigned long long)ds, wu, wp);
        /* nb != na falls back to independent resampling: also unclear */
        expect(verdict_decide(a, N, b, N - 1, T, CONF, R, ds), VERDICT_UNCLEAR);
    }
}

/* A milder 10% drift and no difference: paired says same every time; unpaired mostly cannot
 * tell (its ratio-of-medians CI widens with drift: about 2x at 10%). */
static void test_drift_same(void **state)
{
    (void)state;
    double a[N], b[N];
    int unpaired_same = 0;
    for (uint64_t ds = 1; ds <= 8; ds++) {
        pair(a, b, N, 0, 0.01, 0.1, ds);
        expect(verdict_decide(a, N, b, N, T, CONF, R, ds), VERDICT_SAME);
        verdict u = verdict_decide_unpaired(a, N, b, N, T, CONF, R, ds);
        assert_true(u.kind == VERDICT_SAME || u.kind == VERDICT_UNCLEAR);
        unpaired_same += u.kind == VERDICT_SAME;
    }
    if (unpaired_same > 3)
        fail_msg("unpaired resampling said same %d/8 times under drift", unpaired_same);
}

/* 30% drift shared by both sides (A B B A) and no real difference, 20 data sets: the paired
 * median of log(b_i / a_i) cancels the drift within each pair, so the gate says same on at
 * least 19/20 and its log-space interval stays under 0.01 wide every time. The drift is real:
 * the unpaired interval on the same data is several times wider. */
static void test_drift_30_percent_same(void **state)
{
    (void)state;
    double a[N], b[N];
    int same = 0;
    for (uint64_t ds = 1; ds <= 20; ds++) {
        pair(a, b, N, 0, 0.01, log(1.3), 500 + ds);
        verdict p = verdict_decide(a, N, b, N, T, CONF, R, ds);
        verdict u = verdict_decide_unpaired(a, N, b, N, T, CONF, R, ds);
        double wp = log(p.hi) - log(p.lo), wu = log(u.hi) - log(u.lo);
        if (!(wp < 0.01))
            fail_msg("data seed %llu: paired log-space width %.5f, want < 0.01 (%s, ratio %.5f)",
                     (unsigned long long)ds, wp, verdict_name(p.kind), p.ratio);
        if (!(wu > 3 * wp))
            fail_msg("data seed %llu: unpaired width %.5f not > 3x paired %.5f", (unsigned long long)ds, wu, wp);
        same += p.kind == VERDICT_SAME;
    }
    print_message("30%% shared drift, no difference: paired same %d/20\n", same);
    if (same < 19)
        fail_msg("paired gate said same only %d/20 times under 30%% shared drift", same);
}

static void same_verdict(verdict x, verdict y)
{
    assert_int_equal(x.kind, y.kind);
    assert_memory_equal(&x.ratio, &y.ratio, sizeof x.ratio); /* bit for bit */
    assert_memory_equal(&x.lo, &y.lo, sizeof x.lo);
    assert_memory_equal(&x.hi, &y.hi, sizeof x.hi);
    assert_true(x.confidence == y.confidence && x.threshold == y.threshold);
    assert_int_equal(x.resamples, y.resamples);
}

/* A fixed seed gives the same result bit for bit; another seed another interval. */
static void test_deterministic(void **state)
{
    (void)state;
    double a[N], b[N];
    pair(a, b, N, 0.01, 0.02, 0, 3);
    verdict v1 = verdict_decide(a, N, b, N, T, CONF, R, 42);
    verdict v2 = verdict_decide(a, N, b, N, T, CONF, R, 42);
    same_verdict(v1, v2);
    verdict u1 = verdict_decide_unpaired(a, N, b, N, T, CONF, R, 42);
    verdict u2 = verdict_decide_unpaired(a, N, b, N, T, CONF, R, 42);
    same_verdict(u1, u2);
    assert_true(u1.lo != v1.lo || u1.hi != v1.hi); /* paired and unpaired draw differently */
    verdict v3 = verdict_decide(a, N, b, N, T, CONF, R, 43);
    assert_true(v3.ratio == v1.ratio); /* the point estimate does not depend on the seed */
    assert_true(v3.lo != v1.lo || v3.hi != v1.hi);
    /* golden values, so that a change of the statistic or the resampling stream is noticed */
    verdict g = verdict_decide(a, 20, b, 20, T, CONF, 500, 1);
    char buf[128];
    snprintf(buf, sizeof buf, "%s %.6f %.6f %.6f", verdict_name(g.kind), g.ratio, g.lo, g.hi);
    print_message("golden: %s\n", buf);
    assert_string_equal(buf, "unclear 1.014142 1.001313 1.028608");
    g = verdict_decide_unpaired(a, 20, b, 20, T, CONF, 500, 1);
    snprintf(buf, sizeof buf, "%s %.6f %.6f %.6f", verdict_name(g.kind), g.ratio, g.lo, g.hi);
    print_message("golden unpaired: %s\n", buf);
    assert_string_equal(buf, "unclear 1.017758 0.991966 1.036854");
}

/* Fewer than 5 samples on either side: unclear even for a 2x difference; 5 decides. */
static void test_too_few(void **state)
{
    (void)state;
    double a[N], b[N];
    pair(a, b, N, 1.0, 0.01, 0, 4); /* candidate 2x slower */
    expect(verdict_decide(a, 4, b, N, T, CONF, R, 1), VERDICT_UNCLEAR);
    expect(verdict_decide(a, N, b, 4, T, CONF, R, 1), VERDICT_UNCLEAR);
    expect(verdict_decide(a, 4, b, 4, T, CONF, R, 1), VERDICT_UNCLEAR);
    expect(verdict_decide(a, 0, b, 0, T, CONF, R, 1), VERDICT_UNCLEAR);
    expect(verdict_decide(a, 5, b, 5, T, CONF, R, 1), VERDICT_SLOWER);
    expect(verdict_decide(a, 5, b, 6, T, CONF, R, 1), VERDICT_SLOWER);
    verdict v = verdict_decide(a, 4, b, 4, T, CONF, R, 1);
    assert_true(isnan(v.lo) && isnan(v.hi));
    assert_true(v.ratio > 1.9 && v.ratio < 2.1); /* still reported */
}

/* A few 10x samples (preemption, a page fault) on both sides don't flip same: medians. */
static void test_outliers_keep_same(void **state)
{
    (void)state;
    double a[N], b[N];
    for (uint64_t ds = 1; ds <= 8; ds++) {
        pair(a, b, N, 0, 0.01, 0, ds);
        a[3] *= 10, a[50] *= 10, a[51] *= 10, a[120] *= 10, a[199] *= 10;
        b[7] *= 10, b[90] *= 10;
        double mean_ratio = stats_summarize(b, N).mean / stats_summarize(a, N).mean;
        assert_true(mean_ratio < 0.9); /* a mean-based gate would call this faster */
        expect(verdict_decide(a, N, b, N, T, CONF, R, ds), VERDICT_SAME);
        expect(verdict_decide_unpaired(a, N, b, N, T, CONF, R, ds), VERDICT_SAME);
    }
}

/* Invalid arguments give unclear, never a crash or a confident call. */
static void test_invalid(void **state)
{
    (void)state;
    double a[N], b[N];
    pair(a, b, N, 0.5, 0.01, 0, 6); /* clearly slower when valid */
    expect(verdict_decide(a, N, b, N, T, CONF, R, 1), VERDICT_SLOWER);
    expect(verdict_decide(NULL, N, b, N, T, CONF, R, 1), VERDICT_UNCLEAR);
    expect(verdict_decide(a, N, NULL, N, T, CONF, R, 1), VERDICT_UNCLEAR);
    expect(verdict_decide(a, N, b, N, -0.01, CONF, R, 1), VERDICT_UNCLEAR);
    expect(verdict_decide(a, N, b, N, NAN, CONF, R, 1), VERDICT_UNCLEAR);
    expect(verdict_decide(a, N, b, N, T, 0, R, 1), VERDICT_UNCLEAR);
    expect(verdict_decide(a, N, b, N, T, 1, R, 1), VERDICT_UNCLEAR);
    expect(verdict_decide(a, N, b, N, T, NAN, R, 1), VERDICT_UNCLEAR);
    expect(verdict_decide(a, N, b, N, T, CONF, 0, 1), VERDICT_UNCLEAR);
    static const double bad[] = {0.0, -1.0, NAN, INFINITY};
    for (size_t k = 0; k < 4; k++) {
        double save = b[17];
        b[17] = bad[k];
        verdict v = verdict_decide(a, N, b, N, T, CONF, R, 1);
        expect(v, VERDICT_UNCLEAR);
        assert_true(isnan(v.ratio));
        b[17] = save;
    }
    /* threshold 0: nothing is "same" unless the interval is a point */
    pair(a, b, N, 0, 0.01, 0, 7);
    expect(verdict_decide(a, N, b, N, 0, CONF, R, 1), VERDICT_UNCLEAR);
    expect(verdict_decide(a, N, a, N, 0, CONF, R, 1), VERDICT_SAME); /* paired, identical */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_ratio_point_estimate),
        cmocka_unit_test(test_identical_same),
        cmocka_unit_test(test_five_percent_slower),
        cmocka_unit_test(test_five_percent_faster),
        cmocka_unit_test(test_half_percent_below_threshold),
        cmocka_unit_test(test_huge_noise_unclear),
        cmocka_unit_test(test_coverage),
        cmocka_unit_test(test_drift_paired_vs_unpaired),
        cmocka_unit_test(test_drift_same),
        cmocka_unit_test(test_drift_30_percent_same),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_too_few),
        cmocka_unit_test(test_outliers_keep_same),
        cmocka_unit_test(test_invalid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
