/* test_regimes.c - regimes over the contest's own distributions (batch sizes and latencies of
 * the paper's retained GDN decode run), a heavy key isolated, degenerate inputs. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "regimes.h"

/* GDN decode: 54 workloads, batch sizes 1..64 with the paper's mean latency per batch size. */
static void test_gdn_decode(void **state)
{
    (void)state;
    const double sizes[] = {1, 4, 8, 16, 32, 48, 64};
    const int counts[] = {10, 8, 7, 7, 7, 7, 8};
    const double ms[] = {0.002461, 0.00304, 0.00405, 0.004918, 0.007444, 0.010093, 0.012551};
    double key[54], lat[54];
    int n = 0, assign[54];
    for (int s = 0; s < 7; s++)
        for (int c = 0; c < counts[s]; c++, n++)
            key[n] = sizes[s], lat[n] = ms[s];
    regime r[REGIMES_MAX];
    int k = regimes_split(key, lat, n, r, assign);
    /* two ranges would leave 51% in one: three, small / middle / batch 64 */
    assert_int_equal(k, 3);
    assert_true(r[0].key_lo == 1 && r[0].key_hi == 16);
    assert_true(r[1].key_lo == 32 && r[1].key_hi == 48);
    assert_true(r[2].key_lo == 64 && r[2].key_hi == 64);
    assert_int_equal(r[0].count + r[1].count + r[2].count, 54);
    double sum = 0;
    for (int g = 0; g < k; g++) {
        sum += r[g].share;
        assert_true(r[g].share < 0.5);
    }
    assert_true(sum > 0.999 && sum < 1.001);
    for (int i = 0; i < n; i++)
        assert_true(key[i] >= r[assign[i]].key_lo && key[i] <= r[assign[i]].key_hi);
}

/* One size holding 60% of the latency is a regime of its own; the rest is split around it. */
static void test_heavy_isolated(void **state)
{
    (void)state;
    double key[] = {1, 2, 3, 4, 5, 6};
    double lat[] = {1, 1, 12, 1, 4, 1}; /* total 20; size 3 holds 60% */
    int assign[6];
    regime r[REGIMES_MAX];
    int k = regimes_split(key, lat, 6, r, assign);
    assert_true(k >= 2);
    int g = assign[2];
    assert_true(r[g].key_lo == 3 && r[g].key_hi == 3);
    assert_int_equal(r[g].count, 1);
    assert_true(r[g].share > 0.59 && r[g].share < 0.61);
}

/* Many heavy-ish values cannot all be isolated in four ranges: still a valid split. */
static void test_degenerate(void **state)
{
    (void)state;
    regime r[REGIMES_MAX];
    int assign[8];
    assert_int_equal(regimes_split(NULL, NULL, 0, r, assign), 0);
    double same[] = {7, 7, 7}, lat[] = {1, 2, 0};
    assert_int_equal(regimes_split(same, lat, 3, r, assign), 1);
    assert_int_equal(r[0].count, 3);
    double key[] = {1, 2, 3, 4, 5, 6, 7};
    double spiky[] = {0.1, 5, 0.1, 5, 0.1, 5, 0.1};
    int k = regimes_split(key, spiky, 7, r, assign);
    assert_true(k >= 2 && k <= REGIMES_MAX);
    int total = 0;
    for (int g = 0; g < k; g++)
        total += r[g].count;
    assert_int_equal(total, 7);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gdn_decode),
        cmocka_unit_test(test_heavy_isolated),
        cmocka_unit_test(test_degenerate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
