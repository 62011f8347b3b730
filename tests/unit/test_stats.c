/* test_stats.c - summary statistics against hand-computed values (type-7 quantiles). */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "stats.h"

#define near(got, want) near_at((got), (want), #got, __LINE__)

static void near_at(double got, double want, const char *what, int line)
{
    if (!(fabs(got - want) <= 1e-12 * fmax(1.0, fabs(want))))
        fail_msg("line %d: %s = %.17g, want %.17g", line, what, got, want);
}

static void test_empty(void **state)
{
    (void)state;
    stats_summary s = stats_summarize(NULL, 0);
    stats_summary zero;
    memset(&zero, 0, sizeof zero);
    assert_memory_equal(&s, &zero, sizeof s);
    assert_true(stats_quantile_sorted(NULL, 0, 0.5) == 0);
    assert_true(stats_rsd(NULL, 0) == 0);
    assert_true(stats_geomean(NULL, 0) == 0);
}

static void test_one(void **state)
{
    (void)state;
    const double x[] = {5};
    stats_summary s = stats_summarize(x, 1);
    assert_int_equal(s.n, 1);
    near(s.mean, 5);
    near(s.median, 5);
    near(s.min, 5);
    near(s.max, 5);
    near(s.q1, 5);
    near(s.q3, 5);
    near(s.iqr, 0);
    near(s.stddev, 0);
    near(s.rsd, 0);
    near(stats_rsd(x, 1), 0);
    near(stats_quantile_sorted(x, 1, 1.0), 5);
}

static void test_two(void **state)
{
    (void)state;
    const double x[] = {3, 1};
    stats_summary s = stats_summarize(x, 2);
    near(s.mean, 2);
    near(s.median, 2); /* h = 0.5 */
    near(s.q1, 1.5);   /* h = 0.25 */
    near(s.q3, 2.5);   /* h = 0.75 */
    near(s.iqr, 1);
    near(s.min, 1);
    near(s.max, 3);
    near(s.stddev, sqrt(2)); /* ((1-2)^2 + (3-2)^2) / 1 */
    near(s.rsd, sqrt(2) / 2);
}

static void test_odd_unsorted_not_modified(void **state)
{
    (void)state;
    double x[] = {5, 1, 4, 2, 3};
    const double orig[] = {5, 1, 4, 2, 3};
    stats_summary s = stats_summarize(x, 5);
    assert_memory_equal(x, orig, sizeof x);
    near(s.mean, 3);
    near(s.median, 3); /* h = 2 */
    near(s.q1, 2);     /* h = 1 */
    near(s.q3, 4);     /* h = 3 */
    near(s.iqr, 2);
    near(s.min, 1);
    near(s.max, 5);
    near(s.stddev, sqrt(2.5)); /* (4 + 1 + 0 + 1 + 4) / 4 */
    near(s.rsd, sqrt(2.5) / 3);
    near(stats_rsd(x, 5), s.rsd);
    assert_memory_equal(x, orig, sizeof x);
}

static void test_even(void **state)
{
    (void)state;
    const double x[] = {10, 40, 20, 30};
    stats_summary s = stats_summarize(x, 4);
    near(s.median, 25); /* h = 1.5 */
    near(s.q1, 17.5);   /* h = 0.75: 10 + 0.75 * 10 */
    near(s.q3, 32.5);   /* h = 2.25: 30 + 0.25 * 10 */
    near(s.iqr, 15);
    near(s.mean, 25);
    near(s.stddev, sqrt(500.0 / 3)); /* (225 + 25 + 25 + 225) / 3 */

    /* numpy.percentile([1, 2, 3, 4, 5, 100], [25, 50, 75]) = 2.25, 3.5, 4.75 */
    const double y[] = {100, 5, 1, 4, 2, 3};
    s = stats_summarize(y, 6);
    near(s.q1, 2.25);
    near(s.median, 3.5);
    near(s.q3, 4.75);
    near(s.iqr, 2.5);
    near(s.mean, 115.0 / 6);
    near(s.max, 100);
}

static void test_quantile_sorted(void **state)
{
    (void)state;
    const double x[] = {0, 10, 20, 30, 40};
    near(stats_quantile_sorted(x, 5, 0), 0);
    near(stats_quantile_sorted(x, 5, 1), 40);
    near(stats_quantile_sorted(x, 5, 0.1), 4);  /* h = 0.4 */
    near(stats_quantile_sorted(x, 5, 0.5), 20); /* h = 2 */
    near(stats_quantile_sorted(x, 5, 0.9), 36); /* h = 3.6 */
    near(stats_quantile_sorted(x, 5, 0.99), 39.6);
    /* Outside [0, 1] (out of contract) clamps to the ends rather than reading past. */
    near(stats_quantile_sorted(x, 5, -1), 0);
    near(stats_quantile_sorted(x, 5, 2), 40);
    /* Equal neighbours, even infinite ones, give themselves (no inf - inf). */
    const double inf2[] = {1, INFINITY, INFINITY};
    assert_true(isinf(stats_quantile_sorted(inf2, 3, 0.75)));
}

static void test_large_permuted(void **state)
{
    (void)state;
    double x[1000];
    for (int i = 0; i < 1000; i++)
        x[i] = 1 + (i * 7919) % 1000; /* a permutation of 1..1000 */
    stats_summary s = stats_summarize(x, 1000);
    near(s.median, 500.5);
    near(s.q1, 250.75); /* h = 249.75 */
    near(s.q3, 750.25); /* h = 749.25 */
    near(s.iqr, 499.5);
    near(s.mean, 500.5);
    near(s.min, 1);
    near(s.max, 1000);
    near(s.stddev, sqrt(1000.0 * 1001 / 12)); /* n(n+1)/12 for 1..n, sample variance */
    near(x[1], 1 + 7919 % 1000);              /* still unsorted */
}

static void test_rsd(void **state)
{
    (void)state;
    const double x[] = {2, 4, 4, 4, 5, 5, 7, 9}; /* mean 5, squares 32 */
    near(stats_rsd(x, 8), sqrt(32.0 / 7) / 5);
    stats_summary s = stats_summarize(x, 8);
    near(s.stddev, sqrt(32.0 / 7));
    assert_true(s.rsd == stats_rsd(x, 8)); /* same arithmetic, bit for bit */
    const double zero_mean[] = {-1, 1};
    assert_true(stats_rsd(zero_mean, 2) == 0);
    assert_true(stats_summarize(zero_mean, 2).rsd == 0);
    near(stats_summarize(zero_mean, 2).stddev, sqrt(2));
    const double same[] = {7, 7, 7};
    assert_true(stats_rsd(same, 3) == 0);
    assert_true(stats_rsd(x, 1) == 0);
}

static void test_geomean(void **state)
{
    (void)state;
    const double a[] = {1, 4, 16};
    near(stats_geomean(a, 3), 4);
    const double b[] = {2, 0, -3, 8}; /* 0 and -3 ignored: sqrt(16) */
    near(stats_geomean(b, 4), 4);
    const double c[] = {0, -1, -0.0};
    assert_true(stats_geomean(c, 3) == 0);
    const double d[] = {NAN, 9, 1}; /* NaN is not positive either */
    near(stats_geomean(d, 3), 3);
    const double e[] = {1e-300, 1e300}; /* no overflow through a product */
    near(stats_geomean(e, 2), 1);
    const double f[] = {2.5};
    near(stats_geomean(f, 1), 2.5);
}

/* Order-statistic ranks of the median's 95 % CI: exact binomial answers (P(Bin(n, 1/2) < lo)
 * <= 2.5 %, computed with exact integers), and none for 5 samples or fewer. */
static void test_median_ci_ranks(void **state)
{
    (void)state;
    static const size_t want[][3] = {{6, 1, 6},   {8, 1, 8},     {9, 2, 8},       {10, 2, 9},
                                     {20, 6, 15}, {100, 40, 61}, {1000, 469, 532}};
    size_t lo = 0, hi = 0;
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        assert_int_equal(stats_median_ci_ranks(want[i][0], 0.95, &lo, &hi), 0);
        assert_int_equal(lo, want[i][1]);
        assert_int_equal(hi, want[i][2]);
    }
    assert_int_equal(stats_median_ci_ranks(5, 0.95, &lo, &hi), -1);
    assert_int_equal(stats_median_ci_ranks(1, 0.95, &lo, &hi), -1);
    assert_int_equal(stats_median_ci_ranks(100, 1.0, &lo, &hi), -1);
    /* above 1000 the normal approximation: the exact rank, or one wider (never narrower) */
    static const size_t approx[][2] = {{1001, 470}, {2000, 956}, {5000, 2431}, {100000, 49690}};
    for (size_t i = 0; i < sizeof approx / sizeof *approx; i++) {
        assert_int_equal(stats_median_ci_ranks(approx[i][0], 0.95, &lo, &hi), 0);
        assert_true(lo == approx[i][1] || lo + 1 == approx[i][1]);
        assert_int_equal(hi, approx[i][0] + 1 - lo);
    }
}

/* The half-width relative to the median over known samples: 1..100 gives (61 - 40) / 2 / 50.5. */
static void test_median_ci_rel(void **state)
{
    (void)state;
    double x[100];
    for (int i = 0; i < 100; i++)
        x[i] = 100 - i;
    stats_sort(x, 100);
    near(x[0], 1);
    near(stats_median_ci_rel(x, 100, 0.95), 21.0 / 2 / 50.5);
    double same[10] = {2, 2, 2, 2, 2, 2, 2, 2, 2, 2};
    near(stats_median_ci_rel(same, 10, 0.95), 0);
    assert_true(isinf(stats_median_ci_rel(same, 5, 0.95)));
    double zero[8] = {0};
    assert_true(isinf(stats_median_ci_rel(zero, 8, 0.95)));
}

/* The CI over groups: 20 groups of 25 equal samples at 100.0, 100.1, ..., 101.9. The order
 * statistics see 500 samples and a half-width of one step (0.05 %); resampling groups, the median
 * is that of 20 group values, whose 95 % interval spans some +-4 steps (about 0.4 %). Groups drawn
 * from one distribution (40 groups of 25, uniform noise) give about the order statistics' width. */
static void test_median_ci_grouped(void **state)
{
    (void)state;
    double x[1000];
    int g[1000];
    for (int i = 0; i < 500; i++)
        x[i] = 100.0 + 0.1 * (i / 25), g[i] = i / 25;
    size_t groups = 0;
    double grouped = stats_median_ci_rel_grouped(x, g, 500, 0.95, 2000, 7, &groups);
    assert_int_equal(groups, 20);
    assert_true(grouped > 0.0025 && grouped < 0.006);
    double sorted[500];
    memcpy(sorted, x, sizeof sorted);
    stats_sort(sorted, 500);
    assert_true(stats_median_ci_rel(sorted, 500, 0.95) < 0.001);
    /* groups are runs of equal names in order: a name seen again later starts a new group */
    for (int i = 0; i < 500; i++)
        g[i] = (i / 25) % 2;
    assert_true(stats_median_ci_rel_grouped(x, g, 500, 0.95, 2000, 7, &groups) > 0.0025);
    assert_int_equal(groups, 20);
    /* no group effect: close to the order statistics' interval */
    uint64_t lcg = 1;
    for (int i = 0; i < 1000; i++) {
        lcg = lcg * 6364136223846793005ULL + 1442695040888963407ULL;
        x[i] = 100.0 + (double)(lcg >> 11) / 9007199254740992.0, g[i] = i / 25;
    }
    grouped = stats_median_ci_rel_grouped(x, g, 1000, 0.95, 2000, 7, &groups);
    double iid[1000];
    memcpy(iid, x, sizeof iid);
    stats_sort(iid, 1000);
    double plain = stats_median_ci_rel(iid, 1000, 0.95);
    assert_int_equal(groups, 40);
    assert_true(grouped > 0.6 * plain && grouped < 1.6 * plain);
    /* one group, or no positive median: no interval */
    for (int i = 0; i < 10; i++)
        g[i] = 3;
    assert_true(isinf(stats_median_ci_rel_grouped(x, g, 10, 0.95, 100, 7, &groups)));
    assert_int_equal(groups, 1);
    double zero[4] = {0, 0, 0, 0};
    int two[4] = {0, 0, 1, 1};
    assert_true(isinf(stats_median_ci_rel_grouped(zero, two, 4, 0.95, 100, 7, NULL)));
}

/* Uniform in [-1, 1) from the LCG state *S. */
static double uniform_pm1(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(*s >> 11) / 9007199254740992.0 * 2 - 1;
}

/* Variance components: by hand, groups {1, 3} {4, 6} {10, 12, 14}: within 12 / 4 = 3; the means
 * 2, 5, 12 vary by 26.33, less 3 * (1/2 + 1/2 + 1/3) / 3 = 1.33 of within noise: 25. Drawn: 400
 * groups of 5, uniform group offsets of variance 4 and noise of variance 1, recovered within
 * sampling error; one group, or groups of one, give nothing. */
static void test_variance_parts(void **state)
{
    (void)state;
    double x[2000] = {1, 3, 4, 6, 10, 12, 14}, within = -1, between = -1;
    int g[2000] = {0, 0, 1, 1, 2, 2, 2};
    assert_int_equal(stats_variance_parts(x, g, 7, &within, &between), 3);
    near(within, 3);
    near(between, 25);
    uint64_t lcg = 5;
    double offset = 0;
    for (int i = 0; i < 2000; i++) {
        if (i % 5 == 0)
            offset = uniform_pm1(&lcg) * sqrt(3.0) * 2;
        x[i] = 100 + offset + uniform_pm1(&lcg) * sqrt(3.0);
        g[i] = i / 5;
    }
    assert_int_equal(stats_variance_parts(x, g, 2000, &within, &between), 400);
    assert_true(within > 0.9 && within < 1.1);
    assert_true(between > 3.3 && between < 4.7);
    assert_int_equal(stats_variance_parts(x, (int[5]){0}, 5, &within, &between), 1);
    assert_true(within == 0 && between == 0);
    int singles[4] = {0, 1, 2, 3};
    assert_int_equal(stats_variance_parts(x, singles, 4, &within, &between), 4);
    assert_true(within == 0 && between == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_one),
        cmocka_unit_test(test_two),
        cmocka_unit_test(test_odd_unsorted_not_modified),
        cmocka_unit_test(test_even),
        cmocka_unit_test(test_quantile_sorted),
        cmocka_unit_test(test_large_permuted),
        cmocka_unit_test(test_rsd),
        cmocka_unit_test(test_geomean),
        cmocka_unit_test(test_median_ci_ranks),
        cmocka_unit_test(test_median_ci_rel),
        cmocka_unit_test(test_median_ci_grouped),
        cmocka_unit_test(test_variance_parts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
