/* test_judge.c - the promotion rule on a paired evaluation's JSON: a workload whose paired verdict
 * is "slower" blocks promotion, and so does one whose verdict is "unclear" (too few samples) while
 * its median ratio is plainly over the threshold (the GDN prefill sweep of issue 23: 38 us against
 * 12 us came back unclear at 3 samples); an unclear verdict near 1 does not. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge.h"
#include "testutil.h"

static int setup(void **state)
{
    return testutil_tmpdir_setup(state, "/tmp/kwb-test-judge-XXXXXX");
}

/* An eval --json document with one workload per (verdict kind, ratio) pair, all PASSED. */
static void write_eval(const char *path, const char *const *kinds, const double *ratios, int n)
{
    char doc[4096];
    int used = snprintf(doc, sizeof doc, "{\"summary\": {\"mean_latency_ms\": 0.04}, \"workloads\": [");
    for (int i = 0; i < n; i++)
        used += snprintf(doc + used, sizeof doc - (size_t)used,
                         "%s{\"uuid\": \"w%d\", \"axes\": {\"total_seq_len\": %d}, \"status\": \"PASSED\", "
                         "\"latency\": {\"median_ms\": 0.04}, \"verdict\": {\"kind\": \"%s\", \"ratio\": %g, "
                         "\"lo\": 0, \"hi\": 0}}",
                         i ? ", " : "", i, 6 + i, kinds[i], ratios[i]);
    snprintf(doc + used, sizeof doc - (size_t)used, "]}");
    testutil_write_text(path, doc);
}

/* The rule's verdict and reason on the workloads KINDS/RATIOS. */
static int rule_on(void **state, const char *const *kinds, const double *ratios, int n, char *reason, size_t cap)
{
    char *path = testutil_path(*state, "eval.json");
    write_eval(path, kinds, ratios, n);
    eval_summary s;
    kwb_error err = {{0}};
    assert_int_equal(judge_read_summary(path, &s, &err), 0);
    free(path);
    return judge_rule(&s, reason, cap);
}

static void test_unclear_but_slower_blocks(void **state)
{
    const char *kinds[] = {"faster", "unclear", "unclear"};
    const double ratios[] = {0.2, 3.16, 1.02};
    char reason[512];
    assert_int_equal(rule_on(state, kinds, ratios, 3, reason, sizeof reason), 0);
    assert_non_null(strstr(reason, "slower on 1 of 3 workloads"));
    assert_non_null(strstr(reason, "1 by the medians alone"));
}

static void test_paired_and_unclear_slower_add_up(void **state)
{
    const char *kinds[] = {"slower", "unclear", "faster"};
    const double ratios[] = {1.4, 1.8, 0.5};
    char reason[512];
    assert_int_equal(rule_on(state, kinds, ratios, 3, reason, sizeof reason), 0);
    assert_non_null(strstr(reason, "slower on 2 of 3 workloads (1 by the medians alone"));
}

static void test_unclear_near_one_passes(void **state)
{
    const char *kinds[] = {"faster", "unclear", "unclear"};
    const double ratios[] = {0.2, 1.3, 0.9};
    char reason[512];
    assert_int_equal(rule_on(state, kinds, ratios, 3, reason, sizeof reason), 1);
    assert_non_null(strstr(reason, "slower on none"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_unclear_but_slower_blocks, setup, testutil_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_paired_and_unclear_slower_add_up, setup, testutil_tmpdir_teardown),
        cmocka_unit_test_setup_teardown(test_unclear_near_one_passes, setup, testutil_tmpdir_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
