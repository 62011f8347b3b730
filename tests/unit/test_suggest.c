/* test_suggest.c - "did you mean": the edit distance (with adjacent swaps) and the choice of the
 * nearest name, or none when nothing is near. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "suggest.h"

static void test_distance(void **state)
{
    (void)state;
    assert_int_equal(suggest_distance("", ""), 0);
    assert_int_equal(suggest_distance("definition", "definition"), 0);
    assert_int_equal(suggest_distance("definitoin", "definition"), 1); /* a swap is one edit */
    assert_int_equal(suggest_distance("defnition", "definition"), 1);
    assert_int_equal(suggest_distance("kitten", "sitting"), 3);
    assert_int_equal(suggest_distance("", "abc"), 3);
}

static void test_closest(void **state)
{
    (void)state;
    const char *const opts[] = {"definition", "dataset", "devices", "device", "solution"};
    assert_string_equal(suggest_closest("definitoin", opts, 5), "definition");
    assert_string_equal(suggest_closest("devise", opts, 5), "device");
    assert_string_equal(suggest_closest("solutoin", opts, 5), "solution");
    assert_null(suggest_closest("bogus-flag", opts, 5)); /* nothing near */
    const char *const defs[] = {"gemm_n128_k2048", "rmsnorm_h128", "top_k_sampling_from_probs_v129280"};
    assert_string_equal(suggest_closest("gemm_n128_k2084", defs, 3), "gemm_n128_k2048");
    assert_string_equal(suggest_closest("sampling", defs, 3), "top_k_sampling_from_probs_v129280"); /* a part */
    assert_null(suggest_closest("zzzzzzzz", defs, 3));
    assert_null(suggest_closest("x", defs, 0));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_distance),
        cmocka_unit_test(test_closest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
