/* test_roundplan.c - the round's gate runs one representative workload per regime (the median
 * size of each), which a `--workloads` filter selects back exactly; the replay's trials come from
 * the definition's kwb.replay (199 for the DSA top-k's 1.5 % at 95 %), none where it asks none. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "roundplan.h"
#include "traceset.h"

static void load(const char *name, definition **d, workload_set *set)
{
    kwb_error err = {{0}};
    if (traceset_load(TOP_SRCDIR "/workloads", name, d, set, &err) != 0)
        fail_msg("%s", err.msg);
}

static void test_gate_filter(void **state)
{
    (void)state;
    definition *d;
    workload_set set = {0};
    load("gdn_decode_qk4_v8_d128_k_last", &d, &set);
    assert_int_equal(set.count, 54);
    char filter[512];
    int n = roundplan_gate_filter(d, &set, NULL, filter, sizeof filter);
    assert_true(n >= 2 && n <= 4);
    /* each representative is one workload; the filter selects exactly them */
    assert_non_null(strchr(filter, '|'));
    double batches[4];
    int nb = 0;
    workload_set copy = {0};
    definition *d2;
    load("gdn_decode_qk4_v8_d128_k_last", &d2, &copy);
    definition_free(d2);
    assert_int_equal(workload_set_filter(&copy, d, filter), n);
    for (int i = 0; i < copy.count; i++)
        batches[nb++] = roundplan_size_key(d, &copy.items[i]);
    for (int i = 1; i < nb; i++)
        assert_true(batches[i] > batches[i - 1]); /* smallest regime first, one per regime */
    workload_set_free(&copy);
    /* with latencies: batch 64 holding most of the time gets a regime (and a representative) of its own */
    double *lat = calloc((size_t)set.count, sizeof *lat);
    for (int i = 0; i < set.count; i++)
        lat[i] = roundplan_size_key(d, &set.items[i]) == 64 ? 100.0 : 1.0;
    char heavy[512];
    roundplan_gate_filter(d, &set, lat, heavy, sizeof heavy);
    load("gdn_decode_qk4_v8_d128_k_last", &d2, &copy);
    definition_free(d2);
    workload_set_filter(&copy, d, heavy);
    assert_true(roundplan_size_key(d, &copy.items[copy.count - 1]) == 64);
    workload_set_free(&copy);
    free(lat);
    workload_set empty = {0};
    assert_int_equal(roundplan_gate_filter(d, &empty, NULL, filter, sizeof filter), 0);
    assert_string_equal(filter, "");
    workload_set_free(&set);
    definition_free(d);
}

static void test_replay_trials(void **state)
{
    (void)state;
    definition *d;
    workload_set set = {0};
    load("dsa_topk_indexer_fp8_h64_d128_topk2048_ps64", &d, &set);
    assert_int_equal(roundplan_replay_trials(d), 199);
    workload_set_free(&set);
    definition_free(d);
    load("gdn_decode_qk4_v8_d128_k_last", &d, &set);
    assert_int_equal(roundplan_replay_trials(d), 0);
    workload_set_free(&set);
    definition_free(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gate_filter),
        cmocka_unit_test(test_replay_trials),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
