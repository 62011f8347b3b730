/* test_supervisor.c - plateau, cycle, regression and failing-family findings on hand-made
 * round histories; a healthy history gets none. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "supervisor.h"

static const sv_policy policy = {3, 3, 0.02};

static void test_healthy(void **state)
{
    (void)state;
    sv_round r[] = {{"tune.LANES=2", 1, 1.3}, {"tune.LANES=4", 0, 1.3}, {"tune.MAX_THREADS=4", 1, 1.1}};
    char out[512];
    assert_int_equal(sv_advise(r, 3, &policy, out, sizeof out), 0);
    assert_string_equal(out, "");
}

static void test_plateau_and_family(void **state)
{
    (void)state;
    sv_round r[] = {
        {"tune.LANES=2", 1, 1.3}, {"tune.LANES=4", 0, 1.3}, {"tune.LANES=8", 0, 1.3}, {"tune.LANES=16", 0, 1.3}};
    char out[512];
    assert_int_equal(sv_advise(r, 4, &policy, out, sizeof out), 2);
    assert_non_null(strstr(out, "plateau: 3 rounds without a gain"));
    assert_non_null(strstr(out, "family tune.LANES: rejected 3 times running"));
    /* a promotion that does not lower the best is no gain */
    sv_round flat[] = {{"a", 1, 1.0}, {"b", 1, 1.0}, {"c", 1, 1.0}, {"d", 1, 1.0}};
    assert_int_equal(sv_advise(flat, 4, &policy, out, sizeof out), 1);
    assert_non_null(strstr(out, "plateau: 3 rounds"));
}

static void test_cycle_and_regression(void **state)
{
    (void)state;
    sv_round r[] = {{"tune.LANES=2", 1, 1.0}, {"gdn.vector-state", 1, 0.9}, {"tune.LANES=2", 0, 0.95}};
    char out[512];
    assert_int_equal(sv_advise(r, 3, &policy, out, sizeof out), 2);
    assert_non_null(strstr(out, "cycle: round 3 repeats the direction of round 1 (tune.LANES=2)"));
    assert_non_null(
        strstr(out, "regression: after round 3 the best is 0.9500 ms, 5.6% slower than the earlier best 0.9000 ms"));
    char fam[64];
    assert_string_equal(sv_family("tune.LANES=2", fam, sizeof fam), "tune.LANES");
    assert_string_equal(sv_family("gdn.vector-state", fam, sizeof fam), "gdn.vector-state");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_healthy),
        cmocka_unit_test(test_plateau_and_family),
        cmocka_unit_test(test_cycle_and_regression),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
