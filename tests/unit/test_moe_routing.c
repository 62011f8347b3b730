/* test_moe_routing.c - DeepSeek-V3 routing (src/moe_routing.h) on hand-made logits: ties go to
 * the lower index, groups are ranked by the sum of their top two scores (not their best, not
 * their total), the bias chooses but does not weigh, weights are normalized and scaled; then
 * random logits against an independent sort-based transcription of the PyTorch reference, the
 * local-expert counts and the configurations refused. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dtype.h"
#include "moe_routing.h"
#include "rng.h"

#define E 256
#define K 8

static float sig(float x)
{
    return 1.0f / (1.0f + expf(-x));
}

/* Routes one token of DeepSeek-V3 shape with LOGITS and BIAS (floats), scale 2.5. */
static void route_one(const float *logits, const float *bias, int32_t *idx, float *w)
{
    const moe_routing_cfg c = MOE_ROUTING_DSV3;
    moe_routing_token(&c, logits, bias, 2.5f, idx, w);
}

static void fill(float *x, int n, float v)
{
    for (int i = 0; i < n; i++)
        x[i] = v;
}

static void expect_idx(const int32_t *idx, const int32_t *want, int n)
{
    for (int k = 0; k < n; k++)
        if (idx[k] != want[k])
            fail_msg("slot %d: expert %d, expected %d", k, idx[k], want[k]);
}

/* All scores equal: groups 0-3 are kept and experts 0-7 chosen (lower index first), each
 * weighing 0.5 / 4 * 2.5 exactly. */
static void test_all_equal(void **state)
{
    (void)state;
    float logits[E], bias[E];
    fill(logits, E, 0.0f);
    fill(bias, E, 0.0f);
    int32_t idx[K];
    float w[K];
    route_one(logits, bias, idx, w);
    const int32_t want[K] = {0, 1, 2, 3, 4, 5, 6, 7};
    expect_idx(idx, want, K);
    for (int k = 0; k < K; k++)
        assert_true(w[k] == 0.3125f);
}

/* Nine equal winners over groups 0-3 for eight places: the highest index (98) loses. */
static void test_tie_at_the_boundary(void **state)
{
    (void)state;
    float logits[E], bias[E];
    fill(logits, E, -4.0f);
    fill(bias, E, 0.0f);
    const int winners[9] = {1, 2, 3, 33, 34, 65, 66, 97, 98};
    for (int i = 0; i < 9; i++)
        logits[winners[i]] = 3.0f;
    int32_t idx[K];
    float w[K];
    route_one(logits, bias, idx, w);
    expect_idx(idx, (const int32_t[]){1, 2, 3, 33, 34, 65, 66, 97}, K);
    /* and between equal groups: group 3 ties group 4 on its top two; the lower keeps its place */
    fill(logits, E, -4.0f);
    for (int g = 0; g < 5; g++)
        logits[32 * g] = logits[32 * g + 1] = 3.0f;
    route_one(logits, bias, idx, w);
    expect_idx(idx, (const int32_t[]){0, 1, 32, 33, 64, 65, 96, 97}, K);
}

/* Group 7 holds the single best expert but nothing else: its top-two sum loses to groups 0-3
 * with two good experts each, so expert 224 is not chosen, though a flat top-8 would take it. */
static void test_groups_by_top_two(void **state)
{
    (void)state;
    float logits[E], bias[E];
    fill(logits, E, -8.0f);
    fill(bias, E, 0.0f);
    logits[224] = 8.0f;
    for (int g = 0; g < 4; g++)
        logits[32 * g + 5] = logits[32 * g + 9] = 1.0f;
    int32_t idx[K];
    float w[K];
    route_one(logits, bias, idx, w);
    expect_idx(idx, (const int32_t[]){5, 9, 37, 41, 69, 73, 101, 105}, K);
    const moe_routing_cfg flat = {E, 1, 1, K};
    moe_routing_token(&flat, logits, bias, 2.5f, idx, w);
    assert_int_equal(idx[0], 224);
}

/* 12 experts in 3 groups of 4, keep 1, choose 2: A = {4,-4,-4,-4} (top two 1.0), B = {1,1,-4,-4}
 * (1.46), C = {0.9 x 4} (top two 1.42, total 2.84): B is kept; its two experts weigh half each. */
static void test_top_two_not_total(void **state)
{
    (void)state;
    const moe_routing_cfg c = {12, 3, 1, 2};
    const float logits[12] = {4, -4, -4, -4, 1, 1, -4, -4, 0.9f, 0.9f, 0.9f, 0.9f};
    float bias[12] = {0};
    int32_t idx[2];
    float w[2];
    moe_routing_token(&c, logits, bias, 3.0f, idx, w);
    expect_idx(idx, (const int32_t[]){4, 5}, 2);
    assert_true(fabsf(w[0] - 1.5f) < 1e-6f && fabsf(w[1] - 1.5f) < 1e-6f);
}

/* The bias chooses: expert 8 (equal logit, +0.5 bias) comes first and expert 7 drops out; the
 * weights come from the unbiased scores, all equal here. A bias of -1 on group 0 moves the
 * choice to the next groups. */
static void test_bias_chooses_not_weighs(void **state)
{
    (void)state;
    float logits[E], bias[E];
    fill(logits, E, -4.0f);
    fill(bias, E, 0.0f);
    for (int e = 0; e <= 8; e++)
        logits[e] = 2.0f;
    bias[8] = 0.5f;
    int32_t idx[K];
    float w[K];
    route_one(logits, bias, idx, w);
    expect_idx(idx, (const int32_t[]){8, 0, 1, 2, 3, 4, 5, 6}, K);
    for (int k = 0; k < K; k++)
        assert_true(fabsf(w[k] - 0.3125f) < 1e-6f);
    for (int e = 0; e < 32; e++)
        bias[e] = -1.0f;
    route_one(logits, bias, idx, w);
    for (int k = 0; k < K; k++)
        assert_true(idx[k] >= 32 && idx[k] < 160); /* groups 1-4 */
}

/* Weights are s / (sum of the chosen s) * scale: two experts of unequal scores. */
static void test_weights(void **state)
{
    (void)state;
    const moe_routing_cfg c = {4, 2, 1, 2};
    const float logits[4] = {2.0f, -1.0f, -3.0f, -3.0f}, bias[4] = {0};
    int32_t idx[2];
    float w[2];
    moe_routing_token(&c, logits, bias, 2.5f, idx, w);
    expect_idx(idx, (const int32_t[]){0, 1}, 2);
    double s0 = 1 / (1 + exp(-2.0)), s1 = 1 / (1 + exp(1.0));
    assert_true(fabs(w[0] - 2.5 * s0 / (s0 + s1)) < 1e-6);
    assert_true(fabs(w[1] - 2.5 * s1 / (s0 + s1)) < 1e-6);
}

/* ---- random logits against a sort-based transcription of the PyTorch reference ---------- */

typedef struct ranked {
    float score;
    int index;
} ranked;

static int by_score(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->score != y->score)
        return x->score > y->score ? -1 : 1;
    return x->index - y->index;
}

/* groups = topk(top2 sums, 4); mask; topk(masked biased scores, 8), by sorting. */
static void sorted_reference(const float *logits, const float *bias, int32_t *idx, float *w)
{
    float s[E], b[E];
    ranked groups[8], experts[E];
    for (int e = 0; e < E; e++) {
        s[e] = sig(logits[e]);
        b[e] = s[e] + bias[e];
    }
    for (int g = 0; g < 8; g++) {
        ranked in[32];
        for (int i = 0; i < 32; i++)
            in[i] = (ranked){b[32 * g + i], i};
        qsort(in, 32, sizeof in[0], by_score);
        groups[g] = (ranked){in[0].score + in[1].score, g};
    }
    qsort(groups, 8, sizeof groups[0], by_score);
    int kept[8] = {0};
    for (int r = 0; r < 4; r++)
        kept[groups[r].index] = 1;
    for (int e = 0; e < E; e++)
        experts[e] = (ranked){kept[e / 32] ? b[e] : -INFINITY, e};
    qsort(experts, E, sizeof experts[0], by_score);
    float sum = 0;
    for (int k = 0; k < K; k++) {
        idx[k] = experts[k].index;
        sum += s[idx[k]];
    }
    for (int k = 0; k < K; k++)
        w[k] = s[idx[k]] / (sum + 1e-20f) * 2.5f;
}

static void test_random_against_sorting(void **state)
{
    (void)state;
    enum { T = 2000 };
    float *logits = malloc(sizeof(float) * T * E), bias[E];
    uint16_t bias_bf16[E];
    rng_fill(logits, KWB_F32, (size_t)T * E, 11);
    rng_fill(bias_bf16, KWB_BF16, E, 12);
    for (int e = 0; e < E; e++)
        bias[e] = dtype_bf16_to_f32(bias_bf16[e]) * 0.1f;
    for (int e = 0; e < E; e++)
        bias_bf16[e] = dtype_f32_to_bf16(bias[e]);
    for (int e = 0; e < E; e++)
        bias[e] = dtype_bf16_to_f32(bias_bf16[e]);
    int32_t *idx = malloc(sizeof(int32_t) * T * K);
    float *w = malloc(sizeof(float) * T * K);
    const moe_routing_cfg c = MOE_ROUTING_DSV3;
    assert_int_equal(moe_routing_run(&c, logits, bias_bf16, T, 2.5f, idx, w), 0);
    for (int t = 0; t < T; t++) {
        int32_t want[K];
        float ww[K];
        sorted_reference(logits + t * E, bias, want, ww);
        for (int k = 0; k < K; k++) {
            if (idx[t * K + k] != want[k])
                fail_msg("token %d slot %d: expert %d, expected %d", t, k, idx[t * K + k], want[k]);
            assert_true(w[t * K + k] == ww[k]);
        }
    }
    free(logits);
    free(idx);
    free(w);
}

/* ---- local counts and configurations ----------------------------------------------------- */

static void test_count_local(void **state)
{
    (void)state;
    /* three tokens, top 2: local experts are 10..13 */
    const int32_t idx[6] = {10, 40, 11, 12, 50, 60};
    moe_routing_local l = moe_routing_count_local(idx, 3, 2, 10, 4);
    assert_int_equal(l.pairs, 3);
    assert_int_equal(l.tokens, 2);
    assert_int_equal(l.experts, 3);
    assert_int_equal(l.max_load, 1);
    const int32_t same[4] = {5, 6, 5, 7};
    l = moe_routing_count_local(same, 2, 2, 4, 4);
    assert_int_equal(l.pairs, 4);
    assert_int_equal(l.experts, 3);
    assert_int_equal(l.max_load, 2);
    l = moe_routing_count_local(same, 2, 2, 100, 32);
    assert_int_equal(l.pairs + l.tokens + l.experts + l.max_load, 0);
}

static void test_configurations(void **state)
{
    (void)state;
    const moe_routing_cfg good[] = {MOE_ROUTING_DSV3, {4, 2, 1, 2}, {256, 1, 1, 16}, {64, 32, 32, 16}};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        assert_true(moe_routing_cfg_valid(&good[i]));
    const moe_routing_cfg bad[] = {
        {257, 1, 1, 8},   /* too many experts */
        {256, 6, 4, 8},   /* groups do not divide */
        {256, 256, 4, 8}, /* groups of one: no top two */
        {256, 8, 9, 8},   /* keeps more groups than there are */
        {256, 8, 0, 8},   /* keeps none */
        {256, 8, 4, 17},  /* top_k over the maximum */
        {8, 4, 1, 3},     /* top_k beyond the kept experts */
        {256, 8, 4, 0},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (moe_routing_cfg_valid(&bad[i]))
            fail_msg("configuration %zu accepted", i);
    int32_t idx[8];
    float w[8], logits[8] = {0};
    uint16_t bias[8] = {0};
    assert_int_equal(moe_routing_run(&bad[6], logits, bias, 1, 1.0f, idx, w), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_equal),
        cmocka_unit_test(test_tie_at_the_boundary),
        cmocka_unit_test(test_groups_by_top_two),
        cmocka_unit_test(test_top_two_not_total),
        cmocka_unit_test(test_bias_chooses_not_weighs),
        cmocka_unit_test(test_weights),
        cmocka_unit_test(test_random_against_sorting),
        cmocka_unit_test(test_count_local),
        cmocka_unit_test(test_configurations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
